/* Diagnostics: the list of named problems that every validator of ACCT's
 * documents fills (rules files, tuning results, ACCT_FORCE, decision maps;
 * no MPI needed). A validator never stops at the first problem: it records
 * every one, and the caller prints them all.
 *
 * Each problem has a position (line and column from 1; line 0 when it
 * concerns the whole input, such as "cannot open"), a field path such as
 * "collectives.bcast[2].segment" (list indices from 0; empty when the
 * problem has no field, such as a YAML syntax error) and a message. Printed
 * as "FILE:LINE:COLUMN: FIELD: message", leaving out the empty parts. The
 * first ACCT_DIAG_MAX are kept; the rest are only counted.
 *
 * A warning is kept in the same list, in position order, printed as
 * "FILE:LINE:COLUMN: warning: FIELD: message": something skipped that does
 * not make the input invalid (an unknown optional section of a newer
 * tuning result, docs/tuning-result.md). It is not a problem: total counts
 * the problems only, so total == 0 still means valid input. */
#ifndef ACCT_DIAG_H
#define ACCT_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ACCT_DIAG_MAX 100
#define ACCT_DIAG_FIELD_MAX 128
#define ACCT_DIAG_MSG_MAX 512

struct acct_diag {
    int line, col;
    bool warning;          /* a warning, not a problem */
    char field[ACCT_DIAG_FIELD_MAX];
    char msg[ACCT_DIAG_MSG_MAX];
};

struct acct_diags {
    char *file;            /* display name of the input (owned) */
    struct acct_diag *v;   /* the first min(total, ACCT_DIAG_MAX) problems */
    size_t n, cap;
    size_t total;          /* every problem found, kept or not (warnings not counted) */
    size_t warnings;       /* every warning found, kept or not */
};

#define ACCT_DIAGS_INIT { NULL, NULL, 0, 0, 0, 0 }

/* Release the list and empty it (the struct itself can be reused). */
void acct_diags_free(struct acct_diags *d);

/* Forget the problems and set the display name (a copy is kept). */
void acct_diags_reset(struct acct_diags *d, const char *file);

/* Add a problem (printf-style message). field may be NULL or "". */
void acct_diags_add(struct acct_diags *d, int line, int col, const char *field,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Add a warning (printf-style message): kept like a problem, counted in
 * warnings, not in total. */
void acct_diags_warn(struct acct_diags *d, int line, int col, const char *field,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Format problem i as one line without newline (cut to fit buf). Returns 0,
 * or -1 if i is out of range or len is 0 (as acct_size_format: 0 on
 * success). */
int acct_diag_format(const struct acct_diags *d, size_t i, char *buf, size_t len);

/* Print every kept problem and warning, one per line, then "FILE: N more
 * errors not shown" if some were only counted. */
void acct_diags_print(const struct acct_diags *d, FILE *f);

/* The return codes of the functions that report into a diagnostics list
 * (0 on success), named after the first of them, the rules parser. */
enum acct_rules_rc {
    ACCT_RULES_OK = 0,
    ACCT_RULES_EINVAL = -1, /* the content is invalid: see the diagnostics */
    ACCT_RULES_EIO = -2,    /* the file cannot be opened or read */
    ACCT_RULES_ENOMEM = -3, /* out of memory */
};

#endif
