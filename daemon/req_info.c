/* Requests anybody may send that read state: HELLO, STATUS, LIST,
 * GET_RULES, SHOW, LIST_VERSIONS, DIFF (docs/protocol.md). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/stats.h"
#include "acctd.h"

int req_hello(struct acctd *d, struct client *c, const struct acct_msg *m,
              struct acct_wbuf *out)
{
    uint64_t lo = 1, hi = 1;
    acct_get_u64(m->body, m->len, ACCT_T_PROTO_MIN, &lo);
    acct_get_u64(m->body, m->len, ACCT_T_PROTO_MAX, &hi);
    if (lo > ACCT_PROTO_VERSION || hi < ACCT_PROTO_VERSION) {
        acct_put_error(out, m->h.id, ACCT_ERR_VERSION,
                       "this acctd speaks protocol version %d only (client: %llu to %llu)",
                       ACCT_PROTO_VERSION, (unsigned long long)lo, (unsigned long long)hi);
        return 0;
    }
    acct_wbuf_start(out, ACCT_MSG_HELLO | ACCT_MSG_REPLY, m->h.id);
    acct_put_u64(out, ACCT_T_PROTO_VERSION, ACCT_PROTO_VERSION);
    acct_put_str(out, ACCT_T_SOFTWARE, "acctd " ACCT_VERSION_STRING);
    acct_put_u64(out, ACCT_T_MAX_BODY, c->max_body);
    acct_put_str(out, ACCT_T_NODE, d->cfg.node);
    return 0;
}

int req_status(struct acctd *d, struct client *c, const struct acct_msg *m,
               struct acct_wbuf *out)
{
    uint64_t check = 0;
    acct_get_u64(m->body, m->len, ACCT_T_CHECK, &check);
    /* a whole-store integrity_check runs in the event loop (~11 ms/MB) */
    if (check && !c->admin) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                       "CHECK: the store's integrity check needs root or the admin group%s%s",
                       d->cfg.admin_group[0] ? " " : "", d->cfg.admin_group);
        return 0;
    }
    acct_wbuf_start(out, ACCT_MSG_STATUS | ACCT_MSG_REPLY, m->h.id);
    acct_put_str(out, ACCT_T_SOFTWARE, "acctd " ACCT_VERSION_STRING);
    acct_put_str(out, ACCT_T_NODE, d->cfg.node);
    acct_put_u64(out, ACCT_T_UPTIME_S, (uint64_t)(time(NULL) - d->started));
    acct_put_u64(out, ACCT_T_SCHEMA, (uint64_t)store_schema(d->store));
    acct_put_str(out, ACCT_T_DB_PATH, d->cfg.database);
    acct_put_str(out, ACCT_T_RULES_DIR, d->cfg.rules_dir);
    acct_put_u64(out, ACCT_T_NPAIRS, d->npairs);
    acct_put_u64(out, ACCT_T_NVERSIONS, (uint64_t)store_count_versions(d->store));
    acct_put_u64(out, ACCT_T_NSAMPLES, (uint64_t)d->samples_total);
    acct_put_u64(out, ACCT_T_CLIENTS, d->nclients);
    acct_put_str(out, ACCT_T_POLICY, d->policies.dflt.name);
    rulesdir_put_status(d, out);
    if (d->cfg.primary[0] != '\0') {
        char st[1024];
        sync_status_text(d, st, sizeof(st));
        acct_put_str(out, ACCT_T_SYNC_STATE, st);
    }
    if (check) {
        char ic[512];
        store_integrity(d->store, ic, sizeof(ic));
        acct_put_str(out, ACCT_T_INTEGRITY, ic);
    }
    return 0;
}

