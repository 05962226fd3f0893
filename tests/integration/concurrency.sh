#!/usr/bin/env bash
# Mutating commands run at the same time: the repository lock serialises
# them, and every one of them completes or refuses cleanly.
. "$(dirname "$0")/lib.sh"

common_dir() {
	git -C "$1" rev-parse --path-format=absolute --git-common-dir
}

# run_parallel LOGDIR CMD...: each line of stdin is one extra argument list
# appended to CMD; all run at once; their exit codes go to LOGDIR/N.rc.
run_parallel() {
	local logdir=$1 i=0 pid pids=()
	shift
	mkdir -p "$logdir"
	while read -r -a extra; do
		i=$((i + 1))
		(
			set +e
			"$AT" "$@" "${extra[@]}" >"$logdir/$i.out" 2>"$logdir/$i.err"
			echo $? >"$logdir/$i.rc"
		) &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid"
	done
}

test_eight_parallel_new_make_eight_tasks() {
	! layered_form || require_user_namespaces
	make_repo repo
	printf 'p%d\n' 1 2 3 4 5 6 7 8 | run_parallel logs -C repo new
	assert_eq "$(cat logs/*.rc | sort -u)" "0" "every new succeeded ($(cat logs/*.err))"
	ok "list" -C repo list --json
	assert_eq "$(json_get "$out" '",".join(t["name"] for t in j)')" "p1,p2,p3,p4,p5,p6,p7,p8" "all listed"
	assert_eq "$(json_get "$out" 'all(t["head_commit"] == t["base_commit"] for t in j)')" "True" "all at base"
	assert_eq "$(git -C repo for-each-ref refs/heads/agenttask/ | wc -l)" "8" "eight branches"
	local i
	for i in 1 2 3 4 5 6 7 8; do
		git -C repo worktree list --porcelain | grep -qx "worktree $(wt_home repo)/p$i" ||
			fail "git worktree list lacks p$i"
		if layered_form; then
			agent_sh "p$i" 'git status --porcelain'
			assert_no_output "$out" "p$i clean"
		else
			assert_empty "p$i clean" git -C "$(wt_home repo)/p$i" status --porcelain
		fi
	done
	assert_eq "$(git -C repo worktree list | wc -l)" "9" "eight worktrees and main"
	assert_fsck repo
}

test_parallel_new_of_one_name_makes_exactly_one_task() {
	make_repo repo
	printf 'same\n%.0s' 1 2 3 4 5 6 | run_parallel logs -C repo new
	assert_eq "$(grep -lx 0 logs/*.rc | wc -l)" "1" "exactly one succeeded"
	assert_eq "$(grep -lx 1 logs/*.rc | wc -l)" "5" "the others refused with exit 1"
	assert_eq "$(cat logs/*.err | grep -c "'same'")" "5" "each refusal names the task"
	assert_eq "$(git -C repo worktree list | wc -l)" "2" "one worktree"
	ok "status" -C repo status same
	assert_fsck repo
}

test_parallel_commits_and_discards_keep_the_repository_consistent() {
	require_user_namespaces
	make_repo repo
	local i
	for i in 1 2 3 4 5 6; do
		ok "new c$i" -C repo new "c$i"
		agent_sh "c$i" 'echo "$1" >"file$1"' "$i"
	done
	{
		for i in 1 2 3; do echo "commit c$i -m parallel"; done
		for i in 4 5 6; do echo "discard c$i"; done
		echo "gc"
		echo "list"
	} | run_parallel logs -C repo
	assert_eq "$(cat logs/*.rc | sort -u)" "0" "every command succeeded ($(cat logs/*.err))"
	for i in 1 2 3; do
		assert_eq "$(git -C repo log -1 --format=%s "agenttask/c$i")" "parallel" "c$i committed"
		assert_eq "$(git -C repo cat-file -p "agenttask/c$i:file$i")" "$i" "c$i content"
	done
	for i in 4 5 6; do
		assert_empty "c$i discarded" git -C repo branch --list "agenttask/c$i"
		assert_eq "$(git -C repo for-each-ref "refs/agenttask/trash/c$i/" | wc -l)" "1" "c$i in the trash"
	done
	assert_eq "$(git -C repo worktree list | wc -l)" "4" "three tasks and main"
	assert_fsck repo
}

