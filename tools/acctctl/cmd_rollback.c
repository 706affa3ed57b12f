/* acctctl rollback: make the previously active version of a pair active
 * again (ROLLBACK; admin). */
#include "acctctl.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/common.h"
#include "acct/rules.h"
#include "client.h"
#include "daemon_ops.h"

int acctctl_cmd_rollback(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL("partition", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("interconnect", ACCTCTL_COL_TEXT),
        ACCTCTL_COL_U64("version", ACCT_T_VERSION),
        ACCTCTL_COL_U64_NZ("previous", ACCT_T_PREVIOUS),
    };
    static const unsigned required[] = { ACCT_T_VERSION };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_wbuf w;
    char ic[ACCT_RULES_NAME_MAX + 1];
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT, opts, NULL,
                            NULL);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if (c.partition == NULL)
        return acctctl_usage_error(argv[0], "which partition? (-p PARTITION)");
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = ACCTCTL_FAIL;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    acct_wbuf_init(&w, ACCT_PROTO_MAX_BODY);
    if (acctctl_resolve_pair(&conn, c.partition, c.interconnect, ic) != 0)
        goto out;
    acct_wbuf_free(&w);
    acctctl_request(&conn, &w, ACCT_MSG_ROLLBACK);
    acct_put_str(&w, ACCT_T_PARTITION, c.partition);
    acct_put_str(&w, ACCT_T_INTERCONNECT, ic);
    if (acctctl_call(&conn, &w, NULL) != 0 ||
        acctctl_require(&conn, required, ACCT_ARRAY_LEN(required)) != 0)
        goto out;
    if (c.format == ACCTCTL_FMT_TABLE) {
        printf("rolled back %s/%s from version %" PRIu64 " to version %" PRIu64 "\n",
               c.partition, ic, acctctl_u64(conn.msg.body, conn.msg.len, ACCT_T_PREVIOUS, 0),
               acctctl_u64(conn.msg.body, conn.msg.len, ACCT_T_VERSION, 0));
        rc = fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
        goto out;
    }
    acctctl_table_cell(&t, "%s", c.partition);
    acctctl_table_cell(&t, "%s", ic);
    acctctl_cells(&t, conn.msg.body, conn.msg.len, 2, t.ncols);
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
