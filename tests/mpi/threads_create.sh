#!/usr/bin/env bash
# mpi.threads_create: communicators created in some threads while others run
# collectives (MPI_THREAD_MULTIPLE; threads_create.c), natively and then under
# every registered barrier, bcast and allreduce algorithm forced in turn.
# Each run must finish (a hang is the failure this guards against: ACCT once
# created its private communicator inside the collective, racing the other
# threads' creations), compute the right results, and run the forced
# algorithm (ACCT_REPORT).
# usage: threads_create.sh TEST_ALGS LIBACCT_SO PROGRAM MPIEXEC [MPIEXEC_FLAGS...]
set -u
algs=$1 lib=$2 prog=$3 mpiexec=$4
shift 4
flags=("$@")
np=4 run_timeout=(90)
# shellcheck source-path=SCRIPTDIR source=checklib.sh
. "$(dirname "$0")/checklib.sh"
# run NAME [VAR=VALUE...]: mpi_run with no input
run() { mpi_run "$@" </dev/null; }
passed() { [ "$(rc_of "$1")" = 0 ] && grep -q '^threads_create: .* OK$' "$work/$1.out"; }
ran() { # ran NAME COLL ALG: the report shows calls of ALG
    local n
    n=$(sed -n "s/.*{collective: $2, algorithm: $3, calls: \([0-9]*\),.*/\1/p" "$work/$1.report")
    [ -n "$n" ] && [ "$n" -gt 0 ]
}
show() { echo "--- $1 (exit $(rc_of "$1"))"; cat "$work/$1.out"; head -20 "$work/$1.err"; }

run native
if grep -q '^threads_create: SKIP' "$work/native.out"; then
    cat "$work/native.out"
    exit 77
fi
check "native run passes" passed native
"$algs" --list >"$work/list" || { echo "cannot list the algorithms"; exit 1; }
while read -r coll alg kind _; do
    case $coll in barrier | bcast | allreduce) ;; *) continue ;; esac
    force="$coll=$alg"
    [ "$kind" = segmented ] && force="$force:1024"
    name="$coll.$alg"
    run "$name" LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$work/$name.report"
    check "$force: finishes with the right results" passed "$name"
    check "$force: the forced algorithm ran" ran "$name" "$coll" "$alg"
    passed "$name" || show "$name"
done <"$work/list"
finish
