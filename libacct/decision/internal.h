/* Helpers shared by the files of libacct/decision (not installed). */
#ifndef ACCT_DECISION_INTERNAL_H
#define ACCT_DECISION_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "acct/dmap.h"

/* floor(sqrt(a * b)) for a < b, clamped to [a, b - 1]: the last value of
 * the lower cell between two measured sizes. */
uint64_t acct_geo_mid(uint64_t a, uint64_t b);

/* qsort order of rules: by comm_min, then bytes_min (the order the rules
 * parser gives a file's rules, so rules built in memory compare equal to
 * the same rules read back). */
int acct_rule_cmp(const void *pa, const void *pb);

/* Appends to r the rectangles of a per-cell choice on a grid whose rows end
 * at comm_hi[] and columns at bytes_hi[] (the first row starts at comm_lo,
 * the smallest measured size; the first column at 0): runs along each row,
 * merged across consecutive rows (tiling.c). */
int acct_tile_rules(enum acct_coll_id coll, size_t ncomm, size_t nbytes, int comm_lo,
                    const int *comm_hi,
                    const uint64_t *bytes_hi, const struct acct_decision *methods,
                    size_t nmethods, const int32_t *cells, struct acct_rules *r,
                    struct acct_diags *diags);

#endif
