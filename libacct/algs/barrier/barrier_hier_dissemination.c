/* Node-aware dissemination barrier (needs the layout, acct/layout.h): each
 * node's ranks report up a binomial tree to the node's leader (its lowest
 * rank), the leaders run a dissemination barrier among themselves
 * (barrier_dissemination.c, appended with the leaders' ranks), and each
 * leader releases its node down the same tree. ceil(log2 N) steps cross
 * between nodes instead of ceil(log2 P); every message is empty.
 * Cost (pLogP, ../cost.h): acct_barrier_hier_dissemination_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

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

/* N nodes of q ranks (cost_nodes.h): the arrival up the node's binomial
 * tree at the intra-node level (gather binomial's recursion of empty
 * messages: U, the leader's last receive), the leaders' dissemination
 * among N at the inter-node level, ceil(log2 N)(g_e(0) + L_e), started
 * alike on full nodes (N = 2^k: the last round's partner is both the
 * leader it sends to and the one it hears from, its gap g_e(0) D with the
 * pair-duplex factor D), then the release down the node's tree from there
 * (scatter binomial's recursion of empty messages). One rank per node
 * (no layout): the flat dissemination's form. */
double acct_barrier_hier_dissemination_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    struct acct_cost xe = cost_phase(c, n.nodes, false, 0, 0, 0);
    double t = acct_cost_alg(ACCT_COLL_barrier, "dissemination", &xe);
    if (n.nodes > 1 && cost_pow2(n.nodes))
        t += cost_duplex_g(c, 0) - cost_g(c, 0); /* the last round's partner both ways */
    if (n.q == 1 || isnan(t))
        return t;
    struct acct_cost xa = cost_phase(c, n.q, true, 0, 0, 0);
    double *u = calloc((size_t)n.q, sizeof *u);
    double up = u != NULL ? acct_cost_binomial_up(&xa, 0, u) : NAN;
    free(u);
    const double start = up + t;
    return isnan(up) ? NAN : acct_cost_binomial_down(&xa, 0, &start);
}
