#!/usr/bin/env bash
# terminal.sh - what agenttask does on a terminal and only there: the pager
# of diff and log (GIT_PAGER, core.pager, PAGER, LESS=FRX, --no-pager) and
# colour (--color, NO_COLOR, TERM=dumb). A terminal is a pseudo-terminal
# (pty_run.py); the same commands on a pipe must stay plain.
. "$(dirname "$0")/lib.sh"
PTY="python3 $(cd "$(dirname "$0")" && pwd)/pty_run.py"
export TERM=xterm
unset NO_COLOR GIT_PAGER PAGER LESS LV

# A task t whose diff is a few lines (its agent's change).
task_repo() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'printf "changed\n" >README'
	export HOME=$PWD   # no global config of the machine's
}

# plain CMD...: CMD's output without colour escapes.
plain() {
	"$@" | sed 's/\x1b\[[0-9;]*m//g'
}

# A pager that marks every line it shows, and says what LESS it got.
marking_pager() {
	printf '%s' "echo \"pager $1 LESS=\$LESS LV=\$LV\"; sed 's/^/$1| /'"
}

test_diff_and_log_are_paged_on_a_terminal_only() {
	task_repo
	out=$(GIT_PAGER=$(marking_pager git) plain $PTY "$AT" -C repo diff t)
	assert_contains "$out" "pager git LESS=FRX LV=-c" "GIT_PAGER ran, with git's LESS and LV"
	assert_contains "$out" "git| +changed" "the diff went through it"
	out=$(GIT_PAGER=$(marking_pager git) $PTY "$AT" -C repo log t)
	assert_contains "$out" "git| " "log went through it"
	assert_contains "$out" "new" "log's entries"
	# On a pipe: no pager, whatever the variables say.
	at -C repo diff t
	assert_not_contains "$(GIT_PAGER=$(marking_pager git) "$AT" -C repo diff t)" "pager" "no pager on a pipe"
	assert_contains "$(GIT_PAGER=$(marking_pager git) "$AT" -C repo diff t)" "+changed" "the diff itself"
	# --json is for programs: never paged.
	out=$(GIT_PAGER=$(marking_pager git) $PTY "$AT" -C repo diff t --json)
	assert_not_contains "$out" "pager git" "--json is not paged"
}

test_pager_is_chosen_as_git_chooses_it() {
	task_repo
	git -C repo config core.pager "$(marking_pager core)"
	out=$(PAGER=$(marking_pager env) GIT_PAGER=$(marking_pager git) $PTY "$AT" -C repo diff t)
	assert_contains "$out" "pager git" "GIT_PAGER first"
	out=$(PAGER=$(marking_pager env) $PTY "$AT" -C repo diff t)
	assert_contains "$out" "pager core" "then core.pager"
	git -C repo config --unset core.pager
	out=$(PAGER=$(marking_pager env) $PTY "$AT" -C repo diff t)
	assert_contains "$out" "pager env" "then PAGER"
	out=$(LESS=-S PAGER=$(marking_pager env) $PTY "$AT" -C repo diff t)
	assert_contains "$out" "LESS=-S" "a LESS of the user's is kept"
	out=$(PAGER=cat GIT_PAGER=cat plain $PTY "$AT" -C repo diff t)
	assert_contains "$out" "+changed" "cat: no pager, the diff as it is"
	for opt in --no-pager -P; do
		out=$(GIT_PAGER=$(marking_pager git) plain $PTY "$AT" "$opt" -C repo diff t)
		assert_not_contains "$out" "pager git" "$opt"
		assert_contains "$out" "+changed" "$opt: the diff itself"
	done
}

# A task's worktree cannot choose the pager: its config is not read.
test_task_worktree_config_never_picks_the_pager() {
	task_repo
	git -C repo config extensions.worktreeConfig true
	local wt
	wt=$("$AT" -C repo path t)   # (a layered task made full: a directory to run in)
	git -C "$wt" config --worktree core.pager "touch $PWD/pwned; cat"
	PAGER=cat $PTY "$AT" -C "$wt" diff >/dev/null
	assert_no_file "$PWD/pwned" "the task's core.pager never ran"
}

