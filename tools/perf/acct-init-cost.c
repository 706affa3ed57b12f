/* acct-init-cost: the CPU time a process spends in MPI_Init and
 * MPI_Finalize (and its first collectives), with and without libacct.
 *
 *   mpirun -np N [-x LD_PRELOAD=libacct.so -x ACCT_RULES=...] acct-init-cost
 *
 * CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread of the process, the
 * dynamic loader's work before main included) does not grow when the
 * process waits for a CPU, as wall time does on a loaded host; Open MPI
 * 4.1 waits for its PMIx fences lazily (progress, then a short sleep), so
 * a rank waiting for the others adds little. Each rank prints one line:
 *
 *   acct-init-cost: rank R start_cpu_ms A init_cpu_ms B first_cpu_ms C
 *       finalize_cpu_ms D init_wall_ms E
 *
 * start: before main (loading); init: MPI_Init; first: one MPI_Barrier, one
 * 8-byte MPI_Allreduce and one 4 KiB MPI_Bcast on MPI_COMM_WORLD (what an
 * application does first: with ACCT, the first call that runs an ACCT
 * method makes the communicator's private duplicate); finalize:
 * MPI_Finalize. tools/perf/acct-init-cost.sh alternates the modes and
 * summarises (docs/performance.md 17). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int rank;
    double x = 1.0, y = 0.0;
    static char buf[4096];
    double c0 = ms(CLOCK_PROCESS_CPUTIME_ID), w0 = ms(CLOCK_MONOTONIC);
    MPI_Init(&argc, &argv);
    double c1 = ms(CLOCK_PROCESS_CPUTIME_ID), w1 = ms(CLOCK_MONOTONIC);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        memset(buf, 1, sizeof buf);
    MPI_Bcast(buf, (int)sizeof buf, MPI_BYTE, 0, MPI_COMM_WORLD);
    double c2 = ms(CLOCK_PROCESS_CPUTIME_ID);
    MPI_Finalize();
    double c3 = ms(CLOCK_PROCESS_CPUTIME_ID);
    printf("acct-init-cost: rank %d start_cpu_ms %.3f init_cpu_ms %.3f first_cpu_ms %.3f "
           "finalize_cpu_ms %.3f init_wall_ms %.3f\n",
           rank, c0, c1 - c0, c2 - c1, c3 - c2, w1 - w0);
    return 0;
}
