/* Rabenseifner reduce: reduce-scatter by recursive halving, then a binomial
 * gather of the pieces to the root (commutative operations only, as in
 * MPICH and Open MPI).
 *
 * Ranks are rotated so that the root is vrank 0. With pof2 the largest
 * power of two <= P and rem = P - pof2, the first 2·rem vranks pair up:
 * each odd one sends its whole vector to the even one below and drops out;
 * the pof2 survivors get new ranks 0 .. pof2-1 (the root keeps 0). The
 * vector is cut into pof2 blocks of ceil(m/pof2) elements (trailing blocks
 * may be short or empty: empty messages are skipped on both sides).
 *   Reduce-scatter, distance doubling (mask = 1, 2, .., pof2/2): partners
 * nr and nr ^ mask share a window of blocks; the lower keeps its lower
 * half, the upper its upper half; each sends the half it gives up and adds
 * the half it receives. After log2(pof2) steps each owns a fully reduced
 * window of one block.
 *   Gather, undoing those steps (mask = pof2/2 .. 1): the partner with the
 * bit clear receives the other's window, so a node receives from nr | m for
 * every m above its highest set bit (all in one round: disjoint regions),
 * then sends its union to nr with that bit cleared. The root receives
 * straight into its receive buffer.
 * Buffers: the accumulator is the root's receive buffer or TMP0 (m), the
 * incoming halves go to TMP1 (m/2; m at an in-place root that pairs).
 *
 * Cost (pLogP, ../cost.h): acct_reduce_rabenseifner_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* First element of block b when n elements are cut into nb blocks. */
static uint64_t blk_off(uint64_t n, int nb, int b)
{
    uint64_t off, len;
    if (b >= nb)
        return n;
    acct_block_range(n, nb, b, &off, &len);
    return off;
}

int acct_reduce_rabenseifner(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size;
    const uint64_t n = c->count;
    const bool root = c->rank == c->root;
    const enum acct_buf own = root && c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    const enum acct_buf acc = root ? ACCT_BUF_RECV : ACCT_BUF_TMP0;

    if (!c->commutative)
        return -1;
    if (n == 0)
        return 0;
    if (p == 1) {
        if (own != ACCT_BUF_RECV)
            acct_sched_copy(s, own, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }

    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    const int rem = p - pof2;
    const int v = acct_vrank(c->rank, c->root, p);
    bool in_acc = own == acc; /* is my running vector in acc (writable)? */
    uint64_t rmax = 0;
    int nr;

    if (!root)
        acct_sched_tmp(s, ACCT_BUF_TMP0, own, n);
    if (v < 2 * rem) {
        if (v % 2 == 1) {
            acct_sched_send(s, acct_rank(v - 1, c->root, p), own, 0, n);
            return 0;
        }
        int from = acct_rank(v + 1, c->root, p);
        if (in_acc) {
            acct_sched_recv(s, from, ACCT_BUF_TMP1, 0, n);
            acct_sched_reduce(s, ACCT_BUF_TMP1, 0, acc, 0, n);
            rmax = n;
        } else {
            acct_sched_recv(s, from, acc, 0, n);
            acct_sched_reduce(s, own, 0, acc, 0, n);
            in_acc = true;
        }
        nr = v / 2;
    } else {
        nr = v - rem;
    }

    /* Reduce-scatter. keep[i] / give[i]: my block windows at step i. */
    int keep[32][2], give[32][2], nsteps = 0;
    int blo = 0, bhi = pof2;
    for (int mask = 1; mask < pof2; mask <<= 1, nsteps++) {
        int half = (bhi - blo) / 2, pnr = nr ^ mask;
        int peer = acct_rank(pnr < rem ? 2 * pnr : pnr + rem, c->root, p);
        if ((nr & mask) == 0) {
            keep[nsteps][0] = blo, keep[nsteps][1] = blo + half;
            give[nsteps][0] = blo + half, give[nsteps][1] = bhi;
        } else {
            keep[nsteps][0] = blo + half, keep[nsteps][1] = bhi;
            give[nsteps][0] = blo, give[nsteps][1] = blo + half;
        }
        uint64_t goff = blk_off(n, pof2, give[nsteps][0]);
        uint64_t glen = blk_off(n, pof2, give[nsteps][1]) - goff;
        uint64_t koff = blk_off(n, pof2, keep[nsteps][0]);
        uint64_t klen = blk_off(n, pof2, keep[nsteps][1]) - koff;
        if (glen > 0)
            acct_sched_send(s, peer, in_acc ? acc : own, goff, glen);
        if (klen > 0) {
            if (in_acc) {
                acct_sched_recv(s, peer, ACCT_BUF_TMP1, 0, klen);
                acct_sched_reduce(s, ACCT_BUF_TMP1, 0, acc, koff, klen);
                if (klen > rmax)
                    rmax = klen;
            } else {
                acct_sched_recv(s, peer, acc, koff, klen);
                acct_sched_reduce(s, own, koff, acc, koff, klen);
            }
        }
        acct_sched_round(s);
        in_acc = true;
        blo = keep[nsteps][0];
        bhi = keep[nsteps][1];
    }
    if (rmax > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP1, own, rmax);

    /* Gather to new rank 0 (the root): receive from nr | mask above my
     * highest bit, then send my window to nr with that bit cleared. */
    int step = nsteps - 1, mask = pof2 / 2;
    for (; mask >= 1 && (nr & mask) == 0; mask >>= 1, step--) {
        int pnr = nr | mask;
        int peer = acct_rank(pnr < rem ? 2 * pnr : pnr + rem, c->root, p);
        uint64_t off = blk_off(n, pof2, give[step][0]);
        uint64_t len = blk_off(n, pof2, give[step][1]) - off;
        if (len > 0)
            acct_sched_recv(s, peer, acc, off, len);
    }
    acct_sched_round(s);
    if (mask >= 1) {
        int pnr = nr ^ mask;
        int peer = acct_rank(pnr < rem ? 2 * pnr : pnr + rem, c->root, p);
        uint64_t off = blk_off(n, pof2, keep[step][0]);
        uint64_t len = blk_off(n, pof2, keep[step][1]) - off;
        if (len > 0)
            acct_sched_send(s, peer, acc, off, len);
    }
    return 0;
}

/* Reduce-scatter by halving, binomial gather of the m / P pieces:
 *   sum_{j=1}^{k} (g(m/2^j) + L + gamma m/2^j) + sum_{j=0}^{k-1} g(2^j m/P) + k L. */
double acct_reduce_rabenseifner_cost(const struct acct_cost *c)
{
    if (!cost_pow2(c->p)) {
        /* the pre-step (g(m) + L + gamma m), then the power-of-two part */
        struct acct_cost q = *c;
        q.p = 1 << cost_ilog2(c->p);
        double t = acct_reduce_rabenseifner_cost(&q);
        return t + cost_g(c, c->m) + cost_L(c) + cost_gamma(c, c->m);
    }
    double t = acct_bcast_scatter_allgather_rd_cost(c);
    for (int d = 2; d <= c->p && !isnan(t); d *= 2)
        t += cost_gamma(c, c->m / (uint64_t)d);
    return t;
}
