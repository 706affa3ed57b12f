#!/usr/bin/env bash
# 050: malformed messages. Each is answered with the error docs/protocol.md
# names (framing and encoding errors: the connection is closed; request
# errors: it is kept), the daemon survives every one and keeps serving
# other clients; a client holding half a message is dropped after
# client_timeout without holding up others; connections over max_clients
# are refused with LIMIT.
. "$(dirname "$0")/lib.sh"
write_config "client_timeout: 5" "max_clients: 16"
start_acctd || exit 1

# raw CASE EXPECTED...: acctd-raw's line has every EXPECTED word; the daemon
# is alive and answers afterwards.
raw() {
    local c=$1 w
    shift
    "$ACCTD_RAW" "$SOCK" $c >"$T/raw" 2>&1
    for w in "$@"; do
        grep -qF -- "$w" "$T/raw" || fail "$c: expected \"$w\" in: $(cat "$T/raw")"
    done
    acctd_alive || { fail "acctd died after case $c"; return; }
    "$ACCTCTL" status >/dev/null 2>&1 || fail "acctd does not answer after case $c"
}

raw bad-magic "reply=ERROR" "err=BAD_MESSAGE" "closed=yes"
raw bad-version "reply=ERROR" "err=VERSION" "closed=yes"
raw too-large "reply=ERROR" "err=TOO_LARGE" "closed=yes"
raw field-overrun "reply=ERROR" "err=BAD_MESSAGE" "closed=yes"
raw bad-u64 "reply=ERROR" "err=BAD_MESSAGE" "closed=yes"
raw nul-string "reply=ERROR" "err=BAD_MESSAGE" "closed=yes"
raw nested-group "reply=ERROR" "err=BAD_MESSAGE" "closed=yes"
raw nonfinite "reply=ERROR" "err=BAD_MESSAGE" "closed=yes"
raw garbage "err=BAD_MESSAGE" "closed=yes"
raw truncated "closed=yes"
raw unknown-type "reply=ERROR" "err=UNKNOWN_TYPE" "closed=no"
raw missing-field "reply=ERROR" "err=INVALID" "closed=no"
raw bad-samples "reply=SAMPLES" "closed=no" "accepted=1 rejected=2"
raw pipelined "pipelined: reply=STATUS" "pipelined: reply=LIST"
[ "$(grep -c '^pipelined: reply=' "$T/raw")" -eq 2 ] || fail "pipelined: not two replies"
[ "$(head -1 "$T/raw" | grep -c STATUS)" -eq 1 ] || fail "pipelined: replies out of order"

# A slow client (half a header) does not hold up others, and is dropped
# after client_timeout (5 s).
"$ACCTD_RAW" "$SOCK" hold 15 >"$T/hold" 2>&1 &
holder=$!
EXTRA_PIDS=$holder
sleep 0.5
t0=$(date +%s%N)
"$ACCTCTL" status >/dev/null 2>&1 || fail "status while a client holds half a message"
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -lt 3000 ] || fail "status took $(((t1 - t0) / 1000000)) ms while a client held half a message"
wait "$holder"
EXTRA_PIDS=
grep -q 'closed=yes' "$T/hold" || fail "the slow client was not dropped within 15 s: $(cat "$T/hold")"

# More connections than max_clients (16): the extra ones get LIMIT.
"$ACCTD_RAW" "$SOCK" flood 40 >"$T/flood" 2>&1
answered=$(sed -n 's/.*answered=\([0-9]*\).*/\1/p' "$T/flood")
limited=$(sed -n 's/.*limited=\([0-9]*\).*/\1/p' "$T/flood")
[ "${answered:-0}" -ge 1 ] && [ "${answered:-99}" -le 16 ] || fail "flood: $(cat "$T/flood")"
[ "${limited:-0}" -ge 24 ] || fail "flood: fewer than 24 refused: $(cat "$T/flood")"
acctd_alive || fail "acctd died after the flood"
ctl 0 status

stop_acctd
[ "${STOP_STATUS:-x}" = 0 ] || fail "acctd exited with status ${STOP_STATUS:-?} on SIGTERM"
finish
