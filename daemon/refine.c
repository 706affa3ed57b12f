/* Background refinement from live samples (docs/acctd.md, "Refinement").
 *
 * Per active (partition, interconnect) and per cell (collective,
 * communicator size, message-size bucket) the incumbent method (the active
 * decision) is compared with every other method that jobs ran there. The
 * observations are per-job mean times, so a job weighs one observation
 * however many calls it timed. A challenger replaces the incumbent only if
 *   - both have >= min_calls timed calls, >= min_jobs jobs, >= min_users users;
 *   - a one-sided Welch t-test on the per-job means gives p < significance;
 *   - the challenger's mean is at least min_gain faster (relative);
 *   - the last two still hold with any single user's jobs removed (so no
 *     one user, and no one job, can flip a decision).
 * The changed cells of a pair become one new version (source "refined",
 * parent = the active version), activated if the policy says so. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acctd.h"

/* ---- Student's t ------------------------------------------------------------ */

/* Continued fraction of the incomplete beta function (Lentz). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, dd = 1 - qab * x / qap;
    if (fabs(dd) < tiny)
        dd = tiny;
    dd = 1 / dd;
    double h = dd;
    for (int m = 1; m <= 300; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        dd = 1 + aa * dd;
        if (fabs(dd) < tiny)
            dd = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        dd = 1 / dd;
        h *= dd * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        dd = 1 + aa * dd;
        if (fabs(dd) < tiny)
            dd = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        dd = 1 / dd;
        double del = dd * c;
        h *= del;
        if (fabs(del - 1) < 1e-12)
            break;
    }
    return h;
}

/* Regularised incomplete beta I_x(a, b). */
static double betai(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return bt * betacf(a, b, x) / a;
    return 1 - bt * betacf(b, a, 1 - x) / b;
}

/* P(T > t) for Student's t with df degrees of freedom. */
double refine_t_upper(double t, double df)
{
    double p = 0.5 * betai(df / 2, 0.5, df / (df + t * t));
    return t > 0 ? p : 1 - p;
}

/* ---- observations ---------------------------------------------------------------- */

struct obs {
    double mean;   /* per-job mean time */
    int64_t calls;
    uid_t uid;
};

struct method {
    char alg[64];
    int64_t segment, fanout, reorder;
    struct obs *v;
    size_t n, cap;
};

struct cell {
    char coll[32];
    int64_t comm_size, bucket;
    struct method *m;
    size_t nm;
};

struct moments {
    double mean, var;
    size_t n;
    int64_t calls;
    size_t users;
};

/* Moments of the per-job means of m, leaving out uid skip ((uid_t)-1: none). */
static struct moments moments(const struct method *m, uid_t skip)
{
    struct moments r = {0};
    double s = 0, ss = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].uid == skip)
            continue;
        s += m->v[i].mean;
        ss += m->v[i].mean * m->v[i].mean;
        r.calls += m->v[i].calls;
        r.n++;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = m->v[j].uid == m->v[i].uid && m->v[j].uid != skip;
        r.users += !seen;
    }
    if (r.n > 0)
        r.mean = s / (double)r.n;
    if (r.n > 1)
        r.var = fmax(0, (ss - s * r.mean) / (double)(r.n - 1));
    return r;
}

/* One-sided Welch test that b is faster than a: p-value. */
static double welch_p(const struct moments *a, const struct moments *b)
{
    double va = a->var / (double)a->n, vb = b->var / (double)b->n, se2 = va + vb;
    if (se2 <= 0)
        return a->mean > b->mean ? 0 : 1;
    double t = (a->mean - b->mean) / sqrt(se2);
    double df = se2 * se2 /
                ((a->n > 1 ? va * va / (double)(a->n - 1) : 0) +
                 (b->n > 1 ? vb * vb / (double)(b->n - 1) : 0) + 1e-300);
    if (df < 1)
        df = 1;
    return refine_t_upper(t, df);
}

/* Does challenger b beat incumbent a under policy p? why gets the reason
 * either way. */
