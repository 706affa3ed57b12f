/* Model regions beyond the measured communicator sizes, above the largest
 * and below the smallest (acct/extrap.h; docs/decisions.md, "Model
 * regions"). */
#include "acct/extrap.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/model_space.h"
#include "acct/model_whatif.h"
#include "internal.h"

int acct_extrap_model(const struct acct_rules_model *rm, struct acct_model *mdl)
{
    return acct_whatif_model_rules(rm, mdl);
}

/* ---- trust ---------------------------------------------------------------------------- */

static int cmp_cell(const void *pa, const void *pb)
{
    const struct acct_result_point *a = *(const struct acct_result_point *const *)pa;
    const struct acct_result_point *b = *(const struct acct_result_point *const *)pb;
    if (a->comm_size != b->comm_size)
        return a->comm_size < b->comm_size ? -1 : 1;
    return (a->bytes > b->bytes) - (a->bytes < b->bytes);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

int acct_extrap_trust(const struct acct_result_point *pts, size_t n, enum acct_coll_id coll,
                      const struct acct_model *mdl, double margin,
                      struct acct_extrap_report *rep)
{
    return acct_extrap_trust_at(pts, n, coll, mdl, 0, margin, rep);
}

int acct_extrap_trust_at(const struct acct_result_point *pts, size_t n, enum acct_coll_id coll,
                         const struct acct_model *mdl, int rpn, double margin,
                         struct acct_extrap_report *rep)
{
    const struct acct_result_point **v = malloc((n > 0 ? n : 1) * sizeof(*v));
    double *err = malloc((n > 0 ? n : 1) * sizeof(*err));
    size_t nv = 0;

    rep->cells = rep->hits = rep->pairs = 0;
    rep->median_err = NAN;
    rep->trusted = false;
    if (v == NULL || err == NULL) {
        free(v);
        free(err);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (pts[i].coll == coll && !pts[i].modelled)
            v[nv++] = &pts[i];
    qsort(v, nv, sizeof(*v), cmp_cell);
    for (size_t i = 0, j; i < nv; i = j) { /* one cell: v[i..j) */
        double best = INFINITY, pick_pred = INFINITY, pick_meas = NAN;
        for (j = i; j < nv && cmp_cell(&v[i], &v[j]) == 0; j++) {
            const struct acct_result_point *x = v[j];
            best = fmin(best, x->median_us);
            struct acct_model at;
            acct_whatif_model_at(mdl, x->comm_size, rpn, &at);
            double t = acct_model_predict(coll, &x->d, x->comm_size, x->bytes, &at);
            if (!isfinite(t))
                continue; /* native, or no prediction */
            if (x->median_us > 0)
                err[rep->pairs++] = fabs(t - x->median_us) / x->median_us;
            if (t < pick_pred) {
                pick_pred = t;
                pick_meas = x->median_us;
            }
        }
        if (isfinite(pick_pred)) {
            rep->cells++;
            rep->hits += pick_meas <= margin * best;
        }
    }
    if (rep->pairs > 0) {
        qsort(err, rep->pairs, sizeof(*err), cmp_double);
        rep->median_err = rep->pairs % 2 ? err[rep->pairs / 2]
                                         : (err[rep->pairs / 2 - 1] + err[rep->pairs / 2]) / 2;
    }
    rep->trusted = rep->cells > 0 &&
                   (double)rep->hits >= ACCT_EXTRAP_TRUST_HITS * (double)rep->cells &&
                   rep->median_err <= ACCT_EXTRAP_TRUST_ERROR;
    free(v);
    free(err);
    return 0;
}

/* ---- one point ------------------------------------------------------------------------ */

/* A ranking beyond ACCT_MODEL_RANK_EXACT_P ranks answers the candidates
 * its screen left out with their closed forms. On a laid-out model those
 * cost a flat method on the inter-node level without the NIC sharing
 * (struct acct_model_nodes), so one can head the ranking at a fraction of
 * what the model predicts for it. While the head is such a screened
 * closed form, it gets the model's full prediction (acct_model_predict_how;
 * its closed form again when the simulation is over budget, which then
 * stands) and moves to its place, at most ACCT_EXTRAP_REFINE times. */
static void refine(struct acct_model_pred *v, size_t nv, enum acct_coll_id coll, int q,
                   uint64_t m, const struct acct_model *mdl)
{
    if (q <= ACCT_MODEL_RANK_EXACT_P)
        return; /* every candidate had the full prediction */
    for (int k = 0; k < ACCT_EXTRAP_REFINE && nv > 0 && v[0].how == ACCT_MODEL_CLOSED_FORM;
         k++) {
        enum acct_model_source how;
        double t = acct_model_predict_how(coll, &v[0].d, q, m, mdl, &how);
        bool same = how == ACCT_MODEL_CLOSED_FORM && t == v[0].t_us;
        v[0].t_us = t;
        v[0].how = how;
        if (same)
            return; /* the closed form is the model's answer */
        for (size_t i = 0; i + 1 < nv && (!isfinite(v[i].t_us) || v[i + 1].t_us < v[i].t_us);
             i++) {
            if (!isfinite(v[i + 1].t_us))
                break;
            struct acct_model_pred x = v[i];
            v[i] = v[i + 1];
            v[i + 1] = x;
        }
    }
}

int acct_extrap_rank_at(enum acct_coll_id coll, int q, int rpn, uint64_t m,
                        const struct acct_model *mdl, struct acct_model_pred **out, size_t *n)
{
    struct acct_model at;
    acct_whatif_model_at(mdl, q, rpn, &at);
    if (acct_model_rank(coll, q, m, acct_whatif_nodes(q, rpn), &at, 0, 0, out, n) != 0)
        return -1;
    if (rpn > 0)
        refine(*out, *n, coll, q, m, &at);
    return 0;
}

/* Where a cell is decided: its row's far size q (the size least like the
 * evidence), and for a row of several sizes also its near end, where a
 * method made for other sizes (recursive halving at 2^k + 1 ranks) can
 * cost several times the best (issue 21: the check found
 * reduce_scatter_block recursive_halving 2.47x at 9 ranks in a row (8, 16]
 * decided at 16). Each end has the model laid out at its size. */
struct end {
    int q;
    bool nodes;
    struct acct_model mdl;
};

static void end_at(struct end *e, const struct acct_model *mdl, int q, int rpn)
{
    e->q = q;
    acct_whatif_model_at(mdl, q, rpn, &e->mdl);
    e->nodes = acct_whatif_nodes(q, rpn);
}

/* The end's ranking into *v (acct_model_rank's, refined when laid out). */
static int rank_end(enum acct_coll_id coll, const struct end *e, uint64_t m,
                    struct acct_model_pred **v, size_t *nv)
{
    if (acct_model_rank(coll, e->q, m, e->nodes, &e->mdl, 0, 0, v, nv) != 0)
        return -1;
    if (e->mdl.nodes.ranks_per_node > 0) /* laid out (acct_whatif_model_at) */
        refine(*v, *nv, coll, e->q, m, &e->mdl);
    return 0;
}

/* t over the best time b of its point (b 0: 1 for 0, else infinite). */
static double ratio(double t, double b)
{
    return b > 0 ? t / b : (t > 0 ? INFINITY : 1.0);
}

/* d's worst ratio to the model's best over the ends (v[e][0] the best at
 * end e), or NAN where it has no prediction at one of them. */
static double worst_ratio(enum acct_coll_id coll, const struct acct_decision *d,
                          const struct end *ends, size_t ne, uint64_t m,
                          struct acct_model_pred *const *v)
{
    double worst = 0;
    for (size_t e = 0; e < ne; e++) {
        if (!acct_model_applicable(coll, d, ends[e].q, m))
            return NAN;
        double t = acct_model_predict(coll, d, ends[e].q, m, &ends[e].mdl);
        if (!isfinite(t))
            return NAN;
        worst = fmax(worst, ratio(t, v[e][0].t_us));
    }
    return worst;
}

/* The cell at m over its ends (1 or 2; the first the far size): the
 * measured winner w while the model predicts it within the margin of its
 * best at every end, else the method of the least worst ratio to the best
 * over the ends (at one end: the model's best), runner_up the next other
 * method within the margin. Returns 0, 1 (nothing predicted at the far
 * size: native), 2 (no method within the margin at both ends: the row
 * must be split) or -1. */
static int decide_ends(enum acct_coll_id coll, const struct end *ends, size_t ne, uint64_t m,
                       const struct acct_decision *w, double margin, struct acct_decision *out,
                       struct acct_decision *runner_up)
{
    struct acct_model_pred *v[2] = { NULL, NULL };
    size_t nv[2] = { 0, 0 };
    int rc = 1;

    memset(out, 0, sizeof(*out));
    memset(runner_up, 0, sizeof(*runner_up));
    for (size_t e = 0; e < ne; e++)
        if (rank_end(coll, &ends[e], m, &v[e], &nv[e]) != 0) {
            rc = -1;
            goto out;
        }
    if (nv[0] == 0 || !isfinite(v[0][0].t_us))
        goto out; /* nothing predicted: native */
    if (ne == 2 && (nv[1] == 0 || !isfinite(v[1][0].t_us)))
        ne = 1; /* nothing predicted at the near end: the far size decides */
    if (w != NULL && w->alg != NULL && strcmp(w->alg->name, "native") != 0) {
        double r = worst_ratio(coll, w, ends, ne, m, v);
        if (r <= margin) {
            *out = *w;
            if (!acct_decision_equal(w, &v[0][0].d))
                *runner_up = v[0][0].d;
            rc = 0;
            goto out;
        }
    }
    /* each method's worst ratio over the ends, from the rankings */
    size_t pick = nv[0];
    double least = INFINITY;
    for (size_t i = 0; i < nv[0] && isfinite(v[0][i].t_us) && least > 1; i++) {
        double r = ratio(v[0][i].t_us, v[0][0].t_us);
        if (ne == 2) {
            size_t j = 0;
            while (j < nv[1] && !acct_decision_equal(&v[1][j].d, &v[0][i].d))
                j++;
            if (j == nv[1] || !isfinite(v[1][j].t_us))
                continue;
            r = fmax(r, ratio(v[1][j].t_us, v[1][0].t_us));
        }
        if (r < least) {
            least = r;
            pick = i;
        }
    }
    if (pick == nv[0] || least > margin) {
        rc = 2;
        goto out;
    }
    *out = v[0][pick].d;
    /* the next other method the model places within the margin at every end, if any */
    for (size_t i = 0; i < nv[0] && isfinite(v[0][i].t_us) && v[0][i].t_us <= margin * v[0][0].t_us;
         i++)
        if (i != pick && v[0][i].d.alg != out->alg &&
            (ne == 1 || worst_ratio(coll, &v[0][i].d, ends, ne, m, v) <= margin)) {
            *runner_up = v[0][i].d;
            break;
        }
    rc = 0;
out:
    free(v[0]);
    free(v[1]);
    return rc;
}

static int decide(enum acct_coll_id coll, int q, uint64_t m, bool nodes,
                  const struct acct_decision *w, const struct acct_model *mdl, double margin,
                  struct acct_decision *out, struct acct_decision *runner_up)
{
    struct end e = { .q = q, .nodes = nodes, .mdl = *mdl };
    int rc = decide_ends(coll, &e, 1, m, w, margin, out, runner_up);
    return rc == 2 ? -1 : rc; /* one end: never split */
}

int acct_extrap_decide(enum acct_coll_id coll, int q, uint64_t m, const struct acct_decision *w,
                       const struct acct_model *mdl, double margin, struct acct_decision *out,
                       struct acct_decision *runner_up)
{
    return decide(coll, q, m, false, w, mdl, margin, out, runner_up);
}

int acct_extrap_decide_at(enum acct_coll_id coll, int q, int rpn, uint64_t m,
                          const struct acct_decision *w, const struct acct_model *mdl,
                          double margin, struct acct_decision *out,
                          struct acct_decision *runner_up)
{
    struct acct_model at;
    acct_whatif_model_at(mdl, q, rpn, &at);
    return decide(coll, q, m, acct_whatif_nodes(q, rpn), w, &at, margin, out, runner_up);
}

/* One method's score over the sizes at each end: the sum of log(t / best)
 * and how many sizes predicted it. */
struct sized {
    struct acct_decision d;
    double logsum[2];
    size_t n[2];
};

static int decide_sizes(enum acct_coll_id coll, const struct end *ends, size_t ne,
                        const uint64_t *m, size_t nm, const struct acct_decision *w,
                        double margin, struct acct_decision *out,
                        struct acct_decision *runner_up);

int acct_extrap_decide_sizes(enum acct_coll_id coll, int q, const uint64_t *m, size_t nm,
                             const struct acct_decision *w, const struct acct_model *mdl,
                             double margin, struct acct_decision *out,
                             struct acct_decision *runner_up)
{
    struct end e = { .q = q, .nodes = false, .mdl = *mdl };
    int rc = decide_sizes(coll, &e, 1, m, nm, w, margin, out, runner_up);
    return rc == 2 ? -1 : rc;
}

/* A collective decided from the communicator size alone: per end, each
 * method's mean over the sizes of log(t / the size's best), less the least
 * such mean (0 for the best on average). The measured winner while its
 * worst over the ends is within log(margin), else the method of the least
 * worst; runner_up the next other method within the margin. Returns as
 * decide_ends. */
static int decide_sizes(enum acct_coll_id coll, const struct end *ends, size_t ne,
                        const uint64_t *m, size_t nm, const struct acct_decision *w,
                        double margin, struct acct_decision *out,
                        struct acct_decision *runner_up)
{
    struct sized *c = NULL;
    size_t nc = 0, cap = 0;
    double wlog[2] = { 0, 0 };
    bool wok = w != NULL && w->alg != NULL && strcmp(w->alg->name, "native") != 0;
    int rc = 1;

    memset(out, 0, sizeof(*out));
    memset(runner_up, 0, sizeof(*runner_up));
    for (size_t e = 0; e < ne; e++)
        for (size_t j = 0; j < nm; j++) {
            const int q = ends[e].q;
            struct acct_model_pred *v = NULL;
            size_t nv = 0;
            if (rank_end(coll, &ends[e], m[j], &v, &nv) != 0) {
                free(v);
                rc = -1;
                goto out;
            }
            if (nv == 0 || !isfinite(v[0].t_us) || !(v[0].t_us > 0)) {
                free(v);
                if (e == 0)
                    goto out; /* nothing predicted at this size: no method at every size */
                ne = 1;       /* nor at the near end: the far size decides */
                break;
            }
            const double best = v[0].t_us;
            for (size_t i = 0; i < nv && isfinite(v[i].t_us); i++) {
                size_t k = 0;
                while (k < nc && !acct_decision_equal(&c[k].d, &v[i].d))
                    k++;
                if (k == nc) {
                    if (e > 0)
                        continue; /* not a method of the far size */
                    if (nc == cap) {
                        size_t ncap = cap ? 2 * cap : 8;
                        struct sized *x = realloc(c, ncap * sizeof(*x));
                        if (x == NULL) {
                            free(v);
                            rc = -1;
                            goto out;
                        }
                        c = x;
                        cap = ncap;
                    }
                    c[nc++] = (struct sized){ .d = v[i].d };
                }
                if (c[k].n[e] == j) { /* once per size (the first, best prediction) */
                    c[k].logsum[e] += log(v[i].t_us / best);
                    c[k].n[e]++;
                }
            }
            if (wok) {
                double tw = acct_model_applicable(coll, w, q, m[j])
                                ? acct_model_predict(coll, w, q, m[j], &ends[e].mdl)
                                : NAN;
                if (isfinite(tw))
                    wlog[e] += log(tw / best);
                else
                    wok = false;
            }
            free(v);
        }
    if (nm == 0)
        goto out;
    /* the least mean at each end, over the methods predicted at every size there */
    double least[2] = { INFINITY, INFINITY };
    for (size_t e = 0; e < ne; e++)
        for (size_t k = 0; k < nc; k++)
            if (c[k].n[e] == nm)
                least[e] = fmin(least[e], c[k].logsum[e] / (double)nm);
    if (!isfinite(least[0]))
        goto out;
    const double lmargin = log(margin);
    double pickw = INFINITY;
    size_t pick = nc;
    for (size_t k = 0; k < nc; k++) {
        double worst = -INFINITY;
        for (size_t e = 0; e < ne && worst < INFINITY; e++)
            worst = c[k].n[e] == nm ? fmax(worst, c[k].logsum[e] / (double)nm - least[e])
                                    : INFINITY;
        c[k].logsum[1] = worst; /* from here: the method's worst over the ends */
        if (worst < pickw) {
            pickw = worst;
            pick = k;
        }
    }
    if (pick == nc) {
        rc = ne == 2 ? 2 : 1;
        goto out;
    }
    double ww = -INFINITY;
    for (size_t e = 0; e < ne; e++)
        ww = fmax(ww, wlog[e] / (double)nm - least[e]);
    if (wok && ww <= lmargin) {
        *out = *w;
        if (!acct_decision_equal(w, &c[pick].d))
            *runner_up = c[pick].d;
    } else if (pickw > lmargin) {
        rc = 2;
        goto out;
    } else {
        *out = c[pick].d;
        /* the best other method within the margin, if any */
        size_t ru = nc;
        for (size_t k = 0; k < nc; k++)
            if (k != pick && c[k].d.alg != c[pick].d.alg && c[k].logsum[1] <= lmargin &&
                (ru == nc || c[k].logsum[1] < c[ru].logsum[1]))
                ru = k;
        if (ru < nc)
            *runner_up = c[ru].d;
    }
    rc = 0;
out:
    free(c);
    return rc;
}

/* ---- rows ----------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The first rule of l containing (p, m) (layouts not looked at), or NULL. */
static const struct acct_rule *rule_at(const struct acct_rule_list *l, int p, uint64_t m)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].comm_min <= p && p <= l->v[i].comm_max && l->v[i].bytes_min <= m &&
            m <= l->v[i].bytes_max && !acct_rule_layout_bound(&l->v[i]))
            return &l->v[i];
    return NULL;
}

