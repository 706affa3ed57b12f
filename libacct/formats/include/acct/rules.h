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
 * both leave the schema at version 1. Schema version 2 adds the layout
 * dimension: a rule may also say which ranks-per-node counts
 * (`ranks_per_node`) and which kind of layout (`layout: regular|irregular`)
 * it covers; version 1 files still load, and the writer writes version 1
 * whenever no rule uses the layout, so older libraries read it.
 *
 * Everything a file says is checked (rule 4 of docs/architecture.md): the parser never
 * stops at the first problem, it collects every one in a diagnostics list as
 * "FILE:LINE:COLUMN: FIELD: message", and a file with any problem yields no
 * rules at all (the caller then runs native collectives). It never asserts,
 * aborts or leaks on any input.
 *
 * At run time a communicator's size and layout are fixed:
 * acct_rules_resolve_at() (acct/table.h) turns the rules of one collective
 * into a small table for them once, and acct_table_lookup() picks the decision of each call
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

/* The schema versions this library reads (key acct_rules): 1 and 2.
 * It writes the lowest version that holds the rules (acct_rules_version). */
#define ACCT_RULES_VERSION 2
#define ACCT_RULES_VERSION_MIN 1
/* The first version with the layout keys of a rule. */
#define ACCT_RULES_VERSION_LAYOUT 2

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

/* Where a rule's decision comes from (key `evidence` of a rule; docs/rules.md,
 * "Evidence"): measured at the rule's cells (or refined from samples, or
 * written by hand), predicted by the calibrated model named in
 * provenance.model, or none: neither measured nor predicted by a trusted
 * model, so the rule runs the MPI library's own collectives (algorithm
 * native only). Rule 6 of docs/architecture.md: every region says which. */
enum acct_evidence {
    ACCT_EVIDENCE_MEASURED = 0, /* the default: key absent */
    ACCT_EVIDENCE_MODEL,
    ACCT_EVIDENCE_NONE,
};

const char *acct_rules_source_name(enum acct_rules_source s);
const char *acct_evidence_name(enum acct_evidence e);
const char *acct_placement_name(enum acct_placement p);

/* The model the `evidence: model` rules were predicted with (key
 * provenance.model): LogGP parameters as in a tuning result's `model:`
 * section (the simulator runs them through acct_loggp_to_plogp, with
 * acct_model_init's other factors), the tuning run that measured them, and
 * the margin the decisions keep: a modelled rule's method is predicted at
 * most margin x the model's best method at every point acct-tune checked. */
#define ACCT_RULES_MARGIN_MAX 100.0
/* LogGP numbers of one level (provenance.model.intra, .inter), >= 0. */
struct acct_rules_loggp {
    double L_us, o_us, g_us, G_us_per_byte;
};

/* The largest provenance.model.nic.pair_duplex_factor (as the tuning
 * result's) and pair_duplex_overlap_bytes (1 GiB). */
#define ACCT_RULES_PAIR_DUPLEX_MAX 16
#define ACCT_RULES_PAIR_OVERLAP_MAX ((uint64_t)1 << 30)

struct acct_rules_model {
    bool present;
    char run[ACCT_RULES_RUN_MAX + 1]; /* "" if not given */
    double L_us, o_us, g_us, G_us_per_byte; /* >= 0 */
    double margin;                          /* 1 .. ACCT_RULES_MARGIN_MAX */
    /* The two levels the layout-bound modelled rules were predicted with
     * (keys intra, inter and nic, as in a tuning result's model: section;
     * optional, issue 21, docs/rules.md "Evidence"): has_levels when intra
     * and inter are given. nic (needs the levels): nic_pairs 0 or >= 2 with
     * nic_gap_factor >= 1; nic_bidir_pairs 0 or >= 2 (needs nic_pairs) with
     * nic_bidir_gap_factor >= 1; pair_duplex_factor 0 (not given) or in
     * [1, ACCT_RULES_PAIR_DUPLEX_MAX], its pair_duplex_overlap_bytes. */
    bool has_levels;
    struct acct_rules_loggp intra, inter;
    int nic_pairs;
    double nic_gap_factor;
    int nic_bidir_pairs;
    double nic_bidir_gap_factor;
    double pair_duplex_factor;
    uint64_t pair_duplex_overlap_bytes;
};

/* provenance.runs (schema 2): the tuning run behind each layout of rules
 * merged from several runs (acctctl merge), ascending ranks per node; run i
 * covers [ranks_per_node_i, ranks_per_node_{i+1} - 1]. */
#define ACCT_RULES_RUNS_MAX 64
struct acct_rules_layout_run {
    int ranks_per_node; /* >= 1 */
    char run[ACCT_RULES_RUN_MAX + 1];
};