static int put_pair(void *arg, const struct store_version *v, int64_t nversions)
{
    struct acct_wbuf *out = arg;
    acct_group_begin(out, ACCT_T_PAIR);
    acct_put_str(out, ACCT_T_PARTITION, v->partition);
    acct_put_str(out, ACCT_T_INTERCONNECT, v->interconnect);
    acct_put_u64(out, ACCT_T_VERSION, (uint64_t)v->id);
    acct_put_str(out, ACCT_T_SOURCE, v->source);
    acct_put_str(out, ACCT_T_CREATED, v->created);
    acct_put_str(out, ACCT_T_TUNING_RUN, v->tuning_run);
    acct_put_str(out, ACCT_T_ACTIVATED_AT, v->activated_at);
    acct_put_u64(out, ACCT_T_NVERSIONS, (uint64_t)nversions);
    acct_group_end(out);
    return 0;
}

int req_list(struct acctd *d, struct client *c, const struct acct_msg *m, struct acct_wbuf *out)
{
    (void)c;
    acct_wbuf_start(out, ACCT_MSG_LIST | ACCT_MSG_REPLY, m->h.id);
    if (store_pairs(d->store, false, put_pair, out) != 0)
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
    return 0;
}

int req_get_rules(struct acctd *d, struct client *c, const struct acct_msg *m,
                  struct acct_wbuf *out)
{
    char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
    (void)c;
    if (req_name(m, ACCT_T_PARTITION, true, p, sizeof(p), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_INTERCONNECT, true, i, sizeof(i), m->h.id, out) != 0)
        return 0;
    const struct pair_entry *e = rulesdir_find(d, p, i);
    if (e == NULL) {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND,
                       "no active version for partition %s, interconnect %s", p, i);
        return 0;
    }
    acct_wbuf_start(out, ACCT_MSG_GET_RULES | ACCT_MSG_REPLY, m->h.id);
    acct_put_u64(out, ACCT_T_VERSION, (uint64_t)e->version);
    acct_put_u64(out, ACCT_T_HASH, e->hash);
    acct_put_strn(out, ACCT_T_RULES_TEXT, e->text, e->len);
    return 0;
}

/* VERSION, or PARTITION + INTERCONNECT (the active one). 0 ok; else an
 * error was written. */
static int get_version(struct acctd *d, const struct acct_msg *m, unsigned tag,
                       struct store_version *v, struct acct_wbuf *out)
{
    uint64_t id = 0;
    int r = acct_get_u64(m->body, m->len, tag, &id);
    int rc;
    if (r == 0) {
        if (id == 0 || id > INT64_MAX) {
            acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "%s: %llu is not a version",
                           acct_tag_name(tag), (unsigned long long)id);
            return -1;
        }
        rc = store_version_get(d->store, (int64_t)id, true, v);
        if (rc == 1)
            acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND, "no version %llu",
                           (unsigned long long)id);
    } else {
        char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
        if (tag != ACCT_T_VERSION) {
            acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "%s: required", acct_tag_name(tag));
            return -1;
        }
        if (req_name(m, ACCT_T_PARTITION, true, p, sizeof(p), m->h.id, out) != 0 ||
            req_name(m, ACCT_T_INTERCONNECT, true, i, sizeof(i), m->h.id, out) != 0)
            return -1;
        rc = store_active_get(d->store, p, i, true, v);
        if (rc == 1)
            acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND,
                           "no active version for partition %s, interconnect %s", p, i);
    }
    if (rc < 0)
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
    return rc == 0 ? 0 : -1;
}

int req_show(struct acctd *d, struct client *c, const struct acct_msg *m, struct acct_wbuf *out)
{
    struct store_version v;
    (void)c;
    if (get_version(d, m, ACCT_T_VERSION, &v, out) != 0)
        return 0;
    acct_wbuf_start(out, ACCT_MSG_SHOW | ACCT_MSG_REPLY, m->h.id);
    req_put_version(out, &v, true);
    store_version_free(&v);
    return 0;
}

/* GET_MODEL, GET_RESULT: a version of merged rules answers with the run
 * behind the layout asked about (RANKS_PER_NODE, optional: the lowest). */
