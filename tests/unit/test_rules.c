/* Unit tests for acct/rules.h: parsing, validation (with exact positions),
 * lookup tables, hashing and the canonical writer. Test files live in
 * tests/unit/rules/ (ACCT_RULES_TESTDATA). */
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acct/alg.h"
#include "acct/common.h"
#include "acct/rules.h"
#include "acct/table.h"

#ifndef ACCT_RULES_TESTDATA
#error "ACCT_RULES_TESTDATA must name tests/unit/rules"
#endif

/* A valid head: acct_rules on line 1, provenance on line 2, "collectives:"
 * on line 3; rules of the test start on line 4 ("  bcast:") and 5. */
#define HEAD                                                                        \
    "acct_rules: 1\n"                                                               \
    "provenance: {partition: eth, interconnect: tcp-1g, version: 1, source: manual, " \
    "created: \"2026-11-22T12:00:00Z\"}\n"                                          \
    "collectives:\n"

static int parse(const char *src, struct acct_rules **r, struct acct_diags *d)
{
    return acct_rules_parse_buffer("t.yaml", src, strlen(src), r, d);
}

static void dump(const struct acct_diags *d)
{
    acct_diags_print(d, stderr);
}

/* Is there a problem at line (and col, unless 0) whose field is field and
 * whose message contains substr? */
static bool has(const struct acct_diags *d, int line, int col, const char *field,
                const char *substr)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct acct_diag *g = &d->v[i];
        if (g->line == line && (col == 0 || g->col == col) && strcmp(g->field, field) == 0 &&
            strstr(g->msg, substr) != NULL)
            return true;
    }
    fprintf(stderr, "expected %d:%d: %s: ...%s... among:\n", line, col, field, substr);
    dump(d);
    return false;
}

/* src must be invalid with exactly nerr problems, one of them as given. */
static void expect_error(const char *src, size_t nerr, int line, int col, const char *field,
                         const char *substr)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = (struct acct_rules *)1;
    assert_int_equal(parse(src, &r, &d), ACCT_RULES_EINVAL);
    assert_null(r);
    assert_true(has(&d, line, col, field, substr));
    if (nerr != 0 && d.total != nerr) {
        dump(&d);
        assert_int_equal(d.total, nerr);
    }
    acct_diags_free(&d);
}

static struct acct_rules *parse_ok(const char *src)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    int rc = parse(src, &r, &d);
    if (rc != ACCT_RULES_OK)
        dump(&d);
    assert_int_equal(rc, ACCT_RULES_OK);
    assert_non_null(r);
    assert_int_equal(d.total, 0);
    acct_diags_free(&d);
    return r;
}

static struct acct_rules *parse_file_ok(const char *name)
{
    char path[4096];
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    snprintf(path, sizeof(path), "%s/%s", ACCT_RULES_TESTDATA, name);
    int rc = acct_rules_parse_file(path, &r, &d);
    if (rc != ACCT_RULES_OK)
        dump(&d);
    assert_int_equal(rc, ACCT_RULES_OK);
    acct_diags_free(&d);
    return r;
}

static const struct acct_alg *alg(enum acct_coll_id c, const char *name)
{
    const struct acct_alg *a = acct_alg_find(c, name);
    assert_non_null(a);
    return a;
}

/* ---- valid files ------------------------------------------------------- */

static void test_minimal(void **state)
{
    (void)state;
    struct acct_rules *r = parse_file_ok("valid-minimal.yaml");
    assert_string_equal(r->prov.partition, "eth");
    assert_string_equal(r->prov.interconnect, "tcp-1g");
    assert_int_equal(r->prov.version, 1);
    assert_int_equal(r->prov.source, ACCT_SOURCE_MANUAL);
    assert_string_equal(r->prov.created, "2026-11-22T12:00:00Z");
    assert_string_equal(r->prov.tuning_run, "");
    assert_int_equal(r->prov.ranks_per_node_min, 0);
    assert_int_equal(r->prov.placement, ACCT_PLACEMENT_NONE);
    assert_int_equal(r->nrules, 0);
    acct_rules_free(r);
}

static void test_full(void **state)
{
    (void)state;
    struct acct_rules *r = parse_file_ok("valid-full.yaml");
    const struct acct_rule_list *b = &r->coll[ACCT_COLL_bcast];

    assert_int_equal(r->prov.version, 12);
    assert_int_equal(r->prov.source, ACCT_SOURCE_MEASURED);
    assert_string_equal(r->prov.created, "2026-11-22T12:00:00Z"); /* unquoted in the file */
    assert_string_equal(r->prov.tuning_run, "r-2026-11-22-01");
    assert_int_equal(r->prov.ranks_per_node_min, 2);
    assert_int_equal(r->prov.ranks_per_node_max, 2);
    assert_int_equal(r->prov.placement, ACCT_PLACEMENT_BLOCK);
    assert_int_equal(r->nrules, 21);
    /* every collective has rules */
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        assert_true(r->coll[i].n >= 1);

    /* bcast, sorted by (comm_min, bytes_min) */
    assert_int_equal(b->n, 5);
    assert_int_equal(b->v[0].comm_min, 2);
    assert_int_equal(b->v[0].comm_max, 8);
    assert_int_equal(b->v[0].bytes_min, 0);
    assert_int_equal(b->v[0].bytes_max, 8191);
    assert_ptr_equal(b->v[0].d.alg, alg(ACCT_COLL_bcast, "binomial"));
    assert_int_equal(b->v[0].d.segment_bytes, 0);
    assert_int_equal(b->v[0].line, 13);
    assert_int_equal(b->v[0].col, 7);
    assert_int_equal(b->v[1].bytes_min, 8192);             /* 8K */
    assert_int_equal(b->v[1].bytes_max, 1048576);          /* 1M */
    assert_int_equal(b->v[1].d.segment_bytes, 8192);
    assert_int_equal(b->v[2].bytes_min, 1048577);
    assert_true(b->v[2].bytes_max == UINT64_MAX);          /* max */
    assert_int_equal(b->v[2].d.segment_bytes, 65536);      /* 64KiB */
    assert_ptr_equal(b->v[2].d.alg, alg(ACCT_COLL_bcast, "pipeline"));
    assert_int_equal(b->v[3].comm_min, 9);
    assert_int_equal(b->v[3].comm_max, INT_MAX);           /* max */
    assert_int_equal(b->v[3].d.fanout, 8);
    assert_int_equal(b->v[3].d.segment_bytes, 0);
    assert_true(b->v[3].d.reorder);
    assert_int_equal(b->v[4].comm_min, 16);                /* one integer */
    assert_int_equal(b->v[4].comm_max, 16);
    assert_ptr_equal(b->v[4].d.alg, alg(ACCT_COLL_bcast, "chain"));
    assert_int_equal(b->v[4].d.fanout, 4);

    /* sizes and defaults elsewhere */
    assert_int_equal(r->coll[ACCT_COLL_gather].v[0].bytes_min, 1048576); /* one size */
    assert_int_equal(r->coll[ACCT_COLL_gather].v[0].bytes_max, 1048576);
    assert_int_equal(r->coll[ACCT_COLL_scatter].v[0].bytes_max, 1ull << 30);
    assert_true(r->coll[ACCT_COLL_alltoall].v[0].bytes_max == 1ull << 40);
    assert_true(r->coll[ACCT_COLL_barrier].v[0].bytes_max == UINT64_MAX); /* default */
    assert_ptr_equal(r->coll[ACCT_COLL_reduce].v[0].d.alg, acct_alg_native(ACCT_COLL_reduce));
    acct_rules_free(r);
}

static void test_native_everywhere(void **state)
{
    (void)state;
    /* "native" is valid for every collective; block and flow styles mix. */
    char src[4096];
    size_t o = (size_t)snprintf(src, sizeof(src), HEAD);
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        o += (size_t)snprintf(src + o, sizeof(src) - o,
                              "  %s:\n    - comm_size: 4\n      algorithm: native\n",
                              acct_coll_name((enum acct_coll_id)i));
    struct acct_rules *r = parse_ok(src);
    assert_int_equal(r->nrules, ACCT_COLL_COUNT);
    acct_rules_free(r);
}

static void test_every_algorithm(void **state)
{
    (void)state;
    /* Every registered algorithm is accepted by its collective, with a
     * segment and a fan-out where it takes them. */
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++) {
        char src[1024];
        snprintf(src, sizeof(src), HEAD "  %s:\n    - {comm_size: [2, 64], algorithm: %s%s%s}\n",
                 acct_coll_name(a->coll), a->name,
                 (a->flags & ACCT_ALG_SEGMENTED) ? ", segment: 4K" : "",
                 (a->flags & ACCT_ALG_FANOUT) ? ", fanout: 2" : "");
        struct acct_rules *r = parse_ok(src);
        assert_ptr_equal(r->coll[a->coll].v[0].d.alg, a);
        acct_rules_free(r);
    }
}

static void test_sizes_and_comments(void **state)
{
    (void)state;
    struct acct_rules *r = parse_ok(
        "# comment\n"
        "---\n" HEAD
        "  allgather:   # trailing comment\n"
        "    - {comm_size: [2, 3], bytes: [1k, 2KB], algorithm: native}\n"
        "    - {comm_size: [2, 3], bytes: [3KiB, 1g], algorithm: native}\n"
        "    - {comm_size: [2, 3], bytes: [2G, 1T], algorithm: native}\n"
        "...\n");
    const struct acct_rule_list *l = &r->coll[ACCT_COLL_allgather];
    assert_int_equal(l->n, 3);
    assert_int_equal(l->v[0].bytes_min, 1024);
    assert_int_equal(l->v[0].bytes_max, 2048);
    assert_int_equal(l->v[1].bytes_min, 3072);
    assert_int_equal(l->v[1].bytes_max, 1ull << 30);
    assert_true(l->v[2].bytes_max == 1ull << 40);
    acct_rules_free(r);
}

