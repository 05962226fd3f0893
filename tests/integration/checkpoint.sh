#!/usr/bin/env bash
# Checkpoints and rewind (issue 26): the task's full state kept before every
# run, what each run changed (log, diff --run, diff --since), and rewind,
# undone, refused during a live run, killed at each of its steps. Run by
# checkpoint_user.sh as an ordinary user (uid 65534) too.
#
# The attacker is the command in the sandbox: whatever it leaves in the
# worktree (links out of the tree, fifos, huge sparse files) is read by the
# host when it takes the next checkpoint, and written over when a rewind
# brings an older state back.
. "$(dirname "$0")/lib.sh"

require_user_namespaces

task() {
	make_repo repo
	ok "new t1" -C repo new t1
	WT=$out
	# Where its files are on the host: a layered task's upper, until it is made full.
	FILES=$WT
	! layered_form || FILES=$(git -C repo rev-parse --path-format=absolute --git-common-dir)/agenttask/layers/t1/upper
}

# The person's edits on the host before the runs (a rewind's subject is the
# checkout on the host, which a rewind of a layered task makes full anyway):
# a layered task made full first, as `path` does for the person.
persons_checkout() {
	! layered_form || ok "path t1" -C repo path t1
}

# manifest DIR: every path but .git with its type, mode and content (a
# link's target, a file's hash): what "byte for byte" compares. Directories
# are not listed: git records none, and an empty one is no state.
manifest() {
	(
		cd "$1" && find . -path ./.git -prune -o -mindepth 1 ! -type d -print | LC_ALL=C sort |
			while IFS= read -r p; do
				if [ -L "$p" ]; then
					printf '%s link %s\n' "$p" "$(readlink "$p")"
				elif [ -d "$p" ]; then
					printf '%s dir\n' "$p"
				elif [ ! -f "$p" ] || [ "$(stat -c %s "$p")" -gt 1048576 ]; then
					# a fifo is never opened, a huge file never read: by type and size
					printf '%s %s %s\n' "$p" "$(stat -c '%F %a' "$p")" "$(stat -c %s "$p")"
				else
					printf '%s file %s %s\n' "$p" "$(stat -c %a "$p")" \
						"$(sha256sum <"$p" | cut -c1-16)"
				fi
			done
	)
}

# The host's view of the task: its branch, files, index and status (a
# layered task made full first, as the person's `path` makes it).
host_view() {
	! layered_form || "$AT" -C repo path t1 >/dev/null || fail "path t1"
	manifest "$WT"
	git -C "$WT" rev-parse HEAD
	git -C "$WT" status --porcelain=v1 --untracked-files=all
	git -C "$WT" ls-files -s
}

# What git inside the sandbox says of the same.
inside_view() {
	expect_rc 0 "git inside" -C repo run t1 -- sh -c \
		'git rev-parse HEAD; git symbolic-ref HEAD; git status --porcelain=v1 --untracked-files=all; git ls-files -s'
	printf '%s' "$out"
}

# A run that does everything the issue lists: edit, create, delete, rename,
# chmod, a file turned into a link, a directory into a file, and a commit.
busy_run() {
	expect_rc 0 "the busy run" -C repo run t1 -- sh -c '
		echo more >> README
		echo new > created.txt
		rm src/main.c
		mv untracked.txt renamed.txt
		chmod +x tool.sh
		rm -f link.txt && ln -s README link.txt
		rm -rf dir && echo now-a-file > dir
		git add created.txt && git commit -qm "inside"'
}

# Before the busy run, made by run 1: an untracked file, a script, a file, a directory.
seed() {
	agent_sh t1 'echo untracked >untracked.txt && printf "#!/bin/sh\n" >tool.sh &&
		echo plain >link.txt && mkdir dir && echo inner >dir/inner.txt &&
		git add tool.sh link.txt dir && git commit -qm seed && echo staged-not >uncommitted.txt'
}