static void layout_run(const struct acct_msg *m, struct store_version *v)
{
    uint64_t rpn = 0;
    if (acct_get_u64(m->body, m->len, ACCT_T_RANKS_PER_NODE, &rpn) != 0 || rpn > INT_MAX)
        rpn = 0;
    acctd_version_layout_run(v, (int)rpn);
}

/* GET_MODEL: the LogGP model of a version's tuning run (acctctl whatif and
 * check). A version without a run (manual), or whose run stored no model,
 * is NOT_FOUND with a message naming the version and its pair. */
int req_get_model(struct acctd *d, struct client *c, const struct acct_msg *m,
                  struct acct_wbuf *out)
{
    static const unsigned tags[4] = { ACCT_T_MODEL_L_US, ACCT_T_MODEL_O_US, ACCT_T_MODEL_G_US,
                                      ACCT_T_MODEL_GB_US };
    struct store_version v;
    double p[4];
    int rc;
    (void)c;
    if (get_version(d, m, ACCT_T_VERSION, &v, out) != 0)
        return 0;
    layout_run(m, &v);
    if (v.tuning_run[0] == '\0') {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND,
                       "version %lld of %s/%s has no model: it comes from no tuning run "
                       "(source %s)",
                       (long long)v.id, v.partition, v.interconnect, v.source);
    } else if ((rc = store_model_get(d->store, v.tuning_run, p)) == 1) {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND,
                       "version %lld of %s/%s has no model: its tuning run %s stored no model "
                       "parameters (acct-tune writes them with --source model|hybrid)",
                       (long long)v.id, v.partition, v.interconnect, v.tuning_run);
    } else if (rc != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
    } else {
        acct_wbuf_start(out, ACCT_MSG_GET_MODEL | ACCT_MSG_REPLY, m->h.id);
        acct_put_u64(out, ACCT_T_VERSION, (uint64_t)v.id);
        acct_put_str(out, ACCT_T_PARTITION, v.partition);
        acct_put_str(out, ACCT_T_INTERCONNECT, v.interconnect);
        acct_put_str(out, ACCT_T_TUNING_RUN, v.tuning_run);
        for (int k = 0; k < 4; k++)
            acct_put_f64(out, tags[k], p[k]);
        /* the levels, when the run measured them (issue 21) */
        static const unsigned lt[STORE_LEVELS_N] = {
            ACCT_T_MODEL_INTRA_L_US, ACCT_T_MODEL_INTRA_O_US, ACCT_T_MODEL_INTRA_G_US,
            ACCT_T_MODEL_INTRA_GB_US, ACCT_T_MODEL_INTER_L_US, ACCT_T_MODEL_INTER_O_US,
            ACCT_T_MODEL_INTER_G_US, ACCT_T_MODEL_INTER_GB_US, ACCT_T_MODEL_NIC_PAIRS,
            ACCT_T_MODEL_NIC_FACTOR, ACCT_T_MODEL_NIC_BIDIR_PAIRS,
            ACCT_T_MODEL_NIC_BIDIR_FACTOR, ACCT_T_MODEL_PAIR_DUPLEX, ACCT_T_MODEL_PAIR_OVERLAP };
        double lv[STORE_LEVELS_N];
        if (store_model_levels_get(d->store, v.tuning_run, lv) == 0)
            for (int k = 0; k < STORE_LEVELS_N; k++) {
                if (lt[k] == ACCT_T_MODEL_NIC_BIDIR_FACTOR && lv[k - 1] < 2)
                    continue; /* the two-way factor: only when measured */
                if (lt[k] == ACCT_T_MODEL_PAIR_DUPLEX && !(lv[k] >= 1))
                    continue; /* the pair-duplex factor: only when measured */
                if (lt[k] == ACCT_T_MODEL_PAIR_OVERLAP && (!(lv[k - 1] >= 1) || !(lv[k] > 0)))
                    continue; /* its overlap: only when measured and not 0 */
                if (lt[k] == ACCT_T_MODEL_NIC_PAIRS || lt[k] == ACCT_T_MODEL_NIC_BIDIR_PAIRS ||
                    lt[k] == ACCT_T_MODEL_PAIR_OVERLAP)
                    acct_put_u64(out, lt[k], (uint64_t)lv[k]);
                else
                    acct_put_f64(out, lt[k], lv[k]);
            }
    }
    store_version_free(&v);
    return 0;
}

