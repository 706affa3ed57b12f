#!/usr/bin/env bash
# 150: samples are bound to real job steps (docs/acctd.md, "Job identity";
# issue 18 part 2): spank_acct (root) registers each step with acctd (STEP);
# acctd accepts SAMPLES only for a registered step of the sending uid, in
# the registered partition and interconnect. Two real unprivileged users
# made by the test: an unregistered job, another user's step, a job id
# claimed before it exists, a step in another partition, and registration
# by a user are all refused; a partition whose policy does not require
# registration (jobs outside Slurm) accepts them; registrations survive a
# restart and are bounded (max_registered_steps). Ingest validation:
# non-finite or absurd moments, BYTES_BUCKET of a barrier, COMM_SIZE over
# max_comm_size are refused naming the field.
. "$(dirname "$0")/lib.sh"
need_root
ensure_test_user || exit 1
U1=$TEST_USER U2=acct-test-user2
ensure_user "$U2" || exit 1
UID1=$(id -u "$U1") UID2=$(id -u "$U2")
write_config "max_comm_size: 4096" "max_registered_steps: 16"
cat >"$T/policies/lax.yaml" <<'POL'
acct_policy: 1
samples: {require_registered_jobs: false}
POL
start_acctd || exit 1

S="SAMPLE:COLLECTIVE=bcast,COMM_SIZE=8,BYTES_BUCKET=10,ALGORITHM=binomial,COUNT=10,SUM_US=100"
# send USER JOB PARTITION [INTERCONNECT [SAMPLE...]]: SAMPLES as USER
send() {
    local u=$1 j=$2 p=$3 i=${4:-tcp}
    shift 4 2>/dev/null || shift $#
    run_as "$u" SAMPLES JOB="$j" PARTITION="$p" INTERCONNECT="$i" "${@:-$S}"
}
run_as() {
    local u=$1
    shift
    as "$u" "$ACCTD_CLIENT" -s "$SOCK" "$@" >"$T/out" 2>"$T/err"
}

# An unregistered job is refused, naming the job, the node and the policy.
send "$U1" 500.0 prod tcp
expect "$T/out" "ERROR PERMISSION: JOB: 500.0 is not a job step registered on node testnode for uid $UID1"
expect "$T/out" "samples.require_registered_jobs"
# A user cannot register a step (admin only), not even its own.
run_as "$U1" STEP JOB=500.0 UID="$UID1" PARTITION=prod INTERCONNECT=tcp
expect "$T/out" "ERROR PERMISSION"

# A job id claimed before its step exists does not take it: U2 names the
# next job first, then spank_acct registers it for U1.
send "$U2" 501.0 prod tcp
expect "$T/out" "ERROR PERMISSION: JOB: 501.0 is not a job step registered"
register_step 500.0 "$UID1" prod tcp
register_step 501.0 "$UID1" prod tcp
send "$U1" 501.0 prod tcp
expect "$T/out" "ACCEPTED=1"
# Another user's step is refused; so is the right user in another pair.
send "$U2" 500.0 prod tcp
expect "$T/out" "ERROR PERMISSION: JOB: job step 500.0 is registered to another user (not uid $UID2)"
send "$U1" 500.0 other tcp
expect "$T/out" "ERROR PERMISSION: PARTITION: job step 500.0 runs in prod/tcp, not in other/tcp"
send "$U1" 500.0 prod ib
expect "$T/out" "ERROR PERMISSION: INTERCONNECT: job step 500.0 runs in prod/tcp, not in prod/ib"
send "$U1" 500.0 prod tcp
expect "$T/out" "ACCEPTED=1"
[ "$(sqlite3 "$DB" "SELECT count(DISTINCT job) FROM sample_stats WHERE uid = $UID2")" = 0 ] ||
    fail "samples of $U2 were stored"

# Jobs outside Slurm: a partition whose policy does not require registration.
send "$U2" 900.0 lax tcp
expect "$T/out" "ACCEPTED=1"
send "$U1" 900.0 lax tcp
expect "$T/out" "ERROR LIMIT: JOB: job 900.0 belongs to another user"

