/* The method space of a point and the model's ranking of it
 * (acct/model_space.h): what it holds, in which order, and that the
 * ranking is the model's own predictions sorted. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acct/model_space.h"
#include "model_fixtures.h"

static size_t count_alg(const struct acct_decision *d, size_t n, const char *name)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += strcmp(d[i].alg->name, name) == 0;
    return k;
}

/* Every registered algorithm of the collective appears, with the size and
 * node restrictions applied and fan-outs expanded below p. */
static void methods_follow_registry(void **state)
{
    (void)state;
    struct acct_decision *d;
    size_t n;

    assert_int_equal(acct_model_methods(ACCT_COLL_bcast, 8, false, &d, &n), 0);
    assert_true(n > 0);
    assert_int_equal(count_alg(d, n, "native"), 1);
    assert_int_equal(count_alg(d, n, "binomial"), 1);
    assert_int_equal(count_alg(d, n, "hier_chain"), 0); /* no nodes */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(d[i].alg->coll, ACCT_COLL_bcast);
        assert_int_equal(d[i].segment_bytes, 0);
        if (d[i].alg->flags & ACCT_ALG_FANOUT)
            assert_true(d[i].fanout >= 1 && d[i].fanout < 8);
    }
    free(d);

    assert_int_equal(acct_model_methods(ACCT_COLL_bcast, 8, true, &d, &n), 0);
    assert_true(count_alg(d, n, "hier_chain") >= 1);
    free(d);

    /* power-of-two restricted algorithms leave at 6 ranks */
    size_t n8, n6;
    struct acct_decision *d8, *d6;
    assert_int_equal(acct_model_methods(ACCT_COLL_allreduce, 8, false, &d8, &n8), 0);
    assert_int_equal(acct_model_methods(ACCT_COLL_allreduce, 6, false, &d6, &n6), 0);
    for (size_t i = 0; i < n6; i++)
        assert_false(d6[i].alg->flags & ACCT_ALG_POW2);
    size_t pow2 = 0;
    for (size_t i = 0; i < n8; i++)
        pow2 += (d8[i].alg->flags & ACCT_ALG_POW2) != 0;
    assert_int_equal(n8 - pow2, n6);
    free(d8);
    free(d6);
}

static void segments_descend(void **state)
{
    (void)state;
    uint64_t s[12];
    size_t n = acct_model_segments(1u << 20, 1024, 12, s);
    assert_int_equal(n, 11); /* 0, 512K .. 1K */
    assert_int_equal(s[0], 0);
    assert_int_equal(s[1], 512u * 1024);
    assert_int_equal(s[n - 1], 1024);
    assert_int_equal(acct_model_segments(1000, 1024, 12, s), 1);
    assert_int_equal(acct_model_segments(1u << 20, 1024, 3, s), 3);
}

/* The ranking is acct_model_predict of each applicable method, sorted,
 * with native (no model) last. */
static void rank_is_sorted_predictions(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_plogp(&mdl, 0.001, 0.0005);
    static const enum acct_coll_id colls[] = { ACCT_COLL_bcast, ACCT_COLL_allreduce,
                                               ACCT_COLL_alltoall, ACCT_COLL_barrier };
    static const int ps[] = { 2, 6, 8, 64 };
    for (size_t c = 0; c < sizeof colls / sizeof *colls; c++)
        for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
            struct acct_model_pred *r;
            size_t n;
            uint64_t m = 256u * 1024;
            assert_int_equal(acct_model_rank(colls[c], ps[k], m, false, &mdl, 0, 0, &r, &n), 0);
            assert_true(n >= 2);
            bool seen_nan = false;
            size_t natives = 0;
            for (size_t i = 0; i < n; i++) {
                double want = acct_model_predict(colls[c], &r[i].d, ps[k], m, &mdl);
                if (r[i].d.alg->build == NULL) {
                    natives++;
                    assert_true(isnan(r[i].t_us));
                }
                if (isnan(r[i].t_us)) {
                    seen_nan = true;
                    continue;
                }
                assert_false(seen_nan); /* numbers first */
                assert_close(r[i].t_us, want, 1e-9 * want);
                if (i > 0)
                    assert_true(r[i - 1].t_us <= r[i].t_us);
                assert_true(acct_model_applicable(colls[c], &r[i].d, ps[k], m));
            }
            assert_int_equal(natives, 1);
            assert_false(isnan(r[0].t_us));
            free(r);
        }
}

/* Beyond ACCT_MODEL_RANK_EXACT_P ranks the closed forms screen: the few
 * best get the full prediction, the rest keep their closed form, and each
 * says which answered. */
