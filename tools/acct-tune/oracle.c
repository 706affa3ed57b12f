/* acct-tune: the MPI experiments behind the search's cost oracle, and the
 * search of each grid point on one sub-communicator.
 *
 * Every rank of the sub-communicator runs the same search in lockstep. Each
 * time the search asks for a cost, every rank makes the same
 * acct_tool_force() call, the experiment runs (kit_measure: check, warm-up,
 * timed repetitions, a repetition's time = the max over ranks), rank 0
 * summarises it and broadcasts the summary; so every rank sees the same
 * numbers, the search takes the same path everywhere and the next forced
 * method is the same on every rank (docs/architecture.md rule 1). The budget is rank
 * 0's verdict, broadcast before every experiment. Measurements found in the
 * resume journal are replayed without running anything. */
#include "oracle.h"

#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/layout.h"
#include "acct/tool.h"
#include "plane.h"
#include "race.h"

#define BUF_ALIGN 64
#define FORCE_SPEC_LEN 160
#define DECISION_LEN 120

/* ---- experiments ------------------------------------------------------------ */

bool tune_budget_over(struct tune_ctx *x)
{
    int stop = x->stopped;

    if (x->rank == 0 && !stop && x->o->budget_s > 0.0)
        stop = kit_now() - x->t_start > x->o->budget_s;
    PMPI_Bcast(&stop, 1, MPI_INT, 0, x->comm);
    x->stopped = stop;
    return stop != 0;
}

void tune_force_spec(enum acct_coll_id coll, const struct acct_decision *d, uint64_t seg,
                     char *buf, size_t len)
{
    struct acct_decision f = *d;
    char dec[DECISION_LEN];

    f.segment_bytes = seg;
    f.reorder = false;
    acct_decision_format(&f, dec, sizeof(dec));
    snprintf(buf, len, "%s=%s", acct_coll_name(coll), dec);
}

/* Run the experiment of (x->coll, d, seg) on comm (x->comm or the proxy
 * communicator; ranks of x->comm outside it only wait for the summary).
 * Fills rec (the same on every rank of x->comm). */
static int run_experiment(struct tune_ctx *x, MPI_Comm comm, const struct acct_decision *d,
                          uint64_t seg, struct tune_record *rec)
{
    int rc = TUNE_OK;
    int forced = 0, all_forced = 0, reps = 0, bad = 0;
    char spec[FORCE_SPEC_LEN] = "";
    double t0 = kit_now();

    if (comm != MPI_COMM_NULL) {
        struct bench_call *c = &x->call;
        MPI_Comm saved = c->comm;
        int saved_rank = c->rank, saved_size = c->size;
        c->comm = comm;
        PMPI_Comm_rank(comm, &c->rank);
        PMPI_Comm_size(comm, &c->size);
        c->count = (int)(x->coll == ACCT_COLL_barrier ? 0 : x->m);
        tune_force_spec(x->coll, d, seg, spec, sizeof(spec));
        forced = acct_tool_force(spec) == 0;
        PMPI_Allreduce(&forced, &all_forced, 1, MPI_INT, MPI_MIN, comm);
        if (all_forced) {
            struct kit_timing t = { .warmup = x->o->warmup, .iterations = x->o->reps,
                                    .time_limit = x->o->point_limit_s,
                                    .min_time = x->o->min_time_s,
                                    .max_iterations = tune_timed_reps_max(x->o) };
            enum kit_status st = kit_measure(x->bcoll, c, &t, x->times, x->max_us, &reps, &bad);
            if (st != KIT_OK && c->rank == 0)
                fprintf(stderr, TUNE_NAME ": warning: %s on %d ranks, %llu bytes: %s on rank "
                        "%d; the method is not used\n", spec, c->size,
                        (unsigned long long)x->m, st == KIT_WRONG_RESULT ? "wrong result"
                                                                         : "call failed", bad);
            double views[RACE_VIEWS] = { 0, 0, 0 };
            if (st == KIT_OK) /* collective over comm: every rank's time */
                tune_views(comm, x->times, x->max_us, x->sum_us, reps, views);
            if (st == KIT_OK && c->rank == 0) {
                struct acct_summary s;
                rec->has_views = 1;
                rec->avg_us = views[RACE_VIEW_AVG];
                rec->rank_max_us = views[RACE_VIEW_RANK_MAX];
                if (acct_stats_summarize(x->max_us, (size_t)reps, ACCT_STATS_OUTLIER_K, &s) ==
                    ACCT_STATS_OK) {
                    rec->ok = 1;
                    rec->reps = (int32_t)reps;
                    rec->median_us = s.median;
                    rec->q1_us = s.p25;
                    rec->q3_us = s.p75;
                    rec->min_us = s.min;
                    rec->max_us = s.max;
                }
            }
        }
        c->comm = saved;
        c->rank = saved_rank;
        c->size = saved_size;
    }
    /* everyone in x->comm learns the outcome from rank 0 (rank 0 of comm too) */
    PMPI_Bcast(&all_forced, 1, MPI_INT, 0, x->comm);
    PMPI_Bcast(rec, (int)sizeof(*rec), MPI_BYTE, 0, x->comm);
    if (!all_forced) {
        snprintf(x->err, sizeof(x->err), "acct_tool_force(\"%s\") failed: libacct is not "
                 "active in this process (ACCT_DISABLE set? runtime not loaded?)", spec);
        rc = TUNE_EFAIL;
    }
    if (x->rank == 0) {
        x->experiments++;
        x->experiment_s += kit_now() - t0;
        x->search_exps[x->coll]++;
        x->search_s[x->coll] += kit_now() - t0;
    }
    return rc;
}

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

