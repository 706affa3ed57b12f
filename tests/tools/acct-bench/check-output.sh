#!/usr/bin/env bash
# Smoke check for acct-bench (run by ctest).
#   check-output.sh ROWS FILE [HEADER_REGEX] -- COMMAND...
# Runs COMMAND, which must exit 0 and write FILE (CSV if FILE ends in .csv,
# else TSV): '#' comment lines (one of them matching the extended regex
# HEADER_REGEX, if given), then exactly the expected column header, then ROWS
# rows of 12 well-formed fields. Stdout must hold ROWS rows as well.
set -u

rows=$1 file=$2 header_regex=
shift 2
if [ "${1:-}" != "--" ]; then
    header_regex=$1
    shift
fi
[ "${1:-}" = "--" ] && shift

fail() { echo "check-output: $*" >&2; exit 1; }

sep=$'\t'
case $file in *.csv) sep=',' ;; esac
rm -f "$file"
stdout=$(mktemp) || fail "mktemp failed"
trap 'rm -f "$stdout"' EXIT

"$@" >"$stdout"
rc=$?
cat "$stdout"
[ "$rc" -eq 0 ] || fail "command exited with $rc"
[ -s "$file" ] || fail "no output file $file"

header="label collective comm_size bytes iterations dropped median_us p25_us p75_us min_us max_us mean_us"
header=${header// /$sep}

awk -v FS="$sep" -v header="$header" -v want="$rows" '
    /^#/ { if (seen_header) bad = bad "comment after the header: " $0 "\n"; next }
    !seen_header {
        if ($0 != header) { bad = bad "bad header: " $0 "\n" }
        seen_header = 1; next
    }
    {
        n++
        if (NF != 12) { bad = bad "row " n " has " NF " fields: " $0 "\n"; next }
        if ($1 == "" || $2 == "") bad = bad "row " n ": empty label or collective\n"
        for (i = 3; i <= 6; i++)
            if ($i !~ /^[0-9]+$/) bad = bad "row " n " field " i " is not an integer: " $i "\n"
        for (i = 7; i <= 12; i++)
            if ($i !~ /^[0-9]+\.[0-9]+$/) bad = bad "row " n " field " i " is not a time: " $i "\n"
        if ($5 < 1) bad = bad "row " n ": no iterations\n"
        if ($6 >= $5 && $5 > 0) bad = bad "row " n ": every repetition dropped\n"
        if (!($10 <= $8 && $8 <= $7 && $7 <= $9 && $9 <= $11))
            bad = bad "row " n ": min <= p25 <= median <= p75 <= max does not hold\n"
    }
    END {
        if (!seen_header) bad = bad "no header row\n"
        if (n != want) bad = bad "expected " want " rows, found " n "\n"
        printf "%s", bad
        exit (bad != "")
    }' "$file" || fail "bad output in $file"

if [ -n "$header_regex" ]; then
    grep '^#' "$file" | grep -qE -e "$header_regex" || fail "no '#' line matches $header_regex"
fi

# The stdout copy has the same number of rows (after its own header row).
out_rows=$(grep -v '^#' "$stdout" | tail -n +2 | grep -c .)
[ "$out_rows" -eq "$rows" ] || fail "stdout has $out_rows rows, expected $rows"
echo "check-output: ok ($rows rows in $file)"
