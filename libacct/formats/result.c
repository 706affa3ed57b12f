/* Tuning results: parser, validator and canonical writer (acct/result.h;
 * the format is in docs/tuning-result.md).
 *
 * A result is read in the stages of yamltree.h. The measurements list is
 * streamed: each measurement is checked and stored as soon as libyaml has
 * delivered it, and its part of the tree is reused, so a result of a
 * million points never exists as a tree. The other sections are walked
 * from the tree afterwards; the "rules" section is a complete rules
 * document, walked by rules.c with field paths under "rules.". Then the
 * sections are checked against each other (provenance against run, timed
 * measurements against the run's ranks). A result with any problem is
 * refused as a whole. */
#include "acct/result.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "rules_tree.h"
#include "yamltree.h"

/* Nodes kept besides the streamed measurements: a rules document at its
 * limit (rules.c allows 32 per rule), the hosts and the rest, with room;
 * one measurement at a time on top. */
#define MAX_NODES (32 * ACCT_RULES_MAX_RULES + 2 * ACCT_RESULT_MAX_HOSTS + 4096 + RACE_NODES)
/* The races (acct-tune --race) are kept as a tree too: room for about 2 000
 * races of 6 finalists (27 nodes per finalist, 25 per race). */
#define RACE_NODES 400000

static const char *const result_source_names[] = {
    [ACCT_RESULT_MEASURED] = "measured",
    [ACCT_RESULT_MODEL] = "model",
    [ACCT_RESULT_HYBRID] = "hybrid",
};

/* Word lists for acct_yt_get_word, from the registries they mirror. */
static const char *const placement_words[] = {
    [ACCT_PLACEMENT_NONE] = NULL,
    [ACCT_PLACEMENT_BLOCK] = "block",
    [ACCT_PLACEMENT_CYCLIC] = "cyclic",
    [ACCT_PLACEMENT_MIXED] = "mixed",
};

static const char *const view_words[ACCT_RESULT_VIEWS] = {
    [ACCT_RESULT_VIEW_MAX] = "max",
    [ACCT_RESULT_VIEW_AVG] = "avg",
    [ACCT_RESULT_VIEW_RANK_MAX] = "rank_max",
};

static const char *const verdict_words[ACCT_RESULT_VERDICTS] = {
    [ACCT_RESULT_WINNER] = "winner",         [ACCT_RESULT_SEPARATED] = "separated",
    [ACCT_RESULT_EQUIVALENT] = "equivalent", [ACCT_RESULT_UNDECIDED] = "undecided",
    [ACCT_RESULT_GUARDED] = "guarded",       [ACCT_RESULT_TWIN] = "twin",
};

static const char *const resolve_words[ACCT_RESULT_RESOLVES] = {
    [ACCT_RESULT_BY_TEST] = "test",           [ACCT_RESULT_BY_CAP] = "cap",
    [ACCT_RESULT_BY_NATIVE] = "native",       [ACCT_RESULT_BY_INCUMBENT] = "incumbent",
    [ACCT_RESULT_BY_MODEL] = "model",         [ACCT_RESULT_BY_SPREAD] = "spread",
    [ACCT_RESULT_BY_ORDER] = "order",
};

const char *acct_result_view_name(enum acct_result_view v)
{
    return (unsigned)v < ACCT_RESULT_VIEWS ? view_words[v] : "?";
}

const char *acct_result_verdict_name(enum acct_result_verdict v)
{
    return (unsigned)v < ACCT_RESULT_VERDICTS ? verdict_words[v] : "?";
}

const char *acct_result_resolve_name(enum acct_result_resolve r)
{
    return (unsigned)r < ACCT_RESULT_RESOLVES ? resolve_words[r] : "?";
}

const char *acct_result_source_name(enum acct_result_source s)
{
    return (unsigned)s < ACCT_ARRAY_LEN(result_source_names) ? result_source_names[s] : "?";
}

struct point_pos {
    int line, col; /* of its comm_size */
    size_t index;  /* in the measurements list */
};

/* Everything one parse needs besides the tree. */
struct rctx {
    struct yt_parse *p;
    struct acct_result *r;
    size_t cap;               /* of r->points and pos */
    struct point_pos *pos;    /* where each point is */
    size_t seen;              /* measurements met, kept or not */
};

/* ---- measurements (streamed) ------------------------------------------- */

enum {
    M_COLL, M_COMM, M_BYTES, M_ALG, M_SEGMENT, M_FANOUT, M_REORDER, M_MODELLED, M_REPS,
    M_MEDIAN, M_Q1, M_Q3, M_MIN, M_MAX, M_AVG, M_RANK_MAX, M_N
};
static const struct yt_key point_keys[M_N] = {
    [M_COLL] = { "collective", true },  [M_COMM] = { "comm_size", true },
    [M_BYTES] = { "bytes", true },      [M_ALG] = { "algorithm", true },
    [M_SEGMENT] = { "segment", false }, [M_FANOUT] = { "fanout", false },
    [M_REORDER] = { "reorder", false }, [M_MODELLED] = { "modelled", false },
    [M_REPS] = { "reps", false },       [M_MEDIAN] = { "median_us", true },
    [M_Q1] = { "q1_us", false },        [M_Q3] = { "q3_us", false },
    [M_MIN] = { "min_us", false },      [M_MAX] = { "max_us", false },
    [M_AVG] = { "avg_us", false },      [M_RANK_MAX] = { "rank_max_us", false },
};

static bool push_point(struct rctx *c, const struct acct_result_point *pt,
                       const struct point_pos *at)
{
    struct acct_result *r = c->r;
    if (r->npoints == c->cap) {
        size_t ncap = c->cap == 0 ? 64 : c->cap * 2;
        struct acct_result_point *nv = realloc(r->points, ncap * sizeof(*nv));
        struct point_pos *np = NULL;
        if (nv != NULL) {
            r->points = nv;
            np = realloc(c->pos, ncap * sizeof(*np));
        }
        if (np == NULL) {
            acct_yt_oom(c->p);
            return false;
        }
        c->pos = np;
        c->cap = ncap;
    }
    r->points[r->npoints] = *pt;
    c->pos[r->npoints] = *at;
    r->npoints++;
    return true;
}

/* The method of a point: algorithm of the collective and its parameters,
 * checked like a rule's (acct_check_*). */
static void point_method(struct rctx *c, const char *path, enum acct_coll_id coll,
                         const struct ynode **v, struct acct_decision *dec)
{
    char field[ACCT_DIAG_FIELD_MAX], msg[ACCT_DIAG_MSG_MAX], d[YT_DESC_LEN];
    struct yt_parse *p = c->p;
    const struct acct_alg *alg = NULL;
#define FIELD(key) (acct_yt_join(field, sizeof(field), path, key, strlen(key)), field)
    if (v[M_ALG] != NULL) {
        const struct ynode *a = v[M_ALG];
        if (a->kind != Y_SCALAR || acct_yt_is_null(a))
            YT_ERR_AT(p, a, FIELD("algorithm"), "expected an algorithm name, got %s",
                      acct_yt_describe(a, d, sizeof(d)));
        else if ((alg = acct_alg_find(coll, a->s)) == NULL)
            YT_ERR_AT(p, a, FIELD("algorithm"), "%s",
                      acct_unknown_alg_msg(coll, a->s, a->len, msg, sizeof(msg)));
    }
    dec->alg = alg;
    if (v[M_SEGMENT] != NULL &&
        acct_yt_get_size(p, v[M_SEGMENT], FIELD("segment"), false, &dec->segment_bytes) &&
        alg != NULL && acct_check_segment(alg, dec->segment_bytes, msg, sizeof(msg)) != NULL)
        YT_ERR_AT(p, v[M_SEGMENT], field, "%s", msg);
    if (v[M_FANOUT] != NULL) {
        long long f = 0;
        if (acct_yt_get_int(p, v[M_FANOUT], FIELD("fanout"), "a fan-out (integer)", &f) &&
            alg != NULL && acct_check_fanout(alg, f, msg, sizeof(msg)) != NULL)
            YT_ERR_AT(p, v[M_FANOUT], field, "%s", msg);
        dec->fanout = (f >= INT_MIN && f <= INT_MAX) ? (int)f : 0;
    }
    if (v[M_REORDER] != NULL &&
        acct_yt_get_bool(p, v[M_REORDER], FIELD("reorder"), &dec->reorder) && alg != NULL &&
        acct_check_reorder(alg, dec->reorder, msg, sizeof(msg)) != NULL)
        YT_ERR_AT(p, v[M_REORDER], field, "%s", msg);
#undef FIELD
}

/* The times: median always; reps and the quartiles unless modelled (a
 * modelled point gives all four quartiles or none: then they are the
 * median); min <= q1 <= median <= q3 <= max. */
