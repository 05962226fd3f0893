#!/usr/bin/env bash
# Part of a change: accept -- PATHSPEC (and --exclude, --drop-rest), drop --
# PATHSPEC and restore of what a drop took. git is the oracle: the accepted
# tree is what `git apply --cached` of the selected files' diff makes of the
# merge base. partial_user.sh runs this suite again as uid 65534.
. "$(dirname "$0")/lib.sh"
AT_SUITE=$(cd "$(dirname "$0")" && pwd)/partial.sh

# new_task REPO NAME: create a task (of either form: its files are changed
# by its agent, agent_sh, and its full state read by state_tree, lib.sh).
new_task() {
	ok "new $2" -C "$1" new "$2"
}

# three_files: ./repo with a, b, c on main; task t's agent changes all three (a in a commit).
three_files() {
	make_repo repo
	printf 'a\n' >repo/a
	printf 'b1\nb2\nb3\nb4\nb5\nb6\nb7\nb8\nb9\nb10\n' >repo/b
	printf 'c\n' >repo/c
	git -C repo add -A
	git -C repo commit -q -m "three files"
	new_task repo t
	agent_sh t 'printf "a changed\n" >a && git add a && git commit -q -m "a in a commit" &&
		sed -i "s/b2/B2/; s/b9/B9/" b && printf "c changed\n" >>c'
}

# expected_part REPO BASE STATE PATH...: git's answer: BASE's tree with the
# changes of PATH... (git diff BASE STATE, renames found) applied by git apply --cached.
expected_part() {
	local repo=$1 base=$2 state=$3 idx
	shift 3
	idx=$(mktemp -u)
	GIT_INDEX_FILE=$idx git -C "$repo" read-tree "$base"
	git -C "$repo" diff --binary -M "$base" "$state" -- "$@" |
		GIT_INDEX_FILE=$idx git -C "$repo" apply --cached
	GIT_INDEX_FILE=$idx git -C "$repo" write-tree
	rm -f "$idx"
}

# What: the person accepts one file of the three the task changed. Must: the
# base gets exactly that file's change (git apply --cached of its diff on
# the merge base), the task is kept, its diff shows exactly the other two,
# still as they were in the worktree, and --json names both lists.
test_accept_one_file_of_three() {
	three_files
	local base state want
	base=$(git -C repo rev-parse main)
	state=$(state_tree t)
	want=$(expected_part repo "$base" "$state" b)
	ok "accept -- b" -C repo accept t --json -- b
	assert_eq "$(json_get "$out" 'j["partial"]')" "True" "partial"
	assert_eq "$(json_get "$out" '",".join(j["accepted_paths"])')" "b" "accepted"
	assert_eq "$(json_get "$out" '",".join(j["left_paths"])')" "a,c" "left"
	assert_eq "$(json_get "$out" 'j["kept"]')" "True" "kept"
	assert_eq "$(json_get "$out" 'j["part_tree"]')" "$want" "the part's tree"
	assert_eq "$(git -C repo rev-parse 'main^{tree}')" "$want" "main has exactly b's change"
	assert_eq "$(state_tree t)" "$state" "the task's files untouched"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$(echo $out)" "a c" "the diff shows exactly the rest"
	assert_eq "$(git -C repo diff --name-only main "$state" | tr '\n' ' ')" "a c " "git agrees"
	# The rest accepted whole afterwards lands the full state.
	ok "accept the rest" -C repo accept t
	assert_eq "$(git -C repo rev-parse 'main^{tree}')" "$state" "all of it landed"
	assert_fsck repo
}

# What: --exclude leaves one file out of the whole change, and of a pathspec.
# Must: the base gets the others; the excluded change stays in the task.
test_accept_with_exclude() {
	three_files
	local base state
	base=$(git -C repo rev-parse main)
	state=$(state_tree t)
	ok "accept --exclude a" -C repo accept t --exclude a
	assert_eq "$(git -C repo rev-parse 'main^{tree}')" \
		"$(expected_part repo "$base" "$state" b c)" "b and c accepted"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$out" "a" "a stayed"
}

