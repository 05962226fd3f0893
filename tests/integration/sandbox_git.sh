#!/usr/bin/env bash
# git inside the sandbox (issue 10): the task's own git on an overlay of the
# repository, and the import of its commits. Run by sandbox_git_user.sh as
# an ordinary user too.
#
# The attacker is the command in the sandbox: it may write anything into
# its git view (objects, refs, config, hooks, packed-refs, links). The
# host repository must stay byte for byte as it was, but for the task's
# branch (moved only to a commit whose every new object was validated) and
# new objects; the host never runs anything the task wrote.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

require_user_namespaces

task() {
	make_repo repo
	ok "new t1" -C repo new t1
	WT=$out
	COMMON=$(realpath "$(git -C repo rev-parse --absolute-git-dir)")
}

# host_git ARGS...: git on the host with t1's git dir (its HEAD, index,
# refs), as the person's git in the worktree has them; no worktree needed,
# so on either form of the task.
host_git() {
	git --git-dir="$COMMON/worktrees/agenttask-t1" "$@"
}

# wt_file PATH: the bytes of t1's file at PATH (relative): the worktree's on
# the host, a layered task's (which has none there) as its sandbox shows it.
wt_file() {
	if layered_form; then
		expect_rc 0 "cat $1 inside" -C repo run t1 -- cat "$1"
		printf '%s\n' "$out"
	else
		cat "$WT/$1"
	fi
}

# wt_status: what git status says of t1's worktree: git on the host in it,
# or in the sandbox for a layered task (whose files are there alone).
wt_status() {
	if layered_form; then
		expect_rc 0 "git status inside" -C repo run t1 -- git status --porcelain
		printf '%s' "$out"
	else
		git -C "$WT" status --porcelain
	fi
}

inside() {
	expect_rc 0 "inside: $*" -C repo run t1 -- sh -c "$*"
}

tip() {
	git -C repo rev-parse "${1:-agenttask/t1}"
}

# The host's view of the worktree agrees with its HEAD: nothing staged.
host_consistent() {
	assert_empty "nothing staged on the host" host_git diff --cached --name-only
	assert_fsck repo
}

# A checksum of the common dir but for what an import may change: the task's
# branch (and its reflog), its worktree's index, agenttask's state, and new
# objects (those already there must stay as they were).
host_sum() {
	(
		cd "$COMMON"
		find . \( -path ./agenttask -o -path ./refs/heads/agenttask -o \
			-path ./logs/refs/heads/agenttask -o -path ./worktrees/agenttask-t1/index -o \
			-path ./refs/agenttask -o -path ./logs/refs/agenttask \) \
			-prune -o \( -type f -o -type l \) -print |
			grep -v '^\./objects/' | LC_ALL=C sort | xargs -d '\n' sha256sum
		if [ -f "$1" ]; then xargs -d '\n' sha256sum <"$1"; else
			find ./objects \( -type f -o -type l \) | LC_ALL=C sort | tee "$1" | xargs -d '\n' sha256sum
		fi
		find . -path ./agenttask -prune -o -printf '%p %y %m\n' | grep -v '^\./objects/..' |
			grep -v -e '^\./refs/heads/agenttask' -e '^\./logs/refs/heads/agenttask' \
				-e '^\./refs/agenttask' -e '^\./logs/refs/agenttask' |
			grep -v '^\./worktrees/agenttask-t1/index' | LC_ALL=C sort
	) | sha256sum
}

test_aider_loop_of_twenty_commits_then_accept() {
	# An agent that commits every edit: 20 runs, each an edit and a commit.
	task
	local i
	for i in $(seq 1 20); do
		inside "echo line $i >> notes.txt && git add notes.txt && git commit -qm 'edit $i'"
	done
	assert_eq "$(git -C repo rev-list --count main..agenttask/t1)" 20 "20 commits on the host"
	assert_eq "$(host_git log -1 --format=%s)" "edit 20" "host git log in the worktree"
	assert_empty "git status clean" wt_status
	host_consistent
	ok "diff" -C repo diff t1
	assert_contains "$out" "+line 20" "the diff holds the commits made inside"
	ok "accept" -C repo accept t1
	assert_eq "$(git -C repo log -1 --format=%s main~1 2>/dev/null || git -C repo log -1 --format=%s main)" \
		"$(git -C repo log -1 --format=%s main~1)" "merged"
	assert_eq "$(git -C repo show main:notes.txt | wc -l)" 20 "main has every edit"
	git -C repo log --format=%s main | grep -q '^edit 7$' || fail "history merged"
	assert_fsck repo
}

test_stash_and_pop_round_trip_across_runs() {
	task
	inside "echo wip >> README && git stash -q && ! grep -q wip README"
	inside "git stash list | grep -q WIP && git stash pop -q && grep -q wip README"
	assert_contains "$(wt_file README)" "wip" "popped"
	host_consistent
	assert_exit 1 "no stash on the host" git -C repo rev-parse -q --verify refs/stash
}

