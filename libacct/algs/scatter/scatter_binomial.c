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

/* F(n) = max_j (S_j + L + F(span_j)), F(1) = 0, over the children of a
 * span-n subtree (spans min(2^i, n - 2^i), 2^i < n) sorted largest first
 * (topo.c's serving order; equal spans are interchangeable), S_j the sum
 * of the first j gaps. A span-n subtree's children have the spans 2^i
 * (complete) and at most one n - 2^i: O(log P) spans in all, memoised. */
struct span_memo {
    int n[128];
    double f[128];
    int used;
};

static double span_path(const struct acct_cost *c, uint64_t m, bool blocks, int n,
                        struct span_memo *mm)
{
    if (n <= 1)
        return 0;
    for (int i = 0; i < mm->used; i++)
        if (mm->n[i] == n)
            return mm->f[i];
    int span[64], d = 0;
    for (long b = 1; b < n; b *= 2)
        span[d++] = (int)(b < n - b ? b : n - b);
    for (int i = 1; i < d; i++) /* largest first */
        for (int j = i; j > 0 && span[j - 1] < span[j]; j--) {
            int t = span[j];
            span[j] = span[j - 1];
            span[j - 1] = t;
        }
    double sum = 0, best = 0;
    for (int j = 0; j < d; j++) {
        sum += cost_g(c, blocks ? (uint64_t)span[j] * m : m);
        double f = sum + cost_L(c) + span_path(c, m, blocks, span[j], mm);
        best = f > best ? f : best;
    }
    if (mm->used < 128) {
        mm->n[mm->used] = n;
        mm->f[mm->used++] = best;
    }
    return best;
}

double acct_binomial_span_path(const struct acct_cost *c, uint64_t m, bool blocks)
{
    struct span_memo mm = {.used = 0};
    return c->p >= 1 ? span_path(c, m, blocks, c->p, &mm) : NAN;
}

/* Binomial tree of blocks (BM04 Table 2), P = 2^k:
 * sum_{j=0}^{k-1} g(2^j m) + k L; other P: the longest path by span
 * (acct_binomial_span_path; the recurrence of acct_cost_binomial_down, in
 * O(log P)). */
double acct_scatter_binomial_cost(const struct acct_cost *c)
{
    return cost_pow2(c->p) ? acct_cost_binomial_blocks(c, c->m) : acct_binomial_span_path(c, c->m, true);
}
