#!/usr/bin/env bash
# acct-pair-overlap-fit.py on made-up acct-hier-probe pair output: a pair
# whose one way takes 0.5 ms + 80 ns/B and whose both ways add
# (D - 1) 80 ns/B (m - c) beyond c = 100000 bytes with D = 1.5; the fit
# gives D and c back, the model/measured column is 1 at every size, a
# streamed shape and the sleep patterns are ignored; too few sizes: exit 2.
set -u
root=$1 fail=0
fit=$root/tools/perf/acct-pair-overlap-fit.py
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
{
    echo "# pair: ranks 0 (n1) and 1 (n2) of 2, 5 repetitions, patterns interleaved"
    printf 'shape\tpattern\tmedian_ms\tleast_ms\tmost_ms\tratio\n'
    for m in 65536 262144 1048576 4194304; do
        awk -v m=$m 'BEGIN {
            one = 0.5 + 80e-6 * m; x = m > 100000 ? 0.5 * 80e-6 * (m - 100000) : 0
            printf "%dx1\tone way, others spin\t%.6f\t%.6f\t%.6f\t1.000\n", m, one, one, one
            printf "%dx1\tboth ways, others spin\t%.6f\t%.6f\t%.6f\t%.3f\n", m, one + x, one + x, one + x, (one + x) / one
            printf "%dx1\tboth ways, others sleep\t9999\t9999\t9999\t9.9\n", m }'
    done
    printf '1048576x4\tboth ways, others spin\t1\t1\t1\t0.01\n'
} >"$t/pair.txt"
out=$(python3 "$fit" "$t/pair.txt") || { echo "FAIL: exit $?"; fail=1; }
grep -qE '^# fit over 3 sizes >= 262144 bytes: G 80\.00 ns/B one way, D = 1\.500, c = 100000 bytes' <<<"$out" ||
    { echo "FAIL: the fit"; echo "$out"; fail=1; }
[ "$(awk -F'\t' '$1 ~ /^[0-9]+$/ && $6 != "1.000"' <<<"$out" | wc -l)" = 0 ] &&
    [ "$(awk -F'\t' '$1 ~ /^[0-9]+$/' <<<"$out" | wc -l)" = 4 ] ||
    { echo "FAIL: model/measured not 1 at the 4 sizes"; echo "$out"; fail=1; }
grep -v '^4194304x1\|^1048576x1' "$t/pair.txt" >"$t/few.txt"
python3 "$fit" "$t/few.txt" >/dev/null 2>"$t/err"
[ $? = 2 ] && grep -q 'fewer than two' "$t/err" || { echo "FAIL: too few sizes accepted"; fail=1; }
exit $fail
