/* acct-rules-bench: cost of the per-call rules lookup (acct_table_lookup).
 *
 * Builds a realistic rules file in memory (bcast, communicator sizes 2..1024,
 * 12 byte ranges with different algorithms, like a tuned decision map, their
 * bounds spread evenly in log scale from 1 B to 8 MiB; and 1 range, the
 * one-entry table of a collective decided by communicator size alone),
 * resolves it for a 16-rank communicator and times lookups:
 *   - "varying": message sizes drawn log-uniformly from 1 B to 8 MiB (4096
 *     precomputed, cycled), the worst case for branch prediction;
 *   - "fixed": one size over and over, what most application loops do.
 * Also times a linear scan and a binary search on the same tables (a 12-entry
 * one and a 40-entry one) to justify ACCT_TABLE_LINEAR_MAX. Reports the mean
 * ns per lookup, minus the cost of the same loop without the lookup. Every
 * lookup answer is first checked against a brute-force search of the rules:
 * exit status 1 if any differs.
 *
 *   acct-rules-bench [-n LOOKUPS]      (default 50000000 per case) */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/alg.h"
#include "acct/rules.h"
#include "acct/table.h"
#include "acct/stats.h"

#define NSIZES 4096
#define COMM 16

static uint64_t sizes[NSIZES];
static volatile uintptr_t sink;

static uint64_t launder(uint64_t x)
{
    __asm__ volatile("" : "+r"(x));
    return x;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const struct acct_decision *lookup_linear(const struct acct_table *t, uint64_t b)
{
    size_t i = 0;
    while (b > t->max[i])
        i++;
    return &t->dec[i];
}

/* No data-dependent branch: count the bounds below b. */
static const struct acct_decision *lookup_count(const struct acct_table *t, uint64_t b)
{
    size_t i = 0;
    for (size_t k = 0; k + 1 < t->n; k++)
        i += b > t->max[k];
    return &t->dec[i];
}

static const struct acct_decision *lookup_binary(const struct acct_table *t, uint64_t b)
{
    size_t lo = 0, hi = t->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b <= t->max[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return &t->dec[lo];
}

/* Branchless lower bound (the step is computed, not branched on). */
static const struct acct_decision *lookup_binary_cmov(const struct acct_table *t, uint64_t b)
{
    size_t i = 0, n = t->n;
    while (n > 1) {
        size_t half = n / 2;
        i += half & (0 - (size_t)(t->max[i + half - 1] < b));
        n -= half;
    }
    return &t->dec[i];
}

enum method { M_INLINE, M_LINEAR, M_COUNT, M_BINARY, M_CMOV, M_BASELINE, M_N };
static const char *const method_names[M_N] = {
    "acct_table_lookup", "linear, early exit", "linear, branchless", "binary search",
    "binary, branchless", "(empty loop)",
};

/* ns per iteration of one repetition of n lookups (mask: index mask). */
static double run_once(const struct acct_table *t, enum method m, uint64_t n, uint64_t mask)
{
    uintptr_t acc = 0;
    double t0 = now();
#define LOOP(expr)                                          \
    for (uint64_t i = 0; i < n; i++) {                      \
        uint64_t b = launder(sizes[i & mask]);              \
        acc += (uintptr_t)(expr);                           \
    }
    switch (m) {
    case M_INLINE: LOOP(acct_table_lookup(t, b)) break;
    case M_LINEAR: LOOP(lookup_linear(t, b)) break;
    case M_COUNT: LOOP(lookup_count(t, b)) break;
    case M_BINARY: LOOP(lookup_binary(t, b)) break;
    case M_CMOV: LOOP(lookup_binary_cmov(t, b)) break;
    default: LOOP(b) break;
    }
#undef LOOP
    double t1 = now();
    sink = acc;
    return (t1 - t0) * 1e9 / (double)n;
}

/* Median (and quartiles, min) over REPS repetitions: a busy, shared machine
 * preempts some repetitions; the median and min are robust to that. */
#define REPS 31
static void run(const struct acct_table *t, enum method m, uint64_t n, uint64_t mask,
                struct acct_summary *out)
{
    double ns[REPS];
    uint64_t per = n / REPS > 0 ? n / REPS : 1;
    run_once(t, m, per < 100000 ? per : 100000, mask); /* warm-up */
    for (int r = 0; r < REPS; r++)
        ns[r] = run_once(t, m, per, mask);
    acct_stats_summarize(ns, REPS, ACCT_STATS_KEEP_ALL, out);
}

/* A rules file with nregions byte ranges for bcast on 2..1024 ranks. */
static char *make_rules(int nregions)
{
    const struct acct_alg *algs[64];
    int nalg = 0;
    size_t cap = 4096 + (size_t)nregions * 160, o = 0;
    char *s = malloc(cap);
    uint64_t lo = 0;

    if (s == NULL)
        return NULL;
    for (const struct acct_alg *a = acct_algs; a->name != NULL && nalg < 64; a++)
        if (a->coll == ACCT_COLL_bcast && !(a->flags & ACCT_ALG_NATIVE) &&
            !(a->flags & ACCT_ALG_POW2))
            algs[nalg++] = a;
    o += (size_t)snprintf(s + o, cap - o,
                          "acct_rules: 1\n"
                          "provenance: {partition: bench, interconnect: none, version: 1,\n"
                          "             source: manual, created: \"2026-01-01T00:00:00Z\"}\n"
                          "collectives:\n  bcast:\n");
    for (int i = 0; i < nregions; i++) {
        /* bounds spaced evenly in log scale over the sizes drawn (1 B to
         * 8 MiB), so that every entry is hit; the last reaches "max" */
        uint64_t hi = (uint64_t)pow(2.0, 23.0 * (i + 1) / nregions);
        if (hi <= lo)
            hi = lo;
        if (i == nregions - 1)
            hi = UINT64_MAX;
        const struct acct_alg *a = nalg > 0 ? algs[i % nalg] : NULL;
        o += (size_t)snprintf(s + o, cap - o, "    - {comm_size: [2, 1024], bytes: [%" PRIu64,
                              lo);
        if (hi == UINT64_MAX)
            o += (size_t)snprintf(s + o, cap - o, ", max]");
        else
            o += (size_t)snprintf(s + o, cap - o, ", %" PRIu64 "]", hi);
        o += (size_t)snprintf(s + o, cap - o, ", algorithm: %s", a != NULL ? a->name : "native");
        if (a != NULL && (a->flags & ACCT_ALG_SEGMENTED))
            o += (size_t)snprintf(s + o, cap - o, ", segment: %dK", 1 << (i % 6));
        if (a != NULL && (a->flags & ACCT_ALG_FANOUT))
            o += (size_t)snprintf(s + o, cap - o, ", fanout: %d",
                                  a->fanout_min + i % (a->fanout_max - a->fanout_min + 1));
        o += (size_t)snprintf(s + o, cap - o, "}\n");
        if (hi == UINT64_MAX)
            break;
        lo = hi + 1;
    }
    return s;
}

/* The rule containing (COMM, b) by brute force; NULL if none. */
static const struct acct_rule *brute(const struct acct_rules *r, uint64_t b)
{
    const struct acct_rule_list *l = &r->coll[ACCT_COLL_bcast];
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].comm_min <= COMM && COMM <= l->v[i].comm_max && l->v[i].bytes_min <= b &&
            b <= l->v[i].bytes_max)
            return &l->v[i];
    return NULL;
}

