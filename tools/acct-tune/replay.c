/* acct-tune-replay: the search strategies replayed on one exhaustive run's
 * journal, and the model-accuracy report (docs/acct-tune.md "How well they
 * do (real measurements)" and "Model accuracy"). No MPI.
 *
 *   acct-tune-replay [options] STATE
 *
 * STATE is an acct-tune journal (--state) of a --strategy exhaustive run
 * (tools/acct-tune/dataset.sh makes one over a whole grid). Every strategy
 * is run by the very code acct-tune runs (search.h), its oracle answering
 * from the journal; so the comparison is free of run-to-run noise. A grid
 * point enters the comparison only when the journal holds every experiment
 * of its exhaustive search, and only the complete points from the smallest
 * size of each (collective, communicator size) upwards (a budget cuts a
 * row's large sizes): the plane the combination walks.
 *
 * Counts per strategy: experiments (the oracle's measure and proxy calls
 * that ran something) and experiment-seconds, each experiment costing
 * (reps + 1) x its median (the check call plus the timed repetitions, as
 * kit_measure runs them with --warmup 0); the penalty of each point's
 * decision is its measured median / the point's best median - 1. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/force.h"
#include "acct/model.h"
#include "acct/stats.h"
#include "plane.h"
#include "plogp_file.h"
#include "search.h"
#include "tune.h"

#define MAX_SEGS 40
#define MAX_ROWS 64
#define MAX_COLS 64

struct opts {
    const char *state, *plogp, *report, *noise;
    double pair_duplex; /* --pair-duplex D: nodes.pair_duplex_factor, instead of the
                           levels' measured one (0: not given) */
    double pair_overlap; /* --pair-duplex-overlap C: nodes.pair_duplex_overlap_bytes,
                            instead of the .nic file's (-1: not given) */
    const char *trace;   /* --trace SPEC: print the simulated rounds of one call, exit */
    double trace_bytes;  /* --trace-bytes B */
    double trace_ranks;  /* --trace-ranks P */
    const char *levels; /* --levels PREFIX: PREFIX.intra, .inter, .nic (acct-tune --plogp-out) */
    size_t row_stride, col_stride;
    double model_margin;
    double noise_band;   /* mgd/smgd: tune_params.noise (--noise-band) */
    int lookahead;
    uint64_t min_segment;
    int max_segments;
    int nodes_rpn;       /* --levels' ranks per node: the node-aware methods of a call
                          * spanning nodes with some node holding 2 or more ranks, as
                          * acct-tune measured them (0: no layout, none) */
    bool model_report;
    bool run_methods;    /* --run-methods: a point's methods are the algorithms the journal
                          * holds at (collective, size): a run from before an algorithm was
                          * registered keeps its points */
    uint64_t min_bytes;  /* planes start at this message size (smaller points left out) */
    bool pen_min;        /* penalties on each experiment's minimum, not its median */
    double keep;         /* plane: a full search started from a hint measures only the
                          * methods within (1 + keep) of the hint cell's best there;
                          * < 0: all */
    double check;        /* plane: > 0: measure each interpolated decision once; above
                          * (1 + check) x the neighbours' (log-interpolated) cost, the
                          * cell is searched fully instead */
};

/* One point's search space and replay oracle. */
struct point {
    const struct tune_state *st;
    const struct acct_model *mdl; /* NULL: no model */
    enum acct_coll_id coll;
    int p;
    uint64_t m;
    struct tune_method *methods;
    size_t nm;
    uint64_t segs[MAX_SEGS];
    size_t nsegs;
    size_t nsegm[256];
    int proxy[256];
    int proxy_size;
    double mbest[256];   /* per method: the best cost measured (+inf) */
    bool *en;            /* per method: enabled (NULL = all) */
    /* accounting */
    size_t experiments;
    double seconds;
    bool missing;
};

/* The record of (method, seg bytes) on comm size p, or NULL. */
static const struct tune_record *find(const struct point *x, const struct acct_decision *d,
                                      int p, uint64_t seg)
{
    struct tune_record key;

    memset(&key, 0, sizeof(key));
    key.coll = (int32_t)x->coll;
    key.comm_size = p;
    key.bytes = x->m;
    key.alg = (int32_t)acct_alg_index(d->alg);
    key.fanout = d->fanout;
    key.segment = seg;
    return tune_state_find(x->st, &key);
}

static double rec_cost(const struct tune_record *r)
{
    return r != NULL && r->ok ? r->median_us : INFINITY;
}

static bool pen_on_min;

/* The cost a penalty is computed on: the median, or with --penalty-on min
 * the minimum (delays on a loaded host only add time). */
static double rec_pen(const struct tune_record *r)
{
    return r != NULL && r->ok ? (pen_on_min ? r->min_us : r->median_us) : INFINITY;
}

static double rec_seconds(const struct tune_record *r)
{
    return r != NULL && r->ok ? (double)(r->reps + 1) * r->median_us * 1e-6 : 0.0;
}

static int or_measure(void *ctx, size_t method, size_t seg, double *cost)
{
    struct point *x = ctx;
    struct acct_decision d = x->methods[method].d;

    d.segment_bytes = x->segs[seg];
    *cost = INFINITY;
    if (!tune_applicable(x->coll, &d, x->p, x->m))
        return TUNE_OK;
    const struct tune_record *r = find(x, &x->methods[method].d, x->p, x->segs[seg]);
    if (r == NULL) {
        x->missing = true;
        return TUNE_OK;
    }
    x->experiments++;
    x->seconds += rec_seconds(r);
    *cost = rec_cost(r);
    x->mbest[method] = fmin(x->mbest[method], *cost);
    return TUNE_OK;
}

static int or_proxy(void *ctx, int cls, size_t seg, double *cost)
{
    struct point *x = ctx;
    struct acct_decision d;

    (void)cls;
    *cost = INFINITY;
    if (tune_proxy_method(x->coll, &d) != 0)
        return TUNE_OK;
    const struct tune_record *r = find(x, &d, x->proxy_size, x->segs[seg]);
    if (r == NULL) {
        x->missing = true;
        return TUNE_OK;
    }
    x->experiments++;
    x->seconds += rec_seconds(r);
    *cost = rec_cost(r);
    return TUNE_OK;
}

