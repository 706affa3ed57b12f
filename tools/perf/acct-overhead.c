/* acct-overhead: what ACCT adds to a collective it leaves to the native
 * library, in nanoseconds per call, measured side by side in one process.
 *
 *   mpirun -np 1 [-x LD_PRELOAD=libacct.so] acct-overhead [blocks] [calls]
 *
 * Alternating blocks of `calls` calls: MPI_Allreduce of 8 bytes on
 * MPI_COMM_WORLD (through ACCT's wrapper when preloaded) and PMPI_Allreduce
 * (straight into the MPI library). Prints the median ns per call of each
 * and the difference; run it without the preload for the noise floor, with
 * it (decision: native), and with ACCT_DISABLE=1 (pure pass-through). */
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
    int rank;
    double in = 1.0, out = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (blocks < 1 || calls < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: acct-overhead [blocks>0] [calls>0]\n");
        MPI_Finalize();
        return 2;
    }
    double *wrapped = malloc(sizeof(double) * (size_t)blocks);
    double *native = malloc(sizeof(double) * (size_t)blocks);
    double *diff = malloc(sizeof(double) * (size_t)blocks);
    if (!wrapped || !native || !diff)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < calls; i++) /* warm-up: state, caches, branch predictors */
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int b = 0; b < blocks; b++) {
        double t0 = now_ns();
        for (int i = 0; i < calls; i++)
            MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double t1 = now_ns();
        for (int i = 0; i < calls; i++)
            PMPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double t2 = now_ns();
        wrapped[b] = (t1 - t0) / calls;
        native[b] = (t2 - t1) / calls;
        diff[b] = wrapped[b] - native[b];
    }
    qsort(wrapped, (size_t)blocks, sizeof(double), cmp);
    qsort(native, (size_t)blocks, sizeof(double), cmp);
    qsort(diff, (size_t)blocks, sizeof(double), cmp);
    if (rank == 0)
        printf("acct-overhead: %d blocks x %d calls, 8-byte allreduce: MPI %.1f ns, PMPI %.1f ns, "
               "added median %.1f ns (p25 %.1f, p75 %.1f)\n",
               blocks, calls, wrapped[blocks / 2], native[blocks / 2], diff[blocks / 2],
               diff[blocks / 4], diff[3 * blocks / 4]);
    free(wrapped);
    free(native);
    free(diff);
    MPI_Finalize();
    return 0;
}
