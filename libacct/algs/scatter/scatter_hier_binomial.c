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
#include "../cost.h"

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

/* N = c->nodes nodes of q = ceil(P/N) ranks: a binomial tree over the N
 * nodes carries node blocks of q m (scatter binomial's closed form with N
 * for P, q m for m), then a leader hands out q - 1 blocks, (q - 1) g(m)
 * + L; copies delta m. An estimate (the root's sends to its own node, and
 * its copies into scratch when a subtree's ranks are not consecutive, are
 * left out); one rank per node: scatter binomial's. */
double acct_scatter_hier_binomial_cost(const struct acct_cost *c)
{
    const int nodes = c->nodes > 0 && c->nodes <= c->p ? c->nodes : c->p;
    const int q = (c->p + nodes - 1) / nodes;
    const uint64_t b = (uint64_t)q * c->m;
    struct acct_cost cn = *c;
    cn.p = nodes;
    double t = 0;
    if (nodes > 1)
        t += cost_pow2(nodes) ? acct_cost_binomial_blocks(&cn, b)
                              : acct_cost_binomial_down(&cn, b, NULL);
    if (q > 1)
        t += (q - 1) * cost_g(c, c->m) + cost_L(c) + cost_delta(c, c->m);
    return t;
}
