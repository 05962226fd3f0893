#!/usr/bin/env bash
# gc: what interrupted commands and vanished worktrees leave behind is
# removed; what belongs to the user is left alone.
. "$(dirname "$0")/lib.sh"

common_dir() {
	git -C "$1" rev-parse --path-format=absolute --git-common-dir
}

# task_files REPO NAME: where task NAME's own files are on the host: its
# worktree; for a layered task (which has none until `path` makes it full),
# its layer (core/paths.h: <state>/layers/NAME, its upper/ and work dirs).
task_files() {
	if layered_form; then
		echo "$(common_dir "$1")/agenttask/layers/$2"
	else
		echo "$(wt_home "$1")/$2"
	fi
}

# remove_files REPO NAME: task NAME's own files deleted behind agenttask's
# back (rm -rf of its worktree; of a layered task's layer).
remove_files() {
	local f
	f=$(task_files "$1" "$2")
	[ -d "$f" ] || fail "no files of task '$2' at '$f'"
	rm -rf "$f"
}

# assert_task_kept REPO NAME WHAT: task NAME's files are there: its
# worktree's README; for a layered task its layer's upper (and no worktree:
# nothing made it full).
assert_task_kept() {
	if layered_form; then
		[ -d "$(task_files "$1" "$2")/upper" ] || fail "$3: no layer of task '$2'"
		assert_no_file "$(wt_home "$1")/$2" "$3: a layered task's worktree"
	else
		assert_file "$(task_files "$1" "$2")/README" "$3"
	fi
}

# assert_only_main REPO: git knows of no worktree but the main one.
assert_only_main() {
	assert_eq "$(git -C "$1" worktree list --porcelain | grep -c '^worktree ')" "1" "only the main worktree"
}

test_gc_with_nothing_to_do_changes_nothing() {
	make_repo repo
	ok "new" -C repo new t
	local refs_before
	refs_before=$(git -C repo for-each-ref)
	ok "gc" -C repo gc
	assert_no_output "$out" "nothing reported"
	assert_eq "$(git -C repo for-each-ref)" "$refs_before" "refs unchanged"
	assert_task_kept repo t "task kept"
	ok "status" -C repo status t
}

test_gc_removes_a_task_whose_worktree_is_gone_keeping_its_commits() {
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo work >work.txt'
	ok "commit" -C repo commit t -m work
	local tip
	tip=$(git -C repo rev-parse agenttask/t)
	remove_files repo t
	ok "list shows it missing" -C repo list --json
	assert_eq "$(json_get "$out" 'j[0]["worktree_missing"]')" "True" "missing flag"
	ok "gc" -C repo gc
	assert_contains "$out" "'t'" "reports the task"
	assert_contains "$out" "refs/agenttask/trash/t/" "reports the trash entry"
	assert_empty "branch removed" git -C repo branch --list agenttask/t
	assert_no_file "$(common_dir repo)/worktrees/agenttask-t" "admin directory removed"
	assert_no_file "$(common_dir repo)/agenttask/tasks/t.json" "record removed"
	assert_only_main repo
	local ref
	ref=$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/trash/t/)
	[ -n "$ref" ] || fail "no trash entry"
	git -C repo merge-base --is-ancestor "$tip" "$ref" || fail "commits not preserved in the trash"
	assert_eq "$(git -C repo cat-file -p "$ref:work.txt")" "work" "committed content preserved"
	ok "the name is free again" -C repo new t
	assert_fsck repo
}

# Every command that needs the worktree says it is gone and what to do, in
# one line, and changes nothing (issue 14).
test_commands_on_a_task_whose_worktree_is_gone_point_to_discard_and_gc() {
	make_repo repo
	ok "new" -C repo new t
	# Work of its own on the branch: accepting it without the worktree could
	# merge a part of the task's work alone.
	agent_sh t 'git -c user.name=u -c user.email=u@u commit -q --allow-empty -m work'
	remove_files repo t
	local refs c
	refs=$(git -C repo for-each-ref)
	for c in "diff t" "commit t -m x" "accept t" "gate t" "run t -- true"; do
		# shellcheck disable=SC2086
		expect_rc 1 "$c" -C repo $c
		assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "$c: one line ($errout)"
		assert_contains "$errout" "the worktree of task 't' is gone" "$c: says so"
		assert_contains "$errout" "'agenttask discard t' or 'agenttask gc'" "$c: the way out"
	done
	assert_eq "$(git -C repo for-each-ref)" "$refs" "refs unchanged"
	ok "discard does as it says" -C repo discard t
}

