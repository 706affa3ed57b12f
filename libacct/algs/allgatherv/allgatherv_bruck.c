/* Bruck allgatherv (any size; Open MPI's allgatherv_intra_bruck does the
 * same with per-rank counts): ceil(log2 P) steps into a scratch buffer kept
 * in rank-relative order, then a local rotation into RECV.
 *
 * TMP0 (typed like RECV, all counts' sum) holds position k = rank (r + k)
 * % P's block at offset pos(k) = counts[r] + ... + counts[r + k - 1]
 * (indices mod P): the blocks of positions [a, b) are one contiguous
 * range. In the step of distance d = 1, 2, 4, ... rank r sends its
 * positions [0, n), n = min(d, P - d), to r - d, and receives r + d's
 * positions [0, n) -- blocks r + d .. r + d + n - 1, its own positions
 * [d, d + n) -- at pos(d): both ends compute the range's length from the
 * same counts. After the last step each position k > 0 is copied to
 * RECV[displs[(r + k) % P]].
 *
 *     P = 5, rank 0's TMP0 after each step:
 *     start [0 . . . .]  d=1 [0 1 . . .]  d=2 [0 1 2 3 .]  d=4 [0 1 2 3 4]
 *
 * Step d = 1 sends the own block from SEND (or RECV in place); its copies
 * into TMP0 position 0 and RECV run after that step's messages.
 *
 * Cost (pLogP, ../cost.h): acct_allgatherv_bruck_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* Elements of positions [0, k) of rank r's rotated order. */
static uint64_t pos(const struct acct_call *c, int k)
{
    uint64_t o = 0;
    for (int j = 0; j < k; j++)
        o += c->counts[(c->rank + j) % c->size];
    return o;
}

int acct_allgatherv_bruck(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    enum acct_buf ob;
    uint64_t oo;

    if (c->counts == NULL || c->displs == NULL)
        return -1;
    acct_allgatherv_own(c, &ob, &oo);
    if (p == 1) {
        acct_allgatherv_copy_own(c, s);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, c->count);
    for (int d = 1; d < p; d *= 2) {
        const int n = d < p - d ? d : p - d;
        const int to = (r - d + p) % p, from = (r + d) % p;
        const uint64_t at = pos(c, d), len = pos(c, d + n) - at;
        if (d == 1)
            acct_sched_send(s, to, ob, oo, c->counts[r]);
        else
            acct_sched_send(s, to, ACCT_BUF_TMP0, 0, pos(c, n));
        acct_sched_recv(s, from, ACCT_BUF_TMP0, at, len);
        if (d == 1) {
            if (c->counts[r] > 0)
                acct_sched_copy(s, ob, oo, c->counts[r], ACCT_BUF_TMP0, 0, c->counts[r]);
            acct_allgatherv_copy_own(c, s);
        }
        acct_sched_round(s);
    }
    uint64_t at = c->counts[r];
    for (int k = 1; k < p; k++) {
        const int b = (r + k) % p;
        if (c->counts[b] > 0)
            acct_sched_copy(s, ACCT_BUF_TMP0, at, c->counts[b], ACCT_BUF_RECV, c->displs[b],
                            c->counts[b]);
        at += c->counts[b];
    }
    return 0;
}

/* m = the average block: as allgather's Bruck, the sum over steps of
 * g(n_k m) + L, plus the rotation's copy of P m bytes (approximate: the
 * copies of the first step overlap nothing). */
double acct_allgatherv_bruck_cost(const struct acct_cost *c)
{
    const int p = c->p;
    double t = 0;
    for (int d = 1; d < p; d *= 2) {
        const int n = d < p - d ? d : p - d;
        t += cost_g(c, (uint64_t)n * c->m) + cost_L(c);
    }
    return t + (p > 1 ? cost_delta(c, (uint64_t)p * c->m) : 0);
}
