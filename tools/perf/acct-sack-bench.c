/* acct-sack-bench: the SACK reordering experiment of Vadhiyar et al.
 * 2000 (§5): a
 * bcast from rank 0 while some processes enter it late.
 *
 *   mpirun -np 8 [-x LD_PRELOAD=libacct.so -x ACCT_RULES=R [-x ACCT_SACK_FILL=df|bf]]
 *       acct-sack-bench [--pattern none|interior|leaf|random] [--bytes 1M]
 *                       [--reps 5] [--delays 200,300,400] [--seed N] [--timeline 1]
 *
 * Each repetition: a barrier (synchronised start), the late ranks sleep
 * their delay (ms), every rank calls MPI_Bcast(bytes, root 0) and checks
 * the data. The time of a repetition is the largest, over ranks, of
 * (end of the bcast - end of the barrier) on that rank: what the slowest
 * process sees, delays included. One warm-up repetition without delays is
 * not counted (--warmup N: N of them; over TCP, SACK's changing pairs of
 * processes need a few calls before every connection exists and the
 * kernel has grown its buffers, docs/sack.md). Prints one line from rank 0:
 *   pattern=interior late=1:200,2:300,4:400 bytes=1048576 reps=5 median_ms=... min_ms=... max_ms=...
 *
 * Patterns (for 8 ranks; delays in the order given):
 *   none      nobody late (the overhead of reordering)
 *   interior  ranks 1, 2, 4: the root's children in the binomial tree
 *   leaf      ranks 3, 5, 7: leaves of the binomial tree
 *   random    three distinct non-root ranks drawn per repetition from --seed
 *             (the same on every rank and in every run: comparable)
 * What runs the bcast is chosen outside: no preload = the MPI library;
 * a rules file with `reorder: false` = ACCT's static tree; `reorder: true`
 * with ACCT_SACK_FILL = depth- or breadth-first reordering. The wrapper
 * acct-sack-bench.sh runs the whole matrix.
 *
 * --alternate SPEC (ACCT active; the binary links libacct.so's tool API):
 * every repetition runs mode A (acct_tool_force(SPEC), e.g.
 * "bcast=binomial:8K": the static tree) then mode B (forcing cleared: the
 * rules file, e.g. the same tree with reorder: true) under the same delays,
 * so both see the same machine load; prints B's figures and the median of
 * the per-repetition ratios B/A as well.
 *
 * --timeline 1: rank 0 also prints, per repetition (and mode), when each
 * rank left the bcast, in ms after the barrier ("timeline rep=R mode=A|B
 * rank:ms ..."): where the time goes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/tool.h"

#define MAX_LATE 8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned long long rng;
static unsigned next_rand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng >> 33);
}

static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v *= 1024;
    else if (*end == 'M' || *end == 'm')
        v *= 1024 * 1024;
    return v;
}

/* The command line; the defaults are the documented ones. */
struct bench {
    const char *pattern;
    long bytes;
    int reps, ndelay, warmup, timeline;
    long delays[MAX_LATE];
    unsigned long long seed;
    const char *alternate;   /* ACCT_FORCE spec of mode A; B = the rules */
    const char *alternate_b; /* --alternate-b: ACCT_FORCE spec of mode B (NULL: rules) */
    int fixed[3];            /* the late ranks of the interior/leaf patterns */
    int is_random;
    int rank, size;
};

/* Parse argv into b; 0, or -1 on a bad command line. */
static int parse_args(struct bench *b, int argc, char **argv)
{
    int bad = 0;

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            bad = 1;
        else if (strcmp(argv[i], "--pattern") == 0)
            b->pattern = v;
        else if (strcmp(argv[i], "--bytes") == 0)
            b->bytes = parse_size(v);
        else if (strcmp(argv[i], "--reps") == 0)
            b->reps = atoi(v);
        else if (strcmp(argv[i], "--alternate") == 0)
            b->alternate = v;
        else if (strcmp(argv[i], "--alternate-b") == 0)
            b->alternate_b = v;
        else if (strcmp(argv[i], "--warmup") == 0)
            b->warmup = atoi(v);
        else if (strcmp(argv[i], "--timeline") == 0)
            b->timeline = atoi(v);
        else if (strcmp(argv[i], "--seed") == 0)
            b->seed = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--delays") == 0) {
            char *copy = strdup(v), *save = NULL;
            b->ndelay = 0;
            for (char *t = strtok_r(copy, ",", &save); t && b->ndelay < MAX_LATE;
                 t = strtok_r(NULL, ",", &save))
                b->delays[b->ndelay++] = atol(t);
            free(copy);
        } else
            bad = 1;
        i++;
    }
    if (strcmp(b->pattern, "leaf") == 0) {
        b->fixed[0] = 3, b->fixed[1] = 5, b->fixed[2] = 7;
    }
    int is_fixed = strcmp(b->pattern, "interior") == 0 || strcmp(b->pattern, "leaf") == 0;
    int is_none = strcmp(b->pattern, "none") == 0;
    b->is_random = strcmp(b->pattern, "random") == 0;
    if (bad || b->bytes < 0 || b->bytes > (1L << 30) || b->reps < 1 || b->ndelay < 1 ||
        b->warmup < 1 || !(is_fixed || b->is_random || is_none) ||
        (is_fixed && (b->size < 8 || b->ndelay > 3)) || (b->is_random && b->ndelay >= b->size))
        return -1;
    if (is_none)
        b->ndelay = 0;
    return 0;
}