static void point_times(struct rctx *c, const char *path, const struct ynode *y,
                        const struct ynode **v, struct acct_result_point *pt)
{
    static const int order[] = { M_MIN, M_Q1, M_MEDIAN, M_Q3, M_MAX };
    char field[ACCT_DIAG_FIELD_MAX];
    struct yt_parse *p = c->p;
    double *dst[M_N] = { [M_MEDIAN] = &pt->median_us, [M_Q1] = &pt->q1_us,
                         [M_Q3] = &pt->q3_us,         [M_MIN] = &pt->min_us,
                         [M_MAX] = &pt->max_us };
    bool have[M_N] = { false };
    int given = (v[M_Q1] != NULL) + (v[M_Q3] != NULL) + (v[M_MIN] != NULL) + (v[M_MAX] != NULL);

#define FIELD(key) (acct_yt_join(field, sizeof(field), path, key, strlen(key)), field)
    if (v[M_REPS] != NULL && pt->modelled) {
        YT_ERR_AT(p, v[M_REPS], FIELD("reps"),
                  "a modelled point has no repetitions: leave reps out");
    } else if (v[M_REPS] != NULL) {
        long long reps = 0;
        if (acct_yt_get_int_in(p, v[M_REPS], FIELD("reps"),
                               "a number of repetitions (integer >= 1)", 1, UINT32_MAX, false,
                               &reps))
            pt->reps = (uint32_t)reps;
    } else if (!pt->modelled) {
        YT_ERR_AT(p, y, FIELD("reps"),
                  "required key \"reps\" is missing (it may only be left out with modelled: "
                  "true)");
    }
    for (size_t i = 0; i < ACCT_ARRAY_LEN(order); i++) {
        int k = order[i];
        if (v[k] != NULL)
            have[k] = acct_yt_get_number(p, v[k], FIELD(point_keys[k].name), 0, false, dst[k]);
        else if (k != M_MEDIAN && (!pt->modelled || given > 0))
            YT_ERR_AT(p, y, FIELD(point_keys[k].name), "required key \"%s\" is missing (%s)",
                      point_keys[k].name,
                      pt->modelled ? "a modelled point gives all four quartiles or none"
                      : "it may only be left out with modelled: true");
    }
    if (have[M_MEDIAN])
        for (size_t i = 0; i < ACCT_ARRAY_LEN(order); i++)
            if (v[order[i]] == NULL)
                *dst[order[i]] = pt->median_us;
    /* Each given value against the nearest given one below it. */
    for (size_t i = 1; i < ACCT_ARRAY_LEN(order); i++) {
        int k = order[i], lo = -1;
        for (size_t j = i; j-- > 0;)
            if (have[order[j]]) {
                lo = order[j];
                break;
            }
        if (have[k] && lo >= 0 && *dst[k] < *dst[lo])
            YT_ERR_AT(p, v[k], FIELD(point_keys[k].name), "%s %s is smaller than %s %s",
                      point_keys[k].name, v[k]->s, point_keys[lo].name, v[lo]->s);
    }
    /* the optional views of a timed point */
    static const int views[] = { M_AVG, M_RANK_MAX };
    double *vdst[] = { &pt->avg_us, &pt->rank_max_us };
    bool *vhas[] = { &pt->has_avg, &pt->has_rank_max };
    for (size_t i = 0; i < ACCT_ARRAY_LEN(views); i++) {
        int k = views[i];
        if (v[k] == NULL)
            continue;
        if (pt->modelled)
            YT_ERR_AT(p, v[k], FIELD(point_keys[k].name),
                      "a modelled point has no per-rank views: leave %s out", point_keys[k].name);
        else
            *vhas[i] = acct_yt_get_number(p, v[k], FIELD(point_keys[k].name), 0, false, vdst[i]);
    }
#undef FIELD
}

