#!/usr/bin/env bash
# cluster.smoke_srun / cluster.smoke_mpirun: acct_coll_check with
# LD_PRELOAD=libacct.so on 4 nodes x 2 ranks, on both partitions.
#
# usage (under with-cluster.sh):
#   test_smoke.sh srun   LIBACCT_SO COLL_CHECK
#   test_smoke.sh mpirun LIBACCT_SO COLL_CHECK MPIEXEC [MPIEXEC_FLAGS...]
#
# Per partition it checks: the launcher exits 0, rank 0 prints a line with
# OK, libacct.so is mapped in all 8 tasks (each task greps its own maps before
# exec'ing the program), the tasks ran on the 4 emulated hosts, the job's MPI
# traffic was steered onto the partition's subnet, and rank 0 wrote the
# ACCT_REPORT file into the shared directory. Then once on eth with the
# node-aware methods forced: every rank finds the real placement (4 nodes of
# 2 ranks) and the hier_* methods ran with right results.
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"

mode=${1:-} lib=${2:-} prog=${3:-}
if [[ $mode != srun && $mode != mpirun ]] || [[ ! -f $lib || ! -x $prog ]]; then
  echo "usage: test_smoke.sh srun|mpirun LIBACCT_SO COLL_CHECK [MPIEXEC [FLAGS...]]" >&2
  exit 2
fi
shift 3
if [[ $mode == mpirun ]]; then
  (($# >= 1)) || { echo "test_smoke.sh mpirun: MPIEXEC missing" >&2; exit 2; }
  export ACCT_CLUSTER_MPIRUN=$1
  shift
fi
flags=("$@")
[[ -n ${ACCT_CLUSTER_SHARED:-} ]] || { echo "run me under with-cluster.sh" >&2; exit 2; }
lib=$(readlink -f "$lib")
work=$ACCT_CLUSTER_SHARED/smoke-$mode-$$ # visible on every node (not under /tmp)
mkdir -p "$work"

# Each task: prove the preload reached it, say where it runs and which
# network its MPI traffic is steered onto, then become the MPI program.
# shellcheck disable=SC2016  # expanded by the task's shell
task='rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-?}}
if grep -qF "$ACCT_TEST_LIB" /proc/self/maps; then
  echo "task-preload-ok rank=$rank host=$(hostname) net=${OMPI_MCA_btl_tcp_if_include:-none}"
else
  echo "task-preload-missing rank=$rank host=$(hostname)"
fi
exec "$0" "$@"'

# The program's own output (not the task lines) has a line with OK.
reports_ok() { grep -v '^task-preload-' "$1" | grep -q 'OK'; }

# run PART NAME [VAR=VALUE...]: the program on PART, 4 nodes x 2 ranks, with
# VAR=VALUE in every task's environment (through srun's environment:
# ACCT_FORCE holds commas, which --export cannot carry); NAME.out/.err/.rc
# and NAME.report.yaml in $work.
run() {
  local part=$1 name=$2
  shift 2
  local out=$work/$name.out err=$work/$name.err report=$work/$name.report.yaml xs=() v
  for v in "$@"; do xs+=(-x "$v"); done
  if [[ $mode == srun ]]; then
    pmix_step "$out" "$err" env "$@" timeout 240 srun -p "$part" -N4 -n8 --mpi=pmix -t 4 \
      -J "acct-smoke-$name" --export="ALL,LD_PRELOAD=$lib,ACCT_REPORT=$report,ACCT_TEST_LIB=$lib" \
      /bin/sh -c "$task" "$prog"
  else
    timeout 240 "$ACCT_CLUSTER" run -p "$part" -- "${flags[@]}" -np 8 --map-by slot \
      -x "LD_PRELOAD=$lib" -x "ACCT_REPORT=$report" -x "ACCT_TEST_LIB=$lib" "${xs[@]}" \
      /bin/sh -c "$task" "$prog" >"$out" 2>"$err"
  fi
  echo $? >"$work/$name.rc"
}

for part in eth fast; do
  out=$work/$part.out err=$work/$part.err report=$work/$part.report.yaml
  net=$("$ACCT_CLUSTER" subnet -p "$part")
  echo "== $mode on partition $part ($net)"
  run "$part" "$part"
  rc=$(cat "$work/$part.rc")
  hosts=$(sed -n 's/^task-preload-ok .*host=\([^ ]*\).*/\1/p' "$out" | sort -u | tr '\n' ' ')
  check "$part: $mode exits 0 (got $rc)" test "$rc" = 0
  check "$part: rank 0 reports OK" reports_ok "$out"
  check "$part: libacct.so mapped in all 8 tasks" test "$(grep -c '^task-preload-ok ' "$out")" = 8
  check "$part: tasks ran on acct-n1..4 (got: $hosts)" test "$hosts" = "acct-n1 acct-n2 acct-n3 acct-n4 "
  check "$part: every task's MPI traffic steered onto $net" \
    test "$(grep '^task-preload-ok ' "$out" | grep -c " net=$net$")" = 8
  check "$part: rank 0 wrote ACCT_REPORT" test -s "$report"
  if ((FAILS)); then
    show "$out" 60
    show "$err" 40
  fi
done

# Node-aware methods on the real placement: the runtime finds from Open
# MPI's locality (MPI_Comm_split_type) that the 8 ranks sit 2 per node on 4
# nodes, on every rank, and the forced hier_* methods compute the right
# results (the program checks every call) and ran.
echo "== $mode on partition eth, node-aware methods forced"
hforce="barrier=hier_dissemination,bcast=hier_chain:8K,reduce=hier_binomial:8K,allreduce=hier_ring:8K"
hforce="$hforce,allgather=hier_ring,gather=hier_linear,scatter=hier_linear"
run eth nodes "ACCT_FORCE=$hforce" ACCT_VERBOSE=2
ran_calls() { # ALG COLL -> calls in the report
  sed -n "s/.*{collective: $2, algorithm: $1, calls: \([0-9]*\),.*/\1/p" "$work/nodes.report.yaml"
}
check "node-aware: $mode exits 0 (got $(cat "$work/nodes.rc"))" test "$(cat "$work/nodes.rc")" = 0
check "node-aware: rank 0 reports OK" reports_ok "$work/nodes.out"
check "node-aware: all 8 ranks found 4 nodes of 2 ranks for MPI_COMM_WORLD" \
  test "$(grep -c 'debug: locality: 8 ranks on 4 nodes, 2 ranks per node' "$work/nodes.err")" = 8
for x in "hier_dissemination barrier" "hier_chain bcast" "hier_binomial reduce" "hier_ring allreduce" \
  "hier_ring allgather" "hier_linear gather" "hier_linear scatter"; do
  # shellcheck disable=SC2086  # ALG COLL
  n=$(ran_calls $x)
  check "node-aware: ${x% *} ran ${x#* } calls (${n:-0})" test "${n:-0}" -gt 0
done
((FAILS)) && { show "$work/nodes.out" 40; show "$work/nodes.err" 40; show "$work/nodes.report.yaml" 40; }
rm -rf "$work"
finish
