/* libFuzzer target for the rules parser (docs/rules.md, "Fuzzing").
 *
 * Beyond "no crash, no leak, no undefined behaviour" it checks, for every
 * input the parser accepts:
 *   - the canonical writer round-trips: parse(write(r)) succeeds and equals r;
 *   - every per-communicator table is well formed (ascending bounds ending at
 *     UINT64_MAX, no equal neighbours) and answers each rule's corners with
 *     the rule's decision (or native where the algorithm's size restriction
 *     does not hold).
 * Any violation aborts, which libFuzzer reports as a crash. Also built
 * without libFuzzer by fuzz_replay.c to replay a corpus in ordinary builds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/rules.h"
#include "acct/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RULES_CHECKED 64

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_rules: %s\n", what);
    abort();
}

static void check_table(const struct acct_table *t)
{
    if (t->n < 1 || t->max[t->n - 1] != UINT64_MAX)
        fail("table does not end at UINT64_MAX");
    for (size_t i = 1; i < t->n; i++) {
        if (t->max[i - 1] >= t->max[i])
            fail("table bounds not ascending");
        if (acct_decision_equal(&t->dec[i - 1], &t->dec[i]) &&
            acct_decision_equal(&t->ru[i - 1], &t->ru[i]))
            fail("equal neighbours not merged");
    }
}

static void check_corner(const struct acct_rules *r, enum acct_coll_id coll,
                         const struct acct_rule *x, int comm, uint64_t bytes)
{
    struct acct_table *t = NULL;
    /* at a layout the rule covers (any, when it does not restrict it) */
    const struct acct_rules_where w = { x->rpn_min != 0 ? x->rpn_min : 1,
                                        x->layout != ACCT_LAYOUT_IRREGULAR };
    if (acct_rules_resolve_at(r, coll, comm, acct_rule_layout_bound(x) ? &w : NULL, &t) !=
        ACCT_RULES_OK)
        return; /* out of memory */
    check_table(t);
    struct acct_call call = {
        .coll = coll, .size = comm, .count = UINT64_MAX, .scount = UINT64_MAX,
        .fanout = x->d.fanout, .commutative = true,
        .layout = &acct_layout_any, /* only the size is known, as when rules resolve */
    };
    const struct acct_decision *d = acct_table_lookup(t, bytes);
    if (acct_alg_applicable(x->d.alg, &call, NULL)) {
        if (!acct_decision_equal(d, &x->d))
            fail("lookup does not return the rule's decision");
    } else if (!(d->alg->flags & ACCT_ALG_NATIVE)) {
        fail("inapplicable algorithm not replaced by native");
    }
    acct_table_free(t);
}

static void check_accepted(const struct acct_rules *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return;
    if (acct_rules_write(f, r) != 0)
        fail("write failed");
    fclose(f);
    struct acct_rules *again = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    if (acct_rules_parse_buffer("rewritten", text, len, &again, &d) != ACCT_RULES_OK) {
        acct_diags_print(&d, stderr);
        fprintf(stderr, "%s", text);
        fail("the canonical output does not parse");
    }
    if (!acct_rules_equal(r, again))
        fail("round trip changed the rules");
    acct_rules_free(again);
    acct_diags_free(&d);
    free(text);

    size_t checked = 0;
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        const struct acct_rule_list *l = &r->coll[c];
        for (size_t i = 0; i < l->n && checked < MAX_RULES_CHECKED; i++, checked++) {
            const struct acct_rule *x = &l->v[i];
            check_corner(r, (enum acct_coll_id)c, x, x->comm_min, x->bytes_min);
            check_corner(r, (enum acct_coll_id)c, x, x->comm_max, x->bytes_max);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    char line[1024];

    int rc = acct_rules_parse_buffer("fuzz", (const char *)data, size, &r, &d);
    if ((rc == ACCT_RULES_OK) != (r != NULL))
        fail("return code and result disagree");
    if (rc == ACCT_RULES_OK && d.total != 0)
        fail("accepted with problems");
    if (rc != ACCT_RULES_OK && d.total == 0)
        fail("refused without a problem");
    if (d.n > ACCT_DIAG_MAX || d.n > d.total)
        fail("diagnostics count");
    for (size_t i = 0; i < d.n; i++)
        if (acct_diag_format(&d, i, line, sizeof(line)) != 0)
            fail("diagnostic format");
    if (r != NULL)
        check_accepted(r);
    acct_rules_free(r);
    acct_diags_free(&d);
    return 0;
}