static bool beats(const struct method *a, const struct method *b, const struct policy *p,
                  double *pv, char *why, size_t wl)
{
    struct moments ma = moments(a, (uid_t)-1), mb = moments(b, (uid_t)-1);
    *pv = 1;
    if (mb.calls < p->min_calls || (long long)mb.n < p->min_jobs ||
        (long long)mb.users < p->min_users) {
        snprintf(why, wl, "challenger evidence too small (%lld calls, %zu jobs, %zu users; need %lld, %lld, %lld)",
                 (long long)mb.calls, mb.n, mb.users, p->min_calls, p->min_jobs, p->min_users);
        return false;
    }
    if (ma.calls < p->min_calls || (long long)ma.n < p->min_jobs ||
        (long long)ma.users < p->min_users) {
        snprintf(why, wl, "incumbent evidence too small (%lld calls, %zu jobs, %zu users)",
                 (long long)ma.calls, ma.n, ma.users);
        return false;
    }
    *pv = welch_p(&ma, &mb);
    double gain = ma.mean > 0 ? (ma.mean - mb.mean) / ma.mean : 0;
    if (*pv >= p->significance || gain < p->min_gain) {
        snprintf(why, wl, "not significant or too small a gain (p=%.3g, gain %.1f%%; need p<%g, gain>=%.1f%%)",
                 *pv, gain * 100, p->significance, p->min_gain * 100);
        return false;
    }
    /* robustness: without any single user's jobs */
    for (int side = 0; side < 2; side++) {
        const struct method *src = side ? b : a;
        for (size_t i = 0; i < src->n; i++) {
            uid_t u = src->v[i].uid;
            struct moments xa = moments(a, u), xb = moments(b, u);
            if (xa.n < 2 || xb.n < 2) {
                snprintf(why, wl, "uid %u's jobs alone carry the evidence", (unsigned)u);
                return false;
            }
            double px = welch_p(&xa, &xb);
            double gx = xa.mean > 0 ? (xa.mean - xb.mean) / xa.mean : 0;
            if (px >= p->significance || gx < p->min_gain) {
                snprintf(why, wl, "does not hold without uid %u's jobs (p=%.3g, gain %.1f%%)",
                         (unsigned)u, px, gx * 100);
                return false;
            }
        }
    }
    snprintf(why, wl, "mean %.4g -> %.4g us (%.1f%% faster), p=%.3g, %zu+%zu jobs, %zu+%zu users",
             ma.mean, mb.mean, gain * 100, *pv, ma.n, mb.n, ma.users, mb.users);
    return true;
}

/* ---- collecting ------------------------------------------------------------------- */

struct collect {
    struct cell *c;
    size_t n, cap;
    int err;
};

static int norm_fanout(const char *coll, const char *alg, int64_t f)
{
    enum acct_coll_id id;
    if (f == 0 || acct_coll_from_name(coll, &id) != 0)
        return (int)f;
    const struct acct_alg *a = acct_alg_find(id, alg);
    return a != NULL && a->fanout_default == f ? 0 : (int)f;
}

static int collect_row(void *arg, const struct store_stat *s)
{
    struct collect *col = arg;
    struct cell *c = col->n > 0 ? &col->c[col->n - 1] : NULL;
    if (c == NULL || strcmp(c->coll, s->collective) != 0 || c->comm_size != s->comm_size ||
        c->bucket != s->bucket) {
        if (col->n == col->cap) {
            size_t cap = col->cap ? col->cap * 2 : 16;
            struct cell *n = realloc(col->c, cap * sizeof(*n));
            if (n == NULL)
                return -1;
            col->c = n;
            col->cap = cap;
        }
        c = &col->c[col->n++];
        memset(c, 0, sizeof(*c));
        snprintf(c->coll, sizeof(c->coll), "%s", s->collective);
        c->comm_size = s->comm_size;
        c->bucket = s->bucket;
    }
    int64_t fan = norm_fanout(s->collective, s->algorithm, s->fanout);
    struct method *m = c->nm > 0 ? &c->m[c->nm - 1] : NULL;
    if (m == NULL || strcmp(m->alg, s->algorithm) != 0 || m->segment != s->segment ||
        m->fanout != fan || m->reorder != s->reorder) {
        /* rows come sorted by method, but fan-out normalisation may merge */
        m = NULL;
        for (size_t k = 0; k < c->nm; k++)
            if (strcmp(c->m[k].alg, s->algorithm) == 0 && c->m[k].segment == s->segment &&
                c->m[k].fanout == fan && c->m[k].reorder == s->reorder)
                m = &c->m[k];
    }
    if (m == NULL) {
        struct method *n = realloc(c->m, (c->nm + 1) * sizeof(*n));
        if (n == NULL)
            return -1;
        c->m = n;
        m = &c->m[c->nm++];
        memset(m, 0, sizeof(*m));
        snprintf(m->alg, sizeof(m->alg), "%s", s->algorithm);
        m->segment = s->segment;
        m->fanout = fan;
        m->reorder = s->reorder;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        struct obs *n = realloc(m->v, cap * sizeof(*n));
        if (n == NULL)
            return -1;
        m->v = n;
        m->cap = cap;
    }
    m->v[m->n++] = (struct obs){.mean = s->sum_us / (double)s->count, .calls = s->count,
                                .uid = (uid_t)s->users};
    return 0;
}

