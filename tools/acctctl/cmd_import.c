/* acctctl import: hand a tuning result (or a rules file) to acctd, which
 * validates and stores it as a new decision version (IMPORT; admin). */
#include "acctctl.h"

#include <stdbool.h>
#include <stdio.h>

#include "client.h"
#include "daemon_ops.h"

struct import_opts {
    bool activate, diff;
};

static int own_opt(void *arg, int ch, const char *optarg)
{
    struct import_opts *o = arg;
    (void)optarg;
    if (ch == 'a')
        o->activate = true;
    else if (ch == 'd')
        o->diff = true;
    else
        return -1;
    return 0;
}

int acctctl_cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        { "activate", no_argument, NULL, 'a' },
        { "diff", no_argument, NULL, 'd' },
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    struct import_opts o = { false, false };
    struct acctctl_common c;
    struct acctctl_conn conn;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "ad" ACCTCTL_COMMON_SHORT, opts, own_opt, &o);
    if (rc >= 0)
        return rc;
    if (argc - optind != 1)
        return acctctl_usage_error(argv[0], "expected one file (a tuning result or a rules "
                                            "file; - for standard input)");
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = acctctl_import_file(&conn, argv[optind], o.activate, o.diff) == 0 ? ACCTCTL_OK
                                                                           : ACCTCTL_FAIL;
    if (rc == ACCTCTL_OK && conn.warnings > 0)
        rc = ACCTCTL_WARN;
    acctctl_disconnect(&conn);
    return rc;
}
