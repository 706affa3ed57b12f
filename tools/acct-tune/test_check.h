/* The check macro of acct-tune's unit tests: count and report a failure,
 * keep going. */
#ifndef ACCT_TUNE_TEST_CHECK_H
#define ACCT_TUNE_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                          \
    do {                                                          \
        if (!(cond)) {                                            \
            failures++;                                           \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                         \
            fputc('\n', stderr);                                  \
        }                                                         \
    } while (0)

#endif
