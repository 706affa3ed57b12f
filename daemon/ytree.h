/* A small YAML tree for acctd's own files (acctd.yaml, policies): libyaml
 * events into nodes with positions, bounded, no anchors/aliases/tags, plus
 * the checks every reader needs (known keys, types, ranges), reporting into
 * struct acct_diags as FILE:LINE:COLUMN: FIELD: message (docs/acctd.md). */
#ifndef ACCTD_YTREE_H
#define ACCTD_YTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/rules.h"

#define YT_MAX_BYTES (256u * 1024) /* acctd's files are small */
#define YT_MAX_NODES 10000
#define YT_MAX_DEPTH 8

enum yt_type { YT_SCALAR, YT_MAP, YT_SEQ };

struct yt_node {
    enum yt_type type;
    int line, col;
    char *text;      /* scalar */
    bool plain;      /* scalar was not quoted */
    struct yt_node **kids; /* map: key, value, key, value...; seq: items */
    size_t n;
};

/* Parse buf (name for messages). Returns the root (a mapping) or NULL with
 * problems in d. Empty input gives an empty mapping. */
struct yt_node *yt_parse(const char *name, const char *buf, size_t len, struct acct_diags *d);
/* Read a regular file of at most YT_MAX_BYTES into *buf (NUL-terminated,
 * malloc'ed). 0 or -1 (problem in d, which is reset to path). */
int yt_slurp(const char *path, char **buf, size_t *len, struct acct_diags *d);
/* Read a file (regular, at most YT_MAX_BYTES) and parse it; NULL on error. */
struct yt_node *yt_parse_file(const char *path, struct acct_diags *d);
void yt_free(struct yt_node *n);

/* Checks of mapping m (field: the path of m, "" at top level): every key is
 * one of valid (NULL-terminated), no duplicates. Returns number of problems. */
int yt_check_keys(const struct yt_node *m, const char *field, const char *const *valid,
                  struct acct_diags *d);
/* The value of key in m, or NULL. */
const struct yt_node *yt_get(const struct yt_node *m, const char *key);

/* Typed reads; each reports its problem as field "PATH.key" and returns -1,
 * or 0 on success. */
int yt_int(const struct yt_node *v, const char *field, long long min, long long max,
           long long *out, struct acct_diags *d);
int yt_double(const struct yt_node *v, const char *field, double min, double max, double *out,
              struct acct_diags *d);
int yt_bool(const struct yt_node *v, const char *field, bool *out, struct acct_diags *d);
/* A string of at most cap - 1 bytes; an absolute path if path is true. */
int yt_str(const struct yt_node *v, const char *field, bool path, char *out, size_t cap,
           struct acct_diags *d);

#endif
