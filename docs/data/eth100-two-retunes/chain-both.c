/* One method of MPI_Reduce against native, timed in one job by the two
 * harnesses whose figures disagreed (session 42, docs/performance.md
 * "Session 42: the rooted collectives again": reduce 256 KiB's
 * hier_chain:2K:1 at 1.059 of native in acct-tune's race, 0.81-0.92 in
 * acct-ab's pairs), and by the harnesses in between, each differing from
 * acct-ab's in one thing:
 *   ab      acct-ab -b -a: MPI_INT, MPI_Barrier (through ACCT), the job's
 *           communicator, one warm-up call, then CALLS calls, each after a
 *           barrier
 *   uchar   MPI_UNSIGNED_CHAR elements (the tuner's)
 *   pmpi    PMPI_Barrier (the tuner's kit_measure)
 *   split   a communicator from MPI_Comm_split of the job's (the tuner's)
 *   check   an untimed checked call before the warm-up, and 5 calls (the
 *           tuner's kit_measure with --race-reps 5)
 *   tune    all four: the race's timing
 *   mix     tune, each side after the OTHERS (a comma list of ACCT_FORCE
 *           specs, timed the same way and not reported), as the race times
 *           a point's other finalists between native and the method
 * Each round times, per harness, native and the method in alternating
 * order; a side's time is the mean over ranks of each rank's mean time per
 * call (the avg view). Rank 0 prints per harness the median times and the
 * median and p25-p75 of the per-round ratios method/native.
 * Run with libacct.so preloaded (acct_tool_force), e.g. on the emulated
 * cluster at 100 Mbit/s:
 *   mpicc -O2 chain-both.c -o /tmp/chain-both -ldl
 *   srun -p eth -N4 -n8 --ntasks-per-node=2 --mpi=pmix \
 *     --export=ALL,LD_PRELOAD=$PWD/build/lib/libacct.so,OMPI_MCA_mpi_yield_when_idle=1 \
 *     /tmp/chain-both reduce=hier_chain:2048:1 262144 21 6 \
 *     reduce=hier_chain:32768:1,reduce=hier_binomial:2048 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*force_fn)(const char *);

enum { H_AB, H_UCHAR, H_PMPI, H_SPLIT, H_CHECK, H_TUNE, H_MIX, HARNESSES };
static const char *const hname[HARNESSES] = { "ab",    "uchar", "pmpi", "split",
                                              "check", "tune",  "mix" };

struct harness {
    MPI_Datatype type;
    int pmpi_barrier, split, check, mix;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const double *src, int n, double q)
{
    double *v = malloc((size_t)n * sizeof *v);
    memcpy(v, src, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (n - 1), r;
    int i = (int)pos;
    r = i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
    free(v);
    return r;
}

/* One side timed by harness h: the mean over ranks of each rank's mean
 * time per call, in µs (rank 0); *rank_max: the largest of them. */
