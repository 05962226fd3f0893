# bash completion for agenttask                             -*- shell-script -*-
#
# Commands, options and task names come from agenttask itself ('--help',
# 'help COMMAND', 'list --name-only', 'trash'), so they cannot drift from the binary.
# Needs nothing but bash: bash-completion's helpers are not used.

# The commands, from the "commands:" section of --help.
_agenttask_commands()
{
	"$1" --help 2>/dev/null | sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# One line an option of command $2: "SHORT|LONG|ARG" (SHORT, ARG may be empty).
_agenttask_option_lines()
{
	"$1" help "$2" 2>/dev/null |
		sed -n -E 's/^  (-([a-zA-Z0-9]), )?(--?[a-z][a-z-]*)(\[=[A-Z]+\])?( ([A-Z][^ ]*))?( .*)?$/\2|\3|\6/p'
}

_agenttask()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local at=${COMP_WORDS[0]} cmd='' i short long arg words=''
	local -a global=()

	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-C) global+=(-C "${COMP_WORDS[i + 1]}"); ((i++)) ;;
		-C?*) global+=("${COMP_WORDS[i]}") ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $prev == -C ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '-C --no-pager --version --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_agenttask_commands "$at")" -- "$cur"))
		fi
		return 0
	fi
	# After run's "--": the sandboxed command, then its own arguments.
	for ((i = i + 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if ((i + 1 == COMP_CWORD)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return 0
		fi
	done
	while IFS='|' read -r short long arg; do
		if [[ -n $arg && ( $prev == "$long" || ( -n $short && $prev == "-$short" ) ) ]]; then
			# The option's value: a path where the help says so, else nothing to offer.
			case $arg in
			PATH | FILE) COMPREPLY=($(compgen -f -- "$cur")) ;;
			esac
			return 0
		fi
		words+=" $long${short:+ -$short}"
	done < <(_agenttask_option_lines "$at" "$cmd")
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$words --help" -- "$cur"))
	elif [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W "$(_agenttask_commands "$at")" -- "$cur"))
	elif [[ $cmd == restore || $cmd == trash ]]; then
		# Discarded tasks: the names in the trash.
		COMPREPLY=($(compgen -W "$("$at" "${global[@]}" trash 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur"))
	elif [[ $cmd != list && $cmd != gc && $cmd != doctor && $cmd != mcp ]]; then
		COMPREPLY=($(compgen -W "$("$at" "${global[@]}" list --name-only 2>/dev/null)" -- "$cur"))
	fi
	return 0
}
complete -F _agenttask agenttask
