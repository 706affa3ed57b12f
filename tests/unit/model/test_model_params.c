/* pLogP tables: validation, interpolation, and the pLogP <-> LogGP
 * conversions of March et al., Fig. 2 (docs/models.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "acct/model.h"
#include "model_fixtures.h"

static void interpolation(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_plogp(&mdl, 0, 0);
    const struct acct_plogp *t = &mdl.net;
    /* at the samples */
    assert_close(acct_plogp_g(t, 1024), 12, 0);
    assert_close(acct_plogp_or(t, 65536), 20, 0);
    assert_close(acct_plogp_os(t, 0), 1, 0);
    /* between: linear */
    assert_close(acct_plogp_g(t, 1024 + (16384 - 1024) / 2), 36, 1e-12);
    assert_close(acct_plogp_os(t, 40960), 5, 1e-12); /* 8 -> 2 over 16K..64K */
    /* beyond the last: along the last two samples */
    double slope = (2900.0 - 180.0) / (1048576 - 65536);
    assert_close(acct_plogp_g(t, 2097152), 2900 + slope * 1048576, 1e-9);
    /* below the first (a table starting at 64): constant */
    struct acct_plogp one = {.L_us = 5, .n = 2, .m = {64, 128}, .os_us = {1, 2},
                             .or_us = {1, 2}, .g_us = {3, 4}};
    assert_close(acct_plogp_g(&one, 0), 3, 0);
    assert_close(acct_plogp_g(&one, 96), 3.5, 1e-12);
    /* a falling last segment never extrapolates below the last value */
    struct acct_plogp fall = {.L_us = 5, .n = 2, .m = {64, 128}, .os_us = {2, 1},
                              .or_us = {1, 1}, .g_us = {3, 4}};
    assert_close(acct_plogp_os(&fall, 1u << 20), 1, 0);
    /* a single sample: constant */
    struct acct_plogp single = {.L_us = 5, .n = 1, .m = {8}, .os_us = {1}, .or_us = {1},
                                .g_us = {2}};
    assert_close(acct_plogp_g(&single, 1u << 30), 2, 0);
}

static void check_rejects(void **state)
{
    (void)state;
    char err[128];
    struct acct_model mdl;
    fixture_plogp(&mdl, 0, 0);
    assert_int_equal(acct_plogp_check(&mdl.net, err, sizeof err), 0);
    assert_int_equal(acct_model_check(&mdl, err, sizeof err), 0);

    struct acct_plogp t = mdl.net;
    t.m[3] = t.m[2];
    assert_int_equal(acct_plogp_check(&t, err, sizeof err), -1);
    assert_string_equal(err, "m[3]: sizes must be strictly increasing");
    t = mdl.net;
    t.g_us[5] = NAN;
    assert_int_equal(acct_plogp_check(&t, err, sizeof err), -1);
    assert_string_equal(err, "g_us[5]: not a finite value >= 0");
    t = mdl.net;
    t.or_us[0] = -1;
    assert_int_equal(acct_plogp_check(&t, err, sizeof err), -1);
    assert_string_equal(err, "or_us[0]: not a finite value >= 0");
    t = mdl.net;
    t.n = 0;
    assert_int_equal(acct_plogp_check(&t, err, sizeof err), -1);
    t.n = ACCT_PLOGP_MAX_SIZES + 1;
    assert_int_equal(acct_plogp_check(&t, err, sizeof err), -1);
    t = mdl.net;
    t.L_us = INFINITY;
    assert_int_equal(acct_plogp_check(&t, err, sizeof err), -1);
    assert_int_equal(acct_plogp_check(NULL, err, sizeof err), -1);
    assert_int_equal(acct_plogp_check(&t, NULL, 0), -1); /* no message buffer: fine */

    struct acct_model bad = mdl;
    bad.contention = 1.5;
    assert_int_equal(acct_model_check(&bad, err, sizeof err), -1);
    assert_string_equal(err, "contention: not in [0, 1]");
    bad = mdl;
    bad.delta_us_per_byte = NAN;
    assert_int_equal(acct_model_check(&bad, err, sizeof err), -1);

    struct acct_loggp lg = {.L_us = 1, .o_us = -1, .g_us = 1, .G_us_per_byte = 0};
    assert_int_equal(acct_loggp_to_plogp(&lg, &t), -1);
    t.n = 0;
    assert_int_equal(acct_plogp_to_loggp(&t, &lg), -1);
}

/* March et al., Fig. 2: L = L' + g(1) - os(1) - or(1), o = (os(1) + or(1)) / 2,
 * g = g(1), G = g(m)/m. The one-byte message costs the same in both. */
static void plogp_to_loggp(void **state)
{
    (void)state;
    struct acct_model mdl;
    struct acct_loggp lg;
    fixture_plogp(&mdl, 0, 0);
    assert_int_equal(acct_plogp_to_loggp(&mdl.net, &lg), 0);
    assert_close(lg.L_us, 30 + 5 - 1 - 1, 1e-12);
    assert_close(lg.o_us, 1, 1e-12);
    assert_close(lg.g_us, 5, 1e-12);
    assert_close(lg.G_us_per_byte, 2900.0 / 1048576, 1e-15);
    /* one-way time of one byte: pLogP L' + g(1) == LogGP L + 2o */
    assert_close(mdl.net.L_us + acct_plogp_g(&mdl.net, 1), lg.L_us + 2 * lg.o_us, 1e-12);
}

/* The conversion never yields a negative parameter: overheads above the
 * one-byte time (this project's oversubscribed host measured os(1) + or(1)
 * > L' + g(1)) give L = 0 and o = (L' + g(1)) / 2, keeping L + 2o = L' +
 * g(1); random tables, half of them in that regime, all stay >= 0. */
