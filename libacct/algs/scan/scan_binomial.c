/* Binomial scan: an up-sweep and a down-sweep over a binomial tree
 * (Blelloch 1990's tree scan, in the form of a Fenwick tree; Sanders &
 * Träff 2006 discuss it for MPI), any number of ranks.
 *
 * With i = rank + 1 and lowbit(i) its lowest set bit, rank i - 1 ends the
 * up-sweep holding S(i) = x(i - lowbit(i) + 1) op ... op x(i) (1-based):
 * at level d a rank whose i is a multiple of 2^(d+1) receives S from rank
 * i - 2^d and puts it in front of its own; a rank with lowbit(i) = 2^d sends
 * its S to rank i + 2^d and is done. The down-sweep hands the prefixes on:
 * a rank receives the inclusive prefix up to i - lowbit(i) (none when i is
 * a power of two: S is already the prefix), puts it in front of S, and
 * sends the result to i + 2^d for every 2^d < lowbit(i), largest first
 * (the deepest subtree first).
 *
 *     8 ranks (i)   1   2   3   4   5   6   7   8
 *     up d=0          1->2    3->4    5->6    7->8
 *     up d=1              2 ----> 4       6 ----> 8
 *     up d=2                      4 ------------> 8    (8 holds x1..8)
 *     down d=1                    4 ----> 6
 *     down d=0          2->3      4->5    6->7
 *
 * Every combination keeps rank order (the lower ranks' data in front), so
 * non-commutative operations are fine. A rank sends at most once up and
 * log2 lowbit(i) times down; 2 log2 P levels on the critical path, against
 * recursive doubling's log2 P exchanges of every rank.
 * Buffers: S and then the result in RECV (the input copied there unless in
 * place), incoming partials in TMP0.
 *
 * Cost (pLogP, ../cost.h): acct_scan_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scan_binomial(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, i = c->rank + 1, low = i & -i;
    const uint64_t n = c->count;

    if (n == 0)
        return 0;
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
    if (p == 1)
        return 0;
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, n);
    /* up-sweep: receive from i - 2^d for 2^d < low, then send to i + low */
    for (int d = 1; d < low; d <<= 1) {
        acct_sched_recv(s, i - d - 1, ACCT_BUF_TMP0, 0, n);
        acct_sched_reduce(s, ACCT_BUF_TMP0, 0, ACCT_BUF_RECV, 0, n);
    }
    if (i + low <= p) {
        acct_sched_send(s, i + low - 1, ACCT_BUF_RECV, 0, n);
        acct_sched_round(s);
    }
    /* down-sweep: the prefix up to i - low, then to i + 2^d, 2^d < low */
    if (i != low) {
        acct_sched_recv(s, i - low - 1, ACCT_BUF_TMP0, 0, n);
        acct_sched_reduce(s, ACCT_BUF_TMP0, 0, ACCT_BUF_RECV, 0, n);
    }
    for (int d = low >> 1; d >= 1; d >>= 1)
        if (i + d <= p)
            acct_sched_send(s, i + d - 1, ACCT_BUF_RECV, 0, n);
    return 0;
}

/* The two sweeps' longest path, by the recurrence of acct_cost_scan_tree
 * (../cost.c): exact under the simulator's pLogP semantics at any P. */
double acct_scan_binomial_cost(const struct acct_cost *c)
{
    return acct_cost_scan_tree(c, false);
}
