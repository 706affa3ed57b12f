/* Ring reduce_scatter (commutative operations): reduce_scatter_block's
 * ring with per-rank counts. In step i rank r sends the partial result of
 * block r-i-1 to r+1 and receives that of block r-i-2 from r-1, adding its
 * own contribution; after P-1 steps it holds block r complete. Partial
 * blocks alternate between two scratch slots of the largest count; the
 * last one is received straight into RECV (in place: into scratch, the own
 * contribution added there, then copied to the start of RECV -- the own
 * block may overlap the start). The accumulation order is rotated, hence
 * commutative only.
 * Cost (pLogP, ../cost.h): acct_reduce_scatter_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_scatter_ring(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const bool ip = c->in_place;
    const enum acct_buf own = ip ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    const int right = (r + 1) % p, left = (r - 1 + p) % p;
    const uint64_t *n = c->counts, *at = c->displs;
    uint64_t most = 0;

    if (!c->commutative || n == NULL || at == NULL)
        return -1;
    if (p == 1) {
        if (!ip && n[0] > 0)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n[0], ACCT_BUF_RECV, 0, n[0]);
        return 0;
    }
    for (int i = 0; i < p; i++)
        most = n[i] > most ? n[i] : most;
    if (most > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP0, own, 2 * most);
    for (int i = 0; i <= p - 2; i++) {
        const int sb = (r - i - 1 + 2 * p) % p, rb = (r - i - 2 + 2 * p) % p;
        const uint64_t slot = (uint64_t)(i % 2) * most, prev = (uint64_t)((i + 1) % 2) * most;
        if (i == 0)
            acct_sched_send(s, right, own, at[sb], n[sb]);
        else
            acct_sched_send(s, right, ACCT_BUF_TMP0, prev, n[sb]);
        if (i == p - 2 && !ip) {
            acct_sched_recv(s, left, ACCT_BUF_RECV, 0, n[rb]);
            if (n[rb] > 0)
                acct_sched_reduce(s, own, at[rb], ACCT_BUF_RECV, 0, n[rb]);
        } else {
            acct_sched_recv(s, left, ACCT_BUF_TMP0, slot, n[rb]);
            if (n[rb] > 0)
                acct_sched_reduce(s, own, at[rb], ACCT_BUF_TMP0, slot, n[rb]);
            if (i == p - 2 && n[rb] > 0) /* in place: rb == r */
                acct_sched_copy(s, ACCT_BUF_TMP0, slot, n[rb], ACCT_BUF_RECV, 0, n[rb]);
        }
        acct_sched_round(s);
    }
    return 0;
}

/* m = the average block: as reduce_scatter_block's ring,
 * (P - 1)(g(m) + L + gamma m). */
double acct_reduce_scatter_ring_cost(const struct acct_cost *c)
{
    return (c->p - 1) * (cost_g(c, c->m) + cost_L(c) + c->gamma_us_per_byte * (double)c->m);
}
