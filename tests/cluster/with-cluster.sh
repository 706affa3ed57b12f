#!/usr/bin/env bash
# with-cluster.sh COMMAND [ARGS...]
#
# Bring the emulated cluster up (tests/cluster/acct-cluster up), run COMMAND
# with the cluster's environment (SLURM_CONF, ACCT_CLUSTER_DIR,
# ACCT_CLUSTER_SHARED, and ACCT_CLUSTER = path of acct-cluster), and tear the
# cluster down again whatever happens (EXIT trap; INT/TERM end the run through
# it).  On failure the cluster status and daemon log tails are printed first.
# Exit status: COMMAND's, 77 (ctest SKIP) when not root or namespaces are
# unavailable, 1 when the cluster cannot be brought up or torn down.
#
# ACCT_CLUSTER_KEEP=1 leaves the cluster up afterwards (debugging).
# Two with-cluster.sh runs on one machine take turns ($state_dir.lock,
# waiting at most ACCT_CLUSTER_LOCK_WAIT seconds, 900 by default).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export ACCT_CLUSTER=$here/acct-cluster

if (($# == 0)); then
  echo "usage: with-cluster.sh COMMAND [ARGS...]" >&2
  exit 2
fi
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"
skip_without_cluster
if ! unshare --net true 2>/dev/null; then
  echo "SKIP: cannot create network namespaces here"
  exit 77
fi

state_dir=${ACCT_CLUSTER_DIR:-/run/acct-cluster}

# One cluster per machine: every namespace, interface and daemon has a fixed
# name. ctest's RESOURCE_LOCK serialises the tests of one ctest run; this
# lock serialises everything else (two build trees, a developer's run). The
# holder's pid is written into the file; the wait is bounded.
cluster_lock with-cluster

cleanup() {
  local rc=$? f
  trap - EXIT INT TERM
  if ((rc != 0)) && [[ -d $state_dir ]]; then
    echo "==== with-cluster: command failed (status $rc); cluster state follows"
    "$ACCT_CLUSTER" status || true
    for f in "$state_dir"/log/*.log; do
      [[ -f $f ]] || continue
      echo "---- last lines of $f"
      tail -n 25 "$f"
    done
  fi
  if [[ ${ACCT_CLUSTER_KEEP:-0} == 1 ]]; then
    echo "with-cluster: ACCT_CLUSTER_KEEP=1, leaving the cluster up ($state_dir)"
  elif ! "$ACCT_CLUSTER" down; then
    echo "with-cluster: ERROR: teardown failed"
    ((rc != 0)) || rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$ACCT_CLUSTER" up
eval "$("$ACCT_CLUSTER" env)"
"$@"
