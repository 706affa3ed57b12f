/* Linear scatterv (scatter's linear with per-rank counts): the root posts
 * the P-1 sends at once, each from its displacement, then copies its own
 * block (nothing in place); every other rank receives its block.
 * Cost (pLogP, ../cost.h): acct_scatterv_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scatterv_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, root = c->root;

    if (c->rank != root) {
        acct_sched_recv(s, root, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    if (c->counts == NULL || c->displs == NULL)
        return -1;
    for (int i = 0; i < p; i++)
        if (i != root)
            acct_sched_send(s, i, ACCT_BUF_SEND, c->displs[i], c->counts[i]);
    if (!c->in_place && c->counts[root] > 0)
        acct_sched_copy(s, ACCT_BUF_SEND, c->displs[root], c->counts[root], ACCT_BUF_RECV, 0,
                        c->counts[root]);
    return 0;
}

/* m = the average block; as scatter's linear: (P - 1) g(m) + L. */
double acct_scatterv_linear_cost(const struct acct_cost *c)
{
    return acct_cost_flat(c, c->m);
}