# What: the base moved on since the task began, and a part is accepted.
# Must: a merge commit of the base and the part's commit, whose tree is the
# three-way merge; the task's diff is still exactly the rest.
test_accept_a_part_after_the_base_moved() {
	three_files
	printf 'theirs\n' >repo/other
	git -C repo add other
	git -C repo commit -q -m "the base moves"
	ok "accept -- c" -C repo accept t -- c
	assert_contains "$out" "merged into 'main'" "a merge commit"
	assert_eq "$(git -C repo show main:other)" "theirs" "the base's change kept"
	assert_eq "$(git -C repo show main:c)" "$(printf 'c\nc changed')" "c accepted"
	assert_eq "$(git -C repo show main:a)" "a" "a not accepted"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$(echo $out)" "a b" "the rest"
}

# What: the task renamed a file (and changed it a little) and the person
# names only one side of the rename, or splits its sides. Must: a rename is
# taken whole when either path matches (as `diff -- PATH` shows it whole),
# and a selection that would keep one side only leaves nothing: refused,
# one line, nothing changed.
test_accept_a_rename_partially() {
	make_repo repo
	seq 1 20 >repo/old.txt
	git -C repo add -A
	git -C repo commit -q -m "old"
	new_task repo t
	agent_sh t 'git mv old.txt new.txt && echo 21 >>new.txt && printf "other\n" >other'
	local tip
	tip=$(git -C repo rev-parse main)
	expect_rc 2 "the sides split" -C repo accept t --exclude new.txt -- old.txt
	assert_eq "$(echo "$errout" | wc -l)" "1" "one line"
	assert_contains "$errout" "leaves no change of task 't'" "says why"
	assert_eq "$(git -C repo rev-parse main)" "$tip" "nothing merged"
	ok "accept -- new.txt" -C repo accept t -- new.txt
	assert_eq "$(git -C repo ls-tree --name-only main | tr '\n' ' ')" "README new.txt src " \
		"old.txt gone and new.txt there: the rename whole"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$out" "other" "the rest"
}

# What: a type change (a file became a symbolic link) accepted by its path.
# Must: taken whole: the base has the link.
test_accept_a_type_change_partially() {
	make_repo repo
	new_task repo t
	agent_sh t 'rm README && ln -s src/main.c README && printf "x\n" >x'
	ok "accept -- README" -C repo accept t -- README
	assert_eq "$(git -C repo ls-tree main README | cut -c1-6)" "120000" "a link on main"
	assert_eq "$(git -C repo cat-file -p main:README)" "src/main.c" "its target"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$out" "x" "the rest"
}

# What: the person reviewed a part (its tree) and the agent changes that part
# before the accept. Must: --tree binds the part: the reviewed tree is
# accepted; a part that is no longer it is refused (exit 1) naming both
# trees, nothing merged, the task's branch where it was.
test_accept_a_part_with_tree() {
	three_files
	local base state part tip branch
	base=$(git -C repo rev-parse main)
	state=$(state_tree t)
	part=$(expected_part repo "$base" "$state" b)
	agent_sh t 'printf "agent again\n" >>b'
	tip=$(git -C repo rev-parse main)
	branch=$(git -C repo rev-parse agenttask/t)
	expect_rc 1 "a stale part" -C repo accept t --tree "$part" -- b
	assert_contains "$errout" "is tree" "names the part's tree"
	assert_contains "$errout" "reviewed $part" "and the reviewed one"
	assert_eq "$(git -C repo rev-parse main)" "$tip" "nothing merged"
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$branch" "the branch unmoved"
	agent_sh t 'sed -i "\$d" b'
	ok "the reviewed part" -C repo accept t --tree "$part" -- b
	assert_eq "$(git -C repo rev-parse 'main^{tree}')" "$part" "exactly the reviewed tree"
}

