/* acctctl show: one decision version, its provenance and its rules (SHOW). */
#include "acctctl.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/coll.h"
#include "acct/common.h"
#include "acct/rules.h"
#include "acct/stats.h"
#include "client.h"
#include "confidence.h"
#include "daemon_ops.h"

static void size_text(uint64_t v, char *buf, size_t len)
{
    if (v == UINT64_MAX)
        snprintf(buf, len, "max");
    else if (acct_size_format(v, buf, len) != 0)
        snprintf(buf, len, "%" PRIu64, v);
}

static void comm_text(int v, char *buf, size_t len)
{
    if (v == INT_MAX)
        snprintf(buf, len, "max");
    else
        snprintf(buf, len, "%d", v);
}

/* The rules of the reply as rows (one per rule, collectives in registry
 * order, rules in file order = sorted by (comm_min, bytes_min)). */
/* A rule's layout dimension for people: "any", "2", "[2, 16]", with
 * " regular"/" irregular". */
static void layout_text(const struct acct_rule *x, char *buf, size_t len)
{
    char a[24], b[24];
    const char *kind = x->layout == ACCT_LAYOUT_ANY ? "" : acct_layout_kind_name(x->layout);
    if (x->rpn_min == 0) {
        snprintf(buf, len, "%s", x->layout == ACCT_LAYOUT_ANY ? "any" : kind);
        return;
    }
    comm_text(x->rpn_min, a, sizeof(a));
    comm_text(x->rpn_max, b, sizeof(b));
    if (x->rpn_min == x->rpn_max)
        snprintf(buf, len, "%s%s%s", a, *kind ? " " : "", kind);
    else
        snprintf(buf, len, "[%s, %s]%s%s", a, b, *kind ? " " : "", kind);
}

static void rule_rows(struct acctctl_table *t, const struct acct_rules *r, bool all,
                      enum acct_coll_id only, bool human, bool layout, bool evidence,
                      uint64_t version)
{
    for (int k = 0; k < ACCT_COLL_COUNT; k++) {
        const struct acct_rule_list *l = &r->coll[k];
        if (!all && (enum acct_coll_id)k != only)
            continue;
        for (size_t i = 0; i < l->n; i++) {
            const struct acct_rule *x = &l->v[i];
            char a[32], b[32], m[160];
            if (!human) {
                acctctl_table_cell(t, "%" PRIu64, version);
                acctctl_table_cell(t, "%s", r->prov.partition);
                acctctl_table_cell(t, "%s", r->prov.interconnect);
            }
            acctctl_table_cell(t, "%s", acct_coll_name((enum acct_coll_id)k));
            if (human) {
                comm_text(x->comm_min, a, sizeof(a));
                comm_text(x->comm_max, b, sizeof(b));
                acctctl_table_cell(t, "[%s, %s]", a, b);
                if (layout) {
                    char lt[64];
                    layout_text(x, lt, sizeof(lt));
                    acctctl_table_cell(t, "%s", lt);
                }
                size_text(x->bytes_min, a, sizeof(a));
                size_text(x->bytes_max, b, sizeof(b));
                acctctl_table_cell(t, "[%s, %s]", a, b);
                acct_decision_format(&x->d, m, sizeof(m));
                acctctl_table_cell(t, "%s", m);
                if (evidence)
                    acctctl_table_cell(t, "%s", acct_evidence_name(x->evidence));
            } else {
                acctctl_table_cell(t, "%d", x->comm_min);
                comm_text(x->comm_max, a, sizeof(a));
                acctctl_table_cell(t, "%s", a);
                acctctl_table_cell(t, "%" PRIu64, x->bytes_min);
                if (x->bytes_max == UINT64_MAX)
                    acctctl_table_cell(t, "max");
                else
                    acctctl_table_cell(t, "%" PRIu64, x->bytes_max);
                acctctl_table_cell(t, "%s", x->d.alg->name);
                acctctl_table_cell(t, "%" PRIu64, x->d.segment_bytes);
                acctctl_table_cell(t, "%d", x->d.fanout);
                acctctl_table_cell(t, "%s", x->d.reorder ? "true" : "false");
                acctctl_table_cell(t, "%d", x->rpn_min);
                comm_text(x->rpn_max, a, sizeof(a));
                acctctl_table_cell(t, "%s", x->rpn_min == 0 ? "0" : a);
                acctctl_table_cell(t, "%s", acct_layout_kind_name(x->layout));
                acctctl_table_cell(t, "%s", acct_evidence_name(x->evidence));
            }
        }
    }
}