/* ---- invalid files: one problem each, exact positions --------------------- */

static void test_key_typo(void **state)
{
    (void)state;
    const char *src = HEAD "  bcast:\n"
                           "    - comm_size: [2, 8]\n"
                           "      algoritm: binomial\n";
    expect_error(src, 2, 6, 7, "collectives.bcast[0].algoritm",
                 "unknown key \"algoritm\" (did you mean \"algorithm\"?)");
    expect_error(src, 2, 5, 7, "collectives.bcast[0].algorithm", "required key");
    expect_error("acct_rules: 1\nprovenence: {}\ncollectives: {}\n", 2, 2, 1, "provenence",
                 "unknown key");
}

static void test_unknown_algorithm(void **state)
{
    (void)state;
    expect_error(HEAD "  bcast:\n"
                      "    - comm_size: [2, 8]\n"
                      "      bytes: [0, 1K]\n"
                      "      algorithm: binomal\n",
                 1, 7, 18, "collectives.bcast[0].algorithm",
                 "unknown bcast algorithm \"binomal\" (valid: native, ");
    /* a name of another collective's algorithm */
    expect_error(HEAD "  barrier:\n    - {comm_size: 2, algorithm: binomial}\n", 1, 5, 33,
                 "collectives.barrier[0].algorithm", "unknown barrier algorithm");
}

static void test_unknown_collective(void **state)
{
    (void)state;
    expect_error(HEAD "  bcats:\n    - {comm_size: 2, algorithm: native}\n", 1, 4, 3,
                 "collectives.bcats", "unknown collective \"bcats\" (did you mean \"bcast\"?)");
}

static void test_version(void **state)
{
    (void)state;
    /* Only the version is reported: the rest follows an unknown schema. */
    expect_error("acct_rules: 3\nwhatever: [1, 2]\n", 1, 1, 13, "acct_rules",
                 "unsupported rules schema version 3: this library reads versions 1 to 2");
    expect_error("acct_rules: 0\nwhatever: [1, 2]\n", 1, 1, 13, "acct_rules",
                 "unsupported rules schema version 0");
    expect_error("acct_rules: one\n", 1, 1, 13, "acct_rules", "expected the schema version");
    expect_error("provenance: {}\ncollectives: {}\n", 0, 1, 1, "acct_rules",
                 "required key \"acct_rules\" is missing");
}

static void test_truncated(void **state)
{
    (void)state;
    /* cut inside a flow list */
    expect_error(HEAD "  bcast:\n    - {comm_size: [2, 8], bytes: [0, 81", 2, 5, 0, "",
                 "YAML syntax error");
    /* cut so that the rest is valid YAML ("fanout: 16" -> "fanout: 1") */
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: chain}\n"
                      "    - {comm_size: 3, algorithm: chain, fanout: 1",
                 0, 6, 0, "", "YAML syntax error");
    expect_error(HEAD "  bcast:\n    - comm_size: 2\n      algorithm: chain\n      fanout: 1",
                 1, 7, 16, "", "does not end with a newline: truncated file?");
    /* cut after a key */
    expect_error(HEAD "  bcast:\n    - comm_size: 2\n      algorithm:\n", 1, 6, 17,
                 "collectives.bcast[0].algorithm", "expected an algorithm name, got nothing");
}

static void test_binary(void **state)
{
    (void)state;
    static const char garbage[] = "acct_rules: 1\n\x7f" "ELF\x02\x01\x01\x00\x00\xff";
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;

    assert_int_equal(acct_rules_parse_buffer("bin", garbage, sizeof(garbage) - 1, &r, &d),
                     ACCT_RULES_EINVAL);
    assert_int_equal(d.total, 1);
    assert_true(has(&d, 2, 1, "", "control character"));
    /* a NUL byte */
    assert_int_equal(acct_rules_parse_buffer("bin", "a: 1\n\0b\n", 8, &r, &d), ACCT_RULES_EINVAL);
    assert_true(has(&d, 2, 1, "", "binary data"));
    /* invalid UTF-8 (Latin-1 text) with its position in characters */
    expect_error(HEAD "  bcast: # d\xc3\xa9j\xe0 vu\n", 1, 4, 15, "", "invalid UTF-8");
    /* UTF-16 */
    assert_int_equal(acct_rules_parse_buffer("u16", "\xff\xfe" "a\0:\0", 6, &r, &d),
                     ACCT_RULES_EINVAL);
    assert_int_equal(d.total, 1);
    acct_diags_free(&d);
}

static void test_overlap(void **state)
{
    (void)state;
    const char *src = HEAD "  bcast:\n"
                           "    - {comm_size: [2, 8], bytes: [0, 8K], algorithm: binomial}\n"
                           "    - {comm_size: [9, 16], bytes: [0, 8K], algorithm: binomial}\n"
                           "    - {comm_size: [8, 9], bytes: [8K, 16K], algorithm: binary}\n"
                           "    - {comm_size: [1, 1], bytes: [0, max], algorithm: linear}\n";
    /* the third overlaps both the first (8, 8K) and the second (9, 8K):
     * reported once, naming the first */
    expect_error(src, 1, 7, 7, "collectives.bcast[2]",
                 "overlaps collectives.bcast[0] at line 5 (both contain comm_size 8, bytes 8K)");
    /* touching ranges do not overlap: [0, 8K-1] and [8K, 16K] */
    struct acct_rules *r = parse_ok(HEAD "  bcast:\n"
                                         "    - {comm_size: 2, bytes: [0, 8191], algorithm: binomial}\n"
                                         "    - {comm_size: 2, bytes: [8K, 16K], algorithm: binary}\n"
                                         "    - {comm_size: 3, bytes: [0, 8191], algorithm: binary}\n");
    acct_rules_free(r);
    /* other collectives are separate spaces */
    r = parse_ok(HEAD "  bcast:\n    - {comm_size: 2, algorithm: binomial}\n"
                      "  reduce:\n    - {comm_size: 2, algorithm: binomial}\n");
    acct_rules_free(r);
}

static void test_segment_fanout_reorder(void **state)
{
    (void)state;
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, segment: 8K}\n", 1, 5,
                 50, "collectives.bcast[0].segment",
                 "bcast linear does not take a segment size");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: knomial, fanout: 17}\n", 1, 5,
                 50, "collectives.bcast[0].fanout",
                 "fan-out 17 is out of range for bcast knomial (2 to 16)");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: knomial, fanout: 1}\n", 1, 5,
                 50, "collectives.bcast[0].fanout", "out of range");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: knomial, fanout: -3}\n", 1, 5,
                 50, "collectives.bcast[0].fanout", "fan-out -3 is out of range");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: binomial, fanout: 4}\n", 1, 5,
                 51, "collectives.bcast[0].fanout", "bcast binomial does not take a fan-out");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: binomial, segment: 2G}\n", 1,
                 5, 52, "collectives.bcast[0].segment", "larger than the limit of 1G");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: native, reorder: true}\n", 1,
                 5, 50, "collectives.bcast[0].reorder", "native cannot be reordered");
    /* the registry says which algorithms SACK reordering can run */
    expect_error(HEAD "  reduce:\n    - {comm_size: 2, algorithm: rabenseifner, reorder: true}\n",
                 1, 5, 56, "collectives.reduce[0].reorder",
                 "reduce rabenseifner has no SACK reordering (reorder-capable reduce algorithms: "
                 "linear, chain, pipeline, binary, binomial)");
    expect_error(HEAD "  allgather:\n    - {comm_size: 2, algorithm: ring, reorder: true}\n", 1,
                 5, 48, "collectives.allgather[0].reorder",
                 "allgather ring has no SACK reordering (reorder-capable allgather algorithms: none)");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: split_binary, reorder: true}\n",
                 1, 5, 56, "collectives.bcast[0].reorder", "bcast split_binary has no SACK");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: binomial, reorder: yes}\n", 1,
                 5, 52, "collectives.bcast[0].reorder", "expected true or false, got \"yes\"");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: native, segment: 1K}\n", 1, 5,
                 50, "collectives.bcast[0].segment", "does not take a segment size");
}

static void test_duplicates(void **state)
{
    (void)state;
    expect_error(HEAD "  bcast:\n"
                      "    - comm_size: 2\n"
                      "      algorithm: binomial\n"
                      "      algorithm: binary\n",
                 1, 7, 7, "collectives.bcast[0].algorithm",
                 "duplicate key \"algorithm\" (first at line 6)");
    expect_error(HEAD "  bcast: []\n  reduce: []\n  bcast: []\n", 1, 6, 3, "collectives.bcast",
                 "duplicate collective \"bcast\" (first at line 4)");
    expect_error("acct_rules: 1\nacct_rules: 1\n" HEAD "  bcast: []\n", 0, 2, 1, "acct_rules",
                 "duplicate key");
}

static void test_empty(void **state)
{
    (void)state;
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    assert_int_equal(acct_rules_parse_buffer("e", "", 0, &r, &d), ACCT_RULES_EINVAL);
    assert_int_equal(d.total, 1);
    assert_true(has(&d, 1, 1, "", "empty file"));
    acct_diags_free(&d);
    expect_error("# only a comment\n\n", 1, 1, 1, "", "no YAML document");
    expect_error("---\n", 0, 2, 1, "", "expected a mapping with keys acct_rules");
    expect_error("- 1\n- 2\n", 1, 1, 1, "", "expected a mapping with keys acct_rules, "
                 "provenance, options, collectives, got a list");
}

