/* Segmented tree broadcast over any tree of acct/topo.h — the mechanism
 * behind chain, pipeline, binary, binomial and k-nomial bcast.
 *
 * The root sends segment k to every child (largest subtree first), one
 * round per segment. An interior node receives segment k while it forwards
 * segment k-1 to its children (round k), so every edge of the tree carries a
 * segment at once. A leaf posts all its receives in one round.
 *
 * The node-aware trees (acct_bcast_nodes, acct/layout.h) run the same way:
 * a segment leaves the root's node to the other node leaders and goes down
 * each node's intra-node tree while the next one follows (HAN's overlap of
 * the inter- and intra-node phases, by segments).
 *
 * Cost (pLogP, ../cost.h; each registered tree's closed form is in its
 * file): ns segments of s bytes, tree of height h, f sends per segment at
 * the root: about (ns - 1) f g(s) + h (f g(s) + L); e.g. pipeline (f = 1,
 * h = P - 1): (P - 1)(g(s) + L) + (ns - 1) g(s). */
#include "../algs.h"

int acct_bcast_over(const struct acct_call *c, struct acct_sched *s, const struct acct_tree *t)
{
    uint64_t nseg = acct_nsegs(c->count, c->seg);

    if (nseg == 0 || c->size == 1)
        return 0;
    for (uint64_t k = 0; k <= nseg; k++) {
        if (t->parent >= 0 && k < nseg)
            acct_sched_recv(s, t->parent, ACCT_BUF_RECV, k * c->seg,
                            acct_seg_len(c->count, c->seg, k));
        if (k >= 1)
            for (int i = 0; i < t->nchildren; i++)
                acct_sched_send(s, t->children[i], ACCT_BUF_RECV, (k - 1) * c->seg,
                                acct_seg_len(c->count, c->seg, k - 1));
        if (t->nchildren > 0) /* a leaf keeps every receive in one round */
            acct_sched_round(s);
    }
    return 0;
}

int acct_bcast_tree(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind kind,
                    int fanout)
{
    struct acct_tree t;
    int v = acct_vrank(c->rank, c->root, c->size);

    if (acct_tree_build(kind, v, c->size, fanout, &t) != 0)
        return -1;
    /* vranks to ranks */
    if (t.parent >= 0)
        t.parent = acct_rank(t.parent, c->root, c->size);
    for (int i = 0; i < t.nchildren; i++)
        t.children[i] = acct_rank(t.children[i], c->root, c->size);
    return acct_bcast_over(c, s, &t);
}

int acct_bcast_nodes(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind inter,
                     int fanout)
{
    struct acct_hier h;
    struct acct_tree t;

    if (acct_hier_init(c, &h) != 0 ||
        acct_layout_tree(h.l, c->rank, c->root, inter, fanout, ACCT_BCAST_INTRA, 2, &t) != 0)
        return -1;
    return acct_bcast_over(c, s, &t);
}
