/* acct-tune's search strategies (search.h): pure functions over a cost
 * oracle. The descriptions of MGD, SMGD, the pipeline method and the
 * reduced primary grid follow Vadhiyar, Fagg and Dongarra (SC 2000, section
 * 4; IJHPCA 2004, section 3); the details they leave open are documented in
 * docs/acct-tune.md and here. */
#include "search.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const strategy_names[TUNE_STRATEGY_COUNT] = {
    [TUNE_EXHAUSTIVE] = "exhaustive", [TUNE_MGD] = "mgd",     [TUNE_SMGD] = "smgd",
    [TUNE_PIPELINE] = "pipeline",     [TUNE_MODEL] = "model", [TUNE_HYBRID] = "hybrid",
};

const char *tune_strategy_name(enum tune_strategy s)
{
    return (unsigned)s < TUNE_STRATEGY_COUNT ? strategy_names[s] : NULL;
}

int tune_strategy_from_name(const char *name, enum tune_strategy *out)
{
    int rc = -1;

    for (int s = 0; s < TUNE_STRATEGY_COUNT && rc != 0; s++) {
        if (strcmp(name, strategy_names[s]) == 0) {
            *out = (enum tune_strategy)s;
            rc = 0;
        }
    }
    return rc;
}

void tune_params_default(struct tune_params *p)
{
    p->strategy = TUNE_SMGD;
    p->lookahead = 2;
    p->threshold = 3.0;
    p->margin = 0.02;
    p->model_margin = 0.3;
    p->noise = 0.05;
}

/* ---- one search: memoised evaluations ------------------------------------ */

/* The state of one method's descent from its largest segment. */
struct descent {
    size_t next;       /* next segment index to evaluate */
    size_t best_seg;
    double best;       /* +inf until something ran */
    int misses;        /* steps since the last improvement */
    bool done;
    bool noisy;        /* a step since the last clear gain was within noise */
    bool seeded;       /* the model's segment was considered (at most once) */
};


struct search {
    const struct tune_space *sp;
    const struct tune_oracle *or;
    const struct tune_params *pa;
    struct tune_result *res;
    size_t *off;     /* first memo index of each method */
    double *memo;    /* measured costs; NAN = not yet */
    double *spread;  /* each measured experiment's relative spread (0: unknown) */
    int stopped;     /* the oracle said stop */
    /* scratch of the strategies, nmethods entries each, allocated once up
     * front (so that an allocation failure is known before any experiment) */
    struct descent *d;
    double *mbest;
    bool *keep, *known;
    size_t *cls_seg, *cls_nseg;
};

static bool enabled(const struct search *s, size_t m)
{
    return s->sp->enabled == NULL || s->sp->enabled[m];
}

static void note_best(struct search *s, size_t m, size_t seg, double c)
{
    struct tune_result *r = s->res;

    if (!isinf(c) && (!r->found || c < r->cost)) {
        r->found = true;
        r->method = m;
        r->seg = seg;
        r->cost = c;
    }
}

/* Measured cost of (m, seg), from the memo or the oracle. Returns TUNE_OK
 * with *c, TUNE_STOP, or an error. */
static int eval(struct search *s, size_t m, size_t seg, double *c)
{
    int rc = TUNE_OK;
    double *slot = &s->memo[s->off[m] + seg];

    if (s->stopped) {
        rc = TUNE_STOP;
    } else if (!isnan(*slot)) {
        *c = *slot;
    } else {
        double v = INFINITY;
        rc = s->or->measure(s->or->ctx, m, seg, &v);
        if (rc == TUNE_OK) {
            if (isnan(v) || v < 0.0)
                v = INFINITY;
            *slot = v;
            *c = v;
            double *sp = &s->spread[s->off[m] + seg];
            if (s->or->spread != NULL && !isinf(v) &&
                (s->or->spread(s->or->ctx, m, seg, sp) != TUNE_OK || !(*sp >= 0.0)))
                *sp = 0.0; /* unknown: the band alone */
            s->res->evals++;
            if (!isinf(v))
                s->res->eval_cost += v;
            note_best(s, m, seg, v);
        } else if (rc == TUNE_STOP) {
            s->stopped = 1;
        }
    }
    return rc;
}

