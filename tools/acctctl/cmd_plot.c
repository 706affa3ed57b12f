/* acctctl plot: a decision map as a character grid (communicator sizes x
 * message bytes, one letter per method), from acctd or from a rules file.
 *
 * The decisions shown are the runtime's own: acct_rules_resolve builds the
 * per-communicator table and acct_table_lookup picks the decision of each
 * cell, exactly as libacct does for a call (power-of-two restrictions
 * included). */
#include "acctctl.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/coll.h"
#include "acct/common.h"
#include "acct/rules.h"
#include "acct/table.h"
#include "acct/stats.h"
#include "client.h"
#include "daemon_ops.h"

#define MAX_METHODS 62 /* A-Z a-z 0-9; more distinct methods share '+' */
#define METHOD_LEN 160

static const char symbols[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

struct plot_opts {
    const char *file; /* a rules file instead of acctd */
    uint64_t version;
    enum acct_coll_id only;
    bool all;
    int max_comm;     /* rows: 2, 4, ... up to this */
    int max_bytes_k;  /* columns: 2^0 .. 2^k bytes */
    struct acct_rules_where where; /* --ranks-per-node, --irregular (0: unknown) */
};

/* The distinct methods of one map, in order of first appearance. */
struct legend {
    char name[MAX_METHODS][METHOD_LEN];
    size_t n;
};

/* The symbol of decision d: '.' for native, a letter per method. */
static char symbol(struct legend *l, const struct acct_decision *d)
{
    char m[METHOD_LEN];
    if (d->alg->flags & ACCT_ALG_NATIVE)
        return '.';
    acct_decision_format(d, m, sizeof(m));
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->name[i], m) == 0)
            return symbols[i];
    if (l->n == MAX_METHODS)
        return '+';
    snprintf(l->name[l->n], METHOD_LEN, "%s", m);
    return symbols[l->n++];
}

/* One collective: the grid (table format) or one row per cell (tsv/json).
 * Returns 0, or -1 out of memory. */
static int plot_coll(const struct acct_rules *r, enum acct_coll_id coll,
                     const struct plot_opts *o, enum acctctl_format fmt,
                     struct acctctl_table *rows)
{
    struct legend *l = calloc(1, sizeof(*l));
    /* a barrier has no data: its one column is 0 bytes (docs/rules.md) */
    bool barrier = coll == ACCT_COLL_barrier;
    int kmax = barrier ? 0 : o->max_bytes_k;
    int rc = -1;

    if (l == NULL)
        return -1;
    if (fmt == ACCTCTL_FMT_TABLE) {
        char at[80] = "";
        if (acct_rules_version(r) >= ACCT_RULES_VERSION_LAYOUT) {
            if (o->where.ranks_per_node > 0)
                snprintf(at, sizeof(at), ", %d ranks per node (%s)", o->where.ranks_per_node,
                         o->where.regular ? "regular" : "irregular");
            else
                snprintf(at, sizeof(at), ", layout unknown (--ranks-per-node N to choose)");
        }
        printf("%s (partition %s, interconnect %s, version %lld%s): method by communicator "
               "size (rows)%s\n",
               acct_coll_name(coll), r->prov.partition, r->prov.interconnect,
               (long long)r->prov.version, at,
               barrier ? "" : " and message bytes 2^k (columns)");
        if (!barrier) {
            printf("%8s  ", "");
            for (int k = 0; k <= kmax; k++)
                putchar(k >= 10 ? '0' + k / 10 : ' ');
            printf("\n%8s  ", "k:");
            for (int k = 0; k <= kmax; k++)
                putchar('0' + k % 10);
            putchar('\n');
        }
    }
    for (long p = 2; p <= o->max_comm; p *= 2) {
        struct acct_table *t = NULL;
        if (acct_rules_resolve_at(r, coll, (int)p,
                                  o->where.ranks_per_node > 0 ? &o->where : NULL,
                                  &t) != ACCT_RULES_OK)
            goto out;
        if (fmt == ACCTCTL_FMT_TABLE)
            printf("%8ld  ", p);
        for (int k = 0; k <= kmax; k++) {
            uint64_t bytes = barrier ? 0 : 1ull << k;
            const struct acct_decision *d = acct_table_lookup(t, bytes);
            if (fmt == ACCTCTL_FMT_TABLE) {
                putchar(symbol(l, d));
            } else {
                char m[METHOD_LEN];
                acct_decision_format(d, m, sizeof(m));
                acctctl_table_cell(rows, "%s", acct_coll_name(coll));
                acctctl_table_cell(rows, "%ld", p);
                acctctl_table_cell(rows, "%llu", (unsigned long long)bytes);
                acctctl_table_cell(rows, "%s", m);
            }
        }
        if (fmt == ACCTCTL_FMT_TABLE)
            putchar('\n');
        acct_table_free(t);
    }
    if (fmt == ACCTCTL_FMT_TABLE) {
        printf("legend: . native");
        for (size_t i = 0; i < l->n; i++)
            printf("  %c %s", symbols[i], l->name[i]);
        if (l->n == MAX_METHODS)
            printf("  + others");
        printf("\n\n");
    }
    rc = 0;
out:
    free(l);
    return rc;
}

