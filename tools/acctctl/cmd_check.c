/* acctctl check: every rule of a version whose predicted penalty against
 * the model's best exceeds a bound somewhere in its rectangle
 * (docs/acctctl.md, "acctctl check"). Exit status 0 clean, 1 findings,
 * 2 error. */
#include "acctctl.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/coll.h"
#include "acct/common.h"
#include "acct/model_whatif.h"
#include "acct/stats.h"
#include "client.h"
#include "model_input.h"

#define METHOD_LEN 160

struct check_opts {
    uint64_t version;
    const char *rules_file, *model_file;
    enum acct_coll_id only;
    bool all;
    struct acct_rules_where where;
    struct acct_check_opts o;
};

static int own_opt(void *arg, int ch, const char *optarg)
{
    struct check_opts *o = arg;
    uint64_t v;
    char err[128], *end;

    switch (ch) {
    case 'V':
        if (acctctl_parse_version(optarg, &o->version) != 0)
            return acctctl_usage_error("check", "--version: \"%s\" is not a version", optarg);
        return 0;
    case 'r':
        o->rules_file = optarg;
        return 0;
    case 'm':
        o->model_file = optarg;
        return 0;
    case 'c':
        if (acct_coll_from_name(optarg, &o->only) != 0)
            return acctctl_usage_error("check", "unknown collective \"%s\"", optarg);
        return 0;
    case 'B':
        o->o.bound = strtod(optarg, &end);
        if (end == optarg || *end != '\0' || !(o->o.bound > 1.0) || !(o->o.bound <= 1e9))
            return acctctl_usage_error("check", "--bound: expected a number above 1 (a "
                                                "penalty, e.g. 2 or 1.5)");
        return 0;
    case 'M':
        if (acct_size_parse(optarg, &v, err, sizeof(err)) != 0 || v < 2 || v > (1u << 24))
            return acctctl_usage_error("check", "--max-comm-size: expected 2 to 16M");
        o->o.max_comm = (int)v;
        return 0;
    case 'X':
        if (acct_size_parse(optarg, &v, err, sizeof(err)) != 0 || v < 1 || v > (1ull << 31))
            return acctctl_usage_error("check", "--max-bytes: expected 1 to 2G");
        o->o.max_bytes = v;
        return 0;
    case 'S':
        if (acct_whatif_source_parse(optarg, &o->o.src) != 0)
            return acctctl_usage_error("check", "--source: expected auto, model or closed");
        return 0;
    case 'a':
        o->all = true;
        return 0;
    case 'R':
        return acctctl_layout_opt("check", ch, optarg, &o->where);
    default:
        return -1;
    }
}

static void range(char *buf, size_t len, uint64_t lo, uint64_t hi, bool sizes)
{
    char a[32], b[32];
    if (sizes) {
        acct_size_format(lo, a, sizeof(a));
        acct_size_format(hi, b, sizeof(b));
    } else {
        snprintf(a, sizeof(a), "%llu", (unsigned long long)lo);
        snprintf(b, sizeof(b), "%llu", (unsigned long long)hi);
    }
    snprintf(buf, len, "[%s, %s]", a, (sizes ? hi == UINT64_MAX : hi >= INT32_MAX) ? "max" : b);
}

struct ctx {
    struct acctctl_table *t;
    bool all;
};

static int finding(void *arg, const struct acct_check_finding *f)
{
    struct ctx *x = arg;
    char dm[METHOD_LEN], bm[METHOD_LEN], cr[80], br[80];
    if (!f->flagged && !x->all)
        return 0;
    acct_decision_format(&f->runs, dm, sizeof(dm));
    acct_decision_format(&f->best, bm, sizeof(bm));
    range(cr, sizeof(cr), (uint64_t)f->r->comm_min, (uint64_t)f->r->comm_max, false);
    range(br, sizeof(br), f->r->bytes_min, f->r->bytes_max, true);
    acctctl_table_cell(x->t, "%s", acct_coll_name(f->coll));
    acctctl_table_cell(x->t, "%zu", f->rule);
    acctctl_table_cell(x->t, "%d", f->r->line);
    acctctl_table_cell(x->t, "%s", cr);
    acctctl_table_cell(x->t, "%s", br);
    if (f->measured) { /* backed by the tuning run's timings: not asked */
        acct_decision_format(&f->r->d, dm, sizeof(dm));
        acctctl_table_cell(x->t, "-");
        acctctl_table_cell(x->t, "-");
        acctctl_table_cell(x->t, "-");
        acctctl_table_cell(x->t, "%s", dm);
        for (int k = 0; k < 4; k++)
            acctctl_table_cell(x->t, "-");
        acctctl_table_cell(x->t, "false");
        return 0;
    }
    acctctl_table_cell(x->t, "%d", f->p);
    if (f->rpn > 0)
        acctctl_table_cell(x->t, "%d", f->rpn);
    else
        acctctl_table_cell(x->t, "-");
    if (f->sizes > 0) /* decided from the communicator size alone: scored over the sizes */
        acctctl_table_cell(x->t, "-");
    else
        acctctl_table_cell(x->t, "%llu", (unsigned long long)f->m);
    acctctl_table_cell(x->t, "%s", dm);
    acctctl_table_cell(x->t, "%.6g", f->t_us);
    acctctl_table_cell(x->t, "%s", bm);
    acctctl_table_cell(x->t, "%.6g", f->best_us);
    acctctl_table_cell(x->t, "%.4g", f->penalty);
    acctctl_table_cell(x->t, "%s", f->flagged ? "true" : "false");
    return 0;
}

