/* alltoallv builders (one file each).
 *
 * MPI_Alltoallv (MPI-3.1 §5.8): this rank's SEND[sdispls[j], scounts[j])
 * goes to rank j's RECV[rdispls[me], rcounts[me]]. Each rank has only its
 * own row: c->scounts/c->sdispls (what it sends to each rank) and
 * c->counts/c->displs (what it receives from each); the runtime hands
 * bytes, so the two ends of every message agree on its size. Messages go
 * straight between the pair (no rank forwards another's data, whose size
 * it would not know). MPI_IN_PLACE runs natively. */
#ifndef ACCT_ALGS_ALLTOALLV_H
#define ACCT_ALGS_ALLTOALLV_H

#include "acct/alg.h"

ACCT_ALG_FUNCTIONS(alltoallv, linear);
ACCT_ALG_FUNCTIONS(alltoallv, pairwise);

/* The own block SEND -> RECV. */
static inline void acct_alltoallv_copy_own(const struct acct_call *c, struct acct_sched *s)
{
    const int r = c->rank;
    if (c->scounts[r] > 0)
        acct_sched_copy(s, ACCT_BUF_SEND, c->sdispls[r], c->scounts[r], ACCT_BUF_RECV,
                        c->displs[r], c->counts[r]);
}

#endif
