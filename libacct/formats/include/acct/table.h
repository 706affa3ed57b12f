/* Per-communicator tables: the rules of one collective for one
 * communicator size and layout, built once per communicator (acct_rules_resolve), and
 * the lookup of each call's decision in a few nanoseconds (no MPI
 * needed). */
#ifndef ACCT_TABLE_H
#define ACCT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/coll.h"
#include "acct/decision.h"
#include "acct/rules.h"

/* The decisions of one collective for one communicator size, as byte
 * intervals: entry i covers (max[i-1], max[i]], entry 0 starts at 0, and the
 * last entry ends at UINT64_MAX, so every size has exactly one entry. Gaps
 * between rules are native; neighbours with equal decisions (and equal
 * runner-ups) are merged;
 * algorithms whose size restrictions (power of two) do not hold for the
 * communicator become native. Built once per communicator. */
struct acct_table {
    size_t n;                        /* >= 1 */
    const struct acct_decision *dec; /* n decisions (inside this allocation) */
    const struct acct_decision *ru;  /* n runner-ups (alg NULL: none), same allocation */
    uint64_t max[];                  /* n upper bounds, ascending */
};

/* Build the table of collective coll for communicators of comm_size ranks
 * placed as w says (NULL: layout unknown -- layout-bound rules then do not
 * apply). rules may be NULL (everything native). Returns 0, or
 * ACCT_RULES_ENOMEM; free the table with acct_table_free. */
int acct_rules_resolve_at(const struct acct_rules *rules, enum acct_coll_id coll,
                          int comm_size, const struct acct_rules_where *w,
                          struct acct_table **out);

/* acct_rules_resolve_at with the layout unknown. */
int acct_rules_resolve(const struct acct_rules *rules, enum acct_coll_id coll,
                       int comm_size, struct acct_table **out);

void acct_table_free(struct acct_table *t);

/* True if every size is native (the caller can skip lookups altogether). */
bool acct_table_all_native(const struct acct_table *t);

/* Tables up to this many entries are scanned linearly; larger ones use a
 * branch-free binary search (measured with acct-rules-bench, docs/rules.md:
 * the scan is fastest for small tables; a binary search that branches on
 * the comparison mispredicts when sizes vary). */
#define ACCT_TABLE_LINEAR_MAX 16

/* The entry of a call of bytes: dec[i] is its decision, ru[i] its
 * runner-up. No allocation, no locks. */
static inline size_t acct_table_index(const struct acct_table *t, uint64_t bytes)
{
    size_t i = 0;
    if (t->n <= ACCT_TABLE_LINEAR_MAX) {
        /* max[n-1] == UINT64_MAX stops the scan. */
        while (bytes > t->max[i])
            i++;
    } else {
        /* Lower bound: the first max[i] >= bytes. The step is computed,
         * not branched on (compilers do not reliably emit a conditional
         * move for "c ? a : b"), so varying sizes cause no mispredictions. */
        size_t n = t->n;
        while (n > 1) {
            size_t half = n / 2;
            i += half & (0 - (size_t)(t->max[i + half - 1] < bytes));
            n -= half;
        }
    }
    return i;
}

/* The decision for a call of bytes. Never NULL; no allocation, no locks. */
static inline const struct acct_decision *acct_table_lookup(const struct acct_table *t,
                                                            uint64_t bytes)
{
    return &t->dec[acct_table_index(t, bytes)];
}

#endif
