#!/usr/bin/env bash
# One case of the correctness matrix: force COLL=ALG[:SEG] through ACCT_FORCE
# and run acct_matrix on NP ranks; check its verdict and, from ACCT_REPORT,
# that the forced algorithm really ran (and that every call it did not run
# went to native, never elsewhere).
# usage: matrix_check.sh NP COLL ALG SEG LIBACCT_SO MATRIX MPIEXEC [FLAGS...]
set -u
np=$1 coll=$2 alg=$3 seg=$4 lib=$5 prog=$6 mpiexec=$7
shift 7
flags=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
preload="${ACCT_TEST_PRELOAD:+$ACCT_TEST_PRELOAD }$lib"
force="$coll=$alg"
[ "$seg" != 0 ] && force="$force:$seg"

timeout 600 "$mpiexec" "${flags[@]}" -np "$np" \
    -x LD_PRELOAD="$preload" -x ACCT_FORCE="$force" -x ACCT_REPORT="$work/report.yaml" \
    ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "$prog" "$coll" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/out"
fail() { echo "FAIL: $*"; echo "--- stderr"; head -30 "$work/err"; echo "--- report"; cat "$work/report.yaml" 2>/dev/null; exit 1; }
[ $rc -eq 0 ] || fail "acct_matrix exited $rc (124 = timeout: a hang)"
grep -q "^matrix: $coll .* OK$" "$work/out" || fail "no OK verdict"
calls=$(sed -n 's/.* calls=\([0-9]*\) .*/\1/p' "$work/out")
count() { sed -n "s/.*{collective: $coll, algorithm: $1, calls: \([0-9]*\),.*/\1/p" "$work/report.yaml"; }
ran=$(count "$alg"); native=$(count native)
[ -n "$ran" ] && [ "$ran" -gt 0 ] || fail "the report shows no call run by $alg"
[ $((ran + ${native:-0})) -eq "$calls" ] || fail "$alg ran $ran + native ${native:-0} != $calls calls"
others=$(grep -c "{collective: $coll, " "$work/report.yaml")
[ "$others" -le 2 ] || fail "calls went to other algorithms than $alg and native"
echo "ok - $coll/$alg (segment $seg): $ran of $calls calls on rank 0 ran $alg, the rest native (restrictions)"
echo "1 passed, 0 failed"
