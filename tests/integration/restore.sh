#!/usr/bin/env bash
# Discard that can be undone: restore, the trash, and gc pruning it. The
# tests play the agent (agent_sh) to change a task; a restored task is full
# (a checkout at its path) whatever the form of the one discarded.
. "$(dirname "$0")/lib.sh"

# One line per file and symlink below the current directory (.git left
# out): path, then mode and sha256 for a file, or the target for a symlink.
# A script for sh, run on the host (state_of) or by the agent (agent_sh).
STATE_OF='find . -path ./.git -prune -o \( -type f -o -type l \) -print | LC_ALL=C sort |
	while IFS= read -r f; do
		if [ -L "$f" ]; then
			printf "%s link %s\n" "$f" "$(readlink "$f")"
		else
			printf "%s %s %s\n" "$f" "$(stat -c %a "$f")" "$(sha256sum <"$f" | cut -d" " -f1)"
		fi
	done'

# state_of DIR: $STATE_OF of DIR, on the host.
state_of() {
	(cd "$1" && sh -c "$STATE_OF")
}

trash_refs() {
	git -C repo for-each-ref --format='%(refname)' "refs/agenttask/trash/$1/"
}

# A task with a commit of its own and every kind of uncommitted change.
make_busy_task() {
	require_user_namespaces
	make_repo repo
	printf '#!/bin/sh\necho tool\n' >repo/tool.sh
	chmod +x repo/tool.sh
	git -C repo add tool.sh
	git -C repo commit -q -m "a tool"
	ok "new" -C repo new t
	wt=$out
	agent_sh t 'set -e
		printf "committed in the task\n" >committed.txt
		git add committed.txt
		git commit -q -m "task commit"
		printf "changed, not committed\n" >>README
		rm src/main.c
		chmod -x tool.sh
		printf "untracked\n" >new.txt
		mkdir -p deep/er
		printf "\000\001binary\377" >deep/er/blob.bin
		printf "#!/bin/sh\nexit 0\n" >run.sh
		chmod 755 run.sh
		ln -s README link
		ln -s ../README deep/up'
}

test_restore_brings_the_task_back_byte_for_byte() {
	make_busy_task
	local before status tip
	agent_sh t "$STATE_OF"
	before=$out
	agent_sh t 'git status --porcelain'
	status=$out
	tip=$(git -C repo rev-parse agenttask/t)
	[ -n "$status" ] || fail "the task should have uncommitted changes"
	assert_contains "$before" "./deep/er/blob.bin " "the agent's files seen"

	ok "discard" -C repo discard t
	assert_no_file "$wt" "worktree removed by discard"
	assert_no_file "$(git -C repo rev-parse --absolute-git-dir)/agenttask/layers/t" "layer removed by discard"
	assert_eq "$(trash_refs t | wc -l)" "1" "one trash entry"

	ok "restore" -C repo restore t
	assert_eq "$out" "$wt" "restore prints the worktree path"
	assert_eq "$(state_of "$wt")" "$before" "every file, mode and symlink as before"
	assert_eq "$(git -C "$wt" status --porcelain)" "$status" "git status as before"
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$tip" "branch at its old tip"
	assert_eq "$(git -C "$wt" symbolic-ref HEAD)" "refs/heads/agenttask/t" "worktree on the branch"
	git -C repo worktree list --porcelain | grep -qx "worktree $wt" || fail "worktree not registered"
	assert_empty "the trash entry is gone after restore" trash_refs t
	assert_fsck repo
}

test_restore_keeps_the_base_branch_and_commit() {
	make_repo repo
	git -C repo branch feature main~1
	ok "new" -C repo new t --base feature
	ok "status" -C repo status t --json
	local base_branch base_commit created
	base_branch=$(json_get "$out" 'j["base_branch"]')
	base_commit=$(json_get "$out" 'j["base_commit"]')
	created=$(json_get "$out" 'j["created"]')
	ok "discard" -C repo discard t
	ok "restore" -C repo restore t
	ok "status" -C repo status t --json
	assert_eq "$(json_get "$out" 'j["base_branch"]')" "$base_branch" "base branch"
	assert_eq "$(json_get "$out" 'j["base_commit"]')" "$base_commit" "base commit"
	assert_eq "$(json_get "$out" 'j["base_commit"]')" "$(git -C repo rev-parse feature)" "base commit is feature's"
	assert_eq "$(json_get "$out" 'j["created"]')" "$created" "creation time"
	assert_eq "$(json_get "$out" 'j["commits_ahead"]')" "0" "nothing ahead"
}

