#!/usr/bin/env bash
# unit.spank_symbols: spank_acct.so exports exactly the SPANK entry points
# and the plugin_* symbols SPANK looks up, nothing else; its only undefined
# Slurm symbols are the ones slurmstepd/srun provide (spank_*, slurm_*).
set -u
so=${1:?usage: test_symbols.sh SPANK_ACCT_SO}
fails=0
check() {
  local what=$1
  shift
  if "$@"; then echo "ok   - $what"; else echo "FAIL - $what"; fails=$((fails + 1)); fi
}
defined=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
want="plugin_name plugin_type plugin_version slurm_spank_exit slurm_spank_init slurm_spank_init_post_opt slurm_spank_user_init spank_plugin_version "
check "exports exactly: $want(got: $defined)" test "$defined" = "$want"
# Undefined symbols: Slurm's (spank_*, slurm_*), libc's, and in a sanitizer
# build the sanitizer runtime's (__asan_*, __ubsan_*: leading underscores).
libc=$(ldd "$so" | awk '$1 ~ /^libc\.so/ {print $3}')
extra=$(comm -23 \
  <(nm -D --undefined-only "$so" | awk '{print $2}' | sed 's/@.*//' \
    | grep -v -e '^spank_' -e '^slurm_' -e '^_' | sort -u) \
  <(nm -D --defined-only "${libc:-/lib/x86_64-linux-gnu/libc.so.6}" | awk '{print $3}' | sed 's/@.*//' | sort -u) \
  | tr '\n' ' ')
check "no undefined symbol outside libc, spank_* and slurm_* (extra: $extra)" test -z "$extra"
check "no libyaml or libmpi dependency" bash -c "! objdump -p '$so' | grep -E 'NEEDED.*(yaml|mpi)'"
echo "$fails failed"
((fails == 0))
