/* Unit tests for acct/result.h: the tuning result parser, validator and
 * canonical writer. Test files live in tests/unit/results/
 * (ACCT_RESULT_TESTDATA): valid-*.yaml must parse; each invalid-X.yaml must
 * be refused with exactly the lines of invalid-X.expected.
 *
 * "test_result --bench N" is not a test: it writes a result of N
 * measurements, parses it and prints the time (docs/tuning-result.md). */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cmocka.h>

#include "acct/alg.h"
#include "acct/result.h"
#include "acct/rules.h"

#ifndef ACCT_RESULT_TESTDATA
#error "ACCT_RESULT_TESTDATA must name tests/unit/results"
#endif

/* ---- allocation failures ------------------------------------------------
 *
 * Without sanitizers (which bring their own allocator) this program
 * replaces malloc, calloc, realloc, free and strdup (glibc supports that;
 * libyaml's calls come here too): it counts live blocks and can make the
 * Nth allocation fail. */
#if defined(__SANITIZE_ADDRESS__)
#define OOM_TESTS 0
#else
#define OOM_TESTS 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static long oom_countdown = -1; /* the allocation that fails: 0 = the next one */
static bool oom_hit;            /* it has failed */
static long live_blocks;

static bool oom_fail(void)
{
    if (oom_countdown < 0)
        return false;
    if (oom_countdown-- == 0) {
        oom_hit = true;
        return true;
    }
    return false;
}

void *malloc(size_t n)
{
    void *p = oom_fail() ? NULL : __libc_malloc(n);
    live_blocks += p != NULL;
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p = oom_fail() ? NULL : __libc_calloc(n, size);
    live_blocks += p != NULL;
    return p;
}

void *realloc(void *old, size_t n)
{
    void *p = oom_fail() ? NULL : __libc_realloc(old, n);
    live_blocks += old == NULL && p != NULL;
    return p;
}

void free(void *p)
{
    live_blocks -= p != NULL;
    __libc_free(p);
}

/* glibc's own strdup allocates inside libc, past the functions above. */
char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}
#endif

/* ---- helpers ------------------------------------------------------------ */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (f == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            cap = cap == 0 ? 4096 : cap * 2;
            buf = realloc(buf, cap + 1);
            if (buf == NULL)
                break;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        if (k == 0)
            break;
        n += k;
    }
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static char *testdata(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", ACCT_RESULT_TESTDATA, name);
    char *buf = read_all(path, len);
    if (buf == NULL)
        fail_msg("cannot read %s", path);
    return buf;
}

/* Every kept problem as acct_diags_print prints it. */
static char *diag_text(const struct acct_diags *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    acct_diags_print(d, f);
    fclose(f);
    return text;
}

static int parse_len(const char *src, struct acct_result **r, struct acct_diags *d)
{
    return acct_result_parse_buffer("t.yaml", src, strlen(src), r, d);
}

static struct acct_result *parse_ok_len(const char *src, size_t len)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = NULL;
    int rc = acct_result_parse_buffer("t.yaml", src, len, &r, &d);
    if (rc != ACCT_RULES_OK)
        acct_diags_print(&d, stderr);
    assert_int_equal(rc, ACCT_RULES_OK);
    assert_non_null(r);
    assert_non_null(r->rules);
    assert_int_equal(d.total, 0);
    acct_diags_free(&d);
    return r;
}

static struct acct_result *parse_ok(const char *src)
{
    return parse_ok_len(src, strlen(src));
}

/* src must be refused with exactly the diagnostic lines want (each ending
 * in a newline). */
static void expect_lines(const char *src, size_t len, const char *want)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = (struct acct_result *)1;
    int rc = acct_result_parse_buffer("t.yaml", src, len, &r, &d);
    char *got = diag_text(&d);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "expected:\n%sgot:\n%s", want, got);
    assert_int_equal(rc, ACCT_RULES_EINVAL);
    assert_null(r);
    assert_string_equal(got, want);
    free(got);
    acct_diags_free(&d);
}

static void expect(const char *src, const char *want)
{
    expect_lines(src, strlen(src), want);
}

static char *write_text(const struct acct_result *r, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    assert_non_null(f);
    assert_int_equal(acct_result_write(f, r), 0);
    fclose(f);
    if (len != NULL)
        *len = n;
    return text;
}

