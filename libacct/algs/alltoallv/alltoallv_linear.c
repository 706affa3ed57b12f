/* Linear alltoallv (alltoall's linear with per-rank counts): one round of
 * P-1 receives and P-1 sends, in order r+1, r+2, ... so no two ranks start
 * at the same peer; the own block is copied after the round.
 * Cost (pLogP, ../cost.h): acct_alltoallv_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_alltoallv_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;

    if (c->in_place || c->counts == NULL || c->scounts == NULL)
        return -1;
    for (int k = 1; k < p; k++) {
        const int from = (r - k + p) % p;
        acct_sched_recv(s, from, ACCT_BUF_RECV, c->displs[from], c->counts[from]);
    }
    for (int k = 1; k < p; k++) {
        const int to = (r + k) % p;
        acct_sched_send(s, to, ACCT_BUF_SEND, c->sdispls[to], c->scounts[to]);
    }
    acct_alltoallv_copy_own(c, s);
    return 0;
}

/* m = the average block; as alltoall's linear: flat(m) + delta m. */
double acct_alltoallv_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m) + c->delta_us_per_byte * (double)c->m;
}
