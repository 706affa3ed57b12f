/* Quadtree encoding of a decision map (Pjesivac-Grbovic et al. 2007),
 * acct/dmap.h and docs/decisions.md.
 *
 * A node covers rows [i0, i1) x columns [j0, j1) of the map. It is a leaf
 * when its block is uniform, when it is at the maximum depth, or when its
 * majority method holds at least the accuracy threshold of its cells;
 * otherwise each range of more than one index is halved:
 *
 *               j0      jmid        j1           (message sizes ->)
 *          i0   +--------+-----------+
 *               |   NW   |    NE     |   rows: communicator sizes
 *        imid   +--------+-----------+
 *               |   SW   |    SE     |
 *          i1   +--------+-----------+
 *
 * The map is not padded to 2^k x 2^k: a block of one row (or column) splits
 * in two only. Lookups compare the communicator size and the message size
 * with the last value of the first half (comm_hi[imid-1], bytes_hi[jmid-1]). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define QT_MAX_DEPTH_PARAM 60

struct builder {
    const struct acct_dmap *m;
    const struct acct_qt_params *p;
    struct acct_qt_node *nodes;
    size_t n, cap;
    size_t *count; /* per method, scratch */
    int failed;
};

static int32_t push_nodes(struct builder *b, size_t k)
{
    if (b->n + k > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 64;
        while (ncap < b->n + k)
            ncap *= 2;
        struct acct_qt_node *nv = realloc(b->nodes, ncap * sizeof(*nv));
        if (nv == NULL) {
            b->failed = 1;
            return -1;
        }
        b->nodes = nv;
        b->cap = ncap;
    }
    int32_t first = (int32_t)b->n;
    memset(&b->nodes[b->n], 0, k * sizeof(*b->nodes));
    b->n += k;
    return first;
}

/* The leaf decision of a block under ACCT_QT_LEAF_MIN_PENALTY: the method
 * measured at every measured cell of the block with the least sum of
 * relative penalties; -1 if none qualifies. */
static int32_t min_penalty_method(const struct acct_dmap *m, const struct acct_qt_node *nd)
{
    int32_t pick = -1;
    double pick_sum = 0;
    for (size_t k = 0; k < m->nmethods; k++) {
        double sum = 0;
        int ok = 1, any = 0;
        for (uint32_t i = nd->i0; i < nd->i1 && ok; i++)
            for (uint32_t j = nd->j0; j < nd->j1 && ok; j++) {
                size_t c = (size_t)i * m->nbytes + j;
                if (!m->measured[c])
                    continue;
                const double *t = &m->time[c * m->nmethods];
                double tb = t[m->best[c]], tk = t[k];
                if (tk < 0) {
                    ok = 0;
                    break;
                }
                any = 1;
                sum += tb > 0 ? (tk - tb) / tb : (tk > 0 ? 1e9 : 0);
            }
        if (ok && any && (pick < 0 || sum < pick_sum)) {
            pick = (int32_t)k;
            pick_sum = sum;
        }
    }
    return pick;
}

