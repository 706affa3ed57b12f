#!/usr/bin/env bash
# Live timing samples from a real MPI job to a real acctd (docs/samples.md).
#
# usage: samples_check.sh MODE LIBACCT_SO JOB ACCTD ACCTCTL MPIEXEC ARGS...
#   (MPIEXEC ARGS: mpirun and its flags, without -np)
# MODE:
#   counts    the job's known calls arrive with the right counts per method;
#             ACCT_SAMPLES=all multiplies them by the ranks; ACCT_SAMPLES=off
#             and an unset/invalid identity send nothing
#   periodic  ACCT_SAMPLES_INTERVAL=1 over a 3 s job: several batches, and
#             the stored counts equal the calls made
#   stopped   the daemon is stopped (SIGSTOP) for the whole job: the job
#             finishes promptly, exit 0, no output; after SIGCONT the daemon
#             still serves
#   killed    the daemon is killed (SIGKILL) in the middle of the job: the
#             job finishes, exit 0, no output
#   threads   MPI_THREAD_MULTIPLE job (tests/mpi/threads.c), every rank sampling
#   nodaemon  no daemon / a socket path that is a regular file / a path too
#             long for a socket: exit 0, no output
#   explore   (JOB is explore_job) rules with runner-ups and options.explore:
#             every rank explores the same calls (ACCT_VERBOSE=2 lines per
#             rank), one call in each block of ceil(1/explore) calls, results
#             right, the report counts them, acctd stores the runner-up's
#             samples under its own method; none when off or forced
# Starts acctd in the foreground on a temporary directory and always stops
# it by PID and removes the directory (trap), even when a check fails.
set -u
mode=$1 lib=$2 job=$3 ACCTD=$4 ACCTCTL=$5
shift 5
MPIEXEC=("$@")
NP=4

T=$(mktemp -d /tmp/acct-samples-test.XXXXXX) || exit 1
SOCK=$T/run/acctd.sock
ACCTD_PID=
failures=0
cleanup() {
    local rc=$?
    if [ -n "$ACCTD_PID" ]; then
        kill -CONT "$ACCTD_PID" 2>/dev/null
        kill -TERM "$ACCTD_PID" 2>/dev/null
        wait "$ACCTD_PID" 2>/dev/null
    fi
    if [ "$rc" -ne 0 ] && [ -f "$T/acctd.log" ]; then
        echo "---- acctd log (last 20 lines) ----" >&2
        tail -n 20 "$T/acctd.log" >&2
    fi
    rm -rf "$T"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "FAIL [$mode]: $*" >&2
    failures=$((failures + 1))
}

start_acctd() {
    mkdir -p "$T/policies"
    cat >"$T/acctd.yaml" <<EOF
state_dir: $T/state
runtime_dir: $T/run
policy_dir: $T/policies
socket_mode: 0666
log_level: debug
node: testnode
EOF
    "$ACCTD" -f -c "$T/acctd.yaml" >>"$T/acctd.log" 2>&1 &
    ACCTD_PID=$!
    local i
    for i in $(seq 200); do
        [ -S "$SOCK" ] && ACCT_SOCKET=$SOCK "$ACCTCTL" status >/dev/null 2>&1 && return 0
        kill -0 "$ACCTD_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "acctd did not start" >&2
    exit 1
}

# run_job OUT [ENV=VALUE...] -- [JOB ARGS]: the job with libacct preloaded,
# forced methods, the identity (override with ENV=VALUE; ENV= unsets it by
# passing an empty value), stdout+stderr in OUT; returns the job's status.
run_job() {
    local out=$1
    shift
    local -a env=(ACCT_FORCE="bcast=binomial:256,allreduce=ring" ACCT_SOCKET="$SOCK" ACCT_SAMPLES_STRIDE=1
                  ACCT_JOB=42.0 ACCT_PARTITION=eth ACCT_INTERCONNECT=tcp)
    while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    local -a x=(-x LD_PRELOAD="${ACCT_TEST_PRELOAD:+$ACCT_TEST_PRELOAD }$lib")
    [ -n "${ASAN_OPTIONS:-}" ] && x+=(-x ASAN_OPTIONS)
    local kv
    for kv in "${env[@]}"; do x+=(-x "$kv"); done
    # RANK_OUT=DIR: each rank's output also in DIR/1/rank.R/std{out,err}
    # (mpirun's merged stream may split one rank's line under load)
    [ -n "${RANK_OUT:-}" ] && x+=(--output-filename "$RANK_OUT")
    timeout 120 "${MPIEXEC[@]}" "${x[@]}" -np "$NP" "$job" "$@" >"$out" 2>&1
}

