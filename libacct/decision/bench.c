/* acct-quadtree-bench: the quadtree paper's penalty tables (Tables 1-2)
 * and lookup costs, for a tuning result or a synthetic map
 * (docs/decisions.md). Not installed.
 *
 *   acct-quadtree-bench [--result FILE] [--coll NAME] [--synthetic NCxNB]
 *                       [--methods K] [--seed S] [--max-depth D]
 *                       [--accuracy A,B,...] [--min-penalty] [--lookups N]
 *                       [--csv FILE]
 *
 * Per tree: depth max/min/mean, penalty min/max/mean/median (% against the
 * exact map), leaves, nodes, the number of rules it becomes, and the median
 * time of one lookup: in memory (acct_qt_lookup, both sizes vary) and as
 * the runtime does it (acct_table_lookup on the rules resolved for one
 * communicator size, message sizes vary). --csv writes the map with the
 * decisions and penalties of the --max-depth tree (acct_dmap_write_csv),
 * for plots. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/dmap.h"
#include "acct/table.h"

#define REPS 11

struct opts {
    const char *result;
    const char *coll;
    size_t nc, nb, methods;
    unsigned seed;
    int max_depth;
    double acc[16];
    size_t nacc;
    int min_penalty;
    size_t lookups;
    const char *csv;
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile uintptr_t sink;

/* Median ns per lookup over REPS runs. */
static double time_qt(const struct acct_quadtree *qt, const int *cs, const uint64_t *b, size_t n)
{
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        uintptr_t acc = 0;
        double t0 = now_ns();
        for (size_t i = 0; i < n; i++)
            acc += (uintptr_t)acct_qt_lookup(qt, cs[i], b[i]);
        t[r] = (now_ns() - t0) / (double)n;
        sink += acc;
    }
    qsort(t, REPS, sizeof(t[0]), cmp_double);
    return t[REPS / 2];
}

static double time_table(const struct acct_table *tab, const uint64_t *b, size_t n)
{
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        uintptr_t acc = 0;
        double t0 = now_ns();
        for (size_t i = 0; i < n; i++)
            acc += (uintptr_t)acct_table_lookup(tab, b[i]);
        t[r] = (now_ns() - t0) / (double)n;
        sink += acc;
    }
    qsort(t, REPS, sizeof(t[0]), cmp_double);
    return t[REPS / 2];
}

static int load_map(const struct opts *o, struct acct_dmap **m)
{
    enum acct_coll_id coll = ACCT_COLL_bcast;
    if (o->coll != NULL && acct_coll_from_name(o->coll, &coll) != 0) {
        fprintf(stderr, "acct-quadtree-bench: unknown collective \"%s\"\n", o->coll);
        return -1;
    }
    if (o->result == NULL) {
        if (acct_synth_map(coll, o->nc, o->nb, o->methods, o->seed, m) != 0) {
            fprintf(stderr, "acct-quadtree-bench: cannot build a synthetic %s map %zux%zu "
                            "with %zu methods (bcast or allreduce; at most 40x56, 7 methods)\n",
                    acct_coll_name(coll), o->nc, o->nb, o->methods);
            return -1;
        }
        printf("synthetic %s map: %zu communicator sizes x %zu message sizes, %zu methods, "
               "seed %u\n", acct_coll_name(coll), o->nc, o->nb, o->methods, o->seed);
        return 0;
    }
    struct acct_result *res = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    int rc = acct_result_parse_file(o->result, &res, &d);
    if (rc != ACCT_RULES_OK || d.warnings > 0) /* warnings: sections skipped */
        acct_diags_print(&d, stderr);
    if (rc != ACCT_RULES_OK) {
        acct_diags_free(&d);
        return -1;
    }
    acct_diags_reset(&d, o->result); /* the warnings are printed */
    rc = acct_dmap_from_points(res->points, res->npoints, coll, m, &d);
    if (rc != ACCT_RULES_OK || *m == NULL) {
        acct_diags_print(&d, stderr);
        if (rc == ACCT_RULES_OK)
            fprintf(stderr, "%s: no measurements of %s\n", o->result, acct_coll_name(coll));
        acct_diags_free(&d);
        acct_result_free(res);
        return -1;
    }
    printf("%s: %s, %zu communicator sizes x %zu message sizes, %zu methods\n", o->result,
           acct_coll_name(coll), (*m)->ncomm, (*m)->nbytes, (*m)->nmethods);
    acct_diags_free(&d);
    acct_result_free(res);
    return 0;
}

