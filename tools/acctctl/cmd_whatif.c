/* acctctl whatif: every method's predicted time at one point (or a list),
 * the rules' decision there as the runtime finds it, and its penalty
 * against the model's best (docs/acctctl.md, "acctctl whatif"). */
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

#define MAX_POINTS 64
#define METHOD_LEN 160

struct whatif_opts {
    uint64_t version;
    const char *rules_file, *model_file;
    const char *comm_arg, *bytes_arg;
    struct acct_rules_where where;
    enum acct_whatif_source src;
    bool src_given;
    bool grid;                 /* --grid: the decision's penalty over a grid */
    uint64_t max_comm, max_bytes;
};

static int own_opt(void *arg, int ch, const char *optarg)
{
    struct whatif_opts *o = arg;
    switch (ch) {
    case 'V':
        if (acctctl_parse_version(optarg, &o->version) != 0)
            return acctctl_usage_error("whatif", "--version: \"%s\" is not a version", optarg);
        return 0;
    case 'r':
        o->rules_file = optarg;
        return 0;
    case 'm':
        o->model_file = optarg;
        return 0;
    case 'n':
        o->comm_arg = optarg;
        return 0;
    case 'b':
        o->bytes_arg = optarg;
        return 0;
    case 'S':
        if (acct_whatif_source_parse(optarg, &o->src) != 0)
            return acctctl_usage_error("whatif", "--source: expected auto, model or closed");
        o->src_given = true;
        return 0;
    case 'G':
        o->grid = true;
        return 0;
    case 'M':
    case 'X': {
        uint64_t v;
        char err[128];
        if (acct_size_parse(optarg, &v, err, sizeof(err)) != 0 || v < (ch == 'M' ? 2u : 1u) ||
            v > (ch == 'M' ? (1u << 24) : (1ull << 31)))
            return acctctl_usage_error("whatif", ch == 'M' ? "--max-comm-size: expected 2 to 16M"
                                                           : "--max-bytes: expected 1 to 2G");
        *(ch == 'M' ? &o->max_comm : &o->max_bytes) = v;
        return 0;
    }
    case 'R':
    case 'I':
        return acctctl_layout_opt("whatif", ch, optarg, &o->where);
    default:
        return -1;
    }
}

