/* Linear gatherv (gather's linear with per-rank counts): every non-root
 * rank sends its block straight to the root; the root copies its own
 * block first (nothing in place), then posts the P-1 receives at once,
 * each at its displacement.
 * Cost (pLogP, ../cost.h): acct_gatherv_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_gatherv_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, root = c->root;

    if (c->rank != root) {
        acct_sched_send(s, root, ACCT_BUF_SEND, 0, c->scount);
        return 0;
    }
    if (c->counts == NULL || c->displs == NULL)
        return -1;
    if (!c->in_place && c->counts[root] > 0)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, c->counts[root], ACCT_BUF_RECV, c->displs[root],
                        c->counts[root]);
    for (int i = 0; i < p; i++)
        if (i != root)
            acct_sched_recv(s, i, ACCT_BUF_RECV, c->displs[i], c->counts[i]);
    return 0;
}

/* m = the average block; as gather's linear: (P - 1) g(m) + L. */
double acct_gatherv_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m);
}
