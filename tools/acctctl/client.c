/* acctctl's side of the acctd protocol (client.h). */
#include "client.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acct/rules.h"
#include "acct/stats.h"
#include "acctctl.h"

void acctctl_common_init(struct acctctl_common *c, const char *cmd)
{
    const char *env = getenv("ACCT_SOCKET");
    memset(c, 0, sizeof(*c));
    c->cmd = cmd;
    c->socket = env != NULL && env[0] != '\0' ? env : ACCTCTL_DEFAULT_SOCKET;
    c->format = ACCTCTL_FMT_TABLE;
}

int acctctl_not_a_name(const char *cmd, const char *what, const char *value)
{
    return acctctl_usage_error(cmd, "%s: \"%s\" is not a name (1 to 64 of A-Z a-z 0-9 . _ + -)",
                               what, value);
}

/* A shared option. Returns -1 to go on, or the exit code to stop with. */
static int common_opt(struct acctctl_common *c, int ch, const char *arg, const char *unknown)
{
    switch (ch) {
    case 's':
        if (arg[0] == '\0')
            return acctctl_usage_error(c->cmd, "--socket needs a path");
        c->socket = arg;
        return -1;
    case 'f':
        if (acctctl_format_parse(arg, &c->format) != 0)
            return acctctl_usage_error(c->cmd, "unknown format \"%s\" (table, tsv, json)", arg);
        return -1;
    case 'p':
    case 'i':
        if (!acct_proto_name_ok(arg, ACCT_RULES_NAME_MAX))
            return acctctl_not_a_name(c->cmd, ch == 'p' ? "--partition" : "--interconnect", arg);
        *(ch == 'p' ? &c->partition : &c->interconnect) = arg;
        return -1;
    case 'h':
        acctctl_command_usage(c->cmd, stdout);
        return ACCTCTL_OK;
    case ':':
        return acctctl_usage_error(c->cmd, "%s needs a value", unknown);
    default:
        return acctctl_usage_error(c->cmd, "unknown option %s", unknown);
    }
}

int acctctl_parse_opts(struct acctctl_common *c, int argc, char **argv, const char *shortopts,
                       const struct option *longopts, acctctl_own_opt own, void *arg)
{
    char opts[64];
    int ch;

    /* leading ':' : a missing value is reported as ':', not '?' */
    snprintf(opts, sizeof(opts), ":%s", shortopts);
    opterr = 0;
    optind = 1;
    while ((ch = acctctl_getopt(argc, argv, opts, longopts)) != -1) {
        const char *shown = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
        int rc = own != NULL && ch != '?' && ch != ':' ? own(arg, ch, optarg) : -1;
        if (rc == 0)
            continue; /* the command's own, taken */
        if (rc == -1)
            rc = common_opt(c, ch, optarg, shown); /* -1: a shared one, taken */
        if (rc != -1)
            return rc;
    }
    return -1;
}

int acctctl_connect(struct acctctl_conn *conn, const struct acctctl_common *c)
{
    int fd, err;

    memset(conn, 0, sizeof(*conn));
    conn->fd = -1;
    conn->next_id = 1;
    conn->common = c;
    fd = acct_client_connect(c->socket, 5000);
    if (fd >= 0) {
        conn->fd = fd;
        return 0;
    }
    err = errno;
    fprintf(stderr, ACCTCTL_NAME " %s: cannot connect to acctd at %s: %s\n", c->cmd, c->socket,
            strerror(err));
    switch (err) {
    case ENOENT:
    case ECONNREFUSED:
        fprintf(stderr,
                ACCTCTL_NAME " %s: acctd is not running there. Start it with \"systemctl "
                "start acctd\" (or in the foreground: \"acctd -f -c /etc/acct/acctd.yaml\"); "
                "another socket: --socket PATH or ACCT_SOCKET=PATH\n",
                c->cmd);
        break;
    case EACCES:
    case EPERM:
        fprintf(stderr,
                ACCTCTL_NAME " %s: the socket or its directory is not accessible to this "
                "user (acctd's socket_mode and admin_group settings, docs/acctd.md)\n",
                c->cmd);
        break;
    case ENAMETOOLONG:
        fprintf(stderr, ACCTCTL_NAME " %s: a socket path has at most 107 bytes\n", c->cmd);
        break;
    default:
        break;
    }
    return -1;
}

void acctctl_disconnect(struct acctctl_conn *conn)
{
    if (conn->fd >= 0)
        close(conn->fd);
    conn->fd = -1;
    free(conn->reply);
    conn->reply = NULL;
    conn->reply_len = 0;
}

