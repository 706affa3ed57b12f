/* Gather + scatter alltoall: a deliberately simple composite (a baseline
 * for the tuner, not a contender). Every rank's whole send buffer is
 * gathered at rank 0 (linear), rank 0 transposes the P x P blocks, then
 * scatters each rank its P blocks in one message (linear).
 *
 * Rank s != 0, one round: send SEND[0, P·scount) to 0 and receive
 * RECV[0, P·count) from 0 (no dependency between the two at rank s).
 *
 * Rank 0, both scratch buffers typed like RECV, (P - 1)·P blocks each,
 * "block s>d" = the block rank s sends to rank d:
 *   TMP0 row s-1 (s = 1 .. P-1) = rank s's send buffer as received,
 *       source-major: TMP0 block (s-1)·P + d = s>d;
 *   TMP1 row d-1 (d = 1 .. P-1) = what rank d receives, destination-major:
 *       TMP1 block (d-1)·P + s = s>d;
 *   RECV block s = s>0 (rank 0's own result).
 *   Round 0: receive the P - 1 rows of TMP0 (all at once), then transpose
 *   with one COPY per block (P² of them; rank 0's own row 0>d comes from
 *   SEND). Round 1: send TMP1 row d-1 to rank d, for d = 1 .. P-1.
 *
 *     P = 3    TMP0: [1>0 1>1 1>2 | 2>0 2>1 2>2]
 *              TMP1: [0>1 1>1 2>1 | 0>2 1>2 2>2]   RECV: [0>0 1>0 2>0]
 *
 * Cost (pLogP, ../cost.h): acct_alltoall_gather_scatter_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_alltoall_gather_scatter(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count, sn = c->scount, row = (uint64_t)p * n;

    if (c->in_place)
        return -1;
    if (n == 0)
        return 0;
    if (r != 0) {
        acct_sched_send(s, 0, ACCT_BUF_SEND, 0, (uint64_t)p * sn);
        acct_sched_recv(s, 0, ACCT_BUF_RECV, 0, row);
        return 0;
    }
    if (p > 1) {
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)(p - 1) * row);
        acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, (uint64_t)(p - 1) * row);
    }
    for (int src = 1; src < p; src++)
        acct_sched_recv(s, src, ACCT_BUF_TMP0, (uint64_t)(src - 1) * row, row);
    /* Rank 0's own result: RECV block s = s>0. */
    acct_alltoall_copy_own(c, s);
    for (int src = 1; src < p; src++)
        acct_sched_copy(s, ACCT_BUF_TMP0, (uint64_t)(src - 1) * row, n, ACCT_BUF_RECV,
                        (uint64_t)src * n, n);
    /* TMP1 row d-1 = blocks s>d for s = 0 .. P-1. */
    for (int d = 1; d < p && !acct_sched_failed(s); d++) {
        const uint64_t out = (uint64_t)(d - 1) * row;
        acct_sched_copy(s, ACCT_BUF_SEND, (uint64_t)d * sn, sn, ACCT_BUF_TMP1, out, n);
        for (int src = 1; src < p; src++)
            acct_sched_copy(s, ACCT_BUF_TMP0, (uint64_t)(src - 1) * row + (uint64_t)d * n, n,
                            ACCT_BUF_TMP1, out + (uint64_t)src * n, n);
    }
    for (int d = 1; d < p; d++)
        acct_sched_send(s, d, ACCT_BUF_TMP1, (uint64_t)(d - 1) * row, row);
    return 0;
}

/* Linear gather and linear scatter of P m-byte rows at rank 0:
 *   2 ((P - 1) g(P m) + L), plus the transposition. */
double acct_alltoall_gather_scatter_cost(const struct acct_cost *c)
{
    return 2 * acct_cost_flat(c, (uint64_t)c->p * c->m);
}
