/* Linear scan: a chain 0 -> 1 -> ... -> P-1 (Open MPI's
 * ompi_coll_base_scan_intra_linear, MPICH's scan for small P), segmented.
 *
 *     rank   0        1                 2                        P-1
 *            x0 ----> x0 op x1 ----> (x0 op x1) op x2 ---> ... result
 *
 * Rank 0 sends its input segment by segment; rank i receives segment k of
 * the prefix x0..x(i-1) into a scratch slot, puts its own segment into
 * RECV (a copy unless in place), reduces the prefix into it (prefix op own:
 * REDUCE's a op b keeps rank order, so non-commutative operations are
 * fine) and forwards that segment of RECV to i+1 in the next round, while
 * receiving segment k+1 (two scratch slots, so that receive may be posted
 * early, acct/sched.h). With one segment this is Open MPI's linear scan.
 *
 * Cost (pLogP, ../cost.h): acct_scan_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scan_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count, ns = acct_nsegs(n, c->seg);
    const uint64_t slot = c->seg != 0 && c->seg < n ? c->seg : n;
    const enum acct_buf own = c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND;

    if (n == 0)
        return 0;
    if (r == 0) {
        for (uint64_t k = 0; k < ns && p > 1; k++) {
            acct_sched_send(s, 1, own, k * slot, acct_seg_len(n, c->seg, k));
            acct_sched_round(s); /* one segment a round: the pipeline's pace */
        }
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, ns > 1 ? 2 * slot : slot);
    for (uint64_t k = 0; k <= ns; k++) {
        if (k > 0 && r + 1 < p) /* the previous segment, complete */
            acct_sched_send(s, r + 1, ACCT_BUF_RECV, (k - 1) * slot,
                            acct_seg_len(n, c->seg, k - 1));
        if (k < ns) {
            const uint64_t off = k * slot, len = acct_seg_len(n, c->seg, k);
            const uint64_t at = (k % 2) * slot;
            acct_sched_recv(s, r - 1, ACCT_BUF_TMP0, at, len);
            if (!c->in_place)
                acct_sched_copy(s, ACCT_BUF_SEND, off, len, ACCT_BUF_RECV, off, len);
            acct_sched_reduce(s, ACCT_BUF_TMP0, at, ACCT_BUF_RECV, off, len);
        }
        acct_sched_round(s);
    }
    return 0;
}

/* The reduce pipeline's chain (acct_cost_chains with one chain) with,
 * at each of the P-1 receiving ranks, the copy of its own segment into the
 * result and the reduction of the prefix into it (exact while they fit in
 * a gap g(s), as the reduce pipeline's):
 *   (P - 1)(g(s) + L) + (ns - 1) g(s) + (P - 1)(gamma s + delta s). */
double acct_scan_linear_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return acct_cost_chains(c, 1, s, ns) + (c->p - 1) * (cost_gamma(c, s) + cost_delta(c, s));
}
