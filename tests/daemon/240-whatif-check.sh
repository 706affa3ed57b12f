#!/usr/bin/env bash
# 240: acctctl whatif and check through acctd: the model of a version's
# tuning run comes from GET_MODEL (docs/protocol.md); a version without a
# model (a manual rules file) is named and exit status 2; the daemon's
# answers equal the offline ones (the exported rules and the result's
# model: section); the pathological linear bcast is flagged.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
W=$(dirname "$0")/../tools/acctctl/whatif
write_config
start_acctd || exit 1

ctl 0 import "$D/result-eth.yaml" --activate
expect "$T/out" "as version 1 of eth/tcp-1g"

# whatif from acctd: the active version and its run's model
ctl 0 whatif bcast -p eth -n 8 -b 1M
expect "$T/out" "rules:    eth/tcp-1g version 1"
expect "$T/out" "model:    tuning run r-20261122T150000Z-eth of version 1 (LogGP L 48.2 o 3.1 g 4.4 G 0.0081 us)"
expect "$T/out" "rule:     bcast[0] (line"
expect "$T/out" "pipeline:8K, predicted"
ctl 0 whatif bcast --version 1 -n 8 -b 1M -f tsv
cp "$T/out" "$T/daemon.tsv"
# ... the same as offline, with the exported rules and the result's model
ctl 0 export --version 1 -o "$T/v1.yaml"
ctl 0 whatif bcast --rules "$T/v1.yaml" --model "$D/result-eth.yaml" -n 8 -b 1M -f tsv
cmp -s "$T/out" "$T/daemon.tsv" || fail "whatif through acctd differs from offline: $(diff "$T/out" "$T/daemon.tsv")"
ctl 0 check -p eth --max-comm-size 64 --all -f tsv
cp "$T/out" "$T/daemon-check.tsv"
[ "$(wc -l <"$T/daemon-check.tsv")" -eq 3 ] || fail "check --all: a row per rule expected: $(cat "$T/daemon-check.tsv")"
ctl 0 check --rules "$T/v1.yaml" --model "$D/result-eth.yaml" --max-comm-size 64 --all -f tsv
cmp -s "$T/out" "$T/daemon-check.tsv" || fail "check through acctd differs from offline"
# --model FILE wins over the run's model; --rules FILE over the version's rules
ctl 0 whatif bcast -p eth --model "$W/eth-1g.plogp" -n 8 -b 1M
expect "$T/out" "eth-1g.plogp (pLogP table)"
ctl 2 whatif bcast --version 1 --rules "$W/linear-bcast.rules.yaml" -n 8 -b 1M
expect "$T/err" "give --rules or --version, not both"
ctl 0 whatif bcast -p eth --rules "$W/linear-bcast.rules.yaml" -n 8 -b 1M
expect "$T/out" "tuning run r-20261122T150000Z-eth of version 1"
expect "$T/out" "comm_size [2, max], bytes [0, max]: linear"

# a manual version has no model: said with its version and pair, exit 2
ctl 0 import "$W/linear-bcast.rules.yaml"
expect "$T/out" "as version 2 of eth/tcp-1g"
ctl 2 whatif bcast --version 2 -n 8 -b 1M
expect "$T/err" "version 2 of eth/tcp-1g has no model: it comes from no tuning run (source manual)"
expect "$T/err" "give a model with --model FILE"
ctl 2 check --version 2
expect "$T/err" "version 2 of eth/tcp-1g has no model"
# with a model file it is checked, and flagged
ctl 1 check --version 2 --model "$W/eth-1g.plogp" -f tsv
[ "$(awk -F'\t' 'NR == 2 { print $1, $2, $9, $14 }' "$T/out")" = "bcast 0 linear true" ] ||
    fail "check of the linear bcast version: $(cat "$T/out")"
