#!/usr/bin/env bash
# acctctl whatif and check, offline (--rules, --model; docs/acctctl.md):
#   test-whatif.sh ACCTCTL WHATIF_EXPECT DATA_DIR SOURCE_DIR
# The expected rankings and penalties are computed by whatif_expect through
# the model API (acct_model_rank, acct_model_predict), never copied from
# acctctl's output. The daemon path is tests/daemon/240-whatif-check.sh.
set -u
acctctl=$1
expect_bin=$2
data=$3
src=$4
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model=$data/eth-1g.plogp

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

run() {
    local want=$1
    shift
    "$acctctl" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "acctctl $*: exit status $got, expected $want"
        sed 's/^/  stdout: /' "$tmp/out" >&2
        sed 's/^/  stderr: /' "$tmp/err" >&2
    fi
}

expect() {
    grep -qF -- "$2" "$1" || { fail "expected \"$2\" in $(basename "$1"):"; sed 's/^/  /' "$1" >&2; }
}

# TSV column of the ranked rows (rank is a number): "method<TAB>predicted_us"
ranked() {
    awk -F'\t' 'NR > 1 && $5 ~ /^[0-9]+$/ { print $6 "\t" $7 }' "$tmp/out"
}

# The decision's row (rank is rule|native|outside): FIELD
decision() {
    awk -F'\t' -v f="$1" 'NR > 1 && $5 !~ /^[0-9]+$/ { print $f }' "$tmp/out"
}

# ---- the ranking: exactly acct_model_rank's, every method, in order -----------
# (up to 256 ranks --source auto simulates, as acct_model_predict does)
for point in "bcast 64 65536" "allreduce 8 65536" "alltoall 16 1024" "reduce 32 4096" \
             "barrier 64 0" "gather 7 3000"; do
    set -- $point
    run 0 whatif "$1" --rules "$data/linear-bcast.rules.yaml" --model "$model" \
        --comm-size "$2" --bytes "$3" --format tsv
    ranked >"$tmp/got"
    "$expect_bin" rank "$1" "$2" "$3" "$model" >"$tmp/want" || fail "whatif_expect rank $point"
    [ -s "$tmp/want" ] || fail "whatif_expect rank $point: nothing"
    cmp -s "$tmp/got" "$tmp/want" || {
        fail "whatif $point: ranking differs from acct_model_rank"
        diff "$tmp/want" "$tmp/got" | head -20 >&2
    }
done
# --source model at 300 ranks: acct_model_predict's simulation throughout
run 0 whatif allreduce --rules "$data/linear-bcast.rules.yaml" --model "$model" \
    -n 300 -b 64 --source model --format tsv
ranked >"$tmp/got"
"$expect_bin" rank allreduce 300 64 "$model" >"$tmp/want"
cmp -s "$tmp/got" "$tmp/want" || fail "whatif allreduce 512 1K --source model: ranking differs"
grep -q "simulated" "$tmp/out" || fail "--source model at 300 ranks: nothing simulated"
# above 256 ranks auto uses the closed forms and says so
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 4096 -b 1M -f tsv
[ "$(awk -F'\t' 'NR > 1 { print $9 }' "$tmp/out" | sort -u | tr '\n' ,)" = "closed form,none," ] ||
    fail "whatif at 4096 ranks: sources $(awk -F'\t' 'NR > 1 { print $9 }' "$tmp/out" | sort -u)"

# ---- the decision and its penalty ----------------------------------------------------
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 64 -b 1M -f tsv
[ "$(decision 5) $(decision 6)" = "rule linear" ] || fail "linear rule: $(decision 5) $(decision 6)"
[ "$(decision 8)" = "$("$expect_bin" penalty bcast 64 1048576 "$model" linear)" ] ||
    fail "linear's penalty $(decision 8), expected $("$expect_bin" penalty bcast 64 1048576 "$model" linear)"
