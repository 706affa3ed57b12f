/* Messages from libacct and its tools.
 *
 * The library runs inside every rank of every job, so it must stay quiet:
 * warnings and errors are printed by one rank only (world rank 0, or the
 * launcher's rank 0 before MPI_Init), and at most ACCT_LOG_BUDGET warnings
 * per process unless ACCT_VERBOSE asks for more. ACCT_VERBOSE=1 shows info,
 * ACCT_VERBOSE=2 debug messages, and from 2 on every rank prints. */
#ifndef ACCT_LOG_H
#define ACCT_LOG_H

enum acct_log_level {
    ACCT_LOG_ERROR = 0,
    ACCT_LOG_WARN = 1,
    ACCT_LOG_INFO = 2,
    ACCT_LOG_DEBUG = 3,
};

/* Warnings printed per process before the rest are counted silently. */
#define ACCT_LOG_BUDGET 1

/* Read ACCT_VERBOSE and the launcher rank. Idempotent; cheap. */
void acct_log_init(void);

/* Once MPI knows it: the world rank decides who may print. */
void acct_log_set_rank(int rank);

/* Messages suppressed so far (over budget or not rank 0). */
unsigned acct_log_suppressed(void);

void acct_log(enum acct_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define acct_error(...) acct_log(ACCT_LOG_ERROR, __VA_ARGS__)
#define acct_warn(...)  acct_log(ACCT_LOG_WARN, __VA_ARGS__)
#define acct_info(...)  acct_log(ACCT_LOG_INFO, __VA_ARGS__)
#define acct_debug(...) acct_log(ACCT_LOG_DEBUG, __VA_ARGS__)

#endif
