/* The simulator's semantics on hand-made schedules (acct/model.h): the
 * send gap, the receive gap and overhead, the round structure of exec.c,
 * local costs; and the engine's refusals (deadlock, unmatched message). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "acct/model.h"
#include "acct/simulate.h"
#include "model_fixtures.h"

/* Constant pLogP: g = 10, os = 2, or = 3, L = 100 (us). */
static void net(struct acct_model *mdl)
{
    acct_model_init(mdl);
    mdl->net = (struct acct_plogp){.L_us = 100, .n = 1, .m = {0}, .os_us = {2}, .or_us = {3},
                                   .g_us = {10}};
}

/* The registry-free path: a fake algorithm whose builder makes the schedule
 * of the test (call->count picks the scenario). */
static int build(const struct acct_call *c, struct acct_sched *s)
{
    switch (c->count) {
    case 1: /* rank 0 sends 3 messages to 1, 2, 3 in one round */
        if (c->rank == 0)
            for (int d = 1; d < 4 && d < c->size; d++)
                acct_sched_send(s, d, ACCT_BUF_RECV, 0, 1);
        else
            acct_sched_recv(s, 0, ACCT_BUF_RECV, 0, 1);
        break;
    case 2: /* ranks 1..3 send to 0 at once: receive gap at 0 */
        if (c->rank == 0)
            for (int d = 1; d < 4 && d < c->size; d++)
                acct_sched_recv(s, d, ACCT_BUF_RECV, 0, 1);
        else
            acct_sched_send(s, 0, ACCT_BUF_RECV, 0, 1);
        break;
    case 3: /* relay 0 -> 1 -> 2 with a reduce of 1000 bytes at 1 */
        if (c->rank == 0)
            acct_sched_send(s, 1, ACCT_BUF_RECV, 0, 1);
        else if (c->rank == 1) {
            acct_sched_recv(s, 0, ACCT_BUF_RECV, 0, 1);
            acct_sched_reduce(s, ACCT_BUF_RECV, 0, ACCT_BUF_TMP0, 0, 1000);
            acct_sched_send(s, 2, ACCT_BUF_RECV, 0, 1);
        } else if (c->rank == 2)
            acct_sched_recv(s, 1, ACCT_BUF_RECV, 0, 1);
        break;
    case 4: /* deadlock: both receive first, then send */
        if (c->rank < 2) {
            acct_sched_recv(s, 1 - c->rank, ACCT_BUF_RECV, 0, 1);
            acct_sched_round(s);
            acct_sched_send(s, 1 - c->rank, ACCT_BUF_RECV, 0, 1);
        }
        break;
    case 5: /* unmatched: 0 sends, nobody receives */
        if (c->rank == 0)
            acct_sched_send(s, 1, ACCT_BUF_RECV, 0, 1);
        break;
    case 6: /* unmatched: 1 receives twice from 0, which sends once */
        if (c->rank == 0)
            acct_sched_send(s, 1, ACCT_BUF_RECV, 0, 1);
        else if (c->rank == 1) {
            acct_sched_recv(s, 0, ACCT_BUF_RECV, 0, 1);
            acct_sched_recv(s, 0, ACCT_BUF_RECV, 1, 1);
        }
        break;
    case 7: /* rank 1 step 1: peer out of range */
        if (c->rank == 1) {
            acct_sched_reduce(s, ACCT_BUF_RECV, 0, ACCT_BUF_TMP0, 0, 1);
            acct_sched_send(s, c->size, ACCT_BUF_RECV, 0, 1);
        }
        break;
    case 8: /* rank 1: message to itself */
        if (c->rank == 1)
            acct_sched_send(s, 1, ACCT_BUF_RECV, 0, 1);
        break;
    case 10: /* the 2nd and 3rd of 3 sends 0 -> 1 unmatched; rank 1 has one */
        if (c->rank == 0)
            for (int k = 0; k < 3; k++)
                acct_sched_send(s, 1, ACCT_BUF_RECV, 0, 1);
        else if (c->rank == 1)
            acct_sched_recv(s, 0, ACCT_BUF_RECV, 0, 1);
        break;
    default:
        return -1;
    }
    return 0;
}

