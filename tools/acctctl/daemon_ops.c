/* Operations on acctd shared by several acctctl commands (daemon_ops.h). */
#include "daemon_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/result.h"
#include "acctctl.h"

int acctctl_op_ping(struct acctctl_conn *conn)
{
    struct acct_wbuf w;
    int rc;

    acctctl_request(conn, &w, ACCT_MSG_HELLO);
    acct_put_u64(&w, ACCT_T_PROTO_MIN, ACCT_PROTO_VERSION);
    acct_put_u64(&w, ACCT_T_PROTO_MAX, ACCT_PROTO_VERSION);
    acct_put_str(&w, ACCT_T_SOFTWARE, ACCTCTL_NAME " " ACCT_VERSION_STRING);
    rc = acctctl_call(conn, &w, NULL);
    acct_wbuf_free(&w);
    return rc;
}

int acctctl_resolve_pair(struct acctctl_conn *conn, const char *partition,
                         const char *interconnect, char out[ACCT_RULES_NAME_MAX + 1])
{
    const char *cmd = conn->common->cmd;
    char found[4][ACCT_RULES_NAME_MAX + 1];
    size_t n = 0;
    struct acct_wbuf w;
    struct acct_iter it;
    struct acct_field f;
    int rc = -1;

    if (interconnect != NULL) {
        snprintf(out, ACCT_RULES_NAME_MAX + 1, "%s", interconnect);
        return 0;
    }
    acctctl_request(conn, &w, ACCT_MSG_LIST);
    if (acctctl_call(conn, &w, NULL) != 0)
        goto out;
    acct_iter_init(&it, conn->msg.body, conn->msg.len);
    while (acct_iter_next(&it, &f)) {
        char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
        if (f.tag != ACCT_T_PAIR)
            continue;
        if (acct_get_str(f.val, f.len, ACCT_T_PARTITION, p, sizeof(p)) != 0 ||
            acct_get_str(f.val, f.len, ACCT_T_INTERCONNECT, i, sizeof(i)) != 0 ||
            strcmp(p, partition) != 0)
            continue;
        if (n < 4)
            snprintf(found[n], sizeof(found[n]), "%s", i);
        n++;
    }
    if (n == 1) {
        snprintf(out, ACCT_RULES_NAME_MAX + 1, "%s", found[0]);
        rc = 0;
    } else if (n == 0) {
        fprintf(stderr,
                ACCTCTL_NAME " %s: partition %s has no active decisions (\"acctctl partitions\" "
                "lists those that do)\n",
                cmd, partition);
    } else {
        fprintf(stderr, ACCTCTL_NAME " %s: partition %s has decisions for %zu interconnects (",
                cmd, partition, n);
        for (size_t k = 0; k < n && k < 4; k++)
            fprintf(stderr, "%s%s", k > 0 ? ", " : "", found[k]);
        fprintf(stderr, "%s): choose one with -i INTERCONNECT\n", n > 4 ? ", ..." : "");
    }
out:
    acct_wbuf_free(&w);
    return rc;
}

int acctctl_op_show(struct acctctl_conn *conn, uint64_t version, const char *partition,
                    const char *interconnect)
{
    const char *cmd = conn->common->cmd;
    char part[ACCT_RULES_NAME_MAX + 1], ic[ACCT_RULES_NAME_MAX + 1];
    char ic2[ACCT_RULES_NAME_MAX + 1];
    struct acct_wbuf w;
    int rc = -1;

    acct_wbuf_init(&w, ACCT_PROTO_MAX_BODY);
    if (version == 0 && partition == NULL) {
        /* the only pair there is */
        struct acct_iter it;
        struct acct_field f;
        size_t n = 0;
        acct_wbuf_free(&w);
        acctctl_request(conn, &w, ACCT_MSG_LIST);
        if (acctctl_call(conn, &w, NULL) != 0)
            goto out;
        acct_iter_init(&it, conn->msg.body, conn->msg.len);
        while (acct_iter_next(&it, &f)) {
            if (f.tag != ACCT_T_PAIR)
                continue;
            if (n++ == 0 &&
                (acct_get_str(f.val, f.len, ACCT_T_PARTITION, part, sizeof(part)) != 0 ||
                 acct_get_str(f.val, f.len, ACCT_T_INTERCONNECT, ic, sizeof(ic)) != 0))
                n = 99; /* cannot be used */
        }
        if (n != 1) {
            fprintf(stderr,
                    ACCTCTL_NAME " %s: %s; choose with -p PARTITION [-i INTERCONNECT] or "
                    "--version V (\"acctctl partitions\" lists them)\n",
                    cmd, n == 0 ? "acctd has no active decisions" : "acctd has several pairs");
            goto out;
        }
        partition = part;
        interconnect = ic;
    }
    if (version == 0 && acctctl_resolve_pair(conn, partition, interconnect, ic2) != 0)
        goto out;
    acct_wbuf_free(&w);
    acctctl_request(conn, &w, ACCT_MSG_SHOW);
    if (version != 0) {
        acct_put_u64(&w, ACCT_T_VERSION, version);
    } else {
        acct_put_str(&w, ACCT_T_PARTITION, partition);
        acct_put_str(&w, ACCT_T_INTERCONNECT, ic2);
    }
    if (acctctl_call(conn, &w, NULL) != 0)
        goto out;
    rc = 0;
out:
    acct_wbuf_free(&w);
    return rc;
}