/* ---- exhaustive ------------------------------------------------------------ */

static int run_exhaustive(struct search *s)
{
    int rc = TUNE_OK;
    double c = 0.0;

    for (size_t m = 0; m < s->sp->nmethods && rc == TUNE_OK; m++)
        for (size_t g = 0; g < s->sp->nsegs[m] && rc == TUNE_OK && enabled(s, m); g++)
            rc = eval(s, m, g, &c);
    return rc;
}

/* ---- MGD ----------------------------------------------------------------- */

static void descent_init(struct descent *d)
{
    d->next = 0;
    d->best_seg = 0;
    d->best = INFINITY;
    d->misses = 0;
    d->done = false;
    d->noisy = false;
    d->seeded = false;
}

/* Is c, measured at segment g of method m, a noisy step from the method's
 * best (d->best at d->best_seg): within the noise band of it, either side
 * -- the run's band (params.noise) or either experiment's own spread,
 * whichever is wider? Such a step says nothing about the direction: a
 * rise may be one slow timing, and a small gain is no gradient that
 * smgd's prediction can extrapolate. */
static bool noisy_step(const struct search *s, size_t m, const struct descent *d, size_t g,
                       double c)
{
    double band = s->pa->noise;
    double sb = s->spread[s->off[m] + d->best_seg], sg = s->spread[s->off[m] + g];

    band = sb > band ? sb : band;
    band = sg > band ? sg : band;
    return !isinf(c) && !isinf(d->best) && c * (1.0 + band) >= d->best &&
           c <= d->best * (1.0 + band);
}

/* One step of method m: evaluate its next segment; done when the segments
 * run out or `lookahead` steps beyond the last minimum found nothing
 * better (the "look beyond the first minimum" modification). A method that
 * cannot run unsegmented is not descended further. */
static int descent_step(struct search *s, size_t m, struct descent *d)
{
    double c = INFINITY;
    int rc = eval(s, m, d->next, &c);

    if (rc == TUNE_OK) {
        if (c < d->best) {
            d->noisy = noisy_step(s, m, d, d->next, c); /* a gain within noise */
            d->best = c;
            d->best_seg = d->next;
            d->misses = 0;
        } else {
            d->noisy = d->noisy || noisy_step(s, m, d, d->next, c);
            d->misses++;
        }
        d->next++;
        d->done = d->next >= s->sp->nsegs[m] || d->misses > s->pa->lookahead ||
                  (d->next == 1 && isinf(c));
    }
    return rc;
}

/* The seed: the segment of method m the model predicts cheapest, when the
 * descent saw a noisy step since its last clear gain, has not been seeded, and that
 * segment lies beyond its best and was not measured. *g receives it. One
 * noisy timing must not end a direction whose best may lie further on
 * (docs/acct-tune.md "Noisy steps"); the model's segment is the one
 * further point worth a measurement (its median at 1 MiB is within 1.05x
 * of the measured optimum, docs/performance.md section 16). */
static int seed_candidate(struct search *s, size_t m, struct descent *d, bool *ok, size_t *g)
{
    int rc = TUNE_OK;
    double best = INFINITY;

    *ok = false;
    if (!d->noisy || d->seeded || s->or->model == NULL || s->sp->nsegs[m] < 2 ||
        isinf(d->best))
        return rc;
    d->seeded = true;
    for (size_t h = 0; h < s->sp->nsegs[m] && rc == TUNE_OK; h++) {
        double c = NAN;
        rc = s->or->model(s->or->ctx, m, h, &c);
        s->res->model_evals++;
        if (rc == TUNE_OK && !isnan(c) && c >= 0.0 && c < best) {
            best = c;
            *g = h;
        }
    }
    *ok = rc == TUNE_OK && !isinf(best) && *g > d->best_seg && isnan(s->memo[s->off[m] + *g]);
    return rc;
}

