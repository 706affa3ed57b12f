/* allgatherv builders (one file each).
 *
 * Layout (MPI-3.1 §5.7): rank i's block of c->counts[i] elements lands at
 * RECV[c->displs[i], c->counts[i]) on every rank. The runtime hands bytes
 * (every rank agrees on the byte count of every block, whatever datatypes
 * they pass), so counts are alike on all ranks; displs are this rank's own
 * (its receive buffer's layout) and may differ between ranks. SEND holds
 * the own block at [0, counts[rank]); with MPI_IN_PLACE (given by all ranks
 * alike) it sits at its place in RECV.
 *
 * A message exists for every block, zero-length ones included: both ends
 * derive it from counts alone, so they always agree. */
#ifndef ACCT_ALGS_ALLGATHERV_H
#define ACCT_ALGS_ALLGATHERV_H

#include "acct/alg.h"
#include "acct/topo.h"

ACCT_ALG_FUNCTIONS(allgatherv, ring);
ACCT_ALG_FUNCTIONS(allgatherv, bruck);
ACCT_ALG_FUNCTIONS(allgatherv, linear);

/* Where this rank's own block is: SEND[0, n), or RECV at its place in place. */
static inline void acct_allgatherv_own(const struct acct_call *c, enum acct_buf *buf,
                                       uint64_t *off)
{
    *buf = c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    *off = c->in_place ? c->displs[c->rank] : 0;
}

/* The own block's copy SEND -> RECV (nothing in place). */
static inline void acct_allgatherv_copy_own(const struct acct_call *c, struct acct_sched *s)
{
    const uint64_t n = c->counts[c->rank];
    if (!c->in_place && n > 0)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, c->displs[c->rank], n);
}

#endif
