/* What-if and check (acct/model_whatif.h; docs/models.md "What-if and check"). */
#include "acct/model_whatif.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/model_space.h"
#include "acct/result.h"
#include "acct/rules.h"
#include "acct/table.h"

static const char *const how_names[] = {
    [ACCT_WHATIF_HOW_NONE] = "none",
    [ACCT_WHATIF_HOW_SIMULATED] = "simulated",
    [ACCT_WHATIF_HOW_CLOSED] = "closed form",
    [ACCT_WHATIF_HOW_SYMMETRIC] = "symmetric",
};

static const char *const source_names[] = {
    [ACCT_WHATIF_AUTO] = "auto",
    [ACCT_WHATIF_MODEL] = "model",
    [ACCT_WHATIF_CLOSED] = "closed",
};

const char *acct_whatif_how_name(enum acct_whatif_how h)
{
    return (unsigned)h < ACCT_ARRAY_LEN(how_names) ? how_names[h] : "?";
}

const char *acct_whatif_source_name(enum acct_whatif_source s)
{
    return (unsigned)s < ACCT_ARRAY_LEN(source_names) ? source_names[s] : "?";
}

int acct_whatif_source_parse(const char *s, enum acct_whatif_source *out)
{
    for (size_t i = 0; i < ACCT_ARRAY_LEN(source_names); i++)
        if (strcmp(s, source_names[i]) == 0) {
            *out = (enum acct_whatif_source)i;
            return 0;
        }
    return -1;
}

double acct_whatif_predict(enum acct_coll_id coll, const struct acct_decision *d, int p,
                           uint64_t m, const struct acct_model *mdl,
                           enum acct_whatif_source src, enum acct_whatif_how *how)
{
    double t = NAN;
    enum acct_whatif_how h = ACCT_WHATIF_HOW_NONE;

    if (d->alg != NULL && d->alg->build != NULL) {
        bool simulate = src == ACCT_WHATIF_MODEL ||
                        (src == ACCT_WHATIF_AUTO && p <= ACCT_WHATIF_SIM_MAX_RANKS);
        /* acct_model_predict's order: the simulation, else the closed form */
        if (simulate) {
            static const enum acct_whatif_how of[] = {
                [ACCT_MODEL_NONE] = ACCT_WHATIF_HOW_NONE,
                [ACCT_MODEL_SIMULATED] = ACCT_WHATIF_HOW_SIMULATED,
                [ACCT_MODEL_SYMMETRIC] = ACCT_WHATIF_HOW_SYMMETRIC,
                [ACCT_MODEL_CLOSED_FORM] = ACCT_WHATIF_HOW_CLOSED,
            };
            enum acct_model_source ms = ACCT_MODEL_NONE;
            t = acct_model_predict_how(coll, d, p, m, mdl, &ms);
            h = (unsigned)ms < ACCT_ARRAY_LEN(of) ? of[ms] : ACCT_WHATIF_HOW_NONE;
        }
        if (isnan(t)) {
            t = acct_model_closed_form(coll, d, p, m, mdl);
            h = ACCT_WHATIF_HOW_CLOSED;
        }
        if (isnan(t))
            h = ACCT_WHATIF_HOW_NONE;
    }
    if (how != NULL)
        *how = h;
    return t;
}

/* ---- the ranking ---------------------------------------------------------- */

struct ranked {
    struct acct_whatif_pred p;
    size_t order; /* generation order: registry, then descending segment */
};

static int cmp_ranked(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    return acct_model_pred_cmp(a->p.t_us, a->order, b->p.t_us, b->order);
}

/* Calls fn for every method x segment of the point's space, in
 * acct_model_rank's generation order. Returns 0, -1 (out of memory) or
 * fn's non-zero value. */
static int each_method(enum acct_coll_id coll, int p, uint64_t m, bool nodes,
                       int (*fn)(void *arg, const struct acct_decision *d), void *arg)
{
    struct acct_decision *meth = NULL;
    size_t nmeth = 0;
    uint64_t segs[ACCT_MODEL_MAX_SEGMENTS];
    int rc = 0;

    if (acct_model_methods(coll, p, nodes, &meth, &nmeth) != 0)
        return -1;
    size_t nsegs = acct_model_segments(m, ACCT_MODEL_MIN_SEGMENT, ACCT_MODEL_MAX_SEGMENTS, segs);
    for (size_t i = 0; i < nmeth && rc == 0; i++) {
        bool segmented = (meth[i].alg->flags & ACCT_ALG_SEGMENTED) != 0;
        for (size_t s = 0; s < (segmented ? nsegs : 1) && rc == 0; s++) {
            struct acct_decision d = meth[i];
            d.segment_bytes = segs[s];
            if (acct_model_applicable(coll, &d, p, m))
                rc = fn(arg, &d);
        }
    }
    free(meth);
    return rc;
}

struct rank_ctx {
    enum acct_coll_id coll;
    int p;
    uint64_t m;
    const struct acct_model *mdl;
    enum acct_whatif_source src;
    struct ranked *v;
    size_t n, cap;
};

static int rank_one(void *arg, const struct acct_decision *d)
{
    struct rank_ctx *c = arg;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct ranked *v = realloc(c->v, cap * sizeof(*v));
        if (v == NULL)
            return -1;
        c->v = v;
        c->cap = cap;
    }
    struct ranked *r = &c->v[c->n];
    r->p.d = *d;
    r->p.t_us = acct_whatif_predict(c->coll, d, c->p, c->m, c->mdl, c->src, &r->p.how);
    r->order = c->n++;
    return 0;
}

