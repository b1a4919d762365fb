/* SPDX-License-Identifier: BSD-3-Clause */
/* jobopts.c - settings of scr-prolog / scr-epilog */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobopts.h"
#include "path.h"
#include "units.h"

static const char *env_first(const char *a, const char *b, const char *c)
{
    const char *names[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        const char *v = names[i] ? getenv(names[i]) : NULL;
        if (v && *v)
            return v;
    }
    return NULL;
}

static int jobopts_bases(jobopts_t *o, const char *list, scr_error_t *err)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t && rc == 0;
         t = strtok_r(NULL, ",", &save)) {
        if (t[0] != '/')
            rc = errprintf(err, "--cache-base: '%s' is not an absolute directory", t);
        else if (o->ncache == JOBOPTS_MAX_BASES)
            rc = errprintf(err, "--cache-base: more than %d directories",
                           JOBOPTS_MAX_BASES);
        else
            o->cache_base[o->ncache++] = path_strdup_reduce_str(t);
    }
    free(copy); /* after the message: t points into it */
    if (rc == 0 && o->ncache == 0)
        rc = errprintf(err, "--cache-base: '%s' names no directory", list);
    return rc;
}

/* a user or group id: decimal digits only, in range ((uid_t)-1 means none) */
static int jobopts_id(const char *s, unsigned long *id)
{
    char *end;
    if (!*s || s[strspn(s, "0123456789")] != '\0')
        return -1;
    errno = 0;
    *id = strtoul(s, &end, 10);
    return errno || *id >= (unsigned long)(uid_t)-1 ? -1 : 0;
}

static int jobopts_user(jobopts_t *o, const char *uid, const char *gid, scr_error_t *err)
{
    unsigned long u, g = 0;
    if (jobopts_id(uid, &u) < 0)
        return errprintf(err, "--uid: '%s' is not a user id", uid);
    if (gid && jobopts_id(gid, &g) < 0)
        return errprintf(err, "--gid: '%s' is not a group id", gid);
    struct passwd *pw = getpwuid((uid_t)u);
    if (!pw)
        return errprintf(err, "--uid: no user with id %lu", u);
    o->uid = (uid_t)u;
    o->gid = gid ? (gid_t)g : pw->pw_gid;
    snprintf(o->user, sizeof(o->user), "%s", pw->pw_name);
    return 0;
}

/* seconds the epilog waits: a number an end of waiting can be found for */
static int jobopts_seconds(const char *s, double *secs)
{
    char *end;
    *secs = strtod(s, &end);
    return end == s || *end || !isfinite(*secs) || *secs < 0 ? -1 : 0;
}

void jobopts_start_clock(jobopts_t *o)
{
    o->started = scr_now();
}

