/* libFuzzer target for the tuning result parser (docs/tuning-result.md).
 *
 * Beyond "no crash, no leak, no undefined behaviour" it checks, for every
 * input the parser accepts:
 *   - the canonical writer round-trips: parse(write(r)) succeeds, equals r,
 *     and writing that again gives the same bytes;
 *   - what the validator promises: quartiles in order, reps only for timed
 *     points, timed points within the run's ranks, the rules' provenance
 *     naming the run;
 *   - acceptance is exactly "no problem" (diags' total is 0, whatever the
 *     warnings: unknown top-level sections skipped, docs/tuning-result.md
 *     "Forward compatibility"), and the canonical form has no warning.
 * Any violation aborts, which libFuzzer reports as a crash. Also builds with
 * fuzz_replay.c to replay a corpus in ordinary builds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_result: %s\n", what);
    abort();
}

static char *write_text(const struct acct_result *r, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (f == NULL)
        fail("open_memstream");
    if (acct_result_write(f, r) != 0)
        fail("write failed");
    fclose(f);
    return text;
}

static void check_promises(const struct acct_result *r)
{
    for (size_t i = 0; i < r->npoints; i++) {
        const struct acct_result_point *p = &r->points[i];
        if (!(p->min_us <= p->q1_us && p->q1_us <= p->median_us && p->median_us <= p->q3_us &&
              p->q3_us <= p->max_us))
            fail("quartiles out of order");
        if (p->modelled != (p->reps == 0))
            fail("reps and modelled disagree");
        if (!p->modelled && p->comm_size > r->cond.ranks)
            fail("timed point beyond the run's ranks");
        if (p->d.alg == NULL || p->d.alg->coll != p->coll)
            fail("point without an algorithm of its collective");
    }
    if (r->rules == NULL || strcmp(r->rules->prov.partition, r->partition) != 0 ||
        strcmp(r->rules->prov.interconnect, r->interconnect) != 0 ||
        strcmp(r->rules->prov.tuning_run, r->id) != 0)
        fail("rules provenance does not name the run");
    if (strcmp(r->finished, r->started) < 0 || r->cond.nhosts < 1)
        fail("run or conditions not checked");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = NULL, *back = NULL;
    size_t len = 0, len2 = 0;
    char *text = NULL, *again = NULL;

    int rc = acct_result_parse_buffer("fuzz", (const char *)data, size, &r, &d);
    if ((rc == ACCT_RULES_OK) != (d.total == 0))
        fail("accepted with problems, or refused without one");
    if (rc == ACCT_RULES_OK) {
        check_promises(r);
        text = write_text(r, &len);
        if (acct_result_parse_buffer("written", text, len, &back, &d) != ACCT_RULES_OK) {
            acct_diags_print(&d, stderr);
            fail("the written result does not parse");
        }
        if (d.warnings != 0)
            fail("the written result has a section the parser does not know");
        if (!acct_result_equal(r, back) || !acct_result_equal(back, r))
            fail("the written result differs");
        again = write_text(back, &len2);
        if (len != len2 || memcmp(text, again, len) != 0)
            fail("writing is not canonical");
    } else if (r != NULL) {
        fail("a refused result was returned");
    }
    free(again);
    free(text);
    acct_result_free(back);
    acct_result_free(r);
    acct_diags_free(&d);
    return 0;
}
