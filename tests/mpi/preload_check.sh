#!/usr/bin/env bash
# Runs coll_check natively and under the libacct preload and compares them.
# usage: preload_check.sh MODE NP LIBACCT_SO COLL_CHECK MPIEXEC [MPIEXEC_FLAGS...]
# MODE:
#   compare        native vs preloaded: same digests, runtime mapped only when
#                  preloaded, ACCT_REPORT call counts equal the program's own
#   disable        ACCT_DISABLE=1: same digests, runtime never mapped, no report
#   acct_off       ACCT=off: as disable
#   invalid_env    ACCT_DISABLE=maybe: ACCT stays off, exactly one warning line
#   no_runtime     ACCT_RUNTIME points nowhere: native results, one warning line
#   rules_fifo     ACCT_RULES names a FIFO: no hang, native results, one warning
# ACCT_CHECK_TIMEOUT: seconds each mpirun may take (default 120)
set -u
mode=$1 np=$2 lib=$3 prog=$4 mpiexec=$5
shift 5
flags=("$@")
run_timeout=("${ACCT_CHECK_TIMEOUT:-120}")
# shellcheck source-path=SCRIPTDIR source=checklib.sh
. "$(dirname "$0")/checklib.sh"
# checklib's trap, but first (rules_fifo) opening the FIFO read-write releases
# ranks that a regression left blocked in open() after mpirun's timeout
trap '[ -p "$work/rules.fifo" ] && : <>"$work/rules.fifo"; rm -rf "$work"' EXIT
passed() { [ "$(rc_of "$1")" = 0 ] && grep -q 'coll_check: .* OK$' "$work/$1.out"; }
same_digests() { [ -n "$(digests "$1")" ] && diff <(digests "$1") <(digests "$2"); }
show() { echo "--- $1.out"; cat "$work/$1.out"; echo "--- $1.err"; head -20 "$work/$1.err"; }

# The report's per-collective call counts equal what the program counted.
report_matches() {
    local report=$1 out=$2 pair coll n got
    [ -s "$report" ] || { echo "no report at $report"; return 1; }
    grep -q '^active: true$' "$report" || { echo "report not active"; return 1; }
    for pair in $(grep '^calls ' "$out" | cut -d' ' -f2-); do
        coll=${pair%=*} n=${pair#*=}
        got=$(sed -n "s/.*{collective: $coll, algorithm: native, calls: \([0-9]*\),.*/\1/p" "$report")
        [ "$got" = "$n" ] || { echo "$coll: program made $n calls, report says '$got'"; return 1; }
    done
}

mpi_run native
check "native run passes" passed native
case $mode in
compare)
    mpi_run acct LD_PRELOAD="$preload" ACCT_REPORT="$work/report.yaml"
    check "preloaded run passes" passed acct
    check "results identical to native (digests)" same_digests native acct
    check "native run does not map the runtime" mapped native 0
    check "preloaded run maps the runtime" mapped acct 1
    check "report call counts match the program's" report_matches "$work/report.yaml" "$work/acct.out"
    check "no ACCT message on stderr" test "$(acct_lines acct)" = 0
    ;;
disable | acct_off)
    if [ "$mode" = disable ]; then var=ACCT_DISABLE=1; else var=ACCT=off; fi
    mpi_run off LD_PRELOAD="$preload" ACCT_REPORT="$work/report.yaml" "$var"
    check "run with $var passes" passed off
    check "results identical to native" same_digests native off
    check "$var: runtime never mapped (pure pass-through)" mapped off 0
    check "$var: no report written" test ! -e "$work/report.yaml"
    check "$var: nothing printed" test "$(acct_lines off)" = 0
    ;;
invalid_env)
    mpi_run bad LD_PRELOAD="$preload" ACCT_DISABLE=maybe
    check "run with ACCT_DISABLE=maybe passes" passed bad
    check "results identical to native" same_digests native bad
    check "ACCT stays off" mapped bad 0
    check "exactly one warning line for $np ranks" test "$(acct_lines bad)" = 1
    ;;
no_runtime)
    mpi_run nort LD_PRELOAD="$preload" ACCT_RUNTIME="$work/missing/libacct_rt.so"
    check "run without a loadable runtime passes" passed nort
    check "results identical to native" same_digests native nort
    check "exactly one warning line for $np ranks" test "$(acct_lines nort)" = 1
    ;;
rules_fifo)
    # A FIFO nobody writes as ACCT_RULES: open() used to block every rank
    # inside MPI_Init (the run's timeout then fails it).
    mkfifo "$work/rules.fifo"
    mpi_run fifo LD_PRELOAD="$preload" ACCT_RULES="$work/rules.fifo" ACCT_REPORT="$work/report.yaml"
    check "run with a FIFO as ACCT_RULES passes (no hang)" passed fifo
    check "results identical to native" same_digests native fifo
    check "exactly one warning line for $np ranks" test "$(acct_lines fifo)" = 1
    check "the warning names the file" grep -q "rules.fifo: not a regular file" "$work/fifo.err"
    ;;
*)
    echo "unknown mode $mode"; exit 2 ;;
esac
if [ "$fails" -ne 0 ]; then
    for f in "$work"/*.out; do show "$(basename "$f" .out)"; done
fi
finish