static void test_numbers(void **state)
{
    (void)state;
    expect_error(HEAD "  bcast:\n    - {comm_size: 99999999999, algorithm: native}\n", 1, 5, 19,
                 "collectives.bcast[0].comm_size",
                 "99999999999 is too large: the maximum is 2147483647");
    expect_error(HEAD "  bcast:\n    - {comm_size: 123456789012345678901234567890, algorithm: native}\n",
                 1, 5, 19, "collectives.bcast[0].comm_size", "is too large");
    expect_error(HEAD "  bcast:\n    - {comm_size: 0, algorithm: native}\n", 1, 5, 19,
                 "collectives.bcast[0].comm_size", "0 is too small: the minimum is 1");
    expect_error(HEAD "  bcast:\n    - {comm_size: [-1, 4], algorithm: native}\n", 1, 5, 20,
                 "collectives.bcast[0].comm_size", "-1 is too small");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: [-5, 10], algorithm: native}\n", 1,
                 5, 30, "collectives.bcast[0].bytes", "is negative");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: [0, 99999999999999999999], algorithm: native}\n",
                 1, 5, 33, "collectives.bcast[0].bytes", "too large");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: [0, 17179869184G], algorithm: native}\n",
                 1, 5, 33, "collectives.bcast[0].bytes", "too large");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: [0, 12Q], algorithm: native}\n", 1,
                 5, 33, "collectives.bcast[0].bytes", "unknown unit \"Q\"");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: [8K, 1K], algorithm: native}\n", 1,
                 5, 29, "collectives.bcast[0].bytes",
                 "range minimum 8192 is larger than its maximum 1024");
    expect_error(HEAD "  bcast:\n    - {comm_size: [9, 4], algorithm: native}\n", 1, 5, 19,
                 "collectives.bcast[0].comm_size", "range minimum 9 is larger");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: [max, max], algorithm: native}\n", 1,
                 5, 30, "collectives.bcast[0].bytes", "only allowed as the upper bound");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: max, algorithm: native}\n", 1, 5,
                 29, "collectives.bcast[0].bytes", "only allowed as the upper bound");
    expect_error(HEAD "  bcast:\n    - {comm_size: [1, 2, 3], algorithm: native}\n", 1, 5, 19,
                 "collectives.bcast[0].comm_size", "two values, got 3 values");
    expect_error("acct_rules: 1\nprovenance: {partition: eth, interconnect: x, version: "
                 "9223372036854775808, source: manual, created: \"2026-11-22T12:00:00Z\"}\n"
                 "collectives: {}\n",
                 1, 2, 56, "provenance.version", "too large");
    expect_error(HEAD "  bcast:\n    - {comm_size: 0x10, algorithm: native}\n", 1, 5, 19,
                 "collectives.bcast[0].comm_size", "expected a communicator size");
}

static void test_types(void **state)
{
    (void)state;
    expect_error(HEAD "  bcast:\n    - {comm_size: \"8\", algorithm: native}\n", 1, 5, 19,
                 "collectives.bcast[0].comm_size", "got the quoted string \"8\"");
    expect_error(HEAD "  bcast:\n    - {comm_size: 8, algorithm: [a, b]}\n", 1, 5, 33,
                 "collectives.bcast[0].algorithm", "expected an algorithm name, got a list");
    expect_error(HEAD "  bcast:\n    - {comm_size: {a: 1}, algorithm: native}\n", 1, 5, 19,
                 "collectives.bcast[0].comm_size", "got a mapping");
    expect_error(HEAD "  bcast: {comm_size: 2}\n", 1, 4, 10, "collectives.bcast",
                 "expected a list of rules");
    expect_error(HEAD "  bcast:\n", 1, 4, 9, "collectives.bcast", "got nothing");
    expect_error(HEAD "  bcast:\n    - 5\n", 0, 5, 7, "collectives.bcast[0]",
                 "expected a mapping with keys comm_size, bytes, ranks_per_node, layout, "
                 "algorithm");
    expect_error("acct_rules: 1\nprovenance: 5\ncollectives: {}\n", 1, 2, 13, "provenance",
                 "expected a mapping");
    expect_error(HEAD "  [a]: 1\n", 1, 4, 3, "collectives", "expected a key");
}

static void test_provenance(void **state)
{
    (void)state;
    const char *pre = "acct_rules: 1\ncollectives: {}\nprovenance:\n";
    char src[1024];

    snprintf(src, sizeof(src), "%s  partition: eth\n  interconnect: tcp\n  version: 1\n"
             "  source: manual\n", pre);
    expect_error(src, 1, 4, 3, "provenance.created", "required key \"created\" is missing");
    snprintf(src, sizeof(src), "%s  partition: eth\n  interconnect: tcp\n  version: 1\n"
             "  source: guessed\n  created: \"2026-11-22T12:00:00Z\"\n", pre);
    expect_error(src, 1, 7, 11, "provenance.source",
                 "unknown source \"guessed\" (valid: measured, model, refined, manual)");
    snprintf(src, sizeof(src), "%s  partition: eth\n  interconnect: tcp\n  version: 1\n"
             "  source: manual\n  created: \"2026-02-29T12:00:00Z\"\n", pre);
    expect_error(src, 1, 8, 12, "provenance.created", "YYYY-MM-DDTHH:MM:SSZ");
    snprintf(src, sizeof(src), "%s  partition: eth\n  interconnect: tcp\n  version: 1\n"
             "  source: manual\n  created: \"2026-11-22 12:00:00\"\n", pre);
    expect_error(src, 1, 8, 12, "provenance.created", "ISO 8601");
    snprintf(src, sizeof(src), "%s  partition: \"eth 0\"\n  interconnect: tcp\n  version: 1\n"
             "  source: manual\n  created: \"2024-02-29T23:59:59Z\"\n", pre);
    expect_error(src, 1, 4, 14, "provenance.partition", "may only contain letters");
    snprintf(src, sizeof(src), "%s  partition: eth\n  interconnect: \"..\"\n  version: 1\n"
             "  source: manual\n  created: \"2024-02-29T23:59:59Z\"\n", pre);
    expect_error(src, 1, 5, 17, "provenance.interconnect", "\"..\" is not a name");
    snprintf(src, sizeof(src), "%s  partition: eth\n  interconnect: tcp\n  version: 1\n"
             "  source: manual\n  created: \"2024-02-29T23:59:59Z\"\n"
             "  layout: {ranks_per_node: 0, placement: diagonal, nodes: 3}\n", pre);
    expect_error(src, 3, 9, 28, "provenance.layout.ranks_per_node", "too small");
    expect_error(src, 3, 9, 42, "provenance.layout.placement",
                 "unknown placement \"diagonal\" (valid: block, cyclic, mixed)");
    expect_error(src, 3, 9, 52, "provenance.layout.nodes", "unknown key");
    /* a leap day and a range of ranks per node are fine */
    snprintf(src, sizeof(src), "%s  partition: eth\n  interconnect: tcp\n  version: 1\n"
             "  source: refined\n  created: \"2024-02-29T23:59:59Z\"\n"
             "  layout: {ranks_per_node: [1, 4], placement: mixed}\n", pre);
    struct acct_rules *r = parse_ok(src);
    assert_int_equal(r->prov.ranks_per_node_min, 1);
    assert_int_equal(r->prov.ranks_per_node_max, 4);
    assert_int_equal(r->prov.placement, ACCT_PLACEMENT_MIXED);
    assert_int_equal(r->prov.source, ACCT_SOURCE_REFINED);
    acct_rules_free(r);
}

static void test_yaml_features(void **state)
{
    (void)state;
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, bytes: [0, 8K], algorithm: binomial\n"
                      "  reduce: []\n",
                 1, 6, 0, "", "YAML syntax error");
    expect_error(HEAD "  bcast:\n    - &r {comm_size: 2, algorithm: native}\n"
                      "  reduce:\n    - *r\n",
                 0, 5, 7, "", "anchors");
    expect_error(HEAD "  bcast:\n    - &r {comm_size: 2, algorithm: native}\n"
                      "  reduce:\n    - *r\n",
                 0, 7, 7, "", "aliases");
    expect_error(HEAD "  bcast:\n    - {comm_size: !!int 2, algorithm: native}\n", 0, 5, 19, "",
                 "tags");
    expect_error(HEAD "  bcast: []\n---\nacct_rules: 1\n", 1, 5, 1, "", "one YAML document");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: \"bino\\tmial\"}\n", 0, 5, 33,
                 "", "control character");
    /* nesting far beyond the schema is refused, not recursed into */
    char deep[512];
    memset(deep, '[', 300);
    memcpy(deep + 300, "\n", 2);
    expect_error(deep, 1, 1, 13, "", "nested deeper");
}

