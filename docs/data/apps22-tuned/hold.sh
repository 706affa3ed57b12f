#!/bin/bash
# Issue 22: retune eth for the collectives the applications call, then run
# the four applications with the rules acctd materialised from that version
# (acct-apps -R acctd), ACCT on and --acct=off alternating.
# Run inside tests/cluster/with-cluster.sh (4 nodes x 8 CPUs, eth 100 Mbit/s):
#   ACCT_CLUSTER_LOCK_WAIT=3600 ACCT_CLUSTER_CPUS=8 ACCT_CLUSTER_ETH_RATE=100mbit \
#       tests/cluster/with-cluster.sh docs/data/apps22-tuned/hold.sh
# Outputs in /var/tmp/apps22c. (The run of record also waited, before
# "hold start", for its build to finish; nothing else differs.)
set -u
repo=$(cd "$(dirname "$0")/../../.." && pwd); build=${ACCT_BUILD_DIR:-$repo/build}
. $repo/tests/cluster/testlib.sh
eval "$($repo/tests/cluster/acct-cluster env)"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4); port=16819
acctctl=$build/tools/acctctl/acctctl
out=/var/tmp/apps22c; mkdir -p $out
log() { echo "[$(date -u +%T)] $* (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a $out/hold.log; }
t0=$(date +%s)
log "hold start"
for n in "${nodes[@]}"; do rm -rf "$(noderun "$n")/rules" "$(nodevar "$n")"/acct.db*; done
acctd_cluster_start $build/daemon/acctd $port "${nodes[@]}" 9>&- || { log "acctd start failed"; exit 1; }
sock=$(noderun acct-n1)/acctd.sock
work=$ACCT_CLUSTER_SHARED/apps22c; rm -rf $work; mkdir -p $work
ops=barrier,bcast,reduce,allreduce,gather,scatter,allgather,alltoall,reduce_scatter_block,allgatherv,gatherv,scatterv,alltoallv,scan
log "retune start: $ops"
$acctctl retune -p eth -i tcp-1g -s $sock --nodes 4 --ranks-per-node 2 --ops $ops --budget 6m --time 15 \
   --workdir $work --no-node-import -- --sizes 8,1K,32K --comm-sizes 8 --race 3 --race-rounds 8 > $out/retune.log 2>&1
rc=$?
log "retune exit $rc"
v=$(sed -n 's/^activated version \([0-9]*\) of eth.*/\1/p' $out/retune.log | tail -1)
if [ -z "$v" ]; then log "no version activated"; acctd_cluster_stop "${nodes[@]}"; exit 1; fi
all_nodes_at() { local n; for n in "${nodes[@]}"; do [ "$(rules_version "$(noderun "$n")/rules/eth/tcp-1g.yaml")" = "$v" ] || return 1; done; }
wait_until 30 all_nodes_at || log "not every node serves version $v after 30 s"
$acctctl export -s $sock --version $v -o $out/tuned.rules.yaml
$acctctl show -s $sock -p eth -i tcp-1g > $out/show.txt 2>&1
cp $work/*.result.yaml $work/*.rules.yaml $work/*.sh $work/*.err $out/ 2>/dev/null
log "version $v on every node; apps start"
$repo/tools/perf/acct-apps -R acctd -a lammps-peptide,lammps-eam,mpi4py -r 3 -o $out/apps $build > $out/apps.log 2>&1
log "apps (3) exit $?"
el=$(( $(date +%s) - t0 ))
r=3; [ $el -gt 780 ] && r=2
log "qe-si with -r $r (elapsed $el s)"
$repo/tools/perf/acct-apps -R acctd -a qe-si -r $r -o $out/apps-qe $build > $out/apps-qe.log 2>&1
log "qe exit $?"
$acctctl samples -s $sock -p eth > $out/samples.txt 2>&1
acctd_cluster_stop "${nodes[@]}"
log "hold end"
