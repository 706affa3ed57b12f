/* Pairwise alltoall (Vadhiyar et al. §2.6 "circular"; Open MPI's
 * alltoall_intra_pairwise): P - 1 steps; in step k rank r sends its block
 * for r + k to r + k and receives its block from r - k (mod P). One
 * exchange per round keeps one message in flight per direction, so every
 * link carries one message at a time (no contention from many-to-one
 * bursts). The own block is a local COPY after step 1's messages.
 *
 *     P = 4, step 1: 0->1->2->3->0   step 2: 0<->2, 1<->3   step 3: 0->3->2->1->0
 *
 * Cost (pLogP, ../cost.h): acct_alltoall_pairwise_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_alltoall_pairwise(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;

    if (c->in_place)
        return -1;
    if (c->count == 0)
        return 0;
    for (int k = 1; k < p; k++) {
        const int to = (r + k) % p, from = (r - k + p) % p;
        acct_sched_round(s);
        acct_sched_send(s, to, ACCT_BUF_SEND, (uint64_t)to * c->scount, c->scount);
        acct_sched_recv(s, from, ACCT_BUF_RECV, (uint64_t)from * c->count, c->count);
        if (k == 1)
            acct_alltoall_copy_own(c, s);
    }
    if (p == 1)
        acct_alltoall_copy_own(c, s);
    return 0;
}

/* (P - 1)(g(m) + L) + delta m (own block). */
double acct_alltoall_pairwise_cost(const struct acct_cost *c)
{
    return (c->p - 1) * (cost_g(c, c->m) + cost_L(c)) + c->delta_us_per_byte * (double)c->m;
}
