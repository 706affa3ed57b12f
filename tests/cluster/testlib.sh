# shellcheck shell=bash
# testlib.sh — helpers shared by the cluster test scripts (sourced, bash).
#
#   check DESCRIPTION COMMAND...   run COMMAND, print "ok   - ..." or "FAIL - ..."
#   finish                         print the tally, return non-zero on any FAIL
#   alive PID                      PID exists and is not a zombie
#   skip_without_cluster           exit 77 (ctest SKIP) unless root with the
#                                  cluster's commands installed
#   enter_workdir NAME             under with-cluster.sh only (else exit 2):
#                                  work=$ACCT_CLUSTER_SHARED/NAME-PID, made and
#                                  entered (visible on every node, not /tmp)
#   pmix_step OUT ERR COMMAND...   run COMMAND (an srun --mpi=pmix step),
#                                  stdout to OUT, stderr to ERR; once more
#                                  only on Slurm's PMIx/munge race (below)
#
# CLUSTER is the acct-cluster script next to this file.

# shellcheck disable=SC2034  # used by the scripts that source this file
CLUSTER=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/acct-cluster
CHECKS=0
FAILS=0

check() {
  local what=$1
  shift
  CHECKS=$((CHECKS + 1))
  if "$@"; then
    echo "ok   - $what"
  else
    echo "FAIL - $what"
    FAILS=$((FAILS + 1))
  fi
}

finish() {
  echo "$((CHECKS - FAILS)) passed, $FAILS failed"
  ((FAILS == 0))
}