test_interactive_rebase_with_an_editor() {
	task
	inside "for i in 1 2 3; do echo \$i >> f; git add f; git commit -qm c\$i; done"
	inside "GIT_SEQUENCE_EDITOR='sed -i 2s/^pick/fixup/' git rebase -q -i HEAD~3 && git log --format=%s -3"
	assert_eq "$(git -C repo rev-list --count main..agenttask/t1)" 2 "c1 and c2 folded"
	assert_eq "$(git -C repo show agenttask/t1:f | tr '\n' ' ')" "1 2 3 " "the content kept"
	host_consistent
}

test_branches_tags_and_config_stay_private_to_the_task() {
	task
	inside "git config user.name Inside && git branch side && git tag v1 && git checkout -q -b feature && echo f > f && git add f && git commit -qm feat"
	# The host follows HEAD (on feature now); side, feature and v1 stay inside.
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "feat" "HEAD's commit imported"
	assert_exit 1 "no branch side on the host" git -C repo rev-parse -q --verify refs/heads/side
	assert_exit 1 "no tag on the host" git -C repo rev-parse -q --verify refs/tags/v1
	assert_eq "$(git -C repo config user.name)" "Repo User" "host config unchanged"
	inside "git rev-parse -q --verify side >/dev/null && git rev-parse -q --verify v1 >/dev/null && test \"\$(git config user.name)\" = Inside"
	host_consistent
}

test_task_hook_runs_inside_only() {
	# The task installs a pre-commit hook. It runs inside; agenttask commit,
	# accept and a user's git commit on the host (in the worktree `path`
	# gives the person) run nothing of it.
	task
	inside 'h=$(git rev-parse --git-common-dir)/hooks; mkdir -p "$h"; printf "#!/bin/sh\necho ran >> hook-ran\n" > "$h/pre-commit"; chmod +x "$h/pre-commit"; echo a >> README; git commit -qam a; test -s hook-ran'
	assert_eq "$(wt_file hook-ran | wc -l)" 1 "the hook ran inside"
	assert_no_file "$COMMON/hooks/pre-commit" "no hook on the host"
	inside "echo b >> README"
	ok "commit on the host" -C repo commit t1 -m b
	task_path t1
	git -C "$out" commit -q --allow-empty -m user
	ok "accept" -C repo accept t1
	assert_eq "$(git -C repo show main:hook-ran | wc -l)" 1 "no hook ran on the host"
	assert_fsck repo
}

test_host_commit_is_seen_by_the_next_run() {
	task
	inside "echo a >> README && git commit -qam inside1"
	inside "echo host >> README"
	ok "commit on the host" -C repo commit t1 -m host
	inside 'test "$(git log -1 --format=%s)" = host && git status --porcelain | grep -q . && exit 1; echo c >> README && git commit -qam inside2'
	assert_eq "$(git -C repo log --format=%s -3 agenttask/t1 | tr '\n' ' ')" "inside2 host inside1 " "one history"
	host_consistent
}

test_two_tasks_commit_in_parallel() {
	task
	ok "new t2" -C repo new t2
	local t
	for t in t1 t2; do
		"$AT" -C repo run $t -- sh -c "for i in 1 2 3 4 5; do echo \$i >> $t.txt; git add $t.txt; git commit -qm $t-\$i; done" >/dev/null 2>&1 &
	done
	wait
	assert_eq "$(git -C repo rev-list --count main..agenttask/t1)" 5 "t1's commits"
	assert_eq "$(git -C repo rev-list --count main..agenttask/t2)" 5 "t2's commits"
	assert_fsck repo
}

test_hostile_script_leaves_the_host_byte_for_byte() {
	# The attacker rewrites everything git lets it: main, the config (hooks,
	# fsmonitor), hooks, gc --prune=now, objects/pack deleted, packed-refs
	# rewritten, links inside .git, a huge object. Must: the common dir is as
	# it was (but for the task's branch, which does not move here, the host's
	# checkpoints of the task under refs/agenttask/, and new objects), and git
	# fsck is clean.
	task
	git -C repo pack-refs --all
	git -C repo gc -q
	git -C repo config agenttask.maxFileSize 1M
	local before list=$PWD/objects.list main
	main=$(git -C repo rev-parse main)
	before=$(host_sum "$list")
	inside 'c=$(git rev-parse --git-common-dir)
		git update-ref refs/heads/main HEAD~1
		git config core.hooksPath /tmp/evil; git config core.fsmonitor "touch /tmp/pwned"
		printf "#!/bin/sh\ntouch /tmp/pwned\n" > "$c/hooks/post-checkout"; chmod +x "$c/hooks/post-checkout"
		git gc -q --prune=now
		rm -rf "$c/objects/pack"
		echo garbage > "$c/packed-refs"
		ln -s /etc/passwd "$c/evil-link"; ln -s /etc "$c/objects/evil"
		head -c 3000000 /dev/urandom | git hash-object -w --stdin >/dev/null
		true'
	assert_eq "$(host_sum "$list")" "$before" "the common dir byte for byte"
	assert_fsck repo
	assert_eq "$(git -C repo rev-parse main)" "$main" "main where it was"
	# The script did its work, inside: main moved there, the config is the task's.
	inside 'test "$(git rev-parse main)" != '"$main"' && test "$(git config core.hooksPath)" = /tmp/evil && test -L "$(git rev-parse --git-common-dir)/evil-link"'
	assert_no_file "$COMMON/evil-link" "no link on the host"
}

