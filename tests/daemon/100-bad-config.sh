#!/usr/bin/env bash
# 100: a corrupt config is rejected with FILE:LINE:COLUMN: FIELD: message
# (unknown key, bad value, YAML syntax error), acctd exits non-zero and
# serves nothing; -t checks a config without starting.
. "$(dirname "$0")/lib.sh"

# start_bad LINE...: the config with LINE appended (as line $L on); acctd
# must exit non-zero within 10 s. Its output is in $T/start.log.
start_bad() {
    write_config "$@"
    start_must_fail "a bad config ($*)"
}

write_config
L=$(($(wc -l <"$CONF") + 1)) # the line of the first appended line

start_bad "bogus_key: 1"
expect "$T/start.log" "$CONF:$L:1: bogus_key: unknown key"

start_bad "max_clients: 0"
expect "$T/start.log" "$CONF:$L:14: max_clients: 0 is out of range"

start_bad "max_clients: lots"
expect "$T/start.log" "$CONF:$L:14: max_clients:"

start_bad "log_level: chatty"
expect "$T/start.log" "$CONF:$L:12: log_level: unknown level"

start_bad "state_dir: [unclosed"
expect "$T/start.log" "$CONF:"

# -t: check only
write_config
run 0 "$ACCTD" -t -c "$CONF"
[ -e "$DB" ] && fail "acctd -t created the store"
write_config "bogus_key: 1"
run 1 "$ACCTD" -t -c "$CONF"
cat "$T/out" "$T/err" | grep -qF "$CONF:$L:1: bogus_key: unknown key" || fail "acctd -t: no FILE:LINE:COLUMN for the bad key"
finish