# What: accept killed after its merge, with the worktree removed and the
# record not yet: the branch is in main already. Must: accept again finishes
# it (nothing merged, the task removed), as datasafety's kill loop relies on;
# with work of the task's own still unmerged, it is refused (above).
test_accept_again_finishes_an_accept_killed_after_its_merge() {
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo change >f.txt'
	ok "commit" -C repo commit t -m change
	git -C repo merge -q --ff-only agenttask/t
	remove_files repo t
	ok "accept again" -C repo accept t
	assert_contains "$out" "nothing to merge" "nothing merged twice"
	assert_contains "$out" "removed task 't'" "the task removed"
	assert_empty "the branch is gone" git -C repo branch --list agenttask/t
	assert_fsck repo
}

test_gc_removes_a_task_whose_worktree_git_removed() {
	make_repo repo
	ok "new" -C repo new t
	if layered_form; then
		# A layered task's worktree is locked in git (core/task.h), so
		# that git's own worktree commands leave it alone: refused, and
		# gc has nothing to remove.
		! git -C repo worktree remove --force "$out" 2>/dev/null ||
			fail "git removed a layered task's worktree"
		ok "gc" -C repo gc
		assert_no_output "$out" "nothing to remove"
		assert_task_kept repo t "the task kept"
		ok "status" -C repo status t
		return 0
	fi
	git -C repo worktree remove --force "$out"
	ok "gc" -C repo gc
	assert_contains "$out" "'t'" "reports the task"
	assert_empty "branch removed" git -C repo branch --list agenttask/t
	assert_no_file "$(common_dir repo)/agenttask/tasks/t.json" "record removed"
	assert_only_main repo
	ok "the name is free again" -C repo new t
}

test_gc_removes_an_unchanged_task_whose_worktree_is_gone() {
	make_repo repo
	ok "new" -C repo new t
	remove_files repo t
	ok "gc" -C repo gc
	assert_contains "$out" "'t'" "reports the task"
	assert_empty "branch removed" git -C repo branch --list agenttask/t
	assert_only_main repo
	assert_fsck repo
}

test_gc_removes_half_made_tasks() {
	make_repo repo
	ok "new" -C repo new t
	local rec
	rec=$(common_dir repo)/agenttask/tasks/t.json
	# What a creator killed before its last step leaves: the record still says so.
	sed -i 's/"phase":[[:space:]]*"ready"/"phase": "creating"/' "$rec"
	grep -q '"creating"' "$rec" || fail "could not mark the record"
	ok "list shows it" -C repo list
	assert_contains "$out" "half-made" "half-made shown"
	expect_rc 2 "status refuses a half-made task" -C repo status t
	assert_contains "$errout" "gc" "points at gc"
	ok "gc" -C repo gc
	assert_contains "$out" "half-made task 't'" "reported"
	assert_empty "branch removed" git -C repo branch --list agenttask/t
	assert_no_file "$(wt_home repo)/t" "worktree removed"
	assert_no_file "$(task_files repo t)" "its files removed"
	assert_no_file "$rec" "record removed"
	assert_only_main repo
	assert_fsck repo
}

# What `new` killed inside libgit2's branch creation leaves: the record, the
# branch's lock file and maybe its reflog, no branch.
make_killed_in_branch_create() {
	make_repo repo
	ok "new" -C repo new t
	local cd
	cd=$(common_dir repo)
	sed -i 's/"phase":[[:space:]]*"ready"/"phase": "creating"/' "$cd/agenttask/tasks/t.json"
	rm -rf "$(wt_home repo)/t" "$cd/worktrees/agenttask-t"
	git -C repo update-ref -d refs/heads/agenttask/t
	mkdir -p "$cd/refs/heads/agenttask"
	git -C repo rev-parse HEAD >"$cd/refs/heads/agenttask/t.lock"
	mkdir -p "$cd/logs/refs/heads/agenttask"
	echo "0000000000000000000000000000000000000000 $(git -C repo rev-parse HEAD) x <x> 0 +0000	branch: Created" \
		>"$cd/logs/refs/heads/agenttask/t"
}

