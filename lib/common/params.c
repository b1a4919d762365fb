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
    {"SCR_ENABLE", "1", 0, NULL, "0 turns every SCR call into a cheap pass-through"},
    {"SCR_DEBUG", "0", 0, NULL, "debug level: 1 progress on rank 0, higher is chattier"},
    {"SCR_CONF_FILE", NULL, 0, NULL,
     "user configuration file (default: $SCR_PREFIX/.scrconf)"},
    {"SCR_PREFIX", NULL, 0, NULL,
     "prefix directory on the parallel file system (default: cwd)"},
    {"SCR_JOB_ID", NULL, 0, NULL, "job id when no scheduler provides one"},
    {"SCR_JOB_NAME", NULL, 0, NULL, "job name recorded in the log"},
    {"SCR_USER_NAME", NULL, 0, NULL, "user name (default: from the password database)"},
    {"SCR_TOPOLOGY", "pmix", 0, NULL,
     "where node topology comes from: pmix (falls back to mpi) or mpi"},
    /* storage */
    {"SCR_CNTL_BASE", "/dev/shm", PARAM_SYSTEM, NULL, "base of the control directory"},
    {"SCR_CACHE_BASES_ALLOWED", NULL, PARAM_SYSTEM, NULL,
     "colon-separated directories under which users may place a cache (empty: any)"},
    {"SCR_CACHE_BASE", "/dev/shm", 0, NULL, "base of the default cache directory"},
    {"SCR_CACHE_SIZE", "1", 0, NULL, "datasets kept in the default cache"},
    {"SCR_CACHE_BYPASS", "0", 0, NULL, "1: write checkpoints straight to the prefix"},
    {"SCR_CACHE_PURGE", "0", 0, NULL, "1: delete cached datasets at SCR_Init"},
    /* redundancy */
    {"SCR_COPY_TYPE", "XOR", 0, NULL, "default scheme: SINGLE, PARTNER, XOR or RS"},
    {"SCR_GROUP", "NODE", 0, NULL, "default failure group"},
    {"SCR_SET_SIZE", "8", 0, NULL, "processes per XOR/RS set"},
    {"SCR_SET_FAILURES", "2", 0, NULL, "failures an RS set tolerates"},
    {"SCR_DISTRIBUTE", "1", 0, NULL,
     "redistribute cached files to their owners at restart"},
    {"SCR_CRC_ON_COPY", "0", 0, NULL, "CRC32 files when applying redundancy"},
    {"SCR_CRC_ASYNC", "1", 0, NULL,
     "SINGLE: CRC32 completed files in a thread after SCR_Complete_output returns"},
    {"SCR_CRC_ON_DELETE", "0", 0, NULL, "verify CRC32 before deleting cached files"},
    {"SCR_MPI_BUF_SIZE", "1MB", 0, NULL, "bytes per message in redundancy pipelines"},
    {"SCR_FILE_BUF_SIZE", "1MB", 0, NULL, "bytes per read/write when copying files"},
    {"SCR_OVERLAP", NULL, 0, NULL,
     "1: copies and redundancy pipelines read ahead on a helper thread; 0: not; "
     "unset: only when the node's ranks leave a core free"},
    /* checkpoint policy */
    {"SCR_CHECKPOINT_INTERVAL", "0", 0, NULL, "SCR_Need_checkpoint: every N calls"},
    {"SCR_CHECKPOINT_SECONDS", "0", 0, NULL, "SCR_Need_checkpoint: every N seconds"},
    {"SCR_CHECKPOINT_OVERHEAD", "0", 0, NULL,
     "SCR_Need_checkpoint: keep checkpoint time under this percent of run time"},
    /* memory-protect API */
    {"SCR_DCP", "0", 0, NULL,
     "1: memory checkpoints write only the blocks that changed since the previous one"},
    {"SCR_DCP_BLOCK", "64KB", 0, NULL, "bytes per block that differential checkpoints hash"},
    {"SCR_DCP_FULL_EVERY", "10", 0, NULL,
     "every Nth memory checkpoint is written in full (bounds the differential chain)"},
    {"SCR_MEM_TAG", NULL, 0, NULL,
     "names the program in memory checkpoint files (default: the executable's name)"},
    /* flush and fetch */
    {"SCR_FLUSH", "10", 0, NULL, "flush every Nth checkpoint to the prefix (0: never)"},
    {"SCR_FLUSH_WIDTH", "256", 0, NULL, "processes writing to the prefix at once"},
    {"SCR_FLUSH_ON_RESTART", "0", 0, NULL,
     "flush the restart checkpoint during SCR_Init"},
    {"SCR_FLUSH_ASYNC", "0", 0, NULL, "1: flush in the background"},
    {"SCR_FLUSH_ASYNC_BW", "200MB", 0, NULL,
     "background flush bandwidth limit (bytes/s)"},
    {"SCR_FLUSH_ASYNC_PERCENT", "0", 0, NULL,
     "background flush CPU limit (percent, 0: none)"},
    {"SCR_CRC_ON_FLUSH", "1", 0, NULL, "CRC32 files during flush and fetch"},
    {"SCR_FETCH", "1", 0, NULL, "fetch from the prefix when the cache is empty"},
    {"SCR_SCAVENGE_GRACE", "60", 0, NULL,
     "seconds after an earlier job's last epilog before SCR_Init indexes its scavenged "
     "dataset"},
    {"SCR_FETCH_WIDTH", "256", 0, NULL, "processes reading from the prefix at once"},
    {"SCR_CURRENT", NULL, 0, NULL, "dataset name to restart from"},
    {"SCR_GLOBAL_RESTART", "0", 0, NULL, "restart through the PFS (no cache rebuild)"},
    {"SCR_PREFIX_SIZE", "0", 0, NULL, "checkpoints kept on the prefix (0: all)"},
    {"SCR_PREFIX_PURGE", "0", 0, NULL,
     "1: delete all datasets on the prefix at SCR_Init"},
    {"SCR_USE_CONTAINERS", "0", 0, NULL, "pack files into containers on the prefix"},
    {"SCR_CONTAINER_SIZE", "100GB", 0, NULL, "bytes per container"},
    /* halt and runs */
    {"SCR_HALT_SECONDS", "0", 0, NULL, "halt when this few seconds are left in the job"},
    {"SCR_HALT_EXIT", "0", 0, NULL, "1: exit inside SCR when a halt condition holds"},
    {"SCR_END_TIME", NULL, 0, NULL,
     "job end time (unix seconds) when the scheduler has none"},
    {"SCR_RUNS", "1", 0, NULL, "runs that scr run launches (-1: unlimited)"},
    {"SCR_MIN_NODES", NULL, 0, NULL, "fewest nodes a relaunch needs"},
    {"SCR_EXCLUDE_NODES", NULL, 0, NULL, "nodes never to launch on (host list)"},
    {"SCR_WATCHDOG_TIMEOUT", "0", 0, NULL,
     "seconds without progress before a run is killed"},
    /* logging */
    {"SCR_LOG_ENABLE", "0", 0, NULL, "1: write the event log"},
    {"SCR_LOG_TXT_ENABLE", "1", 0, NULL, "text log in the prefix (with SCR_LOG_ENABLE)"},
    {"SCR_LOG_SYSLOG_ENABLE", "0", 0, NULL, "syslog log (with SCR_LOG_ENABLE)"},
    /* descriptors */
    {"STORE", NULL, PARAM_DESCRIPTOR, store_keys,
     "storage descriptor: STORE=/dir GROUP= COUNT= ENABLED= MKDIR="},
    {"CACHE", NULL, PARAM_DESCRIPTOR, store_keys, "older name of STORE"},
    {"CNTLDIR", NULL, PARAM_DESCRIPTOR | PARAM_SYSTEM, cntl_keys,
     "control directory descriptor"},
    {"CKPT", NULL, PARAM_DESCRIPTOR, ckpt_keys,
     "redundancy descriptor: CKPT=N INTERVAL= GROUP= STORE= TYPE= SET_SIZE= "
     "SET_FAILURES="},
    {"GROUPS", NULL, PARAM_DESCRIPTOR, NULL,
     "failure groups of a host: GROUPS=host NAME=value ..."},
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
