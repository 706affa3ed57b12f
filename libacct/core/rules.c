/* Rules files: parser, validator, canonical writer and per-communicator
 * lookup tables (acct/rules.h; the format is in docs/rules.md).
 *
 * Parsing runs in three stages:
 *   1. bytes:  size limit, not empty, UTF-8 text without control characters;
 *   2. YAML:   libyaml's event API builds a small tree of scalars, lists and
 *              mappings with their line and column (in an arena, with depth
 *              and node limits; anchors, aliases and tags are refused);
 *   3. schema: the tree is walked with a key table per mapping, every
 *              problem is recorded with its field path, and the rules of
 *              each collective are checked for overlaps.
 * Any problem in any stage means no rules. */
#include "acct/rules.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "acct/common.h"
#include "acct/stats.h"

/* YAML nesting the schema needs is 5 (top, collectives, list, rule, range). */
#define MAX_DEPTH 12
/* Nodes of the YAML tree: ~17 per rule at the rule limit, with room. */
#define MAX_NODES (32 * ACCT_RULES_MAX_RULES)
/* Quoted user text in messages is cut after this many bytes. */
#define QUOTE_MAX 48
#define ARENA_CHUNK 65536
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* ======================================================================
 * Diagnostics
 * ====================================================================== */

void acct_diags_free(struct acct_diags *d)
{
    if (d == NULL)
        return;
    free(d->file);
    free(d->v);
    d->file = NULL;
    d->v = NULL;
    d->n = d->cap = d->total = 0;
}

void acct_diags_reset(struct acct_diags *d, const char *file)
{
    if (d == NULL)
        return;
    acct_diags_free(d);
    if (file != NULL)
        d->file = strdup(file); /* NULL on failure: printed as "?" */
}

void acct_diags_add(struct acct_diags *d, int line, int col, const char *field,
                    const char *fmt, ...)
{
    if (d == NULL)
        return;
    d->total++;
    if (d->n >= ACCT_DIAG_MAX)
        return;
    if (d->n == d->cap) {
        size_t ncap = d->cap == 0 ? 8 : d->cap * 2;
        if (ncap > ACCT_DIAG_MAX)
            ncap = ACCT_DIAG_MAX;
        struct acct_diag *nv = realloc(d->v, ncap * sizeof(*nv));
        if (nv == NULL)
            return; /* counted in total, not kept */
        d->v = nv;
        d->cap = ncap;
    }
    struct acct_diag *g = &d->v[d->n++];
    va_list ap;
    g->line = line;
    g->col = col;
    snprintf(g->field, sizeof(g->field), "%s", field != NULL ? field : "");
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
    va_end(ap);
}

int acct_diag_format(const struct acct_diags *d, size_t i, char *buf, size_t len)
{
    if (d == NULL || i >= d->n || buf == NULL || len == 0)
        return -1;
    const struct acct_diag *g = &d->v[i];
    const char *file = d->file != NULL ? d->file : "?";
    const char *sep = g->field[0] != '\0' ? ": " : "";
    if (g->line > 0)
        snprintf(buf, len, "%s:%d:%d: %s%s%s", file, g->line, g->col, g->field, sep, g->msg);
    else
        snprintf(buf, len, "%s: %s%s%s", file, g->field, sep, g->msg);
    return 0;
}

void acct_diags_print(const struct acct_diags *d, FILE *f)
{
    char line[ACCT_DIAG_FIELD_MAX + ACCT_DIAG_MSG_MAX + 512];
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++) {
        acct_diag_format(d, i, line, sizeof(line));
        fprintf(f, "%s\n", line);
    }
    if (d->total > d->n)
        fprintf(f, "%s: %zu more error%s not shown\n", d->file != NULL ? d->file : "?",
                d->total - d->n, d->total - d->n == 1 ? "" : "s");
}

/* ======================================================================
 * Small helpers
 * ====================================================================== */

/* "text" with quotes, control and non-ASCII bytes as \xNN, cut after
 * QUOTE_MAX bytes with "..." appended. Always NUL-terminates buf. */
