/* Segmented tree broadcast over any tree of acct/topo.h — the mechanism
 * behind chain, pipeline, binary, binomial and k-nomial bcast.
 *
 * The root sends segment k to every child (largest subtree first), one
 * round per segment. An interior node receives segment k while it forwards
 * segment k-1 to its children (round k), so every edge of the tree carries a
 * segment at once. A leaf posts all its receives in one round.
 *
 * Cost (pLogP, ../cost.h; each registered tree's closed form is in its
 * file): ns segments of s bytes, tree of height h, f sends per segment at
 * the root: about (ns - 1) f g(s) + h (f g(s) + L); e.g. pipeline (f = 1,
 * h = P - 1): (P - 1)(g(s) + L) + (ns - 1) g(s). */
#include "../algs.h"

int acct_bcast_tree(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind kind,
                    int fanout)
{
    struct acct_tree t;
    int v = acct_vrank(c->rank, c->root, c->size);
    uint64_t nseg = acct_nsegs(c->count, c->seg);

    if (acct_tree_build(kind, v, c->size, fanout, &t) != 0)
        return -1;
    if (nseg == 0 || c->size == 1)
        return 0;
    const int parent = t.parent < 0 ? -1 : acct_rank(t.parent, c->root, c->size);
    for (uint64_t k = 0; k <= nseg; k++) {
        if (parent >= 0 && k < nseg)
            acct_sched_recv(s, parent, ACCT_BUF_RECV, k * c->seg,
                            acct_seg_len(c->count, c->seg, k));
        if (k >= 1)
            for (int i = 0; i < t.nchildren; i++)
                acct_sched_send(s, acct_rank(t.children[i], c->root, c->size), ACCT_BUF_RECV,
                                (k - 1) * c->seg, acct_seg_len(c->count, c->seg, k - 1));
        if (t.nchildren > 0) /* a leaf keeps every receive in one round */
            acct_sched_round(s);
    }
    return 0;
}
