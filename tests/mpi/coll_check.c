/* coll_check: run every collective libacct wraps over several counts, roots,
 * datatypes, operations and in-place variants; check each result against
 * its closed form; print per-collective digests of all results so two runs
 * (native vs preloaded) can be compared byte for byte.
 *
 * Output (rank 0):
 *   digest <collective> <16 hex digits>       one line per collective
 *   calls <collective>=<n> ...                 calls this program made (per rank)
 *   rt_mapped=<0|1>                            libacct_rt.so in /proc/self/maps
 *   coll_check: np=<n> checks=<n> errors=<n> OK|FAILED
 * Exit status 0 when every check passed on every rank. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_SCATTER, C_ALLGATHER,
       C_ALLTOALL, C_RSB, C_COUNT };
static const char *const cname[C_COUNT] = {"barrier", "bcast", "reduce", "allreduce", "gather",
                                           "scatter", "allgather", "alltoall",
                                           "reduce_scatter_block"};

static int rank, size;
static long checks, errors;
static uint64_t digest[C_COUNT];
static long calls[C_COUNT];

static const int counts[] = {0, 1, 3, 1000, 65537};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

static void mix(int c, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = digest[c] ? digest[c] : 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    digest[c] = h;
}

static void expect(int c, int ok, const char *what, int count, int root, long at)
{
    checks++;
    if (!ok) {
        if (errors < 10)
            fprintf(stderr, "rank %d: %s %s count=%d root=%d wrong at %ld\n", rank, cname[c],
                    what, count, root, at);
        errors++;
    }
}

/* Values: small integers (exact sums in int and double, in any order). */
static int ival(int r, long i) { return (int)((r * 31 + i * 7) % 1000); }
static double dval(int r, long i) { return r + (double)(i % 4096) * 0.5; }

static int roots[3];

static void check_bcast(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int ri = 0; ri < 3; ri++) {
            int n = counts[ci], root = roots[ri];
            double *d = xmalloc(sizeof(double) * (size_t)n);
            for (long i = 0; i < n; i++)
                d[i] = rank == root ? dval(root, i) : -1.0;
            MPI_Bcast(d, n, MPI_DOUBLE, root, MPI_COMM_WORLD); calls[C_BCAST]++;
            long bad = -1;
            for (long i = 0; i < n && bad < 0; i++)
                if (d[i] != dval(root, i)) bad = i;
            expect(C_BCAST, bad < 0, "double", n, root, bad);
            mix(C_BCAST, d, sizeof(double) * (size_t)n);
            free(d);
        }
}

static long isum(long i) { long s = 0; for (int r = 0; r < size; r++) s += ival(r, i); return s; }
static int imax(long i) { int m = ival(0, i); for (int r = 1; r < size; r++) if (ival(r, i) > m) m = ival(r, i); return m; }
static double dsum(long i) { double s = 0; for (int r = 0; r < size; r++) s += dval(r, i); return s; }

