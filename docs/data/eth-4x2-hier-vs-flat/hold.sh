#!/bin/bash
# Issue 20, 4 nodes x 2 ranks: a retune of eth whose search space holds the
# node-aware methods, against the rules tuned on 2026-11-22 before any
# node-aware method existed (docs/data/eth-tune.rules.yaml); the cells where
# they differ measured against each other (acct-retune-pair), one job per cell.
# Run inside tests/cluster/with-cluster.sh (default shape: eth 1 Gbit/s).
set -u
repo=${ACCT_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}; build=$repo/build
. $repo/tests/cluster/testlib.sh
eval "$($repo/tests/cluster/acct-cluster env)"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4); port=16819
acctctl=$build/tools/acctctl/acctctl
out=${ACCT_PAIR_OUT:-/tmp/pair4x2}; mkdir -p $out
for n in "${nodes[@]}"; do rm -rf "$(noderun "$n")/rules" "$(nodevar "$n")"/acct.db*; done
acctd_cluster_start $build/daemon/acctd $port "${nodes[@]}" 9>&- || exit 1
sock=$(noderun acct-n1)/acctd.sock
work=$ACCT_CLUSTER_SHARED/pair4x2; mkdir -p $work
echo "retune start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
$acctctl retune -p eth -i tcp-1g -s $sock --nodes 4 --ranks-per-node 2 --ops bcast,reduce,allreduce,allgather --budget 8m --time 20 \
   --workdir $work --no-node-import -- --sizes 64K,256K,1M --comm-sizes 8 --race 3 --race-rounds 8 > $out/retune.log 2>&1
echo "retune exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
v=$(sed -n 's/^activated version \([0-9]*\) of eth.*/\1/p' $out/retune.log | tail -1)
$acctctl export -s $sock --version $v -o $out/new.rules.yaml
cp $work/*.result.yaml $out/ 2>/dev/null
echo "pair start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 $repo/tools/perf/acct-retune-pair --comm-size 8 --ranks-per-node 2 --collectives bcast,reduce,allreduce,allgather --sizes 64K,256K,1M --rounds 11 -- \
  srun -p eth -N4 -n8 --ntasks-per-node=2 --mpi=pmix --export=ALL,LD_PRELOAD=$build/lib/libacct.so,OMPI_MCA_mpi_yield_when_idle=1 \
  $repo/docs/data/eth-tune.rules.yaml $out/new.rules.yaml > $out/pair.log 2>&1
echo "pair exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
