/* acct-progress-overhead: what ACCT's non-blocking engine adds to every
 * pass of the MPI library's progress loop (docs/performance.md, 1).
 *
 *   mpirun -np 2 [-x LD_PRELOAD=libacct.so -x ACCT_FORCE=barrier=dissemination]
 *          acct-progress-overhead [blocks] [calls]
 *
 * One MPI_Ibarrier first (with a barrier method forced, ACCT runs it and
 * registers its progress callback with Open MPI, for the rest of the job),
 * then blocks of `calls` MPI_Test calls on a receive that never matches:
 * each runs one opal_progress, so the callback's cost with nothing in
 * flight is in every call. Prints the median ns per MPI_Test (rank 0);
 * compare with ACCT_NONBLOCKING=0 (no callback) and without the preload. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 41, calls = argc > 2 ? atoi(argv[2]) : 100000;
    int rank, flag = 0, buf = 0;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (blocks < 1 || calls < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: acct-progress-overhead [blocks>0] [calls>0]\n");
        MPI_Finalize();
        return 2;
    }
    double *per = malloc((size_t)blocks * sizeof *per);
    if (per == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_SELF, &r);
    for (int b = 0; b < blocks; b++) {
        double t0 = now_ns();
        for (int i = 0; i < calls; i++)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        per[b] = (now_ns() - t0) / calls;
    }
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    qsort(per, (size_t)blocks, sizeof *per, cmp);
    if (rank == 0)
        printf("MPI_Test on a pending receive: %.1f ns per call (median of %d blocks of %d; "
               "p25 %.1f, p75 %.1f)\n",
               per[blocks / 2], blocks, calls, per[blocks / 4], per[3 * blocks / 4]);
    free(per);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
