#!/usr/bin/env bash
# Run tool_force (linked to libacct.so) and check ACCT_REPORT's call counts.
# usage: tool_force.sh PROGRAM MPIEXEC ARGS...
set -u
prog=$1 mpiexec=$2
shift 2
args=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
# the ASan runtime must come first in a sanitizer build (ACCT_TEST_PRELOAD)
pre=()
[ -n "${ACCT_TEST_PRELOAD:-}" ] && pre=(-x LD_PRELOAD="$ACCT_TEST_PRELOAD")

timeout 120 "$mpiexec" "${pre[@]}" -x ACCT_REPORT="$work/report.yaml" \
    ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${args[@]}" -np 4 "$prog" || fail=1
cat "$work/report.yaml" 2>/dev/null
count() { # collective algorithm -> calls
    sed -n "s/^  - {collective: $1, algorithm: $2, calls: \([0-9]*\),.*/\1/p" "$work/report.yaml"
}
for want in "bcast chain 3" "bcast binomial 3" "bcast native 4"; do
    read -r c a n <<<"$want"
    got=$(count "$c" "$a")
    [ "$got" = "$n" ] || { echo "FAIL: $c $a calls: got '${got}', want $n"; fail=1; }
done
# the same calls per (method, communicator size, segment bytes)
for want in "chain 4 0 3" "binomial 4 1024 3" "native 4 0 4"; do
    read -r a p g n <<<"$want"
    got=$(sed -n "s/^  - {collective: bcast, algorithm: $a, comm_size: $p, segment: $g, calls: \([0-9]*\),.*/\1/p" \
          "$work/report.yaml")
    [ "$got" = "$n" ] || { echo "FAIL: detail bcast $a P=$p segment=$g: got '${got}', want $n"; fail=1; }
done

# ACCT off: every tool call fails, the collectives still work.
timeout 120 "$mpiexec" "${pre[@]}" -x ACCT_DISABLE=1 ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${args[@]}" \
    -np 2 "$prog" inactive || fail=1
[ $fail = 0 ] && echo "tool_force.sh: ok" || echo "tool_force.sh: FAILED"
exit $fail
