/* acct-tune: the statistics and the decision of a finalist race (race.h;
 * pure, no MPI; docs/acct-tune.md "Racing"). Tested by
 * tests/unit/tune/test_race.c against published tables. */
#include "race.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const view_names[RACE_VIEWS] = {
    [RACE_VIEW_MAX] = "max",
    [RACE_VIEW_AVG] = "avg",
    [RACE_VIEW_RANK_MAX] = "rank_max",
};

static const char *const verdict_names[RACE_VERDICTS] = {
    [RACE_WINNER] = "winner",         [RACE_SEPARATED] = "separated",
    [RACE_EQUIVALENT] = "equivalent", [RACE_UNDECIDED] = "undecided",
    [RACE_GUARDED] = "guarded",       [RACE_TWIN] = "twin",
};

static const char *const resolve_names[RACE_RESOLVES] = {
    [RACE_BY_TEST] = "test",     [RACE_BY_CAP] = "cap",     [RACE_BY_NATIVE] = "native",
    [RACE_BY_INCUMBENT] = "incumbent", [RACE_BY_MODEL] = "model", [RACE_BY_SPREAD] = "spread",
    [RACE_BY_ORDER] = "order",
};

const char *race_view_name(enum race_view v)
{
    return (unsigned)v < RACE_VIEWS ? view_names[v] : "?";
}

const char *race_verdict_name(enum race_verdict v)
{
    return (unsigned)v < RACE_VERDICTS ? verdict_names[v] : "?";
}

