/* acctd's log: one line per message on stderr, "acctd: LEVEL: text". Under
 * systemd (JOURNAL_STREAM set) each line starts with the syslog priority
 * prefix "<N>" that journald turns into the entry's priority. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "acctd.h"

static int log_level = 2;
static int log_journal;

void acctd_log_init(int level)
{
    log_level = level;
    log_journal = getenv("JOURNAL_STREAM") != NULL;
}

void acctd_log_set_level(int level)
{
    log_level = level;
}

void acctd_log(int level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    static const int prio[] = {3, 4, 6, 7};
    char msg[2048];
    va_list ap;
    if (level > log_level || level < 0 || level > 3)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (log_journal)
        fprintf(stderr, "<%d>%s: %s\n", prio[level], names[level], msg);
    else
        fprintf(stderr, "acctd: %s: %s\n", names[level], msg);
}

int acctd_mkdir_p(const char *path, mode_t mode)
{
    char tmp[ACCTD_PATH_MAX];
    if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, mode) != 0 && errno != EEXIST)
        return -1;
    return 0;
}