# The registrations are in the store: a restart keeps them.
stop_acctd
start_acctd || exit 1
send "$U1" 500.0 prod tcp
expect "$T/out" "ACCEPTED=1"
# A step that ended stays registered for a short grace only (its end is
# recorded); a step that was never registered cannot be ended.
"$ACCTD_CLIENT" -s "$SOCK" STEP JOB=500.0 UID="$UID1" STEP_END=1 >"$T/out"
expect "$T/out" "STEP_REPLY"
end=$(sqlite3 "$DB" "SELECT expires - strftime('%s','now') FROM registered_steps WHERE job = '500.0'")
[ -n "$end" ] && [ "$end" -le 120 ] || fail "ended step 500.0 expires in ${end:-?} s, expected <= 120"
"$ACCTD_CLIENT" -s "$SOCK" STEP JOB=599.0 UID="$UID1" STEP_END=1 >"$T/out"
expect "$T/out" "ERROR NOT_FOUND: JOB: no registered step 599.0 of uid $UID1"
# Bounded: over max_registered_steps (16) the oldest are forgotten.
for k in $(seq 1 16); do register_step "70$k.0" "$UID1" prod tcp; done
n=$(sqlite3 "$DB" "SELECT count(*) FROM registered_steps")
[ "$n" = 16 ] || fail "$n registered steps kept, expected 16 (max_registered_steps)"
send "$U1" 501.0 prod tcp
expect "$T/out" "ERROR PERMISSION: JOB: 501.0 is not a job step registered"
grep -q "max_registered_steps (16) job steps registered: the 1 oldest forgotten" "$LOG" ||
    fail "eviction not logged"

# Ingest validation (issue 18): each bad sample is refused naming its field.
register_step 800.0 "$UID1" prod tcp
B="COLLECTIVE=bcast,COMM_SIZE=8,BYTES_BUCKET=20,ALGORITHM=binomial"
send "$U1" 800.0 prod tcp \
    "SAMPLE:$B,COUNT=1,SUM_US=1e154" \
    "SAMPLE:$B,COUNT=1,SUM_US=100,MAX_US=100,SUMSQ_US=1e300" \
    "SAMPLE:$B,COUNT=2,SUM_US=200,MAX_US=1e12" \
    "SAMPLE:$B,COUNT=4,SUM_US=400,SUMSQ_US=1e30" \
    "SAMPLE:COLLECTIVE=barrier,COMM_SIZE=8,BYTES_BUCKET=3,ALGORITHM=native,COUNT=1,SUM_US=5" \
    "SAMPLE:COLLECTIVE=bcast,COMM_SIZE=5000,BYTES_BUCKET=20,ALGORITHM=binomial,COUNT=1,SUM_US=5" \
    "SAMPLE:COLLECTIVE=barrier,COMM_SIZE=8,BYTES_BUCKET=0,ALGORITHM=native,COUNT=1,SUM_US=5" \
    "SAMPLE:$B,COUNT=2,SUM_US=200,MIN_US=90,MAX_US=110,SUMSQ_US=20200"
expect "$T/out" "ACCEPTED=2"
expect "$T/out" "REJECTED=6"
expect "$T/out" "sample[0]: SUM_US: 1e+154 us for 1 call is more than 3.6e+09 us per call"
expect "$T/out" "sample[1]: SUMSQ_US: larger than COUNT*MAX_US^2"
expect "$T/out" "sample[2]: MAX_US: 1e+12 us is more than 3.6e+09 us per call"
expect "$T/out" "sample[3]: SUMSQ_US: larger than COUNT*MAX_US^2"
expect "$T/out" "sample[4]: BYTES_BUCKET: 3 for barrier, which moves no data (must be 0)"
expect "$T/out" "sample[5]: COMM_SIZE: 5000 is larger than the cluster (max_comm_size 4096)"
max=$(sqlite3 "$DB" "SELECT max(sum_us) FROM sample_stats")
awk -v m="$max" 'BEGIN { exit !(m <= 1000) }' || fail "an absurd sum was stored: $max"
acctd_alive || fail "acctd died"
finish
