/* Rules files: parser, validator, canonical writer and per-communicator
 * lookup tables (acct/rules.h; the format is in docs/rules.md).
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
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/stats.h"
#include "yamltree.h"

/* Nodes of the YAML tree: ~17 per rule at the rule limit, with room. */
#define MAX_NODES (32 * ACCT_RULES_MAX_RULES)
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* ======================================================================
 * Diagnostics
 * ====================================================================== */

void acct_diags_free(struct acct_diags *d)
{
    if (d == NULL)
        return;
    free(d->file);
    free(d->v);
    d->file = NULL;
    d->v = NULL;
    d->n = d->cap = d->total = 0;
}

void acct_diags_reset(struct acct_diags *d, const char *file)
{
    if (d == NULL)
        return;
    acct_diags_free(d);
    if (file != NULL)
        d->file = strdup(file); /* NULL on failure: printed as "?" */
}

void acct_diags_add(struct acct_diags *d, int line, int col, const char *field,
                    const char *fmt, ...)
{
    if (d == NULL)
        return;
    d->total++;
    if (d->n >= ACCT_DIAG_MAX)
        return;
    if (d->n == d->cap) {
        size_t ncap = d->cap == 0 ? 8 : d->cap * 2;
        if (ncap > ACCT_DIAG_MAX)
            ncap = ACCT_DIAG_MAX;
        struct acct_diag *nv = realloc(d->v, ncap * sizeof(*nv));
        if (nv == NULL)
            return; /* counted in total, not kept */
        d->v = nv;
        d->cap = ncap;
    }
    struct acct_diag *g = &d->v[d->n++];
    va_list ap;
    g->line = line;
    g->col = col;
    snprintf(g->field, sizeof(g->field), "%s", field != NULL ? field : "");
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
    va_end(ap);
}

int acct_diag_format(const struct acct_diags *d, size_t i, char *buf, size_t len)
{
    if (d == NULL || i >= d->n || buf == NULL || len == 0)
        return -1;
    const struct acct_diag *g = &d->v[i];
    const char *file = d->file != NULL ? d->file : "?";
    const char *sep = g->field[0] != '\0' ? ": " : "";
    if (g->line > 0)
        snprintf(buf, len, "%s:%d:%d: %s%s%s", file, g->line, g->col, g->field, sep, g->msg);
    else
        snprintf(buf, len, "%s: %s%s%s", file, g->field, sep, g->msg);
    return 0;
}

void acct_diags_print(const struct acct_diags *d, FILE *f)
{
    char line[ACCT_DIAG_FIELD_MAX + ACCT_DIAG_MSG_MAX + 512];
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++) {
        acct_diag_format(d, i, line, sizeof(line));
        fprintf(f, "%s\n", line);
    }
    if (d->total > d->n)
        fprintf(f, "%s: %zu more error%s not shown\n", d->file != NULL ? d->file : "?",
                d->total - d->n, d->total - d->n == 1 ? "" : "s");
}

/* ======================================================================
 * Small helpers
 * ====================================================================== */

/* Append the registry names of coll's algorithms, comma-separated. */
static void alg_names(enum acct_coll_id coll, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const struct acct_alg *a = acct_algs; a->name != NULL && o < len; a++) {
        if (a->coll != coll)
            continue;
        int k = snprintf(buf + o, len - o, "%s%s", o > 0 ? ", " : "", a->name);
        if (k < 0)
            break;
        o += (size_t)k;
    }
}

const char *acct_unknown_alg_msg(enum acct_coll_id coll, const char *name, size_t name_len,
                                 char *buf, size_t len)
{
    char q[YT_QUOTE_MAX * 4 + 16];
    char names[400];
    alg_names(coll, names, sizeof(names));
    snprintf(buf, len, "unknown %s algorithm %s (valid: %s)", acct_coll_name(coll),
             acct_yt_quote(q, sizeof(q), name, name_len), names);
    return buf;
}

