/* Neighbor-exchange allgather (even sizes; Chen et al., HPCAsia 2005; Open
 * MPI's allgather_intra_neighborexchange): P/2 steps, each rank talking
 * only to its two ring neighbours.
 *
 * Ranks pair up as (2i, 2i+1). Step 0: partners swap their own blocks, so
 * each rank holds its pair's two blocks [2i, 2i+2). Steps 1 .. P/2 - 1
 * alternate between the other neighbour (odd steps) and the partner (even
 * steps): each rank sends the two-block pair it received last (its own pair
 * in step 1) and receives a new pair, straight into RECV. An even rank
 * receives pairs walking left (r-2, r-4, ...) from r - 1 and right (r+2,
 * r+4, ...) from r + 1 alternately; an odd rank mirrors it.
 *
 *     P = 6 (blocks held after each step)
 *     rank:    0      1      2      3      4      5
 *     step 0: 0 1    0 1    2 3    2 3    4 5    4 5
 *     step 1: +4 5   +2 3   +0 1   +4 5   +2 3   +0 1
 *     step 2: +2 3   +4 5   +4 5   +0 1   +0 1   +2 3
 *
 * Odd sizes (other than 1) are declined (no registry flag says "even P";
 * Open MPI falls back to ring there). Step 0 sends the own block from SEND
 * (or RECV in place); its copy into RECV runs after step 0's messages.
 *
 * Cost (pLogP, ../cost.h): acct_allgather_neighbor_exchange_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allgather_neighbor_exchange(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count;
    const bool even = r % 2 == 0;
    /* nb[0]: the partner (step 0 and even steps); nb[1]: the other side. */
    const int nb[2] = {even ? (r + 1) % p : (r - 1 + p) % p,
                       even ? (r - 1 + p) % p : (r + 1) % p};
    /* Pairs arriving from nb[k] walk in direction step[k]. */
    const int step[2] = {even ? 2 : -2, even ? -2 : 2};
    int next_from[2], send_from;

    if (p % 2 != 0 && p != 1)
        return -1;
    if (n == 0)
        return 0;
    if (p == 1) {
        acct_allgather_copy_own(c, s, ACCT_BUF_RECV, 0);
        return 0;
    }
    acct_allgather_send_own(c, s, nb[0]);
    acct_sched_recv(s, nb[0], ACCT_BUF_RECV, (uint64_t)nb[0] * n, n);
    acct_allgather_copy_own(c, s, ACCT_BUF_RECV, (uint64_t)r * n);
    /* The first block of the pair last received from each side. */
    send_from = r & ~1;
    next_from[0] = next_from[1] = r & ~1;
    for (int i = 1; i < p / 2; i++) {
        const int k = i % 2;
        next_from[k] = (next_from[k] + step[k] + p) % p;
        acct_sched_round(s); /* step i forwards what step i - 1 received */
        acct_sched_send(s, nb[k], ACCT_BUF_RECV, (uint64_t)send_from * n, 2 * n);
        acct_sched_recv(s, nb[k], ACCT_BUF_RECV, (uint64_t)next_from[k] * n, 2 * n);
        send_from = next_from[k];
    }
    return 0;
}

/* g(m) + (P/2 - 1) g(2m) + (P/2) L, plus the own block's copy. */
double acct_allgather_neighbor_exchange_cost(const struct acct_cost *c)
{
    if (c->p % 2 != 0)
        return NAN;
    return cost_g(c, c->m) + (c->p / 2 - 1) * cost_g(c, 2 * c->m) + (c->p / 2) * cost_L(c) +
           c->delta_us_per_byte * (double)c->m;
}