/* parse(write(r)) equals r, and writing that again gives the same bytes. */
static void check_roundtrip(const struct acct_result *r)
{
    size_t len, len2;
    char *text = write_text(r, &len);
    struct acct_result *back = parse_ok_len(text, len);
    assert_true(acct_result_equal(r, back));
    assert_true(acct_result_equal(back, r));
    char *again = write_text(back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
    free(again);
    free(text);
    acct_result_free(back);
}

/* A valid result with the measurements MEAS (text of a YAML list, indented
 * by two) and run/conditions as the doc's example: 8 ranks. */
#define RESULT_HEAD                                                                        \
    "acct_tuning_result: 1\n"                                                              \
    "run: {id: r-1, partition: eth, interconnect: tcp-1g, started: \"2026-11-22T15:00:00Z\", " \
    "finished: \"2026-11-22T15:09:12Z\", complete: true, strategy: smgd, source: measured, " \
    "experiment_seconds: 1.5, experiments: 2}\n"                                           \
    "conditions: {hosts: [n1, n2, n3, n4], ranks: 8, ranks_per_node: 2, placement: block, " \
    "mpi_library: Open MPI 4.1.4, acct_version: 0.1.0}\n"
#define RESULT_RULES                                                                       \
    "rules:\n"                                                                             \
    "  acct_rules: 1\n"                                                                    \
    "  provenance: {partition: eth, interconnect: tcp-1g, version: 1, source: measured, "   \
    "created: \"2026-11-22T15:09:12Z\"}\n"                                                 \
    "  collectives: {}\n"

/* ---- valid files ------------------------------------------------------- */

static void test_example(void **state)
{
    (void)state;
    char path[4096];
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = NULL;
    snprintf(path, sizeof(path), "%s/valid-example.yaml", ACCT_RESULT_TESTDATA);
    int rc = acct_result_parse_file(path, &r, &d);
    if (rc != ACCT_RULES_OK)
        acct_diags_print(&d, stderr);
    assert_int_equal(rc, ACCT_RULES_OK);
    acct_diags_free(&d);

    assert_string_equal(r->id, "r-20261122T150000Z-eth");
    assert_string_equal(r->partition, "eth");
    assert_string_equal(r->interconnect, "tcp-1g");
    assert_string_equal(r->started, "2026-11-22T15:00:00Z");
    assert_string_equal(r->finished, "2026-11-22T15:09:12Z");
    assert_true(r->complete);
    assert_string_equal(r->strategy, "smgd");
    assert_int_equal(r->source, ACCT_RESULT_MEASURED);
    assert_true(r->budget_s == 600);
    assert_true(r->experiment_s == 412.7);
    assert_int_equal(r->experiments, 1834);
    assert_int_equal(r->cond.nhosts, 4);
    assert_string_equal(r->cond.hosts[0], "acct-n1");
    assert_string_equal(r->cond.hosts[3], "acct-n4");
    assert_int_equal(r->cond.ranks, 8);
    assert_int_equal(r->cond.ranks_per_node, 2);
    assert_int_equal(r->cond.placement, ACCT_PLACEMENT_BLOCK);
    assert_string_equal(r->cond.mpi_library, "Open MPI 4.1.4");
    assert_string_equal(r->cond.acct_version, "0.1.0");
    assert_string_equal(r->cond.slurm_job_id, "1234");
    assert_true(r->model.present);
    assert_true(r->model.L_us == 48.2 && r->model.o_us == 3.1 && r->model.g_us == 4.4 &&
                r->model.G_us_per_byte == 0.0081);

    assert_int_equal(r->npoints, 2);
    const struct acct_result_point *p = &r->points[0];
    assert_int_equal(p->coll, ACCT_COLL_bcast);
    assert_int_equal(p->comm_size, 8);
    assert_int_equal(p->bytes, 1u << 20);
    assert_ptr_equal(p->d.alg, acct_alg_find(ACCT_COLL_bcast, "pipeline"));
    assert_int_equal(p->d.segment_bytes, 8192);
    assert_false(p->modelled);
    assert_int_equal(p->reps, 20);
    assert_true(p->median_us == 14400.5 && p->q1_us == 14211.0 && p->q3_us == 14706.2 &&
                p->min_us == 14102.9 && p->max_us == 15990.1);
    p = &r->points[1];
    assert_ptr_equal(p->d.alg, acct_alg_find(ACCT_COLL_bcast, "chain"));
    assert_true(p->modelled);
    assert_int_equal(p->reps, 0);
    assert_true(p->median_us == 60210.0 && p->q1_us == 60210.0 && p->q3_us == 60210.0 &&
                p->min_us == 60210.0 && p->max_us == 60210.0);

    assert_int_equal(r->rules->nrules, 1);
    assert_string_equal(r->rules->prov.tuning_run, r->id);
    assert_int_equal(r->rules->prov.ranks_per_node_min, 2);
    assert_int_equal(r->rules->coll[ACCT_COLL_bcast].v[0].bytes_min, 64 * 1024);
    assert_int_equal(r->rules->coll[ACCT_COLL_bcast].v[0].line, 43);
    check_roundtrip(r);
    acct_result_free(r);
}

static void test_minimal(void **state)
{
    (void)state;
    size_t len;
    char *text = testdata("valid-minimal.yaml", &len);
    struct acct_result *r = parse_ok_len(text, len);
    assert_false(r->complete);
    assert_int_equal(r->source, ACCT_RESULT_MODEL);
    assert_true(r->budget_s == 0);
    assert_false(r->model.present);
    assert_int_equal(r->npoints, 0);
    assert_null(r->points);
    assert_string_equal(r->cond.slurm_job_id, "");
    assert_string_equal(r->cond.mpi_library, "Open MPI 4.1.4");
    assert_int_equal(r->rules->nrules, 0);
    /* provenance.tuning_run left out: the run's id */
    assert_string_equal(r->rules->prov.tuning_run, "r-min");
    assert_true(r->hash == acct_rules_hash(text, len));
    check_roundtrip(r);
    acct_result_free(r);
    free(text);
}

/* Sections in any order, measurements in block and flow style, a modelled
 * point beyond the run's ranks, a measurement with all its options. */
static void test_order_and_styles(void **state)
{
    (void)state;
    struct acct_result *r = parse_ok(
        RESULT_RULES
        "measurements:\n"
        "  - collective: allreduce\n"
        "    comm_size: 8\n"
        "    bytes: 0\n"
        "    algorithm: recursive_doubling\n"
        "    reps: 4294967295\n"
        "    median_us: 0\n"
        "    q1_us: 0\n"
        "    q3_us: 0\n"
        "    min_us: 0\n"
        "    max_us: 1e3\n"
        "  - {collective: bcast, comm_size: 1024, bytes: 18446744073709551615,\n"
        "     algorithm: knomial, segment: 1G, fanout: 4, reorder: true, modelled: true,\n"
        "     median_us: 1.5E-3}\n"
        "  - {collective: barrier, comm_size: 2, bytes: 0, algorithm: native, reorder: false,\n"
        "     reps: 1, median_us: 2, q1_us: 1, q3_us: 3, min_us: 1, max_us: 3}\n"
        "model: {G: 0, g: 0.5, o: 1, L: 2}\n" RESULT_HEAD);
    assert_int_equal(r->npoints, 3);
    assert_int_equal(r->points[0].reps, UINT32_MAX);
    assert_true(r->points[0].max_us == 1000);
    assert_int_equal(r->points[1].comm_size, 1024);
    assert_int_equal(r->points[1].bytes, UINT64_MAX);
    assert_int_equal(r->points[1].d.segment_bytes, 1u << 30);
    assert_int_equal(r->points[1].d.fanout, 4);
    assert_true(r->points[1].d.reorder);
    assert_true(r->points[1].median_us == 1.5e-3);
    assert_int_equal(r->points[2].coll, ACCT_COLL_barrier);
    assert_true(r->points[2].d.alg->flags & ACCT_ALG_NATIVE);
    assert_true(r->model.L_us == 2 && r->model.G_us_per_byte == 0);
    check_roundtrip(r);
    acct_result_free(r);
}

/* The example of docs/tuning-result.md is valid-example.yaml, verbatim. */
static void test_doc_example(void **state)
{
    (void)state;
    size_t dlen, elen;
    char *doc = read_all(ACCT_RESULT_DOC, &dlen);
    char *example = testdata("valid-example.yaml", &elen);
    assert_non_null(doc);
    const char *start = strstr(doc, "```yaml\n");
    assert_non_null(start);
    start += strlen("```yaml\n");
    const char *end = strstr(start, "```");
    assert_non_null(end);
    assert_int_equal((size_t)(end - start), elen);
    assert_memory_equal(start, example, elen);
    free(example);
    free(doc);
}

/* Numbers: the accepted forms and the refused ones (as model.L, line 9, column 12). */
#define MODEL_L RESULT_HEAD RESULT_RULES "measurements: []\nmodel: {L: %s, o: 0, g: 0, G: 0}\n"
static void test_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double value;
    } good[] = { { "0", 0 }, { "12", 12 }, { ".5", 0.5 }, { "5.", 5 }, { "1.5E-3", 1.5e-3 },
                 { "2e+6", 2e6 }, { "00.10", 0.1 }, { "-0", 0 },
                 { "1.7976931348623157e308", DBL_MAX }, { "4.9e-324", 4.9e-324 } };
    static const char *const bad[] = { "+1", "1_000", ".inf", ".nan", "0x10", "1e", "e5", ".",
                                       "1.2.3", "1e5.5", "\"1\"", "~", "[1]", "1 5" };
    char buf[1024];
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        snprintf(buf, sizeof(buf), MODEL_L, good[i].text);
        struct acct_result *r = parse_ok(buf);
        assert_true(r->model.L_us == good[i].value);
        acct_result_free(r);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct acct_diags d = ACCT_DIAGS_INIT;
        struct acct_result *r = NULL;
        char line[1024];
        snprintf(buf, sizeof(buf), MODEL_L, bad[i]);
        assert_int_equal(parse_len(buf, &r, &d), ACCT_RULES_EINVAL);
        assert_int_equal(d.total, 1);
        acct_diag_format(&d, 0, line, sizeof(line));
        if (strstr(line, "t.yaml:9:12: model.L: expected a number") == NULL)
            fprintf(stderr, "%s: %s\n", bad[i], line);
        assert_non_null(strstr(line, "t.yaml:9:12: model.L: expected a number such as 0, 12 or "
                                     "14400.5, got "));
        acct_diags_free(&d);
    }
}

/* Issue 21's levels: intra, inter and nic under model; an older result
 * (no levels) still loads (test_numbers, test_example); the pieces that do
 * not go together are named. */