# a run that measured the two levels (model.intra, model.inter, model.nic;
# issue 21): GET_MODEL returns them, whatif says so, and with a layout
# costs every message by whether its ends share a node (here the 100 Mbit/s
# inter level: a 1 MiB ring allreduce on 8 ranks is about 150 ms, where the
# one network says about 15 ms); through acctd as offline
ctl 0 import "$D/result-eth-levels.yaml"
expect "$T/out" "as version 3 of eth/tcp-1g"
ctl 0 whatif allreduce --version 3 -n 8 -b 1M -f tsv
cp "$T/out" "$T/flat.tsv"
ctl 0 whatif allreduce --version 3 -n 8 -b 1M
expect "$T/out" "levels: intra G 0.00015, inter G 0.0836 us/B, NIC x2.17 (2 pairs), two-way x2.6 (2 pairs), pair duplex x1.29 beyond 196608 bytes"
# the model store keeps the two-way factor (schema 6), the pair-duplex
# factor (schema 7) and its overlap (schema 8) with the version's run
[ "$(sqlite3 "$DB" "SELECT nic_pairs, nic_gap_factor, nic_bidir_pairs, nic_bidir_gap_factor, pair_duplex_factor, pair_duplex_overlap_bytes FROM model_levels WHERE run_id = 'r-20261127T080000Z-eth-levels'")" = "2|2.17|2|2.6|1.29|196608.0" ] ||
    fail "model_levels of the levels run: $(sqlite3 "$DB" 'SELECT * FROM model_levels')"
