#!/bin/bash
# bench-acctd.sh ACCTD ACCTD_CLIENT [DAYS] [PARTITIONS]: acctd's performance
# figures (docs/acctd.md "Performance", docs/performance.md).
#   1. a year of versions: PARTITIONS partitions x DAYS daily versions of a
#      200-rule decision map, each imported and activated; then the store's
#      size and the daemon's RSS;
#   2. GET_RULES latency (median, p99, max) over 20000 round trips, with the
#      store of step 1;
#   3. sample ingestion: 1 and 4 concurrent clients sending batches of 4096,
#      wall-clock samples/s and acctd's CPU time per sample (the machine may
#      be shared: CPU time shows what one free core would do).
# Runs on a temporary directory; prints figures only (no pass/fail).
set -eu
ACCTD=$1 CLIENT=$2 DAYS=${3:-365} PARTS=${4:-8}
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_start_acctd "$ACCTD" acctd-bench --samples-per-job 100000000 --samples-per-user-hour 1000000000
C() { "$CLIENT" -s "$SOCK" "$@"; }
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$PID/status"; }

echo "== 1. a year of versions: $PARTS partitions x $DAYS days"
python3 - "$T" "$DAYS" "$PARTS" <<'EOF'
import sys, random
t, days, parts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
algs = ["binomial", "chain", "binary", "linear", "split_binary"]
random.seed(1)
for p in range(parts):
    for d in range(days):
        lines = ["acct_rules: 1",
                 "provenance: {partition: p%d, interconnect: ib, version: 1, source: refined, created: \"2026-%02d-%02dT00:00:00Z\"}" % (p, 1 + d // 31 % 12, 1 + d % 28),
                 "collectives:", "  bcast:"]
        # 20 communicator ranges x 10 byte ranges = 200 rules
        for c in range(20):
            for b in range(10):
                lo = 0 if b == 0 else 1 << (2 * b + 2)
                hi = (1 << (2 * b + 4)) - 1 if b < 9 else "max"
                lines.append("    - {comm_size: [%d, %d], bytes: [%d, %s], algorithm: %s}" %
                             (2 + 16 * c, 17 + 16 * c, lo, hi, random.choice(algs)))
        open("%s/p%d-%d.yaml" % (t, p, d), "w").write("\n".join(lines) + "\n")
EOF
start=$(date +%s.%N)
for d in $(seq 0 $((DAYS - 1))); do
    for p in $(seq 0 $((PARTS - 1))); do
        C IMPORT RULES_TEXT=@"$T/p$p-$d.yaml" ACTIVATE=1 >/dev/null
    done
    [ $((d % 50)) -eq 0 ] && echo "  day $d: RSS $(rss)"
done
end=$(date +%s.%N)
echo "imported $((DAYS * PARTS)) versions in $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b - a}') s"
C STATUS | grep -E 'NVERSIONS|NPAIRS'
echo "store: $(du -k "$T/state/acct.db" | cut -f1) kB (+ WAL $(du -k "$T/state/acct.db-wal" 2>/dev/null | cut -f1) kB); acctd RSS: $(rss)"

echo "== 2. rules fetch"
C bench-rules p0 ib 20000
echo "acctd RSS: $(rss)"

echo "== 3. sample ingestion (batches of 4096)"
for clients in 1 4; do
    a=$(cpu)
    C bench-samples $clients $((40 / clients)) 4096
    b=$(cpu)
    awk -v t=$((b - a)) -v n=$((40 / clients * clients * 4096)) -v hz="$(getconf CLK_TCK)" \
        'BEGIN{printf "  acctd CPU: %.2f us per sample (=> %.0f samples/s per free core)\n", t / hz * 1e6 / n, n / (t / hz)}'
done
echo "acctd RSS: $(rss); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -TERM $PID
wait $PID
PID=