static void check_reduce(int all)
{
    int c = all ? C_ALLREDUCE : C_REDUCE;
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int ri = 0; ri < (all ? 1 : 3); ri++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int n = counts[ci], root = roots[ri];
                int *si = xmalloc(sizeof(int) * (size_t)n), *ri_ = xmalloc(sizeof(int) * (size_t)n);
                double *sd = xmalloc(sizeof(double) * (size_t)n), *rd = xmalloc(sizeof(double) * (size_t)n);
                int here = all || rank == root;
                int use_inplace = inplace && here;
                for (long i = 0; i < n; i++) {
                    si[i] = ival(rank, i); sd[i] = dval(rank, i);
                    ri_[i] = use_inplace ? si[i] : -7; rd[i] = use_inplace ? sd[i] : -7.0;
                }
                const void *s1 = use_inplace ? MPI_IN_PLACE : (const void *)si;
                const void *s2 = use_inplace ? MPI_IN_PLACE : (const void *)sd;
                if (all) {
                    MPI_Allreduce(s1, ri_, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                    MPI_Allreduce(s2, rd, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                } else {
                    MPI_Reduce(s1, ri_, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
                    MPI_Reduce(s2, rd, n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
                }
                calls[c] += 2;
                if (here) {
                    long bad = -1;
                    for (long i = 0; i < n && bad < 0; i++)
                        if (ri_[i] != isum(i)) bad = i;
                    expect(c, bad < 0, inplace ? "int sum in-place" : "int sum", n, root, bad);
                    bad = -1;
                    for (long i = 0; i < n && bad < 0; i++)
                        if (rd[i] != dval(size - 1, i)) bad = i;
                    expect(c, bad < 0, inplace ? "double max in-place" : "double max", n, root, bad);
                    mix(c, ri_, sizeof(int) * (size_t)n);
                    mix(c, rd, sizeof(double) * (size_t)n);
                }
                free(si); free(ri_); free(sd); free(rd);
            }
    (void)imax; (void)dsum;
}

static void check_gather_scatter(int scatter)
{
    int c = scatter ? C_SCATTER : C_GATHER;
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int ri = 0; ri < 3; ri++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int n = counts[ci], root = roots[ri];
                size_t all_n = (size_t)n * (size_t)size;
                int *big = xmalloc(sizeof(int) * all_n), *mine = xmalloc(sizeof(int) * (size_t)n);
                int is_root = rank == root, use_inplace = inplace && is_root;
                long bad = -1;
                if (!scatter) {
                    for (long i = 0; i < n; i++) mine[i] = ival(rank, i);
                    for (size_t k = 0; k < all_n; k++) big[k] = -3;
                    if (use_inplace)
                        for (long i = 0; i < n; i++) big[(size_t)root * (size_t)n + (size_t)i] = ival(root, i);
                    MPI_Gather(use_inplace ? MPI_IN_PLACE : mine, n, MPI_INT, big, n, MPI_INT, root,
                               MPI_COMM_WORLD);
                    if (is_root) {
                        for (size_t k = 0; k < all_n && bad < 0; k++)
                            if (big[k] != ival((int)(k / (size_t)n), (long)(k % (size_t)n))) bad = (long)k;
                        expect(c, bad < 0, inplace ? "int in-place" : "int", n, root, bad);
                        mix(c, big, sizeof(int) * all_n);
                    }
                } else {
                    for (size_t k = 0; k < all_n; k++)
                        big[k] = is_root ? ival((int)(k / (size_t)n), (long)(k % (size_t)n)) + 1 : -3;
                    for (long i = 0; i < n; i++) mine[i] = -5;
                    MPI_Scatter(big, n, MPI_INT, use_inplace ? MPI_IN_PLACE : mine, n, MPI_INT, root,
                                MPI_COMM_WORLD);
                    const int *got = use_inplace ? big + (size_t)root * (size_t)n : mine;
                    for (long i = 0; i < n && bad < 0; i++)
                        if (got[i] != ival(rank, i) + 1) bad = i;
                    expect(c, bad < 0, inplace ? "int in-place" : "int", n, root, bad);
                    mix(c, got, sizeof(int) * (size_t)n);
                }
                calls[c]++;
                free(big); free(mine);
            }
}

static void check_allgather(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int n = counts[ci];
            size_t all_n = (size_t)n * (size_t)size;
            double *big = xmalloc(sizeof(double) * all_n), *mine = xmalloc(sizeof(double) * (size_t)n);
            for (long i = 0; i < n; i++) mine[i] = dval(rank, i);
            for (size_t k = 0; k < all_n; k++) big[k] = -1.0;
            if (inplace)
                for (long i = 0; i < n; i++) big[(size_t)rank * (size_t)n + (size_t)i] = mine[i];
            MPI_Allgather(inplace ? MPI_IN_PLACE : mine, n, MPI_DOUBLE, big, n, MPI_DOUBLE,
                          MPI_COMM_WORLD);
            calls[C_ALLGATHER]++;
            long bad = -1;
            for (size_t k = 0; k < all_n && bad < 0; k++)
                if (big[k] != dval((int)(k / (size_t)n), (long)(k % (size_t)n))) bad = (long)k;
            expect(C_ALLGATHER, bad < 0, inplace ? "double in-place" : "double", n, -1, bad);
            mix(C_ALLGATHER, big, sizeof(double) * all_n);
            free(big); free(mine);
        }
}

/* alltoall block (src -> dst) element i */
static int aval(int src, int dst, long i) { return (int)((src * 1009 + dst * 17 + i) % 100003); }

static void check_alltoall(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        size_t all_n = (size_t)n * (size_t)size;
        int *s = xmalloc(sizeof(int) * all_n), *r = xmalloc(sizeof(int) * all_n);
        for (size_t k = 0; k < all_n; k++) {
            s[k] = aval(rank, (int)(k / (size_t)n), (long)(k % (size_t)n));
            r[k] = -1;
        }
        MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
        calls[C_ALLTOALL]++;
        long bad = -1;
        for (size_t k = 0; k < all_n && bad < 0; k++)
            if (r[k] != aval((int)(k / (size_t)n), rank, (long)(k % (size_t)n))) bad = (long)k;
        expect(C_ALLTOALL, bad < 0, "int", n, -1, bad);
        mix(C_ALLTOALL, r, sizeof(int) * all_n);
        free(s); free(r);
    }
}