static int or_model(void *ctx, size_t method, size_t seg, double *cost)
{
    struct point *x = ctx;
    struct acct_decision d = x->methods[method].d;

    d.segment_bytes = x->segs[seg];
    *cost = INFINITY;
    if (x->mdl != NULL && tune_applicable(x->coll, &d, x->p, x->m))
        *cost = acct_model_predict(x->coll, &d, x->p, x->m, x->mdl);
    else if (x->mdl == NULL)
        *cost = NAN;
    return TUNE_OK;
}

/* The relative spread (IQR / median) of the record just measured. */
static int or_spread(void *ctx, size_t method, size_t seg, double *rel)
{
    struct point *x = ctx;
    const struct tune_record *r = find(x, &x->methods[method].d, x->p, x->segs[seg]);

    *rel = r != NULL && r->ok && r->median_us > 0.0 ? (r->q3_us - r->q1_us) / r->median_us : 0.0;
    return TUNE_OK;
}

static int point_init(struct point *x, const struct tune_state *st, const struct acct_model *mdl,
                      const struct opts *o, enum acct_coll_id coll, int p, uint64_t m)
{
    memset(x, 0, sizeof(*x));
    x->st = st;
    x->mdl = mdl;
    x->coll = coll;
    x->p = p;
    x->m = m;
    /* the node-aware methods only with --levels' layout (acct-tune tried
     * them where the job's ranks spanned nodes, some node holding two) and
     * when the journal holds one of them at (coll, p): a journal measured
     * without them keeps its complete points */
    bool nodes = false;
    for (size_t i = 0; o->nodes_rpn >= 2 && p > o->nodes_rpn && !nodes && i < st->n; i++)
        nodes = st->v[i].coll == (int32_t)coll && st->v[i].comm_size == p &&
                (acct_algs[st->v[i].alg].flags & ACCT_ALG_NODES);
    if (tune_methods(coll, p, nodes, &x->methods, &x->nm) != 0 || x->nm > 256)
        return -1;
    size_t keep = 0;
    for (size_t i = 0; i < x->nm; i++) {
        bool held = !o->run_methods;
        for (size_t j = 0; !held && j < st->n; j++)
            held = st->v[j].coll == (int32_t)coll && st->v[j].comm_size == p &&
                   &acct_algs[st->v[j].alg] == x->methods[i].d.alg;
        if (held)
            x->methods[keep++] = x->methods[i];
    }
    x->nm = keep;
    x->nsegs = tune_segments(m, o->min_segment, o->max_segments, x->segs);
    for (size_t i = 0; i < x->nm; i++) {
        x->mbest[i] = INFINITY;
        x->nsegm[i] = (x->methods[i].d.alg->flags & ACCT_ALG_SEGMENTED) ? x->nsegs : 1;
        x->proxy[i] = x->methods[i].proxy;
    }
    int h = 0;
    while ((1 << h) < p)
        h++;
    x->proxy_size = h + 1 < p ? h + 1 : p;
    return 0;
}

static void point_free(struct point *x)
{
    free(x->methods);
    x->methods = NULL;
}

static struct tune_space point_space(struct point *x)
{
    return (struct tune_space){ .nmethods = x->nm, .nsegs = x->nsegm, .proxy = x->proxy,
                                .enabled = x->en };
}

static struct tune_oracle point_oracle(struct point *x)
{
    return (struct tune_oracle){ .ctx = x, .measure = or_measure, .proxy = or_proxy,
                                 .model = x->mdl != NULL ? or_model : NULL,
                                 .spread = or_spread };
}

/* The point's best measured median (every applicable experiment; +inf if
 * none ran) and whether the journal holds all of them. */
static bool point_best(struct point *x, double *best)
{
    *best = INFINITY;
    for (size_t i = 0; i < x->nm; i++)
        for (size_t g = 0; g < x->nsegm[i]; g++) {
            struct acct_decision d = x->methods[i].d;
            d.segment_bytes = x->segs[g];
            if (!tune_applicable(x->coll, &d, x->p, x->m))
                continue;
            const struct tune_record *r = find(x, &x->methods[i].d, x->p, x->segs[g]);
            if (r == NULL)
                return false;
            *best = fmin(*best, rec_pen(r));
        }
    return true;
}

/* The measured cost of decision d (segment in d) at x (+inf: cannot run). */
static double decision_cost(const struct point *x, const struct acct_decision *d)
{
    if (!tune_applicable(x->coll, d, x->p, x->m))
        return INFINITY;
    return rec_pen(find(x, d, x->p, d->segment_bytes));
}

/* ---- the plane of one collective (plane.c's walk over the journal) ----------------- */

struct replay_src {
    const struct tune_state *st;
    const struct acct_model *mdl;
    const struct opts *o;
    enum acct_coll_id coll;
    const int *p;
    const uint64_t *m;
    struct point x;       /* the open cell */
    size_t experiments;
    double seconds;
};

static int rs_open(void *ctx, size_t row, size_t col, struct tune_plane_point *pt)
{
    struct replay_src *s = ctx;

    if (point_init(&s->x, s->st, s->mdl, s->o, s->coll, s->p[row], s->m[col]) != 0) {
        point_free(&s->x);
        return TUNE_ENOMEM;
    }
    *pt = (struct tune_plane_point){ .methods = s->x.methods, .nm = s->x.nm, .segs = s->x.segs,
                                     .nsegs = s->x.nsegs, .oracle = point_oracle(&s->x) };
    return TUNE_OK;
}

static void rs_close(void *ctx, size_t row, size_t col)
{
    struct replay_src *s = ctx;

    (void)row;
    (void)col;
    s->experiments += s->x.experiments;
    s->seconds += s->x.seconds;
    point_free(&s->x);
}

