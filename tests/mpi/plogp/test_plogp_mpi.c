/* acct_plogp_measure() on the ranks of this host (label mpi): the values
 * are finite, >= 0, the same on every rank, and plausible (the gap grows
 * with the size); bad arguments are refused alike on every rank. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "plogp.h"

static int failures;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "rank %d: %s:%d: %s: ", me, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    int me = 0, np = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    static const uint64_t sizes[] = {0, 1, 64, 1024, 16384, 65536, 262144};
    const size_t n = sizeof sizes / sizeof *sizes;
    struct acct_plogp t;
    memset(&t, 0, sizeof t);

    double t0 = MPI_Wtime();
    /* The host is shared (2 cores, parallel ctest jobs): a measurement
     * whose gaps are not plausible (g(256K) <= g(1K), or g(256K) under half
     * of g(64K)) was disturbed; measure again, up to three times in all
     * (every rank holds the same table, so all decide alike). The checks
     * below still fail a measurement that is never plausible. */
    int rc = 0;
    for (int attempt = 1; attempt <= 3; attempt++) {
        rc = acct_plogp_measure(MPI_COMM_WORLD, 0, np - 1, sizes, n, &t);
        if (rc != 0 || (t.g_us[n - 1] > t.g_us[3] && t.g_us[n - 1] > 0.5 * t.g_us[n - 2]))
            break;
        if (me == 0)
            printf("disturbed measurement %d (g(1K) %.2f, g(64K) %.2f, g(256K) %.2f)%s\n",
                   attempt, t.g_us[3], t.g_us[n - 2], t.g_us[n - 1],
                   attempt < 3 ? ": measuring again" : "");
    }
    double took = MPI_Wtime() - t0;
    CHECK(rc == 0, "measure returned %d", rc);
    CHECK(t.n == n, "n = %zu", t.n);
    CHECK(acct_plogp_check(&t, NULL, 0) == 0, "table does not pass acct_plogp_check");
    for (size_t i = 0; i < t.n; i++) {
        CHECK(t.m[i] == sizes[i], "m[%zu] = %llu", i, (unsigned long long)t.m[i]);
        CHECK(isfinite(t.os_us[i]) && t.os_us[i] >= 0 && t.os_us[i] < 1e6, "os[%zu] = %g", i,
              t.os_us[i]);
        CHECK(isfinite(t.or_us[i]) && t.or_us[i] >= 0 && t.or_us[i] < 1e6, "or[%zu] = %g", i,
              t.or_us[i]);
        CHECK(isfinite(t.g_us[i]) && t.g_us[i] >= 0 && t.g_us[i] < 1e6, "g[%zu] = %g", i,
              t.g_us[i]);
    }
    CHECK(isfinite(t.L_us) && t.L_us >= 0 && t.L_us < 1e6, "L = %g", t.L_us);
    /* monotone-ish: a 256 KiB message takes longer than a 1 KiB one, and
     * positive gaps where data moves */
    CHECK(t.g_us[n - 1] > t.g_us[3], "g(256K) %g <= g(1K) %g", t.g_us[n - 1], t.g_us[3]);
    CHECK(t.g_us[n - 1] > 0 && t.g_us[n - 2] > 0, "zero gap for large messages");
    CHECK(t.g_us[n - 1] > 0.5 * t.g_us[n - 2], "g(256K) %g < g(64K)/2 %g", t.g_us[n - 1],
          t.g_us[n - 2]);
    /* the LogGP conversion works on it */
    struct acct_loggp lg;
    CHECK(acct_plogp_to_loggp(&t, &lg) == 0, "to_loggp failed");
    CHECK(lg.G_us_per_byte > 0, "G = %g", lg.G_us_per_byte);

    /* every rank holds the same table */
    double mine[3] = {t.L_us, t.g_us[n - 1], t.or_us[2]}, lo[3], hi[3];
    MPI_Allreduce(mine, lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(memcmp(lo, hi, sizeof lo) == 0, "ranks disagree");

    /* bad arguments: -1 everywhere, *out untouched, no hang */
    static const uint64_t down[] = {64, 8};
    struct acct_plogp keep = t;
    CHECK(acct_plogp_measure(MPI_COMM_WORLD, 0, 0, sizes, n, &t) == -1, "same peers accepted");
    CHECK(acct_plogp_measure(MPI_COMM_WORLD, 0, np, sizes, n, &t) == -1, "peer out of range");
    CHECK(acct_plogp_measure(MPI_COMM_WORLD, 0, 1, down, 2, &t) == -1, "decreasing sizes");
    CHECK(acct_plogp_measure(MPI_COMM_WORLD, 0, 1, sizes, 0, &t) == -1, "no sizes");
    CHECK(memcmp(&keep, &t, sizeof t) == 0, "out changed on failure");

    if (me == 0) {
        printf("pLogP on this host (%d ranks, %.2f s): L = %.2f us\n", np, took, t.L_us);
        printf("%10s %10s %10s %10s\n", "m", "os_us", "or_us", "g_us");
        for (size_t i = 0; i < t.n; i++)
            printf("%10llu %10.2f %10.2f %10.2f\n", (unsigned long long)t.m[i], t.os_us[i],
                   t.or_us[i], t.g_us[i]);
        printf("LogGP: L %.2f o %.2f g %.2f G %.5f us/byte\n", lg.L_us, lg.o_us, lg.g_us,
               lg.G_us_per_byte);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
