#!/bin/bash
# bench-acctd-lock.sh ACCTD ACCTD_CLIENT ACCTD_BENCH RULES [N]: GET_RULES
# latency while another process holds the store's write lock and four
# writers wait for it (docs/performance.md §7, docs/acctd.md "The store"):
# N round trips (default 20000) of `acctd-client bench-rules` on an
# unlocked store, then with a Python sqlite3 connection in BEGIN IMMEDIATE
# and 4 acctd-bench clients each sending 10 batches of 20 samples; then the
# lock goes and the writers' results are printed (all 200 should be
# accepted). Runs on a temporary directory; prints figures only.
set -eu
ACCTD=$1 CLIENT=$2 BENCH=$3 RULES=$4 N=${5:-20000}
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_start_acctd "$ACCTD" acctd-lock --log-level info
C() { "$CLIENT" -s "$SOCK" "$@"; }
C IMPORT RULES_TEXT=@"$RULES" ACTIVATE=1 >"$T/import"
pair=$(sed -n 's/^PARTITION=//p' "$T/import" | head -1)/$(sed -n 's/^INTERCONNECT=//p' "$T/import" | head -1)
echo "unlocked:"
C bench-rules "${pair%/*}" "${pair#*/}" "$N"
python3 - "$T/state/acct.db" "$T/release" >"$T/lock" 2>&1 <<'PY' &
import os, sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
con.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
for _ in range(6000):  # at most 5 minutes
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
con.execute("ROLLBACK")
PY
holder=$!
for _ in $(seq 200); do grep -q locked "$T/lock" && break; sleep 0.05; done
writers=
for c in 1 2 3 4; do
    "$BENCH" --socket "$SOCK" --partition lock --interconnect tcp --job-base $((c * 1000)) \
        --clients 1 --samples 200 --batch 20 ingest >"$T/w$c" 2>&1 &
    writers="$writers $!"
done
for _ in $(seq 200); do grep -q "writes wait" "$T/log" && break; sleep 0.05; done
echo "locked by another process, 4 writers waiting:"
C bench-rules "${pair%/*}" "${pair#*/}" "$N"
touch "$T/release"
wait "$holder"
for w in $writers; do wait "$w" || true; done
for c in 1 2 3 4; do sed -n 's/.*\(accepted [0-9]*, rejected [0-9]*\).*/writer '$c': \1/p' "$T/w$c"; done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -TERM $PID
wait $PID || true
PID=
