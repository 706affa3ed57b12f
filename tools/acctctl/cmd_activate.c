/* acctctl activate: make a decision version the active one of its pair
 * (ACTIVATE; admin). */
#include "acctctl.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/common.h"
#include "client.h"

static void fill(struct acctctl_conn *conn, struct acct_wbuf *w, void *arg)
{
    (void)conn;
    acct_put_u64(w, ACCT_T_VERSION, *(const uint64_t *)arg);
}

static int print(struct acctctl_conn *conn, struct acctctl_table *t, void *arg)
{
    const struct acct_msg *m = &conn->msg;
    uint64_t v = *(const uint64_t *)arg, prev;
    char p[256], i[256];
    if (conn->common->format == ACCTCTL_FMT_TABLE) {
        acctctl_str(m->body, m->len, ACCT_T_PARTITION, p, sizeof(p));
        acctctl_str(m->body, m->len, ACCT_T_INTERCONNECT, i, sizeof(i));
        prev = acctctl_u64(m->body, m->len, ACCT_T_PREVIOUS, 0);
        if (prev != 0)
            printf("activated version %" PRIu64 " of %s/%s (was %" PRIu64 ")\n", v, p, i, prev);
        else
            printf("activated version %" PRIu64 " of %s/%s\n", v, p, i);
        return acctctl_flushed();
    }
    acctctl_cells(t, m->body, m->len, 0, t->ncols);
    return acctctl_print_record(t, conn->common->format);
}

int acctctl_cmd_activate(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL_U64("version", ACCT_T_VERSION),
        ACCTCTL_COL_STR("partition", ACCT_T_PARTITION),
        ACCTCTL_COL_STR("interconnect", ACCT_T_INTERCONNECT),
        ACCTCTL_COL_U64_NZ("previous", ACCT_T_PREVIOUS),
    };
    static const unsigned required[] = { ACCT_T_PARTITION, ACCT_T_INTERCONNECT };
    static const struct acctctl_exchange x = {.type = ACCT_MSG_ACTIVATE, ACCTCTL_REQUIRED(required),
        ACCTCTL_COLS(cols), .warn = true, .fill = fill, .print = print};
    struct acctctl_common c;
    uint64_t v;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_COMMON_SHORT, opts, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (argc - optind != 1)
        return acctctl_usage_error(argv[0], "expected one version");
    if (acctctl_parse_version(argv[optind], &v) != 0)
        return acctctl_usage_error(argv[0], "\"%s\" is not a version (an integer >= 1)",
                                   argv[optind]);
    return acctctl_exchange(&c, &x, &v);
}
