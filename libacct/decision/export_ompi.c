/* Open MPI 4.1.4 coll/tuned dynamic rules: the algorithm map, the message
 * size translation, the exporter and a strict validator of the numeric
 * format (acct/dmap.h, docs/decisions.md).
 *
 * The format, as ompi/mca/coll/tuned/coll_tuned_dynamic_file.c reads it:
 *
 *     NCOLL
 *     per collective:  ID  NCOMSIZES
 *       per size:      COMSIZE  NMSGRULES
 *         per rule:    MSGBYTES  ALG  FANINOUT  SEGSIZE
 *
 * Every number is read with fscanf("%li"): 010 is octal 8, 0x10 is 16,
 * "8K" is 8 (the K is skipped as junk), any character that is not part of
 * a number is skipped and '#' skips to the end of the line. Any problem
 * (a negative number, a missing one, a first message rule not at 0, an id
 * out of range) drops the whole file silently in a release build and the
 * fixed decision runs. Comm-size sections and message rules are lower
 * bounds: Open MPI takes the last section whose size is <= the
 * communicator's (the first one if all are larger) and in it the last rule
 * whose size is <= the call's message size. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/table.h"
#include "internal.h"

/* ---- algorithm map ---------------------------------------------------------
 * Each registry row states its Open MPI equivalent (acct/alg.h, the rows in
 * libacct/algs/<coll>/entries.h). */

const struct acct_alg_ompi *acct_ompi_map(const struct acct_alg *alg)
{
    static const struct acct_alg_ompi unknown = ACCT_ALG_OMPI_NONE;
    if (alg == NULL || (unsigned)alg->coll >= ACCT_COLL_COUNT || alg->ompi.name == NULL)
        return &unknown;
    return &alg->ompi;
}

enum acct_ompi_coll acct_ompi_coll_id(enum acct_coll_id coll)
{
    static const enum acct_ompi_coll ids[ACCT_COLL_COUNT] = {
        [ACCT_COLL_barrier] = ACCT_OMPI_BARRIER,
        [ACCT_COLL_bcast] = ACCT_OMPI_BCAST,
        [ACCT_COLL_reduce] = ACCT_OMPI_REDUCE,
        [ACCT_COLL_allreduce] = ACCT_OMPI_ALLREDUCE,
        [ACCT_COLL_gather] = ACCT_OMPI_GATHER,
        [ACCT_COLL_scatter] = ACCT_OMPI_SCATTER,
        [ACCT_COLL_allgather] = ACCT_OMPI_ALLGATHER,
        [ACCT_COLL_alltoall] = ACCT_OMPI_ALLTOALL,
        [ACCT_COLL_reduce_scatter_block] = ACCT_OMPI_REDUCESCATTERBLOCK,
        [ACCT_COLL_allgatherv] = ACCT_OMPI_ALLGATHERV,
        [ACCT_COLL_reduce_scatter] = ACCT_OMPI_REDUCESCATTER,
        [ACCT_COLL_gatherv] = ACCT_OMPI_GATHERV,
        [ACCT_COLL_scatterv] = ACCT_OMPI_SCATTERV,
        [ACCT_COLL_alltoallv] = ACCT_OMPI_ALLTOALLV,
        [ACCT_COLL_scan] = ACCT_OMPI_SCAN,
        [ACCT_COLL_exscan] = ACCT_OMPI_EXSCAN,
    };
    return (unsigned)coll < ACCT_COLL_COUNT ? ids[coll] : ACCT_OMPI_COLLCOUNT;
}

/* Largest valid coll_tuned_<coll>_algorithm per Open MPI id (0: tuned has
 * no dynamic choice there). */