/* GET_RESULT: the tuning result file of a version's run, as imported
 * (acctctl show, retune, diff: the timings, races and noise behind the
 * decisions). NOT_FOUND as GET_MODEL's for a version from no run. */
int req_get_result(struct acctd *d, struct client *c, const struct acct_msg *m,
                   struct acct_wbuf *out)
{
    struct store_version v;
    char *text = NULL;
    size_t len = 0;
    int rc;
    (void)c;
    if (get_version(d, m, ACCT_T_VERSION, &v, out) != 0)
        return 0;
    layout_run(m, &v);
    if (v.tuning_run[0] == '\0') {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND,
                       "version %lld of %s/%s has no tuning result: it comes from no tuning "
                       "run (source %s)",
                       (long long)v.id, v.partition, v.interconnect, v.source);
    } else if ((rc = store_result_text(d->store, v.tuning_run, &text, &len)) == 1) {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND,
                       "version %lld of %s/%s: its tuning run %s is not in the store",
                       (long long)v.id, v.partition, v.interconnect, v.tuning_run);
    } else if (rc != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
    } else {
        acct_wbuf_start(out, ACCT_MSG_GET_RESULT | ACCT_MSG_REPLY, m->h.id);
        acct_put_u64(out, ACCT_T_VERSION, (uint64_t)v.id);
        acct_put_str(out, ACCT_T_PARTITION, v.partition);
        acct_put_str(out, ACCT_T_INTERCONNECT, v.interconnect);
        acct_put_str(out, ACCT_T_TUNING_RUN, v.tuning_run);
        acct_put_strn(out, ACCT_T_RESULT_TEXT, text, len);
    }
    free(text);
    store_version_free(&v);
    return 0;
}

static int put_version_info(void *arg, const struct store_version *v, int64_t n)
{
    struct acct_wbuf *out = arg;
    (void)n;
    acct_group_begin(out, ACCT_T_VERSION_INFO);
    req_put_version(out, v, false);
    acct_group_end(out);
    return 0;
}

int req_list_versions(struct acctd *d, struct client *c, const struct acct_msg *m,
                      struct acct_wbuf *out)
{
    char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
    (void)c;
    if (req_name(m, ACCT_T_PARTITION, true, p, sizeof(p), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_INTERCONNECT, true, i, sizeof(i), m->h.id, out) != 0)
        return 0;
    acct_wbuf_start(out, ACCT_MSG_LIST_VERSIONS | ACCT_MSG_REPLY, m->h.id);
    if (store_versions(d->store, p, i, put_version_info, out) != 0)
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
    return 0;
}

/* ---- DIFF: decisions compared cell by cell ------------------------------------------ */

#define DIFF_MAX_RULES 2000 /* per collective and side; beyond, no cell diff */
#define DIFF_MAX_LINES 1000

/* The decision at (p, b) in the layout slice w: NULL (unknown layout, the
 * only slice when neither side has layout-bound rules) or a ranks-per-node
 * count and kind. Rules never overlap, so at most one contains a point. */
static const struct acct_decision *decide(const struct acct_rule_list *l, int64_t p, uint64_t b,
                                          const struct acct_rules_where *w)
{
    for (size_t i = 0; i < l->n; i++)
        if (acct_rule_contains(&l->v[i], (int)p, b, w))
            return &l->v[i].d;
    return NULL;
}

static void fmt_dec(const struct acct_decision *x, char *buf, size_t len)
{
    if (x == NULL)
        snprintf(buf, len, "native");
    else
        acct_decision_format(x, buf, len);
}

