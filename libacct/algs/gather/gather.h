/* gather builders (one file each), and the block helpers that gather and
 * scatter share (gather_blocks.c). */
#ifndef ACCT_ALGS_GATHER_H
#define ACCT_ALGS_GATHER_H

#include <stdint.h>

#include <stdbool.h>

#include "acct/alg.h"
#include "acct/layout.h"
#include "acct/topo.h"

struct acct_hier; /* ../algs.h */

/* The blocks of a rooted gather/scatter, cut in granules.
 *
 * A block is `count` receive-type elements or `scount` send-type elements
 * with the same type signature. Splitting it anywhere but at whole
 * elements of both types would break a message in two on one side only,
 * so segments inside a block are made of granules: gran = gcd(count,
 * scount) granules per block, each rcnt = count / gran receive elements =
 * scnt = scount / gran send elements (count == scount: one element).
 * Whole blocks (seg == 0) only ever use whole multiples of count and
 * scount, so a rank that cannot know the other side's count (the receive
 * count at a gather non-root) builds the same messages whatever it gets. */
struct acct_gather_gran {
    uint64_t gran; /* granules per block; 0 = both counts are 0 */
    uint64_t rcnt; /* receive-type elements per granule */
    uint64_t scnt; /* send-type elements per granule */
    uint64_t seg;  /* granules per segment (from call->seg); 0 = one segment */
};

void acct_gather_blocks(const struct acct_call *c, struct acct_gather_gran *b);

/* A piece of a run of blocks: granules [off, off + len) of the run, which
 * start at granule `at` of the root's full buffer (rank order). */
struct acct_piece {
    uint64_t off, at, len;
};

/* Granules [t0, t1) of the run of blocks of vranks vfirst, vfirst + 1, ...
 * as stored at the root (rank order): one piece, or two when the run wraps
 * past rank size - 1 to rank 0 (root != 0). Returns the number of pieces. */
int acct_gather_blocks_pieces(const struct acct_call *c, const struct acct_gather_gran *b,
                              int vfirst, uint64_t t0, uint64_t t1, struct acct_piece out[2]);

/* The chains of gather/scatter chain, in vrank space: fan-out chains of
 * consecutive vranks hang off the root (vrank 0). The head of a chain is
 * its HIGHEST vrank and vrank v's child is v - 1, so the blocks a node
 * passes on, [v - ndesc, v], are in buffer order with its own block last
 * (topo's CHAIN read through position x = size - v):
 *     size 7, fan-out 2:   0 <- 6 <- 5 <- 4     0 <- 3 <- 2 <- 1      */
struct acct_gather_chain_node {
    int parent; /* vrank; -1 at the root */
    int ndesc;  /* nodes below this one in its chain */
    int nheads; /* root only: the chains' heads (vranks), in serving order */
    int heads[ACCT_TREE_MAX_CHILDREN];
};

int acct_gather_blocks_chain(int v, int size, int fanout, struct acct_gather_chain_node *out);

/* The node-level tree of gather and scatter hier_binomial: the nodes in
 * their order from the root's node (node vranks, the root's node 0), their
 * leaders (acct_layout_leader) joined by a binomial tree over node vranks.
 * A subtree is a range of node vranks [v, v + span); its blocks lie node
 * after node in node-vrank order, each node's in its members' order. */
struct acct_gather_nodes {
    const struct acct_layout *l;
    int root;      /* the call's root */
    int root_node; /* node of node vrank 0 */
    int v;         /* this rank's node's vrank */
    int span;      /* nodes in its subtree, [v, v + span) */
    struct acct_tree t; /* over node vranks */
};

/* *out for the calling rank's node (h, a rooted call's). Returns 0 or -1. */
int acct_gather_nodes_build(const struct acct_hier *h, struct acct_gather_nodes *out);

/* The node of node vrank w, and its leader (rank). */
static inline int acct_gather_nodes_node(const struct acct_gather_nodes *t, int w)
{
    return acct_rank(w, t->root_node, t->l->nnodes);
}
static inline int acct_gather_nodes_leader(const struct acct_gather_nodes *t, int w)
{
    return acct_layout_leader(t->l, acct_gather_nodes_node(t, w), t->root);
}

/* Ranks on the nodes of node vranks [v, u): the blocks before node u's in
 * the scratch of the subtree at v. */
int acct_gather_nodes_ranks(const struct acct_gather_nodes *t, int v, int u);

/* The subtree [v, v + span)'s blocks, in its order, are the blocks of
 * consecutive ranks *first, *first + 1, ... (the root reads them in place). */
bool acct_gather_nodes_contiguous(const struct acct_gather_nodes *t, int v, int span, int *first);

/* Copy the blocks of the nodes [v, v + span) between their places in a
 * subtree's scratch buf (from block `at`, in subtree order) and their
 * ranks' places: scratch to RECV (gather) or SEND to scratch (scatter),
 * one copy per run of consecutive ranks; block elements per rank. */
struct acct_gather_nodes_copy {
    struct acct_sched *s;
    bool gather;
    enum acct_buf buf;
    uint64_t at;
    uint64_t block;
};
void acct_gather_nodes_copy(const struct acct_gather_nodes *t, int v, int span,
                            struct acct_gather_nodes_copy *m);

/* The intra-node phase of the node-aware gathers and scatters (hier_linear,
 * hier_binomial), with this rank (h, ../algs.h) its node's leader (the root
 * on the root's node). Gather: the root copies its own block and receives
 * its node's blocks in place; another leader receives its node's blocks
 * into scratch ACCT_BUF_TMP0, block i at local index i, and copies its own.
 * Scatter, the other way: the root sends its node's blocks from its send
 * buffer and copies its own; another leader sends them from TMP0 and
 * copies its own out. */
void acct_gather_intra_root(const struct acct_call *c, const struct acct_hier *h,
                            struct acct_sched *s);
void acct_gather_intra_leader(const struct acct_call *c, const struct acct_hier *h,
                              struct acct_sched *s);
void acct_scatter_intra_root(const struct acct_call *c, const struct acct_hier *h,
                             struct acct_sched *s);
void acct_scatter_intra_leader(const struct acct_call *c, const struct acct_hier *h,
                               struct acct_sched *s);

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(gather, linear);
ACCT_ALG_FUNCTIONS(gather, chain);
ACCT_ALG_FUNCTIONS(gather, binomial);
ACCT_ALG_FUNCTIONS(gather, linear_sync);
ACCT_ALG_FUNCTIONS(gather, hier_linear);
ACCT_ALG_FUNCTIONS(gather, hier_binomial);

#endif
