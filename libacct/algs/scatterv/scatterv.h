/* scatterv builders (one file each).
 *
 * MPI_Scatterv (MPI-3.1 §5.6): the root's SEND[displs[i], counts[i]) goes
 * to rank i's RECV. Only the root has counts and displs: c->counts and
 * c->displs are NULL on the other ranks, which know only their own block,
 * c->count elements (bytes, alike on both ends of every message). At a
 * root passing MPI_IN_PLACE as its receive buffer its own block stays.
 * As for gatherv, only the root knows the sizes an intermediate rank
 * forwards: binomial is ACCT_ALG_ALL_COUNTS (the runtime broadcasts the
 * root's counts first), linear sends each block straight from the root. */
#ifndef ACCT_ALGS_SCATTERV_H
#define ACCT_ALGS_SCATTERV_H

#include "acct/alg.h"

ACCT_ALG_FUNCTIONS(scatterv, linear);
ACCT_ALG_FUNCTIONS(scatterv, binomial);

#endif
