/* Rules files: parser, validator and canonical writer (acct/rules.h; the
 * format is in docs/rules.md).
 *
 * Parsing runs in the three stages of yamltree.h (bytes, YAML tree,
 * schema); this file holds the rules schema: a key table per mapping, every
 * problem recorded with its field path, and the rules of each collective
 * checked for overlaps. The same walk validates the "rules" document inside
 * a tuning result (result.c), with field paths under "rules.". Any problem
 * in any stage means no rules. */
#include "acct/rules.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/stats.h"
#include "rules_tree.h"
#include "yamltree.h"

/* Nodes of the YAML tree: ~17 per rule at the rule limit, with room. */
#define MAX_NODES (32 * ACCT_RULES_MAX_RULES)
_Static_assert(ACCT_RULES_TIME_LEN == YT_TIME_LEN, "created: is read by acct_yt_get_time");

static const char *const source_names[] = {
    [ACCT_SOURCE_MEASURED] = "measured",
    [ACCT_SOURCE_MODEL] = "model",
    [ACCT_SOURCE_REFINED] = "refined",
    [ACCT_SOURCE_MANUAL] = "manual",
};

static const char *const evidence_names[] = {
    [ACCT_EVIDENCE_MEASURED] = "measured",
    [ACCT_EVIDENCE_MODEL] = "model",
    [ACCT_EVIDENCE_NONE] = "none",
};

static const char *const placement_names[] = {
    [ACCT_PLACEMENT_NONE] = "none",
    [ACCT_PLACEMENT_BLOCK] = "block",
    [ACCT_PLACEMENT_CYCLIC] = "cyclic",
    [ACCT_PLACEMENT_MIXED] = "mixed",
};

static const char *const layout_kind_names[] = {
    [ACCT_LAYOUT_ANY] = "any",
    [ACCT_LAYOUT_REGULAR] = "regular",
    [ACCT_LAYOUT_IRREGULAR] = "irregular",
};

const char *acct_layout_kind_name(enum acct_layout_kind k)
{
    return (unsigned)k < ACCT_ARRAY_LEN(layout_kind_names) ? layout_kind_names[k] : "?";
}

const char *acct_rules_source_name(enum acct_rules_source s)
{
    return (unsigned)s < ACCT_ARRAY_LEN(source_names) ? source_names[s] : "?";
}

const char *acct_evidence_name(enum acct_evidence e)
{
    return (unsigned)e < ACCT_ARRAY_LEN(evidence_names) ? evidence_names[e] : "?";
}

const char *acct_placement_name(enum acct_placement p)
{
    return (unsigned)p < ACCT_ARRAY_LEN(placement_names) ? placement_names[p] : "?";
}

uint64_t acct_rules_hash(const void *buf, size_t len)
{
    return acct_yt_hash(buf, len);
}

/* ======================================================================
 * The schema (the tree and the typed getters are in yamltree.c)
 * ====================================================================== */

/* One walk over a rules document: a rules file, or the "rules" value of a
 * tuning result (field paths then start with the prefix). */
struct rwalk {
    struct yt_parse *p;
    const char *prefix; /* "" or e.g. "rules" */
    struct acct_rules *r;
    size_t caps[ACCT_COLL_COUNT];
    size_t rules_seen; /* rules met in the document, valid or not */
    long long version; /* the document's schema version (acct_rules) */
    bool model_given;  /* provenance.model is in the document (valid or not) */
    bool levels_given; /* ... with intra or inter (valid or not) */
    /* per collective, the document index of each kept rule (for messages) */
    size_t *index[ACCT_COLL_COUNT];
};

