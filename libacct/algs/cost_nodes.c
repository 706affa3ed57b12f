/* The node-aware methods' shared closed-form pieces (cost_nodes.h). */
#include "cost_nodes.h"

#include <math.h>
#include <stdlib.h>

#include "algs.h"
#include "acct/layout.h"

double acct_cost_alg(enum acct_coll_id coll, const char *name, const struct acct_cost *x)
{
    const struct acct_alg *a = acct_alg_find(coll, name);
    if (a == NULL || a->cost == NULL)
        return NAN;
    if (x->p <= 1 || (coll != ACCT_COLL_barrier && x->m == 0))
        return 0; /* nothing moves (acct_model_closed_form's rule) */
    return a->cost(x);
}

double acct_cost_nodes_tree_path(const struct acct_cost *c, enum acct_tree_kind inter, int k,
                                 enum acct_tree_kind intra, uint64_t s, uint64_t ns, bool reduce)
{
    const int p = c->p, nodes = cost_nodes(c).nodes;
    int *key = calloc((size_t)p, sizeof *key), *order = calloc((size_t)p, sizeof *order);
    double *d = calloc((size_t)p, sizeof *d), best = 0, pace = 0;
    struct acct_layout l = {0};
    struct acct_tree t;
    int head = 0, tail = 0;
    bool ok = key != NULL && order != NULL && d != NULL;
    for (int r = 0, n = 0, left = 0; ok && r < p; r++) { /* blocks: p/nodes, some one more */
        if (left == 0)
            left = p / nodes + (n++ < p % nodes ? 1 : 0);
        key[r] = n;
        left--;
    }
    ok = ok && acct_layout_build(&l, p, key) == 0;
    if (ok)
        order[tail++] = 0;
    const double red = reduce ? cost_gamma(c, s) : 0;
    const double ga = cost_g_intra(c, s) + red, ge = cost_g(c, s) + red;
    while (ok && head < tail) {
        int v = order[head++];
        if (acct_layout_tree(&l, v, 0, inter, k, intra, 2, &t) != 0) {
            ok = false;
            break;
        }
        double at = d[v];
        for (int j = 0; j < t.nchildren && tail < p; j++) {
            int w = t.children[j];
            const bool same = l.node[w] == l.node[v];
            at += same ? ga : ge;
            d[w] = at + (same ? cost_L_intra(c) : cost_L(c));
            best = d[w] > best ? d[w] : best;
            order[tail++] = w;
        }
        if (v == 0)
            pace = at; /* the root's sends of one segment */
    }
    acct_layout_free(&l);
    free(key);
    free(order);
    free(d);
    return ok ? (double)(ns - 1) * pace + best : NAN;
}
