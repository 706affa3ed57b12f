# bash completion for acctctl (docs/acctctl.md, "Shell completion").
# Installed as share/bash-completion/completions/acctctl. The commands, each
# command's options and the fixed values of --format and --collective come
# from "acctctl _complete" (tools/acctctl/complete.c), i.e. from acctctl's
# own tables, so this file does not change when a command or option does.
# Partitions and interconnects come from "acctctl partitions" (acctd).

_acctctl_run()
{
    # the acctctl being completed (a build tree's, or the one on PATH)
    local ctl=${COMP_WORDS[0]}
    [[ $ctl == */* && -x $ctl ]] || ctl=acctctl
    "$ctl" "$@" 2>/dev/null
}

# Column $1 (1: partition, 2: interconnect) of "acctctl partitions", from the
# acctd of --socket if the line gives one; at most 2 s.
_acctctl_pairs()
{
    local col=$1 sock=() i
    for ((i = 2; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -s | --socket) sock=(--socket "${COMP_WORDS[i + 1]-}") ;;
            --socket=*) sock=(--socket "${COMP_WORDS[i]#--socket=}") ;;
        esac
    done
    local ctl=${COMP_WORDS[0]}
    [[ $ctl == */* && -x $ctl ]] || ctl=acctctl
    timeout 2 "$ctl" partitions --format tsv "${sock[@]}" 2>/dev/null |
        awk -F '\t' -v c="$col" 'NR > 1 && !seen[$c]++ { print $c }'
}

_acctctl()
{
    local cur=${COMP_WORDS[COMP_CWORD]-} prev=${COMP_WORDS[COMP_CWORD - 1]-}
    local cmd=${COMP_WORDS[1]-} words long short arg opt=
    COMPREPLY=()

    if ((COMP_CWORD == 1)); then
        mapfile -t COMPREPLY < <(compgen -W "$(_acctctl_run _complete commands) --help --version" -- "$cur")
        return 0
    fi
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == 2)) &&
            mapfile -t COMPREPLY < <(compgen -W "$(_acctctl_run _complete commands)" -- "$cur")
        return 0
    fi

    # The command's options: LONG SHORT ARG per line.
    local -a opts=() with_arg=()
    while IFS=$'\t' read -r long short arg; do
        [[ $long != - ]] && opts+=("$long")
        [[ $short != - ]] && opts+=("$short")
        if [[ $arg == yes ]]; then
            [[ $long != - ]] && with_arg+=("$long")
            [[ $short != - ]] && with_arg+=("$short=$long")
        fi
    done < <(_acctctl_run _complete options "$cmd")

    # Is the word before the cursor an option that takes a value? (Its long
    # name, or the short one if it has none.)
    # --opt=VALUE: bash splits it at "=" (COMP_WORDBREAKS) into --opt, =, VALUE
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD >= 3)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
    fi
    for words in "${with_arg[@]}"; do
        case $words in
            "$prev") opt=$prev ;;
            "$prev="*) opt=${words#*=} ;;
        esac
    done
    if [[ -n $opt ]]; then
        case $opt in
            --format | --collective)
                mapfile -t COMPREPLY < <(compgen -W "$(_acctctl_run _complete values "$cmd" "$opt")" -- "$cur") ;;
            --partition)
                mapfile -t COMPREPLY < <(compgen -W "$(_acctctl_pairs 1)" -- "$cur") ;;
            --interconnect)
                mapfile -t COMPREPLY < <(compgen -W "$(_acctctl_pairs 2)" -- "$cur") ;;
            --workdir)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
            --socket | --output | --file | --acct-tune)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        esac
        return 0
    fi

    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${opts[*]}" -- "$cur")
        return 0
    fi
    # Arguments that are files.
    case $cmd in
        validate | import | policy)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    esac
    return 0
}
complete -F _acctctl acctctl
