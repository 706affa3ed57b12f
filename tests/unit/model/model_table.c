/* Developer's table: simulated vs closed-form time of every registered
 * algorithm over p and sizes (not a test; tests are test_model_*.c).
 * Usage: acct_model_table [coll [alg]] */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "acct/model.h"

/* --bench: time every registered algorithm's simulation and closed form
 * over a tuner-like grid; prints medians per prediction. */
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench(const struct acct_model *mdl)
{
    static const int ps[] = {8, 16, 64};
    static const uint64_t ms[] = {8, 8192, 65536, 1 << 20};
    static const uint64_t segs[] = {0, 8192, 65536};
    static double ts[4096], tc[4096];
    int n = 0;
    double worst = 0, total = 0;
    for (int i = 0; i < acct_alg_count(); i++) {
        const struct acct_alg *a = &acct_algs[i];
        if (a->build == NULL)
            continue;
        for (size_t pi = 0; pi < 3; pi++)
            for (size_t mi = 0; mi < 4; mi++)
                for (size_t si = 0; si < 3 && n < 4096; si++) {
                    if (si > 0 && !(a->flags & ACCT_ALG_SEGMENTED))
                        break;
                    struct acct_decision d = {.alg = a, .segment_bytes = segs[si]};
                    double t0 = now();
                    double s = acct_model_simulate(a->coll, &d, ps[pi], ms[mi], 0, mdl);
                    double t1 = now();
                    double c = 0;
                    for (int r = 0; r < 100; r++)
                        c += acct_model_closed_form(a->coll, &d, ps[pi], ms[mi], mdl);
                    double t2 = now();
                    (void)s;
                    (void)c;
                    ts[n] = (t1 - t0) * 1e6;
                    if (ts[n] > 1e5)
                        printf("slow: %s/%s P=%d m=%llu seg=%llu: %.3f s\n", acct_coll_name(a->coll),
                               a->name, ps[pi], (unsigned long long)ms[mi],
                               (unsigned long long)segs[si], ts[n] * 1e-6);
                    tc[n] = (t2 - t1) * 1e6 / 100;
                    total += ts[n];
                    worst = ts[n] > worst ? ts[n] : worst;
                    n++;
                }
    }
    double tot_c = 0;
    for (int i = 0; i < n; i++)
        tot_c += tc[i];
    qsort(ts, (size_t)n, sizeof *ts, cmp_d);
    qsort(tc, (size_t)n, sizeof *tc, cmp_d);
    printf("%d points (every algorithm x P {8,16,64} x m {8,8K,64K,1M} x seg {0,8K,64K})\n", n);
    printf("simulate:    median %.1f us, p90 %.1f us, max %.1f us, total %.3f s\n", ts[n / 2],
           ts[n * 9 / 10], worst, total * 1e-6);
    printf("closed form: median %.3f us, p90 %.3f us, total %.6f s\n", tc[n / 2], tc[n * 9 / 10],
           tot_c * 1e-6);
    printf("ratio simulate/closed (medians): %.0fx\n", ts[n / 2] / tc[n / 2]);
    return 0;
}

/* --nonpow2: per algorithm, the largest relative gap between the closed
 * form and the simulation over P in {3, 5, 6, 7, 12, 24, 48}. */
static int nonpow2(const struct acct_model *mdl)
{
    static const int ps[] = {3, 5, 6, 7, 12, 24, 48};
    static const uint64_t ms[] = {48, 1536, 49152, 786432};
    for (int i = 0; i < acct_alg_count(); i++) {
        const struct acct_alg *a = &acct_algs[i];
        if (a->build == NULL)
            continue;
        double worst = 0;
        int np = 0, nn = 0;
        for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++)
            for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++) {
                struct acct_decision d = {.alg = a};
                double c = acct_model_closed_form(a->coll, &d, ps[pi], ms[mi], mdl);
                double s = acct_model_simulate(a->coll, &d, ps[pi], ms[mi], 0, mdl);
                if (isnan(c) || isnan(s)) {
                    nn++;
                    continue;
                }
                np++;
                double rel = (c - s) / s;
                worst = fabs(rel) > fabs(worst) ? rel : worst;
            }
        printf("%-22s %-24s compared %2d  no closed form %2d  worst (closed-sim)/sim %+.1f%%\n",
               acct_coll_name(a->coll), a->name, np, nn, 100 * worst);
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct acct_model mdl;
    struct acct_loggp lg = {.L_us = 20, .o_us = 3, .g_us = 7, .G_us_per_byte = 0.008};
    acct_model_init(&mdl);
    acct_loggp_to_plogp(&lg, &mdl.net);
    mdl.gamma_us_per_byte = argc > 3 ? atof(argv[3]) : 0;
    mdl.delta_us_per_byte = argc > 4 ? atof(argv[4]) : 0;
    if (argc > 1 && strcmp(argv[1], "--bench") == 0)
        return bench(&mdl);
    if (argc > 1 && strcmp(argv[1], "--nonpow2") == 0)
        return nonpow2(&mdl);
    static const int ps[] = {2, 3, 4, 5, 8, 16, 32, 64};
    static const uint64_t ms[] = {0, 8, 1000, 8192, 65536, 1 << 20};
    static const uint64_t segs[] = {0, 1024, 8192};
    for (int i = 0; i < acct_alg_count(); i++) {
        const struct acct_alg *a = &acct_algs[i];
        if (a->build == NULL)
            continue;
        if (argc > 1 && strcmp(argv[1], acct_coll_name(a->coll)) != 0)
            continue;
        if (argc > 2 && strcmp(argv[2], a->name) != 0 && strcmp(argv[2], "-") != 0)
            continue;
        for (size_t si = 0; si < 3; si++) {
            if (si > 0 && !(a->flags & ACCT_ALG_SEGMENTED))
                break;
            for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++)
                for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++) {
                    struct acct_decision d = {.alg = a, .segment_bytes = segs[si]};
                    uint64_t m = ms[mi];
                    if (m * (uint64_t)ps[pi] > (8u << 20) || (segs[si] && m / segs[si] > 256))
                        continue;
                    double s = acct_model_simulate(a->coll, &d, ps[pi], m, 0, &mdl);
                    double c = acct_model_closed_form(a->coll, &d, ps[pi], m, &mdl);
                    double rel = fabs(s - c) / (s > 0 ? s : 1);
                    printf("%-20s %-22s seg=%-5llu p=%-3d m=%-8llu sim=%12.3f closed=%12.3f %s\n",
                           acct_coll_name(a->coll), a->name, (unsigned long long)segs[si],
                           ps[pi], (unsigned long long)m, s, c,
                           isnan(c) || isnan(s) ? "n/a" : rel < 1e-9 ? "EXACT" : "DIFF");
                }
        }
    }
    return 0;
}
