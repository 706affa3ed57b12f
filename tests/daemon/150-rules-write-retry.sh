#!/usr/bin/env bash
# 150: a rules file that cannot be written (full runtime directory) is not
# a silent success. acctd runs in a private mount namespace (unshare -m)
# whose rules directory is a 64 KiB tmpfs; the test fills it (nsenter into
# that namespace), then ACTIVATE: the version is active (SHOW, GET_RULES),
# but the reply carries a WARNING naming the file and ENOSPC, acctctl
# activate prints it and exits 3, STATUS counts the pair in RULES_PENDING
# and says why. Once space is freed, acctd writes the file by itself (its
# retry timer), without another request. The tmpfs goes away with acctd's
# namespace.
. "$(dirname "$0")/lib.sh"
need_root
D=$ACCT_TEST_DATA
RULES=$T/run/rules
F=$RULES/eth/tcp-1g.yaml
mkdir -p "$RULES"
# acctd in its own mount namespace with a tiny tmpfs on the rules directory
# (unshare execs: the PID is acctd's)
ACCTD_REAL=$ACCTD
cat >"$T/acctd-ns" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount -t tmpfs -o size=64k,mode=0755 acct-test "\$0" && exec "\$@"' "$RULES" "$ACCTD_REAL" "\$@"
EOF
chmod 755 "$T/acctd-ns"
ACCTD=$T/acctd-ns
write_config "rules_dir: $RULES"
start_acctd || exit 1
# in acctd's namespace
in_ns() { nsenter -t "$ACCTD_PID" -m -- "$@"; }
# Waits (60 s at most) until $F holds version 2; else fails, WHEN saying since what.
wait_written() {
    for _ in $(seq 600); do
        in_ns "$ACCTCTL" validate "$F" >"$T/out" 2>&1
        if grep -qF "version 2)" "$T/out"; then return 0; fi
        sleep 0.1
    done
    fail "the rules file was not written within 60 s $1: $(cat "$T/out")"
}
in_ns findmnt -n -o FSTYPE "$RULES" >"$T/out" 2>&1
expect "$T/out" "tmpfs"
[ -e "$F" ] && fail "the tmpfs is visible outside acctd's namespace"

ctl 0 import "$D/rules-eth-a.yaml" --activate
ctl 0 import "$D/rules-eth-b.yaml"
in_ns "$ACCTCTL" validate "$F" >"$T/out" 2>&1
expect "$T/out" "ok (3 rules, partition eth, version 1)"
ctl 0 status --format tsv
[ "$(tsv_field rules_pending)" = 0 ] || fail "rules_pending $(tsv_field rules_pending) before the disk is full"

# fill the tmpfs
in_ns dd if=/dev/zero of="$RULES/zz-fill" bs=4k >/dev/null 2>&1
in_ns sh -c "echo x >'$RULES/zz-probe'" 2>/dev/null && fail "the tmpfs is not full"

ctl 3 activate 2
expect "$T/out" "activated version 2 of eth/tcp-1g (was 1)"
expect "$T/err" "acctctl activate: warning: the rules file of (eth, tcp-1g) is not written"
expect "$T/err" "$F: No space left on device"
# the store and GET_RULES say version 2; the file still holds version 1
ctl 0 partitions --format tsv
expect "$T/out" "$(printf 'eth\ttcp-1g\t2\t')"
in_ns "$ACCTCTL" validate "$F" >"$T/out" 2>&1
expect "$T/out" "version 1)"
ctl 0 status --format tsv
[ "$(tsv_field rules_pending)" = 1 ] || fail "status: rules_pending $(tsv_field rules_pending), expected 1"
expect "$T/err" "acctctl status: warning: rules file of (eth, tcp-1g) version 2 not written: cannot write $F: No space left on device; next try in"
# the same through the raw protocol (json keeps the count)
ctl 0 status --format json
expect "$T/out" '"rules_pending": 1'
# rollback (version 1's file is what is there: nothing to write) and
# activate again: still warned
ctl 0 rollback -p eth -i tcp-1g
ctl 0 status --format tsv
[ "$(tsv_field rules_pending)" = 0 ] || fail "after rollback to the file's version: rules_pending $(tsv_field rules_pending)"
ctl 3 activate 2
expect "$T/err" "No space left on device"
grep -q "rules files in $RULES: 1 not written; retrying in" "$LOG" || fail "no retry line in the log"

# free the space: the file appears without another request
in_ns rm -f "$RULES/zz-fill"
wait_written "after space was freed"
ctl 0 status --format tsv
[ "$(tsv_field rules_pending)" = 0 ] || fail "rules_pending $(tsv_field rules_pending) after the retry"
expect_not "$T/err" "warning"
grep -q "rules files in $RULES: all written again" "$LOG" || fail "no recovery line in the log"
in_ns sh -c "ls -A '$RULES/eth'" >"$T/out"
expect_not "$T/out" ".tcp-1g.yaml." # no temporary file left behind

# a rules directory that cannot be written at start: acctd starts, serves
# GET_RULES from the store, and writes the file once it can
stop_acctd
[ "$STOP_STATUS" = 0 ] || fail "acctd exited with $STOP_STATUS"
cat >"$T/acctd-ns" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount -t tmpfs -o size=64k,mode=0755 acct-test "\$0" && dd if=/dev/zero of="\$0/zz-fill" bs=4k >/dev/null 2>&1; exec "\$@"' "$RULES" "$ACCTD_REAL" "\$@"
EOF
start_acctd || exit 1
ctl 0 status --format tsv
[ "$(tsv_field rules_pending)" = 1 ] || fail "start on a full disk: rules_pending $(tsv_field rules_pending)"
in_ns test -e "$F" && fail "$F exists on a full tmpfs"
in_ns rm -f "$RULES/zz-fill"
wait_written "of a start on a full disk"
finish
