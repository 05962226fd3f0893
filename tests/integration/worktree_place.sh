#!/usr/bin/env bash
# Where a task's worktree lives: outside .git, in the user's data directory
# or where agenttask.worktreeDir says (the user's or the repository's git
# config, never a task's); tasks made at the old place (.git/agenttask/
# worktrees) keep working; an edited record never aims removal or a bind
# elsewhere; and a tool that skips /.git/ paths (Jest) finds a task's tests.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

common_dir() {
	git -C "$1" rev-parse --path-format=absolute --git-common-dir
}

test_default_place_is_the_data_directory_outside_git() {
	make_repo repo
	ok "new" -C repo new t
	assert_eq "$out" "$(wt_home repo)/t" "under \$XDG_DATA_HOME/agenttask/worktrees/<repo>-<id>"
	case $out in *"/.git/"*) fail "the worktree is inside .git: $out" ;; esac
	# (a layered task's directory is made there when the person asks for it)
	task_path t
	assert_eq "$out" "$(wt_home repo)/t" "the path the person gets"
	assert_eq "$(stat -c %a "$XDG_DATA_HOME/agenttask")" "700" "a private directory"
	assert_eq "$(git -C "$out" rev-parse --abbrev-ref HEAD)" "agenttask/t" "git knows the worktree"
	git -C repo worktree list --porcelain | grep -qx "worktree $out" || fail "not registered"
	# Without XDG_DATA_HOME (or with a relative one, which XDG says to ignore): ~/.local/share.
	mkdir home
	HOME=$PWD/home XDG_DATA_HOME=relative/dir ok "new u" -C repo new u
	assert_eq "$out" "$(HOME=$PWD/home XDG_DATA_HOME=$PWD/home/.local/share wt_home repo)/u" "~/.local/share"
	# Two clones of one name never share a directory.
	git clone -q repo other/repo
	ok "new in the clone" -C other/repo new t
	[ "$out" != "$(wt_home repo)/t" ] || fail "two repositories share '$out'"
}

test_worktree_dir_from_git_config() {
	make_repo repo
	mkdir place
	git -C repo config agenttask.worktreeDir "$PWD/place"
	ok "new" -C repo new t
	assert_eq "$(dirname "$(dirname "$out")")" "$PWD/place" "the repository's agenttask.worktreeDir"
	local first=$out
	# The user's (global) config, with ~ for the home.
	git -C repo config --unset agenttask.worktreeDir
	mkdir -p home/wt
	printf '[agenttask]\n\tworktreeDir = ~/wt\n' >home/.gitconfig
	HOME=$PWD/home ok "new u" -C repo new u
	assert_eq "$(dirname "$(dirname "$out")")" "$PWD/home/wt" "the user's, ~ expanded"
	# A task made before the setting changed stays where it is and works.
	ok "status t" -C repo status t
	ok "path t" -C repo path t
	assert_eq "$out" "$first" "old task kept its place"
	ok "discard t" -C repo discard t
	assert_no_file "$first" "removed from where it was"
}

test_worktree_dir_must_be_absolute() {
	make_repo repo
	git -C repo config agenttask.worktreeDir "relative/place"
	expect_rc 2 "relative worktreeDir" -C repo new t
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line"
	assert_contains "$errout" "'relative/place'" "names the value"
	assert_empty "no branch made" git -C repo branch --list agenttask/t
	assert_no_file repo/.git/agenttask/tasks/t.json "no record"
}

# What: the task, or anything else that can write its admin directory's
# config.worktree, sets agenttask.worktreeDir to steer the next task. Must:
# only the main repository's config (and the user's) count.
test_a_tasks_own_config_is_never_read() {
	make_repo repo
	git -C repo config extensions.worktreeConfig true
	ok "new t" -C repo new t
	task_path t   # a directory to be in: a layered task made full
	local wt=$out
	git -C "$wt" config --worktree agenttask.worktreeDir "$PWD/steered"
	ok "new u from inside t" -C "$wt" new u
	assert_eq "$out" "$(wt_home repo)/u" "the default place"
	assert_no_file steered "the task's config was not read"
}

