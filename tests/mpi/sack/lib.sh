# Sourced by the SACK test scripts (sack_check.sh, sack_rooted_check.sh,
# sack_auto.sh): the pieces every one of them needs.

# sack_test_init LIBACCT_SO MPIEXEC ARGS... PROGRAM
# Sets work (a scratch directory removed on exit), preload (libacct after
# any ACCT_TEST_PRELOAD, e.g. the sanitizer runtime), mpiexec, the
# launcher's arguments in the array launch_args, and prog (the last word).
sack_test_init() {
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    preload="${ACCT_TEST_PRELOAD:+$ACCT_TEST_PRELOAD }$1"
    shift
    mpiexec=$1
    shift
    prog=${!#}
    launch_args=("${@:1:$(($# - 1))}")
}

# sack_test_require_active: fail unless the job's ACCT_REPORT
# ($work/report.yaml) says ACCT was active.
sack_test_require_active() {
    grep -q '^active: true$' "$work/report.yaml" 2>/dev/null || { echo "ACCT was not active"; exit 1; }
}