static int ompi_alg_max(int id)
{
    static const int max[ACCT_OMPI_COLLCOUNT] = {
        [ACCT_OMPI_ALLGATHER] = 6, [ACCT_OMPI_ALLGATHERV] = 5, [ACCT_OMPI_ALLREDUCE] = 6,
        [ACCT_OMPI_ALLTOALL] = 5,  [ACCT_OMPI_ALLTOALLV] = 2,  [ACCT_OMPI_ALLTOALLW] = 0,
        [ACCT_OMPI_BARRIER] = 6,   [ACCT_OMPI_BCAST] = 9,      [ACCT_OMPI_EXSCAN] = 2,
        [ACCT_OMPI_GATHER] = 3,    [ACCT_OMPI_GATHERV] = 0,    [ACCT_OMPI_REDUCE] = 7,
        [ACCT_OMPI_REDUCESCATTER] = 4, [ACCT_OMPI_REDUCESCATTERBLOCK] = 4,
        [ACCT_OMPI_SCAN] = 2,      [ACCT_OMPI_SCATTER] = 3,    [ACCT_OMPI_SCATTERV] = 0,
    };
    return id >= 0 && id < ACCT_OMPI_COLLCOUNT ? max[id] : -1;
}

static const char *ompi_coll_name(int id)
{
    static const char *const names[ACCT_OMPI_COLLCOUNT] = {
        "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw",
        "barrier", "bcast", "exscan", "gather", "gatherv", "reduce", "reduce_scatter",
        "reduce_scatter_block", "scan", "scatter", "scatterv",
    };
    return id >= 0 && id < ACCT_OMPI_COLLCOUNT ? names[id] : "?";
}

/* ---- message sizes ----------------------------------------------------------
 * Open MPI 4.1.4's coll_tuned_decision_dynamic.c computes the size it looks
 * up as: bcast, reduce, allreduce: type size x count (ACCT's m); allgather,
 * alltoall: send type size x send count x comm size; reduce_scatter_block:
 * type size x recvcount x comm size; gather and scatter: send type size x
 * send count x comm size; barrier: 0. bcast, allreduce, alltoall, gather
 * and scatter are confirmed by tests/mpi/ompi_export. allgatherv: the send
 * type's size x the sum of the receive counts; reduce_scatter: type size
 * x the sum of the counts -- both P x ACCT's m (the average block) for
 * the uniform calls ACCT's rules are tuned at.
 *
 * scan and exscan: type size x comm size, WITHOUT the count (4.1.4's
 * ompi_coll_tuned_{scan,exscan}_intra_dec_dynamic; the same in Open MPI
 * 5), so Open MPI cannot tell a call's size. Exported as m x P: Open MPI's
 * key for a datatype of s bytes is then the key of ACCT's m = s, and every
 * call of that datatype gets the decision ACCT makes for ONE element of it
 * (exact for count 1, the usual prefix-sum-of-one-counter; the exporter
 * says so). tests/mpi/ompi_export confirms both the key and the count
 * being ignored. */

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

uint64_t acct_ompi_msg_bytes(enum acct_coll_id coll, int comm_size, uint64_t m)
{
    uint64_t p = comm_size > 0 ? (uint64_t)comm_size : 1;
    switch (coll) {
    case ACCT_COLL_barrier:
        return 0;
    case ACCT_COLL_bcast:
    case ACCT_COLL_reduce:
    case ACCT_COLL_allreduce:
        return m;
    case ACCT_COLL_scan:
    case ACCT_COLL_exscan:
    case ACCT_COLL_gather:
    case ACCT_COLL_scatter:
    case ACCT_COLL_allgather:
    case ACCT_COLL_alltoall:
    case ACCT_COLL_reduce_scatter_block:
    case ACCT_COLL_allgatherv:
    case ACCT_COLL_reduce_scatter:
        return mul_sat(m, p);
    default:
        return m;
    }
}

/* ---- exporter ---------------------------------------------------------------- */

#define OMPI_LONG_MAX ((uint64_t)LONG_MAX)

struct orule {
    uint64_t msg;
    int alg, fan, seg;
};

struct section {
    int comm;
    size_t n;
    struct orule *v;
};