ctl 0 whatif allreduce --version 3 -n 8 -b 1M --ranks-per-node 2 -f tsv
cp "$T/out" "$T/laid.tsv"
ring() { awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $c["method"] == "ring" { print $c["predicted_us"] }' "$1"; }
awk -v f="$(ring "$T/flat.tsv")" -v l="$(ring "$T/laid.tsv")" \
    'BEGIN { exit !(f > 10000 && f < 20000 && l > 120000 && l < 200000) }' ||
    fail "ring 1 MiB on 8 ranks: one network $(ring "$T/flat.tsv") us (want 10-20 ms), 2 per node $(ring "$T/laid.tsv") us (want 120-200 ms)"
ctl 0 export --version 3 -o "$T/v3.yaml"
ctl 0 whatif allreduce --rules "$T/v3.yaml" --model "$D/result-eth-levels.yaml" -n 8 -b 1M --ranks-per-node 2 -f tsv
cmp -s "$T/out" "$T/laid.tsv" || fail "whatif with levels through acctd differs from offline: $(diff "$T/out" "$T/laid.tsv")"
# the pair-duplex factor came through GET_MODEL and is used: a node each
# (no NIC sharing, whose factors 2.17/2.6 would cover it at 2 per node),
# without it (the same result, the key removed) recursive doubling
# (inter-node pairs exchanging both ways) is predicted faster, the ring
# (one way per peer) the same
ctl 0 whatif allreduce --version 3 -n 8 -b 1M --ranks-per-node 1 -f tsv
cp "$T/out" "$T/dx1.tsv"
sed 's/, pair_duplex_factor: 1.29, pair_duplex_overlap_bytes: 196608//' "$D/result-eth-levels.yaml" >"$T/nodx.yaml"
ctl 0 whatif allreduce --rules "$T/v3.yaml" --model "$T/nodx.yaml" -n 8 -b 1M --ranks-per-node 1 -f tsv
cp "$T/out" "$T/nodx.tsv"
rd() { awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $c["method"] == "recursive_doubling" { print $c["predicted_us"] }' "$1"; }
awk -v d="$(rd "$T/dx1.tsv")" -v n="$(rd "$T/nodx.tsv")" 'BEGIN { exit !(n > 0 && d > 1.05 * n && d <= 1.29 * n * 1.000001) }' ||
    fail "recursive_doubling with the pair-duplex factor 1.29 $(rd "$T/dx1.tsv") us, without $(rd "$T/nodx.tsv") us: want 1.05x to 1.29x"
# its overlap came through too: the same result with the factor on the
# whole message (overlap 0) predicts recursive doubling slower, as acctd's
# would without the overlap
sed 's/, pair_duplex_overlap_bytes: 196608//' "$D/result-eth-levels.yaml" >"$T/noov.yaml"
ctl 0 whatif allreduce --rules "$T/v3.yaml" --model "$T/noov.yaml" -n 8 -b 1M --ranks-per-node 1 -f tsv
cp "$T/out" "$T/noov.tsv"
awk -v d="$(rd "$T/dx1.tsv")" -v w="$(rd "$T/noov.tsv")" 'BEGIN { exit !(d > 0 && w > 1.01 * d) }' ||
    fail "recursive_doubling with the overlap through acctd $(rd "$T/dx1.tsv") us, the factor on the whole message offline $(rd "$T/noov.tsv") us: want the latter slower"
[ -n "$(ring "$T/dx1.tsv")" ] && [ "$(ring "$T/dx1.tsv")" = "$(ring "$T/nodx.tsv")" ] ||
    fail "the ring changed with the pair-duplex factor: $(ring "$T/dx1.tsv") vs $(ring "$T/nodx.tsv")"
# acctd's check (before an activation) costs with it too: as offline
ctl 0 check --version 3 --max-comm-size 64 --all --ranks-per-node 2 -f tsv
cp "$T/out" "$T/check3.tsv"
ctl 0 check --rules "$T/v3.yaml" --model "$D/result-eth-levels.yaml" --max-comm-size 64 --all --ranks-per-node 2 -f tsv
cmp -s "$T/out" "$T/check3.tsv" || fail "check with the pair-duplex factor through acctd differs from offline: $(diff "$T/out" "$T/check3.tsv")"
ctl 0 whatif allreduce --rules "$T/v3.yaml" --model "$D/result-eth-levels.yaml" -n 8 -b 1M
expect "$T/out" "result-eth-levels.yaml (tuning result, with intra/inter levels and NIC factor)"

# a result written before the two-way factor (model.nic without bidir_*)
# still loads: stored as 0 (not measured), and GET_MODEL leaves it out
ctl 0 import "$D/result-eth-levels-check.yaml"
expect "$T/out" "as version 4 of eth/tcp-1g"
[ "$(sqlite3 "$DB" "SELECT nic_pairs, nic_bidir_pairs, nic_bidir_gap_factor, pair_duplex_factor FROM model_levels WHERE run_id = 'r-20261127T090000Z-eth-check'")" = "2|0|0.0|0.0" ] ||
    fail "model_levels of an older result: $(sqlite3 "$DB" 'SELECT * FROM model_levels')"
ctl 0 whatif allreduce --version 4 -n 8 -b 1M
expect "$T/out" "NIC x2.17 (2 pairs)"
grep -q "two-way" "$T/out" && fail "an older result's model names a two-way factor: $(grep model: "$T/out")"
grep -q "pair duplex" "$T/out" && fail "an older result's model names a pair-duplex factor: $(grep model: "$T/out")"

# a version from a rules file that names its own model (provenance.model)
# but no run: acctd has no model for it, so whatif and check take the
# rules' own and say so; as offline with that file (issue 21)
ctl 0 import "$W/linear-bcast-model.rules.yaml"
expect "$T/out" "as version 5 of eth/tcp-1g"
ctl 0 whatif bcast --version 5 -n 64 -b 1M
expect "$T/out" "model:    provenance.model of eth/tcp-1g version 5 (LogGP L 48.2 o 3.1 g 4.4 G 0.0081 us); acctd stored no model for it"
ctl 1 check --version 5 -f tsv
cp "$T/out" "$T/own.tsv"
ctl 0 export --version 5 -o "$T/v5.yaml"
ctl 1 check --rules "$T/v5.yaml" -f tsv
cmp -s "$T/out" "$T/own.tsv" || fail "check of version 5 through acctd differs from offline: $(diff "$T/out" "$T/own.tsv")"

# no such version, no such partition
ctl 2 whatif bcast --version 99 -n 8 -b 1K
expect "$T/err" "no version 99"
ctl 2 check -p nosuch
expect "$T/err" "nosuch"
finish
