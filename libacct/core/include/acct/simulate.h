/* Running the schedules of all ranks of one call together, without MPI.
 *
 * The engine matches the k-th send from s to d with the k-th receive at d
 * from s (MPI's non-overtaking order on one tag) and applies strict
 * rendezvous semantics: a message moves only while both ranks are in the
 * rounds that hold its send and its receive, and a rank leaves a round when
 * all its messages moved. So a schedule that passes here cannot deadlock
 * under any MPI protocol (eager or rendezvous). What a message or a local
 * step *does* is up to the callbacks: the unit tests move data, the tuner's
 * simulator adds up LogGP costs. */
#ifndef ACCT_SIMULATE_H
#define ACCT_SIMULATE_H

#include <stddef.h>

#include "acct/sched.h"

struct acct_sim_ops {
    void *ctx;
    /* A matched message; return 0, or -1 to stop with an error. */
    int (*transfer)(void *ctx, int src, const struct acct_step *send, int dst,
                    const struct acct_step *recv);
    /* A local step (REDUCE, COPY) of rank; 0 or -1. */
    int (*local)(void *ctx, int rank, const struct acct_step *step);
    /* Optional: rank finished round r (after its local steps). */
    void (*round_done)(void *ctx, int rank, unsigned round);
};

/* scheds[r] is rank r's finished schedule. Returns 0, or -1 with a message
 * in err (unmatched message, peer out of range, message to self, deadlock
 * with the blocked ranks, out of memory, or a callback's refusal). */
int acct_sim_run(const struct acct_sched *const *scheds, int size, const struct acct_sim_ops *ops,
                 char *err, size_t errlen);

#endif
