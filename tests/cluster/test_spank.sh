#!/usr/bin/env bash
# shellcheck disable=SC2016  # the checks' eval '...' bodies expand when they run
# cluster.spank_inject / cluster.spank_faults / cluster.spank_acctd:
# spank_acct.so end to end on the emulated cluster (docs/spank_acct.md,
# issue 5).
#
# usage (under with-cluster.sh):
#   test_spank.sh inject|faults SPANK_ACCT_SO LIBACCT_SO COLL_CHECK HOLD
#   test_spank.sh acctd SPANK_ACCT_SO LIBACCT_SO COLL_CHECK HOLD ACCTD ACCTCTL
#
# inject: (1) a job on eth and one on fast each get the preload and their own
#   partition's rules (task environment + ACCT_REPORT provenance + the rules'
#   algorithms ran); (2) --acct=off, ACCT_DISABLE=1, ACCT=off, sbatch
#   --acct=off disable it, --acct=on overrides ACCT_DISABLE=1, a user's own
#   LD_PRELOAD survives and libacct is never listed twice, the batch step is
#   preloaded by default (an mpirun in it gets ACCT) or left alone with
#   batch_step=off, salloc --acct=off; (3) non-MPI steps (hostname, a shell script,
#   python3) run normally; (5) a 4-node MPI job's collectives give the same
#   digests with ACCT as without, on both partitions.
# faults: (4) acctd socket missing, socket present but nobody listening, rules
#   file corrupt, rules file different on one node (rank 0's wins), rules
#   file missing on one node, libacct missing on one node, kill switch present
#   — every job completes with the native digests; the plugin writes one
#   slurmd log line per reason; (issue 5, item 5) a new rules version
#   activated while a job runs is used by the next job, and the running job
#   keeps the version it started with (HOLD waits between MPI_Init and its
#   collectives; the activation is a rename, as acctd does).
# acctd: the same path with the real daemon: one acctd per node (its own
#   /run/acct and /var/lib/acct), the rules imported and activated with
#   acctctl on every node; jobs on eth and fast get acctd's versions and its
#   socket; a version activated while a job runs reaches the next job only;
#   acctctl rollback; acctd stopped on every node: jobs keep running with
#   the materialised rules, without ACCT_SOCKET.
#
# The per-node files the plugin looks at (/run/acct/lib/libacct.so,
# /run/acct/rules/PARTITION/INTERCONNECT.yaml, /run/acct/acctd.sock,
# /run/acct/disable) live in each node's private /run/acct, which the host
# sees as $ACCT_CLUSTER_DIR/nodes/NODE/run-acct. inject and faults write the
# rules files there directly (place_rules: faults are set up file by file);
# acctd has one acctd per node write them.
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"

part=${1:-} so=${2:-} lib=${3:-} prog=${4:-} hold=${5:-} acctd=${6:-} acctctl=${7:-}
if [[ $part != inject && $part != faults && $part != acctd ]] ||
  [[ ! -f $so || ! -f $lib || ! -x $prog || ! -x $hold ]] ||
  [[ $part == acctd && (! -x $acctd || ! -x $acctctl) ]]; then
  echo "usage: test_spank.sh inject|faults SPANK_ACCT_SO LIBACCT_SO COLL_CHECK HOLD [ACCTD ACCTCTL]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
so=$(readlink -f "$so") lib=$(readlink -f "$lib") prog=$(readlink -f "$prog") hold=$(readlink -f "$hold")
libdir=$(dirname "$lib")
enter_workdir "spank-$part"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4)
node_lib=/run/acct/lib/libacct.so # what the plugin preloads, per node
declare -A IC=([eth]=tcp-1g [fast]=veth) VERSION=([eth]=101 [fast]=202)

noderun() { echo "$ACCT_CLUSTER_DIR/nodes/$1/run-acct"; }

# ---- per-node state ---------------------------------------------------------

# libacct.so and its runtime on every node (one node's copy can be removed).
place_lib() {
  local n d
  for n in "${nodes[@]}"; do
    d=$(noderun "$n")/lib
    mkdir -p "$d"
    cp "$lib" "$libdir/libacct_rt.so" "$d/"
  done
}

# The active rules file of (eth, tcp-1g) and (fast, veth) on every node.
# Stand-in for acctd (see the header).
place_rules() {
  local n p d
  for n in "${nodes[@]}"; do
    for p in eth fast; do
      d=$(noderun "$n")/rules/$p
      mkdir -p "$d"
      cp "$here/rules/$p.yaml" "$d/${IC[$p]}.yaml.tmp"
      mv -f "$d/${IC[$p]}.yaml.tmp" "$d/${IC[$p]}.yaml"
    done
    rm -f "$(noderun "$n")/disable" "$(noderun "$n")/acctd.sock"
  done
}

