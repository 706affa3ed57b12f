# Shared helpers of the numbered acctd black-box tests (sourced, bash).
#
# Every test runs a REAL acctd in the foreground on a fresh temporary
# directory with its own config, store, rules directory and socket, talks to
# it over the socket (acctctl, acctd-raw, acctd-bench), and always stops it
# by PID and removes the directory (trap), even when it fails.
#
# Environment (set by tests/daemon/CMakeLists.txt):
#   ACCTD ACCTCTL ACCTD_RAW ACCTD_BENCH ACCTD_CLIENT  the programs under test
#   ACCT_TEST_DATA                       tests/daemon/data
#   ACCT_DB_DIR                          db/ (the store's numbered migrations)
set -u

# The newest store schema this build knows: the highest db/NNNN_*.sql.
SCHEMA=$(find "${ACCT_DB_DIR:-/nonexistent}" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]_*.sql' \
    -printf '%f\n' 2>/dev/null | sort | tail -1 | cut -c1-4 | sed 's/^0*//')

T=$(mktemp -d /tmp/acct-daemon-test.XXXXXX) || exit 1
chmod 755 "$T" # an unprivileged test user must reach the socket
SOCK=$T/run/acctd.sock
DB=$T/state/acct.db
CONF=$T/acctd.yaml
LOG=$T/acctd.log
export ACCT_SOCKET=$SOCK
ACCTD_PID=
failures=0
TEST_NAME=$(basename "$0" .sh)

stop_acctd() {
    # SIGTERM (finish the current transaction, exit 0), then SIGKILL after 10 s.
    local pid=$ACCTD_PID i
    [ -n "$pid" ] || return 0
    ACCTD_PID=
    kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    for i in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "acctd (pid $pid) ignored SIGTERM for 10 s: killing it" >&2
        kill -KILL "$pid" 2>/dev/null
        failures=$((failures + 1))
    fi
    wait "$pid" 2>/dev/null
    STOP_STATUS=$?
    return 0
}

cleanup() {
    local rc=$?
    stop_acctd
    [ -n "${EXTRA_PIDS:-}" ] && for p in $EXTRA_PIDS; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -f "$LOG" ]; then
        echo "---- acctd log (last 40 lines) ----" >&2
        tail -n 40 "$LOG" >&2
    fi
    rm -rf "$T"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "FAIL [$TEST_NAME]: $*" >&2
    failures=$((failures + 1))
}

# The config of this test (extra lines appended as given).
write_config() {
    mkdir -p "$T/policies"
    {
        echo "# acctd config of test $TEST_NAME"
        echo "state_dir: $T/state"
        echo "runtime_dir: $T/run"
        echo "policy_dir: $T/policies"
        echo "socket_mode: 0666"
        echo "log_level: debug"
        echo "node: testnode"
        for line in "$@"; do echo "$line"; done
    } >"$CONF"
}

# Start acctd in the foreground; wait until it answers STATUS (20 s).
start_acctd() {
    [ -f "$CONF" ] || write_config
    "$ACCTD" -f -c "$CONF" "$@" >>"$LOG" 2>&1 &
    ACCTD_PID=$!
    local i
    for i in $(seq 200); do
        if ! kill -0 "$ACCTD_PID" 2>/dev/null; then
            wait "$ACCTD_PID"
            echo "acctd exited with status $? while starting:" >&2
            tail -n 20 "$LOG" >&2
            ACCTD_PID=
            return 1
        fi
        if [ -S "$SOCK" ] && "$ACCTCTL" status >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.1
    done
    echo "acctd did not answer on $SOCK within 20 s" >&2
    return 1
}

