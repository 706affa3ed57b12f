#!/usr/bin/env bash
# 150: acctd keeps serving under load from anybody (docs/acctd.md, "Limits"):
#   1. 30 connections of one user that ask LIST_SAMPLES and never read do not
#      make acctd's memory grow with the store (replies are pages, a
#      connection with unsent output starts no request, a uid's queued output
#      is bounded): RSS from /proc stays within 200 MB of where it was
#      (unpaged, it was 30 whole listings of ~25 MB);
#   2. root is served while four users hold every connection users may have
#      (reserved_clients), and a fifth user is refused with LIMIT;
#   3. idle connections are closed after idle_timeout;
#   4. sample_rows_per_user caps a uid's rows, also after a restart, and
#      the rows pruned after sample_max_age_days count no more;
#   5. STATUS CHECK=1 is refused to users;
#   6. GET_RULES is answered while another process holds the store's write
#      lock, and the writes that waited for it are stored once it is gone;
#   7. TCP peers: at most tcp_per_address from one address, and one that
#      does not AUTH is dropped after auth_timeout.
# The users are real unprivileged users made here (needs root).
. "$(dirname "$0")/lib.sh"
need_root
ensure_test_user || exit 1
LOAD_USERS="acct-load-u1 acct-load-u2 acct-load-u3 acct-load-u4"
for u in $LOAD_USERS; do
    id -u "$u" >/dev/null 2>&1 || useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$u" \
        2>/dev/null || id -u "$u" >/dev/null 2>&1 || { fail "useradd $u"; exit 1; }
