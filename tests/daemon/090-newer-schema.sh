#!/usr/bin/env bash
# 090: a store whose schema is newer than this acctd knows is refused with
# a clear error (and left untouched); acctd does not start.
. "$(dirname "$0")/lib.sh"
write_config
start_acctd || exit 1
stop_acctd
[ "${SCHEMA:-0}" -lt 99 ] || fail "the test assumes the known schema is below 99"
sqlite3 "$DB" 'PRAGMA user_version = 99' || fail "cannot set user_version"
sum_before=$(sqlite3 "$DB" 'SELECT count(*) FROM sqlite_master')

start_must_fail "a store of a newer schema"
grep -qi 'schema' "$T/start.log" || fail "the error does not mention the schema: $(cat "$T/start.log")"
expect "$T/start.log" "99"
expect "$T/start.log" "$DB"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = 99 ] || fail "acctd changed the newer store's user_version"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM sqlite_master')" = "$sum_before" ] || fail "acctd changed the newer store's schema"
cat "$T/start.log"
finish
