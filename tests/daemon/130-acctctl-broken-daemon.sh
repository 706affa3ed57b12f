#!/usr/bin/env bash
# 130: acctctl's own error handling. Against a broken daemon (acctd-raw serve: a fake acctd that
# closes, sends a bad magic, the wrong reply type, an empty error, an empty
# reply or half a reply): every command fails with exit status 1 and a
# message saying what went wrong, never crashes or hangs; and a stale
# socket (nobody listening) is reported as acctd not running; bad command
# lines are refused with exit status 2 before connecting.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/run"

for mode in close bad-magic wrong-type empty-error empty-reply truncated; do
    "$ACCTD_RAW" "$SOCK" serve "$mode" >"$T/serve.log" 2>&1 &
    server=$!
    EXTRA_PIDS=$server
    for i in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
    for cmd in "status" "partitions" "show -p eth" "show --version 3" "versions -p eth" \
        "diff 1 2" "activate 2" "rollback -p eth -i tcp" "samples" \
        "import $ACCT_TEST_DATA/rules-eth-a.yaml --activate" "export -p eth -i tcp" \
        "refine" "reload" "status --format json"; do
        # An empty success reply is a valid answer for the listing
        # commands (nothing to list) and RELOAD (no reply fields); every
        # other command needs fields it does not get.
        want=1
        if [ "$mode" = empty-reply ]; then
            case $cmd in partitions | samples | reload) want=0 ;; esac
        fi
        # shellcheck disable=SC2086
        timeout 30 "$ACCTCTL" $cmd >"$T/out" 2>"$T/err" </dev/null
        rc=$?
        if [ "$rc" -ne "$want" ]; then
            fail "$mode: acctctl $cmd: exit status $rc, expected $want"
            sed 's/^/  /' "$T/err" | head -5 >&2
        fi
        [ "$want" -eq 0 ] || [ -s "$T/err" ] || fail "$mode: acctctl $cmd: no message"
        [ "$mode $cmd" = "empty-reply activate 2" ] && cp "$T/err" "$T/err.activate"
        grep -q 'AddressSanitizer\|runtime error' "$T/err" && fail "$mode: acctctl $cmd: sanitizer report"
    done
    case $mode in
    close) expect "$T/err" "connection closed by acctd" ;;
    bad-magic) expect "$T/err" "sent a malformed reply (bad message)" ;;
    truncated) expect "$T/err" "connection closed by acctd" ;;
    wrong-type) expect "$T/err" "answered STATUS with message type" ;;
    empty-error) expect "$T/err" "acctd refused" ;;
    empty-reply) expect "$T/err.activate" "acctd's ACTIVATE reply has no PARTITION" ;;
    esac
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    EXTRA_PIDS=
    rm -f "$SOCK"
done

# Bad command lines are refused before any connection (exit status 2).
ctl 2 status --bogus
expect "$T/err" "unknown option --bogus"
expect "$T/err" 'Try "acctctl help status"'
ctl 2 show -p
expect "$T/err" "needs a value"
ctl 2 versions -p 'a b'
expect "$T/err" '--partition: "a b" is not a name'
ctl 2 show --version 3 -p eth
ctl 2 samples --collective nosuch
ctl 2 diff 1 x
ctl 2 activate
ctl 2 status --format xml
ctl 2 export --format xml
ctl 2 policy -p eth
ctl 0 activate --help
expect "$T/out" "Usage: acctctl activate V"

# A socket file nobody listens on (acctd killed): "not running", with the hint.
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$SOCK"
ctl 1 status
expect "$T/err" "Connection refused"
expect "$T/err" "acctd is not running there"
finish