static const struct acct_alg fake = {.coll = ACCT_COLL_bcast, .name = "fake",
                                     .description = "test", .build = build};

static double run(int scenario, int p, const struct acct_model *mdl, char *err, size_t len)
{
    struct acct_call c = {.coll = ACCT_COLL_bcast, .size = p, .root = 0,
                          .count = (uint64_t)scenario};
    double t = NAN;
    if (acct_model_simulate_call(&fake, &c, mdl, &t, err, len) != 0)
        return NAN;
    return t;
}

static void semantics(void **state)
{
    (void)state;
    struct acct_model mdl;
    char err[256];
    net(&mdl);
    /* sends start 0, 10, 20; the last arrives at 20 + g + L = 130 */
    assert_close(run(1, 4, &mdl, err, sizeof err), 130, 1e-12);
    /* all arrive at 110; the receive gap spaces them: 110, 120, 130 */
    assert_close(run(2, 4, &mdl, err, sizeof err), 130, 1e-12);
    /* relay: 110 at rank 1, + 1000 gamma, then one more hop */
    mdl.gamma_us_per_byte = 0.05;
    assert_close(run(3, 3, &mdl, err, sizeof err), 110 + 50 + 110, 1e-12);
    /* a receive never completes before its round start + or */
    mdl.net.L_us = 0;
    mdl.net.g_us[0] = 1;
    mdl.net.os_us[0] = 1;
    mdl.net.or_us[0] = 5;
    assert_close(run(1, 2, &mdl, err, sizeof err), 5, 1e-12);
}

static void refusals(void **state)
{
    (void)state;
    struct acct_model mdl;
    char err[256];
    net(&mdl);
    assert_true(isnan(run(4, 2, &mdl, err, sizeof err)));
    assert_non_null(strstr(err, "deadlock"));
    assert_true(isnan(run(5, 2, &mdl, err, sizeof err)));
    assert_non_null(strstr(err, "no matching receive"));
    /* the engine's diagnostics name rank, step and peer (the same text as
     * before the matching was rewritten) */
    assert_true(isnan(run(5, 2, &mdl, err, sizeof err)));
    assert_string_equal(err, "rank 0 sends message #1 to rank 1, which posts no matching receive");
    assert_true(isnan(run(10, 3, &mdl, err, sizeof err)));
    assert_string_equal(err, "rank 0 sends message #2 to rank 1, which posts no matching receive");
    assert_true(isnan(run(6, 3, &mdl, err, sizeof err)));
    assert_string_equal(err, "rank 1 step 1 receives from rank 0, which sends nothing to match");
    assert_true(isnan(run(7, 3, &mdl, err, sizeof err)));
    assert_string_equal(err, "rank 1 step 1: peer 3 out of range");
    assert_true(isnan(run(8, 3, &mdl, err, sizeof err)));
    assert_string_equal(err, "rank 1 step 0: message to itself");
    assert_true(isnan(run(4, 2, &mdl, err, sizeof err)));
    assert_string_equal(err, "deadlock: rank 0 blocked in round 0 on a receive with rank 1");
    assert_true(isnan(run(9, 2, &mdl, err, sizeof err)));
    assert_non_null(strstr(err, "declined"));
    mdl.contention = 2;
    assert_true(isnan(run(1, 4, &mdl, err, sizeof err)));
    assert_non_null(strstr(err, "contention"));
}

/* Large pipelines stay cheap: the engine is linear in the steps (a leaf
 * holding 4096 receives in one round used to be rescanned every round). */
static void large_is_linear(void **state)
{
    (void)state;
    struct acct_model mdl;
    net(&mdl);
    struct acct_decision d = {.alg = acct_alg_find(ACCT_COLL_bcast, "pipeline"),
                              .segment_bytes = 256};
    double t = acct_model_simulate(ACCT_COLL_bcast, &d, 64, 1u << 20, 0, &mdl);
    /* (P - 1)(g + L) + (ns - 1) g with constant g */
    assert_close(t, 63 * 110 + 4095 * 10, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(semantics),
        cmocka_unit_test(refusals),
        cmocka_unit_test(large_is_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