test_import_reads_the_tasks_packs() {
	# After a repack inside, the commits are only in a pack of the task's.
	# Every fan-out directory exists on the host, so that the ones git
	# empties inside become whiteouts in the task's layer (not a directory
	# where the import looks for a loose object: that is "absent").
	task
	local i
	for i in $(seq 0 255); do mkdir -p "$COMMON/objects/$(printf %02x "$i")"; done
	# (prune: the host's checkpoint objects, whose refs the view hides, are loose and unreachable there)
	inside "echo a > a.txt && git add a.txt && git commit -qm packed && git repack -q -a -d && git prune --expire=now && test -z \"\$(find \$(git rev-parse --git-common-dir)/objects -path '*/objects/??/*' -type f)\""
	assert_not_contains "$errout" "not imported" "no warning"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "packed" "imported from the pack"
	host_consistent
}

test_corrupt_object_is_refused() {
	# The attacker overwrites its commit's loose object with garbage.
	task
	local old
	old=$(tip)
	at -C repo run t1 -- sh -c 'echo a >> README && git commit -qam bad && o=$(git rev-parse HEAD) && f=$(git rev-parse --git-common-dir)/objects/$(echo $o | cut -c1-2)/$(echo $o | cut -c3-) && chmod u+w $f && echo garbage > $f'
	assert_contains "$errout" "not imported" "one line says why"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	assert_fsck repo
	expect_rc 0 "status still works" -C repo status t1
	assert_contains "$errout" "not imported" "status says it too"
}

test_object_swapped_for_another_is_refused() {
	# Another valid commit's bytes under the new commit's id: only the hash
	# check catches it.
	task
	local old
	old=$(tip)
	at -C repo run t1 -- sh -c 'echo b >> README && git commit -qam one && a=$(git rev-parse HEAD) && echo c >> README && git commit -qam two && b=$(git rev-parse HEAD) && d=$(git rev-parse --git-common-dir)/objects && chmod u+w $d/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-) && cp $d/$(echo $a | cut -c1-2)/$(echo $a | cut -c3-) $d/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-)'
	assert_contains "$errout" "does not match its id" "the hash checked"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	assert_fsck repo
}

test_commit_pointing_at_a_missing_tree_is_refused() {
	task
	local old
	old=$(tip)
	at -C repo run t1 -- sh -c 'c=$(printf "tree 0123456789abcdef0123456789abcdef01234567\nparent %s\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nmissing tree\n" $(git rev-parse HEAD) | git hash-object -t commit -w --stdin) && git update-ref HEAD $c'
	assert_contains "$errout" "nowhere" "the missing object named"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	assert_fsck repo
}

test_over_large_object_is_refused() {
	task
	git -C repo config agenttask.maxFileSize 1M
	local old
	old=$(tip)
	at -C repo run t1 -- sh -c 'head -c 2000000 /dev/urandom > big && git add big && git commit -qm big'
	assert_contains "$errout" "over the size limit" "one line says why"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	assert_fsck repo
}

# kill_import_at STEP: in a repository of its own, a run whose commit of
# many objects is imported, killed at STEP of the import.
kill_import_at() {
	local old rc=0
	task
	old=$(tip)
	AGENTTASK_TEST_KILL_AT=$1 "$AT" -C repo run t1 -- sh -c 'mkdir many && for i in $(seq 1 3000); do echo $i > many/$i; done && git add many && git commit -qm many' >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 137 "killed at $1"
	assert_fsck repo
	assert_eq "$(tip)" "$old" "the branch has not moved (killed at $1)"
	ok "status finishes the import" -C repo status t1
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "many" "imported after a kill at $1"
	host_consistent
}

test_kill_during_import_leaves_a_consistent_host() {
	# Kill -9 agenttask at each step of the import of many objects (the
	# quarantine open; every object written, the branch not moved): the
	# branch is where it was, fsck is clean, and the next command finishes
	# the import.
	local step
	for step in import:quarantine import:objects; do
		mkdir "at-${step#import:}"
		(cd "at-${step#import:}" && kill_import_at "$step")
	done
}

test_discard_and_restore_keep_the_commits_made_inside() {
	task
	inside "echo a >> README && git commit -qam kept"
	ok "discard" -C repo discard t1
	ok "restore" -C repo restore t1
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "kept" "restored with its commit"
	assert_fsck repo
}

test_import_is_logged() {
	task
	inside "echo a >> README && git commit -qam logged"
	ok "log" -C repo log t1 --json
	assert_contains "$out" '"import"' "an import event"
	assert_contains "$out" "$(tip)" "with the new tip"
}

