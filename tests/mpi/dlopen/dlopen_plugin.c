/* dlopen_plugin: the MPI half of dlopen_main (issue 17). A shared library
 * linked with libmpi; its entry point runs a small MPI program: the MPI
 * library is reached only through this library's local dlopen scope.
 *
 * acct_plugin_run(): MPI_Init_thread(MPI_THREAD_FUNNELED), bcast, allreduce,
 * reduce, alltoall, gather, allgather and barrier over several counts and
 * roots, each result checked against its closed form, MPI_Finalize.
 *
 * Output (rank 0):
 *   calls <collective>=<n> ...        MPI calls this program made (per rank)
 *   rt_mapped=<0|1>                   libacct_rt.so in /proc/self/maps
 *   dlopen_plugin: np=<n> checks=<n> errors=<n> OK|FAILED
 * Returns 0 when every check passed on every rank, 1 otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mpi_test.h"

__attribute__((visibility("default"))) int acct_plugin_run(void);

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_ALLGATHER, C_ALLTOALL, C_COUNT };
static const char *const cname[C_COUNT] = {"barrier", "bcast",     "reduce",  "allreduce",
                                           "gather",  "allgather", "alltoall"};
static const int counts[] = {0, 1, 3, 1000, 65537};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

static int rank, size;
static long checks, errors, calls[C_COUNT];

static void expect(int ok, const char *what, int n, int root)
{
    checks++;
    if (!ok) {
        if (errors < 10)
            fprintf(stderr, "rank %d: %s n=%d root=%d wrong\n", rank, what, n, root);
        errors++;
    }
}

/* Values exact in any summation order. */
static double dval(int r, long i) { return r + (double)(i % 4096) * 0.5; }
static long lval(int r, long i) { return (r * 31L + i * 7) % 1000; }

static void run_checks(void)
{
    int roots[3] = {0, size / 2, size - 1};
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        double *d = xmalloc(sizeof(double) * (size_t)n);
        double *s = xmalloc(sizeof(double) * (size_t)n);
        for (int ri = 0; ri < 3; ri++) {
            int root = roots[ri];
            for (long i = 0; i < n; i++)
                d[i] = rank == root ? dval(root, i) : -1.0;
            MPI_Bcast(d, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
            calls[C_BCAST]++;
            int ok = 1;
            for (long i = 0; i < n; i++)
                ok &= d[i] == dval(root, i);
            expect(ok, "bcast", n, root);

            for (long i = 0; i < n; i++)
                d[i] = dval(rank, i), s[i] = -7.0;
            MPI_Reduce(d, s, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
            calls[C_REDUCE]++;
            if (rank == root) {
                ok = 1;
                for (long i = 0; i < n; i++)
                    ok &= s[i] == (double)size * (size - 1) / 2 + size * (double)(i % 4096) * 0.5;
                expect(ok, "reduce", n, root);
            }
        }
        for (long i = 0; i < n; i++)
            d[i] = dval(rank, i);
        MPI_Allreduce(d, s, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        calls[C_ALLREDUCE]++;
        int ok = 1;
        for (long i = 0; i < n; i++)
            ok &= s[i] == (double)size * (size - 1) / 2 + size * (double)(i % 4096) * 0.5;
        expect(ok, "allreduce", n, -1);
        free(d);
        free(s);
    }

    const int blocks[] = {0, 1, 1000, 10000};
    for (int bi = 0; bi < 4; bi++) {
        int n = blocks[bi];
        long *snd = xmalloc(sizeof(long) * (size_t)n * (size_t)size);
        long *rcv = xmalloc(sizeof(long) * (size_t)n * (size_t)size);
        for (int j = 0; j < size; j++)
            for (long i = 0; i < n; i++)
                snd[(long)j * n + i] = rank * 1000000L + j * 1000L + i % 1000, rcv[(long)j * n + i] = -1;
        MPI_Alltoall(snd, n, MPI_LONG, rcv, n, MPI_LONG, MPI_COMM_WORLD);
        calls[C_ALLTOALL]++;
        int ok = 1;
        for (int j = 0; j < size; j++)
            for (long i = 0; i < n; i++)
                ok &= rcv[(long)j * n + i] == j * 1000000L + rank * 1000L + i % 1000;
        expect(ok, "alltoall", n, -1);

        for (long i = 0; i < n; i++)
            snd[i] = lval(rank, i);
        for (int ri = 0; ri < 3; ri++) {
            int root = roots[ri];
            for (long i = 0; i < (long)n * size; i++)
                rcv[i] = -1;
            MPI_Gather(snd, n, MPI_LONG, rcv, n, MPI_LONG, root, MPI_COMM_WORLD);
            calls[C_GATHER]++;
            if (rank == root) {
                ok = 1;
                for (int j = 0; j < size; j++)
                    for (long i = 0; i < n; i++)
                        ok &= rcv[(long)j * n + i] == lval(j, i);
                expect(ok, "gather", n, root);
            }
        }
        for (long i = 0; i < (long)n * size; i++)
            rcv[i] = -1;
        MPI_Allgather(snd, n, MPI_LONG, rcv, n, MPI_LONG, MPI_COMM_WORLD);
        calls[C_ALLGATHER]++;
        ok = 1;
        for (int j = 0; j < size; j++)
            for (long i = 0; i < n; i++)
                ok &= rcv[(long)j * n + i] == lval(j, i);
        expect(ok, "allgather", n, -1);
        free(snd);
        free(rcv);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    calls[C_BARRIER]++;
}

static int rt_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, "libacct_rt.so") != NULL;
    if (f)
        fclose(f);
    return found;
}

int acct_plugin_run(void)
{
    int provided, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "dlopen_plugin: MPI_Init_thread returned %d\n", rc);
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run_checks();
    long total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    calls[C_ALLREDUCE]++;
    if (rank == 0) {
        printf("calls");
        for (int c = 0; c < C_COUNT; c++)
            printf(" %s=%ld", cname[c], calls[c]);
        printf("\nrt_mapped=%d\n", rt_mapped());
        printf("dlopen_plugin: np=%d checks=%ld errors=%ld %s\n", size, checks, total,
               total ? "FAILED" : "OK");
        fflush(stdout);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