# The plugin in the cluster's plugstack.conf (up on a running cluster only
# rewrites plugstack.conf).
plugstack=$work/plugstack.acct
echo "optional $so lib=$node_lib interconnect_map=eth:tcp-1g,fast:veth" >"$plugstack"
if ! ACCT_CLUSTER_PLUGSTACK=$plugstack "$ACCT_CLUSTER" up >"$work/up.log" 2>&1; then
  cat "$work/up.log"
  exit 1
fi
place_lib
place_rules

# ---- running jobs -----------------------------------------------------------

# Each task prints what it got, then becomes the program.
# shellcheck disable=SC2016  # expanded by the task's shell
task='m=0; grep -qF /run/acct/lib/libacct.so /proc/self/maps && m=1
echo "task rank=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-?}} host=$(hostname) mapped=$m step=${SLURM_JOB_ID:-?}.${SLURM_STEP_ID:-?}" \
  "LD_PRELOAD=${LD_PRELOAD-} ACCT_RULES=${ACCT_RULES-} ACCT_PARTITION=${ACCT_PARTITION-}" \
  "ACCT_INTERCONNECT=${ACCT_INTERCONNECT-} ACCT_JOB=${ACCT_JOB-} ACCT_SOCKET=${ACCT_SOCKET-}" \
  "ACCT_DISABLE=${ACCT_DISABLE-}"
exec "$0" "$@"'

# job NAME PART NODES TASKS [SRUN-ARGS...] -- PROGRAM [ARGS...]
# Output in NAME.out/NAME.err, exit status in NAME.rc.
job() {
  local name=$1 p=$2 nn=$3 nt=$4 rc
  shift 4
  local args=()
  while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  pmix_step "$name.out" "$name.err" timeout 120 srun -p "$p" -N "$nn" -n "$nt" --mpi=pmix -t 2 \
    -J "spank-$name" "${args[@]}" /bin/sh -c "$task" "$@"
  rc=$?
  echo "$rc" >"$name.rc"
}

tasks() { grep -c '^task ' "$1.out"; }
# How many tasks have KEY=VALUE exactly.
count() { grep '^task ' "$1.out" | grep -c " $2\( \|$\)"; }
rc_is() { test "$(cat "$1.rc")" = "$2"; }
ok_line() { grep -v '^task ' "$1.out" | grep -q 'coll_check: np=.* errors=0 OK'; }
digests() { grep '^digest ' "$1.out"; }
same_digests() { [[ -n $(digests "$1") ]] && diff <(digests "$1") <(digests "$2") >/dev/null; }
no_report() { test ! -e "$1"; }
report_has() { grep -qF -- "$2" "$1"; }
# slurmd log lines of the plugin for step $2 on node $1 that contain $3.
log_lines() { grep -F "spank_acct: job $2: " "$ACCT_CLUSTER_DIR/log/slurmd.$1.log" | grep -cF -- "$3"; }
# Every node logged exactly one plugin line for step $1, and it contains $2.
one_line_per_node() {
  local n
  for n in "${nodes[@]}"; do
    [[ $(log_lines "$n" "$1" "") == 1 && $(log_lines "$n" "$1" "$2") == 1 ]] || return 1
  done
}
step_of() { sed -n 's/^task .* step=\([^ ]*\) .*/\1/p' "$1.out" | sort -u | head -n1; }

fail_details() {
  local f
  for f in "$@"; do show "$f.out" 30; show "$f.err" 20; done
}

# A full MPI job with ACCT (on PART) and the same with --acct=off.
mpi_pair() { # PART
  local p=$1 r=$work/$1.report.yaml
  job "$p-acct" "$p" 4 8 --export="ALL,ACCT_REPORT=$r" -- "$prog"
  job "$p-native" "$p" 4 8 --acct=off --export="ALL,ACCT_REPORT=$work/$p-native.report.yaml" -- "$prog"
}

# ---- inject ----------------------------------------------------------------

