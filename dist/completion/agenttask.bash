# bash completion for agenttask                             -*- shell-script -*-
#
# Commands, options and task names come from agenttask itself: the hidden
# 'help --complete [COMMAND]' lists the commands and each command's options
# from the tables they are parsed by, so they cannot drift from the binary;
# 'list --name-only' and 'trash' name the tasks.
# Needs nothing but bash: bash-completion's helpers are not used.

# One line a command: "NAME|OPERAND|SUMMARY" (OPERAND: task, trash, command or empty).
_agenttask_command_lines()
{
	"$1" help --complete 2>/dev/null
}

_agenttask_commands()
{
	local name rest

	while IFS='|' read -r name rest; do
		printf '%s\n' "$name"
	done < <(_agenttask_command_lines "$1")
}

# What command $2 takes as its operand: task, trash, command, or nothing.
_agenttask_operand()
{
	local name operand rest

	while IFS='|' read -r name operand rest; do
		[[ $name == "$2" ]] && printf '%s' "$operand"
	done < <(_agenttask_command_lines "$1")
}

_agenttask()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local at=${COMP_WORDS[0]} cmd='' i short long arg text words=''
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
	# One line an option: "SHORT|--LONG|ARG|TEXT" (SHORT, ARG empty when none).
	while IFS='|' read -r short long arg text; do
		if [[ -n $arg && $arg != '['* &&
			( $prev == "$long" || ( -n $short && $prev == "-$short" ) ) ]]; then
			# The option's value: a path where the help says so, else nothing to offer.
			case $arg in
			PATH | FILE) COMPREPLY=($(compgen -f -- "$cur")) ;;
			esac
			return 0
		fi
		words+=" $long${short:+ -$short}"
	done < <("$at" help --complete "$cmd" 2>/dev/null)
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return 0
	fi
	case $(_agenttask_operand "$at" "$cmd") in
	command) COMPREPLY=($(compgen -W "$(_agenttask_commands "$at")" -- "$cur")) ;;
	# Discarded tasks: the names in the trash.
	trash) COMPREPLY=($(compgen -W "$("$at" "${global[@]}" trash 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur")) ;;
	task) COMPREPLY=($(compgen -W "$("$at" "${global[@]}" list --name-only 2>/dev/null)" -- "$cur")) ;;
	esac
	return 0
}
complete -F _agenttask agenttask