static void rank_screens_at_scale(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0, 0);
    const int p = 1024;
    const uint64_t m = 1u << 20;
    struct acct_model_pred *r;
    size_t n, full = 0, closed = 0;
    assert_int_equal(acct_model_rank(ACCT_COLL_bcast, p, m, false, &mdl, 0, 0, &r, &n), 0);
    assert_true(n > ACCT_MODEL_RANK_SIMULATE);
    for (size_t i = 0; i < n; i++) {
        if (r[i].d.alg->build == NULL) {
            assert_int_equal(r[i].how, ACCT_MODEL_NONE);
            continue;
        }
        double cf = acct_model_closed_form(ACCT_COLL_bcast, &r[i].d, p, m, &mdl);
        if (r[i].how == ACCT_MODEL_CLOSED_FORM && !isnan(cf) &&
            r[i].t_us == cf) {
            closed++;
        } else {
            enum acct_model_source how;
            double want = acct_model_predict_how(ACCT_COLL_bcast, &r[i].d, p, m, &mdl, &how);
            assert_close(r[i].t_us, want, 1e-9 * want);
            assert_int_equal(r[i].how, how);
            full += !isnan(cf); /* screened in */
        }
    }
    assert_true(full >= 1 && full <= ACCT_MODEL_RANK_SIMULATE);
    assert_true(closed > 0);
    free(r);
}

static void rank_refuses_bad_arguments(void **state)
{
    (void)state;
    struct acct_model mdl;
    struct acct_model_pred *r = (void *)1;
    size_t n = 7;
    fixture_loggp(&mdl, 0, 0);
    assert_int_equal(acct_model_rank(ACCT_COLL_bcast, 0, 1024, false, &mdl, 0, 0, &r, &n), -1);
    assert_null(r);
    assert_int_equal(n, 0);
    assert_int_equal(acct_model_rank(ACCT_COLL_bcast, 4, 1024, false, NULL, 0, 0, &r, &n), -1);
}

/* The prediction memo (acct_model_memo): a ranking with it equals the one
 * without, asking again is answered from it, and a copy of the model with
 * another parameter (gamma) sharing the memo gets its own answers. */
static void memo_answers_as_without(void **state)
{
    (void)state;
    struct acct_model plain, mdl;
    fixture_plogp(&plain, 0.001, 0.0005);
    mdl = plain;
    mdl.memo = acct_model_memo_new();
    assert_non_null(mdl.memo);
    struct acct_model_pred *a, *b, *c;
    size_t na, nb, nc, hits, misses;
    assert_int_equal(acct_model_rank(ACCT_COLL_bcast, 96, 65536, false, &plain, 0, 0, &a, &na), 0);
    assert_int_equal(acct_model_rank(ACCT_COLL_bcast, 96, 65536, false, &mdl, 0, 0, &b, &nb), 0);
    acct_model_memo_stats(mdl.memo, &hits, &misses);
    assert_true(misses > 0);
    assert_int_equal(hits, 0);
    assert_int_equal(acct_model_rank(ACCT_COLL_bcast, 96, 65536, false, &mdl, 0, 0, &c, &nc), 0);
    size_t hits2, misses2;
    acct_model_memo_stats(mdl.memo, &hits2, &misses2);
    assert_int_equal(misses2, misses);   /* nothing simulated again */
    assert_int_equal(hits2, misses);     /* every prediction answered from the memo */
    assert_int_equal(na, nb);
    assert_int_equal(na, nc);
    for (size_t i = 0; i < na; i++) {
        assert_true(acct_decision_equal(&a[i].d, &b[i].d) && acct_decision_equal(&a[i].d, &c[i].d));
        assert_true(a[i].how == b[i].how && a[i].how == c[i].how);
        assert_true((isnan(a[i].t_us) && isnan(b[i].t_us) && isnan(c[i].t_us)) ||
                    (a[i].t_us == b[i].t_us && a[i].t_us == c[i].t_us));
    }
    /* other parameters: their own entries, their own answers */
    struct acct_model other = mdl;
    other.gamma_us_per_byte = 0.01;
    struct acct_decision ring = { .alg = acct_alg_find(ACCT_COLL_allreduce, "ring") };
    double t1 = acct_model_predict(ACCT_COLL_allreduce, &ring, 8, 1 << 20, &mdl);
    double t2 = acct_model_predict(ACCT_COLL_allreduce, &ring, 8, 1 << 20, &other);
    other.memo = NULL;
    assert_true(t2 == acct_model_predict(ACCT_COLL_allreduce, &ring, 8, 1 << 20, &other));
    assert_true(t2 > t1);
    free(a);
    free(b);
    free(c);
    acct_model_memo_free(mdl.memo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(methods_follow_registry),
        cmocka_unit_test(segments_descend),
        cmocka_unit_test(rank_is_sorted_predictions),
        cmocka_unit_test(rank_screens_at_scale),
        cmocka_unit_test(rank_refuses_bad_arguments),
        cmocka_unit_test(memo_answers_as_without),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
