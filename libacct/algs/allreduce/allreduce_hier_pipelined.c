/* Node-aware allreduce pipelined by segments (HAN's idea; commutative
 * operations): the vector in segments of seg elements, each going through
 *   A. a binomial reduce into its node's leader (the node's lowest rank),
 *   B. a ring allreduce among the node leaders, in place,
 *   C. a binomial bcast from the leader over its node,
 * with segment s entering A one round after segment s-1, on a lockstep
 * timeline (allreduce_lockstep.c): in one round a leader receives segment
 * s+1's partial from a child, passes pieces of segments s-2(N-1)+1 .. s in
 * the ring, and sends segment s-2(N-1)-H's result down its node, so the
 * intra-node phases hide behind the inter-node ring instead of adding to
 * it (hier_ring runs the three phases one after the other).
 *
 * With H = ceil(log2(largest node)) and N nodes, segment s's A occupies
 * rounds s .. s+H-1, its B rounds s+H .. s+H+2(N-1)-1, its C the H rounds
 * after (one node per rank and not in place: B one round later, after
 * the leaders' copy of their input into RECV); every rank places them alike, so both ends of a message share a
 * round. Binomial trees over the node's local indices: in A round j a rank
 * whose index has bit j set (and no lower bit) sends its partial to index
 * - 2^j; in C the same pairs in reverse order of j, downwards. Scratch:
 * TMP0 holds min(segments, H+1) segments (A's receives, slot s mod H+1),
 * TMP1 min(segments, 2(N-1)+1) ring pieces (slot s mod 2(N-1)+1): a slot
 * comes back only after its segment's phase has left it.
 * Cost (pLogP, ../cost.h): acct_allreduce_hier_pipelined_cost at the end of
 * this file. */
#include "../algs.h"
#include "../cost_nodes.h"

struct pipe {
    const struct acct_hier *hier; /* this rank's node (../algs.h) */
    struct acct_lockstep *t;
    int idx, ppn, h, nnodes, rb;
    int hb; /* rounds before B: h, or 1 for the leaders' copy into RECV when h is 0 */
    enum acct_buf in;
    uint64_t seg, aslots, bslots, piece;
};

/* The rank of this node's idx-th rank. */
static int member(const struct pipe *p, int idx)
{
    return acct_hier_member(p->hier, p->hier->node, idx);
}

/* A: the partial of segment s [off, off + n) up the node's binomial tree
 * into RECV at the leader. */
static void phase_reduce(const struct pipe *p, uint32_t r0, uint64_t s, uint64_t off, uint64_t n)
{
    enum acct_buf acc = p->in;
    const uint64_t slot = (s % p->aslots) * p->seg;
    for (int j = 0; j < p->h; j++) {
        const int bit = 1 << j;
        if (p->idx & (bit - 1))
            break;
        if (p->idx & bit) {
            acct_lockstep_msg(p->t, r0 + (uint32_t)j, true, member(p, p->idx - bit),
                              acc, off, n);
            return;
        }
        if (p->idx + bit < p->ppn) {
            acct_lockstep_msg(p->t, r0 + (uint32_t)j, false, member(p, p->idx + bit),
                              ACCT_BUF_TMP0, slot, n);
            if (acc != ACCT_BUF_RECV)
                acct_lockstep_local(p->t, r0 + (uint32_t)j, false, acc, off, ACCT_BUF_RECV, off, n);
            acc = ACCT_BUF_RECV;
            acct_lockstep_local(p->t, r0 + (uint32_t)j, true, ACCT_BUF_TMP0, slot, ACCT_BUF_RECV,
                                off, n);
        }
    }
    if (acc != ACCT_BUF_RECV) /* a leader without children */
        acct_lockstep_local(p->t, r0, false, acc, off, ACCT_BUF_RECV, off, n);
}

/* C: segment s's result from the leader down the same tree. */
static void phase_bcast(const struct pipe *p, uint32_t r0, uint64_t off, uint64_t n)
{
    for (int k = 0; k < p->h; k++) {
        const int bit = 1 << (p->h - 1 - k);
        if ((p->idx & (2 * bit - 1)) == 0 && p->idx + bit < p->ppn)
            acct_lockstep_msg(p->t, r0 + (uint32_t)k, true, member(p, p->idx + bit),
                              ACCT_BUF_RECV, off, n);
        else if ((p->idx & (2 * bit - 1)) == bit)
            acct_lockstep_msg(p->t, r0 + (uint32_t)k, false, member(p, p->idx - bit),
                              ACCT_BUF_RECV, off, n);
    }
}

