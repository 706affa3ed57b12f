/* The algorithm registry: the single source of every algorithm's name,
 * description, restrictions and parameters (no MPI needed).
 *
 * Rules validation, ACCT_FORCE parsing, `acctctl algorithms`, the
 * correctness matrix and the tuner all read this table. Each collective has
 * the pseudo-algorithm "native" (the MPI library's own implementation),
 * which is also the fallback whenever a chosen algorithm's restrictions do
 * not hold for a call. */
#ifndef ACCT_ALG_H
#define ACCT_ALG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/coll.h"
#include "acct/sched.h"

/* The shape of one call, as a builder sees it. Counts are in elements:
 *   bcast, reduce, allreduce:  count (send and receive type are the same)
 *   reduce_scatter_block:      count = elements per rank's block
 *   gather, scatter, allgather, alltoall: count = receive elements per
 *       block (receive type), scount = send elements per block (send type)
 *   barrier:                   count = 0 */
struct acct_call {
    enum acct_coll_id coll;
    int rank, size;
    int root;         /* -1 for collectives without a root */
    uint64_t count;
    uint64_t scount;
    uint64_t seg;     /* segment in elements of the receive type; 0 = none */
    int fanout;       /* tree radix / chains; 0 = the algorithm's default */
    bool in_place;    /* MPI_IN_PLACE where the call allows it */
    bool commutative; /* the op is commutative (reductions only) */
};

enum acct_alg_flags {
    ACCT_ALG_NATIVE = 1u << 0,      /* the MPI library's own collective */
    ACCT_ALG_COMMUTATIVE = 1u << 1, /* only for commutative operations */
    ACCT_ALG_POW2 = 1u << 2,        /* only for power-of-two sizes */
    ACCT_ALG_SEGMENTED = 1u << 3,   /* honours a segment size */
    ACCT_ALG_FANOUT = 1u << 4,      /* honours a fan-out / radix */
    ACCT_ALG_COUNT_GE_SIZE = 1u << 5, /* needs count >= size (splits the data) */
    ACCT_ALG_REORDER = 1u << 6,     /* SACK reordering can run it (docs/sack.md) */
};

/* Appends the calling rank's steps for this call. Pure: same call, same
 * schedule. Returns 0, or -1 if the call is outside the algorithm's domain. */
typedef int (*acct_build_fn)(const struct acct_call *call, struct acct_sched *s);

struct acct_alg {
    enum acct_coll_id coll;
    const char *name;        /* unique within the collective */
    const char *description; /* one line */
    unsigned flags;          /* enum acct_alg_flags */
    int fanout_default, fanout_min, fanout_max; /* when ACCT_ALG_FANOUT */
    acct_build_fn build;     /* NULL for native */
    /* When the algorithm's restrictions do not hold for a call: the name of
     * the algorithm of the same collective to try next (NULL: native). The
     * chain ends at an algorithm without the failing restriction. */
    const char *fallback;
};

/* The table, in registry order; ends with an entry whose name is NULL. */
extern const struct acct_alg acct_algs[];

/* Number of entries (without the sentinel). */
int acct_alg_count(void);

/* Lookup by collective and name; NULL if unknown. */
const struct acct_alg *acct_alg_find(enum acct_coll_id coll, const char *name);

/* The native entry of a collective. */
const struct acct_alg *acct_alg_native(enum acct_coll_id coll);

/* Registry index of an entry (stable within one build). */
int acct_alg_index(const struct acct_alg *alg);

/* Do alg's restrictions hold for this call? If not, *why (if not NULL) gets
 * a static reason. Native is always applicable. */
bool acct_alg_applicable(const struct acct_alg *alg, const struct acct_call *call,
                         const char **why);

/* May SACK reordering (docs/sack.md) run alg? It must carry
 * ACCT_ALG_REORDER; with call != NULL, also the call: a reduction
 * (acct_coll_reduces) only with a commutative operation, since reordering
 * changes which operands meet in which order. call == NULL checks the
 * algorithm alone (rules validation, ACCT_FORCE). If not, *why (if not
 * NULL) gets a static reason. Depends on agreed inputs and the call's shape
 * only (DESIGN.md rule 1). */
bool acct_alg_reorderable(const struct acct_alg *alg, const struct acct_call *call,
                          const char **why);

/* Writes '<coll> <alg> has no SACK reordering (reorder-capable <coll>
 * algorithms: a, b | none)' into buf (truncated if short). Returns buf. */
const char *acct_alg_reorder_msg(const struct acct_alg *alg, char *buf, size_t len);

/* What runs a call decided as alg: alg itself if its restrictions hold for
 * *call, else the first applicable algorithm along its fallback chain, else
 * native (never NULL). When the result is not alg, call->seg is cleared for
 * an algorithm without ACCT_ALG_SEGMENTED and call->fanout for one without
 * ACCT_ALG_FANOUT (its default applies). Depends on the call's shape only,
 * so every rank picks alike (DESIGN.md rule 1). */
const struct acct_alg *acct_alg_resolve(const struct acct_alg *alg, struct acct_call *call);

/* Build the schedule for call with alg (resets s first). Returns 0, or -1
 * (not applicable, builder refused, or out of memory). */
int acct_alg_schedule(const struct acct_alg *alg, const struct acct_call *call,
                      struct acct_sched *s);

#endif
