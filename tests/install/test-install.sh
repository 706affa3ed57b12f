#!/usr/bin/env bash
# What "cmake --install" puts in place besides the programs and libraries
# (docs/files.md, "Man pages" and "Shell completion, plugstack.conf.d
# snippet"): the man pages, acctctl's bash completion, the public header and
# the plugstack.conf.d snippet; once into a prefix (--prefix), once staged
# (DESTDIR, prefix /usr) as a package build does; also acctd.yaml (which the
# unit's ExecStart names), the unit, and acct-tune's RUNPATH to libacct.so.
# Everything goes to a temporary directory, removed at the end whatever
# happens.
#
#   test-install.sh BUILD_DIR SOURCE_DIR SPANK_BUILT(0|1)
set -u
build=$1
src=$2
spank=$3
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pages=(man8/acctd.8 man8/acctctl.8 man8/spank_acct.8 man1/acct-tune.1 man1/acct-bench.1
       man7/libacct.7 man5/acct-rules.5)

# check_tree ROOT PREFIX: the files of an installation whose prefix is
# PREFIX, found under ROOT (ROOT = PREFIX, or DESTDIR + PREFIX).
check_tree() {
    local root=$1 prefix=$2 rel conf lines
    for rel in "${pages[@]}"; do
        cmp -s "$root/share/man/$rel" "$build/man/$rel" ||
            fail "$root/share/man/$rel: missing or not the built page"
    done
    cmp -s "$root/share/bash-completion/completions/acctctl" "$src/tools/acctctl/acctctl.bash" ||
        fail "$root/share/bash-completion/completions/acctctl: missing or not tools/acctctl/acctctl.bash"
    cmp -s "$root/include/acct/tool.h" "$src/libacct/include/acct/tool.h" ||
        fail "$root/include/acct/tool.h: missing or not libacct/include/acct/tool.h"
    [ -x "$root/bin/acctctl" ] || fail "$root/bin/acctctl missing"
    # the configuration the unit names with -c (it must exist), valid as it is
    cmp -s "$root/lib/systemd/system/acctd.service" "$src/systemd/acctd.service" ||
        fail "$root/lib/systemd/system/acctd.service: missing or not systemd/acctd.service"
    "$root/sbin/acctd" -t -c "$root/etc/acct/acctd.yaml" >/dev/null ||
        fail "$root/etc/acct/acctd.yaml: missing or refused by acctd -t"
    # acct-tune finds the libacct.so installed with it (RUNPATH $ORIGIN/../lib/acct)
    local found
    found=$(ldd "$root/bin/acct-tune" 2>/dev/null | sed -n 's/^[[:space:]]*libacct\.so => \([^ ]*\) .*/\1/p')
    { [ -n "$found" ] && [ "$(readlink -f "$found")" = "$(readlink -f "$root/lib/acct/libacct.so")" ]; } ||
        fail "$root/bin/acct-tune: libacct.so resolves to \"$found\", not $root/lib/acct/libacct.so"
    [ "$spank" = 1 ] || return 0
    conf=$root/etc/slurm/plugstack.conf.d/acct.conf
    [ -f "$conf" ] || { fail "$conf missing"; return 0; }
    # one line that is not a comment: the optional plugin with the installed
    # paths of this prefix
    lines=$(grep -vE '^[[:space:]]*(#|$)' "$conf")
    [ "$lines" = "optional $prefix/lib/acct/spank_acct.so lib=$prefix/lib/acct/libacct.so" ] ||
        fail "$conf: the active line is \"$lines\""
    { [ -f "$root/lib/acct/spank_acct.so" ] && [ -f "$root/lib/acct/libacct.so" ]; } ||
        fail "$root/lib/acct: spank_acct.so or libacct.so missing"
    # every plugin argument explained, exactly those of docs/spank_acct.md
    local documented explained
    documented=$(sed -n '/^## Options (plugstack.conf arguments)/,/^## /p' "$src/docs/spank_acct.md" |
        sed -n 's/^| `\([a-z_]*\)=.*/\1/p' | sort | tr '\n' ' ')
    explained=$(sed -n 's/^#   \([a-z_]*\)=.*/\1/p' "$conf" | sort | tr '\n' ' ')
    { [ -n "$documented" ] && [ "$documented" = "$explained" ]; } ||
        fail "$conf explains the arguments \"$explained\", docs/spank_acct.md has \"$documented\""
}

# 1. into a prefix
prefix=$tmp/prefix
if ! env -u DESTDIR cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    fail "cmake --install --prefix failed"
fi
check_tree "$prefix" "$prefix"
# man finds the installed pages by name
for name in acctd acctctl spank_acct acct-tune acct-bench libacct acct-rules; do
    found=$(MANPATH=$prefix/share/man man -w "$name" 2>/dev/null)
    [[ $found == "$prefix/share/man/"* ]] || fail "man -w $name: \"$found\""
done
# the installed completion, with the installed acctctl
out=$(bash -c 'source "$1"; COMP_WORDS=("$2" st); COMP_CWORD=1; _acctctl; echo "${COMPREPLY[*]}"' \
      _ "$prefix/share/bash-completion/completions/acctctl" "$prefix/bin/acctctl")
[ "$out" = status ] || fail "installed completion of \"acctctl st\": \"$out\""

# 2. staged, as a package build does
stage=$tmp/stage
if ! DESTDIR=$stage cmake --install "$build" --prefix /usr >"$tmp/stage.log" 2>&1; then
    cat "$tmp/stage.log" >&2
    fail "DESTDIR=... cmake --install --prefix /usr failed"
fi
check_tree "$stage/usr" /usr

if [ "$fails" -ne 0 ]; then
    echo "install: $fails failure(s)" >&2
    exit 1
fi
echo "install: man pages, completion, tool.h, acctd.yaml, unit, acct-tune's RUNPATH$([ "$spank" = 1 ] && echo ", plugstack.conf.d/acct.conf") in place"