/* Open MPI's rules of collective coll for communicators of size p. */
static int section_rules(const struct acct_rules *r, enum acct_coll_id coll, int p,
                         const struct acct_rules_where *w, struct orule **out, size_t *nout,
                         bool *noted, struct acct_diags *notes)
{
    struct acct_table *t = NULL;
    int rc = acct_rules_resolve_at(r, coll, p, w, &t);
    if (rc != ACCT_RULES_OK)
        return rc;
    struct orule *v = malloc(t->n * sizeof(*v));
    size_t n = 0;
    if (v == NULL) {
        acct_table_free(t);
        return ACCT_RULES_ENOMEM;
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct acct_decision *d = &t->dec[i];
        uint64_t m0 = i == 0 ? 0 : t->max[i - 1] + 1;
        uint64_t msg = acct_ompi_msg_bytes(coll, p, m0);
        if (msg > OMPI_LONG_MAX)
            break; /* Open MPI cannot read larger sizes; the last rule extends */
        const struct acct_alg_ompi *mp = acct_ompi_map(d->alg);
        struct orule o = { .msg = msg, .alg = mp->id };
        if (o.alg != 0) {
            o.seg = (int)d->segment_bytes;
            if (d->alg->flags & ACCT_ALG_FANOUT)
                o.fan = d->fanout != 0 ? d->fanout : d->alg->fanout_default;
        }
        int idx = acct_alg_index(d->alg);
        if (notes != NULL && idx >= 0 && !noted[idx] &&
            (!mp->exact || (d->reorder && o.alg != 0))) {
            noted[idx] = true;
            if (!mp->exact)
                acct_diags_add(notes, 0, 0, acct_coll_name(coll),
                               "%s %s has no exact Open MPI equivalent: exported as %d (%s)",
                               acct_coll_name(coll), d->alg->name, mp->id, mp->name);
            else
                acct_diags_add(notes, 0, 0, acct_coll_name(coll),
                               "%s %s: SACK reordering has no Open MPI equivalent: dropped",
                               acct_coll_name(coll), d->alg->name);
        }
        if (n > 0 && v[n - 1].alg == o.alg && v[n - 1].fan == o.fan && v[n - 1].seg == o.seg)
            continue; /* same Open MPI decision: the previous rule extends */
        if (n > 0 && v[n - 1].msg == o.msg)
            v[n - 1] = o; /* sizes collapse (cannot happen for m * p with p >= 1) */
        else
            v[n++] = o;
    }
    acct_table_free(t);
    *out = v;
    *nout = n;
    return ACCT_RULES_OK;
}

static bool same_rules(const struct orule *a, size_t na, const struct orule *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (a[i].msg != b[i].msg || a[i].alg != b[i].alg || a[i].fan != b[i].fan ||
            a[i].seg != b[i].seg)
            return false;
    return true;
}

static int default_max_comm(const struct acct_rules *r)
{
    int mx = 1;
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        for (size_t i = 0; i < r->coll[c].n; i++) {
            const struct acct_rule *x = &r->coll[c].v[i];
            int b = x->comm_max != INT_MAX ? x->comm_max : x->comm_min;
            if (b > mx)
                mx = b;
        }
    return mx < INT_MAX ? mx + 1 : mx;
}

static void free_sections(struct section *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i].v);
    free(s);
}