int acctctl_cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        { "version", required_argument, NULL, 'V' },
        { "rules", required_argument, NULL, 'r' },
        { "model", required_argument, NULL, 'm' },
        { "collective", required_argument, NULL, 'c' },
        { "bound", required_argument, NULL, 'B' },
        { "max-comm-size", required_argument, NULL, 'M' },
        { "max-bytes", required_argument, NULL, 'X' },
        { "source", required_argument, NULL, 'S' },
        { "all", no_argument, NULL, 'a' },
        { "ranks-per-node", required_argument, NULL, 'R' },
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("rule", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("line", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("bytes", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("worst_comm_size", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("ranks_per_node", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("worst_bytes", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("decision", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("decision_us", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("best", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("best_us", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("penalty", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("flagged", ACCTCTL_COL_BOOL),
    };
    struct check_opts o = { .only = ACCT_COLL_COUNT,
                            .o = { .bound = ACCT_CHECK_DEFAULT_BOUND,
                                   .max_comm = ACCT_CHECK_DEFAULT_MAX_COMM,
                                   .max_bytes = ACCT_CHECK_DEFAULT_MAX_BYTES,
                                   .src = ACCT_WHATIF_CLOSED } };
    struct acctctl_common c;
    struct acctctl_mi mi = { 0 };
    struct acctctl_table t;
    struct acct_check_summary sum;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "V:c:a" ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT,
                            opts, own_opt, &o);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if (o.rules_file != NULL && o.version != 0)
        return acctctl_usage_error(argv[0], "give --rules or --version, not both");
    if (c.interconnect != NULL && c.partition == NULL)
        return acctctl_usage_error(argv[0], "-i needs -p PARTITION");
    if (o.rules_file == NULL && c.partition == NULL && o.version == 0)
        return acctctl_usage_error(argv[0], "-p PARTITION (or --version N, or --rules FILE) "
                                            "is required");
    if (acctctl_mi_load(&c, o.version, o.where.ranks_per_node, o.rules_file, o.model_file, &mi) != 0)
        return ACCTCTL_USAGE;
    o.o.ranks_per_node = o.where.ranks_per_node;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    struct ctx x = { .t = &t, .all = o.all };
    if (acct_check_rules(mi.rules, o.only, &mi.mdl, &o.o, finding, &x, &sum) != 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: out of memory\n", argv[0]);
        rc = ACCTCTL_USAGE;
        goto out;
    }
    if (c.format == ACCTCTL_FMT_TABLE) {
        char mb[32];
        acct_size_format(o.o.max_bytes, mb, sizeof(mb));
        char layout[96] = "layout unknown";
        if (o.o.ranks_per_node > 0)
            snprintf(layout, sizeof(layout), "%d ranks per node%s", o.o.ranks_per_node,
                     acct_whatif_has_levels(&mi.mdl)
                         ? " (each message at its level: intra- or inter-node)"
                         : " (one network: the model has no levels)");
        printf("check of %s\n  model: %s\n  bound: penalty %g; communicator sizes up to %d, "
               "bytes up to %s; %s; predictions: %s\n\n",
               mi.rules_from, mi.model_from, o.o.bound, o.o.max_comm, mb, layout,
               acct_whatif_source_name(o.o.src));
    }
    rc = acctctl_table_print(&t, c.format, stdout) == 0 ? ACCTCTL_OK : ACCTCTL_USAGE;
    if (c.format == ACCTCTL_FMT_TABLE) {
        printf("\n%zu rules, %zu within the measured communicator sizes (not asked), %zu with "
               "a prediction, %zu over the bound %g (%zu points, %zu rankings)\n",
               sum.rules, sum.measured, sum.predicted, sum.flagged, o.o.bound, sum.points,
               sum.rankings);
        if (sum.simulated > 0)
            printf("%zu points over the bound by the closed forms asked of the simulation "
                   "(up to %d ranks): %zu within it there, %zu over it already against the "
                   "closed forms' best\n",
                   sum.simulated, ACCT_WHATIF_SIM_MAX_RANKS, sum.withdrawn, sum.confirmed);
    }
    if (rc == ACCTCTL_OK && acctctl_flushed() != ACCTCTL_OK)
        rc = ACCTCTL_USAGE;
    if (rc == ACCTCTL_OK && sum.flagged > 0)
        rc = ACCTCTL_FAIL;
out:
    acctctl_table_free(&t);
    acctctl_mi_free(&mi);
    return rc;
}
