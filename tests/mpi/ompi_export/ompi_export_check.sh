#!/bin/bash
# Proves that Open MPI 4.1.4 runs what ACCT exports (docs/decisions.md):
#   1. a rules file with bcast, allreduce, alltoall, gather and scatter
#      rules (bcast and allreduce differing for 2-4 and 5+ ranks) is
#      exported to Open MPI's dynamic rules format and validated; the
#      gather/scatter cases (64 B -> linear, 128 B -> binomial, rule edge at
#      101 B per rank) also prove that Open MPI looks up m x p there;
#      scan and exscan (linear below 16 B, recursive doubling from 16 B)
#      prove that Open MPI looks them up by type size x p: a call of one
#      8-byte element on 4 ranks (key 32) must run linear, one of a 64-byte
#      element recursive doubling;
#   2. for each case, "ompi_export_tool expect" gives the Open MPI algorithm
#      the ACCT rules intend, which must equal the one listed here;
#   3. Open MPI runs the collective once with the exported file and PML
#      monitoring; the messages every rank sent must be that algorithm's
#      signature (ompi_probe check);
#   4. Open MPI ignores scan's count: 8 elements of 8 bytes (ACCT's m = 64,
#      recursive doubling in ACCT's rules) still run the one-element
#      decision, linear (docs/decisions.md: what the export can express);
#   5. two corrupted copies are refused by ACCT's validator, while Open MPI
#      silently misreads one ("8K" read as 8: 8-byte segments run) and
#      silently drops the other (a truncated file: its fixed decision runs
#      instead of the exported algorithm).
#
# usage: ompi_export_check.sh TOOL PROBE MPIEXEC [MPIEXEC_FLAGS...]
set -u
tool=$1 probe=$2
shift 2
mpiexec=("$@")

