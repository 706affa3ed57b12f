/* acct-tune: finalist racing, the MPI side (race.h; docs/acct-tune.md
 * "Racing"; issue 23).
 *
 * After a point's search, rank 0 picks the finalists from the point's
 * measurements — the best --race K methods (each at its best segment, and
 * at its best other segment when that is within the tolerance:
 * race_best_methods) on the collective's metric, the search's own pick (its lowest median_us,
 * the slowest rank's time: what the rules would say without racing) when
 * it is not one of them, native, the --incumbent rules' decision, and
 * native again as its A/A twin — and broadcasts them. Then rounds: every
 * finalist is forced and timed (--race-reps calls after barriers, as any
 * experiment, one warm-up call), in an order rotated by one each round;
 * tune_views gives rank 0 its three views. After each round rank 0 runs
 * race_decide() and broadcasts whether the race is over, so every rank of
 * the communicator runs the same rounds; the decision is rank 0's alone
 * and reaches the others through the decision maps rank 0 writes
 * (docs/architecture.md rule 1). Rank 0 keeps the race for the result. */
#include "oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/tool.h"
#include "race.h"

#define RACE_MAX_FINALISTS 36 /* K <= 16 and their segment variants, the search's pick,
                               * native, incumbent, twin */
#define RACE_MIN_ROUNDS 6     /* before any verdict (6 rounds one way: P = 1/64) */
#define SPEC_LEN 160

/* The view a collective's decisions are chosen on (docs/acct-tune.md
 * "Which time"): rooted collectives, whose ranks finish at different
 * times by design, on the mean over ranks of each rank's own time (what
 * a rank that computes between calls waits; OSU's default figure); the
 * others, where every rank needs every rank's data, on the slowest
 * rank's. The guard holds avg and rank_max in either case, and max where
 * it is the metric (race_stats.c guard_view). */
static enum race_view race_metric(enum acct_coll_id coll)
{
    switch (coll) {
    case ACCT_COLL_bcast:
    case ACCT_COLL_reduce:
    case ACCT_COLL_gather:
    case ACCT_COLL_scatter: return RACE_VIEW_AVG;
    default: return RACE_VIEW_MAX;
    }
}

/* A record's value on view v (the slowest rank's median when the record
 * has no views: replayed from a journal). */
static double rec_view(const struct tune_record *r, enum race_view v)
{
    if (r->has_views && v == RACE_VIEW_AVG)
        return r->avg_us;
    if (r->has_views && v == RACE_VIEW_RANK_MAX)
        return r->rank_max_us;
    return r->median_us;
}

static bool same_finalist(const struct race_method *a, const struct race_method *b)
{
    return a->alg == b->alg && a->fanout == b->fanout && a->seg == b->seg;
}

/* The layout of the point's ranks (the first esize of comm) as the runtime
 * sees it: the most ranks on one node, and whether every node holds as many
 * (unknown without node labels: ranks_per_node 0). */
static struct acct_rules_where point_where(const struct tune_ctx *x)
{
    struct acct_rules_where w = { .ranks_per_node = 0, .regular = true };
    int first = -1;
    if (x->node == NULL)
        return w;
    for (int i = 0; i < x->esize; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = x->node[j] == x->node[i];
        if (seen)
            continue; /* counted with its node's first rank */
        int n = 0;
        for (int j = i; j < x->esize; j++)
            n += x->node[j] == x->node[i];
        if (first < 0)
            first = n;
        w.regular = w.regular && n == first;
        w.ranks_per_node = n > w.ranks_per_node ? n : w.ranks_per_node;
    }
    return w;
}

/* The incumbent's decision at (coll, p, m): the first rule of --incumbent
 * containing the point at the point's layout (a layout-bound rule of
 * merged rules only at its own ranks per node, as the runtime resolves
 * it). */
