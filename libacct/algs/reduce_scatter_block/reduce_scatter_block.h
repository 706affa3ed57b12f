/* reduce_scatter_block builders (one file each). */
#ifndef ACCT_ALGS_REDUCE_SCATTER_BLOCK_H
#define ACCT_ALGS_REDUCE_SCATTER_BLOCK_H

#include "acct/alg.h"
#include "acct/topo.h"

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(reduce_scatter_block, reduce_scatter);
ACCT_ALG_FUNCTIONS(reduce_scatter_block, recursive_halving);
ACCT_ALG_FUNCTIONS(reduce_scatter_block, ring);

#endif
