#!/usr/bin/env bash
# Run acct_sack_auto with libacct preloaded and rules whose decision for
# COLL (bcast, gather or reduce) is a static binomial tree (reorder: false)
# with options.auto_reorder on.
# late: reordering must turn on after the probes (its debug line), with
# correct data; none: it must stay off, and the probes must have run.
# usage: sack_auto.sh LIBACCT_SO late|none NCALLS BYTES DELAY_MS COLL MPIEXEC ARGS... (ending with the program)
set -u
lib=$1 mode=$2 ncalls=$3 bytes=$4 delay=$5 coll=$6
shift 6
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sack_test_init "$lib" "$@"
# gather's key is the block (BYTES / 8 ranks here): its 64 KiB rule holds
# it; below, linear (two rules with one decision would merge into one range).
# reduce: 128 KiB segments (CMakeLists.txt: with 8 KiB, 128 segments per
# MiB through a window of 4, a transfer took up to 280 ms on 2 loaded cores)
seg=", segment: 8K" small=binomial
[ "$coll" = reduce ] && seg=", segment: 128K"
[ "$coll" = gather ] && seg="" small=linear
cat > "$work/rules.yaml" <<YAML
acct_rules: 1
provenance: {partition: test, interconnect: shm, version: 1, source: manual, created: "2026-11-22T12:00:00Z"}
options: {auto_reorder: true}
collectives:
  $coll:
    - {comm_size: [2, max], bytes: [0, 65535], algorithm: $small}
    - {comm_size: [2, max], bytes: [65536, max], algorithm: binomial$seg}
YAML
timeout 250 "$mpiexec" -x LD_PRELOAD="$preload" -x ACCT_RULES="$work/rules.yaml" -x ACCT_VERBOSE=2 \
    -x ACCT_REPORT="$work/report.yaml" ${ASAN_OPTIONS:+-x ASAN_OPTIONS} "${launch_args[@]}" "$prog" "$mode" \
    "$ncalls" "$bytes" "$delay" "$coll" > "$work/out" 2>&1
rc=$?
grep -i 'sack\|error\|warn' "$work/out" | grep -v "first $coll as root"
[ $rc -eq 124 ] && echo "TIMEOUT: deadlock?"
sack_test_require_active
grep -q 'sack_auto: .* OK$' "$work/out" || { echo "wrong data or failure"; exit 1; }
probes=$(grep -c 'SACK automatic mode: probe at call' "$work/out")
[ "$probes" -ge 3 ] || { echo "only $probes probes judged"; exit 1; }
# ACCT_REPORT's section: one record for the 1 MiB rule on 8 ranks
rec=$(grep "^  - {collective: $coll, comm_size: [0-9]*, bytes: \[65536, max\], " "$work/report.yaml")
echo "report: ${rec:-no sack_auto record}"
num() { sed -n "s/.*[{ ]$1: \([0-9]*\).*/\1/p" <<<"$rec"; }
# every probe votes; the log has a line for those the root judged (not an
# unjudged first one)
(($(num probes) >= probes && $(num on) + $(num keep) + $(num off) == $(num probes))) ||
    { echo "report: $(num probes) probes (the log judged $probes), votes must add up to them"; exit 1; }
if [ "$mode" = late ]; then
  grep -q "SACK automatic mode: $coll .*: reordering on from call" "$work/out" ||
      { echo "reordering did not turn on"; exit 1; }
  [[ $rec == *"state: on"* && $(num switched_on) -ge 1 && $(num on) -ge 3 ]] &&
      (($(num reordered_calls) > $(num probes))) && [[ $rec == *last_gain_ms:* ]] ||
      { echo "report: want state on, switched on, >= 3 votes on, more reordered calls than probes"; exit 1; }
else
  ! grep -q 'reordering on from call' "$work/out" || { echo "reordering turned on, nobody was late"; exit 1; }
  # (a loaded machine can make one probe see a late rank: a single vote on
  # is allowed, the hysteresis needs three)
  [[ $rec == *"state: off"* && $(num switched_on) == 0 && $(num on) -lt 3 &&
     $(num reordered_calls) == $(num probes) ]] ||
      { echo "report: want state off, never switched, < 3 votes on, only the probes reordered"; exit 1; }
fi
exit $rc
