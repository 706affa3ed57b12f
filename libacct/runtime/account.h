/* Per-call accounting (internal): what ran each intercepted collective,
 * counted for ACCT_REPORT (report.h) and, when asked, timed for the report
 * and the live samples (samples.h). */
#ifndef ACCT_RT_ACCOUNT_H
#define ACCT_RT_ACCOUNT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "acct/alg.h"
#include "acct/coll.h"

/* What this process did with each method (registry entry). Counted with
 * relaxed atomics: threads may call collectives concurrently under
 * MPI_THREAD_MULTIPLE. */
struct rt_alg_stats {
    atomic_uint_fast64_t calls;
    atomic_uint_fast64_t nanoseconds; /* only while timing */
    atomic_uint_fast64_t reordered;   /* calls that ran with SACK reordering */
};

/* Registry entries accounted (the registry is far smaller). */
#define RT_MAX_ALGS 256

/* Per registry index, for the report. */
extern struct rt_alg_stats rt_account_alg[RT_MAX_ALGS];

/* With a report: calls and time per (method, segment bytes, communicator
 * size), in a fixed table (no allocation per call; a mutex, as this is the
 * report's slow path). Keys beyond its capacity are counted in `dropped`
 * (the per-method totals still hold them). */
#define RT_DETAIL_SLOTS 1024
struct rt_detail {
    int alg;         /* registry index; -1: empty slot */
    int comm_size;
    uint64_t segment;
    uint64_t calls, nanoseconds;
};

/* What ran a call: an ACCT algorithm with its segment size in bytes, or
 * native (alg NULL). */
struct rt_ran {
    const struct acct_alg *alg;
    uint64_t segment;
    int fanout;     /* the decision's fan-out (samples; 0 unless set) */
    uint64_t bytes; /* the call's message bytes, set by the entry point when sampling */
    bool reorder;   /* SACK reordering ran the call (false unless set) */
};

/* Clear every count; timing: time each call (a report was asked for).
 * At MPI_Init, before any collective. */
void rt_account_init(bool timing);

/* Per call: t0 = rt_account_begin(); run it; rt_account_call(coll, &ran,
 * comm, t0) accounts it to what ran (alg, or coll's native entry), with a
 * report also per (method, segment, communicator size), when sampling to
 * the live samples. t0 is 0 unless the call is timed. */
uint64_t rt_account_begin(void);
void rt_account_call(enum acct_coll_id coll, const struct rt_ran *ran, MPI_Comm comm, uint64_t t0);

/* The non-blocking collectives (nb.h), per registry index of the method
 * that ran them (the blocking collective's algorithm, or its native
 * entry): calls counted when posted, time from post to the completion of
 * the schedule (when timing; the time the application spends between its
 * MPI calls is in it, as the collective only progresses inside them). Not
 * in the detail table, not sampled (samples.h). */
extern struct rt_alg_stats rt_account_nb[RT_MAX_ALGS];
/* At post: one call of alg (NULL: coll's native entry); returns t0 (0
 * unless timed), for rt_account_nb_done when ACCT runs it. */
uint64_t rt_account_nb_call(enum acct_coll_id coll, const struct acct_alg *alg);
void rt_account_nb_done(const struct acct_alg *alg, int coll, uint64_t t0);

/* The detail rows in use (sorted by method, communicator size, segment),
 * for the report; *dropped gets the calls that found no free slot. */
size_t rt_account_details(const struct rt_detail **rows, uint64_t *dropped);

#endif