test_everyday_git_operations_work_inside() {
	# amend, switch, cherry-pick, merge, reset, restore, tag, gc, blame, log:
	# each as in a clone, then the host follows HEAD.
	task
	inside 'set -e
		echo 1 > a; git add a; git commit -qm one; git commit -q --amend -m one-amended
		git switch -q -c side; echo 2 > b; git add b; git commit -qm two
		git switch -q agenttask/t1; git cherry-pick side >/dev/null
		git switch -q -c other HEAD~1; echo 3 > c; git add c; git commit -qm three
		git switch -q agenttask/t1; git merge -q --no-edit other
		echo junk >> a; git restore a; echo junk > d; git add d; git reset -q d; rm d
		git tag -a -m release v1; git gc -q; git blame a >/dev/null; git log --oneline >/dev/null
		git reset -q --soft HEAD~0; git status --porcelain | grep -q . && exit 1; true'
	assert_not_contains "$errout" "not imported" "imported"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "Merge branch 'other' into agenttask/t1" "the merge imported"
	# After the gc inside, the history is in the task's pack: one more commit on top.
	inside "echo after > e && git add e && git commit -qm after-gc"
	assert_not_contains "$errout" "not imported" "imported after gc"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "after-gc" "the branch followed"
	git -C repo log --format=%s agenttask/t1 | grep -q '^one-amended$' || fail "the amended commit"
	assert_eq "$(git -C repo show agenttask/t1:b)" 2 "the cherry-pick"
	host_consistent
}

test_fetch_from_a_repository_bound_read_only() {
	# git fetch writes objects and refs: into the task's layer, then imported.
	task
	git clone -q --bare repo other.git
	git -C other.git config user.name x
	local src
	src=$(mktemp -d "$PWD/src.XXXXXX")
	git clone -q other.git "$src" && git -C "$src" commit -q --allow-empty -m upstream && git -C "$src" push -q origin HEAD:main
	expect_rc 0 "fetch" -C repo run t1 --ro "$PWD/other.git" -- sh -c "git fetch -q '$PWD/other.git' main && git merge -q --ff-only FETCH_HEAD"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "upstream" "fetched and imported"
	host_consistent
}

test_overlay_refused_falls_back_to_read_only_git() {
	# overlayfs refuses the view (here: the work dir on another file system,
	# as root can arrange). Must: the command still runs, once, with git
	# read-only, and says so; nothing changes on the host.
	[ "$(id -u)" = 0 ] || skip "only root can mount a tmpfs over the view's work directory"
	task
	inside "true"
	mount -t tmpfs none "$COMMON/agenttask/git/t1/work" || skip "cannot mount a tmpfs here"
	at -C repo run t1 -- sh -c 'echo ran >> ran.txt; git status --short >/dev/null; git commit -qm x --allow-empty'
	umount "$COMMON/agenttask/git/t1/work"
	assert_contains "$errout" "git is read-only in this run" "said once"
	assert_eq "$(wt_file ran.txt | wc -l)" 1 "the command ran once"
	[ "$rc" != 0 ] || fail "a commit succeeded with read-only git"
	assert_fsck repo
}

test_a_second_concurrent_run_of_the_task_sees_git_read_only() {
	# One view per task at a time: two overlays on one upper would corrupt
	# it. The second run goes on, with the repository read-only, and says so.
	task
	# The first run holds the view until the second has ended: it waits for
	# a file, in a directory of the test's that it is shown.
	local sig=$PWD/sig
	mkdir "$sig"
	"$AT" -C repo run t1 --rw "$sig" -- sh -c 'touch "$1/started"; while [ ! -e "$1/go" ]; do sleep 0.05; done; echo a >> README; git commit -qam first' sh "$sig" >/dev/null 2>&1 &
	local pid=$!
	wait_until 30 test -e "$sig/started" || fail "the first run did not start"
	at -C repo run t1 -- sh -c 'git commit -q --allow-empty -m second'
	touch "$sig/go"
	assert_contains "$errout" "another run of 't1' has its git" "said"
	[ "$rc" != 0 ] || fail "the second run committed"
	wait $pid
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "first" "the first run's commit imported"
	host_consistent
}

test_tree_with_a_dotgit_entry_is_refused() {
	# The attacker commits a tree holding ".GIT/config" (git add refuses it,
	# but objects can be written by hand): checked out on the host, it would
	# write into the repository's metadata. Must: refused by the import.
	task
	local old
	old=$(tip)
	at -C repo run t1 -- sh -c 'b=$(echo "[core] hooksPath = /tmp/x" | git hash-object -w --stdin) && s=$(printf "100644 blob %s\tconfig\n" $b | git mktree) && t=$(printf "040000 tree %s\t.GIT\n" $s | git mktree --missing) && c=$(git commit-tree -p HEAD -m evil $t) && git update-ref HEAD $c'
	assert_contains "$errout" "invalid entry" "refused, with the tree named"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	assert_fsck repo
}

