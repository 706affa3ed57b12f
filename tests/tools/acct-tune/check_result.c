/* Test helper (not installed): read a tuning result with the project's
 * parser (acct_result_parse_file) and check it against the grid a test
 * asked for.
 *
 *   check_result FILE COLLECTIVES COMM_SIZES SIZES complete|incomplete|any
 *
 * COLLECTIVES is a comma list of names, COMM_SIZES and SIZES comma lists of
 * sizes ("8,1K,64K"). With "complete" every (collective, comm size, size)
 * of the grid (barrier: size 0) must have at least one measurement; with
 * "incomplete" the run must say complete: false. Every measurement must be
 * on the grid. Prints the problems, exits 0 if there are none.
 *
 *   check_result FILE COLLECTIVES COMM_SIZES SIZES complete|incomplete|any LOG
 *
 * also checks the cells of a --strategy plane run against its --progress
 * LOG ("[i/N] COLL p=P SIZE: best DECISION, KIND, ..."): an interpolated
 * cell's decision is the result's rule there, exactly (segment too); a
 * searched or verified cell's decision was measured there.
 *
 *   check_result FILE COLLECTIVES COMM_SIZES SIZES complete|incomplete|any races
 *
 * also checks an acct-tune --race run (docs/acct-tune.md "Racing"): every
 * point of the grid was raced; each race has exactly one winner, native
 * and native's A/A twin among its finalists, and no guarded winner; the
 * winner is not slower than native on the race's metric beyond the noise
 * band (max(tolerance, A/A spread): the guard's rule); the rules'
 * decision at the point is the winner's, segment included; its cost is
 * recorded (experiments = rounds x finalists, the point's search before
 * it); the search's own pick (the point's lowest median_us) is a
 * finalist marked search_pick; every measurement has its per-rank views. Deterministic properties only: no
 * timing threshold.
 *
 *   check_result FILE COLLECTIVES COMM_SIZES SIZES complete|incomplete|any races SEG
 *
 * also checks the eager probe (docs/acct-tune.md "The eager probe") of a
 * run with --eager-limits whose probe segment is SEG and --race K with K
 * at least the methods of a point: at every raced point on the mean over
 * ranks (the rooted collectives), every segmented method measured there
 * that can run segment SEG was measured at SEG. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/model_space.h"
#include "acct/result.h"
#include "acct/rules.h"
#include "acct/stats.h"

static int problems;

static void problem(const char *what)
{
    fprintf(stderr, "check_result: %s\n", what);
    problems++;
}

static int in_list(const struct acct_size_list *l, uint64_t v)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == v)
            return 1;
    return 0;
}

/* The rule of r's rules at (coll, p, bytes), or NULL. */
static const struct acct_rule *rule_at(const struct acct_result *r, enum acct_coll_id coll, int p,
                                       uint64_t bytes)
{
    const struct acct_rule_list *l = &r->rules->coll[coll];
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].comm_min <= p && p <= l->v[i].comm_max && l->v[i].bytes_min <= bytes &&
            bytes <= l->v[i].bytes_max)
            return &l->v[i];
    return NULL;
}

