#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2034  # the checks' eval '...' bodies expand (and use variables) when they run
# cluster.retune: `acctctl retune -p eth` end to end on the emulated cluster
# (issue 4 "Done means", issue 5 test 5, issue 7 "acct-tune runs under srun").
#
# usage (under with-cluster.sh):
#   test_retune.sh SPANK_ACCT_SO LIBACCT_SO COLL_CHECK HOLD ACCTD ACCTCTL ACCT_TUNE
#
# 1. spank_acct.so in plugstack.conf; one acctd per node with an empty store:
#    acct-n1 is the primary, acct-n2..4 follow it (docs/acctd.md,
#    "Multi-node"). No rules file anywhere yet.
# 2. A first version of eth/tcp-1g (tests/cluster/rules/eth.yaml, source
#    manual) is imported and activated on the primary; the followers copy it.
# 3. A job on eth (HOLD, on acct-n3 and acct-n4) starts, reads that version at
#    MPI_Init and waits.
# 4. `acctctl retune -p eth` (on the controller, talking to the primary)
#    writes the job script, submits it with sbatch; the job runs acct-tune
#    with `srun --mpi=pmix` on the two free nodes (exclusive); acctctl follows
#    it, imports the tuning result and activates the new version.
# 5. Every node's /run/acct/rules/eth/tcp-1g.yaml holds the new version (same
#    bytes), whose provenance names the retune's tuning run.
# 6. A new job on eth (all four nodes) reports the new version (ACCT_REPORT)
#    and gives the same results as --acct=off;
#    the held job, released, still reports the first version and finishes
#    correctly.
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"

so=${1:-} lib=${2:-} prog=${3:-} hold=${4:-} acctd=${5:-} acctctl=${6:-} tune=${7:-}
if [[ ! -f $so || ! -f $lib || ! -x $prog || ! -x $hold || ! -x $acctd || ! -x $acctctl || ! -x $tune ]]; then
  echo "usage: test_retune.sh SPANK_ACCT_SO LIBACCT_SO COLL_CHECK HOLD ACCTD ACCTCTL ACCT_TUNE" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
so=$(readlink -f "$so") lib=$(readlink -f "$lib") prog=$(readlink -f "$prog")
hold=$(readlink -f "$hold") acctd=$(readlink -f "$acctd") acctctl=$(readlink -f "$acctctl")
tune=$(readlink -f "$tune")
enter_workdir "retune"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4)
port=16819
primary_sock=$(noderun acct-n1)/acctd.sock
# What every node serves, seen from the host.
rulesfile() { echo "$(noderun "$1")/rules/eth/tcp-1g.yaml"; }
# Every node's rules file has version $1 and the same bytes as acct-n1's.
all_nodes_at() {
  local n
  for n in "${nodes[@]}"; do
    [[ $(rules_version "$(rulesfile "$n")") == "$1" ]] || return 1
    cmp -s "$(rulesfile "$n")" "$(rulesfile acct-n1)" || return 1
  done
}
pctl() {
  local c=$1
  shift
  "$acctctl" "$c" -s "$primary_sock" "$@"
}

echo "optional $so lib=$lib interconnect_map=eth:tcp-1g,fast:veth" >"$work/plugstack.acct"
if ! ACCT_CLUSTER_PLUGSTACK=$work/plugstack.acct "$ACCT_CLUSTER" up >"$work/up.log" 2>&1; then
  cat "$work/up.log"
  exit 1
fi
cleanup_acctd() {
  : >"$work/hold.go" # a held job never waits for its time limit
  acctd_cluster_stop "${nodes[@]}"
}
trap cleanup_acctd EXIT

echo "== acctd on every node, empty store"
for n in "${nodes[@]}"; do rm -rf "$(noderun "$n")/rules" "$(nodevar "$n")"/acct.db*; done
check "one acctd per node: acct-n1 primary, acct-n2..4 followers" \
  acctd_cluster_start "$acctd" "$port" "${nodes[@]}"
