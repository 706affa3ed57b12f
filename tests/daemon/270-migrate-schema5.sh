#!/usr/bin/env bash
# 270: a schema-5 store that holds data (versions, activations, tuning runs
# with measurements, model_params and model_levels) is migrated by the
# current acctd: to the newest schema, every row kept and served (GET_MODEL
# returns the old levels with the two-way factor 0 / not measured), and a new
# import works. A half-migrated or damaged store is refused at start with
# the file and what is wrong, and left as it was.
#
# The schema-5 store is built from the real old SQL (db/0001..0005, each
# followed by its user_version, as acctd applies them) and holds the rows
# acctd itself wrote: a reference acctd imports the files, and its rows are
# copied column by column into the old tables (the columns schema 5 had).
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
[ "${SCHEMA:-0}" -ge 6 ] || fail "the test assumes schema 6 or later (got ${SCHEMA:-?})"
command -v sqlite3 >/dev/null || { echo "$TEST_NAME: skipped (no sqlite3)"; exit 77; }

# GET_MODEL of version $1 as FIELD=value lines (the raw reply)
get_model() { "$ACCTD_CLIENT" -s "$SOCK" GET_MODEL VERSION="$1" 2>&1; }

# ---- the reference: acctd writes the rows --------------------------------------
write_config
start_acctd || exit 1
ctl 0 import "$D/result-eth.yaml" --activate                # v1: model_params only
ctl 0 import "$D/rules-eth-a.yaml" --activate               # v2: manual
# v3: model_levels, no two-way factor (activated despite its check: exit 3)
ctl 3 import "$D/result-eth-levels-check.yaml" --activate
expect "$T/out" "as version 3 of eth/tcp-1g"
ctl 0 rollback -p eth                                       # active: v2 again, v3's activation undone
sed 's/partition: eth$/partition: eth2/' "$D/rules-eth-b.yaml" >"$T/rules-eth2.yaml"
ctl 0 import "$T/rules-eth2.yaml" --activate                # v4: a second pair
expect "$T/out" "as version 4 of eth2/tcp-1g"
for v in 1 2 3 4; do
    ctl 0 export --version "$v" -o "$T/ref-v$v.yaml"
    get_model "$v" >"$T/ref-model-v$v.txt"
done
ctl 0 versions -p eth -f tsv
cp "$T/out" "$T/ref-versions-eth.tsv"
ctl 0 versions -p eth2 -f tsv
cp "$T/out" "$T/ref-versions-eth2.tsv"
grep -q "MODEL_INTRA_G_US=" "$T/ref-model-v3.txt" || fail "the reference has no levels: $(cat "$T/ref-model-v3.txt")"
stop_acctd
mv "$DB" "$T/ref.db"
rm -f "$DB-wal" "$DB-shm"

# ---- the schema-5 store ---------------------------------------------------------
old5() { # old5 FILE: an empty store of schema 5, by the old SQL
    local v f
    for v in 1 2 3 4 5; do
        f=$(ls "$ACCT_DB_DIR"/000${v}_*.sql)
        sqlite3 "$1" <"$f" || { fail "sqlite3 $f"; return 1; }
        sqlite3 "$1" "PRAGMA user_version = $v"
    done
}
old5 "$T/old5.db"
# the tables schema 5 has, and per table its columns (those are copied)
tables=$(sqlite3 "$T/old5.db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
cols_of() { sqlite3 "$T/old5.db" "SELECT group_concat(name, ', ') FROM (SELECT name FROM pragma_table_info('$1') ORDER BY cid)"; }
{
    echo "ATTACH '$T/ref.db' AS ref;"
    echo "BEGIN;"
    for t in $tables; do
        c=$(cols_of "$t")
        echo "INSERT INTO main.$t ($c) SELECT $c FROM ref.$t;"
    done
    echo "COMMIT;"
} >"$T/copy.sql"
sqlite3 "$T/old5.db" <"$T/copy.sql" || fail "copying the rows into the schema-5 store"
[ "$(sqlite3 "$T/old5.db" 'PRAGMA user_version')" = 5 ] || fail "the old store is not at schema 5"
# not vacuous: the rows the test is about are there
for t in versions activations tuning_runs measurements model_params model_levels; do
    n=$(sqlite3 "$T/old5.db" "SELECT count(*) FROM $t")
    [ "$n" -gt 0 ] || fail "the schema-5 store has no $t rows"
done
[ "$(sqlite3 "$T/old5.db" 'SELECT count(*) FROM versions')" = 4 ] || fail "not 4 versions in the schema-5 store"

# dump TABLE... of FILE with schema 5's columns, every row, in a fixed order
dump5() {
    local f=$1 t c
    for t in $tables; do
        c=$(cols_of "$t")
        echo "== $t"
        sqlite3 -separator '|' "$f" "SELECT $c FROM $t ORDER BY $c"
    done
}
dump5 "$T/old5.db" >"$T/before.txt"

# ---- the current acctd on it -----------------------------------------------------
mkdir -p "$T/state"
cp "$T/old5.db" "$DB"
start_acctd || exit 1
ctl 0 status -f tsv
[ "$(tsv_field schema)" = "$SCHEMA" ] ||
    fail "status after the migration: $(cat "$T/out")"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = "$SCHEMA" ] || fail "the store is not at schema $SCHEMA"
