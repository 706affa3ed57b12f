/* acct-pair-duplex: one pair's two ways, and one rank's two peers, between
 * nodes (issue 21, docs/performance.md section 16 "Session 33").
 *
 *   srun -N 3 -n 3 --ntasks-per-node=1 acct-pair-duplex [BYTES [STREAM [REPS]]]
 *
 * One rank per node. Each pattern streams STREAM messages of BYTES (default
 * 4 x 1 MiB) and is timed REPS times (default 7) after a barrier; the time
 * is the slowest rank's, from the barrier to its last completion:
 *
 *   one way     rank 0 -> 1 (the reference, T1)
 *   pair both   0 <-> 1 at once (nonblocking): T / T1 is the one-pair
 *               two-way factor the model's pair_duplex_factor stands for
 *               (1: the pair is full duplex; 2: its two ways do not overlap)
 *               -- these two are acct-tune's own measurement of it
 *               (acct_plogp_pair_duplex, tools/acct-tune/plogp.c: one way
 *               and both ways interleaved, ratio of the medians)
 *   fan out     0 -> 1 and 0 -> 2 at once: two flows out of one node,
 *               T / (2 T1) (1: the link out is shared without loss)
 *   leader      0 <-> 1 and 0 <-> 2 at once: alltoall hier_leader's leader
 *               exchange, T / (2 T1) (1: link out and link in each carry
 *               their bytes at the one-way speed; 2: as measured in the
 *               hier_leader runs)
 *
 * The two three-rank patterns are interleaved with each other after the
 * pair's. Prints one line per pattern: median and least of the repetitions
 * in ms and the ratios of medians. Needs at least 2 ranks (3 for the last two).
 * MPI errors are fatal (the default handler). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plogp.h"

enum { ONE_WAY, PAIR_BOTH, FAN_OUT, LEADER, NPAT };
static const char *const names[NPAT] = {"one way", "pair both", "fan out", "leader"};

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Post this rank's part of a three-rank pattern (FAN_OUT, LEADER: rank 0
 * with peers 1 and 2); wait for all of it. The pair's patterns are
 * acct_plogp_pair_duplex's. */
static void run(int pat, int me, char *sbuf, char *rbuf, int m, int stream)
{
    MPI_Request rq[64];
    int n = 0, both = pat == LEADER;
    if (me == 0) {
        for (int p = 1; p <= 2; p++)
            for (int s = 0; s < stream; s++) {
                if (both)
                    MPI_Irecv(rbuf + (size_t)((p - 1) * stream + s) * (size_t)m, m, MPI_BYTE, p,
                              1, MPI_COMM_WORLD, &rq[n++]);
                MPI_Isend(sbuf, m, MPI_BYTE, p, 1, MPI_COMM_WORLD, &rq[n++]);
            }
    } else if (me <= 2) {
        for (int s = 0; s < stream; s++) {
            MPI_Irecv(rbuf + (size_t)s * (size_t)m, m, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[n++]);
            if (both)
                MPI_Isend(sbuf, m, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[n++]);
        }
    }
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long m = argc > 1 ? atol(argv[1]) : 1 << 20;
    int stream = argc > 2 ? atoi(argv[2]) : 4, reps = argc > 3 ? atoi(argv[3]) : 7;
    if (np < 2 || m < 1 || m > (1 << 26) || stream < 1 || stream > 16 || reps < 1 ||
        reps > 100) {
        if (me == 0)
            fprintf(stderr, "usage: acct-pair-duplex [BYTES (1..64Mi) [STREAM (1..16) "
                            "[REPS (1..100)]]] on 2 or more ranks, one per node\n");
        MPI_Finalize();
        return 2;
    }
    char *sbuf = malloc((size_t)m), *rbuf = malloc((size_t)m * (size_t)stream * 2);
    int ok = sbuf != NULL && rbuf != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (me == 0)
            fprintf(stderr, "acct-pair-duplex: out of memory\n");
        MPI_Finalize();
        return 1;
    }
    memset(sbuf, 0x5a, (size_t)m);
    static double all_t[NPAT][100];
    double med[NPAT] = {0}, least[NPAT] = {0};
    int npat = np >= 3 ? NPAT : 2;
    /* the pair's two patterns: acct-tune's measurement of the factor */
    struct acct_plogp_duplex d;
    if (acct_plogp_pair_duplex(MPI_COMM_WORLD, 0, 1, (uint64_t)m, stream, reps, &d) != 0) {
        if (me == 0)
            fprintf(stderr, "acct-pair-duplex: the pair's measurement failed\n");
        MPI_Finalize();
        return 1;
    }
    med[ONE_WAY] = d.one_median_s, least[ONE_WAY] = d.one_least_s;
    med[PAIR_BOTH] = d.both_median_s, least[PAIR_BOTH] = d.both_least_s;
    if (np >= 3)
        run(LEADER, me, sbuf, rbuf, (int)m, 1); /* warm-up: connections */
    for (int i = 0; i < reps && np >= 3; i++)
        for (int pat = FAN_OUT; pat < NPAT; pat++) { /* interleaved: the host's load hits both */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run(pat, me, sbuf, rbuf, (int)m, stream);
            double v = MPI_Wtime() - t0, slowest = 0;
            MPI_Allreduce(&v, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (me == 0)
                all_t[pat][i] = slowest;
        }
    for (int pat = FAN_OUT; pat < npat && me == 0; pat++) {
        qsort(all_t[pat], (size_t)reps, sizeof all_t[pat][0], cmp_d);
        med[pat] = all_t[pat][reps / 2];
        least[pat] = all_t[pat][0];
    }
    if (me == 0) {
        printf("# %d ranks, %d x %ld bytes per flow, %d repetitions interleaved\n", np, stream, m,
               reps);
        printf("pattern\tmedian_ms\tleast_ms\tratio\n");
        for (int pat = 0; pat < npat; pat++) {
            double ref = pat == ONE_WAY ? med[ONE_WAY] : pat == PAIR_BOTH ? med[ONE_WAY]
                                                                          : 2 * med[ONE_WAY];
            printf("%s\t%.2f\t%.2f\t%.3f\n", names[pat], 1e3 * med[pat], 1e3 * least[pat],
                   med[pat] / ref);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
