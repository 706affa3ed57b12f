#!/usr/bin/env bash
# mpi.fortran.nb_*: nb_fortran (nb_fortran.F90) natively and through ACCT
# with ibcast, iallreduce, ialltoall, iallgatherv and ireduce_scatter
# forced to ACCT methods: results
# right both times, and the report's i<coll> rows show the forced methods.
# usage: nb_fortran.sh NP LIBACCT_SO PROGRAM MPIEXEC [FLAGS...]
set -u
np=$1 lib=$2 prog=$3 mpiexec=$4
shift 4
flags=("$@")
run_timeout=(300)
# shellcheck source-path=SCRIPTDIR source=../checklib.sh
. "$(dirname "$0")/../checklib.sh"
report=$work/report.yaml
force=barrier=dissemination,bcast=chain:1024,allreduce=ring,alltoall=pairwise
force=$force,allgatherv=bruck,reduce_scatter=reduce_scatterv
ok_run() { [ "$(rc_of "$1")" = 0 ] && grep -q '^nb_fortran: .* OK$' "$work/$1.out" ||
           { cat "$work/$1.out"; head -20 "$work/$1.err"; false; }; }
ran() { grep -q "{collective: $1, algorithm: $2, calls: [1-9]" "$report" || { cat "$report"; false; }; }
prog=("$prog")
mpi_run native
check "native: results right" ok_run native
mpi_run acct LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report"
check "ACCT: results right" ok_run acct
check "mpi_ibcast ran chain" ran ibcast chain
check "mpi_iallreduce ran ring" ran iallreduce ring
check "mpi_ialltoall ran pairwise" ran ialltoall pairwise
check "mpi_iallgatherv ran bruck" ran iallgatherv bruck
check "mpi_ireduce_scatter ran reduce_scatterv" ran ireduce_scatter reduce_scatterv
finish