static const char *quote(char *buf, size_t len, const char *s, size_t n)
{
    size_t o = 0;
    if (len < 8) {
        if (len > 0)
            buf[0] = '\0';
        return buf;
    }
    buf[o++] = '"';
    for (size_t i = 0; i < n && i < QUOTE_MAX && o + 8 < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
        else
            buf[o++] = (char)ch;
    }
    if (n > QUOTE_MAX && o + 5 < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

/* Append the registry names of coll's algorithms, comma-separated. */
static void alg_names(enum acct_coll_id coll, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const struct acct_alg *a = acct_algs; a->name != NULL && o < len; a++) {
        if (a->coll != coll)
            continue;
        int k = snprintf(buf + o, len - o, "%s%s", o > 0 ? ", " : "", a->name);
        if (k < 0)
            break;
        o += (size_t)k;
    }
}

const char *acct_unknown_alg_msg(enum acct_coll_id coll, const char *name, size_t name_len,
                                 char *buf, size_t len)
{
    char q[QUOTE_MAX * 4 + 16];
    char names[400];
    alg_names(coll, names, sizeof(names));
    snprintf(buf, len, "unknown %s algorithm %s (valid: %s)", acct_coll_name(coll),
             quote(q, sizeof(q), name, name_len), names);
    return buf;
}

const char *acct_check_segment(const struct acct_alg *alg, uint64_t segment, char *buf,
                               size_t len)
{
    if (!(alg->flags & ACCT_ALG_SEGMENTED)) {
        snprintf(buf, len, "%s %s does not take a segment size (not a segmented algorithm)",
                 acct_coll_name(alg->coll), alg->name);
        return buf;
    }
    if (segment > ACCT_RULES_MAX_SEGMENT) {
        snprintf(buf, len, "segment of %" PRIu64 " bytes is larger than the limit of 1G",
                 segment);
        return buf;
    }
    return NULL;
}

const char *acct_check_fanout(const struct acct_alg *alg, long long fanout, char *buf,
                              size_t len)
{
    if (!(alg->flags & ACCT_ALG_FANOUT)) {
        snprintf(buf, len, "%s %s does not take a fan-out", acct_coll_name(alg->coll),
                 alg->name);
        return buf;
    }
    if (fanout < alg->fanout_min || fanout > alg->fanout_max) {
        snprintf(buf, len, "fan-out %lld is out of range for %s %s (%d to %d)", fanout,
                 acct_coll_name(alg->coll), alg->name, alg->fanout_min, alg->fanout_max);
        return buf;
    }
    return NULL;
}

const char *acct_check_reorder(const struct acct_alg *alg, bool reorder, char *buf,
                               size_t len)
{
    if (reorder && (alg->flags & ACCT_ALG_NATIVE)) {
        snprintf(buf, len, "reorder needs an ACCT algorithm: %s native cannot be reordered",
                 acct_coll_name(alg->coll));
        return buf;
    }
    return NULL;
}

bool acct_decision_equal(const struct acct_decision *a, const struct acct_decision *b)
{
    return a->alg == b->alg && a->segment_bytes == b->segment_bytes &&
           a->fanout == b->fanout && a->reorder == b->reorder;
}

int acct_decision_format(const struct acct_decision *d, char *buf, size_t len)
{
    char seg[ACCT_SIZE_FORMAT_LEN] = "";
    const char *name = d->alg != NULL ? d->alg->name : "native";
    const char *ro = d->reorder ? ",reorder" : "";
    if (d->segment_bytes != 0)
        acct_size_format(d->segment_bytes, seg, sizeof(seg));
    if (d->fanout != 0) /* "knomial::4": an empty segment is "not given" */
        return snprintf(buf, len, "%s:%s:%d%s", name, d->segment_bytes != 0 ? seg : "",
                        d->fanout, ro);
    if (d->segment_bytes != 0)
        return snprintf(buf, len, "%s:%s%s", name, seg, ro);
    return snprintf(buf, len, "%s%s", name, ro);
}

static const char *const source_names[] = {
    [ACCT_SOURCE_MEASURED] = "measured",
    [ACCT_SOURCE_MODEL] = "model",
    [ACCT_SOURCE_REFINED] = "refined",
    [ACCT_SOURCE_MANUAL] = "manual",
};

static const char *const placement_names[] = {
    [ACCT_PLACEMENT_NONE] = "none",
    [ACCT_PLACEMENT_BLOCK] = "block",
    [ACCT_PLACEMENT_CYCLIC] = "cyclic",
    [ACCT_PLACEMENT_MIXED] = "mixed",
};

const char *acct_rules_source_name(enum acct_rules_source s)
{
    return (unsigned)s < ACCT_ARRAY_LEN(source_names) ? source_names[s] : "?";
}

const char *acct_placement_name(enum acct_placement p)
{
    return (unsigned)p < ACCT_ARRAY_LEN(placement_names) ? placement_names[p] : "?";
}

uint64_t acct_rules_hash(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* ======================================================================
 * The YAML tree
 * ====================================================================== */

struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[]; /* cap bytes */
};

struct arena {
    struct chunk *head;
};

static void *arena_alloc(struct arena *a, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    struct chunk *c = a->head;
    if (c == NULL || c->cap - c->used < size) {
        size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        c = malloc(sizeof(*c) + cap);
        if (c == NULL)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    return p;
}

static void arena_free(struct arena *a)
{
    while (a->head != NULL) {
        struct chunk *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
    enum ykind kind;
    int line, col;
    bool plain;      /* scalar written without quotes or block style */
    const char *s;   /* scalar text, NUL-terminated, no control characters */
    size_t len;
    struct ynode *first, *last, *next; /* children; a mapping's alternate key, value */
    size_t n;        /* children */
};

/* Everything one parse needs. */
struct pctx {
    const char *buf;
    size_t len;
    struct acct_diags *diags;
    size_t errors;     /* problems found (diags may be NULL) */
    bool nomem;
    struct arena arena;
    size_t nodes;
    struct acct_rules *r;
    size_t caps[ACCT_COLL_COUNT];
    size_t rules_seen; /* rules met in the file, valid or not */
    /* per collective, the file index of each kept rule (for messages) */
    size_t *index[ACCT_COLL_COUNT];
};

static void err(struct pctx *c, int line, int col, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void err(struct pctx *c, int line, int col, const char *field, const char *fmt, ...)
{
    char msg[ACCT_DIAG_MSG_MAX];
    va_list ap;
    c->errors++;
    if (c->diags == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    acct_diags_add(c->diags, line, col, field, "%s", msg);
}

#define ERR_AT(c, node, field, ...) err((c), (node)->line, (node)->col, (field), __VA_ARGS__)

static void oom(struct pctx *c)
{
    if (!c->nomem)
        err(c, 0, 0, NULL, "out of memory");
    c->nomem = true;
}

/* Line and column (from 1, in characters) of byte offset off. */
static void position(const char *buf, size_t off, int *line, int *col)
{
    int l = 1, k = 1;
    for (size_t i = 0; i < off; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch == '\n') {
            l++;
            k = 1;
        } else if ((ch & 0xc0) != 0x80) {
            k++;
        }
    }
    *line = l;
    *col = k;
}

/* Stage 1: the bytes are UTF-8 text of the characters YAML allows (tab, LF,
 * CR and printable ones). Returns false after reporting the first bad byte. */
static bool check_text(struct pctx *c)
{
    const unsigned char *p = (const unsigned char *)c->buf;
    size_t i = 0, n = c->len;
    while (i < n) {
        unsigned ch = p[i];
        size_t k = 0;
        uint32_t cp = 0;
        const char *what = NULL;
        if (ch < 0x80) {
            if (ch == 0)
                what = "binary data (a NUL byte): not a rules file";
            else if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f)
                what = "control character";
            k = 1;
            cp = ch;
        } else if (ch >= 0xc2 && ch <= 0xdf) {
            k = 2;
            cp = ch & 0x1f;
        } else if (ch >= 0xe0 && ch <= 0xef) {
            k = 3;
            cp = ch & 0x0f;
        } else if (ch >= 0xf0 && ch <= 0xf4) {
            k = 4;
            cp = ch & 0x07;
        } else {
            what = "invalid UTF-8";
            k = 1;
        }
        if (what == NULL && k > 1) {
            if (i + k > n) {
                what = "invalid UTF-8 (truncated character)";
            } else {
                for (size_t j = 1; j < k; j++) {
                    if ((p[i + j] & 0xc0) != 0x80) {
                        what = "invalid UTF-8";
                        break;
                    }
                    cp = (cp << 6) | (p[i + j] & 0x3f);
                }
            }
            if (what == NULL &&
                ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
                 (cp >= 0xd800 && cp <= 0xdfff)))
                what = "invalid UTF-8";
            if (what == NULL && ((cp >= 0x80 && cp <= 0x9f && cp != 0x85) || cp == 0xfffe ||
                                 cp == 0xffff))
                what = "control character";
        }
        if (what != NULL) {
            int line, col;
            position(c->buf, i, &line, &col);
            err(c, line, col, NULL, "%s (byte 0x%02x at offset %zu)", what, ch, i);
            return false;
        }
        i += k;
    }
    return true;
}

static struct ynode *new_node(struct pctx *c, enum ykind kind, const yaml_mark_t *m)
{
    struct ynode *y;
    if (++c->nodes > MAX_NODES) {
        err(c, (int)m->line + 1, (int)m->column + 1, NULL,
            "too many YAML values (more than %d): not a rules file", MAX_NODES);
        return NULL;
    }
    y = arena_alloc(&c->arena, sizeof(*y));
    if (y == NULL) {
        oom(c);
        return NULL;
    }
    memset(y, 0, sizeof(*y));
    y->kind = kind;
    y->line = (int)(m->line > INT_MAX - 1 ? INT_MAX - 1 : m->line) + 1;
    y->col = (int)(m->column > INT_MAX - 1 ? INT_MAX - 1 : m->column) + 1;
    return y;
}

static void add_child(struct ynode *parent, struct ynode *child)
{
    if (parent->last != NULL)
        parent->last->next = child;
    else
        parent->first = child;
    parent->last = child;
    parent->n++;
}

/* Report libyaml's error. */
static void yaml_error(struct pctx *c, const yaml_parser_t *p)
{
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    const char *problem = p->problem != NULL ? p->problem : "unknown error";
    if (p->error == YAML_MEMORY_ERROR) {
        oom(c);
        return;
    }
    if (p->error == YAML_READER_ERROR) {
        position(c->buf, p->problem_offset < c->len ? p->problem_offset : c->len, &line, &col);
    } else {
        /* At the end of the input libyaml's mark is on a line after the
         * last one: point at the real end instead. */
        int eline, ecol;
        position(c->buf, c->len, &eline, &ecol);
        if (line > eline || (line == eline && col > ecol)) {
            line = eline;
            col = ecol;
        }
    }
    if (p->context != NULL)
        err(c, line, col, NULL, "YAML syntax error: %s (%s at line %d, column %d)", problem,
            p->context, (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
    else
        err(c, line, col, NULL, "YAML syntax error: %s", problem);
}

/* Stage 2: the tree of the (single) document, or NULL after reporting. */
static struct ynode *build_tree(struct pctx *c)
{
    yaml_parser_t p;
    struct ynode *stack[MAX_DEPTH];
    int depth = 0, docs = 0;
    struct ynode *root = NULL;
    bool done = false, failed = false;

    if (!yaml_parser_initialize(&p)) {
        oom(c);
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)c->buf, c->len);
    yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
    while (!done && !failed) {
        yaml_event_t ev;
        struct ynode *y = NULL;
        const char *anchor = NULL, *tag = NULL;
        if (!yaml_parser_parse(&p, &ev)) {
            yaml_error(c, &p);
            failed = true;
            break;
        }
        const yaml_mark_t *m = &ev.start_mark;
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1) {
                err(c, (int)m->line + 1, (int)m->column + 1, NULL,
                    "a rules file holds one YAML document; a second one starts here");
                failed = true;
            }
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_ALIAS_EVENT:
            err(c, (int)m->line + 1, (int)m->column + 1, NULL,
                "YAML aliases (*name) are not allowed in rules files");
            y = new_node(c, Y_SCALAR, m); /* stands for the value: a null */
            if (y != NULL) {
                y->s = "";
                y->plain = true;
            }
            break;
        case YAML_SCALAR_EVENT:
            anchor = (const char *)ev.data.scalar.anchor;
            tag = (const char *)ev.data.scalar.tag;
            y = new_node(c, Y_SCALAR, m);
            if (y == NULL)
                break;
            {
                size_t len = ev.data.scalar.length;
                char *s = arena_alloc(&c->arena, len + 1);
                if (s == NULL) {
                    oom(c);
                    y = NULL;
                    break;
                }
                memcpy(s, ev.data.scalar.value, len);
                s[len] = '\0';
                y->s = s;
                y->len = len;
                y->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                for (size_t i = 0; i < len; i++) {
                    unsigned char ch = (unsigned char)s[i];
                    if (ch < 0x20 || ch == 0x7f) {
                        err(c, y->line, y->col, NULL,
                            "value contains a control character or line break");
                        break;
                    }
                }
            }
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (ev.type == YAML_SEQUENCE_START_EVENT) {
                anchor = (const char *)ev.data.sequence_start.anchor;
                tag = (const char *)ev.data.sequence_start.tag;
            } else {
                anchor = (const char *)ev.data.mapping_start.anchor;
                tag = (const char *)ev.data.mapping_start.tag;
            }
            if (depth >= MAX_DEPTH) {
                err(c, (int)m->line + 1, (int)m->column + 1, NULL,
                    "YAML nested deeper than %d levels: not a rules file", MAX_DEPTH);
                failed = true;
                break;
            }
            y = new_node(c, ev.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP, m);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0)
                depth--;
            break;
        default:
            break;
        }
        if (anchor != NULL)
            err(c, (int)m->line + 1, (int)m->column + 1, NULL,
                "YAML anchors (&name) are not allowed in rules files");
        if (tag != NULL)
            err(c, (int)m->line + 1, (int)m->column + 1, NULL,
                "YAML tags (!tag) are not allowed in rules files");
        if (y != NULL) {
            if (depth > 0)
                add_child(stack[depth - 1], y);
            else if (root == NULL)
                root = y;
            if (y->kind != Y_SCALAR)
                stack[depth++] = y;
        } else if (c->nomem || c->nodes > MAX_NODES) {
            failed = true;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (failed)
        return NULL;
    if (root == NULL)
        err(c, 1, 1, NULL, "no YAML document: the file holds only blanks and comments");
    return root;
}

/* ======================================================================
 * Stage 3: the schema
 * ====================================================================== */

static bool is_null(const struct ynode *y)
{
    if (y->kind != Y_SCALAR || !y->plain)
        return false;
    return y->len == 0 || strcmp(y->s, "~") == 0 || strcmp(y->s, "null") == 0 ||
           strcmp(y->s, "Null") == 0 || strcmp(y->s, "NULL") == 0;
}

static const char *describe(const struct ynode *y, char *buf, size_t len)
{
    char q[QUOTE_MAX * 4 + 16];
    if (y->kind == Y_SEQ)
        return "a list";
    if (y->kind == Y_MAP)
        return "a mapping";
    if (is_null(y))
        return "nothing";
    snprintf(buf, len, "%s%s", y->plain ? "" : "the quoted string ",
             quote(q, sizeof(q), y->s, y->len));
    return buf;
}

/* Field path helpers: "parent.key" or "key" at the top. */
static void join(char *out, size_t len, const char *parent, const char *key, size_t klen)
{
    char k[QUOTE_MAX + 4];
    size_t n = 0;
    for (size_t i = 0; i < klen && i < QUOTE_MAX; i++) {
        unsigned char ch = (unsigned char)key[i];
        k[n++] = (ch > 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    k[n] = '\0';
    snprintf(out, len, "%s%s%s", parent, parent[0] != '\0' ? "." : "", k);
}

/* An unsigned or negative decimal integer, plain. *out gets the value; false
 * (after reporting) if the scalar is not an integer or beyond int64. */
static bool get_int(struct pctx *c, const struct ynode *y, const char *field,
                    const char *what, long long *out)
{
    char d[QUOTE_MAX * 4 + 48];
    const char *s = y->s;
    bool neg = false;
    unsigned long long v = 0;

    if (y->kind != Y_SCALAR || is_null(y) || !y->plain) {
        ERR_AT(c, y, field, "expected %s, got %s", what, describe(y, d, sizeof(d)));
        return false;
    }
    if (*s == '-') {
        neg = true;
        s++;
    }
    if (*s == '\0')
        goto bad;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            goto bad;
        if (v > (ULLONG_MAX - 9) / 10) {
            ERR_AT(c, y, field, "%s is too large", describe(y, d, sizeof(d)));
            return false;
        }
        v = v * 10 + (unsigned)(*s - '0');
    }
    if (v > (unsigned long long)LLONG_MAX) {
        ERR_AT(c, y, field, "%s is too large", describe(y, d, sizeof(d)));
        return false;
    }
    *out = neg ? -(long long)v : (long long)v;
    return true;
bad:
    ERR_AT(c, y, field, "expected %s, got %s", what, describe(y, d, sizeof(d)));
    return false;
}

/* An integer in [lo, hi]; "max" stands for hi if allow_max. */
static bool get_int_in(struct pctx *c, const struct ynode *y, const char *field,
                       const char *what, long long lo, long long hi, bool allow_max,
                       long long *out)
{
    long long v;
    if (allow_max && y->kind == Y_SCALAR && y->plain && strcmp(y->s, "max") == 0) {
        *out = hi;
        return true;
    }
    if (!get_int(c, y, field, what, &v))
        return false;
    if (v < lo) {
        ERR_AT(c, y, field, "%lld is too small: the minimum is %lld", v, lo);
        return false;
    }
    if (v > hi) {
        ERR_AT(c, y, field, "%lld is too large: the maximum is %lld", v, hi);
        return false;
    }
    *out = v;
    return true;
}

/* A byte size: 0, or digits with an optional unit (acct_size_parse); "max"
 * is UINT64_MAX if allow_max. */
static bool get_size(struct pctx *c, const struct ynode *y, const char *field,
                     bool allow_max, uint64_t *out)
{
    char d[QUOTE_MAX * 4 + 48];
    char e[256];
    const char *s = y->s;

    if (y->kind != Y_SCALAR || is_null(y) || !y->plain) {
        ERR_AT(c, y, field, "expected a size in bytes such as 0, 8191 or 64K, got %s",
               describe(y, d, sizeof(d)));
        return false;
    }
    if (strcmp(s, "max") == 0) {
        if (!allow_max) {
            ERR_AT(c, y, field, "\"max\" is only allowed as the upper bound of a range");
            return false;
        }
        *out = UINT64_MAX;
        return true;
    }
    if (s[0] == '-') {
        ERR_AT(c, y, field, "%s is negative: sizes are 0 or more bytes",
               describe(y, d, sizeof(d)));
        return false;
    }
    if (strspn(s, "0") == y->len) { /* "0", "00": zero bytes */
        *out = 0;
        return true;
    }
    if (acct_size_parse(s, out, e, sizeof(e)) != ACCT_STATS_OK) {
        ERR_AT(c, y, field, "%s", e);
        return false;
    }
    return true;
}

enum range_kind { RANGE_COMM, RANGE_BYTES, RANGE_RANKS };

static const char *const range_what[] = {
    [RANGE_COMM] = "a communicator size (integer >= 1)",
    [RANGE_BYTES] = "a size in bytes",
    [RANGE_RANKS] = "a number of ranks (integer >= 1)",
};

/* One bound of a range. */
static bool get_bound(struct pctx *c, const struct ynode *y, const char *field,
                      enum range_kind kind, bool allow_max, uint64_t *out)
{
    long long x = 0;
    if (kind == RANGE_BYTES)
        return get_size(c, y, field, allow_max, out);
    if (!get_int_in(c, y, field, range_what[kind], 1, INT_MAX, allow_max, &x))
        return false;
    *out = (uint64_t)x;
    return true;
}

/* A range: one value, or a list [min, max] with min <= max ("max" allowed
 * as the upper bound of a list). */
static bool get_range(struct pctx *c, const struct ynode *y, const char *field,
                      enum range_kind kind, uint64_t *lo, uint64_t *hi)
{
    char d[QUOTE_MAX * 4 + 48];
    uint64_t a = 0, b = 0;
    bool ok;

    if (y->kind == Y_MAP || is_null(y)) {
        ERR_AT(c, y, field, "expected %s or a range [min, max], got %s", range_what[kind],
               describe(y, d, sizeof(d)));
        return false;
    }
    if (y->kind == Y_SCALAR) {
        ok = get_bound(c, y, field, kind, false, &a);
        b = a;
    } else if (y->n != 2) {
        ERR_AT(c, y, field, "expected a range [min, max] of two values, got %zu value%s",
               y->n, y->n == 1 ? "" : "s");
        return false;
    } else {
        ok = get_bound(c, y->first, field, kind, false, &a);
        ok = get_bound(c, y->first->next, field, kind, true, &b) && ok;
    }
    if (ok && a > b) {
        ERR_AT(c, y, field, "range minimum %" PRIu64 " is larger than its maximum %" PRIu64,
               a, b);
        ok = false;
    }
    if (ok) {
        *lo = a;
        *hi = b;
    }
    return ok;
}

static bool get_bool(struct pctx *c, const struct ynode *y, const char *field, bool *out)
{
    char d[QUOTE_MAX * 4 + 48];
    if (y->kind == Y_SCALAR && y->plain && strcmp(y->s, "true") == 0) {
        *out = true;
        return true;
    }
    if (y->kind == Y_SCALAR && y->plain && strcmp(y->s, "false") == 0) {
        *out = false;
        return true;
    }
    ERR_AT(c, y, field, "expected true or false, got %s", describe(y, d, sizeof(d)));
    return false;
}

/* A non-empty scalar of up to max characters from [A-Za-z0-9._+-]. */
static bool get_name(struct pctx *c, const struct ynode *y, const char *field, size_t max,
                     char *out)
{
    char d[QUOTE_MAX * 4 + 48];
    if (y->kind != Y_SCALAR || is_null(y)) {
        ERR_AT(c, y, field, "expected a name, got %s", describe(y, d, sizeof(d)));
        return false;
    }
    if (y->len == 0 || y->len > max) {
        ERR_AT(c, y, field, "%s must have 1 to %zu characters", describe(y, d, sizeof(d)),
               max);
        return false;
    }
    for (size_t i = 0; i < y->len; i++) {
        char ch = y->s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '+' || ch == '-')) {
            ERR_AT(c, y, field, "%s may only contain letters, digits and . _ + -",
                   describe(y, d, sizeof(d)));
            return false;
        }
    }
    memcpy(out, y->s, y->len + 1);
    return true;
}

/* One of words[0..n) (skipping NULL entries); *out gets its index. */
static bool get_word(struct pctx *c, const struct ynode *y, const char *field,
                     const char *what, const char *const *words, size_t n, int first,
                     int *out)
{
    char d[QUOTE_MAX * 4 + 48];
    char list[256] = "";
    size_t o = 0;
    if (y->kind == Y_SCALAR && !is_null(y)) {
        for (size_t i = (size_t)first; i < n; i++) {
            if (strcmp(y->s, words[i]) == 0) {
                *out = (int)i;
                return true;
            }
        }
    }
    for (size_t i = (size_t)first; i < n && o < sizeof(list); i++)
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o > 0 ? ", " : "", words[i]);
    ERR_AT(c, y, field, "unknown %s %s (valid: %s)", what, describe(y, d, sizeof(d)), list);
    return false;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "YYYY-MM-DDTHH:MM:SSZ", a real UTC date and time from 1970 on. */
static bool get_time(struct pctx *c, const struct ynode *y, const char *field, char *out)
{
    char d[QUOTE_MAX * 4 + 48];
    static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int v[6] = { 0 };
    bool ok = y->kind == Y_SCALAR && y->len == ACCT_RULES_TIME_LEN;

    for (size_t i = 0; ok && i < ACCT_RULES_TIME_LEN; i++) {
        if (pattern[i] == 'd')
            ok = y->s[i] >= '0' && y->s[i] <= '9';
        else
            ok = y->s[i] == pattern[i];
    }
    if (ok) {
        static const int at[] = { 0, 5, 8, 11, 14, 17 }, width[] = { 4, 2, 2, 2, 2, 2 };
        for (int f = 0; f < 6; f++)
            for (int k = 0; k < width[f]; k++)
                v[f] = v[f] * 10 + (y->s[at[f] + k] - '0');
        ok = v[0] >= 1970 && v[1] >= 1 && v[1] <= 12 && v[2] >= 1 &&
             v[2] <= mdays[v[1] - 1] + (v[1] == 2 && leap(v[0])) && v[3] <= 23 &&
             v[4] <= 59 && v[5] <= 59;
    }
    if (!ok) {
        ERR_AT(c, y, field,
               "expected a UTC date and time \"YYYY-MM-DDTHH:MM:SSZ\" (ISO 8601), got %s",
               describe(y, d, sizeof(d)));
        return false;
    }
    memcpy(out, y->s, ACCT_RULES_TIME_LEN + 1);
    return true;
}

struct keydef {
    const char *name;
    bool required;
};

/* Edit distance (insert, delete, substitute, swap neighbours) of two short
 * words; large for long ones. */
static size_t distance(const char *a, size_t la, const char *b)
{
    enum { W = 40 };
    size_t lb = strlen(b);
    size_t d[W + 1][W + 1];
    if (la > W || lb > W)
        return W;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* ' (did you mean "x"?)' for the closest of defs within 2 edits, or "". */
static const char *suggest(const char *word, size_t len, const struct keydef *defs,
                           size_t ndefs, char *buf, size_t blen)
{
    size_t best = 3;
    const char *name = NULL;
    for (size_t i = 0; i < ndefs; i++) {
        size_t dd = distance(word, len, defs[i].name);
        if (dd < best) {
            best = dd;
            name = defs[i].name;
        }
    }
    if (name == NULL)
        return "";
    snprintf(buf, blen, " (did you mean \"%s\"?)", name);
    return buf;
}

/* Check a mapping's keys against defs: vals[i] gets the value of defs[i]
 * (NULL if absent). Reports a non-mapping, keys that are not scalars,
 * unknown and duplicate keys (naming the first one's line) and missing
 * required keys. Returns false if y is not a mapping. */
static bool walk_map(struct pctx *c, const struct ynode *y, const char *path,
                     const char *noun, const struct keydef *defs, size_t ndefs,
                     const struct ynode **vals, const struct ynode **keys)
{
    char field[ACCT_DIAG_FIELD_MAX];
    char d[QUOTE_MAX * 4 + 48];
    char list[400];
    size_t o = 0;

    for (size_t i = 0; i < ndefs; i++)
        vals[i] = keys[i] = NULL;
    list[0] = '\0';
    for (size_t i = 0; i < ndefs && o < sizeof(list); i++)
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i > 0 ? ", " : "",
                              defs[i].name);
    if (y->kind != Y_MAP) {
        ERR_AT(c, y, path[0] != '\0' ? path : NULL, "expected a mapping with keys %s, got %s",
               list, describe(y, d, sizeof(d)));
        return false;
    }
    for (const struct ynode *k = y->first; k != NULL; k = k->next != NULL ? k->next->next : NULL) {
        const struct ynode *v = k->next;
        size_t i;
        if (k->kind != Y_SCALAR || is_null(k)) {
            ERR_AT(c, k, path[0] != '\0' ? path : NULL, "expected a key (%s), got %s", list,
                   describe(k, d, sizeof(d)));
            continue;
        }
        join(field, sizeof(field), path, k->s, k->len);
        for (i = 0; i < ndefs; i++)
            if (strcmp(k->s, defs[i].name) == 0)
                break;
        if (i == ndefs) {
            char hint[64];
            ERR_AT(c, k, field, "unknown %s %s%s (valid: %s)", noun, describe(k, d, sizeof(d)),
                   suggest(k->s, k->len, defs, ndefs, hint, sizeof(hint)), list);
            continue;
        }
        if (keys[i] != NULL) {
            ERR_AT(c, k, field, "duplicate %s %s (first at line %d)", noun,
                   describe(k, d, sizeof(d)), keys[i]->line);
            continue;
        }
        keys[i] = k;
        vals[i] = v;
    }
    for (size_t i = 0; i < ndefs; i++) {
        if (defs[i].required && vals[i] == NULL) {
            join(field, sizeof(field), path, defs[i].name, strlen(defs[i].name));
            ERR_AT(c, y, field, "required key \"%s\" is missing", defs[i].name);
        }
    }
    return true;
}

/* ---- provenance ---------------------------------------------------------- */

enum { P_PARTITION, P_INTERCONNECT, P_VERSION, P_SOURCE, P_CREATED, P_RUN, P_LAYOUT, P_N };
static const struct keydef prov_keys[P_N] = {
    [P_PARTITION] = { "partition", true },  [P_INTERCONNECT] = { "interconnect", true },
    [P_VERSION] = { "version", true },      [P_SOURCE] = { "source", true },
    [P_CREATED] = { "created", true },      [P_RUN] = { "tuning_run", false },
    [P_LAYOUT] = { "layout", false },
};

enum { L_RPN, L_PLACEMENT, L_N };
static const struct keydef layout_keys[L_N] = {
    [L_RPN] = { "ranks_per_node", false },
    [L_PLACEMENT] = { "placement", false },
};

static void walk_layout(struct pctx *c, const struct ynode *y, struct acct_provenance *p)
{
    const struct ynode *v[L_N], *k[L_N];
    if (!walk_map(c, y, "provenance.layout", "key", layout_keys, L_N, v, k))
        return;
    if (v[L_RPN] != NULL) {
        uint64_t lo, hi;
        if (get_range(c, v[L_RPN], "provenance.layout.ranks_per_node", RANGE_RANKS, &lo, &hi)) {
            p->ranks_per_node_min = (int)lo;
            p->ranks_per_node_max = (int)hi;
        }
    }
    if (v[L_PLACEMENT] != NULL) {
        int w;
        if (get_word(c, v[L_PLACEMENT], "provenance.layout.placement", "placement",
                     placement_names, ACCT_ARRAY_LEN(placement_names), ACCT_PLACEMENT_BLOCK, &w))
            p->placement = (enum acct_placement)w;
    }
}

static void walk_provenance(struct pctx *c, const struct ynode *y)
{
    const struct ynode *v[P_N], *k[P_N];
    struct acct_provenance *p = &c->r->prov;
    long long ver;
    int w;

    if (!walk_map(c, y, "provenance", "key", prov_keys, P_N, v, k))
        return;
    if (v[P_PARTITION] != NULL)
        get_name(c, v[P_PARTITION], "provenance.partition", ACCT_RULES_NAME_MAX, p->partition);
    if (v[P_INTERCONNECT] != NULL)
        get_name(c, v[P_INTERCONNECT], "provenance.interconnect", ACCT_RULES_NAME_MAX,
                 p->interconnect);
    if (v[P_VERSION] != NULL &&
        get_int_in(c, v[P_VERSION], "provenance.version", "a version number (integer >= 1)", 1,
                   INT64_MAX, false, &ver))
        p->version = ver;
    if (v[P_SOURCE] != NULL && get_word(c, v[P_SOURCE], "provenance.source", "source",
                                        source_names, ACCT_ARRAY_LEN(source_names), 0, &w))
        p->source = (enum acct_rules_source)w;
    if (v[P_CREATED] != NULL)
        get_time(c, v[P_CREATED], "provenance.created", p->created);
    if (v[P_RUN] != NULL)
        get_name(c, v[P_RUN], "provenance.tuning_run", ACCT_RULES_RUN_MAX, p->tuning_run);
    if (v[P_LAYOUT] != NULL)
        walk_layout(c, v[P_LAYOUT], p);
}

/* ---- rules --------------------------------------------------------------- */

enum { R_COMM, R_BYTES, R_ALG, R_SEGMENT, R_FANOUT, R_REORDER, R_N };
static const struct keydef rule_keys[R_N] = {
    [R_COMM] = { "comm_size", true }, [R_BYTES] = { "bytes", false },
    [R_ALG] = { "algorithm", true },  [R_SEGMENT] = { "segment", false },
    [R_FANOUT] = { "fanout", false }, [R_REORDER] = { "reorder", false },
};

static bool push_rule(struct pctx *c, enum acct_coll_id coll, const struct acct_rule *rule,
                      size_t index)
{
    struct acct_rule_list *l = &c->r->coll[coll];
    if (l->n == c->caps[coll]) {
        size_t ncap = c->caps[coll] == 0 ? 8 : c->caps[coll] * 2;
        struct acct_rule *nv = realloc(l->v, ncap * sizeof(*nv));
        size_t *ni = realloc(c->index[coll], ncap * sizeof(*ni));
        if (nv != NULL)
            l->v = nv;
        if (ni != NULL)
            c->index[coll] = ni;
        if (nv == NULL || ni == NULL) {
            oom(c);
            return false;
        }
        c->caps[coll] = ncap;
    }
    c->index[coll][l->n] = index;
    l->v[l->n++] = *rule;
    return true;
}

/* One rule. Every problem is reported; the file's error count (not this
 * function) keeps a file with any problem from being accepted. A rule whose
 * ranges are valid is kept for the overlap check even if its decision is
 * not, so that overlaps are reported too. */
static void walk_rule(struct pctx *c, enum acct_coll_id coll, const struct ynode *y,
                      size_t index)
{
    char path[ACCT_DIAG_FIELD_MAX], field[ACCT_DIAG_FIELD_MAX];
    char msg[ACCT_DIAG_MSG_MAX];
    char d[QUOTE_MAX * 4 + 48];
    const struct ynode *v[R_N], *k[R_N];
    struct acct_rule rule = { .bytes_min = 0, .bytes_max = UINT64_MAX };
    const struct acct_alg *alg = NULL;
    uint64_t lo = 0, hi = 0;
    bool ranges_ok;

    snprintf(path, sizeof(path), "collectives.%s[%zu]", acct_coll_name(coll), index);
    rule.line = y->line;
    rule.col = y->col;
    if (!walk_map(c, y, path, "key", rule_keys, R_N, v, k))
        return;
    ranges_ok = v[R_COMM] != NULL;
#define FIELD(key) (join(field, sizeof(field), path, key, strlen(key)), field)
    if (v[R_COMM] != NULL) {
        ranges_ok = get_range(c, v[R_COMM], FIELD("comm_size"), RANGE_COMM, &lo, &hi);
        rule.comm_min = (int)lo;
        rule.comm_max = (int)hi;
    }
    if (v[R_BYTES] != NULL) {
        if (get_range(c, v[R_BYTES], FIELD("bytes"), RANGE_BYTES, &lo, &hi)) {
            rule.bytes_min = lo;
            rule.bytes_max = hi;
        } else {
            ranges_ok = false;
        }
    }
    if (v[R_ALG] != NULL) {
        const struct ynode *a = v[R_ALG];
        if (a->kind != Y_SCALAR || is_null(a))
            ERR_AT(c, a, FIELD("algorithm"), "expected an algorithm name, got %s",
                   describe(a, d, sizeof(d)));
        else if ((alg = acct_alg_find(coll, a->s)) == NULL)
            ERR_AT(c, a, FIELD("algorithm"), "%s",
                   acct_unknown_alg_msg(coll, a->s, a->len, msg, sizeof(msg)));
    }
    rule.d.alg = alg;
    /* The parameters are checked against the algorithm only when it is
     * known; their own syntax always. */
    if (v[R_SEGMENT] != NULL) {
        uint64_t seg = 0;
        if (get_size(c, v[R_SEGMENT], FIELD("segment"), false, &seg) && alg != NULL &&
            acct_check_segment(alg, seg, msg, sizeof(msg)) != NULL)
            ERR_AT(c, v[R_SEGMENT], field, "%s", msg);
        rule.d.segment_bytes = seg;
    }
    if (v[R_FANOUT] != NULL) {
        long long f = 0;
        if (get_int(c, v[R_FANOUT], FIELD("fanout"), "a fan-out (integer)", &f) &&
            alg != NULL && acct_check_fanout(alg, f, msg, sizeof(msg)) != NULL)
            ERR_AT(c, v[R_FANOUT], field, "%s", msg);
        rule.d.fanout = (f >= INT_MIN && f <= INT_MAX) ? (int)f : 0;
    }
    if (v[R_REORDER] != NULL) {
        bool ro = false;
        if (get_bool(c, v[R_REORDER], FIELD("reorder"), &ro) && alg != NULL &&
            acct_check_reorder(alg, ro, msg, sizeof(msg)) != NULL)
            ERR_AT(c, v[R_REORDER], field, "%s", msg);
        rule.d.reorder = ro;
    }
#undef FIELD
    if (ranges_ok)
        push_rule(c, coll, &rule, index);
}

static void walk_collective(struct pctx *c, enum acct_coll_id coll, const struct ynode *y)
{
    char path[ACCT_DIAG_FIELD_MAX];
    char d[QUOTE_MAX * 4 + 48];
    size_t i = 0;

    snprintf(path, sizeof(path), "collectives.%s", acct_coll_name(coll));
    if (y->kind != Y_SEQ) {
        ERR_AT(c, y, path, "expected a list of rules (\"- comm_size: ...\", or [] for none), "
               "got %s", describe(y, d, sizeof(d)));
        return;
    }
    for (const struct ynode *e = y->first; e != NULL; e = e->next, i++) {
        if (++c->rules_seen > ACCT_RULES_MAX_RULES) {
            ERR_AT(c, e, path, "more than %d rules: the file is refused",
                   ACCT_RULES_MAX_RULES);
            return;
        }
        walk_rule(c, coll, e, i);
        if (c->nomem)
            return;
    }
}

/* Overlaps among one collective's rules: each rule that overlaps an earlier
 * one in the file is reported once, naming both lines. */
struct order {
    const struct acct_rule *rule;
    size_t index;
};

static int cmp_order(const void *pa, const void *pb)
{
    const struct order *a = pa, *b = pb;
    if (a->rule->comm_min != b->rule->comm_min)
        return a->rule->comm_min < b->rule->comm_min ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static void check_overlaps(struct pctx *c, enum acct_coll_id coll)
{
    struct acct_rule_list *l = &c->r->coll[coll];
    struct order *o;
    bool *reported;
    if (l->n < 2)
        return;
    o = malloc(l->n * sizeof(*o));
    reported = calloc(l->n, sizeof(*reported));
    if (o == NULL || reported == NULL) {
        oom(c);
        goto out;
    }
    for (size_t i = 0; i < l->n; i++) {
        o[i].rule = &l->v[i];
        o[i].index = i; /* position in l (file order) */
    }
    qsort(o, l->n, sizeof(*o), cmp_order);
    for (size_t i = 0; i < l->n; i++) {
        const struct acct_rule *a = o[i].rule;
        for (size_t j = i + 1; j < l->n && o[j].rule->comm_min <= a->comm_max; j++) {
            const struct acct_rule *b = o[j].rule;
            if (b->bytes_min > a->bytes_max || a->bytes_min > b->bytes_max)
                continue;
            /* Report the one later in the file, once. */
            size_t later = o[i].index > o[j].index ? o[i].index : o[j].index;
            size_t earlier = o[i].index > o[j].index ? o[j].index : o[i].index;
            if (reported[later])
                continue;
            reported[later] = true;
            const struct acct_rule *x = &l->v[later], *e = &l->v[earlier];
            char field[ACCT_DIAG_FIELD_MAX];
            char sz[ACCT_SIZE_FORMAT_LEN];
            int cm = x->comm_min > e->comm_min ? x->comm_min : e->comm_min;
            uint64_t bm = x->bytes_min > e->bytes_min ? x->bytes_min : e->bytes_min;
            if (bm == 0)
                snprintf(sz, sizeof(sz), "0");
            else
                acct_size_format(bm, sz, sizeof(sz));
            snprintf(field, sizeof(field), "collectives.%s[%zu]", acct_coll_name(coll),
                     c->index[coll][later]);
            err(c, x->line, x->col, field,
                "overlaps collectives.%s[%zu] at line %d (both contain comm_size %d, "
                "bytes %s)",
                acct_coll_name(coll), c->index[coll][earlier], e->line, cm, sz);
        }
    }
out:
    free(o);
    free(reported);
}

/* The canonical order of a collective's rules. */
static int cmp_rule(const void *pa, const void *pb)
{
    const struct acct_rule *a = pa, *b = pb;
    if (a->comm_min != b->comm_min)
        return a->comm_min < b->comm_min ? -1 : 1;
    if (a->bytes_min != b->bytes_min)
        return a->bytes_min < b->bytes_min ? -1 : 1;
    return 0;
}

enum { T_VERSION, T_PROVENANCE, T_COLLECTIVES, T_N };
static const struct keydef top_keys[T_N] = {
    [T_VERSION] = { "acct_rules", true },
    [T_PROVENANCE] = { "provenance", true },
    [T_COLLECTIVES] = { "collectives", true },
};

static void walk_top(struct pctx *c, const struct ynode *root)
{
    const struct ynode *v[T_N], *k[T_N];
    struct keydef cdefs[ACCT_COLL_COUNT];
    const struct ynode *cv[ACCT_COLL_COUNT], *ck[ACCT_COLL_COUNT];
    long long version;

    /* An unsupported version is the only problem worth reporting: the rest
     * of the file follows a schema this library does not know. */
    if (root->kind == Y_MAP) {
        for (const struct ynode *key = root->first; key != NULL && key->next != NULL;
             key = key->next->next) {
            if (key->kind == Y_SCALAR && strcmp(key->s, "acct_rules") == 0) {
                const struct ynode *val = key->next;
                if (!get_int(c, val, "acct_rules", "the schema version (an integer)",
                             &version))
                    return;
                if (version != ACCT_RULES_VERSION) {
                    ERR_AT(c, val, "acct_rules",
                           "unsupported rules schema version %lld: this library reads "
                           "version %d",
                           version, ACCT_RULES_VERSION);
                    return;
                }
                break;
            }
        }
    }
    if (!walk_map(c, root, "", "key", top_keys, T_N, v, k))
        return;
    if (v[T_PROVENANCE] != NULL)
        walk_provenance(c, v[T_PROVENANCE]);
    if (v[T_COLLECTIVES] == NULL)
        return;
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        cdefs[i].name = acct_coll_name((enum acct_coll_id)i);
        cdefs[i].required = false;
    }
    if (!walk_map(c, v[T_COLLECTIVES], "collectives", "collective", cdefs, ACCT_COLL_COUNT,
                  cv, ck))
        return;
    for (int i = 0; i < ACCT_COLL_COUNT && !c->nomem; i++)
        if (cv[i] != NULL)
            walk_collective(c, (enum acct_coll_id)i, cv[i]);
    for (int i = 0; i < ACCT_COLL_COUNT && !c->nomem; i++)
        check_overlaps(c, (enum acct_coll_id)i);
}

/* ======================================================================
 * Entry points
 * ====================================================================== */

void acct_rules_free(struct acct_rules *r)
{
    if (r == NULL)
        return;
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        free(r->coll[i].v);
    free(r);
}

/* Kept problems in order of position (stable: insertion sort, n <= 100). */
static void sort_diags(struct acct_diags *d)
{
    if (d == NULL)
        return;
    for (size_t i = 1; i < d->n; i++) {
        struct acct_diag x = d->v[i];
        size_t j = i;
        while (j > 0 && (d->v[j - 1].line > x.line ||
                         (d->v[j - 1].line == x.line && d->v[j - 1].col > x.col))) {
            d->v[j] = d->v[j - 1];
            j--;
        }
        d->v[j] = x;
    }
}

int acct_rules_parse_buffer(const char *name, const char *buf, size_t len,
                            struct acct_rules **out, struct acct_diags *diags)
{
    struct pctx c;
    struct ynode *root = NULL;
    int rc = ACCT_RULES_EINVAL;

    memset(&c, 0, sizeof(c));
    c.buf = buf;
    c.len = len;
    c.diags = diags;
    acct_diags_reset(diags, name != NULL ? name : "(rules)");
    if (out != NULL)
        *out = NULL;
    if (out == NULL || (buf == NULL && len > 0)) {
        err(&c, 0, 0, NULL, "no rules given");
        goto out;
    }
    c.r = calloc(1, sizeof(*c.r));
    if (c.r == NULL) {
        oom(&c);
        goto out;
    }
    if (len == 0) {
        err(&c, 1, 1, NULL, "empty file");
        goto out;
    }
    if (len > ACCT_RULES_MAX_FILE_BYTES) {
        err(&c, 0, 0, NULL, "larger than the limit of %u bytes (4 MiB)",
            ACCT_RULES_MAX_FILE_BYTES);
        goto out;
    }
    if (!check_text(&c))
        goto out;
    root = build_tree(&c);
    if (root != NULL && !c.nomem)
        walk_top(&c, root);
    if (buf[len - 1] != '\n') {
        int line, col;
        position(buf, len, &line, &col);
        err(&c, line, col, NULL, "the last line does not end with a newline: truncated file?");
    }
    sort_diags(diags);
    if (c.errors == 0) {
        for (int i = 0; i < ACCT_COLL_COUNT; i++) {
            struct acct_rule_list *l = &c.r->coll[i];
            if (l->n > 1)
                qsort(l->v, l->n, sizeof(*l->v), cmp_rule);
            c.r->nrules += l->n;
        }
        c.r->hash = acct_rules_hash(buf, len);
        *out = c.r;
        c.r = NULL;
        rc = ACCT_RULES_OK;
    } else if (c.nomem) {
        rc = ACCT_RULES_ENOMEM;
    }
out:
    arena_free(&c.arena);
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        free(c.index[i]);
    acct_rules_free(c.r);
    return rc;
}

int acct_rules_parse_file(const char *path, struct acct_rules **out,
                          struct acct_diags *diags)
{
    int rc = ACCT_RULES_EIO;
    int fd = -1;
    char *buf = NULL;
    size_t len = 0;
    struct stat st;

    if (out != NULL)
        *out = NULL;
    acct_diags_reset(diags, path != NULL ? path : "(null)");
    if (path == NULL || out == NULL) {
        acct_diags_add(diags, 0, 0, NULL, "no file given");
        rc = ACCT_RULES_EINVAL;
        goto out;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 || fstat(fd, &st) != 0) {
        acct_diags_add(diags, 0, 0, NULL, "cannot open: %s", strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        acct_diags_add(diags, 0, 0, NULL, "not a regular file");
        goto out;
    }
    if (st.st_size > (off_t)ACCT_RULES_MAX_FILE_BYTES) {
        acct_diags_add(diags, 0, 0, NULL, "larger than the limit of %u bytes (4 MiB)",
                       ACCT_RULES_MAX_FILE_BYTES);
        rc = ACCT_RULES_EINVAL;
        goto out;
    }
    /* Read at most one byte past the limit: the file may grow meanwhile. */
    buf = malloc(ACCT_RULES_MAX_FILE_BYTES + 1);
    if (buf == NULL) {
        acct_diags_add(diags, 0, 0, NULL, "out of memory");
        rc = ACCT_RULES_ENOMEM;
        goto out;
    }
    while (len <= ACCT_RULES_MAX_FILE_BYTES) {
        ssize_t k = read(fd, buf + len, ACCT_RULES_MAX_FILE_BYTES + 1 - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            acct_diags_add(diags, 0, 0, NULL, "cannot read: %s", strerror(errno));
            goto out;
        }
        if (k == 0)
            break;
        len += (size_t)k;
    }
    rc = acct_rules_parse_buffer(path, buf, len, out, diags);
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

/* ======================================================================
 * Comparison and writing
 * ====================================================================== */

static bool rule_equal(const struct acct_rule *a, const struct acct_rule *b)
{
    return a->comm_min == b->comm_min && a->comm_max == b->comm_max &&
           a->bytes_min == b->bytes_min && a->bytes_max == b->bytes_max &&
           acct_decision_equal(&a->d, &b->d);
}

bool acct_rules_equal(const struct acct_rules *a, const struct acct_rules *b)
{
    const struct acct_provenance *p = &a->prov, *q = &b->prov;
    if (strcmp(p->partition, q->partition) != 0 || strcmp(p->interconnect, q->interconnect) != 0 ||
        p->version != q->version || p->source != q->source ||
        strcmp(p->created, q->created) != 0 || strcmp(p->tuning_run, q->tuning_run) != 0 ||
        p->ranks_per_node_min != q->ranks_per_node_min ||
        p->ranks_per_node_max != q->ranks_per_node_max || p->placement != q->placement ||
        a->nrules != b->nrules)
        return false;
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        if (a->coll[i].n != b->coll[i].n)
            return false;
        for (size_t j = 0; j < a->coll[i].n; j++)
            if (!rule_equal(&a->coll[i].v[j], &b->coll[i].v[j]))
                return false;
    }
    return true;
}

/* A YAML double-quoted string. */
static void write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void write_size(FILE *f, uint64_t v)
{
    char buf[ACCT_SIZE_FORMAT_LEN];
    if (v == UINT64_MAX)
        fputs("max", f);
    else if (v == 0 || acct_size_format(v, buf, sizeof(buf)) != ACCT_STATS_OK)
        fprintf(f, "%" PRIu64, v);
    else
        fputs(buf, f);
}

static void write_int(FILE *f, int v)
{
    if (v == INT_MAX)
        fputs("max", f);
    else
        fprintf(f, "%d", v);
}

int acct_rules_write(FILE *f, const struct acct_rules *r)
{
    const struct acct_provenance *p = &r->prov;
    bool any = false;

    fprintf(f, "# ACCT rules file (schema version %d, see docs/rules.md)\n", ACCT_RULES_VERSION);
    fprintf(f, "acct_rules: %d\n", ACCT_RULES_VERSION);
    fputs("provenance:\n  partition: ", f);
    write_string(f, p->partition);
    fputs("\n  interconnect: ", f);
    write_string(f, p->interconnect);
    fprintf(f, "\n  version: %" PRId64 "\n", p->version);
    fprintf(f, "  source: %s\n", acct_rules_source_name(p->source));
    fputs("  created: ", f);
    write_string(f, p->created);
    fputc('\n', f);
    if (p->tuning_run[0] != '\0') {
        fputs("  tuning_run: ", f);
        write_string(f, p->tuning_run);
        fputc('\n', f);
    }
    if (p->ranks_per_node_min > 0 || p->placement != ACCT_PLACEMENT_NONE) {
        const char *sep = "";
        fputs("  layout: {", f);
        if (p->ranks_per_node_min > 0) {
            if (p->ranks_per_node_min == p->ranks_per_node_max)
                fprintf(f, "ranks_per_node: %d", p->ranks_per_node_min);
            else
                fprintf(f, "ranks_per_node: [%d, %d]", p->ranks_per_node_min,
                        p->ranks_per_node_max);
            sep = ", ";
        }
        if (p->placement != ACCT_PLACEMENT_NONE)
            fprintf(f, "%splacement: %s", sep, acct_placement_name(p->placement));
        fputs("}\n", f);
    }
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        any = any || r->coll[i].n > 0;
    fputs(any ? "collectives:\n" : "collectives: {}\n", f);
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        const struct acct_rule_list *l = &r->coll[i];
        if (l->n == 0)
            continue;
        fprintf(f, "  %s:\n", acct_coll_name((enum acct_coll_id)i));
        for (size_t j = 0; j < l->n; j++) {
            const struct acct_rule *x = &l->v[j];
            fputs("    - {comm_size: ", f);
            if (x->comm_min == x->comm_max) {
                write_int(f, x->comm_min);
            } else {
                fprintf(f, "[%d, ", x->comm_min);
                write_int(f, x->comm_max);
                fputc(']', f);
            }
            fputs(", bytes: ", f);
            if (x->bytes_min == x->bytes_max && x->bytes_max != UINT64_MAX) {
                write_size(f, x->bytes_min);
            } else {
                fputc('[', f);
                write_size(f, x->bytes_min);
                fputs(", ", f);
                write_size(f, x->bytes_max);
                fputc(']', f);
            }
            fprintf(f, ", algorithm: %s", x->d.alg != NULL ? x->d.alg->name : "native");
            if (x->d.segment_bytes != 0) {
                fputs(", segment: ", f);
                write_size(f, x->d.segment_bytes);
            }
            if (x->d.fanout != 0)
                fprintf(f, ", fanout: %d", x->d.fanout);
            if (x->d.reorder)
                fputs(", reorder: true", f);
            fputs("}\n", f);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* ======================================================================
 * Per-communicator tables
 * ====================================================================== */

static int cmp_bytes(const void *pa, const void *pb)
{
    const struct acct_rule *const *a = pa, *const *b = pb;
    return (*a)->bytes_min < (*b)->bytes_min ? -1 : (*a)->bytes_min > (*b)->bytes_min;
}

int acct_rules_resolve(const struct acct_rules *rules, enum acct_coll_id coll,
                       int comm_size, struct acct_table **out)
{
    int rc = ACCT_RULES_ENOMEM;
    const struct acct_rule **match = NULL;
    struct acct_table *t = NULL;
    struct acct_decision *dec;
    size_t k = 0, n = 0, cap;
    const struct acct_alg *native;

    if (out == NULL)
        return ACCT_RULES_EINVAL;
    *out = NULL;
    if ((unsigned)coll >= ACCT_COLL_COUNT || (native = acct_alg_native(coll)) == NULL)
        return ACCT_RULES_EINVAL;
    const struct acct_decision native_d = { .alg = native };
    const struct acct_rule_list *l = rules != NULL ? &rules->coll[coll] : NULL;

    if (l != NULL && l->n > 0) {
        match = malloc(l->n * sizeof(*match));
        if (match == NULL)
            goto out;
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].comm_min <= comm_size && comm_size <= l->v[i].comm_max)
                match[k++] = &l->v[i];
        qsort(match, k, sizeof(*match), cmp_bytes);
    }
    cap = 2 * k + 1;
    t = malloc(sizeof(*t) + cap * (sizeof(uint64_t) + sizeof(struct acct_decision)));
    if (t == NULL)
        goto out;
    dec = (struct acct_decision *)(void *)&t->max[cap];
    t->dec = dec;

    /* Append [.., hi] -> d, merging with an equal previous entry. */
#define APPEND(hi, dd)                                                     \
    do {                                                                   \
        if (n > 0 && acct_decision_equal(&dec[n - 1], (dd))) {             \
            t->max[n - 1] = (hi);                                          \
        } else {                                                           \
            t->max[n] = (hi);                                              \
            dec[n++] = *(dd);                                              \
        }                                                                  \
    } while (0)

    uint64_t next = 0; /* first byte count not yet covered */
    bool full = false;
    for (size_t i = 0; i < k && !full; i++) {
        const struct acct_rule *x = match[i];
        struct acct_decision d = x->d;
        struct acct_call call = {
            .coll = coll, .rank = 0, .size = comm_size, .root = 0, .count = UINT64_MAX,
            .scount = UINT64_MAX, .fanout = d.fanout, .commutative = true,
        };
        /* Only the communicator size's restrictions are known here; the
         * runtime checks the call's own (commutativity, count) per call. */
        if (d.alg == NULL || !acct_alg_applicable(d.alg, &call, NULL))
            d = native_d;
        if (x->bytes_min > next)
            APPEND(x->bytes_min - 1, &native_d);
        APPEND(x->bytes_max, &d);
        if (x->bytes_max == UINT64_MAX)
            full = true;
        else
            next = x->bytes_max + 1;
    }
    if (!full)
        APPEND(UINT64_MAX, &native_d);
#undef APPEND
    t->n = n;
    *out = t;
    t = NULL;
    rc = ACCT_RULES_OK;
out:
    free(match);
    free(t);
    return rc;
}

void acct_table_free(struct acct_table *t)
{
    free(t);
}

bool acct_table_all_native(const struct acct_table *t)
{
    return t->n == 1 && t->dec[0].alg != NULL && (t->dec[0].alg->flags & ACCT_ALG_NATIVE);
}