# calls PARTITION COLLECTIVE BUCKET METHOD: calls stored for that row.
calls() {
    ACCT_SOCKET=$SOCK "$ACCTCTL" samples -p "$1" --format tsv >"$T/samples.tsv" 2>&1 ||
        { fail "acctctl samples failed: $(cat "$T/samples.tsv")"; echo 0; return; }
    awk -F'\t' -v c="$2" -v b="$3" -v m="$4" \
        'NR > 1 && $3 == c && $5 == b && $7 == m { s += $8 } END { print s + 0 }' "$T/samples.tsv"
}

rows() {
    ACCT_SOCKET=$SOCK "$ACCTCTL" samples -p "$1" --format tsv 2>/dev/null | awk 'NR > 1' | wc -l
}

expect_calls() { # PARTITION COLL BUCKET METHOD WANT
    local got
    got=$(calls "$1" "$2" "$3" "$4")
    [ "$got" = "$5" ] || fail "$1 $2 bucket $3 $4: $got calls stored, expected $5"
}

expect_quiet_ok() { # STATUS OUT WHAT (the job's own "extra calls" line aside)
    [ "$1" -eq 0 ] || fail "$3: the job exited $1: $(cat "$2")"
    grep -v '^extra calls: [0-9]*$' "$2" >"$2.rest"
    [ ! -s "$2.rest" ] || fail "$3: the job printed: $(cat "$2.rest")"
}