static struct acct_result *parse_warned(const char *src, const char *want);
#define MODEL_LEVELS RESULT_HEAD RESULT_RULES "measurements: []\nmodel:\n  L: 1\n  o: 0\n  g: 0\n  G: 0\n%s"
static void test_model_levels(void **state)
{
    (void)state;
    char buf[2048];
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
             "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n"
             "  nic: {pairs: 2, gap_factor: 1.75}\n");
    struct acct_result *r = parse_ok(buf);
    assert_true(r->model.has_levels);
    assert_true(r->model.intra.L_us == 0.5 && r->model.intra.G_us_per_byte == 0.0002);
    assert_true(r->model.inter.L_us == 90 && r->model.inter.G_us_per_byte == 0.085);
    assert_int_equal(r->model.nic_pairs, 2);
    assert_true(r->model.nic_gap_factor == 1.75);
    assert_int_equal(r->model.nic_bidir_pairs, 0); /* older files: the two-way factor absent */
    assert_true(r->model.nic_bidir_gap_factor == 0);
    check_roundtrip(r);
    acct_result_free(r);
    /* the two-way factor (model.nic.bidir_*): read, and written back */
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
             "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n"
             "  nic: {pairs: 2, gap_factor: 2.1201507182589947, bidir_pairs: 3, "
             "bidir_gap_factor: 2.1680843009682311}\n");
    r = parse_ok(buf);
    assert_int_equal(r->model.nic_pairs, 2);
    assert_int_equal(r->model.nic_bidir_pairs, 3);
    assert_true(r->model.nic_bidir_gap_factor == 2.1680843009682311);
    check_roundtrip(r);
    acct_result_free(r);
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
             "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n"
             "  nic: {pairs: 2, gap_factor: 2, bidir_pairs: 2}\n");
    expect(buf, "t.yaml:16:47: model.nic.bidir_pairs: bidir_pairs and bidir_gap_factor come "
                "together (the two-way factor)\n");
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
             "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n"
             "  nic: {pairs: 2, gap_factor: 2, bidir_pairs: 2.5, bidir_gap_factor: 0.9}\n");
    expect(buf, "t.yaml:16:47: model.nic.bidir_pairs: 2.5 is not a whole number in [2, "
                "1048576]\n");
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
             "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n"
             "  nic: {pairs: 2, gap_factor: 2, bidir_pairs: 2, bidir_gap_factor: 0.9}\n");
    expect(buf, "t.yaml:16:68: model.nic.bidir_gap_factor: 0.9 is too small: the minimum is 1\n");
    /* the pair-duplex factor (model.nic.pair_duplex_factor): optional,
     * beside the NIC factors or alone (nodes that do not both hold two
     * ranks); read, written back; absent above (0: not measured) */
    static const char *const duplex_good[] = {
        "  nic: {pairs: 2, gap_factor: 2.12, bidir_pairs: 2, bidir_gap_factor: 2.17, "
        "pair_duplex_factor: 1.2905811623246493}\n",
        "  nic: {pair_duplex_factor: 1.2905811623246493}\n",
        "  nic: {pairs: 2, gap_factor: 1.5, pair_duplex_factor: 1}\n",
        "  nic: {pairs: 4, gap_factor: 4.33, pair_duplex_factor: 1.2905811623246493, "
        "pair_duplex_overlap_bytes: 196608}\n",
    };
    for (size_t i = 0; i < sizeof duplex_good / sizeof duplex_good[0]; i++) {
        snprintf(buf, sizeof(buf), MODEL_LEVELS "%s",
                 "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
                 "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n",
                 duplex_good[i]);
        r = parse_ok(buf);
        assert_true(r->model.pair_duplex_factor == (i != 2 ? 1.2905811623246493 : 1));
        assert_int_equal(r->model.nic_pairs, i == 1 ? 0 : i == 3 ? 4 : 2);
        assert_true(r->model.pair_duplex_overlap_bytes == (i == 3 ? 196608u : 0u));
        check_roundtrip(r);
        acct_result_free(r);
    }
    /* a calibration factor a newer acct-tune measures: skipped with a
     * warning (docs/tuning-result.md, "Forward compatibility"); the result
     * is the one without it */
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
             "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n"
             "  nic: {pairs: 2, gap_factor: 1.75}\n");
    struct acct_result *plain = parse_ok(buf);
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
             "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n"
             "  nic: {pairs: 2, gap_factor: 1.75, intra_share: {pairs: 4, factor: 1.4}}\n");
    r = parse_warned(buf, "t.yaml:16:37: warning: model.nic.intra_share: unknown key "
                          "\"intra_share\" skipped (known: pairs, gap_factor, bidir_pairs, "
                          "bidir_gap_factor, pair_duplex_factor, pair_duplex_overlap_bytes): an "
                          "optional key of a newer release?\n");
    assert_true(acct_result_equal(r, plain));
    acct_result_free(r);
    acct_result_free(plain);
    static const struct {
        const char *nic, *msg;
    } duplex_bad[] = {
        { "  nic: {pairs: 2, gap_factor: 2, pair_duplex_factor: 0.9}\n",
          "t.yaml:16:54: model.nic.pair_duplex_factor: 0.9 is too small: the minimum is 1\n" },
        { "  nic: {pairs: 2, gap_factor: 2, pair_duplex_factor: 17}\n",
          "t.yaml:16:54: model.nic.pair_duplex_factor: 17 is too large: the maximum is 16\n" },
        { "  nic: {pairs: 2, gap_factor: 2, pair_duplex_factor: -1}\n",
          "t.yaml:16:54: model.nic.pair_duplex_factor: -1 is too small: the minimum is 1\n" },
        { "  nic: {pairs: 2, gap_factor: 2, pair_duplex_overlap_bytes: 196608}\n",
          "t.yaml:16:61: model.nic.pair_duplex_overlap_bytes: needs pair_duplex_factor (the "
          "overlap is the factor's)\n" },
        { "  nic: {pair_duplex_factor: 2, pair_duplex_overlap_bytes: 1.5}\n",
          "t.yaml:16:59: model.nic.pair_duplex_overlap_bytes: 1.5 is not a whole number of "
          "bytes in [0, 1073741824]\n" },
        { "  nic: {pair_duplex_factor: 2, pair_duplex_overlap_bytes: -1}\n",
          "t.yaml:16:59: model.nic.pair_duplex_overlap_bytes: -1 is too small: the minimum is "
          "0\n" },
        { "  nic: {pair_duplex_factor: fast}\n",
          "t.yaml:16:29: model.nic.pair_duplex_factor: expected a number such as 0, 12 or "
          "14400.5, got \"fast\"\n" },
        { "  nic: {pairs: 2, pair_duplex_factor: 1.3}\n",
          "t.yaml:16:16: model.nic.pairs: pairs and gap_factor come together (the NIC "
          "factor)\n" },
        { "  nic: {bidir_pairs: 2, bidir_gap_factor: 2, pair_duplex_factor: 1.3}\n",
          "t.yaml:16:22: model.nic.bidir_pairs: the two-way factor needs pairs and "
          "gap_factor\n" },
    };
    for (size_t i = 0; i < sizeof duplex_bad / sizeof duplex_bad[0]; i++) {
        snprintf(buf, sizeof(buf), MODEL_LEVELS "%s",
                 "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n"
                 "  inter: {L: 90, o: 4, g: 9, G: 0.085}\n",
                 duplex_bad[i].nic);
        expect(buf, duplex_bad[i].msg);
    }
    snprintf(buf, sizeof(buf), MODEL_LEVELS, "  intra: {L: 0.5, o: 0.25, g: 0.5, G: 0.0002}\n");
    expect(buf, "t.yaml:14:10: model: intra and inter come together (an intra-node and an "
                "inter-node pair)\n");
    snprintf(buf, sizeof(buf), MODEL_LEVELS, "  nic: {pairs: 1, gap_factor: 0.5}\n");
    expect(buf, "t.yaml:14:8: model.nic: needs model.intra and model.inter\n"
                "t.yaml:14:16: model.nic.pairs: 1 is too small: the minimum is 2\n"
                "t.yaml:14:31: model.nic.gap_factor: 0.5 is too small: the minimum is 1\n");
    snprintf(buf, sizeof(buf), MODEL_LEVELS,
             "  intra: {L: 0.5, o: 0.25, g: 0.5}\n  inter: {L: 90, o: 4, g: 9, G: 0.085}\n");
    expect(buf, "t.yaml:14:10: model.intra.G: required key \"G\" is missing\n");
}

/* ---- invalid files: one per class, exact lines ------------------------- */

static void check_invalid_file(const char *base)
{
    char yaml[256], exp[256];
    size_t len, elen;
    snprintf(yaml, sizeof(yaml), "%s.yaml", base);
    snprintf(exp, sizeof(exp), "%s.expected", base);
    char *src = testdata(yaml, &len);
    char *want = testdata(exp, &elen);
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = (struct acct_result *)1;
    int rc = acct_result_parse_buffer(yaml, src, len, &r, &d);
    char *got = diag_text(&d);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "%s: expected:\n%sgot:\n%s", yaml, want, got);
    assert_int_equal(rc, ACCT_RULES_EINVAL);
    assert_null(r);
    assert_string_equal(got, want);
    free(got);
    free(want);
    free(src);
    acct_diags_free(&d);
}

static void test_invalid_version(void **state)
{
    (void)state;
    check_invalid_file("invalid-version");
}

static void test_invalid_run(void **state)
{
    (void)state;
    check_invalid_file("invalid-run");
}

static void test_invalid_measurements(void **state)
{
    (void)state;
    check_invalid_file("invalid-measurements");
}

static void test_invalid_rules(void **state)
{
    (void)state;
    check_invalid_file("invalid-rules");
}

static void test_invalid_provenance(void **state)
{
    (void)state;
    check_invalid_file("invalid-provenance");
}

static void test_invalid_races(void **state)
{
    (void)state;
    check_invalid_file("invalid-races");
}

/* valid-races.yaml: the per-rank views and a race, read and written back
 * to the same result. */
