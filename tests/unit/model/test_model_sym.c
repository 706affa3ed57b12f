/* The symmetric view (docs/models.md): for every registry row that claims
 * a symmetry (struct acct_alg.symmetry), rank 0's view alone gives the full
 * simulation's time to 1e-9 relative, over many sizes, message sizes,
 * segment sizes and four parameter sets; a row without the claim gets no
 * symmetric view, and a false claim is caught by the sampled check. Also:
 * the memory budget refuses before building, the source is reported, and
 * predictions answer at 1 048 576 ranks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "acct/model.h"
#include "model_fixtures.h"

static void model_set(int which, struct acct_model *mdl)
{
    switch (which) {
    case 0: fixture_loggp(mdl, 0, 0); break;
    case 1: fixture_loggp(mdl, 0.002, 0); break;
    case 2: fixture_plogp(mdl, 0, 0); break;
    default: fixture_plogp(mdl, 0.003, 0.001); break;
    }
}

static void symmetric_equals_full(void **state)
{
    (void)state;
    static const int ps[] = {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 31, 32, 64, 96, 128};
    static const uint64_t ms[] = {1, 64, 1000, 4096, 65536, 1u << 20};
    static const uint64_t segs[] = {0, 1024, 8192};
    char err[256];
    int claimed = 0, bad = 0;
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++) {
        if (a->symmetry == ACCT_SYM_NONE)
            continue;
        claimed++;
        int points = 0, refused = 0;
        for (int w = 0; w < 4; w++) {
            struct acct_model mdl;
            model_set(w, &mdl);
            for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++)
                for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
                    for (size_t si = 0; si < sizeof segs / sizeof *segs; si++) {
                        int p = ps[pi];
                        uint64_t m = ms[mi];
                        if ((uint64_t)p * m > (8u << 20) || (p > 32 && m > 65536))
                            continue;
                        if (segs[si] && !(a->flags & ACCT_ALG_SEGMENTED))
                            continue;
                        struct acct_decision d = {.alg = a, .segment_bytes = segs[si]};
                        struct acct_call c;
                        acct_model_call(a->coll, &d, p, m, 0, &c);
                        if (!acct_alg_applicable(a, &c, NULL))
                            continue;
                        double full = NAN, sym = NAN;
                        enum acct_model_source how;
                        if (acct_model_simulate_view(a, &c, &mdl, ACCT_MODEL_VIEW_FULL, &full, &how,
                                                     err, sizeof err) != 0)
                            fail_msg("%s/%s P=%d m=%llu: full: %s", acct_coll_name(a->coll),
                                     a->name, p, (unsigned long long)m, err);
                        assert_int_equal(how, ACCT_MODEL_SIMULATED);
                        if (acct_model_simulate_view(a, &c, &mdl, ACCT_MODEL_VIEW_SYMMETRIC, &sym,
                                                     &how, err, sizeof err) != 0) {
                            /* only the call-dependent conditions may refuse */
                            if (strstr(err, "no symmetric view") == NULL)
                                fail_msg("%s/%s P=%d m=%llu: %s", acct_coll_name(a->coll),
                                         a->name, p, (unsigned long long)m, err);
                            refused++;
                            continue;
                        }
                        assert_int_equal(how, ACCT_MODEL_SYMMETRIC);
                        double rel = full > 0 ? fabs(sym - full) / full : fabs(sym - full);
                        if (!(rel < 1e-9))
                            fail_msg("%s/%s P=%d m=%llu seg=%llu set %d: symmetric %.12g, full "
                                     "%.12g", acct_coll_name(a->coll), a->name, p,
                                     (unsigned long long)m, (unsigned long long)segs[si], w, sym,
                                     full);
                        points++;
                    }
        }
        printf("%s/%s: %d points equal, %d calls without a symmetric view\n",
               acct_coll_name(a->coll), a->name, points, refused);
        if (points < 40)
            bad++;
    }
    assert_int_equal(bad, 0);
    assert_true(claimed >= 10);
}

/* Rows without the claim, and calls that break it, get no symmetric view. */
static void refusals(void **state)
{
    (void)state;
    struct acct_model mdl;
    char err[256];
    double t;
    enum acct_model_source how;
    fixture_loggp(&mdl, 0, 0);
    struct acct_call c;
    const struct acct_alg *bin = acct_alg_find(ACCT_COLL_bcast, "binomial");
    struct acct_decision d = {.alg = bin};
    acct_model_call(ACCT_COLL_bcast, &d, 16, 4096, 0, &c);
    assert_int_equal(acct_model_simulate_view(bin, &c, &mdl, ACCT_MODEL_VIEW_SYMMETRIC, &t, &how,
                                              err, sizeof err), -1);
    assert_non_null(strstr(err, "not symmetric (registry)"));
    assert_int_equal(how, ACCT_MODEL_NONE);
    /* XOR symmetry on 12 ranks: no */
    const struct acct_alg *rd = acct_alg_find(ACCT_COLL_barrier, "recursive_doubling");
    d.alg = rd;
    acct_model_call(ACCT_COLL_barrier, &d, 12, 0, 0, &c);
    assert_int_equal(acct_model_simulate_view(rd, &c, &mdl, ACCT_MODEL_VIEW_SYMMETRIC, &t, &how,
                                              err, sizeof err), -1);
    assert_non_null(strstr(err, "power-of-two"));
    /* AUTO then simulates every rank */
    assert_int_equal(acct_model_simulate_view(rd, &c, &mdl, ACCT_MODEL_VIEW_AUTO, &t, &how, err,
                                              sizeof err), 0);
    assert_int_equal(how, ACCT_MODEL_SIMULATED);
    /* A false claim (a rooted tree called symmetric) fails the sampled check. */
    struct acct_alg liar = *bin;
    liar.symmetry = ACCT_SYM_SHIFT;
    acct_model_call(ACCT_COLL_bcast, &d, 1000, 4096, 0, &c);
    assert_int_equal(acct_model_simulate_view(&liar, &c, &mdl, ACCT_MODEL_VIEW_SYMMETRIC, &t, &how,
                                              err, sizeof err), -1);
    assert_non_null(strstr(err, "not rank 0's relabelled"));
    liar.symmetry = ACCT_SYM_XOR;
    acct_model_call(ACCT_COLL_bcast, &d, 1024, 4096, 0, &c);
    assert_int_equal(acct_model_simulate_view(&liar, &c, &mdl, ACCT_MODEL_VIEW_SYMMETRIC, &t, &how,
                                              err, sizeof err), -1);
}

