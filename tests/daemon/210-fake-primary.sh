#!/usr/bin/env bash
# 150: a follower authenticates its primary, and the primary its followers
# (docs/acctd.md "Security model", docs/protocol.md "TCP"). A real primary
# and real followers over TCP with a private munged; the attacker is a real
# unprivileged user (fake-primary.py):
#  - while the primary is down, the user holds its port and answers as a
#    primary would (its own credential, no proof, a forged SYNC reply): the
#    follower gives it no credential, asks it for nothing and activates
#    nothing; back with the real primary it follows again;
#  - on the network path (a relay between a follower and the real primary),
#    the user's forged SYNC reply is refused by the follower and its own
#    request on the relayed connection by the primary; the follower's proof
#    it captured is refused when replayed;
#  - a genuine proof works once: replayed, for another port, for a
#    destination longer than any HOST:PORT, with another
#    nonce, with one more line, or encoded by the user, it is refused.
# Needs root (munged's key, a second user): skipped with 77 otherwise.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/munge-lib.sh"
need_root
ensure_test_user || finish
FAKE=$(cd "$(dirname "$0")" && pwd)/fake-primary.py
D=$ACCT_TEST_DATA
uid=$(id -u "$TEST_USER")
gid=$(id -g "$TEST_USER")
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all "$@"; }
start_munged
PORT=$(free_port)
PRIMARY=127.0.0.1:$PORT
sed 's/^  version: .*/  version: 999999999/' "$D/rules-eth-b.yaml" >"$T/forged.yaml"
chmod 644 "$T/forged.yaml"
: >"$T/fake.log" && : >"$T/relay.log" && chmod 666 "$T/fake.log" "$T/relay.log"
forged_count() { sqlite3 "$T/$1/state/acct.db" "SELECT count(*) FROM versions WHERE id = 999999999"; }

write_config
start_acctd --listen "$PRIMARY" --munge-socket "$MUNGE_SOCK" || exit 1
ctl 0 import "$D/rules-eth-a.yaml" --activate

# ---- the follower follows the real primary
start_follower f "$PRIMARY"
wait_for "follower f materialises the primary's version" \
    cmp -s "$T/run/rules/eth/tcp-1g.yaml" "$T/f/run/rules/eth/tcp-1g.yaml"
fctl f 0 status
expect "$T/out" "following $PRIMARY (its newest version 1)"

# ---- acctd restarts; an unprivileged user holds its port meanwhile
stop_acctd
setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all "$PY" "$FAKE" serve "$PRIMARY" "$MUNGE_SOCK" "$T/forged.yaml" "$T/fake.log" &
FAKE_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $FAKE_PID"
# each of its three answers, then once more
wait_for "the follower tries the fake primary 5 times" count_ge "$T/fake.log" '^connection' 5
kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
grep -q '^listening' "$T/fake.log" || fail "the fake primary did not bind $PRIMARY"
expect_not "$T/fake.log" "cred "  # the follower sent no credential ...
expect_not "$T/fake.log" "asked-sync" # ... and asked for nothing
expect "$T/f.log" "failed to prove it is the primary: the credential is uid $uid's, not root's"
expect "$T/f.log" "did not prove it is the primary (no NONCE and credential"
expect "$T/f.log" "answered AUTH with a SYNC"
[ "$(forged_count f)" = 0 ] || fail "follower f stored the fake primary's version"
cmp -s "$T/run/rules/eth/tcp-1g.yaml" "$T/f/run/rules/eth/tcp-1g.yaml" ||
    fail "follower f's rules changed while the fake primary answered"
fctl f 0 status
expect "$T/out" "failing: "

# ---- the real primary is back: the follower follows it again
start_acctd --listen "$PRIMARY" --munge-socket "$MUNGE_SOCK" || exit 1
ctl 0 import "$D/rules-eth-b.yaml" --activate
wait_for "follower f takes version 2 from the real primary" \
    cmp -s "$T/run/rules/eth/tcp-1g.yaml" "$T/f/run/rules/eth/tcp-1g.yaml"
fctl f 0 status
expect "$T/out" "following $PRIMARY (its newest version 2)"

# ---- on the network path: a relay to the real primary that forges the SYNC reply
setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all "$PY" "$FAKE" relay "127.0.0.2:$PORT" "$PRIMARY" "$MUNGE_SOCK" "$T/forged.yaml" \
    "$T/relay.log" &
RELAY_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $RELAY_PID"
wait_for "the relay listens" grep -q '^listening' "$T/relay.log"
start_follower g "127.0.0.2:$PORT"
wait_for "the relay forged 2 SYNC replies and injected 2 requests" \
    count_ge "$T/relay.log" '^primary-said 255' 2
kill "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
expect "$T/g.log" "is not the primary's: the credential is uid $uid's, not root's"
expect "$T/relay.log" "primary-said 255 SAMPLES: signature refused: the credential is uid $uid's"
[ "$(forged_count g)" = 0 ] || fail "follower g stored the forged version"
[ -e "$T/g/run/rules/eth/tcp-1g.yaml" ] && fail "follower g activated what the relay forged"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM sample_stats WHERE job = '666.0'")" = 0 ] ||
    fail "the primary stored the relay's samples"
# every credential the follower sent the relay, replayed at the real primary
for cred in $(grep '^cred ' "$T/relay.log" | cut -d' ' -f2 | sort -u); do
    echo "$cred" >"$T/captured.cred"
    "$PY" "$FAKE" auth "$PRIMARY" "$MUNGE_SOCK" replay "$T/captured.cred" >>"$T/replays" 2>&1
done
[ "$(grep -c '^replay: refused AUTH: ' "$T/replays")" -ge 2 ] ||
    fail "expected at least 2 captured follower proofs, all refused: $(cat "$T/replays")"
expect_not "$T/replays" "accepted"

# ---- the primary's checks of a proof, one by one
auth() { "$PY" "$FAKE" auth "$PRIMARY" "$MUNGE_SOCK" "$@" >>"$T/auth.out" 2>&1; }
auth good "$T/good.cred"
auth replay "$T/good.cred"
auth other-port
auth long-dest
auth wrong-nonce
auth extra-line
as_user "$PY" "$FAKE" auth "$PRIMARY" "$MUNGE_SOCK" mine >>"$T/auth.out" 2>&1
cat "$T/auth.out"
expect "$T/auth.out" "good: accepted"
expect "$T/auth.out" "replay: refused AUTH: munge credential refused: Replayed credential"
expect "$T/auth.out" "other-port: refused AUTH: the proof is for \"127.0.0.1:$((PORT + 1))\", not this primary's port $PORT"
expect "$T/auth.out" "long-dest: refused AUTH: the proof's destination is longer than 274 bytes"
expect "$T/auth.out" "wrong-nonce: refused AUTH: the proof binds another connection's nonces"
expect "$T/auth.out" "extra-line: refused AUTH: the proof binds another connection's nonces"
expect "$T/auth.out" "mine: refused AUTH: the credential is uid $uid's; a follower acctd runs as root"
finish
