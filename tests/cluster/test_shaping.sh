#!/usr/bin/env bash
# cluster.shaping: the eth partition's links are shaped to the configured
# rate, the fast partition's are not.
#
# usage (under with-cluster.sh): test_shaping.sh BW_PROGRAM [ETH_MBITPS]
#
# BW_PROGRAM is acct_cluster_bw (2-rank ping-pong of 4 MiB messages; prints
# median_MBps).  It runs with one rank on each of two nodes, REPEAT times on
# each partition through srun and once through `acct-cluster run` (mpirun),
# alternating partitions so that background load hits both alike.  Checks,
# on the medians over the srun repetitions:
#   eth  <= 1.15 x ETH_MBITPS (the tbf shaping really limits it),
#   eth  >= 0.50 x ETH_MBITPS (and it is not broken),
#   fast >= 3 x eth (a much faster network),
# and that the mpirun path is shaped the same way.  ETH_MBITPS defaults to
# 1000 (ACCT_CLUSTER_ETH_RATE=1gbit, set by CMake for this test).
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"

bw=${1:-}
eth_mbit=${2:-1000}
repeat=${ACCT_TEST_REPEAT:-3}
if [[ ! -x $bw ]]; then
  echo "usage: test_shaping.sh BW_PROGRAM [ETH_MBITPS]" >&2
  exit 2
fi
[[ -n ${ACCT_CLUSTER:-} ]] || { echo "run me under with-cluster.sh" >&2; exit 2; }

args=(-s 4194304 -r 10 -w 2)
results=()

# measure LABEL COMMAND...: run one measurement, print and remember MB/s.
measure() {
  local label=$1 out v
  shift
  out=$(timeout 120 "$@" 2>&1)
  v=$(sed -n 's/.*median_MBps=\([0-9.]*\).*/\1/p' <<<"$out" | head -n 1)
  if [[ -z $v ]]; then
    echo "$label: no measurement; output was:"
    echo "$out" | head -n 30
    v=0
  fi
  echo "$label: $(grep -o 'hosts=[^ ]*' <<<"$out") median ${v} MB/s"
  results+=("$label $v")
}

median_of() { # median_of LABEL
  printf '%s\n' "${results[@]}" | awk -v l="$1" '$1 == l {print $2}' | sort -g |
    awk '{v[NR] = $1} END {print (NR ? v[int((NR + 1) / 2)] : 0)}'
}

for ((i = 1; i <= repeat; i++)); do
  for part in eth fast; do
    measure "srun-$part" srun -p "$part" -N2 -n2 --ntasks-per-node=1 -t 2 \
      -J "acct-bw-$part" "$bw" "${args[@]}"
  done
done
for part in eth fast; do
  measure "mpirun-$part" "$ACCT_CLUSTER" run -p "$part" -- -np 2 --map-by node \
    "$bw" "${args[@]}"
done

eth=$(median_of srun-eth)
fast=$(median_of srun-fast)
meth=$(median_of mpirun-eth)
mfast=$(median_of mpirun-fast)
rate_MBps=$(awk -v m="$eth_mbit" 'BEGIN {print m / 8}')
echo "summary: configured eth rate ${eth_mbit} Mbit/s = ${rate_MBps} MB/s;" \
  "srun median eth ${eth} MB/s, fast ${fast} MB/s; mpirun eth ${meth} MB/s, fast ${mfast} MB/s"

le() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a <= b)}'; }
check "srun eth ${eth} MB/s <= 1.15 x ${rate_MBps} MB/s (shaped)" \
  le "$eth" "$(awk -v r="$rate_MBps" 'BEGIN {print 1.15 * r}')"
check "srun eth ${eth} MB/s >= 0.5 x ${rate_MBps} MB/s (working)" \
  le "$(awk -v r="$rate_MBps" 'BEGIN {print 0.5 * r}')" "$eth"
check "srun fast ${fast} MB/s >= 3 x eth ${eth} MB/s" \
  le "$(awk -v e="$eth" 'BEGIN {print 3 * e}')" "$fast"
check "mpirun eth ${meth} MB/s <= 1.15 x ${rate_MBps} MB/s (shaped)" \
  le "$meth" "$(awk -v r="$rate_MBps" 'BEGIN {print 1.15 * r}')"
check "mpirun eth ${meth} MB/s >= 0.5 x ${rate_MBps} MB/s (working)" \
  le "$(awk -v r="$rate_MBps" 'BEGIN {print 0.5 * r}')" "$meth"
check "mpirun fast ${mfast} MB/s >= 3 x eth ${meth} MB/s" \
  le "$(awk -v e="$meth" 'BEGIN {print 3 * e}')" "$mfast"
finish
