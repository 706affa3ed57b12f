/* The tool API (acct/tool.h): a program linked to libacct.so switches the
 * forced method between collectives, on every rank alike.
 *
 * Phases (bcast of 1000 ints from a rotating root, each result checked):
 *   chain x3, binomial:1K x2, an invalid spec (rejected, binomial stays) x1,
 *   cleared (native) x4.
 * The wrapper script checks ACCT_REPORT's call counts: chain 3,
 * binomial 3, native 4. With argument "inactive" the program expects ACCT
 * to be off (ACCT_DISABLE=1) and every acct_tool_force call to fail. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "acct/tool.h"

#define N 1000

static int failures;

static void check(int ok, int rank, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
        failures++;
    }
}

static void bcasts(int times, int rank, int size, int *round)
{
    int buf[N];
    for (int t = 0; t < times; t++, (*round)++) {
        int root = *round % size;
        for (int i = 0; i < N; i++)
            buf[i] = rank == root ? i * 7 + *round : -1;
        MPI_Bcast(buf, N, MPI_INT, root, MPI_COMM_WORLD);
        int ok = 1;
        for (int i = 0; i < N; i++)
            ok &= buf[i] == i * 7 + *round;
        check(ok, rank, "bcast result");
    }
}

int main(int argc, char **argv)
{
    int rank, size, round = 0, all = 0;
    int inactive = argc > 1 && strcmp(argv[1], "inactive") == 0;

    check(acct_tool_active() == 0, -1, "active before MPI_Init");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (inactive) {
        check(acct_tool_active() == 0, rank, "inactive expected");
        check(acct_tool_force("bcast=chain") == -1, rank, "force must fail when inactive");
        bcasts(2, rank, size, &round);
    } else {
        check(acct_tool_active() == 1, rank, "ACCT active");
        check(acct_tool_force("bcast=chain") == 0, rank, "force chain");
        bcasts(3, rank, size, &round);
        check(acct_tool_force("bcast=binomial:1K") == 0, rank, "force binomial:1K");
        bcasts(2, rank, size, &round);
        check(acct_tool_force("bcast=nonexistent") == -1, rank, "invalid spec rejected");
        check(acct_tool_force("bcast=binomial:1K,allreduce=bogus") == -1, rank,
              "partly invalid spec rejected");
        bcasts(1, rank, size, &round);
        check(acct_tool_force("") == 0, rank, "clear");
        bcasts(4, rank, size, &round);
    }
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    check(acct_tool_active() == 0, rank, "inactive after MPI_Finalize");
    if (rank == 0)
        printf("tool_force: %s (%d failures)\n", all + failures ? "FAILED" : "ok", all);
    return all + failures ? 1 : 0;
}