struct acct_provenance {
    char partition[ACCT_RULES_NAME_MAX + 1];
    char interconnect[ACCT_RULES_NAME_MAX + 1];
    int64_t version;                         /* the daemon's decision version, >= 1 */
    enum acct_rules_source source;
    char created[ACCT_RULES_TIME_LEN + 1];   /* "YYYY-MM-DDTHH:MM:SSZ" */
    char tuning_run[ACCT_RULES_RUN_MAX + 1]; /* "" if not given */
    int ranks_per_node_min, ranks_per_node_max; /* 0 if not given */
    enum acct_placement placement;           /* NONE if not given */
    struct acct_rules_model model;           /* present: some rule may be evidence: model */
    size_t nruns;                            /* provenance.runs: 0 if not given */
    struct acct_rules_layout_run runs[ACCT_RULES_RUNS_MAX];
};

/* The tuning run behind the rules for ranks_per_node rpn (0: unknown):
 * provenance.tuning_run when given; else the provenance.runs entry covering
 * rpn (the first one when rpn is 0 or below every entry); NULL if neither
 * names a run. */
const char *acct_rules_run_for(const struct acct_provenance *p, int rpn);

/* The kinds of layout a rule covers (key `layout`, schema 2). */
enum acct_layout_kind {
    ACCT_LAYOUT_ANY = 0,   /* any, and an unknown layout (key absent) */
    ACCT_LAYOUT_REGULAR,   /* every node holds the same number of ranks */
    ACCT_LAYOUT_IRREGULAR, /* some node holds fewer ranks than another */
};

const char *acct_layout_kind_name(enum acct_layout_kind k);

/* Where a call runs, as the rules see it: the most ranks of the
 * communicator on one node (0: unknown -- the runtime could not agree on a
 * layout, or a tool did not say) and whether every node holds as many.
 * Every rank of a communicator sees the same (docs/runtime.md, Locality). */
struct acct_rules_where {
    int ranks_per_node; /* >= 1, or 0: unknown */
    bool regular;
};

struct acct_rule {
    int comm_min, comm_max;        /* inclusive; 1 <= min <= max <= INT_MAX ("max") */
    uint64_t bytes_min, bytes_max; /* inclusive; UINT64_MAX is "max" */
    /* The layout dimension (schema 2). rpn_min == 0 (and rpn_max == 0):
     * any ranks per node; otherwise 1 <= rpn_min <= rpn_max <= INT_MAX.
     * A rule that restricts either (acct_rule_layout_bound) never matches
     * a call whose layout is unknown. */
    int rpn_min, rpn_max;
    enum acct_layout_kind layout;
    struct acct_decision d;
    /* The second-best method (key runner_up), tried on a small fraction of
     * calls when options.explore > 0 (docs/samples.md, Exploration);
     * runner_up.alg NULL: none. Never equal to d. */
    struct acct_decision runner_up;
    enum acct_evidence evidence;   /* key evidence; MEASURED when absent */
    int line, col;                 /* where the rule starts in its file (0: not parsed) */
};

struct acct_rule_list {
    struct acct_rule *v; /* sorted by (comm_min, bytes_min) */
    size_t n;
};

/* Does the rule restrict the layout (ranks_per_node or layout given)? */
static inline bool acct_rule_layout_bound(const struct acct_rule *r)
{
    return r->rpn_min != 0 || r->layout != ACCT_LAYOUT_ANY;
}

/* Does the rule cover calls at w (NULL: unknown layout)? Communicator size
 * and bytes are not looked at. */
static inline bool acct_rule_at(const struct acct_rule *r, const struct acct_rules_where *w)
{
    if (!acct_rule_layout_bound(r))
        return true;
    if (w == NULL || w->ranks_per_node <= 0)
        return false;
    if (r->rpn_min != 0 && (w->ranks_per_node < r->rpn_min || w->ranks_per_node > r->rpn_max))
        return false;
    return r->layout == ACCT_LAYOUT_ANY || (r->layout == ACCT_LAYOUT_REGULAR) == w->regular;
}

/* Does the rule contain the call (comm_size, bytes) at w? */
static inline bool acct_rule_contains(const struct acct_rule *r, int comm_size, uint64_t bytes,
                                      const struct acct_rules_where *w)
{
    return r->comm_min <= comm_size && comm_size <= r->comm_max && r->bytes_min <= bytes &&
           bytes <= r->bytes_max && acct_rule_at(r, w);
}

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

/* The schema version r needs: ACCT_RULES_VERSION_LAYOUT if any rule is
 * layout-bound, else 1. acct_rules_write writes it. */
int acct_rules_version(const struct acct_rules *r);

/* Is any rule of coll that covers comm_size layout-bound? Then the
 * decisions on such a communicator depend on its layout, and the runtime
 * must know it before the first call of coll. */
bool acct_rules_layout_bound(const struct acct_rules *r, enum acct_coll_id coll, int comm_size);

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