/* ---- tallies ------------------------------------------------------------------------ */

#define MAX_PEN 100000

struct tally {
    const char *name;
    size_t experiments, points, exact;
    size_t seeds, seeds_won; /* mgd/smgd: the model's segment measured after a noisy step */
    size_t neighbours, neighbours_won; /* after a losing seed: the descent's next segment */
    double seconds;
    double *pen;
    size_t npen;
};

static void tally_add(struct tally *t, double chosen, double best)
{
    double pen = isinf(chosen) ? INFINITY : chosen / best - 1.0;
    if (t->npen < MAX_PEN)
        t->pen[t->npen++] = pen;
    t->exact += pen <= 0.0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void tally_print(struct tally *t, const struct tally *ref)
{
    double sum = 0.0;
    qsort(t->pen, t->npen, sizeof(double), cmp_d);
    for (size_t i = 0; i < t->npen; i++)
        sum += t->pen[i];
    double med = t->npen ? (t->npen % 2 ? t->pen[t->npen / 2]
                                        : (t->pen[t->npen / 2 - 1] + t->pen[t->npen / 2]) / 2)
                         : 0.0;
    char er[32] = "-", sr[32] = "-";
    if (t->experiments > 0)
        snprintf(er, sizeof(er), "%.1fx", (double)ref->experiments / (double)t->experiments);
    if (t->seconds > 0)
        snprintf(sr, sizeof(sr), "%.1fx", ref->seconds / t->seconds);
    printf("| %s | %zu | %.1f | %s | %s | %.2f%% | %.2f%% | %.1f%% | %zu/%zu |\n", t->name,
           t->experiments, t->seconds, er, sr, t->npen ? 100.0 * sum / (double)t->npen : 0.0,
           100.0 * med, t->npen ? 100.0 * t->pen[t->npen - 1] : 0.0, t->exact, t->npen);
}

/* The two levels acct-tune --plogp-out wrote beside its table (issue 21):
 * PREFIX.intra, PREFIX.inter (pLogP tables) and PREFIX.nic ("acct-nic 1",
 * then "pairs K", "gap_factor F", "ranks_per_node N", "placement
 * block|cyclic"). 0, or -1 with "FILE:LINE: message". */
static int read_levels(const char *prefix, struct acct_model_nodes *n, char *err, size_t len)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s.intra", prefix);
    if (tune_plogp_read(path, &n->intra, err, len) != 0)
        return -1;
    snprintf(path, sizeof path, "%s.inter", prefix);
    if (tune_plogp_read(path, &n->inter, err, len) != 0)
        return -1;
    snprintf(path, sizeof path, "%s.nic", prefix);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, len, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    int ln = 0, bad = 0;
    char word[64];
    while (!bad && fgets(line, sizeof line, f) != NULL) {
        ln++;
        if (ln == 1) {
            bad = strncmp(line, "acct-nic 1", 10) != 0;
            continue;
        }
        double v = 0;
        if (sscanf(line, "pairs %lf", &v) == 1)
            n->nic_pairs = (int)v;
        else if (sscanf(line, "gap_factor %lf", &v) == 1)
            n->nic_gap_factor = v;
        else if (sscanf(line, "bidir_pairs %lf", &v) == 1)
            n->nic_bidir_pairs = (int)v;
        else if (sscanf(line, "bidir_gap_factor %lf", &v) == 1)
            n->nic_bidir_factor = v;
        else if (sscanf(line, "pair_duplex_factor %lf", &v) == 1)
            n->pair_duplex_factor = v;
        else if (sscanf(line, "pair_duplex_overlap_bytes %lf", &v) == 1 && v >= 0 &&
                 v <= 1073741824.0)
            n->pair_duplex_overlap_bytes = (uint64_t)v;
        else if (sscanf(line, "ranks_per_node %lf", &v) == 1)
            n->ranks_per_node = (int)v;
        else if (sscanf(line, "placement %63s", word) == 1 &&
                 (strcmp(word, "block") == 0 || strcmp(word, "cyclic") == 0))
            n->cyclic = strcmp(word, "cyclic") == 0;
        else
            bad = 1;
    }
    fclose(f);
    if (bad || n->ranks_per_node < 1) {
        snprintf(err, len, "%.300s:%d: expected \"acct-nic 1\", then pairs, gap_factor, "
                 "ranks_per_node (>= 1), placement block|cyclic", path, bad ? ln : ln + 1);
        return -1;
    }
    if (n->nic_pairs < 2)
        n->nic_pairs = 0, n->nic_gap_factor = 0; /* not measured */
    if (n->nic_bidir_pairs < 2 || !(n->nic_bidir_factor >= 1))
        n->nic_bidir_pairs = 0, n->nic_bidir_factor = 0; /* not measured (older files) */
    if (!(n->pair_duplex_factor >= 1 && n->pair_duplex_factor <= 100))
        n->pair_duplex_factor = 0; /* not measured (older files) */
    return 0;
}

/* ---- --trace: one call's simulated rounds ------------------------------------------ */

static void trace_round(void *ctx, const struct acct_model_round *r)
{
    (void)ctx;
    printf("%d\t%u\t%.1f\t%.1f\t%.1f\t%.1f\t%llu\t%llu\n", r->rank, r->round, r->start_us,
           r->end_us, r->end_us - r->start_us, r->local_us, (unsigned long long)r->intra_bytes,
           (unsigned long long)r->inter_bytes);
}

/* Simulate SPEC (ACCT_FORCE syntax, one collective) at --trace-bytes on
 * --trace-ranks ranks with every rank (the model as the other options made
 * it) and print each rank's rounds: the trace of docs/models.md "The
 * simulator". 0, or 1 with a message. */
