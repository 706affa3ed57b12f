/* Penalty statistics of a decision function against the exact map (the
 * quadtree paper's Tables 1-2), acct/dmap.h and docs/decisions.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/table.h"
#include "internal.h"

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Penalty of method k at cell c in percent, or NAN if not comparable. */
static double cell_penalty(const struct acct_dmap *m, size_t c, int32_t k)
{
    if (!m->measured[c] || k < 0 || (size_t)k >= m->nmethods)
        return NAN;
    const double *t = &m->time[c * m->nmethods];
    double tb = t[m->best[c]], tk = t[k];
    if (tk < 0)
        return NAN;
    if (tb <= 0)
        return tk <= 0 ? 0.0 : NAN;
    return (tk - tb) / tb * 100.0;
}

int acct_penalty_map(const struct acct_dmap *m, const int32_t *cells, double *out)
{
    for (size_t c = 0; c < m->ncomm * m->nbytes; c++)
        out[c] = cell_penalty(m, c, cells[c]);
    return ACCT_RULES_OK;
}

int acct_penalty_cells(const struct acct_dmap *m, const int32_t *cells,
                       struct acct_penalty_stats *st)
{
    size_t ncell = m->ncomm * m->nbytes;
    double *v = malloc(ncell * sizeof(*v));
    if (v == NULL)
        return ACCT_RULES_ENOMEM;
    memset(st, 0, sizeof(*st));
    st->cells = ncell;
    size_t n = 0;
    double sum = 0;
    for (size_t c = 0; c < ncell; c++) {
        if (!m->measured[c])
            continue;
        double p = cell_penalty(m, c, cells[c]);
        if (isnan(p)) {
            st->unknown++;
            continue;
        }
        v[n++] = p;
        sum += p;
    }
    st->compared = n;
    if (n > 0) {
        qsort(v, n, sizeof(*v), cmp_double);
        st->pen_min = v[0];
        st->pen_max = v[n - 1];
        st->pen_mean = sum / (double)n;
        st->pen_median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    }
    free(v);
    return ACCT_RULES_OK;
}

int acct_qt_stats(const struct acct_quadtree *qt, const struct acct_dmap *m,
                  struct acct_penalty_stats *st)
{
    if (qt->ncomm != m->ncomm || qt->nbytes != m->nbytes || qt->coll != m->coll)
        return ACCT_RULES_EINVAL;
    int32_t *cells = malloc(m->ncomm * m->nbytes * sizeof(*cells));
    if (cells == NULL)
        return ACCT_RULES_ENOMEM;
    acct_qt_cells(qt, cells);
    int rc = acct_penalty_cells(m, cells, st);
    free(cells);
    if (rc != ACCT_RULES_OK)
        return rc;
    double dsum = 0, dcells = 0;
    st->depth_min = -1;
    st->depth_max = 0;
    for (size_t k = 0; k < qt->nnodes; k++) {
        const struct acct_qt_node *nd = &qt->nodes[k];
        if (nd->nchild != 0)
            continue;
        int d = nd->depth;
        if (st->depth_min < 0 || d < st->depth_min)
            st->depth_min = d;
        if (d > st->depth_max)
            st->depth_max = d;
        dsum += d;
        dcells += (double)d * (double)(nd->i1 - nd->i0) * (double)(nd->j1 - nd->j0);
    }
    st->leaves = qt->nleaves;
    st->nodes = qt->nnodes;
    st->depth_mean = qt->nleaves ? dsum / (double)qt->nleaves : 0;
    st->depth_mean_cells = dcells / (double)(m->ncomm * m->nbytes);
    return ACCT_RULES_OK;
}

int acct_penalty_rules(const struct acct_dmap *m, const struct acct_rules *r,
                       struct acct_penalty_stats *st)
{
    int rc = ACCT_RULES_ENOMEM;
    int32_t *cells = malloc(m->ncomm * m->nbytes * sizeof(*cells));
    struct acct_table *t = NULL;
    if (cells == NULL)
        goto done;
    for (size_t i = 0; i < m->ncomm; i++) {
        acct_table_free(t);
        t = NULL;
        if (acct_rules_resolve(r, m->coll, m->comm[i], &t) != ACCT_RULES_OK)
            goto done;
        for (size_t j = 0; j < m->nbytes; j++) {
            const struct acct_decision *d = acct_table_lookup(t, m->bytes[j]);
            int32_t k = -1;
            for (size_t q = 0; q < m->nmethods && k < 0; q++)
                if (acct_decision_equal(d, &m->methods[q]))
                    k = (int32_t)q;
            cells[i * m->nbytes + j] = k; /* -1: a method never measured: unknown */
        }
    }
    rc = acct_penalty_cells(m, cells, st);
    if (rc == ACCT_RULES_OK)
        st->leaves = r ? r->coll[m->coll].n : 0;
done:
    acct_table_free(t);
    free(cells);
    return rc;
}

void acct_penalty_print_header(FILE *f)
{
    fprintf(f, "%-12s | %-18s | %-35s | %-15s | %s\n", "", "depth", "penalty %", "number of",
            "cells");
    fprintf(f, "%-12s | %4s %5s %7s | %8s %8s %8s %8s | %7s %7s | %s\n", "tree", "max", "min",
            "mean", "min", "max", "mean", "median", "leaves", "nodes", "compared/unknown");
}

void acct_penalty_print_row(FILE *f, const char *label, const struct acct_penalty_stats *st)
{
    fprintf(f, "%-12s | %4d %5d %7.2f | %8.2f %8.2f %8.2f %8.2f | %7zu %7zu | %zu/%zu\n",
            label, st->depth_max, st->depth_min < 0 ? 0 : st->depth_min, st->depth_mean,
            st->pen_min, st->pen_max, st->pen_mean, st->pen_median, st->leaves, st->nodes,
            st->compared, st->unknown);
}