test_gc_removes_the_branch_lock_a_killed_new_left() {
	make_killed_in_branch_create
	local cd
	cd=$(common_dir repo)
	ok "gc" -C repo gc
	assert_no_file "$cd/refs/heads/agenttask/t.lock" "lock removed"
	assert_no_file "$cd/logs/refs/heads/agenttask/t" "reflog removed"
	assert_no_file "$cd/agenttask/tasks/t.json" "record removed"
	ok "new again" -C repo new t
	assert_fsck repo
}

test_new_over_a_killed_new_removes_its_branch_lock() {
	make_killed_in_branch_create
	ok "new again without gc" -C repo new t
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$(git -C repo rev-parse main)" "branch made"
	assert_no_file "$(common_dir repo)/refs/heads/agenttask/t.lock" "lock removed"
}

test_gc_keeps_the_branch_of_a_half_made_task_that_moved() {
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo w >w'
	ok "commit" -C repo commit t
	local tip
	tip=$(git -C repo rev-parse agenttask/t)
	sed -i 's/"phase":[[:space:]]*"ready"/"phase": "creating"/' "$(common_dir repo)/agenttask/tasks/t.json"
	ok "gc" -C repo gc
	# A rollback removes only what creation made: commits made since are not lost.
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$tip" "moved branch kept"
	assert_only_main repo
}

test_gc_removes_admin_directories_without_a_task() {
	make_repo repo
	ok "new" -C repo new t
	local cd
	cd=$(common_dir repo)
	rm -f "$cd/agenttask/tasks/t.json"
	rm -rf "$(wt_home repo)/t"
	mkdir -p "$cd/worktrees/agenttask-empty"    # what a worktree add killed at once leaves
	ok "gc" -C repo gc
	assert_no_file "$cd/worktrees/agenttask-t" "admin directory of a lost task"
	assert_no_file "$(task_files repo t)" "the files of a lost task"
	assert_no_file "$cd/worktrees/agenttask-empty" "empty admin directory"
	assert_only_main repo
	assert_fsck repo
}

test_gc_removes_stray_worktree_directories_and_temporary_records() {
	make_repo repo
	local cd
	cd=$(common_dir repo)
	ok "new" -C repo new keep
	# The old place of worktrees (tasks made before they moved out of .git),
	# the new one, and the tasks' homes: each swept of what no task owns.
	mkdir -p "$cd/agenttask/worktrees/stray/sub" "$(wt_home repo)/.removing-gone.1/d" \
		"$cd/agenttask/homes/gone/.cache" "$cd/agenttask/homes/keep/.cache"
	echo x >"$cd/agenttask/worktrees/stray/sub/f"
	echo '{"name": "ha' >"$cd/agenttask/tasks/half.json.tmp.12345"
	mkdir -p "$cd/agenttask/comments"
	echo '{"comm' >"$cd/agenttask/comments/keep.json.tmp.12345"
	# A run's records in cache/ cut by a kill (no process 4194304 can be),
	# and one still being written by a live process (this shell).
	mkdir -p "$cd/agenttask/cache"
	echo half >"$cd/agenttask/cache/etc.listings.tmp.4194304"
	echo live >"$cd/agenttask/cache/keep.home.tmp.$$"
	mkdir outside
	echo precious >outside/keep.txt
	ln -s "$PWD/outside" "$cd/agenttask/worktrees/link"
	ok "gc" -C repo gc
	assert_no_file "$cd/agenttask/worktrees/link" "stray link"
	assert_eq "$(cat outside/keep.txt)" "precious" "the link's target survives"
	assert_no_file "$cd/agenttask/worktrees/stray" "stray directory"
	assert_no_file "$cd/agenttask/tasks/half.json.tmp.12345" "temporary record"
	assert_no_file "$cd/agenttask/comments/keep.json.tmp.12345" "a comments file cut by a kill"
	assert_no_file "$cd/agenttask/cache/etc.listings.tmp.4194304" "a killed run's record"
	assert_file "$cd/agenttask/cache/keep.home.tmp.$$" "a record being written, kept"
	assert_no_file "$(wt_home repo)/.removing-gone.1" "a killed discard's leftover"
	assert_no_file "$cd/agenttask/homes/gone" "a home without a task"
	assert_file "$cd/agenttask/homes/keep/.cache" "the real task's home kept"
	assert_task_kept repo keep "real task kept"
	ok "list" -C repo list
	assert_contains "$out" "keep" "real task listed"
}

