/* Binomial exscan: the up-sweep and down-sweep of the binomial scan
 * (../scan/scan_binomial.c: Blelloch 1990's tree scan as a Fenwick tree),
 * keeping the rank's own input out of its result. Any number of ranks.
 *
 * With i = rank + 1 and lowbit(i) its lowest set bit: the up-sweep builds,
 * besides the partial S(i) = x(i - lowbit(i) + 1 .. i) it sends up, the
 * same partial without x(i), T(i) = x(i - lowbit(i) + 1 .. i - 1), from the
 * partials received (the first copied, later ones put in front). The
 * down-sweep receives E, the inclusive prefix up to i - lowbit(i) (none
 * when i is a power of two), makes the result E op T (or E, or T alone)
 * and the inclusive prefix E op S, and sends that on to i + 2^d for every
 * 2^d < lowbit(i), largest first. Rank 0 (i = 1) receives nothing and
 * never writes its receive buffer (undefined by MPI). Rank order is kept
 * in every combination, so non-commutative operations are fine.
 * Buffers: S in TMP0 (the input copied there first, in place too),
 * incoming partials in TMP1, T and then the result in RECV.
 *
 * Cost (pLogP, ../cost.h): acct_exscan_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_exscan_binomial(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, i = c->rank + 1, low = i & -i;
    const uint64_t n = c->count;
    bool have = false; /* RECV holds T (or the result) */

    if (n == 0 || p == 1)
        return 0;
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, n);
    acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, n);
    acct_sched_copy(s, c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND, 0, n, ACCT_BUF_TMP0, 0, n);
    /* up-sweep: receive from i - 2^d for 2^d < low, then send to i + low */
    for (int d = 1; d < low; d <<= 1) {
        acct_sched_recv(s, i - d - 1, ACCT_BUF_TMP1, 0, n);
        acct_sched_reduce(s, ACCT_BUF_TMP1, 0, ACCT_BUF_TMP0, 0, n);
        if (have)
            acct_sched_reduce(s, ACCT_BUF_TMP1, 0, ACCT_BUF_RECV, 0, n);
        else
            acct_sched_copy(s, ACCT_BUF_TMP1, 0, n, ACCT_BUF_RECV, 0, n);
        have = true;
    }
    if (i + low <= p) {
        acct_sched_send(s, i + low - 1, ACCT_BUF_TMP0, 0, n);
        acct_sched_round(s);
    }
    /* down-sweep: the prefix up to i - low, then to i + 2^d, 2^d < low */
    if (i != low) {
        acct_sched_recv(s, i - low - 1, ACCT_BUF_TMP1, 0, n);
        acct_sched_reduce(s, ACCT_BUF_TMP1, 0, ACCT_BUF_TMP0, 0, n);
        if (have)
            acct_sched_reduce(s, ACCT_BUF_TMP1, 0, ACCT_BUF_RECV, 0, n);
        else
            acct_sched_copy(s, ACCT_BUF_TMP1, 0, n, ACCT_BUF_RECV, 0, n);
    }
    for (int d = low >> 1; d >= 1; d >>= 1)
        if (i + d <= p)
            acct_sched_send(s, i + d - 1, ACCT_BUF_TMP0, 0, n);
    return 0;
}

/* The two sweeps' longest path, by the recurrence of acct_cost_scan_tree
 * (../cost.c): exact under the simulator's pLogP semantics at any P. */
double acct_exscan_binomial_cost(const struct acct_cost *c)
{
    return acct_cost_scan_tree(c, true);
}
