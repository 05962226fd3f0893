#!/usr/bin/env bash
# Layered tasks (issue 29): a task's files are its base tree's checkout,
# made once in agenttask's state and shared, read-only, by every task of
# that tree, with the task's own files an overlay's upper above it; `path`
# makes it a full checkout. Run by layered_user.sh as uid 65534 too.
#
# The attacker is the command in the sandbox: it writes its upper, plants
# links, FIFOs and whiteouts there, and tries to reach the base and other
# tasks' layers. The host must never follow what it planted, never open a
# FIFO of it, and never let one task see another's files.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

require_user_namespaces

# A layered task t1 of ./repo; WT its path (which holds nothing on the host).
layered_task() {
	require_overlay
	make_repo repo
	ok "new --layered" -C repo new --layered "${1:-t1}"
	WT=$out
}

inside() {
	expect_rc 0 "inside: $*" -C repo run "${TASK:-t1}" -- sh -c "$*"
}

test_new_layered_tells_a_person_at_a_terminal_where_its_files_appear() {
	# A person at a terminal would cd to the path new prints: for a layered
	# task new says on stderr that `path` makes it; to a pipe (a script) only
	# the path, as for a full task.
	layered_task
	assert_eq "$errout" "" "nothing but the path to a pipe"
	local tty
	tty=$(cd repo && python3 "$HERE/ptyrun.py" "$AT" new --layered t2)
	assert_contains "$tty" "task 't2' is layered: its files appear at that path once 'agenttask path t2' makes it a full checkout" \
		"the note on a terminal"
	tty=$(cd repo && python3 "$HERE/ptyrun.py" "$AT" new --full t3)
	assert_not_contains "$tty" "is layered:" "no note for a full task"
}

test_new_layered_makes_a_locked_worktree_over_a_shared_base() {
	layered_task
	assert_no_file "$WT" "a layered task's path holds nothing on the host"
	assert_contains "$(git -C repo worktree list)" "locked" "git's worktree is locked"
	assert_eq "$(cat "$(git -C repo rev-parse --path-format=absolute --git-common-dir)/worktrees/agenttask-t1/locked")" \
		"agenttask layered task" "the lock's reason"
	git -C repo worktree prune
	assert_contains "$(git -C repo worktree list)" "agenttask/t1" "prune keeps the task"
	ok "second task" -C repo new --layered t2
	assert_eq "$(ls "$(repo_state)/bases" | wc -l)" 1 "one base for two tasks of one tree"
	inside 'test "$(cat README)" = "$(printf "hello\nline two")" && s=$(git status --short) &&
		test -z "$s"'
	ok "list" -C repo list
	assert_contains "$out" "clean" "a fresh layered task is clean"
}

test_a_warm_new_reads_no_tree_of_the_base_but_its_root() {
	# What: a second task of a base already there, on a repository whose
	# base tree holds a subtree (git_worktree_add's checkout, a dry run even
	# with GIT_CHECKOUT_NONE, once walked the whole tree: 96% of a warm new
	# at 100,000 files). Must: new reads the root tree alone, so it succeeds
	# with the subtree's object set aside, and the task is whole once it is back.
	layered_task
	local sub obj
	sub=$(git -C repo rev-parse main:src)
	obj="$(git -C repo rev-parse --path-format=absolute --git-common-dir)/objects/${sub:0:2}/${sub:2}"
	[ -f "$obj" ] || skip "the subtree is not a loose object here"
	mv "$obj" "$obj.aside"
	ok "warm new, the subtree's object away" -C repo new --layered t2
	mv "$obj.aside" "$obj"
	TASK=t2 inside 'test "$(cat src/main.c)" = "int main(void) { return 0; }" && test -z "$(git status --short)"'
	assert_fsck repo
}

test_config_and_full_choose_the_form() {
	require_overlay
	make_repo repo
	git -C repo config agenttask.layered true
	ok "new (config)" -C repo new t1
	assert_no_file "$out" "agenttask.layered true makes layered tasks"
	ok "new --full" -C repo new --full t2
	assert_file "$out/README" "--full makes a checkout"
	expect_rc 2 "--layered --full" -C repo new --layered --full t3
	assert_contains "$errout" "--layered and --full" "one clear line"
}

test_run_writes_the_upper_and_the_host_reads_it() {
	layered_task
	inside 'echo changed >README && echo new >new.txt && rm src/main.c && git status --short'
	assert_contains "$out" " M README" "git inside sees the change"
	ok "status" -C repo status t1
	assert_contains "$out" "uncommitted changes" "status reads the layer"
	ok "diff" -C repo diff t1 --name-only
	assert_eq "$out" "$(printf 'README\nnew.txt\nsrc/main.c')" "diff reads the layer"
	ok "commit" -C repo commit t1 -m "edit"
	inside 's=$(git status --short) && echo "$s" && test -z "$s"'
	ok "accept" -C repo accept t1
	assert_eq "$(git -C repo show main:README)" "changed" "accepted"
	assert_no_file "$(repo_state)/layers/t1" "accept removed the layer"
}

