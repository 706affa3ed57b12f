/* acct-tune: the pair duplex's fit, pure (no MPI): plogp.h's
 * acct_plogp_pair_overlap measures, this fits (plogp_fit.c). */
#ifndef ACCT_TUNE_PLOGP_FIT_H
#define ACCT_TUNE_PLOGP_FIT_H

#include <stddef.h>
#include <stdint.h>

#define ACCT_PLOGP_OVERLAP_SIZES 8

/* The fit (pure): with the one-way times one[] and the both-ways times
 * both[] at the n sizes m[] (seconds; 2 <= n <= ACCT_PLOGP_OVERLAP_SIZES,
 * two sizes at least different), the model both(m) = one(m) + (D - 1) G
 * (m - c) for m > c. G: the Theil-Sen slope of one(m) (the median of the
 * pairwise slopes); k = (D - 1) G: the Theil-Sen slope of both - one;
 * c: the median over the sizes of m - (both - one) / k, within [0, the
 * largest size]. One size whose two ways overlapped by chance moves
 * neither median when n >= 5 (two sizes' estimates before, where one
 * such exchange at 1 MiB gave c = 723 KiB). *factor: D; 1 (overlap 0)
 * when D < 1.05; 0 (not measured) when one(m) does not grow. Returns 0,
 * or -1 for bad arguments (a non-positive or non-finite time). */
int acct_plogp_overlap_fit(const uint64_t *m, const double *one, const double *both, size_t n,
                           double *factor, uint64_t *overlap_bytes);

#endif
