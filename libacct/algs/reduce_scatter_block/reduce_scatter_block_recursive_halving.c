/* Recursive-halving reduce_scatter_block (commutative operations; MPICH's
 * and Open MPI's reduce_scatter for commutative ops, any number of
 * processes), with the exchanges ordered nearest partner first.
 *
 * With pof2 the largest power of two <= P and rem = P - pof2, the first
 * 2·rem ranks pair up: each even one sends its whole input to the odd one
 * above and drops out; the pof2 survivors get new ranks (odd r < 2·rem:
 * r/2, standing for blocks r-1 and r; r >= 2·rem: r - rem, block r).
 * Then log2(pof2) exchanges halve the vector: partners share a window of
 * blocks, each keeps one half, sends the other and adds the half it
 * receives. In the end new rank nr holds its own blocks fully reduced; an
 * odd pair member then sends the even one its block.
 *
 * Exchange order. Open MPI and MPICH halve the distance (partners nr ^ 4,
 * nr ^ 2, nr ^ 1 on 8 ranks), so the largest exchange, half the vector,
 * goes to the farthest rank. Here the distance doubles (nr ^ 1, ^ 2, ^ 4):
 * the largest exchange is with the neighbouring rank, which shares the node
 * whenever ranks are placed in blocks (Slurm's default), and only the
 * smaller ones cross the network (measured in docs/performance.md). The
 * halves stay contiguous because the running vector is kept in bit-reversed
 * block order: virtual rank v = bitrev(nr) runs the distance-halving
 * algorithm (partner v ^ mask is nr ^ bitrev(mask)), and virtual block b,
 * at position b of the running vector, is new rank bitrev(b)'s block.
 *
 *     8 ranks, block layout 2 per node    distance halving   this order
 *     exchange 1 (half the vector)        off node           on node
 *     exchange 2 (a quarter)              off node           off node
 *     exchange 3 (an eighth)              on node            off node
 *
 * Buffers: the running vector is TMP0 in virtual order (the input is copied
 * there block by block, and an odd pair member adds its partner's input,
 * received in TMP1, on the way); incoming halves go to TMP1; the last
 * exchange's half is the rank's own block and is received straight into the
 * receive buffer (in place too: the input was copied to TMP0 by then).
 *
 * Cost (pLogP, ../cost.h): acct_reduce_scatter_block_recursive_halving_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* First rank of new rank i's blocks. */
static int first_rank(int i, int rem, int pof2, int p)
{
    if (i >= pof2)
        return p;
    return i < rem ? 2 * i : i + rem;
}

/* i's lowest `bits` bits reversed. */
static int bitrev(int i, int bits)
{
    int r = 0;
    for (int k = 0; k < bits; k++)
        r |= ((i >> k) & 1) << (bits - 1 - k);
    return r;
}

/* Element offset of virtual block b in the running vector: the blocks of
 * new ranks bitrev(0) .. bitrev(b-1) come before it. */
static uint64_t voff(int b, int bits, int rem, uint64_t n)
{
    uint64_t o = 0;
    for (int j = 0; j < b; j++)
        o += bitrev(j, bits) < rem ? 2 * n : n;
    return o;
}

