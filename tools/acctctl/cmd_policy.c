/* acctctl policy: set (or clear) the refinement policy of one partition in
 * acctd's store, overriding the policy files (SET_POLICY; admin). */
#include "acctctl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "acct/common.h"
#include "client.h"

#define POLICY_MAX_BYTES (1024 * 1024)

static int own_opt(void *arg, int ch, const char *optarg)
{
    (void)optarg;
    if (ch != 'C')
        return -1;
    *(bool *)arg = true;
    return 0;
}

int acctctl_cmd_policy(int argc, char **argv)
{
    static const struct option opts[] = {
        { "partition", required_argument, NULL, 'p' },
        { "clear", no_argument, NULL, 'C' },
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL("partition", ACCTCTL_COL_TEXT),
        ACCTCTL_COL_STR("policy", ACCT_T_POLICY),
    };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_wbuf w;
    const char *file;
    char *text = NULL;
    size_t len = 0;
    bool clear = false;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "p:" ACCTCTL_COMMON_SHORT, opts, own_opt, &clear);
    if (rc >= 0)
        return rc;
    if (c.partition == NULL)
        return acctctl_usage_error(argv[0], "which partition? (-p PARTITION)");
    if (clear ? optind != argc : argc - optind != 1)
        return acctctl_usage_error(argv[0], "expected a policy file, or --clear");
    file = clear ? NULL : argv[optind];
    if (file != NULL && acctctl_read_file(argv[0], file, POLICY_MAX_BYTES, &text, &len) != 0)
        return ACCTCTL_FAIL;
    if (acctctl_connect(&conn, &c) != 0) {
        free(text);
        return ACCTCTL_FAIL;
    }
    rc = ACCTCTL_FAIL;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    acctctl_request(&conn, &w, ACCT_MSG_SET_POLICY);
    acct_put_str(&w, ACCT_T_PARTITION, c.partition);
    acct_put_strn(&w, ACCT_T_POLICY_TEXT, text != NULL ? text : "", len);
    if (file != NULL)
        acctctl_put_name(&conn, &w, file);
    if (acctctl_call(&conn, &w, NULL) != 0)
        goto out;
    if (c.format == ACCTCTL_FMT_TABLE) {
        if (clear)
            printf("partition %s follows the policy files again\n", c.partition);
        else
            printf("partition %s now follows the policy of %s (stored in acctd)\n",
                   c.partition, file);
        rc = fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
        goto out;
    }
    acctctl_table_cell(&t, "%s", c.partition);
    acctctl_cells(&t, conn.msg.body, conn.msg.len, 1, t.ncols);
    if (acctctl_table_print_record(&t, c.format, stdout) == 0)
        rc = ACCTCTL_OK;
out:
    acct_wbuf_free(&w);
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    free(text);
    return rc;
}
