#!/usr/bin/env bash
# acctctl's bash completion (tools/acctctl/acctctl.bash, docs/acctctl.md
# "Shell completion"), driven the way bash drives it: COMP_WORDS and
# COMP_CWORD set, _acctctl called, COMPREPLY read.
#
#   test-completion.sh ACCTCTL COMPLETION_SCRIPT DOCS_ACCTCTL_MD
set -u
export LC_ALL=C
acctctl=$(realpath "$1")
script=$2
doc=$3
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# no acctd answers partition lists unless the test's stand-in does
export ACCT_SOCKET=$tmp/no-acctd.sock

# shellcheck source=/dev/null
source "$script" || { echo "FAIL: cannot source $script" >&2; exit 1; }
[ "$(complete -p acctctl 2>/dev/null)" = "complete -F _acctctl acctctl" ] ||
    fail "complete -p acctctl: $(complete -p acctctl 2>&1)"

ctl=$acctctl
# comp "WORDS": the completions of the last word (empty when WORDS is empty
# or ends with a blank), one per line, sorted
comp() {
    local -a w
    read -r -a w <<<"$1"
    [[ -z $1 || $1 == *" " ]] && w+=("")
    COMP_WORDS=("$ctl" "${w[@]}")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _acctctl
    printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
}
# expect "WORDS" "EXPECTED (blank separated, sorted)"
expect() {
    local got
    got=$(comp "$1" | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$2" ] || fail "acctctl $1<TAB>: expected \"$2\", got \"$got\""
}
has() { # has "WORDS" WORD...: each WORD is among the completions
    local words=$1 got w
    shift
    got=$(comp "$words")
    for w in "$@"; do
        grep -qxF -- "$w" <<<"$got" || fail "acctctl $words<TAB>: no $w in: ${got//$'\n'/ }"
    done
}

# Every command of docs/acctctl.md's command table is completed (a command
# dropped from acctctl's table, or from the completion, fails here).
# shellcheck disable=SC2016
mapfile -t documented < <(sed -n '/^## Commands$/,/^## /p' "$doc" |
    sed -n 's/^| `\([a-z]*\)[ `].*/\1/p')
[ "${#documented[@]}" -ge 17 ] || fail "only ${#documented[@]} commands found in $doc"
has "" "${documented[@]}" help --help --version
mapfile -t listed < <("$acctctl" help | sed -n 's/^  \([a-z]\+\) .*/\1/p')
has "" "${listed[@]}"
[ "${#listed[@]}" -eq "$(comp "" | grep -vc '^-')" ] ||
    fail "the completion offers other commands than \"acctctl help\" lists"
expect "sh" "show"
expect "re" "refine reload retune"
expect "help st" "status"
has "help " "${documented[@]}"

# Each command's options: every option that "acctctl help CMD" lists is
# completed, and the options acctctl parses (a spot check per kind).
for cmd in "${listed[@]}"; do
    [ "$cmd" = help ] && continue
    mapfile -t helped < <("$acctctl" help "$cmd" |
        grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*$')
    [ "${#helped[@]}" -gt 0 ] || fail "acctctl help $cmd lists no option"
    has "$cmd --" "${helped[@]}" --help
done
expect "show --" "--collective --format --help --interconnect --partition --socket --version"
expect "import -" "--activate --diff --format --help --socket -a -d -f -h -s"
has "retune --" --no-wait --no-node-import --ranks-per-node --acct-tune --dry-run
has "validate -" -q --quiet

# Values of options.
expect "show --format " "json table tsv"
expect "status -f t" "table tsv"
expect "export --format " "c ompi yaml"
expect "export -f " "c ompi yaml"
expect "export --format = y" "yaml"
expect "samples --collective b" "barrier bcast"
expect "algorithms -c all" "allgather allgatherv allreduce alltoall alltoallv"
expect "show -p " ""   # no acctd here: nothing, and no error

# Files: the arguments of validate/import/policy and --output, --file.
touch "$tmp/eth-rules.yaml" "$tmp/eth-result.yaml"
mkdir "$tmp/dir"
(
    cd "$tmp" || exit 1
    expect "validate eth-r" "eth-result.yaml eth-rules.yaml"
    expect "import eth-res" "eth-result.yaml"
    expect "plot --file eth-ru" "eth-rules.yaml"
    expect "retune --workdir d" "dir"
    expect "status e" ""
    exit "$fails"
) || fails=$((fails + $?))

# Partitions and interconnects from "acctctl partitions" (a stand-in
# acctctl answers it; every other call goes to the real one).
cat >"$tmp/acctctl" <<EOF
#!/usr/bin/env bash
if [ "\$1" = partitions ]; then
    printf 'partition\tinterconnect\tactive\n'
    printf 'eth\ttcp-1g\t3\nfast\tveth\t1\neth\tib-hdr\t2\n'
    exit 0
fi
exec "$acctctl" "\$@"
EOF
chmod +x "$tmp/acctctl"
ctl=$tmp/acctctl
expect "versions -p " "eth fast"
expect "show --partition e" "eth"
expect "rollback -p eth -i " "ib-hdr tcp-1g veth"
expect "refine --interconnect=t" "tcp-1g"
ctl=$acctctl

if [ "$fails" -ne 0 ]; then
    echo "acctctl completion: $fails failure(s)" >&2
    exit 1
fi
echo "acctctl completion: ok (${#listed[@]} commands)"
