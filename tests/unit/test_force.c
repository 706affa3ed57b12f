/* Unit tests for acct/force.h: the ACCT_FORCE grammar and its checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acct/alg.h"
#include "acct/force.h"
#include "acct/rules.h"

static const struct acct_alg *alg(enum acct_coll_id c, const char *name)
{
    const struct acct_alg *a = acct_alg_find(c, name);
    assert_non_null(a);
    return a;
}

/* Parse text expecting nbad invalid entries; returns the printed messages
 * (caller frees). */
static char *force(const char *text, struct acct_force *f, int nbad)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    char *out = NULL;
    size_t len = 0;
    int bad = acct_force_parse(text, f, &d);
    FILE *m = open_memstream(&out, &len);
    assert_non_null(m);
    acct_diags_print(&d, m);
    fclose(m);
    if (bad != nbad)
        fprintf(stderr, "%s", out);
    assert_int_equal(bad, nbad);
    assert_int_equal(d.total, (size_t)nbad);
    acct_diags_free(&d);
    return out;
}

static void test_valid(void **state)
{
    (void)state;
    struct acct_force f;
    free(force("bcast=binomial:8192,allreduce=ring", &f, 0));
    assert_int_equal(f.count, 2);
    const struct acct_decision *d = acct_force_get(&f, ACCT_COLL_bcast);
    assert_non_null(d);
    assert_ptr_equal(d->alg, alg(ACCT_COLL_bcast, "binomial"));
    assert_int_equal(d->segment_bytes, 8192);
    assert_int_equal(d->fanout, 0);
    assert_false(d->reorder);
    d = acct_force_get(&f, ACCT_COLL_allreduce);
    assert_ptr_equal(d->alg, alg(ACCT_COLL_allreduce, "ring"));
    assert_int_equal(d->segment_bytes, 0);
    assert_null(acct_force_get(&f, ACCT_COLL_reduce));
    assert_null(acct_force_get(&f, ACCT_COLL_COUNT));
}

static void test_suffixes_and_fanout(void **state)
{
    (void)state;
    struct acct_force f;
    free(force("bcast=knomial:1M:8, reduce=pipeline:64K ,gather=chain::3,scatter=chain:0:2",
               &f, 0));
    assert_int_equal(f.count, 4);
    assert_int_equal(f.d[ACCT_COLL_bcast].segment_bytes, 1 << 20);
    assert_int_equal(f.d[ACCT_COLL_bcast].fanout, 8);
    assert_int_equal(f.d[ACCT_COLL_reduce].segment_bytes, 65536);
    assert_ptr_equal(f.d[ACCT_COLL_gather].alg, alg(ACCT_COLL_gather, "chain"));
    assert_int_equal(f.d[ACCT_COLL_gather].segment_bytes, 0);
    assert_int_equal(f.d[ACCT_COLL_gather].fanout, 3);
    assert_int_equal(f.d[ACCT_COLL_scatter].fanout, 2);
    /* native is a valid choice for every collective */
    free(force("barrier=native,alltoall=native", &f, 0));
    assert_int_equal(f.count, 2);
    assert_true(f.d[ACCT_COLL_barrier].alg->flags & ACCT_ALG_NATIVE);
}

static void test_nothing(void **state)
{
    (void)state;
    struct acct_force f;
    free(force(NULL, &f, 0));
    assert_int_equal(f.count, 0);
    free(force("", &f, 0));
    assert_int_equal(f.count, 0);
    free(force(" , ,,", &f, 0)); /* blanks and empty entries are ignored */
    assert_int_equal(f.count, 0);
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        assert_null(acct_force_get(&f, (enum acct_coll_id)i));
}

static void test_invalid_kept_apart(void **state)
{
    (void)state;
    struct acct_force f;
    char *msg = force("bcast=binomal,allreduce=ring", &f, 1);
    /* one clear line, naming the entry and the valid names */
    assert_non_null(strstr(msg, "ACCT_FORCE: \"bcast=binomal\": unknown bcast algorithm "
                                "\"binomal\" (valid: native, linear, "));
    assert_non_null(strstr(msg, "binomial"));
    assert_int_equal(strchr(msg, '\n') - msg + 1, (long)strlen(msg)); /* one line */
    free(msg);
    /* the valid entry is kept, the invalid one ignored */
    assert_int_equal(f.count, 1);
    assert_null(acct_force_get(&f, ACCT_COLL_bcast));
    assert_non_null(acct_force_get(&f, ACCT_COLL_allreduce));
}

