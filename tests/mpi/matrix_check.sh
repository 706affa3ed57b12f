#!/usr/bin/env bash
# One case of the correctness matrix: force COLL=ALG[:SEG] through ACCT_FORCE
# and run acct_matrix on NP ranks; check its verdict and, from ACCT_REPORT,
# that the forced algorithm really ran (and that every call it did not run
# went to native, never elsewhere).
# Calls whose shape the algorithm's restrictions exclude run its fallback
# chain (FALLBACKS: comma-separated, "-" for none) or native.
# Reorder mode (ACCT_MATRIX_REORDER=MAX_DELAY_US in the environment): the
# method is forced with SACK reordering (ALG:SEG::reorder), every rank sleeps
# a seeded random time of up to MAX_DELAY_US before each call
# (ACCT_MATRIX_DELAY_US, see matrix.c), and the SACK branch must have run
# (its debug line with ACCT_VERBOSE=2, and ACCT_REPORT's reordered count;
# without reorder mode that count must be 0).
# Node-aware algorithms (ACCT_MATRIX_LAYOUT=COUNTS in the environment) run
# on that pretended placement (ACCT_LAYOUT) and must report a multi-node
# locality for the NP ranks.
# Non-blocking mode (ACCT_MATRIX_NB=wait|test|wait,test in the environment:
# the completion modes, in one job): the program calls MPI_I<COLL>
# (matrix.c), the report's rows are i<COLL> (both modes counted), and
# a barrier method is forced too (each sub-communicator's first barrier
# gives it ACCT's private duplicate).
# usage: matrix_check.sh NP COLL ALG SEG FALLBACKS LIBACCT_SO MATRIX MPIEXEC [FLAGS...]
set -u
np=$1 coll=$2 alg=$3 seg=$4 fallbacks=$5 lib=$6 prog=$7 mpiexec=$8
shift 8
flags=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
preload="${ACCT_TEST_PRELOAD:+$ACCT_TEST_PRELOAD }$lib"
force="$coll=$alg"
[ "$seg" != 0 ] && force="$force:$seg"
reorder=${ACCT_MATRIX_REORDER:-}
extra=()
if [ -n "$reorder" ]; then
    [ "$seg" != 0 ] || force="$force:"
    force="$force::reorder"
    extra=(-x ACCT_MATRIX_DELAY_US="$reorder" -x ACCT_MATRIX_SEED="${ACCT_MATRIX_SEED:-1}" -x ACCT_VERBOSE=2)
fi

# Node-aware algorithms (ACCT_MATRIX_LAYOUT in the environment): run on that
# pretended placement (ACCT_LAYOUT), and the runtime must have used it.
layout=${ACCT_MATRIX_LAYOUT:-}
if [ -n "$layout" ]; then
    extra+=(-x ACCT_LAYOUT="$layout" -x ACCT_VERBOSE=2)
fi

rcoll=$coll
if [ -n "${ACCT_MATRIX_NB:-}" ]; then
    rcoll=i$coll
    if [ "$coll" != barrier ]; then # node-aware methods: a barrier that finds the layout
        if [ -n "${ACCT_MATRIX_LAYOUT:-}" ]; then force="$force,barrier=hier_dissemination"
        else force="$force,barrier=dissemination"; fi
    fi
    extra+=(-x ACCT_MATRIX_NB="$ACCT_MATRIX_NB")
fi

timeout 600 "$mpiexec" "${flags[@]}" -np "$np" \
    -x LD_PRELOAD="$preload" -x ACCT_FORCE="$force" -x ACCT_REPORT="$work/report.yaml" "${extra[@]}" \
    ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "$prog" "$coll" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/out"
fail() { echo "FAIL: $*"; echo "--- stderr"; head -30 "$work/err"; echo "--- report"; cat "$work/report.yaml" 2>/dev/null; exit 1; }
[ $rc -eq 0 ] || fail "acct_matrix exited $rc (124 = timeout: a hang)"
grep -q "^matrix: $coll .* OK$" "$work/out" || fail "no OK verdict"
if [ -n "$layout" ]; then
    grep -q "debug: locality: $np ranks on [0-9]* nodes" "$work/err" ||
        fail "ACCT_LAYOUT=$layout: no multi-node locality line for the $np ranks"
fi
calls=$(sed -n 's/.* calls=\([0-9]*\) .*/\1/p' "$work/out")
count() { sed -n "s/.*{collective: $rcoll, algorithm: $1, calls: \([0-9]*\),.*/\1/p" "$work/report.yaml"; }
ran=$(count "$alg"); native=$(count native)
[ -n "$ran" ] && [ "$ran" -gt 0 ] || fail "the report shows no call run by $alg"
allowed="$alg native"
via=0
if [ "$fallbacks" != - ]; then
    for f in ${fallbacks//,/ }; do
        n=$(count "$f"); via=$((via + ${n:-0})); allowed="$allowed $f"
    done
fi
[ $((ran + via + ${native:-0})) -eq "$calls" ] ||
    fail "$alg ran $ran + fallbacks ($fallbacks) $via + native ${native:-0} != $calls calls"
rows=$(sed -n '/^collectives:/,/^detail/p' "$work/report.yaml" | grep -c "{collective: $rcoll, ")
ok_rows=0
for a in $allowed; do grep -q "{collective: $rcoll, algorithm: $a," "$work/report.yaml" && ok_rows=$((ok_rows + 1)); done
[ "$rows" -le "$ok_rows" ] || fail "calls went to other algorithms than $allowed"
# calls of ALG that ran with SACK reordering, from the report
reordered=$(sed -n "s/.*{collective: $rcoll, algorithm: $alg, calls: [0-9]*, seconds: [0-9.]*, reordered: \([0-9]*\)}.*/\1/p" \
    "$work/report.yaml")
[ -n "$reordered" ] || fail "the report has no reordered count for $alg"
if [ -n "$reorder" ]; then
    grep -q "SACK reordering: first $coll as root" "$work/err" ||
        fail "reorder mode: the SACK branch of $coll did not run (no debug line)"
    [ "$reordered" -gt 0 ] && [ "$reordered" -le "$ran" ] ||
        fail "reorder mode: the report says $reordered of $ran calls of $alg ran reordered"
    echo "ok - reorder mode: $force, entry delays up to $reorder us, SACK branch ran ($reordered of $ran calls reordered)"
else
    [ "$reordered" -eq 0 ] || fail "$reordered calls of $alg ran reordered, none was asked to"
fi
echo "ok - $rcoll/$alg (segment $seg): $ran of $calls calls on rank 0 ran $alg, $via its fallbacks ($fallbacks), the rest native (restrictions)"
echo "1 passed, 0 failed"
