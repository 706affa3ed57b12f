/* Unit tests of acctd's pure parts: Student's t tail (the refinement's
 * significance test), the evidence rule's robust statistics (issue 18:
 * one user's sample can neither veto a refinement nor fake a retune mark),
 * cutting a cell out of a decision map, the configuration and policy
 * parsers (docs/acctd.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acct/alg.h"
#include "acctd.h"
#include "sha256.h"

static void test_t_upper(void **state)
{
    (void)state;
    /* one-sided critical values from t tables */
    struct {
        double t, df, p;
    } v[] = {
        {0, 10, 0.5},          {1.812, 10, 0.05},   {2.228, 10, 0.025},  {2.764, 10, 0.01},
        {6.314, 1, 0.05},      {12.706, 1, 0.025},  {1.96, 1e6, 0.025},  {2.576, 1e6, 0.005},
        {-1.812, 10, 0.95},    {3.365, 5, 0.01},    {1.345, 14, 0.1},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        double p = refine_t_upper(v[i].t, v[i].df);
        if (fabs(p - v[i].p) > 2e-4 * (v[i].p > 0.1 ? 10 : 1))
            fail_msg("t=%g df=%g: p=%.6f, expected %.6f", v[i].t, v[i].df, p, v[i].p);
    }
    assert_true(refine_t_upper(50, 20) < 1e-20);
}

/* Rule covering (p, b) in list l, NULL if none; fails on overlaps. */
static const struct acct_rule *rule_at(const struct acct_rule_list *l, int p, uint64_t b)
{
    const struct acct_rule *r = NULL;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].comm_min <= p && p <= l->v[i].comm_max && l->v[i].bytes_min <= b &&
            b <= l->v[i].bytes_max) {
            assert_null(r); /* rectangles never overlap */
            r = &l->v[i];
        }
    return r;
}

/* Decision of (p, b) in list l, NULL if none. */
static const struct acct_decision *at(const struct acct_rule_list *l, int p, uint64_t b)
{
    const struct acct_rule *r = rule_at(l, p, b);
    return r != NULL ? &r->d : NULL;
}

static void test_carve(void **state)
{
    (void)state;
    const struct acct_alg *bin = acct_alg_find(ACCT_COLL_bcast, "binomial");
    const struct acct_alg *chain = acct_alg_find(ACCT_COLL_bcast, "chain");
    assert_non_null(bin);
    assert_non_null(chain);
    for (int native = 0; native < 2; native++) {
        struct acct_rule_list l = {.v = malloc(sizeof(struct acct_rule)), .n = 1};
        /* the rule's runner-up is the challenger that wins (exploration's case) */
        l.v[0] = (struct acct_rule){.comm_min = 2, .comm_max = 64, .bytes_min = 0,
                                    .bytes_max = 65535, .d = {.alg = bin},
                                    .runner_up = {.alg = chain, .segment_bytes = 8192}};
        struct acct_decision nd = {.alg = chain, .segment_bytes = 8192};
        struct acct_decision was = l.v[0].d;
        assert_int_equal(refine_carve(&l, 8, 2048, 4095, native ? NULL : &nd, &was), 0);
        assert_int_equal(l.n, native ? 4u : 5u);
        int ps[] = {1, 2, 7, 8, 9, 64, 65};
        uint64_t bs[] = {0, 2047, 2048, 3000, 4095, 4096, 65535, 65536};
        for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
            for (size_t j = 0; j < sizeof(bs) / sizeof(bs[0]); j++) {
                int p = ps[i];
                uint64_t b = bs[j];
                const struct acct_decision *d = at(&l, p, b);
                bool in_rect = p >= 2 && p <= 64 && b <= 65535;
                bool in_cell = p == 8 && b >= 2048 && b <= 4095;
                if (in_cell && !native) {
                    assert_non_null(d);
                    assert_ptr_equal(d->alg, chain);
                    assert_int_equal(d->segment_bytes, 8192);
                    /* the replaced decision is the new rule's runner-up */
                    assert_ptr_equal(rule_at(&l, p, b)->runner_up.alg, bin);
                } else if (in_rect && !in_cell) {
                    assert_non_null(d);
                    assert_ptr_equal(d->alg, bin);
                    assert_ptr_equal(rule_at(&l, p, b)->runner_up.alg, chain); /* kept */
                } else {
                    assert_null(d);
                }
            }
        free(l.v);
    }
}

