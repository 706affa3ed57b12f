/* Runtime state shared by the runtime's files (internal). */
#ifndef ACCT_RT_H
#define ACCT_RT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "acct/mpi_wrap.h"
#include "agree.h"

/* What this process did with each method (registry entry). Counted with
 * relaxed atomics: threads may call collectives concurrently under
 * MPI_THREAD_MULTIPLE. */
struct rt_alg_stats {
    atomic_uint_fast64_t calls;
    atomic_uint_fast64_t nanoseconds; /* only while rt.timing */
    atomic_uint_fast64_t reordered;   /* calls that ran with SACK reordering */
};

/* Registry entries accounted (the registry is far smaller). */
#define RT_MAX_ALGS 256

struct rt_state {
    int world_rank;
    int world_size;
    int thread_level;
    bool active;          /* ACCT algorithms may run (the ranks agreed) */
    const char *inactive_why; /* static reason when !active */
    struct rt_agreed agreed;  /* rank 0's rules and ACCT_FORCE, on every rank */
    bool timing;          /* time each call (a report was asked for) */
    char *report_path;    /* ACCT_REPORT, owned */
    struct rt_alg_stats alg[RT_MAX_ALGS];
};

extern struct rt_state rt;

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

/* Per-call accounting: t0 = rt_account_begin(); ...; ns = rt_account_end(idx,
 * t0) with idx the registry index of the method that ran (ns: the call's
 * time, 0 unless timing); then, when timing, rt_account_detail(). */
uint64_t rt_account_begin(void);
uint64_t rt_account_end(int alg_index, uint64_t t0);
void rt_account_detail(int alg_index, uint64_t segment, int comm_size, uint64_t ns);

/* The detail rows in use (sorted by method, communicator size, segment),
 * for the report; *dropped gets the calls that found no free slot. */
size_t rt_account_details(const struct rt_detail **rows, uint64_t *dropped);

/* Write the ACCT_REPORT file (rank 0 only); returns 0 or -1 after a warning. */
int rt_report_write(const char *path);

#endif
