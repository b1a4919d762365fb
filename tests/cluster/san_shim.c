/* SPDX-License-Identifier: BSD-3-Clause */
/* san_shim.c - preloaded after the sanitizer runtime into the schedulers'
 * daemons and clients in the cluster tests' sanitizer mode (san.sh).
 *
 * dlclose() keeps every shared object loaded: Slurm and Flux unload their
 * plugins, SCR's included, before the process exits, and LeakSanitizer
 * looks for leaks only then; a leak allocated in an unloaded plugin would
 * show frames of "<unknown module>" that no report could attribute and no
 * suppression could name.
 *
 * LD_PRELOAD leaves the environment as the process starts: the preload is
 * for this process only.  The programs it starts get the sanitizer options
 * but not the runtime: scr-prolog, scr-epilog and the application, built by
 * clang, carry a static runtime that refuses to start beside a second one.
 * Test use only.
 */
#include <dlfcn.h>
#include <stdlib.h>

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}

__attribute__((constructor)) static void san_shim_init(void)
{
    unsetenv("LD_PRELOAD");
}
