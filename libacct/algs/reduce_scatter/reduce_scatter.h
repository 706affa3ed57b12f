/* reduce_scatter builders (one file each).
 *
 * MPI_Reduce_scatter (MPI-3.1 §5.10.1): the element-wise reduction of all
 * ranks' vectors of sum(counts) elements, block i = elements
 * [displs[i], displs[i] + counts[i]) (displs: prefix sums of counts, every
 * rank alike, since MPI requires the same recvcounts and datatype on every
 * rank) to rank i's RECV[0, counts[i]). Input in SEND; in place in RECV
 * (then RECV holds the whole vector and the result goes to its start). */
#ifndef ACCT_ALGS_REDUCE_SCATTER_H
#define ACCT_ALGS_REDUCE_SCATTER_H

#include "acct/alg.h"
#include "acct/topo.h"

ACCT_ALG_FUNCTIONS(reduce_scatter, reduce_scatterv);
ACCT_ALG_FUNCTIONS(reduce_scatter, ring);

#endif
