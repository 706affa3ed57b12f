/* Bruck allgather (any size; Bruck et al. 1997, Open MPI's
 * allgather_intra_bruck): ceil(log2 P) steps into a scratch buffer kept in
 * rank-relative order, then one local rotation into RECV.
 *
 * TMP0 (typed like RECV, P blocks): TMP0 block i holds rank (r + i) % P's
 * block. In the step of distance d = 1, 2, 4, ... rank r sends its first
 * b = min(d, P - d) blocks to r - d and receives as many from r + d into
 * TMP0 blocks [d, d + b). After the last step the rotation copies
 * TMP0 blocks [1, P - r) to RECV blocks [r + 1, P) and TMP0 blocks
 * [P - r, P) to RECV blocks [0, r) (two COPY steps; the own block goes
 * SEND -> RECV directly).
 *
 *     P = 5, rank 0's TMP0 after each step:
 *     start [0 . . . .]  d=1 [0 1 . . .]  d=2 [0 1 2 3 .]  d=4 [0 1 2 3 4]
 *
 * Step d = 1 sends the own block from SEND (or RECV in place); its copies
 * into TMP0 block 0 and RECV run after that step's messages.
 *
 * Cost (pLogP, ../cost.h): acct_allgather_bruck_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allgather_bruck(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count;

    if (n == 0)
        return 0;
    if (p == 1) {
        acct_allgather_copy_own(c, s, ACCT_BUF_RECV, 0);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)p * n);
    for (int64_t d = 1; d < p; d <<= 1) {
        const int to = (int)((r - d + p) % p), from = (int)((r + d) % p);
        const uint64_t blocks = (uint64_t)(d < p - d ? d : p - d);
        acct_sched_round(s); /* step d forwards what step d/2 received */
        if (d == 1)
            acct_allgather_send_own(c, s, to);
        else
            acct_sched_send(s, to, ACCT_BUF_TMP0, 0, blocks * n);
        acct_sched_recv(s, from, ACCT_BUF_TMP0, (uint64_t)d * n, blocks * n);
        if (d == 1) {
            acct_allgather_copy_own(c, s, ACCT_BUF_TMP0, 0);
            acct_allgather_copy_own(c, s, ACCT_BUF_RECV, (uint64_t)r * n);
        }
    }
    /* Rotation, after the last step's messages (same round): TMP0 block i
     * -> RECV block (r + i) % P, for i = 1 .. P-1. */
    if (r < p - 1)
        acct_sched_copy(s, ACCT_BUF_TMP0, n, (uint64_t)(p - r - 1) * n, ACCT_BUF_RECV,
                        (uint64_t)(r + 1) * n, (uint64_t)(p - r - 1) * n);
    if (r > 0)
        acct_sched_copy(s, ACCT_BUF_TMP0, (uint64_t)(p - r) * n, (uint64_t)r * n, ACCT_BUF_RECV,
                        0, (uint64_t)r * n);
    return 0;
}

/* sum_{d = 1, 2, 4, .. < P} (g(min(d, P - d) m) + L) (BM04-style pLogP). */
double acct_allgather_bruck_cost(const struct acct_cost *c)
{
    double t = 0;
    for (int d = 1; d < c->p; d *= 2)
        t += cost_g(c, (uint64_t)(d < c->p - d ? d : c->p - d) * c->m) + cost_L(c);
    return t;
}
