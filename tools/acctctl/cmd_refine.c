/* acctctl refine: run acctd's refinement pass now (REFINE; admin) and show
 * what it changed, or why it changed nothing. */
#include "acctctl.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/common.h"
#include "client.h"

int acctctl_cmd_refine(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL("refined", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("line", ACCTCTL_COL_TEXT),
    };
    static const unsigned required[] = { ACCT_T_NREFINED };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_wbuf w;
    struct acct_iter it;
    struct acct_field f;
    uint64_t n;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT, opts, NULL,
                            NULL);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = ACCTCTL_FAIL;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    acctctl_request(&conn, &w, ACCT_MSG_REFINE);
    if (c.partition != NULL)
        acct_put_str(&w, ACCT_T_PARTITION, c.partition);
    if (c.interconnect != NULL)
        acct_put_str(&w, ACCT_T_INTERCONNECT, c.interconnect);
    if (acctctl_call(&conn, &w, NULL) != 0 ||
        acctctl_require(&conn, required, ACCT_ARRAY_LEN(required)) != 0)
        goto out;
    n = acctctl_u64(conn.msg.body, conn.msg.len, ACCT_T_NREFINED, 0);
    if (c.format == ACCTCTL_FMT_TABLE)
        printf("%" PRIu64 " refined version%s written\n", n, n == 1 ? "" : "s");
    acct_iter_init(&it, conn.msg.body, conn.msg.len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag != ACCT_T_DIFF_LINE)
            continue;
        if (c.format == ACCTCTL_FMT_TABLE) {
            printf("  %.*s\n", (int)f.len, (const char *)f.val);
        } else {
            acctctl_table_cell(&t, "%" PRIu64, n);
            acctctl_table_cell(&t, "%.*s", (int)f.len, (const char *)f.val);
        }
    }
    if (c.format == ACCTCTL_FMT_TABLE)
        rc = fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
    else if (acctctl_table_print(&t, c.format, stdout) == 0)
        rc = ACCTCTL_OK;
out:
    acct_wbuf_free(&w);
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    return rc;
}
