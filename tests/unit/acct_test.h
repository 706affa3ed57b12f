/* What every C unit test shares (docs/testbed.md, "Where tests live"):
 * cmocka, acct_assert() (a check with a message), and acct_test_run(),
 * which runs one cmocka group made of the cases a ctest entry selects by
 * name on the command line. */
#ifndef ACCT_TEST_H
#define ACCT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* assert_true with a message: on failure prints FILE:LINE and the
 * condition, then the printf-style message, and fails the test. */
#define acct_assert(cond, ...)                                                   \
    do {                                                                         \
        if (!(cond)) {                                                           \
            print_error("%s:%d: %s\n", __FILE__, __LINE__, #cond);               \
            fail_msg(__VA_ARGS__);                                               \
        }                                                                        \
    } while (0)

/* A case of a test program: the name a ctest entry passes as argv[1] and
 * one of the cmocka tests it runs (several rows may share a name). */
struct acct_test_case {
    const char *name;
    struct CMUnitTest test;
};

#define ACCT_TEST_CASE(case_name, fn) {(case_name), cmocka_unit_test(fn)}

/* Runs, as the cmocka group `group`, the cases named `which` (all of them
 * when `which` is NULL or "all"). Returns cmocka's count of failed tests,
 * or 2 when no case has that name. */
static inline int acct_test_run(const char *group, const struct acct_test_case *cases, size_t n,
                                const char *which)
{
    int all = which == NULL || strcmp(which, "all") == 0;
    struct CMUnitTest *sel = calloc(n ? n : 1, sizeof *sel);
    size_t k = 0;
    if (sel == NULL)
        return 2;
    for (size_t i = 0; i < n; i++)
        if (all || strcmp(cases[i].name, which) == 0)
            sel[k++] = cases[i].test;
    if (k == 0) {
        fprintf(stderr, "%s: no test case named \"%s\"\n", group, which);
        free(sel);
        return 2;
    }
    int rc = _cmocka_run_group_tests(group, sel, k, NULL, NULL);
    free(sel);
    return rc;
}

#endif
