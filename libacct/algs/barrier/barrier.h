/* barrier builders (one file each). Barriers move zero-length messages:
 * every step has count 0 (buffer RECV, offset 0), and the executor does
 * send and receive them. */
#ifndef ACCT_ALGS_BARRIER_H
#define ACCT_ALGS_BARRIER_H

#include "acct/alg.h"
#include "acct/topo.h"

int acct_barrier_linear(const struct acct_call *c, struct acct_sched *s);
int acct_barrier_double_ring(const struct acct_call *c, struct acct_sched *s);
int acct_barrier_dissemination(const struct acct_call *c, struct acct_sched *s);
int acct_barrier_tournament(const struct acct_call *c, struct acct_sched *s);
int acct_barrier_recursive_doubling(const struct acct_call *c, struct acct_sched *s);

/* Closed forms (acct_cost_fn, pLogP; ../cost.h), each at the end of its
 * builder's file. */
double acct_barrier_linear_cost(const struct acct_cost *c);
double acct_barrier_double_ring_cost(const struct acct_cost *c);
double acct_barrier_dissemination_cost(const struct acct_cost *c);
double acct_barrier_tournament_cost(const struct acct_cost *c);
double acct_barrier_recursive_doubling_cost(const struct acct_cost *c);

#endif
