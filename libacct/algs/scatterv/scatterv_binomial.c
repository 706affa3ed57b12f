/* Binomial scatterv (scatter's binomial with per-rank counts; mirror of
 * binomial gatherv): a node receives its whole subtree's blocks [v, v +
 * span) from its parent in one message, packed back to back in vrank
 * order, into scratch (a leaf straight into its receive buffer), passes
 * each child its part one child at a time, largest subtree first, and
 * keeps its own block. No message for a subtree without bytes. The root
 * sends a child's run straight from its send buffer when the run's blocks
 * lie back to back there in vrank order, else packs it into scratch first.
 *
 * Needs every rank's count on every rank (ACCT_ALG_ALL_COUNTS, as binomial
 * gatherv). Cost (pLogP, ../cost.h): acct_scatterv_binomial_cost at the
 * end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scatterv_binomial(const struct acct_call *c, struct acct_sched *s)
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
        if (tmp > 0) /* pack the scattered runs first (a round of local steps) */
            acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, tmp);
        for (int i = 0; tmp > 0 && i < t.nchildren; i++) {
            const int ch = t.children[i], span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
            if (acct_v_run_in_place(c, ch, span, NULL))
                continue;
            for (int u = ch; u < ch + span; u++) {
                const int r = acct_rank(u, root, p);
                if (c->counts[r] > 0)
                    acct_sched_copy(s, ACCT_BUF_SEND, c->displs[r], c->counts[r], ACCT_BUF_TMP0,
                                    at, c->counts[r]);
                at += c->counts[r];
            }
        }
        at = 0;
        for (int i = 0; i < t.nchildren; i++) {
            const int ch = t.children[i], span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
            const uint64_t bytes = acct_v_run_bytes(c, ch, span);
            uint64_t off;
            if (bytes == 0)
                continue;
            if (acct_v_run_in_place(c, ch, span, &off)) {
                acct_sched_send(s, acct_rank(ch, root, p), ACCT_BUF_SEND, off, bytes);
            } else {
                acct_sched_send(s, acct_rank(ch, root, p), ACCT_BUF_TMP0, at, bytes);
                at += bytes;
            }
            acct_sched_round(s); /* one child at a time, largest subtree first */
        }
        if (!c->in_place && c->counts[root] > 0)
            acct_sched_copy(s, ACCT_BUF_SEND, c->displs[root], c->counts[root], ACCT_BUF_RECV, 0,
                            c->counts[root]);
        return 0;
    }
    const int parent = acct_rank(t.parent, root, p);
    const int span = acct_tree_span(ACCT_TREE_BINOMIAL, v, p, 2);
    const uint64_t own = c->counts[c->rank], total = acct_v_run_bytes(c, v, span);
    if (total == own) { /* a leaf, or children without bytes */
        if (own > 0)
            acct_sched_recv(s, parent, ACCT_BUF_RECV, 0, own);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, total);
    acct_sched_recv(s, parent, ACCT_BUF_TMP0, 0, total);
    acct_sched_round(s);
    for (int i = 0; i < t.nchildren; i++) {
        const int ch = t.children[i], cspan = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
        const uint64_t bytes = acct_v_run_bytes(c, ch, cspan);
        if (bytes == 0)
            continue;
        acct_sched_send(s, acct_rank(ch, root, p), ACCT_BUF_TMP0, acct_v_run_bytes(c, v, ch - v),
                        bytes);
        acct_sched_round(s); /* one child at a time, largest subtree first */
    }
    if (own > 0)
        acct_sched_copy(s, ACCT_BUF_TMP0, 0, own, ACCT_BUF_RECV, 0, own);
    return 0;
}

/* m = the average block: scatter's binomial at m (BM04 Table 2), plus the
 * broadcast of the P counts (8 P bytes, binomial). */
double acct_scatterv_binomial_cost(const struct acct_cost *c)
{
    return acct_scatter_binomial_cost(c) + acct_v_counts_bcast_cost(c);
}
