#!/usr/bin/env bash
# 260: acctctl diff says per differing decision whether it is beyond noise,
# from the two versions' stored tuning results (GET_RESULT, issue 23):
# run A and run B decide bcast on 4 ranks differently at 4K, 64K and 1M.
# 64K: both runs timed both methods 2x apart (A by its measurements, B by
# its race) -> beyond noise; 1M: A timed both 1 % apart inside the
# measurements' spread, B not -> within noise; 4K: neither run timed the
# other's method -> unknown (no timings). show and retune's confidence
# lines come from the same results.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
write_config
start_acctd || exit 1

ctl 0 import "$D/result-noise-a.yaml"
expect "$T/out" "as version 1 of eth/tcp-1g"
ctl 0 import "$D/result-noise-b.yaml"
expect "$T/out" "as version 2 of eth/tcp-1g"

ctl 0 diff 1 2
expect "$T/out" "noise: bcast comm_size 4 bytes 64K: pipeline:8K -> native: beyond noise (v1: 2.000x, band 2.0 %, search; v2: 1.900x, band 3.0 %, race)"
expect "$T/out" "noise: bcast comm_size 4 bytes 1M: binomial -> chain: within noise (v1: 1.010x, band 2.0 %, search; v2: no timings)"
expect "$T/out" "noise: bcast comm_size 4 bytes 4K: linear -> binary: unknown (no timings) (v1: no timings; v2: no timings)"
expect "$T/out" "noise: 3 differing decisions at timed points: 1 beyond noise, 1 within noise, 1 unknown (no timings)"
# the other way round: the same classes
ctl 0 diff 2 1 --format json
jq -e '[.[] | select(.change | startswith("noise: 3 differing decisions at timed points: 1 beyond noise, 1 within noise, 1 unknown"))] | length == 1' \
    "$T/out" >/dev/null || fail "diff 2 1 --format json: no summary row: $(cat "$T/out")"
jq -e '[.[] | select(.change | test("bytes 64K: native -> pipeline:8K: beyond noise"))] | length == 1' \
    "$T/out" >/dev/null || fail "diff 2 1: 64K not beyond noise: $(cat "$T/out")"

# a version without a run (a rules file): A's timings alone, none for the
# methods the rules file picks
ctl 0 import "$D/rules-eth-a.yaml"
expect "$T/out" "as version 3 of eth/tcp-1g"
ctl 0 diff 1 3
expect "$T/out" "noise: bcast comm_size 4 bytes 64K: pipeline:8K -> binomial:8K: unknown (no timings) (v1: no timings; v3: no tuning result)"
expect "$T/out" "noise: 3 differing decisions at timed points: 0 beyond noise, 0 within noise, 3 unknown (no timings)"
ctl 0 show -V 3
expect "$T/out" "confidence: unknown (version 3 of eth/tcp-1g has no tuning result: it comes from no tuning run (source manual))"

# show: the confidence of the version's run
ctl 0 show -V 2
expect "$T/out" "confidence of tuning run r-noise-b: no noise section"
expect "$T/out" "bcast: 2 points: 1 settled by test, 0 equivalent, 0 capped, 1 unraced; A/A 2.0 % (max 2.0 %)"
ctl 0 show -V 1
expect "$T/out" "confidence of tuning run r-noise-a: A/A noise 1.0 % (max 1.0 %, 1 pairs), repeat spread 2.0 % (90th percentile 2.0 %), load n1 1.5 -> 2.0, n2 0.5 -> 0.8"
expect "$T/out" "bcast: 3 points: 0 settled by test, 0 equivalent, 0 capped, 3 unraced"
finish
