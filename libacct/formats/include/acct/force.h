/* ACCT_FORCE: force one decision per collective for a whole job (no MPI).
 *
 *   ACCT_FORCE="bcast=binomial:8K,allreduce=native"
 *
 * is a comma-separated list of  COLLECTIVE=ALGORITHM[:SEGMENT[:FANOUT]]:
 * SEGMENT is a size in bytes (0, or digits with K/M/G/T, powers of 1024; may
 * be left empty, "knomial::8"), FANOUT an integer. Blanks around entries and
 * empty entries are ignored. Entries are checked like rules-file rules
 * (acct/decision.h: known collective and algorithm, a segment only for segmented
 * algorithms, a fan-out only for fan-out algorithms and within their range).
 * An invalid entry is reported (one message each, naming the entry) and
 * ignored; the valid ones are kept. A collective named twice keeps its first
 * entry. Forced collectives bypass the rules file; the others follow it. */
#ifndef ACCT_FORCE_H
#define ACCT_FORCE_H

#include <stdbool.h>
#include <stddef.h>

#include "acct/coll.h"
#include "acct/rules.h"

/* Longer values are refused as a whole (one message, nothing forced). */
#define ACCT_FORCE_MAX_LEN 4096

struct acct_force {
    bool forced[ACCT_COLL_COUNT];
    struct acct_decision d[ACCT_COLL_COUNT]; /* valid where forced[] */
    int count;                               /* forced collectives */
};

/* Parse text (NULL or "" forces nothing) into *out. Problems go to diags
 * (if not NULL; its previous content is discarded) under the name
 * "ACCT_FORCE", printed as
 *   ACCT_FORCE: "bcast=binomal": unknown bcast algorithm "binomal" (valid: ...)
 * Returns the number of invalid entries (0 if all are valid). */
int acct_force_parse(const char *text, struct acct_force *out, struct acct_diags *diags);

/* The forced decision of coll, or NULL if coll is not forced. */
static inline const struct acct_decision *acct_force_get(const struct acct_force *f,
                                                         enum acct_coll_id coll)
{
    return (unsigned)coll < ACCT_COLL_COUNT && f->forced[coll] ? &f->d[coll] : NULL;
}

/* The canonical ACCT_FORCE text of f ("" if nothing is forced), in
 * collective order; parsing it gives f back. Returns as snprintf. */
int acct_force_format(const struct acct_force *f, char *buf, size_t len);

#endif
