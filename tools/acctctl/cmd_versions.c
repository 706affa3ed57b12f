/* acctctl versions: the decision versions of one pair, newest first
 * (LIST_VERSIONS). */
#include "acctctl.h"

#include <stdio.h>

#include "acct/common.h"
#include "client.h"
#include "daemon_ops.h"

int acctctl_cmd_versions(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL_U64("version", ACCT_T_VERSION),
        ACCTCTL_COL_BOOL("active", ACCT_T_ACTIVE),
        ACCTCTL_COL_STR("source", ACCT_T_SOURCE),
        ACCTCTL_COL_STR("created", ACCT_T_CREATED),
        ACCTCTL_COL_STR_NE("tuning_run", ACCT_T_TUNING_RUN),
        ACCTCTL_COL_U64_NZ("parent", ACCT_T_PARENT),
        ACCTCTL_COL_STR_NE("reason", ACCT_T_REASON),
        ACCTCTL_COL_HEX("hash", ACCT_T_HASH),
    };
    struct acctctl_common c;
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
    return acctctl_list(&c, ACCT_MSG_LIST_VERSIONS, ACCT_T_VERSION_INFO, cols,
                        ACCT_ARRAY_LEN(cols));
}