static int trace(const struct opts *o, struct acct_model *mdl)
{
    struct acct_force f;
    struct acct_diags d = {0};
    char err[512];
    if (acct_force_parse(o->trace, &f, &d) != 0 || f.count != 1 || !(o->trace_bytes >= 1) ||
        !(o->trace_ranks >= 2)) {
        fprintf(stderr, "acct-tune-replay: --trace needs one valid COLL=ALG[:SEG[:FANOUT]] "
                        "(\"%s\"), --trace-bytes and --trace-ranks\n", o->trace);
        acct_diags_free(&d);
        return 1;
    }
    acct_diags_free(&d);
    int c = 0;
    while (!f.forced[c])
        c++;
    struct acct_call call;
    acct_model_call((enum acct_coll_id)c, &f.d[c], (int)o->trace_ranks, (uint64_t)o->trace_bytes,
                    0, &call);
    double t = 0;
    printf("# %s, %.0f bytes, %.0f ranks%s; every rank's rounds (us)\n"
           "rank\tround\tstart\tend\tlength\tlocal\tintra_bytes\tinter_bytes\n",
           o->trace, o->trace_bytes, o->trace_ranks,
           mdl->nodes.ranks_per_node > 0 ? ", the levels' layout" : ", one network");
    mdl->round_fn = trace_round;
    int rc = acct_model_simulate_view(f.d[c].alg, &call, mdl, ACCT_MODEL_VIEW_FULL, &t, NULL, err,
                                      sizeof err);
    mdl->round_fn = NULL;
    if (rc != 0) {
        fprintf(stderr, "acct-tune-replay: --trace %s: %s\n", o->trace, err);
        return 1;
    }
    printf("# predicted %.1f us\n", t);
    return 0;
}

/* ---- the run ----------------------------------------------------------------------- */

enum { S_EXH, S_MGD, S_SMGD, S_PIPE, S_MODEL, S_HYBRID, S_COMBO, S_COMBO_SMGD, S_N };

struct plane_set {
    enum acct_coll_id coll;
    size_t nrows;
    int p[MAX_ROWS];
    size_t ncols[MAX_ROWS];
    uint64_t m[MAX_COLS];
    size_t nm;
};

static int usage(void)
{
    fprintf(stderr,
            "usage: acct-tune-replay [--plogp FILE] [--levels PREFIX] [--pair-duplex D]\n"
            "         [--pair-duplex-overlap BYTES] [--row-stride N]\n"
            "         [--trace COLL=ALG[:SEG[:FANOUT]] --trace-bytes B --trace-ranks P]\n"
            "         [--col-stride N]\n"
            "         [--model-margin X] [--lookahead N] [--noise-band X] [--keep X] [--check X]\n"
            "         [--penalty-on min|median] [--noise STATE2] [--min-bytes B]\n"
            "         [--min-segment SIZE] [--max-segments N]\n"
            "         [--model-report] [--run-methods] [--report FILE] STATE\n");
    return 2;
}

/* A whole number in [lo, hi] or a decimal >= 0: 0, or -1 with a message. */
static int num(const char *opt, const char *arg, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno != 0 || end == arg || *end != '\0' || !(v >= lo && v <= hi)) {
        fprintf(stderr, "acct-tune-replay: %s: \"%s\" is not a number in [%g, %g]\n", opt, arg,
                lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    double v = 0;
    int rc = 0;
    *o = (struct opts){ .pair_overlap = -1, .row_stride = 3, .col_stride = 3, .model_margin = 1.0, .lookahead = 2,
                        .noise_band = 0.05,
                        .min_segment = 1024, .max_segments = 12, .keep = -1 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(a, "--plogp") == 0 && more)
            o->plogp = argv[++i];
        else if (strcmp(a, "--levels") == 0 && more)
            o->levels = argv[++i];
        else if (strcmp(a, "--pair-duplex") == 0 && more &&
                 (rc = num(a, argv[++i], 1, 100, &v)) == 0)
            o->pair_duplex = v;
        else if (strcmp(a, "--pair-duplex-overlap") == 0 && more &&
                 (rc = num(a, argv[++i], 0, 1073741824.0, &v)) == 0)
            o->pair_overlap = v;
        else if (strcmp(a, "--trace") == 0 && more)
            o->trace = argv[++i];
        else if (strcmp(a, "--trace-bytes") == 0 && more &&
                 (rc = num(a, argv[++i], 1, 1073741824.0, &v)) == 0)
            o->trace_bytes = v;
        else if (strcmp(a, "--trace-ranks") == 0 && more &&
                 (rc = num(a, argv[++i], 2, 65536, &v)) == 0)
            o->trace_ranks = v;
        else if (strcmp(a, "--report") == 0 && more)
            o->report = argv[++i];
        else if (strcmp(a, "--row-stride") == 0 && more &&
                 (rc = num(a, argv[++i], 1, 64, &v)) == 0)
            o->row_stride = (size_t)v;
        else if (strcmp(a, "--col-stride") == 0 && more &&
                 (rc = num(a, argv[++i], 1, 64, &v)) == 0)
            o->col_stride = (size_t)v;
        else if (strcmp(a, "--model-margin") == 0 && more &&
                 (rc = num(a, argv[++i], 0, 1e6, &v)) == 0)
            o->model_margin = v;
        else if (strcmp(a, "--noise-band") == 0 && more &&
                 (rc = num(a, argv[++i], 0, 100, &v)) == 0)
            o->noise_band = v;
        else if (strcmp(a, "--lookahead") == 0 && more && (rc = num(a, argv[++i], 0, 40, &v)) == 0)
            o->lookahead = (int)v;
        else if (strcmp(a, "--noise") == 0 && more)
            o->noise = argv[++i];
        else if (strcmp(a, "--check") == 0 && more && (rc = num(a, argv[++i], 0, 1e6, &v)) == 0)
            o->check = v;
        else if (strcmp(a, "--keep") == 0 && more && (rc = num(a, argv[++i], 0, 1e6, &v)) == 0)
            o->keep = v;
        else if (strcmp(a, "--min-bytes") == 0 && more &&
                 (rc = num(a, argv[++i], 0, 1u << 30, &v)) == 0)
            o->min_bytes = (uint64_t)v;
        else if (strcmp(a, "--penalty-on") == 0 && more)
            o->pen_min = strcmp(argv[++i], "min") == 0;
        else if (strcmp(a, "--model-report") == 0)
            o->model_report = true;
        else if (strcmp(a, "--run-methods") == 0)
            o->run_methods = true;
        else if (strcmp(a, "--min-segment") == 0 && more) {
            char msg[128];
            if (acct_size_parse(argv[++i], &o->min_segment, msg, sizeof msg) != ACCT_STATS_OK ||
                o->min_segment < 1) {
                fprintf(stderr, "acct-tune-replay: --min-segment: \"%s\": %s\n", argv[i],
                        o->min_segment < 1 ? "must be at least 1 byte" : msg);
                return -1;
            }
        } else if (strcmp(a, "--max-segments") == 0 && more &&
                   (rc = num(a, argv[++i], 1, MAX_SEGS, &v)) == 0)
            o->max_segments = (int)v;
        else if (a[0] != '-' && o->state == NULL)
            o->state = a;
        else
            return -1;
        if (rc != 0)
            return -1;
    }
    if (o->state == NULL || o->row_stride < 1 || o->row_stride > 64 || o->col_stride < 1 ||
        o->col_stride > 64 || !(o->model_margin >= 0) || o->lookahead < 0 ||
        (o->model_report && o->plogp == NULL) || (o->levels != NULL && o->plogp == NULL))
        return -1;
    return 0;
}