static bool incumbent_at(const struct tune_ctx *x, uint64_t m, struct race_method *f)
{
    const struct acct_rule_list *l;

    if (x->incumbent == NULL)
        return false;
    const struct acct_rules_where w = point_where(x);
    l = &x->incumbent->coll[x->coll];
    for (size_t i = 0; i < l->n; i++) {
        const struct acct_rule *r = &l->v[i];
        if (acct_rule_contains(r, x->esize, m, w.ranks_per_node > 0 ? &w : NULL) &&
            r->d.alg != NULL) {
            struct acct_decision d = r->d;
            d.reorder = false;
            if (!tune_applicable(x->coll, &d, x->esize, m))
                return false;
            f->alg = (int32_t)acct_alg_index(r->d.alg);
            f->fanout = r->d.fanout;
            f->seg = r->d.segment_bytes;
            return true;
        }
    }
    return false;
}

/* The index of g among f[0..*n-1], appended (*n grows) when it is not
 * there. */
static int32_t join(struct race_method *f, size_t *n, const struct race_method *g)
{
    for (size_t j = 0; j < *n; j++)
        if (same_finalist(&f[j], g))
            return (int32_t)j;
    f[*n] = *g;
    return (int32_t)(*n)++;
}

/* Rank 0: the finalists of point m from its records x->recs[first..], or -1
 * when out of memory;
 * roles[ROLE_*]: their indices (-1: none). */
enum { ROLE_NATIVE, ROLE_TWIN, ROLE_INCUMBENT, ROLE_PICK, ROLES };
static int pick(struct tune_ctx *x, uint64_t m, size_t first, enum race_view metric,
                struct race_method *f, int32_t *roles)
{
    size_t n = 0, nv = 0;
    const struct acct_alg *native = acct_alg_find(x->coll, "native");
    int32_t native_alg = native != NULL ? (int32_t)acct_alg_index(native) : -1;
    struct tune_record *search_pick = NULL;
    struct race_measured *v = malloc((x->nrecs - first + 1) * sizeof(*v));
    struct race_method inc;
    int nbest;

    if (v == NULL)
        return -1;
    /* the point's measurements of methods other than native; and the
     * search's pick: the lowest slowest-rank median of any (native
     * included; ties: the earlier), the search's own ranking whatever the
     * race's metric */
    for (size_t i = first; i < x->nrecs; i++) {
        struct tune_record *r = &x->recs[i];
        if (!r->ok || r->coll != (int32_t)x->coll || r->comm_size != x->esize || r->bytes != m)
            continue;
        if (search_pick == NULL || r->median_us < search_pick->median_us)
            search_pick = r;
        if (r->alg != native_alg)
            v[nv++] = (struct race_measured){ { r->alg, r->fanout, r->segment },
                                              rec_view(r, metric) };
    }
    /* the K best methods by the metric, each with its segment variant
     * within the tolerance (race_best_methods) */
    nbest = race_best_methods(v, nv, x->o->race, x->o->race_tolerance, f,
                              RACE_MAX_FINALISTS - 4);
    free(v);
    if (nbest < 0)
        return -1;
    n = (size_t)nbest;
    for (int k = 0; k < ROLES; k++)
        roles[k] = -1;
    /* the search's pick right after the K best (it is often one of them:
     * then it adds nothing); native's record is native's finalist */
    if (search_pick != NULL && search_pick->alg != native_alg) {
        struct race_method g = { search_pick->alg, search_pick->fanout, search_pick->segment };
        roles[ROLE_PICK] = join(f, &n, &g);
    }
    if (native_alg >= 0) {
        roles[ROLE_NATIVE] = (int32_t)n;
        f[n++] = (struct race_method){ native_alg, 0, 0 };
        if (search_pick != NULL && search_pick->alg == native_alg)
            roles[ROLE_PICK] = roles[ROLE_NATIVE];
    }
    if (incumbent_at(x, m, &inc))
        roles[ROLE_INCUMBENT] = join(f, &n, &inc);
    if (roles[ROLE_NATIVE] >= 0) {
        roles[ROLE_TWIN] = (int32_t)n;
        f[n++] = f[roles[ROLE_NATIVE]];
    }
    return (int)n;
}

/* ---- the eager probe (docs/acct-tune.md "The eager probe") -------------------- */

#define PROBE_MAX (2 * 16 * TUNE_EAGER_MAX) /* 2K candidates (K <= 16) x the segments */