test_no_config_of_the_repository_is_readable_inside() {
	# What: the command reads the files git reads as configuration, other
	# than the main config (sanitized): a submodule's modules/*/config,
	# another worktree's config.worktree, a file the config includes, and
	# FETCH_HEAD: remote URLs with tokens in each. Must: none of them shows
	# inside, with the task's git view and without one; git still works.
	task
	local tok=ghp_SECRETTOKEN123 f
	mkdir -p "$COMMON/modules/lib"
	printf '[remote "origin"]\n\turl = https://x:%s@example.com/lib\n' "$tok" >"$COMMON/modules/lib/config"
	git -C repo config extensions.worktreeConfig true
	git -C repo worktree add -q ../other
	git -C other config --worktree remote.origin.url "https://x:$tok@example.com/o"
	printf '[http]\n\textraHeader = Authorization: %s\n' "$tok" >"$COMMON/creds.inc"
	git -C repo config include.path creds.inc
	git -C repo config 'includeIf.onbranch:main.path' "$COMMON/creds.inc"
	printf '%s\t\tbranch main of https://x:%s@example.com/r\n' "$(tip main)" "$tok" >"$COMMON/FETCH_HEAD"
	for f in "$COMMON/modules/lib/config" "$COMMON/worktrees/other/config.worktree" \
		"$COMMON/creds.inc" "$COMMON/FETCH_HEAD"; do
		grep -q "$tok" "$f" || fail "the setup: no token in $f"
	done
	inside "! grep -r -q '$tok' '$COMMON' && git status -s >/dev/null && git log -1 >/dev/null"
}

test_no_legacy_remote_or_nested_include_is_readable_inside() {
	# What: the command reads what the first round left shown: git's legacy
	# remote files ($GIT_DIR/remotes/NAME, $GIT_DIR/branches/NAME: a URL
	# each, read by fetch and push as configuration), and a file that an
	# included file includes in turn, from a directory of its own (relative
	# to the including file, as git reads it). Tokens in each. Must: none of
	# them shows inside; git still works.
	task
	local tok=ghp_SECRETTOKEN456 f
	mkdir -p "$COMMON/remotes" "$COMMON/branches" "$COMMON/inc/deeper"
	printf 'URL: https://x:%s@example.com/r\nPull: refs/heads/main:refs/heads/origin\n' "$tok" \
		>"$COMMON/remotes/legacy"
	printf 'https://x:%s@example.com/r#main\n' "$tok" >"$COMMON/branches/old"
	printf '[include]\n\tpath = deeper/more.inc\n' >"$COMMON/inc/first.inc"
	printf '[http]\n\textraHeader = Authorization: %s\n' "$tok" >"$COMMON/inc/deeper/more.inc"
	git -C repo config include.path inc/first.inc
	[ "$(git -C repo config http.extraHeader)" = "Authorization: $tok" ] ||
		fail "the setup: git does not read the nested include"
	for f in "$COMMON/remotes/legacy" "$COMMON/branches/old" "$COMMON/inc/deeper/more.inc"; do
		grep -q "$tok" "$f" || fail "the setup: no token in $f"
	done
	inside "! grep -r -q '$tok' '$COMMON' && git status -s >/dev/null && git log -1 >/dev/null"
}

# The task's commit in a pack of its own (so that the import indexes the
# task's packs), and the bomb pack $1 next to it, copied from the host.
bomb_inside() {
	local dir
	dir=$(mktemp -d "$PWD/bomb.XXXXXX")
	cp "$1" "$dir/pack-bomb.pack"
	at -C repo run t1 --ro "$dir" -- sh -c '
		echo a >> README && git commit -qam packed && git repack -q -d &&
		cp '"$dir"'/pack-bomb.pack "$(git rev-parse --git-common-dir)/objects/pack/"'
}

test_a_delta_bomb_is_refused_before_it_is_indexed() {
	# What: a pack of a few kilobytes in the task's layer whose deltas
	# declare far more than they hold (one-byte "copy 64 KiB" ops): the
	# host-side import's indexer allocated and copied what each declared,
	# outside the run's limits, before the object size limit applied. Must:
	# the pack is refused, unread by the indexer, with one line: a delta
	# whose result is over agenttask.maxFileSize; a chain whose work (each
	# delta with its base's) is over the bound; the branch unchanged.
	command -v python3 >/dev/null || { echo "skip: no python3"; return 77; }
	local h=$HERE/delta_bomb.py old
	task
	git -C repo config agenttask.maxFileSize 1M
	old=$(tip)
	python3 "$h" one 1 $((64 << 20)) >one.pack
	bomb_inside one.pack
	assert_contains "$errout" "declaring 67108864 bytes" "one delta over the limit: refused"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	at -C repo run t1 -- sh -c 'rm "$(git rev-parse --git-common-dir)"/objects/pack/pack-bomb.pack'
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "packed" "without the bomb: imported"
	old=$(tip)
	python3 "$h" chain 200 $((1 << 20)) >chain.pack
	bomb_inside chain.pack
	assert_contains "$errout" "bytes of work to index" "a chain over the bound: refused"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	assert_fsck repo
}

# A commit with the file d/d/.../d/f, $1 directories deep, made inside by
# git fast-import (no such directories in the worktree), HEAD moved to it.
deep_commit_inside() {
	at -C repo run t1 -- sh -c '
		p=$(printf "d/%.0s" $(seq '"$1"'))f
		printf "commit refs/heads/deep\ncommitter A <a@b> 1 +0000\ndata 4\ndeep\nfrom %s\nM 100644 inline %s\ndata 2\nx\n\n" \
			"$(git rev-parse HEAD)" "$p" | git fast-import --quiet &&
		git update-ref HEAD refs/heads/deep'
}

