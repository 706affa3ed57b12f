/* Builders of every registered algorithm (internal to the acct_algs library).
 * One directory per collective, one file per algorithm, the function named
 * after the file: algs/bcast/bcast_binomial.c -> acct_bcast_binomial().
 * Each directory has <coll>.h (its builders), entries.h (its rows of the
 * registry table) and CMakeLists.txt (its files). */
#ifndef ACCT_ALGS_H
#define ACCT_ALGS_H

#include <stdint.h>

#include "acct/alg.h"
#include "acct/topo.h"

/* Element range of vrank v's block when count elements are split in size
 * blocks of ceil(count/size) (the last blocks may be short or empty). */
void acct_block_range(uint64_t count, int size, int v, uint64_t *off, uint64_t *len);

/* One message per run of a node's ranks (acct_layout_runs): SEND or RECV
 * of buf with peer, run (i0, r0, len) at element offset
 * (by_rank ? r0 : i0) * block, len * block elements. */
struct acct_run_msg {
    struct acct_sched *s;
    bool send;
    int peer;
    enum acct_buf buf;
    bool by_rank;   /* offsets by rank (the full buffer) or by index in the node (scratch) */
    uint64_t block; /* elements per rank's block */
};
void acct_run_msg(void *ctx, int i0, int r0, int len); /* an acct_layout_run_fn */

/* The preamble every node-aware method (hier_*, ACCT_ALG_NODES) starts
 * from: the calling rank's place in the call's layout (acct/layout.h).
 * The leader of a node is the root on the root's node for a rooted
 * collective (acct_layout_leader), its lowest rank otherwise. */
struct acct_hier {
    const struct acct_layout *l;
    int me;        /* c->rank */
    int root;      /* c->root for a rooted collective, else -1 */
    int node;      /* this rank's node */
    int nnodes;    /* nodes */
    int base;      /* l->members[base .. base + ppn) are this node's ranks */
    int ppn;       /* ranks on this node */
    int local;     /* this rank's index among them */
    int leader;    /* this node's leader (rank) */
};

/* Fills *h for call c. Returns 0, or -1 when c has no usable layout (none,
 * or one of another size): then the method declines and the registry's
 * fallback runs. */
int acct_hier_init(const struct acct_call *c, struct acct_hier *h);

/* Rank of node's idx-th rank, and node's leader (rank). */
static inline int acct_hier_member(const struct acct_hier *h, int node, int idx)
{
    return h->l->members[h->l->first[node] + idx];
}
int acct_hier_leader(const struct acct_hier *h, int node);

/* The leaders of the next and the previous node (node numbers mod nnodes):
 * a leaders' ring's neighbours. */
void acct_hier_ring(const struct acct_hier *h, int *next, int *prev);

/* This rank's place in its node's binomial tree over the node's ranks in
 * order, rooted at its lowest rank (local index 0; the unrooted methods'
 * leader): parent (-1 at the leader) and children as ranks, and, if depth
 * is not NULL, its distance from the leader. Returns 0, or -1. */
int acct_hier_tree(const struct acct_hier *h, struct acct_tree *t, int *depth);

/* Appends sub, built for a call among the leaders with rank = node number,
 * to s with each node's number mapped to its leader's rank. Returns 0, or
 * -1 (out of memory). */
int acct_hier_append_leaders(const struct acct_hier *h, struct acct_sched *s,
                             const struct acct_sched *sub);

/* The role of this rank in a node-aware gather or scatter (hier_linear,
 * hier_binomial). A rank other than its node's leader moves its own block
 * with the leader -- gather: sends SEND[0, scount), scatter: receives
 * RECV[0, count), nothing when its count is 0 -- and is done; so is the
 * root when the root's count is 0, and another leader when its own is (a
 * non-root knows only its own count). */
enum acct_hier_role {
    ACCT_HIER_DONE = 0, /* its schedule is complete */
    ACCT_HIER_ROOT,     /* the root (its node's leader) */
    ACCT_HIER_LEADER,   /* another node's leader */
};
enum acct_hier_role acct_hier_rooted_role(const struct acct_call *c, const struct acct_hier *h,
                                          struct acct_sched *s, bool gather);

/* The rooted v-collectives' trees (gatherv, scatterv binomial; c->counts
 * on every rank): the bytes of the vranks [v, v + span) (ranks v + root
 * mod P), and whether their blocks lie back to back in vrank order at the
 * root's displacements (blocks without bytes skipped), then from byte
 * *off (if off is not NULL) of the root's buffer. */
uint64_t acct_v_run_bytes(const struct acct_call *c, int v, int span);
bool acct_v_run_in_place(const struct acct_call *c, int v, int span, uint64_t *off);

#include "allgather/allgather.h"
#include "allgatherv/allgatherv.h"
#include "allreduce/allreduce.h"
#include "alltoall/alltoall.h"
#include "alltoallv/alltoallv.h"
#include "barrier/barrier.h"
#include "bcast/bcast.h"
#include "exscan/exscan.h"
#include "gather/gather.h"
#include "gatherv/gatherv.h"
#include "reduce/reduce.h"
#include "reduce_scatter/reduce_scatter.h"
#include "reduce_scatter_block/reduce_scatter_block.h"
#include "scan/scan.h"
#include "scatter/scatter.h"
#include "scatterv/scatterv.h"

#endif
