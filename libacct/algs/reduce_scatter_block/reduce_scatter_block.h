/* reduce_scatter_block builders (one file each). */
#ifndef ACCT_ALGS_REDUCE_SCATTER_BLOCK_H
#define ACCT_ALGS_REDUCE_SCATTER_BLOCK_H

#include "acct/alg.h"
#include "acct/topo.h"

int acct_reduce_scatter_block_reduce_scatter(const struct acct_call *c, struct acct_sched *s);
int acct_reduce_scatter_block_recursive_halving(const struct acct_call *c, struct acct_sched *s);
int acct_reduce_scatter_block_ring(const struct acct_call *c, struct acct_sched *s);

/* Closed forms (acct_cost_fn, pLogP; ../cost.h), each at the end of its
 * builder's file. */
double acct_reduce_scatter_block_ring_cost(const struct acct_cost *c);
double acct_reduce_scatter_block_recursive_halving_cost(const struct acct_cost *c);
double acct_reduce_scatter_block_reduce_scatter_cost(const struct acct_cost *c);

#endif
