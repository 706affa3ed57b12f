# Sourced by acctd's benchmark scripts (bench-acctd.sh, bench-list-samples.sh).
# bench_start_acctd ACCTD NAME [ACCTD OPTIONS...]: make a temporary
# directory T (/tmp/NAME.XXXXXX) that an EXIT trap removes after killing the
# daemon, start acctd in the foreground on it (state, runtime and policy
# directories, log in $T/log) and wait for its socket. Sets T, PID and
# SOCK; exits 1 with the log if acctd does not come up.
bench_start_acctd() {
    local acctd=$1
    T=$(mktemp -d "/tmp/$2.XXXXXX")
    PID=
    trap '[ -n "$PID" ] && kill -KILL $PID 2>/dev/null; rm -rf "$T"' EXIT
    local dir=$T
    shift 2
    "$acctd" -f --state-dir "$dir/state" --runtime-dir "$dir/run" --policy-dir "$dir/pol" \
        --refine-interval 0 --log-level warn "$@" >"$dir/log" 2>&1 &
    PID=$!
    SOCK=$dir/run/acctd.sock
    for _ in $(seq 100); do [ -S "$SOCK" ] && return 0; sleep 0.1; done
    echo "acctd did not start:"
    cat "$dir/log"
    exit 1
}