int acct_whatif_rank(enum acct_coll_id coll, int p, uint64_t m, bool nodes,
                     const struct acct_model *mdl, enum acct_whatif_source src,
                     struct acct_whatif_pred **out, size_t *n)
{
    struct rank_ctx c = { .coll = coll, .p = p, .m = m, .mdl = mdl, .src = src };
    int rc = -1;

    *out = NULL;
    *n = 0;
    if (p < 1 || mdl == NULL || (unsigned)coll >= ACCT_COLL_COUNT)
        return -1;
    if (each_method(coll, p, m, nodes, rank_one, &c) != 0)
        goto out;
    if (c.n > 0) {
        qsort(c.v, c.n, sizeof(*c.v), cmp_ranked);
        struct acct_whatif_pred *res = malloc(c.n * sizeof(*res));
        if (res == NULL)
            goto out;
        for (size_t i = 0; i < c.n; i++)
            res[i] = c.v[i].p;
        *out = res;
        *n = c.n;
    }
    rc = 0;
out:
    free(c.v);
    return rc;
}

bool acct_whatif_nodes(int p, int rpn)
{
    return rpn >= 2 && p > rpn;
}

/* ---- the decision ---------------------------------------------------------- */

int acct_whatif_decide(const struct acct_rules *rules, enum acct_coll_id coll, int p,
                       const struct acct_rules_where *w, uint64_t m, long *rule,
                       struct acct_decision *written, struct acct_decision *runs)
{
    struct acct_table *t = NULL;
    const struct acct_rules_where *at = w != NULL && w->ranks_per_node > 0 ? w : NULL;

    *rule = -1;
    memset(written, 0, sizeof(*written));
    if (rules != NULL) {
        const struct acct_rule_list *l = &rules->coll[coll];
        for (size_t i = 0; i < l->n; i++)
            if (acct_rule_contains(&l->v[i], p, m, at)) {
                *rule = (long)i;
                *written = l->v[i].d;
                break;
            }
    }
    /* the runtime's own lookup: the table of this size and layout */
    if (acct_rules_resolve_at(rules, coll, p, at, &t) != ACCT_RULES_OK)
        return -1;
    *runs = *acct_table_lookup(t, m);
    acct_table_free(t);
    /* then the call's restrictions (commutative-only, count >= size, a
     * known layout for the node-aware methods): the fallback chain */
    struct acct_call call;
    acct_model_call(coll, runs, p, m, 0, &call);
    call.layout = at != NULL ? &acct_layout_any : NULL;
    const struct acct_alg *alg = acct_alg_resolve(runs->alg, &call);
    if (alg != runs->alg) {
        runs->alg = alg;
        runs->segment_bytes = (alg->flags & ACCT_ALG_SEGMENTED) ? call.seg : 0;
        runs->fanout = (alg->flags & ACCT_ALG_FANOUT) ? call.fanout : 0;
        if (!(alg->flags & ACCT_ALG_REORDER))
            runs->reorder = false;
    }
    return 0;
}

/* ---- model files ------------------------------------------------------------ */

int acct_whatif_model_loggp(double L_us, double o_us, double g_us, double G_us_per_byte,
                            struct acct_model *out)
{
    struct acct_loggp lg = { L_us, o_us, g_us, G_us_per_byte };
    acct_model_init(out);
    return acct_loggp_to_plogp(&lg, &out->net);
}

int acct_whatif_model_levels(const double intra[4], const double inter[4], int nic_pairs,
                             double nic_gap_factor, int bidir_pairs, double bidir_factor,
                             double pair_duplex, uint64_t pair_overlap, struct acct_model *out)
{
    struct acct_loggp a = { intra[0], intra[1], intra[2], intra[3] };
    struct acct_loggp e = { inter[0], inter[1], inter[2], inter[3] };
    struct acct_model_nodes n = { 0 };

    if (acct_loggp_to_plogp(&a, &n.intra) != 0 || acct_loggp_to_plogp(&e, &n.inter) != 0 ||
        (nic_pairs != 0 && (nic_pairs < 2 || !(nic_gap_factor >= 1))) ||
        (bidir_pairs != 0 && (bidir_pairs < 2 || !(bidir_factor >= 1))) ||
        (pair_duplex != 0 && !(pair_duplex >= 1 && isfinite(pair_duplex))))
        return -1;
    n.nic_pairs = nic_pairs;
    n.nic_gap_factor = nic_pairs != 0 ? nic_gap_factor : 0;
    n.nic_bidir_pairs = bidir_pairs;
    n.nic_bidir_factor = bidir_pairs != 0 ? bidir_factor : 0;
    n.pair_duplex_factor = pair_duplex;
    n.pair_duplex_overlap_bytes = pair_overlap;
    out->nodes = n;
    return 0;
}

void acct_whatif_model_at(const struct acct_model *base, int p, int rpn, struct acct_model *out)
{
    *out = *base;
    if (rpn > 0 && acct_whatif_has_levels(base))
        out->nodes.ranks_per_node = rpn < p ? rpn : p;
}