# start_must_fail WHY: start acctd with $CONF; it must exit non-zero within
# 10 s (output in $T/start.log) and leave nothing serving on the socket.
start_must_fail() {
    "$ACCTD" -f -c "$CONF" >"$T/start.log" 2>&1 &
    local pid=$! i st
    EXTRA_PIDS=$pid
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        fail "acctd runs with $1"
        kill -TERM "$pid"
    fi
    wait "$pid"
    st=$?
    EXTRA_PIDS=
    [ "$st" -ne 0 ] || fail "acctd exited 0 with $1"
    [ -S "$SOCK" ] && "$ACCTCTL" status >/dev/null 2>&1 && fail "acctd serves with $1"
    return 0
}

# kill -9 the daemon (a crash), reap it.
crash_acctd() {
    [ -n "$ACCTD_PID" ] || return 0
    kill -KILL "$ACCTD_PID" 2>/dev/null
    wait "$ACCTD_PID" 2>/dev/null
    ACCTD_PID=
}

acctd_alive() {
    [ -n "$ACCTD_PID" ] && kill -0 "$ACCTD_PID" 2>/dev/null
}

# run WANT CMD ARGS...: output in $T/out and $T/err; checks the exit status.
run() {
    local want=$1
    shift
    "$@" >"$T/out" 2>"$T/err" </dev/null
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$*: exit status $got, expected $want"
        sed 's/^/  stdout: /' "$T/out" | head -20 >&2
        sed 's/^/  stderr: /' "$T/err" | head -20 >&2
    fi
    return 0
}

# ctl WANT ARGS...: run acctctl.
ctl() {
    local want=$1
    shift
    run "$want" "$ACCTCTL" "$@"
}

# expect FILE STRING: FILE has a line containing STRING (fixed string).
expect() {
    grep -qF -- "$2" "$1" || {
        fail "expected \"$2\" in $(basename "$1"):"
        sed 's/^/  /' "$1" | head -20 >&2
    }
}

expect_not() {
    if grep -qF -- "$2" "$1"; then
        fail "did not expect \"$2\" in $(basename "$1"):"
        sed 's/^/  /' "$1" | head -20 >&2
    fi
}

# field NAME: value of NAME in "acctctl status --format tsv" (or other
# key<TAB>value output in $T/out).
tsv_field() {
    awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$T/out"
}

# register_step JOB UID PARTITION INTERCONNECT: what spank_acct does (as
# root) at a step's start: acctd then accepts samples of JOB from UID only.
register_step() {
    "$ACCTD_CLIENT" -s "$SOCK" STEP JOB="$1" UID="$2" PARTITION="$3" INTERCONNECT="$4" \
        >"$T/step.out" 2>&1 || { fail "STEP $1 for uid $2: $(cat "$T/step.out")"; return 1; }
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$TEST_NAME: $failures failure(s)" >&2
        exit 1
    fi
    echo "$TEST_NAME: ok"
    exit 0
}

# A real unprivileged user (and a group for acctd's admin_group), created
# once and left in place: tests running in parallel share them, so a
# concurrent creation is fine too.
TEST_USER=acct-test-user
TEST_GROUP=acct-test-admin
ensure_test_user() {
    getent group "$TEST_GROUP" >/dev/null || groupadd -r "$TEST_GROUP" 2>/dev/null ||
        getent group "$TEST_GROUP" >/dev/null || { fail "groupadd $TEST_GROUP"; return 1; }
    id -u "$TEST_USER" >/dev/null 2>&1 ||
        useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$TEST_USER" 2>/dev/null ||
        id -u "$TEST_USER" >/dev/null 2>&1 || { fail "useradd $TEST_USER"; return 1; }
}

# ensure_user NAME: another real unprivileged user (created once, shared).
ensure_user() {
    id -u "$1" >/dev/null 2>&1 || useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$1" 2>/dev/null ||
        id -u "$1" >/dev/null 2>&1 || { fail "useradd $1"; return 1; }
}

# as USER CMD...: run CMD as USER (uid, primary gid, no other groups).
as() {
    local u=$1
    shift
    setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups "$@"
}

need_root() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "$TEST_NAME: skipped (needs root)"
        exit 77
    fi
}
