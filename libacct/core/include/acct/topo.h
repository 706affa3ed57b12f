/* Tree builders: pure functions of (vrank, size, kind, fan-out).
 *
 * Trees are built in virtual-rank space, where the root is 0:
 * vrank = (rank - root + size) % size. Children are listed in the order a
 * parent should serve them: largest actual subtree first (for trees clipped
 * at size, that is not always the highest place value), so a pipelined
 * sender feeds the longest path first.
 *
 * CHAIN, fan-out f (f chains hang off the root; f = 1 is the pipeline):
 *     f = 2, size 7:   0 -> 1 -> 2 -> 3        (chain of vranks 1..3)
 *                      0 -> 4 -> 5 -> 6        (chain of vranks 4..6)
 * BINARY (level order):            0
 *                                /   \
 *                               1     2
 *                              / \   / \
 *                             3   4 5   6
 * BINOMIAL (= KNOMIAL with k = 2), size 8:
 *                        0
 *                   /    |    \
 *                  4     2     1
 *                 / \    |
 *                6   5   3
 *                |
 *                7
 * KNOMIAL, radix k: the parent of v clears v's lowest non-zero base-k digit;
 *     k = 3, size 9:  0 -> {3, 6, 1, 2},  3 -> {4, 5},  6 -> {7, 8}
 *     (largest subtree first, then the lower digit: Open MPI's kmtree order)
 */
#ifndef ACCT_TOPO_H
#define ACCT_TOPO_H

enum acct_tree_kind {
    ACCT_TREE_CHAIN = 0,
    ACCT_TREE_BINARY = 1,
    ACCT_TREE_BINOMIAL = 2,
    ACCT_TREE_KNOMIAL = 3,
};

/* Enough for a k-nomial tree of radix <= ACCT_TREE_MAX_RADIX over 2^31
 * ranks, and for the root of a chain tree with up to ACCT_TREE_MAX_FANOUT
 * chains. */
#define ACCT_TREE_MAX_CHILDREN 128
#define ACCT_TREE_MAX_FANOUT 64
#define ACCT_TREE_MAX_RADIX 16

struct acct_tree {
    int parent; /* vrank of the parent, -1 at the root */
    int nchildren;
    int children[ACCT_TREE_MAX_CHILDREN]; /* vranks, in serving order */
};

/* Fill *out for vrank in a tree of `size`. fanout: chains for CHAIN (>= 1),
 * radix for KNOMIAL (2..ACCT_TREE_MAX_RADIX), ignored otherwise. Returns 0, or -1 for
 * arguments out of range (*out untouched). */
int acct_tree_build(enum acct_tree_kind kind, int vrank, int size, int fanout,
                    struct acct_tree *out);

/* Number of vranks in the subtree rooted at vrank (itself included), for
 * BINOMIAL and KNOMIAL trees: subtrees are the contiguous vrank ranges
 * [vrank, vrank + span). -1 for bad arguments. */
int acct_tree_span(enum acct_tree_kind kind, int vrank, int size, int fanout);

static inline int acct_vrank(int rank, int root, int size)
{
    return (rank - root + size) % size;
}

static inline int acct_rank(int vrank, int root, int size)
{
    return (vrank + root) % size;
}

#endif