bool acct_whatif_has_levels(const struct acct_model *mdl)
{
    return mdl->nodes.intra.n > 0 && mdl->nodes.inter.n > 0;
}

int acct_whatif_model_rules(const struct acct_rules_model *rm, struct acct_model *out)
{
    struct acct_model m;

    if (rm == NULL || !rm->present ||
        acct_whatif_model_loggp(rm->L_us, rm->o_us, rm->g_us, rm->G_us_per_byte, &m) != 0)
        return -1;
    if (rm->has_levels &&
        acct_whatif_model_levels(
            (const double[4]){ rm->intra.L_us, rm->intra.o_us, rm->intra.g_us,
                               rm->intra.G_us_per_byte },
            (const double[4]){ rm->inter.L_us, rm->inter.o_us, rm->inter.g_us,
                               rm->inter.G_us_per_byte },
            rm->nic_pairs, rm->nic_gap_factor, rm->nic_bidir_pairs, rm->nic_bidir_gap_factor,
            rm->pair_duplex_factor, rm->pair_duplex_overlap_bytes, &m) != 0)
        return -1;
    *out = m;
    return 0;
}

/* A rules file's provenance.model (acct_whatif_model_rules). */
static int rules_model_file(const char *path, struct acct_model *out, struct acct_diags *d)
{
    struct acct_rules *r = NULL;
    int rc = -1;

    if (acct_rules_parse_file(path, &r, d) != ACCT_RULES_OK)
        return -1;
    if (!r->prov.model.present)
        acct_diags_add(d, 0, 0, "provenance.model",
                       "the rules file names no model (acct-tune writes provenance.model "
                       "with its modelled rules); give a pLogP table or a tuning result");
    else if (acct_whatif_model_rules(&r->prov.model, out) != 0)
        acct_diags_add(d, 0, 0, "provenance.model", "the model does not convert to pLogP");
    else
        rc = 0;
    acct_rules_free(r);
    return rc;
}

/* Reads a number that ends the field (spaces, a comment or the end after it). */
static int number(const char **s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(*s, &end);
    if (end == *s || errno != 0 || !isfinite(*v))
        return -1;
    *s = end + strspn(end, " \t");
    return 0;
}

static const char *const plogp_fields[] = { "m", "os_us", "or_us", "g_us" };

/* The pLogP table file (tools/acct-tune/plogp_file.h): "acct-plogp 1", an
 * "L MICROSECONDS" line, then "BYTES OS OR G" lines; '#' comments. */
static int plogp_text(FILE *f, struct acct_plogp *t, struct acct_diags *d)
{
    char buf[1024];
    int line = 0;
    bool header = false, have_l = false;

    memset(t, 0, sizeof(*t));
    while (fgets(buf, sizeof(buf), f) != NULL) {
        const char *p = buf + strspn(buf, " \t");
        int col = (int)(p - buf) + 1;
        line++;
        buf[strcspn(buf, "\r\n")] = '\0';
        if (*p == '#' || *p == '\0')
            continue;
        if (!header) {
            header = true;
            if (strncmp(p, "acct-plogp 1", 12) != 0)
                acct_diags_add(d, line, col, "header", "expected \"acct-plogp 1\"");
            continue;
        }
        if (p[0] == 'L' && (p[1] == ' ' || p[1] == '\t')) {
            const char *q = p + 1 + strspn(p + 1, " \t");
            if (have_l)
                acct_diags_add(d, line, col, "L", "given twice");
            have_l = true;
            if (number(&q, &t->L_us) != 0 || (*q != '\0' && *q != '#') || t->L_us < 0)
                acct_diags_add(d, line, (int)(q - buf) + 1, "L",
                               "expected \"L MICROSECONDS\" (a finite number >= 0)");
            continue;
        }
        if (t->n >= ACCT_PLOGP_MAX_SIZES) {
            acct_diags_add(d, line, col, "sizes", "more than %d sizes", ACCT_PLOGP_MAX_SIZES);
            break;
        }
        double v[4];
        const char *q = p;
        size_t k = 0;
        for (; k < 4; k++)
            if (number(&q, &v[k]) != 0 || v[k] < 0)
                break;
        if (k < 4 || (*q != '\0' && *q != '#')) {
            acct_diags_add(d, line, (int)(q - buf) + 1,
                           k < 4 ? plogp_fields[k] : "line",
                           k < 4 ? "expected \"BYTES OS_US OR_US G_US\", numbers >= 0"
                                 : "unexpected text after \"BYTES OS_US OR_US G_US\"");
            continue;
        }
        if (v[0] != floor(v[0]) || v[0] > 1e18) {
            acct_diags_add(d, line, col, "m", "%g is not a size in bytes", v[0]);
            continue;
        }
        if (t->n > 0 && (uint64_t)v[0] <= t->m[t->n - 1]) {
            acct_diags_add(d, line, col, "m", "sizes must increase (%llu after %llu)",
                           (unsigned long long)v[0], (unsigned long long)t->m[t->n - 1]);
            continue;
        }
        t->m[t->n] = (uint64_t)v[0];
        t->os_us[t->n] = v[1];
        t->or_us[t->n] = v[2];
        t->g_us[t->n] = v[3];
        t->n++;
    }
    if (ferror(f))
        acct_diags_add(d, line, 0, NULL, "read error");
    else if (!header)
        acct_diags_add(d, line, 0, "header", "empty file: expected \"acct-plogp 1\"");
    else if (!have_l)
        acct_diags_add(d, line, 0, "L", "no \"L MICROSECONDS\" line");
    else if (t->n == 0)
        acct_diags_add(d, line, 0, "sizes", "no \"BYTES OS_US OR_US G_US\" line");
    return d->total == 0 ? 0 : -1;
}