check "the store is empty (no pair, no rules file on any node)" \
  eval 'pctl partitions >parts0.out 2>&1 && grep -q "(none)" parts0.out && ! ls "$(noderun acct-n1)"/rules/eth/*.yaml 2>/dev/null'
if ((FAILS)); then
  show parts0.out
  for n in "${nodes[@]}"; do show "$(nodevar "$n")/acctd.log"; done
  finish
  exit 1
fi

echo "== first version on the primary, followers copy it"
check "acctctl import --activate on the primary" \
  eval 'pctl import "$here/rules/eth.yaml" --activate >imp1.out 2>&1 && grep -q "activated version [0-9]* of eth/tcp-1g" imp1.out'
v1=$(sed -n 's/^imported .* as version \([0-9]*\) of .*/\1/p' imp1.out | tail -n1)
check "every node serves version ${v1:-?} within 20 s (same bytes)" wait_until 20 all_nodes_at "${v1:-x}"
((FAILS)) && { show imp1.out; for n in "${nodes[@]}"; do show "$(nodevar "$n")/acctd.log"; done; }

echo "== a job on eth holds version $v1 while the retune runs"
rm -f "$work/hold.ready" "$work/hold.go"
# acct-n3 and acct-n4, one CPU each: the retune takes the two other nodes
# whole (--exclusive), the next job finds one CPU free on every node.
timeout 400 srun -p eth -N2 -n2 --ntasks-per-node=1 -w acct-n3,acct-n4 --mpi=pmix -t 6 -J retune-hold \
  --export="ALL,ACCT_REPORT=$work/hold.yaml" "$hold" "$work/hold" >hold.out 2>hold.err &
hold_pid=$!
check "held job reached MPI_Init" wait_until 90 test -e "$work/hold.ready"

echo "== acctctl retune -p eth"
# A small grid: 2 collectives, 2 communicator sizes, 3 message sizes up to
# 1 MiB, 5 repetitions; the budget bounds the measuring.
t0=$(date +%s)
timeout 300 "$acctctl" retune -p eth -i tcp-1g -s "$primary_sock" --nodes 2 --ranks-per-node 2 \
  --ops bcast,allreduce --budget 45s --time 5 --workdir "$work" --interval 1 \
  --acct-tune "$tune" --no-node-import \
  -- --sizes 1K,64K,1M --comm-sizes 2,4 --reps 5 --warmup 1 --point-limit 1 \
  >retune.out 2>retune.err
echo $? >retune.rc
echo "retune took $(($(date +%s) - t0)) s"
job=$(sed -n 's/^acctctl retune: submitted job \([0-9]*\) .*/\1/p' retune.err | head -n1)
v2=$(sed -n 's/^imported tuning run .* as version \([0-9]*\) of eth\/tcp-1g.*/\1/p' retune.out retune.err | tail -n1)
run=$(sed -n 's/^imported tuning run \([^ ]*\) as version .*/\1/p' retune.out retune.err | tail -n1)
script=$(find "$work" -maxdepth 1 -name 'acct-retune-eth-*.sh' | head -n1)
check "acctctl retune exits 0" test "$(cat retune.rc)" = 0
check "it submitted a batch job whose script runs acct-tune with srun --mpi=pmix" \
  eval '[[ -n $job && -f $script ]] && grep -q "^#SBATCH --partition=eth" "$script" && grep -q "^srun --mpi=pmix .*acct-tune" "$script"'
check "acctctl showed the job's states and acct-tune's progress" \
  eval 'grep -q "job $job RUNNING" retune.err && grep -q "job $job COMPLETED" retune.err && grep -q "^  | acct-tune: \[" retune.err'
result=$work/acct-retune-eth-$job.result.yaml
check "acct-tune ran 4 ranks on 2 nodes under srun and wrote its result" \
  eval 'grep -q "^acct-tune: wrote $result " "$work/acct-retune-eth-$job.out" && grep -q "^  partition: \"eth\"" "$result" && grep -q "^  interconnect: \"tcp-1g\"" "$result" && grep -q "^  ranks: 4$" "$result" && [[ $(grep -c "^    - \"acct-n[1-4]\"$" "$result") == 2 ]] && grep -q "^  slurm_job_id: \"$job\"" "$result"'
