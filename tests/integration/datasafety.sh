#!/usr/bin/env bash
# Attacks on the promise that nothing the user did not choose to lose is lost:
# accept refusing over user files in unusual places, accept killed midway,
# gc and discard of a task whose worktree the user moved, discard of ignored
# files. git is the oracle throughout. The task's changes are its agent's,
# made in its sandbox (agent_sh), on either form of the task.
. "$(dirname "$0")/lib.sh"

# state DIR: everything of the user's that a refusal must leave alone: status
# (with ignored files), stashes, refs, reflog lengths, and every file's bytes.
state() {
	(
		cd "$1"
		git status --porcelain --ignored
		git stash list
		git for-each-ref --format='%(refname) %(objectname)'
		wc -l <.git/logs/HEAD
		find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum
		find . -path ./.git -prune -o -print | sort
	)
}

# refused_unchanged REPO TASK: accept TASK must refuse (exit 1) and change nothing.
refused_unchanged() {
	local before
	before=$(state "$1")
	expect_rc 1 "accept over the user's files" -C "$1" accept "$2"
	assert_eq "$(state "$1")" "$before" "the refused accept changed the repository"
	assert_fsck "$1"
}

# The task turns directory src/ into a file; the user has an untracked file in src/.
test_dir_to_file_over_a_users_untracked_file_refuses() {
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'rm -r src && echo file >src'
	echo mine >repo/src/user.txt
	refused_unchanged repo t
	assert_contains "$errout" "src/user.txt" "the path in the way is named"
}

# The task deletes directory d/ for a file; the user's ignored build output is in d/.
test_dir_to_file_over_a_users_ignored_files_refuses() {
	make_repo repo
	echo 'build/' >repo/.gitignore
	mkdir repo/d && echo a >repo/d/a
	git -C repo add -A && git -C repo commit -q -m d
	ok "new" -C repo new t
	agent_sh t 'rm -r d && echo file >d'
	mkdir -p repo/d/build && echo cache >repo/d/build/obj
	refused_unchanged repo t
}

# The task adds x.env, which the user's main worktree holds as an ignored secret.
test_ignored_file_at_a_path_the_task_adds_refuses() {
	make_repo repo
	echo '*.env' >repo/.gitignore
	git -C repo add .gitignore && git -C repo commit -q -m ignore
	ok "new" -C repo new t
	agent_sh t 'echo from-task >x.env && git add -f x.env && git commit -q -m env'
	echo SECRET >repo/x.env
	refused_unchanged repo t
	assert_eq "$(cat repo/x.env)" "SECRET" "the user's ignored file"
}

# The task turns README into a directory; the user changed README.
test_file_to_dir_over_a_users_change_refuses() {
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'rm README && mkdir README && echo in >README/f'
	echo mine >>repo/README
	refused_unchanged repo t
}

# A cherry-pick stopped on a conflict in the main worktree.
test_accept_during_a_cherry_pick_refuses() {
	make_repo repo
	git -C repo checkout -q -b other && echo o >repo/README && git -C repo commit -q -am o
	git -C repo checkout -q main && echo m >repo/README && git -C repo commit -q -am m
	ok "new" -C repo new t
	agent_sh t 'echo new >added'
	git -C repo cherry-pick other >/dev/null 2>&1 || true
	assert_file repo/.git/CHERRY_PICK_HEAD "the cherry-pick stopped"
	refused_unchanged repo t
	git -C repo cherry-pick --abort
	ok "accept once the user is done" -C repo accept t
	assert_file repo/added "the task's file"
}

# The base branch checked out in two worktrees: both are updated, the user's
# unrelated change in either stays.
test_base_checked_out_twice_updates_both_and_keeps_user_changes() {
	make_repo repo
	git -C repo worktree add -q --force ../second main
	ok "new" -C repo new t
	agent_sh t 'echo new >added'
	echo mine >>second/README
	ok "accept" -C repo accept t
	assert_eq "$(cat repo/added)" "new" "main worktree updated"
	assert_eq "$(cat second/added)" "new" "second worktree updated"
	assert_eq "$(git -C second status --porcelain)" " M README" "the user's change in second"
	assert_empty "main worktree clean" git -C repo status --porcelain
}