# What: a pathspec that matches no change, --squash with a part, --drop-rest
# alone. Must: one line naming it, exit 2, nothing changed (base, branch, files).
test_accept_bad_input_changes_nothing() {
	three_files
	local tip branch state
	tip=$(git -C repo rev-parse main)
	branch=$(git -C repo rev-parse agenttask/t)
	state=$(state_tree t)
	expect_rc 2 "no match" -C repo accept t -- nothing.txt
	assert_eq "$errout" "agenttask: pathspec 'nothing.txt' matches no change of task 't'" "one line"
	expect_rc 2 "--squash" -C repo accept t --squash -- b
	assert_eq "$(echo "$errout" | grep -c .)" "1" "one line"
	expect_rc 2 "--drop-rest alone" -C repo accept t --drop-rest
	assert_contains "$errout" "--drop-rest needs a PATHSPEC" "says why"
	assert_eq "$(git -C repo rev-parse main)" "$tip" "main unmoved"
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$branch" "branch unmoved"
	assert_eq "$(state_tree t)" "$state" "files unchanged"
}

# What: --drop-rest. Must: the part lands, the full state is in the trash,
# the task is removed; restore brings the whole task back.
test_accept_drop_rest_and_restore() {
	three_files
	local state
	state=$(state_tree t)
	ok "accept --drop-rest -- b" -C repo accept t --drop-rest --json -- b
	assert_eq "$(json_get "$out" 'j["removed"]')" "True" "removed"
	assert_contains "$(json_get "$out" 'j["trash"]')" "refs/agenttask/trash/t/" "in the trash"
	expect_rc 2 "task gone" -C repo status t
	ok "restore" -C repo restore t
	assert_eq "$(state_tree t)" "$state" "the whole state back"
}

# What: a kill at each step of a partial accept (the part committed and the
# index written; the branch moved). Must: nothing is lost: the task's files
# are its full state as before, the base unmoved, and the accept run again
# lands exactly the part.
test_partial_accept_killed_at_each_step() {
	local step
	for step in accept:part-index accept:part-branch; do
		# (the sandbox's overlay work dirs are left without permissions)
		chmod -R u+rwX repo "$XDG_DATA_HOME" 2>/dev/null || true
		rm -rf repo "$XDG_DATA_HOME"
		three_files
		local base state want tip rc=0
		base=$(git -C repo rev-parse main)
		state=$(state_tree t)
		want=$(expected_part repo "$base" "$state" b)
		AGENTTASK_TEST_KILL_AT=$step "$AT" -C repo accept t -- b >/dev/null 2>&1 || rc=$?
		assert_eq "$rc" 137 "killed at $step"
		assert_eq "$(git -C repo rev-parse main)" "$base" "main unmoved ($step)"
		assert_eq "$(state_tree t)" "$state" "the full state kept ($step)"
		ok "accept again ($step)" -C repo accept t -- b
		assert_eq "$(git -C repo rev-parse 'main^{tree}')" "$want" "the part ($step)"
		ok "diff ($step)" -C repo diff t --name-only
		assert_eq "$(echo $out)" "a c" "the rest ($step)"
	done
}

# What: drop one file's change, then restore. Must: the file is the merge
# base's again and the rest of the change is untouched; the full state was
# saved first; restore puts the file back (the entry then gone).
test_drop_and_restore() {
	three_files
	local state
	state=$(state_tree t)
	ok "drop -- a" -C repo drop t --json -- a
	assert_eq "$(json_get "$out" '",".join(j["dropped_paths"])')" "a" "dropped"
	assert_eq "$(json_get "$out" '",".join(j["left_paths"])')" "b,c" "left"
	agent_sh t 'cat a'
	assert_eq "$out" "a" "a is the base's again"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$(echo $out)" "b c" "the rest stays"
	assert_eq "$(git -C repo for-each-ref --count=9 refs/agenttask/trash | wc -l)" "1" "saved"
	ok "restore" -C repo restore t
	assert_eq "$(state_tree t)" "$state" "all of it back"
	assert_empty "the entry is gone" git -C repo for-each-ref refs/agenttask/trash
}

