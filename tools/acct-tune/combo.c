/* The combination of the papers' reductions over one collective's plane of
 * (communicator size, message size) cells (search.h, "the combination"):
 * full searches on a coarse grid of anchors, interpolation where
 * neighbouring decisions agree, verification measurements only where they
 * differ (decision boundaries), bisected until every cell is decided.
 * Vadhiyar, Fagg, Dongarra (IJHPCA 2004, section 3: reducing the primary
 * tests); the decision maps of Pjesivac-Grbovic et al. have few boundaries,
 * which is what makes this cheap. Pure C, no MPI. */
#include "search.h"

#include <stdint.h>
#include <stdlib.h>

struct plane_run {
    const struct tune_plane *pl;
    size_t maxcols;
    enum tune_cell_kind *kind;
};

static enum tune_cell_kind *cell(struct plane_run *r, size_t row, size_t col)
{
    return &r->kind[row * r->maxcols + col];
}

static bool decided(struct plane_run *r, size_t row, size_t col)
{
    return col < r->pl->ncols[row] && *cell(r, row, col) != TUNE_CELL_NONE;
}

static int full(struct plane_run *r, size_t row, size_t col, const struct tune_cell_ref *hint)
{
    bool ok = false;
    int rc = r->pl->full(r->pl->ctx, row, col, hint, &ok);

    if (rc == TUNE_OK && ok)
        *cell(r, row, col) = TUNE_CELL_FULL;
    return rc;
}

/* Decide the cells strictly between a and b (same row or same column; both
 * decided) by interpolation or verification and bisection. */
static int bisect(struct plane_run *r, struct tune_cell_ref a, struct tune_cell_ref b)
{
    int rc = TUNE_OK;
    bool by_row = a.col == b.col;
    size_t lo = by_row ? a.row : a.col, hi = by_row ? b.row : b.col;

    if (hi - lo < 2)
        return TUNE_OK;
    if (r->pl->same(r->pl->ctx, &a, &b)) {
        for (size_t i = lo + 1; i < hi; i++) {
            struct tune_cell_ref c = by_row ? (struct tune_cell_ref){ i, a.col }
                                            : (struct tune_cell_ref){ a.row, i };
            if (c.col < r->pl->ncols[c.row] && r->pl->copy(r->pl->ctx, c.row, c.col, &a, &b))
                *cell(r, c.row, c.col) = TUNE_CELL_INTERPOLATED;
        }
        return TUNE_OK;
    }
    size_t mid = lo + (hi - lo) / 2;
    struct tune_cell_ref m = by_row ? (struct tune_cell_ref){ mid, a.col }
                                    : (struct tune_cell_ref){ a.row, mid };
    struct tune_cell_ref cands[2] = { a, b };
    bool ok = false;
    if (m.col < r->pl->ncols[m.row]) {
        rc = r->pl->verify(r->pl->ctx, m.row, m.col, cands, 2, &ok);
        if (rc == TUNE_OK && ok)
            *cell(r, m.row, m.col) = TUNE_CELL_VERIFIED;
    }
    if (rc == TUNE_OK && ok) {
        rc = bisect(r, a, m);
        if (rc == TUNE_OK)
            rc = bisect(r, m, b);
    }
    return rc;
}

/* One anchor row: anchor columns searched fully (each started from the
 * previous one's optimum, the first from the previous anchor row's cell of
 * that column, prow; SIZE_MAX: none), the columns between by bisection. */
static int anchor_row(struct plane_run *r, size_t row, size_t prow, size_t col_stride)
{
    int rc = TUNE_OK;
    size_t n = r->pl->ncols[row], prev = SIZE_MAX;

    for (size_t c = 0; c < n && rc == TUNE_OK; c = c + col_stride < n || c == n - 1
                                                      ? c + col_stride : n - 1) {
        struct tune_cell_ref h = { row, prev }, up = { prow, c };
        const struct tune_cell_ref *hint = NULL;
        if (prev != SIZE_MAX && decided(r, row, prev))
            hint = &h;
        else if (prow != SIZE_MAX && decided(r, prow, c))
            hint = &up;
        rc = full(r, row, c, hint);
        if (rc == TUNE_OK && prev != SIZE_MAX && decided(r, row, prev) && decided(r, row, c))
            rc = bisect(r, (struct tune_cell_ref){ row, prev }, (struct tune_cell_ref){ row, c });
        prev = c;
    }
    for (size_t c = 0; c < n && rc == TUNE_OK; c++) {
        struct tune_cell_ref h = { row, c - 1 };
        if (!decided(r, row, c))
            rc = full(r, row, c, c > 0 && decided(r, row, c - 1) ? &h : NULL);
    }
    return rc;
}

/* The cells of rows strictly between anchor rows ra and rb: per column,
 * bisection between the anchors where both are decided; the others (the
 * ragged edge, or a bisection that could not decide) a full search. */
static int between_rows(struct plane_run *r, size_t ra, size_t rb)
{
    int rc = TUNE_OK;
    size_t maxc = 0;

    for (size_t row = ra + 1; row < rb; row++)
        maxc = r->pl->ncols[row] > maxc ? r->pl->ncols[row] : maxc;
    for (size_t c = 0; c < maxc && rc == TUNE_OK; c++)
        if (decided(r, ra, c) && decided(r, rb, c))
            rc = bisect(r, (struct tune_cell_ref){ ra, c }, (struct tune_cell_ref){ rb, c });
    for (size_t row = ra + 1; row < rb && rc == TUNE_OK; row++)
        for (size_t c = 0; c < r->pl->ncols[row] && rc == TUNE_OK; c++) {
            if (decided(r, row, c))
                continue;
            struct tune_cell_ref h = { row, c - 1 };
            rc = full(r, row, c, c > 0 && decided(r, row, c - 1) ? &h : NULL);
        }
    return rc;
}

int tune_plane_search(const struct tune_plane *pl, size_t row_stride, size_t col_stride,
                      enum tune_cell_kind *kind)
{
    int rc = TUNE_OK;
    struct plane_run r = { .pl = pl, .kind = kind };
    size_t prev = SIZE_MAX;

    if (pl == NULL || kind == NULL || pl->full == NULL || pl->verify == NULL ||
        pl->copy == NULL || pl->same == NULL || row_stride == 0 || col_stride == 0 ||
        pl->nrows == 0 || pl->ncols == NULL)
        return TUNE_EINVAL;
    for (size_t i = 0; i < pl->nrows; i++)
        r.maxcols = pl->ncols[i] > r.maxcols ? pl->ncols[i] : r.maxcols;
    for (size_t i = 0; i < pl->nrows * r.maxcols; i++)
        kind[i] = TUNE_CELL_NONE;
    for (size_t row = 0; row < pl->nrows && rc == TUNE_OK;
         row = row + row_stride < pl->nrows || row == pl->nrows - 1 ? row + row_stride
                                                                    : pl->nrows - 1) {
        rc = anchor_row(&r, row, prev, col_stride);
        if (rc == TUNE_OK && prev != SIZE_MAX)
            rc = between_rows(&r, prev, row);
        prev = row;
    }
    return rc;
}
