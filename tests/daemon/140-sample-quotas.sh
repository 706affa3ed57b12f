#!/usr/bin/env bash
# 140: samples are bounded per job and per user (docs/architecture.md rule 4;
# docs/acctd.md, "Limits"): with samples_per_job 100 and
# samples_per_user_hour 300, a job's excess is refused (counted in
# REJECTED, nothing of it stored), a user's jobs stop at 300 records, and
# another (unprivileged, real) user still has its own quota (that part
# needs root: skipped otherwise).
. "$(dirname "$0")/lib.sh"
write_config "samples_per_job: 100" "samples_per_user_hour: 300"
start_acctd || exit 1

# ingest JOB_BASE CLIENTS SAMPLES: acctd-bench as root, 1 call per sample
ingest() {
    "$ACCTD_BENCH" --socket "$SOCK" --partition quota --interconnect tcp --job-base "$1" \
        --clients "$2" --samples "$3" --batch 50 --calls-per-sample 1 ingest >"$T/bench" 2>&1
    grep '^ingest: [0-9]* clients' "$T/bench" | sed 's/.*acknowledged/acknowledged/'
}
stored() {
    "$ACCTCTL" status --format tsv | awk -F'\t' '$1 == "samples" { print $2 }'
}

ingest 1000 1 250
expect "$T/bench" "accepted 100, rejected 150"
[ "$(stored)" = 100 ] || fail "job 1000: $(stored) calls stored, expected 100"

# Two more jobs of the same user: 100 each fits the user's 300.
ingest 2000 2 400
expect "$T/bench" "accepted 200, rejected 200"
[ "$(stored)" = 300 ] || fail "after 3 jobs: $(stored) calls stored, expected 300"

# A fourth job: the user's hour is used up.
ingest 3000 1 50
expect "$T/bench" "accepted 0, rejected 50"
[ "$(stored)" = 300 ] || fail "the user's quota let $(stored) calls in, expected 300"

if [ "$(id -u)" -eq 0 ]; then
    ensure_test_user
    register_step 4000.0 "$(id -u "$TEST_USER")" quota tcp
    setpriv --reuid="$(id -u "$TEST_USER")" --regid="$(id -g "$TEST_USER")" --clear-groups \
        "$ACCTD_BENCH" --socket "$SOCK" --partition quota --interconnect tcp --job-base 4000 \
        --clients 1 --samples 150 --batch 50 --calls-per-sample 1 ingest >"$T/bench" 2>&1
    expect "$T/bench" "accepted 100, rejected 50"
    [ "$(stored)" = 400 ] || fail "the second user: $(stored) calls stored, expected 400"
    ctl 0 samples -p quota --format tsv
    users=$(awk -F'\t' 'NR > 1 && $10 > m { m = $10 } END { print m + 0 }' "$T/out")
    [ "$users" -eq 2 ] || fail "samples: no aggregate counts both users (max users $users)"
else
    echo "$TEST_NAME: not root: the second-user part is skipped"
fi
acctd_alive || fail "acctd died"
finish
