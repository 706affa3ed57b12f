/* Linear gather (flat tree): every rank sends its block straight to the
 * root, which posts the receives from all ranks at once, each into its
 * rank's place in the receive buffer.
 * Cost (pLogP, ../cost.h): acct_gather_linear_cost at the end of this file.
 * The root's link takes the P - 1 blocks one after the other. */
#include "../algs.h"
#include "../cost.h"

int acct_gather_linear(const struct acct_call *c, struct acct_sched *s)
{
    if (c->rank != c->root) {
        if (c->scount > 0)
            acct_sched_send(s, c->root, ACCT_BUF_SEND, 0, c->scount);
        return 0;
    }
    if (c->count == 0)
        return 0;
    /* the own block first: senders' data can arrive meanwhile */
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_RECV,
                        (uint64_t)c->root * c->count, c->count);
    for (int r = 0; r < c->size; r++)
        if (r != c->root)
            acct_sched_recv(s, r, ACCT_BUF_RECV, (uint64_t)r * c->count, c->count);
    return 0;
}

/* Flat tree (BM04 Table 2; gather mirrors scatter): (P - 1) g(m) + L. */
double acct_gather_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m);
}
