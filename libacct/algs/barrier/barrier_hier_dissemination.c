/* Node-aware dissemination barrier (needs the layout, acct/layout.h): each
 * node's ranks report up a binomial tree to the node's leader (its lowest
 * rank), the leaders run a dissemination barrier among themselves
 * (barrier_dissemination.c, appended with the leaders' ranks), and each
 * leader releases its node down the same tree. ceil(log2 N) steps cross
 * between nodes instead of ceil(log2 P); every message is empty.
 * Cost (pLogP, ../cost.h): acct_barrier_hier_dissemination_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

#include <stdlib.h>

int acct_barrier_hier_dissemination(const struct acct_call *c, struct acct_sched *s)
{
    const struct acct_layout *l = c->layout;
    if (l == NULL || l->size != c->size)
        return -1;
    const int n = l->node[c->rank], base = l->first[n], ppn = acct_layout_ppn(l, n);
    struct acct_tree t; /* the node's binomial tree, rooted at the leader (local 0) */
    if (acct_tree_build(ACCT_TREE_BINOMIAL, l->local[c->rank], ppn, 2, &t) != 0)
        return -1;
    const int parent = t.parent < 0 ? -1 : l->members[base + t.parent];
    int rc = 0;

    for (int i = 0; i < t.nchildren; i++) /* up: my subtree has arrived */
        acct_sched_recv(s, l->members[base + t.children[i]], ACCT_BUF_RECV, 0, 0);
    acct_sched_round(s);
    if (parent >= 0) {
        acct_sched_send(s, parent, ACCT_BUF_RECV, 0, 0);
        acct_sched_recv(s, parent, ACCT_BUF_RECV, 0, 0); /* the release */
        acct_sched_round(s);
    } else if (l->nnodes > 1) { /* the leaders' barrier */
        struct acct_sched sub;
        struct acct_call x = *c;
        int *leaders = malloc((size_t)l->nnodes * sizeof *leaders);
        acct_sched_init(&sub);
        x.rank = n;
        x.size = l->nnodes;
        x.layout = NULL;
        rc = leaders == NULL ? -1 : acct_barrier_dissemination(&x, &sub);
        for (int i = 0; rc == 0 && i < l->nnodes; i++)
            leaders[i] = l->members[l->first[i]];
        if (rc == 0)
            acct_sched_append(s, &sub, leaders);
        acct_sched_free(&sub);
        free(leaders);
    }
    for (int i = 0; i < t.nchildren; i++) /* down */
        acct_sched_send(s, l->members[base + t.children[i]], ACCT_BUF_RECV, 0, 0);
    return rc;
}

/* N = c->nodes nodes of q = ceil(P/N) ranks, d = ceil(log2 q): up and down
 * the node's tree, 2 d (g(0) + L) on its longest path (a node serves its
 * children one gap apart: + (d - 1) g(0) each way, as the binomial tree
 * path), and ceil(log2 N)(g(0) + L) among the leaders. An estimate; one
 * rank per node: the flat dissemination's form. */
double acct_barrier_hier_dissemination_cost(const struct acct_cost *c)
{
    const int nodes = c->nodes > 0 && c->nodes <= c->p ? c->nodes : c->p;
    const int q = (c->p + nodes - 1) / nodes, d = cost_clog2(q);
    double hop = cost_g(c, 0) + cost_L(c);
    return cost_clog2(nodes) * hop + (q > 1 ? 2 * (d * hop + (d - 1) * cost_g(c, 0)) : 0);
}
