/* Layouts: which ranks of a communicator share a node, and the node-aware
 * trees built from it. Pure data and functions, no MPI: the runtime fills a
 * layout once per communicator from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * and one allgather (docs/runtime.md "Locality"), unit tests and the model
 * from any labelling.
 *
 * Nodes are numbered in the order of their lowest rank (rank 0's node is
 * node 0); within a node, ranks keep communicator order. Layouts may be
 * irregular (nodes with different rank counts) and need not be blocks
 * (round-robin placement puts ranks 0, 4, 8, ... on one node).
 *
 * The node-aware (hierarchical) tree of a rooted call joins two trees of
 * acct/topo.h: an inter-node tree among the node leaders (the root on its
 * node, a node's lowest rank elsewhere), laid out over nodes in the order
 * of their number starting at the root's node, and an intra-node tree on
 * each node rooted at its leader, over its ranks in order starting at the
 * leader. A leader serves its inter-node children before its intra-node
 * ones, so every segment leaves the node first. Example, 3 nodes of 2 ranks
 * in blocks {0,1} {2,3} {4,5}, root 0, inter chain (fan-out 1):
 *     0 -> 2 -> 4      (leaders)
 *     0 -> 1, 2 -> 3, 4 -> 5
 */
#ifndef ACCT_LAYOUT_H
#define ACCT_LAYOUT_H

#include <stdbool.h>

#include "acct/topo.h"

struct acct_layout {
    int size;        /* ranks */
    int nnodes;      /* nodes, >= 1 */
    int min_ppn, max_ppn; /* fewest and most ranks on one node */
    int *node;       /* [size] node of each rank */
    int *local;      /* [size] index of each rank within its node */
    int *first;      /* [nnodes + 1] node n's ranks are members[first[n] .. first[n+1]) */
    int *members;    /* [size] ranks grouped by node, ascending within a node */
};

/* Build *l for `size` ranks where rank r carries label key[r]: ranks with
 * equal labels share a node (any int labels, e.g. a node's lowest rank).
 * Returns 0, or -1 (size < 1, out of memory; *l is then empty). */
int acct_layout_build(struct acct_layout *l, int size, const int *key);
void acct_layout_free(struct acct_layout *l);

/* Equal node of every rank (two layouts that run the same schedules). */
bool acct_layout_equal(const struct acct_layout *a, const struct acct_layout *b);

/* Every node holds the same number of ranks. */
static inline bool acct_layout_regular(const struct acct_layout *l)
{
    return l->min_ppn == l->max_ppn;
}

/* Ranks on node n. */
static inline int acct_layout_ppn(const struct acct_layout *l, int n)
{
    return l->first[n + 1] - l->first[n];
}

/* The leader of node n for a call rooted at root: root on its own node,
 * the node's lowest rank elsewhere. */
int acct_layout_leader(const struct acct_layout *l, int n, int root);

/* Rank's place in the node-aware tree rooted at root (see the top): inter
 * among leaders with (inter, inter_fanout), intra on each node with
 * (intra, intra_fanout); fan-outs as acct_tree_build takes them. Parent and
 * children are ranks (not vranks). Returns 0, or -1 for arguments out of
 * range or a leader with more than ACCT_TREE_MAX_CHILDREN children. */
int acct_layout_tree(const struct acct_layout *l, int rank, int root, enum acct_tree_kind inter,
                     int inter_fanout, enum acct_tree_kind intra, int intra_fanout,
                     struct acct_tree *out);

/* Node n's ranks as runs of consecutive ranks, in rank order (one run per
 * node when ranks are placed in blocks): fn(ctx, i0, r0, len) for each,
 * with i0 the run's first index among the node's ranks and r0 its first
 * rank. Node-aware methods send a node's blocks as one message per run. */
typedef void (*acct_layout_run_fn)(void *ctx, int i0, int r0, int len);
void acct_layout_runs(const struct acct_layout *l, int n, acct_layout_run_fn fn, void *ctx);

/* "n nodes, a-b ranks per node" into buf (for logs). Returns buf. */
const char *acct_layout_describe(const struct acct_layout *l, char *buf, unsigned len);

/* A pretended placement (ACCT_LAYOUT, docs/user-guide.md): spec lists
 * ranks per node, repeated over the world ranks ("2": pairs; "3,1": nodes
 * of 3, 1, 3, 1, ... ranks). The node label of world_rank (node i of the
 * pattern's k-th repetition is k * n + i, n the pattern's length), or -1
 * when spec is not such a list (counts 1 to 2^20, at most 4096 of them).
 * The runtime's locality and acct-tune use it alike. */
int acct_layout_pattern_label(const char *spec, long world_rank);

#endif
