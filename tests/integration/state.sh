#!/usr/bin/env bash
# Task records on disk: their format, and what a damaged one does (a clear
# error naming the file, never a crash; the other tasks stay usable).
. "$(dirname "$0")/lib.sh"

common_dir() {
	git -C "$1" rev-parse --path-format=absolute --git-common-dir
}

record() {
	echo "$(common_dir "$1")/agenttask/tasks/$2.json"
}

# three_tasks: repo with tasks good1, bad, good2; bad's agent wrote a file
# of its own, mine (on a layered task: in its layer's upper).
three_tasks() {
	require_user_namespaces
	make_repo repo
	ok "new good1" -C repo new good1
	ok "new bad" -C repo new bad
	ok "new good2" -C repo new good2
	agent_sh bad 'echo mine >mine'
}

# bad_files_left_alone: what bad's agent wrote is still where it wrote it.
bad_files_left_alone() {
	if layered_form; then
		assert_file "$(common_dir repo)/agenttask/layers/bad/upper/mine" "its layer is left alone"
		assert_file "$(common_dir repo)/worktrees/agenttask-bad" "git's worktree of it is left alone"
	else
		assert_file "$(wt_home repo)/bad/README" "its worktree is left alone"
		assert_file "$(wt_home repo)/bad/mine" "its files are left alone"
	fi
}

# others_still_work WHY: good1 and good2 are listed and usable while 'bad'
# is damaged; the message about it names its file and says WHY.
others_still_work() {
	local rec why=${1:?others_still_work: say what the message must hold}
	rec=$(record repo bad)
	expect_rc 1 "list reports the damaged record" -C repo list
	assert_contains "$out" "good1" "good1 listed"
	assert_contains "$out" "good2" "good2 listed"
	assert_contains "$errout" "$rec" "stderr names the file"
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line about it"
	expect_rc 1 "list --json" -C repo list --json
	assert_eq "$(json_get "$out" '",".join(t["name"] for t in j)')" "good1,good2" "JSON lists the others"
	ok "status of another task" -C repo status good1
	expect_rc 1 "status of the damaged task" -C repo status bad
	assert_contains "$errout" "$rec" "names the file"
	assert_contains "$errout" "$why" "says what is wrong"
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line"
	agent_sh good2 'echo change >change'
	ok "commit in another task" -C repo commit good2
	assert_eq "$(git -C repo show agenttask/good2:change)" "change" "the commit holds the change"
	# The person in good1's worktree (a layered task: made full by path).
	task_path good1
	(
		cd "$out"
		ok "status from inside another task" status --json
		assert_eq "$(json_get "$out" 'j["name"]')" "good1" "found by cwd"
	)
	expect_rc 1 "new over the damaged record" -C repo new bad
	assert_contains "$errout" "$rec" "names the file"
	expect_rc 1 "discard of the damaged task" -C repo discard bad
	assert_eq "$(git -C repo branch --list agenttask/bad | wc -l)" "1" "its branch is left alone"
	bad_files_left_alone
	ok "new of another name" -C repo new good3
	ok "discard of another task" -C repo discard good1
}

test_record_is_json_with_the_task_fields() {
	make_repo repo
	ok "new" -C repo new t
	local rec
	rec=$(record repo t)
	local text
	text=$(cat "$rec")
	assert_eq "$(json_get "$text" 'j["name"]')" "t" "name"
	assert_eq "$(json_get "$text" 'j["phase"]')" "ready" "phase"
	assert_eq "$(json_get "$text" 'j["branch"]')" "refs/heads/agenttask/t" "branch"
	assert_eq "$(json_get "$text" 'j["base_branch"]')" "refs/heads/main" "base branch"
	assert_eq "$(json_get "$text" 'j["base_commit"]')" "$(git -C repo rev-parse main)" "base commit"
	assert_eq "$(json_get "$text" 'j["path"]')" "$(wt_home repo)/t" "path"
	assert_eq "$(stat -c %a "$rec")" "600" "private"
	assert_eq "$(ls -A "$(dirname "$rec")")" "t.json" "no temporary file left"
}

test_truncated_record() {
	three_tasks
	local rec
	rec=$(record repo bad)
	head -c 40 "$rec" >"$rec.cut"
	mv "$rec.cut" "$rec"
	others_still_work "invalid JSON"
}

