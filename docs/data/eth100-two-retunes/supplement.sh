#!/bin/bash
# Issue 23 supplement: (1) the two 64K cells where the main retunes differ, with 41 rounds;
# (2) reduce_scatter_block, which both 28-minute retunes left unmeasured: two raced
# retunes of it alone (the second beside a busy loop, incumbent = the first), then the pair.
set -u
repo=${ACCT_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}; build=$repo/build
. $repo/tests/cluster/testlib.sh
eval "$($repo/tests/cluster/acct-cluster env)"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4); port=16819
acctctl=$build/tools/acctctl/acctctl
out=${ACCT_PAIR_OUT:-/tmp/eth100-two-retunes}; mkdir -p $out
launch=(srun -p eth -N4 -n8 --ntasks-per-node=2 --mpi=pmix --export=ALL,LD_PRELOAD=$build/lib/libacct.so,OMPI_MCA_mpi_yield_when_idle=1)
echo "pair41 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 $repo/tools/perf/acct-retune-pair --comm-size 8 --ranks-per-node 2 --collectives bcast,scatter --sizes 64K --rounds 41 -- \
  "${launch[@]}" $out/r1.rules.yaml $out/r2.rules.yaml > $out/pair41.log 2>&1
echo "pair41 exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${nodes[@]}"; do rm -rf "$(noderun "$n")/rules" "$(nodevar "$n")"/acct.db*; done
acctd_cluster_start $build/daemon/acctd $port "${nodes[@]}" 9>&- || exit 1
sock=$(noderun acct-n1)/acctd.sock
busy=
trap '[ -n "$busy" ] && kill $busy 2>/dev/null' EXIT
for r in 1 2; do
  work=$ACCT_CLUSTER_SHARED/rsb$r; mkdir -p $work
  if [ $r = 2 ]; then sh -c 'while :; do :; done' & busy=$!; fi
  echo "rsb retune $r start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) busy=${busy:-none}"
  $acctctl retune -p eth -i tcp-100m -s $sock --nodes 4 --ranks-per-node 2 --ops reduce_scatter_block --budget 8m --time 15 \
     --workdir $work --no-node-import -- --sizes 64K,256K,1M --comm-sizes 8 --race 3 --race-rounds 8 --reps 10 --point-limit 1.5 > $out/rsb-retune$r.log 2>&1
  echo "rsb retune $r exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "$busy" ]; then kill $busy; wait $busy 2>/dev/null; busy=; fi
  v=$(sed -n 's/^activated version \([0-9]*\) of eth.*/\1/p' $out/rsb-retune$r.log | tail -1)
  $acctctl export -s $sock --version $v -o $out/rsb$r.rules.yaml
  cp $work/*.result.yaml $out/rsb$r.result.yaml 2>/dev/null
done
echo "rsb pair start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 $repo/tools/perf/acct-retune-pair --comm-size 8 --ranks-per-node 2 --collectives reduce_scatter_block --sizes 64K,256K,1M --rounds 21 -- \
  "${launch[@]}" $out/rsb1.rules.yaml $out/rsb2.rules.yaml > $out/rsb-pair.log 2>&1
echo "rsb pair exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
acctd_cluster_stop "${nodes[@]}" || true
