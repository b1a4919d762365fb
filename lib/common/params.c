/* SPDX-License-Identifier: BSD-3-Clause */
/* params.c - the parameter table */
#include <string.h>

#include "params.h"

static const char *const store_keys[] = {"GROUP", "COUNT", "ENABLED", "MKDIR",
                                         "TYPE",  "VIEW",  "FLUSH",   NULL};
static const char *const ckpt_keys[] = {
    "INTERVAL",     "GROUP",   "STORE",  "TYPE",   "SET_SIZE",
    "SET_FAILURES", "ENABLED", "OUTPUT", "BYPASS", NULL};
static const char *const cntl_keys[] = {"BYTES", NULL};

static const param_info_t table[] = {
    /* general */
    {"SCR_ENABLE", "1", 0, NULL,
     "0 turns every SCR call into a cheap pass-through: files are written where the "
     "application names them, nothing is cached or protected"},
    {"SCR_DEBUG", "0", 0, NULL,
     "debug level: 1 prints progress on rank 0 (including where the node topology came "
     "from), higher is chattier"},
    {"SCR_PROGRESS_SECONDS", "1", 0, NULL,
     "with SCR_DEBUG>=1 (or the scr command on a terminal): a progress line at most "
     "every N seconds during a foreground flush, a scavenge or a rebuild at the prefix "
     "(0: none)"},
    {"SCR_CONF_FILE", NULL, 0, NULL,
     "the user configuration file (default: $SCR_PREFIX/.scrconf)"},
    {"SCR_PREFIX", NULL, 0, NULL,
     "the prefix directory on the parallel file system, where datasets are flushed, "
     "indexed and fetched from, and where the halt, flush and nodes files live (default: "
     "the current directory)"},
    {"SCR_JOB_ID", NULL, 0, NULL,
     "job id; an SCR_JOB_ID environment variable comes before SLURM_JOB_ID and "
     "FLUX_JOB_ID, a value from a config file after them (default: defjobid); a run with "
     "the same id restarts from that job's cache"},
    {"SCR_JOB_NAME", NULL, 0, NULL, "job name (accepted; not used yet)"},
    {"SCR_USER_NAME", NULL, 0, NULL,
     "user name in cache and control paths (default: from the password database, not "
     "$USER)"},
    {"SCR_TOPOLOGY", "pmix", 0, NULL,
     "where node topology comes from: pmix (falls back to mpi) or mpi"},
    /* storage */
    {"SCR_CNTL_BASE", "/dev/shm", PARAM_SYSTEM, NULL,
     "base of the control directory <base>/<user>/scr.<jobid>, which holds the filemaps; "
     "must be the cntl_base the scheduler plugins use"},
    {"SCR_CACHE_BASES_ALLOWED", NULL, PARAM_SYSTEM, NULL,
     "colon-separated directories under which a STORE or SCR_CACHE_BASE may lie (empty: "
     "anywhere)"},
    {"SCR_CACHE_BASE", "/dev/shm", 0, NULL,
     "base of the default store: datasets are cached in "
     "<base>/<user>/scr.<jobid>/scr.dataset.<id>"},
    {"SCR_CACHE_SIZE", "1", 0, NULL,
     "datasets kept in a store that sets no COUNT; while a new one is written the newest "
     "complete one stays, so the store needs room for one more"},
    {"SCR_CACHE_BYPASS", "0", 0, NULL,
     "1: every dataset's files go straight to their paths on the prefix, not to cache "
     "(files several processes write together need it); BYPASS=1 on a CKPT descriptor "
     "for "
     "its checkpoints only"},
    {"SCR_CACHE_PURGE", "0", 0, NULL,
     "1: SCR_Init forgets the datasets in cache, so a run does not restart from them"},
    /* redundancy */
    {"SCR_COPY_TYPE", "XOR", 0, NULL,
     "redundancy scheme of CKPT descriptors that name no TYPE: SINGLE, PARTNER, XOR or "
     "RS"},
    {"SCR_GROUP", "NODE", 0, NULL,
     "failure group of CKPT descriptors that name no GROUP: NODE (the host), WORLD, or "
     "an attribute name of GROUPS lines"},
    {"SCR_SET_SIZE", "8", 0, NULL,
     "processes per XOR or RS set (and PARTNER ring), each from a different failure "
     "group"},
    {"SCR_SET_FAILURES", "2", 0, NULL,
     "lost set members an RS set survives (less than SCR_SET_SIZE, at most 32)"},
    {"SCR_DISTRIBUTE", "1", 0, NULL,
     "accepted for compatibility; files always move to the node their rank runs on at "
     "restart"},
    {"SCR_CRC_ON_COPY", "0", 0, NULL,
     "PARTNER: 1: the partner checksums each copy as it arrives and fails the "
     "checkpoint's redundancy when it differs from what the sender read; 0: the copy "
     "takes the sender's CRC32 and is checked when a rebuild, flush or scavenge reads "
     "it (every cached file gets a CRC32 either way)"},
    {"SCR_CRC_ASYNC", "1", 0, NULL,
     "SINGLE: take the CRC32 of completed files in a low-priority thread after "
     "SCR_Complete_output returns, while the application computes; the next "
     "SCR_Start_output stops it, and files it did not reach keep their sizes only "
     "(0: inside SCR_Complete_output)"},
    {"SCR_REDUNDANCY_ASYNC", "0", 0, NULL,
     "PARTNER/XOR/RS: SCR_Complete_output returns once the files are written; the "
     "encode runs on a thread while the application computes, and the previous "
     "checkpoint stays the restart point until it is done (needs "
     "MPI_THREAD_MULTIPLE)"},
    {"SCR_CACHE_REUSE", "1", 0, NULL,
     "evicted partner copies and XOR/RS parity are kept (one "
     "eviction's worth) for the next such files to write over, instead of freed and "
     "allocated again (0: delete at eviction)"},
    {"SCR_COPY_MAP", "1", 0, NULL,
     "partner copies made while the application waits, and the moves of files at "
     "restart, send from and receive into the cached files' own pages (mmap) "
     "instead of through a buffer, a copy less on each side; a file being received "
     "gets its blocks first, so a full cache fails with ENOSPC (0: read and write "
     "through buffers)"},
    {"SCR_CACHE_DEFER", "1", 0, NULL,
     "with SCR_CACHE_REUSE: evicted application files are kept too, and whatever "
     "the next checkpoint did not write over is deleted on a low-priority thread "
     "once it completes, while the application computes; only when the cache (and "
     "for tmpfs the node's memory) has room for them twice over (0: delete at "
     "eviction); and only when the application computed since the last checkpoint "
     "(0.1 s or more) and the thread freed what it was given then: back to back the "
     "files are deleted at eviction all the same"},
    {"SCR_CRC_ON_RESTART", "0", 0, NULL,
     "1: a restart from cache reads every cached file for its CRC32; 0: only files "
     "whose inode, size or change time differ from what SCR_Complete_output saw (XOR "
     "and RS parity: when a rebuild uses it)"},
    {"SCR_CRC_ON_DELETE", "0", 0, NULL, "accepted for compatibility; no effect"},
    {"SCR_MPI_BUF_SIZE", "1MB", 0, NULL,
     "bytes per message in the redundancy pipelines (XOR/RS: less in large sets, so "
     "each of their buffers stays within 1-2 MiB, 4 MiB for an encode in the "
     "background); partner copies made while the application waits, and the moves "
     "of files at restart, send twice that"},
    {"SCR_FILE_BUF_SIZE", "1MB", 0, NULL, "bytes per read and write when copying files"},
    {"SCR_OVERLAP", NULL, 0, NULL,
     "1: copies and redundancy pipelines read ahead on a helper thread; 0: not; unset: "
     "only when the node's ranks leave a core free"},
    /* checkpoint policy */
    {"SCR_CHECKPOINT_INTERVAL", "0", 0, NULL,
     "SCR_Need_checkpoint says yes every Nth call (with no policy set, at every call)"},
    {"SCR_CHECKPOINT_SECONDS", "0", 0, NULL,
     "SCR_Need_checkpoint says yes once N seconds have passed since the last checkpoint"},
    {"SCR_CHECKPOINT_OVERHEAD", "0", 0, NULL,
     "SCR_Need_checkpoint says yes while checkpoints took less than this percent of the "
     "run time"},
    {"SCR_MTBF", NULL, 0, NULL,
     "one node's mean time between failures (seconds, or with s, m, h, d, y): "
     "SCR_Need_checkpoint says yes at the optimal interval (Daly) for this run's "
     "checkpoint cost and the job's MTBF (this over the node count)"},
    {"SCR_MTBF_JOB", NULL, 0, NULL,
     "the whole job's mean time between failures, as SCR_MTBF (wins over it)"},
    /* memory-protect API */
    {"SCR_DCP", "0", 0, NULL,
     "1: memory checkpoints write only the blocks that changed since the previous one"},
    {"SCR_DCP_BLOCK", "64KB", 0, NULL,
     "bytes per block that differential checkpoints hash"},
    {"SCR_DCP_FULL_EVERY", "10", 0, NULL,
     "every Nth memory checkpoint is written in full (bounds the differential chain)"},
    {"SCR_DCP_TRACK", "0", 0, NULL,
     "1: differential checkpoints hash only the blocks whose pages the kernel saw "
     "written (Linux 6.7+); not for buffers written by RDMA or devices"},
    {"SCR_MEM_TAG", NULL, 0, NULL,
     "names the program in memory checkpoint files, so a restart refuses another "
     "program's (default: the executable's name)"},
    /* flush and fetch */
    {"SCR_FLUSH", "10", 0, NULL,
     "flush every Nth checkpoint to the prefix (0: never); output datasets are always "
     "flushed"},
    {"SCR_FLUSH_WIDTH", "256", 0, NULL, "processes writing to the prefix at once"},
    {"SCR_FLUSH_ON_RESTART", "0", 0, NULL,
     "1: flush the checkpoint a run restarts from cache to the prefix during SCR_Init"},
    {"SCR_FLUSH_ASYNC", "0", 0, NULL,
     "1: flush in the background while the application computes"},
    {"SCR_FLUSH_ASYNC_BW", "200MB", 0, NULL,
     "background flush bandwidth limit per node (bytes per second)"},
    {"SCR_FLUSH_ASYNC_PERCENT", "0", 0, NULL,
     "background flush CPU limit (percent, 0: none)"},
    {"SCR_FLUSH_DIRECT", "1", 0, NULL,
     "1: flush (and the epilog's scavenge, FTI staging) with O_DIRECT writes where the "
     "prefix takes them (no copy into its page cache); 0: through the page cache"},
    {"SCR_CRC_ON_FLUSH", "1", 0, NULL,
     "check every file against its CRC32 during flush and fetch"},
    {"SCR_FETCH", "1", 0, NULL,
     "fetch the newest good checkpoint from the prefix when the cache has none"},
    {"SCR_SCAVENGE_GRACE", "60", 0, NULL,
     "seconds after an earlier job's last epilog before SCR_Init indexes its scavenged "
     "dataset"},
    {"SCR_FETCH_WIDTH", "256", 0, NULL, "processes reading from the prefix at once"},
    {"SCR_FETCH_PROTECT", "0", 0, NULL,
     "1: apply the checkpoint's redundancy in cache after a fetch, as SCR 3.1 does "
     "(0: its copy on the prefix is its redundancy until the next checkpoint)"},
    {"SCR_CURRENT", NULL, 0, NULL,
     "name of the dataset to restart from (default: the index's CURRENT, else the "
     "newest)"},
    {"SCR_GLOBAL_RESTART", "0", 0, NULL,
     "1: as SCR_FLUSH_ON_RESTART=1, and never fetch from the prefix"},
    {"SCR_PREFIX_SIZE", "0", 0, NULL,
     "checkpoints kept on the prefix; older ones are deleted after a flush (0: all)"},
    {"SCR_PREFIX_PURGE", "0", 0, NULL,
     "1: delete every dataset on the prefix at SCR_Init"},
    {"SCR_PREFIX_REUSE", "1", 0, NULL,
     "files a flush replaces at their own paths on the prefix are kept in "
     "<prefix>/.scr/scr.recycle for the next flush to write over, and what it does not "
     "take is deleted on a low-priority thread; only when the prefix has room for the "
     "dataset twice over; SCR_Finalize deletes what is left (0: freed at once by the "
     "rename)"},
    {"SCR_USE_CONTAINERS", "0", 0, NULL,
     "pack files into containers on the prefix; not supported yet: 1 warns and files are "
     "flushed one by one"},
    {"SCR_CONTAINER_SIZE", "100GB", 0, NULL,
     "bytes per container (containers are not supported yet)"},
    /* halt and runs */
    {"SCR_HALT_SECONDS", "0", 0, NULL,
     "halt when fewer seconds than this are left before the job's end time (the "
     "scheduler's, else SCR_END_TIME)"},
    {"SCR_HALT_EXIT", "0", 0, NULL,
     "1: exit inside SCR when a halt condition holds, instead of leaving it to "
     "SCR_Should_exit"},
    {"SCR_END_TIME", NULL, 0, NULL,
     "job end time (unix seconds) when the scheduler gives none"},
    {"SCR_RUNS", "1", 0, NULL, "launches scr run makes in one job (-1: no limit)"},
    {"SCR_MIN_NODES", NULL, 0, NULL,
     "fewest healthy nodes scr run relaunches on (default: as many as the last run "
     "used)"},
    {"SCR_EXCLUDE_NODES", NULL, 0, NULL,
     "nodes scr run never launches on (host list, e.g. node[3-4])"},
    {"SCR_START_TIMEOUT", "0", 0, NULL,
     "seconds scr run gives a launch to reach SCR_Init before it stops the launch "
     "and relaunches (0: no limit)"},
    {"SCR_WATCHDOG", "0", 0, NULL,
     "1: scr run stops a run that completes no dataset within SCR_WATCHDOG_TIMEOUT and "
     "relaunches"},
    {"SCR_WATCHDOG_TIMEOUT", "0", 0, NULL,
     "with SCR_WATCHDOG=1: seconds a run may go without completing a dataset"},
    {"SCR_WATCHDOG_TIMEOUT_PFS", NULL, 0, NULL,
     "with SCR_WATCHDOG=1: the same while the newest dataset is flushed or was "
     "written to the prefix alone (default: SCR_WATCHDOG_TIMEOUT)"},
    /* logging */
    {"SCR_LOG_ENABLE", "0", 0, NULL, "1: write the event log"},
    {"SCR_LOG_TXT_ENABLE", "1", 0, NULL,
     "with SCR_LOG_ENABLE: the text log <prefix>/.scr/log"},
    {"SCR_LOG_SYSLOG_ENABLE", "0", 0, NULL, "with SCR_LOG_ENABLE: syslog"},
    /* descriptors */
    {"STORE", NULL, PARAM_DESCRIPTOR, store_keys,
     "a store (a cache directory base): STORE=/dir COUNT=n keeps n datasets there "
     "(default SCR_CACHE_SIZE), MKDIR=0 requires the directory to exist, ENABLED=0 "
     "turns it off; GROUP, TYPE, VIEW and FLUSH are accepted and ignored"},
    {"CACHE", NULL, PARAM_DESCRIPTOR, store_keys, "older name of STORE"},
    {"CNTLDIR", NULL, PARAM_DESCRIPTOR | PARAM_SYSTEM, cntl_keys,
     "control directory descriptor (accepted; SCR_CNTL_BASE decides the control "
     "directory)"},
    {"CKPT", NULL, PARAM_DESCRIPTOR, ckpt_keys,
     "a redundancy descriptor: CKPT=n TYPE= SET_SIZE= SET_FAILURES= GROUP= STORE= "
     "(defaults: SCR_COPY_TYPE, SCR_SET_SIZE, SCR_SET_FAILURES, SCR_GROUP, "
     "SCR_CACHE_BASE) INTERVAL= ENABLED= (defaults: 1); checkpoint k uses the enabled "
     "descriptor with the largest INTERVAL that divides k; BYPASS=1: its checkpoints go "
     "straight to the prefix (default SCR_CACHE_BYPASS); OUTPUT is accepted and ignored"},
    {"GROUPS", NULL, PARAM_DESCRIPTOR, NULL,
     "failure groups of a host: GROUPS=host NAME=value ...; hosts with the same value of "
     "NAME fail together (GROUP=NAME)"},
    {NULL, NULL, 0, NULL, NULL},
};

const param_info_t *param_table(void)
{
    return table;
}

const param_info_t *param_lookup(const char *name)
{
    for (const param_info_t *p = table; name && p->name; p++) {
        if (strcmp(p->name, name) == 0)
            return p;
    }
    return NULL;
}

int param_subkey_known(const param_info_t *p, const char *sub)
{
    if (!p || !p->subkeys)
        return 1;
    for (int i = 0; p->subkeys[i]; i++) {
        if (strcmp(p->subkeys[i], sub) == 0)
            return 1;
    }
    return 0;
}
