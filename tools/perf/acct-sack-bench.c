/* acct-sack-bench: the SACK reordering experiment of paper 002 (§5): a
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

int main(int argc, char **argv)
{
    const char *pattern = "interior";
    long bytes = 1 << 20;
    int reps = 5, ndelay = 3, rank, size, bad = 0;
    long delays[MAX_LATE] = {200, 300, 400};
    unsigned long long seed = 2000;
    const char *alternate = NULL; /* ACCT_FORCE spec of mode A; B = the rules */
    const char *alternate_b = NULL; /* --alternate-b: ACCT_FORCE spec of mode B (NULL: rules) */
    int timeline = 0;             /* --timeline 1: per-rank end times of every repetition */
    int warmup = 1;               /* --warmup N: repetitions without delays, not counted */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            bad = 1;
        else if (strcmp(argv[i], "--pattern") == 0)
            pattern = v;
        else if (strcmp(argv[i], "--bytes") == 0)
            bytes = parse_size(v);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(v);
        else if (strcmp(argv[i], "--alternate") == 0)
            alternate = v;
        else if (strcmp(argv[i], "--alternate-b") == 0)
            alternate_b = v;
        else if (strcmp(argv[i], "--warmup") == 0)
            warmup = atoi(v);
        else if (strcmp(argv[i], "--timeline") == 0)
            timeline = atoi(v);
        else if (strcmp(argv[i], "--seed") == 0)
            seed = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--delays") == 0) {
            char *copy = strdup(v), *save = NULL;
            ndelay = 0;
            for (char *t = strtok_r(copy, ",", &save); t && ndelay < MAX_LATE;
                 t = strtok_r(NULL, ",", &save))
                delays[ndelay++] = atol(t);
            free(copy);
        } else
            bad = 1;
        i++;
    }
    int fixed[3] = {1, 2, 4};
    if (strcmp(pattern, "leaf") == 0) {
        fixed[0] = 3, fixed[1] = 5, fixed[2] = 7;
    }
    int is_fixed = strcmp(pattern, "interior") == 0 || strcmp(pattern, "leaf") == 0;
    int is_random = strcmp(pattern, "random") == 0, is_none = strcmp(pattern, "none") == 0;
    if (bad || bytes < 0 || bytes > (1L << 30) || reps < 1 || ndelay < 1 || warmup < 1 ||
        !(is_fixed || is_random || is_none) || (is_fixed && (size < 8 || ndelay > 3)) ||
        (is_random && ndelay >= size)) {
        if (rank == 0)
            fprintf(stderr, "usage: acct-sack-bench [--pattern none|interior|leaf|random] "
                            "[--bytes N[K|M]] [--reps N] [--delays MS,MS,...] [--seed N] "
                            "[--alternate FORCE_SPEC [--alternate-b FORCE_SPEC]] [--timeline 1] [--warmup N] "
                            "(interior/leaf: 8+ ranks, 3 delays at most)\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(pattern, "none") == 0)
        ndelay = 0;
    char *buf = malloc((size_t)bytes + 1);
    int modes = alternate != NULL && acct_tool_active() ? 2 : 1;
    double *t = malloc(sizeof(double) * (size_t)reps * 2), *ratio = malloc(sizeof(double) * (size_t)reps);
    char late_desc[256] = "";
    rng = seed;
    for (int r = -warmup; r < reps; r++) { /* r < 0: warm-up, nobody late */
        int late[MAX_LATE];
        for (int i = 0; i < ndelay; i++) {
            if (strcmp(pattern, "random") == 0) {
                int x, dup;
                do {
                    x = 1 + (int)(next_rand() % (unsigned)(size - 1));
                    dup = 0;
                    for (int j = 0; j < i; j++)
                        dup |= late[j] == x;
                } while (dup);
                late[i] = x;
            } else
                late[i] = fixed[i];
        }
        long my_delay = 0;
        for (int i = 0; r >= 0 && i < ndelay; i++)
            if (late[i] == rank)
                my_delay = delays[i];
        if (r == 0 || (r > 0 && strcmp(pattern, "random") == 0 && r == 1)) {
            late_desc[0] = '\0';
            for (int i = 0; i < ndelay; i++) {
                size_t l = strlen(late_desc);
                snprintf(late_desc + l, sizeof late_desc - l, "%s%d:%ld", i ? "," : "", late[i],
                         delays[i]);
            }
            if (strcmp(pattern, "random") == 0 && r == 1) {
                size_t l = strlen(late_desc);
                snprintf(late_desc + l, sizeof late_desc - l, ",...");
            }
        }
        for (int m = 0; m < modes; m++) { /* A: forced spec, B: the rules */
            if (modes == 2 && acct_tool_force(m == 0 ? alternate : alternate_b) != 0)
                bad++;
            for (long i = 0; i < bytes; i++)
                buf[i] = rank == 0 ? (char)(i * 7 + r + warmup) : 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now_s();
            if (my_delay > 0) {
                struct timespec ts = {my_delay / 1000, (my_delay % 1000) * 1000000L};
                nanosleep(&ts, NULL);
            }
            MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
            double dt = now_s() - t0, worst = 0;
            for (long i = 0; i < bytes; i++)
                bad += buf[i] != (char)(i * 7 + r + warmup);
            MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (timeline && r >= 0) { /* when each rank left the bcast (ms after the barrier) */
                double *all = rank == 0 ? malloc(sizeof(double) * (size_t)size) : NULL;
                MPI_Gather(&dt, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                if (rank == 0 && all != NULL) {
                    printf("timeline rep=%d mode=%c", r, 'A' + m);
                    for (int q = 0; q < size; q++)
                        printf(" %d:%.1f", q, all[q] * 1e3);
                    printf("\n");
                }
                free(all);
            }
            if (r >= 0)
                t[m * reps + r] = worst * 1e3;
        }
        if (r >= 0 && modes == 2)
            ratio[r] = t[reps + r] / t[r];
    }
    int all_bad = 0;
    MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double med[2], lo[2], hi[2];
        for (int m = 0; m < modes; m++) {
            double *x = t + m * reps;
            qsort(x, (size_t)reps, sizeof *x, cmp);
            med[m] = reps % 2 ? x[reps / 2] : (x[reps / 2 - 1] + x[reps / 2]) / 2;
            lo[m] = x[0];
            hi[m] = x[reps - 1];
        }
        printf("pattern=%s late=%s bytes=%ld ranks=%d acct=%d reps=%d median_ms=%.3f "
               "min_ms=%.3f max_ms=%.3f",
               pattern, ndelay ? late_desc : "-", bytes, size, acct_tool_active(), reps, med[0],
               lo[0], hi[0]);
        if (modes == 2) {
            qsort(ratio, (size_t)reps, sizeof *ratio, cmp);
            printf(" B_median_ms=%.3f B_min_ms=%.3f B_max_ms=%.3f B_over_A_median=%.3f",
                   med[1], lo[1], hi[1],
                   reps % 2 ? ratio[reps / 2] : (ratio[reps / 2 - 1] + ratio[reps / 2]) / 2);
        }
        printf("%s\n", all_bad ? " WRONG-DATA" : "");
    }
    free(buf);
    free(t);
    free(ratio);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
