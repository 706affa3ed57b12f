/* Linear exscan: a chain 0 -> 1 -> ... -> P-1 (Open MPI's
 * ompi_coll_base_exscan_intra_linear), segmented.
 *
 *     rank   0        1                 2                       P-1
 *            x0 ----> keeps x0   ----> keeps x0 op x1 ---> ... keeps x0..P-2
 *                     sends x0 op x1   sends x0..2
 *
 * Rank 0 sends its input segment by segment and never writes its RECV
 * (undefined by MPI). Rank i receives segment k of the prefix
 * x0..x(i-1) straight into RECV, its result; unless it is the last rank
 * it then adds its own segment behind it (prefix op own, in a scratch copy
 * of its input: REDUCE's a op b keeps rank order, so non-commutative
 * operations are fine) and forwards that in the next round, while
 * receiving segment k+1. In place the input is copied to the scratch
 * first (the prefix overwrites it in RECV).
 *
 * Cost (pLogP, ../cost.h): acct_exscan_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_exscan_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count, ns = acct_nsegs(n, c->seg);
    const uint64_t slot = c->seg != 0 && c->seg < n ? c->seg : n;
    const enum acct_buf own = c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    const bool forward = r + 1 < p;

    if (n == 0 || p == 1)
        return 0;
    if (r == 0) {
        for (uint64_t k = 0; k < ns; k++) {
            acct_sched_send(s, 1, own, k * slot, acct_seg_len(n, c->seg, k));
            acct_sched_round(s); /* one segment a round: the pipeline's pace */
        }
        return 0;
    }
    if (forward) {
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, n);
        if (c->in_place) {
            acct_sched_copy(s, ACCT_BUF_RECV, 0, n, ACCT_BUF_TMP0, 0, n);
            acct_sched_round(s); /* before the prefix lands in RECV */
        }
    }
    for (uint64_t k = 0; k <= ns; k++) {
        if (k > 0 && forward)
            acct_sched_send(s, r + 1, ACCT_BUF_TMP0, (k - 1) * slot,
                            acct_seg_len(n, c->seg, k - 1));
        if (k < ns) {
            const uint64_t off = k * slot, len = acct_seg_len(n, c->seg, k);
            acct_sched_recv(s, r - 1, ACCT_BUF_RECV, off, len);
            if (forward && !c->in_place)
                acct_sched_copy(s, ACCT_BUF_SEND, off, len, ACCT_BUF_TMP0, off, len);
            if (forward)
                acct_sched_reduce(s, ACCT_BUF_RECV, off, ACCT_BUF_TMP0, off, len);
        }
        acct_sched_round(s);
    }
    return 0;
}

/* The chain of the linear scan, with one copy and reduction fewer on the
 * path (the last rank only receives):
 *   (P - 1)(g(s) + L) + (ns - 1) g(s) + (P - 2)(gamma s + delta s). */
double acct_exscan_linear_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_chains(c, 1, s, ns) +
           (c->p > 1 ? c->p - 2 : 0) * (cost_gamma(c, s) + cost_delta(c, s));
}
