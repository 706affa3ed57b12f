/* Node-aware binomial scatter (needs the layout, acct/layout.h), the mirror
 * of gather hier_binomial: the root scatters node-aggregated blocks down a
 * binomial tree over the nodes' leaders (node vranks from the root's node,
 * acct_gather_nodes in ../gather/gather.h), then each leader hands the
 * ranks of its node their blocks, as in hier_linear. A leader receives its
 * subtree's blocks in scratch in one message, node after node, each node's
 * in its members' order (nodes of different sizes: the layout gives every
 * leader the offsets), and passes each child's part on in one message. The
 * root sends a child's subtree straight from its send buffer when its
 * ranks are consecutive (blocks placement), else copies each run of
 * consecutive ranks into scratch first. The root's link sends log2 N
 * node-aggregated messages instead of hier_linear's N - 1.
 * Cost (pLogP, ../cost.h): acct_scatter_hier_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

static void root_phase(const struct acct_call *c, struct acct_sched *s,
                       const struct acct_gather_nodes *t)
{
    const struct acct_layout *l = t->l;
    bool copies = false;
    int first;
    for (int i = 0; i < t->t.nchildren; i++) { /* scratch for the scattered subtrees */
        const int ch = t->t.children[i];
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, l->nnodes, 2);
        if (acct_gather_nodes_contiguous(t, ch, span, &first))
            continue;
        if (!copies)
            acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND,
                           (uint64_t)acct_gather_nodes_ranks(t, 1, l->nnodes) * c->scount);
        copies = true;
        struct acct_gather_nodes_copy m = {s, false, ACCT_BUF_TMP0,
                                           (uint64_t)acct_gather_nodes_ranks(t, 1, ch), c->scount};
        acct_gather_nodes_copy(t, ch, span, &m);
    }
    acct_sched_round(s);
    for (int i = 0; i < t->t.nchildren; i++) {
        const int ch = t->t.children[i], peer = acct_gather_nodes_leader(t, ch);
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, l->nnodes, 2);
        const uint64_t n = (uint64_t)acct_gather_nodes_ranks(t, ch, ch + span) * c->scount;
        if (acct_gather_nodes_contiguous(t, ch, span, &first))
            acct_sched_send(s, peer, ACCT_BUF_SEND, (uint64_t)first * c->scount, n);
        else
            acct_sched_send(s, peer, ACCT_BUF_TMP0,
                            (uint64_t)acct_gather_nodes_ranks(t, 1, ch) * c->scount, n);
        acct_sched_round(s); /* one child at a time, largest subtree first */
    }
}

int acct_scatter_hier_binomial(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    struct acct_gather_nodes t;
    if (acct_hier_init(c, &h) != 0 || acct_gather_nodes_build(&h, &t) != 0)
        return -1;
    switch (acct_hier_rooted_role(c, &h, s, false)) {
    case ACCT_HIER_DONE:
        return 0;
    case ACCT_HIER_ROOT:
        root_phase(c, s, &t); /* the other nodes first: the longer way */
        acct_scatter_intra_root(c, &h, s);
        return 0;
    case ACCT_HIER_LEADER:
        break;
    }
    const uint64_t blocks = (uint64_t)acct_gather_nodes_ranks(&t, t.v, t.v + t.span);
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, blocks * c->count);
    acct_sched_recv(s, acct_gather_nodes_leader(&t, t.t.parent), ACCT_BUF_TMP0, 0,
                    blocks * c->count);
    acct_sched_round(s);
    for (int i = 0; i < t.t.nchildren; i++) { /* the other nodes first */
        const int ch = t.t.children[i];
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, h.nnodes, 2);
        acct_sched_send(s, acct_gather_nodes_leader(&t, ch), ACCT_BUF_TMP0,
                        (uint64_t)acct_gather_nodes_ranks(&t, t.v, ch) * c->count,
                        (uint64_t)acct_gather_nodes_ranks(&t, ch, ch + span) * c->count);
        acct_sched_round(s); /* one child at a time, largest subtree first */
    }
    acct_scatter_intra_leader(c, &h, s);
    return 0;
}

/* N = c->nodes nodes of q = ceil(P/N) ranks, the intra-node level a
 * (cost_*_intra) and the inter-node level e (net): a binomial tree over
 * the N nodes carries node blocks of q m at level e (scatter binomial's
 * recursion; a leader sends each child in a round of its own, so its sends
 * are s(x) = max(g_e(x), os_e(x)) apart: D(w_j) = D(v) + sum_{i < j}
 * s(span_i q m) + g_e(span_j q m) + L_e); a leader, once it has sent its
 * last child, hands out its node's blocks, the tail H of
 * acct_scatter_hier_nodes_tail (hier_linear's):
 *   T = max_v (D(v) + sum_j s(span_j q m)) + H
 *     = sum_{j<k} g_e(2^j q m) + k L_e + H    (N = 2^k, os_e <= g_e there)
 * Equals the simulation for ranks in blocks on full nodes (N divides P),
 * with and without a measured NIC factor (docs/models.md); other layouts:
 * an estimate with the largest node (the root's copies into scratch when a
 * subtree's ranks are not consecutive are left out). One rank per node (no
 * layout): scatter binomial's and the copy. */
double acct_scatter_hier_binomial_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    const int nodes = n.nodes, q = n.q;
    const uint64_t b = (uint64_t)q * c->m;
    const double h = acct_scatter_hier_nodes_tail(c, q);
    if (nodes == 1)
        return h;
    struct acct_cost cn = *c;
    cn.p = nodes;
    /* N = 2^k: the sum, unless a send's os outlasts its gap somewhere */
    bool sum = cost_pow2(nodes);
    for (uint64_t x = b; sum && x < (uint64_t)nodes * b; x *= 2)
        sum = cost_os(c, x) <= cost_g(c, x);
    return sum ? acct_cost_binomial_blocks(&cn, b) + h : acct_cost_binomial_down_tail(&cn, b, h);
}
