#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2034  # the checks' eval '...' bodies expand (and use variables) when they run
# cluster.packages: ACCT installed from its Debian packages on the emulated
# cluster, the way a site installs it (issue 24 "Done means";
# docs/packaging.md, "The cluster test").
#
# usage (under with-cluster.sh):  test_packages.sh DEB_DIR
#   DEB_DIR holds acct-spank, acctd, acct-tools and acct-dev .debs
#   (scripts/build-packages deb; ctest: the install.deb fixture).
#
# Every node gets its own package installation and leaves the host's alone:
# inside the node's mount namespace, /usr, /etc and /var become overlays
# (the host's directory below, a per-node directory above, under the
# cluster's state dir), so the node's `dpkg -i` writes only there; /run/systemd
# is hidden in the node, so the maintainer scripts see a machine without
# systemd running and never reach the host's (the acctd unit is enabled,
# not started, as in a chroot). `acct-cluster down` drops the overlays with
# the namespaces, whatever happened. The test checks that the host's dpkg
# database and /usr/lib/acct are the same before and after.
#
# 1. dpkg -i the packages on every node; acctd.service enabled, nothing
#    started; the tools run from /usr (acct-tune finds libacct.so).
# 2. The admin's edits: interconnect_map= on the packaged
#    /etc/slurm/plugstack.conf.d/acct.conf, which plugstack.conf includes
#    (as Debian's does); listen/primary in /etc/acct/acctd.yaml.
# 3. acctd started on every node with the packaged unit's ExecStart line,
#    as systemd would (acct-n1 primary, the others follow it).
# 4. The demo's tune + compare with the installed programs, from acct-n1
#    (the login node): acctctl retune -p eth (the job script runs
#    /usr/bin/acct-tune), every node serves the version, then acct-bench
#    jobs with and without ACCT (srun --acct=off, an option the packaged
#    plugin adds) and acct-bench-compare.
# 5. acctd stopped (systemd's part of prerm), dpkg --remove: conffiles stay;
#    dpkg --purge: nothing of ACCT is left on the node but the store
#    /var/lib/acct (every file the overlays hold is accounted for).
set -u
# shellcheck source=testlib.sh
. "$(dirname "$0")/testlib.sh"

debdir=${1:-}
if [[ ! -d $debdir ]]; then
  echo "usage: test_packages.sh DEB_DIR" >&2
  exit 2
fi
debdir=$(readlink -f "$debdir")
enter_workdir "packages"
nodes=(acct-n1 acct-n2 acct-n3 acct-n4)
pkgs=(acct-spank acctd acct-tools acct-dev)
port=16819
t_start=$(date +%s)

# The .debs, where every node sees them.
mkdir -p "$work/debs"
for p in "${pkgs[@]}"; do
  f=$(find "$debdir" -maxdepth 1 -name "${p}_*.deb" | sort | tail -n1)
  [[ -n $f ]] || { echo "FAIL - no ${p}_*.deb in $debdir"; exit 1; }
  cp "$f" "$work/debs/"
done
ls -l "$work/debs"

# What the host has, to compare at the end.
host_state() {
  dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>&1 | sort
  ls -ld /usr/lib/acct /etc/acct /etc/slurm/plugstack.conf.d/acct.conf 2>&1
}
host_before=$(host_state)

# node NODE CMD...: CMD inside the node (the with-cluster lock stays here).
node() { "$ACCT_CLUSTER" exec "$@" 9>&-; }
pkgdir() { echo "$ACCT_CLUSTER_DIR/nodes/$1/pkg"; }

# ---- the nodes' own package installations ------------------------------------
# node_overlays NODE: /usr, /etc and /var of NODE become overlays on the
# host's. The node's own bind mounts below them (/etc/hosts, /var/lib/acct)
# are bound again on top; any other mount below them would be hidden: refused.
node_overlays() {
  local n=$1 base
  base=$(pkgdir "$n")
  node "$n" sh -euc '
    base=$1 d=$2 n=$3
    other=$(awk '\''$5 ~ "^/(usr|etc|var)/" && $5 != "/etc/hosts" && $5 != "/var/lib/acct" {print $5}'\'' /proc/self/mountinfo)
    if [ -n "$other" ]; then echo "mounted below /usr, /etc or /var: $other" >&2; exit 1; fi
    for dir in usr etc var; do
      mkdir -p "$base/$dir/upper" "$base/$dir/work"
      mount -t overlay "acct-pkg-$dir" \
        -o "lowerdir=/$dir,upperdir=$base/$dir/upper,workdir=$base/$dir/work" "/$dir"
    done
    mount --bind "$d/etc/hosts" /etc/hosts
    mount --bind "$d/nodes/$n/var-lib-acct" /var/lib/acct
    # no systemd here: maintainer scripts must not reach the host s
    if [ -d /run/systemd ]; then mount -t tmpfs -o size=1m acct-pkg-nosystemd /run/systemd; fi
    # man-db rebuilds no index on every node (its documented switch)
    rm -f /var/lib/man-db/auto-update
  ' sh "$base" "$ACCT_CLUSTER_DIR" "$n"
}