alive() {
  local st
  { read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
  st=${st##*) }
  [[ ${st:0:1} != Z ]]
}

skip_without_cluster() {
  if ((EUID != 0)); then
    echo "SKIP: the emulated cluster needs root"
    exit 77
  fi
  local c
  for c in slurmctld slurmd munged srun tc nsenter; do
    if ! command -v "$c" >/dev/null 2>&1; then
      echo "SKIP: $c is not installed"
      exit 77
    fi
  done
}

enter_workdir() {
  [[ -n ${ACCT_CLUSTER_SHARED:-} ]] || { echo "run me under with-cluster.sh" >&2; exit 2; }
  work=$ACCT_CLUSTER_SHARED/$1-$$
  mkdir -p "$work"
  cd "$work" || exit 1
}

# Print a file with a header (for failure diagnostics).
show() {
  echo "---- $1"
  if [[ -f $1 ]]; then head -n "${2:-40}" "$1"; fi
}

# ---- one cluster per machine ------------------------------------------------

# cluster_lock WHO: take the machine's cluster lock (${ACCT_CLUSTER_DIR}.lock,
# /run/acct-cluster.lock by default) on descriptor 9 for the rest of the
# calling script, waiting at most ACCT_CLUSTER_LOCK_WAIT seconds (900), and
# write the caller's pid into it; exits 1 naming the lock when it stays
# taken. Every namespace, interface and daemon of the emulated cluster has a
# fixed name: ctest's RESOURCE_LOCK serialises the tests of one ctest run,
# this lock everything else (two build trees, the demo, a developer's run).
cluster_lock() {
  local who=$1 lock=${ACCT_CLUSTER_DIR:-/run/acct-cluster}.lock holder
  exec 9>>"$lock"
  if ! flock -n 9; then
    holder=$(cat "$lock" 2>/dev/null || true)
    echo "$who: the cluster is in use (lock $lock, held by pid ${holder:-?}); waiting up to ${ACCT_CLUSTER_LOCK_WAIT:-900} s"
    if ! flock -w "${ACCT_CLUSTER_LOCK_WAIT:-900}" 9; then
      echo "$who: ERROR: the cluster is still in use after ${ACCT_CLUSTER_LOCK_WAIT:-900} s (lock $lock)" >&2
      exit 1
    fi
  fi
  echo $$ >"$lock" # the same file (a rename would make a second lock)
}

# ---- per-node acctd (cluster tests and scripts/acct-demo) --------------------
#
#   noderun NODE                 the host's view of NODE's private /run/acct
#   nodevar NODE                 ... of NODE's private /var/lib/acct
#   node_addr NODE [NET]         NODE's address on network NET (fast|eth; fast)
#   acctd_cluster_start ACCTD PORT NODE...
#                                one acctd per node in the node's namespaces:
#                                the first NODE is the primary (listen on its
#                                fast address:PORT), the others follow it
#                                (sync every second, munge from the cluster's
#                                munged; docs/acctd.md "Multi-node"); waits
#                                until every socket exists (30 s at most)
#   acctd_cluster_stop NODE...   SIGTERM every node's acctd, wait (10 s each)
#   wait_until SECONDS CMD...    poll CMD every 0.2 s until it succeeds
#   rules_version FILE           provenance.version of a rules file
#
# Need ACCT_CLUSTER (with-cluster.sh) and ACCT_CLUSTER_DIR (acct-cluster env).

noderun() { echo "$ACCT_CLUSTER_DIR/nodes/$1/run-acct"; }
nodevar() { echo "$ACCT_CLUSTER_DIR/nodes/$1/var-lib-acct"; }

node_addr() {
  local subnet i=${1#acct-n}
  subnet=$("$ACCT_CLUSTER" subnet -p "${2:-fast}") || return 1
  echo "${subnet%.0/*}.$i"
}

wait_until() {
  local t=$1 i
  shift
  for ((i = 0; i < t * 5; i++)); do
    "$@" && return 0
    sleep 0.2
  done
  "$@"
}

acctd_cluster_start() {
  local acctd=$1 port=$2 primary=$3 n addr role
  shift 2
  addr=$(node_addr "$primary") || return 1
  for n in "$@"; do
    if [[ $n == "$primary" ]]; then
      role="--listen $addr:$port"
    else
      role="--primary $addr:$port --sync-interval 1"
    fi
    rm -f "$(noderun "$n")/acctd.sock"
    # shellcheck disable=SC2086,SC2016  # role is two words; $0/$@ are the node shell's
    "$ACCT_CLUSTER" exec "$n" sh -c '"$0" "$@" >/var/lib/acct/acctd.log 2>&1 &
echo $! >/var/lib/acct/acctd.pid' "$acctd" --refine-interval 0 \
      --munge-socket "$ACCT_CLUSTER_DIR/munge/munge.socket" $role || return 1
  done
  for n in "$@"; do
    wait_until 30 test -S "$(noderun "$n")/acctd.sock" || return 1
  done
}

acctd_cluster_stop() {
  local n pid i
  for n in "$@"; do
    pid=$(cat "$(nodevar "$n")/acctd.pid" 2>/dev/null) || continue
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.1; done
  done
}

rules_version() { sed -n 's/^  version: \([0-9]*\)$/\1/p' "$1" 2>/dev/null | head -n1; }

# pmix_step OUT ERR COMMAND...: COMMAND's exit status. One retry, only when
# slurmstepd's PMIx plugin rejected another step daemon's direct connection
# because munge refused its credential ("Unauthorized credential" and
# "_direct_conn_establish" in ERR): a race inside slurmstepd that kills the
# step in MPI_Init before any MPI call of the program returns (seen once in a
# loaded CI run; also reported on real Slurm 22.05 clusters), not something
# ACCT does. Any other failure is returned as it is.
pmix_step() {
  local out=$1 err=$2 rc try
  shift 2
  for try in 1 2; do
    "$@" >"$out" 2>"$err"
    rc=$?
    ((rc != 0 && try == 1)) && grep -q "Unauthorized credential" "$err" &&
      grep -q "_direct_conn_establish" "$err" || return "$rc"
    echo "note - $(basename "$out" .out): slurmstepd's PMIx direct connection refused by munge; run again once"
    cp "$err" "$err.1"
  done
}
