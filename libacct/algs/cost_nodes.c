/* The node-aware methods' shared closed-form pieces (cost_nodes.h). */
#include "cost_nodes.h"

#include <math.h>
#include <stdlib.h>

#include "algs.h"

double acct_cost_alg(enum acct_coll_id coll, const char *name, const struct acct_cost *x)
{
    const struct acct_alg *a = acct_alg_find(coll, name);
    if (a == NULL || a->cost == NULL)
        return NAN;
    if (x->p <= 1 || (coll != ACCT_COLL_barrier && x->m == 0))
        return 0; /* nothing moves (acct_model_closed_form's rule) */
    return a->cost(x);
}

/* The longest path of a tree of kind (fan-out 2) over size ranks from its
 * root, the j-th child of a rank at D + j g + L; *c0 the root's children.
 * 0 for one rank, NAN when out of memory. */
static double intra_path(enum acct_tree_kind kind, int size, double g, double l, int *c0)
{
    *c0 = 0;
    if (size <= 1)
        return 0;
    int *order = malloc((size_t)size * sizeof *order);
    double *d = calloc((size_t)size, sizeof *d), best = 0;
    int head = 0, tail = 0;
    struct acct_tree t;
    if (order == NULL || d == NULL) {
        free(order);
        free(d);
        return NAN;
    }
    order[tail++] = 0;
    while (head < tail) {
        const int v = order[head++];
        if (acct_tree_build(kind, v, size, 2, &t) != 0) {
            best = NAN;
            break;
        }
        if (v == 0)
            *c0 = t.nchildren;
        for (int j = 0; j < t.nchildren && tail < size; j++) {
            const int w = t.children[j];
            d[w] = d[v] + (j + 1) * g + l;
            best = d[w] > best ? d[w] : best;
            order[tail++] = w;
        }
    }
    free(order);
    free(d);
    return best;
}

/* The node-aware tree by its parts (acct_layout_tree: a leader serves its
 * inter-node children, then its intra-node ones): over the N nodes the
 * inter tree's D(v) for each leader, the offset o(v) = D(v) + c_e(v)
 * g_e(s) at which it starts its node's tree, and that tree's longest path
 * I(size) at the intra-node level, one per node size (the first P % N
 * nodes one rank larger): max_v max(D(v), o(v) + I(size_v)). O(N + q)
 * time, O(N) memory, no layout of P ranks. */
double acct_cost_nodes_tree_path(const struct acct_cost *c, enum acct_tree_kind inter, int k,
                                 enum acct_tree_kind intra, uint64_t s, uint64_t ns, bool reduce)
{
    const int p = c->p, nodes = cost_nodes(c).nodes, small = p / nodes, big = p % nodes;
    const double red = reduce ? cost_gamma(c, s) : 0;
    const double ga = cost_g_intra(c, s) + red, ge = cost_g(c, s) + red;
    int ca[2]; /* [0]: nodes of small ranks, [1]: of small + 1 */
    const double ia[2] = {intra_path(intra, small, ga, cost_L_intra(c), &ca[0]),
                          intra_path(intra, small + 1, ga, cost_L_intra(c), &ca[1])};
    int *order = malloc((size_t)nodes * sizeof *order);
    double *d = calloc((size_t)nodes, sizeof *d), best = 0, pace = 0;
    int head = 0, tail = 0;
    struct acct_tree t;
    bool ok = order != NULL && d != NULL && !isnan(ia[0]) && !isnan(ia[1]);
    if (ok)
        order[tail++] = 0;
    while (ok && head < tail) {
        const int v = order[head++], big_v = v < big, size = small + big_v;
        if (acct_tree_build(inter, v, nodes, k, &t) != 0) {
            ok = false;
            break;
        }
        double at = d[v];
        for (int j = 0; j < t.nchildren && tail < nodes; j++) {
            const int w = t.children[j];
            at += ge;
            d[w] = at + cost_L(c);
            best = d[w] > best ? d[w] : best;
            order[tail++] = w;
        }
        if (size > 1 && at + ia[big_v] > best)
            best = at + ia[big_v];
        if (v == 0)
            pace = at - d[0] + ca[big_v] * ga; /* the root's sends of one segment */
    }
    free(order);
    free(d);
    return ok ? (double)(ns - 1) * pace + best : NAN;
}