run_inject() {
  local p r rules step
  # (1) and (5): both partitions, with and without ACCT.
  for p in eth fast; do
    echo "== $p: MPI job with ACCT and with --acct=off"
    mpi_pair "$p"
    r=$work/$p.report.yaml rules=/run/acct/rules/$p/${IC[$p]}.yaml
    step=$(step_of "$p-acct")
    check "$p: job with ACCT exits 0 and coll_check OK" eval 'rc_is "$p-acct" 0 && ok_line "$p-acct"'
    check "$p: 8 tasks, libacct mapped in all 8" eval '[[ $(tasks "$p-acct") == 8 && $(count "$p-acct" mapped=1) == 8 ]]'
    check "$p: LD_PRELOAD=$node_lib in all 8" test "$(count "$p-acct" "LD_PRELOAD=$node_lib")" = 8
    check "$p: ACCT_RULES=$rules in all 8" test "$(count "$p-acct" "ACCT_RULES=$rules")" = 8
    check "$p: ACCT_PARTITION=$p ACCT_INTERCONNECT=${IC[$p]} in all 8" \
      eval '[[ $(count "$p-acct" "ACCT_PARTITION=$p") == 8 && $(count "$p-acct" "ACCT_INTERCONNECT=${IC[$p]}") == 8 ]]'
    check "$p: ACCT_JOB=$step (JOBID.STEPID) in all 8" \
      eval '[[ $step =~ ^[0-9]+\.0$ && $(count "$p-acct" "ACCT_JOB=$step") == 8 ]]'
    check "$p: report shows active ACCT with $p's rules (version ${VERSION[$p]})" \
      eval 'report_has "$r" "active: true" && report_has "$r" "rules: {partition: $p, interconnect: ${IC[$p]}, version: ${VERSION[$p]},"'
    if [[ $p == eth ]]; then
      check "eth: the rules' algorithms ran (bcast binomial, allgather ring)" \
        eval 'grep -Eq "collective: bcast, algorithm: binomial, calls: [1-9]" "$r" && grep -Eq "collective: allgather, algorithm: ring, calls: [1-9]" "$r"'
    else
      check "fast: the rules' algorithms ran (bcast knomial, allgather bruck)" \
        eval 'grep -Eq "collective: bcast, algorithm: knomial, calls: [1-9]" "$r" && grep -Eq "collective: allgather, algorithm: bruck, calls: [1-9]" "$r"'
    fi
    check "$p: --acct=off job exits 0, OK, no libacct in any task, no report" \
      eval 'rc_is "$p-native" 0 && ok_line "$p-native" && [[ $(count "$p-native" mapped=0) == 8 ]] && no_report "$work/$p-native.report.yaml"'
    check "$p: same collective results (digests) with ACCT as without" same_digests "$p-acct" "$p-native"
    ((FAILS)) && fail_details "$p-acct" "$p-native"
  done

  # (2) opt-outs and the user's own LD_PRELOAD.
  echo "== opt-outs"
  local userlib=/lib/x86_64-linux-gnu/libm.so.6 n
  [[ -f $userlib ]] || userlib=$(readlink -f "$(ldconfig -p | sed -n 's/.*libm.so.6 .*=> //p' | head -n1)")
  job env-disable fast 2 2 --export="ALL,ACCT_DISABLE=1,ACCT_REPORT=$work/env-disable.yaml" -- "$prog"
  job env-acct-off fast 2 2 --export="ALL,ACCT=off,ACCT_REPORT=$work/env-acct-off.yaml" -- "$prog"
  job opt-on fast 2 2 --acct=on --export="ALL,ACCT_DISABLE=1,ACCT_REPORT=$work/on.yaml" -- "$prog"
  job user-preload fast 2 2 --export="ALL,LD_PRELOAD=$userlib" -- "$prog"
  job user-dup fast 2 2 --export="ALL,LD_PRELOAD=$userlib:$node_lib" -- "$prog"
  for n in env-disable env-acct-off; do
    check "$n: exits 0, OK, no preload, no ACCT_RULES, no report" \
      eval 'rc_is $n 0 && ok_line $n && [[ $(count $n mapped=0) == 2 && $(count $n LD_PRELOAD=) == 2 && $(count $n ACCT_RULES=) == 2 ]] && no_report "$work/$n.yaml"'
  done
  check "--acct=on beats ACCT_DISABLE=1: preloaded, ACCT_DISABLE removed, report written" \
    eval 'rc_is opt-on 0 && ok_line opt-on && [[ $(count opt-on mapped=1) == 2 && $(count opt-on ACCT_DISABLE=) == 2 ]] && report_has "$work/on.yaml" "active: true"'
  check "user's LD_PRELOAD kept after libacct: LD_PRELOAD=$node_lib:$userlib" \
    eval 'rc_is user-preload 0 && ok_line user-preload && [[ $(count user-preload "LD_PRELOAD=$node_lib:$userlib") == 2 && $(count user-preload mapped=1) == 2 ]]'
  check "libacct already in the user's LD_PRELOAD: not added twice" \
    eval 'rc_is user-dup 0 && ok_line user-dup && [[ $(count user-dup "LD_PRELOAD=$userlib:$node_lib") == 2 ]]'
  # salloc --acct=off reaches the steps of the allocation; srun --acct=on
  # inside it wins for its own step.
  # shellcheck disable=SC2016  # expanded by the step's shell
  local show_env='echo "salloc LD_PRELOAD=${LD_PRELOAD-} ACCT_DISABLE=${ACCT_DISABLE-}"'
  timeout 60 salloc -p fast -N1 -t 1 --acct=off srun sh -c "$show_env" >salloc-off.out 2>salloc-off.err
  echo $? >salloc-off.rc
  timeout 60 salloc -p fast -N1 -t 1 --acct=off srun --acct=on sh -c "$show_env" >salloc-on.out 2>salloc-on.err
  echo $? >salloc-on.rc
  check "salloc --acct=off: its srun step has no preload, ACCT_DISABLE=1" \
    eval 'rc_is salloc-off 0 && grep -qx "salloc LD_PRELOAD= ACCT_DISABLE=1" salloc-off.out'
  check "salloc --acct=off, srun --acct=on: that step has ACCT" \
    eval 'rc_is salloc-on 0 && grep -qx "salloc LD_PRELOAD=$node_lib ACCT_DISABLE=" salloc-on.out'
  ((FAILS)) && fail_details env-disable env-acct-off opt-on user-preload user-dup salloc-off salloc-on

  echo "== sbatch"
  # The batch script prints its own environment, runs an srun step and an
  # mpirun (Open MPI starts the ranks on the batch node itself, and the
  # others through an srun step of its daemons).
  cat >"$work/batch.sh" <<EOF
#!/bin/sh
echo "batch LD_PRELOAD=\${LD_PRELOAD-} ACCT_RULES=\${ACCT_RULES-} ACCT_JOB=\${ACCT_JOB-} ACCT_DISABLE=\${ACCT_DISABLE-}"
srun -N2 -n4 /bin/sh -c '$task' "$prog"
mpirun --allow-run-as-root -np 4 --map-by slot -x ACCT_REPORT="\$1.yaml" /bin/sh -c '$task' "$prog" >"\$1-mpirun.out" 2>&1
EOF
  chmod +x "$work/batch.sh"
  sbatch_job() { # NAME [SBATCH-OPTIONS...]
    local name=$1
    shift
    timeout 150 sbatch -W -p eth -N2 -n4 -t 2 -J "spank-$name" "$@" -o "$work/$name.out" \
      -e "$work/$name.err" "$work/batch.sh" "$work/$name" >/dev/null 2>&1
    echo $? >"$name.rc"
  }
  sbatch_job sbatch-off --acct=off
  sbatch_job sbatch-on
  # batch_step=off: the batch script is left alone.
  echo "optional $so lib=$node_lib interconnect_map=eth:tcp-1g,fast:veth batch_step=off" >"$plugstack"
  ACCT_CLUSTER_PLUGSTACK=$plugstack "$ACCT_CLUSTER" up >>"$work/up.log" 2>&1
  sbatch_job sbatch-nobatch
  echo "optional $so lib=$node_lib interconnect_map=eth:tcp-1g,fast:veth" >"$plugstack"
  ACCT_CLUSTER_PLUGSTACK=$plugstack "$ACCT_CLUSTER" up >>"$work/up.log" 2>&1
  # shellcheck disable=SC2034  # used in the checks' eval bodies
  local eth_rules=/run/acct/rules/eth/tcp-1g.yaml
  check "sbatch --acct=off: exits 0, OK, no srun task preloaded, ACCT_DISABLE=1 in the step" \
    eval 'rc_is sbatch-off 0 && ok_line sbatch-off && [[ $(tasks sbatch-off) == 4 && $(count sbatch-off mapped=0) == 4 && $(count sbatch-off ACCT_DISABLE=1) == 4 ]]'
  check "sbatch --acct=off: no preload in the batch script, nor in mpirun's ranks, no report" \
    eval 'grep -q "^batch LD_PRELOAD= ACCT_RULES= ACCT_JOB= ACCT_DISABLE=1$" sbatch-off.out && ok_line sbatch-off-mpirun && [[ $(count sbatch-off-mpirun mapped=0) == 4 ]] && no_report "$work/sbatch-off.yaml"'
  check "sbatch: batch script preloaded (batch_step=on by default), ACCT_JOB=JOBID.batch" \
    eval 'rc_is sbatch-on 0 && grep -Eq "^batch LD_PRELOAD=$node_lib ACCT_RULES=$eth_rules ACCT_JOB=[0-9]+\.batch ACCT_DISABLE=$" sbatch-on.out'
  check "sbatch: its srun step inherits the preload once, gets its own ACCT_JOB" \
    eval 'ok_line sbatch-on && [[ $(count sbatch-on mapped=1) == 4 && $(count sbatch-on "LD_PRELOAD=$node_lib") == 4 && $(grep "^task " sbatch-on.out | grep -Ec " ACCT_JOB=[0-9]+\.0 ") == 4 ]]'
  check "sbatch: mpirun in the batch script: all 4 ranks preloaded, ACCT active with eth's rules" \
    eval 'ok_line sbatch-on-mpirun && [[ $(count sbatch-on-mpirun mapped=1) == 4 ]] && report_has "$work/sbatch-on.yaml" "active: true" && report_has "$work/sbatch-on.yaml" "version: 101,"'
  check "sbatch, batch_step=off: batch script left alone, its srun step preloaded" \
    eval 'rc_is sbatch-nobatch 0 && ok_line sbatch-nobatch && grep -q "^batch LD_PRELOAD= ACCT_RULES= ACCT_JOB= ACCT_DISABLE=$" sbatch-nobatch.out && [[ $(count sbatch-nobatch mapped=1) == 4 && $(count sbatch-nobatch ACCT_RULES=$eth_rules) == 4 ]]'
  ((FAILS)) && fail_details sbatch-off sbatch-off-mpirun sbatch-on sbatch-on-mpirun sbatch-nobatch

  # (3) non-MPI steps: preloaded, but they never map an MPI library.
  echo "== non-MPI steps"
  cat >"$work/script.sh" <<'EOF'
#!/bin/sh
# A plain shell step: libacct preloaded, no MPI library mapped.
if grep -q libmpi /proc/self/maps; then echo "script mpi-mapped"; else echo "script no-mpi"; fi
echo "script sum=$((20 + 22))"
EOF
  chmod +x "$work/script.sh"
  timeout 60 srun -p eth -N4 -t 1 hostname >hostname.out 2>hostname.err
  echo $? >hostname.rc
  job script eth 2 2 -- "$work/script.sh"
  job python fast 2 2 -- python3 -c 'import sys; print("python", sum(range(10)), sys.version_info[0])'
  check "srun -N4 hostname: exit 0, the 4 node names" \
    eval 'rc_is hostname 0 && [[ $(sort hostname.out | tr "\n" " ") == "acct-n1 acct-n2 acct-n3 acct-n4 " ]]'
  check "shell script step: exit 0, right output, libacct mapped, no MPI library" \
    eval 'rc_is script 0 && [[ $(grep -c "^script sum=42$" script.out) == 2 && $(grep -c "^script no-mpi$" script.out) == 2 && $(count script mapped=1) == 2 ]]'
  check "python3 step: exit 0, right output, libacct mapped" \
    eval 'rc_is python 0 && [[ $(grep -c "^python 45 3$" python.out) == 2 && $(count python mapped=1) == 2 ]]'
  ((FAILS)) && fail_details hostname script python
}