static void test_races(void **state)
{
    (void)state;
    char path[4096];
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = NULL, *back = NULL;
    char *buf = NULL;
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/valid-races.yaml", ACCT_RESULT_TESTDATA);
    int rc = acct_result_parse_file(path, &r, &d);
    if (rc != ACCT_RULES_OK)
        acct_diags_print(&d, stderr);
    assert_int_equal(rc, ACCT_RULES_OK);
    assert_int_equal(r->npoints, 2);
    assert_true(r->points[0].has_avg && r->points[0].avg_us == 300.5);
    assert_true(r->points[0].has_rank_max && r->points[0].rank_max_us == 405);
    assert_int_equal(r->nraces, 1);
    const struct acct_result_race *rc0 = &r->races[0];
    assert_int_equal(rc0->coll, ACCT_COLL_bcast);
    assert_int_equal(rc0->comm_size, 4);
    assert_int_equal(rc0->bytes, 65536);
    assert_int_equal(rc0->metric, ACCT_RESULT_VIEW_AVG);
    assert_int_equal(rc0->rounds, 8);
    assert_true(rc0->alpha == 0.05 && rc0->tolerance == 0.03);
    assert_true(rc0->has_aa && rc0->aa_spread == 0.012);
    assert_int_equal(rc0->resolved_by, ACCT_RESULT_BY_TEST);
    assert_true(rc0->has_cost && rc0->experiments == 24 && rc0->seconds == 0.5);
    assert_true(rc0->search_experiments == 40 && rc0->search_seconds == 1.25);
    assert_int_equal(rc0->nf, 3);
    assert_ptr_equal(rc0->f[0].d.alg, acct_alg_find(ACCT_COLL_bcast, "pipeline"));
    assert_int_equal(rc0->f[0].d.segment_bytes, 8192);
    assert_int_equal(rc0->f[0].verdict, ACCT_RESULT_WINNER);
    assert_true(rc0->f[1].ratio == 1.61 && rc0->f[1].p == 0.00390625);
    assert_int_equal(rc0->f[2].verdict, ACCT_RESULT_TWIN);
    /* a file from before search_pick: no finalist is the search's pick */
    for (size_t k = 0; k < rc0->nf; k++)
        assert_false(rc0->f[k].search_pick);
    /* the times per round: view-major, the race's 8 rounds */
    for (size_t k = 0; k < rc0->nf; k++)
        assert_true(rc0->f[k].nrounds == 8 && rc0->f[k].round_us != NULL);
    assert_true(rc0->f[0].round_us[0] == 410 && rc0->f[0].round_us[8 + 7] == 300.5);
    assert_true(rc0->f[1].round_us[2 * 8 + 6] == 518 && rc0->f[2].round_us[8 + 3] == 484);
    const struct acct_result_noise *nz = &r->noise;
    assert_true(nz->present && nz->repeat_spread == 0.05 && nz->repeat_spread_p90 == 0.25);
    assert_true(nz->aa_pairs == 1 && nz->aa_spread == 0.012 && nz->aa_spread_max == 0.012);
    assert_int_equal(nz->nload, 2);
    assert_string_equal(nz->load[1].host, "n2");
    assert_true(nz->load[0].start == 1.5 && nz->load[1].end == 2.25);
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(acct_result_write(f, r), 0);
    fclose(f);
    rc = acct_result_parse_buffer("back.yaml", buf, len, &back, &d);
    if (rc != ACCT_RULES_OK)
        acct_diags_print(&d, stderr);
    assert_int_equal(rc, ACCT_RULES_OK);
    assert_true(acct_result_equal(r, back));
    back->noise.load[1].end = 3;
    assert_false(acct_result_equal(r, back));
    back->noise.load[1].end = 2.25;
    back->races[0].search_seconds = 2;
    assert_false(acct_result_equal(r, back));
    back->races[0].search_seconds = 1.25;
    back->races[0].f[1].p = 0.5;
    assert_false(acct_result_equal(r, back));
    back->races[0].f[1].p = r->races[0].f[1].p;
    assert_true(acct_result_equal(r, back));
    back->races[0].f[1].round_us[5] = 1;
    assert_false(acct_result_equal(r, back));
    back->races[0].f[1].round_us[5] = r->races[0].f[1].round_us[5];
    assert_true(acct_result_equal(r, back));
    back->races[0].f[1].search_pick = true;
    assert_false(acct_result_equal(r, back));
    back->points[0].avg_us = 1;
    acct_result_free(back);
    free(buf);
    buf = NULL;
    /* the search's pick marked on native: read, written as search_pick:
     * true on that finalist alone, read back to the same result */
    r->races[0].f[1].search_pick = true;
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(acct_result_write(f, r), 0);
    fclose(f);
    assert_non_null(strstr(buf, "{algorithm: native, verdict: separated, ratio: 1.61, p: "
                                "0.00390625, search_pick: true, round_median_us: [520, 522, "
                                "519, 525, 520, 518, 521, 520], round_avg_us: [483, "));
    assert_null(strstr(strstr(buf, "search_pick") + 1, "search_pick"));
    rc = acct_result_parse_buffer("back.yaml", buf, len, &back, &d);
    if (rc != ACCT_RULES_OK)
        acct_diags_print(&d, stderr);
    assert_int_equal(rc, ACCT_RULES_OK);
    assert_true(back->races[0].f[1].search_pick && !back->races[0].f[0].search_pick &&
                !back->races[0].f[2].search_pick);
    assert_true(acct_result_equal(r, back));
    acct_result_free(back);
    acct_result_free(r);
    acct_diags_free(&d);
    free(buf);
}

static void test_invalid_truncated(void **state)
{
    (void)state;
    check_invalid_file("invalid-truncated");
    check_invalid_file("invalid-truncated-flow");
}

/* ---- invalid inline documents ------------------------------------------ */

/* ---- forward compatibility: unknown top-level sections --------------- */

#define KNOWN_TOP "acct_tuning_result, run, conditions, model, measurements, races, noise, rules"

/* src parses, with exactly the warning lines want and no problem. */
static struct acct_result *parse_warned(const char *src, const char *want)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = NULL;
    int rc = parse_len(src, &r, &d);
    char *got = diag_text(&d);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "expected:\n%sgot:\n%s", want, got);
    assert_int_equal(rc, ACCT_RULES_OK);
    assert_non_null(r);
    assert_int_equal(d.total, 0);
    assert_string_equal(got, want);
    free(got);
    acct_diags_free(&d);
    return r;
}

static void test_unknown_sections(void **state)
{
    (void)state;
    /* skipped with a warning naming file, line and key; the result is the
     * one without them */
    struct acct_result *plain = parse_ok(RESULT_HEAD "measurements: []\n" RESULT_RULES);
    struct acct_result *r = parse_warned(
        RESULT_HEAD "telemetry:\n  series: [{t: 1, x: [1, 2]}, \"text\"]\n  n: 7\n"
                    "measurements: []\n" RESULT_RULES "signature: ~\n",
        "t.yaml:4:1: warning: telemetry: unknown key \"telemetry\" skipped (known: " KNOWN_TOP
        "): an optional section of a newer release?\n"
        "t.yaml:12:1: warning: signature: unknown key \"signature\" skipped (known: " KNOWN_TOP
        "): an optional section of a newer release?\n");
    assert_true(acct_result_equal(r, plain));
    acct_result_free(r);
    /* a misspelt optional section is skipped too, and the warning says so */
    r = parse_warned(RESULT_HEAD "measurements: []\nnoize: {aa_pairs: 0}\n" RESULT_RULES,
                     "t.yaml:5:1: warning: noize: unknown key \"noize\" (did you mean "
                     "\"noise\"?) skipped (known: " KNOWN_TOP
                     "): an optional section of a newer release?\n");
    assert_false(r->noise.present);
    assert_true(acct_result_equal(r, plain));
    acct_result_free(r);
    acct_result_free(plain);

    /* from a file: its name, line and key (valid-unknown-sections.yaml) */
    char path[4096];
    struct acct_diags d = ACCT_DIAGS_INIT;
    snprintf(path, sizeof(path), "%s/valid-unknown-sections.yaml", ACCT_RESULT_TESTDATA);
    assert_int_equal(acct_result_parse_file(path, &r, &d), ACCT_RULES_OK);
    assert_int_equal(d.total, 0);
    assert_int_equal(d.warnings, 2);
    assert_int_equal(d.n, 2);
    char line[1024], want[4200];
    acct_diag_format(&d, 0, line, sizeof(line));
    snprintf(want, sizeof(want), "%s:5:1: warning: telemetry: unknown key", path);
    assert_memory_equal(line, want, strlen(want));
    acct_diag_format(&d, 1, line, sizeof(line));
    snprintf(want, sizeof(want), "%s:29:1: warning: signature: unknown key", path);
    assert_memory_equal(line, want, strlen(want));
    assert_string_equal(r->id, "r-newer");
    acct_result_free(r);
    acct_diags_free(&d);

    /* still refused: unknown keys inside known sections, missing required
     * sections, a repeated unknown section; warnings stay among the
     * problems, in position order */
    expect(RESULT_HEAD "extra: 1\nmeasurements: []\n" RESULT_RULES
                       "noise: {repeat_spread: 0, repeat_spread_p90: 0, aa_pairs: 0, load: [], "
                       "loud: 1}\n",
           "t.yaml:4:1: warning: extra: unknown key \"extra\" skipped (known: " KNOWN_TOP
           "): an optional section of a newer release?\n"
           "t.yaml:10:72: noise.loud: unknown key \"loud\" (did you mean \"load\"?) (valid: "
           "repeat_spread, repeat_spread_p90, aa_pairs, aa_spread, aa_spread_max, load)\n");
    expect(RESULT_HEAD "extra: 1\n" RESULT_RULES,
           "t.yaml:1:1: measurements: required key \"measurements\" is missing\n"
           "t.yaml:4:1: warning: extra: unknown key \"extra\" skipped (known: " KNOWN_TOP
           "): an optional section of a newer release?\n");
    expect(RESULT_HEAD "extra: 1\nmeasurements: []\nextra: 2\n" RESULT_RULES,
           "t.yaml:4:1: warning: extra: unknown key \"extra\" skipped (known: " KNOWN_TOP
           "): an optional section of a newer release?\n"
           "t.yaml:6:1: extra: duplicate key \"extra\" (first at line 4)\n");
    expect(RESULT_HEAD "measurements: []\nrun2: 1\n" RESULT_RULES "  extra: 1\n",
           "t.yaml:5:1: warning: run2: unknown key \"run2\" (did you mean \"run\"?) skipped "
           "(known: " KNOWN_TOP "): an optional section of a newer release?\n"
           "t.yaml:10:3: rules.extra: unknown key \"extra\" (valid: acct_rules, provenance, "
           "options, collectives)\n");
    expect(RESULT_HEAD "measurements: []\n" RESULT_RULES "model: {L: 1, o: 0, g: 0, G: 0, Q: 1}\n",
           "t.yaml:9:33: model.Q: unknown key \"Q\" (did you mean \"L\"?) (valid: L, o, g, G, intra, "
           "inter, nic)\n");
}

