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

/* What SET_POLICY sends: the policy file's text, or nothing (--clear). */
struct policy_text {
    const char *file; /* NULL: --clear */
    char *text;
    size_t len;
};

static void fill(struct acctctl_conn *conn, struct acct_wbuf *w, void *arg)
{
    const struct policy_text *p = arg;
    acct_put_str(w, ACCT_T_PARTITION, conn->common->partition);
    acct_put_strn(w, ACCT_T_POLICY_TEXT, p->text != NULL ? p->text : "", p->len);
    if (p->file != NULL)
        acctctl_put_name(conn, w, p->file);
}

static int print(struct acctctl_conn *conn, struct acctctl_table *t, void *arg)
{
    const struct policy_text *p = arg;
    const struct acctctl_common *c = conn->common;
    if (c->format == ACCTCTL_FMT_TABLE) {
        if (p->file == NULL)
            printf("partition %s follows the policy files again\n", c->partition);
        else
            printf("partition %s now follows the policy of %s (stored in acctd)\n",
                   c->partition, p->file);
        return acctctl_flushed();
    }
    acctctl_table_cell(t, "%s", c->partition);
    acctctl_cells(t, conn->msg.body, conn->msg.len, 1, t->ncols);
    return acctctl_print_record(t, c->format);
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
    static const struct acctctl_exchange x = {.type = ACCT_MSG_SET_POLICY, ACCTCTL_COLS(cols),
        .fill = fill, .print = print};
    struct acctctl_common c;
    struct policy_text p = { 0 };
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
    p.file = clear ? NULL : argv[optind];
    if (p.file != NULL &&
        acctctl_read_file(argv[0], p.file, POLICY_MAX_BYTES, &p.text, &p.len) != 0)
        return ACCTCTL_FAIL;
    rc = acctctl_exchange(&c, &x, &p);
    free(p.text);
    return rc;
}
