/* Background refinement from live samples (docs/acctd.md, "Refinement").
 *
 * Per active (partition, interconnect) and per cell (collective,
 * communicator size, message-size bucket) the incumbent method (the active
 * decision) is compared with every other method that jobs ran there. The
 * observations are per-job mean times, so a job weighs one observation
 * however many calls it timed; a job counts only with >= min_job_calls calls
 * and a mean within a factor 1000 of the cell's reference time (measured by
 * the tuning run, else the median user); a user with more jobs than all
 * others together counts with as many as they have. A challenger replaces
 * the incumbent only if
 *   - both have >= min_calls timed calls, >= min_jobs jobs, >= min_users users;
 *   - a one-sided Yuen test (Welch on 20 % trimmed means) gives p < significance;
 *   - the challenger's trimmed mean is at least min_gain faster (relative);
 *   - the last two still hold with any single user's jobs removed (so no
 *     one user, and no one job, can flip a decision);
 * or if all that holds without the one user whose absence helps most (so no
 * one user can veto a change either). Retune marks, likewise, need the
 * drift to hold without each single user.
 * The changed cells of a pair become one new version (source "refined",
 * parent = the active version), activated if the policy says so. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/table.h"
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

/* A job's mean counts only within [ref / F, ref * F] of the cell's
 * reference time (the tuning run's measurement, or the median user). */
#define PLAUSIBLE_FACTOR 1000.0
/* Yuen's test: this fraction of the observations is trimmed at each end. */
#define TRIM 0.2

struct method {
    char alg[64];
    int64_t segment, fanout, reorder;
    struct refine_obs *v;
    size_t n, cap;
};

struct cell {
    char coll[32];
    int64_t comm_size, bucket;
    struct method *m;
    size_t nm;
};

/* Which observations count: enough calls, plausible, not of the users
 * left out. */
struct filter {
    long long min_job_calls;
    double ref;     /* 0: no plausibility bound */
    uid_t skip[2];  /* (uid_t)-1: none */
};

struct moments {
    double mean;   /* trimmed mean of the kept per-job means */
    double se2;    /* its squared standard error (winsorised variance, Yuen) */
    double dfp;    /* degrees of freedom of that variance: kept - 2 trimmed - 1 */
    size_t n;      /* jobs kept */
    int64_t calls; /* their timed calls */
    size_t users;
};

static bool usable(const struct refine_obs *o, const struct filter *f)
{
    return o->calls >= f->min_job_calls && isfinite(o->mean) && o->mean >= 0 &&
           (f->ref <= 0 || (o->mean <= f->ref * PLAUSIBLE_FACTOR &&
                            o->mean >= f->ref / PLAUSIBLE_FACTOR)) &&
           o->uid != f->skip[0] && o->uid != f->skip[1];
}

