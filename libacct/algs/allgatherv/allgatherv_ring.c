/* Ring allgatherv: P-1 steps; in step i rank r sends block (r - i) to
 * r + 1 and receives block (r - i - 1) from r - 1, each block with its own
 * count (allgatherv.h). Step 0 sends the own block from where it is (SEND,
 * or RECV in place); its copy into RECV runs after that step's messages.
 *
 *     P = 4, rank 1:  step 0 sends 1 gets 0, step 1 sends 0 gets 3,
 *                     step 2 sends 3 gets 2
 *
 * Cost (pLogP, ../cost.h): acct_allgatherv_ring_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allgatherv_ring(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const int right = (r + 1) % p, left = (r - 1 + p) % p;
    enum acct_buf ob;
    uint64_t oo;

    if (c->counts == NULL || c->displs == NULL)
        return -1;
    acct_allgatherv_own(c, &ob, &oo);
    for (int i = 0; i < p - 1; i++) {
        const int sb = (r - i + p) % p, rb = (r - i - 1 + p) % p;
        if (i == 0)
            acct_sched_send(s, right, ob, oo, c->counts[r]);
        else
            acct_sched_send(s, right, ACCT_BUF_RECV, c->displs[sb], c->counts[sb]);
        acct_sched_recv(s, left, ACCT_BUF_RECV, c->displs[rb], c->counts[rb]);
        if (i == 0)
            acct_allgatherv_copy_own(c, s);
        acct_sched_round(s);
    }
    if (p == 1)
        acct_allgatherv_copy_own(c, s);
    return 0;
}

/* m = the average block (the uniform call's block):
 * (P-1)(g(m) + L) + delta m (the own block's copy), as allgather's ring. */
double acct_allgatherv_ring_cost(const struct acct_cost *c)
{
    return (c->p - 1) * (cost_g(c, c->m) + cost_L(c)) + c->delta_us_per_byte * (double)c->m;
}
