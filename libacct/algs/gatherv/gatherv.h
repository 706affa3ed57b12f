/* gatherv builders (one file each).
 *
 * MPI_Gatherv (MPI-3.1 §5.5): rank i's block lands at the root's
 * RECV[displs[i], counts[i]). Only the root has counts and displs (they
 * are significant there alone): c->counts/c->displs are NULL on the other
 * ranks, which know only their own block, c->scount elements in SEND
 * (bytes: the runtime hands bytes, alike on both ends of every message).
 * At a root passing MPI_IN_PLACE its own block is already in place.
 *
 * An algorithm whose intermediate ranks forward other ranks' blocks
 * (binomial) needs their sizes, which no rank but the root has: it is
 * flagged ACCT_ALG_ALL_COUNTS and the runtime broadcasts the root's counts
 * before building its schedule (docs/runtime.md, "Binomial gatherv and
 * scatterv"); linear moves each block straight to the root without them. */
#ifndef ACCT_ALGS_GATHERV_H
#define ACCT_ALGS_GATHERV_H

#include "acct/alg.h"

ACCT_ALG_FUNCTIONS(gatherv, linear);
ACCT_ALG_FUNCTIONS(gatherv, binomial);

#endif