static bool same_dec(const struct acct_decision *a, const struct acct_decision *b)
{
    if (a == NULL || b == NULL)
        return a == b || (a ? a : b)->alg->flags & ACCT_ALG_NATIVE;
    return acct_decision_equal(a, b);
}

static void fmt_bound(uint64_t v, bool comm, char *buf, size_t len)
{
    if ((comm && v >= (uint64_t)INT_MAX) || (!comm && v == UINT64_MAX))
        snprintf(buf, len, "max");
    else if (comm)
        snprintf(buf, len, "%llu", (unsigned long long)v);
    else if (acct_size_format(v, buf, len) != 0)
        snprintf(buf, len, "%llu", (unsigned long long)v);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted unique boundaries: starts of intervals. */
static size_t uniq(uint64_t *v, size_t n)
{
    size_t k = 0;
    qsort(v, n, sizeof(*v), cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

struct diff_ent {
    uint64_t blo, bhi;
    const struct acct_decision *x, *y;
};

static bool dec_eq(const struct acct_decision *a, const struct acct_decision *b)
{
    return (a == NULL || b == NULL) ? a == b : acct_decision_equal(a, b);
}

static bool ents_eq(const struct diff_ent *a, size_t na, const struct diff_ent *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (a[i].blo != b[i].blo || a[i].bhi != b[i].bhi || !dec_eq(a[i].x, b[i].x) ||
            !dec_eq(a[i].y, b[i].y))
            return false;
    return true;
}

static void emit(enum acct_coll_id coll, const char *where, uint64_t clo, uint64_t chi,
                 const struct diff_ent *e, size_t n, struct acct_wbuf *out, size_t *lines)
{
    for (size_t i = 0; i < n; i++) {
        char c1[24], c2[24], b1[32], b2[32], d1[160], d2[160], line[512];
        fmt_bound(clo, true, c1, sizeof(c1));
        fmt_bound(chi, true, c2, sizeof(c2));
        fmt_bound(e[i].blo, false, b1, sizeof(b1));
        fmt_bound(e[i].bhi, false, b2, sizeof(b2));
        fmt_dec(e[i].x, d1, sizeof(d1));
        fmt_dec(e[i].y, d2, sizeof(d2));
        snprintf(line, sizeof(line), "%s comm_size [%s, %s]%s bytes [%s, %s]: %s -> %s",
                 acct_coll_name(coll), c1, c2, where, b1, b2, d1, d2);
        if (*lines < DIFF_MAX_LINES)
            acct_put_str(out, ACCT_T_DIFF_LINE, line);
        (*lines)++;
    }
}

/* Cell-by-cell comparison of one collective's rules: the plane is cut at
 * every rule boundary of either side; per communicator-size interval the
 * byte intervals whose decisions differ are listed (neighbours with the same
 * change merged), and consecutive communicator intervals with the same list
 * are merged too. */
static void diff_coll(enum acct_coll_id coll, const struct acct_rules_where *w,
                      const char *where, const struct acct_rule_list *a,
                      const struct acct_rule_list *b, struct acct_wbuf *out, size_t *lines)
{
    size_t n = a->n + b->n;
    uint64_t *cb = NULL, *bb = NULL;
    struct diff_ent *cur = NULL, *prev = NULL;
    size_t ncur = 0, nprev = 0;
    uint64_t plo = 0, phi = 0;
    if (n == 0)
        return;
    if (a->n > DIFF_MAX_RULES || b->n > DIFF_MAX_RULES) {
        char line[160];
        snprintf(line, sizeof(line), "%s: %zu and %zu rules: too many for a cell diff",
                 acct_coll_name(coll), a->n, b->n);
        acct_put_str(out, ACCT_T_DIFF_LINE, line);
        (*lines)++;
        return;
    }
    cb = malloc((2 * n + 1) * sizeof(*cb));
    bb = malloc((2 * n + 1) * sizeof(*bb));
    cur = malloc((2 * n + 1) * sizeof(*cur));
    prev = malloc((2 * n + 1) * sizeof(*prev));
    if (cb == NULL || bb == NULL || cur == NULL || prev == NULL)
        goto out;
    size_t nc = 0;
    cb[nc++] = 1;
    const struct acct_rule_list *both[2] = {a, b};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < both[s]->n; i++) {
            cb[nc++] = (uint64_t)both[s]->v[i].comm_min;
            cb[nc++] = (uint64_t)both[s]->v[i].comm_max + 1;
        }
    nc = uniq(cb, nc);
    for (size_t k = 0; k < nc && cb[k] <= (uint64_t)INT_MAX; k++) {
        uint64_t clo = cb[k], chi = k + 1 < nc ? cb[k + 1] - 1 : (uint64_t)INT_MAX;
        if (chi > (uint64_t)INT_MAX)
            chi = INT_MAX;
        size_t nb = 0;
        bb[nb++] = 0;
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < both[s]->n; i++) {
                const struct acct_rule *r = &both[s]->v[i];
                if ((uint64_t)r->comm_min > chi || (uint64_t)r->comm_max < clo)
                    continue;
                bb[nb++] = r->bytes_min;
                if (r->bytes_max != UINT64_MAX)
                    bb[nb++] = r->bytes_max + 1;
            }
        nb = uniq(bb, nb);
        ncur = 0;
        for (size_t j = 0; j < nb;) {
            const struct acct_decision *x = decide(a, (int64_t)clo, bb[j], w);
            const struct acct_decision *y = decide(b, (int64_t)clo, bb[j], w);
            size_t e = j + 1;
            if (same_dec(x, y)) {
                j = e;
                continue;
            }
            while (e < nb && dec_eq(decide(a, (int64_t)clo, bb[e], w), x) &&
                   dec_eq(decide(b, (int64_t)clo, bb[e], w), y))
                e++;
            cur[ncur++] = (struct diff_ent){bb[j], e < nb ? bb[e] - 1 : UINT64_MAX, x, y};
            j = e;
        }
        if (nprev > 0 && phi + 1 == clo && ents_eq(prev, nprev, cur, ncur)) {
            phi = chi; /* same changes: extend the communicator range */
            continue;
        }
        emit(coll, where, plo, phi, prev, nprev, out, lines);
        memcpy(prev, cur, ncur * sizeof(*cur));
        nprev = ncur;
        plo = clo;
        phi = chi;
    }
    emit(coll, where, plo, phi, prev, nprev, out, lines);
out:
    free(cb);
    free(bb);
    free(cur);
    free(prev);
}

static bool any_bound(const struct acct_rule_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (acct_rule_layout_bound(&l->v[i]))
            return true;
    return false;
}

/* Where layout-bound rules of either side start or end, as starts of
 * ranks-per-node intervals (1 first), sorted and unique; NULL when out of
 * memory. */
static uint64_t *rpn_cuts(const struct acct_rule_list *a, const struct acct_rule_list *b,
                          size_t *n)
{
    uint64_t *v = malloc((2 * (a->n + b->n) + 1) * sizeof(*v));
    size_t k = 0;
    if (v == NULL)
        return NULL;
    v[k++] = 1;
    const struct acct_rule_list *both[2] = {a, b};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < both[s]->n; i++) {
            const struct acct_rule *r = &both[s]->v[i];
            if (r->rpn_min == 0)
                continue;
            v[k++] = (uint64_t)r->rpn_min;
            if (r->rpn_max < INT_MAX)
                v[k++] = (uint64_t)r->rpn_max + 1;
        }
    *n = uniq(v, k);
    return v;
}

