#!/bin/bash
# Session 43: why acct-tune's race and acct-ab's pairs disagree on reduce 256 KiB's
# hier_chain:2K:1 against native (docs/performance.md "Session 43: one cell, four
# harnesses"). Run inside tests/cluster/with-cluster.sh with ACCT_CLUSTER_ETH_RATE=100mbit;
# the job's files go to OUT (default /var/tmp/s43: the nodes see /var/tmp, not /tmp).
#   mpicc -O2 docs/data/eth100-two-retunes/chain-both.c -o /var/tmp/s43/chain-both -ldl
#   ACCT_CLUSTER_ETH_RATE=100mbit tests/cluster/with-cluster.sh docs/data/eth100-two-retunes/s43-harness/harness.sh
# The session ran the parts in four cluster sessions, 13:31-13:50 UTC: part 1 three times
# (quiet, beside a busy loop, quiet: chain-{quiet-a,busy-a,quiet-b}.log), parts 2-3
# alternating twice (tune1, chain1, tune2, chain2), part 4 twice (mix1, mix2), part 5
# (resume1-3), part 6 (osu-method.tsv).
set -u
repo=${ACCT_REPO:-$(cd "$(dirname "$0")/../../../.." && pwd)}; build=$repo/build
out=${OUT:-/var/tmp/s43}; mkdir -p "$out"
run="srun -p eth -N4 -n8 --ntasks-per-node=2 --mpi=pmix"
acct="--export=ALL,LD_PRELOAD=$build/lib/libacct.so,OMPI_MCA_mpi_yield_when_idle=1"
tune() { # tune NAME [--state FILE]: the search and race of reduce 256K, retune 2's rules incumbent
  (cd "$out" && $run $build/tools/acct-tune/acct-tune --collectives reduce --sizes 256K --comm-sizes 8 \
     --reps 10 --point-limit 1.5 --race 3 --race-rounds 20 --max-comm-size 0 "${@:2}" \
     --incumbent $repo/docs/data/eth100-two-retunes/s42/r2.rules.yaml --progress \
     --out "$out/$1.result.yaml" > "$out/$1.log" 2>&1)
}
# 1. chain-both: the method against native in six harnesses, 21 rounds
$run $acct "$out/chain-both" reduce=hier_chain:2048:1 262144 21 6 > "$out/chain.log" 2>&1
# 2-3. acct-tune's race of the point, then chain-both again
tune tune1
$run $acct "$out/chain-both" reduce=hier_chain:2048:1 262144 21 6 > "$out/chain1.log" 2>&1
# 4. chain-both with the race's other finalists timed between the two sides (harness mix)
$run $acct "$out/chain-both" reduce=hier_chain:2048:1 262144 21 6 \
  reduce=hier_binomial:2048,reduce=hier_knomial:2048:2,reduce=hier_chain:2048:2,reduce=hier_chain:32768:1 \
  > "$out/mix1.log" 2>&1
# 5. the race with its search in the job, then in fresh jobs resuming the search from the journal
rm -f "$out/state.txt"
for n in 1 2 3; do tune resume$n --state "$out/state.txt"; done
# 6. OSU's method (each call timed alone, a barrier after it), the method forced for the whole job
for n in 1 2 3; do
  for spec in reduce=native reduce=hier_chain:2048:1; do
    for dt in byte int; do
      $run --export=ALL,LD_PRELOAD=$build/lib/libacct.so,ACCT_FORCE=$spec,OMPI_MCA_mpi_yield_when_idle=1 \
        $build/tools/acct-bench/acct-bench -c reduce -m 256K --method osu -n 40 -w 3 --datatype $dt \
        --format tsv 2>&1 | grep -v "^#" | tail -1 | sed "s|^|$n $spec $dt osu |"
    done
  done
done > "$out/osu-method.tsv"