case $mode in
counts)
    start_acctd
    run_job "$T/out" || fail "job failed: $(cat "$T/out")"
    # one sender per node (here: world rank 0): exactly the calls made
    expect_calls eth bcast 10 binomial:256 40
    expect_calls eth allreduce 7 ring 30
    expect_calls eth barrier 0 native 20
    expect_calls eth gather 5 native 10
    expect_calls eth allreduce 3 ring 1   # the job's final check (one int)
    [ "$(rows eth)" = 5 ] || fail "eth: $(rows eth) rows, expected 5"
    # segment and fan-out are part of the method (the daemon checks both)
    run_job "$T/out" ACCT_PARTITION=methods ACCT_JOB=42.9 \
        ACCT_FORCE="bcast=knomial:512:4,allreduce=segmented_ring:16,gather=chain::3" ||
        fail "job (methods) failed: $(cat "$T/out")"
    expect_calls methods bcast 10 knomial:512:4 40
    expect_calls methods allreduce 7 segmented_ring:16 30
    # (acctd shows an unsegmented fan-out method as "chain:0:3"; rules and
    # ACCT_FORCE spell it "chain::3": either is the same method)
    n=$(( $(calls methods gather 5 chain::3) + $(calls methods gather 5 chain:0:3) ))
    [ "$n" = 10 ] || fail "methods gather bucket 5 chain, fan-out 3: $n calls stored, expected 10"
    # every rank sends: NP times as many
    run_job "$T/out" ACCT_SAMPLES=all ACCT_PARTITION=all ACCT_JOB=42.1 ||
        fail "job (all) failed: $(cat "$T/out")"
    expect_calls all bcast 10 binomial:256 $((40 * NP))
    expect_calls all barrier 0 native $((20 * NP))
    # a full table: with room for 3 keys the first 3 keys used are stored,
    # the calls of the other 2 (10 gathers, 1 small allreduce) are dropped
    run_job "$T/out" ACCT_SAMPLES_KEYS=3 ACCT_PARTITION=full ACCT_JOB=42.7 ACCT_VERBOSE=2 ||
        fail "job (full table) failed: $(cat "$T/out")"
    [ "$(rows full)" = 3 ] || fail "full: $(rows full) rows stored, expected 3"
    expect_calls full barrier 0 native 20
    grep -q 'calls dropped (table full 11, busy 0)' "$T/out" ||
        fail "full: $(grep 'samples: mean gap' "$T/out")"
    # the adaptive gap (docs/samples.md): some calls, never more than made
    run_job "$T/out" ACCT_SAMPLES_STRIDE= ACCT_PARTITION=adaptive ACCT_JOB=42.6 ||
        fail "job (adaptive) failed: $(cat "$T/out")"
    n=$(calls adaptive bcast 10 binomial:256)
    [ "$n" -ge 1 ] && [ "$n" -le 40 ] || fail "adaptive: $n bcasts stored, expected 1..40"
    # with ACCT_REPORT every call is timed, so every call is a sample
    run_job "$T/out" ACCT_SAMPLES_STRIDE= ACCT_REPORT="$T/report.yaml" ACCT_PARTITION=report \
        ACCT_JOB=42.8 || fail "job (report) failed: $(cat "$T/out")"
    expect_calls report bcast 10 binomial:256 40
    grep -q '^active: true$' "$T/report.yaml" 2>/dev/null || fail "report: not written or ACCT not active"
    # off, and identities that must switch sampling off
    run_job "$T/out" ACCT_SAMPLES=off ACCT_PARTITION=off ACCT_JOB=42.2 || fail "job (off) failed"
    run_job "$T/out" ACCT_JOB= ACCT_PARTITION=nojob || fail "job (no ACCT_JOB) failed"
    run_job "$T/out" ACCT_JOB="4 2" ACCT_PARTITION=badjob || fail "job (bad ACCT_JOB) failed"
    run_job "$T/out" ACCT_JOB=42.3 ACCT_PARTITION=../x || fail "job (bad partition) failed"
    run_job "$T/out" ACCT_JOB=42.4 ACCT_PARTITION=noic ACCT_INTERCONNECT= || fail "job (no interconnect) failed"
    for p in off nojob badjob noic; do
        [ "$(rows $p)" = 0 ] || fail "partition $p: samples stored, expected none"
    done
    ACCT_SOCKET=$SOCK "$ACCTCTL" samples --format tsv 2>/dev/null | awk -F'\t' 'NR > 1 { print $1 }' |
        grep -qv '^eth$\|^all$\|^adaptive$\|^full$\|^report$\|^methods$' && fail "samples from a run that must not sample"
    # without ACCT (ACCT=off): nothing either
    run_job "$T/out" ACCT=off ACCT_PARTITION=acctoff ACCT_JOB=42.5 || fail "job (ACCT=off) failed"
    [ "$(rows acctoff)" = 0 ] || fail "ACCT=off: samples stored"
    ;;
periodic)
    start_acctd
    run_job "$T/out" ACCT_SAMPLES_INTERVAL=1 ACCT_VERBOSE=2 -- 3 ||
        fail "job failed: $(cat "$T/out")"
    extra=$(sed -n 's/^extra calls: //p' "$T/out")
    batches=$(sed -n 's/.*records in \([0-9]*\) batches sent, \([0-9]*\) batches dropped.*/\1 \2/p' "$T/out")
    echo "extra calls: $extra; batches sent, dropped: $batches"
    set -- $batches
    [ "${1:-0}" -ge 3 ] || fail "only ${1:-0} batches sent over 3 s with a 1 s interval"
    [ "${2:-1}" = 0 ] || fail "${2:-?} batches dropped with a live daemon"
    expect_calls eth barrier 0 native $((20 + extra / 2))
    expect_calls eth bcast 3 binomial:256 $((extra / 2))
    expect_calls eth bcast 10 binomial:256 40
    ;;
stopped)
    start_acctd
    kill -STOP "$ACCTD_PID"
    start=$(date +%s.%N)
    run_job "$T/out" ACCT_SAMPLES_INTERVAL=1 -- 3
    st=$?
    took=$(echo "$(date +%s.%N) - $start" | bc)
    echo "job with a stopped daemon took $took s (3 s of work)"
    expect_quiet_ok "$st" "$T/out" "stopped daemon"
    [ "$(echo "$took < 30" | bc)" = 1 ] || fail "the job took $took s with a stopped daemon"
    kill -CONT "$ACCTD_PID"
    ACCT_SOCKET=$SOCK timeout 20 "$ACCTCTL" status >/dev/null 2>&1 ||
        fail "acctd does not answer after SIGCONT"
    # what the job queued in the socket while the daemon was stopped is
    # read when it continues (as far as the backlog and buffers held it)
    n=$(calls eth bcast 10 binomial:256)
    echo "after SIGCONT: $n of the 40 bcasts stored"
    [ "$n" -le 40 ] || fail "after SIGCONT: $n bcasts stored, at most 40 were made"
    ;;
