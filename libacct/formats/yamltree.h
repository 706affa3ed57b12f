/* The YAML tree shared by the document parsers of libacct/formats and by
 * acctd's own files (internal: not installed, not exported; it knows no
 * document's schema).
 *
 * Rules files (rules.c), tuning results (result.c) and acctd's
 * configuration and policies (daemon/config.c, daemon/policy.c) are read the
 * same way (acct_yt_parse, with a struct acct_yt_doc per kind), in three
 * stages:
 *   1. bytes:  size limit, not empty, UTF-8 text without control characters,
 *              the last line ends with a newline;
 *   2. YAML:   libyaml's event API builds a small tree of scalars, lists and
 *              mappings with their line and column, in an arena, with depth
 *              and node limits; anchors, aliases and tags are refused. One
 *              top-level list may be handed over item by item instead of
 *              being kept (struct yt_stream), so that a document of a
 *              million measurements never holds them all as a tree;
 *   3. schema: the document's own walker checks the tree with the typed
 *              getters below and acct_yt_walk_map (a key table per mapping),
 *              reporting every problem with its field path.
 * Problems go to an acct_diags list as "FILE:LINE:COLUMN: FIELD: message"
 * (docs/rules.md, "Validation"). Nothing here asserts on input. */
#ifndef ACCT_YAMLTREE_H
#define ACCT_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct/diag.h"

/* YAML nesting the schemas need is at most 6 (result, rules, collectives,
 * list, rule, range). */
#define YT_MAX_DEPTH 12
/* Quoted user text in messages is cut after this many bytes. */
#define YT_QUOTE_MAX 48
/* Room for acct_yt_describe's text. */
#define YT_DESC_LEN (YT_QUOTE_MAX * 4 + 48)
/* A time "YYYY-MM-DDTHH:MM:SSZ" (acct_yt_get_time). */
#define YT_TIME_LEN 20

/* ---- the tree ---------------------------------------------------------- */

struct yt_chunk;
struct yt_arena {
    struct yt_chunk *head;  /* the chunk in use, then older ones */
    struct yt_chunk *spare; /* one released chunk kept for reuse */
};

enum yt_kind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
    enum yt_kind kind;
    int line, col;
    bool plain;      /* scalar written without quotes or block style */
    const char *s;   /* scalar text, NUL-terminated, no control characters */
    size_t len;
    struct ynode *first, *last, *next; /* children; a mapping's alternate key, value */
    size_t n;        /* children (a streamed list counts the items handed over) */
};

struct yt_parse;

/* The top-level list under key is not kept in the tree: each item is given
 * to item() as soon as it is complete (index from 0), then its memory is
 * reused. The list node itself stays, empty, with n items. */
struct yt_stream {
    const char *key;
    void (*item)(struct yt_parse *p, const struct ynode *item, size_t index, void *arg);
    void *arg;
};

/* Everything one parse needs. */
struct yt_parse {
    const char *buf;
    size_t len;
    struct acct_diags *diags;  /* may be NULL */
    size_t errors;             /* problems found */
    bool nomem;
    struct yt_arena arena;
    size_t nodes, max_nodes;   /* nodes kept; the limit */
    const char *doc, *docs;    /* "rules file", "rules files": for messages */
    const struct yt_stream *stream; /* NULL: keep everything */
};

/* A kind of document: its names in messages, its limits and its walk. */
struct acct_yt_doc {
    const char *doc, *docs; /* "rules file", "rules files" */
    const char *nothing;    /* the problem when no input is given: "no rules given" */
    size_t limit;           /* bytes */
    size_t max_nodes;       /* YAML values kept as a tree */
    /* Called before reading (may be NULL); false (after reporting) stops. */
    bool (*start)(struct yt_parse *p, void *arg);
    /* Walk the document's tree (root never NULL). */
    void (*walk)(struct yt_parse *p, const struct ynode *root, void *arg);
    /* NULL, or the top-level list whose items go to item() (struct yt_stream). */
    const char *stream_key;
    void (*item)(struct yt_parse *p, const struct ynode *item, size_t index, void *arg);
    /* Hand-written configuration files (acctd's): input without a YAML
     * document (empty, or only blanks and comments) is walked as an empty
     * mapping at line 1, column 1, and the last line need not end with a
     * newline. */
    bool empty_is_map;
    bool newline_optional;
};

