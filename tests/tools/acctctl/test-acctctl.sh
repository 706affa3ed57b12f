#!/usr/bin/env bash
# Black-box tests of acctctl: exit codes, output formats and messages.
#   test-acctctl.sh ACCTCTL RULES_TESTDATA_DIR REGISTRY_DIR
# REGISTRY_DIR is libacct/algs: its entries.h files are counted independently
# of acctctl to check that "algorithms" lists every registered algorithm.
set -u
acctctl=$1
data=$2
algs=$3
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run EXPECTED_STATUS ARGS...: output in $tmp/out and $tmp/err
run() {
    local want=$1
    shift
    "$acctctl" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "acctctl $*: exit status $got, expected $want"
        sed 's/^/  stdout: /' "$tmp/out" >&2
        sed 's/^/  stderr: /' "$tmp/err" >&2
    fi
}

# expect FILE STRING: FILE has a line containing STRING (fixed string)
expect() {
    grep -qF -- "$2" "$1" || { fail "expected \"$2\" in $(basename "$1"):"; sed 's/^/  /' "$1" >&2; }
}

# ---- algorithms ----------------------------------------------------------------
registered=$(cat "$algs"/*/entries.h | grep -cE 'ACCT_NATIVE_ENTRY\(|\.name = "')
run 0 algorithms --format tsv
expect "$tmp/out" "$(printf 'collective\talgorithm\tflags\tfanout_min\tfanout_max\tfanout_default\tdescription')"
[ "$(head -1 "$tmp/out")" = "$(printf 'collective\talgorithm\tflags\tfanout_min\tfanout_max\tfanout_default\tdescription')" ] ||
    fail "algorithms --format tsv: the first line is not the header"
rows=$(($(wc -l <"$tmp/out") - 1))
[ "$rows" -eq "$registered" ] || fail "algorithms --format tsv: $rows rows, $registered registered algorithms"
awk -F'\t' 'NF != 7 { exit 1 }' "$tmp/out" || fail "algorithms --format tsv: a row without 7 fields"
[ "$(cut -f1,2 "$tmp/out" | sort | uniq -d)" = "" ] || fail "algorithms: duplicate (collective, algorithm)"
grep -q '0x' "$tmp/out" && fail "algorithms: a flag without a name"
for c in barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter_block; do
    grep -qP "^$c\tnative\tnative\t" "$tmp/out" || fail "algorithms: no native row for $c"
done
expect "$tmp/out" "$(printf 'bcast\tknomial\tsegmented,fanout,reorder\t2\t16\t4\t')"

run 0 algorithms --collective bcast --format tsv
[ "$(tail -n +2 "$tmp/out" | cut -f1 | sort -u)" = bcast ] || fail "algorithms --collective bcast lists other collectives"

run 0 algorithms
expect "$tmp/out" "COLLECTIVE"
[ $(($(wc -l <"$tmp/out") - 1)) -eq "$registered" ] || fail "algorithms (table): wrong number of rows"

run 0 algorithms -f json -c reduce
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d and all(x["collective"]=="reduce" for x in d)' "$tmp/out" ||
        fail "algorithms --format json: not the expected JSON"
    run 0 algorithms --format json
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/out")
    [ "$n" -eq "$registered" ] || fail "algorithms --format json: $n entries, $registered registered"
fi

run 2 algorithms --collective bcats
expect "$tmp/err" 'unknown collective "bcats"'
run 2 algorithms --format xml
expect "$tmp/err" 'unknown format "xml"'
run 2 algorithms --collective
expect "$tmp/err" 'needs a value'
run 2 algorithms extra

# ---- validate ----------------------------------------------------------------
run 0 validate "$data/valid-full.yaml" "$data/valid-minimal.yaml"
expect "$tmp/out" "$data/valid-full.yaml: ok (21 rules, partition eth, version 12)"
expect "$tmp/out" "$data/valid-minimal.yaml: ok (0 rules, partition eth, version 1)"

run 1 validate "$data/invalid-several.yaml"
f="$data/invalid-several.yaml"
expect "$tmp/out" "$f:3:3: provenance.partiton: unknown key \"partiton\" (did you mean \"partition\"?)"
expect "$tmp/out" "$f:5:12: provenance.version: 0 is too small"
expect "$tmp/out" "$f:12:18: collectives.bcast[0].algorithm: unknown bcast algorithm \"binomal\" (valid: native,"
expect "$tmp/out" "$f:16:16: collectives.bcast[1].segment: bcast linear does not take a segment size"
expect "$tmp/out" "$f:17:7: collectives.bcast[2]: overlaps collectives.bcast[0] at line 10"
expect "$tmp/out" "$f:20:15: collectives.bcast[2].fanout: fan-out 99 is out of range for bcast knomial (2 to 16)"
expect "$tmp/out" "$f:24:3: collectives.bcats: unknown collective \"bcats\""
expect "$tmp/out" "$f: invalid (9 errors)"

# one invalid file among valid ones: status 1, every file reported
run 1 validate "$data/valid-minimal.yaml" "$data/invalid-overlap.yaml" "$data/valid-full.yaml"
expect "$tmp/out" "valid-minimal.yaml: ok"
expect "$tmp/out" "$data/invalid-overlap.yaml:6:7: collectives.allreduce[1]: overlaps collectives.allreduce[0] at line 5 (both contain comm_size 8, bytes 32K)"
expect "$tmp/out" "valid-full.yaml: ok"

run 1 validate "$data/invalid-version.yaml"
expect "$tmp/out" "$data/invalid-version.yaml:1:13: acct_rules: unsupported rules schema version 3: this library reads versions 1 to 2"
run 1 validate "$data/invalid-truncated.yaml"
expect "$tmp/out" "does not end with a newline: truncated file?"
run 1 validate "$data/invalid-binary.yaml"
expect "$tmp/out" "$data/invalid-binary.yaml:2:1: binary data"
run 1 validate /nonexistent/rules.yaml
expect "$tmp/out" "/nonexistent/rules.yaml: cannot open: No such file or directory"
run 1 validate "$data"
expect "$tmp/out" "not a regular file"

"$acctctl" validate - <"$data/valid-full.yaml" >"$tmp/out" 2>&1 || fail "validate - (stdin): non-zero status"
expect "$tmp/out" "<stdin>: ok (21 rules"
run 0 validate --quiet "$data/valid-full.yaml"
[ -s "$tmp/out" ] && fail "validate --quiet printed something for a valid file"
run 1 validate -q "$data/invalid-overlap.yaml"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "validate --quiet: expected only the problem line"

run 2 validate
expect "$tmp/err" "no file given"
run 2 validate --bogus "$data/valid-full.yaml"
expect "$tmp/err" "unknown option --bogus"

# ---- dispatch ------------------------------------------------------------------
run 2
expect "$tmp/err" "Usage: acctctl COMMAND"
run 2 frobnicate
expect "$tmp/err" 'unknown command "frobnicate"'
expect "$tmp/err" "Commands:"
run 0 help
expect "$tmp/out" "validate"
expect "$tmp/out" "algorithms"
run 0 help validate
expect "$tmp/out" "Usage: acctctl validate"
run 2 help nosuch
run 0 validate --help
expect "$tmp/out" "Usage: acctctl validate"
run 0 --version
expect "$tmp/out" "acctctl "

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "acctctl: all checks passed"