# accept killed with SIGKILL at several moments: the user's staged, unstaged
# and untracked changes survive, git fsck passes, and accept run again lands
# exactly the tree an uninterrupted accept lands. The task changes 400 small
# files, deletes one, adds one, and rewrites a 4 MiB file.
make_accept_repo() {
	local i
	make_repo "$1"
	mkdir "$1/many"
	for i in $(seq 1 400); do echo "file $i" >"$1/many/f$i"; done
	head -c 4194304 /dev/zero | tr '\0' o >"$1/big"
	git -C "$1" add -A && git -C "$1" commit -q -m many
	ok "new" -C "$1" new t
	agent_sh -C "$1" t 'for i in $(seq 1 400); do echo "task $i" >>many/f$i; done
		head -c 4194304 /dev/zero | tr "\0" n >big
		rm src/main.c && echo new >added'
	echo mine >>"$1/README"
	echo untracked >"$1/mine.txt"
	echo staged >"$1/st.txt" && git -C "$1" add st.txt
}

# The user's changes are all there, and each path the task changes is whole:
# its old content or its new one, never a mix.
assert_whole() {
	local d=$1 what=$2 i
	assert_eq "$(tail -1 "$d/README")" "mine" "unstaged change $what"
	assert_eq "$(cat "$d/mine.txt")" "untracked" "untracked file $what"
	assert_eq "$(git -C "$d" show :st.txt)" "staged" "staged file $what"
	for i in 1 200 400; do
		case "$(cat "$d/many/f$i")" in
		"file $i" | "file $i"$'\n'"task $i") ;;
		*) fail "many/f$i is half-written $what" ;;
		esac
	done
	case "$(head -c 4194304 /dev/zero | tr '\0' o | cmp - "$d/big" 2>&1),$(head -c 4194304 /dev/zero | tr '\0' n | cmp - "$d/big" 2>&1)" in
	,* | *,) ;;
	*) fail "big is half-written $what" ;;
	esac
}

