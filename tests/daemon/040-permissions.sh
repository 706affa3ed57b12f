#!/usr/bin/env bash
# 040: SO_PEERCRED permission checks with a real second user. An
# unprivileged uid may read (status, partitions, show, versions, diff,
# samples, export) but every admin call (import, activate, rollback) is
# refused with PERMISSION and changes nothing; the same uid with acctd's
# admin group among its supplementary groups may activate. Needs root
# (useradd, setpriv): skipped with 77 otherwise.
. "$(dirname "$0")/lib.sh"
need_root
D=$ACCT_TEST_DATA
ensure_test_user || finish
USER_NAME=$TEST_USER
GROUP_NAME=$TEST_GROUP
uid=$(id -u "$USER_NAME")
gid=$(id -g "$USER_NAME")
agid=$(getent group "$GROUP_NAME" | cut -d: -f3)
id -nG "$USER_NAME" | grep -qw "$GROUP_NAME" && fail "$USER_NAME is in $GROUP_NAME already"

# as_user WANT ARGS...: acctctl as the unprivileged user (no supplementary groups)
as_user() {
    local want=$1
    shift
    run "$want" setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all \
        env ACCT_SOCKET="$SOCK" "$ACCTCTL" "$@"
}
as_admin_member() {
    local want=$1
    shift
    run "$want" setpriv --reuid="$uid" --regid="$gid" --groups="$agid" --inh-caps=-all \
        env ACCT_SOCKET="$SOCK" "$ACCTCTL" "$@"
}

cp "$D"/*.yaml "$T/" && chmod 644 "$T"/*.yaml
write_config "admin_group: $GROUP_NAME"
start_acctd || exit 1
ctl 0 import "$D/rules-eth-a.yaml" --activate
ctl 0 import "$D/rules-eth-b.yaml"

# Reading is for everybody.
as_user 0 status
as_user 0 partitions
expect "$T/out" "eth"
as_user 0 show -p eth
as_user 0 versions -p eth
as_user 0 diff 1 2
as_user 0 samples
as_user 0 export --format yaml -p eth
expect "$T/out" "acct_rules: 1"

# Admin calls are refused and change nothing.
as_user 1 import "$T/rules-eth-b.yaml"
expect "$T/err" "PERMISSION"
expect "$T/err" "needs root or a member of acctd's admin group"
as_user 1 import "$T/result-eth.yaml" --activate
expect "$T/err" "PERMISSION"
as_user 1 activate 2
expect "$T/err" "PERMISSION"
as_user 1 rollback -p eth
expect "$T/err" "PERMISSION"
as_user 1 reload
expect "$T/err" "PERMISSION"
as_user 1 refine
expect "$T/err" "PERMISSION"
as_user 1 policy -p eth --clear
expect "$T/err" "PERMISSION"
ctl 0 versions -p eth --format tsv
[ "$(tail -n +2 "$T/out" | wc -l)" -eq 2 ] || fail "an unprivileged import added a version"
[ "$(awk -F'\t' '$2 == "true" { print $1 }' "$T/out")" = 1 ] || fail "an unprivileged activate changed the active version"
validate_line=$("$ACCTCTL" validate "$T/run/rules/eth/tcp-1g.yaml")
case $validate_line in *"version 1)"*) ;; *) fail "the rules file changed: $validate_line" ;; esac

# A member of the admin group (supplementary group) may.
as_admin_member 0 activate 2
expect "$T/out" "activated version 2"
as_admin_member 0 rollback -p eth
expect "$T/out" "to version 1"
finish