static void test_limits(void **state)
{
    (void)state;
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    size_t cap = 64 + (ACCT_RULES_MAX_RULES + 2) * 64, o;
    char *big = malloc(ACCT_RULES_MAX_FILE_BYTES + 2);
    assert_non_null(big);

    /* one rule too many */
    o = (size_t)snprintf(big, cap, HEAD "  bcast:\n");
    for (int i = 0; i <= ACCT_RULES_MAX_RULES; i++)
        o += (size_t)snprintf(big + o, cap - o, "    - {comm_size: %d, algorithm: native}\n",
                              i + 1);
    assert_int_equal(parse(big, &r, &d), ACCT_RULES_EINVAL);
    assert_int_equal(d.total, 1);
    assert_true(has(&d, 5 + ACCT_RULES_MAX_RULES, 7, "collectives.bcast", "more than 10000 rules"));
    /* exactly the limit is fine */
    o -= strlen("    - {comm_size: 10001, algorithm: native}\n");
    big[o] = '\0';
    assert_int_equal(parse(big, &r, &d), ACCT_RULES_OK);
    assert_int_equal(r->nrules, ACCT_RULES_MAX_RULES);
    acct_rules_free(r);

    /* larger than 4 MiB */
    memset(big, '#', ACCT_RULES_MAX_FILE_BYTES + 1);
    big[ACCT_RULES_MAX_FILE_BYTES] = '\n';
    assert_int_equal(acct_rules_parse_buffer("big", big, ACCT_RULES_MAX_FILE_BYTES + 1, &r, &d),
                     ACCT_RULES_EINVAL);
    assert_true(has(&d, 0, 0, "", "larger than the limit"));

    /* more problems than are kept */
    o = (size_t)snprintf(big, cap, HEAD "  bcast:\n");
    for (int i = 0; i < 150; i++)
        o += (size_t)snprintf(big + o, cap - o, "    - {comm_size: %d, algorithm: nope}\n", i + 1);
    assert_int_equal(parse(big, &r, &d), ACCT_RULES_EINVAL);
    assert_int_equal(d.n, ACCT_DIAG_MAX);
    assert_int_equal(d.total, 150);
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    assert_non_null(f);
    acct_diags_print(&d, f);
    fclose(f);
    assert_non_null(strstr(text, "t.yaml:5:33: collectives.bcast[0].algorithm: unknown bcast "
                                 "algorithm \"nope\""));
    assert_non_null(strstr(text, "t.yaml: 50 more errors not shown\n"));
    free(text);
    acct_diags_free(&d);
    free(big);
}

static void test_files(void **state)
{
    (void)state;
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_rules *r = (struct acct_rules *)1;
    char line[1024];

    assert_int_equal(acct_rules_parse_file("/nonexistent/rules.yaml", &r, &d), ACCT_RULES_EIO);
    assert_null(r);
    assert_int_equal(acct_diag_format(&d, 0, line, sizeof(line)), 0);
    assert_int_equal(acct_diag_format(&d, 1, line, sizeof(line)), -1);
    assert_string_equal(line, "/nonexistent/rules.yaml: cannot open: No such file or directory");
    assert_int_equal(acct_rules_parse_file(ACCT_RULES_TESTDATA, &r, &d), ACCT_RULES_EIO);
    assert_true(has(&d, 0, 0, "", "not a regular file"));

    /* the fixture with several problems: every one, in line order */
    snprintf(line, sizeof(line), "%s/invalid-several.yaml", ACCT_RULES_TESTDATA);
    assert_int_equal(acct_rules_parse_file(line, &r, &d), ACCT_RULES_EINVAL);
    assert_int_equal(d.total, 9);
    assert_true(has(&d, 3, 3, "provenance.partiton", "did you mean \"partition\"?"));
    assert_true(has(&d, 3, 3, "provenance.partition", "missing"));
    assert_true(has(&d, 5, 12, "provenance.version", "too small"));
    assert_true(has(&d, 12, 18, "collectives.bcast[0].algorithm", "\"binomal\""));
    assert_true(has(&d, 16, 16, "collectives.bcast[1].segment", "linear"));
    assert_true(has(&d, 17, 7, "collectives.bcast[2]", "at line 10"));
    assert_true(has(&d, 20, 15, "collectives.bcast[2].fanout", "99"));
    assert_true(has(&d, 21, 7, "collectives.bcast[3]", "at line 13"));
    assert_true(has(&d, 24, 3, "collectives.bcats", "unknown collective"));
    for (size_t i = 1; i < d.n; i++)
        assert_true(d.v[i - 1].line <= d.v[i].line);
    acct_diags_free(&d);
}

/* gatherv, scatterv, alltoallv are decided from the communicator size
 * alone: a rule that splits them on bytes is refused, naming the field;
 * allgatherv and reduce_scatter (bytes known alike) may split. */
static void test_vector_bytes(void **state)
{
    (void)state;
    expect_error(HEAD "  gatherv:\n    - {comm_size: [2, 8], bytes: [0, 64K], algorithm: linear}\n",
                 1, 5, 0, "collectives.gatherv[0].bytes",
                 "gatherv is decided from the communicator size alone");
    expect_error(HEAD "  alltoallv:\n    - {comm_size: 4, bytes: [1, max], algorithm: pairwise}\n",
                 1, 5, 0, "collectives.alltoallv[0].bytes", "must cover bytes [0, max]");
    expect_error(HEAD "  scatterv:\n    - {comm_size: 4, bytes: 0, algorithm: linear}\n", 1, 5,
                 0, "collectives.scatterv[0].bytes", "leave bytes out");
    struct acct_rules *r = parse_ok(HEAD "  scatterv:\n    - {comm_size: [2, max], algorithm: linear}\n"
                                    "  gatherv:\n    - {comm_size: [2, 8], bytes: [0, max], algorithm: linear}\n"
                                    "  allgatherv:\n    - {comm_size: 4, bytes: [0, 1K], algorithm: ring}\n"
                                    "  reduce_scatter:\n    - {comm_size: 4, bytes: [1K, max], algorithm: ring}\n");
    assert_int_equal(r->nrules, 4);
    acct_rules_free(r);
}

/* ---- hash ------------------------------------------------------------------ */

static void test_hash(void **state)
{
    (void)state;
    /* FNV-1a reference values */
    assert_true(acct_rules_hash("", 0) == 0xcbf29ce484222325ull);
    assert_true(acct_rules_hash("a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(acct_rules_hash("foobar", 6) == 0x85944171f73967e8ull);

    const char *src = HEAD "  bcast:\n    - {comm_size: 2, algorithm: binomial}\n";
    struct acct_rules *r = parse_ok(src);
    assert_true(r->hash == acct_rules_hash(src, strlen(src)));
    acct_rules_free(r);
}

/* ---- runner_up and options (exploration) ----------------------------------- */

/* HEAD with an options mapping on line 3: "collectives:" on line 4, rules
 * from line 5 ("  bcast:") and 6. */
#define HEAD_OPT(opts)                                                              \
    "acct_rules: 1\n"                                                               \
    "provenance: {partition: eth, interconnect: tcp-1g, version: 1, source: manual, " \
    "created: \"2026-11-22T12:00:00Z\"}\n"                                          \
    "options: " opts "\n"                                                           \
    "collectives:\n"

static void test_runner_up_and_options(void **state)
{
    (void)state;
    const char *src = HEAD_OPT("{explore: 0.01, explore_seed: 42, auto_reorder: true}")
        "  bcast:\n"
        "    - {comm_size: [2, 8], bytes: [0, 64K], algorithm: linear,"
        " runner_up: {algorithm: knomial, segment: 8K, fanout: 4}}\n"
        "    - {comm_size: [2, 8], bytes: [64K+1, max], algorithm: chain}\n";
    /* "64K+1" is not a size: use the number */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", src);
    char *plus = strstr(buf, "64K+1");
    memcpy(plus, "65537", 5);
    struct acct_rules *r = parse_ok(buf);
    assert_true(r->opts.explore == 0.01);
    assert_true(r->opts.explore_seed == 42);
    assert_true(r->opts.auto_reorder);
    const struct acct_rule *x = &r->coll[ACCT_COLL_bcast].v[0];
    assert_ptr_equal(x->d.alg, alg(ACCT_COLL_bcast, "linear"));
    assert_ptr_equal(x->runner_up.alg, alg(ACCT_COLL_bcast, "knomial"));
    assert_int_equal(x->runner_up.segment_bytes, 8192);
    assert_int_equal(x->runner_up.fanout, 4);
    assert_null(r->coll[ACCT_COLL_bcast].v[1].runner_up.alg);

    /* the canonical writer round-trips both */
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    assert_non_null(strstr(out, "runner_up: {algorithm: knomial, segment: 8K, fanout: 4}"));
    assert_non_null(strstr(out, "options:\n  explore: 0.01\n  explore_seed: 42\n"
                                "  auto_reorder: true\n"));
    struct acct_rules *r2 = parse_ok(out);
    assert_true(acct_rules_equal(r, r2));
    r2->opts.explore_seed = 43;
    assert_false(acct_rules_equal(r, r2));
    r2->opts.explore_seed = 42;
    r2->coll[ACCT_COLL_bcast].v[0].runner_up.fanout = 8;
    assert_false(acct_rules_equal(r, r2));
    acct_rules_free(r2);
    free(out);

    /* the table carries the runner-up; entries differing only in it are not
     * merged */
    struct acct_table *t = NULL;
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_bcast, 4, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 2);
    size_t i = acct_table_index(t, 100);
    assert_ptr_equal(t->dec[i].alg, alg(ACCT_COLL_bcast, "linear"));
    assert_ptr_equal(t->ru[i].alg, alg(ACCT_COLL_bcast, "knomial"));
    assert_null(t->ru[acct_table_index(t, 1 << 20)].alg);
    acct_table_free(t);
    acct_rules_free(r);

    /* defaults: no options, no runner-up; nothing written */
    r = parse_ok(HEAD_OPT("{}") "  bcast:\n    - {comm_size: 2, algorithm: linear}\n");
    assert_true(r->opts.explore == 0 && r->opts.explore_seed == 0 && !r->opts.auto_reorder);
    f = open_memstream(&out, &outlen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    assert_null(strstr(out, "options"));
    free(out);
    acct_rules_free(r);
}

static void test_runner_up_and_options_errors(void **state)
{
    (void)state;
    expect_error(HEAD_OPT("{explore: 0.2}") "  bcast: []\n", 1, 3, 20, "options.explore",
                 "0.2 is too large: exploration runs at most a fraction of 0.05");
    expect_error(HEAD_OPT("{explore: -0.01}") "  bcast: []\n", 1, 3, 20, "options.explore",
                 "too small");
    expect_error(HEAD_OPT("{explore: often}") "  bcast: []\n", 1, 3, 20, "options.explore",
                 "expected a number");
    expect_error(HEAD_OPT("{explore_seed: -1}") "  bcast: []\n", 1, 3, 25,
                 "options.explore_seed", "");
    expect_error(HEAD_OPT("{auto_reorder: 1}") "  bcast: []\n", 1, 3, 25,
                 "options.auto_reorder", "");
    expect_error(HEAD_OPT("{exploer: 0.01}") "  bcast: []\n", 1, 3, 11, "options.exploer",
                 "unknown option \"exploer\" (did you mean \"explore\"?)");
    expect_error(HEAD_OPT("[1]") "  bcast: []\n", 1, 3, 10, "options", "expected a mapping");
    /* runner_up: same checks as the decision, with its own field path */
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, runner_up: "
                 "{algorithm: binomal}}\n", 1, 5, 64, "collectives.bcast[0].runner_up.algorithm",
                 "unknown bcast algorithm \"binomal\"");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, runner_up: "
                 "{algorithm: linear, segment: 8K}}\n", 1, 5, 0,
                 "collectives.bcast[0].runner_up.segment", "does not take a segment size");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, runner_up: "
                 "{algorithm: knomial, fanout: 99}}\n", 1, 5, 0,
                 "collectives.bcast[0].runner_up.fanout", "out of range");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, runner_up: "
                 "{segment: 8K}}\n", 0, 5, 0, "collectives.bcast[0].runner_up.algorithm",
                 "required key \"algorithm\" is missing");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, runner_up: "
                 "{algorithm: chain, comm_size: 2}}\n", 1, 5, 0,
                 "collectives.bcast[0].runner_up.comm_size", "unknown key");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, runner_up: "
                 "{algorithm: linear}}\n", 1, 5, 0, "collectives.bcast[0].runner_up",
                 "the runner-up is the rule's own decision");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, runner_up: chain}\n",
                 1, 5, 0, "collectives.bcast[0].runner_up", "expected a mapping");
}

