/* The combination's decisions per cell (plane.h): the callbacks of
 * tune_plane_search (combo.c) over a caller's cells. No MPI. */
#include "plane.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"

#define PLANE_MAX_METHODS 256

struct walk {
    const struct tune_plane_src *src;
    const struct tune_plane_opts *o;
    struct tune_plane_cell *cells;
    size_t maxcols;
    /* the open cell */
    struct tune_plane_point pt;
    size_t nsegm[PLANE_MAX_METHODS];
    double mbest[PLANE_MAX_METHODS]; /* per method: the best cost measured there */
    bool stopped;                    /* the oracle said TUNE_STOP */
};

static struct tune_plane_cell *cell(struct walk *w, size_t row, size_t col)
{
    return &w->cells[row * w->maxcols + col];
}

/* ---- the open cell's oracle, wrapped to see every cost ----------------------- */

static int w_measure(void *ctx, size_t method, size_t seg, double *cost)
{
    struct walk *w = ctx;
    int rc = w->pt.oracle.measure(w->pt.oracle.ctx, method, seg, cost);

    if (rc == TUNE_OK && method < w->pt.nm && *cost < w->mbest[method])
        w->mbest[method] = *cost;
    w->stopped |= rc == TUNE_STOP;
    return rc;
}

static int w_model(void *ctx, size_t method, size_t seg, double *cost)
{
    struct walk *w = ctx;
    return w->pt.oracle.model(w->pt.oracle.ctx, method, seg, cost);
}

static int w_spread(void *ctx, size_t method, size_t seg, double *rel)
{
    struct walk *w = ctx;
    return w->pt.oracle.spread(w->pt.oracle.ctx, method, seg, rel);
}

static int w_ready(void *ctx, int ok)
{
    struct walk *w = ctx;
    return w->pt.oracle.ready(w->pt.oracle.ctx, ok);
}

static struct tune_oracle wrapped(struct walk *w)
{
    return (struct tune_oracle){ .ctx = w, .measure = w_measure,
                                 .model = w->pt.oracle.model != NULL ? w_model : NULL,
                                 .ready = w->pt.oracle.ready != NULL ? w_ready : NULL,
                                 .spread = w->pt.oracle.spread != NULL ? w_spread : NULL };
}

static int open_cell(struct walk *w, size_t row, size_t col)
{
    memset(&w->pt, 0, sizeof(w->pt));
    int rc = w->src->open(w->src->ctx, row, col, &w->pt);
    if (rc != TUNE_OK)
        return rc;
    if (w->pt.nm > PLANE_MAX_METHODS || w->pt.nsegs == 0 || w->pt.oracle.measure == NULL) {
        if (w->src->close != NULL)
            w->src->close(w->src->ctx, row, col);
        return TUNE_EINVAL;
    }
    for (size_t i = 0; i < w->pt.nm; i++) {
        w->nsegm[i] = (w->pt.methods[i].d.alg->flags & ACCT_ALG_SEGMENTED) ? w->pt.nsegs : 1;
        w->mbest[i] = INFINITY;
    }
    w->stopped = false;
    return TUNE_OK;
}

static void close_cell(struct walk *w, size_t row, size_t col)
{
    if (w->src->close != NULL)
        w->src->close(w->src->ctx, row, col);
}

/* ---- helpers over the open cell ---------------------------------------------- */

/* The segment index whose bytes are nearest (in log) to want. */
static size_t seg_index(const struct walk *w, uint64_t m, uint64_t want)
{
    size_t best = 0;
    double bd = INFINITY;

    if (want == 0 || want >= m)
        return 0;
    for (size_t g = 1; g < w->pt.nsegs; g++) {
        double dd = fabs(log2((double)w->pt.segs[g]) - log2((double)want));
        if (dd < bd) {
            bd = dd;
            best = g;
        }
    }
    return best;
}

/* The index of the method with d's algorithm and fan-out among v[0..n-1], or n. */
static size_t method_index(const struct tune_method *v, size_t n, const struct acct_decision *d)
{
    size_t i = 0;
    while (i < n && !(v[i].d.alg == d->alg && v[i].d.fanout == d->fanout))
        i++;
    return i;
}

/* Where (row, col) lies between a and b (0..1), along their row or column. */
static double frac(size_t row, size_t col, const struct tune_cell_ref *a,
                   const struct tune_cell_ref *b)
{
    return a->row == b->row ? (double)(col - a->col) / (double)(b->col - a->col)
                            : (double)(row - a->row) / (double)(b->row - a->row);
}

/* a's and b's costs log-interpolated at t. */
static double expected(const struct tune_plane_cell *va, const struct tune_plane_cell *vb,
                       double t)
{
    return exp2(log2(va->cost) + t * (log2(vb->cost) - log2(va->cost)));
}

/* ---- the callbacks of tune_plane_search -------------------------------------- */

