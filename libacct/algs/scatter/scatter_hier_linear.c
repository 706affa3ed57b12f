/* Node-aware linear scatter (needs the layout, acct/layout.h), the mirror
 * of gather hier_linear: the root sends each other node's leader (its
 * lowest rank) that node's blocks, one message per run of consecutive
 * ranks (one per node when ranks are placed in blocks), and its own node's
 * ranks their blocks; a leader receives its node's blocks in scratch and
 * hands each rank of its node its block.
 * Cost (pLogP, ../cost.h): acct_scatter_hier_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scatter_hier_linear(const struct acct_call *c, struct acct_sched *s)
{
    const struct acct_layout *l = c->layout;
    if (l == NULL || l->size != c->size)
        return -1;
    const int me = c->rank, n = l->node[me], ppn = acct_layout_ppn(l, n);
    const int leader = acct_layout_leader(l, n, c->root);
    if (me != leader) {
        if (c->count > 0)
            acct_sched_recv(s, leader, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    if (me == c->root) {
        if (c->scount == 0)
            return 0;
        for (int j = 0; j < l->nnodes; j++) /* the other nodes first: the longer way */
            if (j != n) {
                struct acct_run_msg m = {s, true, acct_layout_leader(l, j, c->root), ACCT_BUF_SEND,
                                         true, c->scount};
                acct_layout_runs(l, j, acct_run_msg, &m);
            }
        acct_scatter_intra_root(c, s);
        return 0;
    }
    if (c->count == 0) /* a non-root knows only its own (receive) count */
        return 0;
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)ppn * c->count);
    struct acct_run_msg m = {s, false, c->root, ACCT_BUF_TMP0, false, c->count};
    acct_layout_runs(l, n, acct_run_msg, &m);
    acct_sched_round(s);
    acct_scatter_intra_leader(c, s);
    return 0;
}

/* N = c->nodes nodes of q = ceil(P/N) ranks: the root sends N - 1 node
 * messages, then its own node's blocks, (N - 1) g(q m) + (q - 1) g(m) + L,
 * and a leader hands out q - 1 blocks, (q - 1) g(m) + L; copies delta m.
 * An estimate; one rank per node: the flat tree's (P - 1) g(m) + L. */
double acct_scatter_hier_linear_cost(const struct acct_cost *c)
{
    const int nodes = c->nodes > 0 && c->nodes <= c->p ? c->nodes : c->p;
    const int q = (c->p + nodes - 1) / nodes;
    const uint64_t b = (uint64_t)q * c->m;
    double t = (nodes - 1) * cost_g(c, b) + (q - 1) * cost_g(c, c->m) + cost_L(c);
    if (q > 1 && nodes > 1)
        t += (q - 1) * cost_g(c, c->m) + cost_L(c) + cost_delta(c, c->m);
    return t;
}
