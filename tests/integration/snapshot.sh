#!/usr/bin/env bash
# The task's full-state tree (at_snapshot_tree, via `agenttask diff --json`)
# against git's own: `git add -A && git write-tree` into a copy of the
# worktree's index. The tree must be the same to the byte, whichever kinds of
# change the worktree holds, and the worktree's index must be left untouched.
. "$(dirname "$0")/lib.sh"

# new_task REPO NAME: create a task; its worktree path in $wt.
new_task() {
	ok "new $2" -C "$1" new "$2"
	wt=$out
}

# person_task REPO NAME: a task the person changes on the host (git's index
# too): made full at once on the layered form (`path`), as for an editor.
person_task() {
	new_task "$@"
	task_path -C "$1" "$2"
	wt=$out
}

layered=

index_of() {
	git -C "$1" rev-parse --path-format=absolute --git-path index
}

# oracle_tree WT: the id of the tree of the worktree's full state, by git.
oracle_tree() {
	local idx
	idx=$(mktemp "$_at_root/index.XXXXXX")
	# -p: a copy with a newer mtime would hide racily-clean files from git
	cp -p "$(index_of "$1")" "$idx"
	GIT_INDEX_FILE=$idx git -C "$1" add -A 2>/dev/null
	GIT_INDEX_FILE=$idx git -C "$1" write-tree
	rm -f "$idx"
}

# layered_tree NAME: a layered task (its files in its layer; the agent made
# its changes) into $layered: its tree by diff --json, read from its layer
# (the index on the host unchanged by it), and the task made full (`path`)
# for git to judge the same files. Nothing for a full task.
layered_tree() {
	local idx before
	[ ! -e "$wt/.git" ] || return 0
	idx=$(git -C repo rev-parse --path-format=absolute --git-common-dir)/worktrees/agenttask-$1/index
	before=$(mktemp "$_at_root/index.XXXXXX")
	cp -p "$idx" "$before"
	ok "diff $1 (layered)" -C repo diff "$1" --json
	layered=$(json_get "$out" 'j["tree"]')
	cmp -s "$before" "$idx" || fail "diff of the layered task changed the index on disk"
	task_path "$1"
	rm -f "$before"
}

# same_tree_as_git WHAT WT NAME: diff's tree (left in $tree) equals git's,
# the index and git's view of the worktree are unchanged by it; a layered
# task's tree (layered_tree) is the same as its full checkout's.
same_tree_as_git() {
	local what=$1 wt=$2 name=$3 before status_before
	layered_tree "$name"
	before=$(mktemp "$_at_root/index.XXXXXX")
	cp -p "$(index_of "$wt")" "$before"
	status_before=$(git -C "$wt" status --porcelain --untracked-files=all)
	cp -p "$before" "$(index_of "$wt")"
	ok "diff $name" -C repo diff "$name" --json
	tree=$(json_get "$out" 'j["tree"]')
	cmp -s "$before" "$(index_of "$wt")" || fail "$what: diff changed the index on disk"
	assert_eq "$tree" "$(oracle_tree "$wt")" "$what: tree"
	[ -z "$layered" ] || assert_eq "$layered" "$tree" "$what: the tree of the layered task"
	layered=
	assert_eq "$(git -C "$wt" status --porcelain --untracked-files=all)" "$status_before" \
		"$what: worktree status"
	# commit takes the general path (libgit2's index, which it writes): its
	# tree must be the same. The commit is undone after: branch and index back.
	local branch tip committed
	branch=$(git -C "$wt" symbolic-ref HEAD)
	tip=$(git -C "$wt" rev-parse HEAD)
	ok "commit $name (general path)" -C repo commit "$name"
	committed=$(git -C "$wt" rev-parse 'HEAD^{tree}')
	git -C "$wt" update-ref "$branch" "$tip"
	cp -p "$before" "$(index_of "$wt")"
	assert_eq "$committed" "$tree" "$what: tree of the general path"
	rm -f "$before"
}

test_snapshot__staged_only_change_is_in_the_tree() {
	make_repo repo
	person_task repo t
	# the index differs from HEAD, the files from the index do not
	printf 'staged\n' >>"$wt/README"
	printf 'staged new\n' >"$wt/src/new.c"
	git -C "$wt" add README src/new.c
	git -C "$wt" rm -q --cached src/main.c
	rm "$wt/src/main.c"
	same_tree_as_git "staged only" "$wt" t
	[ "$tree" != "$(git -C "$wt" rev-parse 'HEAD^{tree}')" ] || fail "staged changes missing"
}