const char *race_resolve_name(enum race_resolve r)
{
    return (unsigned)r < RACE_RESOLVES ? resolve_names[r] : "?";
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Quantile q of sorted v[0..n-1] (linear interpolation between order
 * statistics; n >= 1). */
static double quantile_sorted(const double *v, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t lo = (size_t)floor(h);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (h - (double)lo) * (v[hi] - v[lo]);
}

size_t race_rounds_needed(double alpha)
{
    size_t n = 1;
    while (n < 64 && ldexp(1.0, -(int)n) >= alpha)
        n++;
    return n;
}

double race_quantile(const double *v, size_t n, double q)
{
    double *s, m;

    if (n == 0 || (s = malloc(n * sizeof(*s))) == NULL)
        return NAN;
    memcpy(s, v, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    m = quantile_sorted(s, n, q);
    free(s);
    return m;
}

/* ---- the finalists ----------------------------------------------------------- */

static bool same_method(const struct race_method *a, const struct race_method *b)
{
    return a->alg == b->alg && a->fanout == b->fanout;
}

int race_best_methods(const struct race_measured *v, size_t n, int k, double tol,
                      struct race_method *out, size_t cap)
{
    /* per method (alg, fanout): its best record, and its best at another segment */
    struct per {
        const struct race_measured *best, *variant;
    } *m;
    size_t nm = 0, nout = 0;

    if (n == 0 || k <= 0 || cap == 0)
        return 0;
    m = calloc(n, sizeof(*m));
    if (m == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct race_measured *r = &v[i];
        size_t j = 0;
        if (!(r->t > 0)) /* NAN, 0, negative */
            continue;
        while (j < nm && !same_method(&m[j].best->m, &r->m))
            j++;
        if (j == nm) {
            m[nm++].best = r;
            continue;
        }
        struct per *p = &m[j];
        if (r->t < p->best->t) {
            if (r->m.seg != p->best->m.seg) /* the old best becomes the variant */
                p->variant = p->best;
            p->best = r; /* (a variant's segment is never the best's) */
        } else if (r->m.seg != p->best->m.seg && (p->variant == NULL || r->t < p->variant->t)) {
            p->variant = r;
        }
    }
    /* the K best, best first (ties: the earlier), each with its variant */
    for (int kk = 0; kk < k && nout < cap; kk++) {
        size_t b = nm;
        for (size_t j = 0; j < nm; j++)
            if (m[j].best != NULL && (b == nm || m[j].best->t < m[b].best->t))
                b = j;
        if (b == nm)
            break;
        out[nout++] = m[b].best->m;
        if (m[b].variant != NULL && nout < cap && m[b].variant->t <= (1.0 + tol) * m[b].best->t)
            out[nout++] = m[b].variant->m;
        m[b].best = NULL;
    }
    free(m);
    return (int)nout;
}

double race_median(const double *v, size_t n)
{
    return race_quantile(v, n, 0.5);
}

/* ---- tests ---------------------------------------------------------------------- */

double race_wilcoxon_greater(const double *d, size_t n, double *w_plus)
{
    double p = 1.0, *a = NULL, *cnt = NULL;
    unsigned *r2 = NULL; /* doubled ranks: integers even with average ranks */
    bool *pos = NULL;
    size_t m = 0, w2 = 0, ties3 = 0;

    if (w_plus != NULL)
        *w_plus = 0.0;
    a = malloc((n ? n : 1) * sizeof(*a));
    r2 = malloc((n ? n : 1) * sizeof(*r2));
    pos = malloc((n ? n : 1) * sizeof(*pos));
    if (a == NULL || r2 == NULL || pos == NULL)
        goto out;
    /* |d| of the non-zero differences, sorted with their signs */
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0.0 && !isnan(d[i]))
            a[m++] = d[i];
    if (m == 0)
        goto out;
    /* sort by |d| (insertion sort: m is small; stable) */
    for (size_t i = 1; i < m; i++) {
        double v = a[i];
        size_t j = i;
        while (j > 0 && fabs(a[j - 1]) > fabs(v)) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j + 1 < m && fabs(a[j + 1]) == fabs(a[i]))
            j++;
        /* ranks i+1 .. j+1: average (i+1 + j+1)/2, doubled i + j + 2 */
        for (size_t k = i; k <= j; k++) {
            r2[k] = (unsigned)(i + j + 2);
            pos[k] = a[k] > 0;
            if (pos[k])
                w2 += r2[k];
        }
        size_t t = j - i + 1;
        ties3 += t * t * t - t;
        i = j + 1;
    }
    if (w_plus != NULL)
        *w_plus = (double)w2 / 2.0;
    if (m <= RACE_EXACT_MAX) {
        size_t total = m * (m + 1); /* sum of all doubled ranks */
        cnt = calloc(total + 1, sizeof(*cnt));
        if (cnt == NULL)
            goto out;
        cnt[0] = 1.0;
        size_t reach = 0;
        for (size_t k = 0; k < m; k++) {
            for (size_t s = reach + 1; s-- > 0;)
                if (cnt[s] != 0.0)
                    cnt[s + r2[k]] += cnt[s];
            reach += r2[k];
        }
        double tail = 0.0, all = ldexp(1.0, (int)m);
        for (size_t s = w2; s <= total; s++)
            tail += cnt[s];
        p = tail / all;
    } else {
        double mm = (double)m;
        double mean = mm * (mm + 1) / 4.0;
        double var = mm * (mm + 1) * (2 * mm + 1) / 24.0 - (double)ties3 / 48.0;
        double z = var > 0 ? ((double)w2 / 2.0 - mean - 0.5) / sqrt(var) : 0.0;
        p = 0.5 * erfc(z / sqrt(2.0));
    }
    if (p > 1.0)
        p = 1.0;
out:
    free(a);
    free(r2);
    free(pos);
    free(cnt);
    return p;
}

double race_sign_greater(const double *d, size_t n)
{
    size_t m = 0, k = 0;
    double p = 0.0;

    for (size_t i = 0; i < n; i++)
        if (d[i] != 0.0 && !isnan(d[i])) {
            m++;
            k += d[i] > 0;
        }
    if (m == 0)
        return 1.0;
    /* sum_{j >= k} C(m, j) / 2^m, by logs of binomial coefficients */
    for (size_t j = k; j <= m; j++)
        p += exp(lgamma((double)m + 1) - lgamma((double)j + 1) - lgamma((double)(m - j) + 1) -
                 (double)m * log(2.0));
    return p > 1.0 ? 1.0 : p;
}

