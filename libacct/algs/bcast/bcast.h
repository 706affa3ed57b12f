/* bcast builders (one file each). */
#ifndef ACCT_ALGS_BCAST_H
#define ACCT_ALGS_BCAST_H

#include "acct/alg.h"
#include "acct/topo.h"

int acct_bcast_tree(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind kind,
                    int fanout);
int acct_bcast_scatter_allgather(const struct acct_call *c, struct acct_sched *s, bool ring);

int acct_bcast_linear(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_chain(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_pipeline(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_binary(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_binomial(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_knomial(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_scatter_allgather_rd(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_scatter_allgather_ring(const struct acct_call *c, struct acct_sched *s);
int acct_bcast_split_binary(const struct acct_call *c, struct acct_sched *s);

/* Closed forms (acct_cost_fn, pLogP; ../cost.h), each at the end of its
 * builder's file. */
double acct_bcast_linear_cost(const struct acct_cost *c);
double acct_bcast_chain_cost(const struct acct_cost *c);
double acct_bcast_pipeline_cost(const struct acct_cost *c);
double acct_bcast_binomial_cost(const struct acct_cost *c);
double acct_bcast_knomial_cost(const struct acct_cost *c);
double acct_bcast_binary_cost(const struct acct_cost *c);
double acct_bcast_scatter_allgather_rd_cost(const struct acct_cost *c);
double acct_bcast_scatter_allgather_ring_cost(const struct acct_cost *c);
double acct_bcast_split_binary_cost(const struct acct_cost *c);

#endif
