#!/bin/sh
# tools/perf/acct-race-cost on a result with one race (valid-races.yaml):
# the race's cost keys are read (24 race experiments, 0.5 s, against 40 and
# 1.25 s of search: 0.60x, 0.40x), the search's pick is the race's winner,
# and the drift against native is 0.99 (race 1/1.61 over search 300.5/480).
# A result without the cost keys is estimated and says so ("(est)"); a
# finalist marked search_pick is the search's pick.
set -eu
py=$1 src=$2
tool=$src/tools/perf/acct-race-cost
data=$src/tests/unit/results/valid-races.yaml
out=$("$py" "$tool" --points "$data")
fail() { echo "race_cost: $*"; echo "$out"; exit 1; }
echo "$out" | grep -q "^valid-races.yaml	bcast:4:65536	40	1.25	8	3	24	0.50	pipeline:8K	pipeline:8K	1.000	winner	test$" ||
    fail "the race's row"
echo "$out" | grep -q "^all: 1 races; search 40 experiments 1.2 s, races 24 experiments 0.5 s: 0.60x the experiments, 0.40x the seconds" ||
    fail "the summary"
echo "$out" | grep -q "^  rank 1: 1 finalists, 0.99$" || fail "the drift against native"
tmp=${TMPDIR:-/tmp}/race_cost.$$
sed '/^     experiments: 24/d' "$data" > "$tmp.yaml"
out=$("$py" "$tool" "$tmp.yaml")
rm -f "$tmp.yaml"
echo "$out" | grep -q "^(est) .*estimated search" || fail "no cost keys: not estimated"
# the search's pick as marked (search_pick: true, here on native) wins over
# the lowest median of the measurements (pipeline's)
sed 's/ratio: 1.61, p: 0.00390625}/ratio: 1.61, p: 0.00390625, search_pick: true}/' "$data" > "$tmp.yaml"
out=$("$py" "$tool" --points "$tmp.yaml")
rm -f "$tmp.yaml"
echo "$out" | grep -q "	bcast:4:65536	40	1.25	8	3	24	0.50	native	pipeline:8K	1.610	separated	test$" ||
    fail "the marked search's pick"
echo "race_cost: ok"
