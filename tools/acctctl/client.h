/* acctctl's side of the acctd protocol (docs/protocol.md): the options every
 * daemon command shares, connecting with clear errors, one request/reply
 * round trip with the daemon's error printed the same way for every
 * command. The wire format itself is libacct/proto (acct/proto.h). */
#ifndef ACCTCTL_CLIENT_H
#define ACCTCTL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <getopt.h>

#include "acct/proto.h"
#include "output.h"

#define ACCTCTL_DEFAULT_SOCKET "/run/acct/acctd.sock"
#define ACCTCTL_TIMEOUT_MS 60000 /* per request; IMPORT of a large result included */

/* Options shared by the daemon commands: -s/--socket PATH, -f/--format,
 * -h/--help, and -p/-i for the commands that name a pair. */
struct acctctl_common {
    const char *cmd;    /* the command's name, for messages */
    const char *socket; /* --socket, else $ACCT_SOCKET, else the default */
    enum acctctl_format format;
    const char *partition, *interconnect; /* -p, -i (NULL: not given) */
    const char *collective;               /* a filter some commands take */
};

/* Fill the defaults (socket from $ACCT_SOCKET if set and not empty). */
void acctctl_common_init(struct acctctl_common *c, const char *cmd);

/* getopt characters of the shared options, to append to a command's own. */
#define ACCTCTL_COMMON_SHORT "s:f:h"
#define ACCTCTL_COMMON_LONG                                                 \
    { "socket", required_argument, NULL, 's' },                             \
        { "format", required_argument, NULL, 'f' },                         \
        { "help", no_argument, NULL, 'h' }
/* -p PARTITION, -i INTERCONNECT (names, checked here). */
#define ACCTCTL_PAIR_SHORT "p:i:"
#define ACCTCTL_PAIR_LONG                                                   \
    { "partition", required_argument, NULL, 'p' },                          \
        { "interconnect", required_argument, NULL, 'i' }

/* A command's own options: returns 0 when it took ch, -1 when ch is not
 * its own (a shared option), or the exit code to stop with
 * (acctctl_usage_error's for a bad value). */
typedef int (*acctctl_own_opt)(void *arg, int ch, const char *optarg);

/* Parse the options of argv (GNU getopt: options and arguments in any
 * order) with shortopts/longopts, which include the shared ones the
 * command takes. Each option goes to own first (NULL: none), then to the
 * shared handling here; an unknown one is a usage error. Returns -1 when
 * done (the arguments are argv[optind..argc)), or the exit code the
 * command must return now (--help: ACCTCTL_OK; usage errors: ACCTCTL_USAGE). */
int acctctl_parse_opts(struct acctctl_common *c, int argc, char **argv, const char *shortopts,
                       const struct option *longopts, acctctl_own_opt own, void *arg);

/* The usage error for a value that is not a name (docs/rules.md). */
int acctctl_not_a_name(const char *cmd, const char *what, const char *value);

/* One connection to acctd. */
struct acctctl_conn {
    int fd;
    uint32_t next_id;
    const struct acctctl_common *common;
    uint8_t *reply; /* the last reply's bytes (owned) */
    size_t reply_len;
    struct acct_msg msg; /* the last reply, decoded (views into reply) */
    /* The file an IMPORT or SET_POLICY sends: acctctl_put_name gives it to
     * acctd as NAME, which acctd uses as FILE in its DIAG lines; a daemon
     * that did not (an older one, or a name over 255 characters) says
     * "rules", "result" or "policy", and those lines are printed with this
     * name instead. NULL: DIAG lines are printed as they come. */
    const char *diag_file;
    /* true: acctctl_call prints no daemon error (the caller handles it) */
    bool quiet_errors;
    /* WARNING fields of successful replies, printed on stderr as they came:
     * "acctctl CMD: warning: ..." (activate, rollback and import then exit
     * ACCTCTL_WARN). */
    unsigned warnings;
};

/* Add NAME (the display name of the file sent) to w and remember it for
 * the DIAG lines of the reply ("-" is shown as <stdin>). */
void acctctl_put_name(struct acctctl_conn *conn, struct acct_wbuf *w, const char *path);

/* Connect to the socket. On failure prints why (which socket, and how to
 * start acctd) and returns -1. */
int acctctl_connect(struct acctctl_conn *conn, const struct acctctl_common *c);
void acctctl_disconnect(struct acctctl_conn *conn);

/* Start a request of type in w (initialised here; the caller adds fields,
 * then calls acctctl_call, then acct_wbuf_free). */
void acctctl_request(struct acctctl_conn *conn, struct acct_wbuf *w, unsigned type);

/* Send w and wait for the reply (in conn->msg). Returns 0 for a success
 * reply of the request's type; otherwise prints the daemon's error (code,
 * message and every DIAG line) or the transport error and returns -1.
 * *err_code (may be NULL) gets the daemon's ACCT_ERR_* or 0. */
int acctctl_call(struct acctctl_conn *conn, struct acct_wbuf *w, unsigned *err_code);

/* Check that the last reply has every field of tags (n of them); if not,
 * print "acctd's TYPE reply has no FIELD" and return -1. */
int acctctl_require(const struct acctctl_conn *conn, const unsigned *tags, size_t n);