/* ---- evidence and provenance.model (docs/rules.md, "Evidence") ------------ */

/* HEAD with provenance.model on line 3 ("model" at column 3): rules from
 * line 5. */
#define HEAD_MODEL(model)                                                           \
    "acct_rules: 1\n"                                                               \
    "provenance: {partition: eth, interconnect: tcp-1g, version: 1, source: measured, " \
    "created: \"2026-11-22T12:00:00Z\",\n"                                          \
    "  model: " model "}\n"                                                         \
    "collectives:\n"

static void roundtrip(struct acct_rules *r); /* below */

static void test_evidence(void **state)
{
    (void)state;
    struct acct_rules *r = parse_ok(
        HEAD_MODEL("{tuning_run: r-1, L: 40.5, o: 3, g: 4.25, G: 0.0085, margin: 1.25}")
        "  bcast:\n"
        "    - {comm_size: [2, 8], algorithm: binomial}\n"
        "    - {comm_size: [9, 16], algorithm: binomial, evidence: measured}\n"
        "    - {comm_size: [17, max], algorithm: pipeline, segment: 8K, evidence: model,"
        " runner_up: {algorithm: binomial}}\n");
    const struct acct_rules_model *m = &r->prov.model;
    assert_true(m->present);
    assert_string_equal(m->run, "r-1");
    assert_true(m->L_us == 40.5 && m->o_us == 3 && m->g_us == 4.25 &&
                m->G_us_per_byte == 0.0085 && m->margin == 1.25);
    assert_int_equal(r->coll[ACCT_COLL_bcast].v[0].evidence, ACCT_EVIDENCE_MEASURED);
    assert_int_equal(r->coll[ACCT_COLL_bcast].v[1].evidence, ACCT_EVIDENCE_MEASURED);
    assert_int_equal(r->coll[ACCT_COLL_bcast].v[2].evidence, ACCT_EVIDENCE_MODEL);
    assert_string_equal(acct_evidence_name(ACCT_EVIDENCE_MODEL), "model");
    assert_string_equal(acct_evidence_name(ACCT_EVIDENCE_NONE), "none");

    /* canonical: measured (the default) left out, model before runner_up;
     * the model's numbers read back equal */
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    assert_non_null(strstr(out, "  model: {tuning_run: \"r-1\", L: 40.5, o: 3, g: 4.25, "
                                "G: 0.0085, margin: 1.25}\n"));
    assert_non_null(strstr(out, "algorithm: pipeline, segment: 8K, evidence: model, "
                                "runner_up: {algorithm: binomial}}"));
    assert_null(strstr(out, "evidence: measured"));
    assert_non_null(strstr(out, "acct_rules: 1\n")); /* no new schema version */
    struct acct_rules *r2 = parse_ok(out);
    assert_true(acct_rules_equal(r, r2));
    r2->coll[ACCT_COLL_bcast].v[2].evidence = ACCT_EVIDENCE_MEASURED;
    assert_false(acct_rules_equal(r, r2));
    r2->coll[ACCT_COLL_bcast].v[2].evidence = ACCT_EVIDENCE_MODEL;
    r2->prov.model.margin = 1.5;
    assert_false(acct_rules_equal(r, r2));
    r2->prov.model.margin = 1.25;
    r2->prov.model.G_us_per_byte = 0.0086;
    assert_false(acct_rules_equal(r, r2));
    acct_rules_free(r2);
    free(out);

    /* a copy keeps both */
    r2 = acct_rules_copy(r);
    assert_non_null(r2);
    assert_true(acct_rules_equal(r, r2));
    acct_rules_free(r2);
    acct_rules_free(r);

    /* the seed file (also the fuzzer's corpus) */
    r = parse_file_ok("valid-model.yaml");
    assert_true(r->prov.model.present && r->prov.model.margin == 1.25);
    assert_int_equal(r->coll[ACCT_COLL_bcast].v[3].evidence, ACCT_EVIDENCE_MODEL);
    roundtrip(r);
    acct_rules_free(r);

    /* without the model: measured rules only, nothing written */
    r = parse_ok(HEAD "  bcast:\n    - {comm_size: 2, algorithm: linear, evidence: measured}\n");
    assert_false(r->prov.model.present);
    f = open_memstream(&out, &outlen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    assert_null(strstr(out, "model"));
    assert_null(strstr(out, "evidence"));
    free(out);
    acct_rules_free(r);
}

/* evidence: none (no measurement, no trusted model: native; below the
 * smallest measured size, docs/rules.md "Evidence") needs no
 * provenance.model and reads back as written */
static void test_evidence_none(void **state)
{
    (void)state;
    struct acct_rules *r = parse_ok(HEAD "  bcast:\n"
                                         "    - {comm_size: [1, 7], algorithm: native, evidence: none}\n"
                                         "    - {comm_size: 8, algorithm: binomial}\n");
    assert_int_equal(r->coll[ACCT_COLL_bcast].v[0].evidence, ACCT_EVIDENCE_NONE);
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    assert_non_null(strstr(out, "{comm_size: [1, 7], bytes: [0, max], algorithm: native, "
                                "evidence: none}"));
    struct acct_rules *r2 = parse_ok(out);
    assert_true(acct_rules_equal(r, r2));
    struct acct_table *t = NULL;
    assert_int_equal(acct_rules_resolve(r2, ACCT_COLL_bcast, 4, &t), ACCT_RULES_OK);
    assert_true(acct_table_all_native(t));
    acct_table_free(t);
    acct_rules_free(r2);
    acct_rules_free(r);
    free(out);
}

static void test_evidence_errors(void **state)
{
    (void)state;
    const char *ok = "{L: 1, o: 1, g: 1, G: 0.01, margin: 1.25}";
    char buf[1024];
    /* a modelled rule must name its parameters */
    expect_error(HEAD "  bcast:\n    - {comm_size: [9, max], algorithm: linear, evidence: model}\n",
                 1, 5, 0, "collectives.bcast[0].evidence",
                 "a modelled rule needs provenance.model");
    snprintf(buf, sizeof buf, HEAD_MODEL("%s") "  bcast:\n"
             "    - {comm_size: 2, algorithm: linear, evidence: modeled}\n", ok);
    expect_error(buf, 1, 6, 0, "collectives.bcast[0].evidence",
                 "unknown evidence \"modeled\"");
    snprintf(buf, sizeof buf, HEAD_MODEL("%s") "  bcast:\n"
             "    - {comm_size: 2, algorithm: linear, evidence: true}\n", ok);
    expect_error(buf, 1, 6, 0, "collectives.bcast[0].evidence", "");
    /* no evidence: only the MPI library's collectives, no runner-up */
    expect_error(HEAD "  bcast:\n    - {comm_size: [1, 7], algorithm: linear, evidence: none}\n",
                 1, 5, 0, "collectives.bcast[0].evidence",
                 "a rule without evidence runs the MPI library's collectives: it needs "
                 "algorithm: native, not linear");
    expect_error(HEAD "  bcast:\n    - {comm_size: [1, 7], algorithm: native, evidence: none, "
                 "runner_up: {algorithm: linear}}\n",
                 1, 5, 0, "collectives.bcast[0].evidence",
                 "a rule without evidence has no runner-up");
    /* a layout-bound modelled rule was predicted on the two levels: without
     * them in provenance.model nobody can recompute it from the file */
    static const char v2[] =
        "acct_rules: 2\n"
        "provenance: {partition: eth, interconnect: tcp-1g, version: 1, source: measured, "
        "created: \"2026-11-22T12:00:00Z\",\n"
        "  model: {L: 50, o: 5, g: 6, G: 0.008, margin: 1.25%s}}\n"
        "collectives:\n  bcast:\n"
        "    - {comm_size: [9, 16], ranks_per_node: 4, algorithm: hier_binomial, "
        "evidence: model}\n"
        "    - {comm_size: [17, 32], algorithm: binomial, evidence: model}\n";
    snprintf(buf, sizeof buf, v2, "");
    expect_error(buf, 1, 6, 0, "collectives.bcast[0].evidence",
                 "a layout-bound modelled rule needs provenance.model.intra and "
                 "provenance.model.inter");
    snprintf(buf, sizeof buf, v2,
             ", intra: {L: 2, o: 1, g: 1, G: 0}, inter: {L: 50, o: 5, g: 6, G: 0.008}");
    acct_rules_free(parse_ok(buf));
    /* provenance.model: every field checked, with its path */
    expect_error(HEAD_MODEL("{L: 1, o: 1, g: 1, G: 0.01, margin: 0.9}") "  bcast: []\n", 1, 3, 0,
                 "provenance.model.margin", "too small");
    expect_error(HEAD_MODEL("{L: 1, o: 1, g: 1, G: 0.01, margin: 101}") "  bcast: []\n", 1, 3, 0,
                 "provenance.model.margin", "too large");
    expect_error(HEAD_MODEL("{L: -1, o: 1, g: 1, G: 0.01, margin: 2}") "  bcast: []\n", 1, 3, 0,
                 "provenance.model.L", "");
    expect_error(HEAD_MODEL("{L: 1, o: 1, g: 1, margin: 2}") "  bcast: []\n", 1, 3, 0,
                 "provenance.model.G", "required key \"G\" is missing");
    expect_error(HEAD_MODEL("{L: 1, o: 1, g: 1, G: x, margin: 2}") "  bcast: []\n", 1, 3, 0,
                 "provenance.model.G", "expected a number");
    expect_error(HEAD_MODEL("{L: 1, o: 1, g: 1, G: 1, margin: 2, gamma: 0}") "  bcast: []\n", 1,
                 3, 0, "provenance.model.gamma", "unknown key");
    expect_error(HEAD_MODEL("{tuning_run: \"a b\", L: 1, o: 1, g: 1, G: 1, margin: 2}")
                 "  bcast: []\n", 1, 3, 0, "provenance.model.tuning_run", "");
    expect_error(HEAD_MODEL("[1]") "  bcast: []\n", 1, 3, 0, "provenance.model",
                 "expected a mapping");
}

/* ---- lookup ---------------------------------------------------------------- */

static void check(const struct acct_table *t, uint64_t bytes, const struct acct_alg *a,
                  uint64_t seg, int fanout)
{
    const struct acct_decision *d = acct_table_lookup(t, bytes);
    if (d->alg != a || d->segment_bytes != seg || d->fanout != fanout)
        fprintf(stderr, "bytes %" PRIu64 ": got %s/%" PRIu64 "/%d, expected %s/%" PRIu64 "/%d\n",
                bytes, d->alg->name, d->segment_bytes, d->fanout, a->name, seg, fanout);
    assert_ptr_equal(d->alg, a);
    assert_int_equal(d->segment_bytes, seg);
    assert_int_equal(d->fanout, fanout);
}

static void test_lookup(void **state)
{
    (void)state;
    struct acct_rules *r = parse_file_ok("valid-full.yaml");
    struct acct_table *t = NULL;
    const struct acct_alg *native = acct_alg_native(ACCT_COLL_bcast);
    const struct acct_alg *binomial = alg(ACCT_COLL_bcast, "binomial");

    /* 4 ranks: [0, 8191] binomial, [8K, 1M] binomial/8K, [1M+1, max] pipeline/64K;
     * bounds are inclusive */
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_bcast, 4, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 3);
    check(t, 0, binomial, 0, 0);
    check(t, 8191, binomial, 0, 0);
    check(t, 8192, binomial, 8192, 0);
    check(t, 1048576, binomial, 8192, 0);
    check(t, 1048577, alg(ACCT_COLL_bcast, "pipeline"), 65536, 0);
    check(t, UINT64_MAX, alg(ACCT_COLL_bcast, "pipeline"), 65536, 0);
    assert_false(acct_table_all_native(t));
    acct_table_free(t);

    /* 16 ranks: knomial [0, 64K], gap, chain [128K, 256K], native above: gaps
     * are native */
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_bcast, 16, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 4);
    check(t, 0, alg(ACCT_COLL_bcast, "knomial"), 0, 8);
    assert_true(acct_table_lookup(t, 0)->reorder);
    check(t, 65536, alg(ACCT_COLL_bcast, "knomial"), 0, 8);
    check(t, 65537, native, 0, 0);
    assert_false(acct_table_lookup(t, 65537)->reorder);
    check(t, 131071, native, 0, 0);
    check(t, 131072, alg(ACCT_COLL_bcast, "chain"), 16384, 4);
    check(t, 262144, alg(ACCT_COLL_bcast, "chain"), 16384, 4);
    check(t, 262145, native, 0, 0);
    check(t, UINT64_MAX, native, 0, 0);
    acct_table_free(t);

    /* a communicator size outside every rule: native throughout */
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_bcast, 1, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 1);
    assert_true(acct_table_all_native(t));
    check(t, 12345, native, 0, 0);
    acct_table_free(t);
    /* barrier (bytes always 0) */
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_barrier, 64, &t), ACCT_RULES_OK);
    assert_true(acct_table_all_native(t));
    acct_table_free(t);
    /* no rules at all */
    assert_int_equal(acct_rules_resolve(NULL, ACCT_COLL_alltoall, 8, &t), ACCT_RULES_OK);
    assert_true(acct_table_all_native(t));
    check(t, 0, acct_alg_native(ACCT_COLL_alltoall), 0, 0);
    acct_table_free(t);
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_COUNT, 8, &t), ACCT_RULES_EINVAL);
    assert_null(t);
    acct_rules_free(r);
}

