/* Pairwise alltoallv (alltoall's pairwise with per-rank counts): P-1
 * steps; in step k rank r sends its block for r+k and receives the one
 * from r-k, one round each; the own block is copied after the first step.
 * Cost (pLogP, ../cost.h): acct_alltoallv_pairwise_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_alltoallv_pairwise(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;

    if (c->in_place || c->counts == NULL || c->scounts == NULL)
        return -1;
    for (int k = 1; k < p; k++) {
        const int to = (r + k) % p, from = (r - k + p) % p;
        acct_sched_round(s);
        acct_sched_send(s, to, ACCT_BUF_SEND, c->sdispls[to], c->scounts[to]);
        acct_sched_recv(s, from, ACCT_BUF_RECV, c->displs[from], c->counts[from]);
        if (k == 1)
            acct_alltoallv_copy_own(c, s);
    }
    if (p == 1)
        acct_alltoallv_copy_own(c, s);
    return 0;
}

/* m = the average block; as alltoall's pairwise: (P-1)(g(m) + L) + delta m. */
double acct_alltoallv_pairwise_cost(const struct acct_cost *c)
{
    return (c->p - 1) * (cost_g(c, c->m) + cost_L(c)) + c->delta_us_per_byte * (double)c->m;
}
