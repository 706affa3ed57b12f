/* scatter builders (one file each). They share gather's block helpers
 * (granules, pieces, chains: gather/gather.h). */
#ifndef ACCT_ALGS_SCATTER_H
#define ACCT_ALGS_SCATTER_H

#include "acct/alg.h"
#include "acct/topo.h"

int acct_scatter_linear(const struct acct_call *c, struct acct_sched *s);
int acct_scatter_chain(const struct acct_call *c, struct acct_sched *s);
int acct_scatter_binomial(const struct acct_call *c, struct acct_sched *s);

/* Closed forms (acct_cost_fn, pLogP; ../cost.h), each at the end of its
 * builder's file. */
double acct_scatter_linear_cost(const struct acct_cost *c);
double acct_scatter_binomial_cost(const struct acct_cost *c);
double acct_scatter_chain_cost(const struct acct_cost *c);

#endif