/* The races of a --race run (see the top); the number of races checked. */
static size_t check_races(const struct acct_result *r, const bool *coll,
                          const struct acct_size_list *comm, const struct acct_size_list *sizes)
{
    char msg[512], dec[128];
    size_t expected = 0;

    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        if (coll[c])
            expected += comm->n * (c == ACCT_COLL_barrier ? 1 : sizes->n);
    if (r->nraces != expected) {
        snprintf(msg, sizeof(msg), "%zu races for %zu points", r->nraces, expected);
        problem(msg);
    }
    for (size_t i = 0; i < r->npoints; i++)
        if (!r->points[i].has_avg || !r->points[i].has_rank_max) {
            snprintf(msg, sizeof(msg), "measurement %zu has no avg_us / rank_max_us", i);
            problem(msg);
        }
    for (size_t i = 0; i < r->nraces; i++) {
        const struct acct_result_race *rc = &r->races[i];
        const struct acct_result_finalist *w = NULL, *native = NULL, *twin = NULL;
        const struct acct_rule *rule = rule_at(r, rc->coll, rc->comm_size, rc->bytes);
        char where[96];
        snprintf(where, sizeof(where), "race %zu (%s, %d ranks, %llu bytes)", i,
                 acct_coll_name(rc->coll), rc->comm_size, (unsigned long long)rc->bytes);
        for (size_t k = 0; k < rc->nf; k++) {
            const struct acct_result_finalist *f = &rc->f[k];
            bool is_native = f->d.alg != NULL && strcmp(f->d.alg->name, "native") == 0;
            if (f->verdict == ACCT_RESULT_WINNER)
                w = f;
            if (is_native && f->verdict == ACCT_RESULT_TWIN)
                twin = f;
            else if (is_native)
                native = f;
        }
        if (w == NULL || native == NULL || twin == NULL) {
            snprintf(msg, sizeof(msg), "%s: winner %s, native %s, twin %s", where,
                     w ? "ok" : "missing", native ? "ok" : "missing", twin ? "ok" : "missing");
            problem(msg);
            continue;
        }
        /* every finalist's times per round: one per round and view, and
         * its recorded ratio (the median over the rounds of its metric
         * over the winner's) within its per-round ratios */
        for (size_t k = 0; k < rc->nf; k++) {
            const struct acct_result_finalist *f = &rc->f[k];
            double lo = INFINITY, hi = 0;
            if (f->nrounds != rc->rounds || f->round_us == NULL) {
                snprintf(msg, sizeof(msg), "%s: finalist %zu has %u times per round for %u "
                         "rounds", where, k, (unsigned)f->nrounds, (unsigned)rc->rounds);
                problem(msg);
                continue;
            }
            for (uint32_t q = 0; q < rc->rounds; q++) {
                double a = f->round_us[(size_t)rc->metric * rc->rounds + q];
                double b = w->round_us != NULL
                               ? w->round_us[(size_t)rc->metric * rc->rounds + q] : 0;
                double x = a > 0 && b > 0 ? a / b : a > 0 ? 0 : INFINITY;
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
            if (!(f->ratio >= lo * (1 - 1e-9) && f->ratio <= hi * (1 + 1e-9))) {
                snprintf(msg, sizeof(msg), "%s: finalist %zu ratio %g outside its rounds' "
                         "%g..%g", where, k, f->ratio, lo, hi);
                problem(msg);
            }
        }
        /* the search's pick (its lowest median_us at the point) raced:
         * marked search_pick on the finalist of its method, never the twin */
        const struct acct_result_finalist *sp = NULL;
        double lowest = INFINITY;
        for (size_t k = 0; k < rc->nf; k++)
            if (rc->f[k].search_pick)
                sp = &rc->f[k];
        for (size_t k = 0; k < r->npoints; k++) {
            const struct acct_result_point *pt = &r->points[k];
            if (!pt->modelled && pt->coll == rc->coll && pt->comm_size == rc->comm_size &&
                pt->bytes == rc->bytes && pt->median_us < lowest)
                lowest = pt->median_us;
        }
        bool pick_ok = false;
        for (size_t k = 0; sp != NULL && k < r->npoints; k++) {
            const struct acct_result_point *pt = &r->points[k];
            pick_ok |= !pt->modelled && pt->coll == rc->coll && pt->comm_size == rc->comm_size &&
                       pt->bytes == rc->bytes && pt->median_us == lowest &&
                       acct_decision_equal(&pt->d, &sp->d);
        }
        if (sp == NULL || sp->verdict == ACCT_RESULT_TWIN || !pick_ok) {
            if (sp != NULL)
                acct_decision_format(&sp->d, dec, sizeof(dec));
            snprintf(msg, sizeof(msg), "%s: the search's pick (median %g us) is %s", where,
                     lowest, sp == NULL                       ? "not marked among the finalists"
                                 : sp->verdict == ACCT_RESULT_TWIN ? "marked on the twin"
                                                                   : dec);
            problem(msg);
        }
        if (rc->rounds < 1) {
            snprintf(msg, sizeof(msg), "%s: no rounds", where);
            problem(msg);
        }
        /* the point's cost: the race's experiments are its rounds times its
         * finalists; the search ran at the point before it */
        if (!rc->has_cost || rc->experiments != (uint64_t)rc->rounds * rc->nf ||
            rc->search_experiments < 1 || !(rc->seconds > 0)) {
            snprintf(msg, sizeof(msg), "%s: cost %s: %llu experiments for %u rounds of %zu "
                     "finalists, %llu search experiments, %g s", where,
                     rc->has_cost ? "wrong" : "missing", (unsigned long long)rc->experiments,
                     rc->rounds, rc->nf, (unsigned long long)rc->search_experiments,
                     rc->seconds);
            problem(msg);
        }
        double band = rc->tolerance;
        if (rc->has_aa && rc->aa_spread > band)
            band = rc->aa_spread;
        /* native's ratio is native / winner (a median of log ratios: the
         * reciprocal of winner / native exactly) */
        if (1.0 / native->ratio > (1.0 + band) * (1.0 + 1e-9)) {
            snprintf(msg, sizeof(msg), "%s: the winner is %.3fx native on %s, beyond the band "
                     "%.3f", where, 1.0 / native->ratio, acct_result_view_name(rc->metric),
                     band);
            problem(msg);
        }
        if (rule == NULL || !acct_decision_equal(&rule->d, &w->d)) {
            acct_decision_format(&w->d, dec, sizeof(dec));
            snprintf(msg, sizeof(msg), "%s: the rules do not decide the winner %s there", where,
                     dec);
            problem(msg);
        }
    }
    return r->nraces;
}

/* The plane log's cells against the result; the number of cells checked. */
static size_t check_plane(const struct acct_result *r, const char *path)
{
    char line[512], coll[32], size[32], dec[128], kind[32], msg[768], have[128];
    size_t cells = 0;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        problem("cannot open the plane log");
        return 0;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        int p = 0;
        uint64_t bytes = 0;
        enum acct_coll_id c;
        const char *s = strstr(line, "] ");
        if (strncmp(line, "acct-tune: [", 12) != 0 || s == NULL ||
            sscanf(s + 2, "%31s p=%d %31[^:]: best %127[^,], %31[^,],", coll, &p, size, dec,
                   kind) != 5)
            continue;
        if (acct_coll_from_name(coll, &c) != 0 ||
            (strcmp(size, "0") != 0 && acct_size_parse(size, &bytes, NULL, 0) != 0)) {
            snprintf(msg, sizeof(msg), "plane log: cannot read: %.200s", line);
            problem(msg);
            continue;
        }
        cells++;
        if (strcmp(kind, "interpolated") == 0) {
            const struct acct_rule *x = rule_at(r, c, p, bytes);
            if (x != NULL)
                acct_decision_format(&x->d, have, sizeof(have));
            if (x == NULL || strcmp(have, dec) != 0) {
                snprintf(msg, sizeof(msg), "%s p=%d %s interpolated as %s, but the rules say %s",
                         coll, p, size, dec, x != NULL ? have : "nothing");
                problem(msg);
            }
        } else if (strcmp(kind, "searched") == 0 || strcmp(kind, "verified") == 0) {
            int found = 0;
            for (size_t k = 0; k < r->npoints && !found; k++) {
                const struct acct_result_point *pt = &r->points[k];
                if (pt->coll != c || pt->comm_size != p || pt->bytes != bytes)
                    continue;
                acct_decision_format(&pt->d, have, sizeof(have));
                found = strcmp(have, dec) == 0;
            }
            if (!found) {
                snprintf(msg, sizeof(msg), "%s p=%d %s %s as %s, which was not measured there",
                         coll, p, size, kind, dec);
                problem(msg);
            }
        } else {
            snprintf(msg, sizeof(msg), "%s p=%d %s: %s", coll, p, size, kind);
            problem(msg);
        }
    }
    fclose(f);
    return cells;
}