static void free_cells(struct collect *col)
{
    for (size_t i = 0; i < col->n; i++) {
        for (size_t k = 0; k < col->c[i].nm; k++)
            free(col->c[i].m[k].v);
        free(col->c[i].m);
    }
    free(col->c);
}

/* ---- rewriting the rules ------------------------------------------------------------- */

static int cmp_rule(const void *a, const void *b)
{
    const struct acct_rule *x = a, *y = b;
    if (x->comm_min != y->comm_min)
        return x->comm_min < y->comm_min ? -1 : 1;
    return x->bytes_min < y->bytes_min ? -1 : x->bytes_min > y->bytes_min;
}

/* Replace the decision of rectangle {p} x [lo, hi] of list l by dec (NULL:
 * native, i.e. no rule). The new rule's runner-up is runner (the decision it
 * replaces, so that exploration keeps timing it) unless that is NULL or
 * equal to dec. 0 or -1 (ENOMEM / too many rules). */
int refine_carve(struct acct_rule_list *l, int p, uint64_t lo, uint64_t hi,
                 const struct acct_decision *dec, const struct acct_decision *runner)
{
    struct acct_rule *v = malloc((l->n * 4 + 1) * sizeof(*v));
    size_t n = 0;
    if (v == NULL)
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        struct acct_rule r = l->v[i];
        if (r.comm_max < p || r.comm_min > p || r.bytes_max < lo || r.bytes_min > hi) {
            v[n++] = r;
            continue;
        }
        struct acct_rule piece = r;
        piece.line = piece.col = 0;
        if (r.comm_min < p) {
            v[n] = piece;
            v[n].comm_max = p - 1;
            n++;
        }
        if (r.comm_max > p) {
            v[n] = piece;
            v[n].comm_min = p + 1;
            n++;
        }
        if (r.bytes_min < lo) {
            v[n] = piece;
            v[n].comm_min = v[n].comm_max = p;
            v[n].bytes_max = lo - 1;
            n++;
        }
        if (r.bytes_max > hi) {
            v[n] = piece;
            v[n].comm_min = v[n].comm_max = p;
            v[n].bytes_min = hi + 1;
            n++;
        }
    }
    if (dec != NULL) {
        v[n] = (struct acct_rule){.comm_min = p, .comm_max = p, .bytes_min = lo, .bytes_max = hi,
                                  .d = *dec};
        if (runner != NULL && runner->alg != NULL && !acct_decision_equal(dec, runner))
            v[n].runner_up = *runner;
        n++;
    }
    qsort(v, n, sizeof(*v), cmp_rule);
    free(l->v);
    l->v = v;
    l->n = n;
    return 0;
}

static struct acct_rules *copy_rules(const struct acct_rules *r)
{
    struct acct_rules *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->prov = r->prov;
    c->nrules = r->nrules;
    for (int k = 0; k < ACCT_COLL_COUNT; k++) {
        if (r->coll[k].n == 0)
            continue;
        c->coll[k].v = malloc(r->coll[k].n * sizeof(struct acct_rule));
        if (c->coll[k].v == NULL) {
            acct_rules_free(c);
            return NULL;
        }
        memcpy(c->coll[k].v, r->coll[k].v, r->coll[k].n * sizeof(struct acct_rule));
        c->coll[k].n = r->coll[k].n;
    }
    return c;
}

static size_t count_rules(const struct acct_rules *r)
{
    size_t n = 0;
    for (int k = 0; k < ACCT_COLL_COUNT; k++)
        n += r->coll[k].n;
    return n;
}

