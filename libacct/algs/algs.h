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
