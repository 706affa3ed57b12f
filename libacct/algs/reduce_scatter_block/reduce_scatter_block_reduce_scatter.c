/* Reduce + scatter reduce_scatter_block (Open MPI's basic linear does the
 * same composition): a segmented binomial reduce of all P blocks to rank 0,
 * then a binomial scatter of the blocks from rank 0. Order-preserving: the
 * binomial reduce rooted at rank 0 combines contiguous rank ranges in rank
 * order (reduce_tree.c), so non-commutative operations are fine.
 *   Reduce phase: the reduce builder with this call's buffers — own data in
 * SEND (RECV in place), the result at rank 0 in TMP1 (RECV in place, whose
 * first block is then already rank 0's result), scratch in TMP0.
 *   Scatter phase: binomial tree on ranks from rank 0; a node receives its
 * subtree's blocks [v, v + span) in one message — straight into its receive
 * buffer when that is all (a leaf, or in place: RECV holds P blocks and the
 * input is consumed), else into TMP1 — and passes each child its part.
 * Cost (pLogP, ../cost.h): acct_reduce_scatter_block_reduce_scatter_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_reduce_scatter_block_reduce_scatter(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count, total = n * (uint64_t)p;
    const bool ip = c->in_place;
    const enum acct_buf own = ip ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    const enum acct_buf out = ip ? ACCT_BUF_RECV : ACCT_BUF_TMP1;
    struct acct_tree t;

    if (n == 0)
        return 0;
    if (p == 1) {
        if (!ip)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }
    if (acct_tree_build(ACCT_TREE_BINOMIAL, r, p, 2, &t) != 0)
        return -1;

    struct acct_call rc = *c;
    rc.coll = ACCT_COLL_reduce;
    rc.root = 0;
    rc.count = rc.scount = total;
    if (acct_reduce_tree_io(&rc, s, ACCT_REDUCE_TREE_BINOMIAL, 2, own, out,
                            ACCT_BUF_TMP0) != 0)
        return -1;
    if (r == 0 && !ip)
        acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_SEND, total);
    acct_sched_round(s); /* the input (RECV in place) may still be in use */

    /* Scatter: stage = where blocks [r, r + span) are. */
    enum acct_buf stage = out;
    const int span = acct_tree_span(ACCT_TREE_BINOMIAL, r, p, 2);
    if (r != 0) {
        stage = span == 1 || ip ? ACCT_BUF_RECV : ACCT_BUF_TMP1;
        if (stage == ACCT_BUF_TMP1)
            acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_SEND, (uint64_t)span * n);
        acct_sched_recv(s, t.parent, stage, 0, (uint64_t)span * n);
        acct_sched_round(s);
    }
    for (int i = 0; i < t.nchildren; i++) {
        int ch = t.children[i];
        acct_sched_send(s, ch, stage, (uint64_t)(ch - r) * n,
                        (uint64_t)acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2) * n);
    }
    if (stage == ACCT_BUF_TMP1)
        acct_sched_copy(s, ACCT_BUF_TMP1, 0, n, ACCT_BUF_RECV, 0, n);
    return 0;
}

/* Segmented binomial reduce of P m bytes, then binomial scatter of m-byte
 * blocks. */
double acct_reduce_scatter_block_reduce_scatter_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    struct acct_cost all = *c;
    all.m = (uint64_t)c->p * c->m;
    if (!cost_segs(&all, all.m, &s, &ns))
        return NAN;
    return acct_reduce_tree_cost(&all, ACCT_REDUCE_TREE_BINOMIAL, s, ns) +
           acct_scatter_binomial_cost(c);
}
