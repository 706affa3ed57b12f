/* acct/log.h: who prints and how much. Each scenario runs in a child process
 * (the log state is per process) with stderr on a pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "acct/log.h"

struct scenario {
    const char *verbose;  /* ACCT_VERBOSE or NULL */
    const char *launcher; /* SLURM_PROCID or NULL */
    int set_rank;         /* acct_log_set_rank() argument, or -2 for none */
};

/* Emits 3 warnings, 1 error, 2 infos, 2 debugs; returns what reached stderr. */
static char *run_scenario(const struct scenario *s)
{
    int fds[2];
    static char buf[8192];
    size_t got = 0;
    ssize_t n;

    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        unsetenv("ACCT_VERBOSE");
        unsetenv("OMPI_COMM_WORLD_RANK");
        unsetenv("PMIX_RANK");
        unsetenv("PMI_RANK");
        unsetenv("SLURM_PROCID");
        if (s->verbose)
            setenv("ACCT_VERBOSE", s->verbose, 1);
        if (s->launcher)
            setenv("SLURM_PROCID", s->launcher, 1);
        acct_log_init();
        if (s->set_rank != -2)
            acct_log_set_rank(s->set_rank);
        acct_warn("w%d", 1);
        acct_warn("w%d", 2);
        acct_error("e%d", 1);
        acct_warn("w%d", 3);
        acct_info("i%d", 1);
        acct_info("i%d", 2);
        acct_debug("d%d", 1);
        acct_debug("d%d", 2);
        _exit(0);
    }
    close(fds[1]);
    while ((n = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    return buf;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void test_default_one_warning_from_rank0(void **state)
{
    (void)state;
    struct scenario s = {NULL, NULL, 0};
    char *out = run_scenario(&s);
    assert_int_equal(count_lines(out), 1);
    assert_non_null(strstr(out, "acct[0]: warning: w1\n"));
}

static void test_other_ranks_silent(void **state)
{
    (void)state;
    struct scenario s = {NULL, "3", -2}; /* launcher says rank 3 */
    assert_int_equal(count_lines(run_scenario(&s)), 0);
    struct scenario t = {NULL, "0", 5}; /* MPI says rank 5 */
    assert_int_equal(count_lines(run_scenario(&t)), 0);
    struct scenario u = {"1", NULL, 7}; /* verbose 1: still rank 0 only */
    assert_int_equal(count_lines(run_scenario(&u)), 0);
}

static void test_unknown_rank_prints_like_rank0(void **state)
{
    (void)state;
    struct scenario s = {NULL, NULL, -2};
    char *out = run_scenario(&s);
    assert_int_equal(count_lines(out), 1);
    assert_non_null(strstr(out, "acct: warning: w1\n"));
}

static void test_verbose_levels(void **state)
{
    (void)state;
    struct scenario v1 = {"1", NULL, 0}; /* all warnings/errors + infos */
    char *out = run_scenario(&v1);
    assert_int_equal(count_lines(out), 6);
    assert_non_null(strstr(out, "info: i2"));
    assert_null(strstr(out, "debug"));
    struct scenario v2 = {"2", NULL, 4}; /* everything, every rank */
    out = run_scenario(&v2);
    assert_int_equal(count_lines(out), 8);
    assert_non_null(strstr(out, "acct[4]: debug: d2\n"));
    struct scenario bad = {"lots", NULL, 0}; /* not a number: default */
    assert_int_equal(count_lines(run_scenario(&bad)), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_one_warning_from_rank0),
        cmocka_unit_test(test_other_ranks_silent),
        cmocka_unit_test(test_unknown_rank_prints_like_rank0),
        cmocka_unit_test(test_verbose_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
