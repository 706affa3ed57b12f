#!/usr/bin/env bash
# Run an MPI command with libacct preloaded and ACCT_FORCE set; afterwards
# show ACCT_REPORT, and fail unless ACCT was active and ran an algorithm.
# usage: run_with_acct.sh LIBACCT_SO FORCE MPIEXEC ARGS...
set -u
lib=$1 force=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
preload="${ACCT_TEST_PRELOAD:+$ACCT_TEST_PRELOAD }$lib"
mpiexec=$1
shift
timeout 280 "$mpiexec" -x LD_PRELOAD="$preload" -x ACCT_FORCE="$force" \
    -x ACCT_REPORT="$work/report.yaml" ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "$@"
rc=$?
cat "$work/report.yaml" 2>/dev/null
grep -q '^active: true$' "$work/report.yaml" 2>/dev/null || { echo "ACCT was not active"; exit 1; }
[ "$(grep -c 'algorithm: native' "$work/report.yaml")" -lt "$(grep -c 'algorithm:' "$work/report.yaml")" ] ||
    { echo "no ACCT algorithm ran"; exit 1; }
exit $rc
