#!/bin/bash
# bench-list-samples.sh ACCTD ACCTD_CLIENT [ROWS] [PARTITIONS]: how long
# LIST_SAMPLES (`acctctl samples -p P`) takes on a store holding ROWS
# per-job sample aggregates (10 jobs per aggregate) spread over PARTITIONS
# partitions (defaults 200000 and 40), with and without filters
# (docs/performance.md, acctd).
# The rows go straight into the store's sample_stats table (SQLite, WAL)
# while acctd runs, as if live samples had been ingested; each figure is the
# median of 21 round trips through acctd-client (its process start, about
# a millisecond, included). Runs on a temporary directory; prints figures
# only (no pass/fail).
set -eu
ACCTD=$1 CLIENT=$2 ROWS=${3:-200000} PARTS=${4:-40}
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_start_acctd "$ACCTD" acctd-list
python3 - "$T/state/acct.db" "$ROWS" "$PARTS" <<'PY'
import sqlite3, sys, random
db, rows, parts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(1)
colls = ["bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter", "barrier"]
con = sqlite3.connect(db, timeout=30)
def gen():  # 10 jobs per aggregate key; keys cycle partitions fastest
    for k in range(rows):
        q, job = divmod(k, 10)
        p = q % parts
        c = colls[(q // parts) % len(colls)]
        n = 2 + 8 * ((q // (parts * len(colls))) % 8)
        b = q // (parts * len(colls) * 8)
        t = 1763856000 + k
        cnt = random.randint(1, 100)
        yield ("p%d" % p, "ib", c, n, b, "binomial", 0, 0, 0, "%d.0" % (1000 + job), 1000 + job,
               cnt, cnt * 10.0, cnt * 100.0, 9.0, 11.0, t, t)
con.executemany("INSERT INTO sample_stats VALUES (" + ",".join("?" * 18) + ")", gen())
con.commit()
con.close()
PY
echo "store: $ROWS sample aggregates over $PARTS partitions, $(du -k "$T/state/acct.db" | cut -f1) kB (+ WAL $(du -k "$T/state/acct.db-wal" 2>/dev/null | cut -f1) kB)"
time_ms() { # median of 21 runs of acctd-client with the arguments, in ms
    for _ in $(seq 21); do
        a=$(date +%s%N)
        "$CLIENT" -s "$SOCK" LIST_SAMPLES "$@" >"$T/out"
        b=$(date +%s%N)
        echo $(((b - a) / 1000))
    done | sort -n | awk '{v[NR] = $1} END {printf "%.2f", v[11] / 1000}'
}
groups() { grep -c '^STAT:' "$T/out" || true; }
printf '%-44s %10s %8s\n' request median_ms groups
for args in "" "PARTITION=p7" "PARTITION=p7 INTERCONNECT=ib" "PARTITION=p7 INTERCONNECT=ib COLLECTIVE=reduce" "COLLECTIVE=reduce"; do
    # shellcheck disable=SC2086
    ms=$(time_ms $args)
    # shellcheck disable=SC2086
    "$CLIENT" -s "$SOCK" LIST_SAMPLES $args >"$T/out"
    printf '%-44s %10s %8s\n' "LIST_SAMPLES ${args:-(all)}" "$ms" "$(groups)"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -TERM $PID
wait $PID || true
PID=