done
as_user() { # as_user NAME CMD...: run CMD as the unprivileged user NAME
    local u=$1
    shift
    setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups "$@"
}
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$ACCTD_PID/status"; }
# wait_for FILE PATTERN [SECONDS]: until FILE has a line matching PATTERN
wait_for() {
    local i
    for i in $(seq $((${3:-30} * 10))); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
bg_pids=
start_bg() { # start_bg OUT USER CMD...: CMD as USER in the background (its own PID)
    setpriv --reuid="$(id -u "$2")" --regid="$(id -g "$2")" --clear-groups "${@:3}" \
        >"$1" 2>&1 &
    bg_pids="$bg_pids $!"
    EXTRA_PIDS=$bg_pids
}
stop_bg() {
    local p
    for p in $bg_pids; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    bg_pids=
    EXTRA_PIDS=
}

# ---- 1. LIST_SAMPLES readers that never read -----------------------------------
write_config "max_clients: 160" "idle_timeout: 3600" "client_timeout: 3600"
start_acctd || exit 1
# 100 000 aggregates (~25 MB as one unpaged reply), written straight into the
# store as if ingested (bench-list-samples.sh does the same)
python3 - "$DB" <<'PY' || fail "cannot fill the store"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=30)
colls = ["bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter", "barrier"]
con.executemany("INSERT INTO sample_stats VALUES (" + ",".join("?" * 18) + ")",
                (("p%d" % (k % 50), "ib", colls[(k // 50) % 8], 2 + k // 400, 1, "binomial",
                  0, 0, 0, "1.0", 4242, 3, 30.0, 300.0, 9.0, 11.0, 1763856000, 1763856000)
                 for k in range(100000)))
con.commit()
PY
ctl 0 samples --format tsv
[ "$(($(wc -l <"$T/out") - 1))" -eq 100000 ] ||
    fail "acctctl samples (root, paged) listed $(($(wc -l <"$T/out") - 1)) aggregates, expected 100000"
as_user "$TEST_USER" "$ACCTCTL" samples -p p7 --format tsv >"$T/user-samples" 2>&1 ||
    fail "acctctl samples as a user: $(head -3 "$T/user-samples")"
[ "$(($(wc -l <"$T/user-samples") - 1))" -eq 2000 ] ||
    fail "acctctl samples -p p7 as a user (pages of 1000): $(($(wc -l <"$T/user-samples") - 1)) aggregates, expected 2000"
before=$(rss_kb)
start_bg "$T/noread" "$TEST_USER" "$ACCTD_RAW" "$SOCK" noread 30:20:600
wait_for "$T/noread" "noread: connections=30" || fail "noread: $(cat "$T/noread")"
# Every request the readers sent is in acctd's sockets now: the rounds that
# serve these STATUS requests serve the readers too. Then look at the peak.
for _ in 1 2 3; do ctl 0 status; done
for _ in $(seq 20); do sleep 0.1; ctl 0 status; done
after=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$ACCTD_PID/status")
echo "$TEST_NAME: RSS ${before} kB before, peak ${after} kB with 30 readers that never read"
[ $((after - before)) -lt 204800 ] ||
    fail "30 connections that do not read took acctd from $before kB to a peak of $after kB"
ctl 0 samples -p p7 --format tsv
[ "$(($(wc -l <"$T/out") - 1))" -eq 2000 ] || fail "root's listing during the attack is incomplete"
stop_bg
acctd_alive || fail "acctd died under the readers"
stop_acctd
fresh() { rm -rf "$T/state" "$T/run"; }
fresh

# ---- 2. root while users hold every user slot --------------------------------------
# max_clients 16: a quarter (4) per uid, 2 reserved for root and the admin group
write_config "max_clients: 16" "reserved_clients: 2" "idle_timeout: 3600"
start_acctd || exit 1
n=0
for u in $LOAD_USERS; do
    n=$((n + 1))
    start_bg "$T/idle$n" "$u" "$ACCTD_RAW" "$SOCK" idle 4:600
    wait_for "$T/idle$n" "idle: answered" || fail "idle $u: $(cat "$T/idle$n")"
done
held=$(cat "$T"/idle? | sed -n 's/.*answered=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$held" -eq 14 ] || fail "four users hold $held connections, expected the 14 users may have: $(cat "$T"/idle?)"
as_user "$TEST_USER" "$ACCTD_RAW" "$SOCK" idle 1:0 >"$T/fifth" 2>&1
expect "$T/fifth" "idle: answered=0 limited=1"
for _ in 1 2 3; do
    ctl 0 status
    ctl 0 partitions
done
grep -q "reserved_clients" "$LOG" || fail "the refusal does not name reserved_clients"
stop_bg
stop_acctd
fresh

# ---- 3. idle connections are closed ------------------------------------------------
write_config "idle_timeout: 2"
start_acctd || exit 1
as_user "$TEST_USER" "$ACCTD_RAW" "$SOCK" idle 3:60 >"$T/idle" 2>&1
expect "$T/idle" "idle: answered=3 limited=0"
expect "$T/idle" "idle: closed=3 of 3"
ms=$(sed -n 's/.*after \([0-9]*\) ms.*/\1/p' "$T/idle")
[ "${ms:-0}" -ge 1000 ] || fail "idle connections closed after ${ms:-?} ms, before idle_timeout (2 s)"
ctl 0 status
stop_acctd
fresh

# ---- 4. rows per user --------------------------------------------------------------
write_config "sample_rows_per_user: 50" "refine_interval: 1" "sample_max_age_days: 1"
start_acctd || exit 1
rows_ingest() { # rows_ingest USER JOB_BASE SAMPLES: 1 call per sample, distinct rows
    register_step "$2.0" "$(id -u "$1")" rows tcp # as spank_acct does (docs/acctd.md, "Job identity")
    as_user "$1" "$ACCTD_BENCH" --socket "$SOCK" --partition rows --interconnect tcp \
        --job-base "$2" --clients 1 --samples "$3" --batch 40 --calls-per-sample 1 ingest \
        >"$T/bench" 2>&1
}
rows_ingest "$TEST_USER" 100 80
expect "$T/bench" "accepted 50, rejected 30"
stop_acctd
start_acctd || exit 1 # the count comes back from the store
rows_ingest "$TEST_USER" 200 40
expect "$T/bench" "accepted 0, rejected 40"
rows_ingest acct-load-u1 300 40
expect "$T/bench" "accepted 40, rejected 0"
ctl 0 status --format tsv
[ "$(tsv_field samples)" = 90 ] || fail "calls stored: $(tsv_field samples), expected 50 + 40"
# The user's rows age out (as if 3 days old): the background pass prunes
# them and the user may store rows again.
stop_acctd
sqlite3 "$DB" "UPDATE sample_stats SET first_at = first_at - 259200, last_at = last_at - 259200 WHERE uid = $(id -u "$TEST_USER")"
start_acctd || exit 1
for _ in $(seq 300); do
    ctl 0 status --format tsv
    [ "$(tsv_field samples)" = 40 ] && break
    sleep 0.1
done
[ "$(tsv_field samples)" = 40 ] || fail "old rows not pruned: $(tsv_field samples) calls stored, expected 40"
rows_ingest "$TEST_USER" 400 40
expect "$T/bench" "accepted 40, rejected 0"

# ---- 5. STATUS CHECK=1 -------------------------------------------------------------
as_user "$TEST_USER" "$ACCTCTL" status --check >"$T/check" 2>&1 &&
    fail "status --check as a user succeeded: $(cat "$T/check")"
expect "$T/check" "needs root or the admin group"
ctl 0 status --check
expect "$T/out" "ok"
stop_acctd
fresh

# ---- 6. GET_RULES while another process holds the write lock ----------------------
write_config
start_acctd || exit 1
ctl 0 import "$ACCT_TEST_DATA/rules-eth-a.yaml" --activate
pair=eth/tcp-1g # rules-eth-a.yaml
python3 - "$DB" "$T/release" >"$T/lock" 2>&1 <<'PY' &
import os, sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
con.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
for _ in range(1200):  # at most 120 s
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.1)
con.execute("ROLLBACK")
print("released", flush=True)
PY
bg_pids="$bg_pids $!"
EXTRA_PIDS=$bg_pids
wait_for "$T/lock" "locked" || fail "the lock holder did not start: $(cat "$T/lock")"
# four writers: with a 5 s busy wait per write in the loop this took >= 20 s a round
for c in 1 2 3 4; do
    "$ACCTD_BENCH" --socket "$SOCK" --partition lock --interconnect tcp --job-base $((c * 1000)) \
        --clients 1 --samples 200 --batch 20 --calls-per-sample 1 ingest >"$T/writer$c" 2>&1 &
    bg_pids="$bg_pids $!"
done
EXTRA_PIDS=$bg_pids
wait_for "$LOG" "locked by another process: writes wait" || fail "no write request met the lock"
slow=0
for _ in $(seq 5); do
    t0=$(date +%s%N)
    "$ACCTD_RAW" "$SOCK" get-rules "$pair" >"$T/get" 2>&1
    t1=$(date +%s%N)
    expect "$T/get" "reply=GET_RULES err=-"
    [ $(((t1 - t0) / 1000000)) -lt 3000 ] || slow=$((slow + 1))
done
[ "$slow" -eq 0 ] || fail "$slow of 5 GET_RULES took 3 s or more while another process held the write lock"
ctl 0 status --format tsv
[ "$(tsv_field samples)" = 0 ] || fail "samples stored while another process held the write lock"
touch "$T/release"
for c in 1 2 3 4; do
    wait_for "$T/writer$c" "^ingest: " 60 || fail "writer $c did not finish: $(cat "$T/writer$c")"
    expect "$T/writer$c" "accepted 200, rejected 0"
done
ctl 0 status --format tsv
[ "$(tsv_field samples)" = 800 ] || fail "after the lock: $(tsv_field samples) calls stored, expected 800"
stop_bg
acctd_alive || fail "acctd died"
stop_acctd
fresh

# ---- 7. TCP: per source address, AUTH deadline ---------------------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
write_config "listen: 127.0.0.1:$port" "tcp_per_address: 3" "auth_timeout: 2"
start_acctd || exit 1
"$ACCTD_RAW" "127.0.0.1:$port" tcp-silent 5:30 >"$T/tcp" 2>&1
expect "$T/tcp" "tcp-silent: limited=2 dropped=3 other=0 open=0"
ms=$(sed -n 's/.*last drop after \([0-9]*\) ms.*/\1/p' "$T/tcp")
[ "${ms:-0}" -ge 1000 ] || fail "silent TCP peers dropped after ${ms:-?} ms, before auth_timeout (2 s)"
grep -q "tcp_per_address 3" "$LOG" || fail "the refusal does not name tcp_per_address"
ctl 0 status
stop_acctd
[ "${STOP_STATUS:-x}" = 0 ] || fail "acctd exited with status ${STOP_STATUS:-?} on SIGTERM"
finish