[ "$(awk -F'\t' 'NR > 1 && $10 == "true"' "$tmp/out" | wc -l)" = 2 ] ||
    fail "the decision is one ranked row and its own row: $(grep true "$tmp/out")"
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 64 -b 1M
expect "$tmp/out" "rule:     bcast[0] (line 12): comm_size [2, max], bytes [0, max]: linear"
expect "$tmp/out" "penalty"
# the power-of-two fallback: scatter_allgather_rd on 6 ranks runs _ring
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 6 -b 48K -f tsv
[ "$(decision 6)" = "scatter_allgather_ring" ] || fail "pow2 fallback: $(decision 6)"
[ "$(decision 8)" = "$("$expect_bin" penalty bcast 6 49152 "$model" scatter_allgather_ring)" ] ||
    fail "the fallback's penalty: $(decision 8)"
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 6 -b 48K
expect "$tmp/out" "runs:     scatter_allgather_ring (the runtime's fallback"
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 8 -b 48K -f tsv
[ "$(decision 6)" = "scatter_allgather_rd" ] || fail "pow2 on 8 ranks: $(decision 6)"
# a native rule and a point outside every rule: no prediction, said so
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 8 -b 1M -f json
grep -q '"rank": "native"' "$tmp/out" || fail "native rule: $(tail -3 "$tmp/out")"
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 8 -b 1M
expect "$tmp/out" "decision: native (the MPI library's own collective"
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 128 -b 1K
expect "$tmp/out" "the point lies outside every rule"
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 128 -b 1K -f tsv
[ "$(decision 5) $(decision 7)" = "outside -" ] || fail "outside: $(decision 5) $(decision 7)"
# the layout dimension: the hier_ring rule holds only with a known layout
run 0 whatif allreduce --rules "$data/mixed.rules.yaml" --model "$model" -n 16 -b 64K -f tsv
[ "$(decision 5)" = "outside" ] || fail "layout unknown: $(decision 5)"
run 0 whatif allreduce --rules "$data/mixed.rules.yaml" --model "$model" -n 16 -b 64K \
    --ranks-per-node 4 -f tsv
[ "$(decision 5) $(decision 6)" = "rule hier_ring" ] || fail "4 ranks per node: $(decision 5) $(decision 6)"
grep -q "	hier_" "$tmp/out" || fail "4 ranks per node: no node-aware method ranked"
run 0 whatif allreduce --rules "$data/mixed.rules.yaml" --model "$model" -n 16 -b 64K \
    --ranks-per-node 4 --irregular -f tsv
[ "$(decision 5)" = "outside" ] || fail "irregular: $(decision 5)"
# lists and ranges
run 0 whatif bcast --rules "$data/mixed.rules.yaml" --model "$model" -n 4,8 -b 1K:4K -f tsv
[ "$(awk -F'\t' 'NR > 1 { print $2 "/" $4 }' "$tmp/out" | sort -u | tr '\n' ' ')" = \
  "4/1024 4/2048 4/4096 8/1024 8/2048 8/4096 " ] || fail "lists: $(awk -F'\t' 'NR > 1 { print $2 "/" $4 }' "$tmp/out" | sort -u)"
# a result's model: section (LogGP) is a model too
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$src/tests/unit/results/valid-example.yaml" -n 8 -b 1K
expect "$tmp/out" "valid-example.yaml (tuning result)"
# up to 1M ranks (closed forms)
run 0 whatif allreduce --rules "$src/docs/data/eth-tune.rules.yaml" --model "$model" -n 1M -b 1M -f tsv
[ "$(decision 6)" = "segmented_ring" ] || fail "1M ranks: $(decision 6)"

