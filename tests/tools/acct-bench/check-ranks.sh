#!/usr/bin/env bash
# Check acct-bench --method osu / imb output (run by ctest).
#   check-ranks.sh ROWS FILE [AVG MIN MAX TOL] -- COMMAND...
# Runs COMMAND, which must exit 0 and write FILE (TSV): '#' lines (one of
# them the "# method: osu" or "imb" line), then exactly the over-ranks
# column header, then ROWS rows of 8 well-formed fields with
# min <= avg <= max. With AVG MIN MAX TOL (microseconds): every row's
# avg_us, min_us, max_us lie in [X, X + TOL].
set -u

rows=$1 file=$2
shift 2
want=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do want+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift

fail() { echo "check-ranks: $*" >&2; exit 1; }
rm -f "$file"
"$@"
rc=$?
[ "$rc" -eq 0 ] || fail "command exited with $rc"
[ -s "$file" ] || fail "no output file $file"
grep -qE '^# method: (osu|imb): ' "$file" || fail "no '# method: osu|imb' line in $file"
header=$'label\tcollective\tcomm_size\tbytes\titerations\tavg_us\tmin_us\tmax_us'
awk -v FS='\t' -v header="$header" -v want="$rows" -v a="${want[0]:-}" -v lo="${want[1]:-}" \
    -v hi="${want[2]:-}" -v tol="${want[3]:-}" '
    /^#/ { next }
    !seen { if ($0 != header) bad = bad "bad header: " $0 "\n"; seen = 1; next }
    {
        n++
        if (NF != 8) { bad = bad "row " n " has " NF " fields: " $0 "\n"; next }
        for (i = 3; i <= 5; i++)
            if ($i !~ /^[0-9]+$/) bad = bad "row " n " field " i " is not an integer: " $i "\n"
        for (i = 6; i <= 8; i++)
            if ($i !~ /^[0-9]+\.[0-9]+$/) bad = bad "row " n " field " i " is not a time: " $i "\n"
        if (!($7 <= $6 && $6 <= $8)) bad = bad "row " n ": min <= avg <= max does not hold\n"
        if (tol != "") {
            split(a " " lo " " hi, x, " ")
            for (i = 6; i <= 8; i++)
                if ($i < x[i - 5] || $i > x[i - 5] + tol)
                    bad = bad "row " n " " (i == 6 ? "avg" : i == 7 ? "min" : "max") "_us " $i \
                          " is not in [" x[i - 5] ", " x[i - 5] + tol "]\n"
        }
    }
    END {
        if (!seen) bad = bad "no header row\n"
        if (n != want) bad = bad "expected " want " rows, found " n "\n"
        printf "%s", bad
        exit (bad != "")
    }' "$file" || fail "bad output in $file"
echo "check-ranks: ok ($rows rows in $file)"
