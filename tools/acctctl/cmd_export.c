/* acctctl export: a decision version as a rules file (yaml), as an Open MPI
 * coll/tuned dynamic rules file (ompi) or as C source (c). yaml is the
 * daemon's text verbatim; ompi and c go through libacct/decision
 * (docs/decisions.md). */
#include "acctctl.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct/rules.h"
#include "client.h"
#include "daemon_ops.h"
#include "acct/dmap.h"

enum export_format { EXPORT_YAML, EXPORT_OMPI, EXPORT_C };

struct export_opts {
    enum export_format format;
    int max_comm_size;
    const char *prefix, *output;
    uint64_t version;
    struct acct_rules_where where; /* --ranks-per-node, --irregular */
};

/* Write the export of text (the rules file) to f. 0 or -1 (printed). */
static int write_export(const char *cmd, FILE *f, const char *text, size_t len,
                        const struct export_opts *o)
{
    int rc = -1;
    struct acct_diags diags = ACCT_DIAGS_INIT, notes = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;

    if (o->format == EXPORT_YAML)
        return fwrite(text, 1, len, f) == len ? 0 : -1;
    if (acct_rules_parse_buffer("acctd reply", text, len, &r, &diags) != ACCT_RULES_OK) {
        acct_diags_print(&diags, stderr);
        fprintf(stderr, ACCTCTL_NAME " %s: acctd sent rules this acctctl cannot read\n", cmd);
        goto out;
    }
    if (o->format == EXPORT_OMPI) {
        struct acct_ompi_export_opts eo = { .max_comm_size = o->max_comm_size,
                                            .where = o->where };
        acct_diags_reset(&notes, "export");
        rc = acct_export_ompi(f, r, &eo, &notes) == 0 ? 0 : -1;
        acct_diags_print(&notes, stderr); /* decisions without an exact Open MPI equivalent */
    } else {
        rc = acct_export_c_at(f, r, o->prefix, o->where.ranks_per_node > 0 ? &o->where : NULL) == 0
                 ? 0
                 : -1;
    }
    if (rc != 0)
        fprintf(stderr, ACCTCTL_NAME " %s: the export failed\n", cmd);
out:
    acct_rules_free(r);
    acct_diags_free(&diags);
    acct_diags_free(&notes);
    return rc;
}

/* Write to path atomically: PATH.tmp.PID, fsync, rename. */
static int export_to_file(const char *cmd, const char *path, const char *text, size_t len,
                          const struct export_opts *o)
{
    char tmp[PATH_MAX];
    FILE *f;
    int rc = -1;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: path too long\n", cmd, path);
        return -1;
    }
    f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: %s\n", cmd, tmp, strerror(errno));
        return -1;
    }
    rc = write_export(cmd, f, text, len, o);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: %s\n", cmd, tmp, strerror(errno));
        rc = -1;
    }
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: %s\n", cmd, path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp);
    return rc;
}

static int own_opt(void *arg, int ch, const char *optarg)
{
    struct export_opts *o = arg;
    char *end;
    long v;

    switch (ch) {
    case 'f': /* here the export format, not the table format */
        if (strcmp(optarg, "yaml") == 0)
            o->format = EXPORT_YAML;
        else if (strcmp(optarg, "ompi") == 0)
            o->format = EXPORT_OMPI;
        else if (strcmp(optarg, "c") == 0)
            o->format = EXPORT_C;
        else
            return acctctl_usage_error("export", "unknown format \"%s\" (yaml, ompi, c)",
                                       optarg);
        return 0;
    case 'V':
        if (acctctl_parse_version(optarg, &o->version) != 0)
            return acctctl_usage_error("export", "--version: \"%s\" is not a version", optarg);
        return 0;
    case 'o':
        o->output = optarg;
        return 0;
    case 'M':
        errno = 0;
        v = strtol(optarg, &end, 10);
        if (errno != 0 || *end != '\0' || optarg[0] == '\0' || v < 1 || v > INT_MAX)
            return acctctl_usage_error("export", "--max-comm-size: expected an integer >= 1");
        o->max_comm_size = (int)v;
        return 0;
    case 'R':
    case 'I':
        return acctctl_layout_opt("export", ch, optarg, &o->where);
    case 'P':
        for (const char *p = optarg; *p != '\0'; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
                  (p > optarg && *p >= '0' && *p <= '9')))
                return acctctl_usage_error("export", "--prefix: not a C identifier");
        if (optarg[0] == '\0')
            return acctctl_usage_error("export", "--prefix: empty");
        o->prefix = optarg;
        return 0;
    default:
        return -1;
    }
}

int acctctl_cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "version", required_argument, NULL, 'V' },
        { "output", required_argument, NULL, 'o' },
        { "max-comm-size", required_argument, NULL, 'M' },
        { "prefix", required_argument, NULL, 'P' },
        ACCTCTL_LAYOUT_LONG,
        ACCTCTL_PAIR_LONG,
        { "socket", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct export_opts o = { .format = EXPORT_YAML, .max_comm_size = 1024,
                             .where = { .ranks_per_node = 0, .regular = true } };
    struct acctctl_common c;
    struct acctctl_conn conn;
    struct acct_field text;
    int rc;

    acctctl_common_init(&c, argv[0]);
    rc = acctctl_parse_opts(&c, argc, argv, "f:V:o:s:h" ACCTCTL_PAIR_SHORT, opts, own_opt, &o);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if ((rc = acctctl_layout_check(argv[0], &o.where)) != 0)
        return rc;
    if (o.format == EXPORT_YAML && o.where.ranks_per_node > 0)
        return acctctl_usage_error(argv[0], "--ranks-per-node is for --format ompi or c (a "
                                            "rules file keeps every layout)");
    if (o.version != 0 && (c.partition != NULL || c.interconnect != NULL))
        return acctctl_usage_error(argv[0], "give either --version or -p/-i, not both");
    if (c.interconnect != NULL && c.partition == NULL)
        return acctctl_usage_error(argv[0], "-i needs -p PARTITION");
    if (acctctl_connect(&conn, &c) != 0)
        return ACCTCTL_FAIL;
    rc = ACCTCTL_FAIL;
    if (acctctl_op_show(&conn, o.version, c.partition, c.interconnect) != 0)
        goto out;
    if (!acct_msg_find(&conn.msg, ACCT_T_RULES_TEXT, &text)) {
        fprintf(stderr, ACCTCTL_NAME " %s: acctd's reply has no RULES_TEXT\n", argv[0]);
        goto out;
    }
    if (o.output != NULL && strcmp(o.output, "-") != 0) {
        if (export_to_file(argv[0], o.output, (const char *)text.val, text.len, &o) != 0)
            goto out;
    } else if (write_export(argv[0], stdout, (const char *)text.val, text.len, &o) != 0 ||
               fflush(stdout) != 0) {
        goto out;
    }
    rc = ACCTCTL_OK;
out:
    acctctl_disconnect(&conn);
    return rc;
}