/* The planes: per collective, the communicator sizes and, per size, the
 * complete points from the smallest message size up. */
static size_t find_planes(const struct tune_state *st, const struct opts *o,
                          struct plane_set *ps)
{
    size_t np = 0;

    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        struct plane_set *q = &ps[np];
        memset(q, 0, sizeof(*q));
        q->coll = (enum acct_coll_id)c;
        /* message sizes and comm sizes present */
        for (size_t i = 0; i < st->n; i++) {
            const struct tune_record *r = &st->v[i];
            if (r->coll != c || r->bytes < o->min_bytes)
                continue;
            size_t k = 0;
            while (k < q->nm && q->m[k] != r->bytes)
                k++;
            if (k == q->nm && q->nm < MAX_COLS)
                q->m[q->nm++] = r->bytes;
            k = 0;
            while (k < q->nrows && q->p[k] != r->comm_size)
                k++;
            if (k == q->nrows && q->nrows < MAX_ROWS)
                q->p[q->nrows++] = r->comm_size;
        }
        for (size_t a = 0; a < q->nm; a++) /* sort */
            for (size_t b = a + 1; b < q->nm; b++)
                if (q->m[b] < q->m[a]) {
                    uint64_t t = q->m[a];
                    q->m[a] = q->m[b];
                    q->m[b] = t;
                }
        for (size_t a = 0; a < q->nrows; a++)
            for (size_t b = a + 1; b < q->nrows; b++)
                if (q->p[b] < q->p[a]) {
                    int t = q->p[a];
                    q->p[a] = q->p[b];
                    q->p[b] = t;
                }
        size_t rows = 0;
        for (size_t r = 0; r < q->nrows; r++) {
            size_t n = 0;
            bool ok = true;
            while (ok && n < q->nm) {
                struct point x;
                double best;
                ok = point_init(&x, st, NULL, o, q->coll, q->p[r], q->m[n]) == 0 &&
                     point_best(&x, &best) && !isinf(best);
                point_free(&x);
                n += ok;
            }
            if (n > 0) {
                q->p[rows] = q->p[r];
                q->ncols[rows++] = n;
            }
        }
        q->nrows = rows;
        if (rows > 0)
            np++;
    }
    return np;
}

static int run_point_strategy(const struct tune_state *st, const struct acct_model *mdl,
                              const struct opts *o, enum tune_strategy s, enum acct_coll_id coll,
                              int p, uint64_t m, struct tally *t)
{
    struct point x;
    struct tune_result r;
    struct tune_params pa;
    double best = INFINITY;
    int rc = TUNE_ENOMEM;

    tune_params_default(&pa);
    pa.strategy = s;
    pa.lookahead = o->lookahead;
    pa.model_margin = o->model_margin;
    pa.noise = o->noise_band;
    if (point_init(&x, st, mdl, o, coll, p, m) != 0)
        goto out;
    point_best(&x, &best);
    struct tune_space sp = point_space(&x);
    struct tune_oracle orc = point_oracle(&x);
    rc = tune_search(&sp, &orc, &pa, &r);
    if (rc == TUNE_OK) {
        struct acct_decision d = x.methods[r.found ? r.method : 0].d;
        d.segment_bytes = x.segs[r.found ? r.seg : 0];
        t->experiments += x.experiments;
        t->seconds += x.seconds;
        t->points++;
        t->seeds += r.seeds;
        t->seeds_won += r.seeds_won;
        t->neighbours += r.neighbours;
        t->neighbours_won += r.neighbours_won;
        tally_add(t, r.found ? decision_cost(&x, &d) : INFINITY, best);
    }
out:
    point_free(&x);
    return rc;
}

static int run_plane(const struct tune_state *st, const struct acct_model *mdl,
                     const struct opts *o, const struct plane_set *q, enum tune_strategy inner,
                     struct tally *t)
{
    struct replay_src s = { .st = st, .mdl = mdl, .o = o, .coll = q->coll, .p = q->p,
                            .m = q->m };
    struct tune_plane_src src = { .ctx = &s, .coll = q->coll, .nrows = q->nrows,
                                  .ncols = q->ncols, .p = q->p, .m = q->m, .open = rs_open,
                                  .close = rs_close };
    struct tune_plane_opts po = { .row_stride = o->row_stride, .col_stride = o->col_stride,
                                  .keep = o->keep, .check = o->check };
    size_t maxc = tune_plane_maxcols(&src);
    struct tune_plane_cell *cells = calloc(q->nrows * maxc, sizeof(*cells));
    int rc = TUNE_ENOMEM;