test_a_tree_deeper_than_git_allows_is_refused_by_the_import() {
	# What: the agent commits a tree nested deeper than git's own limit
	# (max_allowed_tree_depth, 2048 on Linux); imported, git on the host
	# crashed or refused to work in the worktree, and diff failed. Must: the
	# import refuses it with one line, the branch unchanged; a tree at the
	# limit is imported.
	task
	local old
	old=$(tip)
	deep_commit_inside 2049
	assert_contains "$errout" "more than 2048 deep" "refused, saying why"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	# A commit on top of the refused one holds it, and is refused with it:
	# the task's git set back to the host's first.
	ok "repair" -C repo repair t1
	deep_commit_inside 2048
	assert_not_contains "$errout" "not imported" "at the limit: imported"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "deep" "the commit at the limit imported"
	assert_fsck repo
}

test_a_deep_tree_stacked_on_an_imported_one_is_refused() {
	# What: the agent gets past the depth bound in two imports: a tree 2000
	# deep (under the bound) is imported, then a commit whose new trees,
	# 2000 deep again, hold that one at their bottom: the import counted a
	# tree the repository already has as 0 deep, so the second passed, and
	# the host held a tree 4000 deep (repeated, as deep as the agent likes).
	# Must: the second import refused, the branch where the first left it.
	task
	local first
	deep_commit_inside 2000
	first=$(tip)
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "deep" "the first, under the bound, imported"
	at -C repo run t1 -- sh -c '
		d=$(git rev-parse HEAD:d)
		p=$(printf "e/%.0s" $(seq 2000))x
		printf "commit refs/heads/deep\ncommitter A <a@b> 1 +0000\ndata 7\nstacked\nfrom %s\nM 040000 %s %s\n\n" \
			"$(git rev-parse HEAD)" "$d" "$p" | git fast-import --quiet &&
		git update-ref HEAD refs/heads/deep'
	assert_contains "$errout" "more than 2048 deep" "refused, saying why"
	assert_eq "$(tip)" "$first" "the branch where the first import left it"
}

test_overlay_scratch_is_removed_by_the_next_run_even_after_a_kill() {
	# overlayfs makes its scratch (a "work" dir in the work dir, with
	# volatile's marker, which makes it refuse a later mount) at each
	# mount, and leaves it. The view has two work dirs: the next run mounts
	# the one without a scratch and removes the other's meanwhile. Killed
	# runs may leave a scratch in both: the next mount must still work (git
	# writable inside), and the leftovers go, so that one scratch at most
	# is ever kept, the last run's.
	task
	local view="$COMMON/agenttask/git/t1"
	scratches() { find "$view" -mindepth 2 -maxdepth 2 -path "$view/work*/work" | sort; }
	inside "git commit -q --allow-empty -m one"
	assert_eq "$(scratches)" "$view/work/work" "the first run's scratch, in work"
	inside "git commit -q --allow-empty -m two"
	assert_eq "$(scratches)" "$view/work.1/work" "the second run mounted work.1 and removed work's"
	# As killed runs would leave them: a scratch and its marker in both,
	# its directories of mode 0 as overlayfs makes them (only root gets
	# into them as they are).
	local w
	for w in work work.1; do
		[ ! -d "$view/$w/work" ] || chmod -R u+rwx "$view/$w/work"
		mkdir -p "$view/$w/work/incompat/volatile" "$view/$w/work/work"
		touch "$view/$w/work/incompat/volatile/dirty"
		chmod 000 "$view/$w/work/incompat/volatile" "$view/$w/work/incompat" "$view/$w/work"
	done
	inside "git commit -q --allow-empty -m three"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "three" "committed and imported"
	assert_eq "$(scratches | wc -l)" 1 "one scratch left, this run's"
	assert_empty "nothing but the scratch in the work dirs" \
		find "$view/work" "$view/work.1" -mindepth 1 -maxdepth 1 ! -name work
	inside "git commit -q --allow-empty -m four"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "four" "and again"
	assert_eq "$(scratches | wc -l)" 1 "still one"
	host_consistent
}

