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

run_tests
