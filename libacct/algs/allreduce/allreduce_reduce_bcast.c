/* Reduce + broadcast allreduce (Open MPI's
 * ompi_coll_base_allreduce_intra_nonoverlapping; MPICH's reduce + bcast
 * fallback): a segmented binomial reduce to rank 0, then a segmented
 * binomial broadcast from rank 0 (bcast/bcast_binomial.c).
 *
 * Reduce: a binomial subtree is a contiguous rank range (topo.h), so a node
 * v with children c1 < c2 < ... < cn (subtrees [c1, c2), [c2, c3), ...,
 * [cn, v + span)) computes x_v op S(c1) op ... op S(cn) in rank order:
 *
 *   rank 0 <- 1, 2, 4        0 holds x0 op (x1) op (x2 x3) op (x4..x7)
 *   rank 2 <- 3;  rank 4 <- 5, 6;  rank 6 <- 7
 *
 * so non-commutative operations are safe. Pipelined over segments of seg
 * elements: in round k a node receives segment k from all its children
 * while sending segment k - 1 (reduced in round k - 1) to its parent. The
 * children's segments go to scratch slots and, without MPI_IN_PLACE, the
 * last one straight into RECV, where the ordered chain of reductions ends:
 * no copies (with MPI_IN_PLACE and a non-commutative op one copy per
 * segment). Every rank's RECV serves as its partial-result buffer until the
 * broadcast overwrites it.
 * Cost (pLogP, ../cost.h): acct_allreduce_reduce_bcast_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* Segment k of RECV: reduce the children's copies (slots) into it, in
 * rank order, starting from our own contribution. */
static void reduce_segment(const struct acct_call *c, struct acct_sched *s, int n,
                           uint64_t maxseg, uint64_t o, uint64_t l)
{
    const enum acct_buf in = acct_allreduce_input(c);
    if (c->in_place && c->commutative) {
        for (int i = 0; i < n; i++)
            acct_sched_reduce(s, ACCT_BUF_TMP0, (uint64_t)i * maxseg, ACCT_BUF_RECV, o, l);
        return;
    }
    /* Chain: prev = prev op child_i, accumulating in child i's buffer. */
    enum acct_buf pb = in;
    uint64_t po = o;
    for (int i = 0; i < n; i++) {
        const bool last_in_recv = !c->in_place && i == n - 1;
        enum acct_buf cb = last_in_recv ? ACCT_BUF_RECV : ACCT_BUF_TMP0;
        uint64_t co = last_in_recv ? o : (uint64_t)i * maxseg;
        acct_sched_reduce(s, pb, po, cb, co, l);
        pb = cb;
        po = co;
    }
    if (pb != ACCT_BUF_RECV)
        acct_sched_copy(s, pb, po, l, ACCT_BUF_RECV, o, l);
}

int acct_allreduce_reduce_bcast(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_tree t;
    int child[ACCT_TREE_MAX_CHILDREN];
    const uint64_t nseg = acct_nsegs(c->count, c->seg), maxseg = acct_seg_len(c->count, c->seg, 0);
    const enum acct_buf in = acct_allreduce_input(c);

    if (c->count == 0)
        return 0;
    if (c->size == 1) {
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, c->count, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    if (acct_tree_build(ACCT_TREE_BINOMIAL, c->rank, c->size, 2, &t) != 0)
        return -1;
    const int n = t.nchildren, parent = t.parent;
    /* Children in increasing rank order (topo.h serves the largest first). */
    for (int i = 0; i < n; i++)
        child[i] = t.children[n - 1 - i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && child[j - 1] > child[j]; j--) {
            int x = child[j];
            child[j] = child[j - 1];
            child[j - 1] = x;
        }
    const int nslots = c->in_place ? n : n - 1;
    if (nslots > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)nslots * maxseg);

    if (n == 0) { /* leaf: every segment of the input goes up at once */
        for (uint64_t k = 0; k < nseg; k++)
            acct_sched_send(s, parent, in, k * c->seg, acct_seg_len(c->count, c->seg, k));
    } else {
        for (uint64_t k = 0; k <= nseg; k++) {
            if (k < nseg)
                for (int i = 0; i < n; i++) {
                    const bool last_in_recv = !c->in_place && i == n - 1;
                    acct_sched_recv(s, child[i], last_in_recv ? ACCT_BUF_RECV : ACCT_BUF_TMP0,
                                    last_in_recv ? k * c->seg : (uint64_t)i * maxseg,
                                    acct_seg_len(c->count, c->seg, k));
                }
            if (k >= 1 && parent >= 0)
                acct_sched_send(s, parent, ACCT_BUF_RECV, (k - 1) * c->seg,
                                acct_seg_len(c->count, c->seg, k - 1));
            if (k < nseg)
                reduce_segment(c, s, n, maxseg, k * c->seg, acct_seg_len(c->count, c->seg, k));
            acct_sched_round(s);
        }
    }
    acct_sched_round(s);

    struct acct_call b = *c;
    b.coll = ACCT_COLL_bcast;
    b.root = 0;
    b.in_place = false;
    return acct_bcast_binomial(&b, s);
}

/* Segmented binomial reduce then bcast, any P: the reduce's rounds are
 * those of the tree reduce (acct_reduce_tree_cost, reduce_tree.c: leaves
 * send every segment in one round, a node receives segment k from all its
 * children while sending k - 1 up, then reduces), and the bcast starts at
 * the root when the reduce ends there (every other rank is in its bcast
 * round by then): T = T_reduce + T_bcast binomial. For P = 2^k:
 * 2 T_binomial(s) + k (k + 1) / 2 gamma s. */
double acct_allreduce_reduce_bcast_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    /* the bcast: the segmented binomial tree's path (acct_cost_tree_path's
     * (ns - 1) c0 g(s) + max D, c0 = ceil(log2 P) root children), by span */
    const double bcast = cost_pow2(c->p) ? acct_cost_binomial_tree(c)
                                         : (double)(ns - 1) * cost_clog2(c->p) * cost_g(c, s) +
                                               acct_binomial_span_path(c, s, false);
    return acct_reduce_tree_cost(c, ACCT_REDUCE_TREE_BINOMIAL, s, ns) + bcast;
}