test_diff_run_shows_exactly_what_the_run_changed() {
	# What: a run edits, creates, deletes, renames, chmods, turns a file into a
	# link and a directory into a file, and commits. Must: diff --run 2 (run
	# 1 the seed's) shows exactly those paths; log and log --json give them
	# under run 2.
	task
	seed
	busy_run
	ok "diff --run 2 --name-only" -C repo diff t1 --run 2 --name-only
	# (the rename shown by its new name, as git diff --name-only shows it)
	assert_eq "$out" "$(printf '%s\n' README created.txt dir dir/inner.txt link.txt renamed.txt src/main.c tool.sh | LC_ALL=C sort)" \
		"the paths run 2 changed"
	ok "diff --run 2 --json" -C repo diff t1 --run 2 --json
	assert_eq "$(python3 -c 'import json,sys; f={x["path"]:x for x in json.load(sys.stdin)["files"]}; print(f["tool.sh"]["new_mode"], f["link.txt"]["new_mode"], f["dir"]["status"], f["src/main.c"]["status"])' <<<"$out")" \
		"100755 120000 added deleted" "modes, link, deletion"
	ok "log" -C repo log t1
	assert_contains "$out" "run 2: 8 files changed" "log counts run 2's files"
	ok "log --json" -C repo log t1 --json
	assert_eq "$(python3 -c 'import json,sys; r=[e for e in json.load(sys.stdin) if e["event"]=="run"]; print(r[1]["number"], len(r[1]["files"]))' <<<"$out")" \
		"2 8" "log --json: run 2 and its files"
	# A third run changes one file: --run 3 is that alone, --since 2 both.
	expect_rc 0 "run 3" -C repo run t1 -- sh -c 'echo two > second.txt'
	ok "diff --run 3" -C repo diff t1 --run 3 --name-only
	assert_eq "$out" "second.txt" "run 3 alone"
	ok "diff --run 2 after run 3" -C repo diff t1 --run 2 --name-only
	assert_not_contains "$out" "second.txt" "run 2 ends where run 3 began"
	ok "diff --since 2" -C repo diff t1 --since 2 --name-only
	assert_contains "$out" "second.txt" "since 2: run 3's file"
	assert_contains "$out" "created.txt" "since 2: run 2's files"
}

test_rewind_brings_back_the_state_byte_for_byte_and_is_undone() {
	# What: rewind the busy run. Must: files, modes, links, HEAD, index and
	# git status on the host and inside are those before it; rewinding to the
	# checkpoint of the replaced state undoes it, byte for byte too.
	task
	seed
	local before after inside_before
	before=$(host_view)
	inside_before=$(inside_view)
	busy_run
	after=$(host_view)
	[ "$before" != "$after" ] || fail "the run changed nothing"
	ok "rewind to before run 3" -C repo rewind t1 3 --json
	local saved
	saved=$(json_get "$out" 'j["saved"]')
	assert_eq "$(host_view)" "$before" "the host's view is the one before the run"
	assert_eq "$(inside_view)" "$inside_before" "git inside agrees"
	ok "undo" -C repo rewind t1 "$saved"
	assert_eq "$(host_view)" "$after" "undone: the state after the run"
	ok "log" -C repo log t1
	assert_contains "$out" "rewind   to=$saved" "the rewind is logged"
	assert_fsck repo
}

test_bad_run_numbers_exit_2_and_change_nothing() {
	# What: numbers that name no checkpoint. Must: one line naming it, exit 2.
	task
	expect_rc 2 "rewind before any run" -C repo rewind t1 1
	assert_contains "$errout" "no checkpoint 1" "says so"
	expect_rc 0 "a run" -C repo run t1 -- true
	local n
	for n in 0 x 1x 99 -1; do
		expect_rc 2 "diff --run $n" -C repo diff t1 --run "$n"
		expect_rc 2 "diff --since $n" -C repo diff t1 --since "$n"
		expect_rc 2 "rewind $n" -C repo rewind t1 -- "$n"
		assert_eq "$(printf '%s' "$errout" | wc -l)" 0 "one line for '$n'"
	done
	expect_rc 2 "--run with --since" -C repo diff t1 --run 1 --since 1
}

test_checkpoints_are_hidden_refs_removed_with_the_task() {
	# What: a clone of the repository; the task's removal. Must: checkpoints
	# live under refs/agenttask/ (never cloned), a state unchanged since the
	# last checkpoint costs no new commit, and discard removes them.
	task
	expect_rc 0 "run 1" -C repo run t1 -- true
	expect_rc 0 "run 2" -C repo run t1 -- true
	assert_eq "$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/checkpoints/t1 | wc -l)" 2 "two checkpoints"
	assert_eq "$(git -C repo rev-parse refs/agenttask/checkpoints/t1/1)" \
		"$(git -C repo rev-parse refs/agenttask/checkpoints/t1/2)" "the same state: the same commit"
	git clone -q "file://$PWD/repo" clone
	assert_empty "a clone has none" git -C clone for-each-ref refs/agenttask
	ok "discard" -C repo discard t1
	assert_empty "gone with the task" git -C repo for-each-ref refs/agenttask/checkpoints
}