test_gc_leaves_the_users_worktrees_and_branches_alone() {
	make_repo repo
	git -C repo worktree add -q ../userwt
	git -C repo worktree add -q -b mine ../agenttask-lookalike
	git -C repo branch unrelated HEAD~1
	git -C repo branch agenttask/not-a-task
	echo wip >userwt/wip.txt
	ok "new" -C repo new t
	remove_files repo t
	ok "gc" -C repo gc
	git -C repo worktree list --porcelain | grep -qx "worktree $PWD/userwt" || fail "user's worktree gone"
	git -C repo worktree list --porcelain | grep -qx "worktree $PWD/agenttask-lookalike" ||
		fail "user's worktree named agenttask-* gone"
	assert_file "$(common_dir repo)/worktrees/agenttask-lookalike/gitdir" "its admin directory"
	assert_eq "$(git -C agenttask-lookalike symbolic-ref HEAD)" "refs/heads/mine" "still a worktree"
	assert_eq "$(cat userwt/wip.txt)" "wip" "user's files"
	assert_eq "$(git -C repo rev-parse unrelated)" "$(git -C repo rev-parse main~1)" "unrelated branch"
	assert_eq "$(git -C repo branch --list agenttask/not-a-task | wc -l)" "1" "user's agenttask/ branch"
	assert_eq "$(git -C repo worktree list | wc -l)" "3" "main and the two user worktrees"
	assert_fsck repo
}

test_gc_leaves_an_unreadable_record_and_its_worktree_alone() {
	make_repo repo
	ok "new" -C repo new bad
	local cd
	cd=$(common_dir repo)
	echo '{ not json' >"$cd/agenttask/tasks/bad.json"
	ok "gc" -C repo gc
	assert_contains "$out" "unreadable" "reports it"
	assert_contains "$out" "bad.json" "names the file"
	assert_task_kept repo bad "worktree kept"
	assert_file "$cd/worktrees/agenttask-bad" "admin directory kept"
	assert_eq "$(git -C repo branch --list agenttask/bad | wc -l)" "1" "branch kept"
}

test_gc_prunes_old_trash_only() {
	make_repo repo
	local head old
	head=$(git -C repo rev-parse HEAD)
	old=$(($(date +%s) - 20 * 86400))
	git -C repo update-ref "refs/agenttask/trash/old/$old.000000001" "$head"
	ok "new" -C repo new fresh
	ok "discard" -C repo discard fresh
	ok "gc" -C repo gc
	assert_contains "$out" "refs/agenttask/trash/old/" "reports the pruned entry"
	assert_empty "old entry pruned" git -C repo for-each-ref refs/agenttask/trash/old/
	assert_eq "$(git -C repo for-each-ref refs/agenttask/trash/fresh/ | wc -l)" "1" "fresh entry kept"
	git -C repo update-ref "refs/agenttask/trash/old/$old.000000001" "$head"
	ok "gc --trash-days 30" -C repo gc --trash-days 30
	assert_eq "$(git -C repo for-each-ref refs/agenttask/trash/old/ | wc -l)" "1" "kept under 30 days"
	ok "gc --trash-days=10" -C repo gc --trash-days=10
	assert_empty "pruned under 10 days" git -C repo for-each-ref refs/agenttask/trash/old/
}

test_gc_twice_is_idempotent() {
	make_repo repo
	ok "new" -C repo new t
	remove_files repo t
	ok "gc 1" -C repo gc
	ok "gc 2" -C repo gc
	assert_no_output "$out" "second gc has nothing to do"
	assert_only_main repo
	assert_fsck repo
}

run_tests