killed)
    start_acctd
    (sleep 1.5; kill -KILL "$ACCTD_PID") &
    killer=$!
    run_job "$T/out" ACCT_SAMPLES_INTERVAL=1 -- 4
    st=$?
    wait "$killer"
    wait "$ACCTD_PID" 2>/dev/null
    ACCTD_PID=
    expect_quiet_ok "$st" "$T/out" "daemon killed mid-job"
    ;;
threads)
    # JOB is tests/mpi/threads.c: two threads in collectives at once
    # (MPI_THREAD_MULTIPLE); every rank samples every call: the table's
    # trylock drops contended calls, results stay right, samples arrive
    start_acctd
    run_job "$T/out" ACCT_SAMPLES=all ACCT_VERBOSE=2 \
        ACCT_FORCE="bcast=binomial:1024,allreduce=ring,allgather=recursive_doubling" ||
        fail "threaded job failed: $(cat "$T/out")"
    grep -q 'OK$' "$T/out" || fail "threaded job: $(grep threads: "$T/out")"
    grep 'samples: mean gap' "$T/out" | head -n 4
    n=$(calls eth bcast 14 binomial:1024)
    [ "$n" -ge 1 ] || fail "threads: no bcast samples stored"
    ;;
nodaemon)
    run_job "$T/out" ACCT_SAMPLES_INTERVAL=1 -- 1.5
    expect_quiet_ok $? "$T/out" "no daemon"
    : >"$T/file"
    run_job "$T/out" ACCT_SOCKET="$T/file" -- 1
    expect_quiet_ok $? "$T/out" "ACCT_SOCKET a regular file"
    run_job "$T/out" ACCT_SOCKET="/$(printf 'x%.0s' $(seq 200))" -- 0
    expect_quiet_ok $? "$T/out" "ACCT_SOCKET too long"
    run_job "$T/out" ACCT_SOCKET=$'\x01garbage' -- 0
    expect_quiet_ok $? "$T/out" "ACCT_SOCKET garbage"
    ;;
