/* Decisions: what one collective call does, an algorithm of the registry
 * with its parameters (no MPI needed). Rules files, ACCT_FORCE, tuning
 * results and the runtime's tables all speak in decisions; this header
 * holds the type, its checks against the registry's limits and its text
 * form. */
#ifndef ACCT_DECISION_H
#define ACCT_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/alg.h"
#include "acct/coll.h"

/* Segment sizes: at most 1 GiB. */
#define ACCT_RULES_MAX_SEGMENT (1ull << 30)

/* What one call does. */
struct acct_decision {
    const struct acct_alg *alg; /* never NULL in a table; native = MPI's own */
    uint64_t segment_bytes;     /* 0 = unsegmented */
    int fanout;                 /* 0 = the algorithm's default */
    bool reorder;               /* SACK reordering of the tree */
};

bool acct_decision_equal(const struct acct_decision *a, const struct acct_decision *b);

/* "binomial", "binomial:8K", "knomial::4", "knomial:8K:4": the ACCT_FORCE
 * syntax, with ",reorder" appended when set (display only: ACCT_FORCE has no
 * reorder). Returns as snprintf. */
int acct_decision_format(const struct acct_decision *d, char *buf, size_t len);

/* The checks shared by rules files and ACCT_FORCE (one copy of each rule).
 * Each returns NULL if the value is fine for alg, or writes a message into
 * buf and returns buf. */
const char *acct_check_segment(const struct acct_alg *alg, uint64_t segment, char *buf,
                               size_t len);
const char *acct_check_fanout(const struct acct_alg *alg, long long fanout, char *buf,
                              size_t len);
const char *acct_check_reorder(const struct acct_alg *alg, bool reorder, char *buf,
                               size_t len);

/* Writes 'unknown COLL algorithm "NAME" (valid: native, linear, ...)' into
 * buf (NAME quoted safely, truncated if long). Returns buf. */
const char *acct_unknown_alg_msg(enum acct_coll_id coll, const char *name, size_t name_len,
                                 char *buf, size_t len);

/* What decision d of collective coll becomes on a communicator of
 * comm_size ranks: d itself, or, if its algorithm's size restriction (power
 * of two) does not hold, the first applicable algorithm of its fallback
 * chain (segment and fan-out kept only where taken), else native. Shared
 * by acct_rules_resolve and the decision exports. */
struct acct_decision acct_decision_for_size(const struct acct_decision *d,
                                            enum acct_coll_id coll, int comm_size);

#endif
