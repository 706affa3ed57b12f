/* acctctl status: is acctd up, and what does it hold (STATUS). */
#include "acctctl.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "acct/common.h"
#include "client.h"

static int own_opt(void *arg, int ch, const char *optarg)
{
    (void)optarg;
    if (ch != 'c')
        return -1;
    *(bool *)arg = true;
    return 0;
}

int acctctl_cmd_status(int argc, char **argv)
{
    static const struct option opts[] = {
        { "check", no_argument, NULL, 'c' },
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL_STR("node", ACCT_T_NODE),
        ACCTCTL_COL_STR("software", ACCT_T_SOFTWARE),
        ACCTCTL_COL("socket", ACCTCTL_COL_TEXT), /* ours */
        ACCTCTL_COL_U64("uptime_s", ACCT_T_UPTIME_S),
        ACCTCTL_COL_U64("schema", ACCT_T_SCHEMA),
        ACCTCTL_COL_STR("db_path", ACCT_T_DB_PATH),
        ACCTCTL_COL_STR("rules_dir", ACCT_T_RULES_DIR),
        ACCTCTL_COL_U64("rules_pending", ACCT_T_RULES_PENDING),
        ACCTCTL_COL_U64("pairs", ACCT_T_NPAIRS),
        ACCTCTL_COL_U64("versions", ACCT_T_NVERSIONS),
        ACCTCTL_COL_U64("samples", ACCT_T_NSAMPLES),
        ACCTCTL_COL_U64("clients", ACCT_T_CLIENTS),
        ACCTCTL_COL_STR("policy", ACCT_T_POLICY),
        ACCTCTL_COL_STR("integrity", ACCT_T_INTEGRITY),
        ACCTCTL_COL_STR("sync", ACCT_T_SYNC_STATE), /* followers only */
    };
    static const unsigned required[] = { ACCT_T_SOFTWARE, ACCT_T_SCHEMA };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_wbuf w;
    bool check = false;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "c" ACCTCTL_COMMON_SHORT, opts, own_opt, &check);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = ACCTCTL_FAIL;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    acctctl_request(&conn, &w, ACCT_MSG_STATUS);
    if (check)
        acct_put_u64(&w, ACCT_T_CHECK, 1);
    if (acctctl_call(&conn, &w, NULL) != 0 ||
        acctctl_require(&conn, required, ACCT_ARRAY_LEN(required)) != 0)
        goto out;
    acctctl_cells(&t, conn.msg.body, conn.msg.len, 0, 2);
    acctctl_table_cell(&t, "%s", c.socket);
    acctctl_cells(&t, conn.msg.body, conn.msg.len, 3, t.ncols);
    if (acctctl_table_print_record(&t, c.format, stdout) != 0)
        goto out;
    rc = ACCTCTL_OK;
    if (check) {
        /* the store is damaged, or the check did not run */
        char s[4096];
        if (strcmp(acctctl_str(conn.msg.body, conn.msg.len, ACCT_T_INTEGRITY, s, sizeof(s)),
                   "ok") != 0)
            rc = ACCTCTL_FAIL;
    }
out:
    acct_wbuf_free(&w);
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    return rc;
}