/* Same decision, runner-up and evidence. */
static bool same_decisions(const struct acct_rule *a, const struct acct_rule *b)
{
    return acct_decision_equal(&a->d, &b->d) && a->evidence == b->evidence &&
           ((a->runner_up.alg == NULL && b->runner_up.alg == NULL) ||
            (a->runner_up.alg != NULL && b->runner_up.alg != NULL &&
             acct_decision_equal(&a->runner_up, &b->runner_up)));
}

static bool same_binding(const struct acct_rule *a, const struct acct_rule *b)
{
    return a->rpn_min == b->rpn_min && a->rpn_max == b->rpn_max && a->layout == b->layout;
}

static bool same_rule_cells(const struct acct_rule *a, const struct acct_rule *b)
{
    return a->bytes_min == b->bytes_min && a->bytes_max == b->bytes_max &&
           same_binding(a, b) && same_decisions(a, b);
}

/* Append rule to l (capacity *cap). */
static int push(struct acct_rule_list *l, size_t *cap, const struct acct_rule *r)
{
    if (l->n == *cap) {
        size_t nc = *cap < 8 ? 16 : *cap * 2;
        struct acct_rule *nv = realloc(l->v, nc * sizeof(*nv));
        if (nv == NULL)
            return -1;
        l->v = nv;
        *cap = nc;
    }
    l->v[l->n++] = *r;
    return 0;
}