const char *acct_check_segment(const struct acct_alg *alg, uint64_t segment, char *buf,
                               size_t len)
{
    if (!(alg->flags & ACCT_ALG_SEGMENTED)) {
        snprintf(buf, len, "%s %s does not take a segment size (not a segmented algorithm)",
                 acct_coll_name(alg->coll), alg->name);
        return buf;
    }
    if (segment > ACCT_RULES_MAX_SEGMENT) {
        snprintf(buf, len, "segment of %" PRIu64 " bytes is larger than the limit of 1G",
                 segment);
        return buf;
    }
    return NULL;
}

const char *acct_check_fanout(const struct acct_alg *alg, long long fanout, char *buf,
                              size_t len)
{
    if (!(alg->flags & ACCT_ALG_FANOUT)) {
        snprintf(buf, len, "%s %s does not take a fan-out", acct_coll_name(alg->coll),
                 alg->name);
        return buf;
    }
    if (fanout < alg->fanout_min || fanout > alg->fanout_max) {
        snprintf(buf, len, "fan-out %lld is out of range for %s %s (%d to %d)", fanout,
                 acct_coll_name(alg->coll), alg->name, alg->fanout_min, alg->fanout_max);
        return buf;
    }
    return NULL;
}

const char *acct_check_reorder(const struct acct_alg *alg, bool reorder, char *buf,
                               size_t len)
{
    if (reorder && (alg->flags & ACCT_ALG_NATIVE)) {
        snprintf(buf, len, "reorder needs an ACCT algorithm: %s native cannot be reordered",
                 acct_coll_name(alg->coll));
        return buf;
    }
    if (reorder && !acct_alg_reorderable(alg, NULL, NULL)) {
        acct_alg_reorder_msg(alg, buf, len); /* the registry says which can */
        return buf;
    }
    return NULL;
}

bool acct_decision_equal(const struct acct_decision *a, const struct acct_decision *b)
{
    return a->alg == b->alg && a->segment_bytes == b->segment_bytes &&
           a->fanout == b->fanout && a->reorder == b->reorder;
}

int acct_decision_format(const struct acct_decision *d, char *buf, size_t len)
{
    char seg[ACCT_SIZE_FORMAT_LEN] = "", fan[16] = "";
    const char *name = d->alg != NULL ? d->alg->name : "native";
    if (d->segment_bytes != 0)
        acct_size_format(d->segment_bytes, seg, sizeof(seg));
    if (d->fanout != 0)
        snprintf(fan, sizeof(fan), "%d", d->fanout);
    /* ACCT_FORCE syntax: empty fields are "not given" ("knomial::4") */
    if (d->reorder)
        return snprintf(buf, len, "%s:%s:%s:reorder", name, seg, fan);
    if (d->fanout != 0)
        return snprintf(buf, len, "%s:%s:%s", name, seg, fan);
    if (d->segment_bytes != 0)
        return snprintf(buf, len, "%s:%s", name, seg);
    return snprintf(buf, len, "%s", name);
}

static const char *const source_names[] = {
    [ACCT_SOURCE_MEASURED] = "measured",
    [ACCT_SOURCE_MODEL] = "model",
    [ACCT_SOURCE_REFINED] = "refined",
    [ACCT_SOURCE_MANUAL] = "manual",
};

static const char *const placement_names[] = {
    [ACCT_PLACEMENT_NONE] = "none",
    [ACCT_PLACEMENT_BLOCK] = "block",
    [ACCT_PLACEMENT_CYCLIC] = "cyclic",
    [ACCT_PLACEMENT_MIXED] = "mixed",
};

const char *acct_rules_source_name(enum acct_rules_source s)
{
    return (unsigned)s < ACCT_ARRAY_LEN(source_names) ? source_names[s] : "?";
}

const char *acct_placement_name(enum acct_placement p)
{
    return (unsigned)p < ACCT_ARRAY_LEN(placement_names) ? placement_names[p] : "?";
}