explore)
    start_acctd
    # 4 ranks: bcast of 1000 bytes decided linear (runner-up binomial),
    # allreduce of 64 bytes ring (runner-up recursive_doubling); the job's
    # last allreduce (4 bytes) has no rule
    write_rules() { # FILE OPTIONS-LINE
        {
            echo 'acct_rules: 1'
            echo 'provenance: {partition: eth, interconnect: tcp, version: 3, source: manual, created: "2026-11-22T12:00:00Z"}'
            [ -n "$2" ] && echo "$2"
            echo 'collectives:'
            echo '  bcast:'
            echo '    - {comm_size: 4, bytes: 1000, algorithm: linear, runner_up: {algorithm: binomial}}'
            echo '  allreduce:'
            echo '    - {comm_size: 4, bytes: 64, algorithm: ring, runner_up: {algorithm: recursive_doubling}}'
        } >"$1"
    }
    # explored DIR COLL RANK: the calls RANK explored, one "call K" a line,
    # from that rank's own stderr (RANK_OUT=DIR of run_job)
    explored() {
        sed -n "s/^acct\[$3\]: debug: explore: $2 \(call [0-9]*\) .*/\1/p" "$1/1/rank.$3/stderr"
    }
    N=1000
    for spec in "0.01 7 100" "0.03 12345 34" "0.05 0 20"; do
        set -- $spec
        f=$1 seed=$2 period=$3
        write_rules "$T/rules.yaml" "options: {explore: $f, explore_seed: $seed}"
        part=explore$period
        rm -rf "$T/ranks"
        RANK_OUT="$T/ranks" run_job "$T/out" ACCT_FORCE= ACCT_RULES="$T/rules.yaml" ACCT_VERBOSE=2 \
            ACCT_REPORT="$T/report.yaml" ACCT_PARTITION=$part ACCT_JOB=43.$period -- $N ||
            { fail "explore $f: job failed: $(grep -v debug "$T/out" | head -5)"; continue; }
        for c in bcast allreduce; do
            for r in 0 1 2 3; do
                explored "$T/ranks" $c $r >"$T/ex.$c.$r"
            done
            n=$(wc -l <"$T/ex.$c.0")
            for r in 1 2 3; do
                cmp -s "$T/ex.$c.0" "$T/ex.$c.$r" ||
                    fail "explore $f: ranks 0 and $r explored different $c calls"
            done
            # one call in each block of $period calls
            lo=$((N / period)) hi=$(((N + period - 1) / period))
            [ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] ||
                fail "explore $f: $n $c calls explored, expected $lo..$hi (one in $period)"
            awk -v p="$period" '{ b = int($2 / p); if (seen[b]++) exit 1 }' "$T/ex.$c.0" ||
                fail "explore $f: two $c explorations in one block of $period"
            rep=$(awk -v c="$c" '/^explored:/ { on = 1; next } /^[a-z]/ { on = 0 }
                on && index($0, "collective: " c ",") { gsub(/[^0-9]/, "", $NF); print $NF }' \
                "$T/report.yaml")
            [ "${rep:-0}" = "$n" ] || fail "explore $f: the report says ${rep:-0} $c calls explored, the log $n"
            eval "n_$c=$n"
        done
        grep -q "^explore: {fraction: $f, seed: $seed, period: $period}\$" "$T/report.yaml" ||
            fail "explore $f: report: $(grep '^explore' "$T/report.yaml")"
        # rank 0's samples: the runner-up under its own method
        expect_calls $part bcast 10 binomial "$n_bcast"
        expect_calls $part bcast 10 linear $((N - n_bcast))
        expect_calls $part allreduce 7 recursive_doubling "$n_allreduce"
        expect_calls $part allreduce 7 ring $((N - n_allreduce))
        echo "explore $f (one in $period, seed $seed): $n_bcast bcasts and $n_allreduce allreduces of $N explored, the same calls on 4 ranks"
    done
    # another seed explores other calls
    write_rules "$T/rules.yaml" "options: {explore: 0.01, explore_seed: 8}"
    rm -rf "$T/ranks8" "$T/ranks7"
    RANK_OUT="$T/ranks8" run_job "$T/out2" ACCT_FORCE= ACCT_RULES="$T/rules.yaml" ACCT_VERBOSE=2 \
        ACCT_PARTITION=seed8 ACCT_JOB=43.8 -- $N || fail "explore seed 8: job failed"
    write_rules "$T/rules.yaml" "options: {explore: 0.01, explore_seed: 7}"
    RANK_OUT="$T/ranks7" run_job "$T/out" ACCT_FORCE= ACCT_RULES="$T/rules.yaml" ACCT_VERBOSE=2 \
        ACCT_PARTITION=seed7 ACCT_JOB=43.7 -- $N || fail "explore seed 7: job failed"
    [ "$(explored "$T/ranks7" bcast 0 | wc -l)" = 10 ] || fail "seed 7: not 10 bcasts explored"
    cmp -s <(explored "$T/ranks7" bcast 0) <(explored "$T/ranks8" bcast 0) &&
        fail "seeds 7 and 8 explored the same calls"
    # off: no options; explore: 0; ACCT_FORCE (forced calls never explore)
    for opt in "" "options: {explore: 0, explore_seed: 5}" "options: {explore: 0.05}"; do
        write_rules "$T/rules.yaml" "$opt"
        force=
        [ "$opt" = "options: {explore: 0.05}" ] && force="bcast=linear,allreduce=ring"
        run_job "$T/out" ACCT_FORCE="$force" ACCT_RULES="$T/rules.yaml" ACCT_VERBOSE=2 \
            ACCT_REPORT="$T/report.yaml" ACCT_PARTITION=off ACCT_JOB=43.1 -- 200 ||
            fail "no exploration ('$opt', force '$force'): job failed"
        ! grep -q 'debug: explore:' "$T/out" || fail "explored with '$opt', force '$force'"
        grep -q '^explored: \[\]$' "$T/report.yaml" || fail "the report lists explored calls ('$opt')"
    done
    [ "$(calls off bcast 10 binomial)" = 0 ] || fail "off: binomial samples stored"
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "ok: $mode"
