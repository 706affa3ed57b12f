/* Node-aware binomial gather (needs the layout, acct/layout.h): each
 * node's ranks send their block to the node's leader (the root on its
 * node, the lowest rank elsewhere), as in hier_linear; the leaders then
 * gather up a binomial tree over the nodes (node vranks from the root's
 * node, acct_gather_nodes in gather.h). A leader collects its subtree's
 * blocks in scratch, node after node, each node's in its members' order
 * (nodes of different sizes: the layout gives every leader the offsets),
 * and sends them to its parent's leader in one message. The root receives
 * each child's subtree straight into place when its ranks are consecutive
 * (blocks placement), else in scratch, then copies each run of consecutive
 * ranks into place. The root's link takes log2 N node-aggregated messages
 * instead of hier_linear's N - 1.
 * Cost (pLogP, ../cost.h): acct_gather_hier_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

static void root_phase(const struct acct_call *c, struct acct_sched *s,
                       const struct acct_gather_nodes *t)
{
    const struct acct_layout *l = t->l;
    bool copies = false;
    for (int i = 0; i < t->t.nchildren; i++) {
        const int ch = t->t.children[i], peer = acct_gather_nodes_leader(t, ch);
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, l->nnodes, 2);
        const uint64_t n = (uint64_t)acct_gather_nodes_ranks(t, ch, ch + span) * c->count;
        int first;
        if (acct_gather_nodes_contiguous(t, ch, span, &first)) {
            acct_sched_recv(s, peer, ACCT_BUF_RECV, (uint64_t)first * c->count, n);
            continue;
        }
        if (!copies)
            acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV,
                           (uint64_t)acct_gather_nodes_ranks(t, 1, l->nnodes) * c->count);
        copies = true;
        acct_sched_recv(s, peer, ACCT_BUF_TMP0,
                        (uint64_t)acct_gather_nodes_ranks(t, 1, ch) * c->count, n);
    }
    for (int i = 0; copies && i < t->t.nchildren; i++) {
        const int ch = t->t.children[i];
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, l->nnodes, 2);
        int first;
        if (acct_gather_nodes_contiguous(t, ch, span, &first))
            continue;
        struct acct_gather_nodes_copy m = {s, true, ACCT_BUF_TMP0,
                                           (uint64_t)acct_gather_nodes_ranks(t, 1, ch), c->count};
        acct_gather_nodes_copy(t, ch, span, &m);
    }
}

int acct_gather_hier_binomial(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    struct acct_gather_nodes t;
    if (acct_hier_init(c, &h) != 0 || acct_gather_nodes_build(&h, &t) != 0)
        return -1;
    switch (acct_hier_rooted_role(c, &h, s, true)) {
    case ACCT_HIER_DONE:
        return 0;
    case ACCT_HIER_ROOT:
        acct_gather_intra_root(c, &h, s);
        root_phase(c, s, &t);
        return 0;
    case ACCT_HIER_LEADER:
        break;
    }
    const uint64_t blocks = (uint64_t)acct_gather_nodes_ranks(&t, t.v, t.v + t.span);
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, blocks * c->scount);
    acct_gather_intra_leader(c, &h, s); /* its node's blocks first */
    for (int i = 0; i < t.t.nchildren; i++) {
        const int ch = t.t.children[i];
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, h.nnodes, 2);
        acct_sched_recv(s, acct_gather_nodes_leader(&t, ch), ACCT_BUF_TMP0,
                        (uint64_t)acct_gather_nodes_ranks(&t, t.v, ch) * c->scount,
                        (uint64_t)acct_gather_nodes_ranks(&t, ch, ch + span) * c->scount);
    }
    acct_sched_round(s);
    acct_sched_send(s, acct_gather_nodes_leader(&t, t.t.parent), ACCT_BUF_TMP0, 0,
                    blocks * c->scount);
    return 0;
}

/* N = c->nodes nodes of q = ceil(P/N) ranks, the intra-node level a
 * (cost_*_intra) and the inter-node level e (net): every leader takes its
 * node's q - 1 blocks and copies its own, E as in hier_linear's form (the
 * copy ends that round: a leader with children takes their node messages
 * in the next one), then the leaders gather up a binomial tree over the N
 * nodes with node blocks of q m at level e: gather binomial's recursion
 * (acct_cost_binomial_up_at) with the leaves at E; the root copied its own
 * block before its receives (its node's blocks, taken first, are done
 * before the first node message arrives). N = 2^k:
 *   T = E + sum_{j<k} g_e(2^j q m) + k L_e
 * Equals the simulation for ranks in blocks on full nodes (N divides P)
 * where or(x) <= g(x) + L, without NIC sharing (docs/models.md); other
 * layouts: an estimate with the largest node (the root's copies out of
 * scratch when a subtree's ranks are not consecutive are left out). One
 * rank per node (no layout): gather binomial's with the copies. */
double acct_gather_hier_binomial_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    const int nodes = n.nodes, q = n.q;
    const uint64_t b = (uint64_t)q * c->m;
    const double dm = cost_delta(c, c->m), ga = cost_g_intra(c, c->m);
    const double arr = ga + cost_L_intra(c), orr = cost_or_intra(c, c->m);
    const double e = (q > 1 ? fmax(arr, orr) + (q - 2) * ga : 0) + dm;
    if (nodes == 1)
        return q > 1 ? fmax(arr, dm + orr) + (q - 2) * ga : 0;
    struct acct_cost cn = *c;
    cn.p = nodes;
    if (cost_pow2(nodes))
        return e + acct_cost_binomial_blocks(&cn, b);
    double *u = calloc((size_t)nodes, sizeof *u);
    double t = u != NULL ? acct_cost_binomial_up_at(&cn, b, u, e, 0) : NAN;
    free(u);
    return t;
}
