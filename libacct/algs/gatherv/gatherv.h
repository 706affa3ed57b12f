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
 * (binomial) would need their sizes, which no rank but the root has; the
 * one registered here therefore only moves each block straight to the
 * root (docs/rules.md, "v-collectives"). */
#ifndef ACCT_ALGS_GATHERV_H
#define ACCT_ALGS_GATHERV_H

#include "acct/alg.h"

ACCT_ALG_FUNCTIONS(gatherv, linear);

#endif
