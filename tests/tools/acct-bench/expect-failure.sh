#!/usr/bin/env bash
# Bad-argument check for acct-bench (run by ctest).
#   expect-failure.sh REGEX -- COMMAND...
# COMMAND must exit non-zero and print exactly one "acct-bench: error:" line
# (rank 0 speaks for all ranks), which must match the extended regex REGEX.
set -u

regex=$1
shift
[ "${1:-}" = "--" ] && shift

fail() { echo "expect-failure: $*" >&2; exit 1; }

out=$(mktemp) || fail "mktemp failed"
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -ne 0 ] || fail "command succeeded, expected a failure"
n=$(grep -c 'acct-bench: error:' "$out")
[ "$n" -eq 1 ] || fail "expected one error line, found $n"
grep 'acct-bench: error:' "$out" | grep -qE -e "$regex" || fail "error line does not match: $regex"
echo "expect-failure: ok (exit $rc)"
