/* The YAML tree shared by the rules file and tuning result parsers
 * (yamltree.h): input checks, the tree built from libyaml's events, typed
 * getters with diagnostics, key tables, file reading and writing helpers. */
#include "yamltree.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "acct/stats.h"

#define ARENA_CHUNK 65536
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* ======================================================================
 * Arena
 * ====================================================================== */

struct yt_chunk {
    struct yt_chunk *next;
    size_t used, cap;
    max_align_t data[]; /* cap bytes */
};

/* A point to release the arena back to (everything allocated after it). */
struct arena_mark {
    struct yt_chunk *chunk;
    size_t used;
};

static void *arena_alloc(struct yt_arena *a, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    struct yt_chunk *c = a->head;
    if (c == NULL || c->cap - c->used < size) {
        size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        if (a->spare != NULL && a->spare->cap >= size) {
            c = a->spare; /* released by the previous streamed item */
            a->spare = NULL;
        } else {
            c = malloc(sizeof(*c) + cap);
            if (c == NULL)
                return NULL;
            c->cap = cap;
        }
        c->next = a->head;
        c->used = 0;
        a->head = c;
    }
    void *ptr = (char *)c->data + c->used;
    c->used += size;
    return ptr;
}

static struct arena_mark arena_mark(const struct yt_arena *a)
{
    struct arena_mark m = { a->head, a->head != NULL ? a->head->used : 0 };
    return m;
}

/* Chunks after the mark are freed, but one is kept as a spare: a streamed
 * item that crosses a chunk boundary would otherwise allocate and free a
 * chunk for every item. */
static void arena_release(struct yt_arena *a, struct arena_mark m)
{
    while (a->head != NULL && a->head != m.chunk) {
        struct yt_chunk *next = a->head->next;
        if (a->spare == NULL && a->head->cap == ARENA_CHUNK)
            a->spare = a->head;
        else
            free(a->head);
        a->head = next;
    }
    if (a->head != NULL)
        a->head->used = m.used;
}

static void arena_free(struct yt_arena *a)
{
    struct arena_mark none = { NULL, 0 };
    arena_release(a, none);
    free(a->spare);
    a->spare = NULL;
}

static void yt_init(struct yt_parse *p, const char *buf, size_t len, struct acct_diags *diags,
                    size_t max_nodes, const char *doc, const char *docs)
{
    memset(p, 0, sizeof(*p));
    p->buf = buf;
    p->len = len;
    p->diags = diags;
    p->max_nodes = max_nodes;
    p->doc = doc;
    p->docs = docs;
}

static void yt_fini(struct yt_parse *p)
{
    arena_free(&p->arena);
}

/* ======================================================================
 * Problems
 * ====================================================================== */

void acct_yt_err(struct yt_parse *p, int line, int col, const char *field, const char *fmt, ...)
{
    char msg[ACCT_DIAG_MSG_MAX];
    va_list ap;
    if (acct_yt_muted(p)) {
        acct_yt_count(p);
        return;
    }
    p->errors++;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    acct_diags_add(p->diags, line, col, field, "%s", msg);
}

