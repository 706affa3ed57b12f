#!/bin/sh
# verify-unit.sh UNIT ACCTD SYSTEMD_ANALYZE [MANDIR]: `systemd-analyze
# verify` of the unit, with ExecStart pointed at the built acctd (the
# installed path does not exist in a build tree) and MANPATH at the built
# man pages (verify runs man for Documentation=man:acctd(8)). Exit 77
# (skip) without systemd-analyze.
set -eu
unit=$1 acctd=$2 analyze=${3:-} mandir=${4:-}
if [ -n "$mandir" ]; then
    MANPATH=$mandir
    export MANPATH
fi
if [ -z "$analyze" ] || ! [ -x "$analyze" ]; then
    echo "systemd-analyze not found: skipped"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s|/usr/sbin/acctd|$acctd|" "$unit" > "$dir/acctd.service"
out=$("$analyze" verify "$dir/acctd.service" 2>&1) || { echo "$out"; exit 1; }
# verify prints problems of other units on the host too; only ours count
if printf '%s\n' "$out" | grep -q 'acctd.service'; then
    printf '%s\n' "$out"
    exit 1
fi
echo "systemd-analyze verify: acctd.service ok"