# Loose objects, reachable from a branch, in (nearly) every objects/xx of
# the common dir: once the task's git has packed them in its view, each of
# those directories is whited out there, and any object the host writes in
# one next is hidden inside.
fill_fanout() {
	local tree
	mkdir repo/blobs && seq 3000 | awk '{ f = "repo/blobs/" $1; print $1 > f; close(f) }'
	tree=$(cd repo && GIT_INDEX_FILE=$PWD/.git/fill.idx git add blobs &&
		GIT_INDEX_FILE=$PWD/.git/fill.idx git write-tree)
	git -C repo update-ref refs/heads/fill "$(git -C repo commit-tree -m fill "$tree")"
	rm -r repo/blobs repo/.git/fill.idx
}

test_the_agents_git_never_sees_the_host_refs() {
	# What: the host packs its refs; the task's git repacks its view (which
	# whites out the common dir's objects/xx), so that the objects of the
	# host's next checkpoint are hidden inside; it walks every ref, then
	# prunes and repacks all (gc --prune=now, repack -ad) and walks again;
	# last it writes and deletes refs/agenttask/checkpoints/... inside.
	# Must: every walk of all refs inside (fsck --full, log --all, repack -ad,
	# gc) succeeds and lists no refs/agenttask ref, loose or packed; what the
	# task's git wrote there stays in its layer and changes nothing on the host.
	task
	fill_fanout
	local walk='git fsck --full --no-progress && git log --all --oneline >/dev/null && git for-each-ref && git show-ref'
	expect_rc 0 "run 1" -C repo run t1 -- true
	git -C repo pack-refs --all
	assert_contains "$(cat repo/.git/packed-refs)" "refs/agenttask/checkpoints/t1/1" "packed on the host"
	expect_rc 0 "run 2: walk, then repack inside" -C repo run t1 -- sh -c \
		"$walk && echo fresh > fresh.txt && git repack -q -d"
	assert_not_contains "$out" "refs/agenttask" "no packed host ref inside"
	# The host packs again, a tag of its own with them: the view's copy follows.
	git -C repo tag v-host main && git -C repo pack-refs --all
	expect_rc 0 "run 3: walk, then prune and repack all" -C repo run t1 -- sh -c \
		"$walk && echo more > more.txt && git gc -q --prune=now && git repack -q -ad"
	assert_not_contains "$out" "refs/agenttask" "no loose host ref inside"
	assert_contains "$out" "refs/tags/v-host" "the host's newly packed tag shows"
	expect_rc 0 "run 4: walk again" -C repo run t1 -- sh -c "$walk"
	assert_not_contains "$out" "refs/agenttask" "none after the task's gc"
	local before
	before=$(git -C repo for-each-ref refs/agenttask)
	expect_rc 0 "run 5: the task's git writes host refs" -C repo run t1 -- sh -c '
		git update-ref refs/agenttask/checkpoints/t1/1 HEAD~1 &&
		git update-ref refs/agenttask/checkpoints/t1/99 HEAD &&
		git update-ref -d refs/agenttask/checkpoints/t1/2 2>/dev/null
		git pack-refs --all && git for-each-ref refs/agenttask'
	assert_contains "$out" "refs/agenttask/checkpoints/t1/99" "its own ref, inside"
	assert_eq "$(git -C repo for-each-ref refs/agenttask | grep -v 'checkpoints/t1/5$')" "$before" \
		"the host's refs unchanged but for run 5's checkpoint"
	expect_rc 0 "run 6: its own refs stay its own" -C repo run t1 -- git for-each-ref refs/agenttask
	assert_contains "$out" "refs/agenttask/checkpoints/t1/99" "kept in its layer"
	assert_not_contains "$out" "checkpoints/t1/5" "the host's still hidden"
	assert_fsck repo
}

test_head_inside_naming_a_host_ref_imports_nothing_of_it() {
	# What: the task's git points HEAD at a checkpoint's ref by name
	# (symbolic-ref HEAD refs/agenttask/checkpoints/t1/1): the host-side
	# import reads HEAD and follows the ref through the view's layers, where
	# the host's ref is below. Must: the host resolves it as the view does
	# (nothing there: no ref of the host's is read for the agent), and the
	# task's branch does not move to the checkpoint's commit.
	task
	expect_rc 0 "run 1" -C repo run t1 -- sh -c 'echo untracked >untracked.txt'
	local tip ck
	tip=$(git -C repo rev-parse agenttask/t1)
	ck=$(git -C repo rev-parse refs/agenttask/checkpoints/t1/1)
	at -C repo run t1 -- git symbolic-ref HEAD refs/agenttask/checkpoints/t1/1
	assert_eq "$(git -C repo rev-parse agenttask/t1)" "$tip" "the branch not moved"
	[ "$(git -C repo rev-parse agenttask/t1)" != "$ck" ] || fail "the branch took the checkpoint's commit"
	at -C repo run t1 -- sh -c 'git symbolic-ref HEAD refs/heads/agenttask/t1 && git rev-parse HEAD'
	assert_eq "$out" "$tip" "back on its branch: the same tip"
	assert_fsck repo
}

