/* acct-overhead: what ACCT adds to a collective it leaves to the native
 * library, in nanoseconds per call, measured side by side in one process.
 *
 *   mpirun -np 1 [-x LD_PRELOAD=libacct.so] acct-overhead [blocks] [calls] [collective]
 *
 * Alternating blocks of `calls` calls of one collective on MPI_COMM_WORLD:
 * MPI_<Coll> (through ACCT's wrapper when preloaded) and PMPI_<Coll>
 * (straight into the MPI library). collective (default allreduce): one of
 * the table below -- 8 bytes per rank; the v-collectives with their count
 * arrays; the non-blocking ones each completed by PMPI_Wait (ACCT does not
 * wrap MPI_Wait, so both halves pay the same wait). Prints the median ns
 * per call of each and the difference; run it without the preload for the
 * noise floor, with it (decision: native), and with ACCT_DISABLE=1 (pure
 * pass-through). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double in[64], out[64];
static int cnt[64], dsp[64];

/* One call of a collective: through MPI_ (wrapped) or PMPI_ (native). */
#define ACCT_X_COLLS(X)                                                                   \
    X(allreduce, Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD))             \
    X(allgatherv, Allgatherv(in, 1, MPI_DOUBLE, out, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD)) \
    X(gatherv, Gatherv(in, 1, MPI_DOUBLE, out, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD))  \
    X(alltoallv, Alltoallv(in, cnt, dsp, MPI_DOUBLE, out, cnt, dsp, MPI_DOUBLE,          \
                           MPI_COMM_WORLD))                                               \
    X(scan, Scan(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD))                       \
    X(iallreduce, Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req))     \
    X(ialltoallv, Ialltoallv(in, cnt, dsp, MPI_DOUBLE, out, cnt, dsp, MPI_DOUBLE,        \
                             MPI_COMM_WORLD, &req))

/* A non-blocking call leaves req to wait for; a blocking one leaves it null. */
#define ACCT_X_FNS(name, call)                                                            \
    static void wrapped_##name(void)                                                      \
    {                                                                                     \
        MPI_Request req = MPI_REQUEST_NULL;                                               \
        MPI_##call;                                                                       \
        if (req != MPI_REQUEST_NULL)                                                      \
            PMPI_Wait(&req, MPI_STATUS_IGNORE);                                           \
    }                                                                                     \
    static void native_##name(void)                                                       \
    {                                                                                     \
        MPI_Request req = MPI_REQUEST_NULL;                                               \
        PMPI_##call;                                                                      \
        if (req != MPI_REQUEST_NULL)                                                      \
            PMPI_Wait(&req, MPI_STATUS_IGNORE);                                           \
    }
ACCT_X_COLLS(ACCT_X_FNS)
#undef ACCT_X_FNS

static const struct coll {
    const char *name;
    void (*wrapped)(void), (*native)(void);
} colls[] = {
#define ACCT_X_ROW(name, call) {#name, wrapped_##name, native_##name},
    ACCT_X_COLLS(ACCT_X_ROW)
#undef ACCT_X_ROW
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 41, calls = argc > 2 ? atoi(argv[2]) : 100000;
    const char *name = argc > 3 ? argv[3] : "allreduce";
    const struct coll *c = NULL;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        if (strcmp(colls[i].name, name) == 0)
            c = &colls[i];
    if (blocks < 1 || calls < 1 || c == NULL || size > 64) {
        if (rank == 0) {
            fprintf(stderr, "usage: acct-overhead [blocks>0] [calls>0] [collective] (at most 64 "
                            "ranks); collectives:");
            for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
                fprintf(stderr, " %s", colls[i].name);
            fprintf(stderr, "\n");
        }
        MPI_Finalize();
        return 2;
    }
    for (int i = 0; i < size; i++) {
        cnt[i] = 1;
        dsp[i] = i;
    }
    double *wrapped = malloc(sizeof(double) * (size_t)blocks);
    double *native = malloc(sizeof(double) * (size_t)blocks);
    double *diff = malloc(sizeof(double) * (size_t)blocks);
    if (!wrapped || !native || !diff)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < calls; i++) /* warm-up: state, caches, branch predictors */
        c->wrapped();
    for (int b = 0; b < blocks; b++) {
        double t0 = now_ns();
        for (int i = 0; i < calls; i++)
            c->wrapped();
        double t1 = now_ns();
        for (int i = 0; i < calls; i++)
            c->native();
        double t2 = now_ns();
        wrapped[b] = (t1 - t0) / calls;
        native[b] = (t2 - t1) / calls;
        diff[b] = wrapped[b] - native[b];
    }
    qsort(wrapped, (size_t)blocks, sizeof(double), cmp);
    qsort(native, (size_t)blocks, sizeof(double), cmp);
    qsort(diff, (size_t)blocks, sizeof(double), cmp);
    if (rank == 0)
        printf("acct-overhead: %d blocks x %d calls, 8-byte %s: MPI %.1f ns, PMPI %.1f ns, "
               "added median %.1f ns (p25 %.1f, p75 %.1f)\n",
               blocks, calls, c->name, wrapped[blocks / 2], native[blocks / 2],
               diff[blocks / 2], diff[blocks / 4], diff[3 * blocks / 4]);
    free(wrapped);
    free(native);
    free(diff);
    MPI_Finalize();
    return 0;
}