static int pl_full(void *ctx, size_t row, size_t col, const struct tune_cell_ref *hint,
                   bool *decided)
{
    struct walk *w = ctx;
    struct tune_plane_cell *v = cell(w, row, col);
    struct tune_result r;
    bool en[PLANE_MAX_METHODS];
    int rc = open_cell(w, row, col);

    *decided = false;
    if (rc != TUNE_OK)
        return rc;
    struct tune_space sp = { .nmethods = w->pt.nm, .nsegs = w->nsegm };
    struct tune_oracle orc = wrapped(w);
    if (hint != NULL) {
        const struct tune_plane_cell *h = cell(w, hint->row, hint->col);
        size_t mi = method_index(w->pt.methods, w->pt.nm, &h->d);
        if (mi < w->pt.nm) {
            sp.has_start = true;
            sp.start_method = mi;
            sp.start_seg = w->nsegm[mi] > 1 ? seg_index(w, w->src->m[col], h->d.segment_bytes)
                                            : 0;
        }
        /* continuation: only the methods that were close at the hint, and
         * those that did not exist there */
        if (w->o->keep >= 0 && h->nkept > 0) {
            struct tune_method *hm = NULL;
            size_t hn = 0;
            bool hnodes = w->src->nodes != NULL && w->src->nodes[hint->row];
            if (tune_methods(w->src->coll, w->src->p[hint->row], hnodes, &hm, &hn) != 0) {
                rc = TUNE_ENOMEM;
                goto out;
            }
            for (size_t i = 0; i < w->pt.nm; i++) {
                en[i] = method_index(hm, hn, &w->pt.methods[i].d) == hn;
                for (size_t k = 0; k < h->nkept && !en[i]; k++)
                    en[i] = h->kept[k].alg == w->pt.methods[i].d.alg &&
                            h->kept[k].fanout == w->pt.methods[i].d.fanout;
            }
            free(hm);
            sp.enabled = en;
        }
    }
    rc = tune_search(&sp, &orc, &w->o->params, &r);
    if (rc == TUNE_OK && !r.complete)
        v->stopped = true;
    if (rc == TUNE_OK && r.found) {
        v->d = w->pt.methods[r.method].d;
        v->d.segment_bytes = w->pt.segs[r.seg];
        v->cost = r.cost;
        v->set = true;
        v->nkept = 0;
        for (size_t i = 0; w->o->keep >= 0 && i < w->pt.nm && v->nkept < TUNE_PLANE_KEPT; i++)
            if (w->mbest[i] <= r.cost * (1.0 + w->o->keep))
                v->kept[v->nkept++] = w->pt.methods[i].d;
        *decided = true;
    }
out:
    close_cell(w, row, col);
    return rc;
}

/* Measure decision d there with its segment mapped to seg (bytes); its
 * cost, *out the decision as run. */
static int try_decision(struct walk *w, uint64_t m, const struct acct_decision *d, uint64_t seg,
                        struct acct_decision *out, double *cost)
{
    size_t mi = method_index(w->pt.methods, w->pt.nm, d);
    int rc = TUNE_OK;

    *cost = INFINITY;
    if (mi < w->pt.nm) {
        size_t g = w->nsegm[mi] > 1 ? seg_index(w, m, seg) : 0;
        rc = w_measure(w, mi, g, cost);
        if (rc == TUNE_OK && !isinf(*cost)) {
            *out = w->pt.methods[mi].d;
            out->segment_bytes = w->pt.segs[g];
        }
    }
    return rc;
}

static int pl_verify(void *ctx, size_t row, size_t col, const struct tune_cell_ref *cands,
                     size_t n, bool *decided)
{
    struct walk *w = ctx;
    struct tune_plane_cell *v = cell(w, row, col);
    const uint64_t *m = w->src->m;
    int rc = open_cell(w, row, col);

    *decided = false;
    if (rc != TUNE_OK)
        return rc;
    v->cost = INFINITY;
    for (size_t k = 0; k < n && rc == TUNE_OK; k++) {
        const struct tune_plane_cell *cv = cell(w, cands[k].row, cands[k].col);
        /* the candidate's segment scaled with the message (its seg/m) */
        uint64_t seg = cv->d.segment_bytes == 0
                       ? 0
                       : (uint64_t)((double)cv->d.segment_bytes / (double)m[cands[k].col] *
                                    (double)m[col]);
        struct acct_decision d;
        double cost = INFINITY;
        rc = try_decision(w, m[col], &cv->d, seg, &d, &cost);
        if (rc == TUNE_OK && cost < v->cost) {
            v->cost = cost;
            v->d = d;
            v->set = true;
            *decided = true;
        }
    }
    v->stopped |= w->stopped;
    if (rc == TUNE_STOP) /* the budget: what was measured stands */
        rc = TUNE_OK;
    /* with --check: a verified decision far above what its two neighbours
     * took (log-interpolated) is not trusted: the cell is searched fully */
    if (rc == TUNE_OK && *decided && w->o->check > 0 && n == 2 && !w->stopped) {
        double t = frac(row, col, &cands[0], &cands[1]);
        if (!(v->cost <= (1.0 + w->o->check) *
                             expected(cell(w, cands[0].row, cands[0].col),
                                      cell(w, cands[1].row, cands[1].col), t))) {
            v->set = false;
            *decided = false;
        }
    }
    close_cell(w, row, col);
    return rc;
}