static void check_reduce_scatter_block(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int n = counts[ci];
            size_t all_n = (size_t)n * (size_t)size;
            int *s = xmalloc(sizeof(int) * all_n), *r = xmalloc(sizeof(int) * (inplace ? all_n : (size_t)n));
            for (size_t k = 0; k < all_n; k++) s[k] = ival(rank, (long)k);
            if (inplace) {
                memcpy(r, s, sizeof(int) * all_n);
                MPI_Reduce_scatter_block(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            } else {
                for (long i = 0; i < n; i++) r[i] = -1;
                MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            }
            calls[C_RSB]++;
            long bad = -1;
            for (long i = 0; i < n && bad < 0; i++)
                if (r[i] != isum((long)rank * n + i)) bad = i;
            expect(C_RSB, bad < 0, inplace ? "int sum in-place" : "int sum", n, -1, bad);
            mix(C_RSB, r, sizeof(int) * (size_t)n);
            free(s); free(r);
        }
}

static int rt_mapped(void)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, "libacct_rt") != NULL;
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    roots[0] = 0; roots[1] = size / 2; roots[2] = size - 1;

    MPI_Barrier(MPI_COMM_WORLD); calls[C_BARRIER]++;
    check_bcast();
    check_reduce(0);
    check_reduce(1);
    check_gather_scatter(0);
    check_gather_scatter(1);
    check_allgather();
    check_alltoall();
    check_reduce_scatter_block();
    MPI_Barrier(MPI_COMM_WORLD); calls[C_BARRIER]++;

    /* Collect: digests per collective in rank order, error totals. */
    uint64_t *all = rank == 0 ? xmalloc(sizeof(uint64_t) * C_COUNT * (size_t)size) : NULL;
    MPI_Gather(digest, C_COUNT, MPI_UINT64_T, all, C_COUNT, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    calls[C_GATHER]++;
    long totals[2] = {checks, errors}, sums[2] = {0, 0};
    MPI_Allreduce(totals, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    calls[C_ALLREDUCE]++;
    int mapped = rt_mapped();
    if (rank == 0) {
        for (int c = 0; c < C_COUNT; c++) {
            uint64_t h = 1469598103934665603ull;
            for (int r = 0; r < size; r++)
                h = (h ^ all[(size_t)r * C_COUNT + (size_t)c]) * 1099511628211ull;
            printf("digest %s %016llx\n", cname[c], (unsigned long long)h);
        }
        printf("calls");
        for (int c = 0; c < C_COUNT; c++)
            printf(" %s=%ld", cname[c], calls[c]);
        printf("\nrt_mapped=%d\n", mapped);
        printf("coll_check: np=%d checks=%ld errors=%ld %s\n", size, sums[0], sums[1],
               sums[1] == 0 ? "OK" : "FAILED");
        fflush(stdout);
        free(all);
    }
    MPI_Finalize();
    return sums[1] == 0 ? 0 : 1;
}