/* The descent of m goes on below segment g: the next step is g + 1. */
static void resume_below(const struct search *s, size_t m, struct descent *d, size_t g)
{
    d->next = g + 1;
    d->misses = 0;
    d->noisy = false;
    d->done = d->next >= s->sp->nsegs[m];
}

/* After a losing seed g of method m: the noisy step said "further on",
 * the seed says "not that far", so a minimum beyond the best lies between
 * them. The descent's next segment (d->next, below g) is measured; if it
 * beats the best, the descent resumes from it (docs/acct-tune.md "Noisy
 * steps": the README demo's retune of 2026-11-28, 04:12 UTC, stopped
 * bcast `pipeline` at 64K on a 3 % gain, lost the model's seed at 1K, and
 * never measured 32K, the segment every other run picked). */
static int neighbour_step(struct search *s, size_t m, struct descent *d)
{
    double c = INFINITY;
    const size_t h = d->next;
    int rc = eval(s, m, h, &c);

    if (rc == TUNE_OK) {
        s->res->neighbours++;
        if (c < d->best) {
            s->res->neighbours_won++;
            d->best = c;
            d->best_seg = h;
            resume_below(s, m, d, h);
        }
    }
    return rc;
}

/* Measure the seed g of method m; if it beats the method's best, the
 * descent resumes from it: its larger neighbour is measured too (when not
 * yet), and the next step is the segment below g. When that neighbour
 * beats the seed, the minimum lies between the old best and the seed, a
 * stretch the jump skipped: it is walked up from the neighbour, one
 * larger segment at a time, while each step gains or stays within the
 * noise band (docs/acct-tune.md "Noisy steps"). A seed that loses, more
 * than one segment beyond the descent, sends it one step on instead
 * (neighbour_step). */
static int seed_step(struct search *s, size_t m, struct descent *d, size_t g)
{
    double c = INFINITY, cn = INFINITY;
    int rc = eval(s, m, g, &c);

    if (rc == TUNE_OK) {
        s->res->seeds++;
        if (c < d->best) {
            const size_t old = d->best_seg;
            s->res->seeds_won++;
            d->best = c;
            d->best_seg = g;
            if (g >= 1)
                rc = eval(s, m, g - 1, &cn); /* from the memo when measured */
            if (rc == TUNE_OK && cn < d->best) {
                d->best = cn;
                d->best_seg = g - 1;
            }
            for (size_t h = g - 1; rc == TUNE_OK && cn < c && h > old + 1; h--) {
                double ch = INFINITY;
                rc = eval(s, m, h - 1, &ch);
                if (rc != TUNE_OK)
                    break;
                if (ch < d->best) {
                    d->best = ch;
                    d->best_seg = h - 1;
                } else if (!noisy_step(s, m, d, h - 1, ch)) {
                    break; /* a clear rise: the minimum is behind */
                }
            }
            resume_below(s, m, d, g);
        } else if (d->next < g) {
            rc = neighbour_step(s, m, d);
        }
    }
    return rc;
}

/* Before ending the descent of m: seed it if it qualifies. *resumed: the
 * seed won and the descent goes on. */
static int seed_before_end(struct search *s, size_t m, struct descent *d, bool *resumed)
{
    bool ok = false;
    size_t g = 0;
    int rc = seed_candidate(s, m, d, &ok, &g);

    *resumed = false;
    if (rc == TUNE_OK && ok) {
        d->done = true;
        rc = seed_step(s, m, d, g);
        *resumed = rc == TUNE_OK && !d->done;
    }
    return rc;
}

static int run_mgd_method(struct search *s, size_t m)
{
    int rc = TUNE_OK;
    struct descent d;
    bool resumed = true;

    descent_init(&d);
    while (rc == TUNE_OK && enabled(s, m) && resumed) {
        while (rc == TUNE_OK && !d.done)
            rc = descent_step(s, m, &d);
        if (rc == TUNE_OK)
            rc = seed_before_end(s, m, &d, &resumed);
    }
    return rc;
}

