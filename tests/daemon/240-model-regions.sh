#!/usr/bin/env bash
# 240: rules with model regions (evidence: model, provenance.model; docs/
# rules.md "Evidence"): imported, stored, shown with their evidence (table,
# TSV, JSON) and the model's parameters, exported and materialised with
# every key kept: nothing on acctd's way drops them.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
write_config
start_acctd || exit 1

ctl 0 import "$D/rules-eth-a.yaml" --activate
ctl 0 import "$D/rules-eth-model.yaml" --activate
expect "$T/out" "as version 2 of eth/tcp-1g"

# show: the people's table gains an evidence column and the model line only
# for a version with model regions
ctl 0 show --version 2
expect "$T/out" "EVIDENCE"
expect "$T/out" "model regions: predicted with LogGP L 50 us, o 5 us, g 6 us, G 0.008 us/B from run r-model, within 1.25x of the model's best"
grep -qE '^ *bcast +\[9, 1024\] +\[8K, max\] +split_binary:8K +model$' "$T/out" ||
    fail "show: the modelled bcast rule: $(cat "$T/out")"
grep -qE '^ *bcast +\[2, 8\] +\[8K, 1M\] +binomial:8K +measured$' "$T/out" ||
    fail "show: the measured bcast rule: $(cat "$T/out")"
ctl 0 show --version 1
expect_not "$T/out" "EVIDENCE"
expect_not "$T/out" "model regions"
ctl 0 show --version 2 --format tsv
[ "$(head -1 "$T/out" | awk -F'\t' '{ print $NF }')" = evidence ] ||
    fail "show --format tsv: no evidence column at the end: $(head -1 "$T/out")"
[ "$(awk -F'\t' 'NR > 1 && $NF == "model"' "$T/out" | wc -l)" = 3 ] ||
    fail "show --format tsv: not 3 modelled rules: $(cat "$T/out")"
ctl 0 show --version 2 --format json
jq -e '[.[] | select(.evidence == "model")] | length == 3' "$T/out" >/dev/null ||
    fail "show --format json: $(cat "$T/out")"

# export (the stored text) and the materialised file keep both keys
ctl 0 export --version 2
expect "$T/out" "  model: {tuning_run: \"r-model\", L: 50, o: 5, g: 6, G: 0.008, margin: 1.25}"
expect "$T/out" "algorithm: split_binary, segment: 8K, evidence: model, runner_up: {algorithm: binomial, segment: 8K}}"
[ "$(grep -c 'evidence: model' "$T/out")" = 3 ] || fail "export: not 3 modelled rules: $(cat "$T/out")"
cp "$T/out" "$T/exported.yaml"
"$ACCTCTL" validate "$T/exported.yaml" >"$T/out" 2>&1 || fail "the export does not validate: $(cat "$T/out")"
f=$(find "$T" -path '*rules/eth/tcp-1g.yaml' | head -1)
[ -n "$f" ] && grep -q "evidence: model" "$f" && grep -q "^  model: {" "$f" ||
    fail "the materialised rules file lost the evidence: $(cat "$f" 2>/dev/null)"

# a modelled rule without provenance.model is refused, naming the field
sed '/^  model:/d' "$D/rules-eth-model.yaml" >"$T/nomodel.yaml"
ctl 1 import "$T/nomodel.yaml"
expect "$T/err" "collectives.bcast[2].evidence: a modelled rule needs provenance.model"
finish
