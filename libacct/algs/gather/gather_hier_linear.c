/* Node-aware linear gather (needs the layout, acct/layout.h): each node's
 * ranks send their block to the node's leader (the root on its node, the
 * lowest rank elsewhere); a leader other than the root collects its node's
 * blocks in scratch and sends them on to the root, one message per run of
 * consecutive ranks (one per node when ranks are placed in blocks), which
 * the root receives straight into place. The root's link takes N - 1 node
 * messages and its own node's blocks instead of P - 1 blocks.
 * Cost (pLogP, ../cost.h): acct_gather_hier_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

int acct_gather_hier_linear(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    if (acct_hier_init(c, &h) != 0)
        return -1;
    switch (acct_hier_rooted_role(c, &h, s, true)) {
    case ACCT_HIER_DONE:
        return 0;
    case ACCT_HIER_ROOT:
        acct_gather_intra_root(c, &h, s);
        for (int j = 0; j < h.nnodes; j++)
            if (j != h.node) {
                struct acct_run_msg m = {s, false, acct_hier_leader(&h, j), ACCT_BUF_RECV, true,
                                         c->count};
                acct_layout_runs(h.l, j, acct_run_msg, &m);
            }
        return 0;
    case ACCT_HIER_LEADER:
        break;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, (uint64_t)h.ppn * c->scount);
    acct_gather_intra_leader(c, &h, s);
    acct_sched_round(s);
    struct acct_run_msg m = {s, true, c->root, ACCT_BUF_TMP0, false, c->scount};
    acct_layout_runs(h.l, h.node, acct_run_msg, &m);
    return 0;
}

/* N = c->nodes nodes of q = ceil(P/N) ranks, the intra-node level a
 * (cost_*_intra; acct_cost.intra) and the inter-node level e (net). The
 * q - 1 blocks of a node arrive at its leader at g_a(m) + L_a and are
 * taken one receive gap apart; a leader then copies its own block into
 * scratch:
 *   E = max(g_a(m) + L_a, or_a(m)) + (q - 2) g_a(m) + delta m   (q = 1: delta m)
 * The root copies its own block first (a round of its own: the blocks
 * arrive meanwhile), so its receives start at delta m; its node's blocks
 * are done at R = max(g_a(m) + L_a, delta m + or_a(m)) + (q - 2) g_a(m)
 * (q = 1: 0), and the N - 1 node messages, all arriving at
 * A = E + g_e(q m) + L_e, one receive gap g_r apart after them, g_r =
 * g_e(q m) max(1, f(N - 1) / (N - 1)) (the N - 1 flows into the root's
 * node share its link: the simulator's NIC sharing, cost_nic_in):
 *   T = max(A, delta m + or_e(q m), R + g_r) + (N - 2) g_r
 *   T = R                                                 (one node)
 * Equals the simulation for ranks in blocks on full nodes (N divides P),
 * with and without a measured NIC factor (docs/models.md, "Node-aware
 * methods"); other
 * layouts: an estimate with the largest node. One rank per node (q = 1,
 * no layout): the flat tree's (P - 1) g(m) + L and the copies. */
double acct_gather_hier_linear_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    const int nodes = n.nodes, q = n.q;
    const uint64_t b = (uint64_t)q * c->m;
    const double dm = cost_delta(c, c->m), ga = cost_g_intra(c, c->m);
    const double arr = ga + cost_L_intra(c), orr = cost_or_intra(c, c->m);
    const double e = (q > 1 ? fmax(arr, orr) + (q - 2) * ga : 0) + dm;
    const double r = q > 1 ? fmax(arr, dm + orr) + (q - 2) * ga : 0;
    if (nodes == 1)
        return r;
    /* the root takes the N - 1 node messages one receive gap gr apart: its
     * N - 1 flows in share its node's link (cost_nic_in) */
    const double ge = cost_g(c, b), gr = ge * cost_nic_in(c, nodes - 1, nodes - 1);
    const double first = fmax(fmax(e + ge + cost_L(c), dm + cost_or(c, b)), r + gr);
    return first + (nodes - 2) * gr;
}