static void test_lookup_merge_and_pow2(void **state)
{
    (void)state;
    struct acct_table *t = NULL;
    const struct acct_alg *rd = alg(ACCT_COLL_bcast, "scatter_allgather_rd");
    assert_true(rd->flags & ACCT_ALG_POW2);
    struct acct_rules *r = parse_ok(HEAD "  bcast:\n"
                                         "    - {comm_size: [2, 64], bytes: [0, 99], algorithm: binomial}\n"
                                         "    - {comm_size: [2, 64], bytes: [100, 199], algorithm: binomial}\n"
                                         "    - {comm_size: [2, 64], bytes: [200, 299], algorithm: native}\n"
                                         "    - {comm_size: [2, 64], bytes: [400, 1M], algorithm: scatter_allgather_rd}\n");
    /* equal neighbours merge; the native rule merges with the gap after it */
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_bcast, 8, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 4);
    assert_int_equal(t->max[0], 199);
    assert_int_equal(t->max[1], 399);
    assert_int_equal(t->max[2], 1048576);
    check(t, 400, rd, 0, 0);
    acct_table_free(t);
    /* a power-of-two algorithm on 6 ranks takes its fallback chain */
    const struct acct_alg *ring = alg(ACCT_COLL_bcast, "scatter_allgather_ring");
    assert_ptr_equal(acct_alg_find(ACCT_COLL_bcast, rd->fallback), ring);
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_bcast, 6, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 4);
    check(t, 400, ring, 0, 0);
    check(t, 1048576, ring, 0, 0);
    check(t, 300, acct_alg_native(ACCT_COLL_bcast), 0, 0);
    acct_table_free(t);
    acct_rules_free(r);
    /* allgather recursive_doubling on 12 ranks: bruck, its fallback */
    r = parse_ok(HEAD "  allgather:\n"
                      "    - {comm_size: [2, 64], algorithm: recursive_doubling}\n");
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_allgather, 12, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 1);
    check(t, 0, alg(ACCT_COLL_allgather, "bruck"), 0, 0);
    acct_table_free(t);
    acct_rules_free(r);
}

static void test_lookup_large(void **state)
{
    (void)state;
    /* more entries than the linear-scan threshold: binary search */
    char *src = malloc(16384);
    size_t o = (size_t)snprintf(src, 16384, HEAD "  reduce:\n");
    const char *names[] = { "binomial", "binary", "pipeline" };
    for (int i = 0; i < 40; i++)
        o += (size_t)snprintf(src + o, 16384 - o,
                              "    - {comm_size: [4, 4], bytes: [%d, %d], algorithm: %s}\n",
                              i * 100, i * 100 + 49, names[i % 3]);
    struct acct_rules *r = parse_ok(src);
    struct acct_table *t = NULL;
    assert_int_equal(acct_rules_resolve(r, ACCT_COLL_reduce, 4, &t), ACCT_RULES_OK);
    assert_int_equal(t->n, 80); /* 40 rules, 39 gaps between them, native above */
    assert_true(t->n > ACCT_TABLE_LINEAR_MAX);
    for (uint64_t b = 0; b < 4200; b++) {
        uint64_t i = b / 100;
        bool in = b % 100 < 50 && i < 40;
        check(t, b, in ? alg(ACCT_COLL_reduce, names[i % 3]) : acct_alg_native(ACCT_COLL_reduce),
              0, 0);
    }
    acct_table_free(t);
    acct_rules_free(r);
    free(src);
}

/* ---- writer ---------------------------------------------------------------- */

static char *write_text(const struct acct_rules *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    return text;
}

static void roundtrip(struct acct_rules *r)
{
    char *text = write_text(r);
    struct acct_rules *again = parse_ok(text);
    assert_true(acct_rules_equal(r, again));
    /* canonical: writing again gives the same bytes */
    char *text2 = write_text(again);
    assert_string_equal(text, text2);
    free(text);
    free(text2);
    acct_rules_free(again);
}

