/* reduce_scatter_block builders (one file each). */
#ifndef ACCT_ALGS_REDUCE_SCATTER_BLOCK_H
#define ACCT_ALGS_REDUCE_SCATTER_BLOCK_H

#include "acct/alg.h"
#include "acct/topo.h"

int acct_reduce_scatter_block_reduce_scatter(const struct acct_call *c, struct acct_sched *s);
int acct_reduce_scatter_block_recursive_halving(const struct acct_call *c, struct acct_sched *s);
int acct_reduce_scatter_block_ring(const struct acct_call *c, struct acct_sched *s);

#endif