void tune_views(MPI_Comm comm, const double *times, const double *max_us, double *sum_us,
                int reps, double *views)
{
    int rank = 0, size = 1;
    double mine = 0.0, rank_max = 0.0, all = 0.0;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    /* each rank's mean over its own calls: what OSU and IMB report per rank
     * (a program that makes the calls back to back feels their sum, slow
     * calls included); the slowest rank's is the rank-max view, the mean
     * over ranks the average view — the definitions acct-ab, the OSU check
     * and the race share (docs/acct-tune.md "Which time") */
    for (int i = 0; i < reps; i++)
        mine += times[i];
    if (reps > 0)
        mine /= reps;
    PMPI_Reduce(&mine, &rank_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    PMPI_Reduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (rank == 0) {
        views[RACE_VIEW_AVG] = all * 1e6 / size;
        views[RACE_VIEW_RANK_MAX] = rank_max * 1e6;
        /* the slowest rank's time per call, median over the calls (acct-tune's
         * median_us: the search's statistic, robust to a stray slow call) */
        views[RACE_VIEW_MAX] = INFINITY;
        if (reps > 0) {
            memcpy(sum_us, max_us, (size_t)reps * sizeof(*sum_us));
            qsort(sum_us, (size_t)reps, sizeof(*sum_us), cmp_dbl);
            views[RACE_VIEW_MAX] =
                reps % 2 ? sum_us[reps / 2] : (sum_us[reps / 2 - 1] + sum_us[reps / 2]) / 2;
        }
    }
}

/* Append a record to the run's list (the result's measurements, kept by
 * rank 0). Collective over x->comm: every rank learns rank 0's verdict. */
static int keep_record(struct tune_ctx *x, const struct tune_record *r)
{
    int rc = TUNE_OK;

    if (x->rank == 0 && x->nrecs == x->caprecs) {
        size_t c = x->caprecs ? 2 * x->caprecs : 1024;
        struct tune_record *nv = realloc(x->recs, c * sizeof(*nv));
        if (nv == NULL) {
            snprintf(x->err, sizeof(x->err), "out of memory for the measurements");
            rc = TUNE_ENOMEM;
        } else {
            x->recs = nv;
            x->caprecs = c;
        }
    }
    if (x->rank == 0 && rc == TUNE_OK)
        x->recs[x->nrecs++] = *r;
    PMPI_Bcast(&rc, 1, MPI_INT, 0, x->comm);
    return rc;
}

/* The cost of (d, seg) on comm: from the journal, or measured. keep: the
 * record belongs to the result (not a proxy's). */
static int experiment(struct tune_ctx *x, MPI_Comm comm, int comm_size,
                      const struct acct_decision *d, uint64_t seg, bool keep, double *cost)
{
    int rc = TUNE_OK;
    struct tune_record rec;
    const struct tune_record *hit = NULL;
    bool plane = x->o->primary == TUNE_PRIMARY_PLANE;

    memset(&rec, 0, sizeof(rec));
    rec.coll = (int32_t)x->coll;
    rec.comm_size = comm_size;
    rec.bytes = x->m;
    rec.alg = (int32_t)acct_alg_index(d->alg);
    rec.fanout = d->fanout;
    rec.segment = seg;
    if (plane && (hit = tune_state_find(&x->seen, &rec)) != NULL) {
        *cost = hit->ok ? hit->median_us : INFINITY; /* kept already */
        return TUNE_OK;
    }
    hit = tune_state_find(&x->state, &rec);
    if (hit != NULL) {
        rec = *hit;
        x->replayed++;
    } else if (tune_budget_over(x)) {
        rc = TUNE_STOP;
    } else {
        rc = run_experiment(x, comm, d, seg, &rec);
        if (rc == TUNE_OK && x->rank == 0 && tune_state_append(&x->state, &rec) != 0) {
            snprintf(x->err, sizeof(x->err), "%s: cannot append to the state file",
                     x->o->state);
            rc = TUNE_EFAIL;
        }
        PMPI_Bcast(&rc, 1, MPI_INT, 0, x->comm);
    }
    if (rc == TUNE_OK && keep && rec.ok)
        rc = keep_record(x, &rec);
    if (rc == TUNE_OK && plane) {
        int ok = tune_state_insert(&x->seen, &x->capseen, &rec) == 0, all = 0;
        PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, x->comm);
        if (!all) {
            snprintf(x->err, sizeof(x->err), "out of memory for the run's experiments");
            rc = TUNE_ENOMEM;
        }
    }
    *cost = rec.ok ? rec.median_us : INFINITY;
    /* rec is rank 0's summary on every rank (broadcast): the same spread */
    x->last_spread = rec.ok && rec.median_us > 0.0 ? (rec.q3_us - rec.q1_us) / rec.median_us : 0.0;
    return rc;
}

