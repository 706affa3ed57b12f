/* (BM04 = Barchet-Estefanel & Mounié 2004, March = March et al.;
 * docs/references.md.)
 * The simulator runs the algorithms' real schedules; for every algorithm
 * with a closed form, both must agree exactly (relative error < 1e-9) for
 * P = 2, 4, ..., 64, several message and segment sizes and fan-outs (node-
 * aware methods but bcast: within NODES_ESTIMATE), under
 * a LogGP-derived and a measured-looking pLogP parameter set, with and
 * without reduction and copy costs (docs/models.md, "Accuracy"). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "acct/model.h"
#include "model_fixtures.h"

/* Algorithms with no closed form (docs/models.md): none left. */
static const char *const no_closed_form[] = {NULL};

/* Closed forms that leave the local copies (delta) out or approximate
 * them: exact only with delta = 0. */
static const char *const copies_approximate[] = {
    "allgather/bruck", "allgather/gather_bcast", "allreduce/allgather_reduce",
    "allreduce/recursive_doubling", "alltoall/bruck", "alltoall/gather_scatter",
    "gather/chain", "scatter/chain", "allgatherv/bruck", NULL,
};

/* Closed forms without the reduction cost on the critical path of every
 * pass (exact only with gamma = 0). */
static const char *const reductions_approximate[] = {"allreduce/segmented_ring", NULL};

/* Node-aware methods (ACCT_ALG_NODES) whose closed form equals the
 * simulation without a layout too (one rank per node: N = P, q = 1); the
 * others' are estimates within NODES_ESTIMATE of the simulated schedule
 * here (docs/models.md, "Node-aware methods"). test_model_hier compares
 * every node-aware method's with layouts. */
static const char *const nodes_exact[] = {
    "bcast/hier_chain",  "bcast/hier_binomial",  "bcast/hier_knomial",
    "gather/hier_linear", "gather/hier_binomial", "scatter/hier_linear",
    "scatter/hier_binomial", NULL,
};
#define NODES_ESTIMATE 0.4

static bool listed(const char *const *list, const struct acct_alg *a)
{
    char key[96];
    snprintf(key, sizeof key, "%s/%s", acct_coll_name(a->coll), a->name);
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(list[i], key) == 0)
            return true;
    return false;
}

struct tally {
    int compared, missing, mismatched;
};

static void check_point(const struct acct_alg *a, int p, uint64_t m, uint64_t seg, int fanout,
                        const struct acct_model *mdl, const char *set, struct tally *t)
{
    struct acct_decision d = {.alg = a, .segment_bytes = seg, .fanout = fanout};
    double c = acct_model_closed_form(a->coll, &d, p, m, mdl);
    double s = acct_model_simulate(a->coll, &d, p, m, 0, mdl);
    if (isnan(s)) {
        print_error("%s/%s p=%d m=%llu seg=%llu f=%d [%s]: simulation failed\n",
                    acct_coll_name(a->coll), a->name, p, (unsigned long long)m,
                    (unsigned long long)seg, fanout, set);
        t->mismatched++;
        return;
    }
    if (isnan(c)) {
        t->missing++;
        return;
    }
    t->compared++;
    double rel = fabs(s - c) / (fabs(s) > 1e-12 ? fabs(s) : 1.0);
    const bool estimate = (a->flags & ACCT_ALG_NODES) && !listed(nodes_exact, a);
    if (!(rel < (estimate ? NODES_ESTIMATE : 1e-9))) {
        print_error("%s/%s p=%d m=%llu seg=%llu f=%d [%s]: simulated %.9f, closed form %.9f\n",
                    acct_coll_name(a->coll), a->name, p, (unsigned long long)m,
                    (unsigned long long)seg, fanout, set, s, c);
        t->mismatched++;
    }
}

/* Sizes that every closed form's conditions hold for (divisible by P and
 * by the segments, where the formula needs it). */