int acct_export_ompi(FILE *f, const struct acct_rules *r, const struct acct_ompi_export_opts *o,
                     struct acct_diags *notes)
{
    int rc = ACCT_RULES_OK;
    struct section *sec[ACCT_COLL_COUNT] = { 0 };
    size_t nsec[ACCT_COLL_COUNT] = { 0 };
    bool *noted = calloc((size_t)acct_alg_count() + 1, sizeof(*noted));
    int maxp = o != NULL && o->max_comm_size > 0 ? o->max_comm_size : default_max_comm(r);
    int ncoll = 0;
    const struct acct_rules_where *w =
        o != NULL && o->where.ranks_per_node > 0 ? &o->where : NULL;
    char at[96];
    if (noted == NULL)
        return ACCT_RULES_ENOMEM;
    if (w != NULL)
        snprintf(at, sizeof(at), "%d ranks per node, %s layout", w->ranks_per_node,
                 w->regular ? "regular" : "irregular");
    else
        snprintf(at, sizeof(at), "an unknown layout");
    if (acct_rules_version(r) >= ACCT_RULES_VERSION_LAYOUT) {
        size_t bound = 0;
        for (int c = 0; c < ACCT_COLL_COUNT; c++)
            for (size_t i = 0; i < r->coll[c].n; i++)
                bound += acct_rule_layout_bound(&r->coll[c].v[i]);
        acct_diags_add(notes, 0, 0, "layout",
                       "%zu rule%s depend%s on the ranks per node, which Open MPI's rules "
                       "cannot express: exported for %s%s",
                       bound, bound == 1 ? "" : "s", bound == 1 ? "s" : "", at,
                       w == NULL ? " (those rules left out)" : "");
    }
    if (maxp > ACCT_OMPI_MAX_COMM_SECTIONS) {
        acct_diags_add(notes, 0, 0, "max_comm_size", "%d is too large: at most %d", maxp,
                       ACCT_OMPI_MAX_COMM_SECTIONS);
        rc = ACCT_RULES_EINVAL;
        goto done;
    }
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        if (r->coll[c].n == 0)
            continue;
        if (c == ACCT_COLL_scan || c == ACCT_COLL_exscan)
            acct_diags_add(notes, 0, 0, acct_coll_name((enum acct_coll_id)c),
                           "Open MPI 4.1.4 looks %s up by type size x communicator size, "
                           "without the count: every call gets the decision ACCT makes for "
                           "one element of its datatype",
                           acct_coll_name((enum acct_coll_id)c));
        size_t cap = 0;
        for (int p = 1; p <= maxp; p++) {
            struct orule *v = NULL;
            size_t n = 0;
            rc = section_rules(r, (enum acct_coll_id)c, p, w, &v, &n, noted, notes);
            if (rc != ACCT_RULES_OK)
                goto done;
            if (nsec[c] > 0 && same_rules(sec[c][nsec[c] - 1].v, sec[c][nsec[c] - 1].n, v, n)) {
                free(v);
                continue;
            }
            if (nsec[c] == cap) {
                cap = cap ? 2 * cap : 8;
                struct section *ns = realloc(sec[c], cap * sizeof(*ns));
                if (ns == NULL) {
                    free(v);
                    rc = ACCT_RULES_ENOMEM;
                    goto done;
                }
                sec[c] = ns;
            }
            sec[c][nsec[c]++] = (struct section){ .comm = p, .n = n, .v = v };
        }
        ncoll++;
    }
    const struct acct_provenance *pv = &r->prov;
    fprintf(f, "# Open MPI coll/tuned dynamic rules (numeric format of Open MPI 4.1),\n"
               "# exported by ACCT from the decisions of partition %s, interconnect %s,\n"
               "# version %lld, source %s, created %s%s%s.\n"
               "# Use: --mca coll_tuned_use_dynamic_rules 1 --mca "
               "coll_tuned_dynamic_rules_filename FILE\n"
               "# Sections hold communicator sizes from 1 to %d; larger communicators use the "
               "last one.\n",
            pv->partition, pv->interconnect, (long long)pv->version,
            acct_rules_source_name(pv->source), pv->created, pv->tuning_run[0] ? ", run " : "",
            pv->tuning_run, maxp);
    if (acct_rules_version(r) >= ACCT_RULES_VERSION_LAYOUT)
        fprintf(f, "# Decisions for %s (the ACCT rules depend on the layout).\n", at);
    fprintf(f, "%d\n", ncoll);
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        if (r->coll[c].n == 0)
            continue;
        int id = acct_ompi_coll_id((enum acct_coll_id)c);
        fprintf(f, "# %s\n%s%d\n%zu\n", acct_coll_name((enum acct_coll_id)c),
                c == ACCT_COLL_scan || c == ACCT_COLL_exscan
                    ? "# (Open MPI looks it up by type size x communicator size, without the "
                      "count: ACCT's decision for one element)\n"
                    : "",
                id, nsec[c]);
        for (size_t s = 0; s < nsec[c]; s++) {
            fprintf(f, "%d %zu\n", sec[c][s].comm, sec[c][s].n);
            for (size_t k = 0; k < sec[c][s].n; k++) {
                const struct orule *x = &sec[c][s].v[k];
                fprintf(f, "%llu %d %d %d\n", (unsigned long long)x->msg, x->alg, x->fan,
                        x->seg);
            }
        }
    }
    if (fflush(f) != 0 || ferror(f))
        rc = ACCT_RULES_EIO;