test_a_run_with_read_only_git_sees_no_host_refs_either() {
	# What: a second run of the task while the first holds its git view sees
	# the common dir read-only, without the view; the host's refs are loose
	# and packed there. Must: its git lists no refs/agenttask ref, and the
	# directory of the loose ones shows empty.
	task
	expect_rc 0 "run 1" -C repo run t1 -- true
	git -C repo pack-refs --all
	expect_rc 0 "run 2" -C repo run t1 -- true
	assert_contains "$(cat repo/.git/packed-refs)" "refs/agenttask/checkpoints/t1/1" "packed on the host"
	assert_contains "$(ls repo/.git/refs/agenttask/checkpoints/t1)" "2" "loose on the host"
	# (signalled through its HOME, a directory the host and the run share on either form)
	local home
	home=$(git -C repo rev-parse --path-format=absolute --git-common-dir)/agenttask/homes/t1
	"$AT" -C repo run t1 -- sh -c 'touch "$HOME/started"; while [ ! -e "$HOME/go" ]; do sleep 0.05; done; rm "$HOME/go"' >/dev/null 2>&1 &
	local pid=$!
	wait_until 30 test -e "$home/started" || fail "the first run did not start"
	at -C repo run t1 -- sh -c 'git for-each-ref; git show-ref; ls -A "$(git rev-parse --git-common-dir)/refs/agenttask"'
	touch "$home/go"
	wait $pid
	assert_contains "$errout" "another run of 't1' has its git" "read-only git"
	assert_eq "$rc" 0 "the second run ran: $errout"
	assert_contains "$out" "refs/heads/main" "its refs listed"
	assert_not_contains "$out" "refs/agenttask" "none of the host's"
	assert_not_contains "$out" "checkpoints" "their directory empty"
}

test_rewind_is_refused_during_a_live_run_and_force_stops_it() {
	# What: rewind while a command of the task runs. Must: exit 1, nothing
	# changed; --force kills the run first, then rewinds.
	task
	expect_rc 0 "run 1" -C repo run t1 -- sh -c 'echo one > one.txt'
	"$AT" -C repo run t1 -- sh -c 'echo live > live.txt; while :; do sleep 1; done' >/dev/null 2>&1 &
	local pid=$!
	wait_until 30 test -f "$FILES/live.txt" || fail "the live run did not start"
	local before
	# (a layered task cannot be made full while it runs: its files and branch)
	if layered_form; then before=$(manifest "$FILES"; git -C repo rev-parse agenttask/t1); else before=$(host_view); fi
	expect_rc 1 "rewind during the run" -C repo rewind t1 1
	assert_contains "$errout" "running command" "says a command runs"
	if layered_form; then
		assert_eq "$(manifest "$FILES"; git -C repo rev-parse agenttask/t1)" "$before" "nothing changed"
	else
		assert_eq "$(host_view)" "$before" "nothing changed"
	fi
	ok "rewind --force" -C repo rewind t1 1 --force
	wait "$pid" || true
	assert_no_file "$WT/one.txt" "back to before run 1"
	assert_no_file "$WT/live.txt" "the live run's file gone too"
}

test_checkpoint_of_a_hostile_tree_neither_hangs_nor_follows() {
	# What: a run leaves a fifo, a 2 GB sparse file and a link out of the
	# tree. Must: the next run starts at once (nothing opens the fifo, which
	# git does not record either; nothing reads 2 GB), says it has no
	# checkpoint and why; a rewind refuses with nothing changed; the link is
	# recorded as a link, its target never read.
	task
	echo secret >outside.txt
	expect_rc 0 "run 1" -C repo run t1 -- true
	# What a run leaves (made here, where its files are: a run's file-size
	# limit stops a 2 GB file).
	ln -s "$PWD/outside.txt" "$FILES/out-link"
	mkfifo "$FILES/fifo"
	truncate -s 2G "$FILES/sparse"
	local before
	before=$(manifest "$FILES")
	expect_rc 0 "the next run" -C repo run t1 -- true
	assert_contains "$errout" "no checkpoint" "warned"
	case "$errout" in
	*"'fifo'"* | *"'sparse'"*) ;;
	*) fail "the warning names neither the fifo nor the sparse file: $errout" ;;
	esac
	expect_rc 1 "rewind over it" -C repo rewind t1 1
	assert_contains "$errout" "nothing rewound" "refused whole"
	assert_eq "$(manifest "$FILES")" "$before" "nothing changed"
	rm "$FILES/fifo" "$FILES/sparse"
	expect_rc 0 "the link alone" -C repo run t1 -- true
	local n
	n=$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/checkpoints/t1 | wc -l)
	assert_eq "$(git -C repo cat-file -p "refs/agenttask/checkpoints/t1/$n:out-link")" "$PWD/outside.txt" \
		"recorded as a link, its target's bytes never read"
	assert_eq "$(git -C repo ls-tree "refs/agenttask/checkpoints/t1/$n" out-link | cut -c1-6)" 120000 "mode of a link"
}