static void test_invalid(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        { "bcats=binomial", "ACCT_FORCE: \"bcats=binomial\": unknown collective \"bcats\" (valid: barrier, bcast," },
        { "bcast", "ACCT_FORCE: \"bcast\": expected COLLECTIVE=ALGORITHM[:SEGMENT[:FANOUT[:reorder]]]" },
        { "=binomial", "unknown collective \"\"" },
        { "bcast=", "unknown bcast algorithm \"\"" },
        { "bcast=linear:8K", "\"bcast=linear:8K\": bcast linear does not take a segment size" },
        { "bcast=linear:0", "bcast linear does not take a segment size" },
        { "bcast=knomial:8K:99", "fan-out 99 is out of range for bcast knomial (2 to 16)" },
        { "bcast=knomial:8K:1", "fan-out 1 is out of range" },
        { "bcast=binomial:8K:4", "bcast binomial does not take a fan-out" },
        { "bcast=binomial:8Q", "segment: invalid size \"8Q\": unknown unit \"Q\"" },
        { "bcast=binomial:-8", "segment: invalid size \"-8\"" },
        { "bcast=binomial:2G", "larger than the limit of 1G" },
        { "bcast=binomial:99999999999999999999", "segment: size \"99999999999999999999\" is too large" },
        { "bcast=knomial:8K:x", "fan-out \"x\" is not an integer" },
        { "bcast=knomial:8K:99999999999999999", "fan-out \"99999999999999999\" is too large" },
        { "bcast=knomial:8K:4:1", "fourth field \"1\": expected \"reorder\" or nothing" },
        { "bcast=knomial:8K:4:reorder:x", "too many ':' fields" },
        { "bcast=native:::reorder", "bcast native cannot be reordered" },
        { "bcast=split_binary:::reorder", "bcast split_binary has no SACK reordering (reorder-capable bcast algorithms: linear, chain, pipeline, binary, binomial, knomial)" },
        { "reduce=rabenseifner:::reorder", "reduce rabenseifner has no SACK reordering (reorder-capable reduce algorithms: linear, chain, pipeline, binary, binomial)" },
        { "alltoall=pairwise:::reorder", "alltoall pairwise has no SACK reordering (reorder-capable alltoall algorithms: none)" },
        { "BCAST=binomial", "unknown collective \"BCAST\"" },
        { "bcast=binomial\x01", "\"bcast=binomial\\x01\": unknown bcast algorithm \"binomial\\x01\"" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct acct_force f;
        char *msg = force(cases[i].text, &f, 1);
        if (strstr(msg, cases[i].msg) == NULL)
            fprintf(stderr, "case %zu: expected ...%s... in %s", i, cases[i].msg, msg);
        assert_non_null(strstr(msg, cases[i].msg));
        assert_int_equal(f.count, 0);
        free(msg);
    }
}

static void test_reorder(void **state)
{
    (void)state;
    struct acct_force f;
    char buf[256];
    char *msg = force("bcast=binomial:8K::reorder, scatter=binomial:::reorder,allreduce=ring:", &f, 0);
    free(msg);
    assert_int_equal(f.count, 3);
    assert_true(f.d[ACCT_COLL_bcast].reorder);
    assert_int_equal(f.d[ACCT_COLL_bcast].segment_bytes, 8192);
    assert_true(f.d[ACCT_COLL_scatter].reorder);
    assert_false(f.d[ACCT_COLL_allreduce].reorder);
    /* the canonical text is ACCT_FORCE syntax again */
    assert_true(acct_force_format(&f, buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "bcast=binomial:8K::reorder,allreduce=ring,scatter=binomial:::reorder");
    struct acct_force g;
    msg = force(buf, &g, 0);
    free(msg);
    assert_int_equal(g.count, 3);
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        assert_int_equal(g.forced[i], f.forced[i]);
        if (f.forced[i])
            assert_true(acct_decision_equal(&g.d[i], &f.d[i]));
    }
}

static void test_duplicates_and_many(void **state)
{
    (void)state;
    struct acct_force f;
    char *msg = force("bcast=binomial,bcast=linear,reduce=nope,bcast=x", &f, 3);
    assert_non_null(strstr(msg, "\"bcast=linear\": bcast is forced twice: the first entry is kept"));
    assert_non_null(strstr(msg, "\"reduce=nope\": unknown reduce algorithm"));
    assert_non_null(strstr(msg, "\"bcast=x\": unknown bcast algorithm"));
    free(msg);
    assert_int_equal(f.count, 1);
    assert_ptr_equal(f.d[ACCT_COLL_bcast].alg, alg(ACCT_COLL_bcast, "binomial"));
}

static void test_too_long(void **state)
{
    (void)state;
    struct acct_force f;
    char *text = malloc(ACCT_FORCE_MAX_LEN + 2);
    memset(text, 'x', ACCT_FORCE_MAX_LEN + 1);
    text[ACCT_FORCE_MAX_LEN + 1] = '\0';
    memcpy(text, "bcast=binomial,", 15);
    char *msg = force(text, &f, 1);
    assert_non_null(strstr(msg, "ACCT_FORCE: longer than 4096 characters: ignored"));
    assert_int_equal(f.count, 0);
    free(msg);
    /* a long invalid entry is quoted, cut short */
    text[ACCT_FORCE_MAX_LEN] = '\0';
    msg = force(text + 15, &f, 1);
    assert_true(strlen(msg) < 400);
    assert_non_null(strstr(msg, "...\": expected COLLECTIVE"));
    free(msg);
    free(text);
}

static void test_format(void **state)
{
    (void)state;
    struct acct_force f, g;
    char buf[256];
    free(force(" allreduce=ring , bcast=knomial:64K:8,gather=chain::3 ", &f, 0));
    int n = acct_force_format(&f, buf, sizeof(buf));
    assert_int_equal(n, (int)strlen(buf));
    /* collective order, canonical sizes */
    assert_string_equal(buf, "bcast=knomial:64K:8,allreduce=ring,gather=chain::3");
    free(force(buf, &g, 0));
    assert_int_equal(g.count, f.count);
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        assert_int_equal(f.forced[i], g.forced[i]);
        if (f.forced[i])
            assert_true(acct_decision_equal(&f.d[i], &g.d[i]));
    }
    /* truncation reports the length needed */
    assert_int_equal(acct_force_format(&f, buf, 5), (int)strlen("bcast=knomial:64K:8,allreduce=ring,gather=chain::3"));
    assert_string_equal(buf, "bcas");
    free(force("", &f, 0));
    assert_int_equal(acct_force_format(&f, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "");
}

static void test_without_diags(void **state)
{
    (void)state;
    struct acct_force f;
    assert_int_equal(acct_force_parse("bcast=nope,reduce=binomial", &f, NULL), 1);
    assert_int_equal(f.count, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_suffixes_and_fanout),
        cmocka_unit_test(test_nothing),
        cmocka_unit_test(test_invalid_kept_apart),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_reorder),
        cmocka_unit_test(test_duplicates_and_many),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_without_diags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
