/* acctctl reload: make acctd re-read its configuration and policies
 * (RELOAD; admin; the same as SIGHUP). */
#include "acctctl.h"

#include <stdio.h>

#include "client.h"

static int print(struct acctctl_conn *conn, struct acctctl_table *t, void *arg)
{
    (void)t;
    (void)arg;
    if (conn->common->format == ACCTCTL_FMT_TABLE)
        printf("acctd reloaded its configuration and policies\n");
    else if (conn->common->format == ACCTCTL_FMT_JSON)
        printf("{\"reloaded\": true}\n");
    else
        printf("reloaded\ttrue\n");
    return acctctl_flushed();
}

int acctctl_cmd_reload(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_exchange x = { .type = ACCT_MSG_RELOAD, .print = print };
    struct acctctl_common c;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_COMMON_SHORT, opts, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    return acctctl_exchange(&c, &x, NULL);
}
