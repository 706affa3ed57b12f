/* Node-aware linear gather (needs the layout, acct/layout.h): each node's
 * ranks send their block to the node's leader (the root on its node, the
 * lowest rank elsewhere); a leader other than the root collects its node's
 * blocks in scratch and sends them on to the root, one message per run of
 * consecutive ranks (one per node when ranks are placed in blocks), which
 * the root receives straight into place. The root's link takes N - 1 node
 * messages and its own node's blocks instead of P - 1 blocks.
 * Cost (pLogP, ../cost.h): acct_gather_hier_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

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

/* N = c->nodes nodes of q = ceil(P/N) ranks: a leader takes q - 1 blocks,
 * (q - 1) g(m) + L, then the root takes N - 1 node messages after its own
 * node's blocks, (N - 1) g(q m) + L; copies delta q m. An estimate; one
 * rank per node: the flat tree's (P - 1) g(m) + L. */
double acct_gather_hier_linear_cost(const struct acct_cost *c)
{
    const int nodes = c->nodes > 0 && c->nodes <= c->p ? c->nodes : c->p;
    const int q = (c->p + nodes - 1) / nodes;
    const uint64_t b = (uint64_t)q * c->m;
    double t = nodes > 1 ? (nodes - 1) * cost_g(c, b) + cost_L(c) : 0;
    if (q > 1)
        t += (q - 1) * cost_g(c, c->m) + cost_L(c) + cost_delta(c, b);
    return t;
}
