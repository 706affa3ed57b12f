/* Node-aware ring allgather pipelined by segments (segment size its
 * parameter; needs the layout, acct/layout.h). The phases of hier_ring
 * (allgather_hier_ring.c) with every node chunk cut into pieces of at most
 * seg elements (one piece per run of consecutive ranks when seg is 0):
 *   round 0   each node's ranks send their block to the node's leader (its
 *             lowest rank);
 *   then, on a lockstep timeline (allreduce/allreduce_lockstep.c), piece i
 *   of hop h (the chunk of node (n - h) mod N at leader n, h = 0 .. N-1):
 *             the leader sends it to the next leader (h < N-1) and to its
 *             children in the node's binomial tree at round 1 + i + h; the
 *             next leader receives it there as its hop h+1; a rank at depth
 *             d of the tree receives it at round i + h + d and passes it to
 *             its children one round later.
 * So the ring of one hop's piece i runs with the ring of its piece i+1 of
 * the hop before and the intra-node tree of the pieces already in, instead
 * of each round waiting for a whole node chunk to cross a link: many
 * messages of at most a segment are in flight at once (below the MPI
 * library's eager limit, no rendezvous per chunk), and the last chunk's
 * trip down the node costs depth rounds of a segment, not of a chunk.
 * Both ends of every message place it in the same round, and the messages
 * between a pair within a round in the same order (hop, then piece), which
 * is what the lockstep needs (allreduce_lockstep.c).
 * Cost (pLogP, ../cost.h): acct_allgather_hier_pipelined_cost at the end
 * of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

struct pipe {
    const struct acct_call *c;
    struct acct_lockstep *t;
    const struct acct_tree *tree;
    int depth;       /* this rank's depth in its node's tree (0: the leader) */
    int next, prev;  /* leaders' ring neighbours (leader only) */
    int h, nnodes;   /* the hop being placed, nodes */
    uint64_t seg, i; /* segment (elements, 0 = none), the next piece's index */
};

/* One piece RECV[off, off + n) of hop p->h: this rank's messages. */
static void piece(struct pipe *p, uint64_t off, uint64_t n)
{
    const uint32_t r = (uint32_t)(p->i + (uint64_t)p->h + (uint64_t)p->depth);
    if (p->depth == 0) { /* the leader: r = i + h */
        if (p->h < p->nnodes - 1)
            acct_lockstep_msg(p->t, r + 1, true, p->next, ACCT_BUF_RECV, off, n);
        if (p->h > 0)
            acct_lockstep_msg(p->t, r, false, p->prev, ACCT_BUF_RECV, off, n);
    } else {
        acct_lockstep_msg(p->t, r, false, p->tree->parent, ACCT_BUF_RECV, off, n);
    }
    for (int k = 0; k < p->tree->nchildren; k++)
        acct_lockstep_msg(p->t, r + 1, true, p->tree->children[k], ACCT_BUF_RECV, off, n);
    p->i++;
}

/* acct_layout_run_fn: a run of consecutive ranks cut into pieces. */
static void run_pieces(void *ctx, int i0, int r0, int len)
{
    struct pipe *p = ctx;
    (void)i0;
    const uint64_t block = p->c->count, first = (uint64_t)r0 * block;
    const uint64_t total = (uint64_t)len * block;
    const uint64_t step = p->seg == 0 ? total : p->seg;
    for (uint64_t off = 0; off < total; off += step)
        piece(p, first + off, total - off < step ? total - off : step);
}

int acct_allgather_hier_pipelined(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    if (acct_hier_init(c, &h) != 0)
        return -1;
    if (c->count == 0)
        return 0;
    const int n = h.node, nn = h.nnodes;
    struct acct_tree t; /* the node's binomial tree, rooted at the leader */
    struct pipe p = {.c = c, .tree = &t, .nnodes = nn, .seg = c->seg};
    if (acct_hier_tree(&h, &t, &p.depth) != 0)
        return -1;
    acct_hier_ring(&h, &p.next, &p.prev);

    /* round 0: the node's blocks into their places at the leader (its own
     * place comes back to a non-leader with hop 0) */
    acct_allgather_hier_gather(c, &h, s);
    acct_sched_round(s);

    struct acct_lockstep ls;
    acct_lockstep_init(&ls);
    p.t = &ls;
    for (p.h = 0; p.h < nn; p.h++) {
        p.i = 0;
        acct_layout_runs(h.l, (n - p.h + nn) % nn, run_pieces, &p);
    }
    int rc = acct_lockstep_emit(&ls, s);
    acct_lockstep_free(&ls);
    return rc;
}

/* The lockstep rounds added up for a leader of a full node: N = c->nodes
 * nodes of q = ceil(P/N) ranks, chunks of B = q m bytes in ns pieces of s
 * bytes, d = ceil(log2 q) children. In round t (1 .. ns + N - 1) it sends
 * the pieces of the hops h with 0 <= t - 1 - h < ns to the next leader
 * (h < N - 1) and to its d children, and receives those with
 * 0 <= t - h < ns (h >= 1) -- ranges of h, counted in O(1) per round; a round costs its sends' gaps, or its
 * receives' if more, plus L (ring pieces at the inter-node level e, the
 * children's at the intra-node level a; L_e in a round with a ring piece,
 * else L_a). Before: the gather, (q - 1) g_a(m) + L_a; after: the last
 * piece's d - 1 further levels, (d - k) g_a(s) + L_a at level k; and
 * the own block's copy delta m. An estimate (docs/models.md, "Node-aware
 * methods"): the simulator runs the schedule itself. One rank per node
 * (nodes 0): a segmented ring among all P ranks. */
static int64_t span(int64_t lo, int64_t hi) /* integers in [lo, hi] */
{
    return hi >= lo ? hi - lo + 1 : 0;
}

double acct_allgather_hier_pipelined_cost(const struct acct_cost *c)
{
    const struct cost_nodes nd = cost_nodes(c);
    const int q = nd.q, nodes = nd.nodes, d = cost_clog2(q);
    uint64_t s, ns;
    if (!cost_segs(c, (uint64_t)q * c->m, &s, &ns))
        return NAN;
    const double ge = cost_g(c, s), ga = cost_g_intra(c, s), la = cost_L_intra(c);
    double total = cost_delta(c, c->m);
    if (q > 1)
        total += (q - 1) * cost_g_intra(c, c->m) + la;
    const int64_t n = (int64_t)ns, last = nodes - 1;
    for (int64_t t = 1; t <= n + last; t++) { /* the hops h in a range, counted */
        const int64_t lo = t - n > 0 ? t - n : 0;
        const int64_t tree = span(lo, t - 1 < last ? t - 1 : last);
        const int64_t ring_out = span(lo, t - 1 < last - 1 ? t - 1 : last - 1);
        const int64_t ring_in = span(t - n + 1 > 1 ? t - n + 1 : 1, t < last ? t : last);
        if (ring_out + d * tree + ring_in == 0) /* the last hop's round without children */
            continue;
        const double out = (double)ring_out * ge + (double)(d * tree) * ga;
        const double in = (double)ring_in * ge;
        const double lat = ring_out + ring_in > 0 ? cost_L(c) : la;
        total += (out > in ? out : in) + lat;
    }
    for (int k = 1; k < d; k++)
        total += (d - k) * ga + la;
    return total;
}