void acct_yt_warn(struct yt_parse *p, int line, int col, const char *field, const char *fmt,
                  ...)
{
    char msg[ACCT_DIAG_MSG_MAX];
    va_list ap;
    if (p->diags == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    acct_diags_warn(p->diags, line, col, field, "%s", msg);
}

void acct_yt_count(struct yt_parse *p)
{
    p->errors++;
    if (p->diags != NULL)
        p->diags->total++;
}

void acct_yt_oom(struct yt_parse *p)
{
    if (!p->nomem)
        acct_yt_err(p, 0, 0, NULL, "out of memory");
    p->nomem = true;
}

void acct_yt_position(const char *buf, size_t off, int *line, int *col)
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

static void yt_sort_diags(struct acct_diags *d)
{
    if (d == NULL)
        return;
    for (size_t i = 1; i < d->n; i++) { /* insertion sort: n <= ACCT_DIAG_MAX */
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

const char *acct_yt_quote(char *buf, size_t len, const char *s, size_t n)
{
    size_t o = 0;
    if (len < 8) {
        if (len > 0)
            buf[0] = '\0';
        return buf;
    }
    buf[o++] = '"';
    for (size_t i = 0; i < n && i < YT_QUOTE_MAX && o + 8 < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
        else
            buf[o++] = (char)ch;
    }
    if (n > YT_QUOTE_MAX && o + 5 < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

bool acct_yt_is_null(const struct ynode *y)
{
    if (y->kind != Y_SCALAR || !y->plain)
        return false;
    return y->len == 0 || strcmp(y->s, "~") == 0 || strcmp(y->s, "null") == 0 ||
           strcmp(y->s, "Null") == 0 || strcmp(y->s, "NULL") == 0;
}

const char *acct_yt_describe(const struct ynode *y, char *buf, size_t len)
{
    char q[YT_QUOTE_MAX * 4 + 16];
    if (y->kind == Y_SEQ)
        return "a list";
    if (y->kind == Y_MAP)
        return "a mapping";
    if (acct_yt_is_null(y))
        return "nothing";
    snprintf(buf, len, "%s%s", y->plain ? "" : "the quoted string ",
             acct_yt_quote(q, sizeof(q), y->s, y->len));
    return buf;
}

void acct_yt_join(char *out, size_t len, const char *parent, const char *key, size_t klen)
{
    /* On the path of every value: copies, no printf. */
    size_t o = 0, plen = strlen(parent);
    if (len == 0)
        return;
    if (plen > len - 1)
        plen = len - 1;
    memcpy(out, parent, plen);
    o = plen;
    if (plen > 0 && o + 1 < len)
        out[o++] = '.';
    for (size_t i = 0; i < klen && i < YT_QUOTE_MAX && o + 1 < len; i++) {
        unsigned char ch = (unsigned char)key[i];
        out[o++] = (ch > 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    out[o] = '\0';
}

/* ======================================================================
 * Stage 1: bytes
 * ====================================================================== */

static void too_large(struct acct_diags *d, struct yt_parse *p, size_t limit)
{
    char msg[96];
    if (limit >= 1024 * 1024)
        snprintf(msg, sizeof(msg), "larger than the limit of %zu bytes (%zu MiB)", limit,
                 limit / (1024 * 1024));
    else
        snprintf(msg, sizeof(msg), "larger than the limit of %zu bytes (%zu KiB)", limit,
                 limit / 1024);
    if (p != NULL)
        acct_yt_err(p, 0, 0, NULL, "%s", msg);
    else
        acct_diags_add(d, 0, 0, NULL, "%s", msg);
}

/* The bytes are UTF-8 text of the characters YAML allows (tab, LF, CR and
 * printable ones). Returns false after reporting the first bad byte. */
static bool check_text(struct yt_parse *p)
{
    const unsigned char *b = (const unsigned char *)p->buf;
    size_t i = 0, n = p->len;
    while (i < n) {
        unsigned ch = b[i];
        size_t k = 0;
        uint32_t cp = 0;
        const char *what = NULL;
        if (ch < 0x80) {
            if (ch == 0)
                what = "binary data (a NUL byte)";
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
                    if ((b[i + j] & 0xc0) != 0x80) {
                        what = "invalid UTF-8";
                        break;
                    }
                    cp = (cp << 6) | (b[i + j] & 0x3f);
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
            acct_yt_position(p->buf, i, &line, &col);
            if (ch == 0)
                acct_yt_err(p, line, col, NULL, "%s: not a %s (byte 0x%02x at offset %zu)", what,
                            p->doc, ch, i);
            else
                acct_yt_err(p, line, col, NULL, "%s (byte 0x%02x at offset %zu)", what, ch, i);
            return false;
        }
        i += k;
    }
    return true;
}

static bool yt_check_input(struct yt_parse *p, size_t limit, bool empty_ok)
{
    if (p->len == 0 && !empty_ok) {
        acct_yt_err(p, 1, 1, NULL, "empty file");
        return false;
    }
    if (p->len > limit) {
        too_large(NULL, p, limit);
        return false;
    }
    return check_text(p);
}

static void yt_check_end(struct yt_parse *p)
{
    if (p->len > 0 && p->buf[p->len - 1] != '\n') {
        int line, col;
        acct_yt_position(p->buf, p->len, &line, &col);
        acct_yt_err(p, line, col, NULL,
                    "the last line does not end with a newline: truncated file?");
    }
}

/* ======================================================================
 * Stage 2: the tree
 * ====================================================================== */

/* A problem at an event's start. */
#define ERR_MARK(p, m, ...) \
    acct_yt_err((p), (int)(m)->line + 1, (int)(m)->column + 1, NULL, __VA_ARGS__)

static struct ynode *new_node(struct yt_parse *p, enum yt_kind kind, const yaml_mark_t *m)
{
    struct ynode *y;
    if (++p->nodes > p->max_nodes) {
        ERR_MARK(p, m, "too many YAML values (more than %zu): not a %s", p->max_nodes, p->doc);
        return NULL;
    }
    y = arena_alloc(&p->arena, sizeof(*y));
    if (y == NULL) {
        acct_yt_oom(p);
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

/* A scalar node holding a copy of the event's text. */
static struct ynode *new_scalar(struct yt_parse *p, const yaml_event_t *ev)
{
    struct ynode *y = new_node(p, Y_SCALAR, &ev->start_mark);
    size_t len = ev->data.scalar.length;
    char *s;
    if (y == NULL)
        return NULL;
    s = arena_alloc(&p->arena, len + 1);
    if (s == NULL) {
        acct_yt_oom(p);
        return NULL;
    }
    memcpy(s, ev->data.scalar.value, len);
    s[len] = '\0';
    y->s = s;
    y->len = len;
    y->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f) {
            acct_yt_err(p, y->line, y->col, NULL,
                        "value contains a control character or line break");
            break;
        }
    }
    return y;
}

/* Report libyaml's error. */
static void yaml_error(struct yt_parse *p, const yaml_parser_t *yp)
{
    int line = (int)yp->problem_mark.line + 1, col = (int)yp->problem_mark.column + 1;
    const char *problem = yp->problem != NULL ? yp->problem : "unknown error";
    if (yp->error == YAML_MEMORY_ERROR) {
        acct_yt_oom(p);
        return;
    }
    if (yp->error == YAML_READER_ERROR) {
        acct_yt_position(p->buf, yp->problem_offset < p->len ? yp->problem_offset : p->len, &line,
                         &col);
    } else {
        /* At the end of the input libyaml's mark is on a line after the
         * last one: point at the real end instead. */
        int eline, ecol;
        acct_yt_position(p->buf, p->len, &eline, &ecol);
        if (line > eline || (line == eline && col > ecol)) {
            line = eline;
            col = ecol;
        }
    }
    if (yp->context != NULL)
        acct_yt_err(p, line, col, NULL, "YAML syntax error: %s (%s at line %d, column %d)", problem,
                    yp->context, (int)yp->context_mark.line + 1, (int)yp->context_mark.column + 1);
    else
        acct_yt_err(p, line, col, NULL, "YAML syntax error: %s", problem);
}

/* The state of the streamed list while building. */
struct stream_state {
    struct ynode *list;     /* the streamed list node, once met */
    struct ynode *item;     /* the item being built */
    struct arena_mark mark; /* arena before the item */
    size_t nodes;           /* node count before the item */
};

/* Is y, about to be added under stack[0..depth), the streamed list? */
static bool is_stream_list(const struct yt_parse *p, struct ynode *const *stack, int depth,
                           const struct ynode *y)
{
    const struct ynode *top = depth == 1 ? stack[0] : NULL;
    return p->stream != NULL && y->kind == Y_SEQ && top != NULL && top->kind == Y_MAP &&
           top->n % 2 == 1 && top->last->kind == Y_SCALAR &&
           strcmp(top->last->s, p->stream->key) == 0;
}

/* Hand the complete item over and forget it. */
static void stream_done(struct yt_parse *p, struct stream_state *st)
{
    p->stream->item(p, st->item, st->list->n - 1, p->stream->arg);
    arena_release(&p->arena, st->mark);
    p->nodes = st->nodes;
    st->item = NULL;
}

/* The tree of p's YAML; with empty_is_map, no document is an empty
 * mapping. NULL after reporting. */
static struct ynode *yt_build(struct yt_parse *p, bool empty_is_map)
{
    yaml_parser_t yp;
    struct ynode *stack[YT_MAX_DEPTH];
    struct stream_state st = { 0 };
    int depth = 0, docs = 0;
    struct ynode *root = NULL;
    bool done = false, failed = false;

    if (!yaml_parser_initialize(&yp)) {
        acct_yt_oom(p);
        return NULL;
    }
    yaml_parser_set_input_string(&yp, (const unsigned char *)p->buf, p->len);
    yaml_parser_set_encoding(&yp, YAML_UTF8_ENCODING);
    while (!done && !failed) {
        yaml_event_t ev;
        struct ynode *y = NULL;
        const char *anchor = NULL, *tag = NULL;
        if (!yaml_parser_parse(&yp, &ev)) {
            yaml_error(p, &yp);
            failed = true;
            break;
        }
        const yaml_mark_t *m = &ev.start_mark;
        bool item_starts = st.list != NULL && st.item == NULL && depth == 2 &&
                           stack[1] == st.list &&
                           (ev.type == YAML_ALIAS_EVENT || ev.type == YAML_SCALAR_EVENT ||
                            ev.type == YAML_SEQUENCE_START_EVENT ||
                            ev.type == YAML_MAPPING_START_EVENT);
        if (item_starts) {
            st.mark = arena_mark(&p->arena);
            st.nodes = p->nodes;
        }
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1) {
                ERR_MARK(p, m, "a %s holds one YAML document; a second one starts here", p->doc);
                failed = true;
            }
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_ALIAS_EVENT:
            ERR_MARK(p, m, "YAML aliases (*name) are not allowed in %s", p->docs);
            y = new_node(p, Y_SCALAR, m); /* stands for the value: a null */
            if (y != NULL) {
                y->s = "";
                y->plain = true;
            }
            break;
        case YAML_SCALAR_EVENT:
            anchor = (const char *)ev.data.scalar.anchor;
            tag = (const char *)ev.data.scalar.tag;
            y = new_scalar(p, &ev);
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
            if (depth >= YT_MAX_DEPTH) {
                ERR_MARK(p, m, "YAML nested deeper than %d levels: not a %s", YT_MAX_DEPTH,
                         p->doc);
                failed = true;
                break;
            }
            y = new_node(p, ev.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP, m);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0)
                depth--;
            if (st.item != NULL && depth == 2)
                stream_done(p, &st);
            break;
        default:
            break;
        }
        if (anchor != NULL)
            ERR_MARK(p, m, "YAML anchors (&name) are not allowed in %s", p->docs);
        if (tag != NULL)
            ERR_MARK(p, m, "YAML tags (!tag) are not allowed in %s", p->docs);
        if (y != NULL) {
            if (item_starts) {
                st.list->n++; /* counted, not linked: handed over when complete */
                st.item = y;
            } else if (depth > 0) {
                if (st.list == NULL && is_stream_list(p, stack, depth, y))
                    st.list = y;
                add_child(stack[depth - 1], y);
            } else if (root == NULL) {
                root = y;
            }
            if (y->kind != Y_SCALAR)
                stack[depth++] = y;
            else if (item_starts)
                stream_done(p, &st);
        } else if (p->nomem || p->nodes > p->max_nodes) {
            failed = true;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&yp);
    if (failed)
        return NULL;
    if (root == NULL && empty_is_map) {
        yaml_mark_t start = { 0, 0, 0 };
        root = new_node(p, Y_MAP, &start);
    } else if (root == NULL) {
        acct_yt_err(p, 1, 1, NULL, "no YAML document: the file holds only blanks and comments");
    }
    return root;
}

const struct ynode *acct_yt_map_get(const struct ynode *y, const char *key)
{
    if (y == NULL || y->kind != Y_MAP)
        return NULL;
    for (const struct ynode *k = y->first; k != NULL && k->next != NULL; k = k->next->next)
        if (k->kind == Y_SCALAR && strcmp(k->s, key) == 0)
            return k->next;
    return NULL;
}

/* ======================================================================
 * Stage 3: typed values
 * ====================================================================== */

bool acct_yt_get_int(struct yt_parse *p, const struct ynode *y, const char *field,
                     const char *what, long long *out)
{
    char d[YT_DESC_LEN];
    const char *s = y->s;
    bool neg = false;
    unsigned long long v = 0;

    if (y->kind != Y_SCALAR || acct_yt_is_null(y) || !y->plain) {
        YT_ERR_AT(p, y, field, "expected %s, got %s", what, acct_yt_describe(y, d, sizeof(d)));
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
            YT_ERR_AT(p, y, field, "%s is too large", acct_yt_describe(y, d, sizeof(d)));
            return false;
        }
        v = v * 10 + (unsigned)(*s - '0');
    }
    if (v > (unsigned long long)LLONG_MAX) {
        YT_ERR_AT(p, y, field, "%s is too large", acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    *out = neg ? -(long long)v : (long long)v;
    return true;
bad:
    YT_ERR_AT(p, y, field, "expected %s, got %s", what, acct_yt_describe(y, d, sizeof(d)));
    return false;
}

bool acct_yt_get_int_in(struct yt_parse *p, const struct ynode *y, const char *field,
                        const char *what, long long lo, long long hi, bool allow_max,
                        long long *out)
{
    long long v;
    if (allow_max && y->kind == Y_SCALAR && y->plain && strcmp(y->s, "max") == 0) {
        *out = hi;
        return true;
    }
    if (!acct_yt_get_int(p, y, field, what, &v))
        return false;
    if (v < lo) {
        YT_ERR_AT(p, y, field, "%lld is too small: the minimum is %lld", v, lo);
        return false;
    }
    if (v > hi) {
        YT_ERR_AT(p, y, field, "%lld is too large: the maximum is %lld", v, hi);
        return false;
    }
    *out = v;
    return true;
}

bool acct_yt_get_size(struct yt_parse *p, const struct ynode *y, const char *field, bool allow_max,
                      uint64_t *out)
{
    char d[YT_DESC_LEN];
    char e[256];
    const char *s = y->s;

    if (y->kind != Y_SCALAR || acct_yt_is_null(y) || !y->plain) {
        YT_ERR_AT(p, y, field, "expected a size in bytes such as 0, 8191 or 64K, got %s",
                  acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    if (strcmp(s, "max") == 0) {
        if (!allow_max) {
            YT_ERR_AT(p, y, field, "\"max\" is only allowed as the upper bound of a range");
            return false;
        }
        *out = UINT64_MAX;
        return true;
    }
    if (s[0] == '-') {
        YT_ERR_AT(p, y, field, "%s is negative: sizes are 0 or more bytes",
                  acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    if (strspn(s, "0") == y->len) { /* "0", "00": zero bytes */
        *out = 0;
        return true;
    }
    if (acct_size_parse(s, out, e, sizeof(e)) != ACCT_STATS_OK) {
        YT_ERR_AT(p, y, field, "%s", e);
        return false;
    }
    return true;
}

static const char *const range_what[] = {
    [YT_RANGE_COMM] = "a communicator size (integer >= 1)",
    [YT_RANGE_BYTES] = "a size in bytes",
    [YT_RANGE_RANKS] = "a number of ranks (integer >= 1)",
};

/* One bound of a range. */
static bool get_bound(struct yt_parse *p, const struct ynode *y, const char *field,
                      enum yt_range_kind kind, bool allow_max, uint64_t *out)
{
    long long x = 0;
    if (kind == YT_RANGE_BYTES)
        return acct_yt_get_size(p, y, field, allow_max, out);
    if (!acct_yt_get_int_in(p, y, field, range_what[kind], 1, INT_MAX, allow_max, &x))
        return false;
    *out = (uint64_t)x;
    return true;
}

bool acct_yt_get_range(struct yt_parse *p, const struct ynode *y, const char *field,
                       enum yt_range_kind kind, uint64_t *lo, uint64_t *hi)
{
    char d[YT_DESC_LEN];
    uint64_t a = 0, b = 0;
    bool ok;

    if (y->kind == Y_MAP || acct_yt_is_null(y)) {
        YT_ERR_AT(p, y, field, "expected %s or a range [min, max], got %s", range_what[kind],
                  acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    if (y->kind == Y_SCALAR) {
        ok = get_bound(p, y, field, kind, false, &a);
        b = a;
    } else if (y->n != 2) {
        YT_ERR_AT(p, y, field, "expected a range [min, max] of two values, got %zu value%s",
                  y->n, y->n == 1 ? "" : "s");
        return false;
    } else {
        ok = get_bound(p, y->first, field, kind, false, &a);
        ok = get_bound(p, y->first->next, field, kind, true, &b) && ok;
    }
    if (ok && a > b) {
        YT_ERR_AT(p, y, field,
                  "range minimum %" PRIu64 " is larger than its maximum %" PRIu64, a, b);
        ok = false;
    }
    if (ok) {
        *lo = a;
        *hi = b;
    }
    return ok;
}

bool acct_yt_get_bool(struct yt_parse *p, const struct ynode *y, const char *field, bool *out)
{
    char d[YT_DESC_LEN];
    if (y->kind == Y_SCALAR && y->plain && strcmp(y->s, "true") == 0) {
        *out = true;
        return true;
    }
    if (y->kind == Y_SCALAR && y->plain && strcmp(y->s, "false") == 0) {
        *out = false;
        return true;
    }
    YT_ERR_AT(p, y, field, "expected true or false, got %s", acct_yt_describe(y, d, sizeof(d)));
    return false;
}

/* Characters of a name: letters, digits and . _ + - */
static bool name_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '+' || ch == '-';
}

static bool text_char(unsigned char ch)
{
    return ch >= 0x20 && ch <= 0x7e;
}

/* A scalar of 1..max characters for which ok() holds; what names the kind
 * of value, allowed the characters (both for messages). */
static bool get_string(struct yt_parse *p, const struct ynode *y, const char *field,
                       size_t max, char *out, bool (*ok)(unsigned char), const char *what,
                       const char *allowed)
{
    char d[YT_DESC_LEN];
    if (y->kind != Y_SCALAR || acct_yt_is_null(y)) {
        YT_ERR_AT(p, y, field, "expected %s, got %s", what, acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    if (y->len == 0 || y->len > max) {
        YT_ERR_AT(p, y, field, "%s must have 1 to %zu characters",
                  acct_yt_describe(y, d, sizeof(d)), max);
        return false;
    }
    for (size_t i = 0; i < y->len; i++) {
        if (!ok((unsigned char)y->s[i])) {
            YT_ERR_AT(p, y, field, "%s may only contain %s", acct_yt_describe(y, d, sizeof(d)),
                      allowed);
            return false;
        }
    }
    memcpy(out, y->s, y->len + 1);
    return true;
}

bool acct_yt_get_name(struct yt_parse *p, const struct ynode *y, const char *field, size_t max,
                      char *out)
{
    if (!get_string(p, y, field, max, out, name_char, "a name", "letters, digits and . _ + -"))
        return false;
    if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0) { /* as acct_proto_name_ok */
        YT_ERR_AT(p, y, field, "\"%s\" is not a name: names become file names (rules/PARTITION/INTERCONNECT.yaml)", out);
        return false;
    }
    return true;
}

bool acct_yt_get_text(struct yt_parse *p, const struct ynode *y, const char *field, size_t max,
                      char *out)
{
    return get_string(p, y, field, max, out, text_char, "a string",
                      "printable ASCII characters");
}

bool acct_yt_get_word(struct yt_parse *p, const struct ynode *y, const char *field,
                      const char *what, const char *const *words, size_t n, int first, int *out)
{
    char d[YT_DESC_LEN];
    char list[256] = "";
    size_t o = 0;
    if (y->kind == Y_SCALAR && !acct_yt_is_null(y)) {
        for (size_t i = (size_t)first; i < n; i++) {
            if (words[i] != NULL && strcmp(y->s, words[i]) == 0) {
                *out = (int)i;
                return true;
            }
        }
    }
    for (size_t i = (size_t)first; i < n && o < sizeof(list); i++)
        if (words[i] != NULL)
            o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o > 0 ? ", " : "",
                                  words[i]);
    YT_ERR_AT(p, y, field, "unknown %s %s (valid: %s)", what, acct_yt_describe(y, d, sizeof(d)),
              list);
    return false;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool acct_yt_get_time(struct yt_parse *p, const struct ynode *y, const char *field, char *out)
{
    char d[YT_DESC_LEN];
    static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int v[6] = { 0 };
    bool ok = y->kind == Y_SCALAR && y->len == YT_TIME_LEN;

    for (size_t i = 0; ok && i < YT_TIME_LEN; i++) {
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
        YT_ERR_AT(p, y, field,
                  "expected a UTC date and time \"YYYY-MM-DDTHH:MM:SSZ\" (ISO 8601), got %s",
                  acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    memcpy(out, y->s, YT_TIME_LEN + 1);
    return true;
}

/* digits [. digits] [e [+-] digits], at least one digit before the
 * exponent; a leading '-' is allowed (and refused by the range check). */
static bool number_syntax(const char *s)
{
    size_t digits = 0;
    if (*s == '-')
        s++;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        size_t e = 0;
        s++;
        if (*s == '+' || *s == '-')
            s++;
        for (; *s >= '0' && *s <= '9'; s++)
            e++;
        if (e == 0)
            return false;
    }
    return *s == '\0';
}

bool acct_yt_get_number(struct yt_parse *p, const struct ynode *y, const char *field, double min,
                        bool min_excluded, double *out)
{
    char d[YT_DESC_LEN];
    double v;
    if (y->kind != Y_SCALAR || acct_yt_is_null(y) || !y->plain || !number_syntax(y->s)) {
        YT_ERR_AT(p, y, field, "expected a number such as 0, 12 or 14400.5, got %s",
                  acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    errno = 0;
    v = strtod(y->s, NULL);
    if (!isfinite(v)) {
        YT_ERR_AT(p, y, field, "%s is too large", acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    if (v < min || (min_excluded && v == min)) { /* y->s is a number: printed as is */
        YT_ERR_AT(p, y, field, "%s is too small: %s %g", y->s,
                  min_excluded ? "it must be more than" : "the minimum is", min);
        return false;
    }
    *out = v;
    return true;
}

bool acct_yt_check_versions(struct yt_parse *p, const struct ynode *root, const char *key,
                            const char *field, const char *what, long long min, long long max,
                            long long *got)
{
    const struct ynode *val = acct_yt_map_get(root, key);
    long long version;
    if (val == NULL)
        return true;
    if (!acct_yt_get_int(p, val, field, "the schema version (an integer)", &version))
        return false;
    if (version < min || version > max) {
        if (min == max)
            YT_ERR_AT(p, val, field,
                      "unsupported %s schema version %lld: this library reads version %lld",
                      what, version, max);
        else
            YT_ERR_AT(p, val, field,
                      "unsupported %s schema version %lld: this library reads versions "
                      "%lld to %lld",
                      what, version, min, max);
        return false;
    }
    *got = version;
    return true;
}

bool acct_yt_check_version(struct yt_parse *p, const struct ynode *root, const char *key,
                           const char *field, const char *what, long long want)
{
    long long got;
    return acct_yt_check_versions(p, root, key, field, what, want, want, &got);
}

/* ======================================================================
 * Key tables
 * ====================================================================== */

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
static const char *suggest(const char *word, size_t len, const struct yt_key *defs,
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

/* "a, b, c": the names of defs. */
static const char *key_list(const struct yt_key *defs, size_t ndefs, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ndefs && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i > 0 ? ", " : "", defs[i].name);
    return buf;
}

/* The key before k in mapping y with k's text, or NULL. */
static const struct ynode *earlier_key(const struct ynode *y, const struct ynode *k)
{
    for (const struct ynode *e = y->first; e != NULL && e != k;
         e = e->next != NULL ? e->next->next : NULL)
        if (e->kind == Y_SCALAR && e->len == k->len && memcmp(e->s, k->s, k->len) == 0)
            return e;
    return NULL;
}

static bool walk_map(struct yt_parse *p, const struct ynode *y, const char *path,
                     const char *noun, const struct yt_key *defs, size_t ndefs,
                     const struct ynode **vals, const struct ynode **keys, bool skip_unknown)
{
    char field[ACCT_DIAG_FIELD_MAX];
    char d[YT_DESC_LEN];
    char list[ACCT_DIAG_MSG_MAX]; /* acctd.yaml has 29 keys */

    for (size_t i = 0; i < ndefs; i++)
        vals[i] = keys[i] = NULL;
    if (y->kind != Y_MAP) {
        YT_ERR_AT(p, y, path[0] != '\0' ? path : NULL, "expected a mapping with keys %s, got %s",
                  key_list(defs, ndefs, list, sizeof(list)), acct_yt_describe(y, d, sizeof(d)));
        return false;
    }
    for (const struct ynode *k = y->first; k != NULL; k = k->next != NULL ? k->next->next : NULL) {
        const struct ynode *v = k->next;
        size_t i;
        if (k->kind != Y_SCALAR || acct_yt_is_null(k)) {
            YT_ERR_AT(p, k, path[0] != '\0' ? path : NULL, "expected a key (%s), got %s",
                      key_list(defs, ndefs, list, sizeof(list)),
                      acct_yt_describe(k, d, sizeof(d)));
            continue;
        }
        for (i = 0; i < ndefs; i++)
            if (strcmp(k->s, defs[i].name) == 0)
                break;
        if (i == ndefs || keys[i] != NULL)
            acct_yt_join(field, sizeof(field), path, k->s, k->len);
        if (i == ndefs) {
            char hint[64];
            const struct ynode *first = earlier_key(y, k);
            if (skip_unknown && first != NULL)
                YT_ERR_AT(p, k, field, "duplicate %s %s (first at line %d)", noun,
                          acct_yt_describe(k, d, sizeof(d)), first->line);
            else if (skip_unknown)
                acct_yt_warn(p, k->line, k->col, field,
                             "unknown %s %s%s skipped (known: %s): an optional %s of a "
                             "newer release?",
                             noun, acct_yt_describe(k, d, sizeof(d)),
                             suggest(k->s, k->len, defs, ndefs, hint, sizeof(hint)),
                             key_list(defs, ndefs, list, sizeof(list)),
                             path[0] != '\0' ? "key" : "section");
            else
                YT_ERR_AT(p, k, field, "unknown %s %s%s (valid: %s)", noun,
                          acct_yt_describe(k, d, sizeof(d)),
                          suggest(k->s, k->len, defs, ndefs, hint, sizeof(hint)),
                          key_list(defs, ndefs, list, sizeof(list)));
            continue;
        }
        if (keys[i] != NULL) {
            YT_ERR_AT(p, k, field, "duplicate %s %s (first at line %d)", noun,
                      acct_yt_describe(k, d, sizeof(d)), keys[i]->line);
            continue;
        }
        keys[i] = k;
        vals[i] = v;
    }
    for (size_t i = 0; i < ndefs; i++) {
        if (defs[i].required && vals[i] == NULL) {
            acct_yt_join(field, sizeof(field), path, defs[i].name, strlen(defs[i].name));
            YT_ERR_AT(p, y, field, "required key \"%s\" is missing", defs[i].name);
        }
    }
    return true;
}

bool acct_yt_walk_map(struct yt_parse *p, const struct ynode *y, const char *path,
                      const char *noun, const struct yt_key *defs, size_t ndefs,
                      const struct ynode **vals, const struct ynode **keys)
{
    return walk_map(p, y, path, noun, defs, ndefs, vals, keys, false);
}

bool acct_yt_walk_open_map(struct yt_parse *p, const struct ynode *y, const char *path,
                           const char *noun, const struct yt_key *defs, size_t ndefs,
                           const struct ynode **vals, const struct ynode **keys)
{
    return walk_map(p, y, path, noun, defs, ndefs, vals, keys, true);
}

/* ======================================================================
 * Files and writing
 * ====================================================================== */

/* Read a regular file of at most limit bytes into *bufp (malloc'd, *lenp
 * bytes). Returns ACCT_RULES_OK or an ACCT_RULES_E* code after adding the
 * problem to diags. */
static int read_file(const char *path, size_t limit, char **bufp, size_t *lenp,
                     struct acct_diags *diags)
{
    int rc = ACCT_RULES_EIO;
    int fd = -1;
    char *buf = NULL;
    size_t len = 0, cap;
    struct stat st;

    *bufp = NULL;
    *lenp = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 || fstat(fd, &st) != 0) {
        acct_diags_add(diags, 0, 0, NULL, "cannot open: %s", strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        acct_diags_add(diags, 0, 0, NULL, "not a regular file");
        goto out;
    }
    if (st.st_size > (off_t)limit) {
        too_large(diags, NULL, limit);
        rc = ACCT_RULES_EINVAL;
        goto out;
    }
    /* Read at most one byte past the limit: the file may grow meanwhile. */
    cap = (size_t)st.st_size + 1;
    buf = malloc(cap);
    if (buf == NULL) {
        acct_diags_add(diags, 0, 0, NULL, "out of memory");
        rc = ACCT_RULES_ENOMEM;
        goto out;
    }
    while (len <= limit) {
        if (len == cap) {
            size_t ncap = cap > (limit + 1) / 2 ? limit + 1 : cap * 2;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                acct_diags_add(diags, 0, 0, NULL, "out of memory");
                rc = ACCT_RULES_ENOMEM;
                goto out;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t k = read(fd, buf + len, cap - len);
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
    *bufp = buf;
    *lenp = len;
    buf = NULL;
    rc = ACCT_RULES_OK;
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

uint64_t acct_yt_hash(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

int acct_yt_parse(const struct acct_yt_doc *d, bool from_file, const char *name,
                  const char *buf, size_t len, bool have_out, struct acct_diags *diags,
                  void *arg, uint64_t *hash)
{
    struct yt_parse p;
    struct yt_stream stream = { d->stream_key, d->item, arg };
    struct ynode *root;
    char *file = NULL;
    int rc;

    yt_init(&p, buf, len, diags, d->max_nodes, d->doc, d->docs);
    if (d->stream_key != NULL)
        p.stream = &stream;
    if (from_file) {
        acct_diags_reset(diags, name != NULL ? name : "(null)");
        if (name == NULL || !have_out) {
            acct_diags_add(diags, 0, 0, NULL, "no file given");
            return ACCT_RULES_EINVAL;
        }
        rc = read_file(name, d->limit, &file, &p.len, diags);
        if (rc != ACCT_RULES_OK)
            return rc;
        p.buf = file;
    }
    acct_diags_reset(diags, name);
    if (!have_out || (p.buf == NULL && p.len > 0)) {
        acct_yt_err(&p, 0, 0, NULL, "%s", d->nothing);
        goto out;
    }
    if (d->start != NULL && !d->start(&p, arg))
        goto out;
    if (!yt_check_input(&p, d->limit, d->empty_is_map))
        goto out;
    root = yt_build(&p, d->empty_is_map);
    if (root != NULL && !p.nomem)
        d->walk(&p, root, arg);
    if (!d->newline_optional)
        yt_check_end(&p);
out:
    yt_sort_diags(diags);
    rc = p.errors == 0 ? ACCT_RULES_OK : p.nomem ? ACCT_RULES_ENOMEM : ACCT_RULES_EINVAL;
    if (rc == ACCT_RULES_OK)
        *hash = acct_yt_hash(p.buf, p.len);
    yt_fini(&p);
    free(file);
    return rc;
}

void acct_yt_write_string(FILE *f, const char *s)
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

void acct_yt_write_size(FILE *f, uint64_t v, bool max_word)
{
    char buf[ACCT_SIZE_FORMAT_LEN];
    if (v == UINT64_MAX && max_word)
        fputs("max", f);
    else if (v == 0 || acct_size_format(v, buf, sizeof(buf)) != ACCT_STATS_OK)
        fprintf(f, "%" PRIu64, v);
    else
        fputs(buf, f);
}

void acct_yt_write_number(FILE *f, double v)
{
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}
