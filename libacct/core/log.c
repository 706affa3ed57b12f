/* Messages from libacct: one rank, a small budget, one write() per line. */
#include "acct/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "acct/env.h"

static atomic_int log_verbose = -1; /* -1: not read yet */
static atomic_int log_rank = -1;    /* -1: unknown, behaves as rank 0 */
static atomic_uint log_printed;     /* warnings and errors printed */
static atomic_uint log_suppressed;

void acct_log_init(void)
{
    if (atomic_load_explicit(&log_verbose, memory_order_relaxed) >= 0)
        return;
    int verbose = 0;
    const char *v = getenv("ACCT_VERBOSE");
    if (v != NULL && *v != '\0') {
        char *end = NULL;
        long l = strtol(v, &end, 10);
        if (end != v && *end == '\0' && l >= 0)
            verbose = l > 3 ? 3 : (int)l;
    }
    atomic_store(&log_verbose, verbose);
    if (atomic_load(&log_rank) < 0)
        atomic_store(&log_rank, acct_env_launcher_rank());
}

void acct_log_set_rank(int rank)
{
    acct_log_init();
    atomic_store(&log_rank, rank);
}

unsigned acct_log_suppressed(void)
{
    return atomic_load(&log_suppressed);
}

static const char *level_name(enum acct_log_level level)
{
    switch (level) {
    case ACCT_LOG_ERROR: return "error";
    case ACCT_LOG_WARN: return "warning";
    case ACCT_LOG_INFO: return "info";
    case ACCT_LOG_DEBUG: return "debug";
    }
    return "?";
}

static int may_print(enum acct_log_level level)
{
    int verbose = atomic_load(&log_verbose);
    int rank = atomic_load(&log_rank);
    int first_rank = rank <= 0;

    if (verbose >= 2) /* everything, from every rank */
        return 1;
    if (!first_rank)
        return 0;
    if (level >= ACCT_LOG_INFO)
        return (int)level <= verbose + 1;
    /* warnings and errors: within the budget unless verbose */
    if (verbose >= 1)
        return 1;
    return atomic_fetch_add(&log_printed, 1) < ACCT_LOG_BUDGET;
}

void acct_log(enum acct_log_level level, const char *fmt, ...)
{
    acct_log_init();
    if (!may_print(level)) {
        atomic_fetch_add(&log_suppressed, 1);
        return;
    }
    char line[1024];
    int rank = atomic_load(&log_rank);
    int n = rank >= 0 ? snprintf(line, sizeof line, "acct[%d]: %s: ", rank, level_name(level))
                      : snprintf(line, sizeof line, "acct: %s: ", level_name(level));
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m > 0 ? (size_t)m : 0);
    if (len > sizeof line - 2)
        len = sizeof line - 2; /* truncated, keep the newline */
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w; /* nowhere to report a failed write to stderr */
}