test_restore_takes_the_most_recent_of_two_discards() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'printf "first\n" >which'
	ok "discard 1" -C repo discard t
	ok "new again" -C repo new t
	agent_sh t 'printf "second\n" >which'
	ok "discard 2" -C repo discard t
	assert_eq "$(trash_refs t | wc -l)" "2" "two trash entries"

	ok "restore" -C repo restore t
	assert_eq "$(cat "$out/which")" "second" "the later discard comes back"
	assert_eq "$(trash_refs t | wc -l)" "1" "one entry left"
	assert_eq "$(git -C repo show "$(trash_refs t):which")" "first" "the older one stays in the trash"

	ok "discard 3" -C repo discard t
	ok "restore again" -C repo restore t
	assert_eq "$(cat "$out/which")" "second" "the most recent again"
	assert_fsck repo
}

test_restore_refuses_when_the_task_exists() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	ok "discard" -C repo discard t
	ok "new again" -C repo new t
	agent_sh t 'printf "keep me\n" >mine'
	expect_rc 1 "restore over an existing task" -C repo restore t
	assert_contains "$errout" "'t'" "message names the task"
	agent_sh t 'cat mine'
	assert_eq "$out" "keep me" "existing task untouched"
	assert_eq "$(trash_refs t | wc -l)" "1" "trash entry kept"
}

test_restore_without_trash_fails_with_2() {
	make_repo repo
	expect_rc 2 "restore of a name never discarded" -C repo restore nothing
	assert_contains "$errout" "no discarded task 'nothing'" "message"
	expect_rc 2 "restore of a bad name" -C repo restore 'bad/name'
	expect_rc 2 "restore without NAME" -C repo restore
	assert_empty "no branch made" git -C repo branch --list 'agenttask/*'
}

test_restore_changes_nothing_when_the_worktree_path_is_taken() {
	make_repo repo
	ok "new" -C repo new t
	local wt=$out
	ok "discard" -C repo discard t
	mkdir -p "$wt"
	expect_rc 1 "restore onto an occupied path" -C repo restore t
	assert_contains "$errout" "already exists" "message"
	assert_empty "no branch left behind" git -C repo branch --list 'agenttask/*'
	assert_eq "$(trash_refs t | wc -l)" "1" "trash entry kept"
	ok "list" -C repo list --json
	assert_eq "$(json_get "$out" 'len(j)')" "0" "no task record left behind"
	rmdir "$wt"
	ok "restore once the path is free" -C repo restore t
}

test_restore_brings_staged_changes_back_unstaged() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	local wt=$out
	agent_sh t 'printf "staged\n" >>README && git add README'
	ok "discard" -C repo discard t
	ok "restore" -C repo restore t
	assert_eq "$(tail -n1 "$wt/README")" "staged" "content back"
	assert_eq "$(git -C "$wt" status --porcelain)" " M README" "unstaged: the trash holds no index"
}

test_gc_trash_days_0_prunes_the_trash() {
	make_repo repo
	ok "new" -C repo new t
	ok "discard" -C repo discard t
	local ref
	ref=$(trash_refs t)
	ok "gc keeping 14 days" -C repo gc
	assert_eq "$(trash_refs t)" "$ref" "recent trash kept by default"
	ok "gc" -C repo gc --trash-days 0
	assert_contains "$out" "pruned trash '$ref'" "gc reports the pruning"
	assert_empty "trash pruned" trash_refs t
	expect_rc 2 "restore after pruning" -C repo restore t
	assert_fsck repo
}

# What a discard killed while removing the worktree leaves: the record, the
# branch, the admin dir and part of the worktree, its .git pointer gone (a
# layered task's: the record and the branch, git's admin dir gone and the
# layer renamed aside whole, crash.sh's kill at remove:renamed).
test_discard_after_a_killed_discard_keeps_the_full_save() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	local wt=$out common tip
	common=$(git -C repo rev-parse --absolute-git-dir)
	agent_sh t 'printf "precious\n" >precious.txt'
	tip=$(git -C repo rev-parse agenttask/t)
	cp -a "$common/agenttask/tasks/t.json" record.json
	if ! layered_form; then
		cp -a "$common/worktrees/agenttask-t" admin
		cp -a "$wt" half
	fi
	ok "discard" -C repo discard t
	local saved
	saved=$(trash_refs t)
	# Put back the state of the kill.
	cp -a record.json "$common/agenttask/tasks/t.json"
	git -C repo branch agenttask/t "$tip"
	if ! layered_form; then
		cp -a admin "$common/worktrees/agenttask-t"
		rm half/.git half/README
		cp -a half "$wt"
	fi

	ok "discard again" -C repo discard t
	assert_eq "$(trash_refs t)" "$saved" "the complete save stands; no worse entry on top"
	ok "restore" -C repo restore t
	assert_eq "$(cat "$wt/precious.txt")" "precious" "uncommitted work back"
	assert_eq "$(git -C "$wt" status --porcelain)" "?? precious.txt" "and nothing lost"
}