int acct_reduce_scatter_block_recursive_halving(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count, total = n * (uint64_t)p;
    const bool ip = c->in_place;
    const enum acct_buf own = ip ? ACCT_BUF_RECV : ACCT_BUF_SEND;

    if (!c->commutative)
        return -1;
    if (n == 0)
        return 0;
    if (p == 1) {
        if (!ip)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }

    int pof2 = 1, bits = 0;
    while (pof2 * 2 <= p) {
        pof2 *= 2;
        bits++;
    }
    const int rem = p - pof2;
    uint64_t rmax = 0;
    int nr;

    if (r < 2 * rem) {
        if (r % 2 == 0) {
            acct_sched_send(s, r + 1, own, 0, total);
            acct_sched_round(s); /* in place, RECV is still being sent */
            acct_sched_recv(s, r + 1, ACCT_BUF_RECV, 0, n);
            return 0;
        }
        acct_sched_recv(s, r - 1, ACCT_BUF_TMP1, 0, total);
        rmax = total;
        nr = r / 2;
    } else {
        nr = r - rem;
    }

    /* The input into TMP0, in virtual block order. */
    acct_sched_tmp(s, ACCT_BUF_TMP0, own, total);
    uint64_t o = 0;
    for (int b = 0; b < pof2; b++) {
        int i = bitrev(b, bits);
        uint64_t off = (uint64_t)first_rank(i, rem, pof2, p) * n;
        uint64_t len = (uint64_t)first_rank(i + 1, rem, pof2, p) * n - off;
        acct_sched_copy(s, own, off, len, ACCT_BUF_TMP0, o, len);
        if (nr < rem)
            acct_sched_reduce(s, ACCT_BUF_TMP1, off, ACCT_BUF_TMP0, o, len);
        o += len;
    }

    const int v = bitrev(nr, bits);
    int blo = 0, bhi = pof2;
    for (int mask = pof2 / 2; mask >= 1; mask >>= 1) {
        int half = (bhi - blo) / 2, pnr = bitrev(v ^ mask, bits);
        int peer = pnr < rem ? 2 * pnr + 1 : pnr + rem;
        int klo = blo, khi = blo + half, glo = blo + half, ghi = bhi;
        if (v & mask) {
            klo = blo + half, khi = bhi;
            glo = blo, ghi = blo + half;
        }
        uint64_t goff = voff(glo, bits, rem, n), glen = voff(ghi, bits, rem, n) - goff;
        uint64_t koff = voff(klo, bits, rem, n), klen = voff(khi, bits, rem, n) - koff;
        acct_sched_send(s, peer, ACCT_BUF_TMP0, goff, glen);
        if (mask == 1 && nr >= rem) { /* the half is my block: straight home */
            acct_sched_recv(s, peer, ACCT_BUF_RECV, 0, n);
            acct_sched_reduce(s, ACCT_BUF_TMP0, koff, ACCT_BUF_RECV, 0, n);
        } else {
            acct_sched_recv(s, peer, ACCT_BUF_TMP1, 0, klen);
            acct_sched_reduce(s, ACCT_BUF_TMP1, 0, ACCT_BUF_TMP0, koff, klen);
            if (klen > rmax)
                rmax = klen;
        }
        blo = klo;
        bhi = khi;
    }
    if (rmax > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP1, own, rmax);

    if (nr < rem) { /* odd pair member: blocks r-1 and r, at v's place */
        uint64_t vo = voff(v, bits, rem, n);
        acct_sched_send(s, r - 1, ACCT_BUF_TMP0, vo, n);
        acct_sched_copy(s, ACCT_BUF_TMP0, vo + n, n, ACCT_BUF_RECV, 0, n);
    }
    return 0;
}

/* P = 2^k: sum_{j=1}^{k} (g(P m / 2^j) + L + gamma P m / 2^j), plus the
 * local copy of the P m input bytes into the running vector: + delta P m.
 * Other P, the rounds the builder emits, per survivor (its virtual rank v,
 * new rank nr = bitrev(v); O(pof2 log pof2)): round 0 copies the input
 * (delta P m) and, for nr < rem, first receives the even neighbour's P m
 * bytes (sent at 0: done at max(g(P m) + L, or(P m), g(P m))) and adds
 * them (gamma P m). Exchange mask = pof2/2 .. 1 within v's window of 2 mask
 * virtual blocks: v keeps the half holding v and sends the other, their
 * bytes m (blocks + those of new ranks below rem among them: those stand
 * for two); a send at max(nic, R), the partner's half arriving at its
 * send + g + L, done at max(arrival, R + or, previous receive + g), the end
 * max(R, send + os, done) + gamma (kept bytes). Then each nr < rem sends
 * its even neighbour one block (+ delta m for its own), which receives it
 * in the round after its pre-step send (started at os(P m)). */