done:
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        free_sections(sec[c], nsec[c]);
    free(noted);
    return rc;
}

/* ---- validator ----------------------------------------------------------------- */

struct tok {
    uint64_t v;
    int line, col, len;
};

struct vctx {
    struct acct_diags *d;
    const struct tok *t;
    size_t n, i;
    bool bad;
};

#define OMPI_FILE_MAX (16u * 1024 * 1024)

/* The value of the token s (L bytes) at line:col, or -1 with a message
 * when Open MPI would read it differently from what it looks like. */
static int token_value(const char *s, size_t L, int line, int col, struct acct_diags *d,
                       uint64_t *out)
{
    bool digits = true;
    for (size_t k = 0; k < L; k++)
        if (!isdigit((unsigned char)s[k]))
            digits = false;
    char shown[40];
    snprintf(shown, sizeof(shown), "%.*s%s", (int)(L > 24 ? 24 : L), s, L > 24 ? "..." : "");
    for (size_t k = 0; k < strlen(shown); k++)
        if (!isprint((unsigned char)shown[k]))
            shown[k] = '?';
    if (!digits) {
        if (s[0] == '-')
            acct_diags_add(d, line, col, "", "\"%s\": negative numbers make Open MPI "
                           "drop the whole file", shown);
        else if (L > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            acct_diags_add(d, line, col, "", "\"%s\": Open MPI reads hexadecimal here; "
                           "write plain decimal", shown);
        else if (isdigit((unsigned char)s[0]))
            acct_diags_add(d, line, col, "", "\"%s\": not a plain decimal number (Open MPI "
                           "reads the leading digits and silently skips the rest; no "
                           "units)", shown);
        else
            acct_diags_add(d, line, col, "", "\"%s\": not a number (Open MPI skips it "
                           "silently, character by character)", shown);
        return -1;
    }
    if (L > 1 && s[0] == '0') {
        acct_diags_add(d, line, col, "", "\"%s\": leading zero: Open MPI reads it as "
                       "an octal number", shown);
        return -1;
    }
    uint64_t v = 0;
    for (size_t k = 0; k < L; k++) {
        unsigned dg = (unsigned)(s[k] - '0');
        if (v > (OMPI_LONG_MAX - dg) / 10) {
            acct_diags_add(d, line, col, "", "\"%s\": larger than %ld, the largest number "
                           "Open MPI reads", shown, LONG_MAX);
            return -1;
        }
        v = v * 10 + dg;
    }
    *out = v;
    return 0;
}

/* Split into numbers the way Open MPI would read them, refusing everything
 * Open MPI reads differently from what it looks like. */
static int tokenize(const char *buf, size_t len, struct tok **out, size_t *nout,
                    struct acct_diags *d)
{
    size_t cap = 64, n = 0;
    struct tok *t = malloc(cap * sizeof(*t));
    int line = 1, col = 1, bad = 0;
    if (t == NULL)
        return ACCT_RULES_ENOMEM;
    for (size_t i = 0; i < len;) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch == '\n') {
            line++;
            col = 1;
            i++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            i++;
            col++;
            continue;
        }
        if (ch == '#') {
            while (i < len && buf[i] != '\n')
                i++;
            continue;
        }
        size_t j = i;
        while (j < len && buf[j] != ' ' && buf[j] != '\t' && buf[j] != '\r' && buf[j] != '\n' &&
               buf[j] != '#')
            j++;
        const char *s = buf + i;
        size_t L = j - i;
        int tcol = col;
        col += (int)L;
        i = j;
        uint64_t v = 0;
        if (token_value(s, L, line, tcol, d, &v) != 0) {
            bad = 1;
            continue;
        }
        if (n == cap) {
            cap *= 2;
            struct tok *nt = realloc(t, cap * sizeof(*nt));
            if (nt == NULL) {
                free(t);
                return ACCT_RULES_ENOMEM;
            }
            t = nt;
        }
        t[n++] = (struct tok){ .v = v, .line = line, .col = tcol, .len = (int)L };
    }
    *out = t;
    *nout = n;
    return bad ? ACCT_RULES_EINVAL : ACCT_RULES_OK;
}