static void test_roundtrip(void **state)
{
    (void)state;
    struct acct_rules *r = parse_file_ok("valid-full.yaml");
    roundtrip(r);
    char *text = write_text(r);
    assert_non_null(strstr(text, "    - {comm_size: [9, max], bytes: [0, 64K], algorithm: knomial, "
                                 "fanout: 8, reorder: true}\n"));
    assert_non_null(strstr(text, "    - {comm_size: [2, 8], bytes: [1048577, max], algorithm: "
                                 "pipeline, segment: 64K}\n"));
    assert_non_null(strstr(text, "  layout: {ranks_per_node: 2, placement: block}\n"));
    free(text);
    acct_rules_free(r);
    r = parse_file_ok("valid-minimal.yaml");
    roundtrip(r);
    text = write_text(r);
    assert_non_null(strstr(text, "collectives: {}\n"));
    free(text);
    /* a change is noticed */
    struct acct_rules *full = parse_file_ok("valid-full.yaml");
    assert_false(acct_rules_equal(r, full));
    acct_rules_free(full);
    acct_rules_free(r);
}

static void test_roundtrip_random(void **state)
{
    (void)state;
    /* random non-overlapping rules of every collective */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 20; round++) {
        char *src = malloc(65536);
        size_t o = (size_t)snprintf(src, 65536, "%s",
                                    round % 2 ? HEAD_MODEL("{L: 12.5, o: 0.1, g: 3, G: 1e-3, "
                                                           "margin: 1.25}")
                                              : HEAD);
        for (int c = 0; c < ACCT_COLL_COUNT; c++) {
            const struct acct_alg *as[32];
            int na = 0;
            for (const struct acct_alg *a = acct_algs; a->name != NULL && na < 32; a++)
                if (a->coll == (enum acct_coll_id)c)
                    as[na++] = a;
            o += (size_t)snprintf(src + o, 65536 - o, "  %s:\n",
                                  acct_coll_name((enum acct_coll_id)c));
            uint64_t lo = 0;
            for (int i = 0; i < 6; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                const struct acct_alg *a = as[x % (uint64_t)na];
                uint64_t hi = lo + (x >> 20) % 100000;
                if (!acct_coll_bytes_alike((enum acct_coll_id)c)) /* by size alone */
                    o += (size_t)snprintf(src + o, 65536 - o,
                                          "    - {comm_size: [%d, %d], bytes: [0, max], "
                                          "algorithm: %s", 1 + 100 * i, 99 + 100 * i, a->name);
                else
                o += (size_t)snprintf(src + o, 65536 - o,
                                      "    - {comm_size: [%d, %d], bytes: [%" PRIu64 ", %s%" PRIu64
                                      "], algorithm: %s",
                                      1 + (int)(x % 7), 8 + (int)(x % 100), lo, "", hi, a->name);
                if (a->flags & ACCT_ALG_SEGMENTED)
                    o += (size_t)snprintf(src + o, 65536 - o, ", segment: %" PRIu64,
                                          (x >> 8) % 70000);
                if (a->flags & ACCT_ALG_FANOUT)
                    o += (size_t)snprintf(src + o, 65536 - o, ", fanout: %d",
                                          a->fanout_min + (int)((x >> 3) % 2));
                if (acct_alg_reorderable(a, NULL, NULL) && (x & 1))
                    o += (size_t)snprintf(src + o, 65536 - o, ", reorder: true");
                /* a runner-up on some rules (another algorithm) */
                const struct acct_alg *b = as[(x >> 11) % (uint64_t)na];
                if (b != a && (x & 2)) {
                    o += (size_t)snprintf(src + o, 65536 - o, ", runner_up: {algorithm: %s",
                                          b->name);
                    if (b->flags & ACCT_ALG_SEGMENTED)
                        o += (size_t)snprintf(src + o, 65536 - o, ", segment: %" PRIu64,
                                              (x >> 9) % 70000);
                    if (b->flags & ACCT_ALG_FANOUT)
                        o += (size_t)snprintf(src + o, 65536 - o, ", fanout: %d",
                                              b->fanout_min + (int)((x >> 4) % 2));
                    o += (size_t)snprintf(src + o, 65536 - o, "}");
                }
                if (round % 2 && (x & 4))
                    o += (size_t)snprintf(src + o, 65536 - o, ", evidence: model");
                else if ((a->flags & ACCT_ALG_NATIVE) && !(b != a && (x & 2)) && (x & 8))
                    o += (size_t)snprintf(src + o, 65536 - o, ", evidence: none");
                o += (size_t)snprintf(src + o, 65536 - o, "}\n");
                lo = hi + 1;
            }
        }
        struct acct_rules *r = parse_ok(src);
        roundtrip(r);
        acct_rules_free(r);
        free(src);
    }
}

/* ---- shared helpers ------------------------------------------------------ */

static void test_decision_format(void **state)
{
    (void)state;
    char buf[128];
    struct acct_decision d = { .alg = alg(ACCT_COLL_bcast, "binomial") };
    acct_decision_format(&d, buf, sizeof(buf));
    assert_string_equal(buf, "binomial");
    d.segment_bytes = 8192;
    acct_decision_format(&d, buf, sizeof(buf));
    assert_string_equal(buf, "binomial:8K");
    d = (struct acct_decision){ .alg = alg(ACCT_COLL_bcast, "knomial"), .fanout = 4 };
    acct_decision_format(&d, buf, sizeof(buf));
    assert_string_equal(buf, "knomial::4");
    d.segment_bytes = 1000;
    d.reorder = true;
    acct_decision_format(&d, buf, sizeof(buf));
    assert_string_equal(buf, "knomial:1000:4:reorder");
}

/* ---- the layout dimension (schema 2) ------------------------------------ */

#define HEAD2                                                                       \
    "acct_rules: 2\n"                                                               \
    "provenance: {partition: eth, interconnect: tcp-1g, version: 1, source: manual, " \
    "created: \"2026-11-22T12:00:00Z\"}\n"                                          \
    "collectives:\n"

static const struct acct_decision *at(const struct acct_rules *r, enum acct_coll_id c, int p,
                                      const struct acct_rules_where *w, uint64_t b)
{
    struct acct_table *t = NULL;
    static struct acct_decision d;
    assert_int_equal(acct_rules_resolve_at(r, c, p, w, &t), ACCT_RULES_OK);
    d = *acct_table_lookup(t, b);
    acct_table_free(t);
    return &d;
}

static void test_layout_rules(void **state)
{
    (void)state;
    const struct acct_rules_where one = { 1, true }, two = { 2, true }, eight = { 8, true },
                                  odd = { 5, false }, many = { 64, true };
    struct acct_rules *r = parse_ok(
        HEAD2 "  bcast:\n"
              "    - {comm_size: [2, max], bytes: [0, 64K], algorithm: binomial}\n"
              "    - {comm_size: [2, max], bytes: [65537, max], ranks_per_node: 1, algorithm: pipeline,"
              " segment: 64K}\n"
              "    - {comm_size: [2, max], bytes: [65537, max], ranks_per_node: [2, 16], "
              "layout: regular, algorithm: hier_chain, segment: 64K}\n"
              "    - {comm_size: [2, max], bytes: [65537, max], ranks_per_node: [2, max], "
              "layout: irregular, algorithm: hier_binomial}\n");
    const struct acct_alg *native = acct_alg_native(ACCT_COLL_bcast);
    assert_true(acct_rules_layout_bound(r, ACCT_COLL_bcast, 8));
    assert_false(acct_rules_layout_bound(r, ACCT_COLL_bcast, 1));
    assert_false(acct_rules_layout_bound(r, ACCT_COLL_reduce, 8));
    assert_int_equal(acct_rules_version(r), 2);
    /* rules that do not restrict the layout apply whatever it is */
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 8, NULL, 100)->alg, alg(ACCT_COLL_bcast, "binomial"));
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 8, &two, 100)->alg, alg(ACCT_COLL_bcast, "binomial"));
    /* layout-bound rules never apply to an unknown layout: native */
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 8, NULL, 1 << 20)->alg, native);
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 8, &one, 1 << 20)->alg, alg(ACCT_COLL_bcast, "pipeline"));
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 8, &two, 1 << 20)->alg,
                     alg(ACCT_COLL_bcast, "hier_chain"));
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 32, &eight, 1 << 20)->alg,
                     alg(ACCT_COLL_bcast, "hier_chain"));
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 13, &odd, 1 << 20)->alg,
                     alg(ACCT_COLL_bcast, "hier_binomial"));
    /* 64 ranks per node, regular: no rule */
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 128, &many, 1 << 20)->alg, native);

    /* the writer keeps the keys and writes version 2; reading it back gives
     * the same rules */
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    assert_non_null(strstr(out, "acct_rules: 2\n"));
    assert_non_null(strstr(out, "ranks_per_node: [2, 16], layout: regular, algorithm: hier_chain"));
    assert_non_null(strstr(out, "ranks_per_node: [2, max], layout: irregular"));
    struct acct_rules *back = parse_ok(out);
    assert_true(acct_rules_equal(r, back));
    acct_rules_free(back);
    free(out);
    acct_rules_free(r);

    /* a version 2 file without the layout keys is written as version 1 */
    r = parse_ok(HEAD2 "  bcast:\n    - {comm_size: 2, algorithm: linear}\n");
    assert_int_equal(acct_rules_version(r), 1);
    f = open_memstream(&out, &outlen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    assert_non_null(strstr(out, "acct_rules: 1\n"));
    free(out);
    acct_rules_free(r);

    /* layout alone, without ranks_per_node */
    r = parse_ok(HEAD2 "  reduce:\n    - {comm_size: [2, max], layout: regular, algorithm: hier_chain}\n");
    assert_ptr_equal(at(r, ACCT_COLL_reduce, 8, &two, 1)->alg, alg(ACCT_COLL_reduce, "hier_chain"));
    assert_ptr_equal(at(r, ACCT_COLL_reduce, 8, &odd, 1)->alg, acct_alg_native(ACCT_COLL_reduce));
    assert_ptr_equal(at(r, ACCT_COLL_reduce, 8, NULL, 1)->alg, acct_alg_native(ACCT_COLL_reduce));
    acct_rules_free(r);
}

