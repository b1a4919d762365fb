/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_inject.c - FTI_BitFlip, FTI's fault injection for tests: on the
 * process [injection] rank names, flip bit position of element index of a
 * float or double variable, at most number times, each at least frequency
 * seconds after the last (or after FTI_Init).  As in FTI 1.6 it returns
 * FTI_SCES when it flipped a bit and FTI_NSCS otherwise (another process,
 * no injection due, not a float or double, index or bit out of range), and
 * says each flip in one line with the value before and after. */
#include <stdint.h>
#include <string.h>

#include "fti.h"
#include "fti_priv.h"
#include "log.h"

/* the flips so far, and when the last was (FTI_Init before the first) */
static struct {
    double last;
    long done;
} inj;

void fti_inject_reset(void)
{
    inj.done = 0;
    inj.last = MPI_Wtime();
}

void fti_inject_state(int *counter, double *timer)
{
    *counter = (int)inj.done;
    *timer = inj.last;
}

/* flip bit of the width-byte value at p; -1 when bit is outside it */
static int flip(void *p, size_t width, long bit)
{
    if (bit < 0 || bit >= (long)width * 8)
        return -1;
    uint64_t v = 0;
    memcpy(&v, p, width);
    v ^= (uint64_t)1 << bit;
    memcpy(p, &v, width);
    return 0;
}

int FTI_BitFlip(int datasetID)
{
    if (!fti_ready("FTI_BitFlip"))
        return FTI_NSCS;
    const fti_conf_t *c = fti_config();
    void *ptr;
    int64_t count;
    fti_id_t type;
    if (fti_my_rank() != c->inj_rank || inj.done >= c->inj_number)
        return FTI_NSCS;
    if (fti_var_info(datasetID, &ptr, &count, &type) < 0) {
        log_warn("FTI_BitFlip: variable %d is not protected", datasetID);
        return FTI_NSCS;
    }
    if (MPI_Wtime() - inj.last <= (double)c->inj_frequency || c->inj_index < 0 ||
        c->inj_index >= count || (type != FTI_DBLE && type != FTI_SFLT))
        return FTI_NSCS;
    size_t width = type == FTI_DBLE ? sizeof(double) : sizeof(float);
    char *at = (char *)ptr + (size_t)c->inj_index * width;
    double before = type == FTI_DBLE ? *(double *)at : *(float *)at;
    if (flip(at, width, c->inj_position) < 0)
        return FTI_NSCS;
    double after = type == FTI_DBLE ? *(double *)at : *(float *)at;
    inj.done++;
    inj.last = MPI_Wtime();
    log_warn("FTI_BitFlip: variable %d, element %ld, bit %ld: %g => %g", datasetID,
             c->inj_index, c->inj_position, before, after);
    return FTI_SCES;
}