static void plogp_to_loggp_never_negative(void **state)
{
    (void)state;
    struct acct_model mdl;
    struct acct_loggp lg;
    fixture_plogp(&mdl, 0, 0);
    mdl.net.L_us = 0.5; /* L' + g(1) = 5.5 < os(1) + or(1) = 8 */
    mdl.net.os_us[0] = mdl.net.os_us[1] = 3;
    mdl.net.or_us[0] = mdl.net.or_us[1] = 5;
    assert_int_equal(acct_plogp_to_loggp(&mdl.net, &lg), 0);
    assert_close(lg.L_us, 0, 1e-12);
    assert_close(lg.o_us, 5.5 / 2, 1e-12);
    assert_close(lg.L_us + 2 * lg.o_us, 0.5 + 5, 1e-12);
    unsigned seed = 12345;
    for (int k = 0; k < 2000; k++) {
        struct acct_plogp t = mdl.net;
        seed = seed * 1103515245u + 12345u;
        t.L_us = (double)(seed >> 16 & 1023) / 64.0;
        for (size_t i = 0; i < t.n; i++) {
            seed = seed * 1103515245u + 12345u;
            t.os_us[i] = (double)(seed >> 16 & 1023) / 32.0;
            seed = seed * 1103515245u + 12345u;
            t.or_us[i] = (double)(seed >> 16 & 1023) / 32.0;
            seed = seed * 1103515245u + 12345u;
            t.g_us[i] = (double)(seed >> 16 & 1023) / 32.0;
        }
        assert_int_equal(acct_plogp_to_loggp(&t, &lg), 0);
        assert_true(lg.L_us >= 0 && lg.o_us >= 0 && lg.g_us >= 0 && lg.G_us_per_byte >= 0);
        assert_close(lg.L_us + 2 * lg.o_us, t.L_us + acct_plogp_g(&t, 1), 1e-9);
    }
}

/* LogGP -> pLogP -> LogGP is the identity, and the pLogP form reproduces
 * LogGP's point-to-point time L + 2o + (m - 1)G at every size. Numbers:
 * the blocking values of March et al., Fig. 4 (L 1.95, o 0.65, g 0.65 us) with
 * G of 1 GB/s (the papers give no pLogP sample table to convert). */
static void loggp_roundtrip(void **state)
{
    (void)state;
    struct acct_loggp in = {.L_us = 1.95, .o_us = 0.65, .g_us = 0.65, .G_us_per_byte = 0.001};
    struct acct_loggp out;
    struct acct_plogp t;
    assert_int_equal(acct_loggp_to_plogp(&in, &t), 0);
    assert_int_equal(acct_plogp_check(&t, NULL, 0), 0);
    static const uint64_t ms[] = {1, 2, 8, 1000, 65536, 1u << 20, 1u << 26};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
        double loggp = in.L_us + 2 * in.o_us + (double)(ms[i] - 1) * in.G_us_per_byte;
        assert_close(t.L_us + acct_plogp_g(&t, ms[i]), loggp, 1e-9 * loggp);
        assert_close(acct_plogp_os(&t, ms[i]), in.o_us, 0);
    }
    assert_int_equal(acct_plogp_to_loggp(&t, &out), 0);
    assert_close(out.L_us, in.L_us, 1e-12);
    assert_close(out.o_us, in.o_us, 1e-12);
    assert_close(out.g_us, in.g_us, 1e-12);
    /* G from the largest sample (m = 2): g(2)/2 = (g + G)/2 -- the rule's
     * G(m) = g(m)/m tends to G only for large m; a table with a large
     * sample recovers it */
    assert_close(out.G_us_per_byte, (in.g_us + in.G_us_per_byte) / 2, 1e-12);
    struct acct_plogp big = t;
    big.n = 4;
    big.m[3] = 1u << 24;
    big.os_us[3] = in.o_us;
    big.or_us[3] = in.o_us;
    big.g_us[3] = in.g_us + (double)((1u << 24) - 1) * in.G_us_per_byte;
    assert_int_equal(acct_plogp_to_loggp(&big, &out), 0);
    assert_close(out.G_us_per_byte, in.G_us_per_byte, 1e-4 * in.G_us_per_byte);
}

/* Barchet-Estefanel & Mounié 2004, Table 3: bounds and the contention ratio, by hand. */
static void alltoall_contention(void **state)
{
    (void)state;
    struct acct_model mdl;
    double lo, hi;
    fixture_plogp(&mdl, 0, 0);
    /* m = 1024: os 2, or 3, g 12, L 30; P = 24 as in the paper's Fig. 10 */
    double t = acct_model_alltoall_contention(24, 1024, &mdl, &lo, &hi);
    assert_close(lo, 23 * 2 + 23 * 3 + 30, 1e-12);
    assert_close(hi, 23 * 12 + 23 * 3 + 30, 1e-12);
    assert_close(t, lo + (hi - lo) * 0.4, 1e-12);
    mdl.contention = 1;
    assert_close(acct_model_alltoall_contention(24, 1024, &mdl, NULL, NULL), hi, 1e-12);
    assert_close(acct_model_alltoall_contention(1, 1024, &mdl, NULL, NULL), 0, 0);
    assert_true(isnan(acct_model_alltoall_contention(0, 1024, &mdl, NULL, NULL)));
    mdl.contention = -0.1;
    assert_true(isnan(acct_model_alltoall_contention(4, 1024, &mdl, NULL, NULL)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interpolation),
        cmocka_unit_test(check_rejects),
        cmocka_unit_test(plogp_to_loggp),
        cmocka_unit_test(plogp_to_loggp_never_negative),
        cmocka_unit_test(loggp_roundtrip),
        cmocka_unit_test(alltoall_contention),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