test_rewind_never_writes_through_a_link_the_run_planted() {
	# What: a run turns a directory of the checkpoint into a link to a
	# directory outside the worktree, then the person rewinds. Must: the
	# files go back into the worktree's own directory; nothing is written
	# through the link (the outside directory stays empty).
	task
	agent_sh t1 'mkdir sub && echo inner >sub/file.txt'
	mkdir outside
	expect_rc 0 "run 2" -C repo run t1 -- sh -c "rm -r sub && ln -s '$PWD/outside' sub"
	ok "rewind" -C repo rewind t1 2
	[ -d "$WT/sub" ] && [ ! -L "$WT/sub" ] || fail "sub is a directory again"
	assert_eq "$(cat "$WT/sub/file.txt")" inner "its file back"
	assert_empty "nothing written outside" ls -A outside
}

test_rewind_smudges_with_the_base_attributes_never_the_tasks() {
	# What: a run commits a .gitattributes of its own (`* ident`, and a
	# filter driver the host's config names) over a file holding "$Id$",
	# then the person rewinds: while the files are written, the task's
	# index still holds the agent's .gitattributes. Must: the file comes
	# back byte for byte ("$Id$" unexpanded, no driver run): the filters'
	# attributes are the base commit's alone.
	task
	persons_checkout
	printf 'id: $Id$\n' >"$WT/id.txt"
	git -C repo config filter.evil.smudge "touch '$PWD/smudged'; cat"
	local before
	expect_rc 0 "run 1" -C repo run t1 -- true
	before=$(host_view)
	expect_rc 0 "run 2: attributes of its own" -C repo run t1 -- sh -c '
		printf "* ident filter=evil\n" > .gitattributes
		echo changed > id.txt
		git add .gitattributes && git commit -qm attrs'
	ok "rewind to 2" -C repo rewind t1 2
	assert_eq "$(cat "$WT/id.txt")" 'id: $Id$' "not expanded"
	assert_no_file smudged "no driver of the task's ran"
	assert_eq "$(host_view)" "$before" "the state before the run"
}

# only_the_index_differs [FILEMODE]: the body of the two tests below.
only_the_index_differs() {
	task
	[ -z "${1:-}" ] || git -C repo config core.filemode "$1"
	local before inside_before
	expect_rc 0 "run 1" -C repo run t1 -- true
	before=$(host_view)
	inside_before=$(inside_view)
	echo staged >>"$WT/README"
	git -C "$WT" add README
	git -C "$WT" show HEAD:README >"$WT/README"
	[ "$(host_view)" != "$before" ] || fail "the index did not change"
	ok "rewind to 1" -C repo rewind t1 1
	assert_eq "$(host_view)" "$before" "the index is HEAD's again"
	assert_eq "$(inside_view)" "$inside_before" "git inside agrees"
}

test_rewind_where_only_the_index_differs_brings_the_index_back() {
	# What: after a checkpoint the person stages a change and puts the file
	# back as it was: the worktree's files are the checkpoint's, only the
	# index differs. Must: rewind to it unstages the change (the index is
	# HEAD's tree again), as git status on the host and inside say.
	only_the_index_differs
}

test_rewind_where_only_the_index_differs_without_filemode_too() {
	# What: the same with core.filemode false, where the scan takes its
	# general path (git/snapshot.c), which does not give the index's tree.
	# Must: the same: the rewind reads the index itself and unstages it.
	only_the_index_differs false
}

# type_changes [FILEMODE]: the body of the two tests below.
type_changes() {
	task
	persons_checkout
	[ -z "${1:-}" ] || git -C repo config core.filemode "$1"
	mkdir "$WT/d" && echo in-d >"$WT/d/x"
	echo f >"$WT/f" && echo dx >"$WT/d-x" && echo dt >"$WT/d.txt"
	git -C "$WT" add -A && git -C "$WT" commit -qm "types"
	local before after saved
	expect_rc 0 "run 1" -C repo run t1 -- true
	before=$(host_view)
	expect_rc 0 "run 2: the types turned" -C repo run t1 -- sh -c '
		rm -r d && echo now-a-file > d
		rm f && mkdir f && echo in-f > f/y
		git add -A && git commit -qm turned'
	after=$(host_view)
	[ "$before" != "$after" ] || fail "the run changed nothing"
	ok "rewind to 2" -C repo rewind t1 2 --json
	saved=$(json_get "$out" 'j["saved"]')
	assert_eq "$(host_view)" "$before" "the state before the run"
	ok "undo" -C repo rewind t1 "$saved"
	assert_eq "$(host_view)" "$after" "the state after it"
	assert_fsck repo
}

