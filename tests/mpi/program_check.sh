#!/usr/bin/env bash
# An MPI program that reaches libmpi through a local dlopen scope (mpi4py,
# a plugin opened with RTLD_LOCAL; issue 17) under mpirun: natively, with the
# libacct preload and ACCT_FORCE, and with ACCT_DISABLE=1.
# usage: program_check.sh [--mpi4py] NP LIBACCT_SO FORCE MPIEXEC [MPIEXEC_FLAGS...] -- PROGRAM [ARGS...]
#
# PROGRAM prints, on rank 0: "calls COLL=N ..." (its own MPI calls per rank),
# "rt_mapped=0|1" and a last line "NAME: np=NP checks=N errors=0 OK" when
# every result equalled its closed form on every rank.
# Checks: every run exits 0 with that line (results right, so equal to the
# native run's); natively and with ACCT_DISABLE=1 libacct_rt.so is never
# mapped and no report is written (pure pass-through); with the preload the
# runtime is mapped, ACCT_REPORT says active: true, every FORCE entry's
# algorithm ran, and the report's calls per collective (all algorithms) equal
# the program's.
# --mpi4py: exit 77 (ctest SKIP) when PROGRAM (a python) cannot import
# mpi4py and numpy.
set -u
need_mpi4py=0
if [ "${1:-}" = --mpi4py ]; then need_mpi4py=1; shift; fi
np=$1 lib=$2 force=$3 mpiexec=$4
shift 4
flags=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
shift
prog=("$@")
if [ ${#prog[@]} -eq 0 ]; then
    echo "usage: program_check.sh [--mpi4py] NP LIBACCT_SO FORCE MPIEXEC [FLAGS...] -- PROGRAM [ARGS...]" >&2
    exit 2
fi
if [ "$need_mpi4py" = 1 ] && ! "${prog[0]}" -c 'import mpi4py, numpy' 2>/dev/null; then
    echo "SKIP: ${prog[0]} cannot import mpi4py and numpy (Debian: python3-mpi4py python3-numpy)"
    exit 77
fi
run_timeout=(-k 10 100)
# shellcheck source-path=SCRIPTDIR source=checklib.sh
. "$(dirname "$0")/checklib.sh"

# run NAME [VAR=VALUE...]: mpi_run, passing ASAN_OPTIONS (when set) to every
# rank too.
run() { mpi_run "$@" ${ASAN_OPTIONS:+"ASAN_OPTIONS=$ASAN_OPTIONS"}; }
passed() {
    [ "$(rc_of "$1")" = 0 ] && grep -Eq "^[a-z0-9_]+: np=$np checks=[0-9]+ errors=0 OK$" "$work/$1.out"
}
show() { echo "--- $1 (exit status $(rc_of "$1"))"; cat "$work/$1.out"; echo "--- $1.err"; head -30 "$work/$1.err"; }

report=$work/report.yaml
active() { grep -q '^active: true$' "$report" 2>/dev/null; }
# calls of COLL by ALG in the report's summary (detail lines have comm_size)
report_calls() {
    sed -n "s/^  - {collective: $1, algorithm: $2, calls: \([0-9]*\),.*/\1/p" "$report"
}
forced_ran() { # every FORCE entry's algorithm made at least one call
    local e coll alg n bad=0
    [ -s "$report" ] || { echo "    no report"; return 1; }
    for e in ${force//,/ }; do
        coll=${e%%=*} alg=${e#*=} alg=${alg%%:*}
        n=$(report_calls "$coll" "$alg")
        [ "${n:-0}" -gt 0 ] || { echo "    $coll: forced $alg made '${n}' calls"; bad=1; }
    done
    return $bad
}

run native
check "native run exits 0, every result right" passed native
check "native run does not map the runtime" mapped native 0

run acct LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report"
check "preloaded run (ACCT_FORCE=$force) exits 0, every result right" passed acct
check "preloaded run maps the runtime" mapped acct 1
check "report written, active: true" active
check "every forced algorithm ran" forced_ran
check "report's calls per collective equal the program's" counts_match acct
check "no ACCT message on stderr" test "$(acct_lines acct)" = 0
[ -e "$report" ] && mv "$report" "$work/acct-report.yaml"

run off LD_PRELOAD="$preload" ACCT_DISABLE=1 ACCT_FORCE="$force" ACCT_REPORT="$report"
check "ACCT_DISABLE=1: exits 0, every result right" passed off
check "ACCT_DISABLE=1: runtime never mapped (pure pass-through)" mapped off 0
check "ACCT_DISABLE=1: no report written" test ! -e "$report"
check "ACCT_DISABLE=1: nothing printed" test "$(acct_lines off)" = 0

if [ "$fails" -ne 0 ]; then
    for n in native acct off; do show "$n"; done
    echo "--- acct report"; cat "$work/acct-report.yaml" 2>/dev/null
fi
finish
