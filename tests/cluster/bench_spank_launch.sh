#!/usr/bin/env bash
# bench_spank_launch.sh: what spank_acct.so costs a job step's launch.
# Times `srun -N4 -n4 true` (tasks preloaded with libacct.so: the loader
# initialises, finds no MPI, does nothing) with the plugin in plugstack.conf
# and without it, alternating, and prints the medians side by side. Not a
# test: a figure for docs/performance.md.
#
# usage (as root):
#   tests/cluster/with-cluster.sh tests/cluster/bench_spank_launch.sh SPANK_ACCT_SO LIBACCT_SO [RUNS]
set -u
so=${1:?usage: bench_spank_launch.sh SPANK_ACCT_SO LIBACCT_SO [RUNS]} lib=${2:?libacct.so}
runs=${3:-15}
[[ -n ${ACCT_CLUSTER_SHARED:-} ]] || { echo "run me under with-cluster.sh" >&2; exit 2; }
so=$(readlink -f "$so") lib=$(readlink -f "$lib")
work=$ACCT_CLUSTER_SHARED/bench-launch-$$
mkdir -p "$work"
cd "$work" || exit 1
for n in acct-n1 acct-n2 acct-n3 acct-n4; do
  d=$ACCT_CLUSTER_DIR/nodes/$n/run-acct
  mkdir -p "$d/lib" "$d/rules/eth"
  cp "$lib" "$(dirname "$lib")/libacct_rt.so" "$d/lib/"
  printf 'acct_rules: 1\nprovenance: {partition: eth, interconnect: tcp-1g, version: 1, source: manual, created: "2026-11-22T12:00:00Z"}\ncollectives: {}\n' \
    >"$d/rules/eth/tcp-1g.yaml"
done
echo "optional $so lib=/run/acct/lib/libacct.so interconnect_map=eth:tcp-1g" >with.conf
: >without.conf

launch() { # CONF -> seconds of one srun
  ACCT_CLUSTER_PLUGSTACK=$1 "$ACCT_CLUSTER" up >/dev/null 2>&1 || return 1
  local t0 t1
  t0=$(date +%s.%N)
  srun -p eth -N4 -n4 -t 1 true || return 1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.6f\n", b - a}'
}
srun -p eth -N4 -n4 -t 1 true # warm-up
for _ in $(seq 1 "$runs"); do
  launch "$work/without.conf" >>without.txt
  launch "$work/with.conf" >>with.txt
done
median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
range() { sort -g "$1" | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.3f-%.3f", lo, hi}'; }
printf '%-22s %8s %14s %5s\n' "srun -N4 -n4 true" median range runs
printf '%-22s %8.3f %14s %5d\n' "without spank_acct" "$(median without.txt)" "$(range without.txt)" "$(wc -l <without.txt)"
printf '%-22s %8.3f %14s %5d\n' "with spank_acct" "$(median with.txt)" "$(range with.txt)" "$(wc -l <with.txt)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$work"