static void sweep(const struct acct_model *mdl, const char *set, bool with_gamma, bool with_delta)
{
    static const int ps[] = {2, 4, 8, 16, 32, 64};
    static const uint64_t ms[] = {64, 1024, 8192, 65536, 1u << 20};
    static const uint64_t segs[] = {0, 1024, 8192};
    int total_compared = 0, failures = 0;

    for (int i = 0; i < acct_alg_count(); i++) {
        const struct acct_alg *a = &acct_algs[i];
        struct tally t = {0, 0, 0};
        if (a->build == NULL || listed(no_closed_form, a))
            continue;
        if ((with_delta && listed(copies_approximate, a)) ||
            (with_gamma && listed(reductions_approximate, a)))
            continue;
        int fans[4] = {0}, nf = 1;
        if (a->flags & ACCT_ALG_FANOUT) {
            nf = 0;
            for (int f = a->fanout_min; f <= 8 && nf < 4; f *= 2)
                fans[nf++] = f;
        }
        for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++)
            for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
                for (size_t si = 0; si < sizeof segs / sizeof *segs; si++)
                    for (int fi = 0; fi < nf; fi++) {
                        uint64_t m = ms[mi], seg = segs[si];
                        int p = ps[pi];
                        if (seg != 0 && !(a->flags & ACCT_ALG_SEGMENTED))
                            continue;
                        /* keep the simulation small: P m <= 1 MiB, <= 128 segments */
                        uint64_t volume = a->coll == ACCT_COLL_bcast || a->coll == ACCT_COLL_reduce ||
                                                  a->coll == ACCT_COLL_allreduce
                                              ? m
                                              : m * (uint64_t)p;
                        if (volume > (1u << 20) || (seg != 0 && volume / seg > 128))
                            continue;
                        check_point(a, p, m, seg, fans[fi], mdl, set, &t);
                    }
        /* Every algorithm with a closed form must have been compared, and
         * the ones whose closed form needs no condition at every point. */
        if (t.compared < 10) {
            print_error("%s/%s [%s]: closed form at fewer than 10 power-of-two points\n",
                        acct_coll_name(a->coll), a->name, set);
            failures++;
        }
        failures += t.mismatched;
        total_compared += t.compared;
    }
    print_message("[%s] %d points compared\n", set, total_compared);
    assert_int_equal(failures, 0);
    assert_true(total_compared > 500);
}

static void loggp_plain(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0, 0);
    sweep(&mdl, "loggp", false, false);
}

static void loggp_reduce_costs(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0.001, 0);
    sweep(&mdl, "loggp+gamma", true, false);
}

static void plogp_table(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_plogp(&mdl, 0, 0);
    sweep(&mdl, "plogp", false, false);
}

static void plogp_all_costs(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_plogp(&mdl, 0.0001, 0.0002); /* within the conditions of docs/models.md */
    sweep(&mdl, "plogp+gamma+delta", true, true);
}

/* The closed forms that were estimates for P not a power of two until
 * they costed the rounds their builders emit (docs/models.md, "Accuracy"):
 * each must be compared at every P of any_size (not skipped as NAN), and
 * stay a finite time at a million ranks. */
static const char *const nonpow2_rounds[] = {
    "reduce/binary", "reduce/in_order_binary", "reduce/binomial", "allreduce/reduce_bcast",
    "reduce_scatter_block/reduce_scatter", "reduce_scatter/reduce_scatterv",
    "barrier/recursive_doubling", "allreduce/recursive_doubling",
    "reduce_scatter_block/recursive_halving", "alltoall/bruck", "barrier/tournament",
    "scan/recursive_doubling", "exscan/recursive_doubling", NULL,
};

static void any_size(void **state)
{
    (void)state;
    static const int ps[] = {3, 5, 6, 7, 12, 24, 48};
    static const uint64_t ms[] = {48, 1536, 49152};
    static const uint64_t segs[] = {0, 512};
    struct acct_model mdl;
    int compared = 0, failures = 0;
    for (int set = 0; set < 2; set++) {
        set ? fixture_plogp(&mdl, 0.0001, 0) : fixture_loggp(&mdl, 0.001, 0);
        for (int i = 0; i < acct_alg_count(); i++) {
            const struct acct_alg *a = &acct_algs[i];
            if (a->build == NULL || listed(reductions_approximate, a))
                continue;
            int sizes = 0; /* the P of ps this algorithm was compared at */
            for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++) {
                int here = 0;
                for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
                    for (size_t si = 0; si < 2; si++) {
                        struct tally t = {0, 0, 0};
                        if (segs[si] != 0 && !(a->flags & ACCT_ALG_SEGMENTED))
                            continue;
                        if (ms[mi] * (uint64_t)ps[pi] > (2u << 20))
                            continue;
                        /* power-of-two or even-only algorithms have no
                         * closed form (nor a schedule) here */
                        struct acct_decision d = {.alg = a, .segment_bytes = segs[si]};
                        if (isnan(acct_model_closed_form(a->coll, &d, ps[pi], ms[mi], &mdl)))
                            continue;
                        check_point(a, ps[pi], ms[mi], segs[si], 0, &mdl,
                                    set ? "plogp, any P" : "loggp, any P", &t);
                        compared += t.compared;
                        failures += t.mismatched;
                        here += t.compared;
                    }
                sizes += here > 0;
            }
            if (listed(nonpow2_rounds, a) && sizes != (int)(sizeof ps / sizeof *ps)) {
                print_error("%s/%s: compared at %d of the %d sizes\n", acct_coll_name(a->coll),
                            a->name, sizes, (int)(sizeof ps / sizeof *ps));
                failures++;
            }
            if (listed(nonpow2_rounds, a)) {
                /* a million ranks, one short of a power of two: a time */
                struct acct_decision d = {.alg = a};
                double big = acct_model_closed_form(a->coll, &d, (1 << 20) - 1, 48, &mdl);
                if (!(big > 0 && isfinite(big))) {
                    print_error("%s/%s: closed form at P = 2^20 - 1: %g\n",
                                acct_coll_name(a->coll), a->name, big);
                    failures++;
                }
            }
        }
    }
    print_message("[any P] %d points compared\n", compared);
    assert_int_equal(failures, 0);
    assert_true(compared > 500);
}

