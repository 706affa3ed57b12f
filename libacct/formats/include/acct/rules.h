/* Rules files: which algorithm each collective call uses (no MPI needed).
 *
 * A rules file (docs/rules.md) is YAML, schema version ACCT_RULES_VERSION:
 * provenance, then per collective a list of rules, each a rectangle in
 * (communicator size, message bytes) space with a decision {algorithm,
 * segment, fan-out, reorder}. Message bytes are acct-bench's message size m
 * (docs/acct-bench.md). A call takes the rule whose rectangle contains it; no
 * rule means the native collective. Rectangles of one collective never
 * overlap. Optional: a rule's runner-up (a second decision, for exploration)
 * and a top-level `options:` mapping (explore, explore_seed, auto_reorder);
 * both leave the schema at version 1.
 *
 * Everything a file says is checked (rule 4 of docs/architecture.md): the parser never
 * stops at the first problem, it collects every one in a diagnostics list as
 * "FILE:LINE:COLUMN: FIELD: message", and a file with any problem yields no
 * rules at all (the caller then runs native collectives). It never asserts,
 * aborts or leaks on any input.
 *
 * At run time a communicator's size is fixed: acct_rules_resolve()
 * (acct/table.h) turns the rules of one collective into a small table for
 * that size once, and acct_table_lookup() picks the decision of each call
 * in a few nanoseconds. */
#ifndef ACCT_RULES_H
#define ACCT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct/alg.h"
#include "acct/coll.h"
#include "acct/decision.h"
#include "acct/diag.h"

/* The schema version this library reads and writes (key acct_rules). */
#define ACCT_RULES_VERSION 1

/* Limits on untrusted input. */
#define ACCT_RULES_MAX_FILE_BYTES (4u * 1024 * 1024) /* larger files are refused */
#define ACCT_RULES_MAX_RULES 10000                   /* rules in one file, all collectives */
#define ACCT_RULES_NAME_MAX 64  /* partition, interconnect: [A-Za-z0-9._+-], 1..64 chars */
#define ACCT_RULES_RUN_MAX 128  /* tuning_run: same characters, 1..128 */
#define ACCT_RULES_TIME_LEN 20  /* created: "YYYY-MM-DDTHH:MM:SSZ" */

/* ---- the rules --------------------------------------------------------- */

enum acct_rules_source {
    ACCT_SOURCE_MEASURED = 0, /* timings of a tuning run */
    ACCT_SOURCE_MODEL,        /* a cost model's prediction */
    ACCT_SOURCE_REFINED,      /* measured, then refined from job samples */
    ACCT_SOURCE_MANUAL,       /* written by hand */
};

enum acct_placement {
    ACCT_PLACEMENT_NONE = 0, /* not recorded */
    ACCT_PLACEMENT_BLOCK,
    ACCT_PLACEMENT_CYCLIC,
    ACCT_PLACEMENT_MIXED,
};

const char *acct_rules_source_name(enum acct_rules_source s);
const char *acct_placement_name(enum acct_placement p);

struct acct_provenance {
    char partition[ACCT_RULES_NAME_MAX + 1];
    char interconnect[ACCT_RULES_NAME_MAX + 1];
    int64_t version;                         /* the daemon's decision version, >= 1 */
    enum acct_rules_source source;
    char created[ACCT_RULES_TIME_LEN + 1];   /* "YYYY-MM-DDTHH:MM:SSZ" */
    char tuning_run[ACCT_RULES_RUN_MAX + 1]; /* "" if not given */
    int ranks_per_node_min, ranks_per_node_max; /* 0 if not given */
    enum acct_placement placement;           /* NONE if not given */
};

struct acct_rule {
    int comm_min, comm_max;        /* inclusive; 1 <= min <= max <= INT_MAX ("max") */
    uint64_t bytes_min, bytes_max; /* inclusive; UINT64_MAX is "max" */
    struct acct_decision d;
    /* The second-best method (key runner_up), tried on a small fraction of
     * calls when options.explore > 0 (docs/samples.md, Exploration);
     * runner_up.alg NULL: none. Never equal to d. */
    struct acct_decision runner_up;
    int line, col;                 /* where the rule starts in its file (0: not parsed) */
};

struct acct_rule_list {
    struct acct_rule *v; /* sorted by (comm_min, bytes_min) */
    size_t n;
};

/* Exploration: at most this fraction of a rule's calls run its runner-up. */
#define ACCT_EXPLORE_MAX 0.05

/* The optional top-level mapping `options:` (all default to off/0). */
struct acct_rules_options {
    double explore;        /* fraction of calls that run the runner-up, 0..ACCT_EXPLORE_MAX */
    uint64_t explore_seed; /* seed of the choice of those calls (shared by all ranks) */
    bool auto_reorder;     /* SACK automatic mode (docs/sack.md) */
};

struct acct_rules {
    struct acct_provenance prov;
    struct acct_rules_options opts;
    struct acct_rule_list coll[ACCT_COLL_COUNT];
    size_t nrules; /* all collectives */
    uint64_t hash; /* acct_rules_hash of the bytes parsed */
};

/* 64-bit FNV-1a of len bytes: the content hash every rank compares at
 * MPI_Init. */
uint64_t acct_rules_hash(const void *buf, size_t len);

/* Parse a rules file held in memory; name is the display name used in the
 * diagnostics. On success *out gets the rules (free with acct_rules_free)
 * and ACCT_RULES_OK is returned; otherwise *out is NULL and every problem
 * found is in diags (if not NULL; its previous content is discarded). */
int acct_rules_parse_buffer(const char *name, const char *buf, size_t len,
                            struct acct_rules **out, struct acct_diags *diags);

/* Same, reading path (a regular file of at most ACCT_RULES_MAX_FILE_BYTES). */
int acct_rules_parse_file(const char *path, struct acct_rules **out,
                          struct acct_diags *diags);

void acct_rules_free(struct acct_rules *r);
/* A deep copy of everything r holds (provenance, options, every rule), or
 * NULL when out of memory; free with acct_rules_free. */
struct acct_rules *acct_rules_copy(const struct acct_rules *r);

/* Same provenance and same rules (positions and hash are not compared). */
bool acct_rules_equal(const struct acct_rules *a, const struct acct_rules *b);

/* Write r as a canonical rules file: fixed key order, one rule per line in
 * flow style, sizes with the largest exact unit. Parsing the output gives
 * rules equal to r (when r itself is valid). Returns 0, or -1 on a write
 * error. */
int acct_rules_write(FILE *f, const struct acct_rules *r);

#endif