static void test_config(void **state)
{
    (void)state;
    struct acctd_config c;
    struct acct_diags d = ACCT_DIAGS_INIT;
    const char *good = "state_dir: /srv/acct\nsocket_mode: \"0660\"\nmax_clients: 12\n"
                       "log_level: debug\n";
    acctd_config_defaults(&c);
    assert_int_equal(acctd_config_parse(&c, "a.yaml", good, strlen(good), &d), 0);
    assert_string_equal(c.state_dir, "/srv/acct");
    assert_int_equal(c.socket_mode, 0660);
    assert_int_equal(c.max_clients, 12);
    assert_int_equal(c.log_level, 3);
    assert_int_equal(acctd_config_validate(&c, &d), 0);
    assert_string_equal(c.database, "/srv/acct/acct.db");
    assert_string_equal(c.socket, "/run/acct/acctd.sock");
    assert_string_equal(c.rules_dir, "/run/acct/rules");

    const char *bad = "max_clients: \"12\"\nclient_timeout: -1\nstate_dir: [a]\nstate_dir: /x\n"
                      "admin_group: nosuchgroup-acct\n";
    acctd_config_defaults(&c);
    assert_int_equal(acctd_config_parse(&c, "b.yaml", bad, strlen(bad), &d), -1);
    char line[1024];
    const char *want[] = {
        "b.yaml:1:14: max_clients: expected an integer, not a quoted string",
        "b.yaml:2:17: client_timeout: \"-1\" is not a non-negative integer",
        "b.yaml:3:12: state_dir: expected a single value",
        "b.yaml:4:1: state_dir: duplicate key \"state_dir\" (first at line 3)",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        bool found = false;
        for (size_t k = 0; k < d.n; k++) {
            acct_diag_format(&d, k, line, sizeof(line));
            found |= strcmp(line, want[i]) == 0;
        }
        if (!found) {
            for (size_t k = 0; k < d.n; k++) {
                acct_diag_format(&d, k, line, sizeof(line));
                print_message("got: %s\n", line);
            }
            fail_msg("missing: %s", want[i]);
        }
    }
    acctd_config_defaults(&c);
    const char *grp = "admin_group: nosuchgroup-acct\n";
    assert_int_equal(acctd_config_parse(&c, "c.yaml", grp, strlen(grp), &d), 0);
    assert_int_equal(acctd_config_validate(&c, &d), -1);
    acct_diags_free(&d);
}

static void test_policy(void **state)
{
    (void)state;
    struct policy p;
    struct acct_diags d = ACCT_DIAGS_INIT;
    policy_builtin(&p);
    const char *t = "acct_policy: 1\nrefine: {activate: true, min_users: 3, min_gain: 0.1}\n";
    assert_int_equal(policy_parse("p.yaml", t, strlen(t), &p, &d), 0);
    assert_true(p.activate);
    assert_int_equal(p.min_users, 3);
    assert_true(fabs(p.min_gain - 0.1) < 1e-12);
    assert_int_equal(p.min_jobs, 5); /* untouched keys keep their values */
    const char *v2 = "acct_policy: 2\nrefine: {min_users: 1}\n";
    assert_int_equal(policy_parse("q.yaml", v2, strlen(v2), &p, &d), -1);
    char line[1024];
    acct_diag_format(&d, 0, line, sizeof(line));
    assert_string_equal(line, "q.yaml:1:14: acct_policy: unsupported policy version 2: this acctd reads version 1");
    assert_int_equal(d.total, 1); /* nothing else checked in another version */
    const char *one = "acct_policy: 1\nrefine: {min_users: 1}\n";
    assert_int_equal(policy_parse("r.yaml", one, strlen(one), &p, &d), -1);
    assert_int_equal(p.min_users, 3); /* refused: unchanged */
    acct_diags_free(&d);
}


