/* Correctness of scatter with SACK reordering (docs/sack.md "Scatter")
 * under late ranks. Run with a rules file that turns reordering on
 * (sack_rooted_check.sh writes it: linear, chain and binomial, one per
 * block-size range, so one run covers every reorder-capable scatter).
 *
 * On sub-communicators of sizes 1, 2, 3, 5, 8, 13, 16 (those that fit in
 * the job), every root, blocks from 0 to 48 KiB, a contiguous and a
 * non-contiguous datatype, in-place at the root every other call: the root
 * fills block r with a pattern of (iteration, root, r, index); every rank
 * checks its block (what the native scatter gives: its own rank's block,
 * whatever position it was given). Before each call each rank sleeps:
 * "random" mode, a random time from its own seed (0 to MAX µs, sometimes
 * 5 x MAX); "late" mode, ranks 1, 2 and 4 of the sub-communicator (the
 * root's children in the static binomial tree when the root is 0) by MAX,
 * 2 x MAX and 3 x MAX µs, so they must end up at the leaves. Every third
 * scatter is followed by an allreduce (ACCT_FORCE'd by the wrapper to a
 * static ACCT schedule on the same private communicator).
 * Prints "sack_rooted_check: np=N calls=C errors=E OK|FAILED" from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long rng;

static unsigned next_rand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng >> 33);
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    if (us > 0)
        nanosleep(&ts, NULL);
}

static void entry_delay(int late_mode, int rank, int max_us)
{
    if (late_mode) {
        sleep_us(rank == 1 ? max_us : rank == 2 ? 2L * max_us : rank == 4 ? 3L * max_us : 0);
        return;
    }
    unsigned r = next_rand() % 100;
    sleep_us(r < 40 || max_us <= 0 ? 0 : r < 95 ? (long)(next_rand() % (unsigned)max_us)
                                                 : 5L * max_us);
}

static int value(int it, int root, int r, long i)
{
    return (int)((it * 7919L + root * 104729L + r * 3571L + i * 31L) % 1000003L);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 16};
    /* ints per block: ranges of the rules file (bytes): linear < 1 KiB,
     * chain < 16 KiB, binomial above */
    static const int counts[] = {0, 1, 100, 255, 256, 1000, 4095, 4096, 12288};
    int wrank, wsize, max_us = argc > 1 ? atoi(argv[1]) : 2000;
    int late_mode = argc > 2 && strcmp(argv[2], "late") == 0;
    long calls = 0, errors = 0;
    MPI_Datatype vec; /* ints 0 and 2 of each 3: non-contiguous */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    rng = 0x9e3779b97f4a7c15ULL * (unsigned long long)(wrank + 1);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int size = sizes[si], it = 0;
        if (size > wsize)
            break;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < size ? 0 : MPI_UNDEFINED, size - wrank, &comm);
        if (comm == MPI_COMM_NULL) {
            PMPI_Barrier(MPI_COMM_WORLD);
            continue;
        }
        int rank;
        MPI_Comm_rank(comm, &rank);
        for (int root = 0; root < size; root++)
            for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
                for (int t = 0; t < 2; t++, it++) {
                    int n = counts[ci], stride = t ? 3 : 1, per = t ? 2 : 1;
                    /* t = 1: n / 2 vectors of 2 ints each (same bytes) */
                    int cnt = t ? n / 2 : n, ints = cnt * per;
                    size_t ext = (size_t)cnt * (size_t)stride * sizeof(int) + sizeof(int);
                    MPI_Datatype dt = t ? vec : MPI_INT;
                    int inplace = rank == root && it % 2 == 1;
                    int *all = NULL, *mine = calloc(ext, 1);
                    if (rank == root) {
                        all = calloc(ext * (size_t)size, 1);
                        for (int r = 0; r < size; r++)
                            for (int i = 0; i < ints; i++) {
                                int at = t ? (i / 2) * 3 + (i % 2) * 2 : i;
                                all[(size_t)r * (ext / sizeof(int) - 1) + (size_t)at] =
                                    value(it, root, r, i);
                            }
                    }
                    entry_delay(late_mode, rank, max_us);
                    /* blocks of the send buffer are cnt * extent(dt) apart */
                    MPI_Datatype st = dt;
                    MPI_Scatter(all, cnt, st, inplace ? MPI_IN_PLACE : mine, cnt, dt, root, comm);
                    calls++;
                    const int *got = inplace ? all + (size_t)root * (ext / sizeof(int) - 1) : mine;
                    for (int i = 0; i < ints; i++) {
                        int at = t ? (i / 2) * 3 + (i % 2) * 2 : i;
                        if (got[at] != value(it, root, rank, i)) {
                            if (errors++ < 5)
                                fprintf(stderr,
                                        "world rank %d: size=%d root=%d count=%d type=%s%s: "
                                        "element %d is %d, expected %d\n",
                                        wrank, size, root, cnt, t ? "vector" : "int",
                                        inplace ? " in-place" : "", i, got[at],
                                        value(it, root, rank, i));
                            break;
                        }
                    }
                    if (it % 3 == 0) { /* a static ACCT schedule on the same private comm */
                        int one = 1, sum = 0;
                        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
                        if (sum != size && errors++ < 5)
                            fprintf(stderr, "world rank %d: allreduce gave %d, not %d\n", wrank,
                                    sum, size);
                    }
                    free(all);
                    free(mine);
                }
        MPI_Comm_free(&comm);
        PMPI_Barrier(MPI_COMM_WORLD);
    }
    long in[2] = {calls, errors}, out[2];
    PMPI_Allreduce(in, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("sack_rooted_check: np=%d calls=%ld errors=%ld %s\n", wsize, out[0], out[1],
               out[1] == 0 ? "OK" : "FAILED");
    MPI_Type_free(&vec);
    MPI_Finalize();
    return out[1] == 0 ? 0 : 1;
}