/* The parameters the evidence: model rules were predicted with (human
 * output only; TSV and JSON carry the rules' evidence column). */
static void model_line(const struct acct_rules *r)
{
    const struct acct_rules_model *m = &r->prov.model;
    if (!m->present)
        return;
    printf("model regions: predicted with LogGP L %g us, o %g us, g %g us, G %g us/B%s%s, "
           "within %gx of the model's best\n\n",
           m->L_us, m->o_us, m->g_us, m->G_us_per_byte, m->run[0] != '\0' ? " from run " : "",
           m->run, m->margin);
}

/* Has any rule evidence: model? (Then the human table has the column.) */
static bool any_modelled(const struct acct_rules *r)
{
    for (int k = 0; k < ACCT_COLL_COUNT; k++)
        for (size_t i = 0; i < r->coll[k].n; i++)
            if (r->coll[k].v[i].evidence != ACCT_EVIDENCE_MEASURED)
                return true;
    return false;
}

struct show_opts {
    uint64_t version;
    enum acct_coll_id only;
    bool all;
};

/* The confidence of the version's tuning run (GET_RESULT; docs/acctctl.md
 * "Confidence"), or why there is none. 0, or -1 (acctd did not answer). */
static int confidence(struct acctctl_conn *conn, uint64_t version)
{
    struct acct_result *res = NULL;
    char why[512] = "";
    int rc = acctctl_get_result(conn, version, &res, why, sizeof(why));

    if (rc < 0)
        return -1;
    printf("\n");
    if (rc == 0)
        acctctl_confidence_print(stdout, res, "");
    else
        printf("confidence: unknown (%s)\n", why);
    acct_result_free(res);
    return 0;
}

static int own_opt(void *arg, int ch, const char *optarg)
{
    struct show_opts *o = arg;
    switch (ch) {
    case 'c':
        if (acct_coll_from_name(optarg, &o->only) != 0)
            return acctctl_usage_error("show", "unknown collective \"%s\"", optarg);
        o->all = false;
        return 0;
    case 'V':
        if (acctctl_parse_version(optarg, &o->version) != 0)
            return acctctl_usage_error("show", "--version: \"%s\" is not a version (an "
                                               "integer >= 1)",
                                       optarg);
        return 0;
    default:
        return -1;
    }
}

