/* Linear alltoall ("direct exchange"; Open MPI's alltoall_intra_basic_linear,
 * LAM 7 / MPICH 1.2.5's rotated order): one round posting every receive,
 * then every send, at once; the own block is a local COPY.
 *
 * Rank r posts its receives from r+1, r+2, ..., r-1 and its sends to r-1,
 * r-2, ..., r+1 (mod P): the i-th send of s goes to s - i, whose i-th
 * receive is from s, so messages tend to arrive in posting order and no
 * rank is everyone's first target.
 *
 * Cost (pLogP, ../cost.h): acct_alltoall_linear_cost at the end of this file.
 * Neither the closed form nor the simulator sees contention;
 * acct_model_alltoall_contention (acct/model.h) brackets it (Barchet-Estefanel & Mounié 2004,
 * Table 3): lower (P - 1) os(m) + (P - 1) or(m) + L, upper
 * (P - 1) g(m) + (P - 1) or(m) + L. */
#include "../algs.h"
#include "../cost.h"

int acct_alltoall_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;

    if (c->in_place)
        return -1;
    if (c->count == 0)
        return 0;
    for (int i = 1; i < p; i++) {
        const int from = (r + i) % p;
        acct_sched_recv(s, from, ACCT_BUF_RECV, (uint64_t)from * c->count, c->count);
    }
    for (int i = 1; i < p; i++) {
        const int to = (r - i + p) % p;
        acct_sched_send(s, to, ACCT_BUF_SEND, (uint64_t)to * c->scount, c->scount);
    }
    acct_alltoall_copy_own(c, s);
    return 0;
}

/* Rotated direct exchange, contention-free: (P - 1) g(m) + L + delta m. */
double acct_alltoall_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m) + c->delta_us_per_byte * (double)c->m;
}
