/* alltoall builders (one file each).
 *
 * Layout (MPI-3.1 §5.8): SEND block d (SEND[d * scount, scount), send-type
 * elements) goes to rank d; RECV block s (RECV[s * count, count),
 * receive-type elements) comes from rank s. Refs into SEND use scount
 * units, refs into RECV (and TMPs typed like RECV) count units.
 *
 * Every builder returns an empty schedule for count == 0, decides whether a
 * message exists from count alone (never scount), and declines MPI_IN_PLACE
 * (the runtime falls back to the native alltoall; MPI requires all ranks to
 * pass it alike, so they all decline together). */
#ifndef ACCT_ALGS_ALLTOALL_H
#define ACCT_ALGS_ALLTOALL_H

#include "acct/alg.h"
#include "acct/topo.h"

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(alltoall, linear);
ACCT_ALG_FUNCTIONS(alltoall, pairwise);
ACCT_ALG_FUNCTIONS(alltoall, bruck);
ACCT_ALG_FUNCTIONS(alltoall, gather_scatter);
ACCT_ALG_FUNCTIONS(alltoall, hier_leader);

/* RECV block r = SEND block r: the rank's block to itself (no message). */
static inline void acct_alltoall_copy_own(const struct acct_call *c, struct acct_sched *s)
{
    acct_sched_copy(s, ACCT_BUF_SEND, (uint64_t)c->rank * c->scount, c->scount, ACCT_BUF_RECV,
                    (uint64_t)c->rank * c->count, c->count);
}

#endif