/* The size farthest from the edge of the row that starts at `from` (its
 * size nearest the edge), the band's limit not passed. Above: the row
 * (from - 1, 2(from - 1)], doubling up to P (up to 1 Mi ranks: one row per
 * size would be a million rankings). Below: the row [from, from], one size
 * each: the band holds at most Pmin - 1 sizes, each ranked cheaply at its
 * few ranks, so every size below is decided at itself (rows with equal
 * decisions merge). */
static int far_above(int from, int limit)
{
    return from - 1 > limit / 2 ? limit : 2 * (from - 1);
}

static int far_below(int from, int limit)
{
    (void)limit;
    return from;
}

/* The two bands beyond the measured communicator sizes, one code path
 * (docs/decisions.md "Model regions"): rows start at the measured edge e
 * (the largest measured size Pm above, the smallest Pmin below) and move
 * away from it; each row is decided at its size farthest from e (the size
 * least like the evidence). Where the model is not trusted the band above
 * has no rows (its sizes run native by absence, up to max); the band
 * below, which is bounded, gets one native rule with evidence: none, so
 * every size from 1 to the largest measured says where its decision comes
 * from. One rank gets native, evidence: none, trusted or not: every
 * collective is trivial there, the model ranks nothing (all methods cost
 * 0) and the runtime runs the MPI library's own collective on one rank
 * whatever the rules say (rt_comm_runs_acct). */