static void build(struct builder *b, int32_t idx)
{
    const struct acct_dmap *m = b->m;
    struct acct_qt_node nd = b->nodes[idx];
    size_t cells = (size_t)(nd.i1 - nd.i0) * (nd.j1 - nd.j0);
    memset(b->count, 0, m->nmethods * sizeof(*b->count));
    for (uint32_t i = nd.i0; i < nd.i1; i++)
        for (uint32_t j = nd.j0; j < nd.j1; j++)
            b->count[m->best[(size_t)i * m->nbytes + j]]++;
    int32_t major = 0;
    for (size_t k = 1; k < m->nmethods; k++)
        if (b->count[k] > b->count[major])
            major = (int32_t)k;
    int leaf = b->count[major] == cells ||
               (b->p->max_depth != ACCT_QT_UNLIMITED && nd.depth >= b->p->max_depth) ||
               (double)b->count[major] * 100.0 >= b->p->accuracy * (double)cells;
    if (leaf) {
        int32_t k = major;
        if (b->p->leaf_choice == ACCT_QT_LEAF_MIN_PENALTY && b->count[major] != cells) {
            int32_t q = min_penalty_method(m, &nd);
            if (q >= 0)
                k = q;
        }
        b->nodes[idx].child = -1;
        b->nodes[idx].nchild = 0;
        b->nodes[idx].method = k;
        return;
    }
    uint32_t rows = nd.i1 - nd.i0, cols = nd.j1 - nd.j0;
    uint32_t imid = rows > 1 ? nd.i0 + (rows + 1) / 2 : nd.i0;
    uint32_t jmid = cols > 1 ? nd.j0 + (cols + 1) / 2 : nd.j0;
    int nr = rows > 1 ? 2 : 1, nc = cols > 1 ? 2 : 1;
    int32_t first = push_nodes(b, (size_t)(nr * nc));
    if (first < 0)
        return;
    struct acct_qt_node *self = &b->nodes[idx];
    self->imid = imid;
    self->jmid = jmid;
    self->child = first;
    self->nchild = (uint8_t)(nr * nc);
    self->method = -1;
    int32_t c = first;
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nc; q++, c++) {
            struct acct_qt_node *ch = &b->nodes[c];
            ch->i0 = nr == 1 ? nd.i0 : (r == 0 ? nd.i0 : imid);
            ch->i1 = nr == 1 ? nd.i1 : (r == 0 ? imid : nd.i1);
            ch->j0 = nc == 1 ? nd.j0 : (q == 0 ? nd.j0 : jmid);
            ch->j1 = nc == 1 ? nd.j1 : (q == 0 ? jmid : nd.j1);
            ch->depth = (uint8_t)(nd.depth + 1);
            ch->imid = ch->i0;
            ch->jmid = ch->j0;
        }
    for (int32_t k = first; k < first + nr * nc && !b->failed; k++)
        build(b, k);
}

void acct_qt_free(struct acct_quadtree *qt)
{
    if (qt == NULL)
        return;
    free(qt->nodes);
    free(qt->comm_hi);
    free(qt->bytes_hi);
    free(qt->methods);
    free(qt);
}

