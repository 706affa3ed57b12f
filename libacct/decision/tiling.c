/* Decision maps and quadtrees as rules: rectangles in (comm_size, bytes)
 * space that tile the plane (acct/dmap.h, docs/decisions.md).
 *
 * A per-cell choice is cut into maximal runs of equal decisions along each
 * row (message sizes); a run continues the rectangle above it when that
 * rectangle covers exactly the same columns with the same decision, so
 *
 *     row 0:  A A B B          rectangles:  [rows 0-1, cols 0-1] A
 *     row 1:  A A B B                       [rows 0-2, cols 2-3] B
 *     row 2:  C C B B                       [row 2,    cols 0-1] C
 *
 * Cells are disjoint and cover the plane, so the rectangles are too. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct open_rect {
    size_t i0, j0, j1;
    int32_t k;
};

int acct_rule_cmp(const void *pa, const void *pb)
{
    const struct acct_rule *a = pa, *b = pb;
    if (a->comm_min != b->comm_min)
        return a->comm_min < b->comm_min ? -1 : 1;
    if (a->bytes_min != b->bytes_min)
        return (a->bytes_min > b->bytes_min) - (a->bytes_min < b->bytes_min);
    /* layout-bound rules of the same cells (model regions per layout) */
    return (a->rpn_min > b->rpn_min) - (a->rpn_min < b->rpn_min);
}

static void emit(struct acct_rule *out, size_t *n, const struct open_rect *o, size_t i1,
                 int comm_lo, const int *comm_hi, const uint64_t *bytes_hi,
                 const struct acct_decision *methods)
{
    struct acct_rule *r = &out[(*n)++];
    memset(r, 0, sizeof(*r));
    r->comm_min = o->i0 == 0 ? comm_lo : comm_hi[o->i0 - 1] + 1;
    r->comm_max = comm_hi[i1];
    r->bytes_min = o->j0 == 0 ? 0 : bytes_hi[o->j0 - 1] + 1;
    r->bytes_max = bytes_hi[o->j1];
    r->d = methods[o->k];
}

int acct_tile_rules(enum acct_coll_id coll, size_t ncomm, size_t nbytes, int comm_lo,
                    const int *comm_hi,
                    const uint64_t *bytes_hi, const struct acct_decision *methods,
                    size_t nmethods, const int32_t *cells, struct acct_rules *r,
                    struct acct_diags *diags)
{
    int rc = ACCT_RULES_ENOMEM;
    struct open_rect *open = NULL, *next = NULL;
    struct acct_rule *out = NULL;
    size_t nopen = 0, nout = 0;

    if (r->coll[coll].n != 0) {
        acct_diags_add(diags, 0, 0, "", "rules already hold %zu rules of %s", r->coll[coll].n,
                       acct_coll_name(coll));
        return ACCT_RULES_EINVAL;
    }
    for (size_t c = 0; c < ncomm * nbytes; c++)
        if (cells[c] < 0 || (size_t)cells[c] >= nmethods) {
            acct_diags_add(diags, 0, 0, "", "cell %zu of %s has no decision", c,
                           acct_coll_name(coll));
            return ACCT_RULES_EINVAL;
        }
    open = malloc(nbytes * sizeof(*open));
    next = malloc(nbytes * sizeof(*next));
    out = malloc(ncomm * nbytes * sizeof(*out)); /* at most one rectangle per cell */
    if (open == NULL || next == NULL || out == NULL)
        goto done;
    for (size_t i = 0; i < ncomm; i++) {
        const int32_t *row = &cells[i * nbytes];
        size_t nnext = 0, o = 0;
        for (size_t j0 = 0; j0 < nbytes;) {
            size_t j1 = j0;
            while (j1 + 1 < nbytes && row[j1 + 1] == row[j0])
                j1++;
            /* Close open rectangles that end before this run. */
            while (o < nopen && open[o].j0 < j0)
                emit(out, &nout, &open[o++], i - 1, comm_lo, comm_hi, bytes_hi, methods);
            if (o < nopen && open[o].j0 == j0 && open[o].j1 == j1 && open[o].k == row[j0]) {
                next[nnext++] = open[o++]; /* continues */
            } else {
                next[nnext++] = (struct open_rect){ .i0 = i, .j0 = j0, .j1 = j1, .k = row[j0] };
            }
            j0 = j1 + 1;
        }
        while (o < nopen)
            emit(out, &nout, &open[o++], i - 1, comm_lo, comm_hi, bytes_hi, methods);
        struct open_rect *t = open;
        open = next;
        next = t;
        nopen = nnext;
    }
    for (size_t o = 0; o < nopen; o++)
        emit(out, &nout, &open[o], ncomm - 1, comm_lo, comm_hi, bytes_hi, methods);
    if (r->nrules + nout > ACCT_RULES_MAX_RULES) {
        acct_diags_add(diags, 0, 0, "", "%zu rules of %s would exceed the limit of %d rules "
                       "per file", nout, acct_coll_name(coll), ACCT_RULES_MAX_RULES);
        rc = ACCT_RULES_EINVAL;
        goto done;
    }
    qsort(out, nout, sizeof(*out), acct_rule_cmp);
    struct acct_rule *shrunk = realloc(out, nout * sizeof(*out));
    if (shrunk != NULL)
        out = shrunk;
    r->coll[coll].v = out;
    r->coll[coll].n = nout;
    r->nrules += nout;
    out = NULL;
    rc = ACCT_RULES_OK;
done:
    free(open);
    free(next);
    free(out);
    return rc;
}

int acct_cells_rules(const struct acct_dmap *m, const int32_t *cells, struct acct_rules *r,
                     struct acct_diags *diags)
{
    return acct_tile_rules(m->coll, m->ncomm, m->nbytes, m->comm_lo[0], m->comm_hi, m->bytes_hi,
                           m->methods, m->nmethods, cells, r, diags);
}

int acct_dmap_rules(const struct acct_dmap *m, struct acct_rules *r, struct acct_diags *diags)
{
    int32_t *rows;
    int rc;

    if (acct_coll_bytes_alike(m->coll))
        return acct_cells_rules(m, m->best, r, diags);
    /* decided from the communicator size alone: one method per row */
    rows = malloc(m->ncomm * m->nbytes * sizeof(*rows));
    if (rows == NULL)
        return ACCT_RULES_ENOMEM;
    rc = acct_dmap_row_cells(m, rows, NULL);
    if (rc == ACCT_RULES_OK)
        rc = acct_cells_rules(m, rows, r, diags);
    free(rows);
    return rc;
}
