/* Scatter + allgather broadcast (van de Geijn): the mechanism behind
 * scatter_allgather_rd and scatter_allgather_ring.
 *
 * Phase 1, binomial scatter: the buffer is cut into P blocks of ceil(m/P)
 * (vrank v owns block v). A binomial subtree is a contiguous vrank range
 * [v, v + span), so each node receives its whole subtree's blocks from its
 * parent in one message, straight into the user buffer, and passes each
 * child its subtree's part.
 * Phase 2, allgather of the blocks: recursive doubling (power-of-two sizes)
 * or a ring.
 * Cost (pLogP, ../cost.h; the closed forms are in the two registered
 * files): blocks b = m / P, scatter sum_{j=0}^{k-1} g(2^j b) + k L, ring
 * allgather (P - 1)(g(b) + L): for large m the gaps add up to about 2 g(m)
 * instead of log2(P) g(m) for a binomial tree. */
#include "../algs.h"

void acct_block_range(uint64_t count, int size, int v, uint64_t *off, uint64_t *len)
{
    uint64_t chunk = size > 0 ? (count + (uint64_t)size - 1) / (uint64_t)size : 0;
    uint64_t o = (uint64_t)v * chunk;
    if (o > count)
        o = count;
    *off = o;
    *len = count - o < chunk ? count - o : chunk;
}

/* Elements of blocks [v, v + n) (clipped to size). */
static void blocks_range(uint64_t count, int size, int v, int n, uint64_t *off, uint64_t *len)
{
    uint64_t first_off, l, last_off;
    int end = v + n > size ? size : v + n;
    acct_block_range(count, size, v, &first_off, &l);
    acct_block_range(count, size, end - 1, &last_off, &l);
    *off = first_off;
    *len = last_off + l - first_off;
}

static int scatter_phase(const struct acct_call *c, struct acct_sched *s, int v)
{
    struct acct_tree t;
    uint64_t off, len;
    if (acct_tree_build(ACCT_TREE_BINOMIAL, v, c->size, 2, &t) != 0)
        return -1;
    if (t.parent >= 0) {
        blocks_range(c->count, c->size, v, acct_tree_span(ACCT_TREE_BINOMIAL, v, c->size, 2),
                     &off, &len);
        if (len > 0)
            acct_sched_recv(s, acct_rank(t.parent, c->root, c->size), ACCT_BUF_RECV, off, len);
        acct_sched_round(s);
    }
    /* One child at a time, largest subtree first: the biggest subtree gets
     * its data soonest instead of sharing the link with its siblings (as
     * Open MPI does; measured in docs/performance.md). */
    for (int i = 0; i < t.nchildren; i++) {
        int ch = t.children[i];
        blocks_range(c->count, c->size, ch, acct_tree_span(ACCT_TREE_BINOMIAL, ch, c->size, 2),
                     &off, &len);
        if (len > 0)
            acct_sched_send(s, acct_rank(ch, c->root, c->size), ACCT_BUF_RECV, off, len);
        acct_sched_round(s);
    }
    return 0;
}

static void ring_step(const struct acct_call *c, struct acct_sched *s, int v, int i, int left,
                      int right)
{
    const int p = c->size;
    uint64_t off, len;
    acct_block_range(c->count, p, ((v - i) % p + p) % p, &off, &len);
    if (len > 0)
        acct_sched_send(s, right, ACCT_BUF_RECV, off, len);
    acct_block_range(c->count, p, ((v - i - 1) % p + p) % p, &off, &len);
    if (len > 0)
        acct_sched_recv(s, left, ACCT_BUF_RECV, off, len);
    acct_sched_round(s);
}

/* Step i sends block v - i and receives block v - i - 1 (mod P). With
 * fewer elements than ranks only the first nb blocks hold any, so only the
 * steps i of the cyclic run (v - nb .. v) mod P move something; the others
 * add no step and their rounds are elided (acct_sched_round), so they are
 * skipped: the same schedule in O(nb) instead of O(P) (a 1-byte bcast on
 * 64k ranks builds every rank's in microseconds, not milliseconds). */
static void allgather_ring(const struct acct_call *c, struct acct_sched *s, int v)
{
    const int p = c->size;
    const int right = acct_rank((v + 1) % p, c->root, p);
    const int left = acct_rank((v - 1 + p) % p, c->root, p);
    uint64_t chunk = (c->count + (uint64_t)p - 1) / (uint64_t)p;
    uint64_t nb = chunk > 0 ? (c->count + chunk - 1) / chunk : 0;
    if (nb + 1 >= (uint64_t)p) {
        for (int i = 0; i < p - 1; i++)
            ring_step(c, s, v, i, left, right);
        return;
    }
    int lo = (int)((((int64_t)v - (int64_t)nb) % p + p) % p); /* the run: lo .. v, cyclic */
    if (lo <= v) {
        for (int i = lo; i <= v && i < p - 1; i++)
            ring_step(c, s, v, i, left, right);
        return;
    }
    for (int i = 0; i <= v; i++)
        ring_step(c, s, v, i, left, right);
    for (int i = lo; i < p - 1; i++)
        ring_step(c, s, v, i, left, right);
}

static void allgather_rd(const struct acct_call *c, struct acct_sched *s, int v)
{
    uint64_t off, len;
    for (int mask = 1; mask < c->size; mask <<= 1) {
        int partner = v ^ mask;
        blocks_range(c->count, c->size, v & ~(mask - 1), mask, &off, &len);
        if (len > 0)
            acct_sched_send(s, acct_rank(partner, c->root, c->size), ACCT_BUF_RECV, off, len);
        blocks_range(c->count, c->size, partner & ~(mask - 1), mask, &off, &len);
        if (len > 0)
            acct_sched_recv(s, acct_rank(partner, c->root, c->size), ACCT_BUF_RECV, off, len);
        acct_sched_round(s);
    }
}

int acct_bcast_scatter_allgather(const struct acct_call *c, struct acct_sched *s, bool ring)
{
    int v = acct_vrank(c->rank, c->root, c->size);
    if (c->count == 0 || c->size == 1)
        return 0;
    if (!ring && (c->size & (c->size - 1)) != 0)
        return -1;
    if (scatter_phase(c, s, v) != 0)
        return -1;
    if (ring)
        allgather_ring(c, s, v);
    else
        allgather_rd(c, s, v);
    return 0;
}
