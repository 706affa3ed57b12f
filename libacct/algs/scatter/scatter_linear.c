/* Linear scatter (flat tree): the root posts the sends of every rank's
 * block at once, straight from its send buffer; it copies its own block
 * last (with MPI_IN_PLACE it stays in the send buffer).
 * Cost (pLogP, ../cost.h): acct_scatter_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scatter_linear(const struct acct_call *c, struct acct_sched *s)
{
    if (c->rank != c->root) {
        if (c->count > 0)
            acct_sched_recv(s, c->root, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    if (c->scount == 0)
        return 0;
    for (int r = 0; r < c->size; r++)
        if (r != c->root)
            acct_sched_send(s, r, ACCT_BUF_SEND, (uint64_t)r * c->scount, c->scount);
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, (uint64_t)c->root * c->scount, c->scount, ACCT_BUF_RECV,
                        0, c->count);
    return 0;
}

/* Flat tree (BM04 Table 2): (P - 1) g(m) + L. */
double acct_scatter_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m);
}