static void test_document_shape(void **state)
{
    (void)state;
    expect("acct_tuning_result: x\n",
           "t.yaml:1:21: acct_tuning_result: expected the schema version (an integer), got "
           "\"x\"\n");
    expect("- 1\n",
           "t.yaml:1:1: expected a mapping with keys acct_tuning_result, run, conditions, model, "
           "measurements, races, noise, rules, got a list\n");
    expect(RESULT_HEAD "measurements: {}\n" RESULT_RULES "extra: 1\n",
           "t.yaml:4:15: measurements: expected a list of measurements (\"- {collective: ...}\", "
           "or [] for none), got a mapping\n"
           "t.yaml:9:1: warning: extra: unknown key \"extra\" skipped (known: " KNOWN_TOP
           "): an optional section of a newer release?\n");
    /* A second measurements list is a duplicate key (and not streamed). */
    expect(RESULT_HEAD "measurements: []\n" RESULT_RULES "measurements: [1]\n",
           "t.yaml:9:1: measurements: duplicate key \"measurements\" (first at line 4)\n");
    expect(RESULT_HEAD "measurements: []\n",
           "t.yaml:1:1: rules: required key \"rules\" is missing\n");
    /* The rules' own version: only that is reported about the rules. */
    expect(RESULT_HEAD "measurements: []\nrules:\n  acct_rules: 3\n  provenance: 7\n",
           "t.yaml:6:15: rules.acct_rules: unsupported rules schema version 3: this library "
           "reads versions 1 to 2\n");
    expect(RESULT_HEAD "measurements: []\nrules: {acct_rules: x, provenance: 7, collectives: 7}\n",
           "t.yaml:5:21: rules.acct_rules: expected the schema version (an integer), got "
           "\"x\"\n");
    expect(RESULT_HEAD "measurements: []\nrules: [1]\n",
           "t.yaml:5:8: rules: expected a mapping with keys acct_rules, provenance, options, "
           "collectives, got a list\n");
    /* YAML features refused as in rules files, named for results */
    expect(RESULT_HEAD "measurements: &m []\n" RESULT_RULES,
           "t.yaml:4:15: YAML anchors (&name) are not allowed in tuning results\n");
    expect(RESULT_HEAD "measurements: []\n" RESULT_RULES "---\na: 1\n",
           "t.yaml:9:1: a tuning result holds one YAML document; a second one starts here\n");
    expect_lines("acct_tuning_result: 1\0\n", 23,
                 "t.yaml:1:22: binary data (a NUL byte): not a tuning result (byte 0x00 at "
                 "offset 21)\n");
    expect_lines("", 0, "t.yaml:1:1: empty file\n");
}

static void test_measurement_errors(void **state)
{
    (void)state;
    expect(RESULT_HEAD RESULT_RULES "measurements:\n  - 7\n  - {collective: bcast}\n",
           "t.yaml:9:5: measurements[0]: expected a mapping with keys collective, comm_size, "
           "bytes, algorithm, segment, fanout, reorder, modelled, reps, median_us, q1_us, q3_us, "
           "min_us, max_us, avg_us, rank_max_us, got \"7\"\n"
           "t.yaml:10:5: measurements[1].comm_size: required key \"comm_size\" is missing\n"
           "t.yaml:10:5: measurements[1].bytes: required key \"bytes\" is missing\n"
           "t.yaml:10:5: measurements[1].algorithm: required key \"algorithm\" is missing\n"
           "t.yaml:10:5: measurements[1].median_us: required key \"median_us\" is missing\n"
           "t.yaml:10:5: measurements[1].reps: required key \"reps\" is missing (it may only be "
           "left out with modelled: true)\n"
           "t.yaml:10:5: measurements[1].min_us: required key \"min_us\" is missing (it may only "
           "be left out with modelled: true)\n"
           "t.yaml:10:5: measurements[1].q1_us: required key \"q1_us\" is missing (it may only "
           "be left out with modelled: true)\n"
           "t.yaml:10:5: measurements[1].q3_us: required key \"q3_us\" is missing (it may only "
           "be left out with modelled: true)\n"
           "t.yaml:10:5: measurements[1].max_us: required key \"max_us\" is missing (it may only "
           "be left out with modelled: true)\n");
    expect(RESULT_HEAD RESULT_RULES
           "measurements:\n"
           "  - {collective: bcast, comm_size: 9, bytes: 1, algorithm: chain, reps: 4294967296, "
           "median_us: 1e999, q1_us: 1, q3_us: 1, min_us: 1, max_us: 1, modelled: 1}\n",
           "t.yaml:9:73: measurements[0].reps: 4294967296 is too large: the maximum is "
           "4294967295\n"
           "t.yaml:9:96: measurements[0].median_us: \"1e999\" is too large\n"
           "t.yaml:9:155: measurements[0].modelled: expected true or false, got \"1\"\n");
    /* A timed point cannot use more ranks than the run: reported with the
     * point's own index even when other points are invalid. */
    expect(RESULT_HEAD RESULT_RULES
           "measurements:\n"
           "  - {collective: bcats}\n"
           "  - {collective: bcast, comm_size: 9, bytes: 1, algorithm: chain, reps: 1, "
           "median_us: 1, q1_us: 1, q3_us: 1, min_us: 1, max_us: 1}\n",
           "t.yaml:9:5: measurements[0].comm_size: required key \"comm_size\" is missing\n"
           "t.yaml:9:5: measurements[0].bytes: required key \"bytes\" is missing\n"
           "t.yaml:9:5: measurements[0].algorithm: required key \"algorithm\" is missing\n"
           "t.yaml:9:5: measurements[0].median_us: required key \"median_us\" is missing\n"
           "t.yaml:9:5: measurements[0].reps: required key \"reps\" is missing (it may only be "
           "left out with modelled: true)\n"
           "t.yaml:9:5: measurements[0].min_us: required key \"min_us\" is missing (it may only "
           "be left out with modelled: true)\n"
           "t.yaml:9:5: measurements[0].q1_us: required key \"q1_us\" is missing (it may only "
           "be left out with modelled: true)\n"
           "t.yaml:9:5: measurements[0].q3_us: required key \"q3_us\" is missing (it may only "
           "be left out with modelled: true)\n"
           "t.yaml:9:5: measurements[0].max_us: required key \"max_us\" is missing (it may only "
           "be left out with modelled: true)\n"
           "t.yaml:9:18: measurements[0].collective: unknown collective \"bcats\" (valid: "
           "barrier, bcast, reduce, allreduce, gather, scatter, allgather, alltoall, "
           "reduce_scatter_block, allgatherv, reduce_scatter, gatherv, scatterv, alltoallv, scan, "
           "exscan)\n"
           "t.yaml:10:36: measurements[1].comm_size: 9 is larger than conditions.ranks 8 (only a "
           "modelled point may be)\n");
}

