#!/usr/bin/env bash
# tools/perf/acct-ab as acct-vs-best -i runs it (docs/performance.md, section
# 12): -R alternates blocks of what the rules decide and of ACCT's native
# method inside one job; -b puts a barrier before every call; -T sizes the
# blocks. Checks the printed table and, through ACCT_REPORT, that both sides
# ran: the rules' chain and native. -o writes every round, and
# tools/perf/acct-ab-pool pools such files (acct-vs-tuned -j). Usage errors
# exit 2 before MPI_Init.
# usage: acct_ab.sh ACCT_AB LIBACCT MPIEXEC ARGS...
set -u
ab=$1 lib=$2 mpiexec=$3
shift 3
args=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cat >"$work/rules.yaml" <<'R'
acct_rules: 1
provenance: {partition: test, interconnect: loopback, version: 1, source: manual,
             created: "2026-11-22T21:00:00Z"}
collectives:
  bcast:
    - {comm_size: [2, max], bytes: [0, max], algorithm: chain, fanout: 1}
R
# the ASan runtime must come first in a sanitizer build (ACCT_TEST_PRELOAD)
preload=$lib
[ -n "${ACCT_TEST_PRELOAD:-}" ] && preload="$ACCT_TEST_PRELOAD:$lib"

timeout 120 "$mpiexec" -x LD_PRELOAD="$preload" -x ACCT_RULES="$work/rules.yaml" \
    -x ACCT_REPORT="$work/report.yaml" ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${args[@]}" -np 4 \
    "$ab" -c bcast -R -b -m 8,4K -r 3 -n 2 -T 0.002 -o "$work/rounds.tsv" >"$work/out" 2>"$work/err" ||
    bad "acct-ab -R -b exited $? ($(tail -n 2 "$work/err"))"
cat "$work/out"
# collective bytes native_us acct_us nat/acct p25-p75 calls
for b in 8 4096; do
    line=$(awk -v b="$b" '$1 == "bcast" && $2 == b' "$work/out")
    [ -n "$line" ] || { bad "no line for $b bytes"; continue; }
    read -r _ _ nat acc ratio range calls <<<"$line"
    awk -v n="$nat" -v a="$acc" -v r="$ratio" 'BEGIN { exit !(n > 0 && a > 0 && r > 0) }' ||
        bad "$b bytes: times and ratio must be positive: $line"
    [[ $range =~ ^[0-9.]+-[0-9.]+$ ]] || bad "$b bytes: p25-p75 '$range'"
    [[ $calls =~ ^[0-9]+$ ]] && ((calls >= 2)) || bad "$b bytes: calls per block '$calls' (-n 2)"
done
count() { sed -n "s/^  - {collective: bcast, algorithm: $1, calls: \([0-9]*\),.*/\1/p" "$work/report.yaml"; }
# 2 sizes x 3 rounds x (warm-up + >= 2 calls) on each side
c=$(count chain) n=$(count native)
[[ ${c:-0} -ge 18 ]] || bad "the rules' side (chain) ran ${c:-0} calls, want >= 18"
[[ ${n:-0} -ge 18 ]] || bad "the native side ran ${n:-0} calls, want >= 18"

# -o: one line per size and round; pooling two copies as two jobs gives the
# job's own median ratio (the same rounds twice) and 2 jobs
pool=$(cd "$(dirname "$0")/../.." && pwd)/tools/perf/acct-ab-pool
rounds=$(awk -F'\t' 'NF == 5 && $1 == "bcast" && ($2 == 8 || $2 == 4096) && $4 > 0 && $5 > 0' \
    "$work/rounds.tsv" 2>/dev/null | wc -l)
[ "$rounds" = 6 ] || bad "-o: $rounds well-formed rounds in rounds.tsv, want 2 sizes x 3"
cp "$work/rounds.tsv" "$work/rounds2.tsv"
python3 "$pool" --label rules "$work/rounds.tsv" "$work/rounds2.tsv" >"$work/pool" 2>&1 ||
    bad "acct-ab-pool exited $?: $(cat "$work/pool")"
