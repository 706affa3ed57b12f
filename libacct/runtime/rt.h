/* Runtime state shared by the runtime's files (internal). */
#ifndef ACCT_RT_H
#define ACCT_RT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "acct/mpi_wrap.h"

/* What this process did with each collective. Counted with relaxed atomics:
 * threads may call collectives concurrently under MPI_THREAD_MULTIPLE. */
struct rt_coll_stats {
    atomic_uint_fast64_t calls;
    atomic_uint_fast64_t nanoseconds; /* only while rt.timing */
};

struct rt_state {
    int world_rank;
    int world_size;
    int thread_level;
    bool timing;          /* time each call (a report was asked for) */
    char *report_path;    /* ACCT_REPORT, owned */
    struct rt_coll_stats coll[ACCT_COLL_COUNT];
};

extern struct rt_state rt;

/* Write the ACCT_REPORT file (rank 0 only); returns 0 or -1 after a warning. */
int rt_report_write(const char *path);

#endif