void acctctl_put_name(struct acctctl_conn *conn, struct acct_wbuf *w, const char *path)
{
    conn->diag_file = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (strlen(conn->diag_file) <= 255) /* acctd's limit (docs/protocol.md, NAME) */
        acct_put_str(w, ACCT_T_NAME, conn->diag_file);
}

void acctctl_request(struct acctctl_conn *conn, struct acct_wbuf *w, unsigned type)
{
    acct_wbuf_init(w, ACCT_PROTO_MAX_BODY);
    acct_wbuf_start(w, type, conn->next_id++);
}

static void print_daemon_error(const struct acctctl_conn *conn)
{
    const struct acct_msg *m = &conn->msg;
    const char *cmd = conn->common->cmd;
    char msg[1024];
    uint64_t code = acctctl_u64(m->body, m->len, ACCT_T_ERR_CODE, 0);
    struct acct_iter it;
    struct acct_field f;

    acctctl_str(m->body, m->len, ACCT_T_ERR_MSG, msg, sizeof(msg));
    /* DIAG lines first (FILE:LINE:COLUMN: FIELD: message), then the verdict. */
    acct_iter_init(&it, m->body, m->len);
    while (acct_iter_next(&it, &f)) {
        const char *line = (const char *)f.val;
        int skip = 0;
        if (f.tag != ACCT_T_DIAG)
            continue;
        /* acctd's display names of the texts it parses (req_admin.c) */
        for (size_t k = 0; conn->diag_file != NULL && k < 3 && skip == 0; k++) {
            static const char *const names[] = { "rules:", "result:", "policy:" };
            size_t n = strlen(names[k]);
            if (f.len > n && memcmp(line, names[k], n) == 0)
                skip = (int)n - 1;
        }
        if (skip > 0)
            fprintf(stderr, "%s%.*s\n", conn->diag_file, (int)(f.len - (uint32_t)skip),
                    line + skip);
        else
            fprintf(stderr, "%.*s\n", (int)f.len, line);
    }
    fprintf(stderr, ACCTCTL_NAME " %s: acctd refused: %s (%s)\n", cmd, msg,
            acct_err_name((unsigned)code));
    if (code == ACCT_ERR_PERMISSION)
        fprintf(stderr,
                ACCTCTL_NAME " %s: this needs root or a member of acctd's admin group\n", cmd);
}

int acctctl_call(struct acctctl_conn *conn, struct acct_wbuf *w, unsigned *err_code)
{
    const char *cmd = conn->common->cmd;
    unsigned type = w->len >= ACCT_PROTO_HEADER ? w->p[5] : 0;
    int rc;

    if (err_code != NULL)
        *err_code = 0;
    if (acct_wbuf_finish(w) != 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: the request is too large (at most %u bytes)\n", cmd,
                (unsigned)ACCT_PROTO_MAX_BODY);
        return -1;
    }
    free(conn->reply);
    conn->reply = NULL;
    rc = acct_client_call(conn->fd, w, ACCTCTL_TIMEOUT_MS, &conn->reply, &conn->reply_len,
                          &conn->msg);
    if (rc != 0) {
        int err = errno;
        switch (err) {
        case ETIMEDOUT:
            fprintf(stderr, ACCTCTL_NAME " %s: acctd at %s did not answer within %d s\n", cmd,
                    conn->common->socket, ACCTCTL_TIMEOUT_MS / 1000);
            break;
        case EBADMSG:
        case EPROTO:
        case EMSGSIZE:
            fprintf(stderr, ACCTCTL_NAME " %s: acctd at %s sent a malformed reply (%s)\n", cmd,
                    conn->common->socket,
                    err == EPROTO     ? "another protocol version"
                    : err == EMSGSIZE ? "larger than the protocol allows"
                                      : "bad message");
            break;
        default:
            fprintf(stderr, ACCTCTL_NAME " %s: talking to acctd at %s: %s\n", cmd,
                    conn->common->socket,
                    err == EPIPE || err == ECONNRESET ? "connection closed by acctd"
                                                      : strerror(err));
            break;
        }
        return -1;
    }
    if (conn->msg.h.type == ACCT_MSG_ERROR) {
        if (err_code != NULL)
            *err_code = (unsigned)acctctl_u64(conn->msg.body, conn->msg.len, ACCT_T_ERR_CODE, 0);
        if (!conn->quiet_errors)
            print_daemon_error(conn);
        return -1;
    }
    if (conn->msg.h.type != (type | ACCT_MSG_REPLY)) {
        fprintf(stderr, ACCTCTL_NAME " %s: acctd answered %s with message type %u\n", cmd,
                acct_msg_type_name(type), conn->msg.h.type);
        return -1;
    }
    struct acct_iter it;
    struct acct_field f;
    acct_iter_init(&it, conn->msg.body, conn->msg.len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag != ACCT_T_WARNING)
            continue;
        fprintf(stderr, ACCTCTL_NAME " %s: warning: %.*s\n", cmd, (int)f.len,
                (const char *)f.val);
        conn->warnings++;
    }
    return 0;
}