/* The example file: parsed, written canonically (version 2) and read back
 * equal; the writer's bytes are stable. */
static void test_layout_file(void **state)
{
    (void)state;
    struct acct_rules *r = parse_file_ok("valid-layout.yaml");
    assert_int_equal(acct_rules_version(r), 2);
    assert_int_equal(r->coll[ACCT_COLL_bcast].n, 5);
    /* canonical order: comm_size, bytes, then ranks_per_node and layout */
    const struct acct_rule *x = &r->coll[ACCT_COLL_bcast].v[4];
    assert_int_equal(r->coll[ACCT_COLL_bcast].v[2].layout, ACCT_LAYOUT_REGULAR);
    assert_int_equal(r->coll[ACCT_COLL_bcast].v[3].layout, ACCT_LAYOUT_IRREGULAR);
    assert_int_equal(x->rpn_min, 17);
    assert_int_equal(x->rpn_max, INT_MAX);
    assert_int_equal(x->layout, ACCT_LAYOUT_REGULAR);
    const struct acct_rules_where w32 = { 32, true };
    assert_ptr_equal(at(r, ACCT_COLL_bcast, 128, &w32, 1 << 20)->alg,
                     alg(ACCT_COLL_bcast, "hier_knomial"));
    char *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    FILE *f = open_memstream(&a, &alen);
    assert_int_equal(acct_rules_write(f, r), 0);
    fclose(f);
    struct acct_rules *back = parse_ok(a);
    assert_true(acct_rules_equal(r, back));
    f = open_memstream(&b, &blen);
    assert_int_equal(acct_rules_write(f, back), 0);
    fclose(f);
    assert_string_equal(a, b);
    free(a);
    free(b);
    acct_rules_free(back);
    acct_rules_free(r);
}

static void test_layout_rules_errors(void **state)
{
    (void)state;
    /* version 1 files cannot use the keys: one problem per key, with its position */
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, ranks_per_node: 2, algorithm: linear}\n", 1, 5,
                 22, "collectives.bcast[0].ranks_per_node", "needs \"acct_rules: 2\" (this file says 1");
    expect_error(HEAD "  bcast:\n    - {comm_size: 2, layout: regular, algorithm: linear}\n", 1, 5,
                 22, "collectives.bcast[0].layout", "needs \"acct_rules: 2\"");
    /* values */
    expect_error(HEAD2 "  bcast:\n    - {comm_size: 2, ranks_per_node: 0, algorithm: linear}\n", 1,
                 5, 38, "collectives.bcast[0].ranks_per_node", "too small");
    expect_error(HEAD2 "  bcast:\n    - {comm_size: 2, ranks_per_node: [4, 2], algorithm: linear}\n",
                 1, 5, 38, "collectives.bcast[0].ranks_per_node", "range minimum 4 is larger");
    expect_error(HEAD2 "  bcast:\n    - {comm_size: 2, layout: regualr, algorithm: linear}\n", 1,
                 5, 30, "collectives.bcast[0].layout", "regular");
    /* overlaps in three dimensions: disjoint ranks per node or kinds do not
     * overlap, an unrestricted rule overlaps every layout-bound one */
    struct acct_rules *r = parse_ok(HEAD2 "  bcast:\n"
                                          "    - {comm_size: 8, ranks_per_node: [1, 2], algorithm: linear}\n"
                                          "    - {comm_size: 8, ranks_per_node: [3, 4], algorithm: chain}\n"
                                          "    - {comm_size: 8, ranks_per_node: [5, max], layout: regular, algorithm: chain}\n"
                                          "    - {comm_size: 8, ranks_per_node: [5, max], layout: irregular, algorithm: binomial}\n");
    acct_rules_free(r);
    expect_error(HEAD2 "  bcast:\n"
                       "    - {comm_size: 8, ranks_per_node: [1, 4], algorithm: linear}\n"
                       "    - {comm_size: [4, 8], ranks_per_node: [4, 6], layout: regular, algorithm: chain}\n",
                 1, 6, 7, "collectives.bcast[1]",
                 "overlaps collectives.bcast[0] at line 5 (both contain comm_size 8, bytes 0, "
                 "ranks_per_node 4, layout regular)");
    expect_error(HEAD2 "  bcast:\n"
                       "    - {comm_size: 8, algorithm: linear}\n"
                       "    - {comm_size: 8, layout: irregular, algorithm: chain}\n",
                 1, 6, 7, "collectives.bcast[1]", "ranks_per_node 1, layout irregular)");
}

/* provenance.runs (schema 2, written by acctctl merge): the run behind each
 * layout; acct_rules_run_for picks the one covering a ranks per node. */
#define HEAD_RUNS(v, runs)                                                                \
    "acct_rules: " v "\n"                                                                 \
    "provenance:\n"                                                                       \
    "  partition: eth\n  interconnect: tcp-1g\n  version: 3\n  source: measured\n"       \
    "  created: \"2026-11-27T12:00:00Z\"\n"                                              \
    "  layout: {ranks_per_node: [2, 8]}\n"                                                \
    runs "collectives:\n  bcast:\n    - {comm_size: 2, ranks_per_node: [2, max], algorithm: linear}\n"

static void test_layout_runs(void **state)
{
    (void)state;
    struct acct_rules *r = parse_ok(HEAD_RUNS("2", "  runs:\n"
                                                   "    - {ranks_per_node: 2, tuning_run: r-two}\n"
                                                   "    - {ranks_per_node: 8, tuning_run: r-eight}\n"));
    assert_int_equal(r->prov.nruns, 2);
    assert_int_equal(r->prov.runs[1].ranks_per_node, 8);
    assert_string_equal(r->prov.runs[0].run, "r-two");
    /* each layout's run: below the first and unknown (0) take the first */
    static const struct {
        int rpn;
        const char *run;
    } cases[] = { { 0, "r-two" }, { 1, "r-two" }, { 2, "r-two" }, { 7, "r-two" },
                  { 8, "r-eight" }, { 128, "r-eight" } };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(acct_rules_run_for(&r->prov, cases[i].rpn), cases[i].run);
    /* written back, read back equal; a run of its own wins */
    roundtrip(r);
    snprintf(r->prov.tuning_run, sizeof r->prov.tuning_run, "r-own");
    assert_string_equal(acct_rules_run_for(&r->prov, 8), "r-own");
    r->prov.tuning_run[0] = '\0';
    r->prov.nruns = 0;
    assert_null(acct_rules_run_for(&r->prov, 8));
    acct_rules_free(r);

    /* schema 1 refuses it; ascending, each layout once; both keys; a list */
    expect_error(HEAD_RUNS("1", "  runs:\n    - {ranks_per_node: 2, tuning_run: r-two}\n"), 0,
                 9, 3, "provenance.runs", "needs \"acct_rules: 2\"");
    expect_error(HEAD_RUNS("2", "  runs:\n"
                                "    - {ranks_per_node: 8, tuning_run: r-eight}\n"
                                "    - {ranks_per_node: 8, tuning_run: r-again}\n"),
                 1, 11, 24, "provenance.runs[1].ranks_per_node", "8 after 8: the layouts must be in ascending");
    expect_error(HEAD_RUNS("2", "  runs:\n    - {ranks_per_node: 0, tuning_run: r-zero}\n"), 1, 10,
                 24, "provenance.runs[0].ranks_per_node", "");
    expect_error(HEAD_RUNS("2", "  runs:\n    - {ranks_per_node: 2}\n"), 1, 10, 7,
                 "provenance.runs[0].tuning_run", "required key \"tuning_run\" is missing");
    expect_error(HEAD_RUNS("2", "  runs:\n    - {ranks_per_node: 2, tuning_run: \"a b\"}\n"), 1, 10,
                 39, "provenance.runs[0].tuning_run", "");
    expect_error(HEAD_RUNS("2", "  runs: r-two\n"), 1, 9, 9, "provenance.runs",
                 "expected a list of {ranks_per_node: R, tuning_run: ID}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimal),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_native_everywhere),
        cmocka_unit_test(test_every_algorithm),
        cmocka_unit_test(test_sizes_and_comments),
        cmocka_unit_test(test_key_typo),
        cmocka_unit_test(test_unknown_algorithm),
        cmocka_unit_test(test_unknown_collective),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_segment_fanout_reorder),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_runner_up_and_options),
        cmocka_unit_test(test_runner_up_and_options_errors),
        cmocka_unit_test(test_evidence),
        cmocka_unit_test(test_evidence_none),
        cmocka_unit_test(test_evidence_errors),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_provenance),
        cmocka_unit_test(test_yaml_features),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_lookup_merge_and_pow2),
        cmocka_unit_test(test_lookup_large),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_roundtrip_random),
        cmocka_unit_test(test_decision_format),
        cmocka_unit_test(test_layout_rules),
        cmocka_unit_test(test_layout_rules_errors),
        cmocka_unit_test(test_layout_runs),
        cmocka_unit_test(test_layout_file),
        cmocka_unit_test(test_vector_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