echo "== every node: its own /usr, /etc, /var; dpkg -i ${pkgs[*]}"
for n in "${nodes[@]}"; do
  check "$n: /usr, /etc and /var are overlays of the node" node_overlays "$n"
done
if ((FAILS)); then finish; exit 1; fi
for n in "${nodes[@]}"; do
  check "$n: dpkg -i installs the four packages" \
    eval 'node "$n" dpkg -i "$work"/debs/*.deb >"dpkg-i.$n.out" 2>&1'
  check "$n: dpkg says they are installed" \
    eval '[[ $(node "$n" dpkg-query -W -f="\${Status}\n" "${pkgs[@]}" | sort -u) == "install ok installed" ]]'
done
check "the host has none of it (its dpkg database and /usr/lib/acct unchanged)" \
  eval '[[ $(host_state) == "$host_before" ]]'
check "acct-n1: acctd.service enabled (multi-user.target.wants), not started (no systemd)" \
  eval '[[ $(node acct-n1 readlink /etc/systemd/system/multi-user.target.wants/acctd.service) == /lib/systemd/system/acctd.service ]] && ! test -S "$(noderun acct-n1)/acctd.sock"'
pkgversion=$(dpkg-deb -f "$(find "$work/debs" -name 'acctd_*.deb')" Version)
check "acct-n2: acctctl, acct-tune (RUNPATH to libacct.so) and acctd answer --version $pkgversion from /usr" \
  eval 'node acct-n2 sh -c "acctctl --version && acct-tune --version && /usr/sbin/acctd --version" >versions.out 2>&1 && [[ $(grep -cE "^(acctctl|acct-tune|acctd) $pkgversion( |$)" versions.out) == 3 ]]'
check "acct-n2: man finds acctctl(8) and libacct(7) of the packages" \
  eval '[[ $(node acct-n2 man -w acctctl) == /usr/share/man/man8/acctctl.8.gz && $(node acct-n2 man -w 7 libacct) == /usr/share/man/man7/libacct.7.gz ]]'
if ((FAILS)); then
  for n in "${nodes[@]}"; do show "dpkg-i.$n.out"; done
  show versions.out
  finish
  exit 1
fi

# ---- the admin's configuration -----------------------------------------------
echo "== the admin: interconnect_map in the packaged snippet, listen/primary in acctd.yaml"
snippet=/etc/slurm/plugstack.conf.d/acct.conf
primary_addr=$(node_addr acct-n1)
for n in "${nodes[@]}"; do
  check "$n: the packaged snippet has one optional line for /usr/lib/acct/spank_acct.so" \
    eval '[[ $(node "$n" grep -vE "^[[:space:]]*(#|$)" "$snippet") == "optional /usr/lib/acct/spank_acct.so lib=/usr/lib/acct/libacct.so" ]]'
  node "$n" sed -i 's|^optional /usr/lib/acct/spank_acct.so .*|& interconnect_map=eth:tcp-1g,fast:veth|' "$snippet"
  if [[ $n == acct-n1 ]]; then
    role="listen: $primary_addr:$port"
  else
    role="primary: $primary_addr:$port"$'\n'"sync_interval: 1"
  fi
  printf '%s\n' "# added by cluster.packages" "$role" "munge_socket: $ACCT_CLUSTER_DIR/munge/munge.socket" \
    "refine_interval: 0" | node "$n" sh -c 'cat >>/etc/acct/acctd.yaml'
  check "$n: acctd -t accepts the edited /etc/acct/acctd.yaml" \
    eval 'node "$n" /usr/sbin/acctd -t -c /etc/acct/acctd.yaml >"acctd-t.$n.out" 2>&1'
done
# plugstack.conf includes plugstack.conf.d/*.conf, as Debian's does: the
# nodes (slurmstepd, and srun/sbatch run on acct-n1) read the package's file.
echo "include /etc/slurm/plugstack.conf.d/*.conf" >"$work/plugstack.acct"
if ! ACCT_CLUSTER_PLUGSTACK=$work/plugstack.acct "$ACCT_CLUSTER" up >"$work/up.log" 2>&1; then
  cat "$work/up.log"
  exit 1
