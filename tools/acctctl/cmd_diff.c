/* acctctl diff: what changes between two decision versions (DIFF). */
#include "acctctl.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/common.h"
#include "client.h"
#include "daemon_ops.h"

int acctctl_cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL("from", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("to", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("change", ACCTCTL_COL_TEXT),
    };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_iter it;
    struct acct_field f;
    uint64_t v1, v2;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_COMMON_SHORT, opts, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (argc - optind != 2)
        return acctctl_usage_error(argv[0], "expected two versions, V1 and V2");
    if (acctctl_parse_version(argv[optind], &v1) != 0 ||
        acctctl_parse_version(argv[optind + 1], &v2) != 0)
        return acctctl_usage_error(argv[0], "a version is an integer >= 1");
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = ACCTCTL_FAIL;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    /* the table prints the lines as they come; tsv/json collect them */
    if (acctctl_print_diff(&conn, v1, v2, c.format == ACCTCTL_FMT_TABLE ? "" : NULL) < 0)
        goto out;
    if (c.format == ACCTCTL_FMT_TABLE) {
        if (acct_count(conn.msg.body, conn.msg.len, ACCT_T_DIFF_LINE) == 0)
            printf("versions %" PRIu64 " and %" PRIu64 " make the same decisions\n", v1, v2);
        rc = fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
        goto out;
    }
    acct_iter_init(&it, conn.msg.body, conn.msg.len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag != ACCT_T_DIFF_LINE)
            continue;
        acctctl_table_cell(&t, "%" PRIu64, v1);
        acctctl_table_cell(&t, "%" PRIu64, v2);
        acctctl_table_cell(&t, "%.*s", (int)f.len, (const char *)f.val);
    }
    if (acctctl_table_print(&t, c.format, stdout) == 0)
        rc = ACCTCTL_OK;
out:
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    return rc;
}
