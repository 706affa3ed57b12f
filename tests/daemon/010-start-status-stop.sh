#!/usr/bin/env bash
# 010: acctd starts in the foreground on an empty directory, creates its
# store (SQLite, WAL, the newest schema of db/) and socket, answers STATUS (table, tsv,
# json), and exits 0 on SIGTERM. acctctl names the socket when acctd is not
# running.
. "$(dirname "$0")/lib.sh"

# No daemon yet: a clear error naming the socket and how to start acctd.
ctl 1 status
expect "$T/err" "cannot connect to acctd at $SOCK"
expect "$T/err" "systemctl start acctd"

write_config
start_acctd || exit 1

ctl 0 status
expect "$T/out" "Node:"
expect "$T/out" "testnode"
ctl 0 status --format tsv
[ -n "$SCHEMA" ] || fail "no db/NNNN_*.sql found in ${ACCT_DB_DIR:-?}"
[ "$(tsv_field schema)" = "$SCHEMA" ] || fail "status: schema $(tsv_field schema), expected $SCHEMA"
[ "$(tsv_field db_path)" = "$DB" ] || fail "status: db_path $(tsv_field db_path), expected $DB"
[ "$(tsv_field pairs)" = 0 ] || fail "status: $(tsv_field pairs) pairs in a new store"
[ "$(tsv_field samples)" = 0 ] || fail "status: $(tsv_field samples) samples in a new store"
ctl 0 status --format json --check
jq -e --argjson s "${SCHEMA:-0}" '.node == "testnode" and .integrity == "ok" and .schema == $s' "$T/out" >/dev/null ||
    fail "status --format json --check: unexpected $(cat "$T/out")"
ctl 0 partitions
expect "$T/out" "(none)"
# --socket wins over ACCT_SOCKET; ACCT_SOCKET over the default.
ACCT_SOCKET=$T/nowhere.sock ctl 0 status --socket "$SOCK"
ACCT_SOCKET=$T/nowhere.sock ctl 1 status
expect "$T/err" "cannot connect to acctd at $T/nowhere.sock"
if [ ! -e /run/acct/acctd.sock ]; then # (a real acctd on this host would answer)
    ACCT_SOCKET= ctl 1 status
    expect "$T/err" "cannot connect to acctd at /run/acct/acctd.sock"
fi

[ -S "$SOCK" ] || fail "no socket at $SOCK"
[ -f "$DB" ] || fail "no store at $DB"
[ "$(sqlite3 "$DB" 'PRAGMA journal_mode')" = wal ] || fail "the store is not in WAL mode"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = "$SCHEMA" ] || fail "the store's user_version is not $SCHEMA"

stop_acctd
[ "${STOP_STATUS:-x}" = 0 ] || fail "acctd exited with status ${STOP_STATUS:-?} on SIGTERM"
finish
