#!/bin/bash
# Issue 23 at 100 Mbit/s: two raced retunes of eth (all 8 sized collectives,
# 8 ranks = 4 nodes x 2, 64K/256K/1M) through acctctl retune, the second under a
# busy loop and with the first's version as incumbent (acctctl retune does that
# when racing); then the cells where they differ measured against each other.
# Run inside tests/cluster/with-cluster.sh with ACCT_CLUSTER_ETH_RATE=100mbit.
# The session's three runs (docs/performance.md "At 100 Mbit/s, every collective"):
#   all 8:                      tworetune.sh                      (BUDGET 28m, the default)
#   reduce_scatter_block alone: OPS=reduce_scatter_block BUDGET=8m TIME=15 PAIR_ROUNDS=21 tworetune.sh
#   bcast and scatter at 64K:   OPS=bcast,scatter SIZES=64K BUDGET=4m TIME=15 PAIR_ROUNDS=41 tworetune.sh
# RACE_ROUNDS (default 8, the runs above) sets --race-rounds: the mean-based views' check used 20.
# Session 38, all 8 with the mean-based views (s38/; ACCT_PAIR_OUT names the directory):
#   BUDGET=34m TIME=50 RACE_ROUNDS=20 PAIR_ROUNDS=21 tworetune.sh
# and the differing 64K cells again, 41 rounds, with and without a busy loop:
#   pair-busy.sh, or acct-retune-pair ... --collectives bcast,scatter --sizes 64K --rounds 41
set -u
repo=${ACCT_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}; build=$repo/build
. $repo/tests/cluster/testlib.sh
eval "$($repo/tests/cluster/acct-cluster env)"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4); port=16819
acctctl=$build/tools/acctctl/acctctl
out=${ACCT_PAIR_OUT:-/tmp/eth100-two-retunes}; mkdir -p $out
ops=${OPS:-bcast,reduce,allreduce,gather,scatter,allgather,alltoall,reduce_scatter_block}
sizes=${SIZES:-64K,256K,1M}; budget=${BUDGET:-28m}
for n in "${nodes[@]}"; do rm -rf "$(noderun "$n")/rules" "$(nodevar "$n")"/acct.db*; done
acctd_cluster_start $build/daemon/acctd $port "${nodes[@]}" 9>&- || exit 1
sock=$(noderun acct-n1)/acctd.sock
busy=
trap '[ -n "$busy" ] && kill $busy 2>/dev/null' EXIT
for r in 1 2; do
  work=$ACCT_CLUSTER_SHARED/tworetune$r; mkdir -p $work
  if [ $r = 2 ]; then sh -c 'while :; do :; done' & busy=$!; fi
  echo "retune $r start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) busy=${busy:-none}"
  $acctctl retune -p eth -i tcp-100m -s $sock --nodes 4 --ranks-per-node 2 --ops $ops --budget $budget --time ${TIME:-45} \
     --workdir $work --no-node-import -- --sizes $sizes --comm-sizes 8 --race 3 --race-rounds ${RACE_ROUNDS:-8} --reps 10 --point-limit 1.5 > $out/retune$r.log 2>&1
  echo "retune $r exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "$busy" ]; then kill $busy; wait $busy 2>/dev/null; busy=; fi
  v=$(sed -n 's/^activated version \([0-9]*\) of eth.*/\1/p' $out/retune$r.log | tail -1)
  $acctctl export -s $sock --version $v -o $out/r$r.rules.yaml
  cp $work/*.result.yaml $out/r$r.result.yaml 2>/dev/null
done
echo "pair start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 $repo/tools/perf/acct-retune-pair --comm-size 8 --ranks-per-node 2 --sizes $sizes --rounds ${PAIR_ROUNDS:-11} -- \
  srun -p eth -N4 -n8 --ntasks-per-node=2 --mpi=pmix --export=ALL,LD_PRELOAD=$build/lib/libacct.so,OMPI_MCA_mpi_yield_when_idle=1 \
  $out/r1.rules.yaml $out/r2.rules.yaml > $out/pair.log 2>&1
echo "pair exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
acctd_cluster_stop "${nodes[@]}" || true
