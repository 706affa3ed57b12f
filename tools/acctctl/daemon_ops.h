/* Operations on acctd that more than one acctctl command performs (import
 * and activate are used by "import" and "retune", pair resolution by
 * "show", "rollback", "export", "versions"). Each prints its own errors. */
#ifndef ACCTCTL_DAEMON_OPS_H
#define ACCTCTL_DAEMON_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "acct/rules.h"
#include "client.h"

/* HELLO: check that the daemon speaks protocol version 1. 0 or -1. */
int acctctl_op_ping(struct acctctl_conn *conn);

/* The interconnect of partition's pair: interconnect if given (copied),
 * else the only active pair of that partition (LIST). 0 or -1 (printed:
 * no such partition, or several interconnects to choose from). */
int acctctl_resolve_pair(struct acctctl_conn *conn, const char *partition,
                         const char *interconnect, char out[ACCT_RULES_NAME_MAX + 1]);

/* SHOW: version if not 0, else the active version of (partition,
 * interconnect), interconnect resolved as acctctl_resolve_pair does;
 * partition NULL too: the only pair there is. The reply is in conn->msg.
 * 0 or -1 (printed). */
int acctctl_op_show(struct acctctl_conn *conn, uint64_t version, const char *partition,
                    const char *interconnect);

/* Active version of (partition, interconnect): 0 and *v, 1 if none, -1 on
 * error (printed). */
int acctctl_active_version(struct acctctl_conn *conn, const char *partition,
                           const char *interconnect, uint64_t *v);

/* DIFF v1 v2: print its lines to stdout, each prefixed with indent. Returns
 * the number of lines, or -1 (printed). */
int acctctl_print_diff(struct acctctl_conn *conn, uint64_t v1, uint64_t v2, const char *indent);

/* The listing commands: connect, send type with the filters of c
 * (partition, interconnect, collective; for LIST_VERSIONS the pair is
 * resolved as acctctl_resolve_pair does), print one row per group field of
 * the reply in c's format. Returns the command's exit code. */
int acctctl_list(const struct acctctl_common *c, unsigned type, unsigned group,
                 const struct acctctl_col *cols, size_t ncols);

/* Read path (a tuning result, or a rules file if its top-level key is
 * acct_rules), IMPORT it; with show_diff, print the changes against the
 * pair's active version; with activate, ACTIVATE it. Reports in the
 * connection's output format. 0 or -1. */
int acctctl_import_file(struct acctctl_conn *conn, const char *path, bool activate,
                        bool show_diff);

#endif