int tune_experiment(struct tune_ctx *x, const struct acct_decision *d, uint64_t seg,
                    double *cost)
{
    return experiment(x, x->ecomm, x->esize, d, seg, true, cost);
}

/* ---- the oracle callbacks ----------------------------------------------------- */

static int oracle_measure(void *ctx, size_t method, size_t seg, double *cost)
{
    struct tune_ctx *x = ctx;
    const struct acct_decision *d = &x->methods[method].d;
    struct acct_decision with_seg = *d;

    with_seg.segment_bytes = x->segs[seg];
    if (!tune_applicable(x->coll, &with_seg, x->esize, x->m)) {
        *cost = INFINITY;
        return TUNE_OK;
    }
    return experiment(x, x->ecomm, x->esize, d, x->segs[seg], true, cost);
}

static int oracle_proxy(void *ctx, int cls, size_t seg, double *cost)
{
    struct tune_ctx *x = ctx;
    struct acct_decision d;

    (void)cls; /* one class per collective: its pipeline */
    if (tune_proxy_method(x->coll, &d) != 0) {
        *cost = INFINITY;
        return TUNE_OK;
    }
    return experiment(x, x->proxy_comm, x->proxy_size, &d, x->segs[seg], false, cost);
}

static int oracle_model(void *ctx, size_t method, size_t seg, double *cost)
{
    struct tune_ctx *x = ctx;
    struct acct_decision d = x->methods[method].d;

    d.segment_bytes = x->segs[seg];
    *cost = INFINITY; /* cannot run */
    tune_model_fn f = x->model_cost != NULL ? x->model_cost : x->seed_cost;
    if (f != NULL && tune_applicable(x->coll, &d, x->esize, x->m))
        *cost = f(x->model_ctx, x->coll, &d, x->esize, x->m); /* NAN: unknown */
    return TUNE_OK;
}

/* The spread of the experiment just measured (search.h: called right
 * after measure). */
static int oracle_spread(void *ctx, size_t method, size_t seg, double *rel)
{
    struct tune_ctx *x = ctx;

    (void)method;
    (void)seg;
    *rel = x->last_spread;
    return TUNE_OK;
}

/* Every rank of the communicator allocated its search (or none starts). */
static int oracle_ready(void *ctx, int ok)
{
    struct tune_ctx *x = ctx;
    int all = 0;

    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, x->comm);
    if (!all)
        snprintf(x->err, sizeof(x->err), "out of memory for the search");
    return all;
}

/* ---- one point ------------------------------------------------------------------- */

const struct tune_params *tune_point_params(const struct tune_opts *o, enum acct_coll_id coll,
                                            struct tune_params *storage)
{
    if (acct_coll_bytes_alike(coll) || o->params.strategy == TUNE_MODEL)
        return &o->params;
    *storage = o->params;
    storage->strategy = TUNE_EXHAUSTIVE;
    return storage;
}

/* Search message size m among the methods allowed (NULL: all). */
static int search_point(struct tune_ctx *x, uint64_t m, const size_t *allowed, size_t nallowed,
                        struct tune_result *r)
{
    int rc = TUNE_OK;
    size_t nm = x->nmethods;
    size_t *nsegs = malloc(nm * sizeof(*nsegs));
    int *proxy = malloc(nm * sizeof(*proxy));
    bool *en = malloc(nm * sizeof(*en));
    struct tune_oracle oracle = { .ctx = x, .measure = oracle_measure,
                                  .proxy = x->proxy_comm_valid ? oracle_proxy : NULL,
                                  .model = x->model_cost != NULL || x->seed_cost != NULL
                                               ? oracle_model : NULL,
                                  .ready = oracle_ready, .spread = oracle_spread };
    struct tune_space sp = { .nmethods = nm, .nsegs = nsegs, .proxy = proxy, .enabled = en };
    struct tune_params prm;