int acct_allreduce_hier_pipelined(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier hier;
    if (!c->commutative || acct_hier_init(c, &hier) != 0)
        return -1;
    if (c->count == 0)
        return 0;
    struct acct_lockstep t;
    const uint64_t nsegs = acct_nsegs(c->count, c->seg);
    struct pipe p = {.hier = &hier, .t = &t, .idx = hier.local, .ppn = hier.ppn,
                     .h = cost_clog2(hier.l->max_ppn), .nnodes = hier.nnodes,
                     .in = acct_allreduce_input(c),
                     .seg = acct_seg_len(c->count, c->seg, 0)};
    p.hb = p.h > 0 || p.in == ACCT_BUF_RECV ? p.h : 1;
    p.rb = p.nnodes > 1 ? 2 * (p.nnodes - 1) : 0;
    p.aslots = nsegs < (uint64_t)p.h + 1 ? nsegs : (uint64_t)p.h + 1;
    p.bslots = nsegs < (uint64_t)p.rb + 1 ? nsegs : (uint64_t)p.rb + 1;
    p.piece = (p.seg + (uint64_t)p.nnodes - 1) / (uint64_t)p.nnodes;
    if (p.h > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, p.aslots * p.seg);
    if (p.rb > 0 && p.idx == 0)
        acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, p.bslots * p.piece);
    int next, prev; /* the leaders' ring */
    acct_hier_ring(&hier, &next, &prev);
    acct_lockstep_init(&t);
    for (uint64_t k = 0; k < nsegs; k++) {
        const uint64_t off = k * p.seg, n = acct_seg_len(c->count, c->seg, k);
        const uint32_t r0 = (uint32_t)k;
        phase_reduce(&p, r0, k, off, n);
        if (p.rb > 0 && p.idx == 0)
            acct_lockstep_ring(&t, r0 + (uint32_t)p.hb, hier.node, p.nnodes, prev, next, off, n,
                               (k % p.bslots) * p.piece);
        phase_bcast(&p, r0 + (uint32_t)(p.hb + p.rb), off, n);
    }
    int rc = acct_lockstep_emit(&t, s);
    acct_lockstep_free(&t);
    return rc;
}

/* The lockstep rounds added up for a leader of a full node, ppn =
 * ceil(p / nodes) (one rank per node without a layout): in round t it
 * receives a(t) segments from children (A) and sends c(t) to children (C),
 * sends and receives b(t) ring pieces of s / N bytes and reduces what it
 * received; a round costs its sends' gaps, or its receives' if more, plus
 * L and the reductions (the segments at the intra-node level a, the ring
 * pieces at the inter-node level e; L_e in a round with ring pieces, else
 * L_a; one leader per node crosses nodes). An estimate (docs/models.md, "Node-aware methods"):
 * the simulator runs the schedule itself. */
/* How many integers [lo, hi] and [x, y] share. */
static int64_t overlap(int64_t lo, int64_t hi, int64_t x, int64_t y)
{
    const int64_t a = lo > x ? lo : x, b = hi < y ? hi : y;
    return b >= a ? b - a + 1 : 0;
}

double acct_allreduce_hier_pipelined_cost(const struct acct_cost *c)
{
    const struct cost_nodes nd = cost_nodes(c);
    const int nodes = nd.nodes;
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    const int ppn = nd.q, h = cost_clog2(ppn);
    const int rb = nodes > 1 ? 2 * (nodes - 1) : 0;
    const uint64_t piece = (s + (uint64_t)nodes - 1) / (uint64_t)nodes;
    const int64_t rounds = (int64_t)ns - 1 + 2 * h + rb;
    const int64_t w = 2 * (int64_t)h + rb; /* the rounds a segment is in flight */
    const double gp = cost_g(c, piece), gs = cost_g_intra(c, s);
    double total = 0;
    for (int64_t t = 0; t < rounds; t++) {
        /* segments in A, B, C at round t: segment k is at its step j = t - k
         * (0 <= j < w, 0 <= k < ns), A the steps [0, h), B [h, h + rb), C
         * the rest; counted over the interval of j, not segment by segment
         * (O(1) a round: rb grows with the nodes) */
        const int64_t jlo = t - ((int64_t)ns - 1) > 0 ? t - ((int64_t)ns - 1) : 0;
        const int64_t jhi = t < w - 1 ? t : w - 1;
        int64_t a = overlap(jlo, jhi, 0, h - 1), b = overlap(jlo, jhi, h, h + rb - 1);
        int64_t d = overlap(jlo, jhi, h + rb, w - 1);
        double out = (double)b * gp + (double)d * gs;
        double in = (double)b * gp + (double)a * gs;
        double red = cost_gamma(c, (uint64_t)a * s + (uint64_t)(b > 0 ? b : 0) * piece);
        if (a + b + d > 0)
            total += (out > in ? out : in) + (b > 0 ? cost_L(c) : cost_L_intra(c)) + red;
    }
    return total;
}