# ---- faults ----------------------------------------------------------------

run_faults() {
  local r step
  echo "== reference: native digests on eth"
  job native eth 4 8 --acct=off -- "$prog"
  check "native job exits 0, OK" eval 'rc_is native 0 && ok_line native'

  # No acctd on the nodes: the socket is missing (the normal state here).
  echo "== acctd socket missing"
  job nosock eth 4 8 --export="ALL,ACCT_REPORT=$work/nosock.yaml" -- "$prog"
  step=$(step_of nosock)
  check "socket missing: exit 0, same digests, ACCT active with eth's rules, no ACCT_SOCKET" \
    eval 'rc_is nosock 0 && ok_line nosock && same_digests nosock native && report_has "$work/nosock.yaml" "version: 101," && [[ $(count nosock ACCT_SOCKET=) == 8 ]]'
  check "socket missing: exactly one plugin log line per node for step $step" \
    one_line_per_node "$step" "acctd socket /run/acct/acctd.sock: No such file"

  # A socket file nobody listens on: acctd died.
  echo "== acctd dead (socket file, no listener)"
  local n
  for n in "${nodes[@]}"; do
    python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$(noderun "$n")/acctd.sock"
  done
  job deadsock eth 4 8 -- "$prog"
  check "dead acctd: exit 0, same digests, ACCT_SOCKET set in all 8" \
    eval 'rc_is deadsock 0 && ok_line deadsock && same_digests deadsock native && [[ $(count deadsock ACCT_SOCKET=/run/acct/acctd.sock) == 8 ]]'
  place_rules

  echo "== rules file corrupt on every node"
  for n in "${nodes[@]}"; do
    printf 'acct_rules: 1\nprovenance: [this is\n  not: valid\n' >"$(noderun "$n")/rules/eth/tcp-1g.yaml"
  done
  job corrupt eth 4 8 --export="ALL,ACCT_REPORT=$work/corrupt.yaml" -- "$prog"
  check "corrupt rules: exit 0, same digests, report says no rules in use" \
    eval 'rc_is corrupt 0 && ok_line corrupt && same_digests corrupt native && report_has "$work/corrupt.yaml" "rules: none"'
  place_rules

  echo "== rules file different on one node"
  sed -e 's/version: 101/version: 999/' -e 's/algorithm: binomial/algorithm: linear/' \
    -e 's/algorithm: ring/algorithm: bruck/' "$here/rules/eth.yaml" >"$(noderun acct-n2)/rules/eth/tcp-1g.yaml"
  job differ eth 4 8 --export="ALL,ACCT_REPORT=$work/differ.yaml" -- "$prog"
  check "different rules on acct-n2: exit 0, same digests, rank 0's (acct-n1) version 101 used" \
    eval 'rc_is differ 0 && ok_line differ && same_digests differ native && report_has "$work/differ.yaml" "rules: {partition: eth, interconnect: tcp-1g, version: 101," && grep -q "rank=0 host=acct-n1 " differ.out && grep -Eq "collective: bcast, algorithm: binomial, calls: [1-9]" "$work/differ.yaml"'
  rm -f "$(noderun acct-n3)/rules/eth/tcp-1g.yaml"
  job missing-rules eth 4 8 --export="ALL,ACCT_REPORT=$work/missing-rules.yaml" -- "$prog"
  step=$(step_of missing-rules)
  check "rules missing on acct-n3: exit 0, same digests, n3's tasks not preloaded, ACCT inactive" \
    eval 'rc_is missing-rules 0 && ok_line missing-rules && same_digests missing-rules native && [[ $(count missing-rules mapped=0) == 2 ]] && report_has "$work/missing-rules.yaml" "active: false"'
  check "rules missing: one log line on acct-n3 naming the file" \
    test "$(log_lines acct-n3 "$step" "rules file /run/acct/rules/eth/tcp-1g.yaml: No such file")" = 1
  place_rules

  echo "== libacct missing on one node"
  rm -f "$(noderun acct-n3)/lib/libacct.so"
  job nolib eth 4 8 --export="ALL,ACCT_REPORT=$work/nolib.yaml" -- "$prog"
  step=$(step_of nolib)
  check "libacct missing on acct-n3: exit 0, same digests, ACCT inactive in every rank" \
    eval 'rc_is nolib 0 && ok_line nolib && same_digests nolib native && [[ $(count nolib mapped=0) == 2 ]] && report_has "$work/nolib.yaml" "active: false"'
  check "libacct missing: one log line on acct-n3, none about it elsewhere" \
    eval '[[ $(log_lines acct-n3 "$step" "$node_lib: No such file") == 1 && $(log_lines acct-n1 "$step" "$node_lib") == 0 ]]'
  place_lib

  echo "== kill switch"
  for n in "${nodes[@]}"; do : >"$(noderun "$n")/disable"; done
  job killed eth 4 8 --acct=on --export="ALL,ACCT_REPORT=$work/killed.yaml" -- "$prog"
  step=$(step_of killed)
  check "kill switch (even with --acct=on): exit 0, same digests, no task preloaded, no report" \
    eval 'rc_is killed 0 && ok_line killed && same_digests killed native && [[ $(count killed mapped=0) == 8 ]] && no_report "$work/killed.yaml"'
  check "kill switch: one log line per node" \
    one_line_per_node "$step" "kill switch /run/acct/disable present"
  place_rules

  # A new active version while a job runs (written as acctd does: temporary
  # name, rename): the running job keeps what it read at MPI_Init, the next
  # job uses the new one through the same ACCT_RULES path.
  echo "== new rules version activated while a job runs"
  rm -f "$work/hold.ready" "$work/hold.go"
  # One CPU per node for the held job, one left for the next job (-O: one
  # CPU per node, two ranks on it).
  timeout 150 srun -p eth -N4 -n4 --ntasks-per-node=1 --mpi=pmix -t 2 -J spank-hold \
    --export="ALL,ACCT_REPORT=$work/hold.yaml" "$hold" "$work/hold" >hold.out 2>hold.err &
  local hold_pid=$! waited=0
  while [[ ! -e $work/hold.ready ]] && ((waited < 600)) && kill -0 "$hold_pid" 2>/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
  done
  check "held job reached MPI_Init" test -e "$work/hold.ready"
  for n in "${nodes[@]}"; do
    sed 's/version: 101/version: 102/' "$here/rules/eth.yaml" >"$(noderun "$n")/rules/eth/.tcp-1g.yaml.new"
    mv -f "$(noderun "$n")/rules/eth/.tcp-1g.yaml.new" "$(noderun "$n")/rules/eth/tcp-1g.yaml"
  done
  job newversion eth 4 8 -O --export="ALL,ACCT_REPORT=$work/newversion.yaml" -- "$prog"
  : >"$work/hold.go"
  wait "$hold_pid"
  echo $? >hold.rc
  check "new version: the next job exits 0, same digests, uses version 102" \
    eval 'rc_is newversion 0 && ok_line newversion && same_digests newversion native && report_has "$work/newversion.yaml" "rules: {partition: eth, interconnect: tcp-1g, version: 102,"'
  check "the job that was running kept version 101 and finished correctly" \
    eval 'rc_is hold 0 && grep -q "^hold: np=4 errors=0 OK$" hold.out && report_has "$work/hold.yaml" "rules: {partition: eth, interconnect: tcp-1g, version: 101,"'
  place_rules
  ((FAILS)) && fail_details native nosock deadsock corrupt differ missing-rules nolib killed newversion hold
}