/* Many segments: the tree reduces skip their periodic rounds
 * (reduce_tree.c, acct_reduce_tree_cost); the skip must be exact. */
static void many_segments(void **state)
{
    (void)state;
    static const char *const algs[][2] = {
        {"reduce", "binomial"}, {"reduce", "binary"}, {"reduce", "in_order_binary"},
        {"allreduce", "reduce_bcast"},
    };
    static const int ps[] = {5, 48, 100};
    static const uint64_t segs[] = {1024, 4096};
    struct acct_model mdl;
    int failures = 0, compared = 0;
    for (int set = 0; set < 2; set++) {
        set ? fixture_plogp(&mdl, 0.0001, 0) : fixture_loggp(&mdl, 0.001, 0);
        for (size_t i = 0; i < sizeof algs / sizeof *algs; i++) {
            enum acct_coll_id coll;
            assert_int_equal(acct_coll_from_name(algs[i][0], &coll), 0);
            const struct acct_alg *a = acct_alg_find(coll, algs[i][1]);
            assert_non_null(a);
            for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++)
                for (size_t si = 0; si < sizeof segs / sizeof *segs; si++) {
                    struct tally t = {0, 0, 0};
                    check_point(a, ps[pi], 1u << 20, segs[si], 0, &mdl,
                                set ? "plogp, many segments" : "loggp, many segments", &t);
                    failures += t.mismatched + t.missing;
                    compared += t.compared;
                }
        }
    }
    print_message("[many segments] %d points compared\n", compared);
    assert_int_equal(failures, 0);
    assert_int_equal(compared, 2 * 4 * 3 * 2);
}

/* The paper forms themselves at small sizes, by hand: a guard that the
 * formulas are the papers', not fitted to the simulator. LogGP numbers
 * converted: one message costs L + 2o + (m - 1)G. */
static void paper_forms(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0, 0);
    const double L = 20, o = 3, G = 0.008;
    const uint64_t m = 4096;
    double p2p = L + 2 * o + (double)(m - 1) * G;
    struct acct_decision bin = {.alg = acct_alg_find(ACCT_COLL_bcast, "binomial")};
    struct acct_decision diss = {.alg = acct_alg_find(ACCT_COLL_barrier, "dissemination")};
    struct acct_decision pair = {.alg = acct_alg_find(ACCT_COLL_alltoall, "pairwise")};
    struct acct_decision flat = {.alg = acct_alg_find(ACCT_COLL_scatter, "linear")};
    assert_non_null(bin.alg);
    /* March Table 4 binomial: ceil(log P)(L + 2o + (m - 1)G) */
    assert_close(acct_model_closed_form(ACCT_COLL_bcast, &bin, 16, m, &mdl), 4 * p2p, 1e-9);
    assert_close(acct_model_simulate(ACCT_COLL_bcast, &bin, 16, m, 0, &mdl), 4 * p2p, 1e-9);
    /* dissemination with m = 0: ceil(log P)(L + 2o) in these units (March's
     * ceil(log P)(L + o + g) with its g standing for the receive side) */
    assert_close(acct_model_closed_form(ACCT_COLL_barrier, &diss, 13, 0, &mdl),
                       4 * (L + 2 * o), 1e-9);
    /* pairwise: (P - 1)(L + 2o + (m - 1)G) (March's (P-1)(L + o + (m-1)G + g)) */
    assert_close(acct_model_closed_form(ACCT_COLL_alltoall, &pair, 8, m, &mdl), 7 * p2p,
                       1e-9);
    /* BM04 Table 2 flat tree: (P - 1) g(m) + L with pLogP g(m) = g + (m-1)G */
    double gm = 7 + (double)(m - 1) * G, Lp = L + 2 * o - 7;
    assert_close(acct_model_closed_form(ACCT_COLL_scatter, &flat, 8, m, &mdl),
                       7 * gm + Lp, 1e-9);
}