    if (!oracle_ready(x, nsegs != NULL && proxy != NULL && en != NULL)) {
        rc = TUNE_ENOMEM;
        goto out;
    }
    x->m = m;
    x->nsegs = tune_segments(m, x->o->min_segment, x->o->max_segments, x->segs);
    for (size_t i = 0; i < nm; i++) {
        bool seg = (x->methods[i].d.alg->flags & ACCT_ALG_SEGMENTED) != 0;
        nsegs[i] = seg ? x->nsegs : 1;
        proxy[i] = x->proxy_comm_valid ? x->methods[i].proxy : -1;
        en[i] = allowed == NULL;
    }
    for (size_t k = 0; k < nallowed; k++)
        en[allowed[k]] = true;
    rc = tune_search(&sp, &oracle, tune_point_params(x->o, x->coll, &prm), r);
    if (rc == TUNE_OK && x->o->strategy == TUNE_MODEL && r->found) {
        /* model only: the chosen method is the result's (modelled) point */
        struct tune_record rec;
        memset(&rec, 0, sizeof(rec));
        rec.coll = (int32_t)x->coll;
        rec.comm_size = x->esize;
        rec.bytes = m;
        rec.alg = (int32_t)acct_alg_index(x->methods[r->method].d.alg);
        rec.fanout = x->methods[r->method].d.fanout;
        rec.segment = x->segs[r->seg];
        rec.ok = 1;
        rec.median_us = rec.q1_us = rec.q3_us = rec.min_us = rec.max_us = r->cost;
        rc = keep_record(x, &rec);
    }
out:
    free(nsegs);
    free(proxy);
    free(en);
    return rc;
}

static int primary_search(void *ctx, size_t i, const size_t *allowed, size_t nallowed,
                          struct tune_result *r)
{
    struct tune_ctx *x = ctx;
    return search_point(x, x->sizes[i], allowed, nallowed, r);
}

/* One --progress line: point (x->esize ranks, m bytes) decided as d (NULL:
 * nothing could run); how: "N evaluations", "interpolated", ... */
static void progress_line(struct tune_ctx *x, uint64_t m, const struct acct_decision *d,
                          bool complete, const char *how)
{
    char size[ACCT_SIZE_FORMAT_LEN], dec[FORCE_SPEC_LEN] = "-";
    double el = kit_now() - x->t_start;

    x->done++;
    if (x->rank != 0 || !x->o->progress)
        return;
    if (acct_size_format(m, size, sizeof(size)) != ACCT_STATS_OK)
        snprintf(size, sizeof(size), "0");
    if (d != NULL)
        acct_decision_format(d, dec, sizeof(dec));
    double eta = x->done > 0 ? el / (double)x->done * (double)(x->total - x->done) : 0.0;
    fprintf(stderr, TUNE_NAME ": [%zu/%zu] %s p=%d %s: best %s%s, %s, elapsed %.0fs, ETA "
            "%.0fs\n", x->done, x->total, acct_coll_name(x->coll), x->esize, size, dec,
            complete ? "" : " (stopped)", how, el, eta);
}

static void progress(struct tune_ctx *x, uint64_t m, const struct tune_result *r)
{
    struct acct_decision d;
    char how[64];
    /* --strategy reduced: a size decided by its neighbours (nothing
     * evaluated) has their method; its segment index is theirs, not one
     * of x->segs (which are the last searched size's), so only the method */
    bool interpolated = r->found && r->evals + r->proxy_evals + r->model_evals == 0;

    if (r->found) {
        d = x->methods[r->method].d;
        d.segment_bytes = interpolated ? 0 : x->segs[r->seg];
    }
    if (interpolated)
        snprintf(how, sizeof(how), "interpolated (method only)");
    else
        snprintf(how, sizeof(how), "%zu evaluations", r->evals + r->proxy_evals);
    progress_line(x, m, r->found ? &d : NULL, r->complete, how);
}

/* ---- one (collective, communicator) ------------------------------------------------ */

static void *buf_alloc(size_t bytes, int *ok)
{
    void *p = NULL;

    if (bytes > 0) {
        if (posix_memalign(&p, BUF_ALIGN, bytes) == 0)
            memset(p, 0, bytes);
        else
            p = NULL;
        *ok = *ok && p != NULL;
    }
    return p;
}

