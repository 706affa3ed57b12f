/* Node-aware linear scatter (needs the layout, acct/layout.h), the mirror
 * of gather hier_linear: the root sends each other node's leader (its
 * lowest rank) that node's blocks, one message per run of consecutive
 * ranks (one per node when ranks are placed in blocks), and its own node's
 * ranks their blocks; a leader receives its node's blocks in scratch and
 * hands each rank of its node its block.
 * Cost (pLogP, ../cost.h): acct_scatter_hier_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

int acct_scatter_hier_linear(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    if (acct_hier_init(c, &h) != 0)
        return -1;
    switch (acct_hier_rooted_role(c, &h, s, false)) {
    case ACCT_HIER_DONE:
        return 0;
    case ACCT_HIER_ROOT:
        for (int j = 0; j < h.nnodes; j++) /* the other nodes first: the longer way */
            if (j != h.node) {
                struct acct_run_msg m = {s, true, acct_hier_leader(&h, j), ACCT_BUF_SEND, true,
                                         c->scount};
                acct_layout_runs(h.l, j, acct_run_msg, &m);
            }
        acct_scatter_intra_root(c, &h, s);
        return 0;
    case ACCT_HIER_LEADER:
        break;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)h.ppn * c->count);
    struct acct_run_msg m = {s, false, c->root, ACCT_BUF_TMP0, false, c->count};
    acct_layout_runs(h.l, h.node, acct_run_msg, &m);
    acct_sched_round(s);
    acct_scatter_intra_leader(c, &h, s);
    return 0;
}

/* N = c->nodes nodes of q = ceil(P/N) ranks, the intra-node level a
 * (cost_*_intra) and the inter-node level e (net): the root sends the N - 1
 * node messages one gap apart, the last arrives at (N - 1) g_e(q m) + L_e;
 * that leader then hands out q - 1 blocks and copies its own, the tail
 *   H = max((q - 1) g_a(m) + L_a, (q - 2) g_a(m) + os_a(m) + delta m)
 * (q = 1: delta m), so
 *   T = (N - 1) g_e(q m) + L_e + H      (the root's own node is served
 *                                        after the others, within this)
 *   T = H                               (one node)
 * Equals the simulation for ranks in blocks on full nodes (N divides P),
 * with and without a measured NIC factor (docs/models.md); other layouts:
 * an estimate with the largest node. One rank per node (no layout): the
 * flat tree's (P - 1) g(m) + L and the copy. */
double acct_scatter_hier_nodes_tail(const struct acct_cost *c, int q)
{
    if (q <= 1)
        return cost_delta(c, c->m);
    const double a = (q - 1) * cost_g_intra(c, c->m) + cost_L_intra(c);
    const double b = (q - 2) * cost_g_intra(c, c->m) + cost_os_intra(c, c->m) + cost_delta(c, c->m);
    return a > b ? a : b;
}

double acct_scatter_hier_linear_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    const int nodes = n.nodes, q = n.q;
    const uint64_t b = (uint64_t)q * c->m;
    double t = acct_scatter_hier_nodes_tail(c, q);
    if (nodes > 1)
        t += (nodes - 1) * cost_g(c, b) + cost_L(c);
    return t;
}