# ---- check -------------------------------------------------------------------------
run 1 check --rules "$data/linear-bcast.rules.yaml" --model "$model"
expect "$tmp/out" "bcast       0     12"
expect "$tmp/out" "1 rules, 0 within the measured communicator sizes (not asked), 1 with a prediction, 1 over the bound 2"
run 1 check --rules "$data/linear-bcast.rules.yaml" --model "$model" -f tsv
[ "$(awk -F'\t' 'NR == 2 { print $1, $2, $4, $5, $9, $14 }' "$tmp/out")" = "bcast 0 [2, max] [0, max] linear true" ] ||
    fail "check linear: $(cat "$tmp/out")"
# the worst point's penalty is the API's
read -r wp wm pen <<<"$(awk -F'\t' 'NR == 2 { print $6, $8, $13 }' "$tmp/out")"
[ "$pen" = "$("$expect_bin" penalty bcast "$wp" "$wm" "$model" linear)" ] ||
    fail "check: penalty $pen at $wp/$wm, API $("$expect_bin" penalty bcast "$wp" "$wm" "$model" linear)"
# ... and at 64k ranks (issue 21: a rules file's check up to the partition's size)
run 1 check --rules "$data/linear-bcast.rules.yaml" --model "$model" --max-comm-size 64K -f tsv
[ "$(awk -F'\t' 'NR == 2 { print $1, $4, $6, $9, $14 }' "$tmp/out")" = "bcast [2, max] 65536 linear true" ] ||
    fail "check linear at 64k ranks: $(cat "$tmp/out")"
# a rules file that names its own model (provenance.model) needs no --model
# and no acctd (the socket does not exist): the same check as with that
# model given as a tuning result; a rules file is a --model source too;
# one that names no model is refused at provenance.model (issue 21)
own=$data/linear-bcast-model.rules.yaml
run 1 check --rules "$own" -s "$tmp/no-acctd.sock" -f tsv
cp "$tmp/out" "$tmp/own.tsv"
[ "$(awk -F'\t' 'NR == 2 { print $1, $9, $14 }' "$tmp/own.tsv")" = "bcast linear true" ] ||
    fail "check with the rules' own model: $(cat "$tmp/own.tsv")"
run 1 check --rules "$own" --model "$src/tests/unit/results/valid-example.yaml" -f tsv
cmp -s "$tmp/out" "$tmp/own.tsv" || fail "the rules' own model differs from the result's: $(diff "$tmp/out" "$tmp/own.tsv")"
run 1 check --rules "$own" -s "$tmp/no-acctd.sock"
expect "$tmp/out" "model: provenance.model of $own (LogGP L 48.2 o 3.1 g 4.4 G 0.0081 us)"
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$own" -n 64 -b 1M -f tsv
cp "$tmp/out" "$tmp/own-model.tsv"
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$src/tests/unit/results/valid-example.yaml" -n 64 -b 1M -f tsv
cmp -s "$tmp/out" "$tmp/own-model.tsv" || fail "--model RULES differs from the result's model"
run 2 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$data/linear-bcast.rules.yaml" -n 8 -b 1M
expect "$tmp/err" "linear-bcast.rules.yaml: provenance.model: the rules file names no model"
run 2 check --rules "$data/linear-bcast.rules.yaml" -s "$tmp/no-acctd.sock"
expect "$tmp/err" "linear-bcast.rules.yaml names no model (provenance.model): give --model FILE"
# the calibrated levels (a result's model.intra/inter/nic) with a layout:
# every message at its level. The binomial bcast is within 4x of the best on
# the one network and over it on the levels at 2 ranks per node; a model
# without levels ignores the layout (the same verdict as without one)
levels=$src/tests/daemon/data/result-eth-levels-check.yaml
run 0 check --rules "$data/binomial-bcast.rules.yaml" --model "$levels" --bound 4 --max-comm-size 64
expect "$tmp/out" "layout unknown"
run 1 check --rules "$data/binomial-bcast.rules.yaml" --model "$levels" --bound 4 --max-comm-size 64 \
    --ranks-per-node 2