int acctctl_require(const struct acctctl_conn *conn, const unsigned *tags, size_t n)
{
    struct acct_field f;
    for (size_t i = 0; i < n; i++) {
        if (!acct_msg_find(&conn->msg, tags[i], &f)) {
            fprintf(stderr, ACCTCTL_NAME " %s: acctd's %s reply has no %s\n", conn->common->cmd,
                    acct_msg_type_name(conn->msg.h.type & 0x7f), acct_tag_name(tags[i]));
            return -1;
        }
    }
    return 0;
}

/* Bucket k holds [2^(k-1), 2^k - 1] bytes; 0 holds 0 (acct_bytes_bucket). */
static const char *bucket_text(uint64_t k, char *buf, size_t len)
{
    char a[32], b[32];
    if (k == 0 || k > 64) {
        snprintf(buf, len, k == 0 ? "0" : "?");
        return buf;
    }
    acct_size_format(1ull << (k - 1), a, sizeof(a));
    if (k == 64)
        snprintf(b, sizeof(b), "max");
    else
        acct_size_format((1ull << k) - 1, b, sizeof(b));
    snprintf(buf, len, "[%s, %s]", a, b);
    return buf;
}

void acctctl_cells(struct acctctl_table *t, const uint8_t *body, size_t len, size_t from,
                   size_t to)
{
    for (size_t i = from; i < to && i < t->ncols; i++) {
        const struct acctctl_col *col = &t->cols[i];
        char s[4096];
        uint64_t u;
        double d;
        switch (col->how) {
        case ACCTCTL_V_U64:
        case ACCTCTL_V_U64_NZ:
        case ACCTCTL_V_BOOL:
        case ACCTCTL_V_HEX:
            if (acct_get_u64(body, len, col->tag, &u) != 0 ||
                (col->how == ACCTCTL_V_U64_NZ && u == 0))
                acctctl_table_cell(t, "-");
            else if (col->how == ACCTCTL_V_BOOL)
                acctctl_table_cell(t, "%s", u != 0 ? "true" : "false");
            else if (col->how == ACCTCTL_V_HEX)
                acctctl_table_cell(t, "%016" PRIx64, u);
            else
                acctctl_table_cell(t, "%" PRIu64, u);
            break;
        case ACCTCTL_V_STR:
        case ACCTCTL_V_STR_NE:
            acctctl_str(body, len, col->tag, s, sizeof(s));
            acctctl_table_cell(t, "%s", col->how == ACCTCTL_V_STR_NE && s[0] == '\0' ? "-" : s);
            break;
        case ACCTCTL_V_F64:
            if (acct_get_f64(body, len, col->tag, &d) == 0)
                acctctl_table_cell(t, "%.3f", d);
            else
                acctctl_table_cell(t, "-");
            break;
        case ACCTCTL_V_BUCKET:
            if (acct_get_u64(body, len, col->tag, &u) != 0)
                acctctl_table_cell(t, "-");
            else
                acctctl_table_cell(t, "%s", bucket_text(u, s, sizeof(s)));
            break;
        case ACCTCTL_V_NONE:
            acctctl_table_cell(t, "-");
            break;
        }
    }
}

void acctctl_rows(struct acctctl_table *t, const struct acctctl_conn *conn, unsigned group)
{
    struct acct_iter it;
    struct acct_field f;
    acct_iter_init(&it, conn->msg.body, conn->msg.len);
    while (acct_iter_next(&it, &f))
        if (f.tag == group)
            acctctl_cells(t, f.val, f.len, 0, t->ncols);
}

uint64_t acctctl_u64(const uint8_t *body, size_t len, unsigned tag, uint64_t dflt)
{
    uint64_t v;
    return acct_get_u64(body, len, tag, &v) == 0 ? v : dflt;
}

const char *acctctl_str(const uint8_t *body, size_t len, unsigned tag, char *buf, size_t cap)
{
    if (acct_get_str(body, len, tag, buf, cap) != 0)
        snprintf(buf, cap, "-");
    return buf;
}

/* A text file: the protocol's strings hold no NUL byte, and a rules file,
 * tuning result or policy never does (acctctl validate says the same).
 * If buf holds one, print where and return true. */
