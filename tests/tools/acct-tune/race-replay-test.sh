#!/bin/bash
# acct-race-replay (tools/acct-tune/race_replay.c) and acct-race-cost's
# replay section on a recorded run (testdata/host-np4-race-rounds.result.yaml:
# 6 races with their times per round). Properties, not timings:
# - the race as run is reproduced from its rounds (every line "replayed");
# - a cap at or above the rounds a race ran changes nothing and saves 0 s;
# - a cap of 4 (below the 5 rounds the exact signed-rank test needs at
#   alpha 0.05) gives native in every race (rule 6), its ratio the one
#   recorded for native's finalist;
# - saved seconds within [0, the race's seconds], a lower cap never saving
#   less than a higher one;
# - a race whose rounds do not give its recorded decision is
#   "not_reproduced" (valid-races.yaml's synthetic rounds separate at round
#   6, the file says 8); a result without rounds is "no_rounds";
# - bad input: the parser's file:line: field message, exit 1.
set -euo pipefail
replay=$1 py=$2 src=$3
data=$src/tools/acct-tune/testdata/host-np4-race-rounds.result.yaml
fail() { echo "race-replay-test: $*"; exit 1; }
out=$("$replay" --caps 4,6,8,12 --twin-rounds 6 "$data")
echo "$out" | "$py" -c '
import sys
rows = [l.rstrip("\n").split("\t") for l in sys.stdin][1:]
assert len(rows) == 30, f"{len(rows)} lines (6 races x 5 candidates)"
saved = {}
for f, pt, R, nf, secs, cap, twin, status, stop, w, cw, ch, ratio, s in rows:
    R, cap, twin, secs = int(R), int(cap), int(twin), float(secs)
    assert status == "replayed", f"{pt} cap {cap}: {status}"
    s, stop = float(s), int(stop)
    assert -1e-9 <= s <= secs + 1e-9, f"{pt}: saved {s} of {secs}"
    if cap >= R:
        assert ch == "0" and cw == w and s == 0 and stop == R, f"{pt} cap {cap} >= {R} changed"
    if cap == 4:
        assert cw == "native" and stop == 4, f"{pt} cap 4: {cw} at {stop}"
        assert (ch == "1") == (w != "native"), f"{pt}: changed flag"
    if cap:
        saved.setdefault(pt, {})[cap] = s
    if twin:
        assert cap == 0 and stop <= R
for pt, byc in saved.items():
    caps = sorted(byc)
    assert all(byc[a] >= byc[b] - 1e-9 for a, b in zip(caps, caps[1:])), f"{pt}: {byc}"
print("replay: ok")
' || fail "the recorded run"
# native's recorded ratio is the cap-4 ratio where native did not win
"$py" - "$data" "$out" <<'PY' || fail "cap 4 ratio against the recorded native"
import sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
nat = {}
for rc in r["races"]:
    b = rc["bytes"]
    b = int(b[:-1]) * {"K": 1024, "M": 1 << 20}[b[-1]] if isinstance(b, str) else b
    nat[f"{rc['collective']}:{rc['comm_size']}:{b}"] = next(
        f["ratio"] for f in rc["finalists"] if f["algorithm"] == "native" and f["verdict"] != "twin")
for line in sys.argv[2].splitlines()[1:]:
    c = line.split("\t")
    if c[5] == "4":
        assert abs(float(c[12]) - nat[c[1]]) <= 1e-5 * nat[c[1]], (c[1], c[12], nat[c[1]])
PY
out=$("$replay" "$src/tests/unit/results/valid-races.yaml")
[ "$(echo "$out" | grep -c 'not_reproduced')" = 5 ] || fail "synthetic rounds reproduced: $out"
tmp=${TMPDIR:-/tmp}/race-replay.$$
trap 'rm -f "$tmp".*' EXIT
sed '/round_/d; s/, p: 1,$/, p: 1},/; s/, p: 0.00390625,$/, p: 0.00390625},/; s/, p: 0.0078125,$/, p: 0.0078125}]}/' \
    "$src/tests/unit/results/valid-races.yaml" > "$tmp.yaml"
out=$("$replay" "$tmp.yaml")
[ "$(echo "$out" | grep -c 'no_rounds')" = 5 ] || fail "no rounds: $out"
sed 's/round_avg_us: \[300, 301/round_avg_us: [300, x/' "$src/tests/unit/results/valid-races.yaml" > "$tmp.yaml"
if "$replay" "$tmp.yaml" > "$tmp.out" 2> "$tmp.err"; then fail "bad input accepted"; fi
grep -q "round_avg_us\[1\]" "$tmp.err" || fail "bad input: $(cat "$tmp.err")"
grep -q "^$tmp.yaml:[0-9]*:[0-9]*: " "$tmp.err" || fail "no file:line: $(cat "$tmp.err")"
# acct-race-cost runs the replay and reports it per candidate
out=$("$py" "$src/tools/perf/acct-race-cost" --replay "$replay" "$data")
echo "$out" | grep -q "^cap 4	.*replayed 6 of 6: winner changed at 2" || fail "acct-race-cost replay: $out"
echo "race-replay-test: ok"