    if (cells == NULL)
        goto out;
    tune_params_default(&po.params);
    po.params.strategy = inner;
    po.params.lookahead = o->lookahead;
    po.params.model_margin = o->model_margin;
    po.params.noise = o->noise_band;
    rc = tune_plane_walk(&src, &po, cells);
    for (size_t r = 0; r < q->nrows && rc == TUNE_OK; r++)
        for (size_t col = 0; col < q->ncols[r]; col++) {
            struct point x;
            double best = INFINITY;
            point_init(&x, st, NULL, o, q->coll, q->p[r], q->m[col]);
            point_best(&x, &best);
            const struct tune_plane_cell *v = &cells[r * maxc + col];
            double chosen = v->set ? decision_cost(&x, &v->d) : INFINITY;
            tally_add(t, chosen, best);
            if (getenv("ACCT_REPLAY_DEBUG") != NULL && chosen > 1.5 * best) {
                char dec[128];
                acct_decision_format(&v->d, dec, sizeof(dec));
                fprintf(stderr, "%s p=%d m=%llu kind %d: %s %.1f us, best %.1f us\n",
                        acct_coll_name(q->coll), q->p[r], (unsigned long long)q->m[col],
                        (int)v->kind, dec, chosen, best);
            }
            t->points++;
            point_free(&x);
        }
    t->experiments += s.experiments;
    t->seconds += s.seconds;
out:
    free(cells);
    return rc;
}

/* The noise floor: exhaustive search's own penalty against a second,
 * independent exhaustive run of the same points (STATE2): each point's
 * best of STATE timed in STATE2, against STATE2's best. A strategy cannot be judged more finely
 * than this on these measurements. */
static int noise_floor(const struct tune_state *st, const struct opts *o,
                       const struct plane_set *ps, size_t nps)
{
    struct tune_state st2;
    char err[512];
    struct tally t = { .name = "exhaustive run 1, timed by run 2" };

    if (tune_state_read(&st2, o->noise, err, sizeof(err)) != 0) {
        fprintf(stderr, "acct-tune-replay: %s\n", err);
        return -1;
    }
    t.pen = malloc(MAX_PEN * sizeof(double));
    for (size_t k = 0; k < nps && t.pen != NULL; k++)
        for (size_t r = 0; r < ps[k].nrows; r++)
            for (size_t col = 0; col < ps[k].ncols[r]; col++) {
                struct point x, y;
                double b1 = INFINITY, b2 = INFINITY;
                struct acct_decision d1 = { 0 };
                point_init(&x, st, NULL, o, ps[k].coll, ps[k].p[r], ps[k].m[col]);
                point_init(&y, &st2, NULL, o, ps[k].coll, ps[k].p[r], ps[k].m[col]);
                if (point_best(&y, &b2) && !isinf(b2)) {
                    for (size_t i = 0; i < x.nm; i++)
                        for (size_t g = 0; g < x.nsegm[i]; g++) {
                            struct acct_decision d = x.methods[i].d;
                            d.segment_bytes = x.segs[g];
                            double c = decision_cost(&x, &d);
                            if (c < b1) {
                                b1 = c;
                                d1 = d;
                            }
                        }
                    tally_add(&t, d1.alg != NULL ? decision_cost(&y, &d1) : INFINITY, b2);
                    t.points++;
                }
                point_free(&x);
                point_free(&y);
            }
    if (t.pen != NULL) {
        printf("\nnoise floor (%s): %zu points in both runs\n", o->noise, t.points);
        printf("| | experiments | experiment-s | | | mean penalty | median penalty | max penalty "
               "| exact |\n|---|---|---|---|---|---|---|---|---|\n");
        tally_print(&t, &t);
    }
    free(t.pen);
    tune_state_close(&st2);
    return 0;
}

/* ---- the model-accuracy report ------------------------------------------------------ */

/* The model's accuracy over a set of points (one collective, or all). */
struct accuracy {
    double *err;          /* relative errors of every method compared, MAX_PEN at most */
    size_t nerr;
    size_t points, best;  /* points compared; the model's choice = the measured best */
    size_t method;        /* the same method, whatever segment */
    size_t within;        /* the model's choice within 10 % of the measured best (issue 21) */
    double pensum;        /* sum of the model's choice's penalties */
};

/* The 90th percentile's index among n sorted values (nearest rank). */
static size_t p90_index(size_t n)
{
    size_t k = (9 * n + 9) / 10;
    return k > 0 ? k - 1 : 0;
}

static void accuracy_add_error(struct accuracy *a, double e)
{
    if (a->nerr < MAX_PEN)
        a->err[a->nerr++] = e;
}

/* Every measured method of one point against the model's prediction: errors
 * into both accumulators, rows into f, and whether the model's cheapest
 * method is the measured best. */
static void report_point(struct point *x, const struct acct_model *mdl, FILE *f,
                         struct accuracy *coll, struct accuracy *all)
{
    double best = INFINITY, pbest = INFINITY, pmeas = INFINITY;
    const struct acct_decision *bd = NULL, *pd = NULL;
    uint64_t bseg = 0, pseg = 0;