fi

# ---- acctd through the packaged unit's command line ----------------------------
execstart=$(node acct-n1 sed -n 's/^ExecStart=//p' /lib/systemd/system/acctd.service)
echo "== acctd on every node: ExecStart=$execstart"
check "the unit's ExecStart is one plain command line (no specifiers, quotes or prefixes)" \
  eval '[[ -n $execstart && $execstart != *[%\"\\\$\;]* && $execstart == /usr/sbin/acctd\ * ]]'
stop_acctds() {
  local n pid i
  for n in "${nodes[@]}"; do
    pid=$(cat "$work/acctd.$n.pid" 2>/dev/null) || continue
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.1; done
    rm -f "$work/acctd.$n.pid"
  done
}
trap stop_acctds EXIT
for n in "${nodes[@]}"; do
  rm -rf "$(noderun "$n")/rules" "$(nodevar "$n")"/acct.db* "$(noderun "$n")/acctd.sock"
  # as systemd runs it: stdin /dev/null, stdout and stderr to the journal (here a file)
  node "$n" sh -c 'set -f; $1 </dev/null >"$2" 2>&1 & echo $! >"$3"' sh "$execstart" \
    "$work/acctd.$n.log" "$work/acctd.$n.pid"
done
for n in "${nodes[@]}"; do
  check "$n: acctd (pid $(cat "$work/acctd.$n.pid" 2>/dev/null)) listens on /run/acct/acctd.sock" \
    wait_until 30 test -S "$(noderun "$n")/acctd.sock"
done
check "acct-n1: acctctl status answers (the installed acctd, primary)" \
  eval 'node acct-n1 acctctl status >status.out 2>&1 && grep -qE "^Software: +acctd $pkgversion$" status.out'
check "acct-n3: acctctl status says it follows acct-n1" \
  eval 'node acct-n3 acctctl status >status3.out 2>&1 && grep -qi "follow" status3.out && grep -qF "$primary_addr:$port" status3.out'
if ((FAILS)); then
  show status.out; show status3.out
  for n in "${nodes[@]}"; do show "$work/acctd.$n.log"; done
  finish
  exit 1
fi

# ---- the demo's tune + compare, installed ------------------------------------------
echo "== acctctl retune -p eth on acct-n1 (the demo's, a small budget)"
t0=$(date +%s)
timeout 400 "$ACCT_CLUSTER" exec acct-n1 acctctl retune -p eth -i tcp-1g --nodes 4 --ranks-per-node 2 \
  --ops bcast --budget 40s --time 10 --workdir "$work" --interval 1 --no-node-import \
  -- --sizes 64K,1M --comm-sizes 4,8 --reps 5 --warmup 1 --point-limit 1 \
  >retune.out 2>retune.err 9>&-
echo $? >retune.rc
echo "retune took $(($(date +%s) - t0)) s"
version=$(sed -n 's/^activated version \([0-9]*\) of eth\/tcp-1g.*/\1/p' retune.out retune.err | tail -n1)
script=$(find "$work" -maxdepth 1 -name 'acct-retune-eth-*.sh' | head -n1)
check "acctctl retune exits 0 and activates a version (${version:-none})" \
  eval '[[ $(cat retune.rc) == 0 && -n $version ]]'
check "its job script runs the installed /usr/bin/acct-tune under srun --mpi=pmix" \
  eval '[[ -f $script ]] && grep -qE "^srun --mpi=pmix '"'"'?/usr/bin/acct-tune'"'"'? " "$script"'
all_nodes_at() {
  local n
  for n in "${nodes[@]}"; do
    [[ $(rules_version "$(noderun "$n")/rules/eth/tcp-1g.yaml") == "$1" ]] || return 1
  done
}
check "every node serves version ${version:-?} in /run/acct/rules/eth/tcp-1g.yaml" \
  wait_until 30 all_nodes_at "${version:-x}"
if ((FAILS)); then
  show retune.out; show retune.err 60; show "$script"
  for n in "${nodes[@]}"; do show "$work/acctd.$n.log"; done
  finish
  exit 1
fi

