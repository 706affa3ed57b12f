/* Linear allgatherv (Open MPI's default for small communicators posts the
 * same exchange): one round in which every rank sends its block to each
 * other rank and receives each other rank's block at its place; in step
 * order r+1, r+2, ... for sends and r-1, r-2, ... for receives, so no two
 * ranks start at the same peer. The own block's copy runs after the round.
 *
 * Cost (pLogP, ../cost.h): acct_allgatherv_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allgatherv_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    enum acct_buf ob;
    uint64_t oo;

    if (c->counts == NULL || c->displs == NULL)
        return -1;
    acct_allgatherv_own(c, &ob, &oo);
    for (int i = 1; i < p; i++) {
        const int from = (r - i + p) % p;
        acct_sched_recv(s, from, ACCT_BUF_RECV, c->displs[from], c->counts[from]);
    }
    for (int i = 1; i < p; i++)
        acct_sched_send(s, (r + i) % p, ob, oo, c->counts[r]);
    acct_allgatherv_copy_own(c, s);
    return 0;
}

/* As alltoall's linear, m = the average block: flat(m) + delta m (the
 * own block's copy). */
double acct_allgatherv_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m) + c->delta_us_per_byte * (double)c->m;
}
