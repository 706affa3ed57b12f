#!/bin/bash
# Two retunes' differing cells measured against each other quiet and beside the busy
# loop, alternating (quiet, busy, quiet, busy): does the faster pick depend on the load?
# Run inside tests/cluster/with-cluster.sh with ACCT_CLUSTER_ETH_RATE=100mbit; ACCT_PAIR_OUT
# names the retunes' directory (r1.rules.yaml, r2.rules.yaml); the logs go there as
# pair-quiet-N.log and pair-busy-N.log. Session 42 (s42/):
#   ACCT_PAIR_OUT=docs/data/eth100-two-retunes/s42 COLLS=bcast,reduce SIZES=64K,256K ROUNDS=41 pair-load.sh
# Session 43 (s43/; acct-retune-pair measures only the cells where the two rules differ):
#   ACCT_PAIR_OUT=DIR COLLS=bcast,reduce,gather,scatter SIZES=64K,256K ROUNDS=41 pair-load.sh
set -u
repo=${ACCT_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}; build=$repo/build
out=${ACCT_PAIR_OUT:-/tmp/eth100-two-retunes}
busy=
trap '[ -n "$busy" ] && kill $busy 2>/dev/null' EXIT
for n in 1 2; do
  for mode in quiet busy; do
    [ $mode = busy ] && { sh -c 'while :; do :; done' & busy=$!; }
    echo "pair $mode $n start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) busy=${busy:-none}"
    python3 $repo/tools/perf/acct-retune-pair --comm-size 8 --ranks-per-node 2 --collectives ${COLLS:-bcast,reduce} \
      --sizes ${SIZES:-64K,256K} --rounds ${ROUNDS:-41} -- \
      srun -p eth -N4 -n8 --ntasks-per-node=2 --mpi=pmix --export=ALL,LD_PRELOAD=$build/lib/libacct.so,OMPI_MCA_mpi_yield_when_idle=1 \
      $out/r1.rules.yaml $out/r2.rules.yaml > $out/pair-$mode-$n.log 2>&1
    echo "pair $mode $n exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    if [ -n "$busy" ]; then kill $busy; wait $busy 2>/dev/null; busy=; fi
  done
done