check "the grid given after -- was the one measured: comm sizes 2 and 4, 1K, 64K and 1M" \
  eval '[[ $(grep "^  - {collective: " "$result" | grep -o "comm_size: [0-9]*" | sort -u | tr "\n" " ") == "comm_size: 2 comm_size: 4 " && $(grep "^  - {collective: " "$result" | grep -o "bytes: [0-9KM]*" | sort -u | tr "\n" " ") == "bytes: 1K bytes: 1M bytes: 64K " ]]'
check "acctctl showed the changes against the active version" \
  eval 'grep -q "^changes against the active version $v1:" retune.out && grep -q "provenance.tuning_run: spank-test-eth -> $run" retune.out'
check "imported as a new version (${v2:-?}) of eth/tcp-1g, run ${run:-?}, and activated" \
  eval '[[ -n $v2 && -n $run && $v2 != "$v1" ]] && grep -q "activated version $v2 of eth/tcp-1g" retune.out retune.err'
check "the primary lists version $v2 active, from run $run" \
  eval 'pctl partitions -f tsv >parts.out 2>&1 && grep -P "^eth\ttcp-1g\t$v2\t" parts.out | grep -qF "$run"'
check "every node serves version $v2 within 20 s (same bytes, rule 1)" wait_until 20 all_nodes_at "${v2:-x}"
check "its provenance names the retune's tuning run and source measured" \
  eval 'grep -qx "  tuning_run: \"\{0,1\}$run\"\{0,1\}" "$(rulesfile acct-n4)" && grep -qx "  source: measured" "$(rulesfile acct-n4)"'
((FAILS)) && { show retune.out; show retune.err 80; show "$script"; show parts.out; show "$work/acct-retune-eth-$job.out"; }

echo "== the next job on eth"
pmix_step next.out next.err timeout 200 srun -p eth -N4 -n4 --ntasks-per-node=1 --mpi=pmix -t 3 \
  -J retune-next --export="ALL,ACCT_REPORT=$work/next.yaml" "$prog"
echo $? >next.rc
pmix_step native.out native.err timeout 200 srun -p eth -N4 -n4 --ntasks-per-node=1 --mpi=pmix -t 3 \
  -J retune-native --acct=off "$prog"
echo $? >native.rc
: >"$work/hold.go"
wait "$hold_pid"
echo $? >hold.rc
check "the next job reports version $v2 (ACCT active, eth/tcp-1g)" \
  eval 'grep -q "^active: true" next.yaml && grep -qF "rules: {partition: eth, interconnect: tcp-1g, version: $v2, source: measured," next.yaml'
check "... and ACCT's algorithms from the tuned rules ran in it" \
  eval 'grep -E "^  - \{collective: (bcast|allreduce), algorithm: [a-z_]+, calls: [1-9]" next.yaml | grep -qv "algorithm: native"'
check "... and exits 0 with the same results as --acct=off" \
  eval '[[ $(cat next.rc) == 0 && $(cat native.rc) == 0 ]] && grep -q "errors=0 OK" next.out && diff <(grep "^digest " next.out) <(grep "^digest " native.out) >/dev/null && grep -q "^digest " next.out'
check "the job that was running kept version $v1 and finished correctly" \
  eval '[[ $(cat hold.rc) == 0 ]] && grep -q "^hold: np=2 errors=0 OK$" hold.out && grep -qF "rules: {partition: eth, interconnect: tcp-1g, version: $v1," hold.yaml'
if ((FAILS)); then
  show next.out 20; show next.err 20; show next.yaml 30; show native.out 10; show hold.out; show hold.err; show hold.yaml 10
fi

# Keep the outputs of a failed run (in the cluster's state dir: kept only
# with ACCT_CLUSTER_KEEP=1).
((FAILS)) || rm -rf "$work"
finish