# A task as agenttask made it before worktrees moved out of .git (a full
# one: there were no layered tasks then).
make_old_style_task() {
	make_repo repo
	ok "new" -C repo new --full old
	local cd old
	cd=$(common_dir repo)
	old=$cd/agenttask/worktrees/old
	git -C repo worktree move "$(wt_home repo)/old" "$old"
	python3 - "$cd/agenttask/tasks/old.json" "$old" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["path"] = sys.argv[2]; json.dump(d, open(sys.argv[1], "w"))
PY
	OLD=$old
}

test_tasks_at_the_old_place_keep_working() {
	require_user_namespaces
	make_old_style_task
	ok "path" -C repo path old
	assert_eq "$out" "$OLD" "at the old place"
	echo change >"$OLD/new-file"
	ok "run" -C repo run old -- sh -c 'pwd; cat new-file; echo more >>new-file'
	assert_eq "$out" "$OLD
change" "run binds the old place"
	ok "diff" -C repo diff old
	assert_contains "$out" "+more" "diff reads it"
	ok "commit" -C repo commit old -m change
	ok "discard" -C repo discard old
	assert_no_file "$OLD" "discard removes it"
	ok "restore" -C repo restore old
	ok "path" -C repo path old
	assert_eq "$out" "$(wt_home repo)/old" "restored at the new place"
	assert_file "$out/new-file" "with its files"
}

# What: the attacker edits the task record's path to a directory of the
# user's named like the task (so that gc or discard removes it, or run binds
# it read-write). Must: every command uses the worktree git registered for
# the task; the other directory is never touched nor shown.
test_an_edited_record_path_never_reaches_elsewhere() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	local wt=$out rec
	rec=$(common_dir repo)/agenttask/tasks/t.json
	mkdir -p victim/t
	echo precious >victim/t/keep.txt
	python3 - "$rec" "$PWD/victim/t" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["path"] = sys.argv[2]; json.dump(d, open(sys.argv[1], "w"))
PY
	ok "path" -C repo path t
	assert_eq "$out" "$wt" "git's registration, not the record"
	ok "run" -C repo run t -- sh -c "pwd; ls '$PWD/victim' 2>&1; echo w >f"
	assert_contains "$out" "$wt" "runs in the real worktree"
	assert_no_file victim/t/f "the victim was not bound"
	ok "discard" -C repo discard t
	assert_eq "$(cat victim/t/keep.txt)" "precious" "the victim survives discard"
	assert_no_file "$wt" "the real worktree is gone"
	# With git's registration gone too, the record is corrupt and gc leaves it.
	ok "new" -C repo new u
	wt=$out
	rec=$(common_dir repo)/agenttask/tasks/u.json
	mkdir -p victim/u
	echo precious >victim/u/keep.txt
	python3 - "$rec" "$PWD/victim/u" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["path"] = sys.argv[2]; d["phase"] = "creating"; json.dump(d, open(sys.argv[1], "w"))
PY
	rm -rf "$(common_dir repo)/worktrees/agenttask-u"
	ok "gc" -C repo gc
	assert_contains "$out" "corrupt task record" "gc says why it left the record"
	assert_eq "$(cat victim/u/keep.txt)" "precious" "the victim survives gc"
	expect_rc 1 "discard u" -C repo discard u
	assert_eq "$(cat victim/u/keep.txt)" "precious" "the victim survives discard"
}

