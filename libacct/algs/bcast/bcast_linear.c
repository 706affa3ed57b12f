/* Linear broadcast: the root sends the whole buffer to every other rank in
 * turn (flat tree), all sends posted at once.
 * Cost (LogGP): T = (P - 1) · o + L + (m - 1) G + (P - 2) · max(o, g, (m-1)G). */
#include "../algs.h"

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
