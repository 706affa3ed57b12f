/* Test helper for acct-bench --method osu / imb: a virtual clock that makes
 * every measured MPI_Bcast take a known time on each rank.
 *
 * Preloaded, it wraps MPI_Bcast (the measured call; acct-bench's
 * scaffolding calls PMPI_* and is not seen) and clock_gettime: after each
 * MPI_Bcast, this rank's CLOCK_MONOTONIC runs ahead by (rank*rank + 1)
 * seconds. A rank's mean time per call is then that many seconds plus the
 * real time of the call (micro- to milliseconds), so on 4 ranks the means
 * are 1, 2, 5, 10 s: avg 4.5 s (the median would be 3.5, the slowest rank
 * 10), min 1 s, max 10 s, whatever the load of the machine. */
#include <dlfcn.h>
#include <time.h>

#include <mpi.h>

#include "acct/common.h"

static long ahead_s; /* seconds this rank's monotonic clock is ahead */

ACCT_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int rank = 0;
    int rc = PMPI_Bcast(buf, count, datatype, root, comm);

    PMPI_Comm_rank(comm, &rank);
    ahead_s += (long)rank * rank + 1;
    return rc;
}

ACCT_EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    int rc = 0;

    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
    rc = real(id, ts);
    if (rc == 0 && id == CLOCK_MONOTONIC)
        ts->tv_sec += ahead_s;
    return rc;
}
