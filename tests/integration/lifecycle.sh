#!/usr/bin/env bash
# The task lifecycle: new, list, status, path, commit, discard, gc.
. "$(dirname "$0")/lib.sh"

test_new_creates_branch_and_worktree() {
	make_repo repo
	ok "new" -C repo new fix-bug
	local wt=$out
	assert_eq "$wt" "$(git -C repo rev-parse --absolute-git-dir)/agenttask/worktrees/fix-bug" "worktree path"
	git -C repo worktree list --porcelain | grep -qx "worktree $wt" || fail "git worktree list lacks '$wt'"
	assert_eq "$(git -C repo rev-parse agenttask/fix-bug)" "$(git -C repo rev-parse main)" "branch at base"
	assert_eq "$(git -C "$wt" symbolic-ref HEAD)" "refs/heads/agenttask/fix-bug" "worktree HEAD"
	assert_eq "$(git -C "$wt" status --porcelain)" "" "fresh worktree is clean"
	assert_fsck repo
}