struct band {
    int dir;               /* +1: above the largest measured size; -1: below the smallest */
    int (*far)(int from, int limit);
    bool native_untrusted; /* not trusted: write native rows (else none) */
    size_t rows, rules;    /* offsets of the report's counters of the band */
};

static const struct band bands[] = {
    { +1, far_above, false, offsetof(struct acct_extrap_report, rows),
      offsetof(struct acct_extrap_report, rules) },
    { -1, far_below, true, offsetof(struct acct_extrap_report, rows_below),
      offsetof(struct acct_extrap_report, rules_below) },
};

static size_t *counter(struct acct_extrap_report *rep, size_t off)
{
    return (size_t *)(void *)((char *)rep + off);
}

/* The layout of the model regions per layout: the model laid out at rpn
 * ranks per node (rpn 0: none), trusted or not on the measured cells
 * there. */
struct layout {
    int rpn;
    bool trusted;
};

/* One cell of a row (one column, or the whole row for a collective decided
 * from the communicator size alone): its rule, or none. */
struct cell {
    bool present;
    struct acct_rule r;
};

/* The cell of column j (nb columns; bytes NULL: one column [0, max], the
 * collapse over the measured sizes) at q ranks: a model rule (modelled),
 * a native rule with evidence: none (native), or none. The model is laid
 * out at rpn (0: flat; node-aware methods where q ranks span nodes). */
