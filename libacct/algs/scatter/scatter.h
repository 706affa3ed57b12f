/* scatter builders (one file each). They share gather's block helpers
 * (granules, pieces, chains: gather/gather.h). */
#ifndef ACCT_ALGS_SCATTER_H
#define ACCT_ALGS_SCATTER_H

#include "acct/alg.h"
#include "acct/topo.h"

int acct_scatter_linear(const struct acct_call *c, struct acct_sched *s);
int acct_scatter_chain(const struct acct_call *c, struct acct_sched *s);
int acct_scatter_binomial(const struct acct_call *c, struct acct_sched *s);

#endif
