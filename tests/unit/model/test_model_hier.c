/* Every node-aware method (registry flag ACCT_ALG_NODES) costs a layout
 * in its closed form (ACCT_ALG_LEVELS): with ranks per node R the phases
 * within a node at the intra-node level, the leaders' phase at the
 * inter-node level, including the NIC sharing the simulator applies where
 * several ranks of a node use its link at once. Against the simulation
 * of the methods' real schedules (docs/models.md, "Node-aware methods"):
 * N nodes of R ranks, blocks placement, N x R in {2x2, 3x2, 4x2, 8x2,
 * 16x2, 2x4, 3x4, 4x4, 8x4, 2x8, 4x8}, 1 B to 1 MiB, two LogGP level
 * pairs (the levels of tests/daemon/data/result-eth-levels-check.yaml, and
 * a fast intra level against a slow inter one), with and without gamma,
 * unsegmented and with segments of a quarter of the message. The forms
 * the table marks exact must be within 1e-9; the others within their
 * stated bound (the worst error measured here, with a margin; the same
 * figures are in docs/models.md). Each method's worst error is printed;
 * HIER_VERBOSE=1 in the environment prints every point that is not exact. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acct/model.h"
#include "model_fixtures.h"

static void levels(struct acct_model *mdl, int set, int rpn, int local, int nic)
{
    fixture_levels(mdl, set, rpn);
    mdl->gamma_us_per_byte = local == 1 ? 0.0003 : 0;
    mdl->delta_us_per_byte = local == 2 ? 0.0005 : 0;
    if (nic) { /* measured: 2 pairs 2.17x one way, 2.4x both ways, a pair both ways 1.3x */
        mdl->nodes.nic_gap_factor = 2.17;
        mdl->nodes.nic_pairs = 2;
        mdl->nodes.nic_bidir_factor = 2.4;
        mdl->nodes.nic_bidir_pairs = 2;
        mdl->nodes.pair_duplex_factor = 1.3;
    }
    if (nic == 2) /* and a pair both ways overlapping its first 48 KiB (acct-tune measures c) */
        mdl->nodes.pair_duplex_overlap_bytes = 48 << 10;
}

/* Per method: where its closed form is exact (< 1e-9), and the bound on
 * the relative error elsewhere (the worst measured here, docs/models.md,
 * with a margin). NIC: also exact with the measured NIC factors (nic 1;
 * nic 2 adds the pair duplex's overlap c),
 * else exact only without (each flow its own link). */
enum when {
    ALWAYS,   /* every point */
    DIVIDES,  /* P divides m (equal slices and ring pieces) */
    NOGAMMA,  /* gamma = 0 */
    FLAT,     /* where the phases' flat forms are: not segments with gamma
                 (reduce binomial's form), recursive doubling on N = 2^k
                 without copies */
    NEVER,    /* an estimate */
};
struct claim {
    const char *coll, *name;
    enum when when;
    bool nic;     /* exact with the measured NIC factors too */
    bool overlap; /* and with the pair duplex's overlap c too (nic 2) */
    double bound; /* elsewhere */
};
static const struct claim claims[] = {
    {"bcast", "hier_chain", ALWAYS, true, true, 1e-9},
    {"bcast", "hier_binomial", ALWAYS, true, true, 1e-9},
    {"bcast", "hier_knomial", ALWAYS, true, true, 1e-9},
    {"reduce", "hier_chain", NOGAMMA, false, false, 0.2},
    {"reduce", "hier_binomial", NOGAMMA, false, false, 0.2},
    {"reduce", "hier_knomial", NOGAMMA, false, false, 0.2},
    {"allreduce", "hier_ring", FLAT, false, false, 0.3},
    {"allreduce", "hier_rabenseifner", FLAT, false, false, 0.3},
    {"allreduce", "hier_recursive_doubling", FLAT, false, false, 0.45},
    {"allreduce", "hier_pipelined", NEVER, false, false, 0.35},
    {"allreduce", "hier_reduce_scatter", DIVIDES, true, true, 3.5},
    {"allgather", "hier_ring", NEVER, false, false, 0.3},
    {"allgather", "hier_pipelined", NEVER, false, false, 0.35},
    {"alltoall", "hier_leader", ALWAYS, true, false, 0.05},
    {"barrier", "hier_dissemination", ALWAYS, true, true, 1e-9},
    {"gather", "hier_linear", ALWAYS, true, true, 1e-9},
    {"gather", "hier_binomial", ALWAYS, false, false, 0.2},
    {"scatter", "hier_linear", ALWAYS, true, true, 1e-9},
    {"scatter", "hier_binomial", ALWAYS, true, true, 1e-9},
};