/* The key of a LIST_SAMPLES aggregate: where the next page starts. */
struct page_key {
    char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1], coll[32], alg[64];
    uint64_t u[5];
};
static const unsigned page_key_u64[5] = {ACCT_T_COMM_SIZE, ACCT_T_BYTES_BUCKET, ACCT_T_SEGMENT,
                                         ACCT_T_FANOUT, ACCT_T_REORDER};

/* The key of the reply's last group. 0, or -1 (none, or incomplete). */
static int last_page_key(const struct acctctl_conn *conn, unsigned group, struct page_key *k)
{
    struct acct_iter it;
    struct acct_field f, last = {0};
    bool found = false;
    acct_iter_init(&it, conn->msg.body, conn->msg.len);
    while (acct_iter_next(&it, &f))
        if (f.tag == group) {
            last = f;
            found = true;
        }
    if (!found || acct_get_str(last.val, last.len, ACCT_T_PARTITION, k->p, sizeof(k->p)) != 0 ||
        acct_get_str(last.val, last.len, ACCT_T_INTERCONNECT, k->i, sizeof(k->i)) != 0 ||
        acct_get_str(last.val, last.len, ACCT_T_COLLECTIVE, k->coll, sizeof(k->coll)) != 0 ||
        acct_get_str(last.val, last.len, ACCT_T_ALGORITHM, k->alg, sizeof(k->alg)) != 0)
        return -1;
    for (size_t j = 0; j < 5; j++)
        if (acct_get_u64(last.val, last.len, page_key_u64[j], &k->u[j]) != 0)
            return -1;
    return 0;
}

static void put_page_key(struct acct_wbuf *w, const struct page_key *k)
{
    acct_group_begin(w, ACCT_T_STAT);
    acct_put_str(w, ACCT_T_PARTITION, k->p);
    acct_put_str(w, ACCT_T_INTERCONNECT, k->i);
    acct_put_str(w, ACCT_T_COLLECTIVE, k->coll);
    acct_put_str(w, ACCT_T_ALGORITHM, k->alg);
    for (size_t j = 0; j < 5; j++)
        acct_put_u64(w, page_key_u64[j], k->u[j]);
    acct_group_end(w);
}

int acctctl_list(const struct acctctl_common *c, unsigned type, unsigned group,
                 const struct acctctl_col *cols, size_t ncols)
{
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_wbuf w;
    const char *ic = c->interconnect;
    char resolved[ACCT_RULES_NAME_MAX + 1];
    int rc = ACCTCTL_FAIL;

    if (acctctl_connect(&conn, c) != 0)
        return ACCTCTL_FAIL;
    acctctl_table_init(&t, cols, ncols);
    acct_wbuf_init(&w, ACCT_PROTO_MAX_BODY);
    if (type == ACCT_MSG_LIST_VERSIONS) {
        if (acctctl_resolve_pair(&conn, c->partition, c->interconnect, resolved) != 0)
            goto out;
        ic = resolved;
    }
    /* LIST_SAMPLES comes in pages: each request after the first carries the
     * key of the last STAT group of the previous page (docs/protocol.md) */
    struct page_key k;
    bool more = true, first = true;
    while (more) {
        acct_wbuf_free(&w);
        acctctl_request(&conn, &w, type);
        if (c->partition != NULL)
            acct_put_str(&w, ACCT_T_PARTITION, c->partition);
        if (ic != NULL)
            acct_put_str(&w, ACCT_T_INTERCONNECT, ic);
        if (c->collective != NULL)
            acct_put_str(&w, ACCT_T_COLLECTIVE, c->collective);
        if (!first)
            put_page_key(&w, &k);
        first = false;
        if (acctctl_call(&conn, &w, NULL) != 0)
            goto out;
        acctctl_rows(&t, &conn, group);
        uint64_t m = 0;
        more = type == ACCT_MSG_LIST_SAMPLES &&
               acct_get_u64(conn.msg.body, conn.msg.len, ACCT_T_MORE, &m) == 0 && m == 1;
        if (more && last_page_key(&conn, group, &k) != 0) {
            fprintf(stderr, ACCTCTL_NAME " %s: acctd said more follow after a page without a "
                            "complete %s group\n",
                    c->cmd, acct_tag_name(group));
            goto out;
        }
    }
    if (acctctl_table_print(&t, c->format, stdout) == 0)
        rc = ACCTCTL_OK;
out:
    acct_wbuf_free(&w);
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    return rc;
}

