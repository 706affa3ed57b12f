/* acct-plogp-check: can the pLogP model be measured here? (issue 21;
 * docs/models.md "Measuring pLogP", docs/performance.md section 16
 * "Session 38").
 *
 *   mpirun -np 8 --oversubscribe acct-plogp-check [TRIES [PEER]]
 *   srun -N 4 -n 8 --ntasks-per-node=2 --mpi=pmix acct-plogp-check 10 2
 *
 * Measures the pLogP table between rank 0 and rank PEER (default: half the
 * ranks, another node under block placement) TRIES times (default 6) each
 * with or(m)'s wait as acct-tune does it (yielding the CPU) and as it did
 * before (busy), the two alternating, and checks every table as acct-tune
 * does (acct_plogp_consistent). Prints one line per table (the verdict,
 * L, or and g at each size) and per way the count of consistent tables and
 * the median or at the smallest size. The sizes are acct-tune's pLogP
 * sizes for a one-level model. MPI errors are fatal (the default handler). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/model.h"
#include "plogp.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static const uint64_t sizes[] = { 1, 1024, 8192, 65536, 262144 };
    enum { N = sizeof sizes / sizeof *sizes, MAX_TRIES = 100 };
    static const char *const way[2] = { "yielding", "busy" };
    int me = 0, np = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int tries = argc > 1 ? atoi(argv[1]) : 6;
    int peer = argc > 2 ? atoi(argv[2]) : np / 2;
    if (np < 2 || tries < 1 || tries > MAX_TRIES || peer < 1 || peer >= np) {
        if (me == 0)
            fprintf(stderr, "usage: acct-plogp-check [TRIES (1..%d) [PEER (1..ranks-1)]] "
                            "on 2 ranks or more\n", MAX_TRIES);
        MPI_Finalize();
        return 2;
    }
    static double or0[2][MAX_TRIES];
    int ok[2] = { 0, 0 };
    for (int t = 0; t < tries; t++)
        for (int w = 0; w < 2; w++) {
            struct acct_plogp_opts o = { .busy_wait = w == 1 };
            struct acct_plogp p;
            char why[256] = "";
            if (acct_plogp_measure_opts(MPI_COMM_WORLD, 0, peer, sizes, N, &o, &p) != 0) {
                if (me == 0)
                    fprintf(stderr, "acct-plogp-check: the measurement failed\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            int good = acct_plogp_consistent(&p, why, sizeof why) == 0;
            ok[w] += good;
            or0[w][t] = p.or_us[0];
            if (me != 0)
                continue;
            printf("%-8s %2d %s L %.1f us;", way[w], t, good ? "consistent  " : "INCONSISTENT",
                   p.L_us);
            for (int i = 0; i < N; i++)
                printf(" %llu B or %.1f g %.1f;", (unsigned long long)sizes[i], p.or_us[i],
                       p.g_us[i]);
            printf("%s%s\n", good ? "" : " ", why);
        }
    if (me == 0)
        for (int w = 0; w < 2; w++) {
            qsort(or0[w], (size_t)tries, sizeof(double), cmp_d);
            printf("%-8s consistent %d of %d; or(%llu B) median %.1f us (least %.1f, most "
                   "%.1f); ranks 0 and %d of %d\n",
                   way[w], ok[w], tries, (unsigned long long)sizes[0], or0[w][tries / 2],
                   or0[w][0], or0[w][tries - 1], peer, np);
        }
    MPI_Finalize();
    return 0;
}
