#!/usr/bin/env bash
# Run sack_check with libacct preloaded and a rules file that turns SACK
# reordering on for every bcast tree (one algorithm per size range); fail
# unless the program passes, ACCT was active, and the reorder branch ran
# (its debug line, ACCT_VERBOSE=2). Allreduce is forced to a static ACCT
# schedule, which shares the private communicator with the SACK messages.
# ACCT_SACK_PACE, if set, reaches the ranks (and must be taken: its debug line).
# usage: sack_check.sh LIBACCT_SO FILL MAX_DELAY_US MPIEXEC ARGS... (ending with the program)
set -u
lib=$1 fill=$2 delay=$3
shift 3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sack_test_init "$lib" "$@"
cat > "$work/rules.yaml" <<'YAML'
acct_rules: 1
provenance: {partition: test, interconnect: shm, version: 1, source: manual, created: "2026-11-22T12:00:00Z"}
collectives:
  bcast:
    - {comm_size: [1, max], bytes: [0, 1023], algorithm: linear, reorder: true}
    - {comm_size: [1, max], bytes: [1024, 4095], algorithm: binary, reorder: true}
    - {comm_size: [1, max], bytes: [4096, 16383], algorithm: knomial, fanout: 3, segment: 1K, reorder: true}
    - {comm_size: [1, max], bytes: [16384, 65535], algorithm: chain, fanout: 2, segment: 4K, reorder: true}
    - {comm_size: [1, max], bytes: [65536, 131071], algorithm: pipeline, segment: 16K, reorder: true}
    - {comm_size: [1, max], bytes: [131072, 262143], algorithm: knomial, fanout: 8, segment: 512, reorder: true}
    - {comm_size: [1, max], bytes: [262144, max], algorithm: binomial, segment: 32K, reorder: true}
YAML
timeout 250 "$mpiexec" -x LD_PRELOAD="$preload" -x ACCT_RULES="$work/rules.yaml" \
    -x ACCT_SACK_FILL="$fill" ${ACCT_SACK_PACE:+-x ACCT_SACK_PACE} -x ACCT_FORCE=allreduce=recursive_doubling -x ACCT_VERBOSE=2 -x ACCT_REPORT="$work/report.yaml" \
    ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${launch_args[@]}" "$prog" "$delay" > "$work/out" 2>&1
rc=$?
grep -v "debug" "$work/out"
cat "$work/report.yaml" 2>/dev/null
[ $rc -eq 124 ] && echo "TIMEOUT: deadlock?"
sack_test_require_active
for a in linear chain pipeline binary binomial knomial; do # every tree of the rules ran
  grep -q "{collective: bcast, algorithm: $a, calls: [1-9]" "$work/report.yaml" ||
      { echo "bcast $a did not run"; exit 1; }
done
grep -q "SACK reordering: first bcast as root, fill $fill" "$work/out" ||
    { echo "the SACK branch did not run (or not with fill $fill)"; grep -i sack "$work/out" | head; exit 1; }
if [ -n "${ACCT_SACK_PACE:-}" ]; then
    grep -q "SACK reordering: .*pace $ACCT_SACK_PACE" "$work/out" ||
        { echo "ACCT_SACK_PACE=$ACCT_SACK_PACE did not reach the ranks"; exit 1; }
fi
grep -q 'sack_check: .* OK$' "$work/out" || exit 1
exit $rc