work=$(mktemp -d /tmp/acct-ompi-export.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0

cat >"$work/rules.yaml" <<'EOF'
acct_rules: 1
provenance: {partition: eth, interconnect: tcp-1g, version: 1, source: manual,
             created: "2026-11-22T15:00:00Z"}
collectives:
  bcast:
    - {comm_size: [2, 4], bytes: [0, 1023], algorithm: linear}
    - {comm_size: [2, 4], bytes: [1K, 64K], algorithm: binomial}
    - {comm_size: [2, 4], bytes: [65537, max], algorithm: pipeline, segment: 8K}
    - {comm_size: [5, max], bytes: [0, 4K], algorithm: binomial}
    - {comm_size: [5, max], bytes: [4097, max], algorithm: pipeline, segment: 16K}
  allreduce:
    - {comm_size: [2, 4], bytes: [0, 4K], algorithm: recursive_doubling}
    - {comm_size: [2, 4], bytes: [4097, max], algorithm: ring}
    - {comm_size: [5, max], bytes: [0, 64K], algorithm: rabenseifner}
    - {comm_size: [5, max], bytes: [65537, max], algorithm: ring}
  alltoall:
    - {comm_size: [2, 8], bytes: [0, 255], algorithm: bruck}
    - {comm_size: [2, 8], bytes: [256, max], algorithm: pairwise}
  gather:
    - {comm_size: [2, 8], bytes: [0, 100], algorithm: linear}
    - {comm_size: [2, 8], bytes: [101, max], algorithm: binomial}
  scatter:
    - {comm_size: [2, 8], bytes: [0, 100], algorithm: linear}
    - {comm_size: [2, 8], bytes: [101, max], algorithm: binomial}
  scan:
    - {comm_size: [2, 8], bytes: [0, 15], algorithm: linear}
    - {comm_size: [2, 8], bytes: [16, max], algorithm: recursive_doubling}
  exscan:
    - {comm_size: [2, 8], bytes: [0, 15], algorithm: linear}
    - {comm_size: [2, 8], bytes: [16, max], algorithm: recursive_doubling}
EOF

echo "== export"
if ! "$tool" export "$work/rules.yaml" "$work/ompi.conf" 8; then
    echo "FAIL: export or validation"
    exit 1
fi
sed 's/^/    /' "$work/ompi.conf"

# np coll bytes expected-alg segment
cases=(
    "4 bcast 512 1 0"
    "4 bcast 4096 6 0"
    "4 bcast 131072 3 8192"
    "4 allreduce 1024 3 0"
    "4 allreduce 65536 4 0"
    "4 alltoall 128 3 0"
    "4 alltoall 4096 2 0"
    "8 bcast 1024 6 0"
    "8 bcast 262144 3 16384"
    "8 allreduce 1024 6 0"
    "8 allreduce 262144 4 0"
    "8 alltoall 64 3 0"
    "4 gather 64 1 0"
    "4 gather 128 2 0"
    "4 scatter 64 1 0"
    "4 scatter 128 2 0"
    "4 scan 8 1 0"
    "4 scan 64 2 0"
    "4 exscan 8 1 0"
    "4 exscan 64 2 0"
)

run() { # np coll bytes conf prefix
    "${mpiexec[@]}" --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
        --mca pml_monitoring_filename "$5" --mca coll_tuned_use_dynamic_rules 1 \
        --mca coll_tuned_dynamic_rules_filename "$4" -np "$1" "$probe" run "$2" "$3"
}

echo "== Open MPI with the exported rules"
i=0
for c in "${cases[@]}"; do
    read -r np coll bytes alg seg <<<"$c"
    want=$("$tool" expect "$work/rules.yaml" "$coll" "$np" "$bytes")
    if [ "${want% *}" != "$alg $seg" ]; then
        echo "FAIL: ACCT's rules map $coll np=$np $bytes B to Open MPI '$want', the test expects '$alg $seg'"
        fail=1
        continue
    fi
    i=$((i + 1))
    prefix="$work/mon$i"
    if ! run "$np" "$coll" "$bytes" "$work/ompi.conf" "$prefix" >"$work/run$i.log" 2>&1; then
        echo "FAIL: mpirun ($coll np=$np $bytes B):"
        cat "$work/run$i.log"
        fail=1
        continue
    fi
    "$probe" check "$coll:$bytes:$alg:$seg" "$np" "$prefix" || fail=1
done

echo "== scan's count is invisible to Open MPI"
# 8 elements of 8 bytes: ACCT's m is 64 (recursive doubling in its rules),
# but Open MPI's key is the type's size x p = 32, the one-element key:
# linear runs, as the export's note says.
want=$("$tool" expect "$work/rules.yaml" scan 4 64)
if [ "${want%% *}" != 2 ]; then
    echo "FAIL: ACCT's rules map scan np=4 64 B to Open MPI '$want', the test expects 2"
    fail=1
elif run 4 scan 64/8 "$work/ompi.conf" "$work/monscan" >"$work/runscan.log" 2>&1; then
    "$probe" check "scan:64/8:1:0" 4 "$work/monscan" || fail=1
    echo "    (ACCT decides recursive doubling for 64 B; Open MPI ran its one-element decision)"
else
    echo "FAIL: mpirun (scan np=4 8 x 8 B):"
    cat "$work/runscan.log"
    fail=1
fi

echo "== corrupted copy 1: a segment written as 8K"
sed 's/^65537 3 0 8192$/65537 3 0 8K/' "$work/ompi.conf" >"$work/bad1.conf"
if cmp -s "$work/ompi.conf" "$work/bad1.conf"; then
    echo "FAIL: could not corrupt the file (rule '65537 3 0 8192' not found)"
    fail=1
fi
if "$tool" validate "$work/bad1.conf"; then
    echo "FAIL: the validator accepted the corrupted file"
    fail=1
else
    echo "PASS: the validator refuses it"
fi
# Open MPI reads "8K" as 8 and skips the K: the file still loads, with
# 8-byte segments. The pipeline now sends 16384 segments per hop.
if run 4 bcast 131072 "$work/bad1.conf" "$work/monbad1" >"$work/runbad1.log" 2>&1; then
    "$probe" check "bcast:131072:3:8" 4 "$work/monbad1" || fail=1
    echo "    (Open MPI silently used 8-byte segments instead of 8192)"
else
    echo "FAIL: mpirun with the corrupted file:"
    cat "$work/runbad1.log"
    fail=1
fi

echo "== corrupted copy 2: the last number missing (a truncated file)"
sed '$ s/ [0-9]*$//' "$work/ompi.conf" >"$work/bad2.conf"
if "$tool" validate "$work/bad2.conf"; then
    echo "FAIL: the validator accepted the truncated file"
    fail=1
else
    echo "PASS: the validator refuses it"
fi
# Open MPI drops the whole file silently and runs its fixed decision: a
# 512-byte bcast on 4 ranks is no longer the exported basic_linear (1).
if run 4 bcast 512 "$work/bad2.conf" "$work/monbad2" >"$work/runbad2.log" 2>&1; then
    "$probe" check "bcast:512:0:1" 4 "$work/monbad2" || fail=1
    echo "    (Open MPI dropped the file without a word and used its fixed decision)"
else
    echo "FAIL: mpirun with the truncated file:"
    cat "$work/runbad2.log"
    fail=1
fi

[ $fail = 0 ] && echo "ALL PASSED" || echo "SOME CHECKS FAILED"
exit $fail