# every pre-existing row, every column it had, unchanged
dump5 "$DB" >"$T/after.txt"
cmp -s "$T/before.txt" "$T/after.txt" ||
    fail "the migration changed or lost rows: $(diff "$T/before.txt" "$T/after.txt" | head -20)"
for t in $tables; do
    [ "$(sqlite3 "$DB" "SELECT count(*) FROM $t")" = "$(sqlite3 "$T/old5.db" "SELECT count(*) FROM $t")" ] ||
        fail "table $t: $(sqlite3 "$DB" "SELECT count(*) FROM $t") rows after, $(sqlite3 "$T/old5.db" "SELECT count(*) FROM $t") before"
done
# the new columns: 0 (not measured) for the runs stored before
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM model_levels WHERE nic_bidir_pairs = 0 AND nic_bidir_gap_factor = 0')" = \
  "$(sqlite3 "$T/old5.db" 'SELECT count(*) FROM model_levels')" ] ||
    fail "model_levels after the migration: $(sqlite3 "$DB" 'SELECT * FROM model_levels')"
# served: the versions, their rules, the active ones, the models
ctl 0 versions -p eth -f tsv
cmp -s "$T/out" "$T/ref-versions-eth.tsv" || fail "versions -p eth differ: $(diff "$T/ref-versions-eth.tsv" "$T/out")"
ctl 0 versions -p eth2 -f tsv
cmp -s "$T/out" "$T/ref-versions-eth2.tsv" || fail "versions -p eth2 differ: $(diff "$T/ref-versions-eth2.tsv" "$T/out")"
for v in 1 2 3 4; do
    ctl 0 export --version "$v" -o "$T/v$v.yaml"
    cmp -s "$T/v$v.yaml" "$T/ref-v$v.yaml" || fail "version $v's rules differ after the migration"
    get_model "$v" >"$T/model-v$v.txt"
    cmp -s "$T/model-v$v.txt" "$T/ref-model-v$v.txt" ||
        fail "GET_MODEL of version $v differs: $(diff "$T/ref-model-v$v.txt" "$T/model-v$v.txt")"
done
m=$T/model-v3.txt
# field NAME VALUE: the reply's NAME is VALUE (as a number)
field() {
    awk -F= -v k="$1" -v v="$2" '$1 == k { n++; if ($2 + 0 != v + 0) bad = 1 } END { exit !(n == 1 && !bad) }' "$m" ||
        fail "GET_MODEL ($(basename "$m")): $1 is not $2: $(grep "^$1=" "$m")"
}
field MODEL_INTRA_L_US 0.5
field MODEL_INTRA_GB_US 0.00015
field MODEL_INTER_L_US 48.2
field MODEL_INTER_O_US 12.5
field MODEL_INTER_GB_US 0.0836
field MODEL_NIC_PAIRS 2
field MODEL_NIC_FACTOR 2.17
field MODEL_NIC_BIDIR_PAIRS 0
expect_not "$m" "MODEL_NIC_BIDIR_FACTOR"
expect "$T/model-v2.txt" "has no model"
ctl 0 whatif allreduce --version 3 -n 8 -b 1M
expect "$T/out" "NIC x2.17 (2 pairs)"
expect_not "$T/out" "two-way"
# the active versions are materialised as before: eth has v2, eth2 v4
for pair in eth/tcp-1g eth2/tcp-1g; do
    f=$(find "$T/state" "$T/run" -path "*rules/$pair.yaml" 2>/dev/null | head -1)
    [ -n "$f" ] || { fail "no materialised rules file for $pair"; continue; }
done
ctl 0 show -p eth
expect "$T/out" "version 2"
ctl 0 show -p eth2
expect "$T/out" "version 4"

