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
out=$("$py" "$tool" --replay none --points "$data")
fail() { echo "race_cost: $*"; echo "$out"; exit 1; }
echo "$out" | grep -q "^valid-races.yaml	bcast:4:65536	40	1.25	8	3	24	0.50	pipeline:8K	pipeline:8K	1.000	winner	test$" ||
    fail "the race's row"
echo "$out" | grep -q "^all: 1 races; search 40 experiments 1.2 s, races 24 experiments 0.5 s: 0.60x the experiments, 0.40x the seconds" ||
    fail "the summary"
echo "$out" | grep -q "^  rank 1: 1 finalists, 0.99$" || fail "the drift against native"
tmp=${TMPDIR:-/tmp}/race_cost.$$
sed '/^     experiments: 24/d' "$data" > "$tmp.yaml"
out=$("$py" "$tool" --replay none "$tmp.yaml")
rm -f "$tmp.yaml"
echo "$out" | grep -q "^(est) .*estimated search" || fail "no cost keys: not estimated"
# the search's pick as marked (search_pick: true, here on native) wins over
# the lowest median of the measurements (pipeline's)
sed 's/ratio: 1.61, p: 0.00390625,$/ratio: 1.61, p: 0.00390625, search_pick: true,/' "$data" > "$tmp.yaml"
out=$("$py" "$tool" --replay none --points "$tmp.yaml")
echo "$out" | grep -q "	bcast:4:65536	40	1.25	8	3	24	0.50	native	pipeline:8K	1.610	separated	test$" ||
    fail "the marked search's pick"
# at the same penalty: the search alone keeps native at 1.61x the race's
# winner (beyond 3 %) for 1.25 s; search + race 1.75 s, 1.40x
echo "$out" | grep -q "	1	1 (1)	0	1.610	1.610	1	1.610	1.2	0.5	1.40	exact$" ||
    fail "the penalty row"
echo "$out" | grep -q "^bcast	4	64K	1	1	0	1.610	1.610	1	1.610	1.25	0.50	0.40$" ||
    fail "the per-point row"
# where it can save, without replay: cap 4 < the 5 rounds a test needs at
# alpha 0.05: native wins (rule 6), 1.61x the race's winner; 4 of 8 rounds
# saved (0.25 s); cap 8: the race ran 8, unchanged
echo "$out" | grep -q "^cap 4	0.2	14.3 %	50.0 %	unchanged at 0 (ended by round 4); winner native at 1 (rule 6: 4 rounds cannot reach p < alpha), changed at 1: native / the full race's winner median 1.610" ||
    fail "cap 4"
echo "$out" | grep -q "^cap 8	0.0	0.0 %	0.0 %	unchanged at 1 (ended by round 8)$" || fail "cap 8"
# two runs of one name: labelled by their directories
mkdir -p "$tmp.a" "$tmp.b"
cp "$tmp.yaml" "$tmp.a/r.yaml"
cp "$data" "$tmp.b/r.yaml"
out=$("$py" "$tool" --replay none "$tmp.a/r.yaml" "$tmp.b/r.yaml")
echo "$out" | grep -q "^race_cost.$$.a/r.yaml	1	1 (1)	0	1.610" || fail "run labels"
echo "$out" | grep -q "^pooled	2	2 (1)	1	1.305	" || fail "pooled: $out"
rm -rf "$tmp.a" "$tmp.b"
# bad input: file, line, field
sed 's/ratio: 1.61, //' "$data" > "$tmp.yaml"
if "$py" "$tool" --replay none "$tmp.yaml" > /dev/null 2> "$tmp.err"; then fail "a missing ratio accepted"; fi
grep -q "^acct-race-cost: $tmp.yaml:3[0-9]: races\[0\].finalists\[1\].ratio: missing$" "$tmp.err" ||
    fail "missing ratio: $(cat "$tmp.err")"
rm -f "$tmp.yaml" "$tmp.err"
echo "race_cost: ok"
