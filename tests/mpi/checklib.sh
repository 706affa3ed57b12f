# shellcheck shell=bash
# checklib.sh — helpers shared by the MPI check scripts (sourced, bash).
# Source it once the arguments are read: it needs lib (the libacct.so under
# test); mpi_run needs mpiexec, np, and the arrays flags (mpiexec's options),
# prog (the program and its arguments) and run_timeout (timeout's arguments);
# a plain variable serves as an array of one word.
#
#   preload                        LD_PRELOAD value: lib, after the ASan runtime
#                                  in a sanitizer build (tests/CMakeLists.txt)
#   work                           a temporary directory, removed on exit (a
#                                  script may set its own EXIT trap instead)
#   check DESCRIPTION COMMAND...   run COMMAND, print "ok   - ..." or "FAIL - ..."
#   finish                         print "N passed, N failed", fail on any FAIL
#   mpi_run NAME [VAR=VALUE...]    prog under mpiexec: $work/NAME.out, .err, .rc
#   rc_of NAME                     the exit status of run NAME
#   mapped NAME 0|1                run NAME printed rt_mapped=0|1
#   acct_lines NAME                how many ACCT messages run NAME wrote on stderr
#   digests NAME                   run NAME's digest lines
#   counts_match NAME              $report's calls per collective = run NAME's
# shellcheck disable=SC2154  # lib, mpiexec, flags, np, prog, run_timeout, report: set by the scripts

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2034  # used by the scripts that source this file
preload="${ACCT_TEST_PRELOAD:+$ACCT_TEST_PRELOAD }$lib"

fails=0 checks=0
check() { # check DESCRIPTION COMMAND...
    local what=$1; shift
    checks=$((checks + 1))
    if "$@"; then echo "ok   - $what"; else echo "FAIL - $what"; fails=$((fails + 1)); fi
}
finish() {
    echo "$((checks - fails)) passed, $fails failed"
    [ "$fails" -eq 0 ]
}

# mpi_run NAME [VAR=VALUE...]: prog under mpiexec (-np np, limited by
# timeout run_timeout) with the given environment passed to every rank (and to
# mpiexec itself, which must survive the preload).
mpi_run() {
    local name=$1; shift
    local xs=() kv
    for kv in "$@"; do xs+=(-x "$kv"); done
    env "$@" timeout "${run_timeout[@]}" "$mpiexec" "${flags[@]}" "${xs[@]}" -np "$np" "${prog[@]}" \
        >"$work/$name.out" 2>"$work/$name.err"
    echo $? >"$work/$name.rc"
}
rc_of() { cat "$work/$1.rc"; }
mapped() { grep -qx "rt_mapped=$2" "$work/$1.out"; }
acct_lines() { grep -c '^acct' "$work/$1.err"; }
digests() { grep '^digest ' "$work/$1.out"; }

counts_match() { # report's calls per collective (all algorithms) = program's
    local pair coll n got pairs
    [ -s "$report" ] || { echo "    no report"; return 1; }
    grep -q '^calls ' "$work/$1.out" || { echo "    the program printed no calls line"; return 1; }
    read -ra pairs <<<"$(sed -n 's/^calls //p' "$work/$1.out")"
    for pair in "${pairs[@]}"; do
        coll=${pair%=*} n=${pair#*=}
        got=$(sed -n "s/^  - {collective: $coll, algorithm: [a-z0-9_]*, calls: \([0-9]*\),.*/\1/p" "$report" |
              awk '{ s += $1 } END { print s + 0 }')
        [ "$got" = "$n" ] || { echo "    $coll: program made $n calls, report says $got"; return 1; }
    done
}
