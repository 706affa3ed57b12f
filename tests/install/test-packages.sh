#!/usr/bin/env bash
# install.deb: builds the Debian packages from the tree
# (scripts/build-packages deb, docs/packaging.md) into OUTDIR, lintian must
# report no error, and checks the split: which package holds what, the
# conffiles, the dependencies between the packages and on Slurm's series.
# cluster.packages installs these .debs into the emulated nodes (fixture
# acct_debs). Exit 77 (skip) without dpkg-buildpackage or debhelper.
#
#   test-packages.sh SOURCE_DIR OUTDIR
set -u
src=$1
out=$2
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
    echo "SKIP: dpkg-buildpackage or debhelper not installed (scripts/install-deps)"
    exit 77
fi
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
t0=$(date +%s)
if ! ACCT_PKG_LINTIAN=1 ACCT_PKG_JOBS=${ACCT_PKG_JOBS:-2} "$src/scripts/build-packages" deb "$out" >"$out.log" 2>&1; then
    tail -n 60 "$out.log"
    echo "FAIL: scripts/build-packages deb (log: $out.log)"
    exit 1
fi
echo "built in $(($(date +%s) - t0)) s; lintian:"
sed 's/^/  /' "$out/deb/lintian.txt"
v=$(sed -n 's/^project(acct VERSION \([0-9][0-9.]*\)[ )].*/\1/p' "$src/CMakeLists.txt")
arch=$(dpkg --print-architecture)
deb() { echo "$out/deb/$1_${v}_$arch.deb"; }
for p in acct-spank acctd acct-tools acct-dev; do
    [ -f "$(deb $p)" ] || fail "$(deb $p) was not built"
done
[ "$fails" = 0 ] || exit 1

# has PACKAGE PATH...: every PATH is in PACKAGE
has() {
    local p=$1 f list
    shift
    list=$(dpkg-deb -c "$(deb "$p")" | awk '{print $6}' | sed 's|^\.||')
    for f in "$@"; do
        grep -qxF "$f" <<<"$list" || fail "$p does not hold $f"
    done
}
has acct-spank /usr/lib/acct/libacct.so /usr/lib/acct/libacct_rt.so /usr/lib/acct/spank_acct.so \
    /etc/slurm/plugstack.conf.d/acct.conf /usr/share/man/man8/spank_acct.8.gz \
    /usr/share/man/man7/libacct.7.gz /usr/share/man/man5/acct-rules.5.gz
has acctd /usr/sbin/acctd /lib/systemd/system/acctd.service /etc/acct/acctd.yaml \
    /etc/acct/policies/default.yaml /usr/share/man/man8/acctd.8.gz
has acct-tools /usr/bin/acctctl /usr/bin/acct-tune /usr/bin/acct-bench /usr/bin/acct-bench-compare \
    /usr/bin/acct-plot /usr/share/bash-completion/completions/acctctl \
    /usr/share/man/man8/acctctl.8.gz /usr/share/man/man1/acct-tune.1.gz /usr/share/man/man1/acct-bench.1.gz
has acct-dev /usr/include/acct/tool.h

# conffiles: exactly the files under /etc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
conffiles() { dpkg-deb -e "$(deb "$1")" "$tmp/$1" && sort "$tmp/$1/conffiles" 2>/dev/null | tr '\n' ' '; }
[ "$(conffiles acct-spank)" = "/etc/slurm/plugstack.conf.d/acct.conf " ] ||
    fail "acct-spank's conffiles: \"$(conffiles acct-spank)\""
[ "$(conffiles acctd)" = "/etc/acct/acctd.yaml /etc/acct/policies/default.yaml " ] ||
    fail "acctd's conffiles: \"$(conffiles acctd)\""
# the unit is enabled and started on installation, restarted on upgrade
grep -q "deb-systemd-helper enable 'acctd.service'" "$tmp/acctd/postinst" ||
    fail "acctd's postinst does not enable acctd.service"
grep -q "_dh_action=restart" "$tmp/acctd/postinst" || fail "acctd's postinst does not restart acctd on upgrade"
# debhelper's parts once each (a token in a comment would be replaced too)
[ "$(grep -c 'Automatically added by dh_installsystemd' "$tmp/acctd/postrm")" = 2 ] ||
    fail "acctd's postrm: debhelper's unit parts are not there exactly once"
# purge keeps the store
if ! grep -q "rm -rf /run/acct/rules" "$tmp/acctd/postrm" ||
    grep -qE '^[[:space:]]*rm [^"]*/var/lib/acct' "$tmp/acctd/postrm"; then
    fail "acctd's postrm: purge must remove /run/acct/rules and keep /var/lib/acct"
fi

# dependencies: one build everywhere, and the Slurm series of slurm_version.h
hex=$(sed -n 's/^#define SLURM_VERSION_NUMBER 0x\([0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
series=$(printf '%d.%02d' $((0x$hex >> 16)) $(((0x$hex >> 8) & 255)))
dep() { dpkg-deb -f "$(deb "$1")" "$2"; }
grep -qF "slurm-wlm-basic-plugins (>= $series)" <<<"$(dep acct-spank Depends)" ||
    fail "acct-spank does not depend on slurm-wlm-basic-plugins (>= $series): $(dep acct-spank Depends)"
grep -qF "acct-spank (= $v)" <<<"$(dep acct-tools Depends)" || fail "acct-tools: Depends: $(dep acct-tools Depends)"
grep -qF "acct-spank (= $v)" <<<"$(dep acct-dev Depends)" || fail "acct-dev: Depends: $(dep acct-dev Depends)"
# no RUNPATH but acct-tune's own to /usr/lib/acct
dpkg-deb -x "$(deb acct-spank)" "$tmp/x"
dpkg-deb -x "$(deb acct-tools)" "$tmp/x"
for f in "$tmp"/x/usr/lib/acct/*.so "$tmp"/x/usr/bin/acct-tune; do
    rp=$(readelf -d "$f" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
    case ${f##*/} in
        acct-tune) [ "$rp" = "\$ORIGIN/../lib/acct" ] || fail "acct-tune's RUNPATH: \"$rp\"" ;;
        *) [ -z "$rp" ] || fail "${f##*/} has the RUNPATH \"$rp\"" ;;
    esac
done

if [ "$fails" -ne 0 ]; then
    echo "packages: $fails failure(s)" >&2
    exit 1
fi
echo "packages: acct-spank, acctd, acct-tools, acct-dev $v built, lintian without errors, split as docs/packaging.md says"