/* ---- the decision ------------------------------------------------------------- */

static double val(const struct race_input *in, enum race_view v, size_t r, size_t c)
{
    double x = in->t[v][r * in->nc + c];
    return isfinite(x) && x > 0 ? x : INFINITY;
}

/* log(a / b) with the infinities of failed rounds ordered sensibly. */
static double log_ratio(double a, double b)
{
    if (isinf(a) && isinf(b))
        return 0.0;
    if (isinf(a))
        return 1e300;
    if (isinf(b))
        return -1e300;
    return log(a / b);
}

/* Median over rounds of view v of c / of b; and (p) the one-sided
 * signed-rank p that c is slower. */
static double ratio_to(const struct race_input *in, enum race_view v, size_t c, size_t b,
                       double *buf, double *p)
{
    double m;

    for (size_t r = 0; r < in->rounds; r++)
        buf[r] = log_ratio(val(in, v, r, c), val(in, v, r, b));
    if (p != NULL)
        *p = c == b ? 1.0 : race_wilcoxon_greater(buf, in->rounds, NULL);
    m = race_median(buf, in->rounds);
    return m > 700 ? INFINITY : m < -700 ? 0.0 : exp(m);
}

/* Relative spread of c's metric over the rounds: IQR / median. */
static double spread(const struct race_input *in, size_t c, double *buf)
{
    for (size_t r = 0; r < in->rounds; r++)
        buf[r] = val(in, in->metric, r, c);
    qsort(buf, in->rounds, sizeof(*buf), cmp_double);
    double med = quantile_sorted(buf, in->rounds, 0.5);
    double iqr = quantile_sorted(buf, in->rounds, 0.75) - quantile_sorted(buf, in->rounds, 0.25);
    return isfinite(med) && med > 0 && isfinite(iqr) ? iqr / med : INFINITY;
}

/* The guard's band on view v: the tolerance, or the A/A spread when wider. */
static double guard_band(const struct race_params *pp, const double *aa, int v)
{
    return isfinite(aa[v]) && aa[v] > pp->tolerance ? aa[v] : pp->tolerance;
}

/* The equivalence band between finalists c and ref on the metric: the
 * tolerance, or, where either is native or the incumbent (the decisions a
 * race keeps unless a challenger is shown faster), the guard's band on the
 * metric — the A/A spread when wider. A challenger that beats native by
 * less than native differs from itself does not replace it, as one slower
 * by less than that is not guarded out (issue 23: reduce 256 KiB,
 * hier_chain:128K:2 ahead of native by 4.4 % at p 0.045 under an A/A
 * spread of 4.7 %, 6 % slower than native in the quieter pair;
 * docs/acct-tune.md "Racing" step 4). */
static double equiv_band(const struct race_input *in, const struct race_params *pp,
                         const double *aa, size_t c, size_t ref)
{
    bool kept = c == in->native || ref == in->native ||
                (in->incumbent != RACE_NONE && (c == in->incumbent || ref == in->incumbent));
    return kept ? guard_band(pp, aa, in->metric) : pp->tolerance;
}

/* The views the guard holds: the benchmarks' (avg, rank_max: OSU's average
 * and max latency, IMB's t_avg and t_max) and the metric. The max view (the
 * slowest rank per call, its median over the calls) is guarded only where it
 * is the metric: for the rooted collectives it is no benchmark's figure, and
 * as a median over calls it hides native's occasional long calls, which a
 * program pays (issue 23: scatter 64 KiB, chain:8K:4 at 0.64 of native on
 * avg and 0.40 on rank_max, guarded in one retune at 1.052 on max and let
 * through in the next at 1.026, the band 1.03; docs/acct-tune.md "Which
 * time"). */
static bool guard_view(const struct race_input *in, int v)
{
    return v != RACE_VIEW_MAX || in->metric == RACE_VIEW_MAX;
}

