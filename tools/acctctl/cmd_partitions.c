/* acctctl partitions: every (partition, interconnect) with an active
 * decision version (LIST). */
#include "acctctl.h"

#include <stdio.h>

#include "acct/common.h"
#include "client.h"
#include "daemon_ops.h"

int acctctl_cmd_partitions(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL_STR("partition", ACCT_T_PARTITION),
        ACCTCTL_COL_STR("interconnect", ACCT_T_INTERCONNECT),
        ACCTCTL_COL_U64("active", ACCT_T_VERSION),
        ACCTCTL_COL_U64("versions", ACCT_T_NVERSIONS),
        ACCTCTL_COL_STR("source", ACCT_T_SOURCE),
        ACCTCTL_COL_STR("created", ACCT_T_CREATED),
        ACCTCTL_COL_STR("activated_at", ACCT_T_ACTIVATED_AT),
        ACCTCTL_COL_STR_NE("tuning_run", ACCT_T_TUNING_RUN),
    };
    struct acctctl_common c;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, ACCTCTL_COMMON_SHORT, opts, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    return acctctl_list(&c, ACCT_MSG_LIST, ACCT_T_PAIR, cols, ACCT_ARRAY_LEN(cols));
}
