# shellcheck shell=bash
# testlib.sh — helpers shared by the cluster test scripts (sourced, bash).
#
#   check DESCRIPTION COMMAND...   run COMMAND, print "ok   - ..." or "FAIL - ..."
#   finish                         print the tally, return non-zero on any FAIL
#   alive PID                      PID exists and is not a zombie
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

# Print a file with a header (for failure diagnostics).
show() {
  echo "---- $1"
  if [[ -f $1 ]]; then head -n "${2:-40}" "$1"; fi
}