/* Which node each rank of x->comm is on, the same labels on every rank
 * (x->node): ACCT_LAYOUT's pretended placement when set (as the runtime's
 * locality does, docs/runtime.md), else the node's lowest rank from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); one allgather. TUNE_OK, or
 * TUNE_ENOMEM (agreed). Node-aware methods are searched on the
 * communicators whose layout calls for them (tune_nodes_among). */
static int tune_layout(struct tune_ctx *x)
{
    int label = -1, zero = 0, ok;
    const char *pretend = getenv("ACCT_LAYOUT");
    MPI_Comm local = MPI_COMM_NULL;
    MPI_Group lg = MPI_GROUP_NULL, cg = MPI_GROUP_NULL;

    if (pretend != NULL && *pretend != '\0')
        label = acct_layout_pattern_label(pretend, x->rank_world);
    if (label < 0) {
        if (PMPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, x->rank, MPI_INFO_NULL, &local) ==
                MPI_SUCCESS &&
            PMPI_Comm_group(local, &lg) == MPI_SUCCESS &&
            PMPI_Comm_group(x->comm, &cg) == MPI_SUCCESS &&
            PMPI_Group_translate_ranks(lg, 1, &zero, cg, &label) != MPI_SUCCESS)
            label = -1;
        if (lg != MPI_GROUP_NULL)
            PMPI_Group_free(&lg);
        if (cg != MPI_GROUP_NULL)
            PMPI_Group_free(&cg);
        if (local != MPI_COMM_NULL)
            PMPI_Comm_free(&local);
        if (label == MPI_UNDEFINED)
            label = -1;
    }
    x->node = malloc((size_t)x->size * sizeof(*x->node));
    ok = x->node != NULL;
    if (!oracle_ready(x, ok))
        return TUNE_ENOMEM;
    if (PMPI_Allgather(&label, 1, MPI_INT, x->node, 1, MPI_INT, x->comm) != MPI_SUCCESS)
        ok = 0;
    for (int r = 0; ok && r < x->size; r++)
        ok = x->node[r] >= 0;
    if (!ok) /* no layout: every rank its own node (no node-aware methods) */
        for (int r = 0; r < x->size; r++)
            x->node[r] = -1 - r;
    return TUNE_OK;
}

/* The benchmark of x->coll, this rank's place in x->comm, buffers for the
 * largest size, the proxy communicator, the methods. */
static int comm_setup(struct tune_ctx *x)
{
    int ok = 1, all_ok = 0, ovf = 0;
    uint64_t max_m = 0;
    struct bench_call *c = &x->call;

    x->bcoll = bench_coll_find(acct_coll_name(x->coll));
    PMPI_Comm_rank(x->comm, &x->rank);
    PMPI_Comm_size(x->comm, &x->size);
    x->proxy_comm = MPI_COMM_NULL; /* comm_teardown frees it */
    x->proxy_comm_valid = false;
    if (x->bcoll == NULL) {
        snprintf(x->err, sizeof(x->err), "no benchmark for %s", acct_coll_name(x->coll));
        return TUNE_EFAIL;
    }

    if (tune_layout(x) != TUNE_OK) {
        snprintf(x->err, sizeof(x->err), "out of memory");
        return TUNE_ENOMEM;
    }
    for (size_t i = 0; i < x->nsizes; i++)
        max_m = x->sizes[i] > max_m ? x->sizes[i] : max_m;
    memset(c, 0, sizeof(*c));
    c->comm = x->comm;
    c->rank = x->rank;
    c->size = x->size;
    c->root = 0;
    c->dtype = bench_dtype_find("byte");
    size_t sb = bench_blocks_bytes(x->bcoll->send, (size_t)max_m, x->size, x->rank == 0, &ovf);
    size_t rb = bench_blocks_bytes(x->bcoll->recv, (size_t)max_m, x->size, x->rank == 0, &ovf);
    ok = !ovf;
    if (kit_agree(kit_memory_fits(x->comm, ovf || sb > SIZE_MAX - rb ? SIZE_MAX : sb + rb,
                                  x->err, sizeof(x->err)),
                  x->err, sizeof(x->err), x->comm) != 0)
        return TUNE_EFAIL;
    c->sbuf = buf_alloc(sb, &ok);
    c->rbuf = buf_alloc(rb, &ok);
    /* room for an experiment's repetitions and for a race's (--race-reps) */
    size_t nt = (size_t)(tune_timed_reps_max(x->o) > x->o->race_reps ? tune_timed_reps_max(x->o)
                                                                     : x->o->race_reps);
    x->times = malloc(nt * sizeof(*x->times));
    x->max_us = malloc(nt * sizeof(*x->max_us));
    x->sum_us = malloc(nt * sizeof(*x->sum_us));
    x->segs = malloc((size_t)x->o->max_segments * sizeof(*x->segs));
    ok = ok && x->times != NULL && x->max_us != NULL && x->sum_us != NULL && x->segs != NULL &&
         tune_methods(x->coll, x->size, tune_nodes_among(x->node, x->size), &x->methods,
                      &x->nmethods) == 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, x->comm);
    if (!all_ok) {
        snprintf(x->err, sizeof(x->err), "cannot allocate buffers for %s of %llu bytes on %d "
                 "ranks", acct_coll_name(x->coll), (unsigned long long)max_m, x->size);
        return TUNE_ENOMEM;
    }
    /* the pipeline's longest edge: ceil(log2 p) hops, so ceil(log2 p) + 1 ranks */
    x->proxy_comm = MPI_COMM_NULL;
    x->proxy_comm_valid = false;
    struct acct_decision pd;
    if (x->o->strategy == TUNE_PIPELINE && tune_proxy_method(x->coll, &pd) == 0) {
        int h = 0;
        while ((1 << h) < x->size)
            h++;
        x->proxy_size = h + 1 < x->size ? h + 1 : x->size;
        if (MPI_Comm_split(x->comm, x->rank < x->proxy_size ? 0 : MPI_UNDEFINED, x->rank,
                           &x->proxy_comm) == MPI_SUCCESS)
            x->proxy_comm_valid = true;
    }
    return TUNE_OK;
}

