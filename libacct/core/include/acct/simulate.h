/* Running the schedules of all ranks of one call together, without MPI.
 *
 * The engine matches the k-th send from s to d with the k-th receive at d
 * from s (MPI's non-overtaking order on one tag) and applies strict
 * rendezvous semantics: a message moves only while both ranks are in the
 * rounds that hold its send and its receive, and a rank leaves a round when
 * all its messages moved. So a schedule that passes here cannot deadlock
 * under any MPI protocol (eager or rendezvous). What a message or a local
 * step *does* is up to the callbacks: the unit tests move data, the tuner's
 * simulator adds up LogGP costs.
 *
 * Cost: matching sorts each rank's sends and receives by (peer, order)
 * and pairs the runs, O(S log S_r) time for S steps in all and S_r the
 * most of one rank (O(S log P) for schedules with a bounded number of
 * messages per pair), memory O(S + P); the run that follows moves each
 * message once (work list), O(S). No table grows with P x P. */
#ifndef ACCT_SIMULATE_H
#define ACCT_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

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

/* The same engine over a flat program: every rank's steps in one array
 * (what the simulator keeps, a few bytes per step instead of a struct
 * acct_sched per rank). Step and round indices are global; rank r's steps
 * are [step_at[r], step_at[r+1]) and its rounds [round_at[r],
 * round_at[r+1]), round q holding the steps before round_end[q] (and from
 * the previous round's end, or step_at[r] for the rank's first round).
 * Every rank's rounds must cover its steps. Fewer than 2^32 steps. */
struct acct_sim_prog {
    int size;
    const uint64_t *step_at;   /* size + 1 */
    const uint64_t *round_at;  /* size + 1 */
    const uint64_t *round_end; /* round_at[size] */
    const uint8_t *kind;       /* per step: enum acct_step_kind */
    const int32_t *peer;       /* per step: SEND/RECV's peer */
};

struct acct_sim_prog_ops {
    void *ctx;
    /* Global step indices; 0, or -1 to stop. */
    int (*transfer)(void *ctx, int src, uint64_t send, int dst, uint64_t recv);
    int (*local)(void *ctx, int rank, uint64_t step);
    /* Optional: rank finished its rank-relative round (after its local steps). */
    void (*round_done)(void *ctx, int rank, uint32_t round);
};

/* As acct_sim_run, with the same diagnostics (rank-relative step numbers). */
int acct_sim_run_prog(const struct acct_sim_prog *prog, const struct acct_sim_prog_ops *ops,
                      char *err, size_t errlen);

#endif