int acct_qt_build(const struct acct_dmap *m, const struct acct_qt_params *params,
                  struct acct_quadtree **out, struct acct_diags *diags)
{
    int rc = ACCT_RULES_EINVAL;
    struct builder b = { .m = m, .p = params };
    struct acct_quadtree *qt = NULL;
    *out = NULL;
    if (params->max_depth < ACCT_QT_UNLIMITED || params->max_depth > QT_MAX_DEPTH_PARAM) {
        acct_diags_add(diags, 0, 0, "max_depth", "%d is out of range: 0 to %d, or -1 for "
                       "no limit", params->max_depth, QT_MAX_DEPTH_PARAM);
        goto done;
    }
    if (!(params->accuracy > 0.0 && params->accuracy <= 100.0)) {
        acct_diags_add(diags, 0, 0, "accuracy", "%g is out of range: a percentage above 0 "
                       "and at most 100", params->accuracy);
        goto done;
    }
    if (params->leaf_choice != ACCT_QT_LEAF_MAJORITY &&
        params->leaf_choice != ACCT_QT_LEAF_MIN_PENALTY) {
        acct_diags_add(diags, 0, 0, "leaf_choice", "unknown leaf choice %d",
                       (int)params->leaf_choice);
        goto done;
    }
    for (size_t c = 0; c < m->ncomm * m->nbytes; c++)
        if (m->best[c] < 0 || (size_t)m->best[c] >= m->nmethods) {
            acct_diags_add(diags, 0, 0, "", "decision map of %s is not finished "
                           "(acct_dmap_finish)", acct_coll_name(m->coll));
            goto done;
        }
    rc = ACCT_RULES_ENOMEM;
    b.count = malloc(m->nmethods * sizeof(*b.count));
    qt = calloc(1, sizeof(*qt));
    if (b.count == NULL || qt == NULL)
        goto done;
    qt->comm_hi = malloc(m->ncomm * sizeof(*qt->comm_hi));
    qt->bytes_hi = malloc(m->nbytes * sizeof(*qt->bytes_hi));
    qt->methods = malloc(m->nmethods * sizeof(*qt->methods));
    if (qt->comm_hi == NULL || qt->bytes_hi == NULL || qt->methods == NULL)
        goto done;
    memcpy(qt->comm_hi, m->comm_hi, m->ncomm * sizeof(*qt->comm_hi));
    memcpy(qt->bytes_hi, m->bytes_hi, m->nbytes * sizeof(*qt->bytes_hi));
    memcpy(qt->methods, m->methods, m->nmethods * sizeof(*qt->methods));
    qt->coll = m->coll;
    qt->comm_lo = m->comm_lo[0];
    qt->ncomm = m->ncomm;
    qt->nbytes = m->nbytes;
    qt->nmethods = m->nmethods;
    qt->params = *params;
    if (push_nodes(&b, 1) < 0)
        goto done;
    b.nodes[0].i0 = 0;
    b.nodes[0].i1 = (uint32_t)m->ncomm;
    b.nodes[0].j0 = 0;
    b.nodes[0].j1 = (uint32_t)m->nbytes;
    build(&b, 0);
    if (b.failed)
        goto done;
    qt->nodes = b.nodes;
    qt->nnodes = b.n;
    b.nodes = NULL;
    for (size_t k = 0; k < qt->nnodes; k++)
        qt->nleaves += qt->nodes[k].nchild == 0;
    *out = qt;
    qt = NULL;
    rc = ACCT_RULES_OK;
done:
    free(b.nodes);
    free(b.count);
    acct_qt_free(qt);
    return rc;
}

const struct acct_decision *acct_qt_lookup(const struct acct_quadtree *qt, int comm_size,
                                           uint64_t bytes)
{
    const struct acct_qt_node *nd = &qt->nodes[0];
    if (comm_size > qt->comm_hi[qt->ncomm - 1] || comm_size < qt->comm_lo)
        return NULL; /* beyond the measured sizes (above or below): no decision (native) */
    while (nd->nchild != 0) {
        int split_r = nd->imid > nd->i0, split_c = nd->jmid > nd->j0;
        int hi_r = split_r && comm_size > qt->comm_hi[nd->imid - 1];
        int hi_c = split_c && bytes > qt->bytes_hi[nd->jmid - 1];
        int k = split_r && split_c ? 2 * hi_r + hi_c : (split_r ? hi_r : hi_c);
        nd = &qt->nodes[nd->child + k];
    }
    return &qt->methods[nd->method];
}

int acct_qt_cells(const struct acct_quadtree *qt, int32_t *out)
{
    for (size_t k = 0; k < qt->nnodes; k++) {
        const struct acct_qt_node *nd = &qt->nodes[k];
        if (nd->nchild != 0)
            continue;
        for (uint32_t i = nd->i0; i < nd->i1; i++)
            for (uint32_t j = nd->j0; j < nd->j1; j++)
                out[(size_t)i * qt->nbytes + j] = nd->method;
    }
    return ACCT_RULES_OK;
}

int acct_qt_rules(const struct acct_quadtree *qt, struct acct_rules *r,
                  struct acct_diags *diags)
{
    int32_t *cells = malloc(qt->ncomm * qt->nbytes * sizeof(*cells));
    if (cells == NULL)
        return ACCT_RULES_ENOMEM;
    acct_qt_cells(qt, cells);
    int rc = acct_tile_rules(qt->coll, qt->ncomm, qt->nbytes, qt->comm_lo, qt->comm_hi,
                             qt->bytes_hi, qt->methods, qt->nmethods, cells, r, diags);
    free(cells);
    return rc;
}