static void test_conditions_errors(void **state)
{
    (void)state;
    const char *run =
        "acct_tuning_result: 1\n"
        "run: {id: r-1, partition: eth, interconnect: tcp-1g, started: \"2026-11-22T15:00:00Z\", "
        "finished: \"2026-11-22T15:09:12Z\", complete: true, strategy: smgd, source: measured, "
        "experiment_seconds: 1.5, experiments: 2}\n"
        "measurements: []\n" RESULT_RULES;
    char buf[2048];
    snprintf(buf, sizeof(buf),
             "%sconditions: {hosts: [], ranks: 1, ranks_per_node: 1, placement: block, "
             "mpi_library: \"\", acct_version: x, "
             "slurm_job_id: 12345678901234567890123456789012}\n",
             run);
    expect(buf, "t.yaml:8:21: conditions.hosts: expected a list of 1 to 4096 host names, got an "
                "empty list\n"
                "t.yaml:8:85: conditions.mpi_library: the quoted string \"\" must have 1 to 127 "
                "characters\n"
                "t.yaml:8:120: conditions.slurm_job_id: \"12345678901234567890123456789012\" "
                "must have 1 to 31 characters\n");
    snprintf(buf, sizeof(buf),
             "%sconditions: {hosts: n1, ranks: 0, ranks_per_node: x, placement: , "
             "mpi_library: [a], acct_version: x}\n",
             run);
    expect(buf, "t.yaml:8:21: conditions.hosts: expected a list of 1 to 4096 host names, got "
                "\"n1\"\n"
                "t.yaml:8:32: conditions.ranks: 0 is too small: the minimum is 1\n"
                "t.yaml:8:51: conditions.ranks_per_node: expected a number of ranks (integer >= "
                "1), got \"x\"\n"
                "t.yaml:8:65: conditions.placement: unknown placement nothing (valid: block, "
                "cyclic, mixed)\n"
                "t.yaml:8:80: conditions.mpi_library: expected a string, got a list\n");
}

/* ---- limits ------------------------------------------------------------ */

static void test_limits(void **state)
{
    (void)state;
    /* 64 MiB and one byte: refused before anything else is read. */
    size_t big = ACCT_RESULT_MAX_FILE_BYTES + 1;
    char *buf = malloc(big);
    assert_non_null(buf);
    memset(buf, '\n', big);
    expect_lines(buf, big, "t.yaml: larger than the limit of 67108864 bytes (64 MiB)\n");
    free(buf);

    /* 1,000,005 measurements (of the shortest kind: invalid ones; valid
     * ones take more than 64 bytes each): one problem each up to the
     * limit, then one for the limit, then the rest are not looked at. */
    const char *head = RESULT_HEAD RESULT_RULES "measurements:\n";
    size_t hl = strlen(head), n = (size_t)ACCT_RESULT_MAX_POINTS + 5;
    size_t len = hl + 4 * n;
    buf = malloc(len);
    assert_non_null(buf);
    memcpy(buf, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(buf + hl + 4 * i, "- 0\n", 4);
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = NULL;
    assert_int_equal(acct_result_parse_buffer("t.yaml", buf, len, &r, &d), ACCT_RULES_EINVAL);
    assert_null(r);
    assert_int_equal(d.total, ACCT_RESULT_MAX_POINTS + 1);
    assert_int_equal(d.n, ACCT_DIAG_MAX);
    char line[1024];
    acct_diag_format(&d, 0, line, sizeof(line));
    assert_string_equal(line, "t.yaml:9:3: measurements[0]: expected a mapping with keys "
                              "collective, comm_size, bytes, algorithm, segment, fanout, reorder, "
                              "modelled, reps, median_us, q1_us, q3_us, min_us, max_us, avg_us, rank_max_us, got \"0\"");
    acct_diags_free(&d);
    free(buf);

    /* 4097 hosts */
    size_t cap = 64 * 4200 + 4096;
    buf = malloc(cap);
    assert_non_null(buf);
    size_t o = (size_t)snprintf(buf, cap, "%s", "acct_tuning_result: 1\nconditions:\n  hosts:\n");
    for (int i = 0; i <= ACCT_RESULT_MAX_HOSTS; i++)
        o += (size_t)snprintf(buf + o, cap - o, "    - n%d\n", i);
    acct_result_parse_buffer("t.yaml", buf, o, &r, &d);
    assert_null(r);
    bool found = false;
    for (size_t i = 0; i < d.n && !found; i++) {
        acct_diag_format(&d, i, line, sizeof(line));
        found = strcmp(line, "t.yaml:4:5: conditions.hosts: 4097 hosts: the limit is 4096") == 0;
    }
    assert_true(found);
    acct_diags_free(&d);
    free(buf);
}

static void test_files(void **state)
{
    (void)state;
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_result *r = (struct acct_result *)1;
    char line[1024];
    assert_int_equal(acct_result_parse_file("/nonexistent/r.yaml", &r, &d), ACCT_RULES_EIO);
    assert_null(r);
    acct_diag_format(&d, 0, line, sizeof(line));
    assert_string_equal(line, "/nonexistent/r.yaml: cannot open: No such file or directory");
    assert_int_equal(acct_result_parse_file(ACCT_RESULT_TESTDATA, &r, &d), ACCT_RULES_EIO);
    acct_diag_format(&d, 0, line, sizeof(line));
    assert_non_null(strstr(line, ": not a regular file"));
    assert_int_equal(acct_result_parse_file(NULL, &r, &d), ACCT_RULES_EINVAL);
    assert_int_equal(acct_result_parse_buffer("x", "a", 1, NULL, &d), ACCT_RULES_EINVAL);
    assert_int_equal(acct_result_parse_buffer("x", "acct_tuning_result: 1\n", 22, &r, NULL),
                     ACCT_RULES_EINVAL);
    assert_null(r);
    acct_diags_free(&d);
    acct_result_free(NULL);
}

/* ---- writer and comparison --------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    uint64_t x = rng_state; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Any finite double >= 0 (all bit patterns, subnormals included) or a
 * "nice" one. */
static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL) {
        fprintf(stderr, "test_result: out of memory\n");
        exit(1);
    }
    return p;
}