static int own_opt(void *arg, int ch, const char *optarg)
{
    struct plot_opts *o = arg;
    uint64_t v;
    char err[128];

    switch (ch) {
    case 'c':
        if (acct_coll_from_name(optarg, &o->only) != 0)
            return acctctl_usage_error("plot", "unknown collective \"%s\"", optarg);
        o->all = false;
        return 0;
    case 'V':
        if (acctctl_parse_version(optarg, &o->version) != 0)
            return acctctl_usage_error("plot", "--version: \"%s\" is not a version", optarg);
        return 0;
    case 'F':
        o->file = optarg;
        return 0;
    case 'M': {
        char *end;
        long n = strtol(optarg, &end, 10);
        if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || n < 2 || n > (1L << 20))
            return acctctl_usage_error("plot", "--max-comm-size: expected 2 to 1048576");
        o->max_comm = (int)n;
        return 0;
    }
    case 'R':
    case 'I':
        return acctctl_layout_opt("plot", ch, optarg, &o->where);
    case 'B':
        if (acct_size_parse(optarg, &v, err, sizeof(err)) != 0 || v < 1)
            return acctctl_usage_error("plot", "--max-bytes: %s", v < 1 ? "at least 1" : err);
        o->max_bytes_k = 0;
        while (o->max_bytes_k < 62 && (2ull << o->max_bytes_k) <= v)
            o->max_bytes_k++;
        return 0;
    default:
        return -1;
    }
}

int acctctl_cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        { "collective", required_argument, NULL, 'c' },
        { "version", required_argument, NULL, 'V' },
        { "file", required_argument, NULL, 'F' },
        { "max-comm-size", required_argument, NULL, 'M' },
        { "max-bytes", required_argument, NULL, 'B' },
        ACCTCTL_LAYOUT_LONG,
        ACCTCTL_PAIR_LONG,
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    static const struct acctctl_col cols[] = {
        ACCTCTL_COL("collective", ACCTCTL_COL_TEXT),
        ACCTCTL_COL("comm_size", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("bytes", ACCTCTL_COL_NUMBER),
        ACCTCTL_COL("method", ACCTCTL_COL_TEXT),
    };
    struct plot_opts o = { .only = ACCT_COLL_COUNT, .all = true, .max_comm = 1024,
                           .max_bytes_k = 24, .where = { .ranks_per_node = 0, .regular = true } };
    struct acctctl_common c;
    struct acctctl_conn conn = { .fd = -1 };
    struct acctctl_table rows;
    struct acct_diags diags = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    struct acct_field text;
    bool connected = false;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "c:V:" ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT, opts,
                            own_opt, &o);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if ((rc = acctctl_layout_check(argv[0], &o.where)) != 0)
        return rc;
    if ((o.file != NULL) + (o.version != 0) + (c.partition != NULL) > 1)
        return acctctl_usage_error(argv[0], "give one of --file, --version, -p");
    if (c.interconnect != NULL && c.partition == NULL)
        return acctctl_usage_error(argv[0], "-i needs -p PARTITION");
    rc = ACCTCTL_FAIL;
    acctctl_table_init(&rows, cols, ACCT_ARRAY_LEN(cols));
    if (o.file != NULL) {
        if (acct_rules_parse_file(o.file, &r, &diags) != ACCT_RULES_OK) {
            acct_diags_print(&diags, stderr);
            fprintf(stderr, ACCTCTL_NAME " %s: %s is not a valid rules file\n", argv[0], o.file);
            goto out;
        }
    } else {
        if (acctctl_connect(&conn, &c) != 0)
            goto out;
        connected = true;
        if (acctctl_op_show(&conn, o.version, c.partition, c.interconnect) != 0)
            goto out;
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
    for (int k = 0; k < ACCT_COLL_COUNT; k++) {
        /* every collective with rules, or the one asked for */
        if (o.all ? r->coll[k].n == 0 : (enum acct_coll_id)k != o.only)
            continue;
        if (plot_coll(r, (enum acct_coll_id)k, &o, c.format, &rows) != 0) {
            fprintf(stderr, ACCTCTL_NAME " %s: out of memory\n", argv[0]);
            goto out;
        }
    }
    if (c.format != ACCTCTL_FMT_TABLE) {
        if (acctctl_table_print(&rows, c.format, stdout) != 0)
            goto out;
    } else if (o.all && r->nrules == 0) {
        printf("(no rules: every call uses the MPI library's own collective)\n");
    }
    rc = fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
out:
    acct_rules_free(r);
    acct_diags_free(&diags);
    acctctl_table_free(&rows);
    if (connected)
        acctctl_disconnect(&conn);
    return rc;
}
