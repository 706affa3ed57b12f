/* Node-aware dissemination barrier (needs the layout, acct/layout.h): each
 * node's ranks report up a binomial tree to the node's leader (its lowest
 * rank), the leaders run a dissemination barrier among themselves
 * (barrier_dissemination.c, appended with the leaders' ranks), and each
 * leader releases its node down the same tree. ceil(log2 N) steps cross
 * between nodes instead of ceil(log2 P); every message is empty.
 * Cost (pLogP, ../cost.h): acct_barrier_hier_dissemination_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_barrier_hier_dissemination(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    struct acct_tree t; /* the node's binomial tree, rooted at the leader */
    if (acct_hier_init(c, &h) != 0 || acct_hier_tree(&h, &t, NULL) != 0)
        return -1;
    int rc = 0;

    for (int i = 0; i < t.nchildren; i++) /* up: my subtree has arrived */
        acct_sched_recv(s, t.children[i], ACCT_BUF_RECV, 0, 0);
    acct_sched_round(s);
    if (t.parent >= 0) {
        acct_sched_send(s, t.parent, ACCT_BUF_RECV, 0, 0);
        acct_sched_recv(s, t.parent, ACCT_BUF_RECV, 0, 0); /* the release */
        acct_sched_round(s);
    } else if (h.nnodes > 1) { /* the leaders' barrier */
        struct acct_sched sub;
        struct acct_call x = *c;
        acct_sched_init(&sub);
        x.rank = h.node;
        x.size = h.nnodes;
        x.layout = NULL;
        rc = acct_barrier_dissemination(&x, &sub);
        if (rc == 0)
            rc = acct_hier_append_leaders(&h, s, &sub);
        acct_sched_free(&sub);
    }
    for (int i = 0; i < t.nchildren; i++) /* down */
        acct_sched_send(s, t.children[i], ACCT_BUF_RECV, 0, 0);
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
