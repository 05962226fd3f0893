#!/usr/bin/env bash
# Many tasks at once (issue 28): the disk each task takes (du), old tasks
# moved to the trash (gc --max-age), a task forked from another's whole
# state (fork, diff --against). Run as root here and as uid 65534 by
# tasks_user.sh.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

state_dir() {
	echo "$(git -C "$1" rev-parse --path-format=absolute --git-common-dir)/agenttask"
}

# du_bytes PATH...: what du(1) counts for the paths together (-c: its total line).
du_bytes() {
	du -csB1 "$@" | tail -n 1 | cut -f 1
}

# worktree_part REPO NAME: what du counts as task NAME's worktree: its
# checkout, or a layered task's layer (app/du.h; its upper holds its files).
worktree_part() {
	if layered_form; then
		echo "$(state_dir "$1")/layers/$2"
	else
		echo "$(wt_home "$1")/$2"
	fi
}

# task_files REPO NAME: where task NAME's files are on the host, its
# checkout or a layered task's upper (to see what its command wrote).
task_files() {
	if layered_form; then
		echo "$(worktree_part "$1" "$2")/upper"
	else
		worktree_part "$1" "$2"
	fi
}

# What: a task plants a hard link to a file of the task, twice, and a
# symbolic link to a large file outside its worktree, hoping to be counted
# twice or to have agenttask walk out of the tree. Must: each part and the
# total are what du -sB1 counts on the same paths: a file with several links
# once, the link counted as a link, the file outside never.
test_du_counts_as_du_does() {
	require_user_namespaces
	make_repo repo
	ok "new t" -C repo new t
	local wt st files
	st=$(state_dir repo)
	wt=$(worktree_part repo t)
	files=$(task_files repo t)
	head -c 2000000 /dev/urandom >outside
	agent_sh t 'head -c 300000 /dev/urandom >big && ln big big.link && ln -s "$1" out.link' \
		"$PWD/outside"
	mkdir -p "$st/homes/t/.cache" "$st/caches/t/npm" "$st/git/t/upper"
	ln "$files/big" "$st/homes/t/.cache/again"
	head -c 5000 /dev/urandom >"$st/caches/t/npm/blob"
	printf 'ref: refs/heads/agenttask/t\n' >"$st/git/t/upper/HEAD"
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
	assert_eq "$(json_get "$out" 'j["tasks"][1]["worktree"]')" "$(du_bytes "$(worktree_part repo u)")" "u's"
	ok "du" -C repo du
	assert_contains "$out" "total" "a total line"
}

