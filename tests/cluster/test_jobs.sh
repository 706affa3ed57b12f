#!/usr/bin/env bash
# shellcheck disable=SC2016  # the checks' eval '...' bodies expand when they run
# cluster.jobs: jobs that must never break under spank_acct (issue 17,
# section 1), on the emulated cluster with spank_acct in plugstack.conf
# preloading libacct into every step, partition eth (its rules on every node).
#
# usage (under with-cluster.sh):
#   test_jobs.sh SPANK_ACCT_SO LIBACCT_SO COLL_CHECK DLOPEN_MAIN DLOPEN_PLUGIN_SO PYTHON MPI4PY_CHECK_PY
#                APPS_PY FORTRAN_PROG|none
#
# (1) mpi4py (MPI opened by a Python extension module, a local dlopen scope)
#     through srun --mpi=pmix on 2 nodes x 2 tasks with ACCT_FORCE: exits 0,
#     every result right, libacct mapped in every task, ACCT_REPORT active
#     with the forced algorithms run; with --acct=off: exits 0, right
#     results, no libacct, no report. (Skipped, with a line saying so, when
#     PYTHON cannot import mpi4py and numpy.)
# (2) a program not linked with MPI that dlopen()s an MPI plugin with
#     RTLD_LOCAL, the same way with ACCT_FORCE.
# (3) an sbatch script whose batch step (preloaded by default) runs an MPI
#     program on its own, a singleton (no srun, no PMIx server): the job
#     completes with exit 0 in time, right results, ACCT active as one rank.
# (4) issue 22, with eth's rules (no ACCT_FORCE: what a site's job gets),
#     each with ACCT and with --acct=off: (a) the mpi4py application of
#     tools/perf/acct-apps (APPS_PY: the pickle API's allgather/gather ->
#     MPI_Allgatherv/MPI_Gatherv, buffer collectives, MPI_Iallreduce):
#     same checksum both ways, and the report shows the rules' algorithms
#     ran allgatherv, gatherv and iallreduce, none of their calls native;
#     (b) a Fortran `use mpi` main program (FORTRAN_PROG,
#     tests/mpi/fortran/fortran_check.F90; "none" without a Fortran
#     compiler: skipped with a line saying so): every check right both
#     ways, ACCT active and every one of its 16 collectives ran an ACCT
#     algorithm.
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"

so=${1:-} lib=${2:-} prog=${3:-} dlmain=${4:-} dlplugin=${5:-} python=${6:-} pycheck=${7:-}
appspy=${8:-} fprog=${9:-}
if [[ ! -f $so || ! -f $lib || ! -x $prog || ! -x $dlmain || ! -f $dlplugin || -z $python || ! -f $pycheck ||
  ! -f $appspy || ($fprog != none && ! -x $fprog) ]]; then
  echo "usage: test_jobs.sh SPANK_ACCT_SO LIBACCT_SO COLL_CHECK DLOPEN_MAIN DLOPEN_PLUGIN_SO PYTHON MPI4PY_CHECK_PY APPS_PY FORTRAN_PROG|none" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
so=$(readlink -f "$so") lib=$(readlink -f "$lib") prog=$(readlink -f "$prog")
dlmain=$(readlink -f "$dlmain") dlplugin=$(readlink -f "$dlplugin") pycheck=$(readlink -f "$pycheck")
appspy=$(readlink -f "$appspy")
[[ $fprog == none ]] || fprog=$(readlink -f "$fprog")
libdir=$(dirname "$lib")
enter_workdir "jobs"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4)
node_lib=/run/acct/lib/libacct.so # what the plugin preloads, per node

# spank_acct in plugstack.conf (up on the running cluster rewrites it), and
# what it looks for on every node: libacct (+ runtime) and eth's rules file.
echo "optional $so lib=$node_lib interconnect_map=eth:tcp-1g,fast:veth" >"$work/plugstack.acct"
if ! ACCT_CLUSTER_PLUGSTACK=$work/plugstack.acct "$ACCT_CLUSTER" up >"$work/up.log" 2>&1; then
  cat "$work/up.log"
  exit 1
fi
for n in "${nodes[@]}"; do
  d=$(noderun "$n")
  mkdir -p "$d/lib" "$d/rules/eth"
  cp "$lib" "$libdir/libacct_rt.so" "$d/lib/"
  cp "$here/rules/eth.yaml" "$d/rules/eth/tcp-1g.yaml"
  rm -f "$d/disable" "$d/acctd.sock"
done

# Each task says whether libacct reached it, then becomes the program.
task='m=0; grep -qF /run/acct/lib/libacct.so /proc/self/maps && m=1
echo "task rank=${SLURM_PROCID:-?} host=$(hostname) mapped=$m"
exec "$0" "$@"'

