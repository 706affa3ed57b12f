#!/usr/bin/env bash
# Tuning cost of the search strategies on real MPI experiments (not a test).
#
# usage: strategy-bench.sh ACCT_TUNE OUTDIR NP [acct-tune grid options...]
#   e.g. strategy-bench.sh build/tools/acct-tune/acct-tune /tmp/sb 4 \
#          --collectives bcast,reduce,allreduce --comm-sizes 4 --sizes 8:1M:8 --reps 10
#
# Runs acct-tune with --strategy exhaustive (the reference), keeping its
# journal; then every other strategy on a copy of that journal, so that each
# search sees exactly the reference's timings (replayed, not re-measured:
# the comparison is free of run-to-run noise; only the pipeline's proxy
# experiments are measured anew). Prints acct-tune-compare's table: the
# experiments each strategy used, their timed cost, the reduction against
# exhaustive, and the penalty of its decisions. MPIRUN (default: mpirun with
# this project's flags for a 2-core host) and STRATEGIES can be overridden.
set -eu
tune=$1 out=$2 np=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mpirun_cmd=${MPIRUN:-"mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 \
--mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none"}
mkdir -p "$out"
strategies="exhaustive ${STRATEGIES:-mgd smgd pipeline reduced}"
rm -f "$out"/*.state
for s in $strategies; do
    echo "== $s" >&2
    [ "$s" = exhaustive ] || cp "$out/exhaustive.state" "$out/$s.state"
    $mpirun_cmd -np "$np" "$tune" --strategy "$s" --out "$out/$s.yaml" --state "$out/$s.state" \
        "$@" >"$out/$s.log" 2>&1 || { cat "$out/$s.log" >&2; exit 1; }
    tail -1 "$out/$s.log" >&2
done
results=()
for s in $strategies; do results+=("$out/$s.yaml:$out/$s.state"); done
python3 "$here/acct-tune-compare" "$out/exhaustive.yaml" "${results[@]}"
