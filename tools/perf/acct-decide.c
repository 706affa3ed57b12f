/* acct-decide: the decision a rules file makes for one call shape, in
 * ACCT_FORCE syntax, resolved exactly as the runtime resolves it
 * (acct_rules_resolve_at, the same table a job builds).
 *
 *   acct-decide RULES COLLECTIVE COMM_SIZE BYTES [RANKS_PER_NODE [irregular]]
 *
 * Prints "COLLECTIVE=SPEC" on one line ("bcast=pipeline:64K",
 * "allreduce=native", "bcast=binomial:8K::reorder"), e.g. for acct-ab -f/-g
 * (tools/perf/acct-retune-pair measures two tuning runs' picks against each
 * other with it). Exit status 0; 2 for a bad command line or a rules file
 * that does not load (every problem named, file:line: field). No MPI. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/coll.h"
#include "acct/decision.h"
#include "acct/diag.h"
#include "acct/rules.h"
#include "acct/stats.h"
#include "acct/table.h"

#define NAME "acct-decide"

static int usage(void)
{
    fprintf(stderr, "usage: " NAME " RULES COLLECTIVE COMM_SIZE BYTES "
                    "[RANKS_PER_NODE [irregular]]\n");
    return 2;
}

/* The decision in ACCT_FORCE syntax: acct_decision_format, whose ",reorder"
 * is for display, with SACK reordering as ACCT_FORCE's fourth field. */
static void force_spec(const struct acct_decision *d, char *buf, size_t len)
{
    struct acct_decision plain = *d;
    plain.reorder = false;
    acct_decision_format(&plain, buf, len);
    if (d->reorder) {
        int colons = 0;
        for (const char *p = buf; *p != '\0'; p++)
            colons += *p == ':';
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%.*sreorder", 3 - colons, ":::");
    }
}

int main(int argc, char **argv)
{
    struct acct_rules *r = NULL;
    struct acct_diags diags = ACCT_DIAGS_INIT;
    struct acct_rules_where where = { 0, true };
    struct acct_table *t = NULL;
    enum acct_coll_id coll;
    uint64_t bytes;
    char err[128], spec[128], *end;
    long p, rpn = 0;

    if (argc < 5 || argc > 7)
        return usage();
    if (acct_coll_from_name(argv[2], &coll) != 0) {
        fprintf(stderr, NAME ": unknown collective \"%s\"\n", argv[2]);
        return 2;
    }
    p = strtol(argv[3], &end, 10);
    if (*end != '\0' || p < 1 || p > 16777216) {
        fprintf(stderr, NAME ": COMM_SIZE: expected 1 to 16777216, got \"%s\"\n", argv[3]);
        return 2;
    }
    if (acct_size_parse(argv[4], &bytes, err, sizeof(err)) != 0 && strcmp(argv[4], "0") != 0) {
        fprintf(stderr, NAME ": BYTES \"%s\": %s\n", argv[4], err);
        return 2;
    }
    if (strcmp(argv[4], "0") == 0)
        bytes = 0;
    if (argc >= 6) {
        rpn = strtol(argv[5], &end, 10);
        if (*end != '\0' || rpn < 1 || rpn > p) {
            fprintf(stderr, NAME ": RANKS_PER_NODE: expected 1 to COMM_SIZE, got \"%s\"\n",
                    argv[5]);
            return 2;
        }
        where.ranks_per_node = (int)rpn;
        if (argc == 7) {
            if (strcmp(argv[6], "irregular") != 0)
                return usage();
            where.regular = false;
        }
    }
    if (acct_rules_parse_file(argv[1], &r, &diags) != ACCT_RULES_OK) {
        char line[512];
        for (size_t i = 0; i < diags.n; i++) {
            acct_diag_format(&diags, i, line, sizeof(line));
            fprintf(stderr, NAME ": %s\n", line);
        }
        if (diags.n == 0)
            fprintf(stderr, NAME ": %s: cannot load the rules\n", argv[1]);
        acct_diags_free(&diags);
        return 2;
    }
    acct_diags_free(&diags);
    if (acct_rules_resolve_at(r, coll, (int)p, rpn > 0 ? &where : NULL, &t) != ACCT_RULES_OK) {
        fprintf(stderr, NAME ": out of memory\n");
        acct_rules_free(r);
        return 2;
    }
    force_spec(&t->dec[acct_table_index(t, bytes)], spec, sizeof(spec));
    printf("%s=%s\n", acct_coll_name(coll), spec);
    acct_table_free(t);
    acct_rules_free(r);
    return 0;
}