int acctctl_cmd_show(int argc, char **argv)
{
    static const struct option opts[] = {
        { "collective", required_argument, NULL, 'c' },
        { "version", required_argument, NULL, 'V' },
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col info_cols[] = {
        ACCTCTL_COL_U64("version", ACCT_T_VERSION),
        ACCTCTL_COL_STR("partition", ACCT_T_PARTITION),
        ACCTCTL_COL_STR("interconnect", ACCT_T_INTERCONNECT),
        ACCTCTL_COL_BOOL("active", ACCT_T_ACTIVE),
        ACCTCTL_COL_STR("source", ACCT_T_SOURCE),
        ACCTCTL_COL_STR("created", ACCT_T_CREATED),
        ACCTCTL_COL_STR_NE("tuning_run", ACCT_T_TUNING_RUN),
        ACCTCTL_COL_U64_NZ("parent", ACCT_T_PARENT),
        ACCTCTL_COL_STR_NE("reason", ACCT_T_REASON),
        ACCTCTL_COL_HEX("hash", ACCT_T_HASH),
        ACCTCTL_COL("rules", ACCTCTL_COL_NUMBER),
    };
    static const struct acctctl_col human_cols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("bytes", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("method", ACCTCTL_COL_TEXT),
    };
    /* the same with the layout dimension, for versions that use it, and
     * with the evidence column for versions with model regions */
    static const struct acctctl_col human_layout_cols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("ranks_per_node", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("bytes", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("method", ACCTCTL_COL_TEXT),
    };
    static const struct acctctl_col human_evidence_cols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("bytes", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("method", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("evidence", ACCTCTL_COL_TEXT),
    };
    static const struct acctctl_col human_layout_evidence_cols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("ranks_per_node", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("bytes", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("method", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("evidence", ACCTCTL_COL_TEXT),
    };
    static const struct acctctl_col row_cols[] = {
        ACCTCTL_COL("version", ACCTCTL_COL_NUMBER),   ACCTCTL_COL("partition", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("interconnect", ACCTCTL_COL_TEXT), ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_min", ACCTCTL_COL_NUMBER),  ACCTCTL_COL("comm_max", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("bytes_min", ACCTCTL_COL_NUMBER), ACCTCTL_COL("bytes_max", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("algorithm", ACCTCTL_COL_TEXT),   ACCTCTL_COL("segment", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("fanout", ACCTCTL_COL_NUMBER),    ACCTCTL_COL("reorder", ACCTCTL_COL_BOOL),
        /* the layout dimension (0, 0, any: every layout) */
        ACCTCTL_COL("rpn_min", ACCTCTL_COL_NUMBER),   ACCTCTL_COL("rpn_max", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("layout", ACCTCTL_COL_TEXT),
        /* measured | model (docs/rules.md, Evidence) */
        ACCTCTL_COL("evidence", ACCTCTL_COL_TEXT),
    };
    struct show_opts o = { .version = 0, .only = ACCT_COLL_COUNT, .all = true };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acctctl_table info, rules;
    struct acct_diags diags = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    uint64_t version;
    bool human;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "c:V:" ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT, opts,
                            own_opt, &o);
    if (rc >= 0)
        return rc;
    rc = ACCTCTL_FAIL;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if (o.version != 0 && (c.partition != NULL || c.interconnect != NULL))
        return acctctl_usage_error(argv[0], "give either --version or -p/-i, not both");
    if (c.interconnect != NULL && c.partition == NULL)
        return acctctl_usage_error(argv[0], "-i needs -p PARTITION");
    human = c.format == ACCTCTL_FMT_TABLE;
    acctctl_table_init(&info, info_cols, ACCT_ARRAY_LEN(info_cols));
    acctctl_table_init(&rules, human ? human_cols : row_cols,
                       human ? ACCT_ARRAY_LEN(human_cols) : ACCT_ARRAY_LEN(row_cols));
    if (acctctl_connect(&conn, &c) != 0) {
        acctctl_table_free(&info);
        acctctl_table_free(&rules);
        return ACCTCTL_FAIL;
    }
    if (acctctl_op_show(&conn, o.version, c.partition, c.interconnect) != 0)
        goto out;
    {
        struct acct_field text;
        if (!acct_msg_find(&conn.msg, ACCT_T_RULES_TEXT, &text)) {
            fprintf(stderr, ACCTCTL_NAME " %s: acctd's reply has no RULES_TEXT\n", argv[0]);
            goto out;
        }
        if (acct_rules_parse_buffer("acctd reply", (const char *)text.val, text.len, &r,
                                    &diags) != ACCT_RULES_OK) {
            acct_diags_print(&diags, stderr);
            fprintf(stderr, ACCTCTL_NAME " %s: acctd sent rules this acctctl cannot read\n",
                    argv[0]);
            goto out;
        }
    }
    version = acctctl_u64(conn.msg.body, conn.msg.len, ACCT_T_VERSION, 0);
    acctctl_cells(&info, conn.msg.body, conn.msg.len, 0, info.ncols - 1);
    acctctl_table_cell(&info, "%zu", r->nrules);
    bool layout = acct_rules_version(r) >= ACCT_RULES_VERSION_LAYOUT;
    bool evidence = any_modelled(r);
    if (human && (layout || evidence)) {
        /* the human table's extra columns, by (layout, evidence) */
        static const struct {
            const struct acctctl_col *cols;
            size_t n;
        } human_tables[2][2] = {
            { { human_cols, ACCT_ARRAY_LEN(human_cols) },
              { human_evidence_cols, ACCT_ARRAY_LEN(human_evidence_cols) } },
            { { human_layout_cols, ACCT_ARRAY_LEN(human_layout_cols) },
              { human_layout_evidence_cols, ACCT_ARRAY_LEN(human_layout_evidence_cols) } },
        };
        acctctl_table_free(&rules);
        acctctl_table_init(&rules, human_tables[layout][evidence].cols,
                           human_tables[layout][evidence].n);
    }
    rule_rows(&rules, r, o.all, o.only, human, layout, evidence, version);
    if (human) {
        if (acctctl_table_print_record(&info, c.format, stdout) != 0)
            goto out;
        printf("\n");
        model_line(r);
        if (rules.nrows == 0)
            printf("(no rules%s%s: every call uses the MPI library's own collective)\n",
                   o.all ? "" : " for ", o.all ? "" : acct_coll_name(o.only));
        else if (acctctl_table_print(&rules, c.format, stdout) != 0)
            goto out;
        if (confidence(&conn, version) != 0)
            goto out;
    } else if (acctctl_table_print(&rules, c.format, stdout) != 0) {
        goto out;
    }
    rc = ACCTCTL_OK;
out:
    acct_rules_free(r);
    acct_diags_free(&diags);
    acctctl_table_free(&info);
    acctctl_table_free(&rules);
    acctctl_disconnect(&conn);
    return rc;
}