# ---- acctd -----------------------------------------------------------------

# Start one acctd per node in the node's namespaces (private /run/acct and
# /var/lib/acct); `down` stops them with everything else in the nodes.
start_acctd() {
  local n i
  for n in "${nodes[@]}"; do
    rm -f "$(noderun "$n")/acctd.sock"
    "$ACCT_CLUSTER" exec "$n" sh -c '"$0" --refine-interval 0 >/var/lib/acct/acctd.log 2>&1 &
echo $! >/var/lib/acct/acctd.pid' "$acctd"
  done
  for n in "${nodes[@]}"; do
    for ((i = 0; i < 100; i++)); do
      [[ -S $(noderun "$n")/acctd.sock ]] && break
      sleep 0.1
    done
  done
}

stop_acctd() {
  local n pid
  for n in "${nodes[@]}"; do
    pid=$(cat "$ACCT_CLUSTER_DIR/nodes/$n/var-lib-acct/acctd.pid" 2>/dev/null) || continue
    kill -TERM "$pid" 2>/dev/null
    while alive "$pid"; do sleep 0.1; done
  done
}

# acctctl CMD... on every node (its own acctd); output of the last in $1.
acctctl_all() {
  local out=$1 n rc=0
  shift
  for n in "${nodes[@]}"; do
    "$ACCT_CLUSTER" exec "$n" "$acctctl" "$@" >"$out" 2>&1 || rc=1
  done
  return "$rc"
}