static void line(struct acct_wbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(struct acct_wbuf *out, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (out != NULL)
        acct_put_str(out, ACCT_T_DIFF_LINE, buf);
    LOG_D("refine: %s", buf);
}

/* ---- one pair ------------------------------------------------------------------------ */

static int refine_pair(struct acctd *d, const struct pair_entry *e, struct acct_wbuf *out)
{
    struct policy pol = *policy_for(&d->policies, e->partition);
    struct collect col = {0};
    struct acct_rules *cur = NULL, *next = NULL;
    struct acct_diags dg = ACCT_DIAGS_INIT;
    char *ptext = NULL;
    int rc = -1, changed = 0;
    if (store_policy_get(d->store, e->partition, &ptext) == 0) {
        struct policy o = pol;
        if (policy_parse("store", ptext, strlen(ptext), &o, &dg) == 0)
            pol = o;
        else
            LOG_W("stored policy of %s is invalid; using %s", e->partition, pol.name);
    }
    if (!pol.enabled) {
        line(out, "%s/%s: refinement disabled by policy %s", e->partition, e->interconnect,
             pol.name);
        rc = 0;
        goto out;
    }
    if (acct_rules_parse_buffer("active", e->text, e->len, &cur, &dg) != 0) {
        LOG_E("active version %lld of (%s, %s) does not parse", (long long)e->version,
              e->partition, e->interconnect);
        goto out;
    }
    int64_t since = (int64_t)time(NULL) - pol.max_age_days * 86400;
    if (store_job_stats(d->store, e->partition, e->interconnect, since, collect_row, &col) != 0)
        goto out;
    next = copy_rules(cur);
    if (next == NULL)
        goto out;
    for (size_t ci = 0; ci < col.n; ci++) {
        struct cell *c = &col.c[ci];
        enum acct_coll_id cid;
        if (acct_coll_from_name(c->coll, &cid) != 0 || c->comm_size > INT_MAX)
            continue;
        uint64_t lo = c->bucket == 0 ? 0 : 1ull << (c->bucket - 1);
        uint64_t hi = c->bucket == 0 ? 0 : c->bucket == 64 ? UINT64_MAX : (1ull << c->bucket) - 1;
        /* the incumbent: the active decision at the cell's smallest size */
        const struct acct_decision *inc = NULL;
        const struct acct_rule_list *l = &cur->coll[cid];
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].comm_min <= c->comm_size && c->comm_size <= l->v[i].comm_max &&
                l->v[i].bytes_min <= lo && lo <= l->v[i].bytes_max)
                inc = &l->v[i].d;
        const char *inc_alg = inc ? inc->alg->name : "native";
        int64_t inc_seg = inc ? (int64_t)inc->segment_bytes : 0;
        int64_t inc_fan = inc ? norm_fanout(c->coll, inc_alg, inc->fanout) : 0;
        int64_t inc_reo = inc ? inc->reorder : 0;
        const struct method *im = NULL;
        for (size_t k = 0; k < c->nm; k++)
            if (strcmp(c->m[k].alg, inc_alg) == 0 && c->m[k].segment == inc_seg &&
                c->m[k].fanout == inc_fan && c->m[k].reorder == inc_reo)
                im = &c->m[k];
        char inc_txt[160];
        if (inc != NULL)
            acct_decision_format(inc, inc_txt, sizeof(inc_txt));
        else
            snprintf(inc_txt, sizeof(inc_txt), "native");
        if (im == NULL) {
            if (c->nm > 0)
                line(out, "%s/%s %s comm_size %lld bucket %lld: kept %s (no samples of it)",
                     e->partition, e->interconnect, c->coll, (long long)c->comm_size,
                     (long long)c->bucket, inc_txt);
            continue;
        }
        /* drift: the incumbent runs much slower in jobs than its tuning run
         * measured it: the conditions changed, the cell needs a retune */
        struct moments mi0 = moments(im, (uid_t)-1);
        double measured;
        if (cur->prov.tuning_run[0] != '\0' && mi0.calls >= pol.min_calls &&
            (long long)mi0.n >= pol.min_jobs && (long long)mi0.users >= pol.min_users &&
            store_measured(d->store, cur->prov.tuning_run, c->coll, c->comm_size, lo, hi,
                           inc_txt, &measured) == 0 &&
            measured > 0 && mi0.mean > measured * (1 + pol.retune_drift)) {
            line(out, "%s/%s %s comm_size %lld bucket %lld: retune suggested: %s measured %.4g us "
                      "in run %s, %.4g us in %zu jobs since",
                 e->partition, e->interconnect, c->coll, (long long)c->comm_size,
                 (long long)c->bucket, inc_txt, measured, cur->prov.tuning_run, mi0.mean, mi0.n);
            if (store_retune_mark(d->store, e->partition, e->interconnect, c->coll,
                                  c->comm_size, c->bucket, inc_txt, cur->prov.tuning_run,
                                  measured, mi0.mean, (int64_t)mi0.n, (int64_t)mi0.users) != 0)
                goto out;
        }
        const struct method *best = NULL;
        double best_p = 1;
        char best_why[512] = "";
        for (size_t k = 0; k < c->nm; k++) {
            const struct method *m = &c->m[k];
            char why[512];
            double pv;
            if (m == im)
                continue;
            bool win = beats(im, m, &pol, &pv, why, sizeof(why));
            line(out, "%s/%s %s comm_size %lld bucket %lld: %s vs %s:%lld:%lld%s: %s (%s)",
                 e->partition, e->interconnect, c->coll, (long long)c->comm_size,
                 (long long)c->bucket, inc_txt, m->alg, (long long)m->segment,
                 (long long)m->fanout, m->reorder ? ":reorder" : "", win ? "better" : "kept",
                 why);
            if (win && (best == NULL || moments(m, (uid_t)-1).mean < moments(best, (uid_t)-1).mean)) {
                best = m;
                best_p = pv;
                snprintf(best_why, sizeof(best_why), "%s", why);
            }
        }
        if (best == NULL)
            continue;
        struct acct_decision nd = {.alg = acct_alg_find(cid, best->alg),
                                   .segment_bytes = (uint64_t)best->segment,
                                   .fanout = (int)best->fanout,
                                   .reorder = best->reorder != 0};
        if (nd.alg == NULL)
            continue;
        bool native = (nd.alg->flags & ACCT_ALG_NATIVE) != 0;
        /* the replaced decision stays the runner-up (native where no rule covered the cell) */
        struct acct_decision was = inc != NULL ? *inc : (struct acct_decision){.alg = acct_alg_native(cid)};
        if (refine_carve(&next->coll[cid], (int)c->comm_size, lo, hi, native ? NULL : &nd, &was) != 0 ||
            count_rules(next) > ACCT_RULES_MAX_RULES) {
            line(out, "%s/%s: too many rules; refinement stopped", e->partition, e->interconnect);
            break;
        }
        char nd_txt[160];
        acct_decision_format(&nd, nd_txt, sizeof(nd_txt));
        struct moments mi = moments(im, (uid_t)-1), mb = moments(best, (uid_t)-1);
        if (store_refinement_log(d->store, e->partition, e->interconnect, c->coll, c->comm_size,
                                 c->bucket, inc_txt, nd_txt, mi.mean, mb.mean, best_p,
                                 (int64_t)(mi.n + mb.n), (int64_t)(mi.users + mb.users), 0) != 0)
            goto out;
        changed++;
    }
    if (changed > 0) {
        char err[512], reason[128];
        next->prov.source = ACCT_SOURCE_REFINED;
        next->nrules = count_rules(next);
        store_now(next->prov.created);
        snprintf(reason, sizeof(reason), "refined: %d cell%s from live samples", changed,
                 changed == 1 ? "" : "s");
        int64_t id = store_version_add(d->store, next, e->version, reason, -1, err, sizeof(err));
        if (id < 0) {
            LOG_E("refinement of (%s, %s): %s", e->partition, e->interconnect, err);
            goto out;
        }
        int64_t prev = 0;
        if (pol.activate) {
            if (store_activate(d->store, id, "refined", -1, &prev) < 0)
                goto out;
            d->rules_dirty = true;
        }
        line(out, "%s/%s: wrote version %lld (refined from %lld, %d cell%s)%s", e->partition,
             e->interconnect, (long long)id, (long long)e->version, changed,
             changed == 1 ? "" : "s", pol.activate ? ", activated" : ", not activated (policy)");
        LOG_I("refinement: version %lld of (%s, %s) from %lld, %d cell%s%s", (long long)id,
              e->partition, e->interconnect, (long long)e->version, changed,
              changed == 1 ? "" : "s", pol.activate ? ", activated" : "");
    }
    rc = changed > 0 ? 1 : 0;
out:
    free(ptext);
    free_cells(&col);
    acct_rules_free(cur);
    acct_rules_free(next);
    acct_diags_free(&dg);
    return rc;
}

int refine_run(struct acctd *d, const char *partition, const char *interconnect,
               struct acct_wbuf *out)
{
    int written = 0;
    /* the pair list may be replaced by a sync; iterate over a snapshot of names */
    for (size_t i = 0; i < d->npairs; i++) {
        const struct pair_entry *e = &d->pairs[i];
        if ((partition && strcmp(partition, e->partition) != 0) ||
            (interconnect && strcmp(interconnect, e->interconnect) != 0))
            continue;
        int r = refine_pair(d, e, out);
        if (r < 0)
            return -1;
        written += r;
    }
    return written;
}