# Jest (pinned: tests/jest/package-lock.json) skips every path with /.git/
# in it: a task at the old place had no tests to Jest. Must: it finds and
# runs the task's test, in the sandbox, as it would in the main worktree.
test_jest_finds_and_runs_a_test_in_a_task() {
	require_user_namespaces
	local jest
	jest=$HERE/../jest/node_modules/jest/bin/jest.js
	if [ ! -f "$jest" ]; then
		[ "${CI:-}" != true ] || fail "Jest is not installed (make deps: scripts/install-deps.sh npm:tests/jest)"
		skip "Jest not installed (bash scripts/install-deps.sh npm:tests/jest)"
	fi
	make_repo repo
	printf '{ "name": "demo", "private": true }\n' >repo/package.json
	printf 'exports.add = (a, b) => a + b;\n' >repo/sum.js
	mkdir -p repo/__tests__
	printf 'const { add } = require("../sum");\ntest("adds", () => { expect(add(2, 3)).toBe(5); });\n' \
		>repo/__tests__/sum.test.js
	git -C repo add -A
	git -C repo commit -q -m "a test"
	ok "new" -C repo new t
	ok "jest in the task" -C repo run t --ro "$(dirname "$(dirname "$(dirname "$jest")")")" -- \
		node "$jest" --ci --no-watchman --colors=false
	assert_contains "$errout" "Tests:       1 passed, 1 total" "the test was found and passed"
	assert_contains "$errout" "__tests__/sum.test.js" "the task's test file"
}

# What: .worktreeinclude lists files the main worktree holds and git ignores
# (an .env, a secrets/ dir), and also files git does not ignore, a tracked
# file, .git, a link out of the repository and a fifo. Must: a new task gets
# exactly the listed ignored regular files, with their bytes and modes;
# nothing else, no link followed, no fifo opened (new does not hang), never
# .git; a tracked file stays as committed; a restored task gets none.
test_worktreeinclude_copies_ignored_listed_files_and_nothing_else() {
	make_repo repo
	printf '.env\nsecrets/\nbuild/\n*.log\nlink.env\nfifo.env\ntracked.cfg\nvendor/\n' >repo/.gitignore
	echo committed >repo/tracked.cfg
	git -C repo add .gitignore
	git -C repo add -f tracked.cfg
	git -C repo commit -q -m ignore
	printf '.env\nsecrets/\nnotes.txt\ntracked.cfg\nlink.env\nfifo.env\n.git\n.git/\nvendor/\n' >repo/.worktreeinclude
	git init -q repo/vendor/lib
	echo lib >repo/vendor/lib/lib.c
	echo API_KEY=1 >repo/.env
	mkdir -p repo/secrets/deep repo/build repo/sub
	echo key >repo/secrets/deep/key
	printf '#!/bin/sh\n' >repo/secrets/run.sh
	chmod 750 repo/secrets/run.sh
	echo nested >repo/sub/.env
	echo out >repo/build/out
	echo log >repo/x.log
	echo notes >repo/notes.txt
	echo changed >repo/tracked.cfg
	mkdir outside
	echo precious >outside/f
	ln -s "$PWD/outside/f" repo/link.env
	mkfifo repo/fifo.env
	ok "new" -C repo new t
	task_path t   # the task's files as the person sees them (a layered one's: its upper's copies)
	local wt=$out
	assert_eq "$(cat "$wt/.env")" "API_KEY=1" ".env copied"
	assert_eq "$(cat "$wt/sub/.env")" "nested" "at any depth"
	assert_eq "$(cat "$wt/secrets/deep/key")" "key" "a listed ignored directory, whole"
	assert_eq "$(stat -c %a "$wt/secrets/run.sh")" "750" "modes kept"
	assert_eq "$(cat "$wt/vendor/lib/lib.c")" "lib" "a vendored repository's files"
	assert_no_file "$wt/vendor/lib/.git" "never a .git, at any depth"
	assert_no_file "$wt/build/out" "ignored but not listed"
	assert_no_file "$wt/x.log" "ignored but not listed"
	assert_no_file "$wt/notes.txt" "listed but not ignored"
	assert_no_file "$wt/link.env" "a link is not copied"
	assert_no_file "$wt/fifo.env" "a fifo is not copied"
	assert_eq "$(cat "$wt/tracked.cfg")" "committed" "a tracked file stays as committed"
	assert_empty "the copies are ignored in the task too" git -C "$wt" status --porcelain
	assert_eq "$(cat "$wt/.git" | head -c 7)" "gitdir:" ".git is git's pointer, not a copy"
	assert_eq "$(cat outside/f)" "precious" "the link's target untouched"
	ok "discard" -C repo discard t
	ok "restore" -C repo restore t
	ok "path" -C repo path t
	assert_no_file "$out/.env" "a restored task gets no copies"
}

run_tests