/* Check and walk a document in all stages: from the file path (from_file;
 * a regular file of at most d->limit bytes) or from buf (name: display
 * name). Every problem goes to diags (reset first), sorted by position.
 * have_out false is refused as no input. Returns ACCT_RULES_OK with *hash
 * the content hash when there was no problem, else ACCT_RULES_ENOMEM,
 * ACCT_RULES_EIO (cannot open or read) or ACCT_RULES_EINVAL. arg goes to
 * d's callbacks. */
int acct_yt_parse(const struct acct_yt_doc *d, bool from_file, const char *name,
                  const char *buf, size_t len, bool have_out, struct acct_diags *diags,
                  void *arg, uint64_t *hash);

/* 64-bit FNV-1a of len bytes: the content hash acct_yt_parse gives back. */
uint64_t acct_yt_hash(const void *buf, size_t len);

/* The value of key in mapping y (the first), or NULL. */
const struct ynode *acct_yt_map_get(const struct ynode *y, const char *key);

/* ---- problems ---------------------------------------------------------- */

void acct_yt_err(struct yt_parse *p, int line, int col, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Once ACCT_DIAG_MAX problems are kept the rest are only counted: a file
 * of a million bad entries costs no message formatting. */
static inline bool acct_yt_muted(const struct yt_parse *p)
{
    return p->diags == NULL || p->diags->n >= ACCT_DIAG_MAX;
}
void acct_yt_count(struct yt_parse *p);
/* A warning (acct_diags_warn): kept with the problems, not one of them. */
void acct_yt_warn(struct yt_parse *p, int line, int col, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define YT_ERR_AT(p, node, field, ...)                                                       \
    (acct_yt_muted(p) ? acct_yt_count(p)                                                    \
                      : acct_yt_err((p), (node)->line, (node)->col, (field), __VA_ARGS__))
void acct_yt_oom(struct yt_parse *p);

/* Line and column (from 1, in characters) of byte offset off. */
void acct_yt_position(const char *buf, size_t off, int *line, int *col);

/* "text" with quotes, control and non-ASCII bytes as \xNN, cut after
 * YT_QUOTE_MAX bytes. Always NUL-terminates buf. */
const char *acct_yt_quote(char *buf, size_t len, const char *s, size_t n);
/* What y is, for messages: "a list", "nothing", the scalar quoted. */
const char *acct_yt_describe(const struct ynode *y, char *buf, size_t len);
bool acct_yt_is_null(const struct ynode *y);
/* Field path: "parent.key", or "key" at the top (key cut and sanitised). */
void acct_yt_join(char *out, size_t len, const char *parent, const char *key, size_t klen);

/* ---- typed values: each reports its problem and returns false -------- */

bool acct_yt_get_int(struct yt_parse *p, const struct ynode *y, const char *field,
                     const char *what, long long *out);
/* An integer in [lo, hi]; "max" stands for hi if allow_max. */
bool acct_yt_get_int_in(struct yt_parse *p, const struct ynode *y, const char *field,
                        const char *what, long long lo, long long hi, bool allow_max,
                        long long *out);
/* A byte size (acct_size_parse); "max" is UINT64_MAX if allow_max. */
bool acct_yt_get_size(struct yt_parse *p, const struct ynode *y, const char *field, bool allow_max,
                      uint64_t *out);

enum yt_range_kind { YT_RANGE_COMM, YT_RANGE_BYTES, YT_RANGE_RANKS };
/* One value, or a list [min, max] with min <= max. */
bool acct_yt_get_range(struct yt_parse *p, const struct ynode *y, const char *field,
                       enum yt_range_kind kind, uint64_t *lo, uint64_t *hi);
bool acct_yt_get_bool(struct yt_parse *p, const struct ynode *y, const char *field, bool *out);
/* 1..max characters of [A-Za-z0-9._+-]; out has room for max + 1. */
bool acct_yt_get_name(struct yt_parse *p, const struct ynode *y, const char *field, size_t max,
                      char *out);
/* One of words[first..n) (NULL entries skipped); *out its index. */
bool acct_yt_get_word(struct yt_parse *p, const struct ynode *y, const char *field,
                      const char *what, const char *const *words, size_t n, int first, int *out);
/* "YYYY-MM-DDTHH:MM:SSZ", a real UTC time from 1970 on; out has room for
 * YT_TIME_LEN + 1. */
bool acct_yt_get_time(struct yt_parse *p, const struct ynode *y, const char *field, char *out);
/* A decimal number (digits, optional fraction and exponent; no sign other
 * than a leading '-', no inf/nan/hex), finite, >= min (> min if
 * min_excluded). */
bool acct_yt_get_number(struct yt_parse *p, const struct ynode *y, const char *field, double min,
                        bool min_excluded, double *out);
/* A scalar (quoted or not) of 1..max printable ASCII characters; out has
 * room for max + 1. */
bool acct_yt_get_text(struct yt_parse *p, const struct ynode *y, const char *field, size_t max,
                      char *out);
/* An unsupported schema version is the only problem worth reporting: the
 * rest follows a schema this library does not know. Looks for key in the
 * mapping root; returns false (after reporting at field) if its value is
 * not an integer or not want. A missing key is left to acct_yt_walk_map. */
bool acct_yt_check_version(struct yt_parse *p, const struct ynode *root, const char *key,
                           const char *field, const char *what, long long want);
/* Same for a library that reads versions min..max; *got is the file's
 * version (left alone when the key is missing). */
bool acct_yt_check_versions(struct yt_parse *p, const struct ynode *root, const char *key,
                            const char *field, const char *what, long long min, long long max,
                            long long *got);

struct yt_key {
    const char *name;
    bool required;
};

/* Check a mapping's keys against defs: vals[i] gets the value of defs[i]
 * (NULL if absent), keys[i] its key. Reports a non-mapping, keys that are
 * not scalars, unknown keys (with a "did you mean"), duplicates (naming the
 * first one's line) and missing required keys. false if y is not a
 * mapping. */
bool acct_yt_walk_map(struct yt_parse *p, const struct ynode *y, const char *path,
                      const char *noun, const struct yt_key *defs, size_t ndefs,
                      const struct ynode **vals, const struct ynode **keys);
/* Same, but an unknown key is skipped with a warning (naming it, with the
 * "did you mean"), not refused: a section a newer writer added within the
 * same schema version (docs/tuning-result.md, "Forward compatibility").
 * Its value is not looked at, but it was read like the rest of the
 * document (YAML, size and node limits). A repeated unknown key is still a
 * duplicate. */
bool acct_yt_walk_open_map(struct yt_parse *p, const struct ynode *y, const char *path,
                           const char *noun, const struct yt_key *defs, size_t ndefs,
                           const struct ynode **vals, const struct ynode **keys);

/* ---- files and writing ------------------------------------------------- */

/* A YAML double-quoted string. */
void acct_yt_write_string(FILE *f, const char *s);
/* A size with the largest exact unit ("8K", "1048577"); "max" for
 * UINT64_MAX when max_word. */
void acct_yt_write_size(FILE *f, uint64_t v, bool max_word);
/* The shortest decimal form that reads back as exactly v. */
void acct_yt_write_number(FILE *f, double v);

#endif