int acctctl_active_version(struct acctctl_conn *conn, const char *partition,
                           const char *interconnect, uint64_t *v)
{
    struct acct_wbuf w;
    struct acct_iter it;
    struct acct_field f;
    int rc = -1;

    acctctl_request(conn, &w, ACCT_MSG_LIST);
    if (acctctl_call(conn, &w, NULL) != 0)
        goto out;
    rc = 1;
    acct_iter_init(&it, conn->msg.body, conn->msg.len);
    while (acct_iter_next(&it, &f)) {
        char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
        uint64_t ver;
        if (f.tag != ACCT_T_PAIR ||
            acct_get_str(f.val, f.len, ACCT_T_PARTITION, p, sizeof(p)) != 0 ||
            acct_get_str(f.val, f.len, ACCT_T_INTERCONNECT, i, sizeof(i)) != 0 ||
            acct_get_u64(f.val, f.len, ACCT_T_VERSION, &ver) != 0)
            continue;
        if (strcmp(p, partition) == 0 && strcmp(i, interconnect) == 0 && ver > 0) {
            *v = ver;
            rc = 0;
            break;
        }
    }
out:
    acct_wbuf_free(&w);
    return rc;
}

int acctctl_print_diff(struct acctctl_conn *conn, uint64_t v1, uint64_t v2, const char *indent)
{
    struct acct_wbuf w;
    struct acct_iter it;
    struct acct_field f;
    int n = -1;

    acctctl_request(conn, &w, ACCT_MSG_DIFF);
    acct_put_u64(&w, ACCT_T_VERSION, v1);
    acct_put_u64(&w, ACCT_T_VERSION2, v2);
    if (acctctl_call(conn, &w, NULL) != 0 ||
        acctctl_require(conn, (const unsigned[]){ ACCT_T_VERSION_INFO }, 1) != 0)
        goto out;
    n = 0;
    acct_iter_init(&it, conn->msg.body, conn->msg.len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag != ACCT_T_DIFF_LINE)
            continue;
        if (indent != NULL)
            printf("%s%.*s\n", indent, (int)f.len, (const char *)f.val);
        n++;
    }
out:
    acct_wbuf_free(&w);
    return n;
}

/* A rules file has the top-level key acct_rules (docs/rules.md), a tuning
 * result acct_tuning_result: look for the first at the start of a line. */
static bool is_rules_text(const char *text)
{
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, "acct_rules:", 11) == 0)
            return true;
        if (strncmp(p, "acct_tuning_result:", 19) == 0)
            return false;
    }
    return false;
}

