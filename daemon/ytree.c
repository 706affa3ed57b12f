/* A bounded YAML tree for acctd's own files (see ytree.h). */
#include "ytree.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

struct builder {
    yaml_parser_t p;
    struct acct_diags *d;
    size_t nodes;
};

void yt_free(struct yt_node *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->n; i++)
        yt_free(n->kids[i]);
    free(n->kids);
    free(n->text);
    free(n);
}

static struct yt_node *node_new(struct builder *b, enum yt_type t, const yaml_mark_t *mk)
{
    if (++b->nodes > YT_MAX_NODES) {
        acct_diags_add(b->d, (int)mk->line + 1, (int)mk->column + 1, NULL,
                       "more than %d values", YT_MAX_NODES);
        return NULL;
    }
    struct yt_node *n = calloc(1, sizeof(*n));
    if (n == NULL) {
        acct_diags_add(b->d, 0, 0, NULL, "out of memory");
        return NULL;
    }
    n->type = t;
    n->line = (int)mk->line + 1;
    n->col = (int)mk->column + 1;
    return n;
}

static int add_kid(struct builder *b, struct yt_node *parent, struct yt_node *kid)
{
    struct yt_node **k = realloc(parent->kids, (parent->n + 1) * sizeof(*k));
    if (k == NULL) {
        acct_diags_add(b->d, 0, 0, NULL, "out of memory");
        return -1;
    }
    parent->kids = k;
    parent->kids[parent->n++] = kid;
    return 0;
}

static int next_event(struct builder *b, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&b->p, ev)) {
        acct_diags_add(b->d, (int)b->p.problem_mark.line + 1, (int)b->p.problem_mark.column + 1,
                       NULL, "YAML syntax: %s%s%s", b->p.problem ? b->p.problem : "error",
                       b->p.context ? " " : "", b->p.context ? b->p.context : "");
        return -1;
    }
    return 0;
}

/* Build the node that starts with ev (consumed). NULL on error. */
static struct yt_node *build(struct builder *b, yaml_event_t *ev, int depth)
{
    struct yt_node *n = NULL;
    const yaml_mark_t *mk = &ev->start_mark;
    if (depth > YT_MAX_DEPTH) {
        acct_diags_add(b->d, (int)mk->line + 1, (int)mk->column + 1, NULL,
                       "nesting deeper than %d", YT_MAX_DEPTH);
        goto fail;
    }
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        acct_diags_add(b->d, (int)mk->line + 1, (int)mk->column + 1, NULL,
                       "aliases (*name) are not allowed");
        goto fail;
    case YAML_SCALAR_EVENT:
        if (ev->data.scalar.anchor || (ev->data.scalar.tag && !ev->data.scalar.plain_implicit &&
                                       !ev->data.scalar.quoted_implicit)) {
            acct_diags_add(b->d, (int)mk->line + 1, (int)mk->column + 1, NULL,
                           "anchors and tags are not allowed");
            goto fail;
        }
        if ((n = node_new(b, YT_SCALAR, mk)) == NULL)
            goto fail;
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        n->text = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
        if (n->text == NULL || strlen(n->text) != ev->data.scalar.length) {
            acct_diags_add(b->d, n->line, n->col, NULL, "scalar contains a NUL byte");
            goto fail;
        }
        yaml_event_delete(ev);
        return n;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool map = ev->type == YAML_MAPPING_START_EVENT;
        const yaml_char_t *anchor = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
        if (anchor != NULL) {
            acct_diags_add(b->d, (int)mk->line + 1, (int)mk->column + 1, NULL,
                           "anchors (&name) are not allowed");
            goto fail;
        }
        if ((n = node_new(b, map ? YT_MAP : YT_SEQ, mk)) == NULL)
            goto fail;
        yaml_event_delete(ev);
        for (;;) {
            yaml_event_t e;
            if (next_event(b, &e) != 0)
                goto fail;
            if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&e);
                break;
            }
            struct yt_node *k = build(b, &e, depth + 1);
            if (k == NULL || add_kid(b, n, k) != 0) {
                yt_free(k);
                goto fail;
            }
        }
        return n;
    }
    default:
        acct_diags_add(b->d, (int)mk->line + 1, (int)mk->column + 1, NULL, "unexpected YAML");
        goto fail;
    }