/* The next number, or false (with a message) at the end of the file. */
static bool next(struct vctx *c, const char *field, uint64_t max, uint64_t *v, int *line)
{
    if (c->i >= c->n) {
        int l = c->n ? c->t[c->n - 1].line : 0;
        int col = c->n ? c->t[c->n - 1].col + c->t[c->n - 1].len : 0;
        acct_diags_add(c->d, l, col, field, "the file ends here, but %s is still expected "
                       "(Open MPI drops the whole file)", field);
        c->bad = true;
        return false;
    }
    const struct tok *t = &c->t[c->i++];
    *line = t->line;
    *v = t->v;
    if (t->v > max) {
        acct_diags_add(c->d, t->line, t->col, field, "%llu is too large: at most %llu",
                       (unsigned long long)t->v, (unsigned long long)max);
        c->bad = true;
    }
    return true;
}

void acct_ompi_rules_free(struct acct_ompi_rules *r)
{
    if (r == NULL)
        return;
    for (size_t a = 0; a < r->n; a++) {
        for (size_t s = 0; s < r->v[a].n; s++)
            free(r->v[a].v[s].v);
        free(r->v[a].v);
    }
    free(r->v);
    free(r);
}

/* One message-size rule k of section s: msg_bytes alg faninout segsize. */
static int parse_msg_rule(struct vctx *c, const struct acct_ompi_alg_rule *ar,
                          struct acct_ompi_com_rule *cr, size_t s, size_t k, int amax)
{
    char field[96], base[80];
    uint64_t v;
    int line;
    struct acct_ompi_msg_rule *mr = &cr->v[cr->n++];

