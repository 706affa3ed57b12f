#!/usr/bin/env bash
# mpi.nb.check.npN: acct_nb_check (nb_check.c) natively, through ACCT with
# a method forced for every collective (the report's i<coll> rows must show
# ACCT's methods for all sixteen non-blocking collectives, the five
# v-collectives with their count arrays overwritten right after each post:
# NB_CHECK_SCRIBBLE), with progress only
# from the program's own MPI calls, and with ACCT_NONBLOCKING=0 (the
# non-blocking collectives pass through to the native ones; the report
# counts them as native), also when only rank 1 sets it (the agreement at
# MPI_Init makes every rank run them natively). Only the ACCT run frees a collective's request in
# flight (NB_CHECK_FREE: Open MPI's own collectives refuse that).
# usage: nb_check.sh NP LIBACCT_SO NB_CHECK MPIEXEC [FLAGS...]
set -u
np=$1 lib=$2 prog=$3 mpiexec=$4
shift 4
flags=("$@")
run_timeout=(300)
report=
# shellcheck source-path=SCRIPTDIR source=checklib.sh
. "$(dirname "$0")/checklib.sh"
report=$work/report.yaml
force=barrier=dissemination,bcast=chain:1024,reduce=binomial:1024,allreduce=ring,gather=binomial
force=$force,scatter=binomial,allgather=ring,alltoall=pairwise,reduce_scatter_block=recursive_halving
force=$force,allgatherv=ring,reduce_scatter=ring,gatherv=binomial,scatterv=binomial,alltoallv=pairwise
force=$force,scan=binomial,exscan=linear:1024

ok_run() { [ "$(rc_of "$1")" = 0 ] && grep -q '^nb_check: .* OK$' "$work/$1.out" ||
           { cat "$work/$1.out"; head -20 "$work/$1.err"; false; }; }
nb_rows() { # every non-blocking collective has a row of an ACCT method (not native)
    local c n
    [ "$np" -gt 1 ] || return 0 # one process: always native
    for c in barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter_block \
             allgatherv reduce_scatter gatherv scatterv alltoallv scan exscan; do
        n=$(sed -n "s/^  - {collective: i$c, algorithm: \([a-z_]*\), calls: \([0-9]*\),.*/\1 \2/p" "$report" |
            awk '$1 != "native" { s += $2 } END { print s + 0 }')
        [ "$n" -gt 0 ] || { echo "    no i$c call ran an ACCT method"; cat "$report"; return 1; }
    done
}
nb_native_only() { ! grep "{collective: i[a-z_]*, algorithm: " "$report" | grep -v "algorithm: native," &&
                   grep -q "{collective: ibcast, algorithm: native," "$report"; }

prog=("$prog")
mpi_run native
check "native: all results right" ok_run native
mpi_run acct LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report" NB_CHECK_FREE=1 \
    NB_CHECK_SCRIBBLE=1
check "ACCT, every method forced: all results right" ok_run acct
check "ACCT ran every non-blocking collective with its methods" nb_rows
rm -f "$report"
mpi_run off LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report" ACCT_NONBLOCKING=0
check "ACCT_NONBLOCKING=0: all results right" ok_run off
check "ACCT_NONBLOCKING=0: every non-blocking collective ran natively" nb_native_only
if [ "$np" -gt 1 ]; then # on one rank only: agreed at MPI_Init, every rank native (no hang)
    rm -f "$report"
    prog=(sh -c 'if [ "${OMPI_COMM_WORLD_RANK:-0}" = 1 ]; then export ACCT_NONBLOCKING=0; fi; exec "$0"' "${prog[0]}")
    mpi_run one LD_PRELOAD="$preload" ACCT_FORCE="$force" ACCT_REPORT="$report"
    check "ACCT_NONBLOCKING=0 on rank 1 only: all results right" ok_run one
    check "ACCT_NONBLOCKING=0 on rank 1 only: every rank ran them natively" nb_native_only
fi
finish
