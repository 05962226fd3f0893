# fish completion for agenttask. Commands, options and task names come from
# agenttask itself ('help --complete [COMMAND]', made from the tables the
# options are parsed by; 'list --name-only', 'trash'), as in the bash
# completion, so they cannot drift from the binary.

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

# One line a command: "NAME|OPERAND|SUMMARY"; printed as NAME<tab>SUMMARY.
function __agenttask_commands
    agenttask help --complete 2>/dev/null | string replace -r '^([^|]*)\|[^|]*\|' '$1\t'
end

# What command $argv[1] takes as its operand: task, trash, command, or nothing.
function __agenttask_operand
    agenttask help --complete 2>/dev/null | awk -F'|' -v c=$argv[1] '$1 == c { print $2 }'
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
        # One line an option: "SHORT|--LONG|ARG|TEXT"; printed as --LONG<tab>TEXT, -SHORT<tab>TEXT.
        for line in (agenttask help --complete $cmd 2>/dev/null)
            set -l f (string split -m 3 '|' -- $line)
            printf '%s\t%s\n' $f[2] $f[4]
            test -n "$f[1]"; and printf '%s\t%s\n' -$f[1] $f[4]
        end
        return
    end
    switch (__agenttask_operand $cmd)
        case command
            __agenttask_commands
        case trash
            agenttask $w[2..-1] trash 2>/dev/null | awk 'NR > 1 { print $1 }'
        case task
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