int acct_whatif_model_file(const char *path, struct acct_model *out, const char **kind,
                           struct acct_diags *diags)
{
    struct acct_diags own = ACCT_DIAGS_INIT;
    struct acct_diags *d = diags != NULL ? diags : &own;
    char first[64] = "";
    int rc = -1;
    FILE *f;

    acct_diags_reset(d, path);
    acct_model_init(out);
    if (kind != NULL)
        *kind = "pLogP table";
    f = fopen(path, "r");
    if (f == NULL) {
        acct_diags_add(d, 0, 0, NULL, "%s", strerror(errno));
        goto out;
    }
    /* the first line that is not a comment or blank says which kind */
    char buf[256];
    while (fgets(buf, sizeof(buf), f) != NULL) {
        const char *p = buf + strspn(buf, " \t");
        if (*p != '#' && *p != '\n' && *p != '\r' && *p != '\0') {
            snprintf(first, sizeof(first), "%s", p);
            break;
        }
    }
    rewind(f);
    if (strncmp(first, "acct-plogp", 10) == 0) {
        if (plogp_text(f, &out->net, d) == 0) {
            char err[256];
            if (acct_plogp_check(&out->net, err, sizeof(err)) != 0)
                acct_diags_add(d, 0, 0, NULL, "%s", err);
            else
                rc = 0;
        }
        fclose(f);
        goto out;
    }
    fclose(f);
    if (strncmp(first, "acct_rules", 10) == 0) {
        if (kind != NULL)
            *kind = "rules file";
        rc = rules_model_file(path, out, d);
        goto out;
    }
    if (kind != NULL)
        *kind = "tuning result";
    struct acct_result *r = NULL;
    if (acct_result_parse_file(path, &r, d) != ACCT_RULES_OK)
        goto out;
    if (!r->model.present)
        acct_diags_add(d, 0, 0, "model",
                       "the tuning result has no model: section (acct-tune writes it with "
                       "--source model|hybrid); give a pLogP table (acct-tune --plogp-out) "
                       "instead");
    else if (acct_whatif_model_loggp(r->model.L_us, r->model.o_us, r->model.g_us,
                                     r->model.G_us_per_byte, out) != 0)
        acct_diags_add(d, 0, 0, "model", "the LogGP parameters do not convert to pLogP");
    else if (r->model.has_levels &&
             acct_whatif_model_levels(
                 (const double[4]){ r->model.intra.L_us, r->model.intra.o_us,
                                    r->model.intra.g_us, r->model.intra.G_us_per_byte },
                 (const double[4]){ r->model.inter.L_us, r->model.inter.o_us,
                                    r->model.inter.g_us, r->model.inter.G_us_per_byte },
                 r->model.nic_pairs, r->model.nic_gap_factor, r->model.nic_bidir_pairs,
                 r->model.nic_bidir_gap_factor, r->model.pair_duplex_factor,
                 r->model.pair_duplex_overlap_bytes, out) != 0)
        acct_diags_add(d, 0, 0, "model.intra", "the levels do not convert to pLogP");
    else
        rc = 0;
    acct_result_free(r);
out:
    if (rc != 0 && d->total == 0)
        acct_diags_add(d, 0, 0, NULL, "not a model");
    if (d == &own) {
        acct_diags_print(&own, stderr);
        acct_diags_free(&own);
    }
    return rc;
}

/* ---- check --------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

size_t acct_check_samples(uint64_t lo, uint64_t hi, uint64_t cap_hi, int max, uint64_t *out)
{
    uint64_t v[80];
    size_t n = 0, k = 0;

    if (max < 2)
        max = 2;
    if (lo < 1)
        lo = 1;
    if (hi > cap_hi)
        hi = cap_hi;
    if (hi < lo)
        return 0;
    v[n++] = lo;
    v[n++] = hi;
    for (uint64_t x = 1; x < hi && x <= (UINT64_C(1) << 62); x *= 2)
        if (x > lo)
            v[n++] = x;
    v[n++] = (uint64_t)llround(sqrt((double)lo * (double)hi));
    qsort(v, n, sizeof(*v), cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    if (k <= (size_t)max) {
        memcpy(out, v, k * sizeof(*v));
        return k;
    }
    /* keep the ends and max - 2 evenly spaced ones between */
    for (int i = 0; i < max; i++)
        out[i] = v[(size_t)((double)i * (double)(k - 1) / (double)(max - 1) + 0.5)];
    return (size_t)max;
}

/* The model's best of a point, memoised: the same points (powers of two)
 * recur in many rules. */
struct best {
    enum acct_coll_id coll;
    int p, rpn; /* rpn: the layout the model was laid out at (0: none) */
    bool nodes;
    enum acct_whatif_source src;
    uint64_t m;
    double t_us;
    struct acct_decision d;
    struct best *next;
};

#define BEST_BUCKETS 4096

struct best_ctx {
    double t_us;
    struct acct_decision d;
    enum acct_coll_id coll;
    int p;
    uint64_t m;
    const struct acct_model *mdl;
    enum acct_whatif_source src;
};