/* The eager probe at segment seg (see the top); the (point, method) pairs
 * checked. */
static size_t check_eager(const struct acct_result *r, uint64_t seg)
{
    size_t checked = 0;
    char msg[256];

    for (size_t i = 0; i < r->nraces; i++) {
        const struct acct_result_race *rc = &r->races[i];
        if (rc->metric != ACCT_RESULT_VIEW_AVG || seg >= rc->bytes)
            continue;
        for (size_t a = 0; a < r->npoints; a++) {
            const struct acct_result_point *p = &r->points[a];
            struct acct_decision d = p->d;
            bool seen = false, found = false;
            if (p->coll != rc->coll || p->comm_size != rc->comm_size || p->bytes != rc->bytes ||
                !(p->d.alg->flags & ACCT_ALG_SEGMENTED))
                continue;
            for (size_t b = 0; b < a && !seen; b++) /* each method once */
                seen = r->points[b].coll == p->coll && r->points[b].comm_size == p->comm_size &&
                       r->points[b].bytes == p->bytes && r->points[b].d.alg == p->d.alg &&
                       r->points[b].d.fanout == p->d.fanout;
            d.segment_bytes = seg;
            if (seen || !acct_model_applicable(p->coll, &d, p->comm_size, p->bytes))
                continue;
            for (size_t b = 0; b < r->npoints && !found; b++)
                found = r->points[b].coll == p->coll && r->points[b].comm_size == p->comm_size &&
                        r->points[b].bytes == p->bytes && r->points[b].d.alg == p->d.alg &&
                        r->points[b].d.fanout == p->d.fanout &&
                        r->points[b].d.segment_bytes == seg;
            checked++;
            if (!found) {
                snprintf(msg, sizeof(msg), "eager probe: %s on %d ranks, %llu bytes: %s "
                         "fan-out %d not measured at segment %llu", acct_coll_name(p->coll),
                         p->comm_size, (unsigned long long)p->bytes, p->d.alg->name,
                         p->d.fanout, (unsigned long long)seg);
                problem(msg);
            }
        }
    }
    return checked;
}