test_parallel_new_and_gc_never_remove_a_task_being_made() {
	make_repo repo
	{
		for i in 1 2 3 4; do echo "new g$i"; echo "gc"; done
	} | run_parallel logs -C repo
	assert_eq "$(cat logs/*.rc | sort -u)" "0" "every command succeeded ($(cat logs/*.err))"
	local i
	for i in 1 2 3 4; do
		ok "status g$i" -C repo status "g$i"
	done
	assert_not_contains "$(cat logs/*.out)" "half-made" "gc never took a task being made for junk"
	assert_eq "$(git -C repo worktree list | wc -l)" "5" "four tasks and main"
	assert_fsck repo
}

# hold_lock REPO SECONDS: hold the repository lock from another process.
hold_lock() {
	local lock
	lock=$(common_dir "$1")/agenttask/lock
	mkdir -p "$(dirname "$lock")"
	flock -o "$lock" sleep "$2" &
	holder=$!
	# Wait until the holder really has it.
	while flock -n "$lock" true; do sleep 0.02; done
}

test_mutating_commands_wait_for_the_lock() {
	require_user_namespaces
	make_repo repo
	ok "new d" -C repo new d
	ok "new c" -C repo new c
	agent_sh c 'echo x >x'
	local cmd start elapsed holder
	for cmd in "new n" "commit c" "discard d" "gc"; do
		hold_lock repo 1.5
		start=$(date +%s%N)
		ok "$cmd" -C repo $cmd
		elapsed=$((($(date +%s%N) - start) / 1000000))
		wait "$holder"
		[ "$elapsed" -ge 1000 ] || fail "'$cmd' finished after ${elapsed}ms: it did not wait for the lock"
	done
	assert_eq "$(git -C repo log -1 --format=%s agenttask/c)" "agenttask: changes of task 'c'" "commit done"
	assert_empty "discard done" git -C repo branch --list agenttask/d
}

test_reading_commands_do_not_wait_for_the_lock() {
	make_repo repo
	ok "new" -C repo new t
	local holder
	hold_lock repo 5
	local cmd cmds=("list" "list --json" "status t" "path t")
	# The first path of a layered task makes it full, a change made under
	# the lock: that path is asked below, once the task is full.
	! layered_form || unset 'cmds[3]'
	for cmd in "${cmds[@]}"; do
		(
			set +e
			timeout 3 "$AT" -C repo $cmd >/dev/null 2>&1
			echo $? >rc
		)
		assert_eq "$(cat rc)" "0" "'$cmd' while the lock is held"
	done
	kill "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
	if layered_form; then
		task_path t
		hold_lock repo 5
		(
			set +e
			timeout 3 "$AT" -C repo path t >/dev/null 2>&1
			echo $? >rc
		)
		assert_eq "$(cat rc)" "0" "'path t' of the task made full, while the lock is held"
		kill "$holder" 2>/dev/null || true
		wait "$holder" 2>/dev/null || true
	fi
}

test_readers_wait_out_a_removal_midway() {
	# What: list and status while a remover holds the lock with task b half
	# removed (its git admin dir gone, its record not yet), as a discard or
	# gc is midway. Must: they wait for it to settle; once the record goes,
	# list shows the other tasks and exits 0 with nothing on stderr, and
	# status says there is no such task. A task still half-removed after
	# the lock is free is reported, with exit 1.
	make_repo repo
	ok "new a" -C repo new a
	ok "new b" -C repo new b
	ok "new c" -C repo new c
	local common lock
	common=$(common_dir repo)
	lock=$common/agenttask/lock
	rm -rf "$common/worktrees/agenttask-b"
	flock -o "$lock" sh -c "sleep 1; rm '$common/agenttask/tasks/b.json'" &
	local holder=$!
	while flock -n "$lock" true; do sleep 0.02; done
	"$AT" -C repo list >list.out 2>list.err &
	local lister=$!
	set +e
	"$AT" -C repo status b >status.out 2>status.err
	local st=$?
	wait "$lister"
	local lst=$?
	set -e
	wait "$holder"
	assert_eq "$lst" 0 "list across the removal (stderr: $(cat list.err))"
	assert_empty "list says nothing on stderr" cat list.err
	assert_contains "$(cat list.out)" "agenttask/a" "the other tasks are listed"
	assert_not_contains "$(cat list.out)" "agenttask/b" "the removed task is not"
	assert_eq "$st" 2 "status of the task removed meanwhile"
	assert_contains "$(cat status.err)" "no such task 'b'" "status names it"
	# c broken by hand, not by a remover: reported once the lock is free.
	rm -rf "$common/worktrees/agenttask-c"
	hold_lock repo 0.5
	expect_rc 1 "list of a broken task" -C repo list
	wait "$holder"
	assert_contains "$errout" "'c'" "the broken task is named"
	assert_contains "$out" "agenttask/a" "the rest are listed"
}

run_tests
