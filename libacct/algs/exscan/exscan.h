/* exscan builders (one file each).
 *
 * MPI_Exscan (MPI-3.1 §5.11.2): rank i > 0's RECV gets
 * x_0 op ... op x_{i-1}, the operands in rank order (op need not be
 * commutative), count elements (c->count). Rank 0's RECV is undefined by
 * the standard: no builder ever writes it (with MPI_IN_PLACE it keeps the
 * rank's input). MPI_IN_PLACE: the input is in RECV, and the result
 * replaces it. */
#ifndef ACCT_ALGS_EXSCAN_H
#define ACCT_ALGS_EXSCAN_H

#include "acct/alg.h"

ACCT_ALG_FUNCTIONS(exscan, linear);
ACCT_ALG_FUNCTIONS(exscan, recursive_doubling);
ACCT_ALG_FUNCTIONS(exscan, binomial);

#endif