# What: a drop's file changes in the task after the drop, then restore; and
# a drop whose pathspec matches nothing. Must: each refused with one line
# naming the file or the pathspec, nothing written (a layered task left layered).
test_drop_bad_input_and_a_changed_file() {
	three_files
	local state
	state=$(state_tree t)
	expect_rc 2 "no match" -C repo drop t -- nothing.txt
	assert_eq "$errout" "agenttask: pathspec 'nothing.txt' matches no change of task 't'" "one line"
	expect_rc 2 "no pathspec" -C repo drop t
	assert_eq "$(state_tree t)" "$state" "nothing changed"
	! layered_form || assert_no_file "$(wt_home repo)/t" "a layered task left layered"
	assert_empty "nothing in the trash" git -C repo for-each-ref refs/agenttask/trash
	ok "drop -- c" -C repo drop t -- c
	agent_sh t 'printf "the agent again\n" >c'
	state=$(state_tree t)
	expect_rc 1 "restore over a changed file" -C repo restore t
	assert_eq "$(echo "$errout" | grep -c .)" "1" "one line"
	assert_contains "$errout" "'c' of task 't' changed since it was dropped" "names it"
	assert_eq "$(state_tree t)" "$state" "nothing written"
}

# What: the agent turns a directory of its worktree into a symbolic link to
# a directory of the host, then the person drops the change of the file
# below it, and then the whole change there. Must: nothing is written
# through the link: the file alone splits the change (refused, one line
# naming it); the whole removes the link and makes the directory and its
# file afresh, the host's file unchanged and nothing left beside it.
test_drop_never_writes_through_a_planted_link() {
	make_repo repo
	new_task repo t
	mkdir outside
	printf 'host file\n' >outside/main.c
	agent_sh t 'rm -rf src && ln -s "$1" src' "$PWD/outside"
	expect_rc 2 "one side of the link" -C repo drop t -- src/main.c
	assert_contains "$errout" "splits the change of 'src'" "names it"
	ok "drop -- src" -C repo drop t -- src
	assert_eq "$(cat outside/main.c)" "host file" "the host's file untouched"
	assert_eq "$(ls -A outside)" "main.c" "nothing written beside it"
	agent_sh t 'if [ -L src ]; then echo link; elif [ -d src ]; then echo directory; fi; cat src/main.c'
	assert_eq "$out" "$(printf 'directory\nint main(void) { return 0; }')" \
		"src is a directory again, with the base's file"
}

