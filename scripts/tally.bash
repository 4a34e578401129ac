# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for tally (installed as share/bash-completion/completions/tally).
#
# The commands and options come from tally's own help texts (`tally --help`,
# `tally COMMAND --help`), so they follow the binary being completed. The
# event names of --show=, --sort= and --event= come from the "events:" line
# of the first profile on the command line when it is a plain file.

_tally_commands() {
    "$1" --help 2>/dev/null | awk '/^Commands:/ {c = 1; next} c && /^  [a-z]/ {print $1} c && /^$/ {exit}'
}

_tally_options() { # TALLY CMD
    "$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[ ,\[])--?[A-Za-z][A-Za-z0-9-]*=?' |
        sed -E 's/^[ ,\[]//' | grep -vE '^-[A-Za-z][A-Z]{2,}$' | sort -u
}

_tally_events() { # the events of the first plain profile among the words
    local w
    for w in "${COMP_WORDS[@]:2}"; do
        [[ $w == -* || ! -f $w ]] && continue
        head -c 65536 -- "$w" 2>/dev/null | tr -d '\0' |
            awk '/^events:/ {for (i = 2; i <= NF; i++) print $i; exit}'
        return
    done
}

_tally() {
    local cur=${COMP_WORDS[COMP_CWORD]} tally=${COMP_WORDS[0]} cmd=${COMP_WORDS[1]}
    COMPREPLY=()
    if ((COMP_CWORD == 1)); then
        mapfile -t COMPREPLY < <(compgen -W "$(_tally_commands "$tally") help --help --version" -- "$cur")
        return
    fi
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == 2)) && mapfile -t COMPREPLY < <(compgen -W "$(_tally_commands "$tally")" -- "$cur")
        return
    fi
    case $cur in
    --show=* | --sort=* | --event=*)
        local opt=${cur%%=*} val=${cur#*=} pre="" ev
        # lists: complete the last name after the commas
        if [[ $val == *,* ]]; then pre=${val%,*},; val=${val##*,}; fi
        ev=$(_tally_events)
        mapfile -t COMPREPLY < <(compgen -P "$opt=$pre" -W "$ev" -- "$val")
        return
        ;;
    -*)
        mapfile -t COMPREPLY < <(compgen -W "$(_tally_options "$tally" "$cmd")" -- "$cur")
        # an option waiting for its value: no space after the '='
        [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
        return
        ;;
    esac
    if [[ $cmd == record ]]; then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
}
complete -F _tally tally