static int best_one(void *arg, const struct acct_decision *d)
{
    struct best_ctx *c = arg;
    double t = acct_whatif_predict(c->coll, d, c->p, c->m, c->mdl, c->src, NULL);
    if (!isnan(t) && (isnan(c->t_us) || t < c->t_us)) {
        c->t_us = t;
        c->d = *d;
    }
    return 0;
}

static const struct best *best_of(struct best **tab, enum acct_coll_id coll, int p, int rpn,
                                  bool nodes, uint64_t m, const struct acct_model *mdl,
                                  enum acct_whatif_source src, size_t *rankings)
{
    uint64_t h = ((uint64_t)coll * 1000003u) ^ ((uint64_t)p * 2654435761u) ^
                 (m * 11400714819323198485ull) ^ (nodes ? 77u : 0u) ^ ((uint64_t)rpn << 40) ^
                 ((uint64_t)src << 52);
    struct best **slot = &tab[(h ^ (h >> 29)) % BEST_BUCKETS];

    for (struct best *b = *slot; b != NULL; b = b->next)
        if (b->coll == coll && b->p == p && b->rpn == rpn && b->m == m && b->nodes == nodes &&
            b->src == src)
            return b;
    struct best_ctx c = { .t_us = NAN, .coll = coll, .p = p, .m = m, .mdl = mdl, .src = src };
    if (each_method(coll, p, m, nodes, best_one, &c) != 0)
        return NULL;
    struct best *b = malloc(sizeof(*b));
    if (b == NULL)
        return NULL;
    *b = (struct best){ .coll = coll, .p = p, .rpn = rpn, .nodes = nodes, .src = src, .m = m,
                        .t_us = c.t_us, .d = c.d, .next = *slot };
    *slot = b;
    (*rankings)++;
    return b;
}

/* A collective decided from the communicator size alone (gatherv,
 * scatterv, alltoallv): one decision for every size of a call, so it is
 * judged as acct-tune chose it (acct_dmap_row_cells, acct_extrap_decide_
 * sizes): by the geometric mean over the sampled sizes of its predicted
 * time, against the least such mean of any method predicted at every size.
 * A method's score accumulates in log space, once per size. */
struct sized_method {
    struct acct_decision d;
    double logsum;
    size_t n;
};

struct sized_ctx {
    enum acct_coll_id coll;
    int p;
    uint64_t m;
    size_t j; /* the size's index */
    const struct acct_model *mdl;
    enum acct_whatif_source src;
    struct sized_method *v;
    size_t n, cap;
};

static int sized_one(void *arg, const struct acct_decision *d)
{
    struct sized_ctx *c = arg;
    double t = acct_whatif_predict(c->coll, d, c->p, c->m, c->mdl, c->src, NULL);
    if (!(t > 0) || !isfinite(t))
        return 0;
    size_t k = 0;
    while (k < c->n && !acct_decision_equal(&c->v[k].d, d))
        k++;
    if (k == c->n) {
        if (c->n == c->cap) {
            size_t ncap = c->cap ? 2 * c->cap : 16;
            struct sized_method *x = realloc(c->v, ncap * sizeof(*x));
            if (x == NULL)
                return -1;
            c->v = x;
            c->cap = ncap;
        }
        c->v[c->n++] = (struct sized_method){ .d = *d };
    }
    if (c->v[k].n == c->j) {
        c->v[k].logsum += log(t);
        c->v[k].n++;
    }
    return 0;
}

/* The closed forms are exact at powers of two for most methods, not
 * between (docs/models.md, "Accuracy"), while acct-tune decided its model
 * rows by the simulation: with the closed forms as the source, a point over
 * the bound is asked again of the simulation (acct_whatif_predict's auto:
 * up to ACCT_WHATIF_SIM_MAX_RANKS ranks), whose figures then stand. */
static bool ask_simulation(const struct acct_check_opts *o, double pen, int p)
{
    return o->src == ACCT_WHATIF_CLOSED && pen > o->bound && p <= ACCT_WHATIF_SIM_MAX_RANKS;
}

/* t against the best's tb (a best of 0 us: infinitely over, unless t is 0
 * too). */
static double penalty_of(double t, double tb)
{
    return tb > 0 ? t / tb : (t > 0 ? INFINITY : 1.0);
}

/* A point's figures: the decision's time, the best's, the penalty. lower:
 * the best is the closed forms' best as simulated, not the simulation's
 * own (which is at most as slow: the penalty is a lower bound). */
struct fig {
    double t, best_us, pen;
    struct acct_decision best;
    enum acct_whatif_how how;
    bool lower;
};

/* *f takes the point's figures when they are the rule's worst so far (m 0
 * and sizes the sizes scored: a size-only rule). Returns whether it did. */
static bool take_worst(struct acct_check_finding *f, int p, int rpn, uint64_t m, size_t sizes,
                       const struct acct_decision *runs, const struct fig *fg)
{
    if (isnan(fg->pen) || (!isnan(f->penalty) && !(fg->pen > f->penalty)))
        return false;
    f->p = p;
    f->rpn = rpn;
    f->m = m;
    f->sizes = sizes;
    f->runs = *runs;
    f->t_us = fg->t;
    f->how = fg->how;
    f->best = fg->best;
    f->best_us = fg->best_us;
    f->penalty = fg->pen;
    return true;
}

