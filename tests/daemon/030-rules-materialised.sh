#!/usr/bin/env bash
# 030: the active version of each pair is materialised as
# RUNTIME/rules/PARTITION/INTERCONNECT.yaml: the file appears on activation,
# "acctctl validate" accepts it, it is replaced atomically (a reader never
# sees a partial or invalid file while versions are switched), no temporary
# file is left behind, and a restart writes it again.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
F=$T/run/rules/eth/tcp-1g.yaml
write_config
start_acctd || exit 1

[ -e "$F" ] && fail "$F exists before any activation"
ctl 0 import "$D/rules-eth-a.yaml" --activate
[ -f "$F" ] || fail "$F was not written on activation"
ctl 0 validate "$F"
expect "$T/out" "ok (3 rules, partition eth, version 1)"
# The file is the active version's text, as GET_RULES/SHOW serve it.
ctl 0 export --format yaml -p eth -i tcp-1g -o "$T/exported.yaml"
cmp -s "$F" "$T/exported.yaml" || fail "the rules file differs from the active version's text"
ctl 0 export --format yaml --version 1
cmp -s "$F" "$T/out" || fail "export --version 1 differs from the rules file"

# plot: the daemon's version and the materialised file draw the same map,
# and its cells are the runtime's decisions (bcast [2, 8] x [8K, 1M] is
# binomial:8K in version 1, 16 ranks have no rule: native).
ctl 0 plot -p eth --max-comm-size 16 --max-bytes 2M
cp "$T/out" "$T/plot-daemon"
ctl 0 plot --file "$F" --max-comm-size 16 --max-bytes 2M
cmp -s "$T/out" "$T/plot-daemon" || fail "plot of acctd's version and of the rules file differ"
expect "$T/out" "legend: . native  A binomial  B binomial:8K"
grep -qE '^ +8  A{13}B{8}\.$' "$T/out" || fail "plot: unexpected bcast row for 8 ranks: $(grep -E '^ +8 ' "$T/out")"
ctl 0 plot -p eth -c bcast --format tsv
expect "$T/out" "$(printf 'bcast\t8\t1048576\tbinomial:8K')"
expect "$T/out" "$(printf 'bcast\t16\t1024\tnative')"
ctl 2 plot --file "$F" -p eth

# The other export formats (libacct/decision): Open MPI's dynamic rules and C.
"$ACCTCTL" export --format ompi -p eth >"$T/out" 2>"$T/err"
if [ $? -ne 0 ] && grep -q "built without" "$T/err"; then
    echo "$TEST_NAME: acctctl built without the decision exporters: ompi/c not checked"
else
    expect "$T/out" "coll_tuned_dynamic_rules_filename"
    expect "$T/out" "# bcast"
    ctl 0 export --format c --version 1 --prefix site_decide -o "$T/decide.c"
    expect "$T/decide.c" "site_decide_bcast"
    if command -v cc >/dev/null; then
        cc -std=c11 -Wall -Werror -c "$T/decide.c" -o "$T/decide.o" 2>"$T/err" ||
            fail "the exported C does not compile: $(head -5 "$T/err")"
    fi
fi
ctl 2 export --format xml -p eth

ctl 0 import "$D/rules-eth-b.yaml"
ino1=$(stat -c %i "$F")
ctl 0 activate 2
ctl 0 validate "$F"
expect "$T/out" "ok (3 rules, partition eth, version 2)"
ino2=$(stat -c %i "$F")
[ "$ino1" != "$ino2" ] || fail "the rules file was rewritten in place (same inode), not replaced by rename"

# Readers while versions switch: every read is a complete, valid file.
: >"$T/reader.log"
(
    n=0
    while [ ! -e "$T/stop" ]; do
        if ! "$ACCTCTL" validate -q "$F" >>"$T/reader.log" 2>&1; then
            echo "READ FAILED" >>"$T/reader.log"
        fi
        n=$((n + 1))
    done
    echo "reads $n" >>"$T/reader.log"
) &
reader=$!
EXTRA_PIDS=$reader
for i in $(seq 15); do
    "$ACCTCTL" activate 1 >/dev/null 2>&1 || fail "activate 1 (round $i)"
    "$ACCTCTL" activate 2 >/dev/null 2>&1 || fail "activate 2 (round $i)"
done
touch "$T/stop"
wait "$reader"
EXTRA_PIDS=
expect_not "$T/reader.log" "READ FAILED"
reads=$(awk '/^reads/ { print $2 }' "$T/reader.log")
[ "${reads:-0}" -ge 1 ] || fail "the reader did not read the file"
echo "$TEST_NAME: $reads reads during 30 activations, all valid"
left=$(find "$T/run/rules" -type f ! -name '*.yaml' | wc -l)
[ "$left" -eq 0 ] || fail "temporary files left in the rules directory: $(find "$T/run/rules" -type f)"
[ "$(find "$T/run/rules" -type f | wc -l)" -eq 1 ] || fail "more than one rules file: $(find "$T/run/rules" -type f)"

# A restart materialises the active version again.
stop_acctd
rm -rf "$T/run/rules"
start_acctd || exit 1
ctl 0 validate "$F"
expect "$T/out" "ok (3 rules, partition eth, version 2)"
finish