static int row_cell(enum acct_coll_id coll, const struct acct_rule_list *l, int e, int q,
                    int near, bool modelled, bool native, const uint64_t *bytes, size_t nb,
                    size_t j, int rpn, const struct acct_model *mdl, double margin,
                    struct cell *c, struct acct_extrap_report *rep)
{
    const bool alike = acct_coll_bytes_alike(coll);
    struct acct_rule *r = &c->r;
    struct end ends[2];
    const size_t ne = near != q ? 2 : 1;

    memset(c, 0, sizeof(*c));
    r->bytes_min = !alike || j == 0 ? 0 : acct_geo_mid(bytes[j - 1], bytes[j]) + 1;
    r->bytes_max = !alike || j + 1 == nb ? UINT64_MAX : acct_geo_mid(bytes[j], bytes[j + 1]);
    if (!modelled) { /* no evidence: the MPI library's collective, or no rule */
        r->d = (struct acct_decision){ .alg = acct_alg_native(coll) };
        r->evidence = ACCT_EVIDENCE_NONE;
        c->present = native;
        return 0;
    }
    r->evidence = ACCT_EVIDENCE_MODEL;
    end_at(&ends[0], mdl, q, rpn);
    if (ne == 2)
        end_at(&ends[1], mdl, near, rpn);
    const struct acct_rule *mw = rule_at(l, e, alike ? bytes[j] : 0);
    int d = alike ? decide_ends(coll, ends, ne, bytes[j], mw != NULL ? &mw->d : NULL, margin,
                                &r->d, &r->runner_up)
                  : decide_sizes(coll, ends, ne, bytes, nb, mw != NULL ? &mw->d : NULL, margin,
                                 &r->d, &r->runner_up);
    if (d < 0 || d == 2)
        return d; /* out of memory, or the row must be split */
    if (rpn > 0) {
        rep->at_points++;
        rep->at_hier += d == 0 && (r->d.alg->flags & ACCT_ALG_NODES) != 0;
    } else
        rep->points++;
    if (d == 1)
        return 0; /* no prediction: no rule, native */
    if (rpn == 0)
        rep->kept += mw != NULL && acct_decision_equal(&r->d, &mw->d);
    c->present = true;
    return 0;
}

/* Append r bound to ranks per node [lo, hi] (0, 0: unbound) to row (*nr),
 * merged into the row's last rule of the same binding and decisions when
 * their bytes meet. */
static void row_put(struct acct_rule *row, size_t *nr, const struct acct_rule *r, int lo, int hi)
{
    struct acct_rule x = *r;
    x.rpn_min = lo;
    x.rpn_max = hi;
    for (size_t k = *nr; k-- > 0;)
        if (same_binding(&row[k], &x)) {
            if (row[k].bytes_max + 1 == x.bytes_min && same_decisions(&row[k], &x)) {
                row[k].bytes_max = x.bytes_max;
                return;
            }
            break;
        }
    row[(*nr)++] = x;
}

