/* Which method runs a call (internal). Inputs: rank 0's rules and
 * ACCT_FORCE (agreed by every rank at MPI_Init, agree.h) and the call's
 * shape, the same on every rank — so every rank decides alike (docs/architecture.md
 * rule 1). Precedence: ACCT_FORCE for a collective, else the rules, else
 * native. */
#ifndef ACCT_RT_DECIDE_H
#define ACCT_RT_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/force.h"
#include "acct/layout.h"
#include "acct/rules.h"
#include "acct/table.h"

/* Parse the agreed rules text and ACCT_FORCE (either may be NULL). Problems
 * are reported (one warning line from rank 0) and leave that input out:
 * invalid rules -> no rules; invalid ACCT_FORCE entries -> those entries.
 * rules_name is the file name for messages. */
void rt_decide_init(const char *rules_name, const char *rules_text, size_t rules_len,
                    const char *force_text);
void rt_decide_fini(void);

/* Provenance for the report: NULL when no rules are in use. */
const struct acct_rules *rt_decide_rules(void);
const struct acct_force *rt_decide_force(void);

/* The per-communicator tables: one per collective for a communicator size,
 * and the communicator's exploration state (explore.h): per collective, how
 * many calls could have explored so far (the same count on every rank).
 * One collective at a time per communicator, so no lock. */
struct rt_tables {
    struct acct_table *t[ACCT_COLL_COUNT]; /* NULL: no rules for it (native) */
    /* The rules of coll at this size depend on the layout (schema 2,
     * acct_rules_layout_bound): t[coll] is built by rt_tables_place at the
     * communicator's first call of coll, when the layout is known. */
    bool pending[ACCT_COLL_COUNT];
    uint64_t explore_calls[ACCT_COLL_COUNT];
};

/* 0, or -1 when out of memory (the caller reports an MPI error). */
int rt_tables_build(struct rt_tables *tabs, int comm_size);
void rt_tables_free(struct rt_tables *tabs);

/* Build the pending table of coll for a communicator of comm_size ranks
 * placed as layout says (NULL: no agreed layout -- layout-bound rules then
 * do not apply). Every rank passes the same layout (locality.h), so every
 * rank builds the same table. Out of memory: native for coll, with a
 * warning. */
void rt_tables_place(struct rt_tables *tabs, enum acct_coll_id coll, int comm_size,
                     const struct acct_layout *layout);

/* Replace the forced methods with spec (ACCT_FORCE syntax; NULL or ""
 * clears). All or nothing: an invalid spec changes nothing and returns -1
 * (the problems are logged at debug level). For acct_tool_force(). */
int rt_decide_set_force(const char *spec);

/* The agreed ACCT_FORCE (decide.c); changed only by rt_decide_set_force,
 * which the tool API allows between collectives only. */
extern struct acct_force rt_forced;

/* Can any call of coll on this communicator be other than native? The
 * cheap first test of every call (no decision: straight to native). */
static inline bool rt_decide_any(const struct rt_tables *tabs, enum acct_coll_id coll)
{
    return rt_forced.forced[coll] || tabs->t[coll] != NULL || tabs->pending[coll];
}

/* Could any communicator run coll with an ACCT algorithm? (Without its
 * tables: forced, or the rules have rules for coll.) */
bool rt_decide_possible(enum acct_coll_id coll);

/* The decision for a new call of `bytes` on a communicator with tables
 * tabs; NULL means native. Called once per call, by choose() in coll.c,
 * which passes the answer on to whatever runs the call: it counts the call
 * for exploration and returns the rule's runner-up when this call explores
 * (explore.h). *entry: the index of the call's entry in tabs->t[coll]
 * (the automatic mode's call site, sack.h), SIZE_MAX when ACCT_FORCE
 * decided or there are no rules for coll. ACCT_FORCE wins and never
 * explores. */
const struct acct_decision *rt_decide_call(struct rt_tables *tabs, enum acct_coll_id coll,
                                           uint64_t bytes, size_t *entry);

#endif
