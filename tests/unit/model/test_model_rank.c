/* Plausibility of the predictions: the model must rank the algorithms the
 * way the papers (BM04 = Barchet-Estefanel & Mounié 2004, March = March et
 * al., V04 = Vadhiyar et al. 2004; docs/references.md) and every measurement do where one cost clearly
 * dominates (latency for tiny messages, bandwidth for large ones). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "acct/model.h"
#include "model_fixtures.h"

static double t(enum acct_coll_id coll, const char *name, uint64_t seg, int p, uint64_t m,
                const struct acct_model *mdl)
{
    struct acct_decision d = {.alg = acct_alg_find(coll, name), .segment_bytes = seg};
    assert_non_null(d.alg);
    double x = acct_model_predict(coll, &d, p, m, mdl);
    assert_false(isnan(x));
    return x;
}

/* Large bcast, bandwidth-bound: pipelined and scatter+allgather beat the
 * binomial tree, which beats the flat tree (BM04 Fig. 5; March Table 3). */
static void bcast_large(void **state)
{
    (void)state;
    struct acct_model mdl;
    for (int set = 0; set < 2; set++) {
        set ? fixture_plogp(&mdl, 0, 0) : fixture_loggp(&mdl, 0, 0);
        const int p = 16;
        const uint64_t m = 1u << 20;
        double lin = t(ACCT_COLL_bcast, "linear", 0, p, m, &mdl);
        double bin = t(ACCT_COLL_bcast, "binomial", 0, p, m, &mdl);
        double pipe = t(ACCT_COLL_bcast, "pipeline", 8192, p, m, &mdl);
        double sag = t(ACCT_COLL_bcast, "scatter_allgather_ring", 0, p, m, &mdl);
        print_message("bcast 1 MiB P=16: linear %.0f binomial %.0f pipeline:8K %.0f "
                      "scatter_allgather_ring %.0f us\n", lin, bin, pipe, sag);
        assert_true(pipe < bin && sag < bin && bin < lin);
        assert_true(lin / pipe > 5);
    }
}

/* Tiny bcast, latency-bound: the binomial tree beats the chain and flat tree. */
static void bcast_small(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0, 0);
    double bin = t(ACCT_COLL_bcast, "binomial", 0, 64, 8, &mdl);
    assert_true(bin < t(ACCT_COLL_bcast, "pipeline", 0, 64, 8, &mdl));
    assert_true(bin < t(ACCT_COLL_bcast, "linear", 0, 64, 8, &mdl));
}

/* The best pipeline segment for a large message lies strictly inside the
 * range: tiny segments pay the per-message gap, one segment loses the
 * pipelining (BM04 §3, V04's segment search). */
static void pipeline_segment_optimum(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0, 0);
    uint64_t best = 0;
    double tbest = INFINITY;
    for (uint64_t s = 1024; s <= (1u << 20); s *= 2) {
        double x = t(ACCT_COLL_bcast, "pipeline", s, 16, 1u << 20, &mdl);
        if (x < tbest) {
            tbest = x;
            best = s;
        }
    }
    print_message("pipeline bcast 1 MiB P=16: best segment %llu (%.0f us)\n",
                  (unsigned long long)best, tbest);
    assert_true(best > 1024 && best < (1u << 20));
}

/* Allreduce: recursive doubling for tiny vectors, ring/Rabenseifner for
 * large ones (Thakur et al., the allreduce headers). */
static void allreduce(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0.0005, 0.0001);
    double rd = t(ACCT_COLL_allreduce, "recursive_doubling", 0, 64, 8, &mdl);
    assert_true(rd < t(ACCT_COLL_allreduce, "ring", 0, 64, 8, &mdl));
    double rdl = t(ACCT_COLL_allreduce, "recursive_doubling", 0, 16, 1u << 20, &mdl);
    assert_true(t(ACCT_COLL_allreduce, "ring", 0, 16, 1u << 20, &mdl) < rdl);
    assert_true(t(ACCT_COLL_allreduce, "rabenseifner", 0, 16, 1u << 20, &mdl) < rdl);
}

/* Barrier: logarithmic beats linear at 64 ranks; alltoall: Bruck for tiny
 * blocks, pairwise for large ones (March Table 2). */
static void barrier_alltoall(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0, 0.0001);
    double dis = t(ACCT_COLL_barrier, "dissemination", 0, 64, 0, &mdl);
    assert_true(dis < t(ACCT_COLL_barrier, "linear", 0, 64, 0, &mdl));
    assert_true(dis < t(ACCT_COLL_barrier, "double_ring", 0, 64, 0, &mdl));
    assert_true(t(ACCT_COLL_alltoall, "bruck", 0, 64, 8, &mdl) <
                t(ACCT_COLL_alltoall, "pairwise", 0, 64, 8, &mdl));
    assert_true(t(ACCT_COLL_alltoall, "pairwise", 0, 16, 65536, &mdl) <
                t(ACCT_COLL_alltoall, "bruck", 0, 16, 65536, &mdl));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bcast_large), cmocka_unit_test(bcast_small),
        cmocka_unit_test(pipeline_segment_optimum), cmocka_unit_test(allreduce),
        cmocka_unit_test(barrier_alltoall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