/* The rules of one row of a band at the row's far size q, the measured
 * edge e: per cell the flat model's rule (trusted, q >= 2), else a native
 * one (the band below) or none (above); at a layout (lay->rpn >= 2, q
 * ranks spanning nodes) also the laid-out model's, and where the two
 * differ both, bound to the layout and to the others. Fills row[0..*nr)
 * (room for 3 per column). Returns 0 or -1 (out of memory). */
static int band_row(enum acct_coll_id coll, const struct acct_rule_list *l, int e, int q,
                    int near, const struct band *b, const uint64_t *bytes, size_t nb,
                    const struct acct_model *mdl, double margin, const struct layout *lay,
                    struct acct_rule *row, size_t *nr, struct acct_extrap_report *rep)
{
    const size_t ncols = acct_coll_bytes_alike(coll) ? nb : 1;
    const bool at = lay->rpn >= 2 && acct_whatif_nodes(q, lay->rpn);
    const bool native = b->native_untrusted || q < 2;
    int rc;

    *nr = 0;
    for (size_t j = 0; j < ncols; j++) {
        struct cell f, a;
        if ((rc = row_cell(coll, l, e, q, near, rep->trusted && q >= 2, native, bytes,
                           nb, j, 0, mdl, margin, &f, rep)) != 0)
            return rc;
        if (!at) {
            if (f.present)
                row_put(row, nr, &f.r, 0, 0);
            continue;
        }
        if ((rc = row_cell(coll, l, e, q, near, lay->trusted && q >= 2, native, bytes,
                           nb, j, lay->rpn, mdl, margin, &a, rep)) != 0)
            return rc;
        if (f.present && a.present && same_decisions(&f.r, &a.r)) {
            row_put(row, nr, &f.r, 0, 0); /* one rule for every layout */
            continue;
        }
        if (f.present) { /* the flat decision for the other layouts */
            row_put(row, nr, &f.r, 1, lay->rpn - 1);
            row_put(row, nr, &f.r, lay->rpn + 1, INT_MAX);
        }
        if (a.present)
            row_put(row, nr, &a.r, lay->rpn, lay->rpn);
    }
    return 0;
}

/* The rows of one band of a collective (edge e, limit: P above, 1 below). */
static int band_rows(const struct band *b, enum acct_coll_id coll, int e, int limit,
                     const uint64_t *bytes, size_t nb, const struct acct_model *mdl,
                     double margin, const struct layout *lay, struct acct_rules *rules,
                     size_t *cap, struct acct_rule *row, struct acct_extrap_report *rep)
{
    struct acct_rule_list *l = &rules->coll[coll];
    size_t prev_first = 0, prev_n = 0;
    int rc = 0;

    if (b->dir > 0 ? e >= limit : e <= limit)
        return 0; /* nothing beyond the edge */
    if (!rep->trusted && !(lay->rpn >= 2 && lay->trusted) && !b->native_untrusted)
        return 0;
    int top = 0; /* the end of a row that was halved: the rest keeps it */
    for (int from = e + b->dir;;) {
        int q = b->dir > 0 && top >= from ? top : b->far(from, limit);
        size_t nr = 0;
        /* decided at q, and at from too where the row holds more sizes
         * and from is within acctctl check's simulated reach: a row with
         * a cell no method keeps within the margin at both ends is halved
         * (its counts undone) until one does, at worst down to one size;
         * the rest of it is the next row, to the same end, so the rows'
         * far sizes stay those of the doubling. Beyond that reach the
         * bottom sizes (2^k + 1) are not simulated: from one rank's view
         * the simulator cannot take them, and with the whole schedule
         * the regions up to 64k ranks took five times as long; the
         * check judges such sizes by the closed forms. */
        const struct acct_extrap_report before = *rep;
        const int near = from <= ACCT_WHATIF_SIM_MAX_RANKS ? from : q;
        top = q;
        while ((rc = band_row(coll, l, e, q, near, b, bytes, nb, mdl, margin, lay,
                              row, &nr, rep)) == 2) {
            *rep = before;
            q = from + (q - from) / 2;
            rep->splits++;
        }
        if (rc != 0)
            return -1;
        int lo = b->dir > 0 ? from : q, hi = b->dir > 0 ? q : from;
        bool modelled = rep->trusted && q >= 2;
        *counter(rep, b->rows) += modelled;
        if (!modelled && b->native_untrusted)
            rep->native_below += (size_t)(hi - lo + 1);
        for (size_t j = 0; j < nr; j++) {
            row[j].comm_min = lo;
            row[j].comm_max = hi;
        }
        /* the same cells and decisions as the row before (nearer the
         * edge): extend it */
        bool same = prev_n == nr && nr > 0;
        for (size_t j = 0; same && j < nr; j++)
            same = same_rule_cells(&l->v[prev_first + j], &row[j]);
        if (same) {
            for (size_t j = 0; j < nr; j++) {
                struct acct_rule *x = &l->v[prev_first + j];
                x->comm_min = lo < x->comm_min ? lo : x->comm_min;
                x->comm_max = hi > x->comm_max ? hi : x->comm_max;
            }
        } else {
            prev_first = l->n;
            prev_n = nr;
            for (size_t j = 0; j < nr && rc == 0; j++) {
                rc = push(l, cap, &row[j]);
                rules->nrules += rc == 0;
                *counter(rep, b->rules) += rc == 0;
                rep->at_rules += rc == 0 && acct_rule_layout_bound(&row[j]);
            }
            if (rc != 0)
                return -1;
        }
        if (q == limit)
            return 0;
        from = q + b->dir;
    }
}

