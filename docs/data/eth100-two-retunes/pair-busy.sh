#!/bin/bash
# the 64K cells again, 41 rounds, with the busy loop retune 2 ran beside; run twice: first
# "--collectives bcast,scatter" (the tuner's view, pair41-busy.log), then as below (pair41-busy-max.log)
set -u
repo=${ACCT_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}; build=$repo/build
out=${ACCT_PAIR_OUT:-/tmp/eth100-two-retunes}
sh -c 'while :; do :; done' & busy=$!
trap 'kill $busy 2>/dev/null' EXIT
echo "pairload start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) busy=$busy"
python3 $repo/tools/perf/acct-retune-pair --comm-size 8 --ranks-per-node 2 --collectives scatter --sizes 64K --rounds 41 --view max -- \
  srun -p eth -N4 -n8 --ntasks-per-node=2 --mpi=pmix --export=ALL,LD_PRELOAD=$build/lib/libacct.so,OMPI_MCA_mpi_yield_when_idle=1 \
  $out/r1.rules.yaml $out/r2.rules.yaml > $out/pair41-busy-max.log 2>&1
echo "pairload exit $? end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
