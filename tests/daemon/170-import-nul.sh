#!/usr/bin/env bash
# 170: a document with a NUL byte is refused, never cut short. acctctl
# import (a file and standard input) and acctctl policy refuse it before
# sending, naming FILE:LINE:COLUMN as acctctl validate does; acctd refuses
# an IMPORT whose RULES_TEXT holds one (sent as it is by acctd-raw: the
# field's length covers the whole file) naming the file (NAME), line and
# column; nothing is stored. Before, the text up to the NUL was imported.
. "$(dirname "$0")/lib.sh"
D=$ACCT_TEST_DATA
write_config
start_acctd || exit 1
A=$D/rules-eth-a.yaml
n=$(wc -l <"$A")
# a valid rules file, then a NUL and more: the prefix alone is valid
TAIL=$T/tail-nul.yaml
{ cat "$A"; printf '\0# more\n'; } >"$TAIL"
# a NUL inside a comment on line 8, after "  # x"
MID=$T/mid-nul.yaml
{ head -n 7 "$A"; printf '  # x\0y\n'; tail -n +8 "$A"; } >"$MID"

check() { # FILE LINE COLUMN
    local f=$1 where="$1:$2:$3"
    ctl 1 validate "$f"
    expect "$T/out" "$where: binary data (a NUL byte)"
    ctl 1 import "$f" --activate
    expect "$T/err" "$where: binary data (a NUL byte): not a text file"
    expect "$T/err" "acctctl import: $f was not sent to acctd"
    run 1 sh -c '"$1" import - --activate <"$2"' sh "$ACCTCTL" "$f"
    expect "$T/err" "<stdin>:$2:$3: binary data (a NUL byte): not a text file"
    ctl 1 policy -p eth "$f"
    expect "$T/err" "$where: binary data (a NUL byte): not a text file"
    # acctd itself, given the whole text
    "$ACCTD_RAW" "$SOCK" import-file "$f" >"$T/raw" 2>&1
    expect "$T/raw" "import-file: reply=ERROR err=BAD_MESSAGE closed=yes"
    expect "$T/raw" "msg=$f: field RULES_TEXT: a NUL byte at line $2, column $3 (text only)"
}
check "$TAIL" $((n + 1)) 1
check "$MID" 8 6

# nothing was stored, acctd serves on
ctl 0 status --format tsv
[ "$(tsv_field versions)" = 0 ] || fail "versions: $(tsv_field versions) after refused imports"
ctl 0 partitions
expect "$T/out" "(none)"
ctl 0 policy -p eth --clear
# the same file without the NUL imports
tr -d '\000' <"$TAIL" >"$T/clean.yaml"
ctl 0 import "$T/clean.yaml" --activate
expect "$T/out" "activated version 1 of eth/tcp-1g"
finish