echo "== benchmark jobs from acct-n1: /usr/bin/acct-bench with and without ACCT"
report=$work/report.yaml
job() { # job LABEL [srun options]: the demo's job, smaller
  local label=$1
  shift
  pmix_step "$label.out" "$label.err" timeout 300 "$ACCT_CLUSTER" exec acct-n1 \
    srun -p eth -N4 -n8 --mpi=pmix -t 5 "$@" \
    --export="ALL,OMPI_MCA_mpi_yield_when_idle=1,ACCT_REPORT=$report" \
    acct-bench -c bcast -m 64K,1M -n 20 -w 2 --time-limit 2 --label "$label" \
    --format tsv -o "$work/$label.run.tsv" 9>&- || return 1
  cat "$work/$label.run.tsv" >>"$work/$label.tsv"
}
for i in 1 2; do
  rm -f "$report"
  check "run $i: the job without ACCT (srun --acct=off) runs, no report" \
    eval 'job native --acct=off && [[ ! -e $report ]]'
  check "run $i: the job with ACCT runs on version $version through the packaged plugin" \
    eval 'job acct && grep -q "^active: true" "$report" && grep -qF "rules: {partition: eth, interconnect: tcp-1g, version: $version," "$report"'
done
check "acct-bench-compare (installed) compares them at 64K and 1M" \
  eval 'node acct-n1 acct-bench-compare "$work/native.tsv" "$work/acct.tsv" >compare.out 2>&1 && grep -qE "^ +bcast +8 +65536 +2/2 " compare.out && grep -qE "^ +bcast +8 +1048576 +2/2 " compare.out'
echo "---- what ACCT did (ACCT_REPORT of world rank 0)"
grep -E '^(active|rules):|algorithm:' "$report" 2>/dev/null | grep -v 'algorithm: native' | head -n 8
echo "---- acct-bench-compare"
cat compare.out
if ((FAILS)); then
  for f in native acct; do show "$f.out"; show "$f.err"; done
  show "$report"
fi

# ---- remove, purge --------------------------------------------------------------------
echo "== acctd stopped, dpkg --remove, dpkg --purge"
stop_acctds
trap - EXIT
for n in "${nodes[@]}"; do
  check "$n: dpkg --remove: the packages go, their conffiles (with the admin's edits) stay" \
    eval 'node "$n" dpkg --remove "${pkgs[@]}" >"dpkg-r.$n.out" 2>&1 && [[ $(node "$n" dpkg-query -W -f="\${Status}\n" acctd acct-spank) == $'"'"'deinstall ok config-files\ndeinstall ok config-files'"'"' ]] && node "$n" grep -q "^# added by cluster.packages" /etc/acct/acctd.yaml && node "$n" test ! -e /usr/sbin/acctd'
  check "$n: dpkg --purge" eval 'node "$n" dpkg --purge "${pkgs[@]}" >"dpkg-p.$n.out" 2>&1'
  check "$n: dpkg has none of them installed, nor their conffiles" \
    eval '! node "$n" dpkg-query -W -f="\${Status}\n" "${pkgs[@]}" 2>/dev/null | grep -qv " not-installed$"'
  check "$n: no /usr/lib/acct, /etc/acct, snippet, unit, unit link, /run/acct/rules or socket" \
    eval 'node "$n" sh -c "! ls -d /usr/lib/acct /etc/acct $snippet /lib/systemd/system/acctd.service /etc/systemd/system/*/acctd.service /usr/bin/acctctl /usr/include/acct /run/acct/rules /run/acct/acctd.sock 2>/dev/null | grep ."'
  check "$n: the store is left: /var/lib/acct/acct.db" test -s "$(nodevar "$n")/acct.db"
  # Every file the node's overlays still hold: dpkg's own records, logs and
  # caches only (a deleted file is a whiteout, a character device).
  base=$(pkgdir "$n")
  (cd "$base" && find usr/upper etc/upper var/upper \( -type f -o -type l \) | sort) >"left.$n.all"
  grep -vE '^var/upper/(lib/dpkg|log|cache)/|^etc/upper/ld\.so\.cache$' "left.$n.all" >"left.$n" || true
  check "$n: nothing else is left by the packages (left.$n: $(wc -l <"left.$n") files)" test ! -s "left.$n"
  ((FAILS)) && { show "left.$n"; show "dpkg-r.$n.out"; show "dpkg-p.$n.out"; }
done
check "the host still has none of it" eval '[[ $(host_state) == "$host_before" ]]'

echo "cluster.packages took $(($(date +%s) - t_start)) s"
# Keep the outputs of a failed run (in the cluster's state dir: kept only
# with ACCT_CLUSTER_KEEP=1).
((FAILS)) || rm -rf "$work"
finish