/* Whether the guard's verdict on finalist c is still open on some view:
 * the one-sided signed-rank test on the per-round log ratios to native
 * minus log(1 + band) has not shown them above the band (guarded) or
 * below it (eligible) at alpha. */
static bool guard_open(const struct race_input *in, const struct race_params *pp,
                       const double *aa, size_t c, double *buf)
{
    for (int v = 0; v < RACE_VIEWS; v++) {
        if (!guard_view(in, v))
            continue;
        double lb = log1p(guard_band(pp, aa, v));
        for (size_t r = 0; r < in->rounds; r++)
            buf[r] = log_ratio(val(in, (enum race_view)v, r, c),
                               val(in, (enum race_view)v, r, in->native)) - lb;
        bool above = race_median(buf, in->rounds) > 0;
        if (!above)
            for (size_t r = 0; r < in->rounds; r++)
                buf[r] = -buf[r];
        if (race_wilcoxon_greater(buf, in->rounds, NULL) >= pp->alpha)
            return true;
    }
    return false;
}

int race_decide(const struct race_input *in, const struct race_params *pp,
                struct race_outcome *out)
{
    size_t nc = in->nc, eligible = 0, separated = 0;
    double *buf = NULL, *med = NULL, *rel = NULL;
    int rc = -1;

    if (nc == 0 || in->rounds == 0 || in->native >= nc || out == NULL ||
        out->verdict == NULL || out->ratio == NULL || out->p == NULL)
        return -1;
    buf = malloc(in->rounds * sizeof(*buf));
    med = malloc(nc * sizeof(*med));
    rel = malloc(nc * sizeof(*rel));
    if (buf == NULL || med == NULL || rel == NULL)
        goto done;