# job NAME [VAR=VALUE...] -- [SRUN-ARGS...] -- PROGRAM [ARGS...]: on eth,
# 2 nodes x 2 tasks; VAR=VALUE in srun's environment (--export=ALL: the
# tasks'; ACCT_FORCE holds commas, which --export cannot carry).
job() {
  local name=$1 vars=() args=()
  shift
  while [[ $1 != -- ]]; do vars+=("$1"); shift; done
  shift
  while [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  pmix_step "$name.out" "$name.err" env "${vars[@]}" timeout -k 10 120 \
    srun -p eth -N 2 -n 4 --mpi=pmix -t 2 -J "jobs-$name" "${args[@]}" /bin/sh -c "$task" "$@"
  echo $? >"$name.rc"
}
rc_is() { test "$(cat "$1.rc")" = "$2"; }
ok_line() { grep -Eq "^$2: np=$3 checks=[0-9]+ errors=0 OK$" "$1.out"; }
count() { grep '^task ' "$1.out" | grep -c " $2\( \|$\)"; }
report_has() { grep -qx -- "$2" "$1" 2>/dev/null; }
ran() { grep -Eq "^  - \{collective: $2, algorithm: $3, calls: [1-9]" "$1" 2>/dev/null; }
fail_details() {
  local f
  for f in "$@"; do show "$f.out" 30; show "$f.err" 30; done
}

# ---- (1) mpi4py ----------------------------------------------------------------
force="bcast=binomial:1024,allreduce=ring,alltoall=pairwise"
if "$python" -c 'import mpi4py, numpy' 2>/dev/null; then
  echo "== mpi4py through srun, with ACCT (forced: $force) and with --acct=off"
  job py ACCT_FORCE="$force" ACCT_REPORT="$work/py.yaml" -- -- "$python" "$pycheck"
  job py-off ACCT_FORCE="$force" ACCT_REPORT="$work/py-off.yaml" -- --acct=off -- "$python" "$pycheck"
  check "mpi4py with ACCT: exits 0, every result right" eval 'rc_is py 0 && ok_line py mpi4py_check 4'
  check "mpi4py with ACCT: libacct mapped in all 4 tasks, the runtime in rank 0" \
    eval '[[ $(count py mapped=1) == 4 ]] && grep -qx rt_mapped=1 py.out'
  check "mpi4py with ACCT: report active, world_size 4, forced bcast binomial, allreduce ring, alltoall pairwise ran" \
    eval 'report_has py.yaml "active: true" && report_has py.yaml "world_size: 4" && ran py.yaml bcast binomial && ran py.yaml allreduce ring && ran py.yaml alltoall pairwise'
  check "mpi4py with --acct=off: exits 0, right results, no libacct in any task, no report" \
    eval 'rc_is py-off 0 && ok_line py-off mpi4py_check 4 && [[ $(count py-off mapped=0) == 4 ]] && grep -qx rt_mapped=0 py-off.out && test ! -e py-off.yaml'
  ((FAILS)) && fail_details py py-off
else
  echo "skip - mpi4py jobs: $python cannot import mpi4py and numpy (Debian: python3-mpi4py python3-numpy)"
fi

# ---- (2) a plugin linking libmpi, dlopen()ed RTLD_LOCAL ----------------------------
echo "== RTLD_LOCAL MPI plugin through srun, with ACCT (forced: $force)"
fails_before=$FAILS
job dl ACCT_FORCE="$force" ACCT_REPORT="$work/dl.yaml" -- -- "$dlmain" "$dlplugin"
check "dlopen plugin with ACCT: exits 0, every result right, libacct in all 4 tasks" \
  eval 'rc_is dl 0 && ok_line dl dlopen_plugin 4 && [[ $(count dl mapped=1) == 4 ]] && grep -qx rt_mapped=1 dl.out'
check "dlopen plugin with ACCT: report active, forced bcast binomial, allreduce ring, alltoall pairwise ran" \
  eval 'report_has dl.yaml "active: true" && ran dl.yaml bcast binomial && ran dl.yaml allreduce ring && ran dl.yaml alltoall pairwise'
((FAILS > fails_before)) && fail_details dl

# ---- (3) a singleton in a batch script ---------------------------------------------
echo "== sbatch: the batch step runs an MPI program on its own (a singleton)"
fails_before=$FAILS
cat >"$work/batch.sh" <<EOF
#!/bin/sh
# \$1: output prefix. The batch step is preloaded by spank_acct (default).
echo "batch LD_PRELOAD=\${LD_PRELOAD-} ACCT_RULES=\${ACCT_RULES-}"
ACCT_REPORT="\$1.yaml" timeout -k 5 30 "$prog"
rc=\$?
echo "singleton exit=\$rc"
exit \$rc
EOF
chmod +x "$work/batch.sh"
timeout -k 10 150 sbatch -W -p eth -N1 -n1 -t 2 -J jobs-singleton -o "$work/single.out" \
  -e "$work/single.err" "$work/batch.sh" "$work/single" >"$work/sbatch.out" 2>&1
echo $? >single.rc
check "sbatch job (exit status: the singleton's) completes with exit 0, the batch step preloaded with eth's rules" \
  eval 'rc_is single 0 && grep -qx "batch LD_PRELOAD=$node_lib ACCT_RULES=/run/acct/rules/eth/tcp-1g.yaml" single.out'
check "singleton in the batch step exits 0 in time (124 = hung), every check OK" \
  eval 'grep -qx "singleton exit=0" single.out && ok_line single coll_check 1'
check "singleton ran with ACCT as one rank: runtime mapped, report active, world_size 1" \
  eval 'grep -qx rt_mapped=1 single.out && report_has single.yaml "active: true" && report_has single.yaml "world_size: 1"'
((FAILS > fails_before)) && { fail_details single; show sbatch.out; }

# ---- (4) issue 22: eth's rules, ACCT and --acct=off ------------------------------
# acts COLL FILE: every call of COLL in the report FILE ran an ACCT algorithm
# (an algorithm row with calls, the native row at 0).
acct_ran() { grep -E "^  - \{collective: $1, algorithm: [a-z_]+, calls: [1-9]" "$2" 2>/dev/null | grep -qv "algorithm: native,"; }
acts() { acct_ran "$1" "$2" && ! grep -Eq "^  - \{collective: $1, algorithm: native, calls: [1-9]" "$2"; }
# all_acct_ran FILE COLL...: each COLL ran an ACCT algorithm; names the first that did not.
all_acct_ran() {
  local f=$1 c
  shift
  for c; do acct_ran "$c" "$f" || { echo "  no ACCT algorithm ran $c ($f)"; return 1; }; done
}
checksum() { sed -n 's/^acct-apps-py: np=4 steps=3 checksum=\([0-9a-f]*\) checks=[0-9]* errors=0 OK seconds=[0-9.]*$/\1/p' "$1.out"; }
if "$python" -c 'import mpi4py, numpy' 2>/dev/null; then
  echo "== mpi4py application (pickle allgather/gather, Iallreduce) with eth's rules and with --acct=off"
  fails_before=$FAILS
  job app ACCT_REPORT="$work/app.yaml" -- -- "$python" "$appspy" 3
  job app-off ACCT_REPORT="$work/app-off.yaml" -- --acct=off -- "$python" "$appspy" 3
  check "mpi4py application: exits 0 both ways, the same checksum with ACCT as with --acct=off" \
    eval 'rc_is app 0 && rc_is app-off 0 && [[ -n $(checksum app) && $(checksum app) == "$(checksum app-off)" ]]'
  check "mpi4py application with ACCT: report active with eth's rules; allgatherv, gatherv, iallreduce all ran ACCT algorithms" \
    eval 'report_has app.yaml "active: true" && grep -q "^rules: {partition: eth," app.yaml && acts allgatherv app.yaml && acts gatherv app.yaml && acts iallreduce app.yaml && acts allgather app.yaml'
  check "mpi4py application with --acct=off: no report" eval 'test ! -e app-off.yaml'
  ((FAILS > fails_before)) && fail_details app app-off
else
  echo "skip - mpi4py application: $python cannot import mpi4py and numpy"
fi
if [[ $fprog != none ]]; then
  echo "== Fortran (use mpi) main program with eth's rules and with --acct=off"
  fails_before=$FAILS
  job fort ACCT_REPORT="$work/fort.yaml" -- -- "$fprog"
  job fort-off ACCT_REPORT="$work/fort-off.yaml" -- --acct=off -- "$fprog"
  check "Fortran program: exits 0, every check right, with ACCT and with --acct=off" \
    eval 'rc_is fort 0 && ok_line fort fortran_use_mpi 4 && rc_is fort-off 0 && ok_line fort-off fortran_use_mpi 4 && test ! -e fort-off.yaml'
  check "Fortran program with ACCT: report active, the runtime mapped" \
    eval 'report_has fort.yaml "active: true" && grep -qx rt_mapped=1 fort.out'
  check "Fortran program with ACCT: each of its 16 collectives ran an ACCT algorithm (eth's rules)" \
    all_acct_ran fort.yaml barrier bcast reduce allreduce reduce_scatter_block allgatherv \
    reduce_scatter gatherv scatterv alltoallv gather scatter allgather alltoall scan exscan
  ((FAILS > fails_before)) && fail_details fort fort-off
else
  echo "skip - Fortran program through srun: no Fortran build (FORTRAN_PROG none; Debian: gfortran)"
fi

# Keep the outputs of a failed run (in the cluster's state dir: kept only
# with ACCT_CLUSTER_KEEP=1).
((FAILS)) || rm -rf "$work"
finish
