/* Unit tests for acct/stats.h: summary statistics and byte sizes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "acct/common.h"
#include "acct/stats.h"

#define EPS 1e-12
#define ERRLEN 256

/* ---- statistics ---------------------------------------------------------- */

static void test_summary_odd(void **state)
{
    (void)state;
    /* Unsorted on purpose; sorted: 1 2 3 4 5. */
    const double x[] = { 4.0, 1.0, 5.0, 3.0, 2.0 };
    struct acct_summary s;

    assert_int_equal(acct_stats_summarize(x, ACCT_ARRAY_LEN(x), ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_OK);
    assert_int_equal(s.n, 5);
    assert_int_equal(s.kept, 5);
    assert_int_equal(s.dropped, 0);
    assert_float_equal(s.min, 1.0, EPS);
    assert_float_equal(s.max, 5.0, EPS);
    assert_float_equal(s.mean, 3.0, EPS);
    assert_float_equal(s.median, 3.0, EPS);
    assert_float_equal(s.p25, 2.0, EPS); /* h = 1 */
    assert_float_equal(s.p75, 4.0, EPS); /* h = 3 */
    assert_float_equal(s.rel_iqr, 2.0 / 3.0, EPS);
    assert_float_equal(s.fence, 4.0 + 3.0 * 2.0, EPS);
    /* The input is left as it was. */
    assert_float_equal(x[0], 4.0, EPS);
}

static void test_summary_even(void **state)
{
    (void)state;
    const double x[] = { 10.0, 40.0, 20.0, 30.0 };
    struct acct_summary s;

    assert_int_equal(acct_stats_summarize(x, ACCT_ARRAY_LEN(x), ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_OK);
    assert_int_equal(s.kept, 4);
    assert_float_equal(s.median, 25.0, EPS);  /* mean of the two middle ones */
    assert_float_equal(s.p25, 17.5, EPS);     /* h = 0.75: 10 + 0.75 * 10 */
    assert_float_equal(s.p75, 32.5, EPS);     /* h = 2.25: 30 + 0.25 * 10 */
    assert_float_equal(s.mean, 25.0, EPS);
}

static void test_summary_single(void **state)
{
    (void)state;
    const double x[] = { 7.5 };
    struct acct_summary s;

    assert_int_equal(acct_stats_summarize(x, 1, ACCT_STATS_OUTLIER_K, &s), ACCT_STATS_OK);
    assert_int_equal(s.kept, 1);
    assert_float_equal(s.min, 7.5, EPS);
    assert_float_equal(s.max, 7.5, EPS);
    assert_float_equal(s.median, 7.5, EPS);
    assert_float_equal(s.p25, 7.5, EPS);
    assert_float_equal(s.p75, 7.5, EPS);
    assert_float_equal(s.rel_iqr, 0.0, EPS);
}

static void test_summary_duplicates(void **state)
{
    (void)state;
    /* All equal: IQR 0, fence = Q3, nothing is strictly above it. */
    const double same[] = { 2.0, 2.0, 2.0, 2.0, 2.0, 2.0 };
    /* Ties in the middle. */
    const double ties[] = { 1.0, 3.0, 3.0, 3.0, 9.0 };
    struct acct_summary s;

    assert_int_equal(acct_stats_summarize(same, ACCT_ARRAY_LEN(same), ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_OK);
    assert_int_equal(s.dropped, 0);
    assert_float_equal(s.median, 2.0, EPS);
    assert_float_equal(s.p25, 2.0, EPS);
    assert_float_equal(s.p75, 2.0, EPS);
    assert_float_equal(s.rel_iqr, 0.0, EPS);

    /* Q1 = Q3 = 3, so the fence is 3 and 9 is dropped: with a zero IQR any
     * sample above the plateau counts as an outlier. */
    assert_int_equal(acct_stats_summarize(ties, ACCT_ARRAY_LEN(ties), ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_OK);
    assert_int_equal(s.dropped, 1);
    assert_float_equal(s.max, 3.0, EPS);
    assert_float_equal(s.median, 3.0, EPS);
    assert_float_equal(s.mean, 2.5, EPS);
}

static void test_summary_outliers(void **state)
{
    (void)state;
    /* Sorted: 10 10 11 11 12 12 13 13 100 500. Q1 = 11 (h = 2.25), Q3 = 13
     * (h = 6.75), IQR = 2, fence = 13 + 3 * 2 = 19: two dropped. */
    const double x[] = { 10.0, 500.0, 11.0, 12.0, 13.0, 10.0, 11.0, 100.0, 12.0, 13.0 };
    struct acct_summary s;

    assert_int_equal(acct_stats_summarize(x, ACCT_ARRAY_LEN(x), ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_OK);
    assert_int_equal(s.n, 10);
    assert_int_equal(s.kept, 8);
    assert_int_equal(s.dropped, 2);
    assert_float_equal(s.fence, 19.0, EPS);
    assert_float_equal(s.max, 13.0, EPS);
    assert_float_equal(s.min, 10.0, EPS);
    assert_float_equal(s.median, 11.5, EPS);
    assert_float_equal(s.mean, 11.5, EPS);

    /* Keeping everything: the slow samples count. */
    assert_int_equal(acct_stats_summarize(x, ACCT_ARRAY_LEN(x), ACCT_STATS_KEEP_ALL, &s),
                     ACCT_STATS_OK);
    assert_int_equal(s.dropped, 0);
    assert_float_equal(s.max, 500.0, EPS);
    assert_true(isinf(s.fence));
    assert_int_equal(acct_stats_summarize(x, ACCT_ARRAY_LEN(x), INFINITY, &s), ACCT_STATS_OK);
    assert_int_equal(s.dropped, 0);

    /* Low values are never dropped. */
    const double low[] = { 0.001, 10.0, 10.0, 10.0, 10.0, 10.0 };
    assert_int_equal(acct_stats_summarize(low, ACCT_ARRAY_LEN(low), ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_OK);
    assert_int_equal(s.dropped, 0);
    assert_float_equal(s.min, 0.001, EPS);
}

static void test_summary_invalid(void **state)
{
    (void)state;
    const double x[] = { 1.0, 2.0 };
    const double with_nan[] = { 1.0, NAN };
    const double with_inf[] = { 1.0, INFINITY };
    struct acct_summary s;

    memset(&s, 0x5a, sizeof(s));
    assert_int_equal(acct_stats_summarize(NULL, 2, ACCT_STATS_OUTLIER_K, &s), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_summarize(x, 0, ACCT_STATS_OUTLIER_K, &s), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_summarize(x, 2, ACCT_STATS_OUTLIER_K, NULL), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_summarize(x, 2, -1.0, &s), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_summarize(x, 2, NAN, &s), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_summarize(with_nan, 2, ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_summarize(with_inf, 2, ACCT_STATS_OUTLIER_K, &s),
                     ACCT_STATS_EINVAL);
    /* *out untouched on failure. */
    unsigned char pattern[sizeof(s)];
    memset(pattern, 0x5a, sizeof(pattern));
    assert_memory_equal(&s, pattern, sizeof(s));
    assert_string_equal(acct_stats_strerror(ACCT_STATS_EINVAL), "invalid argument");
    assert_string_equal(acct_stats_strerror(12345), "unknown error");
}

static void test_quantile_sorted(void **state)
{
    (void)state;
    const double x[] = { 1.0, 2.0, 4.0, 8.0 };
    double q = -1.0;

    assert_int_equal(acct_stats_quantile_sorted(x, 4, 0.0, &q), ACCT_STATS_OK);
    assert_float_equal(q, 1.0, EPS);
    assert_int_equal(acct_stats_quantile_sorted(x, 4, 1.0, &q), ACCT_STATS_OK);
    assert_float_equal(q, 8.0, EPS);
    assert_int_equal(acct_stats_quantile_sorted(x, 4, 0.5, &q), ACCT_STATS_OK);
    assert_float_equal(q, 3.0, EPS);
    assert_int_equal(acct_stats_quantile_sorted(x, 4, 0.9, &q), ACCT_STATS_OK);
    assert_float_equal(q, 4.0 + 0.7 * 4.0, EPS); /* h = 2.7 */
    assert_int_equal(acct_stats_quantile_sorted(x, 4, 1.5, &q), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_quantile_sorted(x, 4, -0.1, &q), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_quantile_sorted(x, 4, NAN, &q), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_quantile_sorted(x, 0, 0.5, &q), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_quantile_sorted(NULL, 4, 0.5, &q), ACCT_STATS_EINVAL);
    assert_int_equal(acct_stats_quantile_sorted(x, 4, 0.5, NULL), ACCT_STATS_EINVAL);
}

/* ---- byte sizes ---------------------------------------------------------- */

static void test_size_valid(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t bytes;
    } cases[] = {
        { "8", 8 },
        { "1B", 1 },
        { "64K", 64ULL << 10 },
        { "64k", 64ULL << 10 },
        { "64KB", 64ULL << 10 },
        { "64KiB", 64ULL << 10 },
        { "1M", 1ULL << 20 },
        { "1MiB", 1ULL << 20 },
        { "1mib", 1ULL << 20 },
        { "3G", 3ULL << 30 },
        { "2T", 2ULL << 40 },
        { "007", 7 },
        { "18446744073709551615", UINT64_MAX },
        { "16777215T", 16777215ULL << 40 },
    };

    for (size_t i = 0; i < ACCT_ARRAY_LEN(cases); i++) {
        uint64_t v = 0;
        char err[ERRLEN] = "";
        int rc = acct_size_parse(cases[i].text, &v, err, sizeof(err));
        if (rc != ACCT_STATS_OK)
            fail_msg("\"%s\": %s", cases[i].text, err);
        assert_int_equal(v, cases[i].bytes);
    }
}

/* A text a parser must refuse with rc, quoting `quoted` in its message. */
struct bad_text {
    const char *text;
    int rc;
    const char *quoted;
};

static void expect_quoted(const char *text, const char *err, const char *quoted)
{
    if (strstr(err, quoted) == NULL)
        fail_msg("message for \"%s\" does not quote \"%s\": %s", text, quoted, err);
}

/* Parse must fail with rc, leave *out alone, and quote `quoted` in the message. */
static void expect_size_error(const char *text, int rc, const char *quoted)
{
    uint64_t v = 42;
    char err[ERRLEN] = "";
    int got = acct_size_parse(text, &v, err, sizeof(err));

    if (got != rc || v != 42)
        fail_msg("\"%s\": rc %d (want %d), value %llu (want 42 untouched): %s", text, got, rc,
                 (unsigned long long)v, err);
    expect_quoted(text, err, quoted);
}

static void test_size_invalid(void **state)
{
    (void)state;
    static const struct bad_text bad[] = {
        {"", ACCT_STATS_EINVAL, "empty size"},
        {"12Q", ACCT_STATS_EINVAL, "\"Q\""},
        {"12Q", ACCT_STATS_EINVAL, "\"12Q\""},
        {"0", ACCT_STATS_ERANGE, "\"0\""},
        {"0K", ACCT_STATS_ERANGE, "\"0K\""},
        {"-8", ACCT_STATS_EINVAL, "\"-8\""},
        {"+8", ACCT_STATS_EINVAL, "\"+8\""},
        {" 8", ACCT_STATS_EINVAL, "\" 8\""},
        {"8 ", ACCT_STATS_EINVAL, "\"8 \""},
        {"1.5K", ACCT_STATS_EINVAL, "\"1.5K\""},
        {"K", ACCT_STATS_EINVAL, "\"K\""},
        {"8KK", ACCT_STATS_EINVAL, "\"KK\""},
        {"8Kib2", ACCT_STATS_EINVAL, "\"8Kib2\""},
        {"18446744073709551616", ACCT_STATS_ERANGE, "too large"},
        {"99999999999999999999999", ACCT_STATS_ERANGE, "too large"},
        {"16777216T", ACCT_STATS_ERANGE, "\"16777216T\""},
        {"8:16", ACCT_STATS_EINVAL, "\"8:16\""}, /* a list, not a size */
    };
    for (size_t i = 0; i < ACCT_ARRAY_LEN(bad); i++)
        expect_size_error(bad[i].text, bad[i].rc, bad[i].quoted);

    /* NULL arguments and a NULL error buffer are fine. */
    uint64_t v = 0;
    assert_int_equal(acct_size_parse(NULL, &v, NULL, 0), ACCT_STATS_EINVAL);
    assert_int_equal(acct_size_parse("8", NULL, NULL, 0), ACCT_STATS_EINVAL);
    assert_int_equal(acct_size_parse("x", &v, NULL, 0), ACCT_STATS_EINVAL);
    /* A tiny buffer is truncated, not overrun. */
    char tiny[4] = "zzz";
    assert_int_equal(acct_size_parse("12Q", &v, tiny, sizeof(tiny)), ACCT_STATS_EINVAL);
    assert_int_equal(strlen(tiny), 3);
}

static void expect_list(const char *text, const uint64_t *want, size_t n)
{
    struct acct_size_list l = { NULL, 0 };
    char err[ERRLEN] = "";
    int rc = acct_size_list_parse(text, &l, err, sizeof(err));

    if (rc != ACCT_STATS_OK)
        fail_msg("\"%s\": %s", text, err);
    assert_int_equal(l.n, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(l.v[i], want[i]);
    acct_size_list_free(&l);
    assert_null(l.v);
    assert_int_equal(l.n, 0);
}

static void test_size_list_valid(void **state)
{
    (void)state;
    const uint64_t one[] = { 4096 };
    const uint64_t doubling[] = { 8, 16, 32, 64, 128, 256, 512, 1024 };
    const uint64_t upto_1m[] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                                 16384, 32768, 65536, 131072, 262144, 524288, 1048576 };
    const uint64_t not_reached[] = { 3, 6, 12 };
    const uint64_t by4[] = { 1, 4, 16, 64 };
    const uint64_t equal[] = { 64 };
    const uint64_t mixed[] = { 1, 100, 1024, 2048, 4096, 100 };
    const uint64_t top[] = { 1ULL << 62, 1ULL << 63 };

    expect_list("4K", one, ACCT_ARRAY_LEN(one));
    expect_list("8:1K", doubling, ACCT_ARRAY_LEN(doubling));
    expect_list("8:1M", upto_1m, ACCT_ARRAY_LEN(upto_1m));
    expect_list("3:20", not_reached, ACCT_ARRAY_LEN(not_reached));
    expect_list("1:100:4", by4, ACCT_ARRAY_LEN(by4));
    expect_list("64:64", equal, ACCT_ARRAY_LEN(equal));
    expect_list("1,100,1K:4K,100", mixed, ACCT_ARRAY_LEN(mixed));
    /* Doubling stops at the top of the range without overflowing. */
    expect_list("4194304T:18446744073709551615", top, ACCT_ARRAY_LEN(top));
}

static void expect_list_error(const char *text, int rc, const char *quoted)
{
    struct acct_size_list l = { NULL, 0 };
    char err[ERRLEN] = "";
    int got = acct_size_list_parse(text, &l, err, sizeof(err));

    if (got != rc || l.v != NULL || l.n != 0)
        fail_msg("\"%s\": rc %d (want %d), %zu sizes (want none): %s", text, got, rc, l.n, err);
    expect_quoted(text, err, quoted);
}

static void test_size_list_invalid(void **state)
{
    (void)state;
    static const struct bad_text bad[] = {
        {"", ACCT_STATS_EINVAL, "empty size list"},
        {"8,", ACCT_STATS_EINVAL, "empty item"},
        {",8", ACCT_STATS_EINVAL, "empty item"},
        {"8,,16", ACCT_STATS_EINVAL, "empty item"},
        {"8,12Q,16", ACCT_STATS_EINVAL, "\"12Q\""},
        {"1M:8", ACCT_STATS_ERANGE, "\"1M:8\""},
        {"1M:8", ACCT_STATS_ERANGE, "FROM is larger than TO"},
        {"0:8", ACCT_STATS_ERANGE, "\"0\""},
        {"8:0", ACCT_STATS_ERANGE, "\"0\""},
        {":8", ACCT_STATS_EINVAL, "empty size"},
        {"8:", ACCT_STATS_EINVAL, "empty size"},
        {"-8:16", ACCT_STATS_EINVAL, "\"-8\""},
        {"8:16:1", ACCT_STATS_ERANGE, "FACTOR"},
        {"8:16:0", ACCT_STATS_ERANGE, "FACTOR"},
        {"8:16:x", ACCT_STATS_EINVAL, "FACTOR"},
        {"8:16:", ACCT_STATS_EINVAL, "FACTOR"},
        {"8:16:2:2", ACCT_STATS_EINVAL, "\"8:16:2:2\""},
        {"8:99999999999999999999", ACCT_STATS_ERANGE, "too large"},
    };
    for (size_t i = 0; i < ACCT_ARRAY_LEN(bad); i++)
        expect_list_error(bad[i].text, bad[i].rc, bad[i].quoted);

    struct acct_size_list l = { NULL, 0 };
    assert_int_equal(acct_size_list_parse(NULL, &l, NULL, 0), ACCT_STATS_EINVAL);
    assert_int_equal(acct_size_list_parse("8", NULL, NULL, 0), ACCT_STATS_EINVAL);
    acct_size_list_free(NULL);
}

static void test_size_list_too_long(void **state)
{
    (void)state;
    /* ACCT_SIZE_LIST_MAX + 1 items "1,1,...,1". */
    static char text[2 * (ACCT_SIZE_LIST_MAX + 1)];
    for (size_t i = 0; i < ACCT_SIZE_LIST_MAX + 1; i++) {
        text[2 * i] = '1';
        text[2 * i + 1] = ',';
    }
    text[sizeof(text) - 1] = '\0';
    expect_list_error(text, ACCT_STATS_ERANGE, "more than");
    text[2 * ACCT_SIZE_LIST_MAX - 1] = '\0'; /* exactly the maximum */
    struct acct_size_list l = { NULL, 0 };
    assert_int_equal(acct_size_list_parse(text, &l, NULL, 0), ACCT_STATS_OK);
    assert_int_equal(l.n, ACCT_SIZE_LIST_MAX);
    acct_size_list_free(&l);
}

static void test_size_format(void **state)
{
    (void)state;
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        { 0, "0" },
        { 1, "1" },
        { 1000, "1000" },
        { 1024, "1K" },
        { 1536, "1536" },
        { 65536, "64K" },
        { 1ULL << 20, "1M" },
        { 3ULL << 30, "3G" },
        { 5ULL << 40, "5T" },
        { 1ULL << 50, "1024T" },
        { UINT64_MAX, "18446744073709551615" },
    };
    char buf[ACCT_SIZE_FORMAT_LEN];

    for (size_t i = 0; i < ACCT_ARRAY_LEN(cases); i++) {
        assert_int_equal(acct_size_format(cases[i].bytes, buf, sizeof(buf)), ACCT_STATS_OK);
        assert_string_equal(buf, cases[i].text);
        if (cases[i].bytes != 0) {
            uint64_t back = 0;
            assert_int_equal(acct_size_parse(buf, &back, NULL, 0), ACCT_STATS_OK);
            assert_int_equal(back, cases[i].bytes);
        }
    }
    char small[3];
    assert_int_equal(acct_size_format(1ULL << 20, small, sizeof(small)), ACCT_STATS_OK);
    assert_string_equal(small, "1M");
    assert_int_equal(acct_size_format(1000, small, sizeof(small)), ACCT_STATS_ERANGE);
    assert_int_equal(acct_size_format(1, NULL, 0), ACCT_STATS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_odd),
        cmocka_unit_test(test_summary_even),
        cmocka_unit_test(test_summary_single),
        cmocka_unit_test(test_summary_duplicates),
        cmocka_unit_test(test_summary_outliers),
        cmocka_unit_test(test_summary_invalid),
        cmocka_unit_test(test_quantile_sorted),
        cmocka_unit_test(test_size_valid),
        cmocka_unit_test(test_size_invalid),
        cmocka_unit_test(test_size_list_valid),
        cmocka_unit_test(test_size_list_invalid),
        cmocka_unit_test(test_size_list_too_long),
        cmocka_unit_test(test_size_format),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
