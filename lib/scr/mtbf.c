/* SPDX-License-Identifier: BSD-3-Clause */
/* mtbf.c - SCR_MTBF's checkpoint interval (mtbf.h) */
#include <math.h>

#include "config.h"
#include "evlog.h"
#include "interval.h"
#include "log.h"
#include "mtbf.h"
#include "units.h"

static double mtbf_setting(scr_ctx_t *ctx, const char *name)
{
    const char *v = config_get(ctx->cfg, name, NULL);
    if (!v || !*v)
        return 0;
    double s = interval_parse_seconds(v);
    if (s < 0 && ctx->rank == 0)
        log_err("%s=%s: not a duration (seconds, or a number with s, m, h, d or y); "
                "ignored",
                name, v);
    return s > 0 ? s : 0;
}

void mtbf_init(scr_ctx_t *ctx)
{
    double job = mtbf_setting(ctx, "SCR_MTBF_JOB");
    double node = mtbf_setting(ctx, "SCR_MTBF");
    ctx->mtbf_job = job > 0 ? job : interval_job_mtbf(node, ctx->topo.num_nodes);
    if (ctx->mtbf_job < 0)
        ctx->mtbf_job = 0;
    ctx->mtbf_logged = 0;
}

void mtbf_checkpointed(scr_ctx_t *ctx, double secs)
{
    ctx->ckpt_seconds += secs;
    ctx->ckpt_count++;
    ctx->t_last_ckpt = scr_now();
}

int mtbf_need(scr_ctx_t *ctx, double now)
{
    if (!(ctx->mtbf_job > 0))
        return -1;
    if (ctx->ckpt_count == 0)
        return 1; /* no cost known: this checkpoint measures one */
    double cost = ctx->ckpt_seconds / ctx->ckpt_count;
    double tau = interval_optimal(cost, ctx->mtbf_job);
    if (tau < 0)
        return 1; /* a checkpoint that took no measurable time */
    if (!(ctx->mtbf_logged > 0) ||
        fabs(tau - ctx->mtbf_logged) > 0.1 * ctx->mtbf_logged) {
        log_msg("SCR_MTBF: a checkpoint every %.1f s of computing (checkpoints cost %.3f "
                "s, the job fails every %.0f s on average)",
                tau, cost, ctx->mtbf_job);
        evlog_event(ctx, "INTERVAL", "secs=%.3f cost=%.3f mtbf=%.0f", tau, cost,
                    ctx->mtbf_job);
        ctx->mtbf_logged = tau;
    }
    return now - ctx->t_last_ckpt >= tau;
}
