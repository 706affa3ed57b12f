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
