#!/usr/bin/env bash
# acct-vs-best-report on the committed raw data of docs/data/full-table:
# one interleaved run (acct-ab tables) and one job-alternating run
# (acct-bench TSVs) must give exactly the committed tables; usage errors
# exit 2.
# usage: test-vs-best-report.sh REPO
set -u
repo=$1
report=$repo/tools/perf/acct-vs-best-report
data=$repo/docs/data/full-table
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for run in latency-interleaved job-alternating; do
    mkdir "$work/$run"
    tar -xzf "$data/$run-raw.tar.gz" -C "$work/$run" || { echo "FAIL: $run: cannot unpack"; fail=1; continue; }
    if python3 "$report" "$work/$run" md >"$work/$run.md" 2>&1 && cmp -s "$work/$run.md" "$data/$run-table.md"; then
        echo "ok: $run: the committed table ($(wc -l <"$work/$run.md") lines)"
    else
        echo "FAIL: $run: the table differs from $data/$run-table.md:"
        diff "$data/$run-table.md" "$work/$run.md" | head -20
        fail=1
    fi
done
# text format: the summary line of bcast (5 sizes in 64K-1M)
python3 "$report" "$work/latency-interleaved" >"$work/text" 2>&1 &&
    grep -q "^bcast  *[0-9.]*x (5)" "$work/text" ||
    { echo "FAIL: text format"; head -5 "$work/text"; fail=1; }
for args in "" "$work/latency-interleaved html" "a b c"; do
    # shellcheck disable=SC2086  # the words of args
    python3 "$report" $args >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || { echo "FAIL: acct-vs-best-report $args: exit $rc, want 2"; fail=1; }
done
[ $fail = 0 ] && echo "test-vs-best-report: ok" || echo "test-vs-best-report: FAILED"
exit $fail