/* The segment for (row, col) between a and b: log-linear in seg/m. */
static uint64_t interp_seg(const struct walk *w, size_t row, size_t col,
                           const struct tune_cell_ref *a, const struct tune_cell_ref *b)
{
    const uint64_t *m = w->src->m;
    const struct tune_plane_cell *va = &w->cells[a->row * w->maxcols + a->col];
    const struct tune_plane_cell *vb = &w->cells[b->row * w->maxcols + b->col];
    double ra = va->d.segment_bytes ? (double)va->d.segment_bytes / (double)m[a->col] : 1.0;
    double rb = vb->d.segment_bytes ? (double)vb->d.segment_bytes / (double)m[b->col] : 1.0;
    double lr = log2(ra) + frac(row, col, a, b) * (log2(rb) - log2(ra));
    double s = (double)m[col] * exp2(lr);
    return s >= (double)m[col] ? 0 : (uint64_t)llround(exp2(round(log2(s))));
}

static bool pl_copy(void *ctx, size_t row, size_t col, const struct tune_cell_ref *a,
                    const struct tune_cell_ref *b)
{
    struct walk *w = ctx;
    struct tune_plane_cell *v = cell(w, row, col);
    const struct tune_plane_cell *va = cell(w, a->row, a->col), *vb = cell(w, b->row, b->col);
    bool ok = false;

    if (open_cell(w, row, col) != TUNE_OK)
        return false; /* the cell gets a full search, which reports the error */
    size_t mi = method_index(w->pt.methods, w->pt.nm, &va->d);
    if (mi < w->pt.nm) {
        size_t g = w->nsegm[mi] > 1 ? seg_index(w, w->src->m[col], interp_seg(w, row, col, a, b))
                                    : 0;
        struct acct_decision d = w->pt.methods[mi].d;
        d.segment_bytes = w->pt.segs[g];
        double expect = expected(va, vb, frac(row, col, a, b));
        if (tune_applicable(w->src->coll, &d, w->src->p[row], w->src->m[col])) {
            v->d = d;
            v->cost = expect; /* not measured */
            v->set = true;
            ok = true;
        }
        if (ok && w->o->check > 0) {
            double got = INFINITY;
            int rc = w_measure(w, mi, g, &got);
            v->cost = got;
            v->stopped |= rc == TUNE_STOP;
            /* measured too slow (or failed): searched fully instead;
             * stopped by the budget: the interpolation stands */
            if (rc != TUNE_STOP && !(got <= (1.0 + w->o->check) * expect)) {
                v->set = false;
                ok = false;
            }
        }
    }
    close_cell(w, row, col);
    return ok;
}

static bool pl_same(void *ctx, const struct tune_cell_ref *a, const struct tune_cell_ref *b)
{
    struct walk *w = ctx;
    const struct tune_plane_cell *va = cell(w, a->row, a->col), *vb = cell(w, b->row, b->col);
    return va->set && vb->set && va->d.alg == vb->d.alg && va->d.fanout == vb->d.fanout;
}

/* ---- the walk ---------------------------------------------------------------------- */

size_t tune_plane_maxcols(const struct tune_plane_src *src)
{
    size_t n = 0;
    for (size_t r = 0; r < src->nrows; r++)
        n = src->ncols[r] > n ? src->ncols[r] : n;
    return n;
}

int tune_plane_walk(const struct tune_plane_src *src, const struct tune_plane_opts *o,
                    struct tune_plane_cell *cells)
{
    int rc = TUNE_ENOMEM;
    struct walk *w = NULL;
    enum tune_cell_kind *kind = NULL;

    if (src == NULL || o == NULL || cells == NULL || src->open == NULL || src->nrows == 0 ||
        src->ncols == NULL || src->p == NULL || src->m == NULL)
        return TUNE_EINVAL;
    size_t maxcols = tune_plane_maxcols(src);
    if (maxcols == 0)
        return TUNE_EINVAL;
    w = calloc(1, sizeof(*w));
    kind = calloc(src->nrows * maxcols, sizeof(*kind));
    if (w == NULL || kind == NULL)
        goto out;
    memset(cells, 0, src->nrows * maxcols * sizeof(*cells));
    *w = (struct walk){ .src = src, .o = o, .cells = cells, .maxcols = maxcols };
    struct tune_plane pl = { .ctx = w, .nrows = src->nrows, .ncols = src->ncols,
                             .full = pl_full, .verify = pl_verify, .copy = pl_copy,
                             .same = pl_same };
    rc = tune_plane_search(&pl, o->row_stride, o->col_stride, kind);
    for (size_t i = 0; i < src->nrows * maxcols; i++) {
        cells[i].kind = kind[i];
        cells[i].set &= kind[i] != TUNE_CELL_NONE;
    }
out:
    free(w);
    free(kind);
    return rc;
}
