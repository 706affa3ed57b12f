#!/usr/bin/env bash
# mpi.threads_create: communicators created in some threads while others run
# collectives (MPI_THREAD_MULTIPLE; threads_create.c), natively and then under
# every registered barrier, bcast and allreduce algorithm forced in turn.
# Each run must finish (a hang is the failure this guards against: ACCT once
# created its private communicator inside the collective, racing the other
# threads' creations), compute the right results, and run the forced
# algorithm (ACCT_REPORT).
# SCOPE splits the algorithms so that the sanitizer pass can run a sample
# (docs/performance.md section 4): "first" runs the first algorithm of each
# collective and class (plain or segmented, node-aware or not, as
# test_algs --list says), "rest" the others; each scope runs natively first.
# usage: threads_create.sh SCOPE TEST_ALGS LIBACCT_SO PROGRAM MPIEXEC [MPIEXEC_FLAGS...]
set -u
scope=$1 algs=$2 lib=$3 prog=$4 mpiexec=$5
shift 5
case $scope in first | rest) ;; *) echo "threads_create.sh: SCOPE must be first or rest, not '$scope'"; exit 2 ;; esac
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
seen=" "
while read -r coll alg kind _ _ nodes _; do
    case $coll in barrier | bcast | allreduce) ;; *) continue ;; esac
    class="$coll/$kind/$nodes"
    case $seen in
    *" $class "*) [ "$scope" = rest ] || continue ;;
    *) seen="$seen$class "; [ "$scope" = first ] || continue ;;
    esac
    force="$coll=$alg"
    [ "$kind" = segmented ] && force="$force:1024"
    name="$coll.$alg"
    run "$name" LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$work/$name.report"
    check "$force: finishes with the right results" passed "$name"
    check "$force: the forced algorithm ran" ran "$name" "$coll" "$alg"
    passed "$name" || show "$name"
done <"$work/list"
finish
