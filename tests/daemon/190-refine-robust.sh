#!/usr/bin/env bash
# 160: one user can neither veto a refinement nor fake a retune mark
# (docs/acctd.md, "Refinement"; issue 18 part 2). Real acctd, real
# unprivileged users made by the test, every job a registered step:
# - two honest users' jobs show binomial ~40 % faster than the measured
#   incumbent pipeline:8K at (bcast, 8 ranks, 1 MiB); a third user adds one
#   job of COUNT=1, SUM_US=1e6 and one of 1000 calls at 1e6 us each: the
#   refinement still happens (before issue 18 the first alone flipped it to
#   "not significant");
# - the honest users' allreduce at (8 ranks, 1 KiB) runs as measured; the
#   third user's jobs at 30000 us (750x) mark no retune, and its 1e154 us
#   are refused at ingest; when the honest users' jobs really drift, the
#   cell is marked;
# - the refined version keeps the incumbent's options (auto_reorder,
#   explore_seed): refinement changes decisions only.
. "$(dirname "$0")/lib.sh"
need_root
ensure_test_user || exit 1
U1=$TEST_USER U2=acct-test-user2 U3=acct-test-user3
ensure_user "$U2" && ensure_user "$U3" || exit 1
write_config "refine_interval: 0"
cat >"$T/policies/eth.yaml" <<'POL'
acct_policy: 1
refine: {enabled: true, activate: true, min_calls: 100, min_jobs: 4, min_users: 2, significance: 0.01, min_gain: 0.05}
POL
start_acctd || exit 1
sed 's/^  acct_rules: 1$/&\n  options: {auto_reorder: true, explore_seed: 77}/' \
    "$ACCT_TEST_DATA/result-eth.yaml" >"$T/result-eth-options.yaml"
grep -q '^  options: {auto_reorder' "$T/result-eth-options.yaml" || fail "test data: no rules section"
ctl 0 import "$T/result-eth-options.yaml" --activate
P=eth I=tcp-1g
BC="COLLECTIVE=bcast,COMM_SIZE=8,BYTES_BUCKET=21"
AR="COLLECTIVE=allreduce,COMM_SIZE=8,BYTES_BUCKET=11,ALGORITHM=recursive_doubling"
# job USER JOB SAMPLE...: register JOB for USER, send its samples as USER
job() {
    local u=$1 j=$2
    shift 2
    register_step "$j" "$(id -u "$u")" "$P" "$I" || return
    as "$u" "$ACCTD_CLIENT" -s "$SOCK" SAMPLES JOB="$j" PARTITION="$P" INTERCONNECT="$I" "$@" \
        >"$T/job.out" 2>&1
    grep -q "^ACCEPTED=$# *$" "$T/job.out" || fail "job $j of $u: $(tr '\n' ' ' <"$T/job.out")"
}
# calls COUNT MEAN: the moments of COUNT calls around MEAN us (+-1 %)
calls() {
    awk -v n="$1" -v m="$2" 'BEGIN { printf "COUNT=%d,SUM_US=%.3f,MIN_US=%.3f,MAX_US=%.3f,SUMSQ_US=%.6e",
        n, n * m, 0.99 * m, 1.01 * m, n * (m * m + (0.005 * m) ^ 2) }'
}
k=0
for u in "$U1" "$U2"; do
    for m in 1.00 1.01 0.99; do
        k=$((k + 1))
        job "$u" "$k.0" "SAMPLE:$BC,ALGORITHM=pipeline,SEGMENT=8192,$(calls 50 "$(awk -v f=$m 'BEGIN { print 14400 * f }')")" \
            "SAMPLE:$BC,ALGORITHM=binomial,$(calls 50 "$(awk -v f=$m 'BEGIN { print 8600 * f }')")" \
            "SAMPLE:$AR,$(calls 200 "$(awk -v f=$m 'BEGIN { print 41 * f }')")"
    done
done
# the third user: the veto sample of the issue, and a plausible-looking one
job "$U3" 90.0 "SAMPLE:$BC,ALGORITHM=binomial,COUNT=1,SUM_US=1e6"
job "$U3" 91.0 "SAMPLE:$BC,ALGORITHM=binomial,$(calls 1000 1e6)"
# ... and slow allreduce jobs, one with an absurd time (refused at ingest)
job "$U3" 92.0 "SAMPLE:$AR,$(calls 1000 30000)"
job "$U3" 93.0 "SAMPLE:$AR,$(calls 1000 30000)"
register_step 94.0 "$(id -u "$U3")" "$P" "$I"
as "$U3" "$ACCTD_CLIENT" -s "$SOCK" SAMPLES JOB=94.0 PARTITION="$P" INTERCONNECT="$I" \
    "SAMPLE:$AR,COUNT=1,SUM_US=1e154" >"$T/out" 2>&1
expect "$T/out" "REJECTED=1"
expect "$T/out" "sample[0]: SUM_US: 1e+154 us for 1 call is more than"

"$ACCTD_CLIENT" -s "$SOCK" REFINE PARTITION="$P" INTERCONNECT="$I" >"$T/refine.out" 2>&1
expect "$T/refine.out" "NREFINED=1"
expect "$T/refine.out" "bcast comm_size 8 bucket 21: pipeline:8K vs binomial:0:0: better"
expect "$T/refine.out" "allreduce comm_size 8 bucket 11: no retune mark: no drift without uid $(id -u "$U3")'s jobs"
expect_not "$T/refine.out" "retune suggested"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM retune_marks')" = 0 ] || fail "a retune mark was stored"
ctl 0 show -p "$P" -i "$I"
grep -qE '^ *bcast +\[8, 8\] +\[1M, 2097151\] +binomial$' "$T/out" ||
    fail "the refined version does not run binomial at (bcast, 8, 1M): $(cat "$T/out")"
ctl 0 export -p "$P" -i "$I"
grep -q '^  auto_reorder: true$' "$T/out" && grep -q '^  explore_seed: 77$' "$T/out" ||
    fail "the refined version lost the incumbent's options: $(grep -A3 '^options' "$T/out")"

# Control: when the honest users' own jobs drift, the cell is marked.
for u in "$U1" "$U2"; do
    for m in 1.00 1.01; do
        k=$((k + 1))
        job "$u" "$k.0" "SAMPLE:$AR,$(calls 200 "$(awk -v f=$m 'BEGIN { print 120 * f }')")"
    done
done
"$ACCTD_CLIENT" -s "$SOCK" REFINE PARTITION="$P" INTERCONNECT="$I" >"$T/refine.out" 2>&1
expect "$T/refine.out" "allreduce comm_size 8 bucket 11: retune suggested: recursive_doubling measured 40 us"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM retune_marks')" = 1 ] || fail "the real drift was not marked"
acctd_alive || fail "acctd died"
finish
