#!/usr/bin/env bash
# 070: 10,000 samples from 20 concurrent clients (20 jobs), in batches of
# 50: every batch acknowledged, none refused, and the store holds exactly
# what was acknowledged (STATUS samples = timed calls; LIST_SAMPLES sums).
. "$(dirname "$0")/lib.sh"
write_config "samples_per_job: 100000" "samples_per_user_hour: 10000000"
start_acctd || exit 1

"$ACCTD_BENCH" --socket "$SOCK" --partition conc --interconnect tcp --clients 20 \
    --samples 10000 --batch 50 --calls-per-sample 3 ingest >"$T/bench" 2>&1 ||
    fail "acctd-bench ingest failed: $(cat "$T/bench")"
cat "$T/bench"
expect "$T/bench" "10000 samples acknowledged"
expect "$T/bench" "accepted 10000, rejected 0"
expect "$T/bench" "failed clients 0"

ctl 0 status --format tsv
[ "$(tsv_field samples)" = 30000 ] || fail "status: $(tsv_field samples) timed calls stored, expected 30000"
ctl 0 samples -p conc --format tsv
calls=$(awk -F'\t' 'NR > 1 { s += $8 } END { print s + 0 }' "$T/out")
[ "$calls" = 30000 ] || fail "samples: $calls calls listed, expected 30000"
maxjobs=$(awk -F'\t' 'NR > 1 && $9 > m { m = $9 } END { print m + 0 }' "$T/out")
[ "$maxjobs" -ge 2 ] || fail "samples: no aggregate has samples of several jobs"
[ "$(awk -F'\t' 'NR > 1 { print $1 "/" $2 "/" $3 }' "$T/out" | sort -u)" = conc/tcp/bcast ] ||
    fail "samples -p conc lists other partitions or collectives"
ctl 0 samples -p nosuch --format json
[ "$(cat "$T/out")" = "[]" ] || fail "samples -p nosuch: $(cat "$T/out")"
finish