# What: a mount inside a task's HOME (a tmpfs holding a large file) would
# make du count another file system's bytes. Must: du does not enter it,
# as du -x does not.
test_du_never_crosses_a_mount() {
	unshare -Urm true 2>/dev/null || skip "mount namespaces are unavailable here"
	make_repo repo
	ok "new t" -C repo new t
	local st
	st=$(state_dir repo)
	mkdir -p "$st/homes/t/mnt"
	echo small >"$st/homes/t/file"
	unshare -Urm sh -c '
		mount -t tmpfs none "$1/homes/t/mnt" &&
		head -c 3000000 /dev/zero >"$1/homes/t/mnt/big" &&
		"$2" -C repo du t --json >du.json &&
		du -sxB1 "$1/homes/t" | cut -f 1 >du.x' sh "$st" "$AT" || fail "du in a mount namespace"
	assert_eq "$(json_get "$(cat du.json)" 'j["tasks"][0]["home"]')" "$(cat du.x)" "as du -x counts it"
	[ "$(cat du.x)" -lt 3000000 ] || fail "du -x entered the mount"
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
	require_user_namespaces
	make_repo repo
	ok "new old" -C repo new old
	local now
	agent_sh old 'echo work >uncommitted'
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
	agent_sh old 'cat uncommitted'
	assert_eq "$out" "work" "its uncommitted file came back"
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

# A task with a commit, uncommitted and untracked changes (its agent's), a
# HOME and a git view as runs leave them (written here by hand: the sandbox
# is not needed to hold what it would leave), some of it hostile.
forkable_task() {
	require_user_namespaces
	make_repo repo
	ok "new a" -C repo new a
	WT=$out
	ST=$(state_dir repo)
	agent_sh a 'echo committed >committed && git add committed && git commit -qm "the commit of a" &&
		echo changed >>README && rm src/main.c && echo new >untracked'
	mkdir -p "$ST/homes/a/.config" "$ST/git/a/upper/worktrees/agenttask-a" \
		"$ST/git/a/upper/refs/heads"
	echo settings >"$ST/homes/a/.config/tool"
	head -c 100000 /dev/urandom >"$ST/homes/a/big"
	ln "$ST/homes/a/big" "$ST/homes/a/big.again"
	echo secret >outside
	ln -s "$PWD/outside" "$ST/homes/a/link-out"
	ln -s "$PWD" "$ST/homes/a/dir-out"
	mkfifo "$ST/homes/a/fifo"
	printf 'ref: refs/heads/agenttask/a\n' >"$ST/git/a/upper/worktrees/agenttask-a/HEAD"
	echo index-bytes >"$ST/git/a/upper/worktrees/agenttask-a/index"
	git -C repo rev-parse main >"$ST/git/a/upper/refs/heads/experiment"
}

# What: the task's HOME holds a FIFO (a copy that opens it blocks for ever),
# links to a file and a directory outside it, and a file linked twice; its
# git view names its own worktree and branch. Must: fork copies the commits,
# the uncommitted and untracked files, the HOME (the FIFO made anew, never
# opened; the links as links, nothing outside read; the twice-linked file
# once, linked again) and the git view (its worktree's files and HEAD made
# NEW's), and the base.
test_fork_copies_the_whole_state_and_follows_nothing() {
	forkable_task
	ok "fork a b" -C repo fork a b
	local b=$out
	assert_eq "$b" "$(wt_home repo)/b" "prints NEW's path"
	assert_eq "$(git -C repo rev-parse agenttask/b)" "$(git -C repo rev-parse agenttask/a)" \
		"b's branch at a's tip"
	assert_eq "$(cat "$b/committed")" committed "a's commit"
	assert_eq "$(tail -n 1 "$b/README")" changed "a's uncommitted change"
	assert_no_file "$b/src/main.c" "a's uncommitted deletion"
	assert_eq "$(cat "$b/untracked")" new "a's untracked file"
	assert_eq "$(git -C "$b" status --porcelain | sort)" \
		"$(printf ' D src/main.c\n M README\n?? untracked')" "uncommitted as in a"
	ok "status a" -C repo status a --json
	local base=$out
	ok "status b" -C repo status b --json
	assert_eq "$(json_get "$out" 'j["base_branch"], j["base_commit"]')" \
		"$(json_get "$base" 'j["base_branch"], j["base_commit"]')" "a's base"
	local h=$ST/homes/b
	assert_eq "$(cat "$h/.config/tool")" settings "the HOME"
	cmp -s "$h/big" "$ST/homes/a/big" || fail "the big file"
	assert_eq "$(stat -c %i "$h/big")" "$(stat -c %i "$h/big.again")" "linked again, not copied twice"
	[ "$(stat -c %i "$h/big")" != "$(stat -c %i "$ST/homes/a/big")" ] || fail "a's file shared"
	assert_eq "$(readlink "$h/link-out")" "$PWD/outside" "a link copied as a link"
	[ -L "$h/dir-out" ] || fail "the link to a directory was followed"
	[ -p "$h/fifo" ] || fail "the FIFO is not a FIFO"
	local v=$ST/git/b/upper
	assert_eq "$(cat "$v/worktrees/agenttask-b/HEAD")" "ref: refs/heads/agenttask/b" "HEAD inside on b's branch"
	assert_eq "$(cat "$v/worktrees/agenttask-b/index")" index-bytes "the index inside"
	assert_no_file "$v/worktrees/agenttask-a" "a's worktree files renamed"
	assert_eq "$(cat "$v/refs/heads/experiment")" "$(git -C repo rev-parse main)" "a branch made inside"
	ok "log b" -C repo log b --json
	assert_eq "$(json_get "$out" 'j[-1]["event"], j[-1]["from"]')" "('fork', 'a')" "logged"
	# a is as it was (its checkout: fork made a layered a full).
	assert_eq "$(git -C "$WT" status --porcelain | sort)" \
		"$(printf ' D src/main.c\n M README\n?? untracked')" "a untouched"
}

test_fork_onto_an_existing_or_from_an_unknown_task_is_one_line() {
	forkable_task
	ok "new b" -C repo new b
	local before
	# (overlayfs's work dirs, which a run leaves unreadable to an ordinary user, not entered)
	before=$(git -C repo for-each-ref; find "$ST" -path '*/work/work' -prune -o -print | sort)
	expect_rc 1 "fork onto b" -C repo fork a b
	assert_eq "$errout" "agenttask: task 'b' already exists" "one line"
	expect_rc 2 "fork nope" -C repo fork nope c
	assert_eq "$errout" "agenttask: no such task 'nope'" "one line"
	expect_rc 2 "fork a 'bad name'" -C repo fork a 'bad name'
	expect_rc 2 "fork a" -C repo fork a
	assert_eq "$(git -C repo for-each-ref; find "$ST" -path '*/work/work' -prune -o -print | sort)" \
		"$before" "nothing made"
}

# What: fork killed (SIGKILL) at each step. Must: a half-made task that gc
# removes whole (branch, worktree, HOME, git view, record), a unchanged; a
# fork of that name afterwards works.
test_fork_killed_at_each_step_leaves_what_gc_removes() {
	forkable_task
	# Each fork makes a layered a full before its first step: compare with that.
	task_path a
	local step sum
	sum=$(git -C "$WT" status --porcelain; git -C repo rev-parse agenttask/a; ls -lR "$ST/homes/a" "$ST/git/a/upper")
	for step in new:record new:branch new:worktree new:files fork:files fork:home fork:git; do
		AGENTTASK_TEST_KILL_AT=$step expect_rc 137 "fork killed at $step" -C repo fork a c
		ok "gc after $step" -C repo gc
		assert_contains "$out" "removed half-made task 'c'" "gc rolls back ($step)"
		assert_empty "no branch left ($step)" git -C repo branch --list agenttask/c
		assert_no_file "$(wt_home repo)/c" "no worktree ($step)"
		assert_no_file "$ST/homes/c" "no HOME ($step)"
		assert_no_file "$ST/git/c" "no git view ($step)"
		assert_no_file "$ST/tasks/c.json" "no record ($step)"
		assert_eq "$(git -C "$WT" status --porcelain; git -C repo rev-parse agenttask/a; ls -lR "$ST/homes/a" "$ST/git/a/upper")" \
			"$sum" "a unchanged ($step)"
	done
	ok "fork afterwards" -C repo fork a c
}

# What: two attempts at one thing, the second forked from the first, each
# going its own way in its sandbox. Must: the fork's run sees a's HOME,
# a's git (its branch made inside, its staged file, HEAD on the fork's own
# branch); diff a --against b shows exactly where they differ; --against a
# task this repository does not have is one line.
test_fork_then_diverge_then_diff_against() {
	unshare -Ur true 2>/dev/null || skip "user namespaces are unavailable here"
	make_repo repo
	ok "new a" -C repo new a
	local wa=$out wb
	ok "run a" -C repo run a -- sh -c 'echo note >"$HOME/notes" && git branch experiment &&
		echo s >staged && git add staged && echo base >shared'
	ok "fork" -C repo fork a b
	wb=$out
	ok "run b" -C repo run b -- sh -c 'cat "$HOME/notes"; git branch --list experiment;
		git diff --cached --name-only; git symbolic-ref HEAD'
	assert_eq "$out" "$(printf 'note\n  experiment\nstaged\nrefs/heads/agenttask/b')" \
		"b's run sees a's HOME and git, on its own branch"
	# They diverge.
	ok "run a" -C repo run a -- sh -c 'echo a-way >shared && echo a >only-a'
	ok "run b" -C repo run b -- sh -c 'echo b-way >shared && echo b >only-b && git add only-b && git commit -qm b'
	ok "diff --against" -C repo diff a --against b --name-only
	assert_eq "$out" "$(printf 'only-a\nonly-b\nshared')" "where they differ"
	ok "diff --against --json" -C repo diff a --against b --json
	assert_eq "$(json_get "$out" '[(f["path"], f["status"]) for f in j["files"]]')" \
		"[('only-a', 'deleted'), ('only-b', 'added'), ('shared', 'modified')]" "from a to b"
	assert_eq "$(cat "$wa/shared")" a-way "a's own"
	assert_eq "$(cat "$wb/shared")" b-way "b's own"
	make_repo other
	ok "new elsewhere" -C other new elsewhere
	expect_rc 2 "--against another repository's task" -C repo diff a --against elsewhere
	assert_eq "$errout" "agenttask: no such task 'elsewhere'" "one line"
	expect_rc 2 "--against with --base" -C repo diff --base main --against b
}

# What: the person watches every task while they run, wait and end; a
# task's command holds escape sequences (clear the screen, retitle the
# terminal); the window is resized; the view is left with q, ^C or a
# SIGTERM. Must: running, waiting for input and exited show as each happens
# (waited for, never slept on); the command's bytes are shown escaped,
# never sent raw; each way out puts the terminal's modes, the main screen
# and the cursor back.
test_list_watch_shows_running_waiting_and_exited_as_they_happen() {
	unshare -Ur true 2>/dev/null || skip "user namespaces are unavailable here"
	make_repo repo
	local t
	for t in busy asks done; do ok "new $t" -C repo new "$t"; done
	local at="'$AT' -C '$PWD/repo'"
	WATCH_CMD="exec $at list --watch --no-color" ok_py \
		'expect=done +idle' \
		"sh=$at run done -- sh -c 'exit 3' || true" \
		'expect=done +exited 3 ' \
		"bg=exec $at run busy -T -- sh -c 'exec sleep 1000' \"\$(printf 'x\\033[2Jy')\"" \
		'expect=busy +running .*sleep 1000 x\\x1b\[2Jy' \
		"bg=exec $at run asks -- sh -c 'read x'" \
		'expect=asks +waiting ' \
		'winch=30x120' \
		'expect=busy +running' \
		'key=q' 'exit=0' 'restored' 'never=\x1b\[2J'
	WATCH_CMD="exec $at list --watch --no-color" ok_py 'expect=done +exited 3 ' 'key=^C' 'exit=0' 'restored'
	WATCH_CMD="exec $at list --watch --no-color" ok_py 'expect=done +exited 3 ' \
		"sh=pkill -TERM -f -- '^$AT -C $PWD/repo list --watch --no-color'" 'exit=143' 'restored'
	expect_rc 2 "--watch on a pipe" -C repo list --watch
	assert_contains "$errout" "option '--watch' needs a terminal" "one line"
	ok "discard busy" -C repo discard --force busy
	ok "discard asks" -C repo discard --force asks
}

ok_py() {
	WATCH_CMD=$WATCH_CMD python3 "$HERE/watch_pty.py" "$@" || fail "list --watch: $*"
}

# What: fork a task while a command of it runs (and writes). Must: refused
# in one line, nothing made, the command left running.
test_fork_of_a_running_task_is_refused() {
	unshare -Ur true 2>/dev/null || skip "user namespaces are unavailable here"
	make_repo repo
	ok "new a" -C repo new a
	"$AT" -C repo run a -- sh -c 'touch started; exec sleep 1000' >/dev/null 2>&1 &
	local pid=$!
	wait_until 20 test -e "$(task_files repo a)/started" || fail "a did not start"
	expect_rc 1 "fork a b" -C repo fork a b
	assert_eq "$errout" "agenttask: task 'a' has a running command; fork it once its commands have ended" "one line"
	assert_empty "no branch" git -C repo branch --list agenttask/b
	kill -0 "$pid" || fail "the run was stopped"
	ok "discard a" -C repo discard --force a
	wait "$pid" || true
}

# What: list --json while a task runs, after one exited, with a gate
# verdict. Must: each task's live state, its change and its gate as they are.
test_list_json_gives_each_tasks_state() {
	unshare -Ur true 2>/dev/null || skip "user namespaces are unavailable here"
	make_repo repo
	ok "new idle" -C repo new idle
	ok "new done" -C repo new done
	ok "new busy" -C repo new busy
	expect_rc 3 "run done" -C repo run done -- sh -c 'echo a >a; printf "x\ny\n" >b; exit 3'
	ok "gate done" -C repo gate done
	"$AT" -C repo run busy -- sh -c 'touch started; exec sleep 1000' >/dev/null 2>&1 &
	local pid=$!
	wait_until 20 test -e "$(task_files repo busy)/started" || fail "busy did not start"
	ok "list --json" -C repo list --json
	local j=$out
	assert_eq "$(json_get "$j" '[(t["name"], t["live"]["state"]) for t in j]')" \
		"[('busy', 'running'), ('done', 'exited'), ('idle', 'idle')]" "the states"
	assert_eq "$(json_get "$j" 'j[0]["live"]["command"], j[0]["live"]["runs"] >= 1, j[0]["live"]["cpu_ms"] is not None')" \
		"('sh -c touch started; exec sleep 1000', True, True)" "running: the command, its use"
	assert_eq "$(json_get "$j" 'j[1]["live"]["exit_code"], j[1]["live"]["change"], j[1]["live"]["gate"]["passed"]')" \
		"(3, {'files': 2, 'additions': 3, 'deletions': 0}, True)" "exited: status, change, gate"
	assert_eq "$(json_get "$j" 'j[2]["live"]["exit_code"], j[2]["live"]["change"]["files"]')" "(None, 0)" "idle"
	ok "discard busy" -C repo discard --force busy
	wait "$pid" || true
}

run_tests
