/* Split-binary broadcast (Open MPI's ompi_coll_base_bcast_intra_split_bintree).
 *
 * The buffer is split in two halves (the first ceil(m/2) elements, the
 * rest). In the binary tree of Open MPI's topology builder (level l holds
 * vranks [2^l - 1, 2^(l+1) - 1), node v of level l has children v + 2^l
 * and v + 2^(l+1)), the left subtree of the root holds the odd vranks and
 * the right one the even vranks:
 *                       0
 *                  /         \
 *                 1           2          left: half 0, right: half 1
 *               /   \       /   \
 *              3     5     4     6
 *             / \   / \   / \   / \
 *            7  11 9  13 8  12 10 14
 * Phase 1: the root pipelines half 0 down the left subtree and half 1
 * down the right one, segment by segment (a node receives segment k while
 * it forwards segment k - 1, as in bcast_tree). Phase 2: odd v and v + 1
 * are mirror images in the two subtrees and swap their halves in one
 * exchange; when P is even, vrank P - 1 has no mirror and gets half 1
 * from the root. Interior nodes post the exchange with their last
 * forward. P < 3 or m < 2: a plain binary-tree broadcast instead.
 * Cost (pLogP, ../cost.h): acct_bcast_split_binary_cost at the end of this file.
 * For large m about half the binary tree's time. */
#include "../algs.h"
#include "../cost.h"

/* Open MPI's binary tree: parent and children (vranks) of v. */
static int split_tree(int v, int size, int *parent, int child[2])
{
    int level = 0, n = 0;
    while ((2L << level) - 1 <= v) /* level l starts at 2^l - 1 */
        level++;
    const long delta = 1L << level;
    for (int i = 0; i < 2; i++)
        if (v + delta * (i + 1) < size)
            child[n++] = (int)(v + delta * (i + 1));
    if (v == 0) {
        *parent = -1;
    } else if (v <= 2) {
        *parent = 0;
    } else {
        long p = v - delta / 2;
        if (p >= delta - 1) /* still on level l */
            p -= delta / 2;
        *parent = (int)p;
    }
    return n;
}

int acct_bcast_split_binary(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, v = acct_vrank(c->rank, c->root, p);
    if (c->count == 0 || p == 1)
        return 0;
    if (p < 3 || c->count < 2)
        return acct_bcast_tree(c, s, ACCT_TREE_BINARY, 2);

    const uint64_t half[2] = {(c->count + 1) / 2, c->count / 2};
    const uint64_t start[2] = {0, half[0]};
    int parent, child[2];
    const int nchild = split_tree(v, p, &parent, child);
    const int lr = v % 2 == 1 ? 0 : 1; /* my half (the root: 1) */
    const int mirror = v == 0 ? (p % 2 == 0 ? p - 1 : -1)
                       : lr == 0 ? (v + 1 < p ? v + 1 : -1)
                                 : v - 1;

    if (v == 0) {
        uint64_t nseg = acct_nsegs(half[0], c->seg);
        for (uint64_t k = 0; k < nseg; k++) {
            for (int i = 0; i < nchild; i++) /* child i gets half i */
                if (k < acct_nsegs(half[i], c->seg))
                    acct_sched_send(s, acct_rank(child[i], c->root, p), ACCT_BUF_RECV,
                                    start[i] + k * c->seg, acct_seg_len(half[i], c->seg, k));
            if (k + 1 < nseg)
                acct_sched_round(s);
        }
        if (mirror >= 0) /* even P: vrank P - 1 has no mirror */
            acct_sched_send(s, acct_rank(mirror, c->root, p), ACCT_BUF_RECV, start[1], half[1]);
        return 0;
    }
    const int up = acct_rank(parent, c->root, p);
    const uint64_t n = half[lr], at = start[lr], nseg = acct_nsegs(n, c->seg);
    for (uint64_t k = 0; k <= nseg; k++) {
        if (k < nseg)
            acct_sched_recv(s, up, ACCT_BUF_RECV, at + k * c->seg, acct_seg_len(n, c->seg, k));
        if (k >= 1)
            for (int i = 0; i < nchild; i++)
                acct_sched_send(s, acct_rank(child[i], c->root, p), ACCT_BUF_RECV,
                                at + (k - 1) * c->seg, acct_seg_len(n, c->seg, k - 1));
        /* a leaf keeps every receive in one round; an interior node's last
         * round (the last forward) also holds the exchange */
        if (k < nseg && (nchild > 0 || k + 1 == nseg))
            acct_sched_round(s);
    }
    if (mirror >= 0) {
        acct_sched_send(s, acct_rank(mirror, c->root, p), ACCT_BUF_RECV, at, n);
        acct_sched_recv(s, acct_rank(mirror, c->root, p), ACCT_BUF_RECV, start[1 - lr],
                        half[1 - lr]);
    } else { /* even P, vrank P - 1: half 1 comes from the root */
        acct_sched_recv(s, c->root, ACCT_BUF_RECV, start[1], half[1]);
    }
    return 0;
}

/* Split-binary bcast (P = 2^k >= 4): each half h = m/2 pipelines down its
 * subtree in segments of s (the root alternating two sends per segment),
 * then mirror nodes swap halves in one message (bcast_split_binary.c):
 *   = 2 (ns - 1) g(s) + (k - 1)(g(s) + L) + (k - 1) g(s) + g(h) + L,
 * ns = h / s. P = 2 (and m < 2) is the plain binary tree. */
double acct_bcast_split_binary_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (c->p < 3 || c->m < 2)
        return acct_bcast_binary_cost(c);
    if (!cost_pow2(c->p) || c->m % 2 != 0)
        return NAN;
    uint64_t h = c->m / 2;
    if (!cost_segs(c, h, &s, &ns))
        return NAN;
    int k = cost_ilog2(c->p);
    return 2.0 * (double)(ns - 1) * cost_g(c, s) + (k - 1) * (cost_g(c, s) + cost_L(c)) + (k - 1) * cost_g(c, s) +
           cost_g(c, h) + cost_L(c);
}