static bool exact_at(const struct claim *cl, int n, int p, uint64_t m, bool seg, int local,
                     int nic)
{
    if ((nic && !cl->nic) || (nic == 2 && !cl->overlap))
        return false;
    switch (cl->when) {
    case ALWAYS:
        return true;
    case DIVIDES:
        return m % (uint64_t)p == 0;
    case NOGAMMA:
        return local != 1;
    case FLAT:
        return !(seg && local == 1) &&
               (strcmp(cl->name, "hier_recursive_doubling") != 0 ||
                ((n & (n - 1)) == 0 && local != 2));
    case NEVER:
        break;
    }
    return false;
}

static const struct claim *claim_of(const struct acct_alg *a)
{
    for (size_t i = 0; i < sizeof claims / sizeof *claims; i++)
        if (strcmp(claims[i].coll, acct_coll_name(a->coll)) == 0 &&
            strcmp(claims[i].name, a->name) == 0)
            return &claims[i];
    return NULL;
}

static void every_hier_method(void **state)
{
    (void)state;
    static const int layouts[][2] = {{2, 2}, {3, 2}, {4, 2}, {8, 2}, {16, 2}, {2, 4},
                                     {3, 4}, {4, 4}, {8, 4}, {2, 8}, {4, 8}};
    static const uint64_t ms[] = {1, 1024, 65536, 1u << 20};
    int methods = 0, failures = 0;
    for (int i = 0; i < acct_alg_count(); i++) {
        const struct acct_alg *a = &acct_algs[i];
        if (!(a->flags & ACCT_ALG_NODES))
            continue;
        methods++;
        const struct claim *cl = claim_of(a);
        if (cl == NULL) {
            print_error("%s/%s: node-aware, not in this test's table\n", acct_coll_name(a->coll),
                        a->name);
            failures++;
            continue;
        }
        if (!(a->flags & ACCT_ALG_LEVELS)) {
            print_error("%s/%s: no closed form of a layout (ACCT_ALG_LEVELS)\n", cl->coll,
                        cl->name);
            failures++;
        }
        for (int nic = 0; nic < 3; nic++) {
        double worst = 0;
        int points = 0, exact_points = 0, nans = 0, worst_n = 0, worst_r = 0;
        uint64_t worst_m = 0;
        for (int set = 0; set < 2; set++)
            for (int gm = 0; gm < 3; gm++)
                for (size_t li = 0; li < sizeof layouts / sizeof *layouts; li++)
                    for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
                        for (int sg = 0; sg < 2; sg++) {
                            const int n = layouts[li][0], rpn = layouts[li][1], p = n * rpn;
                            const uint64_t m = a->coll == ACCT_COLL_barrier ? 1 : ms[mi];
                            if (a->coll == ACCT_COLL_barrier && (mi > 0 || sg > 0))
                                continue;
                            if (sg && (!(a->flags & ACCT_ALG_SEGMENTED) || m < 4096))
                                continue;
                            if (gm == 1 && !(a->flags & ACCT_ALG_COMMUTATIVE))
                                continue;
                            struct acct_model mdl;
                            levels(&mdl, set, rpn, gm, nic);
                            struct acct_decision d = {.alg = a, .segment_bytes = sg ? m / 4 : 0};
                            double c = acct_model_closed_form(a->coll, &d, p, m, &mdl);
                            double sim = acct_model_simulate(a->coll, &d, p, m, 0, &mdl);
                            if (isnan(sim))
                                continue; /* the method declines this call */
                            if (isnan(c)) {
                                nans++;
                                continue;
                            }
                            points++;
                            double rel = fabs(sim - c) / sim;
                            if (rel > worst) {
                                worst = rel;
                                worst_n = n;
                                worst_r = rpn;
                                worst_m = m;
                            }
                            const bool exact = exact_at(cl, n, p, m, sg, gm, nic);
                            double tol = exact ? 1e-9 : cl->bound;
                            if (exact)
                                exact_points++;
                            if ((getenv("HIER_VERBOSE") != NULL && rel > 1e-9) || (!(rel < tol) && failures < 30)) {
                                print_error("%s/%s %dx%d m=%llu seg %d set %d local %d nic %d: "
                                            "simulated %.9g, closed form %.9g (%.3g)\n",
                                            cl->coll, cl->name, n, rpn, (unsigned long long)m,
                                            sg, set, gm, nic, sim, c, rel);
                            }
                            if (!(rel < tol))
                                failures++;
                        }
        print_message("%-10s %-24s NIC %s: %3d points (%3d exact, %2d NAN), worst %.3g %% "
                      "(%dx%d, %llu B)\n",
                      cl->coll, cl->name, nic == 2 ? "measured, overlap 48K" : nic ? "measured" : "none", points, exact_points, nans,
                      100 * worst, worst_n, worst_r, (unsigned long long)worst_m);
        assert_true(points > 0);
        }
    }
    assert_int_equal(methods, (int)(sizeof claims / sizeof *claims));
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_hier_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