static int run_mgd(struct search *s)
{
    int rc = TUNE_OK;

    for (size_t m = 0; m < s->sp->nmethods && rc == TUNE_OK; m++)
        rc = run_mgd_method(s, m);
    return rc;
}

/* ---- SMGD ---------------------------------------------------------------- */

/* The optimum method m may still reach, predicted from its last three
 * points (the rate of change of the gradient): with improvements d0 then d1
 * and ratio r = d1/d0 < 1, the remaining improvement of a geometric decay is
 * d1 r / (1 - r); with no decay seen yet, d1 per remaining step (linear,
 * optimistic); after one point only, best / threshold. Never below 0. */
static double predict(const struct search *s, size_t m, const struct descent *d)
{
    double p = d->best;
    const double *v = &s->memo[s->off[m]];
    size_t k = d->next;
    double left = (double)(s->sp->nsegs[m] - k);

    if (d->done || isinf(d->best)) {
        p = d->best;
    } else if (k == 1) {
        p = d->best / s->pa->threshold; /* nothing known about its slope yet */
    } else {
        double d1 = v[k - 2] - v[k - 1];
        double d0 = k >= 3 ? v[k - 3] - v[k - 2] : 0.0;
        double gain = 0.0;
        if (d1 > 0.0 && d0 > 0.0 && d1 < d0)
            gain = d1 * (d1 / d0) / (1.0 - d1 / d0);
        else if (d1 > 0.0)
            gain = d1 * left;
        if (isinf(gain) || isnan(gain))
            gain = 0.0;
        p = v[k - 1] - gain;
        p = p < d->best ? p : d->best;
    }
    return p > 0.0 ? p : 0.0;
}

static int run_smgd(struct search *s)
{
    int rc = TUNE_OK;
    size_t n = s->sp->nmethods;
    struct descent *d = s->d;

    /* Linear scan: every method's largest segment (the cheap experiments). */
    for (size_t m = 0; m < n; m++) {
        descent_init(&d[m]);
        d[m].done = !enabled(s, m);
    }
    for (int step = 0; step < 2; step++)
        for (size_t m = 0; m < n && rc == TUNE_OK; m++)
            if (!d[m].done)
                rc = descent_step(s, m, &d[m]);
    /* Then the MGD step of the most promising method, pruning as we go. */
    while (rc == TUNE_OK) {
        size_t pick = n;
        double pick_p = INFINITY;
        double best = s->res->found ? s->res->cost : INFINITY;
        bool seeded = false;
        for (size_t m = 0; m < n && rc == TUNE_OK && !seeded; m++) {
            if (d[m].done && !d[m].noisy)
                continue;
            double p = predict(s, m, &d[m]);
            if (d[m].done || p > best * (1.0 + s->pa->margin) ||
                d[m].best > best * s->pa->threshold) {
                /* ended (its segments or lookahead spent) or pruned
                 * (prediction or threshold): seeded first if it qualifies,
                 * then the candidates are chosen again */
                bool resumed = false;
                size_t before = s->res->seeds;
                rc = seed_before_end(s, m, &d[m], &resumed);
                seeded = s->res->seeds != before;
                d[m].done = !resumed;
                if (!resumed)
                    d[m].noisy = false; /* ended for good */
            } else if (p < pick_p || pick == n) {
                pick = m;
                pick_p = p;
            }
        }
        if (seeded)
            continue;
        if (rc != TUNE_OK || pick == n)
            break;
        rc = descent_step(s, pick, &d[pick]);
    }
    return rc;
}

/* ---- pipeline (longest edge) ---------------------------------------------- */

/* Best segment index of proxy class cls among 0..nseg-1, found by the same
 * one-directional descent as MGD (the proxy has the same shape). */
static int proxy_best(struct search *s, int cls, size_t nseg, size_t *best)
{
    int rc = TUNE_OK;
    double bc = INFINITY;
    int misses = 0;

    *best = 0;
    for (size_t g = 0; g < nseg && rc == TUNE_OK && misses <= s->pa->lookahead; g++) {
        double c = INFINITY;
        rc = s->or->proxy(s->or->ctx, cls, g, &c);
        if (rc == TUNE_OK) {
            s->res->proxy_evals++;
            if (isnan(c) || c < 0.0)
                c = INFINITY;
            if (!isinf(c))
                s->res->eval_cost += c;
            misses = c < bc ? 0 : misses + 1;
            if (c < bc) {
                bc = c;
                *best = g;
            }
        } else if (rc == TUNE_STOP) {
            s->stopped = 1;
        }
    }
    return rc;
}

