#!/usr/bin/env bash
# 160: one acctd per state directory, and the socket is acctd's own.
#  1. A second acctd on the same state directory (another socket, or the
#     same one) refuses to start, names the first one's pid, and leaves the
#     first one's socket and store alone.
#  2. A removed socket is noticed and re-created (a log line); acctctl
#     reaches the same acctd again, without a restart.
#  3. A socket path replaced by another socket file (rename over it) is
#     left alone, and acctd's exit does not unlink it: only the file acctd
#     bound itself (st_dev, st_ino) is removed at exit.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
write_config
start_acctd || exit 1
ctl 0 import "$D/rules-eth-a.yaml" --activate
first=$ACCTD_PID

# 1. a second acctd on the same state directory
for sock in "$T/run/second.sock" "$SOCK"; do
    "$ACCTD" -f -c "$CONF" --socket "$sock" >"$T/second.log" 2>&1 &
    second=$!
    EXTRA_PIDS=$second
    for i in $(seq 100); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$second" 2>/dev/null; then
        fail "a second acctd on $T/state (socket $sock) is still running after 10 s"
        kill -TERM "$second"
    fi
    wait "$second"
    st=$?
    EXTRA_PIDS=
    [ "$st" = 1 ] || fail "second acctd (socket $sock): exit status $st, expected 1"
    expect "$T/second.log" "another acctd (pid $first) holds $T/state/acctd.lock"
    expect "$T/second.log" "refusing to start a second one on it"
    [ -e "$T/run/second.sock" ] && fail "the refused acctd created its socket"
    [ -S "$SOCK" ] || fail "the first acctd's socket is gone after a refused second start (socket $sock)"
    ctl 0 status --format tsv
    [ "$(tsv_field pairs)" = 1 ] || fail "the first acctd does not answer as before"
done
[ "$(cat "$T/state/acctd.lock")" = "$first" ] || fail "acctd.lock holds \"$(cat "$T/state/acctd.lock")\", not the pid $first"

# 2. the socket removed: acctd notices and makes a new one
ino_before=$(stat -c %i "$SOCK")
rm -f "$SOCK"
ok=
for i in $(seq 300); do
    if [ -S "$SOCK" ] && "$ACCTCTL" status >/dev/null 2>&1; then ok=1; break; fi
    sleep 0.1
done
[ -n "$ok" ] || fail "acctd did not re-create its removed socket within 30 s"
grep -qF "$SOCK had vanished: listening on a new socket there" "$LOG" || fail "no log line for the vanished socket"
ctl 0 show -p eth -i tcp-1g
expect "$T/out" "Partition:     eth"
[ "$(stat -c %a "$SOCK")" = 666 ] || fail "the re-created socket has mode $(stat -c %a "$SOCK"), expected socket_mode 0666"
acctd_alive || fail "acctd died"
[ "$(stat -c %i "$SOCK")" != "$ino_before" ] || fail "same inode after re-creation?"

# 3. another socket renamed over the path: acctd leaves it, and does not
# unlink it at exit
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' \
    "$T/run/other.sock" || fail "cannot make a socket file with python3"
ino_other=$(stat -c %i "$T/run/other.sock")
mv -f "$T/run/other.sock" "$SOCK"
ok=
for i in $(seq 300); do
    grep -qF "$SOCK is no longer the socket this acctd bound" "$LOG" && { ok=1; break; }
    sleep 0.1
done
[ -n "$ok" ] || fail "acctd did not notice within 30 s that its socket path is another file"
[ "$(stat -c %i "$SOCK")" = "$ino_other" ] || fail "acctd replaced the foreign socket"
stop_acctd
[ "${STOP_STATUS:-}" = 0 ] || fail "acctd exited with ${STOP_STATUS:-?}"
[ -S "$SOCK" ] || fail "acctd's exit unlinked a socket it did not bind"
[ "$(stat -c %i "$SOCK" 2>/dev/null)" = "$ino_other" ] || fail "the socket file at $SOCK changed"
grep -qF "$SOCK is not the socket this acctd bound: not removing it" "$LOG" || fail "no log line at exit"

# the lock went with the first acctd: a new one starts on the same state
# directory (it replaces the stale socket file nobody answers on) and its
# exit removes its own socket
rm -f "$T/run/other.sock"
start_acctd || exit 1
[ "$(cat "$T/state/acctd.lock")" = "$ACCTD_PID" ] || fail "acctd.lock does not hold the new pid"
stop_acctd
[ -e "$SOCK" ] && fail "acctd's exit left its own socket behind"
finish