static void comm_teardown(struct tune_ctx *x)
{
    free(x->call.sbuf);
    free(x->call.rbuf);
    free(x->times);
    free(x->max_us);
    free(x->sum_us);
    x->sum_us = NULL;
    free(x->segs);
    free(x->methods);
    free(x->node);
    x->node = NULL;
    if (x->proxy_comm != MPI_COMM_NULL)
        MPI_Comm_free(&x->proxy_comm);
    x->call.sbuf = x->call.rbuf = NULL;
    x->times = x->max_us = NULL;
    x->segs = NULL;
    x->methods = NULL;
    x->nmethods = 0;
}

/* Rank 0: make the journal durable after a point (a failure is a warning:
 * the run goes on, only its resumability suffers). */
static void sync_state(struct tune_ctx *x)
{
    if (x->rank == 0 && tune_state_sync(&x->state) != 0 && !x->sync_warned) {
        fprintf(stderr, TUNE_NAME ": warning: %s: cannot sync the state file: a rerun may "
                "repeat some experiments\n", x->o->state);
        x->sync_warned = true;
    }
}

int tune_comm(struct tune_ctx *x)
{
    int rc = TUNE_OK;
    struct tune_result *res = NULL;

    rc = comm_setup(x);
    if (x->bcoll == NULL)
        return rc;
    x->ecomm = x->comm;
    x->esize = x->size;
    res = calloc(x->nsizes, sizeof(*res));
    if (rc == TUNE_OK && !oracle_ready(x, res != NULL)) /* agreed */
        rc = TUNE_ENOMEM;
    if (rc == TUNE_OK && x->o->primary == TUNE_PRIMARY_REDUCED && acct_coll_bytes_alike(x->coll)) {
        struct tune_primary p = { .ctx = x, .search = primary_search };
        rc = tune_reduced_grid(x->nsizes, x->o->stride, &p, res);
        for (size_t i = 0; i < x->nsizes && rc == TUNE_OK; i++) {
            x->m = x->sizes[i];
            progress(x, x->sizes[i], &res[i]);
            x->incomplete |= !res[i].complete; /* never reached, or stopped */
        }
    } else {
        for (size_t i = 0; i < x->nsizes && rc == TUNE_OK; i++) {
            size_t first = x->nrecs; /* rank 0: this point's records start here */
            rc = search_point(x, x->sizes[i], NULL, 0, &res[i]);
            if (rc == TUNE_OK) {
                progress(x, x->sizes[i], &res[i]);
                x->incomplete |= !res[i].complete;
            }
            sync_state(x);
            if (rc == TUNE_OK && x->after_point != NULL && res[i].found)
                rc = x->after_point(x, x->sizes[i], first);
        }
    }
    if (rc == TUNE_OK && x->after_comm != NULL && x->nsizes > 0)
        rc = x->after_comm(x);
    sync_state(x);
    if (rc != TUNE_OK && x->err[0] == '\0')
        snprintf(x->err, sizeof(x->err), "%s on %d ranks: %s", acct_coll_name(x->coll), x->size,
                 rc == TUNE_ENOMEM ? "out of memory" : "the search failed (a bug)");
    free(res);
    comm_teardown(x);
    return rc;
}

