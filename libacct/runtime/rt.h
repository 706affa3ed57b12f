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

/* Per-call accounting: t0 = rt_account_begin(); ...; rt_account_end(idx, t0)
 * with idx the registry index of the method that ran. */
uint64_t rt_account_begin(void);
void rt_account_end(int alg_index, uint64_t t0);

/* Write the ACCT_REPORT file (rank 0 only); returns 0 or -1 after a warning. */
int rt_report_write(const char *path);

#endif
