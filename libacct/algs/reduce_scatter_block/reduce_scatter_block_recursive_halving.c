/* Recursive-halving reduce_scatter_block (commutative operations; MPICH's
 * reduce_scatter for commutative ops, any number of processes).
 *
 * With pof2 the largest power of two <= P and rem = P - pof2, the first
 * 2·rem ranks pair up: each even one sends its whole input to the odd one
 * above and drops out; the pof2 survivors get new ranks (odd r < 2·rem:
 * r/2, standing for blocks r-1 and r; r >= 2·rem: r - rem, block r).
 * Vector halving, distance halving (mask = pof2/2 .. 1): partners nr and
 * nr ^ mask share a window of new ranks' blocks; the lower keeps the lower
 * half, the upper the upper one; each sends the half it gives up and adds
 * the half it receives. In the end new rank nr holds its own blocks fully
 * reduced; an odd pair member then sends the even one its block.
 * Buffers: the running vector is TMP0 (in place: the receive buffer, which
 * holds the whole input), incoming halves go to TMP1; the last half is
 * received straight into the receive buffer where it is the rank's block.
 *
 * Cost (LogGP, m bytes per block, γ per byte reduced; the recursive-halving
 * counterpart of seeds/004 Table 4's scatter + gather model):
 *   T = log2(P)(L + 2o) + (P-1)/P · P m (G + γ)   (P a power of two)
 *   plus 2(L + 2o) + (P m + m - 2)G + P m γ otherwise. */
#include "../algs.h"

/* First rank of new rank i's blocks. */
static int first_rank(int i, int rem, int pof2, int p)
{
    if (i >= pof2)
        return p;
    return i < rem ? 2 * i : i + rem;
}

int acct_reduce_scatter_block_recursive_halving(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count, total = n * (uint64_t)p;
    const bool ip = c->in_place;
    const enum acct_buf own = ip ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    const enum acct_buf acc = ip ? ACCT_BUF_RECV : ACCT_BUF_TMP0;

    if (!c->commutative)
        return -1;
    if (n == 0)
        return 0;
    if (p == 1) {
        if (!ip)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }

    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    const int rem = p - pof2;
    bool in_acc = ip; /* is the running vector in acc (writable)? */
    uint64_t rmax = 0;
    int nr;

    if (!ip)
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, total);
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            acct_sched_send(s, r + 1, own, 0, total);
            acct_sched_round(s); /* in place, RECV is still being sent */
            acct_sched_recv(s, r + 1, ACCT_BUF_RECV, 0, n);
            return 0;
        }
        if (in_acc) {
            acct_sched_recv(s, r - 1, ACCT_BUF_TMP1, 0, total);
            acct_sched_reduce(s, ACCT_BUF_TMP1, 0, acc, 0, total);
            rmax = total;
        } else {
            acct_sched_recv(s, r - 1, acc, 0, total);
            acct_sched_reduce(s, own, 0, acc, 0, total);
            in_acc = true;
        }
        nr = r / 2;
    } else {
        nr = r - rem;
    }

    bool done_in_recv = false;
    int blo = 0, bhi = pof2;
    for (int mask = pof2 / 2; mask >= 1; mask >>= 1) {
        int half = (bhi - blo) / 2, pnr = nr ^ mask;
        int peer = pnr < rem ? 2 * pnr + 1 : pnr + rem;
        int klo = blo, khi = blo + half, glo = blo + half, ghi = bhi;
        if (nr & mask) {
            klo = blo + half, khi = bhi;
            glo = blo, ghi = blo + half;
        }
        uint64_t goff = (uint64_t)first_rank(glo, rem, pof2, p) * n;
        uint64_t glen = (uint64_t)first_rank(ghi, rem, pof2, p) * n - goff;
        uint64_t koff = (uint64_t)first_rank(klo, rem, pof2, p) * n;
        uint64_t klen = (uint64_t)first_rank(khi, rem, pof2, p) * n - koff;
        acct_sched_send(s, peer, in_acc ? acc : own, goff, glen);
        if (mask == 1 && !ip && nr >= rem) { /* the half is my block: straight home */
            acct_sched_recv(s, peer, ACCT_BUF_RECV, 0, n);
            acct_sched_reduce(s, in_acc ? acc : own, koff, ACCT_BUF_RECV, 0, n);
            done_in_recv = true;
        } else if (in_acc) {
            acct_sched_recv(s, peer, ACCT_BUF_TMP1, 0, klen);
            acct_sched_reduce(s, ACCT_BUF_TMP1, 0, acc, koff, klen);
            if (klen > rmax)
                rmax = klen;
        } else {
            acct_sched_recv(s, peer, acc, koff, klen);
            acct_sched_reduce(s, own, koff, acc, koff, klen);
        }
        in_acc = true;
        blo = klo;
        bhi = khi;
    }
    if (rmax > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP1, own, rmax);

    if (nr < rem) /* odd pair member: blocks r-1 and r */
        acct_sched_send(s, r - 1, acc, (uint64_t)(r - 1) * n, n);
    if (!done_in_recv && (acc != ACCT_BUF_RECV || r != 0))
        acct_sched_copy(s, acc, (uint64_t)r * n, n, ACCT_BUF_RECV, 0, n);
    return 0;
}