test_diff_colour_follows_terminal_term_and_no_color() {
	task_repo
	local esc=$'\e['
	out=$($PTY "$AT" --no-pager -C repo diff t)
	assert_contains "$out" "${esc}32m+" "colour on a terminal"
	out=$(TERM=dumb $PTY "$AT" --no-pager -C repo diff t)
	assert_not_contains "$out" "$esc" "TERM=dumb: none"
	out=$(env -u TERM $PTY "$AT" --no-pager -C repo diff t)
	assert_not_contains "$out" "$esc" "no TERM: none"
	out=$(NO_COLOR=1 $PTY "$AT" --no-pager -C repo diff t)
	assert_not_contains "$out" "$esc" "NO_COLOR: none"
	out=$(NO_COLOR= $PTY "$AT" --no-pager -C repo diff t)
	assert_contains "$out" "$esc" "an empty NO_COLOR is no request"
	out=$(NO_COLOR=1 $PTY "$AT" --no-pager -C repo diff t --color=always)
	assert_contains "$out" "$esc" "--color=always overrides NO_COLOR"
	out=$($PTY "$AT" --no-pager -C repo diff t --no-color)
	assert_not_contains "$out" "$esc" "--no-color"
	out=$($PTY "$AT" --no-pager -C repo diff t --color=never)
	assert_not_contains "$out" "$esc" "--color=never"
	assert_not_contains "$("$AT" -C repo diff t)" "$esc" "a pipe: none"
	# Through the pager, colour stays on (less -R shows it).
	out=$(GIT_PAGER=cat\ -v $PTY "$AT" -C repo diff t)
	assert_contains "$out" "^[[32m+" "coloured for the pager"
}

# big_repo: a repository of 3,000 files, so that new has something to count.
big_repo() {
	make_repo repo
	local d
	for d in $(seq 1 10); do
		mkdir "repo/d$d"
		seq 1 300 | while read -r f; do echo "$f" >"repo/d$d/f$f"; done
	done
	git -C repo add -A && git -C repo commit -q -m big
}

test_new_shows_progress_on_a_terminal_only() {
	big_repo
	# AGENTTASK_PROGRESS_DELAY_MS=0: shown at once (by default after a second).
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo new t)
	assert_contains "$out" "Updating files: 100% (3002/3002), done." "git's progress line"
	assert_contains "$out" "$(printf '\r')" "redrawn in place"
	assert_contains "$out" "$(wt_home repo)/t" "the path still printed"
	# Quiet: by --quiet, on a pipe, or when stderr alone is no terminal.
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo new u --quiet)
	assert_not_contains "$out" "Updating files" "--quiet"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 "$AT" -C repo new v 2>&1)
	assert_not_contains "$out" "Updating files" "a pipe"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY sh -c '"$1" -C repo new w 2>err' _ "$AT")
	assert_not_contains "$(cat err)$out" "Updating files" "stderr a file"
	# Work quicker than the delay (a second) shows nothing: three files.
	make_repo small
	out=$($PTY "$AT" -C small new x)
	assert_not_contains "$out" "Updating files" "quick work is quiet"
}

# What: new copies a large .worktreeinclude set (3,000 ignored files, 12 MB).
# Must: on a terminal, "Copying included files: N, SIZE" redrawn in place
# and finished with ", done."; nothing on a pipe, with stderr a file, with
# --quiet, or with --json (its stdout the JSON alone); the files all copied.
test_new_shows_include_copy_progress_on_a_terminal_only() {
	make_repo repo
	printf 'vendor/\n' >repo/.gitignore
	printf 'vendor/\n' >repo/.worktreeinclude
	git -C repo add .gitignore .worktreeinclude && git -C repo commit -q -m include
	python3 -c '
import os
for d in range(10):
    os.makedirs("repo/vendor/d%d" % d)
    for f in range(300):
        with open("repo/vendor/d%d/f%d" % (d, f), "wb") as fh:
            fh.write(b"x" * 4096)'
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo new t)
	assert_contains "$out" "Copying included files: 3000, 11.72 MiB, done." "files and bytes"
	assert_contains "$out" "$(printf '\r')Copying included files" "redrawn in place"
	require_user_namespaces
	agent_sh t 'find vendor -type f | wc -l'
	assert_eq "$out" "3000" "all copied"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 "$AT" -C repo new u 2>&1)
	assert_not_contains "$out" "Copying" "a pipe"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY sh -c '"$1" -C repo new v 2>err' _ "$AT")
	assert_not_contains "$(cat err)$out" "Copying" "stderr a file"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo new w --quiet)
	assert_not_contains "$out" "Copying" "--quiet"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo new x --json)
	assert_not_contains "$out" "Copying" "--json"
	assert_not_contains "$out" "Updating files" "--json: no checkout progress either"
	json_get "$(printf '%s' "$out" | tr -d '\r')" 'j["name"]' >/dev/null || fail "--json: not JSON alone: $out"
}

