#!/usr/bin/env bash
# ctest acct-plot.* (label unit): run tools/acct-plot on small fixtures and
# check that it writes valid PNG files (signature, IHDR with a sane size,
# IEND), one decision map and one penalty map per collective, and that bad
# input fails with exit status 1 or 2 and one line on stderr.
#
# usage: test-acct-plot.sh CASE PLOT BENCH RESULT RULES
#   CASE result | rules | compare | bad
#        whatif (BENCH is acctctl, RESULT a model file: the what-if grid of
#        acctctl whatif --grid drawn by acct-plot --whatif)
# Exit 77 (ctest SKIP) when no Python 3 with matplotlib is found.
set -u
case_=$1 plot=$2 bench=$3 result=$4 rules=$5
py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import matplotlib' 2>/dev/null; then
        py=$p
        break
    fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with matplotlib (scripts/install-deps installs python3-matplotlib)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "test-acct-plot.sh $case_: FAIL: $*"; exit 1; }
png_ok() { # FILE: a complete PNG, 200..4000 pixels each way
    "$py" - "$1" <<'PY' || fail "$1 is not a valid PNG"
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "signature"
pos, chunks = 8, []
while pos < len(d):
    n, = struct.unpack(">I", d[pos:pos + 4])
    kind, body = d[pos + 4:pos + 8], d[pos + 8:pos + 8 + n]
    crc, = struct.unpack(">I", d[pos + 8 + n:pos + 12 + n])
    assert zlib.crc32(kind + body) & 0xffffffff == crc, "crc of %r" % kind
    chunks.append(kind)
    if kind == b"IHDR":
        w, h = struct.unpack(">II", body[:8])
        assert 200 <= w <= 4000 and 200 <= h <= 4000, "size %dx%d" % (w, h)
    pos += 12 + n
assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND" and b"IDAT" in chunks, chunks
PY
}
one_error_line() { # STATUS EXPECTED_STATUS STDERR_FILE
    [ "$1" = "$2" ] || fail "exit status $1, expected $2"
    [ "$(grep -c '^acct-plot: ' "$3")" = 1 ] || { cat "$3"; fail "not one acct-plot: error line"; }
}
case $case_ in
result)
    "$py" "$plot" --bench "$bench" --depth 2 --title fixture --prefix f- --outdir "$work" \
        "$result" >"$work/out" || fail "acct-plot failed"
    cat "$work/out"
    n=0
    for coll in bcast allreduce; do
        for kind in decision penalty; do
            f=$work/f-$coll-$kind.png
            [ -s "$f" ] || fail "$f not written"
            png_ok "$f"
            n=$((n + 1))
        done
    done
    [ "$(find "$work" -name "*.png" | wc -l)" = "$n" ] || fail "PNG files of collectives that are not in the result"
    grep -q 'f-bcast-penalty.png: .* depth 2: mean ' "$work/out" || fail "no penalty summary"
    ;;
rules)
    "$py" "$plot" --rules "$rules" --comm-sizes 2,3,4,5,6,7,8 --sizes 8:1M:4 --outdir "$work" \
        >"$work/out" || fail "acct-plot --rules failed"
    for coll in bcast reduce; do png_ok "$work/$coll-decision.png"; done
    [ ! -e "$work/bcast-penalty.png" ] || fail "a penalty map from a rules file"
    ;;
compare)
    # the fixture against itself: every cell agrees, ratio 1.00, no PNG
    (cd "$work" && "$py" "$plot" --bench "$bench" --compare "$result" "$result") >"$work/out" ||
        fail "acct-plot --compare failed"
    cat "$work/out"
    grep -q '^bcast: 10 of 10 cells choose the same method$' "$work/out" || fail "bcast summary"
    grep -q '^allreduce: 10 of 10 cells choose the same method$' "$work/out" ||
        fail "allreduce summary"
    [ "$(grep -c '^| 8 | .* | 1.00 |$' "$work/out")" = 20 ] || fail "not 20 rows with ratio 1.00"
    [ -z "$(ls "$work"/*.png 2>/dev/null)" ] || fail "PNG written by --compare"
    ;;
bad)
    "$py" "$plot" --bench "$bench" --outdir "$work" "$work/missing.yaml" 2>"$work/err"
    one_error_line $? 1 "$work/err"
    "$py" "$plot" --bench "$bench" --colls bcast,bogus --outdir "$work" "$result" 2>"$work/err"
    one_error_line $? 2 "$work/err"
    "$py" "$plot" --bench "$bench" --colls alltoall --outdir "$work" "$result" 2>"$work/err"
    one_error_line $? 1 "$work/err"
    printf 'acct_rules: 1\nprovenance: {}\n' >"$work/r.yaml"
    "$py" "$plot" --rules "$work/r.yaml" --outdir "$work" 2>"$work/err"
    one_error_line $? 1 "$work/err"
    [ -z "$(ls "$work"/*.png 2>/dev/null)" ] || fail "PNG written for bad input"
    ;;
whatif)
    for coll in bcast allreduce; do
        "$bench" whatif "$coll" --grid --max-comm-size 1024 --max-bytes 1M --rules "$rules" \
            --model "$result" --format tsv >>"$work/grid.tsv.$coll" || fail "acctctl whatif --grid"
    done
    { cat "$work/grid.tsv.bcast"; tail -n +2 "$work/grid.tsv.allreduce"; } >"$work/grid.tsv"
    [ "$(wc -l <"$work/grid.tsv")" = $((1 + 2 * 10 * 21)) ] || fail "grid rows: $(wc -l <"$work/grid.tsv")"
    "$py" "$plot" --whatif "$work/grid.tsv" --title eth --prefix w- --outdir "$work" \
        >"$work/out" || fail "acct-plot --whatif failed"
    cat "$work/out"
    for coll in bcast allreduce; do png_ok "$work/w-$coll-model-penalty.png"; done
    printf 'a\tb\n1\t2\n' >"$work/bad.tsv"
    "$py" "$plot" --whatif "$work/bad.tsv" --outdir "$work" 2>"$work/err"
    one_error_line $? 1 "$work/err"
    ;;
*) fail "unknown case" ;;
esac
echo "test-acct-plot.sh $case_: ok"
