# Multi-node helpers of the acctd black-box tests (sourced after lib.sh): a
# private munged with its own key, followers started next to the test's
# primary, waiting for a condition. Everything started here is in
# EXTRA_PIDS, killed by lib.sh's cleanup.

# start_munged: a private munged; sets MUNGE_SOCK. Skips (77) without munged.
start_munged() {
    local m=$T/munge i
    command -v munged >/dev/null || { echo "$TEST_NAME: skipped (munged not installed)"; exit 77; }
    mkdir -p "$m" && chmod 755 "$m" # other users reach the socket, not the key
    head -c 1024 /dev/urandom >"$m/key" && chmod 600 "$m/key"
    munged --foreground --force --socket="$m/sock" --key-file="$m/key" --pid-file="$m/pid" \
        --log-file="$m/log" --seed-file="$m/seed" >/dev/null 2>&1 &
    EXTRA_PIDS="${EXTRA_PIDS:-} $!"
    for i in $(seq 100); do [ -S "$m/sock" ] && break; sleep 0.1; done
    [ -S "$m/sock" ] || { fail "munged did not start"; exit 1; }
    MUNGE_SOCK=$m/sock
}

# The system's python (an unprivileged user may not reach root's pyenv).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# free_port: a TCP port free on 127.0.0.1 now.
free_port() {
    "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_follower NAME PRIMARY [ARGS...]: a follower acctd with its own state
# in $T/NAME, syncing every second; its log is $T/NAME.log, its pid
# FOLLOWER_PID.
start_follower() {
    local name=$1 primary=$2
    shift 2
    "$ACCTD" -f -c "$CONF" --state-dir "$T/$name/state" --runtime-dir "$T/$name/run" \
        --primary "$primary" --sync-interval 1 --munge-socket "$MUNGE_SOCK" "$@" \
        >>"$T/$name.log" 2>&1 &
    FOLLOWER_PID=$!
    EXTRA_PIDS="${EXTRA_PIDS:-} $FOLLOWER_PID"
}

# fctl NAME WANT ARGS...: acctctl against follower NAME.
fctl() {
    local name=$1
    shift
    ACCT_SOCKET=$T/$name/run/acctd.sock ctl "$@"
}

# wait_for WHAT CMD...: until CMD succeeds (60 s; the machine may be loaded).
wait_for() {
    local what=$1 i
    shift
    for i in $(seq 600); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    fail "timed out waiting for: $what"
    return 1
}

# count_ge FILE REGEX N: FILE has at least N lines matching REGEX.
count_ge() {
    [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]
}