static int run_pipeline(struct search *s)
{
    int rc = TUNE_OK;
    size_t n = s->sp->nmethods;
    int ncls = 0;
    size_t *cls_seg = s->cls_seg;   /* per class: best proxy segment; SIZE_MAX = not yet */
    size_t *cls_nseg = s->cls_nseg; /* per class: most segments of its methods */
    double c = 0.0;

    /* classes are numbered below nmethods (checked by check_args) */
    for (size_t m = 0; m < n; m++)
        if (s->sp->proxy != NULL && s->sp->proxy[m] >= ncls)
            ncls = s->sp->proxy[m] + 1;
    if (ncls > 0) {
        for (int k = 0; k < ncls; k++) {
            cls_seg[k] = SIZE_MAX;
            cls_nseg[k] = 0;
        }
        for (size_t m = 0; m < n; m++)
            if (enabled(s, m) && s->sp->proxy[m] >= 0 &&
                s->sp->nsegs[m] > cls_nseg[s->sp->proxy[m]])
                cls_nseg[s->sp->proxy[m]] = s->sp->nsegs[m];
    }
    for (size_t m = 0; m < n && rc == TUNE_OK; m++) {
        int k = s->sp->proxy != NULL ? s->sp->proxy[m] : -1;
        if (!enabled(s, m))
            continue;
        if (k < 0 || s->sp->nsegs[m] == 1) {
            rc = s->sp->nsegs[m] == 1 ? eval(s, m, 0, &c) : run_mgd_method(s, m);
            continue;
        }
        if (cls_seg[k] == SIZE_MAX)
            rc = proxy_best(s, k, cls_nseg[k], &cls_seg[k]);
        /* unsegmented, the proxy's best and its two neighbours */
        size_t g = cls_seg[k] < s->sp->nsegs[m] ? cls_seg[k] : s->sp->nsegs[m] - 1;
        if (rc == TUNE_OK)
            rc = eval(s, m, 0, &c);
        for (size_t h = g > 1 ? g - 1 : 1; h <= g + 1 && h < s->sp->nsegs[m] && rc == TUNE_OK;
             h++)
            rc = eval(s, m, h, &c);
    }
    return rc;
}

/* ---- model and hybrid ------------------------------------------------------ */

/* The modelled optimum of every method (+inf if it cannot run or has no
 * prediction), whether the model predicts it at all (known: some value is
 * not NAN), and the best over methods: *best_m, *best_g. */
static int model_all(struct search *s, double *mbest, bool *known, size_t *best_m,
                     size_t *best_g)
{
    int rc = TUNE_OK;
    double overall = INFINITY;

    *best_m = *best_g = 0;
    for (size_t m = 0; m < s->sp->nmethods && rc == TUNE_OK; m++) {
        mbest[m] = INFINITY;
        known[m] = false;
        for (size_t g = 0; g < s->sp->nsegs[m] && rc == TUNE_OK && enabled(s, m); g++) {
            double c = NAN;
            rc = s->or->model(s->or->ctx, m, g, &c);
            s->res->model_evals++;
            if (rc != TUNE_OK || isnan(c))
                continue;
            known[m] = true;
            if (c >= 0.0 && c < mbest[m])
                mbest[m] = c;
            if (c >= 0.0 && c < overall) {
                overall = c;
                *best_m = m;
                *best_g = g;
            }
        }
    }
    return rc;
}