test_restore_help() {
	ok "help" restore --help
	assert_contains "$out" "usage: agenttask restore NAME" "usage"
}

# ---------------------------------------------------------------- older entries

# discard_three: task t discarded three times, its file f holding v1, v2, v3.
discard_three() {
	require_user_namespaces
	make_repo repo
	local i
	for i in 1 2 3; do
		ok "new $i" -C repo new t
		agent_sh t 'printf "v%s\n" "$1" >f' "$i"
		ok "discard $i" -C repo discard t
	done
	ok "new other" -C repo new other
	ok "discard other" -C repo discard other
}

test_trash_lists_every_entry_newest_first() {
	discard_three
	ok "trash" -C repo trash
	assert_eq "$(printf '%s\n' "$out" | awk '{ print $1 " " $2 }')" \
		"$(printf 'NAME ENTRY\nother 1\nt 1\nt 2\nt 3')" "names and entry numbers"
	assert_eq "$(printf '%s\n' "$out" | awk 'NR > 1 { print $NF }' | LC_ALL=C sort)" \
		"$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/trash/ | LC_ALL=C sort)" \
		"every ref listed"
	# Entry 1 is the newest: the one holding v3.
	local ref1
	ref1=$(printf '%s\n' "$out" | awk '$1 == "t" && $2 == 1 { print $NF }')
	assert_eq "$(git -C repo cat-file -p "$ref1:f")" "v3" "entry 1 is the newest"
	ok "trash t --json" -C repo trash t --json
	assert_eq "$(json_get "$out" '",".join(str(e["entry"]) + e["task"] for e in j)')" "1t,2t,3t" "one task"
	assert_eq "$(json_get "$out" 'j[2]["ref"]')" "$(printf '%s\n' "$(trash_refs t)" | LC_ALL=C sort | head -1)" \
		"the oldest last"
	ok "empty for an unknown name" -C repo trash nothing
	assert_no_output "$out" "nothing"
	expect_rc 2 "a glob is no name" -C repo trash 't*'
}

test_restore_brings_back_an_older_entry() {
	discard_three
	ok "restore t 2" -C repo restore t 2
	assert_eq "$(cat "$out/f")" "v2" "the second newest"
	assert_eq "$(trash_refs t | wc -l)" "2" "that entry left the trash"
	ok "discard again" -C repo discard t
	ok "trash" -C repo trash t
	assert_eq "$(printf '%s\n' "$out" | sed 1d | wc -l)" "3" "three entries again"
	# By time stamp and by ref, as trash shows them.
	local oldest
	oldest=$(trash_refs t | LC_ALL=C sort | head -1)
	ok "restore by stamp" -C repo restore t "${oldest##*/}"
	assert_eq "$(cat "$out/f")" "v1" "the oldest"
	ok "discard" -C repo discard t
	ok "restore by ref" -C repo restore t "$(trash_refs t | LC_ALL=C sort | tail -1)"
	assert_file "$out/f"
	assert_fsck repo
}

test_restore_of_an_unknown_entry_changes_nothing() {
	discard_three
	local refs
	refs=$(git -C repo for-each-ref)
	expect_rc 2 "entry 9" -C repo restore t 9
	assert_contains "$errout" "no entry '9' in the trash of task 't'" "says which"
	assert_contains "$errout" "agenttask trash t" "and where to look"
	expect_rc 2 "another task's ref" -C repo restore t "$(trash_refs other)"
	expect_rc 2 "too many arguments" -C repo restore t 1 2
	assert_eq "$(git -C repo for-each-ref)" "$refs" "refs unchanged"
	assert_empty "no branch made" git -C repo branch --list 'agenttask/*'
}

# A newest entry that cannot be read is listed, and restore says what is
# wrong with it rather than quietly bringing back an older one.
test_an_unreadable_newest_entry_is_not_skipped() {
	discard_three
	local blob
	blob=$(printf 'not a commit\n' | git -C repo hash-object -w --stdin)
	git -C repo update-ref refs/agenttask/trash/t/9999999999.000000000 "$blob"
	ok "trash t" -C repo trash t
	assert_contains "$(printf '%s\n' "$out" | sed -n 2p)" "unreadable" "entry 1 shown as unreadable"
	expect_rc 1 "restore t" -C repo restore t
	assert_contains "$errout" "9999999999.000000000" "names the entry"
	assert_empty "nothing restored" git -C repo branch --list 'agenttask/*'
	ok "an older one by number" -C repo restore t 2
	assert_eq "$(cat "$out/f")" "v3" "entry 2: the newest readable"
}

run_tests