/* Whether point m's records x->recs[first..] hold (alg, fanout, seg). */
static bool recorded(const struct tune_ctx *x, uint64_t m, size_t first, int32_t alg,
                     int32_t fanout, uint64_t seg)
{
    for (size_t i = first; i < x->nrecs; i++) {
        const struct tune_record *r = &x->recs[i];
        if (r->coll == (int32_t)x->coll && r->comm_size == x->esize && r->bytes == m &&
            r->alg == alg && r->fanout == fanout && r->segment == seg)
            return true;
    }
    return false;
}

/* Rank 0: the experiments of point m's eager probe. The candidates are the
 * race's K best methods on the metric and the K best on the slowest rank's
 * time (the search's view: a method the search found fast there may be
 * fast on the metric only below a limit, as hier_chain fan-out 1 in the
 * file comment of eager.c); each segmented one is timed at every probe
 * segment of the point's grid (x->segs) it was not timed at. */
static size_t probe_list(const struct tune_ctx *x, uint64_t m, size_t first,
                         enum race_view metric, struct race_method *todo)
{
    struct best {
        int32_t alg, fanout;
        double v[2]; /* on the metric, on max */
    } b[64];
    size_t nb = 0, n = 0;
    bool take[64] = { false };
    const struct acct_alg *native = acct_alg_find(x->coll, "native");

    for (size_t i = first; i < x->nrecs; i++) {
        const struct tune_record *r = &x->recs[i];
        size_t j = 0;
        if (!r->ok || r->coll != (int32_t)x->coll || r->comm_size != x->esize || r->bytes != m ||
            (native != NULL && r->alg == (int32_t)acct_alg_index(native)))
            continue;
        while (j < nb && !(b[j].alg == r->alg && b[j].fanout == r->fanout))
            j++;
        if (j == nb) {
            if (nb == 64)
                continue;
            b[nb++] = (struct best){ r->alg, r->fanout, { INFINITY, INFINITY } };
        }
        b[j].v[0] = fmin(b[j].v[0], rec_view(r, metric));
        b[j].v[1] = fmin(b[j].v[1], r->median_us);
    }
    /* the K best on each view (ties: the earlier) */
    for (int view = 0; view < 2; view++) {
        bool used[64] = { false };
        for (int k = 0; k < x->o->race; k++) {
            size_t best = nb;
            for (size_t j = 0; j < nb; j++)
                if (!used[j] && isfinite(b[j].v[view]) &&
                    (best == nb || b[j].v[view] < b[best].v[view]))
                    best = j;
            if (best == nb)
                break;
            used[best] = take[best] = true;
        }
    }
    for (size_t j = 0; j < nb; j++) {
        const struct acct_alg *a = &acct_algs[b[j].alg];
        if (!take[j] || !(a->flags & ACCT_ALG_SEGMENTED))
            continue;
        for (size_t e = 0; e < x->neager; e++) {
            uint64_t seg = x->eager_segs[e];
            bool in_grid = false;
            for (size_t g = 1; g < x->nsegs; g++)
                in_grid |= x->segs[g] == seg;
            struct acct_decision d = { .alg = a, .fanout = b[j].fanout, .segment_bytes = seg };
            if (in_grid && n < PROBE_MAX && tune_applicable(x->coll, &d, x->esize, m) &&
                !recorded(x, m, first, b[j].alg, b[j].fanout, seg))
                todo[n++] = (struct race_method){ b[j].alg, b[j].fanout, seg };
        }
    }
    return n;
}

/* The eager probe of point m before its race, where the race's metric is
 * not the slowest rank's time (the rooted collectives): its experiments are
 * the search's (kept in the result's measurements, journaled, counted as
 * search experiments), so the finalists are picked from them too. Every
 * rank of x->comm calls it. TUNE_OK (also when the budget stopped it) or
 * an error. */