static int run_model(struct search *s, bool hybrid)
{
    int rc = TUNE_OK;
    size_t n = s->sp->nmethods, bm = 0, bg = 0;
    double *mbest = s->mbest;
    bool *keep = s->keep, *known = s->known;
    struct tune_space sub = *s->sp;
    struct search inner = *s;

    rc = model_all(s, mbest, known, &bm, &bg);
    if (rc != TUNE_OK || isinf(mbest[bm]))
        goto out;
    if (!hybrid) {
        s->res->found = true;
        s->res->method = bm;
        s->res->seg = bg;
        s->res->cost = mbest[bm];
        goto out;
    }
    /* methods the model cannot predict (native: the MPI library's own) are
     * measured: the model has no say about them */
    for (size_t m = 0; m < n; m++)
        keep[m] = enabled(s, m) &&
                  (!known[m] || mbest[m] <= mbest[bm] * (1.0 + s->pa->model_margin));
    sub.enabled = keep;
    inner.sp = &sub;
    rc = run_smgd(&inner);
    s->stopped = inner.stopped;
out:
    return rc;
}

/* ---- the entry point -------------------------------------------------------- */

static int check_args(const struct tune_space *sp, const struct tune_oracle *or,
                      const struct tune_params *pa)
{
    int ok = sp != NULL && or != NULL && pa != NULL && sp->nmethods > 0 &&
             (unsigned)pa->strategy < TUNE_STRATEGY_COUNT && pa->lookahead >= 0 &&
             pa->threshold > 1.0 && pa->margin >= 0.0 && pa->model_margin >= 0.0 &&
             pa->noise >= 0.0;

    for (size_t m = 0; ok && m < sp->nmethods; m++)
        ok = sp->nsegs[m] >= 1 && (sp->proxy == NULL || sp->proxy[m] < (int)sp->nmethods);
    if (ok && pa->strategy != TUNE_MODEL)
        ok = or->measure != NULL;
    if (ok && (pa->strategy == TUNE_MODEL || pa->strategy == TUNE_HYBRID))
        ok = or->model != NULL;
    for (size_t m = 0; ok && pa->strategy == TUNE_PIPELINE && sp->proxy != NULL &&
                       m < sp->nmethods; m++)
        ok = sp->proxy[m] < 0 || or->proxy != NULL;
    return ok ? TUNE_OK : TUNE_EINVAL;
}

/* Allocate the memo and the strategies' scratch. Returns 0 or -1. */
static int search_alloc(struct search *s)
{
    size_t n = s->sp->nmethods, total = 0;

    s->off = malloc(n * sizeof(*s->off));
    for (size_t m = 0; s->off != NULL && m < n; m++) {
        s->off[m] = total;
        total += s->sp->nsegs[m];
    }
    s->memo = malloc(total * sizeof(*s->memo));
    s->spread = calloc(total > 0 ? total : 1, sizeof(*s->spread));
    s->d = malloc(n * sizeof(*s->d));
    s->mbest = malloc(n * sizeof(*s->mbest));
    s->keep = malloc(n * sizeof(*s->keep));
    s->known = malloc(n * sizeof(*s->known));
    s->cls_seg = malloc(n * sizeof(*s->cls_seg));
    s->cls_nseg = malloc(n * sizeof(*s->cls_nseg));
    if (s->off == NULL || s->memo == NULL || s->spread == NULL || s->d == NULL || s->mbest == NULL ||
        s->keep == NULL || s->known == NULL || s->cls_seg == NULL || s->cls_nseg == NULL)
        return -1;
    for (size_t i = 0; i < total; i++)
        s->memo[i] = NAN;
    return 0;
}

static void search_free(struct search *s)
{
    free(s->off);
    free(s->memo);
    free(s->spread);
    free(s->d);
    free(s->mbest);
    free(s->keep);
    free(s->known);
    free(s->cls_seg);
    free(s->cls_nseg);
}

