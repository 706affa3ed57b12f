/* Helpers of the node-aware methods shared across collectives (algs.h). */
#include "algs.h"

void acct_run_msg(void *ctx, int i0, int r0, int len)
{
    const struct acct_run_msg *m = ctx;
    uint64_t off = (uint64_t)(m->by_rank ? r0 : i0) * m->block, n = (uint64_t)len * m->block;
    if (m->send)
        acct_sched_send(m->s, m->peer, m->buf, off, n);
    else
        acct_sched_recv(m->s, m->peer, m->buf, off, n);
}

uint64_t acct_v_run_bytes(const struct acct_call *c, int v, int span)
{
    uint64_t n = 0;
    for (int u = v; u < v + span; u++)
        n += c->counts[acct_rank(u, c->root, c->size)];
    return n;
}

bool acct_v_run_in_place(const struct acct_call *c, int v, int span, uint64_t *off)
{
    bool first = true;
    uint64_t next = 0;
    for (int u = v; u < v + span; u++) {
        const int r = acct_rank(u, c->root, c->size);
        if (c->counts[r] == 0)
            continue;
        if (first && off != NULL)
            *off = c->displs[r];
        if (!first && c->displs[r] != next)
            return false;
        first = false;
        next = c->displs[r] + c->counts[r];
    }
    return true;
}