test_submodule_update_inside_stays_in_the_task() {
	# The base has a submodule; git submodule update clones it into the
	# worktree's git dir's modules/ (worktrees/NAME/modules): inside, that
	# is the task's layer. Must: the submodule is checked out in the
	# worktree, the task's commit keeps its gitlink as the base has it, and
	# the worktree's git dir on the host gains no modules/ (nothing but the
	# import reaches it).
	make_repo repo
	local sub lib
	sub=$(mktemp -d "$PWD/sub.XXXXXX")
	git init -q -b main "$sub"
	echo lib >"$sub/lib.txt"
	git -C "$sub" add lib.txt
	git -C "$sub" -c user.name=s -c user.email=s@s commit -q -m lib
	git -C repo -c protocol.file.allow=always submodule add -q "$sub" vendor/lib
	git -C repo commit -q -m "add lib"
	lib=$(git -C repo rev-parse HEAD:vendor/lib)
	ok "new t1" -C repo new t1
	WT=$out
	COMMON=$(realpath "$(git -C repo rev-parse --absolute-git-dir)")
	expect_rc 0 "submodule update" -C repo run t1 --ro "$sub" -- sh -c "
		git -c protocol.file.allow=always submodule update -q --init &&
		test -f vendor/lib/lib.txt && test -d \"\$(git rev-parse --git-dir)/modules/vendor/lib\" &&
		echo more >> README && git commit -qam more"
	assert_not_contains "$errout" "not imported" "imported"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "more" "the commit imported"
	assert_eq "$(git -C repo rev-parse agenttask/t1:vendor/lib)" "$lib" "the gitlink as the base has it"
	[ ! -e "$COMMON/worktrees/agenttask-t1/modules" ] ||
		fail "the submodule's clone reached the host's git dir"
	assert_eq "$(wt_file vendor/lib/lib.txt)" lib "the submodule's file"
	# The .git file git wrote in the submodule's directory is git's own: read
	# as such, not refused as an embedded repository.
	ok "diff" -C repo diff t1 --name-only
	assert_eq "$out" README "the change"
	assert_fsck repo
}

test_a_gitlink_committed_inside_is_refused_by_the_import() {
	# What: the agent makes a repository in the worktree, commits it as a
	# gitlink (git add, or a submodule's commit moved), then gives that
	# repository a core.fsmonitor. Imported, the gitlink entered the host's
	# index, and the user's next plain `git status` in the worktree ran the
	# fsmonitor as the user. Must: the import refuses the commit, naming the
	# path; the branch and the host's index unchanged; git status runs nothing.
	task
	local old marker=$PWD/PWNED
	old=$(tip)
	at -C repo run t1 -- sh -c '
		git init -q inner && echo x > inner/x && git -C inner add x &&
		git -C inner -c user.name=a -c user.email=a@a commit -qm x &&
		git add inner 2>/dev/null && git commit -qm "a gitlink" &&
		git -C inner config core.fsmonitor "touch '"$marker"'"'
	assert_contains "$errout" "records a repository at 'inner'" "refused, the path named"
	assert_eq "$(tip)" "$old" "the branch unchanged"
	assert_eq "$(host_git ls-files -s inner)" "" "no gitlink in the host's index"
	task_path t1
	git -C "$out" status >/dev/null 2>&1 || true
	assert_no_file "$marker" "the agent's fsmonitor ran on the host"
	expect_rc 0 "status" -C repo status t1
	assert_contains "$errout" "records a repository at 'inner'" "status says why"
	assert_fsck repo
}

# break_with_a_gitlink: in task(), a run commits a gitlink and a change to
# README, makes a tag and a branch, then removes the nested repository: the
# import refuses that commit, and every later run and status says so.
# BROKEN is the refused commit.
break_with_a_gitlink() {
	task
	at -C repo run t1 -- sh -c '
		git init -q inner && echo x > inner/x && git -C inner add x &&
		git -C inner -c user.name=a -c user.email=a@a commit -qm x &&
		echo more >> README && git add README && git add inner 2>/dev/null &&
		git commit -qm "a gitlink" && git tag inside-tag && git branch inside-branch &&
		rm -rf inner && git rev-parse HEAD'
	assert_contains "$errout" "records a repository at 'inner'" "the import refused it"
	BROKEN=$out
	[ "$(tip)" != "$BROKEN" ] || fail "the gitlink commit was imported"
}

# What git says of the task: inside a run (in $out) or in the worktree on the
# host, as the person opens it (`path`: a layered task is made full then).
# The refs are all but agenttask's own (checkpoints, the trash), which the
# host has and the view never shows.
GIT_STATE='git rev-parse HEAD && git symbolic-ref HEAD && git log --format=%H && git status --porcelain && git for-each-ref --format="%(refname)" | grep -v ^refs/agenttask/'
state_inside() {
	expect_rc 0 "git's state inside" -C repo run t1 -- sh -c "$GIT_STATE"
}
state_on_host() {
	task_path t1
	(cd "$out" && sh -c "$GIT_STATE")
}

test_a_task_stuck_on_a_refused_commit_is_repaired_from_the_host() {
	# What: a task whose commit inside the import refuses (a gitlink) is
	# stuck: every later run and status warns, and no later commit inside
	# can come in, its history holding the refused one. Must: status names
	# the way out, `agenttask repair`; after it, git inside agrees with the
	# host (HEAD, branch, log, status, refs: the tag and branch made inside
	# gone), the work itself still in the worktree, uncommitted, the refused
	# commit printed, logged and kept aside with its objects; the next
	# commit inside is imported.
	break_with_a_gitlink
	local host_tip
	host_tip=$(tip)
	expect_rc 0 "status" -C repo status t1
	assert_contains "$errout" "'agenttask repair t1'" "status names the repair"
	ok "repair" -C repo repair t1
	assert_contains "$out" "dropped: HEAD inside at $BROKEN" "the dropped commit printed"
	local kept
	kept=$(sed -n 's/^kept: \(.*\) (the old layer.*/\1/p' <<<"$out")
	[ -n "$kept" ] || fail "where it is kept is not said: $out"
	assert_file "$kept/objects/${BROKEN:0:2}/${BROKEN:2}" "the dropped commit kept"
	assert_eq "$(tip)" "$host_tip" "the branch on the host unchanged"
	state_inside
	assert_not_contains "$errout" "not imported" "no warning any more"
	assert_eq "$out" "$(state_on_host)" "git inside agrees with the host"
	assert_contains "$out" " M README" "the work is still there, uncommitted"
	assert_not_contains "$out" "inside-tag" "the tag made inside is gone"
	ok "status" -C repo status t1
	assert_not_contains "$errout" "not imported" "status: no warning"
	ok "log" -C repo log t1 --json
	assert_eq "$(json_get "$out" '[e["dropped"] for e in j if e["event"] == "repair"]')" \
		"['$BROKEN']" "the repair logged"
	inside "git commit -qam 'the work, again'"
	assert_not_contains "$errout" "not imported" "the next commit imported"
	assert_eq "$(git -C repo log -1 --format='%s %P' agenttask/t1)" "the work, again $host_tip" \
		"on the host's branch"
	host_consistent
}

