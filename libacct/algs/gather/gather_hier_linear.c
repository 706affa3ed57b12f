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
    const struct acct_layout *l = c->layout;
    if (l == NULL || l->size != c->size)
        return -1;
    const int me = c->rank, n = l->node[me], ppn = acct_layout_ppn(l, n);
    const int leader = acct_layout_leader(l, n, c->root);
    if (me != leader) {
        if (c->scount > 0)
            acct_sched_send(s, leader, ACCT_BUF_SEND, 0, c->scount);
        return 0;
    }
    if (me == c->root) {
        if (c->count == 0)
            return 0;
        acct_gather_intra_root(c, s);
        for (int j = 0; j < l->nnodes; j++)
            if (j != n) {
                struct acct_run_msg m = {s, false, acct_layout_leader(l, j, c->root), ACCT_BUF_RECV,
                                         true, c->count};
                acct_layout_runs(l, j, acct_run_msg, &m);
            }
        return 0;
    }
    if (c->scount == 0) /* a non-root knows only its own (send) count */
        return 0;
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, (uint64_t)ppn * c->scount);
    acct_gather_intra_leader(c, s);
    acct_sched_round(s);
    struct acct_run_msg m = {s, true, c->root, ACCT_BUF_TMP0, false, c->scount};
    acct_layout_runs(l, n, acct_run_msg, &m);
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
