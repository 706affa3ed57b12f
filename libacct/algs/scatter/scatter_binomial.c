/* Binomial scatter (mirror of binomial gather): each subtree of a binomial
 * tree is a contiguous vrank range [v, v + span), so a node receives its
 * whole subtree's blocks from its parent in one message, into a scratch
 * buffer typed like the receive buffer (the send type is only significant
 * at the root), passes each child its part one child at a time, largest
 * subtree first, and keeps the first block. (Sending to all children at
 * once made the largest subtree share its parent's link with its siblings:
 * 0.85x of Open MPI at 1 MiB on the emulated 1 Gbit/s partition, 1.03x
 * one at a time; docs/performance.md.) The root sends each child's run
 * straight from its send buffer, in two messages when the run wraps past
 * rank P - 1 (root != 0), so no rotation copy (Open MPI's
 * ompi_coll_base_scatter_intra_binomial copies the whole buffer first).
 * Cost (pLogP, ../cost.h): acct_scatter_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scatter_binomial(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, v = acct_vrank(c->rank, c->root, p);
    struct acct_gather_gran b;
    struct acct_tree t;

    if (acct_tree_build(ACCT_TREE_BINOMIAL, v, p, 2, &t) != 0)
        return -1;
    acct_gather_blocks(c, &b);
    if (v == 0 ? c->scount == 0 : c->count == 0)
        return 0;
    if (v == 0) {
        for (int i = 0; i < t.nchildren; i++) {
            const int ch = t.children[i];
            const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
            struct acct_piece pc[2];
            int n = acct_gather_blocks_pieces(c, &b, ch, 0, (uint64_t)span * b.gran, pc);
            for (int k = 0; k < n; k++)
                acct_sched_send(s, acct_rank(ch, c->root, p), ACCT_BUF_SEND, pc[k].at * b.scnt,
                                pc[k].len * b.scnt);
            acct_sched_round(s); /* one child at a time, largest subtree first */
        }
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, (uint64_t)c->root * c->scount, c->scount,
                            ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    const int parent = acct_rank(t.parent, c->root, p);
    const int span = acct_tree_span(ACCT_TREE_BINOMIAL, v, p, 2);
    /* the run [v, v + span) as the parent sends it (two pieces at the wrap) */
    struct acct_piece pc[2] = {{.off = 0, .len = (uint64_t)span * b.gran}};
    int n = t.parent == 0 ? acct_gather_blocks_pieces(c, &b, v, 0, (uint64_t)span * b.gran, pc) : 1;
    if (t.nchildren == 0) {
        for (int k = 0; k < n; k++)
            acct_sched_recv(s, parent, ACCT_BUF_RECV, pc[k].off * b.rcnt, pc[k].len * b.rcnt);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)span * c->count);
    for (int k = 0; k < n; k++)
        acct_sched_recv(s, parent, ACCT_BUF_TMP0, pc[k].off * b.rcnt, pc[k].len * b.rcnt);
    acct_sched_round(s);
    for (int i = 0; i < t.nchildren; i++) {
        const int ch = t.children[i];
        const int cspan = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
        acct_sched_send(s, acct_rank(ch, c->root, p), ACCT_BUF_TMP0,
                        (uint64_t)(ch - v) * c->count, (uint64_t)cspan * c->count);
        acct_sched_round(s); /* one child at a time, largest subtree first */
    }
    acct_sched_copy(s, ACCT_BUF_TMP0, 0, c->count, ACCT_BUF_RECV, 0, c->count);
    return 0;
}

/* Binomial tree of blocks (BM04 Table 2), P = 2^k:
 * sum_{j=0}^{k-1} g(2^j m) + k L; other P: the recurrence of
 * acct_cost_binomial_down. */
double acct_scatter_binomial_cost(const struct acct_cost *c)
{
    return cost_pow2(c->p) ? acct_cost_binomial_blocks(c, c->m) : acct_cost_binomial_down(c, c->m, NULL);
}
