#!/usr/bin/env bash
# Many tasks at once (issue 28): the disk each task takes (du), old tasks
# moved to the trash (gc --max-age), a task forked from another's whole
# state (fork, diff --against). Run as root here and as uid 65534 by
# tasks_user.sh.
. "$(dirname "$0")/lib.sh"

state_dir() {
	echo "$(git -C "$1" rev-parse --path-format=absolute --git-common-dir)/agenttask"
}

# du_bytes PATH...: what du(1) counts for the paths together (-c: its total line).
du_bytes() {
	du -csB1 "$@" | tail -n 1 | cut -f 1
}

# What: a task plants a hard link to a file of the task, twice, and a
# symbolic link to a large file outside its worktree, hoping to be counted
# twice or to have agenttask walk out of the tree. Must: each part and the
# total are what du -sB1 counts on the same paths: a file with several links
# once, the link counted as a link, the file outside never.
test_du_counts_as_du_does() {
	make_repo repo
	ok "new t" -C repo new t
	local wt=$out st
	st=$(state_dir repo)
	head -c 300000 /dev/urandom >"$wt/big"
	ln "$wt/big" "$wt/big.link"
	mkdir -p "$st/homes/t/.cache" "$st/caches/t/npm" "$st/git/t/upper"
	ln "$wt/big" "$st/homes/t/.cache/again"
	head -c 5000 /dev/urandom >"$st/caches/t/npm/blob"
	printf 'ref: refs/heads/agenttask/t\n' >"$st/git/t/upper/HEAD"
	head -c 2000000 /dev/urandom >outside
	ln -s "$PWD/outside" "$wt/out.link"
	ln -s "$PWD" "$st/homes/t/up"
	ok "du --json" -C repo du t --json
	local j=$out part i=0
	# du -s A B C: one line a path, a file met before counted where it was first met.
	du -sB1 "$wt" "$st/homes/t" "$st/caches/t" "$st/git/t" | cut -f 1 >du.out
	for part in worktree home caches git; do
		i=$((i + 1))
		assert_eq "$(json_get "$j" "j['tasks'][0]['$part']")" "$(sed -n "${i}p" du.out)" \
			"$part, as du -s counts it after the parts before it"
	done
	assert_eq "$(json_get "$j" 'j["tasks"][0]["total"]')" \
		"$(du_bytes "$wt" "$st/homes/t" "$st/caches/t" "$st/git/t")" \
		"the total: the file linked from the worktree and the HOME once"
	assert_eq "$(json_get "$j" 'j["total"]')" "$(json_get "$j" 'j["tasks"][0]["total"]')" "one task"
	[ "$(json_get "$j" 'j["tasks"][0]["total"]')" -lt 2000000 ] || fail "the link out was followed"
	# Two tasks: each its own, the total of both.
	ok "new u" -C repo new u
	ok "du --json" -C repo du --json
	assert_eq "$(json_get "$out" 'j["tasks"][1]["task"]')" "u" "every task"
	assert_eq "$(json_get "$out" 'j["tasks"][1]["worktree"]')" "$(du_bytes "$(wt_home repo)/u")" "u's"
	ok "du" -C repo du
	assert_contains "$out" "total" "a total line"
}

test_du_of_an_unknown_task_is_one_line() {
	make_repo repo
	expect_rc 2 "du nope" -C repo du nope
	assert_eq "$errout" "agenttask: no such task 'nope'" "one line naming it"
	expect_rc 2 "du two names" -C repo du a b
}

# log_at REPO TASK SECONDS EVENT: an entry of TASK's audit log at that time,
# as agenttask writes one (the log is agenttask's own file, out of every
# sandbox's reach): a task active then, without waiting for the day.
log_at() {
	python3 - "$(state_dir "$1")/logs/$2.jsonl" "$3" "$4" <<'PY'
import json, sys, time
path, secs, event = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "a") as f:
    f.write(json.dumps({"event": event, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(secs))}) + "\n")