test_snapshot__every_kind_of_change_matches_git() {
	make_repo repo
	mkdir -p repo/gone repo/keep/deep
	printf 'a\n' >repo/gone/one
	printf 'b\n' >repo/keep/deep/two
	printf '#!/bin/sh\n' >repo/script
	printf 'x\n' >repo/becomes-dir
	git -C repo add -A
	git -C repo commit -q -m "more files"
	new_task repo t
	# The agent's changes, then what the person stages (the layered task
	# made full first: layered_tree).
	agent_sh t 'printf "staged\n" >staged-new
		printf "more\n" >>src/main.c
		printf "unstaged\n" >>README
		printf "untracked\n" >untracked
		mkdir -p "new dir/sub"
		printf "space\n" >"new dir/sub/a file"
		printf "utf8\n" >"$1"
		rm -r gone keep/deep/two
		chmod +x script
		ln -s README link
		rm becomes-dir
		mkdir becomes-dir
		printf "inside\n" >becomes-dir/file
		printf "ignored\n" >.gitignore' "caf$(printf '\303\251').txt"
	layered_tree t
	git -C "$wt" add staged-new src/main.c
	git -C "$wt" rm -q --cached keep/deep/two
	same_tree_as_git "every kind" "$wt" t
	git -C repo cat-file -e "$tree" || fail "tree not in the object database"
}

test_snapshot__directory_replaced_by_file_matches_git() {
	make_repo repo
	new_task repo t
	agent_sh t 'rm -r src && printf "now a file\n" >src'
	same_tree_as_git "dir to file" "$wt" t
}

test_snapshot__staged_type_changes_match_git() {
	make_repo repo
	new_task repo t
	agent_sh t 'rm README && ln -s src/main.c README && rm src/main.c && mkdir src/main.c &&
		printf "x\n" >src/main.c/x'
	layered_tree t
	git -C "$wt" add README
	git -C "$wt" add -A src
	same_tree_as_git "staged type changes" "$wt" t
}

test_snapshot__unchanged_worktree_is_head_tree() {
	make_repo repo
	new_task repo t
	same_tree_as_git "unchanged" "$wt" t
	assert_eq "$tree" "$(git -C "$wt" rev-parse 'HEAD^{tree}')" "unchanged: HEAD's tree"
}

test_snapshot__crlf_attributes_match_git() {
	make_repo repo
	printf '*.txt text eol=crlf\n*.bin binary\n' >repo/.gitattributes
	mkdir -p repo/docs
	printf 'one\ntwo\n' >repo/docs/a.txt
	git -C repo add -A
	git -C repo commit -q -m "crlf"
	new_task repo t
	agent_sh t 'printf "one\r\ntwo\r\nthree\r\n" >docs/a.txt
		printf "lf only\n" >docs/new.txt
		printf "mixed\r\nlines\n" >docs/mixed.txt
		printf "raw\r\n" >data.bin'
	same_tree_as_git "eol=crlf" "$wt" t
	assert_eq "$(git -C repo cat-file -p "$tree:docs/a.txt" | od -c | head -1)" \
		"$(printf 'one\ntwo\nthree\n' | od -c | head -1)" "crlf normalised in the blob"
}

test_snapshot__deleting_a_whole_directory_matches_git() {
	make_repo repo
	new_task repo t
	agent_sh t 'rm -r src && mkdir -p a/b/c && printf "deep\n" >a/b/c/d'
	layered_tree t
	git -C "$wt" rm -q -r --cached src
	same_tree_as_git "whole directory" "$wt" t
	git -C repo cat-file -p "$tree" | grep -q '	src$' && fail "empty directory left in the tree"
	true
}

test_snapshot__index_versions_and_cache_tree_match_git() {
	local version
	make_repo repo
	new_task repo t
	agent_sh t 'printf "more\n" >>src/main.c; printf "new\n" >src/new.c; printf "untracked\n" >untracked'
	layered_tree t
	git -C "$wt" add src/new.c
	for version in 2 3 4 2; do
		git -C "$wt" update-index --index-version "$version"
		same_tree_as_git "index version $version" "$wt" t
	done
	# A commit by git writes a full cache tree; then a change under it.
	git -C "$wt" commit -q -am "by git"
	printf 'after\n' >>"$wt/README"
	same_tree_as_git "after git commit" "$wt" t
	# A split index: libgit2 cannot read one, and says so.
	git -C "$wt" update-index --split-index
	expect_rc 1 "diff with a split index" -C repo diff t --json
	assert_contains "$errout" "'link'" "split index error"
}

test_snapshot__staged_then_deleted_and_added_then_removed_match_git() {
	make_repo repo
	person_task repo t
	printf 'staged, then deleted\n' >"$wt/gone-again"
	git -C "$wt" add gone-again
	rm "$wt/gone-again"
	git -C "$wt" rm -q --cached README
	printf 'changed too\n' >>"$wt/README"
	printf 'staged\n' >"$wt/src/extra.c"
	git -C "$wt" add src/extra.c
	printf 'and changed after\n' >>"$wt/src/extra.c"
	same_tree_as_git "staged then changed" "$wt" t
}

run_tests