/* The field path prefix.REL (REL printf-style, never empty). */
static const char *rpath(const struct rwalk *w, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static const char *rpath(const struct rwalk *w, char *buf, size_t len, const char *fmt, ...)
{
    size_t o = 0;
    va_list ap;
    if (w->prefix[0] != '\0') {
        int k = snprintf(buf, len, "%s.", w->prefix);
        o = k < 0 ? 0 : (size_t)k < len ? (size_t)k : len - 1;
    }
    va_start(ap, fmt);
    vsnprintf(buf + o, len - o, fmt, ap);
    va_end(ap);
    return buf;
}

/* ---- provenance ---------------------------------------------------------- */

enum { P_PARTITION, P_INTERCONNECT, P_VERSION, P_SOURCE, P_CREATED, P_RUN, P_LAYOUT, P_MODEL,
       P_RUNS, P_N };
static const struct yt_key prov_keys[P_N] = {
    [P_PARTITION] = { "partition", true },  [P_INTERCONNECT] = { "interconnect", true },
    [P_VERSION] = { "version", true },      [P_SOURCE] = { "source", true },
    [P_CREATED] = { "created", true },      [P_RUN] = { "tuning_run", false },
    [P_LAYOUT] = { "layout", false },       [P_MODEL] = { "model", false },
    [P_RUNS] = { "runs", false },
};

/* provenance.model: the parameters behind the evidence: model rules. */
enum { M_RUN, M_L, M_O, M_G_GAP, M_G_BYTE, M_MARGIN, M_INTRA, M_INTER, M_NIC, M_N };
static const struct yt_key model_keys[M_N] = {
    [M_RUN] = { "tuning_run", false }, [M_L] = { "L", true },  [M_O] = { "o", true },
    [M_G_GAP] = { "g", true },         [M_G_BYTE] = { "G", true },
    [M_MARGIN] = { "margin", true },   [M_INTRA] = { "intra", false },
    [M_INTER] = { "inter", false },    [M_NIC] = { "nic", false },
};

/* provenance.model.intra and .inter: one level's LogGP numbers. */
enum { ML_L, ML_O, ML_G_GAP, ML_G_BYTE, ML_N };
static const struct yt_key level_keys[ML_N] = {
    [ML_L] = { "L", true }, [ML_O] = { "o", true },
    [ML_G_GAP] = { "g", true }, [ML_G_BYTE] = { "G", true },
};

/* provenance.model.nic: the NIC sharing factors (the tuning result's
 * model.nic keys). */
enum { MN_PAIRS, MN_FACTOR, MN_BPAIRS, MN_BFACTOR, MN_DUPLEX, MN_OVERLAP, MN_N };
static const struct yt_key nic_keys[MN_N] = {
    [MN_PAIRS] = { "pairs", false },
    [MN_FACTOR] = { "gap_factor", false },
    [MN_BPAIRS] = { "bidir_pairs", false },
    [MN_BFACTOR] = { "bidir_gap_factor", false },
    [MN_DUPLEX] = { "pair_duplex_factor", false },
    [MN_OVERLAP] = { "pair_duplex_overlap_bytes", false },
};

enum { L_RPN, L_PLACEMENT, L_N };
static const struct yt_key layout_keys[L_N] = {
    [L_RPN] = { "ranks_per_node", false },
    [L_PLACEMENT] = { "placement", false },
};

static void walk_layout(struct rwalk *w, const struct ynode *y, struct acct_provenance *pv)
{
    char f[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[L_N], *k[L_N];
    if (!acct_yt_walk_map(w->p, y, rpath(w, f, sizeof(f), "provenance.layout"), "key", layout_keys,
                          L_N, v, k))
        return;
    if (v[L_RPN] != NULL) {
        uint64_t lo, hi;
        rpath(w, f, sizeof(f), "provenance.layout.ranks_per_node");
        if (acct_yt_get_range(w->p, v[L_RPN], f, YT_RANGE_RANKS, &lo, &hi)) {
            pv->ranks_per_node_min = (int)lo;
            pv->ranks_per_node_max = (int)hi;
        }
    }
    if (v[L_PLACEMENT] != NULL) {
        int x;
        if (acct_yt_get_word(w->p, v[L_PLACEMENT],
                             rpath(w, f, sizeof(f), "provenance.layout.placement"), "placement",
                             placement_names, ACCT_ARRAY_LEN(placement_names), ACCT_PLACEMENT_BLOCK,
                             &x))
            pv->placement = (enum acct_placement)x;
    }
}

/* provenance.runs: [{ranks_per_node: R, tuning_run: ID}, ...], R ascending
 * (schema 2: written by acctctl merge, read by acctd for the model of
 * each layout). */
enum { LR_RPN, LR_RUN, LR_N };
static const struct yt_key layout_run_keys[LR_N] = {
    [LR_RPN] = { "ranks_per_node", true },
    [LR_RUN] = { "tuning_run", true },
};

static void walk_runs(struct rwalk *w, const struct ynode *key, const struct ynode *y,
                      struct acct_provenance *pv)
{
    char f[ACCT_DIAG_FIELD_MAX], d[YT_DESC_LEN];
    struct yt_parse *p = w->p;
    size_t i = 0;

    rpath(w, f, sizeof(f), "provenance.runs");
    if (w->version < ACCT_RULES_VERSION_LAYOUT) {
        YT_ERR_AT(p, key, f,
                  "needs \"acct_rules: %d\" (this file says %lld; libraries that read only "
                  "version 1 refuse it)",
                  ACCT_RULES_VERSION_LAYOUT, w->version);
        return;
    }
    if (y->kind != Y_SEQ) {
        YT_ERR_AT(p, y, f,
                  "expected a list of {ranks_per_node: R, tuning_run: ID}, one per layout, got %s",
                  acct_yt_describe(y, d, sizeof(d)));
        return;
    }
    for (const struct ynode *e = y->first; e != NULL; e = e->next, i++) {
        const struct ynode *v[LR_N], *k[LR_N];
        struct acct_rules_layout_run r = { 0 };
        long long rpn;
        rpath(w, f, sizeof(f), "provenance.runs[%zu]", i);
        if (i == ACCT_RULES_RUNS_MAX) {
            YT_ERR_AT(p, e, f, "more than %d layouts", ACCT_RULES_RUNS_MAX);
            return;
        }
        if (!acct_yt_walk_map(p, e, f, "key", layout_run_keys, LR_N, v, k))
            continue;
        size_t errors = p->errors;
        if (v[LR_RPN] != NULL &&
            acct_yt_get_int_in(p, v[LR_RPN], rpath(w, f, sizeof(f), "provenance.runs[%zu].ranks_per_node", i),
                               "ranks per node (integer >= 1)", 1, INT_MAX, false, &rpn))
            r.ranks_per_node = (int)rpn;
        if (v[LR_RUN] != NULL)
            acct_yt_get_name(p, v[LR_RUN], rpath(w, f, sizeof(f), "provenance.runs[%zu].tuning_run", i),
                             ACCT_RULES_RUN_MAX, r.run);
        if (p->errors != errors)
            continue;
        if (pv->nruns > 0 && r.ranks_per_node <= pv->runs[pv->nruns - 1].ranks_per_node) {
            YT_ERR_AT(p, v[LR_RPN], rpath(w, f, sizeof(f), "provenance.runs[%zu].ranks_per_node", i),
                      "%d after %d: the layouts must be in ascending ranks per node, each once",
                      r.ranks_per_node, pv->runs[pv->nruns - 1].ranks_per_node);
            continue;
        }
        pv->runs[pv->nruns++] = r;
    }
}

static void walk_level(struct rwalk *w, const struct ynode *y, const char *name,
                       struct acct_rules_loggp *out)
{
    char f[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[ML_N], *k[ML_N];
    double *dst[ML_N] = { &out->L_us, &out->o_us, &out->g_us, &out->G_us_per_byte };

    if (!acct_yt_walk_map(w->p, y, rpath(w, f, sizeof(f), "provenance.model.%s", name), "key",
                          level_keys, ML_N, v, k))
        return;
    for (int i = 0; i < ML_N; i++) {
        double x;
        if (v[i] != NULL &&
            acct_yt_get_number(w->p, v[i],
                               rpath(w, f, sizeof(f), "provenance.model.%s.%s", name,
                                     level_keys[i].name),
                               0, false, &x))
            *dst[i] = x == 0 ? 0 : x; /* no -0 */
    }
}

/* A whole number of pairs in [2, 1048576] at provenance.model.nic.NAME. */
static bool nic_pairs_at(struct rwalk *w, const struct ynode *y, const char *name, int *out)
{
    char f[ACCT_DIAG_FIELD_MAX];
    long long x;
    if (!acct_yt_get_int_in(w->p, y, rpath(w, f, sizeof(f), "provenance.model.nic.%s", name),
                            "a number of pairs (integer in [2, 1048576])", 2, 1 << 20, false, &x))
        return false;
    *out = (int)x;
    return true;
}

/* A factor >= 1 (at most max) at provenance.model.nic.NAME. */
static bool nic_factor_at(struct rwalk *w, const struct ynode *y, const char *name, double max,
                          double *out)
{
    char f[ACCT_DIAG_FIELD_MAX];
    double x;
    rpath(w, f, sizeof(f), "provenance.model.nic.%s", name);
    if (!acct_yt_get_number(w->p, y, f, 1, false, &x))
        return false;
    if (x > max) {
        YT_ERR_AT(w->p, y, f, "%s is too large: the maximum is %g", y->s, max);
        return false;
    }
    *out = x;
    return true;
}

/* The levels (intra, inter) and nic of provenance.model: the parameters of
 * the layout-bound modelled rules (docs/rules.md, "Evidence"). Unknown keys
 * are errors, as everywhere in a rules file. */
static void walk_model_levels(struct rwalk *w, const struct ynode *const v[M_N],
                              struct acct_rules_model *m)
{
    char f[ACCT_DIAG_FIELD_MAX];
    const struct ynode *nv[MN_N], *nk[MN_N];
    struct yt_parse *p = w->p;

    w->levels_given = v[M_INTRA] != NULL || v[M_INTER] != NULL;
    if ((v[M_INTRA] != NULL) != (v[M_INTER] != NULL))
        YT_ERR_AT(p, v[M_INTRA] != NULL ? v[M_INTRA] : v[M_INTER],
                  rpath(w, f, sizeof(f), "provenance.model.%s",
                        v[M_INTRA] != NULL ? "intra" : "inter"),
                  "intra and inter come together (an intra-node and an inter-node level)");
    else if (v[M_INTRA] != NULL) {
        m->has_levels = true;
        walk_level(w, v[M_INTRA], "intra", &m->intra);
        walk_level(w, v[M_INTER], "inter", &m->inter);
    }
    if (v[M_NIC] == NULL || !acct_yt_walk_map(p, v[M_NIC],
                                              rpath(w, f, sizeof(f), "provenance.model.nic"),
                                              "key", nic_keys, MN_N, nv, nk))
        return;
    if (!m->has_levels)
        YT_ERR_AT(p, v[M_NIC], rpath(w, f, sizeof(f), "provenance.model.nic"),
                  "needs provenance.model.intra and provenance.model.inter");
    if ((nv[MN_PAIRS] != NULL) != (nv[MN_FACTOR] != NULL))
        YT_ERR_AT(p, nv[MN_PAIRS] != NULL ? nv[MN_PAIRS] : nv[MN_FACTOR],
                  rpath(w, f, sizeof(f), "provenance.model.nic.%s",
                        nv[MN_PAIRS] != NULL ? "pairs" : "gap_factor"),
                  "pairs and gap_factor come together (the NIC factor)");
    else if (nv[MN_PAIRS] != NULL && nic_pairs_at(w, nv[MN_PAIRS], "pairs", &m->nic_pairs))
        nic_factor_at(w, nv[MN_FACTOR], "gap_factor", 1e6, &m->nic_gap_factor);
    if ((nv[MN_BPAIRS] != NULL) != (nv[MN_BFACTOR] != NULL))
        YT_ERR_AT(p, nv[MN_BPAIRS] != NULL ? nv[MN_BPAIRS] : nv[MN_BFACTOR],
                  rpath(w, f, sizeof(f), "provenance.model.nic.%s",
                        nv[MN_BPAIRS] != NULL ? "bidir_pairs" : "bidir_gap_factor"),
                  "bidir_pairs and bidir_gap_factor come together (the two-way factor)");
    else if (nv[MN_BPAIRS] != NULL && nv[MN_PAIRS] == NULL)
        YT_ERR_AT(p, nv[MN_BPAIRS], rpath(w, f, sizeof(f), "provenance.model.nic.bidir_pairs"),
                  "the two-way factor needs pairs and gap_factor");
    else if (nv[MN_BPAIRS] != NULL &&
             nic_pairs_at(w, nv[MN_BPAIRS], "bidir_pairs", &m->nic_bidir_pairs))
        nic_factor_at(w, nv[MN_BFACTOR], "bidir_gap_factor", 1e6, &m->nic_bidir_gap_factor);
    if (nv[MN_DUPLEX] != NULL)
        nic_factor_at(w, nv[MN_DUPLEX], "pair_duplex_factor", ACCT_RULES_PAIR_DUPLEX_MAX,
                      &m->pair_duplex_factor);
    if (nv[MN_OVERLAP] != NULL) {
        uint64_t x;
        rpath(w, f, sizeof(f), "provenance.model.nic.pair_duplex_overlap_bytes");
        if (nv[MN_DUPLEX] == NULL)
            YT_ERR_AT(p, nv[MN_OVERLAP], f, "needs pair_duplex_factor (the overlap is its)");
        else if (acct_yt_get_size(p, nv[MN_OVERLAP], f, false, &x)) {
            if (x > ACCT_RULES_PAIR_OVERLAP_MAX)
                YT_ERR_AT(p, nv[MN_OVERLAP], f, "%s is too large: the maximum is 1G",
                          nv[MN_OVERLAP]->s);
            else
                m->pair_duplex_overlap_bytes = x;
        }
    }
    if (nv[MN_PAIRS] == NULL && nv[MN_BPAIRS] == NULL && nv[MN_DUPLEX] == NULL)
        YT_ERR_AT(p, v[M_NIC], rpath(w, f, sizeof(f), "provenance.model.nic"),
                  "needs pairs and gap_factor, pair_duplex_factor, or both");
}

static void walk_model(struct rwalk *w, const struct ynode *y, struct acct_rules_model *m)
{
    char f[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[M_N], *k[M_N];
    struct yt_parse *p = w->p;
    size_t errors = p->errors;
    /* the four LogGP numbers, in key order */
    static const struct {
        int key;
        const char *name;
        size_t off;
    } nums[] = {
        { M_L, "L", offsetof(struct acct_rules_model, L_us) },
        { M_O, "o", offsetof(struct acct_rules_model, o_us) },
        { M_G_GAP, "g", offsetof(struct acct_rules_model, g_us) },
        { M_G_BYTE, "G", offsetof(struct acct_rules_model, G_us_per_byte) },
    };

    if (!acct_yt_walk_map(p, y, rpath(w, f, sizeof(f), "provenance.model"), "key", model_keys,
                          M_N, v, k))
        return;
    if (v[M_RUN] != NULL)
        acct_yt_get_name(p, v[M_RUN], rpath(w, f, sizeof(f), "provenance.model.tuning_run"),
                         ACCT_RULES_RUN_MAX, m->run);
    for (size_t i = 0; i < ACCT_ARRAY_LEN(nums); i++) {
        double x;
        if (v[nums[i].key] != NULL &&
            acct_yt_get_number(p, v[nums[i].key],
                               rpath(w, f, sizeof(f), "provenance.model.%s", nums[i].name), 0,
                               false, &x))
            *(double *)(void *)((char *)m + nums[i].off) = x == 0 ? 0 : x; /* no -0 */
    }
    if (v[M_MARGIN] != NULL) {
        double x;
        rpath(w, f, sizeof(f), "provenance.model.margin");
        if (acct_yt_get_number(p, v[M_MARGIN], f, 1, false, &x)) {
            if (x > ACCT_RULES_MARGIN_MAX)
                YT_ERR_AT(p, v[M_MARGIN], f, "%s is too large: the maximum is %g",
                          v[M_MARGIN]->s, ACCT_RULES_MARGIN_MAX);
            else
                m->margin = x;
        }
    }
    walk_model_levels(w, v, m);
    m->present = p->errors == errors;
}

static void walk_provenance(struct rwalk *w, const struct ynode *y)
{
    char f[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[P_N], *k[P_N];
    struct acct_provenance *pv = &w->r->prov;
    struct yt_parse *p = w->p;
    long long ver;
    int x;

    if (!acct_yt_walk_map(p, y, rpath(w, f, sizeof(f), "provenance"), "key", prov_keys, P_N, v, k))
        return;
    if (v[P_PARTITION] != NULL)
        acct_yt_get_name(p, v[P_PARTITION], rpath(w, f, sizeof(f), "provenance.partition"),
                         ACCT_RULES_NAME_MAX, pv->partition);
    if (v[P_INTERCONNECT] != NULL)
        acct_yt_get_name(p, v[P_INTERCONNECT], rpath(w, f, sizeof(f), "provenance.interconnect"),
                         ACCT_RULES_NAME_MAX, pv->interconnect);
    if (v[P_VERSION] != NULL &&
        acct_yt_get_int_in(p, v[P_VERSION], rpath(w, f, sizeof(f), "provenance.version"),
                           "a version number (integer >= 1)", 1, INT64_MAX, false, &ver))
        pv->version = ver;
    if (v[P_SOURCE] != NULL &&
        acct_yt_get_word(p, v[P_SOURCE], rpath(w, f, sizeof(f), "provenance.source"), "source",
                         source_names, ACCT_ARRAY_LEN(source_names), 0, &x))
        pv->source = (enum acct_rules_source)x;
    if (v[P_CREATED] != NULL)
        acct_yt_get_time(p, v[P_CREATED], rpath(w, f, sizeof(f), "provenance.created"),
                         pv->created);
    if (v[P_RUN] != NULL)
        acct_yt_get_name(p, v[P_RUN], rpath(w, f, sizeof(f), "provenance.tuning_run"),
                         ACCT_RULES_RUN_MAX, pv->tuning_run);
    if (v[P_LAYOUT] != NULL)
        walk_layout(w, v[P_LAYOUT], pv);
    if (v[P_MODEL] != NULL) {
        w->model_given = true;
        walk_model(w, v[P_MODEL], &pv->model);
    }
    if (v[P_RUNS] != NULL)
        walk_runs(w, k[P_RUNS], v[P_RUNS], pv);
}

const char *acct_rules_run_for(const struct acct_provenance *p, int rpn)
{
    if (p->tuning_run[0] != '\0')
        return p->tuning_run;
    if (p->nruns == 0)
        return NULL;
    size_t i = 0;
    while (i + 1 < p->nruns && rpn >= p->runs[i + 1].ranks_per_node)
        i++;
    return p->runs[i].run;
}

/* ---- rules --------------------------------------------------------------- */

enum { R_COMM, R_BYTES, R_RPN, R_LAYOUT, R_ALG, R_SEGMENT, R_FANOUT, R_REORDER, R_EVIDENCE,
       R_RUNNER_UP, R_N };
static const struct yt_key rule_keys[R_N] = {
    [R_COMM] = { "comm_size", true },  [R_BYTES] = { "bytes", false },
    [R_RPN] = { "ranks_per_node", false }, [R_LAYOUT] = { "layout", false },
    [R_ALG] = { "algorithm", true },   [R_SEGMENT] = { "segment", false },
    [R_FANOUT] = { "fanout", false },  [R_REORDER] = { "reorder", false },
    [R_EVIDENCE] = { "evidence", false }, [R_RUNNER_UP] = { "runner_up", false },
};

/* A runner-up: the decision keys of a rule, nothing else. */
enum { U_ALG, U_SEGMENT, U_FANOUT, U_REORDER, U_N };
static const struct yt_key runner_up_keys[U_N] = {
    [U_ALG] = { "algorithm", true },  [U_SEGMENT] = { "segment", false },
    [U_FANOUT] = { "fanout", false }, [U_REORDER] = { "reorder", false },
};

/* The decision keys algorithm, segment, fanout, reorder (nodes may be NULL)
 * of the mapping at path, into *out (alg NULL if unknown). Every problem is
 * reported; returns false if there was any. One copy for a rule's own
 * decision and its runner-up. */
static bool walk_decision(struct rwalk *w, enum acct_coll_id coll, const char *path,
                          const struct ynode *va, const struct ynode *vs,
                          const struct ynode *vf, const struct ynode *vr,
                          struct acct_decision *out)
{
    char field[ACCT_DIAG_FIELD_MAX];
    char msg[ACCT_DIAG_MSG_MAX];
    char d[YT_DESC_LEN];
    const struct acct_alg *alg = NULL;
    struct yt_parse *p = w->p;
    size_t errors = p->errors;

    memset(out, 0, sizeof(*out));
#define FIELD(key) (acct_yt_join(field, sizeof(field), path, key, strlen(key)), field)
    if (va != NULL) {
        if (va->kind != Y_SCALAR || acct_yt_is_null(va))
            YT_ERR_AT(p, va, FIELD("algorithm"), "expected an algorithm name, got %s",
                      acct_yt_describe(va, d, sizeof(d)));
        else if ((alg = acct_alg_find(coll, va->s)) == NULL)
            YT_ERR_AT(p, va, FIELD("algorithm"), "%s",
                      acct_unknown_alg_msg(coll, va->s, va->len, msg, sizeof(msg)));
    }
    out->alg = alg;
    /* The parameters are checked against the algorithm only when it is
     * known; their own syntax always. */
    if (vs != NULL) {
        uint64_t seg = 0;
        if (acct_yt_get_size(p, vs, FIELD("segment"), false, &seg) && alg != NULL &&
            acct_check_segment(alg, seg, msg, sizeof(msg)) != NULL)
            YT_ERR_AT(p, vs, field, "%s", msg);
        out->segment_bytes = seg;
    }
    if (vf != NULL) {
        long long f = 0;
        if (acct_yt_get_int(p, vf, FIELD("fanout"), "a fan-out (integer)", &f) &&
            alg != NULL && acct_check_fanout(alg, f, msg, sizeof(msg)) != NULL)
            YT_ERR_AT(p, vf, field, "%s", msg);
        out->fanout = (f >= INT_MIN && f <= INT_MAX) ? (int)f : 0;
    }
    if (vr != NULL) {
        bool ro = false;
        if (acct_yt_get_bool(p, vr, FIELD("reorder"), &ro) && alg != NULL &&
            acct_check_reorder(alg, ro, msg, sizeof(msg)) != NULL)
            YT_ERR_AT(p, vr, field, "%s", msg);
        out->reorder = ro;
    }
#undef FIELD
    return p->errors == errors && alg != NULL;
}

static bool push_rule(struct rwalk *w, enum acct_coll_id coll, const struct acct_rule *rule,
                      size_t index)
{
    struct acct_rule_list *l = &w->r->coll[coll];
    if (l->n == w->caps[coll]) {
        size_t ncap = w->caps[coll] == 0 ? 8 : w->caps[coll] * 2;
        struct acct_rule *nv = realloc(l->v, ncap * sizeof(*nv));
        size_t *ni = realloc(w->index[coll], ncap * sizeof(*ni));
        if (nv != NULL)
            l->v = nv;
        if (ni != NULL)
            w->index[coll] = ni;
        if (nv == NULL || ni == NULL) {
            acct_yt_oom(w->p);
            return false;
        }
        w->caps[coll] = ncap;
    }
    w->index[coll][l->n] = index;
    l->v[l->n++] = *rule;
    return true;
}

/* One rule. Every problem is reported; the document's error count (not
 * this function) keeps a document with any problem from being accepted. A
 * rule whose ranges are valid is kept for the overlap check even if its
 * decision is not, so that overlaps are reported too. */
static void walk_rule(struct rwalk *w, enum acct_coll_id coll, const struct ynode *y,
                      size_t index)
{
    char path[ACCT_DIAG_FIELD_MAX], field[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[R_N], *k[R_N];
    struct acct_rule rule = { .bytes_min = 0, .bytes_max = UINT64_MAX };
    struct yt_parse *p = w->p;
    uint64_t lo = 0, hi = 0;
    bool ranges_ok, rule_ok;

    rpath(w, path, sizeof(path), "collectives.%s[%zu]", acct_coll_name(coll), index);
    rule.line = y->line;
    rule.col = y->col;
    if (!acct_yt_walk_map(p, y, path, "key", rule_keys, R_N, v, k))
        return;
    ranges_ok = v[R_COMM] != NULL;
#define FIELD(key) (acct_yt_join(field, sizeof(field), path, key, strlen(key)), field)
    if (v[R_COMM] != NULL) {
        ranges_ok = acct_yt_get_range(p, v[R_COMM], FIELD("comm_size"), YT_RANGE_COMM, &lo, &hi);
        rule.comm_min = (int)lo;
        rule.comm_max = (int)hi;
    }
    if (v[R_BYTES] != NULL) {
        if (acct_yt_get_range(p, v[R_BYTES], FIELD("bytes"), YT_RANGE_BYTES, &lo, &hi)) {
            rule.bytes_min = lo;
            rule.bytes_max = hi;
        } else {
            ranges_ok = false;
        }
        /* A collective whose ranks do not know the call's bytes alike
         * decides from the communicator size alone (rule 1): a rule that
         * splits on bytes could not be honoured alike on every rank. */
        if (ranges_ok && !acct_coll_bytes_alike(coll) &&
            (rule.bytes_min != 0 || rule.bytes_max != UINT64_MAX)) {
            YT_ERR_AT(p, v[R_BYTES], FIELD("bytes"),
                      "%s is decided from the communicator size alone (its ranks do not know "
                      "the call's bytes alike), so its rules must cover bytes [0, max] (leave "
                      "bytes out)",
                      acct_coll_name(coll));
            ranges_ok = false;
        }
    }
    /* The layout dimension: schema 2 on. */
    for (int key = R_RPN; key <= R_LAYOUT; key++)
        if (v[key] != NULL && w->version < ACCT_RULES_VERSION_LAYOUT) {
            YT_ERR_AT(p, k[key], FIELD(rule_keys[key].name),
                      "needs \"acct_rules: %d\" (this file says %lld; libraries that read only "
                      "version 1 refuse it)",
                      ACCT_RULES_VERSION_LAYOUT, w->version);
            v[key] = NULL;
            ranges_ok = false;
        }
    if (v[R_RPN] != NULL) {
        if (acct_yt_get_range(p, v[R_RPN], FIELD("ranks_per_node"), YT_RANGE_RANKS, &lo, &hi)) {
            rule.rpn_min = (int)lo;
            rule.rpn_max = (int)hi;
        } else {
            ranges_ok = false;
        }
    }
    if (v[R_LAYOUT] != NULL) {
        int x;
        if (acct_yt_get_word(p, v[R_LAYOUT], FIELD("layout"), "layout", layout_kind_names,
                             ACCT_ARRAY_LEN(layout_kind_names), ACCT_LAYOUT_ANY, &x))
            rule.layout = (enum acct_layout_kind)x;
        else
            ranges_ok = false;
    }
#undef FIELD
    rule_ok = walk_decision(w, coll, path, v[R_ALG], v[R_SEGMENT], v[R_FANOUT], v[R_REORDER],
                            &rule.d);
    if (v[R_RUNNER_UP] != NULL) {
        const struct ynode *u[U_N], *uk[U_N];
        char upath[ACCT_DIAG_FIELD_MAX];
        acct_yt_join(upath, sizeof(upath), path, "runner_up", strlen("runner_up"));
        if (acct_yt_walk_map(p, v[R_RUNNER_UP], upath, "key", runner_up_keys, U_N, u, uk) &&
            walk_decision(w, coll, upath, u[U_ALG], u[U_SEGMENT], u[U_FANOUT], u[U_REORDER],
                          &rule.runner_up) &&
            rule_ok && acct_decision_equal(&rule.d, &rule.runner_up))
            YT_ERR_AT(p, v[R_RUNNER_UP], upath,
                      "the runner-up is the rule's own decision (leave runner_up out)");
    }
    if (v[R_EVIDENCE] != NULL) {
        int x;
        acct_yt_join(field, sizeof(field), path, "evidence", strlen("evidence"));
        if (acct_yt_get_word(p, v[R_EVIDENCE], field, "evidence", evidence_names,
                             ACCT_ARRAY_LEN(evidence_names), ACCT_EVIDENCE_MEASURED, &x)) {
            rule.evidence = (enum acct_evidence)x;
            /* rule 6: a modelled region names the parameters it came from */
            if (rule.evidence == ACCT_EVIDENCE_MODEL && !w->model_given)
                YT_ERR_AT(p, v[R_EVIDENCE], field,
                          "a modelled rule needs provenance.model (the parameters it was "
                          "predicted with)");
            /* ... and a layout-bound one the levels it was laid out on */
            else if (rule.evidence == ACCT_EVIDENCE_MODEL && !w->levels_given &&
                     (v[R_RPN] != NULL || v[R_LAYOUT] != NULL))
                YT_ERR_AT(p, v[R_EVIDENCE], field,
                          "a layout-bound modelled rule needs provenance.model.intra and "
                          "provenance.model.inter (the levels it was predicted on at its "
                          "ranks_per_node)");
            /* rule 6: without evidence, only the MPI library's own collectives */
            if (rule.evidence == ACCT_EVIDENCE_NONE && rule_ok &&
                !(rule.d.alg->flags & ACCT_ALG_NATIVE))
                YT_ERR_AT(p, v[R_EVIDENCE], field,
                          "a rule without evidence runs the MPI library's collectives: it "
                          "needs algorithm: native, not %s",
                          rule.d.alg->name);
            else if (rule.evidence == ACCT_EVIDENCE_NONE && rule.runner_up.alg != NULL)
                YT_ERR_AT(p, v[R_EVIDENCE], field,
                          "a rule without evidence has no runner-up (exploration would try "
                          "it where nothing supports it)");
        }
    }
    if (ranges_ok)
        push_rule(w, coll, &rule, index);
}

static void walk_collective(struct rwalk *w, enum acct_coll_id coll, const struct ynode *y)
{
    char path[ACCT_DIAG_FIELD_MAX];
    char d[YT_DESC_LEN];
    size_t i = 0;

    rpath(w, path, sizeof(path), "collectives.%s", acct_coll_name(coll));
    if (y->kind != Y_SEQ) {
        YT_ERR_AT(w->p, y, path, "expected a list of rules (\"- comm_size: ...\", or [] for none), "
                  "got %s", acct_yt_describe(y, d, sizeof(d)));
        return;
    }
    for (const struct ynode *e = y->first; e != NULL; e = e->next, i++) {
        if (++w->rules_seen > ACCT_RULES_MAX_RULES) {
            YT_ERR_AT(w->p, e, path, "more than %d rules: the file is refused",
                      ACCT_RULES_MAX_RULES);
            return;
        }
        walk_rule(w, coll, e, i);
        if (w->p->nomem)
            return;
    }
}

/* The layouts a rule covers, as an interval of ranks per node (0: an
 * unknown layout, which only rules that do not restrict the layout cover)
 * and a kind. */
static void layout_span(const struct acct_rule *r, int *lo, int *hi)
{
    *lo = !acct_rule_layout_bound(r) ? 0 : r->rpn_min != 0 ? r->rpn_min : 1;
    *hi = r->rpn_min != 0 ? r->rpn_max : INT_MAX;
}

/* Do two rules cover a common layout? */
static bool layouts_meet(const struct acct_rule *a, const struct acct_rule *b)
{
    int alo, ahi, blo, bhi;
    layout_span(a, &alo, &ahi);
    layout_span(b, &blo, &bhi);
    if (alo > bhi || blo > ahi)
        return false;
    return a->layout == ACCT_LAYOUT_ANY || b->layout == ACCT_LAYOUT_ANY || a->layout == b->layout;
}

/* Overlaps among one collective's rules: each rule that overlaps an earlier
 * one in the document is reported once, naming both lines. */
struct order {
    const struct acct_rule *rule;
    size_t index;
};

static int cmp_order(const void *pa, const void *pb)
{
    const struct order *a = pa, *b = pb;
    if (a->rule->comm_min != b->rule->comm_min)
        return a->rule->comm_min < b->rule->comm_min ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static void check_overlaps(struct rwalk *w, enum acct_coll_id coll)
{
    struct acct_rule_list *l = &w->r->coll[coll];
    struct order *o;
    bool *reported;
    if (l->n < 2)
        return;
    o = malloc(l->n * sizeof(*o));
    reported = calloc(l->n, sizeof(*reported));
    if (o == NULL || reported == NULL) {
        acct_yt_oom(w->p);
        goto out;
    }
    for (size_t i = 0; i < l->n; i++) {
        o[i].rule = &l->v[i];
        o[i].index = i; /* position in l (document order) */
    }
    qsort(o, l->n, sizeof(*o), cmp_order);
    for (size_t i = 0; i < l->n; i++) {
        const struct acct_rule *a = o[i].rule;
        for (size_t j = i + 1; j < l->n && o[j].rule->comm_min <= a->comm_max; j++) {
            const struct acct_rule *b = o[j].rule;
            if (b->bytes_min > a->bytes_max || a->bytes_min > b->bytes_max ||
                !layouts_meet(a, b))
                continue;
            /* Report the one later in the document, once. */
            size_t later = o[i].index > o[j].index ? o[i].index : o[j].index;
            size_t earlier = o[i].index > o[j].index ? o[j].index : o[i].index;
            if (reported[later])
                continue;
            reported[later] = true;
            const struct acct_rule *x = &l->v[later], *e = &l->v[earlier];
            char field[ACCT_DIAG_FIELD_MAX], other[ACCT_DIAG_FIELD_MAX];
            char sz[ACCT_SIZE_FORMAT_LEN];
            int cm = x->comm_min > e->comm_min ? x->comm_min : e->comm_min;
            uint64_t bm = x->bytes_min > e->bytes_min ? x->bytes_min : e->bytes_min;
            if (bm == 0)
                snprintf(sz, sizeof(sz), "0");
            else
                acct_size_format(bm, sz, sizeof(sz));
            rpath(w, field, sizeof(field), "collectives.%s[%zu]", acct_coll_name(coll),
                  w->index[coll][later]);
            rpath(w, other, sizeof(other), "collectives.%s[%zu]", acct_coll_name(coll),
                  w->index[coll][earlier]);
            if (!acct_rule_layout_bound(x) && !acct_rule_layout_bound(e)) {
                acct_yt_err(w->p, x->line, x->col, field,
                            "overlaps %s at line %d (both contain comm_size %d, bytes %s)",
                            other, e->line, cm, sz);
            } else {
                int xlo, xhi, elo, ehi;
                layout_span(x, &xlo, &xhi);
                layout_span(e, &elo, &ehi);
                int rm = xlo > elo ? xlo : elo;
                enum acct_layout_kind kd = x->layout != ACCT_LAYOUT_ANY ? x->layout : e->layout;
                acct_yt_err(w->p, x->line, x->col, field,
                            "overlaps %s at line %d (both contain comm_size %d, bytes %s, "
                            "ranks_per_node %d%s%s)",
                            other, e->line, cm, sz, rm < 1 ? 1 : rm,
                            kd != ACCT_LAYOUT_ANY ? ", layout " : "",
                            kd != ACCT_LAYOUT_ANY ? acct_layout_kind_name(kd) : "");
            }
        }
    }
out:
    free(o);
    free(reported);
}

/* The canonical order of a collective's rules. */
static int cmp_rule(const void *pa, const void *pb)
{
    const struct acct_rule *a = pa, *b = pb;
    if (a->comm_min != b->comm_min)
        return a->comm_min < b->comm_min ? -1 : 1;
    if (a->bytes_min != b->bytes_min)
        return a->bytes_min < b->bytes_min ? -1 : 1;
    if (a->rpn_min != b->rpn_min)
        return a->rpn_min < b->rpn_min ? -1 : 1;
    return a->layout < b->layout ? -1 : a->layout > b->layout;
}

enum { T_VERSION, T_PROVENANCE, T_OPTIONS, T_COLLECTIVES, T_N };
static const struct yt_key top_keys[T_N] = {
    [T_VERSION] = { "acct_rules", true },
    [T_PROVENANCE] = { "provenance", true },
    [T_OPTIONS] = { "options", false },
    [T_COLLECTIVES] = { "collectives", true },
};

/* ---- options ------------------------------------------------------------- */

enum { O_EXPLORE, O_EXPLORE_SEED, O_AUTO_REORDER, O_N };
static const struct yt_key option_keys[O_N] = {
    [O_EXPLORE] = { "explore", false },
    [O_EXPLORE_SEED] = { "explore_seed", false },
    [O_AUTO_REORDER] = { "auto_reorder", false },
};

static void walk_options(struct rwalk *w, const struct ynode *y)
{
    char f[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[O_N], *k[O_N];
    struct acct_rules_options *o = &w->r->opts;
    struct yt_parse *p = w->p;

    if (acct_yt_is_null(y))
        return; /* "options:" with nothing: all defaults */
    if (!acct_yt_walk_map(p, y, rpath(w, f, sizeof(f), "options"), "option", option_keys, O_N,
                          v, k))
        return;
    if (v[O_EXPLORE] != NULL) {
        double x;
        rpath(w, f, sizeof(f), "options.explore");
        if (acct_yt_get_number(p, v[O_EXPLORE], f, 0, false, &x)) {
            if (x > ACCT_EXPLORE_MAX)
                YT_ERR_AT(p, v[O_EXPLORE], f,
                          "%s is too large: exploration runs at most a fraction of %g of "
                          "the calls",
                          v[O_EXPLORE]->s, ACCT_EXPLORE_MAX);
            else
                o->explore = x == 0 ? 0 : x; /* no -0 */
        }
    }
    if (v[O_EXPLORE_SEED] != NULL) {
        long long seed;
        if (acct_yt_get_int_in(p, v[O_EXPLORE_SEED],
                               rpath(w, f, sizeof(f), "options.explore_seed"),
                               "a seed (integer >= 0)", 0, INT64_MAX, false, &seed))
            o->explore_seed = (uint64_t)seed;
    }
    if (v[O_AUTO_REORDER] != NULL)
        acct_yt_get_bool(p, v[O_AUTO_REORDER], rpath(w, f, sizeof(f), "options.auto_reorder"),
                         &o->auto_reorder);
}

static void walk_top(struct rwalk *w, const struct ynode *root)
{
    char f[ACCT_DIAG_FIELD_MAX];
    const struct ynode *v[T_N], *k[T_N];
    struct yt_key cdefs[ACCT_COLL_COUNT];
    const struct ynode *cv[ACCT_COLL_COUNT], *ck[ACCT_COLL_COUNT];

    w->version = ACCT_RULES_VERSION_MIN;
    if (!acct_yt_check_versions(w->p, root, "acct_rules", rpath(w, f, sizeof(f), "acct_rules"),
                                "rules", ACCT_RULES_VERSION_MIN, ACCT_RULES_VERSION, &w->version))
        return;
    if (!acct_yt_walk_map(w->p, root, w->prefix, "key", top_keys, T_N, v, k))
        return;
    if (v[T_PROVENANCE] != NULL)
        walk_provenance(w, v[T_PROVENANCE]);
    if (v[T_OPTIONS] != NULL)
        walk_options(w, v[T_OPTIONS]);
    if (v[T_COLLECTIVES] == NULL)
        return;
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        cdefs[i].name = acct_coll_name((enum acct_coll_id)i);
        cdefs[i].required = false;
    }
    if (!acct_yt_walk_map(w->p, v[T_COLLECTIVES], rpath(w, f, sizeof(f), "collectives"),
                          "collective", cdefs, ACCT_COLL_COUNT, cv, ck))
        return;
    for (int i = 0; i < ACCT_COLL_COUNT && !w->p->nomem; i++)
        if (cv[i] != NULL)
            walk_collective(w, (enum acct_coll_id)i, cv[i]);
    for (int i = 0; i < ACCT_COLL_COUNT && !w->p->nomem; i++)
        check_overlaps(w, (enum acct_coll_id)i);
}

struct acct_rules *acct_rules_from_tree(struct yt_parse *p, const struct ynode *root,
                                        const char *prefix)
{
    struct rwalk w;
    memset(&w, 0, sizeof(w));
    w.p = p;
    w.prefix = prefix != NULL ? prefix : "";
    w.r = calloc(1, sizeof(*w.r));
    if (w.r == NULL) {
        acct_yt_oom(p);
        return NULL;
    }
    walk_top(&w, root);
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        struct acct_rule_list *l = &w.r->coll[i];
        if (l->n > 1)
            qsort(l->v, l->n, sizeof(*l->v), cmp_rule);
        w.r->nrules += l->n;
        free(w.index[i]);
    }
    return w.r;
}

/* ======================================================================
 * Entry points
 * ====================================================================== */

void acct_rules_free(struct acct_rules *r)
{
    if (r == NULL)
        return;
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        free(r->coll[i].v);
    free(r);
}

struct acct_rules *acct_rules_copy(const struct acct_rules *r)
{
    struct acct_rules *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    *c = *r;
    memset(c->coll, 0, sizeof(c->coll));
    for (int k = 0; k < ACCT_COLL_COUNT; k++) {
        size_t n = r->coll[k].n;
        if (n == 0)
            continue;
        c->coll[k].v = malloc(n * sizeof(struct acct_rule));
        if (c->coll[k].v == NULL) {
            acct_rules_free(c);
            return NULL;
        }
        memcpy(c->coll[k].v, r->coll[k].v, n * sizeof(struct acct_rule));
        c->coll[k].n = n;
    }
    return c;
}

static void walk_document(struct yt_parse *p, const struct ynode *root, void *arg)
{
    struct acct_rules **r = arg;
    *r = acct_rules_from_tree(p, root, "");
}

static const struct acct_yt_doc rules_doc = {
    .doc = "rules file",
    .docs = "rules files",
    .nothing = "no rules given",
    .limit = ACCT_RULES_MAX_FILE_BYTES,
    .max_nodes = MAX_NODES,
    .walk = walk_document,
};

/* From a file (from_file: name is its path) or from memory. */
static int parse(bool from_file, const char *name, const char *buf, size_t len,
                 struct acct_rules **out, struct acct_diags *diags)
{
    struct acct_rules *r = NULL;
    uint64_t hash = 0;
    int rc;

    if (out != NULL)
        *out = NULL;
    rc = acct_yt_parse(&rules_doc, from_file, name, buf, len, out != NULL, diags, &r, &hash);
    if (rc == ACCT_RULES_OK) {
        r->hash = hash;
        *out = r;
    } else {
        acct_rules_free(r);
    }
    return rc;
}

int acct_rules_parse_buffer(const char *name, const char *buf, size_t len,
                            struct acct_rules **out, struct acct_diags *diags)
{
    return parse(false, name != NULL ? name : "(rules)", buf, len, out, diags);
}

int acct_rules_parse_file(const char *path, struct acct_rules **out,
                          struct acct_diags *diags)
{
    return parse(true, path, NULL, 0, out, diags);
}

/* ======================================================================
 * Comparison and writing
 * ====================================================================== */

/* Runner-ups: both absent, or equal. */
static bool runner_up_equal(const struct acct_decision *a, const struct acct_decision *b)
{
    return (a->alg == NULL && b->alg == NULL) || acct_decision_equal(a, b);
}

static bool rule_equal(const struct acct_rule *a, const struct acct_rule *b)
{
    return a->comm_min == b->comm_min && a->comm_max == b->comm_max &&
           a->bytes_min == b->bytes_min && a->bytes_max == b->bytes_max &&
           a->rpn_min == b->rpn_min && a->rpn_max == b->rpn_max && a->layout == b->layout &&
           a->evidence == b->evidence && acct_decision_equal(&a->d, &b->d) &&
           runner_up_equal(&a->runner_up, &b->runner_up);
}

static bool runs_equal(const struct acct_provenance *a, const struct acct_provenance *b)
{
    if (a->nruns != b->nruns)
        return false;
    for (size_t i = 0; i < a->nruns; i++)
        if (a->runs[i].ranks_per_node != b->runs[i].ranks_per_node ||
            strcmp(a->runs[i].run, b->runs[i].run) != 0)
            return false;
    return true;
}

static bool model_equal(const struct acct_rules_model *a, const struct acct_rules_model *b)
{
    if (!a->present || !b->present)
        return a->present == b->present;
    if (a->has_levels != b->has_levels ||
        (a->has_levels &&
         (memcmp(&a->intra, &b->intra, sizeof(a->intra)) != 0 ||
          memcmp(&a->inter, &b->inter, sizeof(a->inter)) != 0 || a->nic_pairs != b->nic_pairs ||
          a->nic_gap_factor != b->nic_gap_factor || a->nic_bidir_pairs != b->nic_bidir_pairs ||
          a->nic_bidir_gap_factor != b->nic_bidir_gap_factor ||
          a->pair_duplex_factor != b->pair_duplex_factor ||
          a->pair_duplex_overlap_bytes != b->pair_duplex_overlap_bytes)))
        return false;
    return strcmp(a->run, b->run) == 0 && a->L_us == b->L_us && a->o_us == b->o_us &&
           a->g_us == b->g_us && a->G_us_per_byte == b->G_us_per_byte && a->margin == b->margin;
}

bool acct_rules_equal(const struct acct_rules *a, const struct acct_rules *b)
{
    const struct acct_provenance *p = &a->prov, *q = &b->prov;
    if (strcmp(p->partition, q->partition) != 0 || strcmp(p->interconnect, q->interconnect) != 0 ||
        p->version != q->version || p->source != q->source ||
        strcmp(p->created, q->created) != 0 || strcmp(p->tuning_run, q->tuning_run) != 0 ||
        p->ranks_per_node_min != q->ranks_per_node_min ||
        p->ranks_per_node_max != q->ranks_per_node_max || p->placement != q->placement ||
        !model_equal(&p->model, &q->model) || !runs_equal(p, q) || a->opts.explore != b->opts.explore || a->opts.explore_seed != b->opts.explore_seed ||
        a->opts.auto_reorder != b->opts.auto_reorder || a->nrules != b->nrules)
        return false;
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        if (a->coll[i].n != b->coll[i].n)
            return false;
        for (size_t j = 0; j < a->coll[i].n; j++)
            if (!rule_equal(&a->coll[i].v[j], &b->coll[i].v[j]))
                return false;
    }
    return true;
}

int acct_rules_version(const struct acct_rules *r)
{
    if (r->prov.nruns > 0)
        return ACCT_RULES_VERSION_LAYOUT;
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        for (size_t i = 0; i < r->coll[c].n; i++)
            if (acct_rule_layout_bound(&r->coll[c].v[i]))
                return ACCT_RULES_VERSION_LAYOUT;
    return ACCT_RULES_VERSION_MIN;
}

bool acct_rules_layout_bound(const struct acct_rules *r, enum acct_coll_id coll, int comm_size)
{
    if (r == NULL || (unsigned)coll >= ACCT_COLL_COUNT)
        return false;
    const struct acct_rule_list *l = &r->coll[coll];
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].comm_min <= comm_size && comm_size <= l->v[i].comm_max &&
            acct_rule_layout_bound(&l->v[i]))
            return true;
    return false;
}

static void write_int(FILE *f, int v)
{
    if (v == INT_MAX)
        fputs("max", f);
    else
        fprintf(f, "%d", v);
}

/* provenance.model's levels and nic, inside its flow mapping (numbers as
 * acct_yt_write_number writes them: they read back equal). */
static void write_model_levels(FILE *f, const struct acct_rules_model *m)
{
    if (!m->has_levels)
        return;
    const struct acct_rules_loggp *lv[] = { &m->intra, &m->inter };
    for (int l = 0; l < 2; l++) {
        const double x[] = { lv[l]->L_us, lv[l]->o_us, lv[l]->g_us, lv[l]->G_us_per_byte };
        fprintf(f, ", %s: {", l == 0 ? "intra" : "inter");
        for (int i = 0; i < ML_N; i++) {
            fprintf(f, "%s%s: ", i ? ", " : "", level_keys[i].name);
            acct_yt_write_number(f, x[i]);
        }
        fputc('}', f);
    }
    if (m->nic_pairs < 2 && !(m->pair_duplex_factor >= 1))
        return;
    const char *sep = "";
    fputs(", nic: {", f);
    if (m->nic_pairs >= 2) {
        fprintf(f, "pairs: %d, gap_factor: ", m->nic_pairs);
        acct_yt_write_number(f, m->nic_gap_factor);
        sep = ", ";
        if (m->nic_bidir_pairs >= 2) {
            fprintf(f, ", bidir_pairs: %d, bidir_gap_factor: ", m->nic_bidir_pairs);
            acct_yt_write_number(f, m->nic_bidir_gap_factor);
        }
    }
    if (m->pair_duplex_factor >= 1) {
        fprintf(f, "%spair_duplex_factor: ", sep);
        acct_yt_write_number(f, m->pair_duplex_factor);
        if (m->pair_duplex_overlap_bytes > 0)
            fprintf(f, ", pair_duplex_overlap_bytes: %llu",
                    (unsigned long long)m->pair_duplex_overlap_bytes);
    }
    fputc('}', f);
}

int acct_rules_write_indented(FILE *f, const struct acct_rules *r, const char *in)
{
    const struct acct_provenance *p = &r->prov;
    const struct acct_rules_options *o = &r->opts;
    bool any = false;

    fprintf(f, "%sacct_rules: %d\n", in, acct_rules_version(r));
    fprintf(f, "%sprovenance:\n%s  partition: ", in, in);
    acct_yt_write_string(f, p->partition);
    fprintf(f, "\n%s  interconnect: ", in);
    acct_yt_write_string(f, p->interconnect);
    fprintf(f, "\n%s  version: %" PRId64 "\n", in, p->version);
    fprintf(f, "%s  source: %s\n", in, acct_rules_source_name(p->source));
    fprintf(f, "%s  created: ", in);
    acct_yt_write_string(f, p->created);
    fputc('\n', f);
    if (p->tuning_run[0] != '\0') {
        fprintf(f, "%s  tuning_run: ", in);
        acct_yt_write_string(f, p->tuning_run);
        fputc('\n', f);
    }
    if (p->ranks_per_node_min > 0 || p->placement != ACCT_PLACEMENT_NONE) {
        const char *sep = "";
        fprintf(f, "%s  layout: {", in);
        if (p->ranks_per_node_min > 0) {
            if (p->ranks_per_node_min == p->ranks_per_node_max)
                fprintf(f, "ranks_per_node: %d", p->ranks_per_node_min);
            else
                fprintf(f, "ranks_per_node: [%d, %d]", p->ranks_per_node_min,
                        p->ranks_per_node_max);
            sep = ", ";
        }
        if (p->placement != ACCT_PLACEMENT_NONE)
            fprintf(f, "%splacement: %s", sep, acct_placement_name(p->placement));
        fputs("}\n", f);
    }
    if (p->model.present) {
        /* numbers as acct_yt_write_number writes them: they read back equal */
        static const char *const names[] = { "L", "o", "g", "G", "margin" };
        const double vals[] = { p->model.L_us, p->model.o_us, p->model.g_us,
                                p->model.G_us_per_byte, p->model.margin };
        fprintf(f, "%s  model: {", in);
        if (p->model.run[0] != '\0') {
            fputs("tuning_run: ", f);
            acct_yt_write_string(f, p->model.run);
            fputs(", ", f);
        }
        for (size_t i = 0; i < ACCT_ARRAY_LEN(names); i++) {
            fprintf(f, "%s%s: ", i > 0 ? ", " : "", names[i]);
            acct_yt_write_number(f, vals[i]);
        }
        write_model_levels(f, &p->model);
        fputs("}\n", f);
    }
    if (p->nruns > 0) {
        fprintf(f, "%s  runs:\n", in);
        for (size_t i = 0; i < p->nruns; i++) {
            fprintf(f, "%s    - {ranks_per_node: %d, tuning_run: ", in, p->runs[i].ranks_per_node);
            acct_yt_write_string(f, p->runs[i].run);
            fputs("}\n", f);
        }
    }
    if (o->explore != 0 || o->explore_seed != 0 || o->auto_reorder) {
        fprintf(f, "%soptions:\n", in);
        if (o->explore != 0) {
            fprintf(f, "%s  explore: ", in);
            acct_yt_write_number(f, o->explore);
            fputc('\n', f);
        }
        if (o->explore_seed != 0)
            fprintf(f, "%s  explore_seed: %" PRIu64 "\n", in, o->explore_seed);
        if (o->auto_reorder)
            fprintf(f, "%s  auto_reorder: true\n", in);
    }
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        any = any || r->coll[i].n > 0;
    fprintf(f, "%scollectives:%s\n", in, any ? "" : " {}");
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        const struct acct_rule_list *l = &r->coll[i];
        if (l->n == 0)
            continue;
        fprintf(f, "%s  %s:\n", in, acct_coll_name((enum acct_coll_id)i));
        for (size_t j = 0; j < l->n; j++) {
            const struct acct_rule *x = &l->v[j];
            fprintf(f, "%s    - {comm_size: ", in);
            if (x->comm_min == x->comm_max) {
                write_int(f, x->comm_min);
            } else {
                fprintf(f, "[%d, ", x->comm_min);
                write_int(f, x->comm_max);
                fputc(']', f);
            }
            fputs(", bytes: ", f);
            if (x->bytes_min == x->bytes_max && x->bytes_max != UINT64_MAX) {
                acct_yt_write_size(f, x->bytes_min, true);
            } else {
                fputc('[', f);
                acct_yt_write_size(f, x->bytes_min, true);
                fputs(", ", f);
                acct_yt_write_size(f, x->bytes_max, true);
                fputc(']', f);
            }
            if (x->rpn_min != 0) {
                fputs(", ranks_per_node: ", f);
                if (x->rpn_min == x->rpn_max) {
                    write_int(f, x->rpn_min);
                } else {
                    fprintf(f, "[%d, ", x->rpn_min);
                    write_int(f, x->rpn_max);
                    fputc(']', f);
                }
            }
            if (x->layout != ACCT_LAYOUT_ANY)
                fprintf(f, ", layout: %s", acct_layout_kind_name(x->layout));
            fprintf(f, ", algorithm: %s", x->d.alg != NULL ? x->d.alg->name : "native");
            if (x->d.segment_bytes != 0) {
                fputs(", segment: ", f);
                acct_yt_write_size(f, x->d.segment_bytes, true);
            }
            if (x->d.fanout != 0)
                fprintf(f, ", fanout: %d", x->d.fanout);
            if (x->d.reorder)
                fputs(", reorder: true", f);
            if (x->evidence != ACCT_EVIDENCE_MEASURED)
                fprintf(f, ", evidence: %s", acct_evidence_name(x->evidence));
            if (x->runner_up.alg != NULL) {
                fprintf(f, ", runner_up: {algorithm: %s", x->runner_up.alg->name);
                if (x->runner_up.segment_bytes != 0) {
                    fputs(", segment: ", f);
                    acct_yt_write_size(f, x->runner_up.segment_bytes, true);
                }
                if (x->runner_up.fanout != 0)
                    fprintf(f, ", fanout: %d", x->runner_up.fanout);
                if (x->runner_up.reorder)
                    fputs(", reorder: true", f);
                fputc('}', f);
            }
            fputs("}\n", f);
        }
    }
    return ferror(f) ? -1 : 0;
}

int acct_rules_write(FILE *f, const struct acct_rules *r)
{
    fprintf(f, "# ACCT rules file (schema version %d, see docs/rules.md)\n", acct_rules_version(r));
    return acct_rules_write_indented(f, r, "");
}
