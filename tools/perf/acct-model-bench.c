/* acct-model-bench: how long and how much memory one prediction takes at
 * scale (docs/performance.md, "The simulator at scale"). No MPI.
 *
 *   acct-model-bench [--plogp FILE] [--reps N] [--bytes M] [--sizes P,P,...]
 *                    [--budget MIB] [--simulate | --full]
 *
 * Per row (collective, algorithm, segment) and size P, each repetition runs
 * in a child process of its own (fork), so its peak resident set
 * (getrusage ru_maxrss of the child) is the prediction's alone; the child
 * times acct_model_predict_how() with CLOCK_MONOTONIC and sends back the
 * time, the predicted time and the source that answered. Prints the median
 * and the range of the wall times (ms) and peaks. --simulate times
 * acct_model_simulate() instead (the call the older simulator also has:
 * built against an older tree, the same file measures before and after);
 * --full simulates every rank (ACCT_MODEL_VIEW_FULL), not the symmetric
 * view. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acct/model.h"
#include "plogp_file.h"

struct row {
    enum acct_coll_id coll;
    const char *alg;
    uint64_t seg;
};

static const struct row rows[] = {
    {ACCT_COLL_bcast, "binomial", 0},
    {ACCT_COLL_bcast, "pipeline", 65536},
    {ACCT_COLL_allreduce, "ring", 0},
    {ACCT_COLL_allreduce, "recursive_doubling", 0},
    {ACCT_COLL_allreduce, "rabenseifner", 0},
    {ACCT_COLL_alltoall, "bruck", 0},
    {ACCT_COLL_alltoall, "pairwise", 0},
};

struct result {
    double wall_s, t_us;
    int how; /* enum acct_model_source, -1 with --simulate */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One repetition in a child: 0 with *res and *rss_kib, or -1. */
static int measure(const struct row *rw, int p, uint64_t bytes, const struct acct_model *mdl,
                   int simulate, struct result *res, long *rss_kib)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        struct result r = {.how = -1};
        struct acct_decision d = {.alg = acct_alg_find(rw->coll, rw->alg),
                                  .segment_bytes = rw->seg};
        double t0 = now();
        if (simulate == 1) {
            r.t_us = acct_model_simulate(rw->coll, &d, p, bytes, 0, mdl);
        } else if (simulate == 2) {
#ifdef ACCT_MODEL_SIM_BUDGET
            struct acct_call c;
            enum acct_model_source how;
            acct_model_call(rw->coll, &d, p, bytes, 0, &c);
            if (acct_model_simulate_view(d.alg, &c, mdl, ACCT_MODEL_VIEW_FULL, &r.t_us, &how, NULL,
                                         0) != 0)
                r.t_us = NAN;
            r.how = (int)how;
#else
            r.t_us = acct_model_simulate(rw->coll, &d, p, bytes, 0, mdl);
#endif
        } else {
#ifdef ACCT_MODEL_SIM_BUDGET
            enum acct_model_source how;
            r.t_us = acct_model_predict_how(rw->coll, &d, p, bytes, mdl, &how);
            r.how = (int)how;
#else
            r.t_us = acct_model_predict(rw->coll, &d, p, bytes, mdl);
#endif
        }
        r.wall_s = now() - t0;
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], res, sizeof *res);
    close(fd[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || got != (ssize_t)sizeof *res ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *rss_kib = ru.ru_maxrss;
    return 0;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *source_name(int how)
{
#ifdef ACCT_MODEL_SIM_BUDGET
    return how < 0 ? "simulated or symmetric" : acct_model_source_name((enum acct_model_source)how);
#else
    (void)how;
    return "?";
#endif
}

int main(int argc, char **argv)
{
    const char *plogp = NULL;
    int reps = 5, simulate = 0;
    unsigned long long budget_mib = 0;
    uint64_t bytes = 1u << 20;
    int sizes[32] = {64, 1024, 16384, 65536, 1048576}, nsizes = 5;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--plogp") == 0 && i + 1 < argc)
            plogp = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc)
            bytes = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--simulate") == 0)
            simulate = 1;
        else if (strcmp(argv[i], "--full") == 0)
            simulate = 2;
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget_mib = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = 0;
            for (char *tok = strtok(argv[++i], ","); tok && nsizes < 32; tok = strtok(NULL, ","))
                sizes[nsizes++] = atoi(tok);
        } else {
            fprintf(stderr,
                    "usage: %s [--plogp FILE] [--reps N] [--bytes M] [--sizes P,P,...] "
                    "[--budget MIB] [--simulate | --full]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > 99)
        reps = 5;
    struct acct_model mdl;
    acct_model_init(&mdl);
#ifdef ACCT_MODEL_SIM_BUDGET
    mdl.sim_budget_bytes = (size_t)budget_mib << 20; /* 0: the default */
#else
    (void)budget_mib;
#endif
    if (plogp != NULL) {
        char err[256];
        if (tune_plogp_read(plogp, &mdl.net, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    } else {
        /* LogGP 1 Gbit/s-like: L 20 us, o 3 us, g 7 us, G 0.008 us/byte */
        struct acct_loggp lg = {.L_us = 20, .o_us = 3, .g_us = 7, .G_us_per_byte = 0.008};
        acct_loggp_to_plogp(&lg, &mdl.net);
    }
    printf("# %" PRIu64 " bytes, simulator budget %llu MiB (0: default), %d repetitions each in "
           "its own process; wall and peak RSS: median [min, max]\n",
           bytes, budget_mib, reps);
    printf("%-10s %-19s %6s %8s  %-26s %-26s %14s  %s\n", "coll", "algorithm", "seg", "ranks",
           "wall ms", "peak RSS MiB", "predicted us", "source");
    for (size_t ri = 0; ri < sizeof rows / sizeof *rows; ri++)
        for (int si = 0; si < nsizes; si++) {
            double wall[99], rss[99];
            struct result res = {0};
            int ok = 1;
            for (int k = 0; k < reps && ok; k++) {
                long kib = 0;
                if (measure(&rows[ri], sizes[si], bytes, &mdl, simulate, &res, &kib) != 0)
                    ok = 0;
                wall[k] = res.wall_s;
                rss[k] = (double)kib / 1024.0;
            }
            if (!ok) {
                printf("%-10s %-19s %6" PRIu64 " %8d  failed\n", acct_coll_name(rows[ri].coll),
                       rows[ri].alg, rows[ri].seg, sizes[si]);
                continue;
            }
            qsort(wall, (size_t)reps, sizeof *wall, by_double);
            qsort(rss, (size_t)reps, sizeof *rss, by_double);
            char w[64], m[64];
            snprintf(w, sizeof w, "%.2f [%.2f, %.2f]", 1e3 * wall[reps / 2], 1e3 * wall[0],
                     1e3 * wall[reps - 1]);
            snprintf(m, sizeof m, "%.0f [%.0f, %.0f]", rss[reps / 2], rss[0], rss[reps - 1]);
            printf("%-10s %-19s %6" PRIu64 " %8d  %-26s %-26s %14.1f  %s\n",
                   acct_coll_name(rows[ri].coll), rows[ri].alg, rows[ri].seg, sizes[si], w, m,
                   res.t_us, isnan(res.t_us) ? "none" : source_name(res.how));
            fflush(stdout);
        }
    return 0;
}