/* The model rows' columns of a collective decided per message size: the
 * measured sizes bytes[0..nb-1] (ascending, distinct), and beyond them,
 * by factors of 4, columns the model decides at their own size — down to
 * 1 byte and up to ACCT_CHECK_DEFAULT_MAX_BYTES (16 MiB), each end
 * included — so that no model rule's bytes reach a size a factor of more
 * than 2 from the one it was decided at, within what acctctl check and
 * acctd's check sample (issue 21: a row decided at 1 MiB held up to max,
 * and the check found hier_rabenseifner 2.23x the model's best at 16 MiB,
 * which failed cluster.retune). Returns a new array (*n columns), or NULL
 * out of memory. */
static uint64_t *model_columns(const uint64_t *bytes, size_t nb, size_t *n)
{
    const uint64_t top = ACCT_CHECK_DEFAULT_MAX_BYTES;
    uint64_t *c = malloc((nb + 2 * 40) * sizeof(*c));
    size_t k = 0;

    if (c == NULL)
        return NULL;
    if (nb == 0) {
        *n = 0;
        return c;
    }
    if (bytes[0] > 1) { /* below: bytes[0] / 4, / 16, ... and 1, ascending */
        uint64_t low[40];
        size_t nl = 0;
        for (uint64_t v = bytes[0] / 4; v >= 1 && nl < 39; v /= 4)
            low[nl++] = v;
        if (nl == 0 || low[nl - 1] > 1)
            low[nl++] = 1;
        while (nl > 0)
            c[k++] = low[--nl];
    }
    for (size_t i = 0; i < nb; i++)
        c[k++] = bytes[i];
    for (uint64_t v = bytes[nb - 1]; v < top && k < nb + 79;) {
        v = v > top / 4 ? top : v * 4;
        c[k++] = v;
    }
    *n = k;
    return c;
}

/* The model (and native) rows of one collective, both bands. */
static int coll_rows(const struct acct_result_point *pts, size_t n, enum acct_coll_id coll,
                     const struct acct_model *mdl, double margin, int pmax, int rpn,
                     struct acct_rules *rules, struct acct_extrap_report *rep)
{
    struct acct_rule_list *l = &rules->coll[coll];
    uint64_t *bytes = malloc((n > 0 ? n : 1) * sizeof(*bytes));
    struct acct_rule *row = NULL;
    uint64_t *cols = NULL;
    size_t nb = 0, cap = l->n;
    int rc = 0, pm = 0, pmin = INT_MAX;
    struct layout lay = { 0, false };

    if (bytes == NULL)
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].comm_max == INT_MAX || acct_rule_layout_bound(&l->v[i]) ||
            l->v[i].evidence != ACCT_EVIDENCE_MEASURED)
            goto out; /* open-ended, per layout or already extended: not a map's rules */
        pm = l->v[i].comm_max > pm ? l->v[i].comm_max : pm;
        pmin = l->v[i].comm_min < pmin ? l->v[i].comm_min : pmin;
    }
    for (size_t i = 0; i < n; i++)
        if (pts[i].coll == coll && !pts[i].modelled)
            bytes[nb++] = coll == ACCT_COLL_barrier ? 0 : pts[i].bytes;
    rep->measured_max = pm;
    rep->measured_min = pmin;
    rep->has_points = nb > 0 && pm > 0;
    if (!rep->has_points || (pm >= pmax && pmin <= 1))
        goto out;
    if (acct_extrap_trust(pts, n, coll, mdl, margin, rep) != 0) {
        rc = -1;
        goto out;
    }
    if (rpn >= 2) { /* the same policy on the model laid out as measured */
        struct acct_extrap_report t;
        memset(&t, 0, sizeof(t));
        if (acct_extrap_trust_at(pts, n, coll, mdl, rpn, margin, &t) != 0) {
            rc = -1;
            goto out;
        }
        rep->rpn = lay.rpn = rpn;
        rep->at_cells = t.cells;
        rep->at_hits = t.hits;
        rep->at_pairs = t.pairs;
        rep->at_median_err = t.median_err;
        rep->at_trusted = lay.trusted = t.trusted;
    }
    qsort(bytes, nb, sizeof(*bytes), cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < nb; i++)
        if (k == 0 || bytes[i] != bytes[k - 1])
            bytes[k++] = bytes[i];
    nb = k;
    size_t ncol = nb;
    const uint64_t *col = bytes;
    if (acct_coll_bytes_alike(coll) && coll != ACCT_COLL_barrier) {
        if ((cols = model_columns(bytes, nb, &ncol)) == NULL) {
            rc = -1;
            goto out;
        }
        col = cols;
    }
    if ((row = malloc(3 * (ncol > 0 ? ncol : 1) * sizeof(*row))) == NULL) {
        rc = -1;
        goto out;
    }
    for (size_t s = 0; s < ACCT_ARRAY_LEN(bands) && rc == 0; s++)
        rc = band_rows(&bands[s], coll, bands[s].dir > 0 ? pm : pmin, bands[s].dir > 0 ? pmax : 1,
                       col, ncol, mdl, margin, &lay, rules, &cap, row, rep);
    if (rc == 0) /* in file order: the bands below come first */
        qsort(l->v, l->n, sizeof(*l->v), acct_rule_cmp);
