#!/usr/bin/env bash
# 060: oversized messages. A header announcing more than the admin limit
# (64 MiB + 64 KiB) is refused with TOO_LARGE before the body is read; an
# unprivileged user's body over 1 MiB likewise (a real second user, needs
# root: that part is skipped otherwise); acctctl refuses to send a file
# over 64 MiB. The daemon survives each.
. "$(dirname "$0")/lib.sh"
write_config
start_acctd || exit 1

"$ACCTD_RAW" "$SOCK" too-large $((64 * 1024 * 1024 + 64 * 1024 + 1)) >"$T/raw"
expect "$T/raw" "err=TOO_LARGE closed=yes"
acctd_alive || fail "acctd died after an oversized header"

# Root may send a 2 MiB body (under its limit): the daemon reads it and
# answers (these zero bytes are not a valid message).
"$ACCTD_RAW" "$SOCK" too-large-sent $((2 * 1024 * 1024)) >"$T/raw"
expect "$T/raw" "reply=ERROR"
expect_not "$T/raw" "TOO_LARGE"
acctd_alive || fail "acctd died after a 2 MiB message"

if [ "$(id -u)" -eq 0 ]; then
    ensure_test_user
    USER_NAME=$TEST_USER
    setpriv --reuid="$(id -u "$USER_NAME")" --regid="$(id -g "$USER_NAME")" --clear-groups \
        "$ACCTD_RAW" "$SOCK" too-large-sent $((2 * 1024 * 1024)) >"$T/raw" 2>&1
    expect "$T/raw" "err=TOO_LARGE closed=yes"
    setpriv --reuid="$(id -u "$USER_NAME")" --regid="$(id -g "$USER_NAME")" --clear-groups \
        "$ACCTD_RAW" "$SOCK" too-large $((1024 * 1024 + 1)) >"$T/raw" 2>&1
    expect "$T/raw" "err=TOO_LARGE closed=yes"
    acctd_alive || fail "acctd died after a user's oversized message"
else
    echo "$TEST_NAME: not root: the unprivileged-user part is skipped"
fi

truncate -s $((64 * 1024 * 1024 + 1)) "$T/huge.yaml"
ctl 1 import "$T/huge.yaml"
expect "$T/err" "larger than"
ctl 0 status
finish
