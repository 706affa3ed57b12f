/* acct-ab: ACCT's algorithm against the MPI library's collective, measured
 * alternately inside one job, so that both see the same machine load.
 *
 *   acct-ab -c COLL (-f SPEC | -R) [-g SPEC] [-m SIZES] [-r ROUNDS] [-n ITERS]
 *           [-T SEC] [-b] [-a] [-o FILE]
 *
 * Run with libacct.so preloaded and the MPI library's own collective forced
 * through its parameters (for Open MPI: OMPI_MCA_coll_tuned_use_dynamic_rules=1,
 * OMPI_MCA_coll_tuned_<coll>_algorithm=N[, _segmentsize=S]). For each size
 * (bytes, comma list, K/M suffixes), ROUNDS rounds each time a block of
 * ITERS calls natively (acct_tool_force("")) and a block with ACCT forced to
 * SPEC (ACCT_FORCE syntax, e.g. "bcast=pipeline:8192"), in alternating order
 * (AB, BA, ...). A block's time is the slowest rank's, per call. Rank 0
 * prints per size the median block time of each side and the median of the
 * per-round ratios native/acct (> 1: ACCT faster), with p25-p75. Datatype
 * MPI_INT, root 0, MPI_SUM; sizes as acct-bench's (docs/acct-bench.md): bcast's
 * buffer, reduce's and allreduce's vector, reduce_scatter_block's result
 * block, each rank's contribution to gather and allgather, each rank's share
 * of scatter, alltoall's block per peer.
 *
 * -R instead of -f: the ACCT side runs what the rules (ACCT_RULES) decide
 * (acct_tool_force("")) and the native side is ACCT's "native" method
 * ("COLL=native"): tuned ACCT against whatever the MPI library is set to do.
 * -g SPEC: the "native" side is ACCT forced to SPEC too (e.g. "bcast=native",
 * "bcast=chain:64K:2"): two of ACCT's methods against each other, e.g. the
 * picks of two tuning runs (tools/perf/acct-retune-pair); the columns keep
 * their names, "native" meaning the -g side.
 * -T SEC: per size, a block has at least ITERS calls and about SEC seconds
 * (ITERS = SEC / the slowest rank's time of one call, at most 100000): small
 * messages get enough calls for a stable block time.
 * -b: a barrier before every call and only the calls timed (a block's time
 * is then the slowest rank's sum of call times / ITERS): the latency of one
 * call, as acct-bench and acct-tune measure it, instead of the throughput of
 * back-to-back calls (where a chain overlaps consecutive calls).
 * -a: a block's time is the average over the ranks instead of the slowest
 * rank's (OSU's "average latency" with -b; acct-tune's "avg" view).
 * -o FILE: rank 0 also appends every round to FILE, one tab-separated line
 * "collective bytes round native_us acct_us" each, so that rounds of several
 * jobs can be pooled (tools/perf/acct-vs-tuned -j). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*force_fn)(const char *);

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

static long parse_size(const char *s, char **end)
{
    long v = strtol(s, end, 10);
    if (**end == 'K' || **end == 'k')
        v *= 1024, (*end)++;
    else if (**end == 'M' || **end == 'm')
        v *= 1024 * 1024, (*end)++;
    return v;
}

static void call(const char *coll, int *sbuf, int *rbuf, int n)
{
    if (strcmp(coll, "bcast") == 0)
        MPI_Bcast(rbuf, n, MPI_INT, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce") == 0)
        MPI_Reduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "allreduce") == 0)
        MPI_Allreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "gather") == 0)
        MPI_Gather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "scatter") == 0)
        MPI_Scatter(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "allgather") == 0)
        MPI_Allgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, MPI_COMM_WORLD);
    else if (strcmp(coll, "alltoall") == 0)
        MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, MPI_COMM_WORLD);
    else
        MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* The command line and the two sides' ACCT_FORCE specs. */
struct ab {
    const char *coll, *spec, *sizes, *rounds_out;
    int rounds, iters;
    bool rules, barrier, avg;
    const char *other; /* -g: the other side's ACCT_FORCE spec */
    double target;
    char native_spec[64];
    force_fn force;
    int rank;
};

/* Parse argv into a; 0, or 2 (usage printed). */
static int parse_args(struct ab *a, int argc, char **argv)
{
    static const char *const colls[] = { "bcast",  "reduce",    "allreduce", "gather",
                                         "scatter", "allgather", "alltoall",  "reduce_scatter_block" };
    int opt, rc = 0;
    bool known = false;

    while ((opt = getopt(argc, argv, "c:f:g:m:r:n:RT:bao:")) != -1) {
        switch (opt) {
        case 'c': a->coll = optarg; break;
        case 'f': a->spec = optarg; break;
        case 'm': a->sizes = optarg; break;
        case 'r': a->rounds = atoi(optarg); break;
        case 'n': a->iters = atoi(optarg); break;
        case 'R': a->rules = true; break;
        case 'b': a->barrier = true; break;
        case 'a': a->avg = true; break;
        case 'g': a->other = optarg; break;
        case 'T': a->target = atof(optarg); break;
        case 'o': a->rounds_out = optarg; break;
        default: rc = 2;
        }
    }
    for (size_t i = 0; a->coll != NULL && i < sizeof colls / sizeof colls[0]; i++)
        known |= strcmp(a->coll, colls[i]) == 0;
    if (a->coll != NULL && !known) {
        fprintf(stderr, "acct-ab: unknown collective \"%s\"\n", a->coll);
        rc = 2;
    }
    if (rc || a->coll == NULL || (a->spec == NULL) == !a->rules || a->rounds < 1 ||
        a->iters < 1 || a->target < 0 || a->target > 60) {
        fprintf(stderr, "usage: acct-ab -c COLL (-f SPEC | -R) [-g SPEC] [-m SIZES] [-r ROUNDS]"
                        " [-n ITERS] [-T SEC] [-b] [-a] [-o FILE]\n");
        return 2;
    }
    if (a->other != NULL) {
        if (strlen(a->other) >= sizeof a->native_spec) {
            fprintf(stderr, "acct-ab: -g %s: longer than %zu characters\n", a->other,
                    sizeof a->native_spec - 1);
            return 2;
        }
        snprintf(a->native_spec, sizeof a->native_spec, "%s", a->other);
        if (a->rules)
            a->spec = "";
        return 0;
    }
    if (a->rules) { /* ACCT side: the rules; native side: ACCT's native method */
        snprintf(a->native_spec, sizeof a->native_spec, "%s=native", a->coll);
        a->spec = "";
    }
    return 0;
}