static bool refuse_binary(const char *cmd, const char *name, const char *buf, size_t n)
{
    const char *nul = memchr(buf, 0, n);
    if (nul == NULL)
        return false;
    size_t line = 1, col = 1;
    for (const char *q = buf; q < nul; q++, col++)
        if (*q == '\n') {
            line++;
            col = 0;
        }
    fprintf(stderr, "%s:%zu:%zu: binary data (a NUL byte): not a text file\n", name, line, col);
    fprintf(stderr, ACCTCTL_NAME " %s: %s was not sent to acctd\n", cmd, name);
    return true;
}

int acctctl_read_file(const char *cmd, const char *path, size_t max, char **out, size_t *len)
{
    bool is_stdin = strcmp(path, "-") == 0;
    /* O_NONBLOCK: a FIFO nobody writes must not hang open(); named files
     * other than regular ones are refused below ("-" reads a pipe). */
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    size_t cap = 65536, n = 0;
    char *buf = NULL;
    int rc = -1;
    struct stat st;

    *out = NULL;
    *len = 0;
    if (fd < 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: %s\n", cmd, path, strerror(errno));
        goto out;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: is a directory\n", cmd, path);
        goto out;
    }
    if (!is_stdin && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: not a regular file (give - to read standard input)\n",
                cmd, path);
        goto out;
    }
    buf = malloc(cap + 1);
    if (buf == NULL)
        goto oom;
    for (;;) {
        ssize_t k;
        if (n == cap) {
            if (cap > max)
                break;
            char *b = realloc(buf, 2 * cap + 1);
            if (b == NULL)
                goto oom;
            buf = b;
            cap *= 2;
        }
        k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            fprintf(stderr, ACCTCTL_NAME " %s: %s: %s\n", cmd, path, strerror(errno));
            goto out;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    if (n > max) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: larger than %zu bytes\n", cmd, path, max);
        goto out;
    }
    if (refuse_binary(cmd, is_stdin ? "<stdin>" : path, buf, n))
        goto out;
    buf[n] = '\0';
    *out = buf;
    *len = n;
    buf = NULL;
    rc = 0;
    goto out;
oom:
    fprintf(stderr, ACCTCTL_NAME " %s: %s: out of memory\n", cmd, path);
out:
    free(buf);
    if (fd >= 0 && !is_stdin)
        close(fd);
    return rc;
}

int acctctl_parse_version(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > (unsigned long long)INT64_MAX)
        return -1;
    *out = v;
    return 0;
}

int acctctl_layout_opt(const char *cmd, int ch, const char *optarg, struct acct_rules_where *w)
{
    char *end;
    long v;
    switch (ch) {
    case 'R':
        errno = 0;
        v = strtol(optarg, &end, 10);
        if (optarg[0] < '0' || optarg[0] > '9' || errno != 0 || *end != '\0' || v < 1 ||
            v > INT_MAX)
            return acctctl_usage_error(cmd, "--ranks-per-node: expected an integer >= 1");
        w->ranks_per_node = (int)v;
        return 0;
    case 'I':
        w->regular = false;
        return 0;
    default:
        return 1;
    }
}

int acctctl_layout_check(const char *cmd, const struct acct_rules_where *w)
{
    if (!w->regular && w->ranks_per_node == 0)
        return acctctl_usage_error(cmd, "--irregular needs --ranks-per-node N");
    return 0;
}

int acctctl_exchange(const struct acctctl_common *c, const struct acctctl_exchange *x,
                     void *arg)
{
    struct acctctl_conn conn;
    struct acctctl_table t;
    struct acct_wbuf w;
    int rc = ACCTCTL_FAIL;

    if (acctctl_connect(&conn, c) != 0)
        return ACCTCTL_FAIL;
    acctctl_table_init(&t, x->cols, x->ncols);
    acct_wbuf_init(&w, ACCT_PROTO_MAX_BODY);
    if (x->prepare != NULL && x->prepare(&conn, arg) != 0)
        goto out;
    acct_wbuf_free(&w);
    acctctl_request(&conn, &w, x->type);
    if (x->fill != NULL)
        x->fill(&conn, &w, arg);
    if (acctctl_call(&conn, &w, NULL) != 0 ||
        acctctl_require(&conn, x->required, x->nrequired) != 0)
        goto out;
    rc = x->print(&conn, &t, arg);
    if (x->warn && rc == ACCTCTL_OK && conn.warnings > 0)
        rc = ACCTCTL_WARN;
out:
    acct_wbuf_free(&w);
    acctctl_table_free(&t);
    acctctl_disconnect(&conn);
    return rc;
}

int acctctl_flushed(void)
{
    return fflush(stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
}

int acctctl_print_record(struct acctctl_table *t, enum acctctl_format format)
{
    return acctctl_table_print_record(t, format, stdout) == 0 ? ACCTCTL_OK : ACCTCTL_FAIL;
}