# What: differential, over generated changes: random edits (modify, add,
# delete, rename, mode) and a random selection of their paths. Must: the
# accepted tree is git's (apply --cached of the selected files' diff on the
# merge base), the task's diff is the rest.
test_partial_accept_differential() {
	local seed
	for seed in 1 2 3 4 5 6; do
		rm -rf "repo$seed"
		make_repo "repo$seed"
		local r=repo$seed i
		for i in 1 2 3 4 5 6 7 8; do seq 1 $((i * 7)) >"$r/f$i"; done
		git -C "$r" add -A
		git -C "$r" commit -q -m files
		new_task "$r" "t$seed"
		local edits
		edits=$(cat <<'EOF'
import os, random, sys
wt, seed = sys.argv[1], int(sys.argv[2])
rnd = random.Random(seed)
files = ["f%d" % i for i in range(1, 9)]
rnd.shuffle(files)
for f in files[:6]:
    p = os.path.join(wt, f)
    op = rnd.choice(["modify", "delete", "rename", "mode", "modify"])
    if op == "modify":
        lines = open(p).read().splitlines()
        lines[rnd.randrange(len(lines))] = "changed %d" % seed
        lines.insert(rnd.randrange(len(lines)), "inserted")
        open(p, "w").write("\n".join(lines) + "\n")
    elif op == "delete":
        os.unlink(p)
    elif op == "rename":
        os.rename(p, os.path.join(wt, "moved_" + f))
    else:
        os.chmod(p, 0o755)
open(os.path.join(wt, "added"), "w").write("new\n")
EOF
		)
		agent_sh -C "$r" "t$seed" 'python3 -c "$1" . "$2"' "$edits" "$seed"
		local base state names pick want
		base=$(git -C "$r" rev-parse main)
		state=$(state_tree -C "$r" "t$seed")
		names=$(git -C "$r" diff --name-only --no-renames "$base" "$state")
		# A random half of the changed paths (both sides of a rename are paths).
		pick=$(echo "$names" | python3 -c 'import sys,random; r=random.Random(int(sys.argv[1])); n=sys.stdin.read().split(); k=[x for x in n if r.random()<0.5] or n[:1]; print(" ".join(k))' "$seed")
		# git's rename detection pairs both sides: select a rename whole, as agenttask does.
		local sel
		sel=$(git -C "$r" diff --name-status -M "$base" "$state" | python3 -c '
import sys
pick = set(sys.argv[1].split())
out = []
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if any(p in pick for p in f[1:]):
        out += f[1:]
print(" ".join(out))' "$pick")
		want=$(expected_part "$r" "$base" "$state" $sel)
		ok "accept a part ($seed: $pick)" -C "$r" accept "t$seed" -- $pick
		assert_eq "$(git -C "$r" rev-parse 'main^{tree}')" "$want" "git's tree (seed $seed)"
		if [ "$want" != "$state" ]; then
			ok "diff" -C "$r" diff "t$seed" --name-only
			assert_eq "$(echo $out)" "$(echo $(git -C "$r" diff --name-only -M main "$state"))" \
				"the rest is git's diff (seed $seed)"
		fi
	done
}

# ---------------------------------------------------------------- accept -p

# keys KEYS ARGS...: agenttask ARGS on a terminal, its prompts answered with KEYS (pty_keys.py).
keys() {
	local k=$1
	shift
	set +e
	out=$(python3 "$(dirname "$AT_SUITE")/pty_keys.py" "$k" "$AT" "$@")
	rc=$?
	set -e
}

# A file of 30 lines on main; the task changes lines 2 and 29 (two hunks) and g.
two_hunks() {
	make_repo repo
	seq 1 30 >repo/f
	printf 'g\n' >repo/g
	git -C repo add -A
	git -C repo commit -q -m "f and g"
	new_task repo t
	agent_sh t 'sed -i "s/^2\$/two/; s/^29\$/twenty-nine/" f && printf "g2\n" >>g'
}

# git's answer for hunks: the merge base with the given hunks of `git diff` (python
# picks them by number, 0-based over the whole patch) applied by git apply --cached.
git_hunks() {
	local repo=$1 base=$2 state=$3 pick=$4 idx
	idx=$(mktemp -u)
	GIT_INDEX_FILE=$idx git -C "$repo" read-tree "$base"
	git -C "$repo" diff "$base" "$state" | python3 -c '
import re, sys
pick = set(int(x) for x in sys.argv[1].split(","))
out, head, n, keep = [], [], -1, False
for line in sys.stdin.read().splitlines(True):
    if line.startswith("diff --git"):
        head, keep = [line], False
        continue
    if line.startswith("@@"):
        n += 1
        keep = n in pick
        if keep and head:
            out += head
            head = []
        if keep:
            out.append(line)
        continue
    if head and not line.startswith((" ", "+", "-", "\\")) or line.startswith(("---", "+++")) and head:
        head.append(line)
        continue
    if keep:
        out.append(line)
sys.stdout.write("".join(out))' "$pick" | GIT_INDEX_FILE=$idx git -C "$repo" apply --cached --recount
	GIT_INDEX_FILE=$idx git -C "$repo" write-tree
	rm -f "$idx"
}

# What: accept -p on a terminal, one hunk of the two in a file taken, the
# other and another file's left. Must: the --stat of the part is shown, the
# base gets exactly git's `apply --cached` of that hunk, the rest stays in
# the task (its diff the other two), and the hunks printed are escaped.
test_accept_p_one_hunk_of_two() {
	two_hunks
	agent_sh t 'printf "x\033[2Jy\n" >>g'
	local base state want
	base=$(git -C repo rev-parse main)
	state=$(state_tree t)
	want=$(git_hunks repo "$base" "$state" 0)
	keys "y,n,n,y" -C repo accept t -p
	assert_eq "$rc" 0 "accepted: $out"
	assert_contains "$out" "f | 2 +-" "the --stat of the part"
	assert_contains "$out" 'x\x1b[2Jy' "the task's bytes escaped"
	assert_eq "$(git -C repo rev-parse 'main^{tree}')" "$want" "git's tree for hunk 1"
	ok "diff" -C repo diff t
	assert_contains "$out" "+twenty-nine" "the other hunk stays"
	assert_contains "$out" "+g2" "and the other file"
	assert_not_contains "$out" "+two" "the accepted one is gone from the diff"
}

# What: a hunk of two changes close together, split with `s` (git's split:
# the context between them shared), only the first part taken. Must: the
# base gets that part alone, as git applies it.
test_accept_p_split_hunk() {
	make_repo repo
	seq 1 10 >repo/f
	git -C repo add -A
	git -C repo commit -q -m f
	new_task repo t
	agent_sh t 'sed -i "s/^3\$/three/; s/^7\$/seven/" f'
	keys "s,y,n,y" -C repo accept t -p
	assert_eq "$rc" 0 "accepted: $out"
	assert_contains "$out" "Split into 2 hunks." "split"
	assert_contains "$out" "@@ -4,7 +4,7 @@" "git's header of the second part"
	assert_eq "$(git -C repo show main:f | tr '\n' ' ')" "1 2 three 4 5 6 7 8 9 10 " "the first part"
	ok "diff" -C repo diff t
	assert_contains "$out" "+seven" "the second stays"
}

# What: `e` with EDITOR a script that rewrites the hunk; then an edit whose
# context no longer matches. Must: the edited hunk is what lands; the broken
# one is said to no longer apply (one line naming the file), the prompt
# comes again and nothing of it is accepted.
test_accept_p_edited_hunk() {
	two_hunks
	printf '#!/bin/sh\nsed -i "s/^+two$/+TWO/" "$1"\n' >edit.sh
	printf '#!/bin/sh\nsed -i "s/^ 1$/ one/" "$1"\n' >broken.sh
	chmod +x edit.sh broken.sh
	EDITOR=$PWD/broken.sh keys "e,n,n,n" -C repo accept t -p
	assert_contains "$out" "the edited hunk of 'f' no longer applies; try again" "refused"
	assert_contains "$out" "no hunk picked: nothing accepted" "nothing"
	assert_eq "$(git -C repo show main:f | head -2 | tr '\n' ' ')" "1 2 " "nothing changed"
	EDITOR=$PWD/edit.sh keys "e,y,n,n,y" -C repo accept t -p
	assert_eq "$rc" 0 "accepted: $out"
	assert_eq "$(git -C repo show main:f | head -3 | tr '\n' ' ')" "1 TWO 3 " "the edit landed"
	ok "diff" -C repo diff t
	assert_contains "$out" "-TWO" "the task still has its own line"
}

# What: accept -p without a terminal (stdin a pipe). Must: refused, one line, exit 2, nothing changed.
test_accept_p_refuses_without_a_terminal() {
	two_hunks
	local tip
	tip=$(git -C repo rev-parse main)
	at -C repo accept t -p </dev/null
	assert_eq "$rc" 2 "usage"
	assert_eq "$(echo "$errout" | grep -c .)" "1" "one line"
	assert_contains "$errout" "terminal" "says why"
	assert_eq "$(git -C repo rev-parse main)" "$tip" "nothing merged"
}

# What: drop -p, the first hunk of a file picked to go, the rest kept; then
# restore. Must: the worktree's file is the task's with exactly that hunk
# undone (git's `apply -R` of it), the other hunk and file untouched, the
# full state in the trash first; restore puts the hunk back.
test_drop_p_one_hunk_and_restore() {
	two_hunks
	local state
	state=$(state_tree t)
	agent_sh t 'cat f'
	printf '%s\n' "$out" >want
	sed -i 's/^two$/2/' want
	keys "y,n,n,y" -C repo drop t -p
	assert_eq "$rc" 0 "dropped: $out"
	assert_contains "$out" "The changes to drop:" "the --stat of what goes"
	agent_sh t 'cat f'
	assert_eq "$out" "$(cat want)" "exactly that hunk undone"
	agent_sh t 'cat g'
	assert_eq "$out" "$(printf 'g\ng2')" "the other file untouched"
	ok "diff" -C repo diff t
	assert_not_contains "$out" "+two" "gone from the change"
	assert_contains "$out" "+twenty-nine" "the other hunk stays"
	ok "restore" -C repo restore t
	assert_eq "$(state_tree t)" "$state" "all of it back"
}

# What: a kill of drop right after the full state is saved, before a file is
# written. Must: the worktree as it was, the entry in the trash, and drop run
# again does the job (a second entry, each restorable).
test_drop_killed_after_the_save() {
	three_files
	local state rc=0
	state=$(state_tree t)
	AGENTTASK_TEST_KILL_AT=drop:saved "$AT" -C repo drop t -- a >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 137 "killed"
	assert_eq "$(state_tree t)" "$state" "nothing written"
	assert_eq "$(git -C repo for-each-ref refs/agenttask/trash | wc -l)" "1" "saved"
	ok "drop again" -C repo drop t -- a
	agent_sh t 'cat a'
	assert_eq "$out" "a" "dropped"
	ok "restore" -C repo restore t
	assert_eq "$(state_tree t)" "$state" "back"
}

# What: differential, over generated edits of two files (several hunks each)
# and random answers to accept -p. Must: the accepted tree is git's `apply
# --cached` of exactly the hunks answered y, on the merge base.
test_accept_p_differential() {
	local seed
	for seed in 1 2 3 4; do
		local r=repo$seed
		make_repo "$r"
		seq 1 60 >"$r/f1"
		seq 100 150 >"$r/f2"
		git -C "$r" add -A
		git -C "$r" commit -q -m files
		new_task "$r" "t$seed"
		local edits
		edits=$(cat <<'EOF'
import os, random, sys
wt, seed = sys.argv[1], int(sys.argv[2])
rnd = random.Random(seed)
for name in ("f1", "f2"):
    p = os.path.join(wt, name)
    lines = open(p).read().splitlines()
    for at in sorted(rnd.sample(range(len(lines)), 4), reverse=True):
        op = rnd.choice(["change", "insert", "delete"])
        if op == "change":
            lines[at] = "changed %d" % at
        elif op == "insert":
            lines.insert(at, "inserted %d" % at)
        else:
            del lines[at]
    open(p, "w").write("\n".join(lines) + "\n")
EOF
		)
		agent_sh -C "$r" "t$seed" 'python3 -c "$1" . "$2"' "$edits" "$seed"
		local base state n answers picks want
		base=$(git -C "$r" rev-parse main)
		state=$(state_tree -C "$r" "t$seed")
		n=$(git -C "$r" diff "$base" "$state" | grep -c '^@@')
		answers=$(python3 -c 'import random,sys; r=random.Random(int(sys.argv[1])); a=[r.choice("yn") for _ in range(int(sys.argv[2]))]; a[0]="y"; print(",".join(a))' "$seed" "$n")
		picks=$(python3 -c 'import sys; print(",".join(str(i) for i, a in enumerate(sys.argv[1].split(",")) if a == "y"))' "$answers")
		want=$(git_hunks "$r" "$base" "$state" "$picks")
		keys "$answers,y" -C "$r" accept "t$seed" -p
		assert_eq "$rc" 0 "accepted ($seed: $answers): $out"
		assert_eq "$(git -C "$r" rev-parse 'main^{tree}')" "$want" "git's tree (seed $seed: $answers)"
	done
}

run_tests
