/* Linear broadcast: the root sends the whole buffer to every other rank in
 * turn (flat tree), all sends posted at once.
 * Cost (pLogP, ../cost.h): acct_bcast_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_bcast_linear(const struct acct_call *c, struct acct_sched *s)
{
    if (c->count == 0 || c->size == 1)
        return 0;
    if (c->rank != c->root) {
        acct_sched_recv(s, c->root, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    for (int v = 1; v < c->size; v++)
        acct_sched_send(s, acct_rank(v, c->root, c->size), ACCT_BUF_RECV, 0, c->count);
    return 0;
}

/* Flat tree (BM04 Table 1): (P - 1) g(m) + L. */
double acct_bcast_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m);
}