static int eager_probe(struct tune_ctx *x, uint64_t m, size_t first, enum race_view metric)
{
    static struct race_method todo[PROBE_MAX];
    int32_t n = 0;
    int rc = TUNE_OK;
    double t0 = kit_now();

    if (metric == RACE_VIEW_MAX)
        return TUNE_OK;
    if (x->rank == 0)
        n = (int32_t)probe_list(x, m, first, metric, todo);
    PMPI_Bcast(&n, 1, MPI_INT32_T, 0, x->comm);
    if (n == 0)
        return TUNE_OK;
    PMPI_Bcast(todo, (int)(sizeof(todo[0]) * (size_t)n), MPI_BYTE, 0, x->comm);
    int32_t done = 0;
    for (; done < n && rc == TUNE_OK; done++) {
        struct acct_decision d = { .alg = &acct_algs[todo[done].alg], .fanout = todo[done].fanout };
        double cost;
        rc = tune_experiment(x, &d, todo[done].seg, &cost);
    }
    if (rc == TUNE_STOP) {
        done--;
        rc = TUNE_OK;
    }
    if (x->rank == 0 && x->o->progress)
        fprintf(stderr, TUNE_NAME ": eager probe %s p=%d %llu: %d of %d experiments (%.1f s)\n",
                acct_coll_name(x->coll), x->esize, (unsigned long long)m, done, n,
                kit_now() - t0);
    return rc;
}

/* Time finalist f on x->ecomm: views[] on rank 0 (+inf when it fails its
 * check). Every rank of x->comm calls it. */
static int time_finalist(struct tune_ctx *x, const struct race_method *f, double *views)
{
    int forced = 0, all_forced = 1, reps = 0, bad = 0;
    struct bench_call *c = &x->call;
    struct acct_decision d = { .alg = &acct_algs[f->alg], .fanout = f->fanout };
    char spec[SPEC_LEN] = "";

    for (int v = 0; v < RACE_VIEWS; v++)
        views[v] = INFINITY;
    if (x->ecomm != MPI_COMM_NULL) {
        c->count = (int)(x->coll == ACCT_COLL_barrier ? 0 : x->m);
        tune_force_spec(x->coll, &d, f->seg, spec, sizeof(spec));
        forced = acct_tool_force(spec) == 0;
        PMPI_Allreduce(&forced, &all_forced, 1, MPI_INT, MPI_MIN, x->ecomm);
        if (all_forced) {
            struct kit_timing t = { .warmup = 1, .iterations = x->o->race_reps,
                                    .time_limit = x->o->point_limit_s,
                                    .max_iterations = x->o->race_reps };
            if (kit_measure(x->bcoll, c, &t, x->times, x->max_us, &reps, &bad) == KIT_OK)
                tune_views(x->ecomm, x->times, x->max_us, x->sum_us, reps, views);
        }
    }
    PMPI_Bcast(&all_forced, 1, MPI_INT, 0, x->comm);
    if (!all_forced) {
        snprintf(x->err, sizeof(x->err), "acct_tool_force(\"%s\") failed while racing", spec);
        return TUNE_EFAIL;
    }
    return TUNE_OK;
}

/* race.h's words to the result's (the same words; looked up by name so
 * that the two lists cannot drift apart silently: a word the result does
 * not know fails the read-back of the written file). */
static int result_word(const char *word, const char *(*name)(int), int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(word, name(i)) == 0)
            return i;
    return n; /* "?" when written: refused on read-back */
}

static const char *view_word(int i) { return acct_result_view_name((enum acct_result_view)i); }
static const char *verdict_word(int i)
{
    return acct_result_verdict_name((enum acct_result_verdict)i);
}
static const char *resolve_word(int i)
{
    return acct_result_resolve_name((enum acct_result_resolve)i);
}

static double clamp_pos(double v)
{
    return !(v > 1e-300) ? 1e-300 : v > 1e300 ? 1e300 : v;
}

