#!/usr/bin/env bash
# run --notify (app/notify.c, sandbox/waiting.c): the person is told when a
# run ends and when an interactive run waits for input, by the terminal's
# bell and OSC 9/777 and by the user's notify_command. notify_user.sh runs
# it as uid 65534.
. "$(dirname "$0")/lib.sh"
require_user_namespaces
PTY="python3 $(cd "$(dirname "$0")" && pwd)/pty_run.py"

# A repository, a task t, and a config.json whose notify_command appends its
# arguments to ./notes.
setup() {
	make_repo repo
	ok "new" -C repo new t
	mkdir -p home/.config/agenttask
	export HOME=$PWD/home XDG_CONFIG_HOME=
	NOTES=$PWD/notes
	printf '#!/bin/sh\necho "$*" >>%s\n' "$NOTES" >note.sh
	chmod +x note.sh
	printf '{"notify_command": ["%s"]}\n' "$PWD/note.sh" >home/.config/agenttask/config.json
}

notes_hold() {
	grep -q -- "$1" "$NOTES" 2>/dev/null
}

test_notify_calls_your_command_when_the_run_ends() {
	setup
	expect_rc 3 "run" -C repo run t --notify -- sh -c 'exit 3'
	assert_eq "$(cat "$NOTES")" "t exited 3" "the task, the state, the status"
	expect_rc 124 "timeout" -C repo run t --notify --timeout 0.2 -- sleep 5
	assert_eq "$(tail -n 1 "$NOTES")" "t exited 124" "a timeout ends it too"
}

test_without_notify_nothing_is_told() {
	setup
	ok "run" -C repo run t -- true
	assert_no_file "$NOTES" "no notification"
}

test_notify_in_the_run_configuration() {
	setup
	printf '{"notify_command": ["%s"], "run": {"notify": true}}\n' "$PWD/note.sh" \
		>home/.config/agenttask/config.json
	ok "run" -C repo run t -- true
	assert_eq "$(cat "$NOTES")" "t exited 0" "notify: true"
}

test_notify_tells_when_an_interactive_run_waits_for_input() {
	# The command reads its terminal: "waiting" is told, then, once it has
	# its line, "exited". On the terminal: the bell and OSC 9 and 777.
	setup
	$PTY sh -c "(i=0; while ! grep -q waiting '$NOTES' 2>/dev/null && [ \$i -lt 600 ]; do
		sleep 0.05; i=\$((i+1)); done; echo hello) |
		'$AT' -C repo run t --notify -t -- sh -c 'read x; echo got \$x'" >term.out
	assert_eq "$(cat "$NOTES")" "t waiting 
t exited 0" "waiting, then exited"
	assert_contains "$(cat term.out)" "got hello" "the command had its line"
	assert_contains "$(cat term.out)" $'\a\e]9;agenttask: t waiting for input\e\\' "OSC 9"
	assert_contains "$(cat term.out)" $'\e]777;notify;agenttask;t exited (0)\e\\' "OSC 777"
}

test_a_busy_interactive_run_is_not_waiting() {
	setup
	ok "run" -C repo run t --notify -t -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 1'
	assert_eq "$(cat "$NOTES")" "t exited 0" "never waiting"
}

test_a_repositorys_notify_command_is_refused() {
	# What: the repository's run.json (the agent's to write) names a
	# notify_command: a program of its choice run on the host, outside the
	# sandbox. Must: refused, one line, before anything runs.
	setup
	mkdir -p repo/.agenttask
	printf '{"notify_command": ["%s"]}\n' "$PWD/note.sh" >repo/.agenttask/run.json
	git -C repo add -A && git -C repo commit -q -m conf
	ok "new" -C repo new u
	expect_rc 2 "run" -C repo run u --notify -- touch ran
	assert_contains "$errout" "notify_command is yours to give (your config.json), not a repository's" "refused"
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" 1 "one line"
	assert_no_file "$NOTES" "nothing was run"
	assert_no_file "$(cd repo && "$AT" path u)/ran" "the command did not run"
}

test_a_missing_notify_command_is_one_line() {
	setup
	echo '{"notify_command": ["no-such-notifier", "x"]}' >home/.config/agenttask/config.json
	expect_rc 2 "run" -C repo run t --notify -- touch ran
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" 1 "one line"
	assert_contains "$errout" "notify_command 'no-such-notifier' of your config.json is not found" "named"
	assert_no_file "$(cd repo && "$AT" path t)/ran" "the command did not run"
	echo '{"notify_command": []}' >home/.config/agenttask/config.json
	expect_rc 2 "empty" -C repo run t --notify -- touch ran
	assert_contains "$errout" "notify_command" "an empty command"
}

run_tests