/* The point's figures by the simulation (ask_simulation said so). Ranking
 * every method by the simulation costs ~50 simulations of up to 256 ranks
 * and thousands of segments; most such points are far over the bound (a
 * hand-written linear bcast: 2620x). So first the decision against the
 * closed forms' best, both simulated: the simulation's best is at most as
 * slow as that one, so a penalty over the bound there is over it against
 * the simulation's best too, and the point is confirmed (fg->lower). Only
 * a point within it is ranked in full; its figures are then exact, and it
 * may be withdrawn. Figures the simulation cannot give leave the closed
 * forms' ones. Returns 0, or -1 (out of memory). */
static int resimulate(struct best **tab, enum acct_coll_id coll, int p, bool nodes, uint64_t m,
                      const struct acct_model *lm, const struct acct_decision *runs, double bound,
                      struct fig *fg, struct acct_check_summary *sum)
{
    enum acct_whatif_how sh;
    double st = acct_whatif_predict(coll, runs, p, m, lm, ACCT_WHATIF_AUTO, &sh);
    sum->simulated++;
    if (isnan(st))
        return 0;
    double sc = acct_whatif_predict(coll, &fg->best, p, m, lm, ACCT_WHATIF_AUTO, NULL);
    if (sc > 0 && isfinite(sc) && st / sc > bound) {
        *fg = (struct fig){ .t = st, .best_us = sc, .pen = st / sc, .best = fg->best, .how = sh,
                            .lower = true };
        sum->confirmed++;
        return 0;
    }
    const struct best *sb = best_of(tab, coll, p, lm->nodes.ranks_per_node, nodes, m, lm,
                                    ACCT_WHATIF_AUTO, &sum->rankings);
    if (sb == NULL)
        return -1;
    if (isnan(sb->t_us))
        return 0;
    *fg = (struct fig){ .t = st, .best_us = sb->t_us, .pen = penalty_of(st, sb->t_us),
                        .best = sb->d, .how = sh };
    sum->withdrawn += fg->pen <= bound;
    return 0;
}

/* One communicator size of a size-only rule, predicted from src, into
 * *out: the geometric means over the sampled sizes of what runs (t) and of
 * the method of the least mean (best_us, best); pen NAN when either has no
 * prediction at every size. */
static int sized_at(enum acct_coll_id coll, int p, bool nodes, const struct acct_model *lm,
                    const struct acct_decision *runs, const uint64_t *ms, size_t nm,
                    enum acct_whatif_source src, size_t *points, struct fig *out)
{
    struct sized_ctx c = { .coll = coll, .p = p, .mdl = lm, .src = src };
    double logrun = 0;
    bool predicted = true;
    int rc = 0;

    *out = (struct fig){ .pen = NAN, .how = ACCT_WHATIF_HOW_NONE };
    for (size_t j = 0; j < nm && rc == 0; j++) {
        c.m = ms[j];
        c.j = j;
        if (points != NULL)
            (*points)++;
        if (each_method(coll, p, ms[j], nodes, sized_one, &c) != 0)
            rc = -1;
        double t = acct_whatif_predict(coll, runs, p, ms[j], lm, src, &out->how);
        predicted = predicted && t > 0 && isfinite(t);
        if (predicted)
            logrun += log(t);
    }
    size_t best = c.n;
    for (size_t k = 0; k < c.n; k++)
        if (c.v[k].n == nm && (best == c.n || c.v[k].logsum < c.v[best].logsum))
            best = k;
    if (rc == 0 && predicted && best < c.n) {
        out->t = exp(logrun / (double)nm);
        out->best_us = exp(c.v[best].logsum / (double)nm);
        out->pen = out->t / out->best_us;
        out->best = c.v[best].d;
    }
    free(c.v);
    return rc;
}

/* resimulate for a size-only rule: the geometric means over the sizes of
 * the decision and of the closed forms' best method, both simulated. The
 * simulation's method of the least mean is at most as slow as that one:
 * over the bound, the size is confirmed (returns 1, *out holds them,
 * lower); else 0. */
static int sized_lower(enum acct_coll_id coll, int p, const struct acct_model *lm,
                       const struct acct_decision *runs, const struct acct_decision *best,
                       const uint64_t *ms, size_t nm, double bound, struct fig *out)
{
    double lr = 0, lb = 0;
    enum acct_whatif_how how = ACCT_WHATIF_HOW_NONE;
    for (size_t j = 0; j < nm; j++) {
        double t = acct_whatif_predict(coll, runs, p, ms[j], lm, ACCT_WHATIF_AUTO, &how);
        double tb = acct_whatif_predict(coll, best, p, ms[j], lm, ACCT_WHATIF_AUTO, NULL);
        if (!(t > 0) || !isfinite(t) || !(tb > 0) || !isfinite(tb))
            return 0;
        lr += log(t);
        lb += log(tb);
    }
    double t = exp(lr / (double)nm), tb = exp(lb / (double)nm);
    if (nm == 0 || !(t / tb > bound))
        return 0;
    *out = (struct fig){ .t = t, .best_us = tb, .pen = t / tb, .best = *best, .how = how,
                                 .lower = true };
    return 1;
}