    /* the noise: native's A/A twin against native, per view (over the
     * twin's first twin_rounds rounds when set) */
    struct race_input aa_in = *in;
    if (in->twin_rounds > 0 && in->twin_rounds < in->rounds)
        aa_in.rounds = in->twin_rounds;
    for (int v = 0; v < RACE_VIEWS; v++) {
        out->aa[v] = NAN;
        if (in->twin != RACE_NONE && in->twin < nc)
            out->aa[v] = fabs(ratio_to(&aa_in, (enum race_view)v, in->twin, in->native, buf,
                                       NULL) - 1.0);
    }
    /* the guard: no guarded view slower than native beyond the noise band */
    for (size_t c = 0; c < nc; c++) {
        out->verdict[c] = RACE_UNDECIDED;
        if (c == in->twin) {
            out->verdict[c] = RACE_TWIN;
            continue;
        }
        for (int v = 0; c != in->native && v < RACE_VIEWS; v++) {
            if (!guard_view(in, v))
                continue;
            double band = guard_band(pp, out->aa, v);
            if (ratio_to(in, (enum race_view)v, c, in->native, buf, NULL) > 1.0 + band)
                out->verdict[c] = RACE_GUARDED;
        }
        eligible += out->verdict[c] != RACE_GUARDED;
    }
    /* the leader: the eligible finalist with the lowest median over the
     * rounds of its metric divided by native's in the same round — the
     * paired statistic the comparisons below use, so that no finalist is
     * more than the tolerance faster than the leader on the per-round
     * ratios (the median of the raw times mixes slow and fast rounds: with
     * it, a finalist 15 % faster than the leader round by round was called
     * "equivalent", docs/acct-tune.md "Racing" step 3); ties: the lower
     * median time, then the earlier */
    out->leader = in->native;
    for (size_t c = 0; c < nc; c++) {
        double t_med;
        for (size_t r = 0; r < in->rounds; r++)
            buf[r] = val(in, in->metric, r, c);
        t_med = race_median(buf, in->rounds);
        rel[c] = c == in->native ? 1.0 : ratio_to(in, in->metric, c, in->native, buf, NULL);
        med[c] = t_med;
    }
    for (size_t c = 0; c < nc; c++) {
        size_t l = out->leader;
        if (out->verdict[c] != RACE_UNDECIDED)
            continue;
        if (rel[c] < rel[l] ||
            (rel[c] == rel[l] && (med[c] < med[l] || (med[c] == med[l] && c < l))))
            out->leader = c;
    }
    out->k = eligible > 1 ? eligible - 1 : 1;
    /* each eligible finalist against the leader: separated when the test
     * says slower and it is more than the tolerance slower; equivalent
     * when within the tolerance (settled early once a test says it is
     * below 1 + tolerance: a one-sided equivalence test, as in TOST) */
    size_t settled = 0;
    for (size_t c = 0; c < nc; c++) {
        double p = 1.0, ratio;
        if (out->verdict[c] != RACE_UNDECIDED || c == out->leader)
            continue;
        double tol = equiv_band(in, pp, out->aa, c, out->leader);
        ratio = ratio_to(in, in->metric, c, out->leader, buf, &p);
        if (ratio < 1.0 / (1.0 + tol)) {
            continue; /* faster than the leader round by round, behind it against
                       * native: the medians disagree (noisy rounds), undecided */
        } else if (ratio > 1.0 + tol) {
            if (in->rounds >= pp->min_rounds && p < pp->alpha / (double)out->k) {
                out->verdict[c] = RACE_SEPARATED;
                separated++;
                settled++;
            }
        } else {
            out->verdict[c] = RACE_EQUIVALENT;
            for (size_t r = 0; r < in->rounds; r++)
                buf[r] = log1p(tol) -
                         log_ratio(val(in, in->metric, r, c), val(in, in->metric, r, out->leader));
            if (in->rounds >= pp->min_rounds &&
                race_wilcoxon_greater(buf, in->rounds, NULL) < pp->alpha / (double)out->k)
                settled++;
        }
    }
    out->over = pp->final || in->rounds >= pp->max_rounds ||
                (in->rounds >= pp->min_rounds && settled + 1 >= eligible);
    /* native leads and every other eligible finalist is separated from it
     * or within the equivalence band of it: the tie rule below picks native
     * whatever more rounds say of the equivalents, so stop (docs/acct-tune.md
     * "Racing", docs/performance.md section 15) */
    if (!out->over && out->leader == in->native && in->rounds >= pp->min_rounds) {
        bool open = false;
        for (size_t c = 0; c < nc; c++)
            open |= c != out->leader && out->verdict[c] == RACE_UNDECIDED;
        out->over = !open;
    }
    /* the guard is a point estimate on each view; where a contender's is
     * not yet clear of the band — the leader's, or a guarded finalist's
     * that would lead without it — one race's noise could carry it across,
     * so the race goes on to the cap (docs/acct-tune.md "Racing", "The
     * guard's rounds") */
    if (out->over && !pp->final && in->rounds < pp->max_rounds) {
        for (size_t c = 0; c < nc && out->over; c++) {
            bool contender = c != in->native && c != in->twin &&
                             (c == out->leader ||
                              (out->verdict[c] == RACE_GUARDED && rel[c] < rel[out->leader]));
            if (contender && guard_open(in, pp, out->aa, c, buf))
                out->over = false;
        }
    }
    /* the winner among the leader and its equivalents */
    size_t nequiv = 0, winner = out->leader;
    for (size_t c = 0; c < nc; c++)
        nequiv += out->verdict[c] == RACE_EQUIVALENT;
    out->by = separated + 1 >= eligible ? RACE_BY_TEST : RACE_BY_CAP;
    /* no decision without evidence (docs/architecture.md rule 6): a leader
     * other than native must have shown, at the end, that native is slower
     * (the one comparison that matters, at alpha without the Bonferroni
     * division); else native */
    double p_native = 0.0;
    if (out->over && out->leader != in->native && out->verdict[in->native] == RACE_UNDECIDED)
        (void)ratio_to(in, in->metric, in->native, out->leader, buf, &p_native);
    /* the same burden against the incumbent (the active version's pick):
     * a leader that has not shown, at the end, that an undecided incumbent
     * is slower (at alpha, as for native) does not replace it */
    double p_incumbent = 0.0;
    const bool incumbent_open = out->over && in->incumbent != RACE_NONE &&
                                in->incumbent < nc && in->incumbent != out->leader &&
                                out->verdict[in->incumbent] == RACE_UNDECIDED;
    if (incumbent_open)
        (void)ratio_to(in, in->metric, in->incumbent, out->leader, buf, &p_incumbent);
    if (p_native >= pp->alpha) {
        winner = in->native;
        out->by = RACE_BY_NATIVE;
        out->verdict[out->leader] = RACE_UNDECIDED;
    } else if (incumbent_open && p_incumbent >= pp->alpha) {
        winner = in->incumbent;
        out->by = RACE_BY_INCUMBENT;
        out->verdict[out->leader] = RACE_UNDECIDED;
    } else if (nequiv > 0) {
#define IN_SET(c) ((c) == out->leader || out->verdict[c] == RACE_EQUIVALENT)
        bool all_model = in->model != NULL;
        for (size_t c = 0; all_model && c < nc; c++)
            if (IN_SET(c) && !isfinite(in->model[c]))
                all_model = false;
        if (IN_SET(in->native)) {
            winner = in->native;
            out->by = RACE_BY_NATIVE;
        } else if (in->incumbent != RACE_NONE && in->incumbent < nc && IN_SET(in->incumbent)) {
            winner = in->incumbent;
            out->by = RACE_BY_INCUMBENT;
        } else if (all_model) {
            winner = RACE_NONE;
            for (size_t c = 0; c < nc; c++)
                if (IN_SET(c) && (winner == RACE_NONE || in->model[c] < in->model[winner]))
                    winner = c;
            out->by = RACE_BY_MODEL;
        } else {
            double best = INFINITY;
            bool tie = false;
            winner = RACE_NONE;
            for (size_t c = 0; c < nc; c++) {
                if (!IN_SET(c))
                    continue;
                double s = spread(in, c, buf);
                if (winner == RACE_NONE || s < best) {
                    winner = c;
                    best = s;
                    tie = false;
                } else if (s == best) {
                    tie = true;
                }
            }
            out->by = tie ? RACE_BY_ORDER : RACE_BY_SPREAD;
        }
#undef IN_SET
        if (winner != out->leader)
            out->verdict[out->leader] = RACE_EQUIVALENT;
    }
    out->winner = winner;
    out->verdict[winner] = RACE_WINNER;
    /* what is recorded: each finalist's ratio and p against the winner, and
     * its verdict judged against the same reference, by the same rules as
     * against the leader above (docs/tuning-result.md "races"). Where the
     * winner is the leader this changes nothing; where a tie rule or rule 6
     * picked another, a finalist separated from the leader may be within
     * the tolerance of the winner (equivalent), and one equivalent to the
     * leader more than the tolerance from it (undecided unless the test
     * separates it). The decision (over, winner, by) is already made. */
    for (size_t c = 0; c < nc; c++) {
        double r = ratio_to(in, in->metric, c, winner, buf, &out->p[c]);
        double tol = equiv_band(in, pp, out->aa, c, winner);
        enum race_verdict *v = &out->verdict[c];
        out->ratio[c] = r;
        if (c == winner || *v == RACE_TWIN || *v == RACE_GUARDED)
            continue;
        if (r > 1.0 + tol)
            *v = in->rounds >= pp->min_rounds && out->p[c] < pp->alpha / (double)out->k
                     ? RACE_SEPARATED
                     : RACE_UNDECIDED;
        else if (r < 1.0 / (1.0 + tol))
            *v = RACE_UNDECIDED; /* faster than the winner round by round */
        else
            *v = RACE_EQUIVALENT;
    }
    rc = 0;
done:
    free(buf);
    free(med);
    free(rel);
    return rc;
}
