/* acctctl activate: make a decision version the active one of its pair
 * (ACTIVATE; admin). */
#include "acctctl.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/common.h"
#include "client.h"

int acctctl_cmd_activate(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL_U64("version", ACCT_T_VERSION),
        ACCTCTL_COL_STR("partition", ACCT_T_PARTITION),
        ACCTCTL_COL_STR("interconnect", ACCT_T_INTERCONNECT),
        ACCTCTL_COL_U64_NZ("previous", ACCT_T_PREVIOUS),
    };
    static const unsigned required[] = { ACCT_T_PARTITION, ACCT_T_INTERCONNECT };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_wbuf w;
    uint64_t v, prev;
    char p[256], i[256];
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_COMMON_SHORT, opts, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (argc - optind != 1)
        return acctctl_usage_error(argv[0], "expected one version");
    if (acctctl_parse_version(argv[optind], &v) != 0)
        return acctctl_usage_error(argv[0], "\"%s\" is not a version (an integer >= 1)",
                                   argv[optind]);
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = ACCTCTL_FAIL;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    acctctl_request(&conn, &w, ACCT_MSG_ACTIVATE);
    acct_put_u64(&w, ACCT_T_VERSION, v);
    if (acctctl_call(&conn, &w, NULL) != 0 ||
        acctctl_require(&conn, required, ACCT_ARRAY_LEN(required)) != 0)
        goto out;
    if (c.format == ACCTCTL_FMT_TABLE) {
        acctctl_str(conn.msg.body, conn.msg.len, ACCT_T_PARTITION, p, sizeof(p));
        acctctl_str(conn.msg.body, conn.msg.len, ACCT_T_INTERCONNECT, i, sizeof(i));
        prev = acctctl_u64(conn.msg.body, conn.msg.len, ACCT_T_PREVIOUS, 0);
        if (prev != 0)
            printf("activated version %" PRIu64 " of %s/%s (was %" PRIu64 ")\n", v, p, i, prev);
        else
            printf("activated version %" PRIu64 " of %s/%s\n", v, p, i);
        rc = fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
        goto out;
    }
    acctctl_cells(&t, conn.msg.body, conn.msg.len, 0, t.ncols);
    if (acctctl_table_print_record(&t, c.format, stdout) == 0)
        rc = ACCTCTL_OK;
out:
    if (rc == ACCTCTL_OK && conn.warnings > 0)
        rc = ACCTCTL_WARN;
    acct_wbuf_free(&w);
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    return rc;
}
