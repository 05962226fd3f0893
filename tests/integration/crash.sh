#!/usr/bin/env bash
# Commands killed with SIGKILL midway on a large repository: nothing is left
# that gc does not remove, and the task name can be used again.
. "$(dirname "$0")/lib.sh"

NFILES=20000

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

# kill_new_midway REPO NAME: start `new`, SIGKILL it after a growing delay
# until it is caught half-made. The delays span the creating record, the
# branch and the checkout. Fails if no delay ever caught it.
kill_new_midway() {
	local repo=$1 name=$2 delay pid
	for delay in 0.03 0.05 0.08 0.1 0.15 0.2 0.3 0.5 0.8 0.03 0.06 0.12 0.25; do
		"$AT" -C "$repo" new "$name" >/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		if half_made "$repo" "$name"; then
			echo "    caught half-made after ${delay}s"
			return 0
		fi
		# Too early (nothing yet) or too late (done): clean up and try another delay.
		"$AT" -C "$repo" discard "$name" >/dev/null 2>&1 || true
		"$AT" -C "$repo" gc >/dev/null 2>&1 || true
	done
	fail "never caught 'new $name' half-made"
}

# assert_nothing_left REPO NAME: no trace of task NAME anywhere.
assert_nothing_left() {
	local repo=$1 name=$2 cd
	cd=$(common_dir "$repo")
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

# assert_complete_task REPO NAME: the task exists and holds every file.
assert_complete_task() {
	local repo=$1 name=$2 wt
	wt=$(wt_home "$repo")/$name
	assert_eq "$(git -C "$wt" status --porcelain | wc -l)" "0" "worktree clean"
	assert_eq "$(find "$wt" -name '*.txt' -type f | wc -l)" "$NFILES" "every file checked out"
	assert_eq "$(git -C "$repo" rev-parse "agenttask/$name")" "$(git -C "$repo" rev-parse main)" "branch at base"
	assert_fsck "$repo"
}

test_new_killed_midway_then_gc_leaves_nothing() {
	make_big_repo big
	kill_new_midway big t
	expect_rc 2 "status of a half-made task" -C big status t
	ok "gc" -C big gc
	assert_contains "$out" "half-made task 't'" "gc reports it"
	assert_nothing_left big t
	ok "new after gc" -C big new t
	assert_complete_task big t
}

test_new_killed_midway_then_new_again_succeeds() {
	make_big_repo big
	kill_new_midway big t
	ok "new over the leftover" -C big new t
	assert_complete_task big t
	ok "gc finds nothing to do" -C big gc
	assert_eq "$out" "" "nothing left over"
}

test_new_killed_at_many_points_never_leaves_junk() {
	make_big_repo big
	local delay pid i=0
	for delay in 0.01 0.05 0.1 0.2 0.5 1.0; do
		i=$((i + 1))
		"$AT" -C big new "k$i" >/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		# Whatever the moment, a finished task is whole; anything else is removed by gc.
		if [ -f "$(common_dir big)/agenttask/tasks/k$i.json" ] && ! half_made big "k$i"; then
			ok "finished task is usable" -C big status "k$i"
			ok "discard it" -C big discard "k$i"
		fi
		ok "gc" -C big gc
		assert_nothing_left big "k$i"
	done
}

# kill_discard_while_removing REPO NAME: start `discard NAME` and SIGKILL it
# the moment its worktree has been renamed aside to be deleted (the trash
# already written, the record not yet removed). True when caught there.
kill_discard_while_removing() {
	local repo=$1 name=$2 wtdir pid n=0
	wtdir=$(wt_home "$repo")
	"$AT" -C "$repo" discard "$name" >/dev/null 2>&1 &
	pid=$!
	# compgen is a builtin: a poll costs microseconds, the deletion of
	# $NFILES files a good part of a second.
	while ! compgen -G "$wtdir/.removing-$name.*" >/dev/null; do
		n=$((n + 1))
		if [ $n -gt 2000000 ] || ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || true
			return 1
		fi
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ -f "$(common_dir "$repo")/agenttask/tasks/$name.json" ]
}

# What: discard killed while it deletes the worktree. Must: the worktree is
# whole or gone (never half-deleted), the full state is in the trash, and
# discard (or gc) run again finishes the job with nothing lost.
test_discard_killed_midway_loses_nothing() {
	make_big_repo big
	local i wt caught=no ref found
	for i in 1 2 3; do
		ok "new" -C big new "d$i"
		wt=$out
		echo "precious $i" >"$wt/precious.txt"
		if kill_discard_while_removing big "d$i"; then
			caught=yes
			assert_no_file "$wt" "the worktree is gone from its path, not half there"
			ok "discard again" -C big discard "d$i"
			ok "gc" -C big gc
			assert_contains "$out" "stray worktree directory" "gc removes what was renamed aside"
		else
			ok "gc" -C big gc
		fi
		assert_nothing_left big "d$i"
		found=no
		for ref in $(git -C big for-each-ref --format='%(refname)' "refs/agenttask/trash/d$i/"); do
			if [ "$(git -C big cat-file -p "$ref:precious.txt" 2>/dev/null)" = "precious $i" ] &&
				[ "$(git -C big ls-tree -r --name-only "$ref" | wc -l)" -eq $((NFILES + 1)) ]; then
				found=yes
			fi
		done
		assert_eq "$found" "yes" "a trash entry holds the whole state of d$i"
		[ $caught = no ] || break
	done
	assert_eq "$caught" "yes" "discard was caught while removing the worktree"
}

run_tests