expect "$tmp/out" "2 ranks per node (each message at its level: intra- or inter-node)"
run 1 check --rules "$data/binomial-bcast.rules.yaml" --model "$levels" --bound 4 --max-comm-size 64 \
    --ranks-per-node 2 -f tsv
[ "$(awk -F'\t' 'NR == 2 { print $1, $6, $7, $9, $14 }' "$tmp/out")" = "bcast 64 2 binomial true" ] ||
    fail "check with levels: $(cat "$tmp/out")"
# its penalty is the one whatif gives at that point with the same layout:
# over the bound by the closed forms at 64 ranks, so asked of the simulation
# (whatif's auto source there), whose figures stand
pen=$(awk -F'\t' 'NR == 2 { print $13 }' "$tmp/out")
run 0 whatif bcast --rules "$data/binomial-bcast.rules.yaml" --model "$levels" -n 64 -b 1M \
    --ranks-per-node 2 --source auto -f tsv
[ "$(decision 8)" = "$pen" ] || fail "check's penalty $pen, whatif's (simulated) $(decision 8)"
[ "$(decision 9)" = simulated ] || fail "whatif at 64 ranks: $(decision 9), expected simulated"
run 0 whatif bcast --rules "$data/binomial-bcast.rules.yaml" --model "$levels" -n 64 -b 1M \
    --ranks-per-node 2 --source closed -f tsv
[ "$(decision 8)" != "$pen" ] || fail "the closed form gives the simulation's penalty $pen: no test"
run 1 check --rules "$data/binomial-bcast.rules.yaml" --model "$levels" --bound 4 --max-comm-size 64 \
    --ranks-per-node 2
expect "$tmp/out" "points over the bound by the closed forms asked of the simulation (up to 256 ranks): "
run 0 check --rules "$data/binomial-bcast.rules.yaml" --model "$model" --bound 4 --max-comm-size 64 \
    --ranks-per-node 2
expect "$tmp/out" "2 ranks per node (one network: the model has no levels)"
# a point the closed forms put over the bound and the simulation too,
# already against the closed forms' best as simulated, is not ranked in full
# (the simulation's best is at most as slow) unless it is the rule's worst:
# linear bcast at 24 ranks, 64 KiB, where the closed forms' best (binary:4K)
# is not the simulation's (split_binary:2K). The worst is reported with the
# simulation's best, as whatif --source auto ranks it
run 1 check --rules "$data/linear-bcast.rules.yaml" --model "$model" --max-comm-size 24 \
    --max-bytes 64K -f tsv
worst=$(awk -F'\t' 'NR == 2 { print $6, $8, $11 }' "$tmp/out")
pen=$(awk -F'\t' 'NR == 2 { print $13 }' "$tmp/out")
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 24 -b 64K -f tsv
[ "$worst" = "24 65536 $(ranked | awk -F'\t' 'NR == 1 { print $1 }')" ] ||
    fail "check's worst point and best \"$worst\", whatif's best $(ranked | head -1)"
[ "$(decision 8)" = "$pen" ] || fail "check's penalty $pen, whatif's (simulated) $(decision 8)"
run 0 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 24 -b 64K \
    --source closed -f tsv
[ "24 65536 $(ranked | awk -F'\t' 'NR == 1 { print $1 }')" != "$worst" ] ||
    fail "the closed forms' best is the simulation's ($worst): no test"
run 1 check --rules "$data/linear-bcast.rules.yaml" --model "$model" --max-comm-size 24 --max-bytes 64K
expect "$tmp/out" "asked of the simulation (up to 256 ranks): 0 within it there, "
grep -qE "[1-9][0-9]* over it already against the closed forms' best" "$tmp/out" ||
    fail "no point confirmed against the closed forms' best: $(tail -1 "$tmp/out")"