double acct_reduce_scatter_block_recursive_halving_cost(const struct acct_cost *c)
{
    const int p = c->p;
    const uint64_t m = c->m, all = (uint64_t)p * m;
    int pof2 = 1, bits = 0;
    while (pof2 * 2 <= p) {
        pof2 *= 2;
        bits++;
    }
    const int rem = p - pof2;
    if (p < 1)
        return NAN;
    if (rem == 0) {
        double t = c->delta_us_per_byte * (double)all;
        for (int d = 2; d <= pof2; d *= 2)
            t += cost_g(c, all / (uint64_t)d) + cost_L(c) +
                 c->gamma_us_per_byte * (double)(all / (uint64_t)d);
        return t;
    }
    /* cnt[b]: virtual blocks below b that stand for two ranks' blocks */
    int *cnt = calloc((size_t)pof2 + 1, sizeof *cnt);
    double *end = calloc((size_t)pof2, sizeof *end), *nic = calloc((size_t)pof2, sizeof *nic);
    double *rx = calloc((size_t)pof2, sizeof *rx), *ts = calloc((size_t)pof2, sizeof *ts), t = NAN;
    if (cnt == NULL || end == NULL || nic == NULL || rx == NULL || ts == NULL)
        goto out;
    for (int b = 0; b < pof2; b++)
        cnt[b + 1] = cnt[b] + (bitrev(b, bits) < rem ? 1 : 0);
#define VOFF(b) ((uint64_t)((b) + cnt[(b)]) * m)
    const double L = cost_L(c), gall = cost_g(c, all);
    double pre = gall + L > cost_or(c, all) ? gall + L : cost_or(c, all);
    pre = gall > pre ? gall : pre;
    for (int v = 0; v < pof2; v++) {
        const bool two = bitrev(v, bits) < rem;
        end[v] = (two ? pre + cost_gamma(c, all) : 0) + cost_delta(c, all);
        rx[v] = two ? pre : 0;
    }
    for (int mask = pof2 / 2; mask >= 1; mask >>= 1) {
        for (int v = 0; v < pof2; v++)
            ts[v] = nic[v] > end[v] ? nic[v] : end[v];
        for (int v = 0; v < pof2; v++) {
            const int blo = v & ~(2 * mask - 1), mid = blo + mask, bhi = blo + 2 * mask;
            const int klo = v & mask ? mid : blo, khi = v & mask ? bhi : mid;
            const int glo = v & mask ? blo : mid, ghi = v & mask ? mid : bhi;
            const uint64_t klen = VOFF(khi) - VOFF(klo), glen = VOFF(ghi) - VOFF(glo);
            const double gk = cost_g(c, klen), r = end[v];
            double done = ts[v ^ mask] + gk + L;
            done = r + cost_or(c, klen) > done ? r + cost_or(c, klen) : done;
            done = rx[v] + gk > done ? rx[v] + gk : done;
            rx[v] = done;
            nic[v] = ts[v] + cost_g(c, glen);
            double e = ts[v] + cost_os(c, glen) > r ? ts[v] + cost_os(c, glen) : r;
            end[v] = (done > e ? done : e) + cost_gamma(c, klen);
        }
    }
#undef VOFF
    t = 0;
    for (int v = 0; v < pof2; v++) {
        double e = end[v];
        if (bitrev(v, bits) < rem) { /* the post-step to the even neighbour */
            const double gm = cost_g(c, m), os0 = cost_os(c, all);
            double s = nic[v] > end[v] ? nic[v] : end[v], done = s + gm + L;
            e = (s + cost_os(c, m) > e ? s + cost_os(c, m) : e) + cost_delta(c, m);
            done = os0 + cost_or(c, m) > done ? os0 + cost_or(c, m) : done;
            done = gm > done ? gm : done;
            e = done > e ? done : e;
        }
        t = e > t ? e : t;
    }
out:
    free(cnt);
    free(end);
    free(nic);
    free(rx);
    free(ts);
    return t;
}