static void walk_point(struct yt_parse *p, const struct ynode *y, size_t index, void *arg)
{
    struct rctx *c = arg;
    char path[ACCT_DIAG_FIELD_MAX], field[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[M_N], *k[M_N];
    struct acct_result_point pt;
    struct point_pos at = { y->line, y->col, index };
    size_t before = p->errors;
    int coll = -1;

    if (p->nomem)
        return;
    if (++c->seen > ACCT_RESULT_MAX_POINTS) {
        if (c->seen == ACCT_RESULT_MAX_POINTS + 1)
            YT_ERR_AT(p, y, "measurements", "more than %d measurements: the file is refused",
                      ACCT_RESULT_MAX_POINTS);
        return;
    }
    memset(&pt, 0, sizeof(pt));
    snprintf(path, sizeof(path), "measurements[%zu]", index);
    if (!acct_yt_walk_map(p, y, path, "key", point_keys, M_N, v, k))
        return;
#define FIELD(key) (acct_yt_join(field, sizeof(field), path, key, strlen(key)), field)
    if (v[M_COLL] != NULL) {
        const char *names[ACCT_COLL_COUNT];
        for (int i = 0; i < ACCT_COLL_COUNT; i++)
            names[i] = acct_coll_name((enum acct_coll_id)i);
        acct_yt_get_word(p, v[M_COLL], FIELD("collective"), "collective", names,
                         ACCT_COLL_COUNT, 0, &coll);
    }
    if (v[M_COMM] != NULL) {
        long long n = 0;
        at.line = v[M_COMM]->line;
        at.col = v[M_COMM]->col;
        if (acct_yt_get_int_in(p, v[M_COMM], FIELD("comm_size"),
                               "a communicator size (integer >= 1)", 1, INT_MAX, false, &n))
            pt.comm_size = (int)n;
    }
    if (v[M_BYTES] != NULL)
        acct_yt_get_size(p, v[M_BYTES], FIELD("bytes"), false, &pt.bytes);
    if (v[M_MODELLED] != NULL)
        acct_yt_get_bool(p, v[M_MODELLED], FIELD("modelled"), &pt.modelled);
#undef FIELD
    if (coll >= 0) {
        pt.coll = (enum acct_coll_id)coll;
        point_method(c, path, pt.coll, v, &pt.d);
    }
    point_times(c, path, y, v, &pt);
    if (p->errors == before && coll >= 0) /* only valid points are kept */
        push_point(c, &pt, &at);
}

/* ---- run, conditions, model -------------------------------------------- */

enum {
    U_ID, U_PARTITION, U_INTERCONNECT, U_STARTED, U_FINISHED, U_COMPLETE, U_STRATEGY,
    U_SOURCE, U_BUDGET, U_EXPSEC, U_EXPS, U_N
};
static const struct yt_key run_keys[U_N] = {
    [U_ID] = { "id", true },
    [U_PARTITION] = { "partition", true },
    [U_INTERCONNECT] = { "interconnect", true },
    [U_STARTED] = { "started", true },
    [U_FINISHED] = { "finished", true },
    [U_COMPLETE] = { "complete", true },
    [U_STRATEGY] = { "strategy", true },
    [U_SOURCE] = { "source", true },
    [U_BUDGET] = { "budget", false },
    [U_EXPSEC] = { "experiment_seconds", true },
    [U_EXPS] = { "experiments", true },
};

static void walk_run(struct rctx *c, const struct ynode *y)
{
    const struct ynode *v[U_N], *k[U_N];
    struct yt_parse *p = c->p;
    struct acct_result *r = c->r;
    long long n;
    int w;

    if (!acct_yt_walk_map(p, y, "run", "key", run_keys, U_N, v, k))
        return;
    if (v[U_ID] != NULL)
        acct_yt_get_name(p, v[U_ID], "run.id", ACCT_RULES_RUN_MAX, r->id);
    if (v[U_PARTITION] != NULL)
        acct_yt_get_name(p, v[U_PARTITION], "run.partition", ACCT_RULES_NAME_MAX, r->partition);
    if (v[U_INTERCONNECT] != NULL)
        acct_yt_get_name(p, v[U_INTERCONNECT], "run.interconnect", ACCT_RULES_NAME_MAX,
                         r->interconnect);
    if (v[U_STARTED] != NULL)
        acct_yt_get_time(p, v[U_STARTED], "run.started", r->started);
    if (v[U_FINISHED] != NULL && acct_yt_get_time(p, v[U_FINISHED], "run.finished", r->finished) &&
        r->started[0] != '\0' && strcmp(r->finished, r->started) < 0)
        YT_ERR_AT(p, v[U_FINISHED], "run.finished", "%s is before run.started %s (line %d)",
                  r->finished, r->started, v[U_STARTED]->line);
    if (v[U_COMPLETE] != NULL)
        acct_yt_get_bool(p, v[U_COMPLETE], "run.complete", &r->complete);
    if (v[U_STRATEGY] != NULL)
        acct_yt_get_name(p, v[U_STRATEGY], "run.strategy", ACCT_RESULT_WORD_MAX - 1, r->strategy);
    if (v[U_SOURCE] != NULL &&
        acct_yt_get_word(p, v[U_SOURCE], "run.source", "source", result_source_names,
                         ACCT_ARRAY_LEN(result_source_names), 0, &w))
        r->source = (enum acct_result_source)w;
    if (v[U_BUDGET] != NULL)
        acct_yt_get_number(p, v[U_BUDGET], "run.budget", 0, true, &r->budget_s);
    if (v[U_EXPSEC] != NULL)
        acct_yt_get_number(p, v[U_EXPSEC], "run.experiment_seconds", 0, false, &r->experiment_s);
    if (v[U_EXPS] != NULL &&
        acct_yt_get_int_in(p, v[U_EXPS], "run.experiments",
                           "a number of experiments (integer >= 0)", 0, LLONG_MAX, false, &n))
        r->experiments = (uint64_t)n;
}

enum { C_HOSTS, C_RANKS, C_RPN, C_PLACEMENT, C_MPI, C_ACCT, C_JOB, C_N };
static const struct yt_key cond_keys[C_N] = {
    [C_HOSTS] = { "hosts", true },          [C_RANKS] = { "ranks", true },
    [C_RPN] = { "ranks_per_node", true },   [C_PLACEMENT] = { "placement", true },
    [C_MPI] = { "mpi_library", true },      [C_ACCT] = { "acct_version", true },
    [C_JOB] = { "slurm_job_id", false },
};

static void walk_hosts(struct rctx *c, const struct ynode *y)
{
    struct acct_result_conditions *cd = &c->r->cond;
    char d[YT_DESC_LEN], field[ACCT_DIAG_FIELD_MAX];
    struct yt_parse *p = c->p;
    const struct ynode **at;
    size_t i = 0;

    if (y->kind != Y_SEQ || y->n == 0) {
        YT_ERR_AT(p, y, "conditions.hosts", "expected a list of 1 to %d host names, got %s",
                  ACCT_RESULT_MAX_HOSTS, y->kind == Y_SEQ ? "an empty list" :
                  acct_yt_describe(y, d, sizeof(d)));
        return;
    }
    if (y->n > ACCT_RESULT_MAX_HOSTS) {
        YT_ERR_AT(p, y, "conditions.hosts", "%zu hosts: the limit is %d", y->n,
                  ACCT_RESULT_MAX_HOSTS);
        return;
    }
    cd->hosts = calloc(y->n, sizeof(*cd->hosts));
    at = calloc(y->n, sizeof(*at));
    if (cd->hosts == NULL || at == NULL) {
        acct_yt_oom(p);
        goto out;
    }
    for (const struct ynode *e = y->first; e != NULL; e = e->next, i++) {
        snprintf(field, sizeof(field), "conditions.hosts[%zu]", i);
        if (!acct_yt_get_name(p, e, field, ACCT_RULES_NAME_MAX, cd->hosts[cd->nhosts]))
            continue;
        /* At most 4096 names: a quadratic search for repeats is cheap. */
        size_t j = 0;
        while (j < cd->nhosts && strcmp(cd->hosts[j], cd->hosts[cd->nhosts]) != 0)
            j++;
        if (j < cd->nhosts) {
            YT_ERR_AT(p, e, field, "host %s is listed twice (first at line %d)",
                      cd->hosts[j], at[j]->line);
            continue;
        }
        at[cd->nhosts++] = e;
    }
out:
    free(at);
}

static void walk_conditions(struct rctx *c, const struct ynode *y)
{
    const struct ynode *v[C_N], *k[C_N];
    struct acct_result_conditions *cd = &c->r->cond;
    struct yt_parse *p = c->p;
    long long n;
    int w;

    if (!acct_yt_walk_map(p, y, "conditions", "key", cond_keys, C_N, v, k))
        return;
    if (v[C_HOSTS] != NULL)
        walk_hosts(c, v[C_HOSTS]);
    if (v[C_RANKS] != NULL &&
        acct_yt_get_int_in(p, v[C_RANKS], "conditions.ranks", "a number of ranks (integer >= 1)", 1,
                           INT_MAX, false, &n))
        cd->ranks = (int)n;
    if (v[C_RPN] != NULL &&
        acct_yt_get_int_in(p, v[C_RPN], "conditions.ranks_per_node",
                           "a number of ranks (integer >= 1)", 1, INT_MAX, false, &n)) {
        cd->ranks_per_node = (int)n;
        if (cd->ranks > 0 && n > cd->ranks)
            YT_ERR_AT(p, v[C_RPN], "conditions.ranks_per_node",
                      "%lld is larger than conditions.ranks %d", n, cd->ranks);
    }
    if (v[C_PLACEMENT] != NULL &&
        acct_yt_get_word(p, v[C_PLACEMENT], "conditions.placement", "placement", placement_words,
                         ACCT_ARRAY_LEN(placement_words), ACCT_PLACEMENT_BLOCK, &w))
        cd->placement = (enum acct_placement)w;
    if (v[C_MPI] != NULL)
        acct_yt_get_text(p, v[C_MPI], "conditions.mpi_library", ACCT_RESULT_TEXT_MAX - 1,
                         cd->mpi_library);
    if (v[C_ACCT] != NULL)
        acct_yt_get_text(p, v[C_ACCT], "conditions.acct_version", ACCT_RESULT_SHORT_MAX - 1,
                         cd->acct_version);
    if (v[C_JOB] != NULL)
        acct_yt_get_text(p, v[C_JOB], "conditions.slurm_job_id", ACCT_RESULT_SHORT_MAX - 1,
                         cd->slurm_job_id);
}

enum { G_L, G_O, G_SMALLG, G_BIGG, G_N };
static const struct yt_key model_keys[G_N] = {
    [G_L] = { "L", true },
    [G_O] = { "o", true },
    [G_SMALLG] = { "g", true },
    [G_BIGG] = { "G", true },
};
/* the model section: the four numbers, then the optional levels (issue 21) */
enum { GM_INTRA = G_N, GM_INTER, GM_NIC, GM_N };
static const struct yt_key model_all_keys[GM_N] = {
    [G_L] = { "L", true },         [G_O] = { "o", true },
    [G_SMALLG] = { "g", true },    [G_BIGG] = { "G", true },
    [GM_INTRA] = { "intra", false }, [GM_INTER] = { "inter", false },
    [GM_NIC] = { "nic", false },
};
enum { GN_PAIRS, GN_FACTOR, GN_BPAIRS, GN_BFACTOR, GN_DUPLEX, GN_OVERLAP, GN_N };
static const struct yt_key nic_keys[GN_N] = {
    [GN_PAIRS] = { "pairs", false },             /* the NIC factor (k >= 2 pairs) */
    [GN_FACTOR] = { "gap_factor", false },
    [GN_BPAIRS] = { "bidir_pairs", false },     /* the two-way factor: optional */
    [GN_BFACTOR] = { "bidir_gap_factor", false },
    [GN_DUPLEX] = { "pair_duplex_factor", false }, /* one pair both ways: optional */
    [GN_OVERLAP] = { "pair_duplex_overlap_bytes", false }, /* its overlap: optional */
};
#define PAIR_DUPLEX_MAX ACCT_RESULT_PAIR_DUPLEX_MAX

/* A whole number of pairs in [2, 1048576] at model.nic.FIELD. */
static bool nic_pairs_at(struct rctx *c, const struct ynode *y, const char *field, int *out)
{
    double pairs = 0;
    if (!acct_yt_get_number(c->p, y, field, 2, false, &pairs))
        return false;
    if (pairs != (double)(int)pairs || pairs > 1 << 20) {
        YT_ERR_AT(c->p, y, field, "%g is not a whole number in [2, 1048576]", pairs);
        return false;
    }
    *out = (int)pairs;
    return true;
}

/* Four LogGP numbers under `where` (model, model.intra, model.inter). */
static void walk_loggp(struct rctx *c, const struct ynode *y, const char *where, double *dst[G_N])
{
    const struct ynode *v[G_N], *k[G_N];
    char field[ACCT_DIAG_FIELD_MAX];

    if (!acct_yt_walk_map(c->p, y, where, "key", model_keys, G_N, v, k))
        return;
    for (int i = 0; i < G_N; i++) {
        snprintf(field, sizeof(field), "%s.%s", where, model_keys[i].name);
        if (v[i] != NULL)
            acct_yt_get_number(c->p, v[i], field, 0, false, dst[i]);
    }
}

static void walk_model(struct rctx *c, const struct ynode *y)
{
    const struct ynode *v[GM_N], *k[GM_N], *nv[GN_N], *nk[GN_N];
    struct acct_result_model *m = &c->r->model;
    double *dst[G_N] = { &m->L_us, &m->o_us, &m->g_us, &m->G_us_per_byte };
    double *ia[G_N] = { &m->intra.L_us, &m->intra.o_us, &m->intra.g_us, &m->intra.G_us_per_byte };
    double *ie[G_N] = { &m->inter.L_us, &m->inter.o_us, &m->inter.g_us, &m->inter.G_us_per_byte };
    char field[ACCT_DIAG_FIELD_MAX];

    if (!acct_yt_walk_map(c->p, y, "model", "key", model_all_keys, GM_N, v, k))
        return;
    m->present = true;
    for (int i = 0; i < G_N; i++) {
        snprintf(field, sizeof(field), "model.%s", model_keys[i].name);
        if (v[i] != NULL)
            acct_yt_get_number(c->p, v[i], field, 0, false, dst[i]);
    }
    if ((v[GM_INTRA] != NULL) != (v[GM_INTER] != NULL))
        YT_ERR_AT(c->p, v[GM_INTRA] ? v[GM_INTRA] : v[GM_INTER], "model",
                  "intra and inter come together (an intra-node and an inter-node pair)");
    if (v[GM_INTRA] != NULL && v[GM_INTER] != NULL) {
        m->has_levels = true;
        walk_loggp(c, v[GM_INTRA], "model.intra", ia);
        walk_loggp(c, v[GM_INTER], "model.inter", ie);
    }
    /* model.nic holds the partition's calibration factors, each optional and
     * each a refinement a reader's model has a term for or not: one a newer
     * acct-tune measures is skipped with a warning (docs/tuning-result.md,
     * "Forward compatibility") */
    if (v[GM_NIC] != NULL && acct_yt_walk_open_map(c->p, v[GM_NIC], "model.nic", "key", nic_keys,
                                                   GN_N, nv, nk)) {
        if (!m->has_levels)
            YT_ERR_AT(c->p, v[GM_NIC], "model.nic", "needs model.intra and model.inter");
        /* pairs and gap_factor come together; a layout whose nodes do not
         * both hold two ranks has only the pair-duplex factor */
        if ((nv[GN_PAIRS] != NULL) != (nv[GN_FACTOR] != NULL))
            YT_ERR_AT(c->p, nv[GN_PAIRS] ? nv[GN_PAIRS] : nv[GN_FACTOR],
                      nv[GN_PAIRS] ? "model.nic.pairs" : "model.nic.gap_factor",
                      "pairs and gap_factor come together (the NIC factor)");
        if (nv[GN_PAIRS] == NULL && nv[GN_FACTOR] == NULL && nv[GN_DUPLEX] == NULL)
            YT_ERR_AT(c->p, v[GM_NIC], "model.nic",
                      "needs pairs and gap_factor, pair_duplex_factor, or both");
        if (nv[GN_PAIRS] != NULL && nv[GN_FACTOR] != NULL) {
            nic_pairs_at(c, nv[GN_PAIRS], "model.nic.pairs", &m->nic_pairs);
            acct_yt_get_number(c->p, nv[GN_FACTOR], "model.nic.gap_factor", 1, false,
                               &m->nic_gap_factor);
        }
        if ((nv[GN_BPAIRS] != NULL || nv[GN_BFACTOR] != NULL) && nv[GN_PAIRS] == NULL)
            YT_ERR_AT(c->p, nv[GN_BPAIRS] ? nv[GN_BPAIRS] : nv[GN_BFACTOR],
                      nv[GN_BPAIRS] ? "model.nic.bidir_pairs" : "model.nic.bidir_gap_factor",
                      "the two-way factor needs pairs and gap_factor");
        double d = 0;
        if (nv[GN_DUPLEX] != NULL &&
            acct_yt_get_number(c->p, nv[GN_DUPLEX], "model.nic.pair_duplex_factor", 1, false,
                               &d)) {
            if (d > PAIR_DUPLEX_MAX)
                YT_ERR_AT(c->p, nv[GN_DUPLEX], "model.nic.pair_duplex_factor",
                          "%g is too large: the maximum is %d", d, PAIR_DUPLEX_MAX);
            else
                m->pair_duplex_factor = d;
        }
        double ov = 0;
        if (nv[GN_OVERLAP] != NULL && nv[GN_DUPLEX] == NULL)
            YT_ERR_AT(c->p, nv[GN_OVERLAP], "model.nic.pair_duplex_overlap_bytes",
                      "needs pair_duplex_factor (the overlap is the factor's)");
        else if (nv[GN_OVERLAP] != NULL &&
                 acct_yt_get_number(c->p, nv[GN_OVERLAP], "model.nic.pair_duplex_overlap_bytes",
                                    0, false, &ov)) {
            if (ov != (double)(uint64_t)ov || ov > (double)ACCT_RESULT_PAIR_OVERLAP_MAX)
                YT_ERR_AT(c->p, nv[GN_OVERLAP], "model.nic.pair_duplex_overlap_bytes",
                          "%g is not a whole number of bytes in [0, %llu]", ov,
                          (unsigned long long)ACCT_RESULT_PAIR_OVERLAP_MAX);
            else
                m->pair_duplex_overlap_bytes = (uint64_t)ov;
        }
        if ((nv[GN_BPAIRS] != NULL) != (nv[GN_BFACTOR] != NULL))
            YT_ERR_AT(c->p, nv[GN_BPAIRS] ? nv[GN_BPAIRS] : nv[GN_BFACTOR],
                      nv[GN_BPAIRS] ? "model.nic.bidir_pairs" : "model.nic.bidir_gap_factor",
                      "bidir_pairs and bidir_gap_factor come together (the two-way factor)");
        if (nv[GN_BPAIRS] != NULL && nv[GN_BFACTOR] != NULL &&
            nic_pairs_at(c, nv[GN_BPAIRS], "model.nic.bidir_pairs", &m->nic_bidir_pairs))
            acct_yt_get_number(c->p, nv[GN_BFACTOR], "model.nic.bidir_gap_factor", 1, false,
                               &m->nic_bidir_gap_factor);
    }
}

/* ---- races (acct-tune --race) ------------------------------------------- */

enum {
    R_COLL, R_COMM, R_BYTES, R_METRIC, R_ROUNDS, R_ALPHA, R_TOL, R_AA, R_BY, R_EXPS, R_SECS,
    R_SEXPS, R_SSECS, R_FINALISTS, R_N
};
static const struct yt_key race_keys[R_N] = {
    [R_COLL] = { "collective", true },   [R_COMM] = { "comm_size", true },
    [R_BYTES] = { "bytes", true },       [R_METRIC] = { "metric", true },
    [R_ROUNDS] = { "rounds", true },     [R_ALPHA] = { "alpha", true },
    [R_TOL] = { "tolerance", true },     [R_AA] = { "aa_spread", false },
    [R_BY] = { "resolved_by", true },    [R_EXPS] = { "experiments", false },
    [R_SECS] = { "seconds", false },     [R_SEXPS] = { "search_experiments", false },
    [R_SSECS] = { "search_seconds", false }, [R_FINALISTS] = { "finalists", true },
};

/* A finalist's keys: the method's (checked by point_method, as a
 * measurement's) and its verdict. */
enum { F_ALG, F_SEGMENT, F_FANOUT, F_REORDER, F_VERDICT, F_RATIO, F_P, F_PICK,
       F_ROUNDS, /* F_ROUNDS + v: the per-round times of view v */
       F_N = F_ROUNDS + ACCT_RESULT_VIEWS };
static const struct yt_key finalist_keys[F_N] = {
    [F_ALG] = { "algorithm", true },   [F_SEGMENT] = { "segment", false },
    [F_FANOUT] = { "fanout", false },  [F_REORDER] = { "reorder", false },
    [F_VERDICT] = { "verdict", true }, [F_RATIO] = { "ratio", true },
    [F_P] = { "p", true },             [F_PICK] = { "search_pick", false },
    [F_ROUNDS + ACCT_RESULT_VIEW_MAX] = { "round_median_us", false },
    [F_ROUNDS + ACCT_RESULT_VIEW_AVG] = { "round_avg_us", false },
    [F_ROUNDS + ACCT_RESULT_VIEW_RANK_MAX] = { "round_rank_max_us", false },
};

/* A finalist's per-round times: the three keys together, or none; each a
 * list of the race's `rounds` numbers >= 0 (docs/tuning-result.md). */
static void walk_rounds(struct rctx *c, const char *fpath, const struct ynode *const *v,
                        const struct acct_result_race *rc, struct acct_result_finalist *f)
{
    char field[ACCT_DIAG_FIELD_MAX], d[YT_DESC_LEN];
    struct yt_parse *p = c->p;
    int first = -1, missing = -1, given = 0;
    bool ok = true;

    for (int j = F_ROUNDS; j < F_N; j++) {
        if (v[j] != NULL && first < 0)
            first = j;
        if (v[j] == NULL && missing < 0)
            missing = j;
        given += v[j] != NULL;
    }
    if (given == 0)
        return;
    if (given < ACCT_RESULT_VIEWS) {
        YT_ERR_AT(p, v[first], fpath, "%s without %s: round_median_us, round_avg_us and "
                  "round_rank_max_us go together", finalist_keys[first].name,
                  finalist_keys[missing].name);
        return;
    }
    for (int j = F_ROUNDS; j < F_N; j++) {
        acct_yt_join(field, sizeof(field), fpath, finalist_keys[j].name,
                     strlen(finalist_keys[j].name));
        if (v[j]->kind != Y_SEQ) {
            YT_ERR_AT(p, v[j], field, "expected a list of times in microseconds, got %s",
                      acct_yt_describe(v[j], d, sizeof(d)));
            ok = false;
        } else if (rc->rounds > 0 && v[j]->n != rc->rounds) {
            YT_ERR_AT(p, v[j], field, "%zu times for %u rounds (one per round)", v[j]->n,
                      (unsigned)rc->rounds);
            ok = false;
        }
    }
    if (!ok || rc->rounds == 0)
        return;
    f->round_us = calloc((size_t)ACCT_RESULT_VIEWS * rc->rounds, sizeof(*f->round_us));
    if (f->round_us == NULL) {
        acct_yt_oom(p);
        return;
    }
    for (int j = F_ROUNDS; j < F_N; j++) {
        size_t r = 0;
        for (const struct ynode *it = v[j]->first; it != NULL; it = it->next, r++) {
            char item[ACCT_DIAG_FIELD_MAX];
            if (snprintf(item, sizeof(item), "%s.%s[%zu]", fpath, finalist_keys[j].name, r) >=
                (int)sizeof(item))
                item[sizeof(item) - 1] = '\0'; /* a long path, cut: still names the list */
            ok &= acct_yt_get_number(p, it, item, 0, false,
                                     &f->round_us[(size_t)(j - F_ROUNDS) * rc->rounds + r]);
        }
    }
    if (!ok) {
        free(f->round_us);
        f->round_us = NULL;
        return;
    }
    f->nrounds = rc->rounds;
}

static void walk_finalists(struct rctx *c, size_t race, const struct ynode *y,
                           struct acct_result_race *rc, bool coll_ok)
{
    char fpath[ACCT_DIAG_FIELD_MAX], field[ACCT_DIAG_FIELD_MAX], d[YT_DESC_LEN];
    struct yt_parse *p = c->p;
    size_t i = 0, winners = 0;
    const struct ynode *winner_at = NULL, *pick_at = NULL;

    snprintf(field, sizeof(field), "races[%zu].finalists", race);
    if (y->kind != Y_SEQ || y->n == 0 || y->n > ACCT_RESULT_MAX_FINALISTS) {
        YT_ERR_AT(p, y, field, "expected a list of 1 to %d finalists, got %s",
                  ACCT_RESULT_MAX_FINALISTS,
                  y->kind != Y_SEQ ? acct_yt_describe(y, d, sizeof(d))
                  : y->n == 0      ? "an empty list"
                                   : "more");
        return;
    }
    rc->f = calloc(y->n, sizeof(*rc->f));
    if (rc->f == NULL) {
        acct_yt_oom(p);
        return;
    }
    for (const struct ynode *it = y->first; it != NULL; it = it->next, i++) {
        const struct ynode *v[F_N], *k[F_N], *mv[M_N] = { NULL };
        struct acct_result_finalist *f = &rc->f[rc->nf];
        int w = 0;
        snprintf(fpath, sizeof(fpath), "races[%zu].finalists[%zu]", race, i);
        if (!acct_yt_walk_map(p, it, fpath, "key", finalist_keys, F_N, v, k))
            continue;
#define FIELD(key) (acct_yt_join(d, sizeof(d), fpath, key, strlen(key)), d)
        mv[M_ALG] = v[F_ALG];
        mv[M_SEGMENT] = v[F_SEGMENT];
        mv[M_FANOUT] = v[F_FANOUT];
        mv[M_REORDER] = v[F_REORDER];
        if (coll_ok)
            point_method(c, fpath, rc->coll, mv, &f->d);
        if (v[F_VERDICT] != NULL &&
            acct_yt_get_word(p, v[F_VERDICT], FIELD("verdict"), "verdict", verdict_words,
                             ACCT_RESULT_VERDICTS, 0, &w)) {
            f->verdict = (enum acct_result_verdict)w;
            if (f->verdict == ACCT_RESULT_WINNER && winners++ > 0)
                YT_ERR_AT(p, v[F_VERDICT], d, "a second winner (the first at line %d)",
                          winner_at->line);
            if (f->verdict == ACCT_RESULT_WINNER && winner_at == NULL)
                winner_at = v[F_VERDICT];
        }
        if (v[F_RATIO] != NULL)
            acct_yt_get_number(p, v[F_RATIO], FIELD("ratio"), 0, true, &f->ratio);
        if (v[F_P] != NULL && acct_yt_get_number(p, v[F_P], FIELD("p"), 0, false, &f->p) &&
            f->p > 1)
            YT_ERR_AT(p, v[F_P], d, "%s is not a probability (0 to 1)", v[F_P]->s);
        if (v[F_PICK] != NULL &&
            acct_yt_get_bool(p, v[F_PICK], FIELD("search_pick"), &f->search_pick) &&
            f->search_pick) {
            if (v[F_VERDICT] != NULL && f->verdict == ACCT_RESULT_TWIN)
                YT_ERR_AT(p, v[F_PICK], d, "native's A/A twin is not the search's pick (mark "
                          "native's finalist)");
            else if (pick_at != NULL)
                YT_ERR_AT(p, v[F_PICK], d, "a second search_pick (the first at line %d)",
                          pick_at->line);
            else
                pick_at = v[F_PICK];
        }
#undef FIELD
        walk_rounds(c, fpath, v, rc, f);
        rc->nf++;
    }
    if (winners == 0 && rc->nf == y->n)
        YT_ERR_AT(p, y, field, "no finalist has verdict: winner");
}

static void walk_races(struct rctx *c, const struct ynode *y)
{
    char path[ACCT_DIAG_FIELD_MAX], field[ACCT_DIAG_FIELD_MAX], d[YT_DESC_LEN];
    struct yt_parse *p = c->p;
    struct acct_result *r = c->r;
    size_t i = 0;

    if (y->kind != Y_SEQ || y->n > ACCT_RESULT_MAX_RACES) {
        YT_ERR_AT(p, y, "races", "expected a list of at most %d races, got %s",
                  ACCT_RESULT_MAX_RACES, acct_yt_describe(y, d, sizeof(d)));
        return;
    }
    r->races = calloc(y->n > 0 ? y->n : 1, sizeof(*r->races));
    if (r->races == NULL) {
        acct_yt_oom(p);
        return;
    }
    for (const struct ynode *it = y->first; it != NULL; it = it->next, i++) {
        const struct ynode *v[R_N], *k[R_N];
        struct acct_result_race *rc = &r->races[r->nraces++];
        int coll = -1, w = 0;
        long long n = 0;
        snprintf(path, sizeof(path), "races[%zu]", i);
        if (!acct_yt_walk_map(p, it, path, "key", race_keys, R_N, v, k))
            continue;
#define FIELD(key) (acct_yt_join(field, sizeof(field), path, key, strlen(key)), field)
        if (v[R_COLL] != NULL) {
            const char *names[ACCT_COLL_COUNT];
            for (int j = 0; j < ACCT_COLL_COUNT; j++)
                names[j] = acct_coll_name((enum acct_coll_id)j);
            if (acct_yt_get_word(p, v[R_COLL], FIELD("collective"), "collective", names,
                                 ACCT_COLL_COUNT, 0, &coll))
                rc->coll = (enum acct_coll_id)coll;
        }
        if (v[R_COMM] != NULL &&
            acct_yt_get_int_in(p, v[R_COMM], FIELD("comm_size"),
                               "a communicator size (integer >= 1)", 1, INT_MAX, false, &n)) {
            rc->comm_size = (int)n;
            if (r->cond.ranks > 0 && rc->comm_size > r->cond.ranks)
                YT_ERR_AT(p, v[R_COMM], field, "%d is larger than conditions.ranks %d",
                          rc->comm_size, r->cond.ranks);
        }
        if (v[R_BYTES] != NULL)
            acct_yt_get_size(p, v[R_BYTES], FIELD("bytes"), false, &rc->bytes);
        if (v[R_METRIC] != NULL && acct_yt_get_word(p, v[R_METRIC], FIELD("metric"), "view",
                                                    view_words, ACCT_RESULT_VIEWS, 0, &w))
            rc->metric = (enum acct_result_view)w;
        if (v[R_ROUNDS] != NULL &&
            acct_yt_get_int_in(p, v[R_ROUNDS], FIELD("rounds"),
                               "a number of rounds (integer >= 1)", 1, UINT32_MAX, false, &n))
            rc->rounds = (uint32_t)n;
        if (v[R_ALPHA] != NULL &&
            acct_yt_get_number(p, v[R_ALPHA], FIELD("alpha"), 0, true, &rc->alpha) &&
            rc->alpha >= 1)
            YT_ERR_AT(p, v[R_ALPHA], field, "%s is not a level between 0 and 1", v[R_ALPHA]->s);
        if (v[R_TOL] != NULL)
            acct_yt_get_number(p, v[R_TOL], FIELD("tolerance"), 0, false, &rc->tolerance);
        if (v[R_AA] != NULL)
            rc->has_aa = acct_yt_get_number(p, v[R_AA], FIELD("aa_spread"), 0, false,
                                            &rc->aa_spread);
        if (v[R_BY] != NULL && acct_yt_get_word(p, v[R_BY], FIELD("resolved_by"), "rule",
                                                resolve_words, ACCT_RESULT_RESOLVES, 0, &w))
            rc->resolved_by = (enum acct_result_resolve)w;
        /* the cost: the four keys together, or none */
        {
            int first = -1, missing = -1;
            size_t given = 0;
            for (int j = R_EXPS; j <= R_SSECS; j++) {
                if (v[j] != NULL && first < 0)
                    first = j;
                if (v[j] == NULL && missing < 0)
                    missing = j;
                given += v[j] != NULL;
            }
            if (given > 0 && given < 4)
                YT_ERR_AT(p, v[first], path, "%s without %s: experiments, seconds, "
                          "search_experiments and search_seconds go together",
                          race_keys[first].name, race_keys[missing].name);
            if (given == 4) {
                bool ok = acct_yt_get_int_in(p, v[R_EXPS], FIELD("experiments"),
                                             "a number of experiments (integer >= 0)", 0,
                                             INT64_MAX, false, &n);
                rc->experiments = ok ? (uint64_t)n : 0;
                ok &= acct_yt_get_number(p, v[R_SECS], FIELD("seconds"), 0, false, &rc->seconds);
                long long ns = 0;
                ok &= acct_yt_get_int_in(p, v[R_SEXPS], FIELD("search_experiments"),
                                         "a number of experiments (integer >= 0)", 0, INT64_MAX,
                                         false, &ns);
                rc->search_experiments = ns > 0 ? (uint64_t)ns : 0;
                ok &= acct_yt_get_number(p, v[R_SSECS], FIELD("search_seconds"), 0, false,
                                         &rc->search_seconds);
                rc->has_cost = ok;
            }
        }
#undef FIELD
        if (v[R_FINALISTS] != NULL)
            walk_finalists(c, i, v[R_FINALISTS], rc, coll >= 0);
    }
}

/* ---- noise ------------------------------------------------------------- */

enum { N_REPEAT, N_REPEAT90, N_PAIRS, N_AA, N_AAMAX, N_LOAD, N_N };
static const struct yt_key noise_keys[N_N] = {
    [N_REPEAT] = { "repeat_spread", true }, [N_REPEAT90] = { "repeat_spread_p90", true },
    [N_PAIRS] = { "aa_pairs", true },       [N_AA] = { "aa_spread", false },
    [N_AAMAX] = { "aa_spread_max", false }, [N_LOAD] = { "load", true },
};

enum { L_HOST, L_START, L_END, L_N };
static const struct yt_key load_keys[L_N] = {
    [L_HOST] = { "host", true }, [L_START] = { "start", true }, [L_END] = { "end", true },
};

static void walk_load(struct rctx *c, const struct ynode *y)
{
    char field[ACCT_DIAG_FIELD_MAX], d[YT_DESC_LEN];
    struct acct_result_noise *nz = &c->r->noise;
    struct yt_parse *p = c->p;
    size_t i = 0;

    if (y->kind != Y_SEQ || y->n > ACCT_RESULT_MAX_HOSTS) {
        YT_ERR_AT(p, y, "noise.load", "expected a list of at most %d hosts, got %s",
                  ACCT_RESULT_MAX_HOSTS, acct_yt_describe(y, d, sizeof(d)));
        return;
    }
    nz->load = calloc(y->n > 0 ? y->n : 1, sizeof(*nz->load));
    if (nz->load == NULL) {
        acct_yt_oom(p);
        return;
    }
    for (const struct ynode *e = y->first; e != NULL; e = e->next, i++) {
        const struct ynode *v[L_N], *k[L_N];
        struct acct_result_load *l = &nz->load[nz->nload++];
        char path[ACCT_DIAG_FIELD_MAX];
        snprintf(path, sizeof(path), "noise.load[%zu]", i);
        if (!acct_yt_walk_map(p, e, path, "key", load_keys, L_N, v, k))
            continue;
        acct_yt_join(field, sizeof(field), path, "host", 4);
        if (v[L_HOST] != NULL)
            acct_yt_get_name(p, v[L_HOST], field, ACCT_RULES_NAME_MAX, l->host);
        acct_yt_join(field, sizeof(field), path, "start", 5);
        if (v[L_START] != NULL)
            acct_yt_get_number(p, v[L_START], field, 0, false, &l->start);
        acct_yt_join(field, sizeof(field), path, "end", 3);
        if (v[L_END] != NULL)
            acct_yt_get_number(p, v[L_END], field, 0, false, &l->end);
    }
}

static void walk_noise(struct rctx *c, const struct ynode *y)
{
    const struct ynode *v[N_N], *k[N_N];
    struct acct_result_noise *nz = &c->r->noise;
    struct yt_parse *p = c->p;
    long long n;

    if (!acct_yt_walk_map(p, y, "noise", "key", noise_keys, N_N, v, k))
        return;
    nz->present = true;
    if (v[N_REPEAT] != NULL)
        acct_yt_get_number(p, v[N_REPEAT], "noise.repeat_spread", 0, false, &nz->repeat_spread);
    if (v[N_REPEAT90] != NULL)
        acct_yt_get_number(p, v[N_REPEAT90], "noise.repeat_spread_p90", 0, false,
                           &nz->repeat_spread_p90);
    if (v[N_PAIRS] != NULL &&
        acct_yt_get_int_in(p, v[N_PAIRS], "noise.aa_pairs", "a number of pairs (integer >= 0)",
                           0, UINT32_MAX, false, &n))
        nz->aa_pairs = (uint32_t)n;
    for (int i = N_AA; i <= N_AAMAX; i++) {
        char field[ACCT_DIAG_FIELD_MAX];
        snprintf(field, sizeof(field), "noise.%s", noise_keys[i].name);
        if (v[i] != NULL)
            acct_yt_get_number(p, v[i], field, 0, false,
                               i == N_AA ? &nz->aa_spread : &nz->aa_spread_max);
        else if (nz->aa_pairs > 0)
            YT_ERR_AT(p, y, field, "required key \"%s\" is missing (aa_pairs is %" PRIu32 ")",
                      noise_keys[i].name, nz->aa_pairs);
    }
    if (v[N_AA] != NULL && v[N_AAMAX] != NULL && nz->aa_spread > nz->aa_spread_max)
        YT_ERR_AT(p, v[N_AAMAX], "noise.aa_spread_max", "%s is smaller than aa_spread",
                  v[N_AAMAX]->s);
    if (v[N_LOAD] != NULL)
        walk_load(c, v[N_LOAD]);
}

/* ---- cross-checks ------------------------------------------------------ */

/* rules.provenance.KEY, if given, is the run's value (want, at run_key). */
static void same_as_run(struct rctx *c, const struct ynode *prov, const char *key,
                        const char *have, const char *run_key, const char *want)
{
    char field[ACCT_DIAG_FIELD_MAX];
    const struct ynode *at = acct_yt_map_get(prov, key);
    if (at != NULL && want[0] != '\0' && strcmp(have, want) != 0) {
        snprintf(field, sizeof(field), "rules.provenance.%s", key);
        YT_ERR_AT(c->p, at, field, "\"%s\" is not %s \"%s\"", have, run_key, want);
    }
}

/* The rules' provenance names the run it came from (checked once the rules
 * themselves are valid). */
static void check_provenance(struct rctx *c, const struct ynode *rules_node)
{
    struct acct_result *r = c->r;
    struct acct_provenance *pv = &r->rules->prov;
    const struct ynode *prov = acct_yt_map_get(rules_node, "provenance");

    same_as_run(c, prov, "partition", pv->partition, "run.partition", r->partition);
    same_as_run(c, prov, "interconnect", pv->interconnect, "run.interconnect",
                r->interconnect);
    same_as_run(c, prov, "tuning_run", pv->tuning_run, "run.id", r->id);
    if (pv->tuning_run[0] == '\0') /* left out: the run's */
        memcpy(pv->tuning_run, r->id, sizeof(pv->tuning_run));
    /* the modelled rules come from this run's model (docs/tuning-result.md) */
    const struct ynode *pm = acct_yt_map_get(prov, "model");
    if (pm != NULL && pv->model.present) {
        const struct acct_result_model *m = &r->model;
        if (!m->present)
            YT_ERR_AT(c->p, pm, "rules.provenance.model",
                      "the rules name a model but the result has no model section");
        else if (pv->model.L_us != m->L_us || pv->model.o_us != m->o_us ||
                 pv->model.g_us != m->g_us || pv->model.G_us_per_byte != m->G_us_per_byte)
            YT_ERR_AT(c->p, pm, "rules.provenance.model",
                      "L, o, g, G are not the result's model section (L %g, o %g, g %g, G %g)",
                      m->L_us, m->o_us, m->g_us, m->G_us_per_byte);
    }
}

/* A timed measurement cannot use more ranks than the run had. */
static void check_points(struct rctx *c)
{
    const struct acct_result *r = c->r;
    if (r->cond.ranks <= 0)
        return;
    for (size_t i = 0; i < r->npoints; i++) {
        const struct acct_result_point *pt = &r->points[i];
        if (!pt->modelled && pt->comm_size > r->cond.ranks) {
            char field[ACCT_DIAG_FIELD_MAX];
            snprintf(field, sizeof(field), "measurements[%zu].comm_size", c->pos[i].index);
            acct_yt_err(c->p, c->pos[i].line, c->pos[i].col, field,
                        "%d is larger than conditions.ranks %d (only a modelled point may be)",
                        pt->comm_size, r->cond.ranks);
        }
    }
}

/* ---- the document ------------------------------------------------------ */

enum { T_VERSION, T_RUN, T_COND, T_MODEL, T_MEAS, T_RACES, T_NOISE, T_RULES, T_N };
static const struct yt_key top_keys[T_N] = {
    [T_VERSION] = { "acct_tuning_result", true },
    [T_RUN] = { "run", true },
    [T_COND] = { "conditions", true },
    [T_MODEL] = { "model", false },
    [T_MEAS] = { "measurements", true },
    [T_RACES] = { "races", false },
    [T_NOISE] = { "noise", false },
    [T_RULES] = { "rules", true },
};

static void walk_top(struct rctx *c, const struct ynode *root)
{
    const struct ynode *v[T_N], *k[T_N];
    char d[YT_DESC_LEN];
    struct yt_parse *p = c->p;

    if (!acct_yt_check_version(p, root, "acct_tuning_result", "acct_tuning_result",
                               "tuning result", ACCT_RESULT_VERSION))
        return;
    /* A section this library does not know is skipped with a warning: a
     * newer acct-tune adds optional sections without a new schema version
     * (docs/tuning-result.md, "Forward compatibility"). */
    if (!acct_yt_walk_open_map(p, root, "", "key", top_keys, T_N, v, k))
        return;
    if (v[T_RUN] != NULL)
        walk_run(c, v[T_RUN]);
    if (v[T_COND] != NULL)
        walk_conditions(c, v[T_COND]);
    if (v[T_MODEL] != NULL)
        walk_model(c, v[T_MODEL]);
    if (v[T_MEAS] != NULL && v[T_MEAS]->kind != Y_SEQ)
        YT_ERR_AT(p, v[T_MEAS], "measurements",
                  "expected a list of measurements (\"- {collective: ...}\", or [] for none), "
                  "got %s",
                  acct_yt_describe(v[T_MEAS], d, sizeof(d)));
    if (v[T_RACES] != NULL) /* after conditions: comm_size <= ranks */
        walk_races(c, v[T_RACES]);
    if (v[T_NOISE] != NULL)
        walk_noise(c, v[T_NOISE]);
    if (v[T_RULES] != NULL) {
        size_t rules_before = p->errors;
        c->r->rules = acct_rules_from_tree(p, v[T_RULES], "rules");
        if (c->r->rules != NULL && p->errors == rules_before)
            check_provenance(c, v[T_RULES]);
    }
    check_points(c);
}

/* ======================================================================
 * Entry points
 * ====================================================================== */

void acct_result_free(struct acct_result *r)
{
    if (r == NULL)
        return;
    free(r->cond.hosts);
    free(r->points);
    for (size_t i = 0; i < r->nraces; i++) {
        for (size_t j = 0; j < r->races[i].nf; j++)
            free(r->races[i].f[j].round_us);
        free(r->races[i].f);
    }
    free(r->races);
    free(r->noise.load);
    acct_rules_free(r->rules);
    free(r);
}

static bool start_document(struct yt_parse *p, void *arg)
{
    struct rctx *c = arg;
    c->p = p;
    c->r = calloc(1, sizeof(*c->r));
    if (c->r == NULL)
        acct_yt_oom(p);
    return c->r != NULL;
}

static void walk_document(struct yt_parse *p, const struct ynode *root, void *arg)
{
    (void)p;
    walk_top(arg, root);
}

static const struct acct_yt_doc result_doc = {
    .doc = "tuning result",
    .docs = "tuning results",
    .nothing = "no tuning result given",
    .limit = ACCT_RESULT_MAX_FILE_BYTES,
    .max_nodes = MAX_NODES,
    .start = start_document,
    .walk = walk_document,
    .stream_key = "measurements",
    .item = walk_point,
};

/* From a file (from_file: name is its path) or from memory. */
static int parse(bool from_file, const char *name, const char *buf, size_t len,
                 struct acct_result **out, struct acct_diags *diags)
{
    struct rctx c = { 0 };
    uint64_t hash = 0;
    int rc;

    if (out != NULL)
        *out = NULL;
    rc = acct_yt_parse(&result_doc, from_file, name, buf, len, out != NULL, diags, &c, &hash);
    if (rc == ACCT_RULES_OK) {
        struct acct_result *r = c.r;
        if (r->npoints < c.cap) { /* give back the growth room */
            struct acct_result_point *nv =
                realloc(r->points, (r->npoints > 0 ? r->npoints : 1) * sizeof(*nv));
            if (nv != NULL)
                r->points = nv;
        }
        r->hash = hash;
        *out = r;
        c.r = NULL;
    }
    free(c.pos);
    acct_result_free(c.r);
    return rc;
}

int acct_result_parse_buffer(const char *name, const char *buf, size_t len,
                             struct acct_result **out, struct acct_diags *diags)
{
    return parse(false, name != NULL ? name : "(result)", buf, len, out, diags);
}

int acct_result_parse_file(const char *path, struct acct_result **out,
                           struct acct_diags *diags)
{
    return parse(true, path, NULL, 0, out, diags);
}

/* ======================================================================
 * Equality and the canonical form
 * ====================================================================== */

static bool point_equal(const struct acct_result_point *a, const struct acct_result_point *b)
{
    return a->coll == b->coll && a->comm_size == b->comm_size && a->bytes == b->bytes &&
           acct_decision_equal(&a->d, &b->d) && a->modelled == b->modelled &&
           a->reps == b->reps && a->median_us == b->median_us && a->q1_us == b->q1_us &&
           a->q3_us == b->q3_us && a->min_us == b->min_us && a->max_us == b->max_us &&
           a->has_avg == b->has_avg && (!a->has_avg || a->avg_us == b->avg_us) &&
           a->has_rank_max == b->has_rank_max &&
           (!a->has_rank_max || a->rank_max_us == b->rank_max_us);
}

static bool race_equal(const struct acct_result_race *a, const struct acct_result_race *b)
{
    bool same = a->coll == b->coll && a->comm_size == b->comm_size && a->bytes == b->bytes &&
                a->metric == b->metric && a->rounds == b->rounds && a->alpha == b->alpha &&
                a->tolerance == b->tolerance && a->has_aa == b->has_aa &&
                (!a->has_aa || a->aa_spread == b->aa_spread) &&
                a->resolved_by == b->resolved_by && a->has_cost == b->has_cost &&
                (!a->has_cost ||
                 (a->experiments == b->experiments && a->seconds == b->seconds &&
                  a->search_experiments == b->search_experiments &&
                  a->search_seconds == b->search_seconds)) &&
                a->nf == b->nf;
    for (size_t i = 0; same && i < a->nf; i++)
        same = acct_decision_equal(&a->f[i].d, &b->f[i].d) &&
               a->f[i].verdict == b->f[i].verdict && a->f[i].ratio == b->f[i].ratio &&
               a->f[i].p == b->f[i].p && a->f[i].search_pick == b->f[i].search_pick &&
               a->f[i].nrounds == b->f[i].nrounds &&
               (a->f[i].nrounds == 0 ||
                memcmp(a->f[i].round_us, b->f[i].round_us,
                       (size_t)ACCT_RESULT_VIEWS * a->f[i].nrounds * sizeof(double)) == 0);
    return same;
}

static bool noise_equal(const struct acct_result_noise *a, const struct acct_result_noise *b)
{
    bool same = a->present == b->present;
    if (!same || !a->present)
        return same;
    same = a->repeat_spread == b->repeat_spread && a->repeat_spread_p90 == b->repeat_spread_p90 &&
           a->aa_pairs == b->aa_pairs && a->aa_spread == b->aa_spread &&
           a->aa_spread_max == b->aa_spread_max && a->nload == b->nload;
    for (size_t i = 0; same && i < a->nload; i++)
        same = strcmp(a->load[i].host, b->load[i].host) == 0 &&
               a->load[i].start == b->load[i].start && a->load[i].end == b->load[i].end;
    return same;
}

bool acct_result_equal(const struct acct_result *a, const struct acct_result *b)
{
    const struct acct_result_conditions *x = &a->cond, *y = &b->cond;
    const struct acct_result_model *m = &a->model, *n = &b->model;
    bool same = strcmp(a->id, b->id) == 0 && strcmp(a->partition, b->partition) == 0 &&
                strcmp(a->interconnect, b->interconnect) == 0 &&
                strcmp(a->started, b->started) == 0 && strcmp(a->finished, b->finished) == 0 &&
                a->complete == b->complete && strcmp(a->strategy, b->strategy) == 0 &&
                a->source == b->source && a->budget_s == b->budget_s &&
                a->experiment_s == b->experiment_s && a->experiments == b->experiments &&
                x->nhosts == y->nhosts && x->ranks == y->ranks &&
                x->ranks_per_node == y->ranks_per_node && x->placement == y->placement &&
                strcmp(x->mpi_library, y->mpi_library) == 0 &&
                strcmp(x->acct_version, y->acct_version) == 0 &&
                strcmp(x->slurm_job_id, y->slurm_job_id) == 0 && m->present == n->present &&
                (!m->present || (m->L_us == n->L_us && m->o_us == n->o_us &&
                                 m->g_us == n->g_us && m->G_us_per_byte == n->G_us_per_byte &&
                                 m->has_levels == n->has_levels &&
                                 (!m->has_levels ||
                                  (memcmp(&m->intra, &n->intra, sizeof m->intra) == 0 &&
                                   memcmp(&m->inter, &n->inter, sizeof m->inter) == 0)) &&
                                 m->nic_pairs == n->nic_pairs &&
                                 m->nic_gap_factor == n->nic_gap_factor &&
                                 m->nic_bidir_pairs == n->nic_bidir_pairs &&
                                 m->nic_bidir_gap_factor == n->nic_bidir_gap_factor &&
                                 m->pair_duplex_factor == n->pair_duplex_factor &&
                                 m->pair_duplex_overlap_bytes ==
                                     n->pair_duplex_overlap_bytes)) &&
                a->npoints == b->npoints && (a->rules == NULL) == (b->rules == NULL);
    for (size_t i = 0; same && i < x->nhosts; i++)
        same = strcmp(x->hosts[i], y->hosts[i]) == 0;
    for (size_t i = 0; same && i < a->npoints; i++)
        same = point_equal(&a->points[i], &b->points[i]);
    same = same && a->nraces == b->nraces;
    for (size_t i = 0; same && i < a->nraces; i++)
        same = race_equal(&a->races[i], &b->races[i]);
    same = same && noise_equal(&a->noise, &b->noise);
    return same && (a->rules == NULL || acct_rules_equal(a->rules, b->rules));
}

/* One key: value pair of a flow mapping, ", " before all but the first. */
static void write_number_key(FILE *f, const char *key, double v)
{
    fprintf(f, ", %s: ", key);
    acct_yt_write_number(f, v);
}

static void write_point(FILE *f, const struct acct_result_point *pt)
{
    fprintf(f, "  - {collective: %s, comm_size: %d, bytes: ", acct_coll_name(pt->coll),
            pt->comm_size);
    acct_yt_write_size(f, pt->bytes, false);
    fprintf(f, ", algorithm: %s", pt->d.alg != NULL ? pt->d.alg->name : "native");
    if (pt->d.segment_bytes != 0) {
        fputs(", segment: ", f);
        acct_yt_write_size(f, pt->d.segment_bytes, false);
    }
    if (pt->d.fanout != 0)
        fprintf(f, ", fanout: %d", pt->d.fanout);
    if (pt->d.reorder)
        fputs(", reorder: true", f);
    if (pt->modelled)
        fputs(", modelled: true", f);
    else
        fprintf(f, ", reps: %" PRIu32, pt->reps);
    write_number_key(f, "median_us", pt->median_us);
    if (!pt->modelled || pt->q1_us != pt->median_us || pt->q3_us != pt->median_us ||
        pt->min_us != pt->median_us || pt->max_us != pt->median_us) {
        write_number_key(f, "q1_us", pt->q1_us);
        write_number_key(f, "q3_us", pt->q3_us);
        write_number_key(f, "min_us", pt->min_us);
        write_number_key(f, "max_us", pt->max_us);
    }
    if (pt->has_avg && !pt->modelled)
        write_number_key(f, "avg_us", pt->avg_us);
    if (pt->has_rank_max && !pt->modelled)
        write_number_key(f, "rank_max_us", pt->rank_max_us);
    fputs("}\n", f);
}

/* The method keys of a decision, ", " before each. */
static void write_method(FILE *f, const struct acct_decision *d)
{
    fprintf(f, "algorithm: %s", d->alg != NULL ? d->alg->name : "native");
    if (d->segment_bytes != 0) {
        fputs(", segment: ", f);
        acct_yt_write_size(f, d->segment_bytes, false);
    }
    if (d->fanout != 0)
        fprintf(f, ", fanout: %d", d->fanout);
    if (d->reorder)
        fputs(", reorder: true", f);
}

static void write_race(FILE *f, const struct acct_result_race *rc)
{
    fprintf(f, "  - {collective: %s, comm_size: %d, bytes: ", acct_coll_name(rc->coll),
            rc->comm_size);
    acct_yt_write_size(f, rc->bytes, false);
    fprintf(f, ", metric: %s, rounds: %" PRIu32, acct_result_view_name(rc->metric), rc->rounds);
    write_number_key(f, "alpha", rc->alpha);
    write_number_key(f, "tolerance", rc->tolerance);
    if (rc->has_aa)
        write_number_key(f, "aa_spread", rc->aa_spread);
    fprintf(f, ", resolved_by: %s", acct_result_resolve_name(rc->resolved_by));
    if (rc->has_cost) {
        fprintf(f, ", experiments: %" PRIu64, rc->experiments);
        write_number_key(f, "seconds", rc->seconds);
        fprintf(f, ", search_experiments: %" PRIu64, rc->search_experiments);
        write_number_key(f, "search_seconds", rc->search_seconds);
    }
    fputs(",\n     finalists: [", f);
    for (size_t i = 0; i < rc->nf; i++) {
        fputs(i ? ",\n       {" : "{", f);
        write_method(f, &rc->f[i].d);
        fprintf(f, ", verdict: %s", acct_result_verdict_name(rc->f[i].verdict));
        write_number_key(f, "ratio", rc->f[i].ratio);
        write_number_key(f, "p", rc->f[i].p);
        if (rc->f[i].search_pick)
            fputs(", search_pick: true", f);
        for (int v = 0; rc->f[i].round_us != NULL && v < ACCT_RESULT_VIEWS; v++) {
            fprintf(f, ", %s: [", finalist_keys[F_ROUNDS + v].name);
            for (uint32_t r = 0; r < rc->f[i].nrounds; r++) {
                if (r > 0)
                    fputs(", ", f);
                acct_yt_write_number(f, rc->f[i].round_us[(size_t)v * rc->f[i].nrounds + r]);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
}

static void write_noise(FILE *f, const struct acct_result_noise *nz)
{
    fputs("noise:\n  repeat_spread: ", f);
    acct_yt_write_number(f, nz->repeat_spread);
    fputs("\n  repeat_spread_p90: ", f);
    acct_yt_write_number(f, nz->repeat_spread_p90);
    fprintf(f, "\n  aa_pairs: %" PRIu32 "\n", nz->aa_pairs);
    if (nz->aa_pairs > 0) {
        fputs("  aa_spread: ", f);
        acct_yt_write_number(f, nz->aa_spread);
        fputs("\n  aa_spread_max: ", f);
        acct_yt_write_number(f, nz->aa_spread_max);
        fputc('\n', f);
    }
    fputs(nz->nload > 0 ? "  load:\n" : "  load: []\n", f);
    for (size_t i = 0; i < nz->nload; i++) {
        fputs("    - {host: ", f);
        acct_yt_write_string(f, nz->load[i].host);
        write_number_key(f, "start", nz->load[i].start);
        write_number_key(f, "end", nz->load[i].end);
        fputs("}\n", f);
    }
}

/* "  key: " then a quoted string and a newline. */
static void write_string_line(FILE *f, const char *key, const char *s)
{
    fprintf(f, "  %s: ", key);
    acct_yt_write_string(f, s);
    fputc('\n', f);
}

int acct_result_write(FILE *f, const struct acct_result *r)
{
    const struct acct_result_conditions *cd = &r->cond;

    fprintf(f, "# ACCT tuning result (schema version %d, see docs/tuning-result.md)\n",
            ACCT_RESULT_VERSION);
    fprintf(f, "acct_tuning_result: %d\nrun:\n", ACCT_RESULT_VERSION);
    write_string_line(f, "id", r->id);
    write_string_line(f, "partition", r->partition);
    write_string_line(f, "interconnect", r->interconnect);
    write_string_line(f, "started", r->started);
    write_string_line(f, "finished", r->finished);
    fprintf(f, "  complete: %s\n", r->complete ? "true" : "false");
    write_string_line(f, "strategy", r->strategy);
    fprintf(f, "  source: %s\n", acct_result_source_name(r->source));
    if (r->budget_s > 0) {
        fputs("  budget: ", f);
        acct_yt_write_number(f, r->budget_s);
        fputc('\n', f);
    }
    fputs("  experiment_seconds: ", f);
    acct_yt_write_number(f, r->experiment_s);
    fprintf(f, "\n  experiments: %" PRIu64 "\nconditions:\n  hosts:\n", r->experiments);
    for (size_t i = 0; i < cd->nhosts; i++) {
        fputs("    - ", f);
        acct_yt_write_string(f, cd->hosts[i]);
        fputc('\n', f);
    }
    fprintf(f, "  ranks: %d\n  ranks_per_node: %d\n  placement: %s\n", cd->ranks,
            cd->ranks_per_node, acct_placement_name(cd->placement));
    write_string_line(f, "mpi_library", cd->mpi_library);
    write_string_line(f, "acct_version", cd->acct_version);
    if (cd->slurm_job_id[0] != '\0')
        write_string_line(f, "slurm_job_id", cd->slurm_job_id);
    if (r->model.present) {
        const double *val[] = { &r->model.L_us, &r->model.o_us, &r->model.g_us,
                                &r->model.G_us_per_byte };
        fputs("model:\n", f);
        for (int i = 0; i < G_N; i++) {
            fprintf(f, "  %s: ", model_keys[i].name);
            acct_yt_write_number(f, *val[i]);
            fputc('\n', f);
        }
        const struct acct_result_loggp *lv[] = { &r->model.intra, &r->model.inter };
        for (int l = 0; r->model.has_levels && l < 2; l++) {
            const double x[G_N] = { lv[l]->L_us, lv[l]->o_us, lv[l]->g_us, lv[l]->G_us_per_byte };
            fprintf(f, "  %s: {", l == 0 ? "intra" : "inter");
            for (int i = 0; i < G_N; i++) {
                fprintf(f, "%s%s: ", i ? ", " : "", model_keys[i].name);
                acct_yt_write_number(f, x[i]);
            }
            fputs("}\n", f);
        }
        bool duplex = r->model.pair_duplex_factor >= 1;
        if (r->model.has_levels && (r->model.nic_pairs >= 2 || duplex)) {
            fputs("  nic: {", f);
            if (r->model.nic_pairs >= 2) {
                fprintf(f, "pairs: %d, gap_factor: ", r->model.nic_pairs);
                acct_yt_write_number(f, r->model.nic_gap_factor);
            }
            if (r->model.nic_pairs >= 2 && r->model.nic_bidir_pairs >= 2) {
                fprintf(f, ", bidir_pairs: %d, bidir_gap_factor: ", r->model.nic_bidir_pairs);
                acct_yt_write_number(f, r->model.nic_bidir_gap_factor);
            }
            if (duplex) {
                fputs(r->model.nic_pairs >= 2 ? ", pair_duplex_factor: " : "pair_duplex_factor: ",
                      f);
                acct_yt_write_number(f, r->model.pair_duplex_factor);
                if (r->model.pair_duplex_overlap_bytes > 0)
                    fprintf(f, ", pair_duplex_overlap_bytes: %llu",
                            (unsigned long long)r->model.pair_duplex_overlap_bytes);
            }
            fputs("}\n", f);
        }
    }
    fputs(r->npoints > 0 ? "measurements:\n" : "measurements: []\n", f);
    for (size_t i = 0; i < r->npoints; i++)
        write_point(f, &r->points[i]);
    if (r->nraces > 0)
        fputs("races:\n", f);
    for (size_t i = 0; i < r->nraces; i++)
        write_race(f, &r->races[i]);
    if (r->noise.present)
        write_noise(f, &r->noise);
    if (r->rules != NULL) {
        fputs("rules:\n", f);
        acct_rules_write_indented(f, r->rules, "  ");
    }
    return ferror(f) ? -1 : 0;
}
