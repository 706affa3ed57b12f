/* Late processes in rooted collectives (docs/sack.md "Scatter, gather,
 * reduce"): how long after the last arrival a call ends, per method, with
 * the methods alternating inside each repetition (acct_tool_force), so
 * their ratios are measured side by side.
 *
 *   mpirun -np 8 acct-sack-rooted-bench COLL BYTES PATTERN D1,D2,D3 REPS SPEC...
 *
 * COLL scatter|gather|reduce; BYTES per rank's block (reduce: the vector,
 * MPI_INT, MPI_SUM); PATTERN none | interior (ranks 1, 2, 4 late by D1, D2,
 * D3 ms: the root's children in the static binomial tree rooted at 0) |
 * leaf (ranks 3, 5, 7) ; SPEC an ACCT_FORCE text per method, e.g.
 * scatter=binomial scatter=binomial:::reorder, or "rules" (nothing forced:
 * the rules of ACCT_RULES decide, e.g. with the automatic mode; every
 * repetition is one more call of its site). Root 0, one warm-up
 * repetition. Time of a repetition = the slowest rank's (end of the call −
 * end of the preceding barrier), on the host's monotonic clock (one host);
 * "excess" = time − the largest delay. Prints per method the median time
 * and excess (ms), and the median over repetitions of time(method) /
 * time(first method); with ACCT_BENCH_EACH=1 also every repetition's
 * times. Runs only on one host (shared clock). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/tool.h"

#define MAXM 4

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 7 || argc - 6 > MAXM) {
        if (rank == 0)
            fprintf(stderr, "usage: %s COLL BYTES none|interior|leaf D1,D2,D3 REPS SPEC...\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    const char *coll = argv[1], *pattern = argv[3];
    long bytes = atol(argv[2]);
    int reps = atoi(argv[5]), nm = argc - 6;
    double d[3] = {0, 0, 0};
    sscanf(argv[4], "%lf,%lf,%lf", &d[0], &d[1], &d[2]);
    const int interior[3] = {1, 2, 4}, leaf[3] = {3, 5, 7};
    const int *late = strcmp(pattern, "interior") == 0 ? interior
                      : strcmp(pattern, "leaf") == 0   ? leaf
                                                       : NULL;
    double my_delay = 0, max_delay = 0;
    for (int i = 0; late != NULL && i < 3; i++) {
        if (late[i] < size && d[i] > max_delay)
            max_delay = d[i];
        if (late[i] == rank)
            my_delay = d[i];
    }
    int n = (int)(bytes / (long)sizeof(int));
    int *s = calloc((size_t)n * (size_t)size + 1, sizeof(int));
    int *r = calloc((size_t)n * (size_t)size + 1, sizeof(int));
    double *t = calloc((size_t)(reps * nm) + 1, sizeof(double));
    if (s == NULL || r == NULL || t == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int rep = -1; rep < reps; rep++)
        for (int m = 0; m < nm; m++) {
            if (acct_tool_force(strcmp(argv[6 + m], "rules") == 0 ? "" : argv[6 + m]) != 0) {
                if (rank == 0)
                    fprintf(stderr, "acct_tool_force(\"%s\") failed (ACCT not active?)\n",
                            argv[6 + m]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now();
            if (my_delay > 0) {
                struct timespec ts = {(time_t)(my_delay / 1000),
                                      (long)((my_delay - 1000 * (long)(my_delay / 1000)) * 1e6)};
                nanosleep(&ts, NULL);
            }
            if (strcmp(coll, "scatter") == 0)
                MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, 0, MPI_COMM_WORLD);
            else if (strcmp(coll, "gather") == 0)
                MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, 0, MPI_COMM_WORLD);
            else
                MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            double el = now() - t0, mx = 0;
            PMPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (rep >= 0)
                t[rep * nm + m] = mx * 1e3;
        }
    if (rank == 0) {
        double *v = calloc((size_t)reps + 1, sizeof(double));
        const char *each = getenv("ACCT_BENCH_EACH");
        for (int i = 0; each != NULL && strcmp(each, "1") == 0 && i < reps; i++) {
            printf("rep %2d:", i + 1);
            for (int m = 0; m < nm; m++)
                printf(" %9.3f", t[i * nm + m]);
            printf(" ms\n");
        }
        printf("# %s %ld B/rank, %d ranks, pattern %s, delays %s ms, %d reps (median)\n", coll,
               bytes, size, pattern, late ? argv[4] : "-", reps);
        for (int m = 0; m < nm && v != NULL; m++) {
            for (int i = 0; i < reps; i++)
                v[i] = t[i * nm + m];
            double med = median(v, reps);
            for (int i = 0; i < reps; i++)
                v[i] = t[i * nm + m] / t[i * nm];
            printf("%-36s time %9.3f ms  excess %9.3f ms  ratio/first %.3f\n", argv[6 + m], med,
                   med - max_delay, median(v, reps));
        }
        free(v);
    }
    free(s);
    free(r);
    free(t);
    MPI_Finalize();
    return 0;
}
