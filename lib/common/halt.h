/* SPDX-License-Identifier: BSD-3-Clause */
/* halt.h - halt conditions (guide 2.20), kept in <prefix>/.scr/halt.scr and
 * shared by the library (which checks them at every completed dataset) and
 * `scr halt` (which sets, lists and removes them on a running or finished job).
 *
 *   CheckpointsLeft  stop after this many more checkpoints
 *   ExitAfter        stop once this time (unix seconds) has passed
 *   ExitBefore       stop HaltSeconds before this time
 *   HaltSeconds      margin for ExitBefore (and for the job's end time)
 *   ExitReason       stop now; SCR_Finalize sets SCR_FINALIZE_CALLED
 *
 * SCR_FINALIZE_CALLED is not a reason for the library to stop: it tells a
 * launcher (`scr run`) that the run it started finished, so it must not
 * relaunch.  A rerun of the application in the same job (a job script that
 * runs it twice, a retry loop) restarts from its newest checkpoint.
 */
#ifndef SCR_HALT_H
#define SCR_HALT_H

#include <stddef.h>
#include <time.h>

#include "error.h"
#include "kvtree.h"

void halt_path(const char *prefix, char *buf, size_t len);
int halt_read(const char *prefix, kvtree_t *t, scr_error_t *err);

/* locked read-modify-write: set/unset a field ("ExitReason", ...) */
int halt_set(const char *prefix, const char *key, const char *value, scr_error_t *err);
int halt_unset(const char *prefix, const char *key, scr_error_t *err);
int halt_remove(const char *prefix, scr_error_t *err);
/* after a checkpoint: CheckpointsLeft - 1 (if set); returns the new value or -1 */
int halt_decrement(const char *prefix, scr_error_t *err);

#define HALT_FINALIZE_CALLED "SCR_FINALIZE_CALLED"

/* halt_check flags */
enum {
    HALT_IGNORE_FINISHED = 1, /* ExitReason SCR_FINALIZE_CALLED does not count */
};

/* Does ExitReason say a run finished (SCR_FINALIZE_CALLED)? */
int halt_finished(const kvtree_t *t);
/* Clear that mark (ExitReason and the JOBID that set it) in one locked
 * update: a new run has not finished.  Returns 1 when it was set (the job
 * that finished in job, if len), 0 when not (no file is made), -1 with
 * err. */
int halt_clear_finished(const char *prefix, char *job, size_t len, scr_error_t *err);

/* Does a condition hold at now?  end_time (0: unknown) and halt_seconds
 * come from the scheduler and SCR_HALT_SECONDS.  Writes the reason. */
int halt_check(const kvtree_t *t, time_t now, time_t end_time, long halt_seconds,
               int flags, char *reason, size_t len);

/* "1700000000", "@1700000000", "2026-11-21 18:30[:00]", "2026-11-21T18:30",
 * "18:30" (next such time), "+90", "+30m", "+2h", "+1d", "now" */
int halt_parse_time(const char *s, time_t now, time_t *out);

#endif
