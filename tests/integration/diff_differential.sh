#!/usr/bin/env bash
# diff_differential.sh - agenttask's diff against git's, over generated trees.
#
# difftrees.py makes pairs of trees A -> B with every kind of entry (files,
# executables, symlinks, directories, gitlinks) and every type swap between
# them, over names that sort side by side in git's tree order (a, a-b, a.b,
# a/..., a0). For each pair agenttask's changed paths, statuses and line
# counts (diff --json), its --name-only and its patch must equal git's
# (`git diff -M --name-status / --numstat / --name-only / A B`):
#   - in CI mode (diff --base A --head B), the trees as committed;
#   - for a task based on A whose worktree holds B, uncommitted and
#     untracked, where the full-state tree must be B's tree as well.
# A path the review leaves out would be merged unseen (hole 1 of the
# hostile-worktree issue: a directory replaced by a file showed only the
# deletions).
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
PAIRS=${DIFF_PAIRS:-120}

# git_side A B: git's name-status, numstat, names and patch of A..B into files.
git_side() {
	git -C r -c diff.renames=true diff -z -M --name-status "$1" "$2" >git.ns
	git -C r -c diff.renames=true diff -z -M --numstat "$1" "$2" >git.num
	git -C r -c diff.renames=true diff -M --name-only "$1" "$2" >git.names
	git -C r -c diff.renames=true -c color.ui=never diff -M "$1" "$2" >git.patch
}

# same WHAT: agenttask's outputs (at.json, at.names, at.patch) equal git's.
same() {
	python3 "$HERE/difftree_check.py" compare at.json git.ns git.num ||
		fail "$1: the change sets differ"
	cmp -s at.names git.names || { diff git.names at.names >&2; fail "$1: --name-only differs"; }
	cmp -s at.patch git.patch || { diff -a git.patch at.patch | head -40 >&2; fail "$1: the patch differs"; }
}

test_ci_mode_matches_git() {
	local seed a b
	git init -q -b main r
	for seed in $(seq 1 "$PAIRS"); do
		read -r a b < <(python3 "$HERE/difftrees.py" r "$seed")
		[ "$seed" = 1 ] && git -C r update-ref refs/heads/main "$a"
		git_side "$a" "$b"
		"$AT" -C r diff --base "$a" --head "$b" --json >at.json
		"$AT" -C r diff --base "$a" --head "$b" --name-only >at.names
		"$AT" -C r diff --base "$a" --head "$b" --color=never >at.patch
		same "seed $seed (CI mode)"
		tree=$(json_get "$(cat at.json)" 'j["tree"]')
		assert_eq "$tree" "$(git -C r rev-parse "$b^{tree}")" "seed $seed: the tree judged"
	done
}

test_task_worktree_matches_git() {
	local seed a b wt
	for seed in $(seq 1 "$PAIRS"); do
		# The task's worktree is outside r (the data directory): both go.
		rm -rf r "$XDG_DATA_HOME"
		git init -q -b main r
		read -r a b < <(python3 "$HERE/difftrees.py" r "$seed" --task)
		git -C r update-ref refs/heads/main "$a"
		ok "new, seed $seed" -C r new t
		wt=$out
		python3 "$HERE/difftree_check.py" materialize r/.git "$seed" "$wt"
		git_side "$a" "$b"
		"$AT" -C r diff t --json >at.json
		"$AT" -C r diff t --name-only >at.names
		"$AT" -C r diff t --color=never >at.patch 2>/dev/null
		same "seed $seed (task)"
		tree=$(json_get "$(cat at.json)" 'j["tree"]')
		assert_eq "$tree" "$(git -C r rev-parse "$b^{tree}")" "seed $seed: the full-state tree"
	done
}

run_tests
