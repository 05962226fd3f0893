#!/usr/bin/env bash
# Commands killed with SIGKILL midway on a large repository: nothing is left
# that gc does not remove, and the task name can be used again.
. "$(dirname "$0")/lib.sh"

NFILES=20000

# A layered task's files are seen through its sandbox (agent_sh).
! layered_form || require_user_namespaces

common_dir() {
	git -C "$1" rev-parse --path-format=absolute --git-common-dir
}

# make_big_repo DIR: one commit of $NFILES files in 200 directories, made with
# fast-import (seconds, not minutes). Only the index of the main worktree is
# filled, not its files: agenttask checks out into task worktrees alone, and
# checking out 20,000 files twice more per test would double the run time.
make_big_repo() {
	git init -q -b main "$1"
	python3 - "$NFILES" <<'EOF' | git -C "$1" fast-import --quiet
import sys
n = int(sys.argv[1])
out = sys.stdout
out.write("commit refs/heads/main\ncommitter Big <big@example.com> 1700000000 +0000\ndata 3\nbig\n")
for i in range(n):
    body = "file %d\n" % i
    out.write("M 100644 inline d%03d/f%05d.txt\ndata %d\n%s\n" % (i % 200, i, len(body), body))
EOF
	git -C "$1" read-tree main
}

# half_made REPO NAME: true when a killed `new` left its task half-made.
half_made() {
	local cd=$(common_dir "$1")
	grep -q '"creating"' "$cd/agenttask/tasks/$2.json" 2>/dev/null
}

# kill_new_at STEP REPO NAME: `new` killed with SIGKILL at STEP (core/trace.h:
# the steps of a task's creation, new:record ... new:ready).
kill_new_at() {
	local rc=0
	AGENTTASK_TEST_KILL_AT=$1 "$AT" -C "$2" new "$3" >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 137 "'new' killed at $1"
}

# assert_nothing_left REPO NAME: no trace of task NAME anywhere (and, no
# task being left, no base of layered tasks either).
assert_nothing_left() {
	local repo=$1 name=$2 cd
	cd=$(common_dir "$repo")
	assert_no_file "$cd/agenttask/layers/$name" "no layer"
	if [ -d "$cd/agenttask/layers" ]; then
		assert_empty "nothing else under the layers directory" ls -A "$cd/agenttask/layers"
	fi
	if [ -d "$cd/agenttask/bases" ]; then
		assert_empty "no base (nor half-made one) left" ls -A "$cd/agenttask/bases"
	fi
	assert_eq "$(git -C "$repo" worktree list --porcelain | grep -c '^worktree ')" "1" "only the main worktree"
	assert_empty "no branch" git -C "$repo" for-each-ref "refs/heads/agenttask/$name"
	assert_no_file "$cd/worktrees/agenttask-$name" "no admin directory"
	assert_no_file "$(wt_home "$repo")/$name" "no worktree directory"
	assert_no_file "$cd/agenttask/tasks/$name.json" "no record"
	# A new killed before it made the worktrees directory leaves none at all.
	if [ -d "$(wt_home "$repo")" ]; then
		assert_empty "nothing else under the worktrees directory" ls -A "$(wt_home "$repo")"
	fi
	assert_empty "nothing else under the tasks directory" ls -A "$cd/agenttask/tasks"
	assert_empty "no stale ref lock" find "$cd/refs" -name '*.lock'
	assert_no_file "$cd/logs/refs/heads/agenttask/$name" "no reflog"
	assert_fsck "$repo"
}

# assert_complete_task REPO NAME: the task exists and holds every file (a
# layered task: as its agent sees them, its base whole under its layer).
assert_complete_task() {
	local repo=$1 name=$2 wt
	wt=$(wt_home "$repo")/$name
	if layered_form; then
		assert_no_file "$wt" "a layered task's path holds nothing on the host"
		agent_sh -C "$repo" "$name" 'git status --porcelain | wc -l; find . -name "*.txt" -type f | wc -l'
		assert_eq "$out" "$(printf '0\n%s' "$NFILES")" "worktree clean, every file there"
	else
		assert_eq "$(git -C "$wt" status --porcelain | wc -l)" "0" "worktree clean"
		assert_eq "$(find "$wt" -name '*.txt' -type f | wc -l)" "$NFILES" "every file checked out"
	fi
	assert_eq "$(git -C "$repo" rev-parse "agenttask/$name")" "$(git -C "$repo" rev-parse main)" "branch at base"
	assert_fsck "$repo"
}

test_new_killed_midway_then_gc_leaves_nothing() {
	make_big_repo big
	kill_new_at new:directories big t
	half_made big t || fail "the killed 'new' left no CREATING record"
	expect_rc 2 "status of a half-made task" -C big status t
	ok "gc" -C big gc
	assert_contains "$out" "half-made task 't'" "gc reports it"
	assert_nothing_left big t
	ok "new after gc" -C big new t
	assert_complete_task big t
}

test_new_killed_midway_then_new_again_succeeds() {
	make_big_repo big
	kill_new_at new:files big t
	half_made big t || fail "the killed 'new' left no CREATING record"
	ok "new over the leftover" -C big new t
	assert_complete_task big t
	ok "gc finds nothing to do" -C big gc
	assert_no_output "$out" "nothing left over"
}

test_new_killed_at_every_step_never_leaves_junk() {
	# What: `new` killed at each step of a task's creation. Must: the
	# killed task cannot be used as if whole, and gc removes every trace.
	make_big_repo big
	local step i=0
	for step in new:record new:branch new:worktree new:directories new:files new:ready; do
		i=$((i + 1))
		kill_new_at "$step" big "k$i"
		half_made big "k$i" || fail "killed at $step: no CREATING record"
		expect_rc 2 "status after a kill at $step" -C big status "k$i"
		ok "gc" -C big gc
		assert_contains "$out" "half-made task 'k$i'" "gc reports it (killed at $step)"
		assert_nothing_left big "k$i"
	done
}

# What: discard killed while it deletes the worktree, or a layered task's
# layer (renamed aside whole, the trash already written, the record not yet
# removed). Must: the worktree (the layer) is whole or gone (never
# half-deleted), the full state is in the trash, and discard (or gc) run
# again finishes the job with nothing lost.
test_discard_killed_midway_loses_nothing() {
	make_big_repo big
	local wt ref found=no rc=0 gone stray="stray worktree directory"
	ok "new" -C big new d
	wt=$out
	gone=$wt
	if layered_form; then
		gone=$(common_dir big)/agenttask/layers/d
		stray="stray task layer"
	fi
	agent_sh -C big d 'echo precious >precious.txt'
	AGENTTASK_TEST_KILL_AT=remove:renamed "$AT" -C big discard d >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 137 "discard killed while removing"
	assert_file "$(common_dir big)/agenttask/tasks/d.json" "the record is still there"
	assert_no_file "$gone" "the task's files are gone from their place, not half there"
	ok "discard again" -C big discard d
	ok "gc" -C big gc
	assert_contains "$out" "$stray" "gc removes what was renamed aside"
	assert_nothing_left big d
	for ref in $(git -C big for-each-ref --format='%(refname)' "refs/agenttask/trash/d/"); do
		if [ "$(git -C big cat-file -p "$ref:precious.txt" 2>/dev/null)" = "precious" ] &&
			[ "$(git -C big ls-tree -r --name-only "$ref" | wc -l)" -eq $((NFILES + 1)) ]; then
			found=yes
		fi
	done
	assert_eq "$found" "yes" "a trash entry holds the whole state of d"
}

run_tests
