/* Correctness of bcast with SACK reordering (docs/sack.md) under random,
 * per-rank entry delays. Run with a rules file that turns reordering on
 * (sack_check.sh writes it: a different tree algorithm per message-size
 * range, so one run covers every tree, unsegmented and multi-segment,
 * with and without segment 0 piggy-backed).
 *
 * On sub-communicators of sizes 1, 2, 3, 5, 8, 13, 16 (those that fit in
 * the job), every root, counts from 0 to multi-segment, a contiguous and a
 * non-contiguous datatype: the root fills a pattern of (iteration, root,
 * index), every rank checks it after the bcast (what the native bcast
 * gives). Before each call each rank sleeps a random time from its own
 * seed (0 to ~2 ms, sometimes much more) so arrival orders vary. Every
 * third bcast is followed by an allreduce (ACCT_FORCE'd by the wrapper to
 * a static ACCT schedule on the same private communicator).
 * Prints "sack_check: np=N calls=C errors=E OK|FAILED" from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long rng;

static unsigned next_rand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng >> 33);
}

static void random_delay(int max_us)
{
    unsigned r = next_rand() % 100;
    long us = r < 40 ? 0 : r < 95 ? (long)(next_rand() % (unsigned)max_us) : 5L * max_us;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    if (us > 0)
        nanosleep(&ts, NULL);
}

static int value(int it, int root, long i)
{
    return (int)((it * 7919L + root * 104729L + i * 31L) % 1000003L);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 16};
    /* in ints: 0; 4 B; 12 B; 1200 B; 6000 B; 40000 B; 80000 B; 160000 B (313 segments of
     * 512 B: more than the protocol's windows); 400000 B */
    static const long counts[] = {0, 1, 3, 300, 1500, 10000, 20000, 40000, 100000};
    int wrank, wsize, max_us = argc > 1 ? atoi(argv[1]) : 2000;
    long errors = 0, calls = 0;
    MPI_Datatype vec; /* ints 0 and 2 of 3 (extent 3 ints): non-contiguous */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    rng = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)(wrank + 1) * 0x1000193ULL;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *buf = malloc(sizeof(int) * 3 * 100000 + 16);
    if (max_us < 1)
        max_us = 1;

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (sizes[s] > wsize)
            continue;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < sizes[s] ? 0 : MPI_UNDEFINED, wrank, &comm);
        if (comm == MPI_COMM_NULL)
            continue;
        int rank, size, it = 0;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        for (int root = 0; root < size; root++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int typed = 0; typed < 2; typed++, it++) {
                    long n = typed ? counts[c] / 2 : counts[c]; /* elements */
                    long ints = typed ? 3 * n : n;
                    for (long i = 0; i < ints; i++)
                        buf[i] = rank == root ? value(it, root, i) : -1;
                    random_delay(max_us);
                    MPI_Bcast(buf, (int)n, typed ? vec : MPI_INT, root, comm);
                    calls++;
                    if (it % 3 == 0) { /* a static ACCT schedule on the same private comm */
                        int mine = rank + it, sum = 0;
                        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
                        if (sum != size * (size - 1) / 2 + size * it && errors++ < 5)
                            fprintf(stderr, "rank %d size %d: allreduce %d\n", wrank, size, sum);
                    }
                    for (long i = 0; i < ints; i++) {
                        /* the middle int of each element is a gap: untouched */
                        int want = typed && i % 3 == 1 && rank != root ? -1 : value(it, root, i);
                        if (buf[i] != want && errors++ < 5)
                            fprintf(stderr, "rank %d size %d root %d count %ld typed %d: [%ld] = %d, want %d\n",
                                    wrank, size, root, n, typed, i, buf[i], want);
                    }
                }
        MPI_Comm_free(&comm);
    }
    long all_errors = 0, all_calls = 0;
    MPI_Reduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&calls, &all_calls, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("sack_check: np=%d calls=%ld errors=%ld %s\n", wsize, all_calls, all_errors,
               all_errors ? "FAILED" : "OK");
    free(buf);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
