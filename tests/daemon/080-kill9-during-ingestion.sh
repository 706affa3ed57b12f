#!/usr/bin/env bash
# 080: kill -9 while 8 clients send samples, then restart on the same
# store: no acknowledged sample is lost (stored calls >= acknowledged
# calls, and at most the batches in flight more), the decision versions and
# the rules file are intact, and PRAGMA integrity_check says ok.
. "$(dirname "$0")/lib.sh"
write_config "samples_per_job: 100000000" "samples_per_user_hour: 1000000000"
start_acctd || exit 1
ctl 0 import "$ACCT_TEST_DATA/rules-eth-a.yaml" --activate

"$ACCTD_BENCH" --socket "$SOCK" --partition crash --interconnect tcp --clients 8 \
    --samples 4000000 --batch 100 --calls-per-sample 3 --ack-log "$T/acks" ingest \
    >"$T/bench" 2>&1 &
bench=$!
EXTRA_PIDS=$bench
for i in $(seq 300); do
    [ -f "$T/acks" ] && [ "$(wc -l <"$T/acks")" -ge 40 ] && break
    sleep 0.1
done
[ "$(wc -l <"$T/acks" 2>/dev/null || echo 0)" -ge 40 ] || fail "fewer than 40 batches acknowledged in 30 s"
crash_acctd
wait "$bench"
EXTRA_PIDS=
acked=$(awk '{ s += $2 } END { print s + 0 }' "$T/acks")
echo "$TEST_NAME: $(wc -l <"$T/acks") batches ($acked calls) acknowledged before kill -9"

start_acctd || exit 1
ctl 0 status --format tsv
stored=$(tsv_field samples)
inflight=$((8 * 100 * 3))
[ "${stored:-0}" -ge "$acked" ] || fail "after kill -9: $stored calls stored, $acked acknowledged"
[ "${stored:-0}" -le $((acked + inflight)) ] || fail "after kill -9: $stored calls stored, more than $acked acknowledged + $inflight in flight"
ctl 0 show -p eth --format tsv
[ "$(awk -F'\t' 'NR == 2 { print $1 }' "$T/out")" = 1 ] || fail "the active version did not survive"
ctl 0 validate "$T/run/rules/eth/tcp-1g.yaml"
ctl 0 status --check
expect "$T/out" "ok"
stop_acctd
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "PRAGMA integrity_check is not ok"
finish
