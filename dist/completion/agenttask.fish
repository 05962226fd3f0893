# fish completion for agenttask. Commands, options and task names come from
# agenttask itself ('--help', 'help COMMAND', 'list --name-only'), as in the
# bash completion, so they cannot drift from the binary.

# The command word of the line being completed (and -C DIR before it), or fail.
function __agenttask_words
    set -l toks (commandline -opc)
    set -l global
    set -l i 2
    while test $i -le (count $toks)
        switch $toks[$i]
            case -C
                set i (math $i + 1)
                set -a global -C $toks[$i]
            case '-C?*'
                set -a global $toks[$i]
            case '-*'
            case '*'
                printf '%s\n' $toks[$i] $global
                return 0
        end
        set i (math $i + 1)
    end
    return 1
end

function __agenttask_commands
    agenttask --help 2>/dev/null | sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z-]*\)  *\(.*\)/\1\t\2/p'
end

# Options of the command on the line if the token starts with '-', else task names.
function __agenttask_args
    set -l w (__agenttask_words); or return
    set -l cmd $w[1]
    if contains -- -- (commandline -opc)
        __fish_complete_path (commandline -ct)
        return
    end
    if string match -q -- '-*' (commandline -ct)
        agenttask help $cmd 2>/dev/null |
            sed -n -E 's/^  (-([a-zA-Z0-9]), )?(--?[a-z][a-z-]*).*/\3\n-\2/p' | string match -v -- -
        echo --help
    else if test $cmd = help
        __agenttask_commands
    else if contains -- $cmd restore trash
        agenttask $w[2..-1] trash 2>/dev/null | awk 'NR > 1 { print $1 }'
    else if not contains -- $cmd list gc doctor mcp
        agenttask $w[2..-1] list --name-only 2>/dev/null
    end
end

complete -c agenttask -f
complete -c agenttask -n 'not __agenttask_words' -s C -r -a '(__fish_complete_directories)' -d 'run as if started in DIR'
complete -c agenttask -n 'not __agenttask_words' -s P -l no-pager -d 'do not page diff and log'
complete -c agenttask -n 'not __agenttask_words' -l version -d 'print the version'
complete -c agenttask -n 'not __agenttask_words' -l help -d 'print the overview'
complete -c agenttask -n 'not __agenttask_words' -a '(__agenttask_commands)'
complete -c agenttask -n '__agenttask_words' -a '(__agenttask_args)'
