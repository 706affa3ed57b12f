/* acctctl samples: what live jobs measured, aggregated per point and
 * method (LIST_SAMPLES). */
#include "acctctl.h"

#include <stdio.h>

#include "acct/coll.h"
#include "acct/common.h"
#include "client.h"
#include "daemon_ops.h"

static int own_opt(void *arg, int ch, const char *optarg)
{
    enum acct_coll_id id;
    if (ch != 'c')
        return -1;
    if (acct_coll_from_name(optarg, &id) != 0)
        return acctctl_usage_error("samples", "unknown collective \"%s\"", optarg);
    *(const char **)arg = optarg;
    return 0;
}

int acctctl_cmd_samples(int argc, char **argv)
{
    static const struct option opts[] = {
        { "collective", required_argument, NULL, 'c' },
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL_STR("partition", ACCT_T_PARTITION),
        ACCTCTL_COL_STR("interconnect", ACCT_T_INTERCONNECT),
        ACCTCTL_COL_STR("collective", ACCT_T_COLLECTIVE),
        ACCTCTL_COL_U64("comm_size", ACCT_T_COMM_SIZE),
        ACCTCTL_COL_U64("bucket", ACCT_T_BYTES_BUCKET),
        { "bytes", ACCTCTL_COL_TEXT, ACCT_T_BYTES_BUCKET, ACCTCTL_V_BUCKET },
        ACCTCTL_COL_STR("method", ACCT_T_METHOD),
        ACCTCTL_COL_U64("calls", ACCT_T_COUNT),
        ACCTCTL_COL_U64("jobs", ACCT_T_JOBS),
        ACCTCTL_COL_U64("users", ACCT_T_USERS),
        ACCTCTL_COL_F64("mean_us", ACCT_T_MEAN_US),
        ACCTCTL_COL_F64("stddev_us", ACCT_T_STDDEV_US),
        ACCTCTL_COL_F64("min_us", ACCT_T_MIN_US),
        ACCTCTL_COL_F64("max_us", ACCT_T_MAX_US),
    };
    struct acctctl_common c;
    const char *coll = NULL;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "c:" ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT, opts,
                            own_opt, &coll);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    c.collective = coll;
    return acctctl_list(&c, ACCT_MSG_LIST_SAMPLES, ACCT_T_STAT, cols, ACCT_ARRAY_LEN(cols));
}