for b in 8 4096; do
    own=$(awk -v b="$b" '$1 == "bcast" && $2 == b { print $5 }' "$work/out")
    read -r _ label _ _ _ ratio _ jobs n <<<"$(awk -v b="$b" '$1 == "bcast" && $3 == b' "$work/pool")"
    [ "${label:-}" = rules ] && [ "${n:-}" = 2 ] && [ "${jobs:-}" = "$own-$own" ] &&
        [ "${ratio:-}" = "$own" ] ||
        bad "acct-ab-pool, $b bytes: want ratio $own, jobs $own-$own, 2 jobs: $(cat "$work/pool")"
done
# --format ab: acct-ab's own table (acct-vs-best -i -j reads it), the rounds in the last column
python3 "$pool" --format ab "$work/rounds.tsv" "$work/rounds2.tsv" >"$work/poolab" 2>&1 ||
    bad "acct-ab-pool --format ab exited $?: $(cat "$work/poolab")"
for b in 8 4096; do
    own=$(awk -v b="$b" '$1 == "bcast" && $2 == b { print $5 }' "$work/out")
    read -r _ _ _ _ ratio _ n <<<"$(awk -v b="$b" '$1 == "bcast" && $2 == b' "$work/poolab")"
    [ "${ratio:-}" = "$own" ] && [ "${n:-}" = 6 ] ||
        bad "acct-ab-pool --format ab, $b bytes: want ratio $own over 6 rounds: $(cat "$work/poolab")"
done
printf 'bcast\t8\t0\t1.5\n' >"$work/short.tsv"
python3 "$pool" "$work/short.tsv" >/dev/null 2>"$work/perr"
rc=$?
[ $rc = 2 ] && grep -q "short.tsv:1: expected" "$work/perr" ||
    bad "acct-ab-pool on a short line: exit $rc, '$(cat "$work/perr")' (want 2 and file:line)"

# -g: two of ACCT's methods against each other (acct-retune-pair), -a: the
# average over ranks; both methods ran, native at most once (acct-ab's own
# set-up broadcast, before any forcing)
timeout 120 "$mpiexec" -x LD_PRELOAD="$preload" -x ACCT_REPORT="$work/report2.yaml" \
    ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${args[@]}" -np 4 \
    "$ab" -c bcast -f bcast=binomial -g bcast=linear -b -a -m 4K -r 3 -n 2 >"$work/out2" 2>"$work/err2" ||
    bad "acct-ab -f -g -a exited $? ($(tail -n 2 "$work/err2"))"
count2() { sed -n "s/^  - {collective: bcast, algorithm: $1, calls: \([0-9]*\),.*/\1/p" "$work/report2.yaml"; }
b2=$(count2 binomial) l2=$(count2 linear) n2=$(count2 native)
[[ ${b2:-0} -ge 9 && ${l2:-0} -ge 9 && ${n2:-0} -le 1 ]] ||
    bad "-g: binomial ran ${b2:-0}, linear ${l2:-0} calls (want >= 9 each), native ${n2:-0} (want <= 1)"
awk '$1 == "bcast" && $2 == 4096 && $3 > 0 && $4 > 0 { ok = 1 } END { exit !ok }' "$work/out2" ||
    bad "-g: no row for 4096 bytes: $(cat "$work/out2")"

# usage errors: exit 2, before MPI_Init (no launcher needed)
for a in "-c bcast" "-c bcast -R -f bcast=chain" "-c nosuch -R" "-c bcast -R -T 100" \
    "-c bcast -f bcast=chain -g bcast=$(printf 'x%.0s' {1..80})"; do
    # shellcheck disable=SC2086  # the words of a
    "$ab" $a >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || bad "acct-ab $a: exit $rc, want 2"
done
[ $fail = 0 ] && echo "acct_ab.sh: ok" || echo "acct_ab.sh: FAILED"
exit $fail