/* The worst sampled communicator size of a size-only rule into *f (its m
 * 0, sizes the sizes scored, t_us and best_us geometric means). */
static int check_sized(const struct acct_rules *rules, enum acct_coll_id coll,
                       const struct acct_rule *r, const struct acct_rules_where *w,
                       const uint64_t *ps, size_t np, const struct acct_model *mdl,
                       const struct acct_check_opts *o, int nsamp,
                       struct acct_check_summary *sum, struct acct_check_finding *f)
{
    uint64_t ms[80];
    size_t nm = acct_check_samples(r->bytes_min > 0 ? r->bytes_min : 1, r->bytes_max,
                                   o->max_bytes, nsamp, ms);
    bool lower = false; /* *f's figures from sized_lower */
    for (size_t a = 0; a < np && nm > 0; a++) {
        int p = (int)ps[a], rpn = w->ranks_per_node;
        bool nodes = acct_whatif_nodes(p, rpn);
        struct acct_model lm;
        acct_whatif_model_at(mdl, p, rpn, &lm);
        long ri;
        struct acct_decision written, runs;
        if (acct_whatif_decide(rules, coll, p, rpn > 0 ? w : NULL, ms[0], &ri, &written, &runs) !=
            0)
            return -1;
        struct fig sp;
        if (sized_at(coll, p, nodes, &lm, &runs, ms, nm, o->src, &sum->points, &sp) != 0)
            return -1;
        sum->rankings++;
        if (ask_simulation(o, sp.pen, p)) {
            struct fig sim;
            sum->simulated++;
            if (sized_lower(coll, p, &lm, &runs, &sp.best, ms, nm, o->bound, &sim) == 1) {
                sum->confirmed++;
                sp = sim;
            } else {
                if (sized_at(coll, p, nodes, &lm, &runs, ms, nm, ACCT_WHATIF_AUTO, NULL, &sim) !=
                    0)
                    return -1;
                if (!isnan(sim.pen)) {
                    sum->withdrawn += sim.pen <= o->bound;
                    sp = sim;
                }
            }
        }
        if (take_worst(f, p, rpn, 0, nm, &runs, &sp))
            lower = sp.lower;
    }
    /* the worst size confirmed against the closed forms' best: ranked in
     * full, so that its best is the simulation's (the penalty only rises) */
    if (lower) {
        int rpn = w->ranks_per_node;
        struct acct_model lm;
        struct fig sim;
        acct_whatif_model_at(mdl, f->p, rpn, &lm);
        if (sized_at(coll, f->p, acct_whatif_nodes(f->p, rpn), &lm, &f->runs, ms, nm,
                     ACCT_WHATIF_AUTO, NULL, &sim) != 0)
            return -1;
        sum->rankings++;
        if (!isnan(sim.pen)) {
            f->best = sim.best;
            f->best_us = sim.best_us;
            f->penalty = sim.pen;
        }
    }
    return 0;
}

/* One rule: every sampled point; *f gets the worst. Returns 0, or -1. */
/* The largest communicator size the measured rules of coll were timed at,
 * or 0: in a measured (or refined) version, the largest finite comm_max of
 * its evidence: measured rules (a rule reaching max was extended beyond
 * what was timed, as files written before the model regions are: its
 * comm_min - 1 then); a hand-written version has no timings (0). */
static int measured_upto(const struct acct_rules *rules, enum acct_coll_id coll)
{
    int upto = 0;
    if (rules->prov.source != ACCT_SOURCE_MEASURED && rules->prov.source != ACCT_SOURCE_REFINED)
        return 0;
    for (size_t i = 0; i < rules->coll[coll].n; i++) {
        const struct acct_rule *r = &rules->coll[coll].v[i];
        if (r->evidence != ACCT_EVIDENCE_MEASURED)
            continue;
        int top = r->comm_max != INT_MAX ? r->comm_max : r->comm_min - 1;
        if (top > upto)
            upto = top;
    }
    return upto;
}

static int check_rule(const struct acct_rules *rules, enum acct_coll_id coll, size_t i,
                      const struct acct_model *mdl, const struct acct_check_opts *o,
                      struct best **tab, struct acct_check_summary *sum,
                      struct acct_check_finding *f)
{
    const struct acct_rule *r = &rules->coll[coll].v[i];
    int nsamp = o->samples > 0 ? o->samples : ACCT_CHECK_SAMPLES;
    uint64_t ps[80], ms[80];
    bool barrier = coll == ACCT_COLL_barrier;
    /* a layout-bound rule is asked at its smallest ranks per node, the
     * others at the check's layout (o->ranks_per_node; 0: unknown) */
    struct acct_rules_where w = { .ranks_per_node = r->rpn_min > 0 ? r->rpn_min : 0,
                                  .regular = r->layout != ACCT_LAYOUT_IRREGULAR };
    if (acct_rule_layout_bound(r) && w.ranks_per_node == 0)
        w.ranks_per_node = 2; /* layout: regular|irregular without ranks_per_node */
    if (!acct_rule_layout_bound(r))
        w = (struct acct_rules_where){ .ranks_per_node = o->ranks_per_node > 0
                                                             ? o->ranks_per_node : 0,
                                       .regular = true };