/* Rank 0: keep the race for the result. 0 or -1 (out of memory). */
static int keep_race(struct tune_ctx *x, uint64_t m, const struct race_method *f, size_t n,
                     int32_t search_pick, size_t rounds, enum race_view metric,
                     const struct race_outcome *o, bool twin, double seconds,
                     double *const t[RACE_VIEWS])
{
    struct acct_result_race *rc;

    if (x->nraces == x->capraces) {
        size_t cap = x->capraces ? 2 * x->capraces : 64;
        struct acct_result_race *nv = realloc(x->races, cap * sizeof(*nv));
        double *na = realloc(x->aa, cap * sizeof(*na));
        if (nv != NULL)
            x->races = nv;
        if (na != NULL)
            x->aa = na;
        if (nv == NULL || na == NULL)
            return -1;
        x->capraces = cap;
    }
    rc = &x->races[x->nraces];
    memset(rc, 0, sizeof(*rc));
    rc->f = calloc(n, sizeof(*rc->f));
    if (rc->f == NULL)
        return -1;
    rc->coll = x->coll;
    rc->comm_size = x->esize;
    rc->bytes = m;
    rc->metric = (enum acct_result_view)result_word(race_view_name(metric), view_word,
                                                    ACCT_RESULT_VIEWS);
    rc->rounds = (uint32_t)rounds;
    rc->alpha = x->o->race_alpha;
    rc->tolerance = x->o->race_tolerance;
    rc->has_aa = twin && isfinite(o->aa[metric]);
    rc->aa_spread = rc->has_aa ? o->aa[metric] : 0.0;
    rc->resolved_by = (enum acct_result_resolve)result_word(race_resolve_name(o->by),
                                                            resolve_word, ACCT_RESULT_RESOLVES);
    /* the cost: this race, and the search since the collective's last race
     * (this point's search: a point is raced right after its search) */
    rc->has_cost = true;
    rc->experiments = rounds * n;
    rc->seconds = seconds;
    rc->search_experiments = x->search_exps[x->coll] - x->race_mark_exps[x->coll];
    rc->search_seconds = x->search_s[x->coll] - x->race_mark_s[x->coll];
    if (!(rc->search_seconds >= 0))
        rc->search_seconds = 0;
    for (size_t i = 0; i < n; i++) {
        struct acct_result_finalist *rf = &rc->f[i];
        rf->d.alg = &acct_algs[f[i].alg];
        rf->d.fanout = f[i].fanout;
        rf->d.segment_bytes = f[i].seg;
        rf->verdict = (enum acct_result_verdict)result_word(race_verdict_name(o->verdict[i]),
                                                            verdict_word, ACCT_RESULT_VERDICTS);
        rf->ratio = clamp_pos(o->ratio[i]);
        rf->p = o->p[i] >= 0 && o->p[i] <= 1 ? o->p[i] : 1.0;
        rf->search_pick = (int32_t)i == search_pick;
        /* its times per round, so that the race can be replayed offline
         * (other caps, the twin in fewer rounds: tools/perf/acct-race-cost);
         * a failed timing (+inf, race_decide's loss) as 0 */
        rf->round_us = malloc((size_t)RACE_VIEWS * rounds * sizeof(double));
        if (rf->round_us == NULL) {
            for (size_t j = 0; j < i; j++)
                free(rc->f[j].round_us);
            free(rc->f);
            rc->f = NULL;
            return -1;
        }
        rf->nrounds = (uint32_t)rounds;
        for (int v = 0; v < RACE_VIEWS; v++)
            for (size_t r = 0; r < rounds; r++) {
                double u = t[v][r * n + i];
                rf->round_us[(size_t)v * rounds + r] = isfinite(u) && u > 0 ? u : 0.0;
            }
    }
    rc->nf = n;
    x->aa[x->nraces] = rc->has_aa ? rc->aa_spread : NAN;
    x->nraces++;
    return 0;
}

/* Rank 0: race_decide on the first `rounds` rounds; final: no more will
 * run. Returns whether the race is over. */
static int decide_rounds(const struct tune_ctx *x, size_t n, size_t rounds,
                         enum race_view metric, const int32_t *roles, const double *model,
                         double *const t[RACE_VIEWS], bool final, struct race_outcome *out)
{
    size_t cap = (size_t)x->o->race_rounds;
    struct race_input in = { .nc = n, .rounds = rounds, .metric = metric,
                             .native = (size_t)roles[ROLE_NATIVE],
                             .twin = (size_t)roles[ROLE_TWIN],
                             .incumbent = roles[ROLE_INCUMBENT] >= 0
                                              ? (size_t)roles[ROLE_INCUMBENT]
                                              : RACE_NONE,
                             .model = model };
    struct race_params pp = { .alpha = x->o->race_alpha, .tolerance = x->o->race_tolerance,
                              .min_rounds = cap < RACE_MIN_ROUNDS ? cap : RACE_MIN_ROUNDS,
                              .max_rounds = cap, .final = final };
    for (int v = 0; v < RACE_VIEWS; v++)
        in.t[v] = t[v];
    return race_decide(&in, &pp, out) != 0 || out->over;
}