# gather's node-aware closed forms cost the layout (issue 21): at 4 nodes of
# 8, 1 MiB, on the levels, hier_binomial takes each node's blocks at the
# intra-node level and only the node blocks between nodes, where flat
# binomial's closed form costs every message at the inter-node level:
# predicted faster (about 0.77x). The simulation of the real schedules
# (auto at 32 ranks) finds them equal: in blocks of 8, flat binomial's
# first three levels stay on a node and its last two carry the same node
# blocks; the node-aware one is never slower, and where flat subtrees
# straddle nodes (6 per node) it is simulated faster too (about 0.5x).
# Beyond 256 ranks (closed forms) the gain stays.
pred() { awk -F'\t' -v m="$1" 'NR > 1 && $5 ~ /^[0-9]+$/ && $6 == m { print $7 }' "$tmp/out"; }
src_of() { awk -F'\t' -v m="$1" 'NR > 1 && $5 ~ /^[0-9]+$/ && $6 == m { print $9 }' "$tmp/out"; }
run 0 whatif gather --rules "$data/linear-bcast.rules.yaml" --model "$levels" -n 32 -b 1M \
    --ranks-per-node 8 --source closed -f tsv
hb=$(pred hier_binomial) fb=$(pred binomial)
[ "$(src_of hier_binomial)" = "closed form" ] || fail "gather hier_binomial: source $(src_of hier_binomial)"
awk -v h="$hb" -v f="$fb" 'BEGIN { exit !(h > 0 && f > 0 && h < 0.85 * f) }' ||
    fail "gather 4 x 8, 1 MiB, closed forms: hier_binomial $hb us not under 0.85 x binomial's $fb us"
run 0 whatif gather --rules "$data/linear-bcast.rules.yaml" --model "$levels" -n 32 -b 1M \
    --ranks-per-node 8 -f tsv
[ "$(src_of hier_binomial) $(src_of binomial)" = "simulated simulated" ] ||
    fail "gather at 32 ranks: not simulated: $(src_of hier_binomial), $(src_of binomial)"
awk -v h="$(pred hier_binomial)" -v f="$(pred binomial)" 'BEGIN { exit !(h > 0 && h <= f) }' ||
    fail "gather 4 x 8 simulated: hier_binomial $(pred hier_binomial) us slower than binomial's $(pred binomial) us"
run 0 whatif gather --rules "$data/linear-bcast.rules.yaml" --model "$levels" -n 24 -b 1M \
    --ranks-per-node 6 -f tsv
awk -v h="$(pred hier_binomial)" -v f="$(pred binomial)" 'BEGIN { exit !(h > 0 && h < 0.7 * f) }' ||
    fail "gather 4 x 6 simulated: hier_binomial $(pred hier_binomial) us not under 0.7 x binomial's $(pred binomial) us"
run 0 whatif gather --rules "$data/linear-bcast.rules.yaml" --model "$levels" -n 512 -b 1M \
    --ranks-per-node 8 -f tsv
awk -v h="$(pred hier_binomial)" -v f="$(pred binomial)" 'BEGIN { exit !(h > 0 && h < f) }' ||
    fail "gather 64 x 8: hier_binomial $(pred hier_binomial) us not under binomial's $(pred binomial) us"
# ... and without a layout both are one network's binomial
run 0 whatif gather --rules "$data/linear-bcast.rules.yaml" --model "$levels" -n 32 -b 1M \
    --source closed -f tsv
[ -z "$(pred hier_binomial)" ] || [ "$(pred hier_binomial)" = "$(pred binomial)" ] ||
    fail "gather without a layout: hier_binomial $(pred hier_binomial), binomial $(pred binomial)"
# a collective decided from the communicator size alone (gatherv): judged
# over the sizes as acct-tune chooses it, not point by point: the worst
# communicator size's geometric mean over the sampled sizes against the
# least of any method (no worst bytes), as whatif_expect computes it
run 1 check --rules "$data/binomial-gatherv.rules.yaml" --model "$model" --max-comm-size 4096 --bound 1.5 -f tsv
[ "$(awk -F'\t' 'NR == 2 { print $1, $5, $8, $9, $14 }' "$tmp/out")" = "gatherv [0, max] - binomial true" ] ||
    fail "check of a size-only rule: $(cat "$tmp/out")"
