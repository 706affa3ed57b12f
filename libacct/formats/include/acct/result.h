/* Tuning results: what one acct-tune run measured and decided (no MPI).
 *
 * Format: docs/tuning-result.md (YAML, schema ACCT_RESULT_VERSION). acct-tune
 * writes it with acct_result_write(); acctd parses it on import with
 * acct_result_parse_*(), which check everything (docs/architecture.md rule 4) and report
 * every problem as "FILE:LINE:COLUMN: FIELD: message" in the same
 * diagnostics list as the rules parser; a result with any problem is
 * refused as a whole. The chosen decisions are a complete struct acct_rules
 * (validated exactly as a rules file). */
#ifndef ACCT_RESULT_H
#define ACCT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct/rules.h"

#define ACCT_RESULT_VERSION 1
#define ACCT_RESULT_MAX_FILE_BYTES (64u * 1024 * 1024)
#define ACCT_RESULT_MAX_POINTS 1000000
#define ACCT_RESULT_MAX_HOSTS 4096
#define ACCT_RESULT_WORD_MAX 32   /* strategy */
#define ACCT_RESULT_TEXT_MAX 128  /* mpi_library */
#define ACCT_RESULT_SHORT_MAX 32  /* acct_version, slurm_job_id */

enum acct_result_source {
    ACCT_RESULT_MEASURED = 0,
    ACCT_RESULT_MODEL,
    ACCT_RESULT_HYBRID,
};

/* One timed (or modelled) method at one point of the grid. Times are per
 * call in microseconds; a repetition's time is the maximum over ranks. */
struct acct_result_point {
    enum acct_coll_id coll;
    int comm_size;
    uint64_t bytes;             /* message bytes m (docs/rules.md) */
    struct acct_decision d;     /* the method: algorithm, segment, fanout, reorder */
    bool modelled;              /* a model's prediction, not a timing */
    uint32_t reps;              /* 0 when modelled */
    double median_us, q1_us, q3_us, min_us, max_us; /* quartiles = median when modelled */
};

struct acct_result_conditions {
    char (*hosts)[ACCT_RULES_NAME_MAX + 1]; /* nhosts names */
    size_t nhosts;
    int ranks, ranks_per_node;
    enum acct_placement placement;  /* BLOCK, CYCLIC or MIXED */
    char mpi_library[ACCT_RESULT_TEXT_MAX];
    char acct_version[ACCT_RESULT_SHORT_MAX];
    char slurm_job_id[ACCT_RESULT_SHORT_MAX]; /* "" if not given */
};

struct acct_result_model {
    bool present;
    double L_us, o_us, g_us, G_us_per_byte;
};

struct acct_result {
    /* run */
    char id[ACCT_RULES_RUN_MAX + 1];
    char partition[ACCT_RULES_NAME_MAX + 1];
    char interconnect[ACCT_RULES_NAME_MAX + 1];
    char started[ACCT_RULES_TIME_LEN + 1], finished[ACCT_RULES_TIME_LEN + 1];
    bool complete;
    char strategy[ACCT_RESULT_WORD_MAX];
    enum acct_result_source source;
    double budget_s;            /* 0: no budget */
    double experiment_s;
    uint64_t experiments;

    struct acct_result_conditions cond;
    struct acct_result_model model;

    struct acct_result_point *points; /* in file order */
    size_t npoints;

    struct acct_rules *rules;   /* the chosen decisions (never NULL in a parsed result) */
    uint64_t hash;              /* acct_rules_hash of the bytes parsed (0 if built) */
};

const char *acct_result_source_name(enum acct_result_source s);

/* Parse a result held in memory (name: display name for diagnostics) or a
 * file (a regular file of at most ACCT_RESULT_MAX_FILE_BYTES). Return
 * ACCT_RULES_OK and *out, or an ACCT_RULES_E* code with *out NULL and every
 * problem in diags (if not NULL). */
int acct_result_parse_buffer(const char *name, const char *buf, size_t len,
                             struct acct_result **out, struct acct_diags *diags);
int acct_result_parse_file(const char *path, struct acct_result **out,
                           struct acct_diags *diags);

/* Write r in the canonical form (fixed key order, one measurement per line
 * in flow style, the rules as acct_rules_write() writes them, indented under
 * "rules:"). Parsing the output gives a result equal to r (acct_result_equal)
 * when r is valid. Returns 0, or -1 on a write error. */
int acct_result_write(FILE *f, const struct acct_result *r);

/* Same content (hash and parse positions not compared). */
bool acct_result_equal(const struct acct_result *a, const struct acct_result *b);

/* Free everything, including r->rules and r->cond.hosts. NULL is fine. */
void acct_result_free(struct acct_result *r);

#endif