# ---- a new import on the migrated store ----------------------------------------
ctl 0 import "$D/result-eth-levels.yaml" --activate
expect "$T/out" "as version 5 of eth/tcp-1g"
[ "$(sqlite3 "$DB" "SELECT nic_pairs, nic_gap_factor, nic_bidir_pairs, nic_bidir_gap_factor FROM model_levels WHERE run_id = 'r-20261127T080000Z-eth-levels'")" = "2|2.17|2|2.6" ] ||
    fail "model_levels of the new run: $(sqlite3 "$DB" 'SELECT * FROM model_levels')"
get_model 5 >"$T/model-v5.txt"
m=$T/model-v5.txt
field MODEL_NIC_BIDIR_PAIRS 2
field MODEL_NIC_BIDIR_FACTOR 2.6
ctl 0 whatif allreduce --version 5 -n 8 -b 1M
expect "$T/out" "two-way x2.6 (2 pairs)"
ctl 0 versions -p eth -f tsv
[ "$(awk -F'\t' 'NR > 1' "$T/out" | wc -l)" = 4 ] || fail "eth has not 4 versions after the import: $(cat "$T/out")"
stop_acctd
[ "${STOP_STATUS:-1}" = 0 ] || fail "acctd exited with status ${STOP_STATUS:-?}"
# the new import added one row where it writes, and the old ones stay
for t in versions activations tuning_runs model_params model_levels; do
    b=$(sqlite3 "$T/old5.db" "SELECT count(*) FROM $t")
    a=$(sqlite3 "$DB" "SELECT count(*) FROM $t")
    [ "$a" = $((b + 1)) ] || fail "table $t: $a rows after the import, $b before the migration"
done
dump5 "$DB" >"$T/after2.txt"
grep -vxFf "$T/after2.txt" "$T/before.txt" >"$T/lost.txt" && fail "rows lost after the import: $(head "$T/lost.txt")"

# ---- half-migrated and damaged stores: refused, named, untouched ----------------
rm -f "$DB" "$DB-wal" "$DB-shm"
# (a) part of migration 0006 applied by hand, user_version still 5
cp "$T/old5.db" "$DB"
sqlite3 "$DB" 'ALTER TABLE model_levels ADD COLUMN nic_bidir_pairs INTEGER NOT NULL DEFAULT 0'
sum_a=$(sqlite3 "$DB" "SELECT count(*) FROM model_levels")
start_must_fail "a half-applied migration"
expect "$T/start.log" "$DB"
expect "$T/start.log" "migration 0006_model_nic_bidir.sql (schema version 5 to 6) failed: duplicate column name: nic_bidir_pairs"
expect "$T/start.log" "left at schema version 5, unchanged"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = 5 ] || fail "(a) the store's user_version changed"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM model_levels')" = "$sum_a" ] || fail "(a) model_levels changed"
grep -qi "segmentation\|abort\|sanitizer" "$T/start.log" && fail "(a) acctd crashed: $(cat "$T/start.log")"
cat "$T/start.log"
# (b) user_version set to the newest without the migration's SQL
rm -f "$DB" "$DB-wal" "$DB-shm"
cp "$T/old5.db" "$DB"
sqlite3 "$DB" "PRAGMA user_version = $SCHEMA"
start_must_fail "a store whose version was set without its migration"
expect "$T/start.log" "$DB"
expect "$T/start.log" "the store says schema version $SCHEMA but table model_levels has no column nic_bidir_pairs"
expect "$T/start.log" "refusing to use it"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = "$SCHEMA" ] || fail "(b) the store's user_version changed"
cat "$T/start.log"
# (c) a table of the schema gone (an index dropped by hand)
rm -f "$DB" "$DB-wal" "$DB-shm"
cp "$T/old5.db" "$DB"
sqlite3 "$DB" 'DROP INDEX measurements_run'
start_must_fail "a store without one of its indexes"
expect "$T/start.log" "$DB"
expect "$T/start.log" "has no index measurements_run (of table measurements)"
cat "$T/start.log"
# (d) not a database at all, and (e) a store cut short
rm -f "$DB" "$DB-wal" "$DB-shm"
head -c 8192 /dev/urandom >"$DB"
start_must_fail "a file that is not an SQLite database"
expect "$T/start.log" "$DB"
expect "$T/start.log" "cannot read the store: file is not a database"
cat "$T/start.log"
rm -f "$DB" "$DB-wal" "$DB-shm"
sz=$(stat -c %s "$T/old5.db")
head -c $((sz / 2)) "$T/old5.db" >"$DB"
start_must_fail "a store cut short"
expect "$T/start.log" "$DB"
grep -qiE "damaged|malformed|not a database" "$T/start.log" || fail "(e) no reason given: $(cat "$T/start.log")"
grep -qi "segmentation\|abort\|sanitizer" "$T/start.log" && fail "(e) acctd crashed: $(cat "$T/start.log")"
cat "$T/start.log"
finish