imported_version() { sed -n 's/^imported .* as version \([0-9]*\) of .*/\1/p' "$1" | tail -n1; }

materialised() {
  local n
  for n in "${nodes[@]}"; do
    [[ -f $(noderun "$n")/rules/eth/tcp-1g.yaml && -f $(noderun "$n")/rules/fast/veth.yaml ]] || return 1
  done
}

run_acctd() {
  local n step
  for n in "${nodes[@]}"; do rm -rf "$(noderun "$n")/rules"; done
  start_acctd
  local socks=0
  for n in "${nodes[@]}"; do [[ -S $(noderun "$n")/acctd.sock ]] && socks=$((socks + 1)); done
  check "acctd up on every node (its own socket)" test "$socks" = 4
  check "rules of eth and fast imported and activated by every node's acctd" \
    eval 'acctctl_all imp-eth.out import "$here/rules/eth.yaml" --activate && acctctl_all imp-fast.out import "$here/rules/fast.yaml" --activate && grep -q "activated version [0-9]* of eth/tcp-1g" imp-eth.out && grep -q "activated version [0-9]* of fast/veth" imp-fast.out'
  # acctd numbers versions itself (one sequence for all pairs).
  declare -A V=([eth]=$(imported_version imp-eth.out) [fast]=$(imported_version imp-fast.out))
  check "acctd materialised both rules files on every node" materialised
  ((FAILS)) && { show imp-eth.out; show "$ACCT_CLUSTER_DIR/nodes/acct-n1/var-lib-acct/acctd.log"; }

  local p
  for p in eth fast; do
    echo "== $p with acctd"
    mpi_pair "$p"
    check "$p: ACCT from acctd's version ${V[$p]}, its socket in all 8 tasks, same digests as --acct=off" \
      eval 'rc_is "$p-acct" 0 && ok_line "$p-acct" && [[ $(count "$p-acct" mapped=1) == 8 && $(count "$p-acct" ACCT_SOCKET=/run/acct/acctd.sock) == 8 ]] && report_has "$work/$p.report.yaml" "rules: {partition: $p, interconnect: ${IC[$p]}, version: ${V[$p]}," && rc_is "$p-native" 0 && same_digests "$p-acct" "$p-native"'
    ((FAILS)) && fail_details "$p-acct" "$p-native"
  done

  echo "== acctctl import --activate while a job runs"
  rm -f "$work/hold.ready" "$work/hold.go"
  timeout 150 srun -p eth -N4 -n4 --ntasks-per-node=1 --mpi=pmix -t 2 -J spank-hold \
    --export="ALL,ACCT_REPORT=$work/hold.yaml" "$hold" "$work/hold" >hold.out 2>hold.err &
  local hold_pid=$! waited=0
  while [[ ! -e $work/hold.ready ]] && ((waited < 600)) && kill -0 "$hold_pid" 2>/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
  done
  check "held job reached MPI_Init" test -e "$work/hold.ready"
  sed -e 's/algorithm: dissemination/algorithm: tournament/' "$here/rules/eth.yaml" >"$work/eth-v2.yaml"
  check "a new version of eth/tcp-1g imported and activated on every node" \
    eval 'acctctl_all imp2.out import "$work/eth-v2.yaml" --activate && grep -q "activated version [0-9]* of eth/tcp-1g" imp2.out'
  local v2
  v2=$(imported_version imp2.out)
  job v2 eth 4 8 -O --export="ALL,ACCT_REPORT=$work/v2.yaml" -- "$prog"
  : >"$work/hold.go"
  wait "$hold_pid"
  echo $? >hold.rc
  check "the next job uses the new version $v2 (its barrier is tournament now), same digests" \
    eval 'rc_is v2 0 && ok_line v2 && same_digests v2 eth-native && report_has "$work/v2.yaml" "version: $v2," && grep -Eq "collective: barrier, algorithm: tournament, calls: [1-9]" "$work/v2.yaml"'
  check "the job that was running kept version ${V[eth]} and finished correctly" \
    eval 'rc_is hold 0 && grep -q "^hold: np=4 errors=0 OK$" hold.out && report_has "$work/hold.yaml" "version: ${V[eth]},"'
  check "acctctl rollback on every node: the next job is back on version ${V[eth]}" \
    eval 'acctctl_all rb.out rollback -p eth -i tcp-1g && grep -q "from version $v2 to version ${V[eth]}" rb.out && job rb eth 4 8 --export="ALL,ACCT_REPORT=$work/rb.yaml" -- "$prog"; rc_is rb 0 && same_digests rb eth-native && report_has "$work/rb.yaml" "version: ${V[eth]},"'
  ((FAILS)) && fail_details v2 hold rb && show rb.out

  echo "== acctd stopped on every node"
  stop_acctd
  job stopped eth 4 8 --export="ALL,ACCT_REPORT=$work/stopped.yaml" -- "$prog"
  step=$(step_of stopped)
  check "acctd stopped: exit 0, same digests, ACCT from the materialised rules, no ACCT_SOCKET" \
    eval 'rc_is stopped 0 && ok_line stopped && same_digests stopped eth-native && report_has "$work/stopped.yaml" "active: true" && [[ $(count stopped ACCT_SOCKET=) == 8 ]]'
  check "acctd stopped: one plugin log line per node" \
    one_line_per_node "$step" "acctd socket /run/acct/acctd.sock: No such file"
  ((FAILS)) && fail_details stopped
}

"run_$part"
# Keep the outputs of a failed run (in the cluster's state dir: kept only
# with ACCT_CLUSTER_KEEP=1).
((FAILS)) || rm -rf "$work"
finish
