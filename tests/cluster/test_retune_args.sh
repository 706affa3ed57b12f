#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2034  # the checks' eval bodies expand (and use variables) when they run
# unit.retune_args: `acctctl retune ... -- ARGS` hands ARGS to acct-tune in
# the job script, each shell-quoted, in order (--dry-run: no Slurm, no
# acctd needed; acctd unreachable makes the exit status 1).
# usage: test_retune_args.sh ACCTCTL
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"
acctctl=${1:?usage: test_retune_args.sh ACCTCTL}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --nodes and --max-comm-size given: no scontrol needed
dry() { "$acctctl" retune -p eth -i tcp-1g --nodes 2 --max-comm-size 16 -w "$tmp" -s "$tmp/none.sock" --dry-run "$@"; }

dry --ops bcast -- --sizes 1K,64K --comm-sizes 2,4 "it's" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "dry run without acctd: exit 1, the script printed" \
  eval '[[ $rc == 1 ]] && grep -q "^srun --mpi=pmix " "$tmp/out"'
# The srun line as the job's shell parses it, one word per line.
words() { # SCRIPT
  # shellcheck disable=SC2016  # expanded by the inner bash
  bash -c 'srun() { printf "%s\n" "$@"; }; dir=/d result=/d/r rules=/d/s
    eval "$(sed -n "/^srun --mpi=pmix/,/--progress\$/p" "$1")"' words "$1"
}
words "$tmp/out" >"$tmp/words"
printf '%s\n' --collectives bcast --max-comm-size 16 --sizes 1K,64K --comm-sizes 2,4 "it's" --progress >"$tmp/want"
check "the arguments after -- reach acct-tune verbatim, in order, after acctctl's own" \
  eval 'tail -n 10 "$tmp/words" | diff "$tmp/want" - >/dev/null'
check "the script is valid shell" bash -n "$tmp/out"
dry >"$tmp/out2" 2>&1
words "$tmp/out2" >"$tmp/words2"
check "without --, no extra argument" \
  eval '[[ $(tail -n 5 "$tmp/words2" | tr "\n" " ") == "--rules /d/s --max-comm-size 16 --progress " ]]'
args=()
for ((i = 0; i < 65; i++)); do args+=(--reps); done
dry -- "${args[@]}" >"$tmp/out3" 2>&1
rc3=$?
check "more than 64 arguments after --: usage error (exit 2)" \
  eval '[[ $rc3 == 2 ]] && grep -q "at most 64 acct-tune arguments" "$tmp/out3"'
dry -- "$(printf 'a\nb')" >"$tmp/out4" 2>&1
rc4=$?
check "an argument with a newline: usage error (exit 2)" \
  eval '[[ $rc4 == 2 ]] && grep -q "a newline" "$tmp/out4"'
finish