# kill_accept_when REPO WHEN: run accept in REPO and SIGKILL it the moment
# WHEN holds (checked in a tight loop): "big" (the big file begins to
# change), "N" (the N-th of many/f1..f400 in git's order has changed),
# "index" (an index.lock appears), or a number of seconds. Prints
# "killed" or "finished".
kill_accept_when() {
	python3 - "$AT" "$1" "$2" <<'PY'
import os, signal, subprocess, sys, time
at, repo, when = sys.argv[1:4]
names = sorted("many/f%d" % i for i in range(1, 401))
def changed(path, size):
    try:
        return os.stat(os.path.join(repo, path)).st_size != size
    except FileNotFoundError:
        return True
if when == "big":
    test = lambda: changed("big", 4194304)
elif when == "index":
    test = lambda: os.path.exists(os.path.join(repo, ".git/index.lock"))
elif when.endswith("s"):
    t0 = time.time() + float(when[:-1])
    test = lambda: time.time() >= t0
else:
    path = names[int(when) - 1]
    size = os.stat(os.path.join(repo, path)).st_size
    test = lambda: changed(path, size)
p = subprocess.Popen([at, "-C", repo, "accept", "t"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
killed = False
while p.poll() is None:
    if test():
        os.kill(p.pid, signal.SIGKILL)
        killed = True
        break
p.wait()
print("killed" if killed else "finished")
PY
}

test_accept_killed_midway_then_accept_again_loses_nothing() {
	# What: accept killed with SIGKILL while it updates the files of the
	# user's checkout: at the first file, at the 200th and last of 400, as
	# the big file is written, as the index is, and at fixed times. The
	# old checkout wrote files in place (a kill left one half-written) and
	# the index at the end, so the files it had written looked like the
	# user's changes and accept run again refused over them. Must: every
	# path whole, the user's changes intact, fsck clean, and accept run
	# again lands exactly what an uninterrupted accept lands.
	local when want caught=0
	make_accept_repo oracle
	ok "uninterrupted accept" -C oracle accept t
	want=$(git -C oracle rev-parse 'main^{tree}')
	for when in 1 200 400 big index 0.05s 0.2s 0.4s; do
		rm -rf repo
		make_accept_repo repo
		[ "$(kill_accept_when repo "$when")" = killed ] && caught=$((caught + 1))
		assert_fsck repo
		assert_whole repo "after a kill at $when"
		if "$AT" -C repo list | grep -q '^t '; then
			ok "accept again after a kill at $when" -C repo accept t
		fi
		assert_eq "$(git -C repo rev-parse 'main^{tree}')" "$want" "tree after a kill at $when"
		assert_eq "$(git -C repo status --porcelain | sort)" \
			"$(printf ' M README\nA  st.txt\n?? mine.txt\n' | sort)" \
			"status after a kill at $when"
		assert_fsck repo
	done
	[ "$caught" -ge 5 ] || fail "accept was killed midway only $caught times of 8"
}

# What: accept, discard or gc killed inside libgit2's deletion of the task's
# branch leaves refs/heads/agenttask/NAME.lock (the kill at the last file of
# test_accept_killed_midway_... sometimes lands there). Must: the next remover,
# which holds the repository lock, takes it as that leftover and removes the
# task; git's own lock files elsewhere stay untouched.
test_a_killed_removers_branch_lock_does_not_block_the_next() {
	make_repo repo
	ok "new" -C repo new t
	: >repo/.git/refs/heads/agenttask/t.lock
	: >repo/.git/refs/heads/main.lock
	ok "discard over the leftover lock" -C repo discard t
	assert_empty "the branch is gone" git -C repo for-each-ref refs/heads/agenttask
	[ -e repo/.git/refs/heads/agenttask/t.lock ] && fail "the leftover lock is still there"
	[ -e repo/.git/refs/heads/main.lock ] || fail "another ref's lock was removed"
	rm -f repo/.git/refs/heads/main.lock
}

# The user moved the task's worktree with `git worktree move`: gc must not cut
# it off from git (its uncommitted change would then be in no trash), and
# discard refuses without writing a trash entry. Moved back, all works.
test_gc_and_discard_leave_a_moved_worktree_alone() {
	make_repo repo
	ok "new" -C repo new t
	task_path t    # the person's worktree, which they move
	w=$out
	echo committed >"$w/c" && ok "commit" -C repo commit t -m c
	git -C repo worktree move "$w" "$PWD/moved"
	echo uncommitted >>moved/README
	ok "gc" -C repo gc
	assert_contains "$out" "moved" "gc says why it left the task"
	assert_eq "$(git -C moved status --porcelain)" " M README" "the moved worktree still works"
	assert_empty "gc wrote no trash" git -C repo for-each-ref refs/agenttask
	expect_rc 1 "discard of a moved worktree" -C repo discard t
	assert_contains "$errout" "moved" "discard says why"
	assert_empty "discard wrote no trash" git -C repo for-each-ref refs/agenttask
	assert_eq "$(git -C moved status --porcelain)" " M README" "the moved worktree still works"
	git -C repo worktree move "$PWD/moved" "$w"
	ok "discard once moved back" -C repo discard t
	ok "restore" -C repo restore t
	assert_eq "$(git -C "$w" status --porcelain)" " M README" "the change came back"
	assert_eq "$(cat "$w/c")" "committed" "the commit came back"
	assert_fsck repo
}

# Documented: discard saves untracked files but not ignored ones (build
# output, node_modules/, .env): they are deleted with the worktree.
test_discard_saves_untracked_but_not_ignored_files() {
	make_repo repo
	printf 'node_modules/\n.env\n' >repo/.gitignore
	git -C repo add .gitignore && git -C repo commit -q -m ignore
	ok "new" -C repo new t
	w=$out
	agent_sh t 'mkdir node_modules && echo dep >node_modules/x.js && echo KEY=1 >.env &&
		echo notes >notes.txt'
	ok "discard" -C repo discard t
	assert_no_file "$w" "the worktree is gone"
	assert_no_file "$(git -C repo rev-parse --absolute-git-dir)/agenttask/layers/t" \
		"a layered task's layer is gone"
	ok "restore" -C repo restore t
	task_path t
	w=$out
	assert_eq "$(cat "$w/notes.txt")" "notes" "the untracked file came back"
	assert_no_file "$w/.env" "ignored files are not saved"
	assert_no_file "$w/node_modules" "ignored directories are not saved"
}

# A task name reused: discard, new, discard again. Restore brings back the
# newest; the older entry stays in the trash, whole.
test_reused_name_keeps_both_discards_and_restores_newest_first() {
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo first >f'
	ok "discard" -C repo discard t
	ok "new again" -C repo new t
	agent_sh t 'echo second >f'
	ok "discard again" -C repo discard t
	assert_eq "$(git -C repo for-each-ref refs/agenttask/trash | wc -l)" "2" "both entries kept"
	ok "restore" -C repo restore t
	task_path t
	assert_eq "$(cat "$out/f")" "second" "newest first"
	left=$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/trash)
	assert_eq "$(git -C repo show "$left:f")" "first" "the older entry is intact"
	assert_fsck repo
}

run_tests
