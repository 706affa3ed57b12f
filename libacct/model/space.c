/* The method space of a point and its ranking by the model
 * (acct/model_space.h, docs/models.md "The method space"). */
#include "acct/model_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/layout.h"

/* Fan-outs tried for fan-out algorithms (within their range, below p). */
static const int fanouts[] = { 1, 2, 4, 8 };

static void call_shape(enum acct_coll_id coll, int p, uint64_t m, struct acct_call *call)
{
    memset(call, 0, sizeof(*call));
    call->coll = coll;
    call->rank = 0;
    call->size = p;
    call->root = acct_coll_rooted(coll) ? 0 : -1;
    call->count = coll == ACCT_COLL_barrier ? 0 : m; /* one-byte elements */
    call->scount = call->count;
    call->commutative = true;                          /* MPI_SUM */
    /* node-aware methods: only their size restrictions are checked here;
     * the runtime checks the real layout of each call */
    call->layout = &acct_layout_any;
}

bool acct_model_applicable(enum acct_coll_id coll, const struct acct_decision *d, int p,
                           uint64_t m)
{
    struct acct_call call;

    call_shape(coll, p, m, &call);
    call.seg = d->segment_bytes;
    call.fanout = d->fanout;
    return acct_alg_applicable(d->alg, &call, NULL);
}

/* Room for one more element of size sz; 0 or -1. */
static int push(void **v, size_t sz, size_t n, size_t *cap)
{
    if (n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        void *nv = realloc(*v, c * sz);
        if (nv == NULL)
            return -1;
        *v = nv;
        *cap = c;
    }
    return 0;
}

int acct_model_methods(enum acct_coll_id coll, int p, bool nodes, struct acct_decision **out,
                       size_t *n)
{
    int rc = 0;
    size_t cap = 0;
    void *v = NULL;

    *out = NULL;
    *n = 0;
    for (const struct acct_alg *a = acct_algs; a->name != NULL && rc == 0; a++) {
        if (a->coll != coll)
            continue;
        /* the size restriction (power of two) only: the others depend on the call */
        if ((a->flags & ACCT_ALG_POW2) && (p & (p - 1)) != 0)
            continue;
        if ((a->flags & ACCT_ALG_NODES) && !nodes)
            continue;
        int nf = 0;
        int fo[ACCT_ARRAY_LEN(fanouts) + 1];
        if (a->flags & ACCT_ALG_FANOUT) {
            for (size_t i = 0; i < ACCT_ARRAY_LEN(fanouts); i++)
                if (fanouts[i] >= a->fanout_min && fanouts[i] <= a->fanout_max && fanouts[i] < p)
                    fo[nf++] = fanouts[i];
            if (nf == 0)
                fo[nf++] = a->fanout_default;
        } else {
            fo[nf++] = 0;
        }
        for (int i = 0; i < nf && rc == 0; i++) {
            rc = push(&v, sizeof(**out), *n, &cap);
            if (rc == 0) {
                struct acct_decision *d = &((struct acct_decision *)v)[(*n)++];
                memset(d, 0, sizeof(*d));
                d->alg = a;
                d->fanout = fo[i];
            }
        }
    }
    if (rc != 0) {
        free(v);
        v = NULL;
        *n = 0;
    }
    *out = v;
    return rc;
}

size_t acct_model_segments(uint64_t m, uint64_t min_segment, int max_segments, uint64_t *segs)
{
    size_t n = 0;
    uint64_t s = 1;

    segs[n++] = 0;
    while (s * 2 < m && s * 2 <= ACCT_RULES_MAX_SEGMENT)
        s *= 2; /* the largest power of two below m */
    for (; s >= min_segment && s >= 1 && s < m && n < (size_t)max_segments; s /= 2)
        segs[n++] = s;
    return n;
}

int acct_model_pred_cmp(double ta, size_t oa, double tb, size_t ob)
{
    bool na = isnan(ta), nb = isnan(tb);
    if (na != nb)
        return na ? 1 : -1;
    if (!na && ta != tb)
        return ta < tb ? -1 : 1;
    return (oa > ob) - (oa < ob);
}

struct ranked {
    struct acct_model_pred p;
    size_t order; /* generation order: registry, then descending segment */
};

static int cmp_ranked(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    return acct_model_pred_cmp(a->p.t_us, a->order, b->p.t_us, b->order);
}

/* Predict every candidate. Up to ACCT_MODEL_RANK_EXACT_P ranks each one
 * with acct_model_predict_how; beyond, the closed forms screen first
 * (simulations at thousands of ranks cost up to a second each): the
 * ACCT_MODEL_RANK_SIMULATE candidates with the lowest closed forms that
 * lie within ACCT_MODEL_RANK_SCREEN x the lowest, and every candidate
 * without a closed form, get the full prediction; the rest keep their
 * closed form (how: CLOSED_FORM). 0, or -1 out of memory. */
