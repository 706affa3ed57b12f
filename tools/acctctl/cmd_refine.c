/* acctctl refine: run acctd's refinement pass now (REFINE; admin) and show
 * what it changed, or why it changed nothing. */
#include "acctctl.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "acct/common.h"
#include "client.h"

static void fill(struct acctctl_conn *conn, struct acct_wbuf *w, void *arg)
{
    const struct acctctl_common *c = conn->common;
    (void)arg;
    if (c->partition != NULL)
        acct_put_str(w, ACCT_T_PARTITION, c->partition);
    if (c->interconnect != NULL)
        acct_put_str(w, ACCT_T_INTERCONNECT, c->interconnect);
}

static int print(struct acctctl_conn *conn, struct acctctl_table *t, void *arg)
{
    const struct acct_msg *m = &conn->msg;
    bool table = conn->common->format == ACCTCTL_FMT_TABLE;
    uint64_t n = acctctl_u64(m->body, m->len, ACCT_T_NREFINED, 0);
    struct acct_iter it;
    struct acct_field f;
    (void)arg;
    if (table)
        printf("%" PRIu64 " refined version%s written\n", n, n == 1 ? "" : "s");
    acct_iter_init(&it, m->body, m->len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag != ACCT_T_DIFF_LINE)
            continue;
        if (table) {
            printf("  %.*s\n", (int)f.len, (const char *)f.val);
        } else {
            acctctl_table_cell(t, "%" PRIu64, n);
            acctctl_table_cell(t, "%.*s", (int)f.len, (const char *)f.val);
        }
    }
    if (table)
        return acctctl_flushed();
    return acctctl_table_print(t, conn->common->format, stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
}

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
    static const struct acctctl_exchange x = {.type = ACCT_MSG_REFINE, ACCTCTL_REQUIRED(required),
        ACCTCTL_COLS(cols), .fill = fill, .print = print};
    struct acctctl_common c;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT, opts, NULL,
                            NULL);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    return acctctl_exchange(&c, &x, NULL);
}