/* n jobs of uid with mean times around m (+-3 %, deterministic), calls each. */
static size_t jobs(struct refine_obs *v, size_t at, uid_t uid, size_t n, double m, int64_t calls)
{
    for (size_t i = 0; i < n; i++)
        v[at + i] = (struct refine_obs){.mean = m * (1 + 0.03 * ((double)(i % 5) - 2) / 2),
                                        .calls = calls, .uid = uid};
    return at + n;
}

static struct policy evidence_policy(void)
{
    struct policy p;
    policy_builtin(&p);
    p.min_calls = 100;
    p.min_jobs = 4;
    p.min_users = 2;
    return p;
}

/* The case: two honest users justify a change (incumbent ~100 us,
 * challenger ~60 us, 3 jobs each per method); one more sample from a third
 * user must not veto it, however it is made. */
static void test_veto(void **state)
{
    (void)state;
    struct policy p = evidence_policy();
    struct refine_obs a[16], b[16];
    struct refine_verdict r;
    char why[512];
    size_t na = jobs(a, 0, 1001, 3, 100, 50);
    na = jobs(a, na, 1002, 3, 95, 50);
    size_t nb = jobs(b, 0, 1001, 3, 60, 50);
    nb = jobs(b, nb, 1002, 3, 62, 50);
    assert_int_equal(refine_beats(a, na, b, nb, 0, &p, &r, why, sizeof(why)), 1);
    if (!(r.p < 1e-4))
        fail_msg("p=%g (%s)", r.p, why);
    double honest_p = r.p;
    /* COUNT=1, SUM_US=1e6: one call is no job (min_job_calls) */
    b[nb] = (struct refine_obs){.mean = 1e6, .calls = 1, .uid = 666};
    assert_int_equal(refine_beats(a, na, b, nb + 1, 0, &p, &r, why, sizeof(why)), 1);
    assert_true(r.p == honest_p);
    /* with enough calls: implausible against the measured time (100 us) */
    b[nb].calls = 1000;
    assert_int_equal(refine_beats(a, na, b, nb + 1, 100, &p, &r, why, sizeof(why)), 1);
    assert_true(r.p == honest_p);
    /* ... and against the cell's median user when nothing was measured */
    struct refine_obs all[40];
    memcpy(all, a, na * sizeof(*a));
    memcpy(all + na, b, (nb + 1) * sizeof(*b));
    double ref = refine_cell_ref(all, na + nb + 1, p.min_job_calls);
    assert_true(ref > 50 && ref < 110);
    assert_int_equal(refine_beats(a, na, b, nb + 1, ref, &p, &r, why, sizeof(why)), 1);
    /* a plausible but slow value (30x): trimmed away, or its user alone
     * disagrees and is left out as a change decision leaves out any user */
    b[nb].mean = 3000;
    assert_int_equal(refine_beats(a, na, b, nb + 1, 100, &p, &r, why, sizeof(why)), 1);
    assert_true(r.p < p.significance);
    /* several such jobs of that user: left out by leave-one-user-out */
    size_t nv = jobs(b, nb, 666, 4, 3000, 1000);
    assert_int_equal(refine_beats(a, na, b, nv, 100, &p, &r, why, sizeof(why)), 1);
    assert_non_null(strstr(why, "without uid 666's jobs (that user alone disagrees)"));
    /* the same on the incumbent's side: a fake fast incumbent job */
    a[na] = (struct refine_obs){.mean = 1, .calls = 1000, .uid = 666};
    assert_int_equal(refine_beats(a, na + 1, b, nb, 100, &p, &r, why, sizeof(why)), 1);
}