test_rewind_across_committed_type_changes_and_back() {
	# What: a run turns a directory into a file and a file into a directory,
	# beside names that sort between them ("d", "d-x", "d.txt", "d/x"), and
	# commits it: the index changes entry by entry across the type change.
	# Must: rewind brings files, index and HEAD back byte for byte; undone,
	# the state after the run, byte for byte too.
	type_changes
}

test_rewind_across_type_changes_without_filemode_too() {
	# What: the same with core.filemode false: the index is read and
	# compared by libgit2 (a type change is a deletion and an addition of
	# one path there). Must: the same.
	type_changes false
}

# set_stat_like INDEX PATH FILE: the index entry of PATH takes FILE's stat
# data (its id unchanged), the index's checksum made again: an index that
# does not see what changed in FILE by its stat data.
set_stat_like() {
	python3 - "$1" "$2" "$3" <<-'PY'
	import hashlib, os, struct, sys
	index, path, f = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
	b = bytearray(open(index, "rb").read())
	n = struct.unpack(">I", b[8:12])[0]
	st, off = os.lstat(f), 12
	for _ in range(n):
	    flags = struct.unpack(">H", b[off + 60:off + 62])[0]
	    fixed = 64 if flags & 0x4000 else 62
	    end = b.index(b"\0", off + fixed)
	    if bytes(b[off + fixed:end]) == path:
	        struct.pack_into(">10I", b, off, int(st.st_ctime), st.st_ctime_ns % 10**9,
	                         int(st.st_mtime), st.st_mtime_ns % 10**9, st.st_dev & 0xffffffff,
	                         st.st_ino & 0xffffffff, struct.unpack(">I", b[off + 24:off + 28])[0],
	                         st.st_uid, st.st_gid, st.st_size)
	    off += (fixed + (end - off - fixed) + 8) & ~7
	b[-20:] = hashlib.sha1(b[:-20]).digest()
	open(index, "wb").write(b)
	PY
}

test_rewind_keeps_a_racily_clean_change_it_does_not_write() {
	# What: a file changed behind the index's back, the index's stat data of
	# it those of the changed file, written in the same instant as the index
	# (the racy case: same size, same mtime as the index); the rewind writes
	# other paths and the index. Must: the scan that keeps the replaced state
	# hashes that file (it is not taken as clean), and the index the rewind
	# writes still has git look at it: git status shows it modified, as
	# before the rewind, and its bytes stay.
	task
	persons_checkout
	echo more >>"$WT/README"
	expect_rc 0 "run 1: a commit inside" -C repo run t1 -- sh -c \
		'echo c > c.txt && git add c.txt && git commit -qm c'
	local index
	index=$(git -C "$WT" rev-parse --path-format=absolute --git-path index)
	# A minute old, so that whatever writes the index next is later by the
	# clock git reads (whole seconds), not by chance in the same second.
	touch -d '-1 minute' "$WT/README"
	set_stat_like "$index" README "$WT/README"
	touch -r "$WT/README" "$index"   # the same mtime: racily clean
	local bytes
	bytes=$(sha256sum <"$WT/README")
	ok "rewind to 1" -C repo rewind t1 1 --json
	assert_no_file "$WT/c.txt" "the run's commit rewound"
	assert_eq "$(sha256sum <"$WT/README")" "$bytes" "the change kept"
	assert_eq "$(git -C "$WT" status --porcelain=v1)" " M README" "git sees it modified"
	local saved
	saved=$(json_get "$out" 'j["saved"]')
	assert_eq "$(git -C repo show "refs/agenttask/checkpoints/t1/$saved:README" | sha256sum)" "$bytes" \
		"the state kept has the change"
	assert_eq "$(git -C repo show "refs/agenttask/checkpoints/t1/1:README" | sha256sum)" "$bytes" \
		"checkpoint 1 had it too"
}

# The steps of a rewind a kill may stop at (app/rewind.c).
STEPS="rewind:saved rewind:record apply:removed apply:written rewind:index rewind:view"