/* One request of a daemon command, as data for acctctl_exchange. */
struct acctctl_exchange {
    unsigned type;                 /* the request */
    const unsigned *required;      /* fields the reply must have (nrequired) */
    size_t nrequired;
    const struct acctctl_col *cols; /* the table handed to print (ncols; may be 0) */
    size_t ncols;
    bool warn;                     /* acctd's warnings make an OK ACCTCTL_WARN */
    /* Connected, before the request starts (may be NULL): e.g. resolve a
     * pair. 0, or -1 after printing why. */
    int (*prepare)(struct acctctl_conn *conn, void *arg);
    /* Add the request's fields to w (may be NULL). */
    void (*fill)(struct acctctl_conn *conn, struct acct_wbuf *w, void *arg);
    /* Print the reply (conn->msg) in conn->common's format, with t built
     * from cols; returns the exit code. */
    int (*print)(struct acctctl_conn *conn, struct acctctl_table *t, void *arg);
};

/* The arrays of a struct acctctl_exchange with their lengths. */
#define ACCTCTL_REQUIRED(tags) .required = (tags), .nrequired = ACCT_ARRAY_LEN(tags)
#define ACCTCTL_COLS(c) .cols = (c), .ncols = ACCT_ARRAY_LEN(c)

/* Print t's one record in format: ACCTCTL_OK, or ACCTCTL_FAIL. */
int acctctl_print_record(struct acctctl_table *t, enum acctctl_format format);

/* connect -> prepare -> request (fill) -> call -> require -> print ->
 * disconnect, for the command of c: ACCTCTL_FAIL (printed) if a step
 * before print fails, else print's exit code (ACCTCTL_WARN for an OK
 * when x->warn and acctd warned). */
int acctctl_exchange(const struct acctctl_common *c, const struct acctctl_exchange *x,
                     void *arg);

/* After printing to stdout: ACCTCTL_OK if it took everything, else
 * ACCTCTL_FAIL. */
int acctctl_flushed(void);

/* Column definitions for tables filled from replies (output.h). */
#define ACCTCTL_COL_U64(name, tag) { name, ACCTCTL_COL_NUMBER, tag, ACCTCTL_V_U64 }
#define ACCTCTL_COL_U64_NZ(name, tag) { name, ACCTCTL_COL_NUMBER, tag, ACCTCTL_V_U64_NZ }
#define ACCTCTL_COL_STR(name, tag) { name, ACCTCTL_COL_TEXT, tag, ACCTCTL_V_STR }
#define ACCTCTL_COL_STR_NE(name, tag) { name, ACCTCTL_COL_TEXT, tag, ACCTCTL_V_STR_NE }
#define ACCTCTL_COL_BOOL(name, tag) { name, ACCTCTL_COL_BOOL, tag, ACCTCTL_V_BOOL }
#define ACCTCTL_COL_HEX(name, tag) { name, ACCTCTL_COL_TEXT, tag, ACCTCTL_V_HEX }
#define ACCTCTL_COL_F64(name, tag) { name, ACCTCTL_COL_NUMBER, tag, ACCTCTL_V_F64 }

/* Fill columns [from, to) of the current row of t from the fields of a
 * body or group (each column's tag and how, output.h). */
void acctctl_cells(struct acctctl_table *t, const uint8_t *body, size_t len, size_t from,
                   size_t to);

/* One row per group field with tag group in the last reply, every column
 * from the group's fields. */
void acctctl_rows(struct acctctl_table *t, const struct acctctl_conn *conn, unsigned group);

/* Getters on the last reply's top level or on a group field; strings
 * missing or too long give "-" (the output's "no value"). */
uint64_t acctctl_u64(const uint8_t *body, size_t len, unsigned tag, uint64_t dflt);
const char *acctctl_str(const uint8_t *body, size_t len, unsigned tag, char *buf, size_t cap);

/* Read a whole text file (at most max bytes; "-" is standard input) into a
 * malloc'ed NUL-terminated buffer. On failure prints "acctctl CMD: FILE:
 * why" and returns -1; a NUL byte in the file is a failure, printed as
 * "FILE:LINE:COLUMN: binary data (a NUL byte): not a text file". */
int acctctl_read_file(const char *cmd, const char *path, size_t max, char **out, size_t *len);


/* Parse a decision version: decimal, 1..2^63-1. */
int acctctl_parse_version(const char *s, uint64_t *out);

/* The layout options of export and plot: --ranks-per-node N (decimal,
 * 1..INT_MAX) into w->ranks_per_node, --irregular (w->regular false).
 * ch is the option's letter ('R' or 'I'); returns 0, 1 if ch is neither,
 * or the usage error's exit status. */
#define ACCTCTL_LAYOUT_LONG                                      \
    { "ranks-per-node", required_argument, NULL, 'R' },          \
    { "irregular", no_argument, NULL, 'I' }
struct acct_rules_where;
int acctctl_layout_opt(const char *cmd, int ch, const char *optarg, struct acct_rules_where *w);
/* After parsing: --irregular needs --ranks-per-node. 0 or the usage error's status. */
int acctctl_layout_check(const char *cmd, const struct acct_rules_where *w);

#endif