int tune_race(struct tune_ctx *x, uint64_t m, size_t first)
{
    int rc = TUNE_OK, over = 0, ok = 1;
    struct race_method f[RACE_MAX_FINALISTS];
    int32_t roles[ROLES] = { -1, -1, -1, -1 };
    int32_t n = 0;
    size_t rounds = 0, cap = (size_t)x->o->race_rounds;
    enum race_view metric = race_metric(x->coll);
    double *t[RACE_VIEWS] = { NULL, NULL, NULL }, *model = NULL;
    enum race_verdict verdict[RACE_MAX_FINALISTS];
    double ratio[RACE_MAX_FINALISTS], p[RACE_MAX_FINALISTS];
    struct race_outcome out = { .verdict = verdict, .ratio = ratio, .p = p };
    double t0 = kit_now();

    memset(f, 0, sizeof(f));
    x->m = m;
    rc = eager_probe(x, m, first, metric);
    if (rc != TUNE_OK)
        return rc;
    t0 = kit_now();
    if (x->rank == 0)
        n = (int32_t)pick(x, m, first, metric, f, roles);
    PMPI_Bcast(&n, 1, MPI_INT32_T, 0, x->comm);
    if (n < 0) {
        snprintf(x->err, sizeof(x->err), "out of memory for a race");
        return TUNE_ENOMEM;
    }
    PMPI_Bcast(roles, ROLES, MPI_INT32_T, 0, x->comm);
    PMPI_Bcast(f, (int)(sizeof(f[0]) * (size_t)n), MPI_BYTE, 0, x->comm);
    if (n < 3) { /* native and its twin alone: nothing to decide */
        x->race_mark_exps[x->coll] = x->search_exps[x->coll];
        x->race_mark_s[x->coll] = x->search_s[x->coll];
        return TUNE_OK;
    }
    if (x->rank == 0) {
        for (int v = 0; v < RACE_VIEWS; v++)
            ok &= (t[v] = malloc(cap * (size_t)n * sizeof(double))) != NULL;
        if (ok && x->model_cost != NULL && (model = malloc((size_t)n * sizeof(*model))) != NULL)
            for (int32_t i = 0; i < n; i++) {
                struct acct_decision d = { .alg = &acct_algs[f[i].alg], .fanout = f[i].fanout,
                                           .segment_bytes = f[i].seg };
                model[i] = x->model_cost(x->model_ctx, x->coll, &d, x->esize, m);
                if (isnan(model[i]))
                    model[i] = INFINITY;
            }
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, x->comm);
    if (!ok) {
        snprintf(x->err, sizeof(x->err), "out of memory for a race");
        rc = TUNE_ENOMEM;
        goto out;
    }
    while (!over && rounds < cap) {
        if (tune_budget_over(x))
            break;
        for (int32_t i = 0; i < n && rc == TUNE_OK; i++) {
            int32_t c = (int32_t)(((size_t)i + rounds) % (size_t)n);
            double views[RACE_VIEWS];
            rc = time_finalist(x, &f[c], views);
            for (int v = 0; x->rank == 0 && v < RACE_VIEWS; v++)
                t[v][rounds * (size_t)n + (size_t)c] = views[v];
        }
        if (rc != TUNE_OK)
            break;
        rounds++;
        if (x->rank == 0)
            over = decide_rounds(x, (size_t)n, rounds, metric, roles, model, t, false, &out);
        PMPI_Bcast(&over, 1, MPI_INT, 0, x->comm);
    }
    /* the budget cut the race: decide on the rounds it has, as an ended
     * race (rule 6: native unless shown slower than the leader) */
    if (rc == TUNE_OK && x->rank == 0 && rounds > 0 && !over)
        (void)decide_rounds(x, (size_t)n, rounds, metric, roles, model, t, true, &out);
    if (rc == TUNE_OK && x->rank == 0 && rounds > 0 &&
        keep_race(x, m, f, (size_t)n, roles[ROLE_PICK], rounds, metric, &out, true,
                  kit_now() - t0, t) != 0)
        ok = 0;
    PMPI_Bcast(&ok, 1, MPI_INT, 0, x->comm);
    if (rc == TUNE_OK && !ok) {
        snprintf(x->err, sizeof(x->err), "out of memory for a race");
        rc = TUNE_ENOMEM;
    }
    if (x->rank == 0) {
        double dt = kit_now() - t0;
        x->race_exps[x->coll] += rounds * (size_t)n;
        x->race_s[x->coll] += dt;
        x->experiments += rounds * (size_t)n;
        x->experiment_s += dt;
        x->race_mark_exps[x->coll] = x->search_exps[x->coll];
        x->race_mark_s[x->coll] = x->search_s[x->coll];
        if (x->o->progress && rounds > 0 && rc == TUNE_OK && ok) {
            char dec[SPEC_LEN];
            const struct acct_result_race *r = &x->races[x->nraces - 1];
            size_t w = 0;
            while (w + 1 < r->nf && r->f[w].verdict != ACCT_RESULT_WINNER)
                w++;
            acct_decision_format(&r->f[w].d, dec, sizeof(dec));
            fprintf(stderr, TUNE_NAME ": race %s p=%d %llu: %s by %s after %zu rounds of %d "
                    "finalists (%s; A/A %.1f %%)\n", acct_coll_name(x->coll), x->esize,
                    (unsigned long long)m, dec, acct_result_resolve_name(r->resolved_by),
                    rounds, n, race_view_name(metric), r->has_aa ? 100 * r->aa_spread : 0.0);
        }
    }
out:
    for (int v = 0; v < RACE_VIEWS; v++)
        free(t[v]);
    free(model);
    return rc;
}


