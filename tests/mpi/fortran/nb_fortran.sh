#!/usr/bin/env bash
# mpi.fortran.nb_*: nb_fortran (nb_fortran.F90: all sixteen non-blocking
# collectives, MPI_IN_PLACE wherever MPI allows it) natively, through ACCT
# with a method forced for every collective, and with ACCT_DISABLE=1:
# results right every time; the ACCT and ACCT_DISABLE runs' digests of every
# receive buffer equal the native run's (byte for byte); the ACCT report's
# i<coll> rows show every forced method and as many calls per collective as
# the program made. Open MPI's Fortran bindings call PMPI_* directly, so a
# report row is there only if libacct's Fortran entry point took the call.
# usage: nb_fortran.sh NP LIBACCT_SO PROGRAM MPIEXEC [FLAGS...]
set -u
np=$1 lib=$2 prog=$3 mpiexec=$4
shift 4
flags=("$@")
run_timeout=(300)
# shellcheck source-path=SCRIPTDIR source=../checklib.sh
. "$(dirname "$0")/../checklib.sh"
report=$work/report.yaml
force=barrier=dissemination,bcast=chain:1024,reduce=binomial:1024,allreduce=ring,gather=binomial
force=$force,scatter=binomial,allgather=ring,alltoall=pairwise,reduce_scatter_block=recursive_halving
force=$force,allgatherv=bruck,reduce_scatter=reduce_scatterv,gatherv=binomial,scatterv=binomial
force=$force,alltoallv=pairwise,scan=linear:1024,exscan=recursive_doubling
ok_run() { [ "$(rc_of "$1")" = 0 ] && grep -q '^nb_fortran: .* OK$' "$work/$1.out" ||
           { cat "$work/$1.out"; head -20 "$work/$1.err"; false; }; }
same_digests() { [ "$(digests "$1" | wc -l)" = 16 ] && diff <(digests native) <(digests "$1"); }
ran() { grep -q "{collective: i$1, algorithm: $2, calls: [1-9]" "$report" || { cat "$report"; false; }; }
prog=("$prog")
mpi_run native
check "native: results right" ok_run native
mpi_run acct LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report"
check "ACCT: results right" ok_run acct
check "ACCT: every receive buffer byte-identical to native (digests)" same_digests acct
for e in ${force//,/ }; do
    coll=${e%%=*} alg=${e#*=} alg=${alg%%:*}
    check "mpi_i$coll ran $alg" ran "$coll" "$alg"
done
check "report's calls per collective equal the program's" counts_match acct
mv "$report" "$work/acct-report.yaml"
mpi_run off LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report" ACCT_DISABLE=1
check "ACCT_DISABLE=1: results right" ok_run off
check "ACCT_DISABLE=1: receive buffers byte-identical to native (digests)" same_digests off
check "ACCT_DISABLE=1: no report" test ! -e "$report"
finish