static int jobopts_parse_all(jobopts_t *o, int argc, char **argv, scr_error_t *err)
{
    static const struct option longopts[] = {
        {"job", 1, 0, 'j'},        {"uid", 1, 0, 'u'},
        {"gid", 1, 0, 'g'},        {"prefix", 1, 0, 'p'},
        {"cache-base", 1, 0, 'c'}, {"cntl-base", 1, 0, 'C'},
        {"capacity", 1, 0, 'k'},   {"timeout", 1, 0, 't'},
        {"sched", 1, 0, 's'},      {0, 0, 0, 0}};
    const char *job = env_first("SCR_JOB_ID", "SLURM_JOB_ID", "FLUX_JOB_ID");
    const char *uid = env_first("SLURM_JOB_UID", "FLUX_JOB_USERID", NULL), *gid = NULL;
    const char *prefix = env_first("SCR_PREFIX", "SPANK_SCR_PREFIX", NULL);
    const char *cache = env_first("SCR_CACHE_BASE", "SPANK_SCR_CACHE_BASE", NULL);
    const char *cntl = env_first("SCR_CNTL_BASE", "SPANK_SCR_CNTL_BASE", NULL);
    const char *cap = NULL;
    memset(o, 0, sizeof(*o));
    jobopts_start_clock(o);
    o->timeout = 60;
    gethostname(o->host, sizeof(o->host) - 1);
    int c;
    optind = 0; /* a full restart of getopt, whatever an earlier parse left */
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            job = optarg;
            break;
        case 'u':
            uid = optarg;
            break;
        case 'g':
            gid = optarg;
            break;
        case 'p':
            prefix = optarg;
            break;
        case 'c':
            cache = optarg;
            break;
        case 'C':
            cntl = optarg;
            break;
        case 'k':
            cap = optarg;
            break;
        case 't':
            if (jobopts_seconds(optarg, &o->timeout) < 0)
                return errprintf(err, "--timeout: '%s' is not a number of seconds",
                                 optarg);
            break;
        case 's':
            snprintf(o->sched, sizeof(o->sched), "%s", optarg);
            break;
        default:
            return errprintf(err, "unknown option (see the usage)");
        }
    }
    if (optind < argc)
        return errprintf(err, "unexpected argument '%s'", argv[optind]);
    if (!job)
        return errprintf(err, "no job id (--job, SLURM_JOB_ID, FLUX_JOB_ID, SCR_JOB_ID)");
    if (strchr(job, '/') || strlen(job) >= sizeof(o->jobid) || !*job)
        return errprintf(err, "--job: '%s' is not a job id", job);
    snprintf(o->jobid, sizeof(o->jobid), "%s", job);
    char self[32];
    if (!uid && geteuid() != 0) { /* a user's own tool: the job is theirs */
        snprintf(self, sizeof(self), "%u", (unsigned)geteuid());
        uid = self;
    }
    if (!uid)
        return errprintf(err, "no job user (--uid, SLURM_JOB_UID, FLUX_JOB_USERID)");
    if (jobopts_user(o, uid, gid, err) < 0)
        return -1;
    if (prefix && prefix[0] != '/')
        return errprintf(err, "--prefix: '%s' is not an absolute directory", prefix);
    snprintf(o->prefix, sizeof(o->prefix), "%s", prefix ? prefix : "");
    if (cap && units_parse_bytes(cap, &o->capacity) < 0)
        return errprintf(err, "--capacity: '%s' is not a byte count", cap);
    if (jobopts_bases(o, cache ? cache : "/dev/shm", err) < 0)
        return -1;
    cntl = cntl ? cntl : "/dev/shm";
    if (cntl[0] != '/')
        return errprintf(err, "--cntl-base: '%s' is not an absolute directory", cntl);
    char *reduced = path_strdup_reduce_str(cntl); /* compared with the cache bases */
    snprintf(o->cntl_base, sizeof(o->cntl_base), "%s", reduced ? reduced : cntl);
    free(reduced);
    return 0;
}

int jobopts_parse(jobopts_t *o, int argc, char **argv, scr_error_t *err)
{
    if (jobopts_parse_all(o, argc, argv, err) == 0)
        return 0;
    jobopts_free(o); /* callers that exit on an error need not */
    return -1;
}

void jobopts_free(jobopts_t *o)
{
    for (int i = 0; i < o->ncache; i++)
        free(o->cache_base[i]);
    o->ncache = 0;
}

job_ident_t jobopts_ident(const jobopts_t *o)
{
    job_ident_t j = {o->user, o->uid, o->gid, o->jobid};
    return j;
}

void jobopts_job_dir(const jobopts_t *o, const char *base, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s/scr.%s", base, o->user, o->jobid);
}

const char *jobopts_base(const jobopts_t *o, int i, int *is_cache)
{
    if (is_cache)
        *is_cache = i < o->ncache;
    if (i < o->ncache)
        return i >= 0 ? o->cache_base[i] : NULL;
    if (i > o->ncache)
        return NULL;
    for (int k = 0; k < o->ncache; k++)
        if (strcmp(o->cache_base[k], o->cntl_base) == 0)
            return NULL; /* the control base is one of the cache bases */
    return o->cntl_base;
}
