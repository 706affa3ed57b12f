/* Which ranks of a communicator share a node (internal; docs/runtime.md
 * "Locality"). */
#ifndef ACCT_RT_LOCALITY_H
#define ACCT_RT_LOCALITY_H

#include <mpi.h>

#include "acct/layout.h"

/* At runtime init: read ACCT_LAYOUT (a pretended placement for tests and
 * emulation; docs/user-guide.md). A bad value is reported once and
 * ignored. */
void rt_locality_init(int world_rank);

/* The layout of priv (size ranks, this rank `rank`), collectively on every
 * rank of it: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) labels each rank
 * with its node's lowest rank, ACCT_LAYOUT overrides that label, and one
 * allgather gives every rank the same labels. Returns 0 with *out filled,
 * or -1 on every rank alike when any rank failed (then *out is empty). */
int rt_locality(MPI_Comm priv, int rank, int size, struct acct_layout *out);

#endif