/* Calls per block: ITERS, or with -T about SEC seconds of the slowest
 * rank's time of one native call; alike on every rank. */
static int calls_per_block(const struct ab *a, int *sbuf, int *rbuf, int n)
{
    if (a->target <= 0)
        return a->iters;
    a->force(a->native_spec);
    call(a->coll, sbuf, rbuf, n);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), one, mx;
    call(a->coll, sbuf, rbuf, n);
    one = MPI_Wtime() - t0;
    MPI_Allreduce(&one, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double want = mx > 0 ? a->target / mx : 100000;
    return want > 100000 ? 100000 : want > a->iters ? (int)want : a->iters;
}

/* One block of it calls on one side: the slowest rank's µs per call (rank 0). */
static double time_block(const struct ab *a, int side, int *sbuf, int *rbuf, int n, int it)
{
    a->force(side ? a->spec : a->native_spec);
    call(a->coll, sbuf, rbuf, n); /* warm-up (schedule, scratch) */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), busy = 0;
    for (int i = 0; i < it; i++) {
        if (a->barrier) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        call(a->coll, sbuf, rbuf, n);
        if (a->barrier)
            busy += MPI_Wtime() - t0;
    }
    double dt = (a->barrier ? busy : MPI_Wtime() - t0) / it, mx;
    int np;
    MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, a->avg ? MPI_SUM : MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    return (a->avg ? mx / np : mx) * 1e6;
}

/* All rounds of one message size; rank 0 prints its row (and the rounds to raw). */
static void one_size(const struct ab *a, long bytes, int size, FILE *raw)
{
    int n = (int)(bytes / (long)sizeof(int)), rounds = a->rounds;
    size_t elems = (size_t)n * (size_t)size;
    int *sbuf = calloc(elems ? elems : 1, sizeof(int));
    int *rbuf = calloc(elems ? elems : 1, sizeof(int));
    double *t[2], *ratio = malloc((size_t)rounds * sizeof *ratio);
    t[0] = malloc((size_t)rounds * sizeof(double));
    t[1] = malloc((size_t)rounds * sizeof(double));
    for (size_t i = 0; i < elems; i++)
        sbuf[i] = (int)(i + (size_t)a->rank);
    int it = calls_per_block(a, sbuf, rbuf, n);
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int side = (r + k) % 2; /* 0 native, 1 acct; order alternates */
            t[side][r] = time_block(a, side, sbuf, rbuf, n, it);
        }
    if (a->rank == 0) {
        for (int r = 0; r < rounds; r++) {
            ratio[r] = t[0][r] / t[1][r];
            if (raw != NULL)
                fprintf(raw, "%s\t%ld\t%d\t%.9g\t%.9g\n", a->coll, bytes, r, t[0][r], t[1][r]);
        }
        double q25 = quantile(ratio, rounds, 0.25), q75 = quantile(ratio, rounds, 0.75);
        double med = quantile(ratio, rounds, 0.5);
        printf("%-22s %9ld %12.1f %12.1f %10.3f %8.3f-%-8.3f %7d\n", a->coll, bytes,
               quantile(t[0], rounds, 0.5), quantile(t[1], rounds, 0.5), med, q25, q75, it);
        fflush(stdout);
    }
    free(sbuf), free(rbuf), free(t[0]), free(t[1]), free(ratio);
}

int main(int argc, char **argv)
{
    struct ab a = { .sizes = "64K,256K,1M", .rounds = 15, .iters = 5 };
    int size, rc = 0;

    if (parse_args(&a, argc, argv) != 0)
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    FILE *raw = NULL;
    int raw_ok = 1;
    if (a.rank == 0 && a.rounds_out != NULL && (raw = fopen(a.rounds_out, "a")) == NULL) {
        fprintf(stderr, "acct-ab: %s: cannot open for appending\n", a.rounds_out);
        raw_ok = 0;
    }
    MPI_Bcast(&raw_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!raw_ok) {
        MPI_Finalize();
        return 2;
    }
    a.force = (force_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "acct_tool_force");
    if (a.force == NULL || a.force(a.native_spec) != 0) {
        if (a.rank == 0)
            fprintf(stderr, "acct-ab: ACCT is not active (preload libacct.so)\n");
        MPI_Finalize();
        return 2;
    }
    if (a.rank == 0)
        printf("%-22s %9s %12s %12s %10s %17s %7s\n", "collective", "bytes", "native_us",
               "acct_us", "nat/acct", "ratio p25-p75", "calls");
    for (const char *p = a.sizes; *p;) {
        char *end;
        long bytes = parse_size(p, &end);
        p = *end == ',' ? end + 1 : end;
        one_size(&a, bytes, size, raw);
    }
    a.force(a.rules ? "" : a.native_spec);
    if (raw != NULL && fclose(raw) != 0) {
        fprintf(stderr, "acct-ab: %s: write failed\n", a.rounds_out);
        rc = 1;
    }
    MPI_Finalize();
    return rc;
}
