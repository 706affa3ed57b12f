/* barrier builders (one file each). Barriers move zero-length messages:
 * every step has count 0 (buffer RECV, offset 0), and the executor does
 * send and receive them. */
#ifndef ACCT_ALGS_BARRIER_H
#define ACCT_ALGS_BARRIER_H

#include "acct/alg.h"
#include "acct/topo.h"

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(barrier, linear);
ACCT_ALG_FUNCTIONS(barrier, double_ring);
ACCT_ALG_FUNCTIONS(barrier, dissemination);
ACCT_ALG_FUNCTIONS(barrier, tournament);
ACCT_ALG_FUNCTIONS(barrier, recursive_doubling);
ACCT_ALG_FUNCTIONS(barrier, hier_dissemination);

#endif
