#!/usr/bin/env bash
# The generated man pages (tools/man, docs/files.md "Man pages"): every
# page the issue asks for is there, and each renders with man(1) and groff
# without a warning, with its NAME line and a SYNOPSIS or DESCRIPTION.
#
#   test-man-pages.sh MANDIR     (the build's man/: man1/acct-tune.1, ...)
set -u
mandir=$1
expected=(man8/acctd.8 man8/acctctl.8 man8/spank_acct.8 man1/acct-tune.1
          man1/acct-bench.1 man7/libacct.7 man5/acct-rules.5)
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

for tool in man groff; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/install-deps)" >&2; exit 1; }
done
found=$(cd "$mandir" && find . -mindepth 2 -maxdepth 2 -path './man?/*' | sed 's|^\./||' | sort | tr '\n' ' ')
want=$(printf '%s\n' "${expected[@]}" | sort | tr '\n' ' ')
[ "$found" = "$want" ] || fail "pages: expected $want, found $found"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for rel in "${expected[@]}"; do
    page=$mandir/$rel
    [ -s "$page" ] || { fail "$rel: missing or empty"; continue; }
    name=$(basename "$rel"); name=${name%.*}
    # man(1) as a reader sees it, with every groff warning on
    LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$page" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "$rel: man exit status $rc"
    [ ! -s "$tmp/err" ] || fail "$rel: man --warnings: $(head -5 "$tmp/err")"
    # groff itself, all warnings, and the PostScript device too (fonts
    # without a glyph for a character warn there)
    for dev in utf8 ps; do
        groff -man -ww -z -T"$dev" "$page" 2>"$tmp/err" || fail "$rel: groff -T$dev failed"
        [ ! -s "$tmp/err" ] || fail "$rel: groff -T$dev: $(head -5 "$tmp/err")"
    done
    grep -q '^NAME$' "$tmp/out" || fail "$rel: no NAME section"
    grep -Eq "^       $name - .+" "$tmp/out" || fail "$rel: no \"$name - ...\" line in NAME"
    grep -Eq '^(SYNOPSIS|DESCRIPTION)$' "$tmp/out" || fail "$rel: neither SYNOPSIS nor DESCRIPTION"
    grep -q '^SEE ALSO$' "$tmp/out" || fail "$rel: no SEE ALSO"
    lines=$(wc -l <"$tmp/out")
    [ "$lines" -ge 40 ] || fail "$rel: only $lines lines rendered"
    # nothing of the markdown survives
    if grep -nE '`|\*\*|\]\(|^ *\|.*\|' "$tmp/out" >"$tmp/md"; then
        fail "$rel: markdown left in the page: $(head -3 "$tmp/md")"
    fi
done
# The pages of section 8 and 1 have a SYNOPSIS
for rel in man8/acctd.8 man8/acctctl.8 man8/spank_acct.8 man1/acct-tune.1 man1/acct-bench.1; do
    LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$mandir/$rel" 2>/dev/null | grep -q '^SYNOPSIS$' ||
        fail "$rel: no SYNOPSIS"
done

if [ "$fails" -ne 0 ]; then
    echo "man pages: $fails failure(s)" >&2
    exit 1
fi
echo "man pages: ${#expected[@]} pages render without warnings"