PY
}

# The clock gc judges ages by (core/trace.h): 20 days from now.
later() {
	echo $(($(date +%s) + 20 * 86400))
}

test_gc_max_age_moves_idle_tasks_to_the_trash_and_restore_brings_them_back() {
	make_repo repo
	ok "new old" -C repo new old
	local wt=$out now
	echo work >"$wt/uncommitted"
	ok "new young" -C repo new young
	now=$(later)
	log_at repo young $((now - 3 * 86400)) commit
	AGENTTASK_TEST_NOW=$now ok "dry run" -C repo gc --max-age 10 --dry-run
	assert_eq "$out" "would move task 'old' to the trash (idle 20 days)" "the idle task only"
	ok "list" -C repo list --name-only
	assert_eq "$out" "$(printf 'old\nyoung')" "--dry-run moved nothing"
	AGENTTASK_TEST_NOW=$now ok "not old enough" -C repo gc --max-age 21
	ok "list" -C repo list --name-only
	assert_eq "$out" "$(printf 'old\nyoung')" "nothing idle for 21 days"
	AGENTTASK_TEST_NOW=$now ok "gc --max-age 10" -C repo gc --max-age 10
	assert_contains "$out" "moved task 'old' to the trash (idle 20 days): 'refs/agenttask/trash/old/" \
		"says what it moved, and where"
	assert_not_contains "$out" "young" "a task active 3 days ago stays"
	ok "list" -C repo list --name-only
	assert_eq "$out" "young" "old went"
	ok "log" -C repo log old --json
	assert_eq "$(json_get "$out" 'j[-1]["event"]')" "discard" "logged as a discard"
	ok "restore" -C repo restore old
	assert_eq "$(cat "$wt/uncommitted")" "work" "its uncommitted file came back"
}

test_gc_max_age_bad_input_is_one_line() {
	make_repo repo
	ok "new t" -C repo new t
	expect_rc 2 "--max-age x" -C repo gc --max-age x
	assert_eq "$errout" "agenttask: invalid --max-age 'x' (see 'agenttask gc --help')" "names the value"
	expect_rc 2 "--max-age -1" -C repo gc --max-age -1
	expect_rc 2 "--dry-run alone" -C repo gc --dry-run
	assert_contains "$errout" "agenttask: option '--dry-run' needs '--max-age'" "says what it needs"
	ok "list" -C repo list --name-only
	assert_eq "$out" "t" "nothing moved"
}

# What: gc --max-age (even with --force, which kills the commands of tasks
# gc removes for other reasons) while a command of an idle task runs, in
# its worktree. Must: the task is left alone, gc says why, the command
# runs on.
test_gc_max_age_never_moves_a_running_task() {
	unshare -Ur true 2>/dev/null || skip "user namespaces are unavailable here"
	make_repo repo
	ok "new t" -C repo new t
	local s=sleep_age_$$ pid
	"$AT" -C repo run t -- sh -c "ln -s /usr/bin/sleep /tmp/$s; exec /tmp/$s 1000" \
		>/dev/null 2>&1 &
	pid=$!
	wait_until 20 pgrep -f "^/tmp/$s 1000" || fail "the command did not start"
	AGENTTASK_TEST_NOW=$(later) ok "dry run" -C repo gc --max-age 1 --dry-run
	assert_contains "$out" "left alone: task 't' has a running command (pid $pid)" "dry run"
	AGENTTASK_TEST_NOW=$(later) ok "gc --max-age --force" -C repo gc --max-age 1 --force
	assert_contains "$out" "left alone: task 't' has a running command (pid $pid)" "gc says why"
	ok "list" -C repo list --name-only
	assert_eq "$out" "t" "the task stays"
	pgrep -f "^/tmp/$s 1000" >/dev/null || fail "gc stopped the command"
	ok "discard --force" -C repo discard --force t
	wait "$pid" || true
}

run_tests