static int predict_all(struct ranked *v, size_t nr, enum acct_coll_id coll, int p, uint64_t m,
                       const struct acct_model *mdl)
{
    bool screen = p > ACCT_MODEL_RANK_EXACT_P;
    double *cf = NULL;
    size_t *idx = NULL, ncf = 0;

    if (screen) {
        cf = malloc((nr ? nr : 1) * sizeof(*cf));
        idx = malloc((nr ? nr : 1) * sizeof(*idx));
        if (cf == NULL || idx == NULL) {
            free(cf);
            free(idx);
            return -1;
        }
    }
    for (size_t i = 0; i < nr; i++) {
        struct acct_model_pred *x = &v[i].p;
        if (x->d.alg->build == NULL)
            continue; /* native: no model */
        if (!screen) {
            x->t_us = acct_model_predict_how(coll, &x->d, p, m, mdl, &x->how);
            continue;
        }
        cf[i] = acct_model_closed_form(coll, &x->d, p, m, mdl);
        if (isnan(cf[i]))
            x->t_us = acct_model_predict_how(coll, &x->d, p, m, mdl, &x->how);
        else
            idx[ncf++] = i;
    }
    if (screen) {
        /* insertion sort of the closed forms (a few hundred at most) */
        for (size_t a = 1; a < ncf; a++)
            for (size_t b = a; b > 0 && cf[idx[b]] < cf[idx[b - 1]]; b--) {
                size_t t = idx[b];
                idx[b] = idx[b - 1];
                idx[b - 1] = t;
            }
        for (size_t k = 0; k < ncf; k++) {
            struct acct_model_pred *x = &v[idx[k]].p;
            if (k < ACCT_MODEL_RANK_SIMULATE && cf[idx[k]] <= ACCT_MODEL_RANK_SCREEN * cf[idx[0]]) {
                x->t_us = acct_model_predict_how(coll, &x->d, p, m, mdl, &x->how);
            } else {
                x->t_us = cf[idx[k]];
                x->how = ACCT_MODEL_CLOSED_FORM;
            }
        }
    }
    free(cf);
    free(idx);
    return 0;
}

int acct_model_rank(enum acct_coll_id coll, int p, uint64_t m, bool nodes,
                    const struct acct_model *mdl, uint64_t min_segment, int max_segments,
                    struct acct_model_pred **out, size_t *n)
{
    int rc = -1;
    struct acct_decision *meth = NULL;
    size_t nmeth = 0, cap = 0, nr = 0;
    uint64_t *segs = NULL;
    void *v = NULL;

    *out = NULL;
    *n = 0;
    if (p < 1 || mdl == NULL || (unsigned)coll >= ACCT_COLL_COUNT)
        return -1;
    if (min_segment == 0)
        min_segment = ACCT_MODEL_MIN_SEGMENT;
    if (max_segments <= 0)
        max_segments = ACCT_MODEL_MAX_SEGMENTS;
    segs = malloc((size_t)max_segments * sizeof(*segs));
    if (segs == NULL || acct_model_methods(coll, p, nodes, &meth, &nmeth) != 0)
        goto out;
    size_t nsegs = acct_model_segments(m, min_segment, max_segments, segs);
    for (size_t i = 0; i < nmeth; i++) {
        bool segmented = (meth[i].alg->flags & ACCT_ALG_SEGMENTED) != 0;
        for (size_t s = 0; s < (segmented ? nsegs : 1); s++) {
            struct acct_decision d = meth[i];
            d.segment_bytes = segs[s];
            if (!acct_model_applicable(coll, &d, p, m))
                continue;
            if (push(&v, sizeof(struct ranked), nr, &cap) != 0)
                goto out;
            struct ranked *r = &((struct ranked *)v)[nr];
            r->p.d = d;
            r->p.t_us = NAN;
            r->p.how = ACCT_MODEL_NONE;
            r->order = nr++;
        }
    }
    if (predict_all((struct ranked *)v, nr, coll, p, m, mdl) != 0)
        goto out;
    if (nr > 0)
        qsort(v, nr, sizeof(struct ranked), cmp_ranked);
    struct acct_model_pred *res = nr > 0 ? malloc(nr * sizeof(*res)) : NULL;
    if (nr > 0 && res == NULL)
        goto out;
    for (size_t i = 0; i < nr; i++)
        res[i] = ((struct ranked *)v)[i].p;
    *out = res;
    *n = nr;
    rc = 0;
out:
    free(v);
    free(meth);
    free(segs);
    return rc;
}