    for (size_t i = 0; i < x->nm; i++)
        for (size_t g = 0; g < x->nsegm[i]; g++) {
            struct acct_decision d = x->methods[i].d;
            d.segment_bytes = x->segs[g];
            double meas = decision_cost(x, &d);
            if (isinf(meas))
                continue;
            double pred = acct_model_predict(x->coll, &d, x->p, x->m, mdl);
            /* the repetitions' range, for "within the measured spread" */
            const struct tune_record *rec = find(x, &d, x->p, d.segment_bytes);
            double lo = rec != NULL ? rec->min_us : meas, hi = rec != NULL ? rec->max_us : meas;
            if (meas < best) {
                best = meas;
                bd = &x->methods[i].d;
                bseg = x->segs[g];
            }
            if (isnan(pred) || isinf(pred)) {
                /* measured only (native): a candidate for the measured best */
                if (f != NULL) {
                    char dec[128];
                    acct_decision_format(&d, dec, sizeof(dec));
                    fprintf(f, "%s\t%d\t%llu\t%s\t%.9g\tnan\tnan\t%.9g\t%.9g\n",
                            acct_coll_name(x->coll), x->p, (unsigned long long)x->m, dec, meas,
                            lo, hi);
                }
                continue;
            }
            double e = fabs(pred - meas) / meas;
            accuracy_add_error(coll, e);
            accuracy_add_error(all, e);
            if (pred < pbest) {
                pbest = pred;
                pmeas = meas;
                pd = &x->methods[i].d;
                pseg = x->segs[g];
            }
            if (f != NULL) {
                char dec[128];
                acct_decision_format(&d, dec, sizeof(dec));
                fprintf(f, "%s\t%d\t%llu\t%s\t%.9g\t%.9g\t%.4f\t%.9g\t%.9g\n",
                        acct_coll_name(x->coll), x->p, (unsigned long long)x->m, dec, meas, pred,
                        e, lo, hi);
            }
        }
    if (pd != NULL && bd != NULL) {
        coll->points++;
        coll->best += pd == bd && pseg == bseg;
        coll->method += pd == bd;
        coll->within += pmeas <= 1.10 * best;
        coll->pensum += pmeas / best - 1.0;
    }
}

static int model_report(const struct tune_state *st, const struct acct_model *mdl,
                        const struct opts *o, const struct plane_set *ps, size_t nps)
{
    FILE *f = NULL;
    struct accuracy all = { .err = malloc(MAX_PEN * sizeof(double)) };
    struct accuracy coll = { .err = malloc(MAX_PEN * sizeof(double)) };
    int rc = -1;

    if (coll.err == NULL || all.err == NULL)
        goto out;
    /* is each table a network's (acct_plogp_consistent)? a model built on
     * one that is not is not valid here, whatever the figures below say */
    const struct acct_plogp *tabs[] = {&mdl->net, &mdl->nodes.intra, &mdl->nodes.inter};
    static const char *const tnames[] = {"pair (ranks 0, 1)", "intra", "inter"};
    int bad = 0;
    for (int i = 0; i < (mdl->nodes.ranks_per_node > 0 ? 3 : 1); i++) {
        char why[256];
        if (acct_plogp_consistent(tabs[i], why, sizeof why) != 0) {
            printf("pLogP table %s: NOT consistent: %s\n", tnames[i], why);
            bad++;
        } else {
            printf("pLogP table %s: consistent\n", tnames[i]);
        }
    }
    if (mdl->nodes.ranks_per_node > 0)
        printf("NIC factor: one way %g at %d pairs; two-way %g at %d pairs (0: not measured); "
               "pair both ways %g (%s; 0: no such term), beyond the first %llu bytes of a "
               "message (0: all of it)\n",
               mdl->nodes.nic_gap_factor, mdl->nodes.nic_pairs, mdl->nodes.nic_bidir_factor,
               mdl->nodes.nic_bidir_pairs, mdl->nodes.pair_duplex_factor,
               o->pair_duplex > 0                   ? "--pair-duplex"
               : mdl->nodes.pair_duplex_factor > 0 ? "measured, the levels' .nic file"
                                                   : "not measured",
               (unsigned long long)mdl->nodes.pair_duplex_overlap_bytes);
    printf("model validity: %s\n\n",
           bad ? "NOT valid (a table the model uses is not a network's; the figures below are "
                 "what it would predict)"
               : "tables consistent");
    if (o->report != NULL && (f = fopen(o->report, "w")) == NULL) {
        fprintf(stderr, "acct-tune-replay: %s: %s\n", o->report, strerror(errno));
        goto out;
    }
    if (f != NULL)
        fprintf(f, "# collective\tcomm_size\tbytes\tmethod\tmeasured_us\tpredicted_us"
                "\trel_error\tmin_us\tmax_us\n");
    printf("| collective | points | experiments compared | median rel. error | max rel. error | "
           "model's best = measured best | same method | penalty of the model's choice (mean) | "
           "p90 rel. error | model's best within 10 %% |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < nps; k++) {
        const struct plane_set *q = &ps[k];
        coll.nerr = coll.points = coll.best = coll.method = coll.within = 0;
        coll.pensum = 0.0;
        for (size_t r = 0; r < q->nrows; r++)
            for (size_t col = 0; col < q->ncols[r]; col++) {
                struct point x;
                point_init(&x, st, mdl, o, q->coll, q->p[r], q->m[col]);
                report_point(&x, mdl, f, &coll, &all);
                point_free(&x);
            }
        qsort(coll.err, coll.nerr, sizeof(double), cmp_d);
        all.points += coll.points;
        all.best += coll.best;
        all.method += coll.method;
        all.within += coll.within;
        if (coll.nerr > 0)
            printf("| %s | %zu | %zu | %.0f%% | %.0f%% | %zu/%zu | %zu/%zu | %.0f%% | %.0f%% | "
                   "%zu/%zu |\n",
                   acct_coll_name(q->coll), coll.points, coll.nerr,
                   100.0 * coll.err[coll.nerr / 2], 100.0 * coll.err[coll.nerr - 1], coll.best,
                   coll.points, coll.method, coll.points,
                   coll.points ? 100.0 * coll.pensum / (double)coll.points : 0.0,
                   100.0 * coll.err[p90_index(coll.nerr)], coll.within, coll.points);
    }
    qsort(all.err, all.nerr, sizeof(double), cmp_d);
    if (all.nerr > 0)
        printf("| all | %zu | %zu | %.0f%% | %.0f%% | %zu/%zu | %zu/%zu | | %.0f%% | %zu/%zu |\n",
               all.points, all.nerr, 100.0 * all.err[all.nerr / 2],
               100.0 * all.err[all.nerr - 1], all.best, all.points, all.method, all.points,
               100.0 * all.err[p90_index(all.nerr)], all.within, all.points);
    rc = 0;
    if (f != NULL && fclose(f) != 0)
        rc = -1;
out:
    free(coll.err);
    free(all.err);
    return rc;
}