static double time_side(const struct harness *h, MPI_Comm comm, force_fn force, const char *spec,
                        char *sbuf, char *rbuf, int bytes, int calls, double *rank_max)
{
    int size = h->type == MPI_INT ? 4 : 1, n = bytes / size, np;
    double busy = 0, sum = 0, mx = 0;

    force(spec);
    if (h->check) {
        PMPI_Barrier(comm);
        MPI_Reduce(sbuf, rbuf, n, h->type, MPI_SUM, 0, comm);
        int ok = 1, all;
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    }
    /* warm-up */
    h->pmpi_barrier ? PMPI_Barrier(comm) : MPI_Barrier(comm);
    MPI_Reduce(sbuf, rbuf, n, h->type, MPI_SUM, 0, comm);
    for (int i = 0; i < calls; i++) {
        h->pmpi_barrier ? PMPI_Barrier(comm) : MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        MPI_Reduce(sbuf, rbuf, n, h->type, MPI_SUM, 0, comm);
        busy += MPI_Wtime() - t0;
    }
    busy /= calls;
    PMPI_Reduce(&busy, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    PMPI_Reduce(&busy, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    *rank_max = mx * 1e6;
    MPI_Comm_size(comm, &np);
    return sum / np * 1e6;
}

int main(int argc, char **argv)
{
    int rank, rounds, calls, bytes;
    MPI_Comm split;
    char native[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if ((argc != 5 && argc != 6) || strncmp(argv[1], "reduce=", 7) != 0 || (bytes = atoi(argv[2])) <= 0 ||
        bytes % 4 != 0 || (rounds = atoi(argv[3])) < 1 || (calls = atoi(argv[4])) < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: chain-both reduce=SPEC BYTES ROUNDS CALLS [OTHERS] (BYTES a "
                            "multiple of 4)\n");
        MPI_Finalize();
        return 2;
    }
    force_fn force = (force_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "acct_tool_force");
    snprintf(native, sizeof native, "reduce=native");
    if (force == NULL || force(native) != 0) {
        if (rank == 0)
            fprintf(stderr, "chain-both: ACCT is not active (preload libacct.so)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &split);
    char *sbuf = calloc((size_t)bytes, 1), *rbuf = calloc((size_t)bytes, 1);
    for (int i = 0; i < bytes; i++)
        sbuf[i] = (char)(i + rank);
    const struct harness hs[HARNESSES] = {
        [H_AB] = { MPI_INT, 0, 0, 0 },         [H_UCHAR] = { MPI_UNSIGNED_CHAR, 0, 0, 0 },
        [H_PMPI] = { MPI_INT, 1, 0, 0 },       [H_SPLIT] = { MPI_INT, 0, 1, 0 },
        [H_CHECK] = { MPI_INT, 0, 0, 1 },      [H_TUNE] = { MPI_UNSIGNED_CHAR, 1, 1, 1 },
        [H_MIX] = { MPI_UNSIGNED_CHAR, 1, 1, 1, 1 },
    };
    const char *others = argc == 6 ? argv[5] : "";
    double *t = calloc((size_t)HARNESSES * 2 * (size_t)rounds, sizeof *t);
    double *tm = calloc((size_t)HARNESSES * 2 * (size_t)rounds, sizeof *tm); /* rank max */
    for (int r = 0; r < rounds; r++)
        for (int h = 0; h < HARNESSES; h++)
            for (int k = 0; k < 2; k++) {
                int side = (r + k + h) % 2; /* 0 native, 1 the method; order alternates */
                MPI_Comm comm = hs[h].split ? split : MPI_COMM_WORLD;
                int c = hs[h].check ? 5 : calls;
                for (const char *o = others; hs[h].mix && *o;) { /* the other finalists */
                    char spec[64];
                    size_t len = strcspn(o, ",");
                    snprintf(spec, sizeof spec, "%.*s", (int)len, o);
                    double ignored;
                    (void)time_side(&hs[h], comm, force, spec, sbuf, rbuf, bytes, c, &ignored);
                    o += len + (o[len] == ',');
                }
                size_t at = ((size_t)h * 2 + (size_t)side) * (size_t)rounds + (size_t)r;
                t[at] = time_side(&hs[h], comm, force, side ? argv[1] : native, sbuf, rbuf, bytes, c,
                                  &tm[at]);
            }
    if (rank == 0) {
        printf("%-6s %12s %12s %9s %15s %12s %12s   (%s, %d bytes, %d rounds; avg over ranks, "
               "then the slowest rank's mean)\n",
               "harness", "native_us", "method_us", "m/native", "p25-p75", "nat_rmax_us",
               "m_rmax_us", argv[1], bytes, rounds);
        double *ratio = malloc((size_t)rounds * sizeof *ratio);
        for (int h = 0; h < HARNESSES; h++) {
            const double *tn = &t[(size_t)h * 2 * (size_t)rounds], *tt = tn + rounds;
            const double *mn = &tm[(size_t)h * 2 * (size_t)rounds], *mt = mn + rounds;
            for (int r = 0; r < rounds; r++)
                ratio[r] = tt[r] / tn[r];
            printf("%-6s %12.1f %12.1f %9.3f %7.3f-%-7.3f %12.1f %12.1f\n", hname[h],
                   quantile(tn, rounds, 0.5), quantile(tt, rounds, 0.5),
                   quantile(ratio, rounds, 0.5), quantile(ratio, rounds, 0.25),
                   quantile(ratio, rounds, 0.75), quantile(mn, rounds, 0.5),
                   quantile(mt, rounds, 0.5));
        }
        free(ratio);
    }
    force("");
    free(t), free(tm), free(sbuf), free(rbuf);
    MPI_Comm_free(&split);
    MPI_Finalize();
    return 0;
}