static int bench(int nregions, uint64_t n)
{
    struct acct_diags diags = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    struct acct_table *t = NULL;
    char *text = make_rules(nregions);
    int rc = 1;

    if (text == NULL || acct_rules_parse_buffer("bench", text, strlen(text), &r, &diags) != 0 ||
        acct_rules_resolve(r, ACCT_COLL_bcast, COMM, &t) != 0) {
        acct_diags_print(&diags, stderr);
        fprintf(stderr, "acct-rules-bench: cannot build the rules\n");
        goto out;
    }
    /* Correctness first, at every size and at both sides of each bound. */
    for (size_t i = 0; i < NSIZES; i++) {
        const struct acct_rule *x = brute(r, sizes[i]);
        const struct acct_decision *d = acct_table_lookup(t, sizes[i]);
        bool same = x != NULL ? acct_decision_equal(d, &x->d)
                              : (d->alg->flags & ACCT_ALG_NATIVE) != 0;
        if (!same || d != lookup_linear(t, sizes[i]) || d != lookup_binary(t, sizes[i])) {
            fprintf(stderr, "acct-rules-bench: wrong decision for %" PRIu64 " bytes\n", sizes[i]);
            goto out;
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        uint64_t b = t->max[i];
        if (acct_table_lookup(t, b) != &t->dec[i] ||
            (b != UINT64_MAX && acct_table_lookup(t, b + 1) != &t->dec[i + 1])) {
            fprintf(stderr, "acct-rules-bench: wrong entry at bound %" PRIu64 "\n", b);
            goto out;
        }
    }
    struct acct_summary base_v, base_f, v, f;
    run(t, M_BASELINE, n, NSIZES - 1, &base_v);
    run(t, M_BASELINE, n, 0, &base_f);
    printf("table: %zu entries (%d rules, comm_size %d); %d repetitions of %" PRIu64
           " lookups; ns per lookup: median [p25-p75] min, and net median (minus the empty "
           "loop)\n",
           t->n, nregions, COMM, REPS, n / REPS);
    for (int m = 0; m < M_N; m++) {
        run(t, (enum method)m, n, NSIZES - 1, &v);
        run(t, (enum method)m, n, 0, &f);
        printf("  %-19s varying sizes %5.2f [%5.2f-%5.2f] %5.2f net %5.2f | fixed size "
               "%5.2f [%5.2f-%5.2f] %5.2f net %5.2f\n",
               method_names[m], v.median, v.p25, v.p75, v.min, v.median - base_v.median,
               f.median, f.p25, f.p75, f.min, f.median - base_f.median);
    }
    rc = 0;
out:
    acct_table_free(t);
    acct_rules_free(r);
    acct_diags_free(&diags);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    uint64_t n = 50000000, x = 88172645463325252ull;
    if (argc == 3 && strcmp(argv[1], "-n") == 0) {
        n = strtoull(argv[2], NULL, 10);
    } else if (argc != 1) {
        fprintf(stderr, "Usage: acct-rules-bench [-n LOOKUPS]\n");
        return 2;
    }
    if (n == 0)
        n = 1;
    for (size_t i = 0; i < NSIZES; i++) { /* log-uniform in [1, 8 MiB) */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sizes[i] = (1ull << (x % 23)) + (x >> 40) % (1ull << (x % 23));
    }
    sizes[0] = 65536; /* the "fixed" case uses sizes[0] */
    /* 1 entry: the table of a collective decided by communicator size
     * alone (gatherv, scatterv, alltoallv: one bytes-free rule per size) */
    int rc = bench(1, n);
    if (rc == 0)
        rc = bench(12, n);
    if (rc == 0)
        rc = bench(40, n);
    return rc;
}
