/* Linear scatter (flat tree): the root posts the sends of every rank's
 * block at once, straight from its send buffer; it copies its own block
 * last (with MPI_IN_PLACE it stays in the send buffer).
 * Cost (pLogP, paper 001 Table 2, flat tree): T = (P - 1) g(m) + L
 * (LogGP: T = L + 2o + (m - 1)G + (P - 2) max(g, (m - 1)G)). */
#include "../algs.h"

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