/* ---- --strategy plane: one collective's whole plane (plane.c) ----------------------
 *
 * x->comm holds the largest communicator size; each row's experiments run on
 * the first p[row] ranks of it (the others wait for rank 0's summary, as for
 * the pipeline's proxy), so every rank of x->comm walks the plane in
 * lockstep and the cells are decided alike everywhere. */

struct plane_mpi {
    struct tune_ctx *x;
    const int *p;
    MPI_Comm *rows;                 /* per row; MPI_COMM_NULL on ranks outside */
    struct tune_method **methods;   /* per row */
    size_t *nmethods;
    bool *nodes;                    /* per row: node-aware methods searched */
};

static int pm_open(void *ctx, size_t row, size_t col, struct tune_plane_point *pt)
{
    struct plane_mpi *s = ctx;
    struct tune_ctx *x = s->x;

    x->ecomm = s->rows[row];
    x->esize = s->p[row];
    x->methods = s->methods[row];
    x->nmethods = s->nmethods[row];
    x->m = x->sizes[col];
    x->nsegs = tune_segments(x->m, x->o->min_segment, x->o->max_segments, x->segs);
    *pt = (struct tune_plane_point){
        .methods = x->methods, .nm = x->nmethods, .segs = x->segs, .nsegs = x->nsegs,
        .oracle = { .ctx = x, .measure = oracle_measure,
                    .model = x->model_cost != NULL || x->seed_cost != NULL ? oracle_model
                                                                             : NULL,
                    .spread = oracle_spread,
                    .ready = oracle_ready } };
    return TUNE_OK;
}

static void pm_close(void *ctx, size_t row, size_t col)
{
    struct plane_mpi *s = ctx;

    (void)row;
    (void)col;
    sync_state(s->x);
}

static const char *const cell_how[] = {
    [TUNE_CELL_NONE] = "not decided",
    [TUNE_CELL_FULL] = "searched",
    [TUNE_CELL_VERIFIED] = "verified",
    [TUNE_CELL_INTERPOLATED] = "interpolated",
};

/* The per-row communicators and methods; agreed between the ranks. */
static int plane_rows(struct tune_ctx *x, struct plane_mpi *s, size_t nrows)
{
    int ok = s->rows != NULL && s->methods != NULL && s->nmethods != NULL && s->nodes != NULL;

    for (size_t r = 0; r < nrows && oracle_ready(x, ok); r++) {
        /* MPI_ (not PMPI_): libacct attaches its per-communicator state */
        s->nodes[r] = tune_nodes_among(x->node, s->p[r]); /* the row: comm's first ranks */
        ok = MPI_Comm_split(x->comm, x->rank < s->p[r] ? 0 : MPI_UNDEFINED, x->rank,
                            &s->rows[r]) == MPI_SUCCESS &&
             tune_methods(x->coll, s->p[r], s->nodes[r], &s->methods[r], &s->nmethods[r]) == 0;
    }
    if (!oracle_ready(x, ok)) {
        snprintf(x->err, sizeof(x->err), "%s: cannot make the communicators of the plane",
                 acct_coll_name(x->coll));
        return TUNE_ENOMEM;
    }
    return TUNE_OK;
}

/* Append one decision to rank 0's list of decisions that were not measured
 * (for the decision maps). 0, or -1 when out of memory. */
static int keep_decided(struct tune_ctx *x, int p, uint64_t m, const struct acct_decision *dec)
{
    if (x->ndecided == x->capdecided) {
        size_t c = x->capdecided ? 2 * x->capdecided : 256;
        struct tune_record *nv = realloc(x->decided, c * sizeof(*nv));
        if (nv == NULL)
            return -1;
        x->decided = nv;
        x->capdecided = c;
    }
    struct tune_record *d = &x->decided[x->ndecided++];
    memset(d, 0, sizeof(*d));
    d->coll = (int32_t)x->coll;
    d->comm_size = p;
    d->bytes = m;
    d->alg = (int32_t)acct_alg_index(dec->alg);
    d->fanout = dec->fanout;
    d->segment = dec->segment_bytes;
    d->ok = 1;
    return 0;
}

