-- SPDX-License-Identifier: BSD-3-Clause
-- Load the SCR shell plugin for every job: put this file in the shell's
-- lua.d directory (e.g. /etc/flux/shell/lua.d/scr.lua) or add the lines to
-- shell.lua.  Jobs turn SCR on with `flux run -o scr` (or -o scr=on).
-- The conf table is the site's: node-local cache and control bases, the
-- free space each cache base must have, how long a shell's exit waits for
-- the other nodes of the job (PARTNER second round).
plugin.load {
    file = "/usr/lib/flux/shell/plugins/scr.so",
    conf = {
        cache_base = "/dev/shm",
        cntl_base = "/dev/shm",
        capacity = "8GB",
        timeout = 60,
    },
}