test_a_corrupt_head_inside_is_repaired_from_the_host() {
	# What: the agent writes garbage over its HEAD and makes a ref that
	# names nothing: git inside is dead, and no import can read it. Must:
	# status names the repair; after it, git works inside and agrees with
	# the host, no warning.
	task
	inside 'd=$(git rev-parse --git-dir) c=$(git rev-parse --git-common-dir) && git update-ref refs/heads/nowhere HEAD && echo 0123 > "$c/refs/heads/nowhere" && echo garbage > "$d/HEAD"'
	expect_rc 0 "status" -C repo status t1
	assert_contains "$errout" "HEAD is malformed" "the import says why"
	assert_contains "$errout" "'agenttask repair t1'" "and names the repair"
	ok "repair" -C repo repair t1
	assert_contains "$out" "not imported (the task's HEAD is malformed)" "what was dropped, and why"
	state_inside
	assert_not_contains "$errout" "not imported" "no warning any more"
	assert_eq "$out" "$(state_on_host)" "git inside agrees with the host"
	host_consistent
}

test_repair_is_refused_while_a_run_is_live_and_force_stops_it() {
	# What: repair while a run of the task has the view mounted, where
	# setting the layer aside would pull it from under the run's git.
	# Must: refuse as discard does, one line naming the run, the layer
	# untouched; with --force, stop the run first, then repair.
	break_with_a_gitlink
	local s=sleep_repair_$$ view="$COMMON/agenttask/git/t1" pid
	"$AT" -C repo run t1 -- sh -c "ln -s /usr/bin/sleep /tmp/$s; exec /tmp/$s 1000" \
		>/dev/null 2>&1 &
	pid=$!
	wait_until 10 pgrep -f "^/tmp/$s 1000" || fail "the command did not start"
	expect_rc 1 "repair during a run" -C repo repair t1
	assert_eq "$errout" "agenttask: task 't1' has a running command (pid $pid); stop it or use --force" "the refusal"
	[ -d "$view/upper" ] && [ ! -e "$view/dropped" ] || fail "the refusal changed the view"
	pgrep -f "^/tmp/$s 1000" >/dev/null || fail "the refusal stopped the command"
	ok "repair --force" -C repo repair --force t1
	! pgrep -f "^/tmp/$s 1000" >/dev/null || fail "the command outlived repair --force"
	local st=0
	wait "$pid" || st=$?
	assert_eq "$st" 137 "the run was killed"
	assert_contains "$out" "dropped: HEAD inside at $BROKEN" "then repaired"
	state_inside
	assert_eq "$out" "$(state_on_host)" "git inside agrees with the host"
}

test_repair_killed_midway_leaves_the_old_or_the_new_state() {
	# What: repair killed -9 at each of its steps (the import tried; the
	# layer renamed aside, nothing recorded yet). Must: the old state (still
	# stuck, repair again works) or the new one (git inside the host's, no
	# warning); never a view that is neither.
	break_with_a_gitlink
	local rc=0
	AGENTTASK_TEST_KILL_AT=repair:import "$AT" -C repo repair t1 >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 137 "killed after the import"
	expect_rc 0 "git inside" -C repo run t1 -- git rev-parse HEAD
	assert_eq "$out" "$BROKEN" "the old state: HEAD inside as it was"
	assert_contains "$errout" "'agenttask repair t1'" "still stuck, and said so"
	rc=0
	AGENTTASK_TEST_KILL_AT=repair:aside "$AT" -C repo repair t1 >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 137 "killed after the rename"
	state_inside
	assert_not_contains "$errout" "not imported" "the new state: no warning"
	assert_eq "$out" "$(state_on_host)" "the new state: git inside agrees with the host"
	ok "repair again" -C repo repair t1
	assert_not_contains "$out" "dropped:" "nothing more to drop"
	ls "$COMMON/agenttask/git/t1/dropped"/*/objects/"${BROKEN:0:2}/${BROKEN:2}" >/dev/null ||
		fail "the stuck layer was not kept"
	ok "gc" -C repo gc
	host_consistent
}

run_tests