test_empty_record() {
	three_tasks
	: >"$(record repo bad)"
	others_still_work "invalid JSON near byte 0"
}

test_binary_garbage_record() {
	three_tasks
	head -c 300 /dev/urandom >"$(record repo bad)"
	printf '\0\377' >>"$(record repo bad)"
	others_still_work "invalid JSON"
}

test_record_missing_a_field() {
	three_tasks
	local rec
	rec=$(record repo bad)
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["base_commit"]; json.dump(d, open(sys.argv[1], "w"))' "$rec"
	others_still_work "'base_commit'"
}

test_record_of_the_wrong_type() {
	three_tasks
	echo '["not", "an", "object"]' >"$(record repo bad)"
	others_still_work "not an object"
}

test_record_that_is_a_directory() {
	three_tasks
	rm "$(record repo bad)"
	mkdir "$(record repo bad)"
	others_still_work "not a regular file"
}

test_record_that_is_a_symlink() {
	three_tasks
	cp "$(record repo bad)" elsewhere.json
	ln -sf "$PWD/elsewhere.json" "$(record repo bad)"
	others_still_work "Too many levels of symbolic links"
}

test_oversized_record() {
	three_tasks
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["pad"]="x"*200000; json.dump(d, open(sys.argv[1], "w"))' \
		"$(record repo bad)"
	others_still_work "File too large"
}

test_record_with_an_absurd_creation_time() {
	three_tasks
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["created"]=1e300; json.dump(d, open(sys.argv[1], "w"))' \
		"$(record repo bad)"
	others_still_work "'created'"
}

test_record_naming_another_task() {
	three_tasks
	sed -i 's/"name":[[:space:]]*"bad"/"name": "good1"/' "$(record repo bad)"
	grep -q '"good1"' "$(record repo bad)" || fail "could not edit the record"
	others_still_work "names task 'good1'"
}

test_edited_paths_in_a_record_never_aim_removal_elsewhere() {
	make_repo repo
	mkdir outside
	echo precious >outside/keep.txt
	ok "new" -C repo new t
	local rec main
	rec=$(record repo t)
	main=$(git -C repo rev-parse main)
	python3 - "$rec" "$PWD/outside" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["path"] = sys.argv[2]
d["admin_dir"] = sys.argv[2]
d["branch"] = "refs/heads/main"
d["phase"] = "creating"
json.dump(d, open(sys.argv[1], "w"))
EOF
	ok "gc" -C repo gc
	assert_eq "$(cat outside/keep.txt)" "precious" "outside directory untouched"
	assert_eq "$(git -C repo rev-parse main)" "$main" "main branch untouched"
	assert_empty "the task's own branch removed" git -C repo branch --list agenttask/t
	assert_eq "$(git -C repo worktree list | wc -l)" "1" "the task's own worktree removed"
	assert_fsck repo
}

test_discard_with_edited_paths_removes_only_the_task() {
	make_repo repo
	mkdir outside
	echo precious >outside/keep.txt
	ok "new" -C repo new t
	local rec main
	rec=$(record repo t)
	main=$(git -C repo rev-parse main)
	python3 - "$rec" "$PWD/outside" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["path"] = sys.argv[2]
d["branch"] = "refs/heads/main"
json.dump(d, open(sys.argv[1], "w"))
EOF
	ok "discard" -C repo discard t
	assert_eq "$(cat outside/keep.txt)" "precious" "outside directory untouched"
	assert_eq "$(git -C repo rev-parse main)" "$main" "main branch untouched"
	assert_empty "the task's own branch removed" git -C repo branch --list agenttask/t
	assert_eq "$(git -C repo worktree list | wc -l)" "1" "the task's own worktree removed"
}

test_unreadable_state_directory_is_a_clear_error() {
	make_repo repo
	ok "new" -C repo new t
	local tasks
	tasks=$(common_dir repo)/agenttask/tasks
	rm -rf "$tasks"
	echo "not a directory" >"$tasks"
	expect_rc 1 "new" -C repo new u
	assert_contains "$errout" "$tasks" "names the path"
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line"
	assert_empty "nothing made" git -C repo branch --list agenttask/u
	expect_rc 1 "list" -C repo list
	assert_contains "$errout" "$tasks" "names the path"
}

run_tests
