/* SACK reordering, the pure part (no MPI): which tree positions late and
 * early processes get (DESIGN.md; paper 002, section 5).
 *
 * A tree algorithm's static tree is kept, but in *position* space: position
 * 0 is the root, positions 1..P-1 are the other nodes of the tree of
 * acct/topo.h (or a flat tree). With reordering the root hands positions
 * out in the order the other ranks' start-acknowledges (SACKs) arrive,
 * following a fill order of the positions:
 *
 *   breadth-first (BF): level by level, each level in serving order; the
 *       earliest arrivals take the positions nearest the root.
 *   depth-first (DF):   preorder, largest subtree first; the earliest
 *       arrivals run down the first branch, the last arrivals end up in
 *       the small subtrees served last.
 *
 *   binomial, 8 positions            BF order: 0 4 2 1 6 5 3 7
 *              0                     DF order: 0 4 6 7 5 2 3 1
 *         /    |    \
 *        4     2     1               arrivals a1..a7:
 *       / \    |                       BF: a1->4 a2->2 a3->1 a4->6 ...
 *      6   5   3                       DF: a1->4 a2->6 a3->7 a4->5 ...
 *      |
 *      7
 *
 * Both orders list every parent before its children, so when a position is
 * handed out its parent's rank is already known. */
#ifndef ACCT_RT_SACK_PLAN_H
#define ACCT_RT_SACK_PLAN_H

#include <stdbool.h>

#include "acct/topo.h"

enum sack_fill {
    SACK_FILL_DF = 0, /* the default (the paper's better one) */
    SACK_FILL_BF = 1,
};

/* The tree of a plan: a kind of acct/topo.h with its fan-out, or flat
 * (the root is the parent of every other position). */
struct sack_tree {
    bool flat;
    enum acct_tree_kind kind; /* when !flat */
    int fanout;               /* chains for CHAIN, radix for KNOMIAL */
    int size;                 /* positions */
};

struct sack_plan {
    struct sack_tree tree;
    enum sack_fill fill;
    int *order; /* size entries: positions in fill order, order[0] = 0 */
};

/* The tree that a bcast algorithm (registry name) uses, with fan-out
 * `fanout` (0: the algorithm's default, def). Returns 0, or -1 if the
 * algorithm is not a tree broadcast (then it runs without reordering). */
int sack_tree_of(const char *alg_name, int fanout, int def, int size, struct sack_tree *out);

/* Parent position of pos (-1 for 0 and out-of-range positions). */
int sack_tree_parent(const struct sack_tree *t, int pos);

/* Number of children of pos; with out != NULL (room for max), also the
 * children in serving order. -1 on bad arguments or max too small. */
int sack_tree_children(const struct sack_tree *t, int pos, int *out, int max);

/* Index of child among pos's children (serving order), -1 if not a child. */
int sack_tree_child_slot(const struct sack_tree *t, int pos, int child);

/* "bf" / "df" (case-insensitive; NULL or "" -> def). -1 for anything else. */
int sack_fill_parse(const char *s, enum sack_fill def, enum sack_fill *out);
const char *sack_fill_name(enum sack_fill f);

/* Compute the fill order. 0, or -1 (bad tree, out of memory). */
int sack_plan_init(struct sack_plan *p, const struct sack_tree *t, enum sack_fill fill);
void sack_plan_fini(struct sack_plan *p);

/* The position of the i-th arrival (i from 1; 0 is the root itself). */
static inline int sack_plan_position(const struct sack_plan *p, int i)
{
    return p->order[i];
}

/* The whole mapping for an arrival order (tests and the simulator): arrival
 * holds the size-1 non-root ranks in the order their SACKs arrive; fills
 * rank_of_pos[size] (rank_of_pos[0] = root). 0, or -1 if arrival is not a
 * permutation of the non-root ranks. */
int sack_plan_map(const struct sack_plan *p, int root, const int *arrival, int *rank_of_pos);

#endif
