#!/usr/bin/env bash
# 230: rules with the layout dimension (schema 2): imported next to a
# version 1 file, shown with their ranks per node and layout (table, TSV,
# JSON), and diffed per layout: an unknown layout, then each ranks-per-node
# interval and kind where either side's rules change.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
write_config
start_acctd || exit 1

ctl 0 import "$D/rules-eth-a.yaml" --activate
expect "$T/out" "as version 1 of eth/tcp-1g"
ctl 0 import "$D/rules-eth-layout.yaml"
expect "$T/out" "as version 2 of eth/tcp-1g"

# show: the people's table gains a ranks_per_node column; TSV the three
# layout columns at the end (0, 0, any: every layout).
ctl 0 show --version 2
expect "$T/out" "RANKS PER NODE"
expect "$T/out" "[2, max] regular  [8K, 1M]   hier_chain:64K"
ctl 0 show --version 1
grep -q "RANKS PER NODE" "$T/out" && fail "a version 1 file is shown with a ranks_per_node column"
ctl 0 show --version 2 --collective bcast --format tsv
[ "$(head -1 "$T/out" | awk -F'\t' '{ print $13, $14, $15 }')" = "rpn_min rpn_max layout" ] ||
    fail "show --format tsv: no layout columns: $(head -1 "$T/out")"
[ "$(awk -F'\t' '$9 == "hier_chain" { print $13, $14, $15 }' "$T/out")" = "2 max regular" ] ||
    fail "show: the hier_chain rule's layout: $(cat "$T/out")"
[ "$(awk -F'\t' 'NR > 1 && $5 == 2 && $7 == 0 { print $13, $14, $15 }' "$T/out")" = "0 0 any" ] ||
    fail "show: a rule without layout keys: $(cat "$T/out")"
ctl 0 show --version 2 --format json
jq -e '[.[] | select(.layout == "regular")] | length == 1' "$T/out" >/dev/null ||
    fail "show --format json: $(cat "$T/out")"

# diff 1 2: nothing changes below 8 KiB; from 8 KiB an unknown layout
# falls to native (layout-bound rules never apply to it), one rank per node
# keeps binomial:8K, a regular layout of 2+ ranks per node runs hier_chain.
ctl 0 diff 1 2
expect "$T/out" "bcast comm_size [2, 8] layout unknown bytes [8K, 1M]: binomial:8K -> native"
expect "$T/out" "bcast comm_size [2, 8] ranks_per_node [2, max] regular bytes [8K, 1M]: binomial:8K -> hier_chain:64K"
expect "$T/out" "bcast comm_size [2, 8] ranks_per_node [2, max] irregular bytes [8K, 1M]: binomial:8K -> native"
grep -q "ranks_per_node \[1, 1\]" "$T/out" &&
    fail "diff: one rank per node keeps binomial:8K, yet a difference is listed: $(cat "$T/out")"
grep -q "barrier" "$T/out" && fail "diff: barrier did not change: $(cat "$T/out")"
ctl 0 diff 2 2
expect "$T/out" "make the same decisions"
cat "$T/out" >/tmp/rl/diff22.txt; ctl 0 diff 1 2; cp "$T/out" /tmp/rl/diff12.txt; ctl 0 show --version 2; cp "$T/out" /tmp/rl/show2.txt
# export: Open MPI's rules and the C functions have no layout dimension:
# exported for an unknown layout (layout-bound rules left out, with a note)
# or for the layout of --ranks-per-node.
ctl 0 export --version 2 --format ompi
expect "$T/err" "2 rules depend on the ranks per node, which Open MPI's rules cannot express: exported for an unknown layout (those rules left out)"
expect "$T/out" "# Decisions for an unknown layout"
cp "$T/out" "$T/ompi-unknown"
ctl 0 export --version 2 --format ompi --ranks-per-node 2
expect "$T/out" "# Decisions for 2 ranks per node, regular layout"
cmp -s "$T/out" "$T/ompi-unknown" && fail "export --ranks-per-node 2 wrote what an unknown layout gets"
ctl 0 export --version 2 --format c --ranks-per-node 2
expect "$T/out" "Decisions for 2 ranks per node, regular layout"
expect "$T/out" "hier_chain"
ctl 0 export --version 2 --format c
expect "$T/out" "the rules that depend on the layout are left out"
grep -q hier_chain "$T/out" && fail "export c for an unknown layout names hier_chain"
ctl 2 export --version 2 --format ompi --irregular
expect "$T/err" "--irregular needs --ranks-per-node N"
ctl 2 export --version 2 --ranks-per-node 2
expect "$T/err" "--ranks-per-node is for --format ompi or c"
# plot, offline: the map of a layout
ctl 0 plot --file "$D/rules-eth-layout.yaml" -c bcast --max-comm-size 8 --max-bytes 1M --ranks-per-node 2
expect "$T/out" "2 ranks per node (regular)"
expect "$T/out" "hier_chain:64K"
ctl 0 plot --file "$D/rules-eth-layout.yaml" -c bcast --max-comm-size 8 --max-bytes 1M
expect "$T/out" "layout unknown (--ranks-per-node N to choose)"
grep -q hier_chain "$T/out" && fail "plot for an unknown layout shows hier_chain"
finish
