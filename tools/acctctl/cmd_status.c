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

static void fill(struct acctctl_conn *conn, struct acct_wbuf *w, void *arg)
{
    (void)conn;
    if (*(const bool *)arg)
        acct_put_u64(w, ACCT_T_CHECK, 1);
}

static int print(struct acctctl_conn *conn, struct acctctl_table *t, void *arg)
{
    const struct acct_msg *m = &conn->msg;
    char s[4096];
    acctctl_cells(t, m->body, m->len, 0, 2);
    acctctl_table_cell(t, "%s", conn->common->socket);
    acctctl_cells(t, m->body, m->len, 3, t->ncols);
    if (acctctl_table_print_record(t, conn->common->format, stdout) != 0)
        return ACCTCTL_FAIL;
    /* --check: the store is damaged, or the check did not run */
    if (*(const bool *)arg &&
        strcmp(acctctl_str(m->body, m->len, ACCT_T_INTEGRITY, s, sizeof(s)), "ok") != 0)
        return ACCTCTL_FAIL;
    return ACCTCTL_OK;
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
    static const struct acctctl_exchange x = {.type = ACCT_MSG_STATUS, ACCTCTL_REQUIRED(required),
        ACCTCTL_COLS(cols), .fill = fill, .print = print};
    struct acctctl_common c;
    bool check = false;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "c" ACCTCTL_COMMON_SHORT, opts, own_opt, &check);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    return acctctl_exchange(&c, &x, &check);
}
