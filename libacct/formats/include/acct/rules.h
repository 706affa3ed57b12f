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
 * Everything a file says is checked (rule 4 of DESIGN.md): the parser never
 * stops at the first problem, it collects every one in a diagnostics list as
 * "FILE:LINE:COLUMN: FIELD: message", and a file with any problem yields no
 * rules at all (the caller then runs native collectives). It never asserts,
 * aborts or leaks on any input.
 *
 * At run time a communicator's size is fixed: acct_rules_resolve() turns the
 * rules of one collective into a small table for that size once, and
 * acct_table_lookup() picks the decision of each call in a few nanoseconds. */
#ifndef ACCT_RULES_H
#define ACCT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct/alg.h"
#include "acct/coll.h"

/* The schema version this library reads and writes (key acct_rules). */
#define ACCT_RULES_VERSION 1

/* Limits on untrusted input. */
#define ACCT_RULES_MAX_FILE_BYTES (4u * 1024 * 1024) /* larger files are refused */
#define ACCT_RULES_MAX_RULES 10000                   /* rules in one file, all collectives */
#define ACCT_RULES_MAX_SEGMENT (1ull << 30)          /* segment sizes: at most 1 GiB */
#define ACCT_RULES_NAME_MAX 64  /* partition, interconnect: [A-Za-z0-9._+-], 1..64 chars */
#define ACCT_RULES_RUN_MAX 128  /* tuning_run: same characters, 1..128 */
#define ACCT_RULES_TIME_LEN 20  /* created: "YYYY-MM-DDTHH:MM:SSZ" */

/* Return codes (0 on success). */
enum acct_rules_rc {
    ACCT_RULES_OK = 0,
    ACCT_RULES_EINVAL = -1, /* the content is invalid: see the diagnostics */
    ACCT_RULES_EIO = -2,    /* the file cannot be opened or read */
    ACCT_RULES_ENOMEM = -3, /* out of memory */
};

/* ---- diagnostics ----------------------------------------------------------
 *
 * Each problem has a position (line and column from 1; line 0 when it
 * concerns the whole input, such as "cannot open"), a field path such as
 * "collectives.bcast[2].segment" (list indices from 0; empty when the
 * problem has no field, such as a YAML syntax error) and a message. Printed
 * as "FILE:LINE:COLUMN: FIELD: message", leaving out the empty parts. The
 * first ACCT_DIAG_MAX are kept; the rest are only counted. */

#define ACCT_DIAG_MAX 100
#define ACCT_DIAG_FIELD_MAX 128
#define ACCT_DIAG_MSG_MAX 512

struct acct_diag {
    int line, col;
    char field[ACCT_DIAG_FIELD_MAX];
    char msg[ACCT_DIAG_MSG_MAX];
};

struct acct_diags {
    char *file;            /* display name of the input (owned) */
    struct acct_diag *v;   /* the first min(total, ACCT_DIAG_MAX) problems */
    size_t n, cap;
    size_t total;          /* every problem found, kept or not */
};

#define ACCT_DIAGS_INIT { NULL, NULL, 0, 0, 0 }

/* Release the list and empty it (the struct itself can be reused). */
void acct_diags_free(struct acct_diags *d);

/* Forget the problems and set the display name (a copy is kept). */
void acct_diags_reset(struct acct_diags *d, const char *file);

/* Add a problem (printf-style message). field may be NULL or "". */
void acct_diags_add(struct acct_diags *d, int line, int col, const char *field,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Format problem i as one line without newline (cut to fit buf). Returns 0,
 * or -1 if i is out of range or len is 0 (as acct_size_format: 0 on
 * success). */
int acct_diag_format(const struct acct_diags *d, size_t i, char *buf, size_t len);

/* Print every kept problem, one per line, then "FILE: N more errors not
 * shown" if some were only counted. */
void acct_diags_print(const struct acct_diags *d, FILE *f);

/* ---- decisions --------------------------------------------------------- */

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

/* Same provenance and same rules (positions and hash are not compared). */
bool acct_rules_equal(const struct acct_rules *a, const struct acct_rules *b);

/* Write r as a canonical rules file: fixed key order, one rule per line in
 * flow style, sizes with the largest exact unit. Parsing the output gives
 * rules equal to r (when r itself is valid). Returns 0, or -1 on a write
 * error. */
int acct_rules_write(FILE *f, const struct acct_rules *r);

/* ---- per-communicator lookup ------------------------------------------- */

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

/* What decision d of collective coll becomes on a communicator of
 * comm_size ranks: d itself, or, if its algorithm's size restriction (power
 * of two) does not hold, the first applicable algorithm of its fallback
 * chain (segment and fan-out kept only where taken), else native. Shared
 * by acct_rules_resolve and the decision exports. */
struct acct_decision acct_decision_for_size(const struct acct_decision *d,
                                            enum acct_coll_id coll, int comm_size);

/* Build the table of collective coll for communicators of comm_size ranks.
 * rules may be NULL (everything native). Returns 0, or ACCT_RULES_ENOMEM;
 * free the table with acct_table_free. */
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
