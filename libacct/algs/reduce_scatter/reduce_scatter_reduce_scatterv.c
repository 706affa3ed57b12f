/* Reduce + scatterv reduce_scatter (Open MPI's basic reduce_scatter does
 * the same composition, with a linear scatterv): a segmented binomial
 * reduce of the whole vector to rank 0, then a binomial scatter of the
 * blocks from rank 0. Order-preserving: the binomial reduce rooted at rank
 * 0 combines contiguous rank ranges in rank order (reduce_tree.c), so
 * non-commutative operations are fine.
 *   Reduce phase: the reduce builder with this call's buffers -- own data
 * in SEND (RECV in place), the result at rank 0 in TMP1 (RECV in place,
 * whose first block is then already rank 0's result), scratch in TMP0.
 *   Scatter phase: binomial tree on ranks from rank 0; the subtree of rank
 * v covers ranks [v, v + span), whose blocks are one contiguous range of
 * the vector, [displs[v], displs[v + span - 1] + counts[v + span - 1]).
 * A node receives its subtree's range in one message -- straight into its
 * receive buffer when that is all (a leaf, or in place: RECV holds the
 * whole vector and the input is consumed), else into TMP1 -- and passes
 * each child its part.
 * Cost (pLogP, ../cost.h): acct_reduce_scatter_reduce_scatterv_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* Elements of the blocks of ranks [v, v + span). */
static uint64_t range(const struct acct_call *c, int v, int span)
{
    return c->displs[v + span - 1] + c->counts[v + span - 1] - c->displs[v];
}

int acct_reduce_scatter_reduce_scatterv(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t total = c->count;
    const bool ip = c->in_place;
    const enum acct_buf own = ip ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    const enum acct_buf out = ip ? ACCT_BUF_RECV : ACCT_BUF_TMP1;
    struct acct_tree t;

    if (c->counts == NULL || c->displs == NULL)
        return -1;
    if (total == 0)
        return 0;
    if (p == 1) {
        if (!ip)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, total, ACCT_BUF_RECV, 0, total);
        return 0;
    }
    if (acct_tree_build(ACCT_TREE_BINOMIAL, r, p, 2, &t) != 0)
        return -1;

    struct acct_call rc = *c;
    rc.coll = ACCT_COLL_reduce;
    rc.root = 0;
    rc.count = rc.scount = total;
    rc.counts = rc.displs = NULL;
    if (acct_reduce_tree_io(&rc, s, ACCT_REDUCE_TREE_BINOMIAL, 2, own, out, ACCT_BUF_TMP0) != 0)
        return -1;
    if (r == 0 && !ip)
        acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_SEND, total);
    acct_sched_round(s); /* the input (RECV in place) may still be in use */

    /* Scatter: stage = where the blocks of [r, r + span) are, from `base`. */
    enum acct_buf stage = out;
    uint64_t base = 0;
    const int span = acct_tree_span(ACCT_TREE_BINOMIAL, r, p, 2);
    if (r != 0) {
        const uint64_t len = range(c, r, span);
        stage = span == 1 || ip ? ACCT_BUF_RECV : ACCT_BUF_TMP1;
        base = c->displs[r];
        if (stage == ACCT_BUF_TMP1 && len > 0)
            acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_SEND, len);
        acct_sched_recv(s, t.parent, stage, 0, len);
        acct_sched_round(s);
    }
    for (int i = 0; i < t.nchildren; i++) {
        int ch = t.children[i];
        acct_sched_send(s, ch, stage, c->displs[ch] - base,
                        range(c, ch, acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2)));
    }
    if (stage == ACCT_BUF_TMP1 && c->counts[r] > 0)
        acct_sched_copy(s, ACCT_BUF_TMP1, 0, c->counts[r], ACCT_BUF_RECV, 0, c->counts[r]);
    return 0;
}

/* m = the average block: as reduce_scatter_block's reduce_scatter, a
 * segmented binomial reduce of P m bytes, then a binomial scatter of
 * m-byte blocks. */
double acct_reduce_scatter_reduce_scatterv_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    struct acct_cost all = *c;
    all.m = (uint64_t)c->p * c->m;
    if (!cost_segs(&all, all.m, &s, &ns))
        return NAN;
    return acct_reduce_tree_cost(&all, ACCT_REDUCE_TREE_BINOMIAL, s, ns) +
           acct_scatter_binomial_cost(c);
}