/* The budget refuses before building every rank, and says why. */
static void budget(void **state)
{
    (void)state;
    struct acct_model mdl;
    char err[256];
    double t;
    enum acct_model_source how;
    fixture_loggp(&mdl, 0, 0);
    /* gather_scatter alltoall at 8192 ranks: rank 0 alone has P^2 copies */
    const struct acct_alg *gs = acct_alg_find(ACCT_COLL_alltoall, "gather_scatter");
    struct acct_decision d = {.alg = gs};
    struct acct_call c;
    acct_model_call(ACCT_COLL_alltoall, &d, 8192, 1024, 0, &c);
    assert_int_equal(acct_model_simulate_view(gs, &c, &mdl, ACCT_MODEL_VIEW_AUTO, &t, &how, err,
                                              sizeof err), -1);
    assert_non_null(strstr(err, "memory budget of 256 MiB"));
    assert_non_null(strstr(err, "rank 0"));
    /* ... and predict answers with the closed form, and says so */
    t = acct_model_predict_how(ACCT_COLL_alltoall, &d, 8192, 1024, &mdl, &how);
    assert_int_equal(how, ACCT_MODEL_CLOSED_FORM);
    assert_close(t, acct_model_closed_form(ACCT_COLL_alltoall, &d, 8192, 1024, &mdl), 0);
    /* a smaller budget refuses what the default takes, from the estimate */
    const struct acct_alg *pipe = acct_alg_find(ACCT_COLL_bcast, "pipeline");
    d = (struct acct_decision){.alg = pipe, .segment_bytes = 1024};
    acct_model_call(ACCT_COLL_bcast, &d, 4096, 1u << 20, 0, &c);
    mdl.sim_budget_bytes = 64u << 20;
    assert_int_equal(acct_model_simulate_view(pipe, &c, &mdl, ACCT_MODEL_VIEW_AUTO, &t, &how, err,
                                              sizeof err), -1);
    assert_non_null(strstr(err, "steps over 4096 ranks"));
    assert_non_null(strstr(err, "budget of 64 MiB"));
    /* no schedule: none */
    d.alg = acct_alg_native(ACCT_COLL_bcast);
    assert_true(isnan(acct_model_predict_how(ACCT_COLL_bcast, &d, 8, 64, &mdl, &how)));
    assert_int_equal(how, ACCT_MODEL_NONE);
    assert_string_equal(acct_model_source_name(ACCT_MODEL_SYMMETRIC), "symmetric");
}

/* No rank limit: a million ranks, by the symmetric view and by simulating
 * every rank; the closed forms these equal (docs/models.md) agree. */
static void million(void **state)
{
    (void)state;
    struct acct_model mdl;
    enum acct_model_source how;
    fixture_loggp(&mdl, 0, 0);
    const int p = 1 << 20;
    struct acct_decision d = {.alg = acct_alg_find(ACCT_COLL_allreduce, "rabenseifner")};
    double t = acct_model_predict_how(ACCT_COLL_allreduce, &d, p, 1u << 20, &mdl, &how);
    assert_int_equal(how, ACCT_MODEL_SYMMETRIC);
    assert_close(t / acct_model_closed_form(ACCT_COLL_allreduce, &d, p, 1u << 20, &mdl), 1, 1e-9);
    d.alg = acct_alg_find(ACCT_COLL_bcast, "binomial");
    t = acct_model_predict_how(ACCT_COLL_bcast, &d, p, 1u << 20, &mdl, &how);
    assert_int_equal(how, ACCT_MODEL_SIMULATED);
    assert_close(t / acct_model_closed_form(ACCT_COLL_bcast, &d, p, 1u << 20, &mdl), 1, 1e-9);
    /* over the budget: the closed form answers, and says so */
    d = (struct acct_decision){.alg = acct_alg_find(ACCT_COLL_bcast, "pipeline"),
                               .segment_bytes = 65536};
    t = acct_model_predict_how(ACCT_COLL_bcast, &d, p, 1u << 20, &mdl, &how);
    assert_int_equal(how, ACCT_MODEL_CLOSED_FORM);
    assert_true(t > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(symmetric_equals_full),
        cmocka_unit_test(refusals),
        cmocka_unit_test(budget),
        cmocka_unit_test(million),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
