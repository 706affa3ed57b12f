#!/usr/bin/env bash
# 120: the policy and refinement commands: a partition's policy stored in
# acctd (SET_POLICY) and cleared again, an invalid policy refused with
# FILE:LINE:COLUMN, a refinement pass run on request (nothing to refine
# without samples), RELOAD. (Whether a refinement changes a decision is the
# daemon's own test: the evidence rule, tests/unit/daemon/test_acctd_refine.c.)
. "$(dirname "$0")/lib.sh"
POLICY=$(cd "$(dirname "$0")/../../policies" && pwd)/default.yaml
write_config
start_acctd || exit 1
ctl 0 import "$ACCT_TEST_DATA/rules-eth-a.yaml" --activate

ctl 0 policy -p eth "$POLICY"
expect "$T/out" "partition eth now follows the policy of $POLICY"
ctl 0 policy -p eth "$POLICY" --format json
jq -e '.partition == "eth" and (.policy | type == "string")' "$T/out" >/dev/null ||
    fail "policy --format json: $(cat "$T/out")"
sed 's/^  min_jobs: 5 /  min_jobs: many /' "$POLICY" >"$T/bad-policy.yaml"
bad_line=$(grep -n '^  min_jobs:' "$T/bad-policy.yaml" | cut -d: -f1)
ctl 1 policy -p eth "$T/bad-policy.yaml"
expect "$T/err" "$T/bad-policy.yaml:$bad_line:"
expect "$T/err" "min_jobs"
expect "$T/err" "CONTENT"
ctl 0 policy -p eth --clear
expect "$T/out" "partition eth follows the policy files again"
ctl 2 policy -p eth
ctl 2 policy "$POLICY"

ctl 0 refine
expect "$T/out" "0 refined versions written"
ctl 0 refine -p eth --format json
jq -e 'type == "array"' "$T/out" >/dev/null || fail "refine --format json: $(cat "$T/out")"
ctl 0 versions -p eth --format tsv
[ "$(tail -n +2 "$T/out" | wc -l)" -eq 1 ] || fail "a refinement without samples wrote a version"

ctl 0 reload
expect "$T/out" "reloaded"
ctl 0 status
acctd_alive || fail "acctd died on RELOAD"
finish