static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

int tune_aa_pair(struct tune_ctx *x)
{
    const struct acct_alg *native = acct_alg_find(x->coll, "native");
    struct race_method f;
    enum race_view metric = race_metric(x->coll);
    double r[RACE_MIN_ROUNDS], t0 = kit_now();
    size_t rounds = 0;
    int rc = TUNE_OK;

    if (native == NULL || x->nsizes == 0)
        return TUNE_OK;
    f = (struct race_method){ (int32_t)acct_alg_index(native), 0, 0 };
    x->m = x->sizes[x->nsizes / 2];
    x->ecomm = x->comm;
    x->esize = x->size;
    /* A then B, B then A, ...: the same method, so the order is all that
     * differs between the twins; each round gives one ratio B / A. The
     * budget is checked before each round (a run stopped by it spent 20 s
     * per remaining collective here at 100 Mbit/s, beyond its time limit);
     * a pair it cuts short reports nothing */
    for (; rounds < RACE_MIN_ROUNDS && rc == TUNE_OK && !tune_budget_over(x); rounds++) {
        double v[2][RACE_VIEWS];
        for (int i = 0; i < 2 && rc == TUNE_OK; i++)
            rc = time_finalist(x, &f, v[(i + (int)rounds) % 2]);
        r[rounds] = v[1][metric] / v[0][metric];
    }
    if (rc != TUNE_OK || x->rank != 0)
        return rc;
    x->experiments += 2 * rounds;
    x->experiment_s += kit_now() - t0;
    if (rounds < RACE_MIN_ROUNDS)
        return TUNE_OK;
    double med = race_median(r, rounds);
    if (!isfinite(med))
        return TUNE_OK; /* a failed native: no noise to report */
    if (x->naa_pair == x->capaa_pair) {
        size_t cap = x->capaa_pair ? 2 * x->capaa_pair : 16;
        double *nv = realloc(x->aa_pair, cap * sizeof(*nv));
        if (nv == NULL) {
            snprintf(x->err, sizeof(x->err), "out of memory for an A/A pair");
            return TUNE_ENOMEM; /* rank 0 alone: tune_collective's agreement spreads it */
        }
        x->aa_pair = nv;
        x->capaa_pair = cap;
    }
    x->aa_pair[x->naa_pair++] = fabs(med - 1.0);
    if (x->o->progress)
        fprintf(stderr, TUNE_NAME ": A/A %s p=%d %llu: native against itself %.1f %% (%s, "
                "%zu rounds)\n", acct_coll_name(x->coll), x->size, (unsigned long long)x->m,
                100 * fabs(med - 1.0), race_view_name(metric), rounds);
    return TUNE_OK;
}

