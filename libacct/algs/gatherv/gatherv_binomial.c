/* Binomial gatherv (gather's binomial with per-rank counts): each subtree
 * of the binomial tree over vranks (rank - root mod P) is the vrank range
 * [v, v + span), and a node sends its parent its whole subtree's blocks
 * packed back to back in vrank order, one message (none when the subtree
 * holds no bytes: both ends know every count). Interior nodes gather their
 * subtree in a scratch buffer; the root receives a child's run straight
 * into its receive buffer when the run's blocks lie back to back there in
 * vrank order (displacements the prefix sums of the counts, the usual
 * case), else into scratch, and copies each block to its displacement.
 * Every node posts its children's receives at once.
 *
 * Needs every rank's count on every rank (c->counts everywhere; c->displs
 * at the root): ACCT_ALG_ALL_COUNTS, the runtime broadcasts the root's
 * counts first (docs/runtime.md, "Binomial gatherv and scatterv").
 * Cost (pLogP, ../cost.h): acct_gatherv_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_gatherv_binomial(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, root = c->root, v = acct_vrank(c->rank, root, p);
    struct acct_tree t;

    if (c->counts == NULL || (v == 0 && c->displs == NULL))
        return -1;
    if (acct_tree_build(ACCT_TREE_BINOMIAL, v, p, 2, &t) != 0)
        return -1;
    if (v == 0) {
        uint64_t tmp = 0, at = 0;
        for (int i = 0; i < t.nchildren; i++) {
            const int ch = t.children[i], span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
            if (!acct_v_run_in_place(c, ch, span, NULL))
                tmp += acct_v_run_bytes(c, ch, span);
        }
        if (tmp > 0)
            acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, tmp);
        if (!c->in_place && c->counts[root] > 0)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, c->counts[root], ACCT_BUF_RECV, c->displs[root],
                            c->counts[root]);
        for (int i = 0; i < t.nchildren; i++) {
            const int ch = t.children[i], span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
            const uint64_t bytes = acct_v_run_bytes(c, ch, span);
            uint64_t off;
            if (bytes == 0)
                continue;
            if (acct_v_run_in_place(c, ch, span, &off)) {
                acct_sched_recv(s, acct_rank(ch, root, p), ACCT_BUF_RECV, off, bytes);
            } else {
                acct_sched_recv(s, acct_rank(ch, root, p), ACCT_BUF_TMP0, at, bytes);
                at += bytes;
            }
        }
        /* after the receives (the round's local steps): the scattered runs */
        at = 0;
        for (int i = 0; i < t.nchildren; i++) {
            const int ch = t.children[i], span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
            if (acct_v_run_in_place(c, ch, span, NULL))
                continue;
            for (int u = ch; u < ch + span; u++) {
                const int r = acct_rank(u, root, p);
                if (c->counts[r] > 0)
                    acct_sched_copy(s, ACCT_BUF_TMP0, at, c->counts[r], ACCT_BUF_RECV,
                                    c->displs[r], c->counts[r]);
                at += c->counts[r];
            }
        }
        return 0;
    }
    const int parent = acct_rank(t.parent, root, p);
    const int span = acct_tree_span(ACCT_TREE_BINOMIAL, v, p, 2);
    const uint64_t own = c->counts[c->rank], total = acct_v_run_bytes(c, v, span);
    if (total == own) { /* a leaf, or children without bytes */
        if (own > 0)
            acct_sched_send(s, parent, ACCT_BUF_SEND, 0, own);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, total);
    if (own > 0)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, own, ACCT_BUF_TMP0, 0, own);
    for (int i = 0; i < t.nchildren; i++) {
        const int ch = t.children[i], cspan = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
        const uint64_t bytes = acct_v_run_bytes(c, ch, cspan);
        if (bytes > 0)
            acct_sched_recv(s, acct_rank(ch, root, p), ACCT_BUF_TMP0,
                            acct_v_run_bytes(c, v, ch - v), bytes);
    }
    acct_sched_round(s);
    acct_sched_send(s, parent, ACCT_BUF_TMP0, 0, total);
    return 0;
}

/* m = the average block: gather's binomial at m (BM04 Table 2), plus the
 * broadcast of the P counts (8 P bytes, binomial) that puts every count
 * on every rank first. */
double acct_gatherv_binomial_cost(const struct acct_cost *c)
{
    return acct_gather_binomial_cost(c) + acct_v_counts_bcast_cost(c);
}