/* No closed form, no crash: NAN for native, wrong collective, bad p. */
static void closed_form_edges(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_loggp(&mdl, 0, 0);
    struct acct_decision nat = {.alg = acct_alg_native(ACCT_COLL_bcast)};
    struct acct_decision bin = {.alg = acct_alg_find(ACCT_COLL_bcast, "binomial")};
    /* segments that do not divide the blocks: no closed form */
    struct acct_decision split = {.alg = acct_alg_find(ACCT_COLL_scatter, "chain"),
                                  .segment_bytes = 1000};
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_bcast, &nat, 8, 64, &mdl)));
    assert_true(isnan(acct_model_simulate(ACCT_COLL_bcast, &nat, 8, 64, 0, &mdl)));
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_reduce, &bin, 8, 64, &mdl)));
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_bcast, &bin, 0, 64, &mdl)));
    assert_true(isnan(acct_model_simulate(ACCT_COLL_bcast, &bin, -3, 64, 0, &mdl)));
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_bcast, NULL, 8, 64, &mdl)));
    assert_close(acct_model_closed_form(ACCT_COLL_bcast, &bin, 1, 64, &mdl), 0, 0);
    assert_close(acct_model_closed_form(ACCT_COLL_bcast, &bin, 8, 0, &mdl), 0, 0);
    assert_close(acct_model_simulate(ACCT_COLL_bcast, &bin, 8, 0, 0, &mdl), 0, 0);
    /* no closed form: predict falls back to the simulation */
    double sim = acct_model_simulate(ACCT_COLL_scatter, &split, 8, 4096, 0, &mdl);
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_scatter, &split, 8, 4096, &mdl)));
    assert_true(sim > 0);
    assert_close(acct_model_predict(ACCT_COLL_scatter, &split, 8, 4096, &mdl), sim, 0);
    /* too large to simulate: predict falls back to the closed form */
    struct acct_decision pipe = {.alg = acct_alg_find(ACCT_COLL_bcast, "pipeline"),
                                 .segment_bytes = 1};
    assert_true(isnan(acct_model_simulate(ACCT_COLL_bcast, &pipe, 64, 1u << 20, 0, &mdl)));
    assert_close(acct_model_predict(ACCT_COLL_bcast, &pipe, 64, 1u << 20, &mdl),
                 acct_model_closed_form(ACCT_COLL_bcast, &pipe, 64, 1u << 20, &mdl), 0);
    /* a fan-out outside the row's limits: no time (a radix-1 k-nomial used to
     * loop for ever in the closed form) */
    struct acct_decision k1 = {.alg = acct_alg_find(ACCT_COLL_bcast, "knomial"), .fanout = 1};
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_bcast, &k1, 8, 64, &mdl)));
    assert_true(isnan(acct_model_predict(ACCT_COLL_bcast, &k1, 8, 64, &mdl)));
    k1.fanout = k1.alg->fanout_max + 1;
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_bcast, &k1, 8, 64, &mdl)));
    /* a bad model is refused */
    mdl.gamma_us_per_byte = -1;
    assert_true(isnan(acct_model_simulate(ACCT_COLL_bcast, &bin, 8, 64, 0, &mdl)));
    assert_true(isnan(acct_model_closed_form(ACCT_COLL_bcast, &bin, 8, 64, &mdl)));
}

/* The root does not change a symmetric algorithm's time. */
static void root_invariance(void **state)
{
    (void)state;
    struct acct_model mdl;
    fixture_plogp(&mdl, 0, 0);
    static const char *const names[] = {"binomial", "pipeline", "linear", "binary"};
    for (size_t i = 0; i < 4; i++) {
        struct acct_decision d = {.alg = acct_alg_find(ACCT_COLL_bcast, names[i]),
                                  .segment_bytes = 1024};
        double t0 = acct_model_simulate(ACCT_COLL_bcast, &d, 16, 65536, 0, &mdl);
        for (int root = 1; root < 16; root += 5)
            assert_close(acct_model_simulate(ACCT_COLL_bcast, &d, 16, 65536, root, &mdl),
                               t0, 1e-9 * t0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loggp_plain),      cmocka_unit_test(loggp_reduce_costs),
        cmocka_unit_test(plogp_table),      cmocka_unit_test(plogp_all_costs),
        cmocka_unit_test(paper_forms),      cmocka_unit_test(closed_form_edges),
        cmocka_unit_test(root_invariance),  cmocka_unit_test(any_size),
        cmocka_unit_test(many_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