/* "1.34 s", "598 us": a time for people. */
static void human_us(double us, char *buf, size_t len)
{
    if (isnan(us))
        snprintf(buf, len, "-");
    else if (us >= 1e6)
        snprintf(buf, len, "%.3g s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, len, "%.3g ms", us / 1e3);
    else
        snprintf(buf, len, "%.3g us", us);
}

static const char *status_of(long rule, const struct acct_decision *runs)
{
    if (rule < 0)
        return "outside";
    return (runs->alg->flags & ACCT_ALG_NATIVE) ? "native" : "rule";
}

/* One point: the header lines (table) and the rows. Returns 0 or -1. */
static int one_point(const struct acctctl_mi *mi, enum acct_coll_id coll, int p, uint64_t m,
                     const struct whatif_opts *o, enum acctctl_format fmt,
                     struct acctctl_table *t)
{
    struct acct_whatif_pred *pr = NULL;
    size_t n = 0;
    long rule;
    struct acct_decision written, runs;
    const struct acct_rules_where *w = o->where.ranks_per_node > 0 ? &o->where : NULL;
    char dm[METHOD_LEN], bm[METHOD_LEN] = "-", sz[32], a[32], b[32];
    int rc = -1;

    struct acct_model mdl;
    acct_whatif_model_at(&mi->mdl, p, o->where.ranks_per_node, &mdl);
    if (acct_whatif_decide(mi->rules, coll, p, w, m, &rule, &written, &runs) != 0 ||
        acct_whatif_rank(coll, p, m, acct_whatif_nodes(p, o->where.ranks_per_node), &mdl,
                         o->src, &pr, &n) != 0)
        goto out;
    enum acct_whatif_how how;
    double t_dec = acct_whatif_predict(coll, &runs, p, m, &mdl, o->src, &how);
    double best = n > 0 ? pr[0].t_us : NAN;
    double pen = t_dec / best;
    acct_decision_format(&runs, dm, sizeof(dm));
    if (n > 0 && !isnan(best))
        acct_decision_format(&pr[0].d, bm, sizeof(bm));
    acct_size_format(m, sz, sizeof(sz));
    if (fmt == ACCTCTL_FMT_TABLE) {
        char layout[64] = "layout unknown";
        if (w != NULL)
            snprintf(layout, sizeof(layout), "%d ranks per node%s", w->ranks_per_node,
                     w->regular ? "" : ", irregular");
        printf("%s, %d ranks (%s), %s bytes\n", acct_coll_name(coll), p, layout, sz);
        printf("  rules:    %s\n  model:    %s\n", mi->rules_from, mi->model_from);
        if (rule < 0) {
            printf("  decision: native: the point lies outside every rule (the runtime runs "
                   "the MPI library's own collective; the model has no time for it)\n");
        } else {
            const struct acct_rule *r = &mi->rules->coll[coll].v[rule];
            char wm[METHOD_LEN], bl[32], bh[32], range[128];
            acct_decision_format(&written, wm, sizeof(wm));
            acct_size_format(r->bytes_min, bl, sizeof(bl));
            if (r->bytes_max == UINT64_MAX)
                snprintf(bh, sizeof(bh), "max");
            else
                acct_size_format(r->bytes_max, bh, sizeof(bh));
            if (r->comm_max == INT32_MAX)
                snprintf(range, sizeof(range), "comm_size [%d, max], bytes [%s, %s]",
                         r->comm_min, bl, bh);
            else
                snprintf(range, sizeof(range), "comm_size [%d, %d], bytes [%s, %s]",
                         r->comm_min, r->comm_max, bl, bh);
            printf("  rule:     %s[%ld] (line %d): %s: %s\n", acct_coll_name(coll), rule,
                   r->line, range, wm);
            if (!acct_decision_equal(&written, &runs))
                printf("  runs:     %s (the runtime's fallback for this size and call)\n", dm);
            if (runs.alg->flags & ACCT_ALG_NATIVE)
                printf("  decision: native (the MPI library's own collective: the model has "
                       "no time for it)\n");
            else {
                human_us(t_dec, a, sizeof(a));
                human_us(best, b, sizeof(b));
                printf("  decision: %s, predicted %s (%s); model's best %s, %s: penalty "
                       "%.3gx\n",
                       dm, a, acct_whatif_how_name(how), bm, b, pen);
            }
        }
        putchar('\n');
    }
    for (size_t i = 0; i < n; i++) {
        char mm[METHOD_LEN];
        acct_decision_format(&pr[i].d, mm, sizeof(mm));
        acctctl_table_cell(t, "%s", acct_coll_name(coll));
        acctctl_table_cell(t, "%d", p);
        if (w != NULL)
            acctctl_table_cell(t, "%d", w->ranks_per_node);
        else
            acctctl_table_cell(t, "-");
        acctctl_table_cell(t, "%llu", (unsigned long long)m);
        acctctl_table_cell(t, "%zu", i + 1);
        acctctl_table_cell(t, "%s", mm);
        if (isnan(pr[i].t_us)) {
            acctctl_table_cell(t, "-");
            acctctl_table_cell(t, "-");
        } else {
            acctctl_table_cell(t, "%.6g", pr[i].t_us);
            acctctl_table_cell(t, "%.4g", pr[i].t_us / best);
        }
        acctctl_table_cell(t, "%s", acct_whatif_how_name(pr[i].how));
        acctctl_table_cell(t, "%s", acct_decision_equal(&pr[i].d, &runs) ? "true" : "false");
    }
    if (fmt != ACCTCTL_FMT_TABLE) {
        /* the decision's own row: rank "-" (it may lie outside the space) */
        acctctl_table_cell(t, "%s", acct_coll_name(coll));
        acctctl_table_cell(t, "%d", p);
        if (w != NULL)
            acctctl_table_cell(t, "%d", w->ranks_per_node);
        else
            acctctl_table_cell(t, "-");
        acctctl_table_cell(t, "%llu", (unsigned long long)m);
        acctctl_table_cell(t, "%s", status_of(rule, &runs));
        acctctl_table_cell(t, "%s", dm);
        if (isnan(t_dec)) {
            acctctl_table_cell(t, "-");
            acctctl_table_cell(t, "-");
        } else {
            acctctl_table_cell(t, "%.6g", t_dec);
            if (isnan(pen))
                acctctl_table_cell(t, "-");
            else
                acctctl_table_cell(t, "%.4g", pen);
        }
        acctctl_table_cell(t, "%s", acct_whatif_how_name(how));
        acctctl_table_cell(t, "true");
    }
    rc = 0;
out:
    free(pr);
    return rc;
}

/* --grid: one row per cell (comm sizes 2, 4, ... x bytes 1, 2, 4, ...):
 * the decision, its prediction, the model's best and the penalty. */
static int grid(const struct acctctl_mi *mi, enum acct_coll_id coll, const struct whatif_opts *o,
                struct acctctl_table *t)
{
    const struct acct_rules_where *w = o->where.ranks_per_node > 0 ? &o->where : NULL;
    bool barrier = coll == ACCT_COLL_barrier;
    for (uint64_t p = 2; p <= o->max_comm; p *= 2)
        for (uint64_t m = barrier ? 0 : 1; m <= (barrier ? 0 : o->max_bytes);
             m = barrier ? 1 : m * 2) {
            struct acct_whatif_pred *pr = NULL;
            size_t n = 0;
            long rule;
            struct acct_decision written, runs;
            enum acct_whatif_how how;
            char dm[METHOD_LEN], bm[METHOD_LEN] = "-";
            struct acct_model mdl;
            acct_whatif_model_at(&mi->mdl, (int)p, o->where.ranks_per_node, &mdl);
            if (acct_whatif_decide(mi->rules, coll, (int)p, w, m, &rule, &written, &runs) != 0 ||
                acct_whatif_rank(coll, (int)p, m, acct_whatif_nodes((int)p, o->where.ranks_per_node),
                                 &mdl, o->src, &pr, &n) != 0)
                return -1;
            double t_dec = acct_whatif_predict(coll, &runs, (int)p, m, &mdl, o->src, &how);
            double best = n > 0 ? pr[0].t_us : NAN;
            acct_decision_format(&runs, dm, sizeof(dm));
            if (!isnan(best))
                acct_decision_format(&pr[0].d, bm, sizeof(bm));
            free(pr);
            acctctl_table_cell(t, "%s", acct_coll_name(coll));
            acctctl_table_cell(t, "%llu", (unsigned long long)p);
            if (w != NULL)
                acctctl_table_cell(t, "%d", w->ranks_per_node);
            else
                acctctl_table_cell(t, "-");
            acctctl_table_cell(t, "%llu", (unsigned long long)m);
            acctctl_table_cell(t, "%s", status_of(rule, &runs));
            acctctl_table_cell(t, "%s", dm);
            if (isnan(t_dec))
                acctctl_table_cell(t, "-");
            else
                acctctl_table_cell(t, "%.6g", t_dec);
            acctctl_table_cell(t, "%s", bm);
            if (isnan(best))
                acctctl_table_cell(t, "-");
            else
                acctctl_table_cell(t, "%.6g", best);
            if (isnan(t_dec / best))
                acctctl_table_cell(t, "-");
            else
                acctctl_table_cell(t, "%.4g", t_dec / best);
            acctctl_table_cell(t, "%s", acct_whatif_how_name(how));
        }
    return 0;
}

int acctctl_cmd_whatif(int argc, char **argv)
{
    static const struct option opts[] = {
        { "version", required_argument, NULL, 'V' },
        { "rules", required_argument, NULL, 'r' },
        { "model", required_argument, NULL, 'm' },
        { "comm-size", required_argument, NULL, 'n' },
        { "bytes", required_argument, NULL, 'b' },
        { "source", required_argument, NULL, 'S' },
        { "grid", no_argument, NULL, 'G' },
        { "max-comm-size", required_argument, NULL, 'M' },
        { "max-bytes", required_argument, NULL, 'X' },
        ACCTCTL_LAYOUT_LONG,
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("ranks_per_node", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("bytes", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("rank", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("method", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("predicted_us", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("penalty", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("source", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("decision", ACCTCTL_COL_BOOL),
    };
    static const struct acctctl_col gcols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("ranks_per_node", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("bytes", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("status", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("decision", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("predicted_us", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("best", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("best_us", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("penalty", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("source", ACCTCTL_COL_TEXT),
    };
    struct whatif_opts o = { .where = { .ranks_per_node = 0, .regular = true },
                             .src = ACCT_WHATIF_AUTO, .max_comm = 4096,
                             .max_bytes = 16u << 20 };
    struct acctctl_common c;
    struct acctctl_mi mi = { 0 };
    struct acctctl_table t;
    enum acct_coll_id coll;
    uint64_t ps[MAX_POINTS], ms[MAX_POINTS];
    char err[160];
    int rc, np, nm;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "V:n:b:" ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT,
                            opts, own_opt, &o);
    if (rc >= 0)
        return rc;
    if (optind + 1 != argc)
        return acctctl_usage_error(argv[0], optind == argc ? "which collective?"
                                                           : "one collective only");
    if (acct_coll_from_name(argv[optind], &coll) != 0)
        return acctctl_usage_error(argv[0], "unknown collective \"%s\"", argv[optind]);
    if ((rc = acctctl_layout_check(argv[0], &o.where)) != 0)
        return rc;
    if (o.grid) {
        if (o.comm_arg != NULL || o.bytes_arg != NULL)
            return acctctl_usage_error(argv[0], "--grid takes --max-comm-size and --max-bytes, "
                                                "not --comm-size or --bytes");
        if (!o.src_given)
            o.src = ACCT_WHATIF_CLOSED;
        if (o.rules_file != NULL && o.version != 0)
            return acctctl_usage_error(argv[0], "give --rules or --version, not both");
        if (o.rules_file == NULL && c.partition == NULL && o.version == 0)
            return acctctl_usage_error(argv[0], "-p PARTITION (or --version N, or --rules FILE) "
                                                "is required");
        if (acctctl_mi_load(&c, o.version, o.where.ranks_per_node, o.rules_file, o.model_file, &mi) != 0)
            return ACCTCTL_USAGE;
        acctctl_table_init(&t, gcols, ACCT_ARRAY_LEN(gcols));
        rc = grid(&mi, coll, &o, &t) == 0 ? ACCTCTL_OK : ACCTCTL_USAGE;
        if (rc == ACCTCTL_OK && acctctl_table_print(&t, c.format, stdout) != 0)
            rc = ACCTCTL_USAGE;
        acctctl_table_free(&t);
        acctctl_mi_free(&mi);
        if (rc == ACCTCTL_OK && acctctl_flushed() != ACCTCTL_OK)
            rc = ACCTCTL_USAGE;
        return rc;
    }
    if (o.comm_arg == NULL)
        return acctctl_usage_error(argv[0], "--comm-size P is required (or --grid)");
    if (o.bytes_arg == NULL && coll != ACCT_COLL_barrier)
        return acctctl_usage_error(argv[0], "--bytes M is required");
    np = acctctl_size_list(o.comm_arg, 2, 1u << 24, ps, MAX_POINTS, err, sizeof(err));
    if (np < 0)
        return acctctl_usage_error(argv[0], "--comm-size: %s", err);
    nm = coll == ACCT_COLL_barrier ? 1 : acctctl_size_list(o.bytes_arg, 0, 1ull << 31, ms,
                                                           MAX_POINTS, err, sizeof(err));
    if (coll == ACCT_COLL_barrier)
        ms[0] = 0;
    if (nm < 0)
        return acctctl_usage_error(argv[0], "--bytes: %s", err);
    if (np * nm > MAX_POINTS)
        return acctctl_usage_error(argv[0], "at most %d points (comm sizes x bytes)",
                                   MAX_POINTS);
    if (o.rules_file != NULL && o.version != 0)
        return acctctl_usage_error(argv[0], "give --rules or --version, not both");
    if (c.interconnect != NULL && c.partition == NULL)
        return acctctl_usage_error(argv[0], "-i needs -p PARTITION");
    if (o.rules_file == NULL && c.partition == NULL && o.version == 0)
        return acctctl_usage_error(argv[0], "-p PARTITION (or --version N, or --rules FILE) "
                                            "is required");
    if (acctctl_mi_load(&c, o.version, o.where.ranks_per_node, o.rules_file, o.model_file, &mi) != 0)
        return ACCTCTL_USAGE;
    rc = ACCTCTL_OK;
    acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
    for (int i = 0; i < np && rc == ACCTCTL_OK; i++)
        for (int j = 0; j < nm && rc == ACCTCTL_OK; j++) {
            if (one_point(&mi, coll, (int)ps[i], ms[j], &o, c.format, &t) != 0) {
                fprintf(stderr, ACCTCTL_NAME " %s: out of memory\n", argv[0]);
                rc = ACCTCTL_USAGE;
                break;
            }
            if (c.format == ACCTCTL_FMT_TABLE) {
                if (acctctl_table_print(&t, c.format, stdout) != 0)
                    rc = ACCTCTL_USAGE;
                if (i + 1 < np || j + 1 < nm)
                    putchar('\n');
                acctctl_table_free(&t);
                acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
            }
        }
    if (rc == ACCTCTL_OK && c.format != ACCTCTL_FMT_TABLE &&
        acctctl_table_print(&t, c.format, stdout) != 0)
        rc = ACCTCTL_USAGE;
    acctctl_table_free(&t);
    acctctl_mi_free(&mi);
    if (rc == ACCTCTL_OK && acctctl_flushed() != ACCTCTL_OK)
        rc = ACCTCTL_USAGE;
    return rc;
}
