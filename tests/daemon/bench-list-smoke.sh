#!/bin/bash
# A short run of daemon/bench-list-samples.sh (figures printed, no speed
# asserted; docs/performance.md has the full run): 8000 rows over 8
# partitions, 10 jobs per aggregate, so each listing must report its exact
# number of aggregates — the filters select what they name.
# usage: bench-list-smoke.sh ACCTD ACCTD_CLIENT
set -u
out=$(bash "$(dirname "${BASH_SOURCE[0]}")/../../daemon/bench-list-samples.sh" "$1" "$2" 8000 8) ||
    { echo "$out"; echo "bench-list-samples.sh failed"; exit 1; }
echo "$out"
want() { # want REQUEST GROUPS
    grep -Eq "^LIST_SAMPLES $1 +[0-9.]+ +$2\$" <<<"$out" || { echo "FAIL: $1 should list $2 aggregates"; exit 1; }
}
want '\(all\)' 800
want 'PARTITION=p7' 100
want 'PARTITION=p7 INTERCONNECT=ib' 100
want 'PARTITION=p7 INTERCONNECT=ib COLLECTIVE=reduce' 13
want 'COLLECTIVE=reduce' 104
echo "OK"