test_base_is_never_writable_from_the_sandbox() {
	# What: the command writes, chmods and deletes every file it sees, and looks for
	# the base's directory in agenttask's state. Must: the base stays byte for byte
	# as it was (only the upper changes), and the state dir shows nothing of it.
	layered_task
	local base sum
	base=$(echo "$(repo_state)"/bases/*/files)
	sum=$(cd "$base" && find . -printf '%p %m %s\n' | sort; cat README src/main.c)
	inside "find . -path ./.git -prune -o -type f -print | while read f; do echo x >\"\$f\";
		chmod 777 \"\$f\"; done; rm -rf src; ls -a '$(repo_state)' >seen; ! test -e '$base'"
	assert_eq "$(cd "$base" && find . -printf '%p %m %s\n' | sort; cat README src/main.c)" \
		"$sum" "the base is unchanged"
	assert_eq "$(cat "$(repo_state)/layers/t1/upper/seen")" "$(printf '.\n..')" \
		"agenttask's state is empty inside"
}

test_one_task_never_sees_another_tasks_upper() {
	# What: task t1 writes a secret; task t2 looks for it in its worktree, in t1's
	# worktree path and in the state's layers. Must: nothing of t1 shows in t2.
	layered_task
	ok "t2" -C repo new --layered t2
	local wt2=$out
	inside 'echo secret >secret.txt'
	TASK=t2 inside "! test -e secret.txt && ! test -e '$WT/secret.txt' &&
		! grep -rqs secret '$(repo_state)' '$WT' && ! ls '$(repo_state)/layers' 2>/dev/null"
	assert_no_file "$(repo_state)/layers/t2/upper/secret.txt" "t2's upper has no t1 file"
	assert_no_file "$wt2" "t2's path still holds nothing"
}

test_path_materialises_a_full_checkout_and_the_task_stays_full() {
	layered_task
	inside 'echo changed >README && mkdir -p a/b && echo deep >a/b/c && rm -rf src &&
		mkdir src && echo other >src/x && ln -s README lnk && chmod +x a/b/c'
	ok "path" -C repo path t1
	assert_eq "$out" "$WT" "the same path"
	assert_eq "$(cat "$WT/README")" "changed" "the upper's file"
	assert_eq "$(cat "$WT/a/b/c")" "deep" "a new directory"
	[ -x "$WT/a/b/c" ] || fail "the exec bit kept"
	assert_no_file "$WT/src/main.c" "the opaque directory hides the lower's files"
	assert_eq "$(readlink "$WT/lnk")" "README" "a link copied as a link"
	assert_eq "$(git -C "$WT" status --porcelain | sort)" \
		"$(printf ' D src/main.c\n M README\n?? a/\n?? lnk\n?? src/x')" "git on the host agrees"
	assert_no_file "$(repo_state)/layers/t1" "the layer went"
	assert_not_contains "$(git -C repo worktree list)" "locked" "git's lock went"
	assert_not_contains "$(cat "$(repo_state)/tasks/t1.json")" "layered" "the record says full"
	inside 'echo again >README'
	assert_eq "$(cat "$WT/README")" "again" "the next run writes the full checkout"
}

test_path_never_follows_a_link_planted_in_the_upper() {
	# What: the base has a link d -> an outside directory; the command replaces it
	# with a directory holding a file (upper: an opaque d/ over the lower's link),
	# and plants links to outside files. Must: path writes nothing outside the
	# worktree, copies the links as links.
	require_overlay
	make_repo repo
	local victim
	victim=$(mktemp -d "$_at_root/victim.XXXXXX")
	ln -s "$victim" repo/d
	git -C repo add d && git -C repo commit -q -m link
	ok "new --layered" -C repo new --layered t1
	WT=$out
	inside "rm d && mkdir d && echo pwned >d/f && ln -s '$victim/g' g && ln -s /etc/passwd pw"
	ok "path" -C repo path t1
	assert_eq "$(ls -A "$victim")" "" "nothing written through the link"
	assert_eq "$(cat "$WT/d/f")" "pwned" "d is the upper's directory"
	[ -L "$WT/g" ] && [ -L "$WT/pw" ] || fail "planted links stay links"
}

test_a_fifo_in_the_upper_is_never_opened() {
	# What: the command leaves a FIFO in its upper where a file was and as a new
	# file. Must: status, diff and path finish (nothing opens the FIFO to read it):
	# diff and status refuse it as for a full checkout, path makes a FIFO anew.
	layered_task
	inside 'rm README && mkfifo README && mkfifo new.fifo'
	# A generous deadline: a reader that opened the FIFO would wait forever.
	printf '#!/bin/sh\nexec timeout 300 %s "$@"\n' "$AT" >deadline && chmod +x deadline
	AT=$PWD/deadline expect_rc 1 "diff refuses the FIFO" -C repo diff t1
	assert_contains "$errout" "README" "it names the path"
	AT=$PWD/deadline ok "path" -C repo path t1
	[ -p "$WT/README" ] && [ -p "$WT/new.fifo" ] || fail "FIFOs made anew"
}

test_discard_saves_the_layer_and_gc_removes_unused_bases() {
	layered_task
	inside 'echo changed >README'
	ok "discard" -C repo discard t1
	assert_no_file "$(repo_state)/layers/t1" "the layer went"
	assert_eq "$(git -C repo show "$(git -C repo for-each-ref --format='%(refname)' \
		refs/agenttask/trash | head -1)":README)" "changed" "the trash holds the change"
	ok "gc" -C repo gc
	assert_contains "$out" "removed base" "gc removes the unused base"
	assert_eq "$(ls -A "$(repo_state)/bases")" "" "no base left"
	ok "restore" -C repo restore t1
	assert_eq "$(cat "$out/README")" "changed" "restored (as a full task)"
}

test_a_kill_midway_through_path_leaves_a_working_task() {
	layered_task
	inside 'echo changed >README'
	local step
	for step in path:copied path:renamed; do
		AGENTTASK_TEST_KILL_AT=$step expect_rc 137 "killed at $step" -C repo path t1
		ok "list after $step" -C repo list
		assert_contains "$out" "modified" "the task works after $step"
	done
	ok "gc" -C repo gc
	ok "path" -C repo path t1
	assert_eq "$(cat "$WT/README")" "changed" "full after all"
	assert_no_file "$(repo_state)/layers/t1" "the layer went"
	assert_eq "$(ls -A "$(dirname "$WT")" | grep -c '^\.full-')" 0 "no temporary left"
}

test_a_directory_made_at_the_path_does_not_pass_for_the_full_checkout() {
	# What: someone (an editor, a script) makes the directory a layered task's path
	# names, then gc runs. Must: the task stays layered, its changes kept: only a
	# directory holding the checkout's .git is the full checkout path made.
	layered_task
	inside 'echo changed >README'
	mkdir -p "$WT/sub"
	ok "gc" -C repo gc
	ok "diff" -C repo diff t1 --name-only
	assert_eq "$out" "README" "the layer's change is still the task's"
	assert_file "$(repo_state)/layers/t1/upper/README" "the layer kept"
}

# mcp_calls TASK TOOL JSON-ARGS...: each tool call through `agenttask mcp --task TASK`,
# one line each: "ok TEXT" or "error TEXT".
mcp_calls() {
	local task=$1
	shift
	python3 - "$AT" "$task" "$@" <<'PY'
import json, subprocess, sys
at, task, calls = sys.argv[1], sys.argv[2], sys.argv[3:]
p = subprocess.Popen([at, "-C", "repo", "mcp", "--task", task], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True)
def send(m):
    p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
def reply():
    while True:
        m = json.loads(p.stdout.readline())
        if "id" in m:
            return m
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "layered.sh", "version": "1"}}})
reply()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
for i in range(0, len(calls), 2):
    send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
          "params": {"name": calls[i], "arguments": json.loads(calls[i + 1])}})
    r = reply()["result"]
    text = " ".join(c.get("text", "") for c in r.get("content", []))
    print(("error " if r.get("isError") else "ok ") + text.replace("\n", " "))
p.stdin.close()
p.wait()
PY
}

test_mcp_file_tools_read_and_write_a_layered_task_through_its_layers() {
	# What: an agent's file tools on a layered task: it reads a base file, writes,
	# edits and deletes (a base file: a whiteout), and reads a link and a FIFO it
	# planted in the upper. Must: the overlay's view is read and written (the base
	# never), the link is not followed and the FIFO not opened (refused, unsafe).
	layered_task
	inside 'ln -s /etc/passwd lnk && mkfifo pipe'
	local base
	base=$(echo "$(repo_state)"/bases/*/files)
	out=$(mcp_calls t1 read_file '{"path":"README"}' \
		write_file '{"path":"src/new.c","content":"x\n"}' \
		edit_file '{"path":"README","old_string":"hello","new_string":"bye"}' \
		delete_file '{"path":"src/main.c"}' \
		read_file '{"path":"lnk"}' read_file '{"path":"pipe"}' read_file '{"path":"src/main.c"}')
	assert_contains "$(sed -n 1p <<<"$out")" "ok" "read a base file"
	assert_contains "$(sed -n 1p <<<"$out")" "hello" "its content"
	assert_contains "$(sed -n 5p <<<"$out")" "error" "a link is refused"
	assert_not_contains "$(sed -n 5p <<<"$out")" "root:" "the link was not followed"
	assert_contains "$(sed -n 6p <<<"$out")" "error" "a FIFO is refused"
	assert_contains "$(sed -n 7p <<<"$out")" "error" "the deleted file is gone"
	assert_eq "$(cat "$base/README")" "$(printf 'hello\nline two')" "the base unchanged"
	assert_file "$base/src/main.c" "the base keeps its file"
	inside 'test "$(head -1 README)" = bye && test "$(cat src/new.c)" = x && ! test -e src/main.c'
}

run_tests