# status, list, log and gate colour as diff does, and take --color/--no-color.
test_status_list_log_gate_colour_as_git_does() {
	task_repo
	printf '{"max_changed_files": 10}\n' >policy.json
	local esc=$'\e[' c
	for c in "status t" "list" "log t" "gate t --policy $PWD/policy.json"; do
		# shellcheck disable=SC2086
		out=$($PTY "$AT" --no-pager -C repo $c)
		assert_contains "$out" "$esc" "$c: colour on a terminal"
		# shellcheck disable=SC2086
		out=$(TERM=dumb $PTY "$AT" --no-pager -C repo $c)
		assert_not_contains "$out" "$esc" "$c: TERM=dumb"
		# shellcheck disable=SC2086
		out=$(NO_COLOR=1 $PTY "$AT" --no-pager -C repo $c)
		assert_not_contains "$out" "$esc" "$c: NO_COLOR"
		# shellcheck disable=SC2086
		out=$($PTY "$AT" --no-pager -C repo $c --no-color)
		assert_not_contains "$out" "$esc" "$c: --no-color"
		# shellcheck disable=SC2086
		out=$($PTY "$AT" --no-pager -C repo $c --color=never)
		assert_not_contains "$out" "$esc" "$c: --color=never"
		# shellcheck disable=SC2086
		out=$("$AT" -C repo $c)
		assert_not_contains "$out" "$esc" "$c: a pipe"
		# shellcheck disable=SC2086
		out=$("$AT" -C repo $c --color=always)
		assert_contains "$out" "$esc" "$c: --color=always on a pipe"
		# shellcheck disable=SC2086
		expect_rc 2 "$c: a bad WHEN" -C repo $c --color=sometimes
	done
	# The colours carry meaning: a clean task's state is green, a passed gate too.
	out=$("$AT" -C repo list --color=always)
	assert_contains "$out" "${esc}33mmodified${esc}m" "list: a modified task in yellow"
	out=$("$AT" -C repo gate t --policy "$PWD/policy.json" --color=always)
	assert_contains "$out" "${esc}32m" "gate: green for a pass"
}

# The gate's checks: which one runs, and for how long (redrawn each second).
# The redrawing thread must not take the SIGCHLD the sandbox's supervisor
# waits for: a gate that hangs past the timeout fails here.
test_gate_checks_show_progress_on_a_terminal_only() {
	task_repo
	cat >policy.json <<'JSON'
{"checks": [{"name": "quick", "run": ["true"]}, {"name": "slow one", "run": ["sleep", "2.5"]}]}
JSON
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 timeout 60 $PTY "$AT" --no-pager -C repo gate t \
		--policy "$PWD/policy.json" --no-color) || fail "gate failed or hung ($?)"
	assert_contains "$out" "check 1 of 2: quick, done." "the first check named, and done"
	printf '%s' "$out" | grep -Eq 'check 2 of 2: slow one, [1-9] s' ||
		fail "the second check, with its time: $out"
	assert_contains "$out" "gate passed" "then the report"
	# By default only once the gate has run a second: the slow check is shown.
	out=$(timeout 60 $PTY "$AT" --no-pager -C repo gate t --policy "$PWD/policy.json" \
		--no-color) || fail "gate failed or hung ($?)"
	printf '%s' "$out" | grep -Eq 'check 2 of 2: slow one, [1-9] s, done\.' ||
		fail "a slow check is shown: $out"
	out=$($PTY "$AT" --no-pager -C repo gate t --policy "$PWD/policy.json" --quiet)
	assert_not_contains "$out" "check 1 of 2" "--quiet"
	out=$("$AT" -C repo gate t --policy "$PWD/policy.json" 2>&1)
	assert_not_contains "$out" "check 1 of 2" "a pipe"
}

test_discard_and_gc_show_their_steps_on_a_terminal() {
	task_repo
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo discard t)
	assert_contains "$out" "saving the task in the trash, done." "discard's first step"
	assert_contains "$out" "removing the task, done." "and its second"
	assert_contains "$out" "discarded task 't'" "then what it did"
	ok "new" -C repo new u
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo discard u --quiet)
	assert_not_contains "$out" "saving" "--quiet"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo gc)
	assert_contains "$out" "collecting what interrupted commands left, done." "gc's step"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 $PTY "$AT" -C repo gc -q)
	assert_not_contains "$out" "collecting" "gc -q"
	out=$(AGENTTASK_PROGRESS_DELAY_MS=0 "$AT" -C repo gc 2>&1)
	assert_not_contains "$out" "collecting" "a pipe"
}

run_tests
