/* acctctl rollback: make the previously active version of a pair active
 * again (ROLLBACK; admin). */
#include "acctctl.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/common.h"
#include "acct/rules.h"
#include "client.h"
#include "daemon_ops.h"

/* The pair to roll back: -p, and -i or the partition's only interconnect. */
struct pair {
    const struct acctctl_common *c;
    char ic[ACCT_RULES_NAME_MAX + 1];
};

static int prepare(struct acctctl_conn *conn, void *arg)
{
    struct pair *p = arg;
    return acctctl_resolve_pair(conn, p->c->partition, p->c->interconnect, p->ic);
}

static void fill(struct acctctl_conn *conn, struct acct_wbuf *w, void *arg)
{
    const struct pair *p = arg;
    (void)conn;
    acct_put_str(w, ACCT_T_PARTITION, p->c->partition);
    acct_put_str(w, ACCT_T_INTERCONNECT, p->ic);
}

static int print(struct acctctl_conn *conn, struct acctctl_table *t, void *arg)
{
    const struct pair *p = arg;
    const struct acct_msg *m = &conn->msg;
    if (conn->common->format == ACCTCTL_FMT_TABLE) {
        printf("rolled back %s/%s from version %" PRIu64 " to version %" PRIu64 "\n",
               p->c->partition, p->ic, acctctl_u64(m->body, m->len, ACCT_T_PREVIOUS, 0),
               acctctl_u64(m->body, m->len, ACCT_T_VERSION, 0));
        return acctctl_flushed();
    }
    acctctl_table_cell(t, "%s", p->c->partition);
    acctctl_table_cell(t, "%s", p->ic);
    acctctl_cells(t, m->body, m->len, 2, t->ncols);
    return acctctl_print_record(t, conn->common->format);
}

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
    static const struct acctctl_exchange x = {.type = ACCT_MSG_ROLLBACK, ACCTCTL_REQUIRED(required),
        ACCTCTL_COLS(cols), .warn = true, .prepare = prepare, .fill = fill, .print = print};
    struct acctctl_common c;
    struct pair p = { .c = &c };
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
    return acctctl_exchange(&c, &x, &p);
}
