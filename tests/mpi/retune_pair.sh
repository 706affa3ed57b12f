#!/usr/bin/env bash
# tools/perf/acct-decide and tools/perf/acct-retune-pair (docs/performance.md,
# "Two retunes"): acct-decide resolves a rules file's decision as the
# runtime does (segments, fan-outs, SACK reordering, layout-bound rules,
# errors named with file:line); acct-retune-pair measures only the cells
# where two rules files differ, one acct-ab job each (A's pick against B's,
# both ran: ACCT_REPORT), and counts the cells.
# usage: retune_pair.sh SRCDIR ACCT_DECIDE ACCT_AB LIBACCT MPIEXEC ARGS...
set -u
src=$1 decide=$2 ab=$3 lib=$4 mpiexec=$5
shift 5
args=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rules() { # FILE BCAST_RULE
    cat >"$1" <<R
acct_rules: 2
provenance: {partition: test, interconnect: loopback, version: 1, source: manual,
             created: "2026-11-27T08:00:00Z"}
collectives:
  bcast:
    - {comm_size: [2, max], bytes: [0, 4K], algorithm: binomial}
    - $2
  allreduce:
    - {comm_size: [2, 4], bytes: [0, max], ranks_per_node: [2, 2], algorithm: ring}
R
}
rules "$work/a.yaml" "{comm_size: [2, max], bytes: [4097, max], algorithm: knomial, segment: 8K, fanout: 4, reorder: true}"
rules "$work/b.yaml" "{comm_size: [2, max], bytes: [4097, max], algorithm: linear}"

want() { # EXPECTED ARGS...: acct-decide's line
    local exp=$1 got
    shift
    got=$("$decide" "$@" 2>&1)
    [ "$got" = "$exp" ] || bad "acct-decide $*: '$got', want '$exp'"
}
want "bcast=binomial" "$work/a.yaml" bcast 2 1K
want "bcast=knomial:8K:4:reorder" "$work/a.yaml" bcast 2 64K
want "bcast=linear" "$work/b.yaml" bcast 2 64K
want "allreduce=native" "$work/a.yaml" allreduce 4 1M
want "allreduce=ring" "$work/a.yaml" allreduce 4 1M 2
want "allreduce=native" "$work/a.yaml" allreduce 4 1M 1
want "allreduce=native" "$work/a.yaml" allreduce 8 1M 2
want "reduce=native" "$work/a.yaml" reduce 2 0
printf 'acct_rules: 2\nprovenance: {partition: t}\n' >"$work/bad.yaml"
"$decide" "$work/bad.yaml" bcast 2 1K >/dev/null 2>"$work/derr"
rc=$?
[ $rc = 2 ] && grep -q "bad.yaml:2" "$work/derr" ||
    bad "acct-decide on a bad file: exit $rc, '$(cat "$work/derr")' (want 2 and bad.yaml:2)"
for a in "" "$work/a.yaml nosuch 2 1K" "$work/a.yaml bcast 0 1K" "$work/a.yaml bcast 2 1X" \
    "$work/a.yaml bcast 2 1K 3"; do
    # shellcheck disable=SC2086  # the words of a
    "$decide" $a >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || bad "acct-decide $a: exit $rc, want 2"
done

# the pair: bcast differs at 64K (knomial vs linear), is the same at 1K;
# allreduce is the same in both
preload=$lib
[ -n "${ACCT_TEST_PRELOAD:-}" ] && preload="$ACCT_TEST_PRELOAD:$lib"
pair=$src/tools/perf/acct-retune-pair
timeout 240 python3 "$pair" --bin "$(dirname "$decide")" --comm-size 2 \
    --collectives bcast,allreduce --sizes 1K,64K --rounds 3 --iters 2 --block-seconds 0.002 -- \
    "$mpiexec" -x LD_PRELOAD="$preload" -x ACCT_REPORT="$work/report.yaml" \
    ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${args[@]}" -np 2 "$work/a.yaml" "$work/b.yaml" \
    >"$work/out" 2>"$work/err" || bad "acct-retune-pair exited $?: $(tail -n 3 "$work/err" "$work/out")"
cat "$work/out"
grep -q "^# 4 cells: 3 the same pick, 1 different: " "$work/out" ||
    bad "acct-retune-pair: want 4 cells, 1 different: $(tail -n 1 "$work/out")"
row=$(awk '$1 == "bcast" && $2 == 65536' "$work/out")
read -r _ _ pa pb view bus aus ratio _ <<<"$row"
[ "${pa:-}" = "knomial:8K:4:reorder" ] && [ "${pb:-}" = linear ] && [ "${view:-}" = avg ] &&
    awk -v x="${bus:-0}" -v y="${aus:-0}" -v r="${ratio:-0}" 'BEGIN { exit !(x > 0 && y > 0 && r > 0) }' ||
    bad "acct-retune-pair's bcast 64K row: '$row'"
count() { sed -n "s/^  - {collective: bcast, algorithm: $1, calls: \([0-9]*\),.*/\1/p" "$work/report.yaml"; }
[[ $(count knomial) -ge 6 && $(count linear) -ge 6 ]] ||
    bad "both picks must run: knomial $(count knomial), linear $(count linear) calls"
python3 "$pair" -- "$work/a.yaml" >/dev/null 2>&1
[ $? = 2 ] || bad "acct-retune-pair without a launcher: want exit 2"
python3 "$pair" --collectives bcast,nosuch -- true "$work/a.yaml" "$work/b.yaml" >/dev/null 2>"$work/perr"
[ $? = 2 ] && grep -q nosuch "$work/perr" || bad "acct-retune-pair --collectives nosuch: want exit 2"
[ $fail = 0 ] && echo "retune_pair.sh: ok" || echo "retune_pair.sh: FAILED"
exit $fail