    memset(f, 0, sizeof(*f));
    f->coll = coll;
    f->rule = i;
    f->r = r;
    f->penalty = NAN;
    /* A measured rule is backed by timings up to the largest measured
     * communicator size: the model is asked only beyond (rule 6: measured
     * evidence outranks the model; the model is not calibrated everywhere) */
    int lo = r->comm_min < 2 ? 2 : r->comm_min;
    int measured_to = measured_upto(rules, coll);
    if (r->evidence == ACCT_EVIDENCE_MEASURED && measured_to >= lo) {
        if (r->comm_max <= measured_to) {
            f->measured = true;
            return 0;
        }
        lo = measured_to + 1;
    }
    size_t np = acct_check_samples((uint64_t)lo, (uint64_t)r->comm_max, (uint64_t)o->max_comm,
                                   nsamp, ps);
    if (!acct_coll_bytes_alike(coll)) {
        if (check_sized(rules, coll, r, &w, ps, np, mdl, o, nsamp, sum, f) != 0)
            return -1;
        f->flagged = !isnan(f->penalty) && f->penalty > o->bound;
        return 0;
    }
    size_t nm = barrier ? 0 : acct_check_samples(r->bytes_min, r->bytes_max, o->max_bytes,
                                                 nsamp, ms);
    if (barrier) {
        ms[0] = 0;
        nm = r->bytes_min == 0 ? 1 : 0;
    }
    bool lower = false; /* *f's figures from resimulate's lower bound */
    for (size_t a = 0; a < np; a++) {
        int p = (int)ps[a];
        int rpn = w.ranks_per_node;
        bool nodes = acct_whatif_nodes(p, rpn);
        /* with the calibrated levels and a layout, every message at its level */
        struct acct_model lm;
        acct_whatif_model_at(mdl, p, rpn, &lm);
        for (size_t b = 0; b < nm; b++) {
            long ri;
            struct acct_decision written, runs;
            if (acct_whatif_decide(rules, coll, p, rpn > 0 ? &w : NULL, ms[b], &ri, &written,
                                   &runs) != 0)
                return -1;
            sum->points++;
            enum acct_whatif_how how;
            double t = acct_whatif_predict(coll, &runs, p, ms[b], &lm, o->src, &how);
            if (isnan(t))
                continue;
            const struct best *best = best_of(tab, coll, p, lm.nodes.ranks_per_node, nodes,
                                              ms[b], &lm, o->src, &sum->rankings);
            if (best == NULL)
                return -1;
            if (isnan(best->t_us))
                continue;
            /* the decision is in the space or not; either way best <= t
             * unless it is not (a segment outside the candidates) */
            struct fig fg = { .t = t, .best_us = best->t_us, .pen = penalty_of(t, best->t_us),
                              .best = best->d, .how = how };
            if (ask_simulation(o, fg.pen, p) &&
                resimulate(tab, coll, p, nodes, ms[b], &lm, &runs, o->bound, &fg, sum) != 0)
                return -1;
            if (take_worst(f, p, rpn, ms[b], 0, &runs, &fg))
                lower = fg.lower;
        }
    }
    /* the worst point confirmed against the closed forms' best: ranked in
     * full, so that its best is the simulation's (the penalty only rises) */
    if (lower) {
        struct acct_model lm;
        acct_whatif_model_at(mdl, f->p, f->rpn, &lm);
        const struct best *sb =
            best_of(tab, coll, f->p, lm.nodes.ranks_per_node, acct_whatif_nodes(f->p, f->rpn),
                    f->m, &lm, ACCT_WHATIF_AUTO, &sum->rankings);
        if (sb == NULL)
            return -1;
        if (!isnan(sb->t_us)) {
            f->best = sb->d;
            f->best_us = sb->t_us;
            f->penalty = penalty_of(f->t_us, sb->t_us);
        }
    }
    f->flagged = !isnan(f->penalty) && f->penalty > o->bound;
    return 0;
}

int acct_check_rules(const struct acct_rules *rules, enum acct_coll_id only,
                     const struct acct_model *mdl, const struct acct_check_opts *o,
                     acct_check_fn fn, void *arg, struct acct_check_summary *sum)
{
    struct best **tab = NULL;
    int rc = -1;

    memset(sum, 0, sizeof(*sum));
    if (rules == NULL || mdl == NULL || o == NULL || !(o->bound > 0) || o->max_comm < 2)
        return -1;
    tab = calloc(BEST_BUCKETS, sizeof(*tab));
    if (tab == NULL)
        return -1;
    rc = 0;
    for (int c = 0; c < ACCT_COLL_COUNT && rc == 0; c++) {
        if (only != ACCT_COLL_COUNT && (enum acct_coll_id)c != only)
            continue;
        for (size_t i = 0; i < rules->coll[c].n && rc == 0; i++) {
            struct acct_check_finding f;
            sum->rules++;
            if (check_rule(rules, (enum acct_coll_id)c, i, mdl, o, tab, sum, &f) != 0) {
                rc = -1;
                break;
            }
            sum->measured += f.measured;
            if (isnan(f.penalty) && !f.measured)
                continue;
            sum->predicted += !f.measured;
            sum->flagged += f.flagged;
            if (fn != NULL)
                rc = fn(arg, &f);
        }
    }
    for (size_t b = 0; b < BEST_BUCKETS; b++)
        while (tab[b] != NULL) {
            struct best *n = tab[b]->next;
            free(tab[b]);
            tab[b] = n;
        }
    free(tab);
    return rc;
}
