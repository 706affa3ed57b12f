/* Node-aware ring allgather (needs the layout, acct/layout.h):
 *   round 0   each node's ranks send their block to the node's leader (its
 *             lowest rank), which receives them into their places in RECV;
 *   rounds 1 .. N-1  the N leaders run a ring of node chunks: in round k
 *             leader n sends chunk k-1 to the next leader and receives
 *             chunk k from the previous one, where chunk k is node
 *             (n - k) mod N's blocks;
 *   and in every round from 1 the leader also sends the chunk it had
 *   before to its children in a binomial tree over its node, which forward
 *   each chunk one round later (the segmented tree broadcast of
 *   bcast/bcast_tree.c, with chunks as segments) — so the node's ranks get
 *   node chunks while the ring still runs.
 * A chunk is one message per run of consecutive ranks (one per node with
 * ranks placed in blocks). The node's link carries each other node's
 * blocks once, where a flat ring moves every block through every rank.
 * Cost (pLogP, ../cost.h): acct_allgather_hier_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

/* Node j's blocks in RECV to or from peer: a message per run of
 * consecutive ranks, in rank order (both ends cut them alike). */
static void chunk(const struct acct_call *c, struct acct_sched *s, int j, int peer, bool send)
{
    struct acct_run_msg m = {s, send, peer, ACCT_BUF_RECV, true, c->count};
    acct_layout_runs(c->layout, j, acct_run_msg, &m);
}

int acct_allgather_hier_ring(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    if (acct_hier_init(c, &h) != 0)
        return -1;
    if (c->count == 0)
        return 0;
    const int n = h.node, nn = h.nnodes;
    int next, prev;
    acct_hier_ring(&h, &next, &prev);
    struct acct_tree t; /* the node's binomial tree, rooted at the leader */
    if (acct_hier_tree(&h, &t, NULL) != 0)
        return -1;
#define CHUNK(k) ((n - (k) + nn) % nn) /* node of chunk k at this node */

    acct_allgather_hier_gather(c, &h, s);
    acct_sched_round(s);
    if (h.me == h.leader) {
        for (int k = 1; k <= nn; k++) {
            if (k < nn) {
                chunk(c, s, CHUNK(k - 1), next, true);
                chunk(c, s, CHUNK(k), prev, false);
            }
            for (int i = 0; i < t.nchildren; i++)
                chunk(c, s, CHUNK(k - 1), t.children[i], true);
            acct_sched_round(s);
        }
        return 0;
    }
    for (int k = 0; k <= nn; k++) {
        if (k < nn)
            chunk(c, s, CHUNK(k), t.parent, false);
        if (k >= 1)
            for (int i = 0; i < t.nchildren; i++)
                chunk(c, s, CHUNK(k - 1), t.children[i], true);
        if (t.nchildren > 0) /* a leaf keeps every receive in one round */
            acct_sched_round(s);
    }
#undef CHUNK
    return 0;
}

/* An estimate with N nodes of q ranks (cost_nodes.h), chunks of B = q m
 * bytes, d = ceil(log2 q) (the tree's depth and the leader's children),
 * the intra-node level a and the inter-node level e: the gather
 * (q - 1) g_a(m) + L_a, N - 1 ring rounds of
 * max(g_e(B) + L_e, g_e(B) + d g_a(B) + L_a) (the leader sends the ring's
 * chunk, then feeds its children; the next chunk arrives from the
 * previous leader), the last chunk down the tree d g_a(B) + d (g_a(B) +
 * L_a), and the own block's copy delta m. One leader per node crosses
 * nodes (the pair-duplex factor of a two-node ring left out). One rank
 * per node (no layout): the flat ring's
 * (P - 1)(g(m) + L). */
double acct_allgather_hier_ring_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    const int d = cost_clog2(n.q);
    const uint64_t b = (uint64_t)n.q * c->m;
    const double ge = cost_g(c, b), ga = cost_g_intra(c, b), la = cost_L_intra(c);
    double t = 0;
    if (n.nodes > 1) {
        const double ring = ge + cost_L(c), feed = ge + d * ga + (d > 0 ? la : 0);
        t += (n.nodes - 1) * (ring > feed ? ring : feed);
    }
    if (n.q > 1)
        t += (n.q - 1) * cost_g_intra(c, c->m) + la + d * ga + d * (ga + la);
    return t + cost_delta(c, c->m);
}