fail:
    yaml_event_delete(ev);
    yt_free(n);
    return NULL;
}

struct yt_node *yt_parse(const char *name, const char *buf, size_t len, struct acct_diags *d)
{
    struct builder b = {.d = d};
    struct yt_node *root = NULL;
    yaml_event_t ev;
    bool started = false;
    acct_diags_reset(d, name);
    if (len > YT_MAX_BYTES) {
        acct_diags_add(d, 0, 0, NULL, "larger than %u bytes", YT_MAX_BYTES);
        goto out;
    }
    if (memchr(buf, 0, len) != NULL) {
        acct_diags_add(d, 0, 0, NULL, "contains a NUL byte (binary file?)");
        goto out;
    }
    if (!yaml_parser_initialize(&b.p)) {
        acct_diags_add(d, 0, 0, NULL, "out of memory");
        goto out;
    }
    started = true;
    yaml_parser_set_input_string(&b.p, (const unsigned char *)buf, len);
    /* stream start, document start (or stream end: empty file) */
    for (;;) {
        if (next_event(&b, &ev) != 0)
            goto out;
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            yaml_mark_t mk = {0, 0, 0};
            root = node_new(&b, YT_MAP, &mk);
            goto out;
        }
        break;
    }
    root = build(&b, &ev, 0);
    if (root == NULL)
        goto out;
    if (root->type != YT_MAP) {
        acct_diags_add(d, root->line, root->col, NULL, "the file must be a mapping (key: value)");
        goto fail;
    }
    /* document end, then nothing but stream end */
    for (;;) {
        if (next_event(&b, &ev) != 0)
            goto fail;
        yaml_event_type_t t = ev.type;
        int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
        yaml_event_delete(&ev);
        if (t == YAML_DOCUMENT_END_EVENT)
            continue;
        if (t == YAML_STREAM_END_EVENT)
            break;
        acct_diags_add(d, line, col, NULL, "more than one YAML document");
        goto fail;
    }
    goto out;
fail:
    yt_free(root);
    root = NULL;
out:
    if (started)
        yaml_parser_delete(&b.p);
    if (root != NULL && d->total > 0) {
        yt_free(root);
        root = NULL;
    }
    return root;
}

int yt_slurp(const char *path, char **out, size_t *len, struct acct_diags *d)
{
    char *buf = NULL;
    struct stat st;
    int rc = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    acct_diags_reset(d, path);
    if (fd < 0 || fstat(fd, &st) != 0) {
        acct_diags_add(d, 0, 0, NULL, "cannot open: %s", strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        acct_diags_add(d, 0, 0, NULL, "not a regular file");
        goto out;
    }
    if (st.st_size > (off_t)YT_MAX_BYTES) {
        acct_diags_add(d, 0, 0, NULL, "larger than %u bytes", YT_MAX_BYTES);
        goto out;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        acct_diags_add(d, 0, 0, NULL, "out of memory");
        goto out;
    }
    size_t have = 0;
    while (have < (size_t)st.st_size) {
        ssize_t k = read(fd, buf + have, (size_t)st.st_size - have);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            acct_diags_add(d, 0, 0, NULL, "cannot read: %s", k < 0 ? strerror(errno) : "short read");
            goto out;
        }
        have += (size_t)k;
    }
    buf[have] = '\0';
    *out = buf;
    *len = have;
    buf = NULL;
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

struct yt_node *yt_parse_file(const char *path, struct acct_diags *d)
{
    char *buf = NULL;
    size_t len = 0;
    struct yt_node *root = NULL;
    if (yt_slurp(path, &buf, &len, d) == 0)
        root = yt_parse(path, buf, len, d);
    free(buf);
    return root;
}

static void join(char *out, size_t cap, const char *field, const char *key)
{
    snprintf(out, cap, "%s%s%s", field, field[0] ? "." : "", key);
}

int yt_check_keys(const struct yt_node *m, const char *field, const char *const *valid,
                  struct acct_diags *d)
{
    int bad = 0;
    char list[512] = "";
    for (size_t i = 0; valid[i] != NULL; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "", valid[i]);
    }
    for (size_t i = 0; i + 1 < m->n; i += 2) {
        const struct yt_node *k = m->kids[i];
        char path[ACCT_DIAG_FIELD_MAX];
        if (k->type != YT_SCALAR) {
            acct_diags_add(d, k->line, k->col, field, "keys must be plain words");
            bad++;
            continue;
        }
        join(path, sizeof(path), field, k->text);
        bool known = false;
        for (size_t j = 0; valid[j] != NULL; j++)
            known |= strcmp(valid[j], k->text) == 0;
        if (!known) {
            acct_diags_add(d, k->line, k->col, path, "unknown key \"%.64s\" (valid: %s)", k->text,
                           list);
            bad++;
        }
        for (size_t j = 0; j < i; j += 2) {
            const struct yt_node *o = m->kids[j];
            if (o->type == YT_SCALAR && strcmp(o->text, k->text) == 0) {
                acct_diags_add(d, k->line, k->col, path, "duplicate key (first at line %d)",
                               o->line);
                bad++;
                break;
            }
        }
    }
    return bad;
}

