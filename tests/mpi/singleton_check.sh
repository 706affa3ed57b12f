#!/usr/bin/env bash
# shellcheck disable=SC2016  # the checks' eval '...' bodies expand when they run
# MPI singletons (issue 17): an MPI program started on its own (no mpirun,
# no srun, no PMIx server) must run under the libacct preload as it does
# natively — a post-processing tool in a batch script, acct-tune --help.
# usage: singleton_check.sh LIBACCT_SO COLL_CHECK ACCT_TUNE FORCE
#
# coll_check natively, with the preload (+ FORCE, ACCT_REPORT) and with
# ACCT_DISABLE=1: each exits 0 in time (the bug: a segfault inside libpmix,
# then a hang), every check OK, the same digests as natively. With the
# preload ACCT runs the job as one rank: runtime mapped, report active: true,
# world_size: 1, its calls per collective equal the program's; with
# ACCT_DISABLE=1 pure pass-through (runtime not mapped, no report).
# acct-tune (linked with libacct.so, as installed) --help exits 0 with its
# usage, on its own and with the preload too.
set -u
lib=$1 prog=$2 tune=$3 force=$4
# shellcheck source-path=SCRIPTDIR source=checklib.sh
. "$(dirname "$0")/checklib.sh"
# A singleton must not find a launcher's environment (ctest under mpirun or
# srun would otherwise make it a rank of that job).
while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(\(PMIX\|PMI\|OMPI\|SLURM\)_[A-Za-z0-9_]*\)=.*/\1/p' |
    grep -v '^OMPI_MCA_')
# run NAME SECONDS [VAR=VALUE...] -- COMMAND...: exit status in NAME.rc
# (124: still running after SECONDS, killed).
run() {
    local name=$1 t=$2; shift 2
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    env "${vars[@]}" timeout -k 5 "$t" "$@" >"$work/$name.out" 2>"$work/$name.err" </dev/null
    echo $? >"$work/$name.rc"
}
exits0() { [ "$(rc_of "$1")" = 0 ]; }
passed() { grep -q '^coll_check: np=1 checks=[0-9]* errors=0 OK$' "$work/$1.out"; }
same_digests() { [ -n "$(digests "$1")" ] && diff <(digests "$1") <(digests "$2") >/dev/null; }
show() { echo "--- $1 (exit status $(rc_of "$1"))"; head -20 "$work/$1.out"; echo "--- $1.err"; head -30 "$work/$1.err"; }
report=$work/report.yaml
report_has() { grep -qx -- "$1" "$report" 2>/dev/null; }

run native 30 -- "$prog"
check "native singleton exits 0 (status $(rc_of native)), every check OK" eval 'exits0 native && passed native'
check "native singleton does not map the runtime" mapped native 0

run acct 30 LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report" -- "$prog"
check "preloaded singleton exits 0 within 30 s (status $(rc_of acct); 124 = hung)" exits0 acct
check "preloaded singleton: every check OK, digests equal native" eval 'passed acct && same_digests native acct'
check "preloaded singleton: ACCT ran it (runtime mapped)" mapped acct 1
check "report: active: true, world_size: 1" eval 'report_has "active: true" && report_has "world_size: 1"'
check "report's calls per collective equal the program's" counts_match acct
check "no ACCT message on stderr" test "$(acct_lines acct)" = 0
[ -e "$report" ] && mv "$report" "$work/acct-report.yaml"

run off 30 LD_PRELOAD="$preload" ACCT_DISABLE=1 ACCT_REPORT="$report" -- "$prog"
check "ACCT_DISABLE=1 singleton exits 0 (status $(rc_of off)), every check OK, digests equal native" \
    eval 'exits0 off && passed off && same_digests native off'
check "ACCT_DISABLE=1: runtime never mapped, no report" eval 'mapped off 0 && test ! -e "$report"'

# acct-tune is linked with libacct.so: "on its own" already loads it.
usage() { exits0 "$1" && grep -q '^Usage: .*acct-tune \[options\]' "$work/$1.out"; }
run tune 20 -- "$tune" --help
check "acct-tune --help exits 0 within 20 s (status $(rc_of tune)), prints its usage" usage tune
run tune-pre 20 LD_PRELOAD="$preload" -- "$tune" --help
check "acct-tune --help with the preload exits 0 (status $(rc_of tune-pre)), prints its usage" usage tune-pre

if [ "$fails" -ne 0 ]; then
    for n in native acct off tune tune-pre; do show "$n"; done
    echo "--- acct report"; cat "$work/acct-report.yaml" 2>/dev/null
fi
finish
