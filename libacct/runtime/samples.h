/* Live timing samples to the node's acctd (internal; docs/samples.md).
 *
 * A sampling rank times every intercepted collective (the runtime's own
 * CLOCK_MONOTONIC timing, account.h) and aggregates in-process
 * per (communicator size, collective, message-size bucket, method) as
 * count, sum, min, max and sum of squares, in a fixed table. Batches go to
 * acctd as SAMPLES requests with acct_client_post (fire and forget, never
 * blocking): periodically from the call path and at MPI_Finalize.
 *
 * Sampling is on only when ACCT is active, ACCT_SOCKET is set, ACCT_JOB,
 * ACCT_PARTITION and ACCT_INTERCONNECT are valid names and ACCT_SAMPLES
 * selects this rank; otherwise rt_samples_on stays false and the calls
 * cost one predictable branch. */
#ifndef ACCT_RT_SAMPLES_H
#define ACCT_RT_SAMPLES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include "acct/alg.h"
#include "acct/coll.h"

/* True while this rank samples (set by rt_samples_init, cleared by
 * rt_samples_fini). Read on every call: a plain global, written only
 * while no collective runs. */
extern bool rt_samples_on;

/* Which calls are timed: at random gaps whose mean keeps the cost of
 * timing within 1% of the time spent in collectives (docs/samples.md,
 * "Which calls are timed"). rt_samples_tick() is called once per call
 * while sampling and says whether to time this one: a countdown, and a
 * new random gap when it runs out. Relaxed atomics: under
 * MPI_THREAD_MULTIPLE a race only changes which calls are timed. */
extern atomic_uint rt_samples_countdown;
bool rt_samples_draw(void);
static inline bool rt_samples_tick(void)
{
    unsigned c = atomic_load_explicit(&rt_samples_countdown, memory_order_relaxed);
    if (c > 1) {
        atomic_store_explicit(&rt_samples_countdown, c - 1, memory_order_relaxed);
        return false;
    }
    return rt_samples_draw();
}

/* At runtime init, once ACCT is active: read the environment and decide
 * whether this rank samples. thread_level: the MPI thread level (locking
 * only under MPI_THREAD_MULTIPLE). Never prints more than debug lines. */
void rt_samples_init(int world_rank, int thread_level);

/* At MPI_Finalize: send what is left (without waiting), then stop. */
void rt_samples_fini(void);

/* One call: registry entry alg_index ran it (an algorithm or the
 * collective's native entry) with segment bytes, the decision's fan-out
 * (kept when the entry takes one and it is within the entry's limits) and
 * SACK reordering or not, on comm,
 * message bytes `bytes` (the decision's message size), taking ns
 * nanoseconds and ending at end_ns (CLOCK_MONOTONIC). Never allocates,
 * never blocks; may send a batch when the interval is over. */
void rt_samples_add(int alg_index, uint64_t segment, int fanout, bool reorder, uint64_t bytes,
                    MPI_Comm comm, uint64_t ns, uint64_t end_ns);

/* Message bytes of a call as rules and decisions count them: count
 * elements of dt (bcast, reductions), or one rank's block of a
 * gather/scatter/allgather/alltoall (MPI_IN_PLACE taken into account).
 * 0 when the datatype is invalid. Cheap; called only when sampling. */
uint64_t rt_samples_bytes(int count, MPI_Datatype dt);
/* allgatherv, reduce_scatter: the sum of all ranks' counts in bytes / P,
 * rounded down (the decision's key, alike on every rank); 0 on an
 * intercommunicator. */
uint64_t rt_samples_v_bytes(const int *counts, MPI_Datatype dt, MPI_Comm comm);
uint64_t rt_samples_block_bytes(enum acct_coll_id coll, const void *sbuf, int scount,
                                MPI_Datatype stype, const void *rbuf, int rcount,
                                MPI_Datatype rtype);

/* For tests and the report: what this process sampled and sent so far. */
struct rt_samples_stats {
    uint64_t calls;        /* calls aggregated */
    uint64_t dropped_full; /* calls whose key found no slot (table full) */
    uint64_t dropped_busy; /* calls dropped because another thread held the table */
    uint64_t batches_sent, batches_failed; /* SAMPLES requests posted / not */
    uint64_t records_sent;
};
void rt_samples_get_stats(struct rt_samples_stats *out);

#endif