/* Rank 0 keeps the plane's interpolated decisions; agreed by all ranks. */
static int plane_keep_interpolated(struct tune_ctx *x, const int *p, size_t nrows,
                                   const struct tune_plane_cell *cells)
{
    int ok = 1;

    for (size_t i = 0; x->rank == 0 && i < nrows * x->nsizes && ok; i++) {
        const struct tune_plane_cell *v = &cells[i];
        if (v->kind == TUNE_CELL_INTERPOLATED && v->set)
            ok = keep_decided(x, p[i / x->nsizes], x->sizes[i % x->nsizes], &v->d) == 0;
    }
    if (!oracle_ready(x, ok)) {
        snprintf(x->err, sizeof(x->err), "out of memory for the plane's decisions");
        return TUNE_ENOMEM;
    }
    return TUNE_OK;
}

/* One progress line per cell, and with --progress the plane's summary. */
static void plane_report(struct tune_ctx *x, const int *p, size_t nrows,
                         const struct tune_plane_cell *cells)
{
    size_t kinds[4] = { 0, 0, 0, 0 };

    for (size_t r = 0; r < nrows; r++) {
        x->esize = p[r];
        for (size_t c = 0; c < x->nsizes; c++) {
            const struct tune_plane_cell *v = &cells[r * x->nsizes + c];
            bool complete = v->kind != TUNE_CELL_NONE && !v->stopped;
            progress_line(x, x->sizes[c], v->set ? &v->d : NULL, complete, cell_how[v->kind]);
            kinds[v->kind]++;
            x->incomplete |= !complete;
        }
    }
    if (x->rank == 0 && x->o->progress)
        fprintf(stderr, TUNE_NAME ": %s plane of %zu x %zu cells: %zu searched, %zu verified, "
                "%zu interpolated, %zu not decided\n", acct_coll_name(x->coll), nrows,
                x->nsizes, kinds[TUNE_CELL_FULL], kinds[TUNE_CELL_VERIFIED],
                kinds[TUNE_CELL_INTERPOLATED], kinds[TUNE_CELL_NONE]);
}

int tune_plane(struct tune_ctx *x, const int *p, size_t nrows)
{
    int rc = TUNE_OK;
    struct tune_method *own = NULL;
    size_t nown = 0, *ncols = NULL;
    struct tune_plane_cell *cells = NULL;
    struct plane_mpi s = { .x = x, .p = p };

    rc = comm_setup(x); /* buffers for the largest row: x->comm */
    if (x->bcoll == NULL)
        return rc;
    own = x->methods;
    nown = x->nmethods;
    s.rows = calloc(nrows, sizeof(*s.rows));
    /* the rows are freed below whatever fails; Open MPI's null is not 0 */
    for (size_t r = 0; s.rows != NULL && r < nrows; r++)
        s.rows[r] = MPI_COMM_NULL;
    s.methods = calloc(nrows, sizeof(*s.methods));
    s.nmethods = calloc(nrows, sizeof(*s.nmethods));
    s.nodes = calloc(nrows, sizeof(*s.nodes));
    ncols = calloc(nrows, sizeof(*ncols));
    cells = calloc(nrows * x->nsizes, sizeof(*cells));
    if (rc == TUNE_OK && !oracle_ready(x, ncols != NULL && cells != NULL))
        rc = TUNE_ENOMEM;
    if (rc == TUNE_OK)
        rc = plane_rows(x, &s, nrows);
    if (rc == TUNE_OK) {
        for (size_t r = 0; r < nrows; r++)
            ncols[r] = x->nsizes;
        struct tune_plane_src src = { .ctx = &s, .coll = x->coll, .nrows = nrows,
                                      .ncols = ncols, .p = p, .nodes = s.nodes, .m = x->sizes,
                                      .open = pm_open, .close = pm_close };
        struct tune_plane_opts po = { .row_stride = x->o->row_stride,
                                      .col_stride = x->o->col_stride, .keep = x->o->keep,
                                      .check = x->o->check, .params = x->o->params };
        rc = tune_plane_walk(&src, &po, cells);
    }
    if (rc == TUNE_OK)
        rc = plane_keep_interpolated(x, p, nrows, cells);
    if (rc == TUNE_OK)
        plane_report(x, p, nrows, cells);
    sync_state(x);
    if (rc != TUNE_OK && x->err[0] == '\0')
        snprintf(x->err, sizeof(x->err), "%s plane: %s", acct_coll_name(x->coll),
                 rc == TUNE_ENOMEM ? "out of memory" : "the search failed (a bug)");
    for (size_t r = 0; r < nrows; r++) {
        if (s.rows != NULL && s.rows[r] != MPI_COMM_NULL)
            MPI_Comm_free(&s.rows[r]);
        if (s.methods != NULL)
            free(s.methods[r]);
    }
    free(s.rows);
    free(s.methods);
    free(s.nmethods);
    free(s.nodes);
    free(ncols);
    free(cells);
    x->methods = own;
    x->nmethods = nown;
    comm_teardown(x);
    return rc;
}