static int row(const char *label, const struct acct_dmap *m, const struct acct_qt_params *p,
               const int *cs, const uint64_t *b, size_t n)
{
    struct acct_quadtree *qt = NULL;
    struct acct_rules *r = calloc(1, sizeof(*r));
    struct acct_table *tab = NULL;
    struct acct_penalty_stats st;
    struct acct_diags d = ACCT_DIAGS_INIT;
    int rc = -1;
    if (r == NULL || acct_qt_build(m, p, &qt, &d) != 0 || acct_qt_stats(qt, m, &st) != 0 ||
        acct_qt_rules(qt, r, &d) != 0) {
        acct_diags_print(&d, stderr);
        goto done;
    }
    /* The runtime's view: rules resolved for the largest measured size. */
    if (acct_rules_resolve(r, m->coll, m->comm[m->ncomm - 1], &tab) != 0)
        goto done;
    double tq = time_qt(qt, cs, b, n), tt = time_table(tab, b, n);
    printf("%-10s | %5d %5d %6.2f | %8.2f %8.2f %8.2f %8.2f | %6zu %6zu %6zu | %7.1f %7.1f\n",
           label, st.depth_max, st.depth_min, st.depth_mean, st.pen_min, st.pen_max, st.pen_mean,
           st.pen_median, st.leaves, st.nodes, r->coll[m->coll].n, tq, tt);
    rc = 0;
done:
    acct_table_free(tab);
    acct_rules_free(r);
    acct_qt_free(qt);
    acct_diags_free(&d);
    return rc;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: acct-quadtree-bench [--result FILE] [--coll NAME] [--synthetic NCxNB]\n"
            "                           [--methods K] [--seed S] [--max-depth D]\n"
            "                           [--accuracy A,B,...] [--min-penalty] [--lookups N]\n"
            "                           [--csv FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct opts o = { .nc = 32, .nb = 32, .methods = 5, .seed = 7, .max_depth = 6,
                      .lookups = 1000000 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        errno = 0;
        if (strcmp(a, "--min-penalty") == 0) {
            o.min_penalty = 1;
            continue;
        }
        if (v == NULL)
            return usage();
        i++;
        if (strcmp(a, "--result") == 0) {
            o.result = v;
        } else if (strcmp(a, "--csv") == 0) {
            o.csv = v;
        } else if (strcmp(a, "--coll") == 0) {
            o.coll = v;
        } else if (strcmp(a, "--synthetic") == 0) {
            if (sscanf(v, "%zux%zu", &o.nc, &o.nb) != 2)
                return usage();
        } else if (strcmp(a, "--methods") == 0) {
            o.methods = strtoul(v, &end, 10);
        } else if (strcmp(a, "--seed") == 0) {
            o.seed = (unsigned)strtoul(v, &end, 10);
        } else if (strcmp(a, "--max-depth") == 0) {
            o.max_depth = (int)strtol(v, &end, 10);
            if (o.max_depth < 0 || o.max_depth > 16)
                return usage();
        } else if (strcmp(a, "--lookups") == 0) {
            o.lookups = strtoul(v, &end, 10);
            if (o.lookups < 1000 || o.lookups > 100000000)
                return usage();
        } else if (strcmp(a, "--accuracy") == 0) {
            char buf[256];
            snprintf(buf, sizeof(buf), "%s", v);
            for (char *s = strtok(buf, ","); s && o.nacc < 16; s = strtok(NULL, ","))
                o.acc[o.nacc++] = strtod(s, NULL);
        } else {
            return usage();
        }
        if (end != NULL && (*end != '\0' || errno != 0))
            return usage();
    }
    struct acct_dmap *m = NULL;
    if (load_map(&o, &m) != 0)
        return 1;
    int status = 0;
    size_t n = o.lookups;
    int *cs = malloc(n * sizeof(*cs));
    uint64_t *b = malloc(n * sizeof(*b));
    if (cs == NULL || b == NULL) {
        status = 1;
        goto done;
    }
    unsigned seed = 99;
    for (size_t i = 0; i < n; i++) { /* uniform over the measured ranges (log scale) */
        int lo = m->comm[0], hi = m->comm[m->ncomm - 1];
        cs[i] = lo + (int)((unsigned)rand_r(&seed) % (unsigned)(hi - lo + 1));
        uint64_t blo = m->bytes[0] ? m->bytes[0] : 1, bhi = m->bytes[m->nbytes - 1];
        int bits = 0;
        while (bits < 63 && (blo << bits) < bhi)
            bits++;
        b[i] = (blo << ((unsigned)rand_r(&seed) % (unsigned)(bits + 1))) +
               (uint64_t)rand_r(&seed) % (blo + 1);
    }
    enum acct_qt_leaf_choice lc = o.min_penalty ? ACCT_QT_LEAF_MIN_PENALTY : ACCT_QT_LEAF_MAJORITY;
    printf("leaves: %s; lookups: %zu random (comm size, bytes), median of %d runs\n",
           o.min_penalty ? "least total penalty" : "majority (as the paper)", n, REPS);
    printf("%-10s | %5s %5s %6s | %8s %8s %8s %8s | %6s %6s %6s | %7s %7s\n", "tree",
           "depth", "", "", "penalty%", "", "", "", "", "", "", "ns per", "lookup");
    printf("%-10s | %5s %5s %6s | %8s %8s %8s %8s | %6s %6s %6s | %7s %7s\n", "", "max", "min",
           "mean", "min", "max", "mean", "median", "leaves", "nodes", "rules", "qtree", "table");
    for (int dpt = 1; dpt <= o.max_depth && status == 0; dpt++) {
        struct acct_qt_params p = { dpt, 100.0, lc };
        char label[32];
        snprintf(label, sizeof(label), "depth %d", dpt);
        status = row(label, m, &p, cs, b, n) != 0;
    }
    if (status == 0) {
        struct acct_qt_params p = { ACCT_QT_UNLIMITED, 100.0, lc };
        status = row("exact", m, &p, cs, b, n) != 0;
    }
    for (size_t k = 0; k < o.nacc && status == 0; k++) {
        struct acct_qt_params p = { ACCT_QT_UNLIMITED, o.acc[k], lc };
        char label[32];
        snprintf(label, sizeof(label), "acc %g%%", o.acc[k]);
        status = row(label, m, &p, cs, b, n) != 0;
    }
    if (status == 0 && o.csv != NULL) {
        struct acct_qt_params p = { o.max_depth, 100.0, lc };
        struct acct_quadtree *qt = NULL;
        int32_t *cells = malloc(m->ncomm * m->nbytes * sizeof(*cells));
        FILE *f = fopen(o.csv, "w");
        if (cells == NULL || f == NULL || acct_qt_build(m, &p, &qt, NULL) != 0 ||
            acct_qt_cells(qt, cells) != 0 || acct_dmap_write_csv(f, m, cells) != 0) {
            fprintf(stderr, "acct-quadtree-bench: cannot write %s\n", o.csv);
            status = 1;
        }
        if (f != NULL && fclose(f) != 0)
            status = 1;
        acct_qt_free(qt);
        free(cells);
    }
done:
    free(cs);
    free(b);
    acct_dmap_free(m);
    return status;
}