/* The planes found in the journal and the replay's settings. */
static void print_planes(const struct opts *o, const struct plane_set *ps, size_t nps)
{
    size_t npoints = 0;

    for (size_t k = 0; k < nps; k++) {
        printf("%s: comm sizes", acct_coll_name(ps[k].coll));
        for (size_t r = 0; r < ps[k].nrows; r++) {
            printf(" %d (%zu sizes)", ps[k].p[r], ps[k].ncols[r]);
            npoints += ps[k].ncols[r];
        }
        printf("\n");
    }
    printf("%zu complete points; strides: %zu communicator sizes, %zu message sizes; "
           "model margin %g; lookahead %d; keep %g; check %g; penalties on the %s; from %llu "
           "bytes\n\n", npoints, o->row_stride, o->col_stride, o->model_margin, o->lookahead,
           o->keep, o->check, o->pen_min ? "minimum" : "median", (unsigned long long)o->min_bytes);
}

/* Replay every strategy over every plane, one table row each (t[s]). */
static int replay_strategies(const struct tune_state *st, const struct acct_model *mp,
                             const struct opts *o, const struct plane_set *ps, size_t nps,
                             struct tally *t)
{
    static const enum tune_strategy point_s[] = { TUNE_EXHAUSTIVE, TUNE_MGD, TUNE_SMGD,
                                                  TUNE_PIPELINE, TUNE_MODEL, TUNE_HYBRID };

    printf("| strategy | experiments | experiment-s | vs exhaustive (experiments) | "
           "vs exhaustive (seconds) | mean penalty | median penalty | max penalty | exact |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
    for (int s = 0; s < S_N; s++) {
        bool needs_model = s == S_MODEL || s == S_HYBRID || s == S_COMBO;
        if (needs_model && mp == NULL)
            continue;
        for (size_t k = 0; k < nps; k++) {
            const struct plane_set *q = &ps[k];
            if (s == S_COMBO || s == S_COMBO_SMGD) {
                if (run_plane(st, mp, o, q, s == S_COMBO ? TUNE_HYBRID : TUNE_SMGD, &t[s]) !=
                    TUNE_OK)
                    return -1;
                continue;
            }
            for (size_t r = 0; r < q->nrows; r++)
                for (size_t col = 0; col < q->ncols[r]; col++)
                    if (run_point_strategy(st, mp, o, point_s[s], q->coll, q->p[r], q->m[col],
                                           &t[s]) != TUNE_OK)
                        return -1;
        }
        tally_print(&t[s], &t[S_EXH]);
    }
    /* the noisy-rise seeds (docs/acct-tune.md "Noisy steps"): only with a model */
    for (int s = S_MGD; s <= S_SMGD && mp != NULL; s++)
        printf("%s%s: %zu seeds (the model's segment after a noisy step), %zu improved the "
               "method's best; %zu next segments after a losing seed, %zu improved it%s",
               s == S_MGD ? "\n" : "; ", t[s].name, t[s].seeds, t[s].seeds_won,
               t[s].neighbours, t[s].neighbours_won, s == S_SMGD ? "\n" : "");
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct tune_state st;
    struct acct_model mdl, *mp = NULL;
    char err[512];
    static struct plane_set ps[ACCT_COLL_COUNT];
    struct tally t[S_N];
    static const char *const names[S_N] = {
        "exhaustive", "mgd", "smgd", "pipeline (longest edge)", "model (nothing measured)",
        "model-pruned (hybrid)", "combination: plane + hybrid", "combination: plane + smgd",
    };
    int rc = 1;

    memset(t, 0, sizeof(t));
    if (parse_args(argc, argv, &o) != 0)
        return usage();
    pen_on_min = o.pen_min;
    if (tune_state_read(&st, o.state, err, sizeof(err)) != 0) {
        fprintf(stderr, "acct-tune-replay: %s\n", err);
        return 1;
    }
    if (o.plogp != NULL) {
        acct_model_init(&mdl);
        if (tune_plogp_read(o.plogp, &mdl.net, err, sizeof(err)) != 0) {
            fprintf(stderr, "acct-tune-replay: %s\n", err);
            goto out;
        }
        mp = &mdl;
    }
    if (o.levels != NULL && read_levels(o.levels, &mdl.nodes, err, sizeof(err)) != 0) {
        fprintf(stderr, "acct-tune-replay: %s\n", err);
        goto out;
    }
    if (o.levels != NULL && o.pair_duplex > 0)
        mdl.nodes.pair_duplex_factor = o.pair_duplex; /* given: instead of the measured one */
    if (o.levels != NULL && o.pair_overlap >= 0)
        mdl.nodes.pair_duplex_overlap_bytes = (uint64_t)o.pair_overlap;
    if (o.levels != NULL)
        o.nodes_rpn = mdl.nodes.ranks_per_node;
    if (o.trace != NULL) {
        rc = mp != NULL ? trace(&o, &mdl) : (fprintf(stderr, "acct-tune-replay: --trace needs "
                                                             "--plogp\n"), 1);
        goto out;
    }
    size_t nps = find_planes(&st, &o, ps);
    print_planes(&o, ps, nps);
    for (int s = 0; s < S_N; s++) {
        t[s] = (struct tally){ .name = names[s], .pen = malloc(MAX_PEN * sizeof(double)) };
        if (t[s].pen == NULL)
            goto out;
    }
    if (replay_strategies(&st, mp, &o, ps, nps, t) != 0)
        goto out;
    if (o.noise != NULL && noise_floor(&st, &o, ps, nps) != 0)
        goto out;
    if (o.model_report) {
        printf("\n");
        if (model_report(&st, mp, &o, ps, nps) != 0)
            goto out;
    }
    rc = 0;
out:
    for (int s = 0; s < S_N; s++)
        free(t[s].pen);
    tune_state_close(&st);
    return rc;
}
