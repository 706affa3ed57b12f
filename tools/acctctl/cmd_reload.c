/* acctctl reload: make acctd re-read its configuration and policies
 * (RELOAD; admin; the same as SIGHUP). */
#include "acctctl.h"

#include <stdio.h>

#include "client.h"

int acctctl_cmd_reload(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acct_wbuf w;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_COMMON_SHORT, opts, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = ACCTCTL_FAIL;
    acctctl_request(&conn, &w, ACCT_MSG_RELOAD);
    if (acctctl_call(&conn, &w, NULL) == 0) {
        if (c.format == ACCTCTL_FMT_TABLE)
            printf("acctd reloaded its configuration and policies\n");
        else if (c.format == ACCTCTL_FMT_JSON)
            printf("{\"reloaded\": true}\n");
        else
            printf("reloaded\ttrue\n");
        rc = fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
    }
    acct_wbuf_free(&w);
    acctctl_disconnect(&conn);
    return rc;
}