const struct yt_node *yt_get(const struct yt_node *m, const char *key)
{
    if (m == NULL || m->type != YT_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < m->n; i += 2)
        if (m->kids[i]->type == YT_SCALAR && strcmp(m->kids[i]->text, key) == 0)
            return m->kids[i + 1];
    return NULL;
}

static bool scalar(const struct yt_node *v, const char *field, const char *what,
                   struct acct_diags *d)
{
    if (v->type != YT_SCALAR || (!v->plain && strcmp(what, "a string") != 0)) {
        acct_diags_add(d, v->line, v->col, field, "expected %s", what);
        return false;
    }
    return true;
}

int yt_int(const struct yt_node *v, const char *field, long long min, long long max,
           long long *out, struct acct_diags *d)
{
    if (!scalar(v, field, "an integer", d))
        return -1;
    const char *s = v->text;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
        acct_diags_add(d, v->line, v->col, field, "\"%.64s\" is not an integer", s);
        return -1;
    }
    if (errno == ERANGE || x < min || x > max) {
        acct_diags_add(d, v->line, v->col, field, "%.64s is out of range (%lld to %lld)", s, min,
                       max);
        return -1;
    }
    *out = x;
    return 0;
}

int yt_double(const struct yt_node *v, const char *field, double min, double max, double *out,
              struct acct_diags *d)
{
    if (!scalar(v, field, "a number", d))
        return -1;
    const char *s = v->text;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || !isfinite(x) ||
        !(s[0] == '-' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))) {
        acct_diags_add(d, v->line, v->col, field, "\"%.64s\" is not a number", s);
        return -1;
    }
    if (x < min || x > max) {
        acct_diags_add(d, v->line, v->col, field, "%.64s is out of range (%g to %g)", s, min, max);
        return -1;
    }
    *out = x;
    return 0;
}

int yt_bool(const struct yt_node *v, const char *field, bool *out, struct acct_diags *d)
{
    if (!scalar(v, field, "true or false", d))
        return -1;
    if (strcmp(v->text, "true") == 0)
        *out = true;
    else if (strcmp(v->text, "false") == 0)
        *out = false;
    else {
        acct_diags_add(d, v->line, v->col, field, "\"%.64s\": expected true or false", v->text);
        return -1;
    }
    return 0;
}

int yt_str(const struct yt_node *v, const char *field, bool path, char *out, size_t cap,
           struct acct_diags *d)
{
    if (!scalar(v, field, "a string", d))
        return -1;
    size_t n = strlen(v->text);
    if (n >= cap) {
        acct_diags_add(d, v->line, v->col, field, "longer than %zu characters", cap - 1);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v->text[i] < 0x20 || v->text[i] == 0x7f) {
            acct_diags_add(d, v->line, v->col, field, "contains a control character");
            return -1;
        }
    if (path && v->text[0] != '/') {
        acct_diags_add(d, v->line, v->col, field, "\"%.64s\" is not an absolute path", v->text);
        return -1;
    }
    memcpy(out, v->text, n + 1);
    return 0;
}
