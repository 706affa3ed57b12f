/* Ring reduce_scatter_block (commutative operations): P-1 steps; in step i
 * rank r sends the partial result of block r-i-1 to r+1 and receives that
 * of block r-i-2 from r-1, adding its own contribution to it; after P-1
 * steps it holds block r complete (one message in flight per direction).
 * Partial blocks alternate between two scratch slots; the last one is
 * received straight into the receive buffer (in place: reduced into the
 * rank's own block of the receive buffer, then moved to its start).
 * The accumulation order is rotated (block b: b+1, b+2, .., b), hence
 * commutative only.
 * Cost (pLogP, ../cost.h): acct_reduce_scatter_block_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_scatter_block_ring(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count;
    const bool ip = c->in_place;
    const enum acct_buf own = ip ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    const int right = (r + 1) % p, left = (r - 1 + p) % p;

    if (!c->commutative)
        return -1;
    if (n == 0)
        return 0;
    if (p == 1) {
        if (!ip)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }
    const int tmp_recvs = ip ? p - 1 : p - 2;
    if (tmp_recvs > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP0, own, (uint64_t)(tmp_recvs < 2 ? tmp_recvs : 2) * n);
    for (int i = 0; i <= p - 2; i++) {
        const uint64_t sb = (uint64_t)((r - i - 1 + 2 * p) % p);
        const uint64_t rb = (uint64_t)((r - i - 2 + 2 * p) % p);
        const bool last = i == p - 2;
        if (i == 0)
            acct_sched_send(s, right, own, sb * n, n);
        else
            acct_sched_send(s, right, ACCT_BUF_TMP0, (uint64_t)((i - 1) % 2) * n, n);
        if (last && !ip) {
            acct_sched_recv(s, left, ACCT_BUF_RECV, 0, n);
            acct_sched_reduce(s, own, rb * n, ACCT_BUF_RECV, 0, n);
        } else if (last) { /* rb == r: own block r is no longer needed */
            acct_sched_recv(s, left, ACCT_BUF_TMP0, (uint64_t)(i % 2) * n, n);
            acct_sched_reduce(s, ACCT_BUF_TMP0, (uint64_t)(i % 2) * n, ACCT_BUF_RECV, rb * n, n);
            if (r != 0)
                acct_sched_copy(s, ACCT_BUF_RECV, rb * n, n, ACCT_BUF_RECV, 0, n);
        } else {
            acct_sched_recv(s, left, ACCT_BUF_TMP0, (uint64_t)(i % 2) * n, n);
            acct_sched_reduce(s, own, rb * n, ACCT_BUF_TMP0, (uint64_t)(i % 2) * n, n);
        }
    }
    return 0;
}

/* (P - 1)(g(m) + L + gamma m). */
double acct_reduce_scatter_block_ring_cost(const struct acct_cost *c)
{
    return (c->p - 1) * (cost_g(c, c->m) + cost_L(c) + c->gamma_us_per_byte * (double)c->m);
}
