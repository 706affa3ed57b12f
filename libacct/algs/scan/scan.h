/* scan builders (one file each).
 *
 * MPI_Scan (MPI-3.1 §5.11.1): rank i's RECV gets x_0 op x_1 op ... op x_i,
 * the operands in rank order (op need not be commutative), count elements
 * of the datatype (c->count). MPI_IN_PLACE: the input is in RECV. Both
 * algorithms combine strictly in rank order, commutative or not, so every
 * rank's result is the one a left-to-right evaluation over its prefix of
 * ranks gives up to the association (linear: ((x0 op x1) op x2) ...; the
 * native library's linear scan does the same). */
#ifndef ACCT_ALGS_SCAN_H
#define ACCT_ALGS_SCAN_H

#include "acct/alg.h"

ACCT_ALG_FUNCTIONS(scan, linear);
ACCT_ALG_FUNCTIONS(scan, recursive_doubling);
ACCT_ALG_FUNCTIONS(scan, binomial);

/* The recursive-doubling scan's (exclusive: exscan's) rounds costed per
 * rank, any P (scan_recursive_doubling.c); NAN without memory. */
double acct_scan_rd_rounds_cost(const struct acct_cost *c, bool exclusive);

#endif