/* One collective: as one plane when neither side depends on the layout;
 * otherwise once for an unknown layout and once per ranks-per-node interval
 * and layout kind, each line saying which. */
static void diff_layouts(enum acct_coll_id coll, const struct acct_rule_list *a,
                         const struct acct_rule_list *b, struct acct_wbuf *out, size_t *lines)
{
    size_t nc = 0;
    uint64_t *cuts;
    if (!any_bound(a) && !any_bound(b)) {
        diff_coll(coll, NULL, "", a, b, out, lines);
        return;
    }
    diff_coll(coll, NULL, " layout unknown", a, b, out, lines);
    if ((cuts = rpn_cuts(a, b, &nc)) == NULL)
        return;
    for (size_t i = 0; i < nc; i++)
        for (int regular = 1; regular >= 0; regular--) {
            struct acct_rules_where w = {(int)cuts[i], regular != 0};
            char where[96], hi[24];
            fmt_bound(i + 1 < nc ? cuts[i + 1] - 1 : (uint64_t)INT_MAX, true, hi, sizeof(hi));
            snprintf(where, sizeof(where), " ranks_per_node [%d, %s] %s", w.ranks_per_node, hi,
                     regular ? "regular" : "irregular");
            diff_coll(coll, &w, where, a, b, out, lines);
        }
    free(cuts);
}