int main(int argc, char **argv)
{
    struct acct_result *r = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_size_list comm = { NULL, 0 }, sizes = { NULL, 0 };
    bool coll[ACCT_COLL_COUNT] = { false };
    char msg[256];

    if (argc < 6 || argc > 8 || (argc == 8 && strcmp(argv[6], "races") != 0)) {
        fprintf(stderr, "usage: check_result FILE COLLECTIVES COMM_SIZES SIZES "
                        "complete|incomplete|any [PLANE_LOG | races [SEG]]\n");
        return 2;
    }
    if (acct_result_parse_file(argv[1], &r, &d) != ACCT_RULES_OK) {
        acct_diags_print(&d, stderr);
        acct_diags_free(&d);
        fprintf(stderr, "check_result: %s is not a valid tuning result\n", argv[1]);
        return 1;
    }
    char *list = strdup(argv[2]), *save = NULL;
    for (char *t = list ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        enum acct_coll_id id;
        if (acct_coll_from_name(t, &id) == 0)
            coll[id] = true;
    }
    free(list);
    if (acct_size_list_parse(argv[3], &comm, NULL, 0) != 0 ||
        acct_size_list_parse(argv[4], &sizes, NULL, 0) != 0) {
        fprintf(stderr, "check_result: bad size list\n");
        return 2;
    }
    for (size_t i = 0; i < r->npoints; i++) {
        const struct acct_result_point *p = &r->points[i];
        int ok = coll[p->coll] && in_list(&comm, (uint64_t)p->comm_size) &&
                 (p->coll == ACCT_COLL_barrier ? p->bytes == 0 : in_list(&sizes, p->bytes));
        if (!ok) {
            snprintf(msg, sizeof(msg), "measurement %zu (%s, %d ranks, %llu bytes) is not on "
                     "the grid", i, acct_coll_name(p->coll), p->comm_size,
                     (unsigned long long)p->bytes);
            problem(msg);
        }
    }
    if (strcmp(argv[5], "complete") == 0) {
        if (!r->complete)
            problem("the run says complete: false");
        for (int c = 0; c < ACCT_COLL_COUNT; c++) {
            for (size_t i = 0; coll[c] && i < comm.n; i++) {
                for (size_t j = 0; j < (c == ACCT_COLL_barrier ? 1 : sizes.n); j++) {
                    uint64_t b = c == ACCT_COLL_barrier ? 0 : sizes.v[j];
                    int found = 0;
                    for (size_t k = 0; k < r->npoints && !found; k++)
                        found = (int)r->points[k].coll == c &&
                                r->points[k].comm_size == (int)comm.v[i] &&
                                r->points[k].bytes == b;
                    if (!found) {
                        snprintf(msg, sizeof(msg), "no measurement of %s on %llu ranks, %llu "
                                 "bytes", acct_coll_name((enum acct_coll_id)c),
                                 (unsigned long long)comm.v[i], (unsigned long long)b);
                        problem(msg);
                    }
                }
            }
        }
    } else if (strcmp(argv[5], "incomplete") == 0 && r->complete) {
        problem("the run says complete: true");
    }
    if (argc >= 7 && strcmp(argv[6], "races") == 0) {
        size_t races = check_races(r, coll, &comm, &sizes);
        printf("check_result: %zu races checked\n", races);
        uint64_t seg = 0;
        if (argc == 8 && acct_size_parse(argv[7], &seg, NULL, 0) != 0) {
            fprintf(stderr, "check_result: bad segment \"%s\"\n", argv[7]);
            return 2;
        }
        if (argc == 8) {
            size_t n = check_eager(r, seg);
            printf("check_result: eager probe: %zu methods checked at segment %s\n", n, argv[7]);
            if (n == 0)
                problem("eager probe: no segmented method at a point raced on the mean");
        }
    } else if (argc == 7) {
        size_t cells = check_plane(r, argv[6]);
        printf("check_result: %zu cells of the plane log checked\n", cells);
        if (cells == 0)
            problem("the plane log has no cells");
    }
    printf("check_result: %s: %zu measurements, %s, strategy %s, %llu experiments, %zu rules: "
           "%s\n", argv[1], r->npoints, r->complete ? "complete" : "incomplete", r->strategy,
           (unsigned long long)r->experiments, r->rules->nrules,
           problems ? "PROBLEMS" : "ok");
    acct_size_list_free(&comm);
    acct_size_list_free(&sizes);
    acct_result_free(r);
    acct_diags_free(&d);
    return problems > 0;
}