/* Keep decisions stay keep decisions: a slower challenger, or one user's
 * jobs alone (however many), change nothing. */
static void test_keep(void **state)
{
    (void)state;
    struct policy p = evidence_policy();
    struct refine_obs a[16], b[64];
    struct refine_verdict r;
    char why[512];
    size_t na = jobs(a, 0, 1001, 3, 100, 50);
    na = jobs(a, na, 1002, 3, 95, 50);
    size_t nb = jobs(b, 0, 1001, 3, 130, 50);
    nb = jobs(b, nb, 1002, 3, 125, 50);
    assert_int_equal(refine_beats(a, na, b, nb, 100, &p, &r, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "not significant"));
    /* one user's 30 fast jobs against another user's 3 that see no gain:
     * that user counts with 3 jobs only, and the rule must hold without it */
    nb = jobs(b, 0, 1001, 30, 60, 50);
    nb = jobs(b, nb, 1002, 3, 97, 50);
    assert_int_equal(refine_beats(a, na, b, nb, 100, &p, &r, why, sizeof(why)), 0);
    /* a single user's jobs are never enough */
    nb = jobs(b, 0, 1001, 30, 60, 50);
    assert_int_equal(refine_beats(a, na, b, nb, 100, &p, &r, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "1 users"));
}

/* Retune marks: two users' jobs 2x slower than measured mark the cell; one
 * user's huge values next to honest ones do not. */
static void test_drift(void **state)
{
    (void)state;
    struct policy p = evidence_policy();
    struct refine_obs v[32];
    struct refine_verdict r;
    char why[512];
    size_t n = jobs(v, 0, 1001, 3, 200, 50);
    n = jobs(v, n, 1002, 3, 210, 50);
    assert_int_equal(refine_drifts(v, n, 100, &p, &r, why, sizeof(why)), 1);
    assert_true(r.mean_b > 190 && r.mean_b < 215);
    n = jobs(v, 0, 1001, 3, 100, 50);
    n = jobs(v, n, 1002, 3, 104, 50);
    assert_int_equal(refine_drifts(v, n, 100, &p, &r, why, sizeof(why)), 0);
    v[n] = (struct refine_obs){.mean = 1e154, .calls = 1000, .uid = 666};
    assert_int_equal(refine_drifts(v, n + 1, 100, &p, &r, why, sizeof(why)), 0);
    size_t nv = jobs(v, n, 666, 6, 90000, 1000); /* plausible (< 1000x), one user */
    int d = refine_drifts(v, nv, 100, &p, &r, why, sizeof(why));
    assert_true(d == 0 || d == 2);
    /* without enough calls per job, nothing counts */
    for (size_t i = 0; i < n; i++)
        v[i].calls = 5;
    assert_int_equal(refine_drifts(v, n, 10, &p, &r, why, sizeof(why)), 0);
}

/* FIPS 180-4 / NIST CAVP vectors; the long one fed in uneven pieces. */
static void test_sha256(void **state)
{
    (void)state;
    char hex[ACCTD_SHA256_HEX];
    acctd_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    acctd_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    acctd_sha256_hex(m, strlen(m), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    struct acctd_sha256 s;
    uint8_t a[997], d[ACCTD_SHA256_LEN];
    memset(a, 'a', sizeof(a));
    acctd_sha256_init(&s);
    for (size_t done = 0, k = 1; done < 1000000; done += k, k = k % 997 + 1)
        acctd_sha256_update(&s, a, done + k > 1000000 ? 1000000 - done : k);
    acctd_sha256_final(&s, d);
    static const uint8_t want[ACCTD_SHA256_LEN] = {
        0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
        0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
    assert_memory_equal(d, want, sizeof(want));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_upper),
        cmocka_unit_test(test_veto),
        cmocka_unit_test(test_keep),
        cmocka_unit_test(test_drift),
        cmocka_unit_test(test_carve),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_policy),
        cmocka_unit_test(test_sha256),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