out:
    free(row);
    free(cols);
    free(bytes);
    return rc;
}

int acct_extrap_rules(const struct acct_result_point *pts, size_t n, const struct acct_loggp *lg,
                      const struct acct_rules_model *levels, int ranks_per_node,
                      const char *run, double margin, int max_comm_size,
                      struct acct_rules *rules, struct acct_extrap_report rep[ACCT_COLL_COUNT],
                      struct acct_model_memo *memo, struct acct_diags *diags)
{
    struct acct_extrap_report mine[ACCT_COLL_COUNT];
    struct acct_rules_model *rm = &rules->prov.model;
    struct acct_model mdl;
    const bool at = levels != NULL && levels->has_levels && ranks_per_node >= 2;

    if (rep == NULL)
        rep = mine;
    memset(rep, 0, ACCT_COLL_COUNT * sizeof(*rep));
    if (lg == NULL || !(margin >= 1 && margin <= ACCT_RULES_MARGIN_MAX) || max_comm_size < 1 ||
        max_comm_size > ACCT_EXTRAP_MAX_COMM || (pts == NULL && n > 0)) {
        acct_diags_add(diags, 0, 0, "model regions",
                       "bad arguments (a model, a margin from 1 to %g, a maximum communicator "
                       "size from 1 to %d)",
                       ACCT_RULES_MARGIN_MAX, ACCT_EXTRAP_MAX_COMM);
        return ACCT_RULES_EINVAL;
    }
    memset(rm, 0, sizeof(*rm));
    if (at) { /* the levels the layout rows are predicted with */
        rm->has_levels = true;
        rm->intra = levels->intra;
        rm->inter = levels->inter;
        rm->nic_pairs = levels->nic_pairs >= 2 ? levels->nic_pairs : 0;
        rm->nic_gap_factor = rm->nic_pairs ? levels->nic_gap_factor : 0;
        rm->nic_bidir_pairs = rm->nic_pairs && levels->nic_bidir_pairs >= 2
                                  ? levels->nic_bidir_pairs
                                  : 0;
        rm->nic_bidir_gap_factor = rm->nic_bidir_pairs ? levels->nic_bidir_gap_factor : 0;
        rm->pair_duplex_factor = levels->pair_duplex_factor >= 1 ? levels->pair_duplex_factor : 0;
        rm->pair_duplex_overlap_bytes =
            rm->pair_duplex_factor >= 1 ? levels->pair_duplex_overlap_bytes : 0;
    }
    rm->L_us = lg->L_us;
    rm->o_us = lg->o_us;
    rm->g_us = lg->g_us;
    rm->G_us_per_byte = lg->G_us_per_byte;
    rm->margin = margin;
    rm->present = true;
    if (run != NULL)
        snprintf(rm->run, sizeof(rm->run), "%s", run);
    if (acct_extrap_model(rm, &mdl) != 0) {
        memset(rm, 0, sizeof(*rm));
        acct_diags_add(diags, 0, 0, "model", "the LogGP parameters are not a valid model");
        return ACCT_RULES_EINVAL;
    }
    /* every ranking of a row is asked again by the rows above it that
     * keep its decision, and the measured winner's prediction is one of
     * the ranking's: the memo answers each point once */
    struct acct_model_memo *own = memo == NULL ? acct_model_memo_new() : NULL;
    mdl.memo = memo != NULL ? memo : own;
    int rc = ACCT_RULES_OK;
    for (int c = 0; c < ACCT_COLL_COUNT && rc == ACCT_RULES_OK; c++) {
        if (rules->coll[c].n == 0)
            continue;
        if (coll_rows(pts, n, (enum acct_coll_id)c, &mdl, margin, max_comm_size,
                      at ? ranks_per_node : 0, rules, &rep[c]) != 0)
            rc = ACCT_RULES_ENOMEM;
        else if (rules->nrules > ACCT_RULES_MAX_RULES) {
            acct_diags_add(diags, 0, 0, "model regions",
                           "more than %d rules with the model regions", ACCT_RULES_MAX_RULES);
            rc = ACCT_RULES_EINVAL;
        }
    }
    acct_model_memo_free(own);
    return rc;
}