int tune_search(const struct tune_space *space, const struct tune_oracle *oracle,
                const struct tune_params *params, struct tune_result *out)
{
    int rc = TUNE_EINVAL;
    int ok = 0;
    struct search s;

    memset(&s, 0, sizeof(s));
    if (out == NULL)
        goto out;
    memset(out, 0, sizeof(*out));
    out->cost = INFINITY;
    rc = check_args(space, oracle, params);
    if (rc != TUNE_OK)
        goto out;
    s.sp = space;
    s.or = oracle;
    s.pa = params;
    s.res = out;
    ok = search_alloc(&s) == 0;
    if (oracle->ready != NULL)
        ok = oracle->ready(oracle->ctx, ok);
    if (!ok) {
        rc = TUNE_ENOMEM;
        goto out;
    }
    if (space->has_start && params->strategy != TUNE_MODEL &&
        space->start_method < space->nmethods && enabled(&s, space->start_method) &&
        space->start_seg < space->nsegs[space->start_method]) {
        double c = 0.0;
        rc = eval(&s, space->start_method, space->start_seg, &c);
        if (rc != TUNE_OK && rc != TUNE_STOP)
            goto out;
    }
    switch (params->strategy) {
    case TUNE_EXHAUSTIVE: rc = run_exhaustive(&s); break;
    case TUNE_MGD: rc = run_mgd(&s); break;
    case TUNE_SMGD: rc = run_smgd(&s); break;
    case TUNE_PIPELINE: rc = run_pipeline(&s); break;
    case TUNE_MODEL: rc = run_model(&s, false); break;
    case TUNE_HYBRID: rc = run_model(&s, true); break;
    case TUNE_STRATEGY_COUNT: rc = TUNE_EINVAL; break;
    }
    out->complete = rc == TUNE_OK && !s.stopped;
    if (rc == TUNE_STOP)
        rc = TUNE_OK;
out:
    search_free(&s);
    return rc;
}

/* ---- primary grid: reduced sizes with interpolation ------------------------- */

/* Decide sizes lo+1..hi-1 from the decided sizes lo and hi by bisection. */
static int bisect(size_t lo, size_t hi, const struct tune_primary *p, struct tune_result *out)
{
    int rc = TUNE_OK;

    if (hi - lo < 2 || !out[lo].found || !out[hi].found)
        goto out;
    if (out[lo].method == out[hi].method) {
        for (size_t i = lo + 1; i < hi; i++) {
            memset(&out[i], 0, sizeof(out[i]));
            out[i].found = true;
            out[i].complete = true;
            out[i].method = out[lo].method;
            out[i].seg = out[lo].seg;
            out[i].cost = NAN; /* interpolated: not measured */
        }
        goto out;
    }
    size_t mid = lo + (hi - lo) / 2;
    size_t allowed[2] = { out[lo].method, out[hi].method };
    rc = p->search(p->ctx, mid, allowed, 2, &out[mid]);
    if (rc == TUNE_OK && out[mid].complete)
        rc = bisect(lo, mid, p, out);
    if (rc == TUNE_OK && out[mid].complete)
        rc = bisect(mid, hi, p, out);
out:
    return rc;
}

int tune_reduced_grid(size_t nsizes, size_t stride, const struct tune_primary *p,
                      struct tune_result *out)
{
    int rc = TUNE_OK;
    size_t prev = 0;
    bool stopped = false;

    if (p == NULL || p->search == NULL || out == NULL || stride == 0)
        return TUNE_EINVAL;
    for (size_t i = 0; i < nsizes; i++)
        memset(&out[i], 0, sizeof(out[i]));
    /* the primary points: 0, stride, 2 stride, ..., and the last */
    for (size_t i = 0; i < nsizes && rc == TUNE_OK && !stopped; i += stride) {
        rc = p->search(p->ctx, i, NULL, 0, &out[i]);
        stopped = rc == TUNE_OK && !out[i].complete;
        if (rc == TUNE_OK && !stopped && i > 0)
            rc = bisect(prev, i, p, out);
        prev = i;
        if (i + stride >= nsizes && i != nsizes - 1 && !stopped && rc == TUNE_OK) {
            rc = p->search(p->ctx, nsizes - 1, NULL, 0, &out[nsizes - 1]);
            stopped = rc == TUNE_OK && !out[nsizes - 1].complete;
            if (rc == TUNE_OK && !stopped)
                rc = bisect(i, nsizes - 1, p, out);
            break;
        }
    }
    return rc;
}
