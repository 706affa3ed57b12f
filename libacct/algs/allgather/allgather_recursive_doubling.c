/* Recursive-doubling allgather (power-of-two sizes; MPICH's and Open MPI's
 * allgather_intra_recursivedoubling): in step j rank r exchanges with
 * r XOR 2^j the 2^j blocks it holds, an aligned contiguous range of RECV,
 * and receives the partner's range next to it.
 *
 *     P = 4:  step 0: 0<->1, 2<->3 (1 block)   step 1: 0<->2, 1<->3 (2 blocks)
 *
 * Step 0 sends the own block from SEND (or RECV in place); its copy into
 * RECV runs after step 0's messages, before step 1 sends it on.
 *
 * Cost (pLogP, ../cost.h): acct_allgather_recursive_doubling_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allgather_recursive_doubling(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;

    if ((p & (p - 1)) != 0)
        return -1;
    if (c->count == 0)
        return 0;
    for (int mask = 1; mask < p; mask <<= 1) {
        const int partner = r ^ mask;
        const uint64_t mine = (uint64_t)(r & ~(mask - 1)) * c->count;
        const uint64_t theirs = (uint64_t)(partner & ~(mask - 1)) * c->count;
        const uint64_t len = (uint64_t)mask * c->count;
        if (mask == 1)
            acct_allgather_send_own(c, s, partner);
        else
            acct_sched_send(s, partner, ACCT_BUF_RECV, mine, len);
        acct_sched_recv(s, partner, ACCT_BUF_RECV, theirs, len);
        if (mask == 1)
            acct_allgather_copy_own(c, s, ACCT_BUF_RECV, (uint64_t)r * c->count);
        acct_sched_round(s);
    }
    if (p == 1)
        acct_allgather_copy_own(c, s, ACCT_BUF_RECV, 0);
    return 0;
}

/* sum_{j=0}^{k-1} (g(2^j m) + L) + delta m. */
double acct_allgather_recursive_doubling_cost(const struct acct_cost *c)
{
    if (!cost_pow2(c->p))
        return NAN;
    double t = c->delta_us_per_byte * (double)c->m;
    for (int d = 1; d < c->p; d *= 2)
        t += cost_g(c, (uint64_t)d * c->m) + cost_L(c);
    return t;
}