static void diff_prov(const char *field, const char *a, const char *b, struct acct_wbuf *out,
                      size_t *lines)
{
    if (strcmp(a, b) == 0)
        return;
    char line[512];
    snprintf(line, sizeof(line), "provenance.%s: %s -> %s", field, a, b);
    acct_put_str(out, ACCT_T_DIFF_LINE, line);
    (*lines)++;
}

int req_diff(struct acctd *d, struct client *c, const struct acct_msg *m, struct acct_wbuf *out)
{
    struct store_version v1 = {0}, v2 = {0};
    struct acct_rules *r1 = NULL, *r2 = NULL;
    bool have1 = false, have2 = false;
    (void)c;
    if (get_version(d, m, ACCT_T_VERSION, &v1, out) != 0)
        goto out;
    have1 = true;
    if (get_version(d, m, ACCT_T_VERSION2, &v2, out) != 0)
        goto out;
    have2 = true;
    struct acct_diags dg = ACCT_DIAGS_INIT;
    if (acct_rules_parse_buffer("v1", v1.rules_text, strlen(v1.rules_text), &r1, &dg) != 0 ||
        acct_rules_parse_buffer("v2", v2.rules_text, strlen(v2.rules_text), &r2, &dg) != 0) {
        acct_diags_free(&dg);
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "a stored version does not parse");
        goto out;
    }
    acct_diags_free(&dg);
    acct_wbuf_start(out, ACCT_MSG_DIFF | ACCT_MSG_REPLY, m->h.id);
    acct_group_begin(out, ACCT_T_VERSION_INFO);
    req_put_version(out, &v1, true);
    acct_group_end(out);
    acct_group_begin(out, ACCT_T_VERSION_INFO);
    req_put_version(out, &v2, true);
    acct_group_end(out);
    size_t lines = 0;
    for (int k = 0; k < ACCT_COLL_COUNT; k++)
        diff_layouts((enum acct_coll_id)k, &r1->coll[k], &r2->coll[k], out, &lines);
    diff_prov("partition", v1.partition, v2.partition, out, &lines);
    diff_prov("interconnect", v1.interconnect, v2.interconnect, out, &lines);
    diff_prov("source", v1.source, v2.source, out, &lines);
    diff_prov("tuning_run", v1.tuning_run, v2.tuning_run, out, &lines);
    if (lines > DIFF_MAX_LINES) {
        char line[96];
        snprintf(line, sizeof(line), "%zu more differences not shown", lines - DIFF_MAX_LINES);
        acct_put_str(out, ACCT_T_DIFF_LINE, line);
    }
out:
    if (have1)
        store_version_free(&v1);
    if (have2)
        store_version_free(&v2);
    acct_rules_free(r1);
    acct_rules_free(r2);
    return 0;
}