    snprintf(base, sizeof(base), "%s.section[%zu].rule[%zu]", ompi_coll_name(ar->coll_id), s, k);
    snprintf(field, sizeof(field), "%s.msg_bytes", base);
    if (!next(c, field, OMPI_LONG_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    mr->msg_bytes = v;
    mr->line = line;
    int col = c->t[c->i - 1].col;
    if (k == 0 && v != 0) {
        acct_diags_add(c->d, line, col, field, "the first rule must start at 0 "
                       "bytes (Open MPI drops the whole file)");
        c->bad = true;
    } else if (k > 0 && v <= cr->v[k - 1].msg_bytes) {
        acct_diags_add(c->d, line, col, field, "%llu is not above the previous "
                       "rule's %llu", (unsigned long long)v,
                       (unsigned long long)cr->v[k - 1].msg_bytes);
        c->bad = true;
    }
    snprintf(field, sizeof(field), "%s.alg", base);
    if (!next(c, field, INT_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    mr->alg = (int)v;
    if (amax >= 0 && mr->alg > amax) {
        acct_diags_add(c->d, line, c->t[c->i - 1].col, field, "algorithm %d does "
                       "not exist for %s in Open MPI 4.1 (0 to %d): the call would "
                       "fail", mr->alg, ompi_coll_name(ar->coll_id), amax);
        c->bad = true;
    }
    snprintf(field, sizeof(field), "%s.faninout", base);
    if (!next(c, field, INT_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    mr->faninout = (int)v;
    bool chain = (ar->coll_id == ACCT_OMPI_BCAST || ar->coll_id == ACCT_OMPI_REDUCE) &&
                 mr->alg == 2;
    bool knomial = ar->coll_id == ACCT_OMPI_BCAST && mr->alg == 7;
    if ((chain && (mr->faninout < 1 || mr->faninout > 32)) || (knomial && mr->faninout < 2)) {
        acct_diags_add(c->d, line, c->t[c->i - 1].col, field, "fan-out %d is not "
                       "valid for %s algorithm %d (%s)", mr->faninout,
                       ompi_coll_name(ar->coll_id), mr->alg,
                       chain ? "chain: 1 to 32" : "knomial radix: at least 2");
        c->bad = true;
    }
    snprintf(field, sizeof(field), "%s.segsize", base);
    if (!next(c, field, INT_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    mr->segsize = (int)v;
    return ACCT_RULES_OK;
}

/* Section s of a collective: comm_size, the number of rules, the rules. */
static int parse_section(struct vctx *c, struct acct_ompi_alg_rule *ar, size_t s, int amax)
{
    char field[96];
    uint64_t v;
    int line, rc = ACCT_RULES_OK;
    struct acct_ompi_com_rule *cr = &ar->v[ar->n++];

    snprintf(field, sizeof(field), "%s.section[%zu].comm_size", ompi_coll_name(ar->coll_id), s);
    if (!next(c, field, INT_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    cr->comm_size = (int)v;
    cr->line = line;
    if (s > 0 && cr->comm_size <= ar->v[s - 1].comm_size) {
        acct_diags_add(c->d, line, c->t[c->i - 1].col, field, "%d is not above the "
                       "previous section's %d: Open MPI's lookup needs ascending "
                       "sizes", cr->comm_size, ar->v[s - 1].comm_size);
        c->bad = true;
    }
    snprintf(field, sizeof(field), "%s.section[%zu].rules", ompi_coll_name(ar->coll_id), s);
    if (!next(c, field, INT_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    size_t nr = (size_t)v;
    if (nr > (c->n - c->i) / 4 + 1) {
        acct_diags_add(c->d, line, c->t[c->i - 1].col, field, "%zu rules announced, "
                       "but the file is too short for them", nr);
        c->bad = true;
        return ACCT_RULES_EINVAL;
    }
    cr->v = calloc(nr ? nr : 1, sizeof(*cr->v));
    if (cr->v == NULL)
        return ACCT_RULES_ENOMEM;
    for (size_t k = 0; k < nr && rc == ACCT_RULES_OK; k++)
        rc = parse_msg_rule(c, ar, cr, s, k, amax);
    return rc;
}

/* Collective a: its id, the number of sections, the sections. */
static int parse_collective(struct vctx *c, struct acct_ompi_rules *r, size_t a, bool *seen)
{
    char field[96];
    uint64_t v;
    int line, rc = ACCT_RULES_OK;
    struct acct_ompi_alg_rule *ar = &r->v[r->n++];

    snprintf(field, sizeof(field), "collective[%zu].id", a);
    if (!next(c, field, INT_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    ar->coll_id = (int)v;
    ar->line = line;
    int amax = ompi_alg_max(ar->coll_id);
    if (v >= ACCT_OMPI_COLLCOUNT) {
        acct_diags_add(c->d, line, c->t[c->i - 1].col, field, "%llu is not an Open MPI "
                       "collective id (0 to %d)", (unsigned long long)v,
                       ACCT_OMPI_COLLCOUNT - 1);
        c->bad = true;
    } else if (seen[v]) {
        acct_diags_add(c->d, line, c->t[c->i - 1].col, field, "collective %s (id %llu) "
                       "appears twice", ompi_coll_name((int)v), (unsigned long long)v);
        c->bad = true;
    } else {
        seen[v] = true;
    }
    snprintf(field, sizeof(field), "%s.sections", ompi_coll_name(ar->coll_id));
    if (!next(c, field, INT_MAX, &v, &line))
        return ACCT_RULES_EINVAL;
    size_t nsec = (size_t)v;
    if (nsec > (c->n - c->i) / 2 + 1) { /* each section needs >= 2 more numbers */
        acct_diags_add(c->d, line, c->t[c->i - 1].col, field, "%zu sections announced, "
                       "but the file is too short for them", nsec);
        c->bad = true;
        return ACCT_RULES_EINVAL;
    }
    ar->v = calloc(nsec ? nsec : 1, sizeof(*ar->v));
    if (ar->v == NULL)
        return ACCT_RULES_ENOMEM;
    for (size_t s = 0; s < nsec && rc == ACCT_RULES_OK; s++)
        rc = parse_section(c, ar, s, amax);
    return rc;
}

static int parse_tokens(struct vctx *c, struct acct_ompi_rules *r)
{
    uint64_t v;
    int line, rc = ACCT_RULES_OK;
    bool seen[ACCT_OMPI_COLLCOUNT] = { false };

    if (!next(c, "number of collectives", ACCT_OMPI_COLLCOUNT, &v, &line))
        return ACCT_RULES_EINVAL;
    size_t ncoll = (size_t)v;
    r->v = calloc(ncoll ? ncoll : 1, sizeof(*r->v));
    if (r->v == NULL)
        return ACCT_RULES_ENOMEM;
    for (size_t a = 0; a < ncoll && rc == ACCT_RULES_OK; a++)
        rc = parse_collective(c, r, a, seen);
    if (rc != ACCT_RULES_OK)
        return rc;
    if (c->i < c->n) {
        const struct tok *t = &c->t[c->i];
        acct_diags_add(c->d, t->line, t->col, "", "%zu numbers after the last rule: Open MPI "
                       "ignores them (is a count above too small?)", c->n - c->i);
        c->bad = true;
    }
    return c->bad ? ACCT_RULES_EINVAL : ACCT_RULES_OK;
}

int acct_ompi_parse_buffer(const char *name, const char *buf, size_t len,
                           struct acct_ompi_rules **out, struct acct_diags *diags)
{
    int rc;
    struct tok *t = NULL;
    size_t n = 0;
    struct acct_ompi_rules *r = NULL;
    *out = NULL;
    acct_diags_reset(diags, name);
    if (len > OMPI_FILE_MAX) {
        acct_diags_add(diags, 0, 0, "", "larger than %u bytes", OMPI_FILE_MAX);
        rc = ACCT_RULES_EINVAL;
        goto done;
    }
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0') {
            acct_diags_add(diags, 0, 0, "", "binary data (a NUL byte at offset %zu)", i);
            rc = ACCT_RULES_EINVAL;
            goto done;
        }
    rc = tokenize(buf, len, &t, &n, diags);
    if (rc != ACCT_RULES_OK)
        goto done;
    r = calloc(1, sizeof(*r));
    if (r == NULL) {
        rc = ACCT_RULES_ENOMEM;
        goto done;
    }
    struct vctx c = { .d = diags, .t = t, .n = n };
    rc = parse_tokens(&c, r);
    if (rc != ACCT_RULES_OK)
        goto done;
    *out = r;
    r = NULL;
done:
    if (rc == ACCT_RULES_EINVAL && diags != NULL && diags->total == 0)
        acct_diags_add(diags, 0, 0, "", "invalid");
    acct_ompi_rules_free(r);
    free(t);
    return rc;
}

const struct acct_ompi_msg_rule *acct_ompi_lookup(const struct acct_ompi_rules *r, int coll_id,
                                                  int comm_size, uint64_t msg)
{
    const struct acct_ompi_alg_rule *ar = NULL;
    for (size_t a = 0; a < r->n && ar == NULL; a++)
        if (r->v[a].coll_id == coll_id)
            ar = &r->v[a];
    if (ar == NULL || ar->n == 0)
        return NULL;
    /* The first section, or the last one whose size is <= comm_size. */
    const struct acct_ompi_com_rule *cr = &ar->v[0];
    for (size_t s = 1; s < ar->n && ar->v[s].comm_size <= comm_size; s++)
        cr = &ar->v[s];
    if (cr->n == 0)
        return NULL;
    const struct acct_ompi_msg_rule *mr = &cr->v[0];
    for (size_t k = 1; k < cr->n && cr->v[k].msg_bytes <= msg; k++)
        mr = &cr->v[k];
    return mr;
}