static double rnd_double(void)
{
    for (;;) {
        uint64_t bits = rnd();
        double v;
        switch (bits % 4) {
        case 0:
            return (double)(bits >> 40) / 10.0;
        case 1:
            return (double)(bits >> 44);
        default:
            bits &= ~(1ull << 63);
            memcpy(&v, &bits, sizeof(v));
            if (isfinite(v))
                return v;
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const struct acct_alg *rnd_alg(enum acct_coll_id coll)
{
    int n = 0;
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++)
        n += a->coll == coll;
    int k = (int)(rnd() % (uint64_t)n);
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++)
        if (a->coll == coll && k-- == 0)
            return a;
    return NULL;
}

static void rnd_point(struct acct_result_point *p, int ranks)
{
    double t[5];
    memset(p, 0, sizeof(*p));
    p->coll = (enum acct_coll_id)(rnd() % ACCT_COLL_COUNT);
    p->modelled = rnd() % 4 == 0;
    p->comm_size = 1 + (int)(rnd() % (uint64_t)(p->modelled ? 4096 : ranks));
    p->bytes = rnd() % 3 == 0 ? rnd() : rnd() % (1u << 24);
    p->d.alg = rnd_alg(p->coll);
    if ((p->d.alg->flags & ACCT_ALG_SEGMENTED) && rnd() % 2)
        p->d.segment_bytes = rnd() % (ACCT_RULES_MAX_SEGMENT + 1);
    if ((p->d.alg->flags & ACCT_ALG_FANOUT) && rnd() % 2)
        p->d.fanout = p->d.alg->fanout_min +
                      (int)(rnd() % (uint64_t)(p->d.alg->fanout_max - p->d.alg->fanout_min + 1));
    p->d.reorder = acct_alg_reorderable(p->d.alg, NULL, NULL) && rnd() % 3 == 0;
    for (int i = 0; i < 5; i++)
        t[i] = rnd_double();
    qsort(t, 5, sizeof(t[0]), cmp_double);
    if (p->modelled && rnd() % 2) {
        t[0] = t[1] = t[3] = t[4] = t[2];
    } else if (!p->modelled) {
        p->reps = 1 + (uint32_t)(rnd() % UINT32_MAX);
    }
    p->min_us = t[0];
    p->q1_us = t[1];
    p->median_us = t[2];
    p->q3_us = t[3];
    p->max_us = t[4];
    if (!p->modelled && rnd() % 2) {
        p->has_avg = true;
        p->avg_us = rnd_double();
    }
    if (!p->modelled && rnd() % 2) {
        p->has_rank_max = true;
        p->rank_max_us = rnd_double();
    }
}

/* A random valid race (docs/tuning-result.md "races"). */
static void rnd_race(struct acct_result_race *rc, int ranks)
{
    rc->coll = (enum acct_coll_id)(rnd() % ACCT_COLL_COUNT);
    rc->comm_size = 1 + (int)(rnd() % (uint64_t)ranks);
    rc->bytes = rnd() % (1ull << 40);
    rc->metric = (enum acct_result_view)(rnd() % ACCT_RESULT_VIEWS);
    rc->rounds = 1 + (uint32_t)(rnd() % 1000);
    rc->alpha = (double)(1 + rnd() % 999) / 1000.0;
    rc->tolerance = rnd_double();
    rc->has_aa = rnd() % 2;
    rc->aa_spread = rc->has_aa ? rnd_double() : 0.0;
    rc->resolved_by = (enum acct_result_resolve)(rnd() % ACCT_RESULT_RESOLVES);
    rc->has_cost = rnd() % 2;
    if (rc->has_cost) {
        rc->experiments = rnd() % 100000;
        rc->seconds = rnd_double();
        rc->search_experiments = rnd() % 100000;
        rc->search_seconds = rnd_double();
    }
    rc->nf = 1 + rnd() % 6;
    rc->f = xcalloc(rc->nf, sizeof(*rc->f));
    size_t w = rnd() % rc->nf;
    for (size_t k = 0; k < rc->nf; k++) {
        struct acct_result_finalist *f = &rc->f[k];
        f->d.alg = rnd_alg(rc->coll);
        if ((f->d.alg->flags & ACCT_ALG_SEGMENTED) && rnd() % 2)
            f->d.segment_bytes = rnd() % (ACCT_RULES_MAX_SEGMENT + 1);
        f->verdict = k == w ? ACCT_RESULT_WINNER
                            : (enum acct_result_verdict)(1 + rnd() % (ACCT_RESULT_VERDICTS - 1));
        do
            f->ratio = rnd_double();
        while (!(f->ratio > 0));
        f->p = (double)(rnd() % 1000001) / 1e6;
    }
    /* the times per round, on every finalist or none (acct-tune writes them
     * on all; the format allows any), for races of a few rounds */
    if (rc->rounds <= 24 && rnd() % 2)
        for (size_t k = 0; k < rc->nf; k++) {
            struct acct_result_finalist *f = &rc->f[k];
            f->nrounds = rc->rounds;
            f->round_us = xcalloc((size_t)ACCT_RESULT_VIEWS * rc->rounds, sizeof(double));
            for (size_t j = 0; j < (size_t)ACCT_RESULT_VIEWS * rc->rounds; j++)
                f->round_us[j] = rnd() % 8 ? rnd_double() : 0.0;
        }
    /* the search's pick: on one finalist (not a twin), or none */
    size_t sp = rnd() % (rc->nf + 1);
    if (sp < rc->nf && rc->f[sp].verdict != ACCT_RESULT_TWIN)
        rc->f[sp].search_pick = true;
}


/* A valid result of n random points (its rules: the minimal file's). */
static struct acct_result *rnd_result(size_t n)
{
    static const char rules[] =
        "acct_rules: 1\n"
        "provenance: {partition: eth, interconnect: ib-hdr, version: 3, source: measured, "
        "created: \"2026-11-22T15:09:12Z\", tuning_run: r-rnd, layout: {ranks_per_node: [1, 4]}}\n"
        "collectives:\n"
        "  bcast:\n"
        "    - {comm_size: [2, 8], bytes: [64K, 1M], algorithm: pipeline, segment: 8K}\n"
        "    - {comm_size: [9, max], algorithm: knomial, fanout: 8, reorder: true}\n"
        "  barrier: [{comm_size: [2, max], algorithm: dissemination}]\n";
    struct acct_result *r = xcalloc(1, sizeof(*r));
    assert_int_equal(acct_rules_parse_buffer("r", rules, sizeof(rules) - 1, &r->rules, NULL),
                     ACCT_RULES_OK);
    snprintf(r->id, sizeof(r->id), "r-rnd");
    snprintf(r->partition, sizeof(r->partition), "eth");
    snprintf(r->interconnect, sizeof(r->interconnect), "ib-hdr");
    snprintf(r->started, sizeof(r->started), "2026-02-28T23:59:59Z");
    snprintf(r->finished, sizeof(r->finished), "2026-03-01T00:00:00Z");
    r->complete = rnd() % 2;
    snprintf(r->strategy, sizeof(r->strategy), "hybrid");
    r->source = (enum acct_result_source)(rnd() % 3);
    r->budget_s = rnd() % 2 ? rnd_double() + DBL_MIN : 0;
    r->experiment_s = rnd_double();
    r->experiments = rnd() >> 1;
    r->cond.nhosts = 1 + rnd() % 16;
    r->cond.hosts = xcalloc(r->cond.nhosts, sizeof(*r->cond.hosts));
    for (size_t i = 0; i < r->cond.nhosts; i++)
        snprintf(r->cond.hosts[i], sizeof(r->cond.hosts[i]), "node-%zu.cluster_a+b", i);
    r->cond.ranks = 64;
    r->cond.ranks_per_node = 4;
    r->cond.placement = (enum acct_placement)(ACCT_PLACEMENT_BLOCK + rnd() % 3);
    snprintf(r->cond.mpi_library, sizeof(r->cond.mpi_library), "Open MPI \"4.1.4\" \\ %s",
             "#: {not yaml}, [x]");
    snprintf(r->cond.acct_version, sizeof(r->cond.acct_version), "0.1.0");
    if (rnd() % 2)
        snprintf(r->cond.slurm_job_id, sizeof(r->cond.slurm_job_id), "%d", 1234);
    r->model.present = rnd() % 2;
    if (r->model.present) {
        r->model.L_us = rnd_double();
        r->model.o_us = rnd_double();
        r->model.g_us = rnd_double();
        r->model.G_us_per_byte = rnd_double();
    }
    r->npoints = n;
    r->points = xcalloc(n > 0 ? n : 1, sizeof(*r->points));
    for (size_t i = 0; i < n; i++)
        rnd_point(&r->points[i], r->cond.ranks);
    r->nraces = rnd() % 4;
    r->races = r->nraces ? xcalloc(r->nraces, sizeof(*r->races)) : NULL;
    for (size_t i = 0; i < r->nraces; i++)
        rnd_race(&r->races[i], r->cond.ranks);
    r->noise.present = rnd() % 2;
    if (r->noise.present) {
        r->noise.repeat_spread = rnd_double();
        r->noise.repeat_spread_p90 = rnd_double();
        r->noise.aa_pairs = (uint32_t)(rnd() % 3);
        if (r->noise.aa_pairs > 0) {
            double a = rnd_double(), b = rnd_double();
            r->noise.aa_spread = a < b ? a : b;
            r->noise.aa_spread_max = a < b ? b : a;
        }
        r->noise.nload = rnd() % 3;
        r->noise.load = xcalloc(r->noise.nload + 1, sizeof(*r->noise.load));
        for (size_t i = 0; i < r->noise.nload; i++) {
            snprintf(r->noise.load[i].host, sizeof(r->noise.load[i].host), "node-%zu", i);
            r->noise.load[i].start = rnd_double();
            r->noise.load[i].end = rnd_double();
        }
    }
    return r;
}

static void test_roundtrip_random(void **state)
{
    (void)state;
    for (int i = 0; i < 50; i++) {
        struct acct_result *r = rnd_result((size_t)(rnd() % 200));
        check_roundtrip(r);
        acct_result_free(r);
    }
}

static void test_equal(void **state)
{
    (void)state;
    struct acct_result *a = rnd_result(3), *b;
    size_t len;
    char *text = write_text(a, &len);
    b = parse_ok_len(text, len);
    assert_true(acct_result_equal(a, b));
#define DIFFERS(stmt)                                                          \
    do {                                                                       \
        acct_result_free(b);                                                   \
        b = parse_ok_len(text, len);                                           \
        stmt;                                                                  \
        assert_false(acct_result_equal(a, b));                                 \
        assert_false(acct_result_equal(b, a));                                 \
    } while (0)
    DIFFERS(b->id[0] = 'x');
    DIFFERS(b->complete = !b->complete);
    DIFFERS(b->experiment_s = nextafter(b->experiment_s, INFINITY));
    DIFFERS(b->cond.hosts[0][0] = 'x');
    DIFFERS(b->cond.placement = ACCT_PLACEMENT_NONE);
    DIFFERS(b->model.present = !b->model.present);
    DIFFERS(b->points[2].q3_us = nextafter(b->points[2].q3_us, INFINITY));
    DIFFERS(b->points[1].d.reorder = !b->points[1].d.reorder);
    DIFFERS(b->npoints--);
    DIFFERS(b->rules->prov.version++);
#undef DIFFERS
    acct_result_free(b);
    acct_result_free(a);
    free(text);
}

/* The canonical text of the doc's example, line by line. */
static void test_canonical_text(void **state)
{
    (void)state;
    struct acct_result *r = parse_ok(
        RESULT_HEAD
        "measurements:\n"
        "  - {collective: bcast, comm_size: 8, bytes: 1048576, algorithm: pipeline, segment: 8192,"
        " reps: 20, median_us: 14400.50, q1_us: 14211.0, q3_us: 1.47062e4, min_us: 14102.9,"
        " max_us: 15990.1}\n"
        "  - {collective: bcast, comm_size: 8, bytes: 1M, algorithm: chain, modelled: true,"
        " median_us: 0.1, q1_us: 0.1, q3_us: 0.1, min_us: 0.1, max_us: 0.1}\n"
        "  - {collective: bcast, comm_size: 8, bytes: 1M, algorithm: chain, modelled: true,"
        " median_us: 0.3, q1_us: 0.2, q3_us: 0.30000000000000004, min_us: 0.1, max_us: 1e300}\n"
        RESULT_RULES);
    char *text = write_text(r, NULL);
    assert_string_equal(
        text,
        "# ACCT tuning result (schema version 1, see docs/tuning-result.md)\n"
        "acct_tuning_result: 1\n"
        "run:\n"
        "  id: \"r-1\"\n"
        "  partition: \"eth\"\n"
        "  interconnect: \"tcp-1g\"\n"
        "  started: \"2026-11-22T15:00:00Z\"\n"
        "  finished: \"2026-11-22T15:09:12Z\"\n"
        "  complete: true\n"
        "  strategy: \"smgd\"\n"
        "  source: measured\n"
        "  experiment_seconds: 1.5\n"
        "  experiments: 2\n"
        "conditions:\n"
        "  hosts:\n"
        "    - \"n1\"\n"
        "    - \"n2\"\n"
        "    - \"n3\"\n"
        "    - \"n4\"\n"
        "  ranks: 8\n"
        "  ranks_per_node: 2\n"
        "  placement: block\n"
        "  mpi_library: \"Open MPI 4.1.4\"\n"
        "  acct_version: \"0.1.0\"\n"
        "measurements:\n"
        "  - {collective: bcast, comm_size: 8, bytes: 1M, algorithm: pipeline, segment: 8K, "
        "reps: 20, median_us: 14400.5, q1_us: 14211, q3_us: 14706.2, min_us: 14102.9, "
        "max_us: 15990.1}\n"
        "  - {collective: bcast, comm_size: 8, bytes: 1M, algorithm: chain, modelled: true, "
        "median_us: 0.1}\n"
        "  - {collective: bcast, comm_size: 8, bytes: 1M, algorithm: chain, modelled: true, "
        "median_us: 0.3, q1_us: 0.2, q3_us: 0.30000000000000004, min_us: 0.1, max_us: 1e+300}\n"
        "rules:\n"
        "  acct_rules: 1\n"
        "  provenance:\n"
        "    partition: \"eth\"\n"
        "    interconnect: \"tcp-1g\"\n"
        "    version: 1\n"
        "    source: measured\n"
        "    created: \"2026-11-22T15:09:12Z\"\n"
        "    tuning_run: \"r-1\"\n"
        "  collectives: {}\n");
    free(text);
    acct_result_free(r);
}

/* ---- out of memory ----------------------------------------------------- */

/* Fail each allocation of a parse in turn: the parse returns
 * ACCT_RULES_ENOMEM (or still succeeds when the failure only cost a
 * shrinking realloc or a kept message), never crashes, and leaks nothing. */
static void check_oom(const char *src, size_t len, int want_ok)
{
#if OOM_TESTS
    long failures = 0;
    for (long k = 0;; k++) {
        struct acct_diags d = ACCT_DIAGS_INIT;
        struct acct_result *r = NULL;
        long before = live_blocks;
        oom_hit = false;
        oom_countdown = k;
        int rc = acct_result_parse_buffer("t.yaml", src, len, &r, &d);
        oom_countdown = -1;
        if (!oom_hit) { /* k is past the parse's last allocation */
            assert_int_equal(rc, want_ok);
            acct_result_free(r);
            acct_diags_free(&d);
            assert_int_equal(live_blocks, before);
            break;
        }
        if (rc == ACCT_RULES_ENOMEM) {
            failures++;
            assert_null(r);
        } else {
            assert_int_equal(rc, want_ok);
        }
        acct_result_free(r);
        acct_diags_free(&d);
        if (live_blocks != before)
            fprintf(stderr, "allocation %ld failed: rc %d, %ld blocks leaked\n", k, rc,
                    live_blocks - before);
        assert_int_equal(live_blocks, before);
    }
    assert_true(failures > 0);
#else
    (void)src;
    (void)len;
    (void)want_ok;
#endif
}

static void test_out_of_memory(void **state)
{
    (void)state;
    size_t len;
    if (!OOM_TESTS)
        skip(); /* the sanitizers' allocator cannot be replaced */
    char *text = testdata("valid-example.yaml", &len);
    check_oom(text, len, ACCT_RULES_OK);
    free(text);
    text = testdata("invalid-rules.yaml", &len);
    check_oom(text, len, ACCT_RULES_EINVAL);
    free(text);
    /* many measurements: the points array grows */
    struct acct_result *r = rnd_result(300);
    text = write_text(r, &len);
    check_oom(text, len, ACCT_RULES_OK);
    free(text);
    acct_result_free(r);
}

/* ---- the benchmark (not a test) ----------------------------------------- */

/* Seconds of CPU time used by this process (the machines that run the
 * benchmark are shared: wall time measures the neighbours too). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    return cmp_double(a, b);
}

static int bench(size_t n)
{
    enum { REPS = 5 };
    double parse_s[REPS], parse_wall[REPS], write_s[REPS];
    struct acct_result *r = rnd_result(n);
    struct acct_diags d = ACCT_DIAGS_INIT;
    size_t len = 0;
    char *text = NULL;
    int rc = 0;
    for (int i = 0; i < REPS && rc == 0; i++) {
        free(text);
        text = NULL;
        double t0 = cpu_now();
        FILE *f = open_memstream(&text, &len);
        if (f == NULL || acct_result_write(f, r) != 0)
            rc = 1;
        if (f != NULL)
            fclose(f);
        double t1 = cpu_now(), w1 = wall_now();
        struct acct_result *back = NULL;
        if (rc == 0 && acct_result_parse_buffer("bench", text, len, &back, &d) != 0) {
            acct_diags_print(&d, stderr);
            rc = 1;
        }
        double t2 = cpu_now(), w2 = wall_now();
        if (rc == 0 && !acct_result_equal(r, back)) {
            fprintf(stderr, "bench: the parsed result differs from the written one\n");
            rc = 1;
        }
        acct_result_free(back);
        write_s[i] = t1 - t0;
        parse_s[i] = t2 - t1;
        parse_wall[i] = w2 - w1;
    }
    if (rc == 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        qsort(parse_s, REPS, sizeof(double), cmp_d);
        qsort(parse_wall, REPS, sizeof(double), cmp_d);
        qsort(write_s, REPS, sizeof(double), cmp_d);
        printf("%zu measurements, %.1f MiB of YAML, %d runs: parse median %.3f s CPU "
               "[min %.3f, max %.3f] (wall median %.3f s), write median %.3f s CPU; "
               "max RSS of the process %.0f MiB\n",
               n, (double)len / (1 << 20), REPS, parse_s[REPS / 2], parse_s[0],
               parse_s[REPS - 1], parse_wall[REPS / 2], write_s[REPS / 2],
               (double)ru.ru_maxrss / 1024);
    }
    free(text);
    acct_diags_free(&d);
    acct_result_free(r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--bench") == 0)
        return bench((size_t)strtoull(argv[2], NULL, 10));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),
        cmocka_unit_test(test_minimal),
        cmocka_unit_test(test_order_and_styles),
        cmocka_unit_test(test_doc_example),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_model_levels),
        cmocka_unit_test(test_invalid_version),
        cmocka_unit_test(test_invalid_run),
        cmocka_unit_test(test_invalid_measurements),
        cmocka_unit_test(test_invalid_rules),
        cmocka_unit_test(test_invalid_provenance),
        cmocka_unit_test(test_invalid_truncated),
        cmocka_unit_test(test_invalid_races),
        cmocka_unit_test(test_races),
        cmocka_unit_test(test_document_shape),
        cmocka_unit_test(test_unknown_sections),
        cmocka_unit_test(test_measurement_errors),
        cmocka_unit_test(test_conditions_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_roundtrip_random),
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_canonical_text),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