/* The late ranks of one repetition: fixed, or drawn without repetition. */
static void pick_late(const struct bench *b, int *late)
{
    for (int i = 0; i < b->ndelay; i++) {
        if (!b->is_random) {
            late[i] = b->fixed[i];
            continue;
        }
        int x, dup;
        do {
            x = 1 + (int)(next_rand() % (unsigned)(b->size - 1));
            dup = 0;
            for (int j = 0; j < i; j++)
                dup |= late[j] == x;
        } while (dup);
        late[i] = x;
    }
}

/* "rank:ms,..." of the first repetition; random patterns add ",...". */
static void describe_late(const struct bench *b, const int *late, int more, char *desc,
                          size_t len)
{
    desc[0] = '\0';
    for (int i = 0; i < b->ndelay; i++) {
        size_t l = strlen(desc);
        snprintf(desc + l, len - l, "%s%d:%ld", i ? "," : "", late[i], b->delays[i]);
    }
    if (more) {
        size_t l = strlen(desc);
        snprintf(desc + l, len - l, ",...");
    }
}

/* One timed bcast of repetition r in mode m: the slowest rank's time
 * (rank 0; ms), after my_delay ms of lateness; counts wrong bytes in *bad. */
static double one_bcast(const struct bench *b, char *buf, int r, int m, long my_delay, int *bad)
{
    for (long i = 0; i < b->bytes; i++)
        buf[i] = b->rank == 0 ? (char)(i * 7 + r + b->warmup) : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    if (my_delay > 0) {
        struct timespec ts = {my_delay / 1000, (my_delay % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    MPI_Bcast(buf, (int)b->bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    double dt = now_s() - t0, worst = 0;
    for (long i = 0; i < b->bytes; i++)
        *bad += buf[i] != (char)(i * 7 + r + b->warmup);
    MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (b->timeline && r >= 0) { /* when each rank left the bcast (ms after the barrier) */
        double *all = b->rank == 0 ? malloc(sizeof(double) * (size_t)b->size) : NULL;
        MPI_Gather(&dt, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (b->rank == 0 && all != NULL) {
            printf("timeline rep=%d mode=%c", r, 'A' + m);
            for (int q = 0; q < b->size; q++)
                printf(" %d:%.1f", q, all[q] * 1e3);
            printf("\n");
        }
        free(all);
    }
    return worst * 1e3;
}

static double median_sorted(const double *x, int n)
{
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Rank 0's one line: medians and extremes per mode, B/A's median ratio. */
static void report(const struct bench *b, double *t, double *ratio, int modes,
                   const char *late_desc, int all_bad)
{
    double med[2], lo[2], hi[2];
    int reps = b->reps;

    for (int m = 0; m < modes; m++) {
        double *x = t + m * reps;
        qsort(x, (size_t)reps, sizeof *x, cmp);
        med[m] = median_sorted(x, reps);
        lo[m] = x[0];
        hi[m] = x[reps - 1];
    }
    printf("pattern=%s late=%s bytes=%ld ranks=%d acct=%d reps=%d median_ms=%.3f "
           "min_ms=%.3f max_ms=%.3f",
           b->pattern, b->ndelay ? late_desc : "-", b->bytes, b->size, acct_tool_active(), reps,
           med[0], lo[0], hi[0]);
    if (modes == 2) {
        qsort(ratio, (size_t)reps, sizeof *ratio, cmp);
        printf(" B_median_ms=%.3f B_min_ms=%.3f B_max_ms=%.3f B_over_A_median=%.3f", med[1],
               lo[1], hi[1], median_sorted(ratio, reps));
    }
    printf("%s\n", all_bad ? " WRONG-DATA" : "");
}

int main(int argc, char **argv)
{
    struct bench b = { .pattern = "interior", .bytes = 1 << 20, .reps = 5, .ndelay = 3,
                       .warmup = 1, .delays = {200, 300, 400}, .seed = 2000,
                       .fixed = {1, 2, 4} };
    int bad = 0, all_bad = 0;
    char late_desc[256] = "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.size);
    if (parse_args(&b, argc, argv) != 0) {
        if (b.rank == 0)
            fprintf(stderr, "usage: acct-sack-bench [--pattern none|interior|leaf|random] "
                            "[--bytes N[K|M]] [--reps N] [--delays MS,MS,...] [--seed N] "
                            "[--alternate FORCE_SPEC [--alternate-b FORCE_SPEC]] [--timeline 1] [--warmup N] "
                            "(interior/leaf: 8+ ranks, 3 delays at most)\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc((size_t)b.bytes + 1);
    int modes = b.alternate != NULL && acct_tool_active() ? 2 : 1;
    double *t = malloc(sizeof(double) * (size_t)b.reps * 2);
    double *ratio = malloc(sizeof(double) * (size_t)b.reps);
    rng = b.seed;
    for (int r = -b.warmup; r < b.reps; r++) { /* r < 0: warm-up, nobody late */
        int late[MAX_LATE];
        pick_late(&b, late);
        long my_delay = 0;
        for (int i = 0; r >= 0 && i < b.ndelay; i++)
            if (late[i] == b.rank)
                my_delay = b.delays[i];
        if (r == 0 || (r == 1 && b.is_random))
            describe_late(&b, late, r == 1, late_desc, sizeof(late_desc));
        for (int m = 0; m < modes; m++) { /* A: forced spec, B: the rules */
            if (modes == 2 && acct_tool_force(m == 0 ? b.alternate : b.alternate_b) != 0)
                bad++;
            double ms = one_bcast(&b, buf, r, m, my_delay, &bad);
            if (r >= 0)
                t[m * b.reps + r] = ms;
        }
        if (r >= 0 && modes == 2)
            ratio[r] = t[b.reps + r] / t[r];
    }
    MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (b.rank == 0)
        report(&b, t, ratio, modes, late_desc, all_bad);
    free(buf);
    free(t);
    free(ratio);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