test_rewind_killed_at_each_step_leaves_old_new_or_what_gc_completes() {
	# What: SIGKILL at every step of a rewind. Must: the task is at its old
	# state, or its new one, or, with the record left, no run starts and gc
	# brings it to the new one; git status on the host agrees each time.
	task
	seed
	local before after step rc
	before=$(host_view)
	busy_run
	after=$(host_view)
	for step in $STEPS; do
		rc=0
		# (run 1 the seed's, run 2 the busy one)
		AGENTTASK_TEST_KILL_AT=$step "$AT" -C repo rewind t1 2 >/dev/null 2>&1 || rc=$?
		assert_eq "$rc" 137 "rewind killed at $step"
		local now
		now=$(host_view)
		if [ "$now" != "$before" ] && [ "$now" != "$after" ]; then
			expect_rc 1 "no run on a half-rewound task ($step)" -C repo run t1 -- true
			assert_contains "$errout" "rewind" "says why ($step)"
		fi
		ok "gc after $step" -C repo gc
		now=$(host_view)
		[ "$now" = "$before" ] || [ "$now" = "$after" ] ||
			fail "after $step and gc: neither the old state nor the new"
		# Back to the state after the busy run for the next step.
		if [ "$now" = "$before" ]; then
			local last
			last=$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/checkpoints/t1 | sed 's,.*/,,' | sort -n | tail -1)
			ok "back after $step" -C repo rewind t1 "$last"
			# the last checkpoint is the state the killed rewind kept (the busy run's)
			now=$(host_view)
			[ "$now" = "$after" ] || fail "could not get back to the run's state after $step: $(diff <(echo "$after") <(echo "$now"))"
		fi
	done
	assert_fsck repo
}

# checkpoints_of: the commits of t1's checkpoints, "N id" a line, by number.
checkpoints_of() {
	git -C repo for-each-ref --format='%(refname) %(objectname)' refs/agenttask/checkpoints/t1 |
		sed 's,^refs/agenttask/checkpoints/t1/,,' | sort -n
}

# The refs a trash entry keeps whose entry is gone (none, when all is well).
orphan_kept() {
	local ref entry
	git -C repo for-each-ref --format='%(refname)' refs/agenttask/trash-kept | while read -r ref; do
		entry=$(printf '%s' "${ref#refs/agenttask/trash-kept/}" | cut -d/ -f1-2)
		git -C repo rev-parse -q --verify "refs/agenttask/trash/$entry" >/dev/null || echo "$ref"
	done
}

test_discard_then_restore_keeps_log_diff_and_rewind() {
	# What: a task with three runs (the seed, the busy one, then another) is discarded,
	# then restored. Must: the trash entry says it keeps 3 checkpoints, the
	# task's own refs are gone meanwhile; restored, the same checkpoint
	# commits are back, log and diff --run say what they said, and rewind 2
	# brings back byte for byte the state before the busy run (host and
	# inside agree); no kept ref is left once the entry is gone.
	task
	seed
	local before ids log1 diff1
	before=$(host_view)
	busy_run
	expect_rc 0 "run 3" -C repo run t1 -- sh -c 'echo two > second.txt'
	ids=$(checkpoints_of)
	assert_eq "$(printf '%s\n' "$ids" | wc -l)" 3 "three checkpoints"
	ok "diff --run 2" -C repo diff t1 --run 2 --name-only
	diff1=$out
	ok "log" -C repo log t1
	log1=$(printf '%s\n' "$out" | grep 'run [123]:')
	ok "discard" -C repo discard t1
	assert_empty "the task's own refs gone" git -C repo for-each-ref refs/agenttask/checkpoints
	ok "trash --json" -C repo trash t1 --json
	assert_eq "$(json_get "$out" 'j[0]["checkpoints"]')" 3 "the entry keeps three checkpoints"
	ok "trash" -C repo trash t1
	assert_contains "$out" "CHECKPOINTS" "the table shows them"
	ok "restore" -C repo restore t1
	assert_eq "$(checkpoints_of)" "$ids" "the same checkpoints back"
	assert_empty "nothing kept once the entry is gone" git -C repo for-each-ref refs/agenttask/trash-kept
	ok "diff --run 2 restored" -C repo diff t1 --run 2 --name-only
	assert_eq "$out" "$diff1" "diff --run 2 as before the discard"
	ok "log restored" -C repo log t1
	assert_eq "$(printf '%s\n' "$out" | grep 'run [123]:')" "$log1" "log as before the discard"
	ok "rewind 2" -C repo rewind t1 2
	assert_eq "$(host_view)" "$before" "rewound to before the busy run"
	assert_fsck repo
}

