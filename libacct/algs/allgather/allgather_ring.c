/* Ring allgather (Vadhiyar et al.'s "circular"; Open MPI's
 * allgather_intra_ring): in step i = 0 .. P-2 rank r sends block r - i to
 * r + 1 and receives block r - i - 1 from r - 1, straight into its place in
 * RECV. One message in flight per direction; a step forwards what the
 * previous one received, so each step is a round.
 *
 *     P = 4, step 0      step 1      step 2     (block sent by each rank)
 *     0 -0-> 1 -1-> 2    0 -3-> 1    0 -2-> 1 ...
 *     ^            |
 *     +---3-- 3 <--+
 *
 * Step 0 sends the own block from SEND (or RECV in place); its copy into
 * RECV runs after step 0's messages, before step 1 needs it.
 *
 * Cost (pLogP, ../cost.h): acct_allgather_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allgather_ring(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const int right = (r + 1) % p, left = (r - 1 + p) % p;

    if (c->count == 0)
        return 0;
    for (int i = 0; i < p - 1; i++) {
        const int out = ((r - i) % p + p) % p, in = ((r - i - 1) % p + p) % p;
        if (i == 0)
            acct_allgather_send_own(c, s, right);
        else
            acct_sched_send(s, right, ACCT_BUF_RECV, (uint64_t)out * c->count, c->count);
        acct_sched_recv(s, left, ACCT_BUF_RECV, (uint64_t)in * c->count, c->count);
        if (i == 0)
            acct_allgather_copy_own(c, s, ACCT_BUF_RECV, (uint64_t)r * c->count);
        acct_sched_round(s);
    }
    if (p == 1)
        acct_allgather_copy_own(c, s, ACCT_BUF_RECV, 0);
    return 0;
}

/* (P - 1)(g(m) + L), plus the own block's copy: + delta m. */
double acct_allgather_ring_cost(const struct acct_cost *c)
{
    return (c->p - 1) * (cost_g(c, c->m) + cost_L(c)) + c->delta_us_per_byte * (double)c->m;
}
