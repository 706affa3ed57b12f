#!/usr/bin/env bash
# 245: a version tuned at 8 ranks only, with the regions acct-tune writes
# below the smallest measured size (docs/acct-tune.md "Model regions";
# docs/rules.md "Evidence"): bcast native with evidence: none from 1 to 7
# ranks (the model not trusted), allreduce decided by the model at 2..7
# ranks and native, evidence: none, at one rank (trusted). acctd's check
# before activating (policy refuse) lets it through, acctctl check finds
# nothing, show and export keep evidence: none, and the Open MPI export
# gives Open MPI's own decision (algorithm 0) below 8 ranks for bcast.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
write_config
start_acctd || exit 1

cat >"$T/refuse.yaml" <<'YAML'
acct_policy: 1
check: {on_activate: refuse, bound: 2, max_comm_size: 64}
YAML
ctl 0 policy -p eth "$T/refuse.yaml"
ctl 0 import "$D/result-eth-floor.yaml" --activate
expect "$T/out" "as version 1 of eth/tcp-1g"
[ -s "$T/err" ] && fail "import --activate said: $(cat "$T/err")"
ctl 0 show -p eth -f tsv
[ "$(awk -F'\t' 'NR == 2 { print $1 }' "$T/out")" = 1 ] || fail "version 1 is not active: $(cat "$T/out")"

# the check through acctd: the modelled rule predicted, the native ones not
ctl 0 check --version 1 --bound 2 --max-comm-size 64 --ranks-per-node 2 --all -f tsv
awk -F'\t' 'NR > 1 && $NF == "true"' "$T/out" | grep -q . && fail "check flagged: $(cat "$T/out")"
awk -F'\t' 'NR > 1 && $1 == "allreduce" && $4 == "[2, 7]" && $13 != "-"' "$T/out" | grep -q . ||
    fail "check: the modelled allreduce rule [2, 7] has no prediction: $(cat "$T/out")"

# show: the evidence column says none for the native rules
ctl 0 show --version 1
expect "$T/out" "EVIDENCE"
grep -qE '^ *bcast +\[1, 7\] +\[0, max\] +native +none$' "$T/out" ||
    fail "show: the native bcast rule: $(cat "$T/out")"
grep -qE '^ *allreduce +\[1, 1\] +\[0, max\] +native +none$' "$T/out" ||
    fail "show: the native allreduce rule at one rank: $(cat "$T/out")"
grep -qE '^ *allreduce +\[2, 7\] +\[0, 4K\] +recursive_doubling +model$' "$T/out" ||
    fail "show: the modelled allreduce rule: $(cat "$T/out")"

# export keeps the key; the file validates
ctl 0 export --version 1
expect "$T/out" "{comm_size: [1, 7], bytes: [0, max], algorithm: native, evidence: none}"
expect "$T/out" "{comm_size: 1, bytes: [0, max], algorithm: native, evidence: none}"
cp "$T/out" "$T/exported.yaml"
"$ACCTCTL" validate "$T/exported.yaml" >"$T/out" 2>&1 || fail "the export does not validate: $(cat "$T/out")"

# Open MPI: bcast's first section (from 1 rank) is Open MPI's own decision
# (0 0 0 0), the pipeline only from 8 ranks
ctl 0 export --version 1 --format ompi --max-comm-size 16
[ "$(awk '/^# bcast$/{getline; getline; getline; printf "%s|", $0; getline; print; exit}' "$T/out")" = "1 1|0 0 0 0" ] ||
    fail "Open MPI export: bcast below 8 ranks is not Open MPI's default: $(cat "$T/out")"
awk '/^# bcast$/{b=1} b && /^8 /{print; exit}' "$T/out" | grep -q . ||
    fail "Open MPI export: no bcast section at 8 ranks: $(cat "$T/out")"
finish
