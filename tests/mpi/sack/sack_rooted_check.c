/* Correctness of scatter, gather and reduce with SACK reordering
 * (docs/sack.md "Scatter", "Gather and reduce") under late ranks. Run with
 * a rules file that turns reordering on for the collective named by the
 * third argument (sack_rooted_check.sh writes it: linear, chain and
 * binomial, one per size range, so one run covers every reorder-capable
 * tree of scatter and gather; reduce adds pipeline and binary).
 *
 * On sub-communicators of sizes 1, 2, 3, 5, 8, 13, 16 (those that fit in
 * the job), every root, blocks from 0 to 48 KiB, a contiguous and a
 * non-contiguous datatype, in-place at the root every other call. Block r
 * (scatter: the root's input for rank r; gather: rank r's input; reduce:
 * rank r's vector, MPI_SUM or, for the vector type, a user-defined
 * commutative sum) holds a pattern of (iteration, root, r,
 * index); every rank checks what native MPI would give: scatter, its own
 * rank's block whatever position it was given; gather, the root every
 * rank's block in rank order; reduce, the root the sum of every rank's
 * vector. Before each call each rank sleeps: "random" mode, a random time
 * from its own seed (0 to MAX µs, sometimes 5 x MAX); "late" mode, ranks
 * 1, 2 and 4 of the sub-communicator (the root's children in the static
 * binomial tree when the root is 0) by MAX, 2 x MAX and 3 x MAX µs, so
 * they must end up at the leaves. Every third call is followed by an
 * allreduce (ACCT_FORCE'd by the wrapper to a static ACCT schedule on the
 * same private communicator).
 * usage: sack_rooted_check MAX_US random|late [scatter|gather|reduce]
 * Prints "sack_rooted_check: COLL np=N calls=C errors=E OK|FAILED" from
 * rank 0. */
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

/* MPI_SUM of the vector type (predefined operations take predefined
 * types only): ints 0 and 2 of each 3, commutative. */
static void vec_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    (void)dt;
    for (int k = 0; k < *len; k++) {
        b[3 * k] += a[3 * k];
        b[3 * k + 2] += a[3 * k + 2];
    }
}

/* Fill block r (ints ints of layout t) at b with the pattern. */
static void fill(int *b, int t, int ints, int it, int root, int r)
{
    for (int i = 0; i < ints; i++)
        b[t ? (i / 2) * 3 + (i % 2) * 2 : i] = value(it, root, r, i);
}

/* First wrong element of the block at b (-1: none); *want gets it. */
static int check(const int *b, int t, int ints, int it, int root, int r, int sum_of, int *want)
{
    for (int i = 0; i < ints; i++) {
        int w = 0;
        if (sum_of > 0)
            for (int x = 0; x < sum_of; x++)
                w += value(it, root, x, i);
        else
            w = value(it, root, r, i);
        if (b[t ? (i / 2) * 3 + (i % 2) * 2 : i] != w) {
            *want = w;
            return i;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 16};
    /* ints per block: ranges of the rules file (bytes): linear < 1 KiB,
     * chain < 16 KiB, binomial above (reduce: pipeline and binary too) */
    static const int counts[] = {0, 1, 100, 255, 256, 1000, 4095, 4096, 12288};
    int wrank, wsize, max_us = argc > 1 ? atoi(argv[1]) : 2000;
    int late_mode = argc > 2 && strcmp(argv[2], "late") == 0;
    const char *coll = argc > 3 ? argv[3] : "scatter";
    int gather = strcmp(coll, "gather") == 0, reduce = strcmp(coll, "reduce") == 0;
    long calls = 0, errors = 0;
    MPI_Datatype vec; /* ints 0 and 2 of each 3: non-contiguous */
    MPI_Op vsum;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (!gather && !reduce && strcmp(coll, "scatter") != 0) {
        if (wrank == 0)
            fprintf(stderr, "sack_rooted_check: unknown collective \"%s\"\n", coll);
        MPI_Finalize();
        return 2;
    }
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Op_create(vec_sum, 1, &vsum);
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
                    int n = counts[ci];
                    /* t = 1: n / 2 vectors of 2 ints each (same bytes) */
                    int cnt = t ? n / 2 : n, ints = cnt * (t ? 2 : 1);
                    size_t ext = (size_t)cnt * (size_t)(t ? 3 : 1) * sizeof(int) + sizeof(int);
                    size_t stride = ext / sizeof(int) - 1; /* ints between blocks */
                    MPI_Datatype dt = t ? vec : MPI_INT;
                    int inplace = rank == root && it % 2 == 1;
                    int *all = NULL, *mine = calloc(ext, 1), *got, bad, want = 0;
                    if (rank == root || reduce)
                        all = calloc(ext * (size_t)size, 1);
                    if (gather) {
                        fill(inplace ? all + (size_t)rank * stride : mine, t, ints, it, root, rank);
                    } else if (reduce) {
                        fill(inplace ? all : mine, t, ints, it, root, rank);
                    } else if (rank == root) {
                        for (int r = 0; r < size; r++)
                            fill(all + (size_t)r * stride, t, ints, it, root, r);
                    }
                    entry_delay(late_mode, rank, max_us);
                    if (gather) {
                        MPI_Gather(inplace ? MPI_IN_PLACE : mine, cnt, dt, all, cnt, dt, root, comm);
                    } else if (reduce) {
                        MPI_Reduce(inplace ? MPI_IN_PLACE : mine, all, cnt, dt, t ? vsum : MPI_SUM,
                                   root, comm);
                    } else {
                        /* blocks of the send buffer are cnt * extent(dt) apart */
                        MPI_Scatter(all, cnt, dt, inplace ? MPI_IN_PLACE : mine, cnt, dt, root,
                                    comm);
                    }
                    calls++;
                    for (int r = 0; r < (gather && rank == root ? size : 1); r++) {
                        int who = gather ? r : rank;
                        if (gather || reduce) {
                            if (rank != root)
                                break;
                            got = all + (size_t)r * stride;
                        } else
                            got = inplace ? all + (size_t)root * stride : mine;
                        bad = check(got, t, ints, it, root, who, reduce ? size : 0, &want);
                        if (bad >= 0) {
                            if (errors++ < 5)
                                fprintf(stderr,
                                        "world rank %d: %s size=%d root=%d count=%d type=%s%s: "
                                        "block %d element %d is %d, expected %d\n",
                                        wrank, coll, size, root, cnt, t ? "vector" : "int",
                                        inplace ? " in-place" : "", who, bad,
                                        got[t ? (bad / 2) * 3 + (bad % 2) * 2 : bad], want);
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
        printf("sack_rooted_check: %s np=%d calls=%ld errors=%ld %s\n", coll, wsize, out[0],
               out[1], out[1] == 0 ? "OK" : "FAILED");
    MPI_Op_free(&vsum);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return out[1] == 0 ? 0 : 1;
}
