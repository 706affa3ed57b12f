/* acctctl diff: what changes between two decision versions (DIFF). */
#include "acctctl.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/common.h"
#include "client.h"
#include "confidence.h"
#include "daemon_ops.h"

/* The rules of version v (SHOW). 0, or -1 (printed). */
static int version_rules(struct acctctl_conn *conn, uint64_t v, struct acct_rules **out)
{
    struct acct_wbuf w;
    struct acct_field f;
    int rc = -1;

    *out = NULL;
    acctctl_request(conn, &w, ACCT_MSG_SHOW);
    acct_put_u64(&w, ACCT_T_VERSION, v);
    if (acctctl_call(conn, &w, NULL) == 0 &&
        acctctl_require(conn, (const unsigned[]){ ACCT_T_RULES_TEXT }, 1) == 0 &&
        acct_msg_find(&conn->msg, ACCT_T_RULES_TEXT, &f) &&
        acct_rules_parse_buffer("rules", (const char *)f.val, f.len, out, NULL) == ACCT_RULES_OK)
        rc = 0;
    else if (*out == NULL)
        fprintf(stderr, ACCTCTL_NAME " %s: the rules of version %llu cannot be read\n",
                conn->common->cmd, (unsigned long long)v);
    acct_wbuf_free(&w);
    return rc;
}

struct row_arg {
    struct acctctl_table *t; /* NULL: print */
    uint64_t v1, v2;
};

static int noise_line(void *arg, const char *line)
{
    struct row_arg *a = arg;
    if (a->t == NULL)
        return printf("%s\n", line) < 0 ? -1 : 0;
    acctctl_table_cell(a->t, "%" PRIu64, a->v1);
    acctctl_table_cell(a->t, "%" PRIu64, a->v2);
    acctctl_table_cell(a->t, "%s", line);
    return 0;
}

/* Whether each differing decision is beyond noise (confidence.c). 0 or -1. */
static int diff_noise(struct acctctl_conn *conn, uint64_t v1, uint64_t v2, struct row_arg *a)
{
    struct acct_rules *rules[2] = { NULL, NULL };
    struct acct_result *res[2] = { NULL, NULL };
    char why[2][512] = { "", "" };
    struct acctctl_diff_side side[2];
    uint64_t v[2] = { v1, v2 };
    int rc = -1;

    for (int k = 0; k < 2; k++) {
        if (version_rules(conn, v[k], &rules[k]) != 0 ||
            acctctl_get_result(conn, v[k], &res[k], why[k], sizeof(why[k])) < 0)
            goto out;
        side[k] = (struct acctctl_diff_side){ v[k], rules[k], res[k], why[k] };
    }
    rc = acctctl_diff_noise(side, noise_line, a);
out:
    for (int k = 0; k < 2; k++) {
        acct_rules_free(rules[k]);
        acct_result_free(res[k]);
    }
    return rc;
}

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
        struct row_arg a = { NULL, v1, v2 };
        if (acct_count(conn.msg.body, conn.msg.len, ACCT_T_DIFF_LINE) == 0) {
            printf("versions %" PRIu64 " and %" PRIu64 " make the same decisions\n", v1, v2);
        } else if (diff_noise(&conn, v1, v2, &a) != 0) {
            goto out;
        }
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
    struct row_arg a = { &t, v1, v2 };
    if (acct_count(conn.msg.body, conn.msg.len, ACCT_T_DIFF_LINE) > 0 &&
        diff_noise(&conn, v1, v2, &a) != 0)
        goto out;
    if (acctctl_table_print(&t, c.format, stdout) == 0)
        rc = ACCTCTL_OK;
out:
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    return rc;
}
