#!/usr/bin/env bash
# Measure the exhaustive reference dataset of the tuning-cost report
# (docs/performance.md section 5, docs/acct-tune.md "How well they do").
#
# usage: dataset.sh ACCT_TUNE OUTDIR [NP [CELL_BUDGET]]
#
# One `acct-tune --strategy exhaustive` per (communicator size, collective),
# communicator sizes 2..NP (NP = 8 by default, oversubscribed), all nine
# collectives, 8 B - 1 MiB doubling, every segment acct-tune tries (the
# registry's segmented algorithms, 1K .. unsegmented), few repetitions, and
# a budget per cell (CELL_BUDGET, default 30s) so that the whole run has a
# known bound; a point cut by the budget is incomplete and the replay
# (acct-tune-replay) leaves it out. The journals are concatenated into
# OUTDIR/exhaustive.state (one fingerprint: same --reps/--warmup/
# --point-limit/job size), which acct-tune-replay reads. MPIRUN overrides
# the launcher; PSIZES the communicator sizes (default 2..NP; a second run
# of a few sizes into another OUTDIR gives acct-tune-replay --noise).
set -u
tune=$1 out=$2 np=${3:-8} budget=${4:-30s}
mpirun_cmd=${MPIRUN:-"mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 \
--mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none"}
grid="--sizes 8:1M --reps 3 --warmup 0 --point-limit 0.05"
mkdir -p "$out/cells"
colls="bcast reduce allreduce allgather alltoall gather scatter reduce_scatter_block barrier"
for p in ${PSIZES:-$(seq 2 "$np")}; do
    for c in $colls; do
        cell="$out/cells/$c-$p"
        [ -s "$cell.done" ] && continue
        echo "== $c p=$p $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
        $mpirun_cmd -np "$np" "$tune" --strategy exhaustive --collectives "$c" --comm-sizes "$p" \
            $grid --budget "$budget" --out "$cell.yaml" --state "$cell.state" >"$cell.log" 2>&1 &&
            tail -1 "$cell.log" >"$cell.done"
        tail -1 "$cell.log" >&2
    done
done
{ head -1 "$(ls "$out"/cells/*.state | head -1)"; for f in "$out"/cells/*.state; do tail -n +2 "$f"; done; } \
    >"$out/exhaustive.state"
wc -l "$out/exhaustive.state" >&2