test_a_restored_tasks_git_sees_no_host_refs() {
	# What: t1 is discarded and restored, t2 discarded (its entry keeps
	# checkpoints under refs/agenttask/trash-kept/); t1's git lists every ref,
	# loose and packed. Must: no refs/agenttask/ ref inside, the host has them.
	task
	expect_rc 0 "run 1" -C repo run t1 -- true
	ok "new t2" -C repo new t2
	expect_rc 0 "t2 runs" -C repo run t2 -- true
	ok "discard t1" -C repo discard t1
	ok "restore t1" -C repo restore t1
	ok "discard t2" -C repo discard t2
	assert_contains "$(git -C repo for-each-ref refs/agenttask)" "refs/agenttask/trash-kept/t2/" "kept on the host"
	expect_rc 0 "git inside, loose" -C repo run t1 -- sh -c 'git for-each-ref; git show-ref'
	assert_not_contains "$out" "refs/agenttask" "none inside"
	git -C repo pack-refs --all
	expect_rc 0 "git inside, packed" -C repo run t1 -- sh -c 'git for-each-ref; git show-ref'
	assert_not_contains "$out" "refs/agenttask" "none inside, packed"
}

test_gc_of_a_trash_entry_removes_its_checkpoints() {
	# What: gc --trash-days 0 prunes the entry of a discarded task with
	# checkpoints and a comment. Must: no refs/agenttask ref is left.
	task
	expect_rc 0 "run 1" -C repo run t1 -- sh -c 'echo one > one.txt'
	expect_rc 0 "run 2" -C repo run t1 -- sh -c 'echo two > two.txt'
	ok "comment" -C repo comment t1 "a whole-change comment"
	ok "discard" -C repo discard t1
	assert_contains "$(git -C repo for-each-ref refs/agenttask/trash-kept)" "checkpoints/2" "kept"
	ok "gc" -C repo gc --trash-days 0
	assert_empty "nothing left" git -C repo for-each-ref refs/agenttask
}

# Kept: t1 there with its two checkpoints and comment, or its newest trash
# entry keeping them; either way (after gc) no kept ref without its entry.
kept_somewhere() {
	local step=$1
	[ "${2:-}" = before-gc ] || assert_empty "no kept ref without its entry ($step)" orphan_kept
	# (a half-made task, which gc removes, is refused by comments: the entry then)
	at -C repo comments t1
	if [ "$rc" = 0 ]; then
		assert_eq "$(checkpoints_of | wc -l)" 2 "the task keeps its checkpoints ($step)"
		assert_contains "$out" "keep me" "the task keeps its comment ($step)"
	else
		ok "trash ($step)" -C repo trash t1 --json
		assert_eq "$(json_get "$out" 'j[0]["checkpoints"]')" 2 "the entry keeps them ($step)"
	fi
}

test_discard_and_restore_killed_at_each_step_keep_the_checkpoints() {
	# What: SIGKILL at each step of a discard (the entry's refs kept, the
	# entry not yet; the task half-removed) and of a restore (what the entry
	# kept given back, the record not ready; ready, the entry not deleted;
	# the entry deleted, what it kept not yet). Must: after the kill, and
	# after gc, the task with its checkpoints and comment or the entry
	# keeping them; no kept ref whose entry is gone; restore then gives the
	# task its two checkpoints and comment.
	task
	expect_rc 0 "run 1" -C repo run t1 -- sh -c 'echo one > one.txt'
	expect_rc 0 "run 2" -C repo run t1 -- sh -c 'echo two > two.txt'
	ok "comment" -C repo comment t1 "keep me"
	local step rc
	for step in trash:kept remove:renamed restore:kept restore:ready trash:dropped; do
		rc=0
		case $step in
		restore:*|trash:dropped)
			ok "discard before $step" -C repo discard t1
			AGENTTASK_TEST_KILL_AT=$step "$AT" -C repo restore t1 >/dev/null 2>&1 || rc=$? ;;
		*)
			AGENTTASK_TEST_KILL_AT=$step "$AT" -C repo discard t1 >/dev/null 2>&1 || rc=$? ;;
		esac
		assert_eq "$rc" 137 "killed at $step"
		kept_somewhere "$step, killed" before-gc
		ok "gc after $step" -C repo gc
		kept_somewhere "$step"
		# Still there: discard it; then restore the newest entry for the next step.
		at -C repo list --name-only
		if printf '%s\n' "$out" | grep -qx t1; then
			ok "discard after $step" -C repo discard t1
		fi
		ok "restore after $step" -C repo restore t1
		kept_somewhere "$step, restored"
	done
	ok "log" -C repo diff t1 --run 2 --name-only
	assert_eq "$out" "two.txt" "diff --run 2 after it all"
	assert_fsck repo
}

run_tests