static int cmp_obs(const void *x, const void *y)
{
    const struct refine_obs *a = x, *b = y;
    if (a->uid != b->uid)
        return a->uid < b->uid ? -1 : 1;
    return a->mean < b->mean ? -1 : a->mean > b->mean;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The statistics of the usable observations of v (docs/acctd.md,
 * "Refinement"): per user first — a user with more jobs than all others
 * together counts with only as many, its most central ones — then a 20 %
 * trimmed mean and its winsorised standard error (Yuen). 0, or -1 (ENOMEM). */
static int summarise(const struct refine_obs *v, size_t n, const struct filter *f,
                     struct moments *r)
{
    struct refine_obs *o = malloc((n + 1) * sizeof(*o));
    double *x = malloc((n + 1) * sizeof(*x));
    size_t k = 0, nx = 0;
    memset(r, 0, sizeof(*r));
    if (o == NULL || x == NULL) {
        free(o);
        free(x);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (usable(&v[i], f))
            o[k++] = v[i];
    qsort(o, k, sizeof(*o), cmp_obs);
    /* the user with the most jobs (at most one can have more than half) */
    size_t top = 0, top_at = 0;
    for (size_t i = 0, j; i < k; i = j) {
        for (j = i; j < k && o[j].uid == o[i].uid; j++)
            ;
        r->users++;
        if (j - i > top)
            top = j - i, top_at = i;
    }
    size_t keep = r->users > 1 && top > k - top ? k - top : top;
    size_t from = top_at + (top - keep) / 2;
    for (size_t i = 0; i < k; i++) {
        if (i >= top_at && i < top_at + top && (i < from || i >= from + keep))
            continue; /* the dominating user's outer jobs */
        x[nx++] = o[i].mean;
        r->calls += o[i].calls;
    }
    r->n = nx;
    if (nx > 0) {
        qsort(x, nx, sizeof(*x), cmp_double);
        size_t g = (size_t)floor(TRIM * (double)nx), h = nx - 2 * g;
        double s = 0, w = 0, ww = 0;
        for (size_t i = g; i < nx - g; i++)
            s += x[i];
        r->mean = s / (double)h;
        for (size_t i = 0; i < nx; i++) {
            double y = x[i] < x[g] ? x[g] : x[i] > x[nx - g - 1] ? x[nx - g - 1] : x[i];
            w += y;
            ww += y * y;
        }
        if (nx > 1 && h > 1) {
            double wm = w / (double)nx;
            double sw2 = fmax(0, (ww - w * wm) / (double)(nx - 1));
            r->se2 = (double)(nx - 1) * sw2 / ((double)h * (double)(h - 1));
            r->dfp = (double)(h - 1);
        }
    }
    free(o);
    free(x);
    return 0;
}

/* One-sided test (Welch's on trimmed means: Yuen) that b is faster than a. */
static double yuen_p(const struct moments *a, const struct moments *b)
{
    double se2 = a->se2 + b->se2;
    if (se2 <= 0)
        return a->mean > b->mean ? 0 : 1;
    double t = (a->mean - b->mean) / sqrt(se2);
    double df = se2 * se2 /
                ((a->dfp > 0 ? a->se2 * a->se2 / a->dfp : 0) +
                 (b->dfp > 0 ? b->se2 * b->se2 / b->dfp : 0) + 1e-300);
    if (df < 1)
        df = 1;
    return refine_t_upper(t, df);
}

static double gain_of(const struct moments *a, const struct moments *b)
{
    return a->mean > 0 ? (a->mean - b->mean) / a->mean : 0;
}

/* The users of a and b (distinct, with usable observations), into *u
 * (malloc'ed). Their number, or -1. */
static long users_of(const struct refine_obs *a, size_t na, const struct refine_obs *b,
                     size_t nb, const struct filter *f, uid_t **u)
{
    size_t n = 0;
    *u = malloc((na + nb + 1) * sizeof(**u));
    if (*u == NULL)
        return -1;
    for (size_t s = 0; s < 2; s++) {
        const struct refine_obs *v = s ? b : a;
        for (size_t i = 0, m = s ? nb : na; i < m; i++) {
            bool seen = !usable(&v[i], f);
            for (size_t j = 0; j < n && !seen; j++)
                seen = (*u)[j] == v[i].uid;
            if (!seen)
                (*u)[n++] = v[i].uid;
        }
    }
    return (long)n;
}

/* Test and gain without the users in f->skip: 1 holds, 0 not (why), -1. */
static int holds(const struct refine_obs *a, size_t na, const struct refine_obs *b, size_t nb,
                 const struct policy *p, const struct filter *f, double *pv, double *gain,
                 struct moments *ma, struct moments *mb)
{
    if (summarise(a, na, f, ma) != 0 || summarise(b, nb, f, mb) != 0)
        return -1;
    if (ma->n < 2 || mb->n < 2) {
        *pv = 1;
        *gain = 0;
        return 0;
    }
    *pv = yuen_p(ma, mb);
    *gain = gain_of(ma, mb);
    return *pv < p->significance && *gain >= p->min_gain;
}

static bool enough(const struct moments *m, const struct policy *p)
{
    return m->calls >= p->min_calls && (long long)m->n >= p->min_jobs &&
           (long long)m->users >= p->min_users;
}

/* The rule with the users in f->skip left out, and then without each
 * further single user: 1 holds; not (why): 0 the evidence is too small, 2
 * the test or the gain fails, 3 it fails without some user; -1 (ENOMEM). */
static int robust(const struct refine_obs *a, size_t na, const struct refine_obs *b, size_t nb,
                  const struct policy *p, struct filter f, struct refine_verdict *r, char *why,
                  size_t wl)
{
    struct moments ma, mb;
    double pv, gain;
    uid_t *u = NULL;
    int h = holds(a, na, b, nb, p, &f, &pv, &gain, &ma, &mb);
    if (h < 0)
        return -1;
    *r = (struct refine_verdict){.p = pv, .gain = gain, .mean_a = ma.mean, .mean_b = mb.mean,
                                 .jobs = ma.n + mb.n, .users = ma.users + mb.users,
                                 .jobs_a = ma.n, .users_a = ma.users};
    if (!enough(&mb, p)) {
        snprintf(why, wl, "challenger evidence too small (%lld calls, %zu jobs, %zu users; need %lld, %lld, %lld)",
                 (long long)mb.calls, mb.n, mb.users, p->min_calls, p->min_jobs, p->min_users);
        return 0;
    }
    if (!enough(&ma, p)) {
        snprintf(why, wl, "incumbent evidence too small (%lld calls, %zu jobs, %zu users)",
                 (long long)ma.calls, ma.n, ma.users);
        return 0;
    }
    if (h == 0) {
        snprintf(why, wl, "not significant or too small a gain (p=%.3g, gain %.1f%%; need p<%g, gain>=%.1f%%)",
                 pv, gain * 100, p->significance, p->min_gain * 100);
        return 2;
    }
    /* no single user (and so no single job) carries it */
    long nu = users_of(a, na, b, nb, &f, &u);
    if (nu < 0)
        return -1;
    int rc = 1;
    for (long i = 0; i < nu && rc == 1; i++) {
        struct filter g = f;
        struct moments xa, xb;
        double px, gx;
        g.skip[f.skip[0] == (uid_t)-1 ? 0 : 1] = u[i];
        int hx = holds(a, na, b, nb, p, &g, &px, &gx, &xa, &xb);
        if (hx < 0) {
            rc = -1;
        } else if (xa.n < 2 || xb.n < 2) {
            snprintf(why, wl, "uid %u's jobs alone carry the evidence", (unsigned)u[i]);
            rc = 3;
        } else if (hx == 0) {
            snprintf(why, wl, "does not hold without uid %u's jobs (p=%.3g, gain %.1f%%)",
                     (unsigned)u[i], px, gx * 100);
            rc = 3;
        }
    }
    free(u);
    return rc;
}

int refine_beats(const struct refine_obs *a, size_t na, const struct refine_obs *b, size_t nb,
                 double ref, const struct policy *p, struct refine_verdict *r, char *why,
                 size_t wl)
{
    struct filter f = {.min_job_calls = p->min_job_calls, .ref = ref,
                       .skip = {(uid_t)-1, (uid_t)-1}};
    int rc = robust(a, na, b, nb, p, f, r, why, wl);
    if (rc != 2 && rc != 3)
        goto done;
    rc = 0;
    /* Kept because of the test, or because it fails without some user:
     * would the whole rule hold without one user (the one whose absence
     * helps most)? Then that user alone decides to keep: leave it out, as
     * a change decision leaves out any single user. The rule without it
     * still needs every other user's absence to leave it standing, so no
     * single user can carry a change this way either. */
    uid_t *u = NULL, veto = (uid_t)-1;
    double best = 2;
    long nu = users_of(a, na, b, nb, &f, &u);
    if (nu < 0)
        return -1;
    for (long i = 0; i < nu; i++) {
        struct filter g = f;
        struct moments xa, xb;
        double px, gx;
        g.skip[0] = u[i];
        if (holds(a, na, b, nb, p, &g, &px, &gx, &xa, &xb) < 0) {
            free(u);
            return -1;
        }
        if (xa.n >= 2 && xb.n >= 2 && px < best && gx >= p->min_gain)
            best = px, veto = u[i];
    }
    free(u);
    if (veto == (uid_t)-1 || best >= p->significance)
        goto done;
    struct refine_verdict rv;
    char why2[512];
    f.skip[0] = veto;
    int r2 = robust(a, na, b, nb, p, f, &rv, why2, sizeof(why2));
    if (r2 < 0)
        return -1;
    if (r2 == 1) {
        *r = rv;
        rc = 1;
        snprintf(why, wl, "trimmed mean %.4g -> %.4g us (%.1f%% faster), p=%.3g, %zu+%zu jobs, "
                 "%zu+%zu users, without uid %u's jobs (that user alone disagrees)",
                 rv.mean_a, rv.mean_b, rv.gain * 100, rv.p, rv.jobs_a, rv.jobs - rv.jobs_a,
                 rv.users_a, rv.users - rv.users_a, (unsigned)veto);
        return rc;
    }
done:
    if (rc == 1)
        snprintf(why, wl, "trimmed mean %.4g -> %.4g us (%.1f%% faster), p=%.3g, %zu+%zu jobs, "
                 "%zu+%zu users", r->mean_a, r->mean_b, r->gain * 100, r->p, r->jobs_a,
                 r->jobs - r->jobs_a, r->users_a, r->users - r->users_a);
    return rc;
}

int refine_drifts(const struct refine_obs *v, size_t n, double measured, const struct policy *p,
                  struct refine_verdict *r, char *why, size_t wl)
{
    struct filter f = {.min_job_calls = p->min_job_calls, .ref = measured,
                       .skip = {(uid_t)-1, (uid_t)-1}};
    struct moments m;
    double limit = measured * (1 + p->retune_drift);
    uid_t *u = NULL;
    if (summarise(v, n, &f, &m) != 0)
        return -1;
    *r = (struct refine_verdict){.mean_a = measured, .mean_b = m.mean, .jobs = m.n,
                                 .users = m.users};
    if (!enough(&m, p) || !(m.mean > limit)) {
        snprintf(why, wl, "no drift (%zu jobs, %zu users, trimmed mean %.4g us)", m.n, m.users,
                 m.mean);
        return 0;
    }
    long nu = users_of(v, n, NULL, 0, &f, &u);
    if (nu < 0)
        return -1;
    int rc = 1;
    for (long i = 0; i < nu && rc == 1; i++) {
        struct filter g = f;
        struct moments x;
        g.skip[0] = u[i];
        if (summarise(v, n, &g, &x) != 0) {
            rc = -1;
        } else if (x.n < 2 || !(x.mean > limit)) {
            snprintf(why, wl, "no drift without uid %u's jobs (%zu jobs, trimmed mean %.4g us)",
                     (unsigned)u[i], x.n, x.mean);
            rc = 2;
        }
    }
    free(u);
    if (rc == 1)
        snprintf(why, wl, "trimmed mean %.4g us in %zu jobs of %zu users", m.mean, m.n, m.users);
    return rc;
}

double refine_cell_ref(const struct refine_obs *v, size_t n, long long min_job_calls)
{
    struct refine_obs *o = malloc((n + 1) * sizeof(*o));
    double *med = malloc((n + 1) * sizeof(*med)), ref = 0;
    size_t k = 0, nu = 0;
    if (o == NULL || med == NULL)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (v[i].calls >= min_job_calls && isfinite(v[i].mean) && v[i].mean > 0)
            o[k++] = v[i];
    qsort(o, k, sizeof(*o), cmp_obs);
    for (size_t i = 0, j; i < k; i = j) {
        for (j = i; j < k && o[j].uid == o[i].uid; j++)
            ;
        size_t c = j - i;
        med[nu++] = c % 2 ? o[i + c / 2].mean : (o[i + c / 2 - 1].mean + o[i + c / 2].mean) / 2;
    }
    if (nu >= 3) { /* a median of users means something from three on */
        qsort(med, nu, sizeof(*med), cmp_double);
        ref = nu % 2 ? med[nu / 2] : (med[nu / 2 - 1] + med[nu / 2]) / 2;
    }
out:
    free(o);
    free(med);
    return ref;
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
        struct refine_obs *n = realloc(m->v, cap * sizeof(*n));
        if (n == NULL)
            return -1;
        m->v = n;
        m->cap = cap;
    }
    m->v[m->n++] = (struct refine_obs){.mean = s->sum_us / (double)s->count, .calls = s->count,
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

/* What refining one pair works with. */
struct pass {
    struct acctd *d;
    const struct pair_entry *e;
    struct policy pol;
    struct acct_rules *cur;  /* the active version */
    struct acct_rules *next; /* cur with the refined cells carved in */
    struct acct_wbuf *out;   /* the reply's lines (NULL: log only) */
    int changed;             /* cells refined */
};

/* One cell's incumbent: the active decision at its smallest size. */
struct incumbent {
    struct acct_decision dec;  /* native where no rule covers it */
    const struct method *m;    /* its samples (NULL: none) */
    char txt[160];             /* dec in ACCT_FORCE syntax */
};

/* The pair's policy: the policy files', or the one stored by SET_POLICY. */
static struct policy pair_policy(struct acctd *d, const char *partition)
{
    struct policy pol = *policy_for(&d->policies, partition);
    struct acct_diags dg = ACCT_DIAGS_INIT;
    char *ptext = NULL;
    if (store_policy_get(d->store, partition, &ptext) == 0) {
        struct policy o = pol;
        if (policy_parse("store", ptext, strlen(ptext), &o, &dg) == 0)
            pol = o;
        else
            LOG_W("stored policy of %s is invalid; using %s", partition, pol.name);
    }
    free(ptext);
    acct_diags_free(&dg);
    return pol;
}

/* The incumbent of cell c (collective cid, sizes from lo) in the active
 * rules, looked up as the runtime does (acct_rules_resolve), and its
 * samples. 0 or -1 (out of memory). */
static int find_incumbent(const struct acct_rules *cur, enum acct_coll_id cid,
                          const struct cell *c, uint64_t lo, struct incumbent *inc)
{
    struct acct_table *t;
    if (acct_rules_resolve(cur, cid, (int)c->comm_size, &t) != ACCT_RULES_OK)
        return -1;
    inc->dec = *acct_table_lookup(t, lo);
    acct_table_free(t);
    const char *alg = inc->dec.alg->name;
    int64_t seg = (int64_t)inc->dec.segment_bytes;
    int64_t fan = norm_fanout(c->coll, alg, inc->dec.fanout);
    int64_t reo = inc->dec.reorder;
    inc->m = NULL;
    for (size_t k = 0; k < c->nm; k++)
        if (strcmp(c->m[k].alg, alg) == 0 && c->m[k].segment == seg && c->m[k].fanout == fan &&
            c->m[k].reorder == reo)
            inc->m = &c->m[k];
    acct_decision_format(&inc->dec, inc->txt, sizeof(inc->txt));
    return 0;
}

/* The cell's reference time for the plausibility bound: what the tuning run
 * measured for the incumbent (*measured, true), else the median user of
 * all its samples. -1 when out of memory. */
static double cell_reference(const struct pass *ps, const struct cell *c, uint64_t lo,
                             uint64_t hi, const struct incumbent *inc, double *measured,
                             bool *has_measured)
{
    *measured = 0;
    *has_measured = ps->cur->prov.tuning_run[0] != '\0' &&
                    store_measured(ps->d->store, ps->cur->prov.tuning_run, c->coll,
                                   c->comm_size, lo, hi, inc->txt, measured) == 0 &&
                    *measured > 0;
    if (*has_measured)
        return *measured;
    size_t nall = 0;
    for (size_t k = 0; k < c->nm; k++)
        nall += c->m[k].n;
    struct refine_obs *all = malloc((nall + 1) * sizeof(*all));
    if (all == NULL)
        return -1;
    nall = 0;
    for (size_t k = 0; k < c->nm; k++) {
        memcpy(all + nall, c->m[k].v, c->m[k].n * sizeof(*all));
        nall += c->m[k].n;
    }
    double ref = refine_cell_ref(all, nall, ps->pol.min_job_calls);
    free(all);
    return ref;
}

/* Drift: the incumbent runs much slower in jobs than its tuning run
 * measured it; the conditions changed, the cell is marked for a retune.
 * 0 or -1. */
static int check_drift(struct pass *ps, const struct cell *c, const struct incumbent *inc,
                       double measured)
{
    const struct pair_entry *e = ps->e;
    struct refine_verdict dv;
    char dwhy[512];
    int dr = refine_drifts(inc->m->v, inc->m->n, measured, &ps->pol, &dv, dwhy, sizeof(dwhy));
    if (dr == 1) {
        line(ps->out, "%s/%s %s comm_size %lld bucket %lld: retune suggested: %s measured %.4g us "
                      "in run %s, %.4g us in %zu jobs since",
             e->partition, e->interconnect, c->coll, (long long)c->comm_size,
             (long long)c->bucket, inc->txt, measured, ps->cur->prov.tuning_run, dv.mean_b,
             dv.jobs);
        if (store_retune_mark(ps->d->store, e->partition, e->interconnect, c->coll,
                              c->comm_size, c->bucket, inc->txt, ps->cur->prov.tuning_run,
                              measured, dv.mean_b, (int64_t)dv.jobs, (int64_t)dv.users) != 0)
            return -1;
    } else if (dr == 2) {
        line(ps->out, "%s/%s %s comm_size %lld bucket %lld: no retune mark: %s", e->partition,
             e->interconnect, c->coll, (long long)c->comm_size, (long long)c->bucket, dwhy);
    }
    return dr < 0 ? -1 : 0;
}

/* The method of c that beats the incumbent by the evidence rule with the
 * lowest mean (*best NULL: none), its verdict in *bv. 0 or -1. */
static int best_challenger(const struct pass *ps, const struct cell *c,
                           const struct incumbent *inc, double ref, const struct method **best,
                           struct refine_verdict *bv)
{
    const struct pair_entry *e = ps->e;
    *best = NULL;
    for (size_t k = 0; k < c->nm; k++) {
        const struct method *m = &c->m[k];
        char why[512];
        struct refine_verdict v;
        if (m == inc->m)
            continue;
        int win = refine_beats(inc->m->v, inc->m->n, m->v, m->n, ref, &ps->pol, &v, why,
                               sizeof(why));
        if (win < 0)
            return -1;
        line(ps->out, "%s/%s %s comm_size %lld bucket %lld: %s vs %s:%lld:%lld%s: %s (%s)",
             e->partition, e->interconnect, c->coll, (long long)c->comm_size,
             (long long)c->bucket, inc->txt, m->alg, (long long)m->segment,
             (long long)m->fanout, m->reorder ? ":reorder" : "", win ? "better" : "kept", why);
        if (win == 1 && (*best == NULL || v.mean_b < bv->mean_b)) {
            *best = m;
            *bv = v;
        }
    }
    return 0;
}

/* Carve the winner into next and log the refinement. 1 if carved, 0 if
 * not (unknown algorithm), 2 when the rules are full (refinement stops),
 * -1 on a store error. */
static int apply_winner(struct pass *ps, enum acct_coll_id cid, const struct cell *c,
                        uint64_t lo, uint64_t hi, const struct incumbent *inc,
                        const struct method *best, const struct refine_verdict *bv)
{
    const struct pair_entry *e = ps->e;
    struct acct_decision nd = {.alg = acct_alg_find(cid, best->alg),
                               .segment_bytes = (uint64_t)best->segment,
                               .fanout = (int)best->fanout,
                               .reorder = best->reorder != 0};
    if (nd.alg == NULL)
        return 0;
    bool native = (nd.alg->flags & ACCT_ALG_NATIVE) != 0;
    /* the replaced decision stays the runner-up (native where no rule covered the cell) */
    if (refine_carve(&ps->next->coll[cid], (int)c->comm_size, lo, hi, native ? NULL : &nd,
                     &inc->dec) != 0 ||
        count_rules(ps->next) > ACCT_RULES_MAX_RULES) {
        line(ps->out, "%s/%s: too many rules; refinement stopped", e->partition, e->interconnect);
        return 2;
    }
    char nd_txt[160];
    acct_decision_format(&nd, nd_txt, sizeof(nd_txt));
    if (store_refinement_log(ps->d->store, e->partition, e->interconnect, c->coll, c->comm_size,
                             c->bucket, inc->txt, nd_txt, bv->mean_a, bv->mean_b, bv->p,
                             (int64_t)bv->jobs, (int64_t)bv->users, 0) != 0)
        return -1;
    return 1;
}

/* One cell: its incumbent, drift, challengers, and the winner carved in.
 * 0 to go on, 1 to stop (rules full), -1 on error. */
static int refine_cell(struct pass *ps, const struct cell *c)
{
    const struct pair_entry *e = ps->e;
    enum acct_coll_id cid;
    struct incumbent inc;
    if (acct_coll_from_name(c->coll, &cid) != 0 || c->comm_size > INT_MAX)
        return 0;
    uint64_t lo = c->bucket == 0 ? 0 : 1ull << (c->bucket - 1);
    uint64_t hi = c->bucket == 0 ? 0 : c->bucket == 64 ? UINT64_MAX : (1ull << c->bucket) - 1;
    /* Samples do not say how the job's ranks were placed: rules that depend
     * on the layout are left as they are (carving one decision in would
     * replace every layout's decision at the cell). */
    if (acct_rules_layout_bound(ps->cur, cid, (int)c->comm_size)) {
        line(ps->out, "%s/%s %s comm_size %lld bucket %lld: kept (its rules depend on the layout; "
             "samples do not carry it)",
             e->partition, e->interconnect, c->coll, (long long)c->comm_size,
             (long long)c->bucket);
        return 0;
    }
    if (find_incumbent(ps->cur, cid, c, lo, &inc) != 0)
        return -1;
    if (inc.m == NULL) {
        if (c->nm > 0)
            line(ps->out, "%s/%s %s comm_size %lld bucket %lld: kept %s (no samples of it)",
                 e->partition, e->interconnect, c->coll, (long long)c->comm_size,
                 (long long)c->bucket, inc.txt);
        return 0;
    }
    double measured;
    bool has_measured;
    double ref = cell_reference(ps, c, lo, hi, &inc, &measured, &has_measured);
    if (ref < 0 || (has_measured && check_drift(ps, c, &inc, measured) != 0))
        return -1;
    const struct method *best;
    struct refine_verdict bv = {0};
    if (best_challenger(ps, c, &inc, ref, &best, &bv) != 0)
        return -1;
    if (best == NULL)
        return 0;
    int r = apply_winner(ps, cid, c, lo, hi, &inc, best, &bv);
    if (r == 1)
        ps->changed++;
    return r < 0 ? -1 : r == 2 ? 1 : 0;
}

/* Store next as a refined version of the pair (activated if the policy
 * says so). 0 or -1. */
static int write_refined(struct pass *ps)
{
    const struct pair_entry *e = ps->e;
    struct acct_rules *next = ps->next;
    int changed = ps->changed;
    char err[512], reason[128];
    next->prov.source = ACCT_SOURCE_REFINED;
    next->nrules = count_rules(next);
    store_now(next->prov.created);
    snprintf(reason, sizeof(reason), "refined: %d cell%s from live samples", changed,
             changed == 1 ? "" : "s");
    int64_t id = store_version_add(ps->d->store, next, e->version, reason, -1, err, sizeof(err));
    if (id < 0) {
        LOG_E("refinement of (%s, %s): %s", e->partition, e->interconnect, err);
        return -1;
    }
    int64_t prev = 0;
    if (ps->pol.activate) {
        if (store_activate(ps->d->store, id, "refined", -1, &prev) < 0)
            return -1;
        ps->d->rules_dirty = true;
    }
    line(ps->out, "%s/%s: wrote version %lld (refined from %lld, %d cell%s)%s", e->partition,
         e->interconnect, (long long)id, (long long)e->version, changed, changed == 1 ? "" : "s",
         ps->pol.activate ? ", activated" : ", not activated (policy)");
    LOG_I("refinement: version %lld of (%s, %s) from %lld, %d cell%s%s", (long long)id,
          e->partition, e->interconnect, (long long)e->version, changed, changed == 1 ? "" : "s",
          ps->pol.activate ? ", activated" : "");
    return 0;
}

/* Refine one pair from its samples: 1 if a version was written, 0 if not,
 * -1 on error. */
static int refine_pair(struct acctd *d, const struct pair_entry *e, struct acct_wbuf *out)
{
    struct pass ps = {.d = d, .e = e, .pol = pair_policy(d, e->partition), .out = out};
    struct collect col = {0};
    struct acct_diags dg = ACCT_DIAGS_INIT;
    int rc = -1;
    if (!ps.pol.enabled) {
        line(out, "%s/%s: refinement disabled by policy %s", e->partition, e->interconnect,
             ps.pol.name);
        rc = 0;
        goto out;
    }
    if (acct_rules_parse_buffer("active", e->text, e->len, &ps.cur, &dg) != 0) {
        LOG_E("active version %lld of (%s, %s) does not parse", (long long)e->version,
              e->partition, e->interconnect);
        goto out;
    }
    int64_t since = (int64_t)time(NULL) - ps.pol.max_age_days * 86400;
    if (store_job_stats(d->store, e->partition, e->interconnect, since, collect_row, &col) != 0)
        goto out;
    if ((ps.next = acct_rules_copy(ps.cur)) == NULL)
        goto out;
    for (size_t ci = 0; ci < col.n; ci++) {
        int r = refine_cell(&ps, &col.c[ci]);
        if (r < 0)
            goto out;
        if (r == 1)
            break;
    }
    if (ps.changed > 0 && write_refined(&ps) != 0)
        goto out;
    rc = ps.changed > 0 ? 1 : 0;
out:
    free_cells(&col);
    acct_rules_free(ps.cur);
    acct_rules_free(ps.next);
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
