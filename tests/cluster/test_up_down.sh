#!/usr/bin/env bash
# cluster.up_down: an `up` that fails half-way is undone by `down`; the
# emulated cluster comes up once (a second `up` is a no-op), shows 4 idle
# nodes in partitions eth and fast, every node has its own hostname, /tmp and
# /run/acct, and `down` leaves nothing behind: no namespace, veth, bridge,
# process, mount or file.
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"

skip_without_cluster
# up and down of the machine's one cluster: take turns with with-cluster.sh
# and the demo (without it this test tore down a demo's cluster mid-run)
cluster_lock cluster.up_down
D=${ACCT_CLUSTER_DIR:-/run/acct-cluster}
nodes=(acct-n1 acct-n2 acct-n3 acct-n4)
export ACCT_CLUSTER_NODES=4
bad_conf=$(mktemp)
trap '"$CLUSTER" down >/dev/null 2>&1; rm -f "$bad_conf"' EXIT

# Our daemons: non-zombie processes whose command line names the state dir.
daemon_pids() {
  local p
  for p in /proc/[0-9]*; do
    alive "${p#/proc/}" || continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$D/" && echo "${p#/proc/}"
  done | sort -n
}
count_cmd() { # count_cmd NAME: how many of our daemons run NAME
  local p n=0
  for p in $(daemon_pids); do
    [[ $(cat "/proc/$p/comm" 2>/dev/null) == "$1" ]] && n=$((n + 1))
  done
  echo "$n"
}

# Nothing of the cluster is left: namespaces, links, addresses, mounts, the
# state dir, the directories up created, and the processes given as args.
assert_clean() {
  local when=$1 p left="" d
  shift
  check "$when: no acct-n* network namespace" test -z "$(ip netns list | grep '^acct-')"
  check "$when: no acct-* interface (veth, bridge)" test -z "$(ip -o link show | grep ': acct-')"
  check "$when: no 10.250.x address" test -z "$(ip -4 -o addr show | grep ' 10\.250\.')"
  check "$when: no mount under $D" test -z "$(grep -F " $D" /proc/self/mountinfo)"
  check "$when: state dir $D removed" test ! -e "$D"
  for d in /run/acct /var/lib/acct /run/netns; do
    if [[ " ${existed[*]} " != *" $d "* ]]; then
      check "$when: $d (created by up) removed" test ! -e "$d"
    fi
  done
  for p in "$@"; do alive "$p" && left+=" $p($(cat "/proc/$p/comm" 2>/dev/null))"; done
  check "$when: every daemon and node process is gone${left:+:$left}" test -z "$left"
  check "$when: no process names the state dir" test -z "$(daemon_pids)"
}

check "start clean: down before up" "$CLUSTER" down
existed=()
for d in /run/acct /var/lib/acct /run/netns; do
  [[ -e $d ]] && existed+=("$d")
done

# A failed up (slurmctld rejects its configuration after munged, the network
# and the node namespaces were made) is undone by down.
echo "NoSuchSlurmParameter=1" >"$bad_conf"
fails() { ! "$@"; }
check "up with a broken slurm.conf fails" fails env ACCT_CLUSTER_SLURM_EXTRA="$bad_conf" "$CLUSTER" up
partial=$(daemon_pids)
check "the failed up left namespaces for down to remove" test -n "$(ip netns list | grep '^acct-')"
check "down after the failed up" "$CLUSTER" down
# shellcheck disable=SC2086  # a list of pids
assert_clean "after failed up" $partial

check "a sysctl outside net.* is refused before anything is made" \
  fails env ACCT_CLUSTER_NODE_SYSCTL='kernel.panic=1' "$CLUSTER" up
check "  ... and left no namespace" test -z "$(ip netns list | grep '^acct-')"
# Every node gets the configured sysctls in its own network namespace.
export ACCT_CLUSTER_NODE_SYSCTL='net.ipv4.tcp_rmem = 4096 262144 6291456; net.ipv4.tcp_slow_start_after_idle=0'
# The caller holds a descriptor (as flock(1) around up ... down does): no
# daemon may keep it, or the caller's lock would outlive the caller.
caller_fd=$(mktemp)
exec 7>"$caller_fd"
check "first up" "$CLUSTER" up
exec 7>&-
first=$(daemon_pids)
holders() { # daemons with a descriptor on the caller's file
  local p f
  for p in $first; do
    for f in /proc/"$p"/fd/*; do
      if [[ $(readlink "$f" 2>/dev/null) == "$caller_fd" ]]; then
        echo "$p($(cat "/proc/$p/comm" 2>/dev/null))"
        break
      fi
    done
  done
}
held=$(holders)
check "no daemon inherited the caller's descriptors${held:+: $held}" test -z "$held"
rm -f "$caller_fd"
check "second up succeeds" "$CLUSTER" up
check "second up kept the same daemons (idempotent)" test "$first" = "$(daemon_pids)"
check "exactly one munged" test "$(count_cmd munged)" = 1
check "exactly one slurmctld" test "$(count_cmd slurmctld)" = 1
check "exactly four slurmd" test "$(count_cmd slurmd)" = 4
check "status reports a healthy cluster" "$CLUSTER" status

eval "$("$CLUSTER" env)"
sinfo
check "sinfo: partition eth has 4 idle nodes" test "$(sinfo -h -p eth -o '%D %t')" = "4 idle"
check "sinfo: partition fast has 4 idle nodes" test "$(sinfo -h -p fast -o '%D %t')" = "4 idle"
check "sinfo: eth is the default partition" test "$(sinfo -h -o '%P' | grep -c '^eth\*$')" = 1

for n in "${nodes[@]}"; do
  check "$n: hostname is $n" test "$("$CLUSTER" exec "$n" hostname)" = "$n"
  check "$n: tcp_rmem from ACCT_CLUSTER_NODE_SYSCTL" \
    test "$("$CLUSTER" exec "$n" sysctl -n net.ipv4.tcp_rmem | tr -s ' \t' ' ')" = "4096 262144 6291456"
  check "$n: tcp_slow_start_after_idle from ACCT_CLUSTER_NODE_SYSCTL" \
    test "$("$CLUSTER" exec "$n" sysctl -n net.ipv4.tcp_slow_start_after_idle)" = 0
done
check "status lists the node sysctls" grep -q 'tcp_slow_start_after_idle=0' <("$CLUSTER" status)
check "srun -N4 runs on 4 distinct hosts" \
  test "$(timeout 60 srun -N4 -t 1 hostname | sort -u | tr '\n' ' ')" = "${nodes[*]} "

# Private /tmp and /run/acct; /run/acct is visible from outside under $D/nodes.
probe=acct-probe-$$
"$CLUSTER" exec acct-n1 sh -c "echo n1 >/tmp/$probe && echo n1 >/run/acct/$probe"
check "acct-n1 sees its own /tmp file" "$CLUSTER" exec acct-n1 test -e "/tmp/$probe"
check "acct-n2 does not see acct-n1's /tmp" "$CLUSTER" exec acct-n2 test ! -e "/tmp/$probe"
check "the host does not see acct-n1's /tmp" test ! -e "/tmp/$probe"
check "acct-n2 does not see acct-n1's /run/acct" "$CLUSTER" exec acct-n2 test ! -e "/run/acct/$probe"
check "acct-n1's /run/acct is $D/nodes/acct-n1/run-acct" test -e "$D/nodes/acct-n1/run-acct/$probe"
check "acct-n3 has a private /var/lib/acct" "$CLUSTER" exec acct-n3 sh -c \
  "touch /var/lib/acct/$probe && test -e $D/nodes/acct-n3/var-lib-acct/$probe"
check "the state dir is visible inside nodes" "$CLUSTER" exec acct-n4 test -r "$D/etc/slurm.conf"

# A stray process inside a node must be stopped by down too.
"$CLUSTER" exec acct-n2 sleep 600 </dev/null >/dev/null 2>&1 &
sleep 0.5
all_pids=$(daemon_pids)
for n in "${nodes[@]}"; do all_pids+=" $(ip netns pids "$n" 2>/dev/null | tr '\n' ' ')"; done
check "a stray process runs inside acct-n2" test -n "$(ip netns pids acct-n2 | grep -vxF -- "$(cat "$D/run/slurmd.acct-n2.pid")")"

check "down" "$CLUSTER" down
wait 2>/dev/null
# shellcheck disable=SC2086  # a list of pids
assert_clean "after down" $all_pids
check "down again is a no-op" "$CLUSTER" down
finish
