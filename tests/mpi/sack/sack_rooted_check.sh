#!/usr/bin/env bash
# Run sack_rooted_check with libacct preloaded and a rules file that turns
# SACK reordering on for every reorder-capable tree of the collective COLL
# (scatter, gather or reduce; one algorithm per size range); fail unless
# the program passes, ACCT was active, every algorithm ran, and the
# reorder branch ran with the requested fill (its debug line,
# ACCT_VERBOSE=2). Allreduce is forced to a static ACCT schedule, which
# shares the private communicator with the SACK messages.
# usage: sack_rooted_check.sh LIBACCT_SO FILL MAX_DELAY_US random|late COLL MPIEXEC ARGS... (ending with the program)
set -u
lib=$1 fill=$2 delay=$3 mode=$4 coll=$5
shift 5
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sack_test_init "$lib" "$@"
{
    echo 'acct_rules: 1'
    echo 'provenance: {partition: test, interconnect: shm, version: 1, source: manual, created: "2026-11-22T18:00:00Z"}'
    echo 'collectives:'
    echo "  $coll:"
    if [ "$coll" = reduce ]; then
        algs="linear chain pipeline binary binomial"
        echo '    - {comm_size: [1, max], bytes: [0, 1023], algorithm: linear, reorder: true}'
        echo '    - {comm_size: [1, max], bytes: [1024, 4095], algorithm: chain, fanout: 2, segment: 1K, reorder: true}'
        echo '    - {comm_size: [1, max], bytes: [4096, 16383], algorithm: pipeline, segment: 2K, reorder: true}'
        echo '    - {comm_size: [1, max], bytes: [16384, 32767], algorithm: binary, segment: 4K, reorder: true}'
        echo '    - {comm_size: [1, max], bytes: [32768, max], algorithm: binomial, segment: 8K, reorder: true}'
    else
        algs="linear chain binomial"
        echo '    - {comm_size: [1, max], bytes: [0, 1023], algorithm: linear, reorder: true}'
        echo '    - {comm_size: [1, max], bytes: [1024, 16383], algorithm: chain, fanout: 2, segment: 4K, reorder: true}'
        echo '    - {comm_size: [1, max], bytes: [16384, max], algorithm: binomial, reorder: true}'
    fi
} > "$work/rules.yaml"
timeout 250 "$mpiexec" -x LD_PRELOAD="$preload" -x ACCT_RULES="$work/rules.yaml" \
    -x ACCT_SACK_FILL="$fill" -x ACCT_FORCE=allreduce=recursive_doubling -x ACCT_VERBOSE=2 -x ACCT_REPORT="$work/report.yaml" \
    ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${launch_args[@]}" "$prog" "$delay" "$mode" "$coll" > "$work/out" 2>&1
rc=$?
grep -v "debug" "$work/out"
cat "$work/report.yaml" 2>/dev/null
[ $rc -eq 124 ] && echo "TIMEOUT: deadlock?"
sack_test_require_active
for a in $algs; do # every algorithm of the rules ran
  grep -q "{collective: $coll, algorithm: $a, calls: [1-9]" "$work/report.yaml" ||
      { echo "$coll $a did not run"; exit 1; }
done
grep -q "SACK reordering: first $coll as root, fill $fill" "$work/out" ||
    { echo "the SACK branch did not run (or not with fill $fill)"; grep -i sack "$work/out" | head; exit 1; }
grep -q 'sack_rooted_check: .* OK$' "$work/out" || exit 1
exit $rc
