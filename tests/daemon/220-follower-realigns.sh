#!/usr/bin/env bash
# 160: a follower that is ahead of its primary or diverged from it says so
# in status and realigns to the primary's active versions (docs/acctd.md
# "Multi-node"). A real primary and follower over TCP with a private
# munged. The follower's store is forged with sqlite3 while it is down, as
# an unauthenticated sync of an older acctd could have left it: a version
# with a huge id active for (eth, tcp-1g) and one for a pair the primary does
# not have. With the primary away the follower keeps serving what it has;
# once the primary is back it activates the primary's version, drops the
# pair the primary does not have and reports the versions above the
# primary's newest. Then a version id the primary uses for other content:
# the follower reports the divergence and serves no version of that pair
# rather than its own. Also: SYNC marks the active version ACTIVE=1.
# Needs root (munged's key): skipped with 77 otherwise.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/munge-lib.sh"
need_root
FAKE=$(cd "$(dirname "$0")" && pwd)/fake-primary.py
D=$ACCT_TEST_DATA
start_munged
PORT=$(free_port)
PRIMARY=127.0.0.1:$PORT
FDB=$T/f/state/acct.db
FRULES=$T/f/run/rules
write_config
start_acctd --listen "$PRIMARY" --munge-socket "$MUNGE_SOCK" || exit 1
ctl 0 import "$D/rules-eth-a.yaml" --activate

start_follower f "$PRIMARY"
wait_for "the follower takes version 1" cmp -s "$T/run/rules/eth/tcp-1g.yaml" "$FRULES/eth/tcp-1g.yaml"
stop_follower() {
    kill -TERM "$FOLLOWER_PID"
    wait "$FOLLOWER_PID" || fail "the follower exited with status $?"
}
stop_follower

# forge(ID PARTITION INTERCONNECT FILE ACTIVATE): a version in the follower's store
forge() {
    sed -e "s/^  version: .*/  version: $1/" -e "s/^  partition: .*/  partition: $2/" \
        -e "s/^  interconnect: .*/  interconnect: $3/" "$4" >"$T/forged-$1.yaml"
    sqlite3 "$FDB" "INSERT INTO versions VALUES ($1, '$2', '$3', 'manual', '2026-11-21T10:00:00Z',
        '', 0, 'import', -1, 12345, CAST(readfile('$T/forged-$1.yaml') AS TEXT))" ||
        fail "cannot forge version $1"
    [ "$5" = 1 ] || return 0
    sqlite3 "$FDB" "INSERT INTO activations (partition, interconnect, version, at, reason, uid)
        VALUES ('$2', '$3', $1, '2026-11-21T10:00:00Z', 'sync from primary', -1)" ||
        fail "cannot activate forged version $1"
}
forge 999999999 eth tcp-1g "$D/rules-eth-b.yaml" 1
forge 999999998 evil tcp "$D/rules-eth-b.yaml" 1

# the primary moves on while it is away; the follower serves what it has
ctl 0 import "$D/rules-eth-b.yaml" --activate
stop_acctd
start_follower f "$PRIMARY"
wait_for "the follower notices the primary is away" grep -q "cannot reach the primary" "$T/f.log"
wait_for "the follower serves its forged version meanwhile" grep -q "version: 999999999" "$FRULES/eth/tcp-1g.yaml"
fctl f 0 status
expect "$T/out" "failing: cannot reach the primary $PRIMARY"

# the primary is back: the follower realigns
start_acctd --listen "$PRIMARY" --munge-socket "$MUNGE_SOCK" || exit 1
wait_for "the follower takes the primary's version 2" \
    cmp -s "$T/run/rules/eth/tcp-1g.yaml" "$FRULES/eth/tcp-1g.yaml"
wait_for "the follower drops the pair the primary does not have" test ! -e "$FRULES/evil/tcp.yaml"
fctl f 0 status
expect "$T/out" "following $PRIMARY (its newest version 2)"
expect "$T/out" "AHEAD of the primary: 2 version(s) here above its newest 2 (up to 999999999), not active"
fctl f 0 partitions
expect "$T/out" "eth"
expect_not "$T/out" "evil"
expect "$T/f.log" "holds 2 version(s) above the primary's newest 2"

# SYNC names the active version ACTIVE=1, the others ACTIVE=0
"$PY" "$FAKE" sync-unix "$SOCK" >"$T/sync.out"
expect "$T/sync.out" "1 0"
expect "$T/sync.out" "2 1"
expect "$T/sync.out" "NEWEST 2"

# a version id the primary will use for other content
stop_follower
forge 3 eth tcp-1g "$D/rules-eth-b.yaml" 0
start_follower f "$PRIMARY"
f_status_has() { ACCT_SOCKET=$T/f/run/acctd.sock "$ACCTCTL" status 2>&1 | grep -qF -- "$1"; }
wait_for "the follower syncs again" f_status_has "following $PRIMARY"
ctl 0 import "$D/rules-eth-a.yaml" --activate # version 3 on the primary
wait_for "the follower reports the divergence" grep -q "version 3 here differs from the primary's" "$T/f.log"
wait_for "the follower serves no version of (eth, tcp-1g) rather than its own" \
    test ! -e "$FRULES/eth/tcp-1g.yaml"
fctl f 0 status
expect "$T/out" "DIVERGED: 1 version(s) here differ from the primary's (first 3)"
expect "$T/out" "1 pair(s) without the primary's active version"
expect "$T/f.log" "(eth, tcp-1g): the primary's active version 3 is different here"
finish