uint64_t acct_rules_hash(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
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

enum { P_PARTITION, P_INTERCONNECT, P_VERSION, P_SOURCE, P_CREATED, P_RUN, P_LAYOUT, P_N };
static const struct yt_key prov_keys[P_N] = {
    [P_PARTITION] = { "partition", true },  [P_INTERCONNECT] = { "interconnect", true },
    [P_VERSION] = { "version", true },      [P_SOURCE] = { "source", true },
    [P_CREATED] = { "created", true },      [P_RUN] = { "tuning_run", false },
    [P_LAYOUT] = { "layout", false },
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
}

/* ---- rules --------------------------------------------------------------- */

enum { R_COMM, R_BYTES, R_ALG, R_SEGMENT, R_FANOUT, R_REORDER, R_RUNNER_UP, R_N };
static const struct yt_key rule_keys[R_N] = {
    [R_COMM] = { "comm_size", true }, [R_BYTES] = { "bytes", false },
    [R_ALG] = { "algorithm", true },  [R_SEGMENT] = { "segment", false },
    [R_FANOUT] = { "fanout", false }, [R_REORDER] = { "reorder", false },
    [R_RUNNER_UP] = { "runner_up", false },
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
            if (b->bytes_min > a->bytes_max || a->bytes_min > b->bytes_max)
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
            acct_yt_err(w->p, x->line, x->col, field,
                        "overlaps %s at line %d (both contain comm_size %d, bytes %s)", other,
                        e->line, cm, sz);
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
    return 0;
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

    if (!acct_yt_check_version(w->p, root, "acct_rules", rpath(w, f, sizeof(f), "acct_rules"),
                               "rules", ACCT_RULES_VERSION))
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
           acct_decision_equal(&a->d, &b->d) && runner_up_equal(&a->runner_up, &b->runner_up);
}

bool acct_rules_equal(const struct acct_rules *a, const struct acct_rules *b)
{
    const struct acct_provenance *p = &a->prov, *q = &b->prov;
    if (strcmp(p->partition, q->partition) != 0 || strcmp(p->interconnect, q->interconnect) != 0 ||
        p->version != q->version || p->source != q->source ||
        strcmp(p->created, q->created) != 0 || strcmp(p->tuning_run, q->tuning_run) != 0 ||
        p->ranks_per_node_min != q->ranks_per_node_min ||
        p->ranks_per_node_max != q->ranks_per_node_max || p->placement != q->placement ||
        a->opts.explore != b->opts.explore || a->opts.explore_seed != b->opts.explore_seed ||
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

static void write_int(FILE *f, int v)
{
    if (v == INT_MAX)
        fputs("max", f);
    else
        fprintf(f, "%d", v);
}

int acct_rules_write_indented(FILE *f, const struct acct_rules *r, const char *in)
{
    const struct acct_provenance *p = &r->prov;
    const struct acct_rules_options *o = &r->opts;
    bool any = false;

    fprintf(f, "%sacct_rules: %d\n", in, ACCT_RULES_VERSION);
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
            fprintf(f, ", algorithm: %s", x->d.alg != NULL ? x->d.alg->name : "native");
            if (x->d.segment_bytes != 0) {
                fputs(", segment: ", f);
                acct_yt_write_size(f, x->d.segment_bytes, true);
            }
            if (x->d.fanout != 0)
                fprintf(f, ", fanout: %d", x->d.fanout);
            if (x->d.reorder)
                fputs(", reorder: true", f);
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
    fprintf(f, "# ACCT rules file (schema version %d, see docs/rules.md)\n", ACCT_RULES_VERSION);
    return acct_rules_write_indented(f, r, "");
}

/* ======================================================================
 * Per-communicator tables
 * ====================================================================== */

static int cmp_bytes(const void *pa, const void *pb)
{
    const struct acct_rule *const *a = pa, *const *b = pb;
    return (*a)->bytes_min < (*b)->bytes_min ? -1 : (*a)->bytes_min > (*b)->bytes_min;
}

struct acct_decision acct_decision_for_size(const struct acct_decision *d,
                                            enum acct_coll_id coll, int comm_size)
{
    struct acct_decision out = *d;
    struct acct_call call = {
        .coll = coll, .rank = 0, .size = comm_size, .root = 0, .count = UINT64_MAX,
        .scount = UINT64_MAX, .fanout = d->fanout, .commutative = true,
    };
    /* Only the communicator size's restrictions are known here; the
     * runtime checks the call's own (commutativity, count) per call. One
     * that does not hold takes the algorithm's fallback chain, as the
     * runtime does (acct_alg_resolve). */
    if (d->alg == NULL || (d->alg->flags & ACCT_ALG_NATIVE))
        out = (struct acct_decision){.alg = acct_alg_native(coll)};
    else if (!acct_alg_applicable(d->alg, &call, NULL)) {
        const struct acct_alg *a = acct_alg_resolve(d->alg, &call);
        if (a->flags & ACCT_ALG_NATIVE) {
            out = (struct acct_decision){.alg = a};
        } else {
            out.alg = a;
            if (!(a->flags & ACCT_ALG_SEGMENTED))
                out.segment_bytes = 0;
            if (!(a->flags & ACCT_ALG_FANOUT))
                out.fanout = 0;
        }
    }
    return out;
}

int acct_rules_resolve(const struct acct_rules *rules, enum acct_coll_id coll,
                       int comm_size, struct acct_table **out)
{
    int rc = ACCT_RULES_ENOMEM;
    const struct acct_rule **match = NULL;
    struct acct_table *t = NULL;
    struct acct_decision *dec, *ru;
    size_t k = 0, n = 0, cap;
    const struct acct_alg *native;

    if (out == NULL)
        return ACCT_RULES_EINVAL;
    *out = NULL;
    if ((unsigned)coll >= ACCT_COLL_COUNT || (native = acct_alg_native(coll)) == NULL)
        return ACCT_RULES_EINVAL;
    const struct acct_decision native_d = { .alg = native }, none = { .alg = NULL };
    const struct acct_rule_list *l = rules != NULL ? &rules->coll[coll] : NULL;

    if (l != NULL && l->n > 0) {
        match = malloc(l->n * sizeof(*match));
        if (match == NULL)
            goto out;
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].comm_min <= comm_size && comm_size <= l->v[i].comm_max)
                match[k++] = &l->v[i];
        qsort(match, k, sizeof(*match), cmp_bytes);
    }
    cap = 2 * k + 1;
    t = malloc(sizeof(*t) + cap * (sizeof(uint64_t) + 2 * sizeof(struct acct_decision)));
    if (t == NULL)
        goto out;
    dec = (struct acct_decision *)(void *)&t->max[cap];
    ru = dec + cap;
    t->dec = dec;
    t->ru = ru;

    /* Append [.., hi] -> (d, runner-up r), merging with an equal previous
     * entry. */
#define APPEND(hi, dd, rr)                                                              \
    do {                                                                                \
        if (n > 0 && acct_decision_equal(&dec[n - 1], (dd)) &&                          \
            acct_decision_equal(&ru[n - 1], (rr))) {                                    \
            t->max[n - 1] = (hi);                                                       \
        } else {                                                                        \
            t->max[n] = (hi);                                                           \
            dec[n] = *(dd);                                                             \
            ru[n++] = *(rr);                                                            \
        }                                                                               \
    } while (0)

    uint64_t next = 0; /* first byte count not yet covered */
    bool full = false;
    for (size_t i = 0; i < k && !full; i++) {
        const struct acct_rule *x = match[i];
        struct acct_decision d = acct_decision_for_size(&x->d, coll, comm_size);
        struct acct_decision r = none;
        /* The runner-up as it runs on this size; none if it then runs
         * what the decision runs. */
        if (x->runner_up.alg != NULL) {
            r = acct_decision_for_size(&x->runner_up, coll, comm_size);
            if (acct_decision_equal(&r, &d))
                r = none;
        }
        if (x->bytes_min > next)
            APPEND(x->bytes_min - 1, &native_d, &none);
        APPEND(x->bytes_max, &d, &r);
        if (x->bytes_max == UINT64_MAX)
            full = true;
        else
            next = x->bytes_max + 1;
    }
    if (!full)
        APPEND(UINT64_MAX, &native_d, &none);
#undef APPEND
    t->n = n;
    *out = t;
    t = NULL;
    rc = ACCT_RULES_OK;
out:
    free(match);
    free(t);
    return rc;
}

void acct_table_free(struct acct_table *t)
{
    free(t);
}

bool acct_table_all_native(const struct acct_table *t)
{
    return t->n == 1 && t->dec[0].alg != NULL && (t->dec[0].alg->flags & ACCT_ALG_NATIVE) &&
           t->ru[0].alg == NULL;
}
