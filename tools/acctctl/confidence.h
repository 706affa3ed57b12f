/* acctctl: a version's tuning result (GET_RESULT), how sure it is, and
 * whether two versions' differences are beyond noise (confidence.c;
 * docs/acctctl.md "Confidence"). */
#ifndef ACCTCTL_CONFIDENCE_H
#define ACCTCTL_CONFIDENCE_H

#include <stdint.h>
#include <stdio.h>

#include "acct/result.h"
#include "client.h"

/* GET_RESULT of version v, parsed: 0 and *out; 1 when there is none (a
 * version from no run, an acctd older than GET_RESULT, a result this
 * acctctl cannot read: why says which, nothing printed); -1 when acctd did
 * not answer (printed). */
int acctctl_get_result(struct acctctl_conn *conn, uint64_t v, struct acct_result **out,
                       char *why, size_t whylen);

/* Per collective: how many timed points were settled by the race's test,
 * resolved among equivalent finalists, capped, or not raced; the A/A
 * noise; then the run's noise section. */
void acctctl_confidence_print(FILE *out, const struct acct_result *r, const char *indent);

/* One side of a diff: the version, its rules, its run's result (or NULL
 * and why). */
struct acctctl_diff_side {
    uint64_t version;
    const struct acct_rules *rules;
    const struct acct_result *result;
    const char *why;
};

typedef int (*acctctl_line_fn)(void *arg, const char *line);

/* Every timed point of either result where the two versions decide
 * differently, classified "beyond noise", "within noise" or "unknown (no
 * timings)", one line each, then a summary line. 0, or -1 (out of memory
 * or line failed). */
int acctctl_diff_noise(const struct acctctl_diff_side side[2], acctctl_line_fn line, void *arg);

#endif