read -r wp pen <<<"$(awk -F'\t' 'NR == 2 { print $6, $13 }' "$tmp/out")"
[ "$pen" = "$("$expect_bin" sized gatherv "$wp" 0 "$model" binomial)" ] ||
    fail "check: size-only penalty $pen at $wp ranks, API $("$expect_bin" sized gatherv "$wp" 0 "$model" binomial)"
# a higher bound than the worst penalty: clean
run 0 check --rules "$data/linear-bcast.rules.yaml" --model "$model" --bound 1e6 --max-comm-size 64
# the tuned eth rules where they were measured (<= 8 ranks): the timings
# outrank this (uncalibrated) model, so a measured rule is asked only beyond
# the largest measured size (its [6, max] rules from 6 on; the others not at
# all) and the check up to 5 ranks is clean at the default bound; beyond,
# [6, max] rules are flagged
run 0 check --rules "$src/docs/data/eth-tune.rules.yaml" --model "$model" --max-comm-size 5 \
    --max-bytes 1M
grep -Eq "^[0-9]+ rules, [1-9][0-9]* within the measured communicator sizes \(not asked\), 0 with a prediction, 0 over" "$tmp/out" ||
    fail "check eth-tune up to 5 ranks: measured rules asked: $(tail -1 "$tmp/out")"
run 0 check --rules "$src/docs/data/eth-tune.rules.yaml" --model "$model" --max-comm-size 8 \
    --max-bytes 1M --bound 4
run 1 check --rules "$src/docs/data/eth-tune.rules.yaml" --model "$model" -c bcast -f tsv
awk -F'\t' '$4 == "[6, max]" && $14 == "true"' "$tmp/out" | grep -q . ||
    fail "check eth-tune: no [6, max] bcast rule flagged at 4096 ranks"
run 1 check --rules "$src/docs/data/eth-tune.rules.yaml" --model "$model" --all -f json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(not r["flagged"] for r in d) and any(r["flagged"] for r in d)' "$tmp/out" ||
    fail "check --all: flagged and clean rules expected"

# ---- bad input: file, line and field; exit 2 -------------------------------------------
run 2 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$data/bad.plogp" -n 8 -b 1K
expect "$tmp/err" "bad.plogp:4:5: or_us: expected \"BYTES OS_US OR_US G_US\""
expect "$tmp/err" "bad.plogp:5:1: m: sizes must increase (0 after 0)"
run 2 check --rules "$data/linear-bcast.rules.yaml" --model "$src/docs/data/eth-tune.result.yaml"
expect "$tmp/err" "eth-tune.result.yaml: model: the tuning result has no model: section"
run 2 check --rules "$src/tests/unit/rules/invalid-overlap.yaml" --model "$model"
expect "$tmp/err" "invalid-overlap.yaml:6:7: collectives.allreduce[1]: overlaps"
expect "$tmp/err" "is not a valid rules file"
run 2 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$tmp/missing" -n 8 -b 1K
expect "$tmp/err" "missing: No such file or directory"
run 2 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 1 -b 1K
expect "$tmp/err" "--comm-size"
run 2 whatif bcast --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 8 -b 1Q
expect "$tmp/err" "--bytes"
run 2 whatif --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 8 -b 1K
expect "$tmp/err" "which collective?"
run 2 whatif bcst --rules "$data/linear-bcast.rules.yaml" --model "$model" -n 8 -b 1K
expect "$tmp/err" "unknown collective"
run 2 whatif bcast --model "$model" -n 8 -b 1K
expect "$tmp/err" "-p PARTITION (or --version N, or --rules FILE) is required"
run 2 check --rules "$data/linear-bcast.rules.yaml" --model "$model" --bound 0.5
expect "$tmp/err" "--bound"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "acctctl whatif/check: all passed"