int acctctl_import_file(struct acctctl_conn *conn, const char *path, bool activate,
                        bool show_diff)
{
    const struct acctctl_common *c = conn->common;
    bool human = c->format == ACCTCTL_FMT_TABLE;
    char *text = NULL;
    size_t len = 0;
    struct acct_wbuf w;
    char part[ACCT_RULES_NAME_MAX + 1], ic[ACCT_RULES_NAME_MAX + 1];
    char run[ACCT_RULES_RUN_MAX + 1];
    uint64_t ver, hash, active = 0;
    int has_active, changes = -1, rc = -1;
    bool now_active = false, rules;

    acct_wbuf_init(&w, ACCT_PROTO_MAX_BODY);
    if (acctctl_read_file(c->cmd, path, ACCT_RESULT_MAX_FILE_BYTES, &text, &len) != 0)
        goto out;
    rules = is_rules_text(text);
    acct_wbuf_free(&w);
    acctctl_request(conn, &w, ACCT_MSG_IMPORT);
    acct_put_strn(&w, rules ? ACCT_T_RULES_TEXT : ACCT_T_RESULT_TEXT, text, len);
    acctctl_put_name(conn, &w, path);
    int call_rc = acctctl_call(conn, &w, NULL);
    conn->diag_file = NULL;
    if (call_rc != 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s was not imported\n", c->cmd, path);
        goto out;
    }
    ver = acctctl_u64(conn->msg.body, conn->msg.len, ACCT_T_VERSION, 0);
    hash = acctctl_u64(conn->msg.body, conn->msg.len, ACCT_T_HASH, 0);
    now_active = acctctl_u64(conn->msg.body, conn->msg.len, ACCT_T_ACTIVE, 0) != 0;
    acctctl_str(conn->msg.body, conn->msg.len, ACCT_T_PARTITION, part, sizeof(part));
    acctctl_str(conn->msg.body, conn->msg.len, ACCT_T_INTERCONNECT, ic, sizeof(ic));
    acctctl_str(conn->msg.body, conn->msg.len, ACCT_T_RUN_ID, run, sizeof(run));
    if (acctctl_require(conn,
                        (const unsigned[]){ ACCT_T_VERSION, ACCT_T_PARTITION,
                                            ACCT_T_INTERCONNECT },
                        3) != 0)
        goto out;
    if (ver == 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: acctd's IMPORT reply has VERSION 0\n", c->cmd);
        goto out;
    }
    if (human) {
        if (rules)
            printf("imported rules file %s as version %" PRIu64 " of %s/%s\n", path, ver, part,
                   ic);
        else
            printf("imported tuning run %s as version %" PRIu64 " of %s/%s\n", run, ver, part,
                   ic);
    }
    has_active = acctctl_active_version(conn, part, ic, &active);
    if (has_active < 0)
        goto out;
    if (has_active > 0)
        active = 0;
    if (show_diff && active != 0 && active != ver) {
        if (human)
            printf("changes against the active version %" PRIu64 ":\n", active);
        changes = acctctl_print_diff(conn, active, ver, human ? "  " : NULL);
        if (changes < 0)
            goto out;
        if (human && changes == 0)
            printf("  (none: the same decisions)\n");
    } else if (show_diff && human && active == 0) {
        printf("%s/%s has no active version yet\n", part, ic);
    }
    if (active == ver) {
        now_active = true;
        if (human)
            printf("version %" PRIu64 " is already the active one\n", ver);
    } else if (activate) {
        acct_wbuf_free(&w);
        acctctl_request(conn, &w, ACCT_MSG_ACTIVATE);
        acct_put_u64(&w, ACCT_T_VERSION, ver);
        if (acctctl_call(conn, &w, NULL) != 0)
            goto out;
        now_active = true;
        if (human) {
            if (active != 0)
                printf("activated version %" PRIu64 " of %s/%s (was %" PRIu64 ")\n", ver, part,
                       ic, active);
            else
                printf("activated version %" PRIu64 " of %s/%s\n", ver, part, ic);
        }
    } else if (human) {
        printf("not activated; to use it: acctctl activate %" PRIu64 "\n", ver);
    }
    if (!human) {
        static const struct acctctl_col cols[] = {
            ACCTCTL_COL("version", ACCTCTL_COL_NUMBER),   ACCTCTL_COL("partition", ACCTCTL_COL_TEXT),
            ACCTCTL_COL("interconnect", ACCTCTL_COL_TEXT), ACCTCTL_COL("run_id", ACCTCTL_COL_TEXT),
            ACCTCTL_COL("hash", ACCTCTL_COL_TEXT),        ACCTCTL_COL("active", ACCTCTL_COL_BOOL),
            ACCTCTL_COL("previous", ACCTCTL_COL_NUMBER),  ACCTCTL_COL("changes", ACCTCTL_COL_NUMBER),
        };
        struct acctctl_table t;
        acctctl_table_init(&t, cols, ACCT_ARRAY_LEN(cols));
        acctctl_table_cell(&t, "%" PRIu64, ver);
        acctctl_table_cell(&t, "%s", part);
        acctctl_table_cell(&t, "%s", ic);
        acctctl_table_cell(&t, "%s", rules || run[0] == '\0' ? "-" : run);
        acctctl_table_cell(&t, "%016" PRIx64, hash);
        acctctl_table_cell(&t, "%s", now_active ? "true" : "false");
        if (active != 0)
            acctctl_table_cell(&t, "%" PRIu64, active);
        else
            acctctl_table_cell(&t, "-");
        if (changes >= 0)
            acctctl_table_cell(&t, "%d", changes);
        else
            acctctl_table_cell(&t, "-");
        int prc = acctctl_table_print_record(&t, c->format, stdout);
        acctctl_table_free(&t);
        if (prc != 0)
            goto out;
    }
    rc = 0;
out:
    acct_wbuf_free(&w);
    free(text);
    return rc;
}
