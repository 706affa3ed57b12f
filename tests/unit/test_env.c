/* acct/env.h: boolean words, the opt-out variables, the launcher rank. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "acct/env.h"

static void clear_env(void)
{
    static const char *const vars[] = {"ACCT", "ACCT_DISABLE", "OMPI_COMM_WORLD_RANK",
                                       "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

static int setup(void **state)
{
    (void)state;
    clear_env();
    return 0;
}

static void test_parse_bool_words(void **state)
{
    (void)state;
    static const char *const yes[] = {"1", "yes", "YES", "on", "On", "true", " true ", "enabled"};
    static const char *const no[] = {"0", "no", "off", "OFF", "false", "\tfalse\n", "disable"};
    bool b;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        b = false;
        assert_int_equal(acct_parse_bool(yes[i], &b), 0);
        assert_true(b);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        b = true;
        assert_int_equal(acct_parse_bool(no[i], &b), 0);
        assert_false(b);
    }
}

static void test_parse_bool_rejects(void **state)
{
    (void)state;
    static const char *const bad[] = {"", " ", "2", "y", "onn", "truefalse", "-1", "o n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool b = true;
        assert_int_equal(acct_parse_bool(bad[i], &b), -1);
        assert_true(b); /* untouched */
    }
    bool b;
    assert_int_equal(acct_parse_bool(NULL, &b), -1);
    assert_int_equal(acct_parse_bool("1", NULL), -1);
}

static void test_state_default_on(void **state)
{
    (void)state;
    const char *why = "x";
    assert_int_equal(acct_env_state(&why), ACCT_ENV_ON);
    assert_null(why);
    setenv("ACCT_DISABLE", "", 1); /* empty = unset */
    assert_int_equal(acct_env_state(NULL), ACCT_ENV_ON);
    setenv("ACCT_DISABLE", "0", 1);
    setenv("ACCT", "on", 1);
    assert_int_equal(acct_env_state(NULL), ACCT_ENV_ON);
}

static void test_state_opt_out(void **state)
{
    (void)state;
    const char *why = NULL;
    setenv("ACCT_DISABLE", "1", 1);
    assert_int_equal(acct_env_state(&why), ACCT_ENV_OFF);
    assert_non_null(why);
    clear_env();
    setenv("ACCT", "off", 1);
    assert_int_equal(acct_env_state(&why), ACCT_ENV_OFF);
    /* ACCT_DISABLE=1 wins over ACCT=on */
    setenv("ACCT", "on", 1);
    setenv("ACCT_DISABLE", "yes", 1);
    assert_int_equal(acct_env_state(NULL), ACCT_ENV_OFF);
}

static void test_state_invalid_is_off(void **state)
{
    (void)state;
    const char *why = NULL;
    setenv("ACCT_DISABLE", "please", 1);
    assert_int_equal(acct_env_state(&why), ACCT_ENV_INVALID);
    assert_non_null(why);
    clear_env();
    setenv("ACCT", "sometimes", 1);
    assert_int_equal(acct_env_state(&why), ACCT_ENV_INVALID);
}

static void test_launcher_rank(void **state)
{
    (void)state;
    assert_int_equal(acct_env_launcher_rank(), -1);
    setenv("SLURM_PROCID", "5", 1);
    assert_int_equal(acct_env_launcher_rank(), 5);
    setenv("PMIX_RANK", "3", 1); /* PMIx before Slurm */
    assert_int_equal(acct_env_launcher_rank(), 3);
    setenv("OMPI_COMM_WORLD_RANK", "junk", 1); /* unparsable: next one */
    assert_int_equal(acct_env_launcher_rank(), 3);
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    assert_int_equal(acct_env_launcher_rank(), 0);
    clear_env();
    setenv("PMI_RANK", "-4", 1);
    assert_int_equal(acct_env_launcher_rank(), -1);
    setenv("PMI_RANK", "99999999999", 1);
    assert_int_equal(acct_env_launcher_rank(), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_parse_bool_words, setup),
        cmocka_unit_test_setup(test_parse_bool_rejects, setup),
        cmocka_unit_test_setup(test_state_default_on, setup),
        cmocka_unit_test_setup(test_state_opt_out, setup),
        cmocka_unit_test_setup(test_state_invalid_is_off, setup),
        cmocka_unit_test_setup(test_launcher_rank, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