/* The median and a quantile q of v[0..n-1] (sorted in place); n >= 1. */
static void summary(double *v, size_t n, double q, double *med, double *qv)
{
    qsort(v, n, sizeof(*v), cmp_dbl); /* sorted for the caller: v[n - 1] the max */
    *med = race_median(v, n);
    *qv = race_quantile(v, n, q);
}

int tune_noise(const struct tune_ctx *x, struct acct_result_noise *nz)
{
    size_t n = 0, cap = x->nrecs + x->nraces + x->naa_pair + 1;
    double *v = malloc(cap * sizeof(*v));
    struct acct_result_load *load = nz->load;
    size_t nload = nz->nload;

    memset(nz, 0, sizeof(*nz));
    nz->load = load; /* the caller's */
    nz->nload = nload;
    if (v == NULL)
        return -1;
    nz->present = true;
    /* the repeat spread: each timed point's interquartile range over its median */
    for (size_t i = 0; i < x->nrecs; i++) {
        const struct tune_record *r = &x->recs[i];
        if (r->ok && r->reps > 1 && r->median_us > 0 && isfinite(r->q3_us - r->q1_us))
            v[n++] = (r->q3_us - r->q1_us) / r->median_us;
    }
    if (n > 0)
        summary(v, n, 0.9, &nz->repeat_spread, &nz->repeat_spread_p90);
    /* the A/A spread: the races' twins, else the pairs */
    n = 0;
    for (size_t i = 0; i < x->nraces; i++)
        if (!isnan(x->aa[i]))
            v[n++] = x->aa[i];
    for (size_t i = 0; i < x->naa_pair; i++)
        v[n++] = x->aa_pair[i];
    if (n > 0) {
        double p90;
        summary(v, n, 0.9, &nz->aa_spread, &p90);
        nz->aa_spread_max = v[n - 1];
        nz->aa_pairs = (uint32_t)n;
    }
    free(v);
    return 0;
}

void tune_race_summary(const struct tune_ctx *x)
{
    size_t naa = 0;
    double *aa;

    if (x->o->race == 0)
        return;
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        size_t races = 0;
        if (x->search_exps[c] == 0 && x->race_exps[c] == 0)
            continue;
        for (size_t i = 0; i < x->nraces; i++)
            races += x->races[i].coll == (enum acct_coll_id)c;
        printf(TUNE_NAME ": racing %s: %zu points raced, %llu race experiments (%.1f s) against "
               "%llu search experiments (%.1f s): %.2fx the search's experiments, %.2fx its "
               "time\n", acct_coll_name((enum acct_coll_id)c), races,
               (unsigned long long)x->race_exps[c], x->race_s[c],
               (unsigned long long)x->search_exps[c], x->search_s[c],
               x->search_exps[c] ? (double)x->race_exps[c] / (double)x->search_exps[c] : 0.0,
               x->search_s[c] > 0 ? x->race_s[c] / x->search_s[c] : 0.0);
    }
    aa = malloc((x->nraces ? x->nraces : 1) * sizeof(*aa));
    for (size_t i = 0; aa != NULL && i < x->nraces; i++)
        if (!isnan(x->aa[i]))
            aa[naa++] = x->aa[i];
    if (aa != NULL && naa > 0) {
        qsort(aa, naa, sizeof(*aa), cmp_dbl);
        printf(TUNE_NAME ": noise: A/A spread (native against itself, interleaved, on each "
               "race's metric) median %.1f %%, 90th percentile %.1f %%, max %.1f %% over %zu "
               "races\n", 100 * race_median(aa, naa), 100 * race_quantile(aa, naa, 0.9),
               100 * aa[naa - 1], naa);
    }
    free(aa);
}
