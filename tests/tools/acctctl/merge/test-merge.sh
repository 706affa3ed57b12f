#!/usr/bin/env bash
# acctctl merge (docs/acctctl.md "acctctl merge"): runs tuned at 2 and at 8
# ranks per node become one layout-bound rules file. The decisions are read
# back through acct-decide, which resolves a rules file exactly as the
# runtime does (acct_rules_resolve_at), so the test checks what a job at
# each layout would run, not the text.
#   test-merge.sh ACCTCTL ACCT_DECIDE DATA_DIR
set -u
acctctl=$1
decide=$2
data=$3
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# decides WANT COLL SIZE BYTES [RPN [irregular]]
decides() {
    local want=$1 got
    shift
    got=$("$decide" "$tmp/merged.yaml" "$@" 2>&1)
    [ "$got" = "$want" ] || fail "acct-decide merged $*: got \"$got\", expected \"$want\""
}

# Both orders of the arguments give the same file (apart from created:).
"$acctctl" merge -o "$tmp/merged.yaml" "$data/rpn8.rules.yaml" "$data/rpn2.rules.yaml" \
    2>"$tmp/err" || fail "merge exit status $? ($(cat "$tmp/err"))"
"$acctctl" merge "$data/rpn2.rules.yaml" "$data/rpn8.rules.yaml" >"$tmp/again.yaml" 2>/dev/null ||
    fail "merge to standard output failed"
diff <(grep -v created: "$tmp/merged.yaml") <(grep -v created: "$tmp/again.yaml") >&2 ||
    fail "the merged file depends on the order of the arguments"
grep -qF "rpn2.rules.yaml (run r-rpn2) covers ranks_per_node [2, 7]" "$tmp/err" ||
    fail "no cover line for rpn2: $(cat "$tmp/err")"
grep -qF "rpn8.rules.yaml (run r-rpn8) covers ranks_per_node [8, max]" "$tmp/err" ||
    fail "no cover line for rpn8: $(cat "$tmp/err")"
"$acctctl" validate -q "$tmp/merged.yaml" || fail "the merged file does not validate"
grep -q '^acct_rules: 2$' "$tmp/merged.yaml" || fail "the merged file is not schema 2"
grep -qF 'layout: {ranks_per_node: [2, 8], placement: block}' "$tmp/merged.yaml" ||
    fail "provenance.layout does not span the runs"
# provenance.runs: the run behind each layout (acctd finds each layout's
# model by it); the merged file names no run of its own
grep -qF -- '- {ranks_per_node: 2, tuning_run: "r-rpn2"}' "$tmp/merged.yaml" &&
    grep -qF -- '- {ranks_per_node: 8, tuning_run: "r-rpn8"}' "$tmp/merged.yaml" ||
    fail "provenance.runs does not name both runs: $(sed -n '/runs:/,/collectives:/p' "$tmp/merged.yaml")"
grep -q '^  tuning_run:' "$tmp/merged.yaml" && fail "the merged file names a run of its own"
# an input that names no run: no provenance.runs (a layout would borrow its neighbour's)
sed '/tuning_run:/d' "$data/rpn8.rules.yaml" >"$tmp/norun8.yaml"
"$acctctl" merge "$data/rpn2.rules.yaml" "$tmp/norun8.yaml" >"$tmp/norun.yaml" 2>/dev/null ||
    fail "merge with an unnamed run failed"
grep -q 'runs:' "$tmp/norun.yaml" && fail "provenance.runs written though rpn8's run is not named"

# What jobs run: the 2-per-node run's decisions from 2 to 7 ranks per node,
# the 8-per-node run's from 8; below the lowest run and for an unknown
# layout nothing (native); a rule's own range is intersected ([4, 16]
# irregular -> [8, 16]).
decides bcast=native bcast 8 1M 1
decides bcast=pipeline:64K bcast 8 1M 2
decides bcast=pipeline:64K bcast 8 1M 7 irregular
decides bcast=binomial bcast 8 4K 4
decides bcast=hier_chain:64K bcast 8 1M 8
decides bcast=hier_binomial bcast 32 4K 32
decides bcast=hier_binomial:16K bcast 32 1M 16 irregular
decides bcast=native bcast 32 1M 17 irregular
decides bcast=native bcast 8 1M
decides alltoall=pairwise alltoall 32 64K 4
decides alltoall=hier_leader alltoall 32 1K 8
decides alltoall=native alltoall 32 64K 8

# Every problem named, nothing written.
if "$acctctl" merge -o "$tmp/bad.yaml" "$data/nolayout.rules.yaml" "$data/other-partition.rules.yaml" \
    "$data/rpn2-again.rules.yaml" "$data/rpn2.rules.yaml" 2>"$tmp/err"; then
    fail "merge of bad inputs exited 0"
fi
[ -e "$tmp/bad.yaml" ] && fail "merge of bad inputs wrote its output"
for want in "nolayout.rules.yaml: provenance.layout.ranks_per_node: missing" \
    "but $data/other-partition.rules.yaml is fast/tcp-100m (merge one pair's runs)" \
    "rpn2-again.rules.yaml: provenance.layout.ranks_per_node: 2, as"; do
    grep -qF -- "$want" "$tmp/err" || fail "expected \"$want\" in: $(cat "$tmp/err")"
done
printf 'acct_rules: 1\nprovenance: {partition: eth}\n' >"$tmp/broken.yaml"
"$acctctl" merge "$tmp/broken.yaml" "$data/rpn2.rules.yaml" >/dev/null 2>"$tmp/err" &&
    fail "merge of an invalid rules file exited 0"
grep -qF "$tmp/broken.yaml: not a valid rules file" "$tmp/err" || fail "no message for broken.yaml: $(cat "$tmp/err")"
grep -qF "$tmp/broken.yaml:2:" "$tmp/err" || fail "broken.yaml's problems not named by line: $(cat "$tmp/err")"
"$acctctl" merge "$data/rpn2.rules.yaml" >/dev/null 2>&1
[ $? -eq 2 ] || fail "merge of one file is not a usage error"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "acctctl merge: all checks passed"
