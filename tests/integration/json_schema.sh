#!/usr/bin/env bash
# Every command's --json output against its schema in docs/json.md
# (python3-jsonschema), errors included: the documentation is the contract.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip_suite "python3-jsonschema is missing"
fi

# valid NAME: $out against schema NAME.
valid() {
	printf '%s' "$out" >out.json
	python3 "$here/json_check.py" "$1" out.json || fail "'$1' output does not match docs/json.md: $out"
}

test_review_comments_match_their_schemas() {
	# What: comment, comment --resolve, comments (open, outdated, all) and a
	# run shown them, with --json. Must: each the document docs/json.md describes.
	make_repo repo
	ok "new" -C repo new t1
	ok "comment" -C repo comment t1 README:2 "why?" --json; valid comment
	ok "comment" -C repo comment t1 "all of it" --json; valid comment
	ok "comments" -C repo comments t1 --json; valid comments
	agent_sh t1 'echo changed >README'
	ok "comments, outdated" -C repo comments t1 --json; valid comments
	assert_eq "$(json_get "$out" 'j["comments"][0]["outdated"]')" "True" "outdated"
	ok "resolve" -C repo comment t1 --resolve 2 --json; valid comment
	ok "comments --all" -C repo comments t1 --all --json; valid comments
	if unshare -Ur true 2>/dev/null; then
		ok "run" -C repo run t1 --json -- true; valid run
		assert_eq "$(json_get "$out" 'len(j["comments"])')" "1" "run shows the open one"
	fi
}

test_every_command_matches_its_schema() {
	# What: each command that reports something, with --json. Must: its
	# output is the one JSON document docs/json.md describes.
	make_repo repo
	ok "new" -C repo new t1 --json; valid new
	ok "list" -C repo list --json; valid list
	ok "du" -C repo du --json; valid du
	ok "status" -C repo status t1 --json; valid status
	agent_sh t1 'echo change >file; printf "a\0b\377" >bin'
	ok "diff" -C repo diff t1 --json; valid diff
	ok "run" -C repo run t1 --json -- sh -c 'printf "x\0\377"; echo e >&2'; valid run
	expect_rc 124 "run timeout" -C repo run t1 --json --timeout 0.2 -- sleep 3; valid run
	assert_eq "$(json_get "$out" 'j["number"]')" 3 "run: its number"
	# fork and rewind make a layered task full: after the layered form's reports.
	ok "fork" -C repo fork t1 t1f --json; valid new
	ok "discard the fork" -C repo discard t1f
	ok "rewind" -C repo rewind t1 3 --json; valid rewind
	ok "commit" -C repo commit t1 -m c --json; valid commit
	ok "commit nothing" -C repo commit t1 --json; valid commit
	ok "gate" -C repo gate t1 --json; valid gate
	assert_eq "$(json_get "$out" 'j["task"]')" "t1" "gate names its task"
	# A file the host runs: listed by diff and gate (which fails on it), then accepted.
	agent_sh t1 'mkdir -p .vscode && echo "{}" >.vscode/settings.json'
	ok "diff, a host file" -C repo diff t1 --json; valid diff
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.vscode/settings.json']" "diff lists it"
	expect_rc 1 "gate, a host file" -C repo gate t1 --json; valid gate
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.vscode/settings.json']" "gate lists it"
	# A run whose command cannot be executed, and a line of the log that is
	# not JSON: both are entries with an error {code, message}.
	expect_rc 127 "run nothing" -C repo run t1 -- ./no-such-command
	printf '{"event": "run", trunc\n' >>"$(git -C repo rev-parse --path-format=absolute --git-common-dir)/agenttask/logs/t1.jsonl"
	ok "log" -C repo log t1 --json; valid log
	assert_eq "$(json_get "$out" '[(e["event"], e["error"]["code"]) for e in j if "error" in e]')" \
		"[('run', 'exec'), ('corrupt', 'corrupt')]" "the errors of the log"
	ok "discard" -C repo discard t1 --json; valid discard
	ref=$(json_get "$out" 'j["ref"]')
	ok "trash" -C repo trash --json; valid trash
	assert_eq "$(json_get "$out" 'j[0]["ref"]')" "$ref" "discard and trash name the entry alike"
	ok "restore" -C repo restore t1 --json; valid restore
	ok "accept" -C repo accept t1 --json --override "settings reviewed"; valid accept
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.vscode/settings.json']" "accept lists it"
	ok "gc" -C repo gc --json; valid gc
	assert_eq "$(json_get "$out" 'j["failures"], all(a["failed"] is False for a in j["actions"])')" \
		"(0, True)" "gc: no failures"
	ok "ports" -C repo ports --json; valid ports
	"$AT" doctor --json >doctor.json || true
	python3 "$here/json_check.py" doctor doctor.json || fail "doctor"
}

test_errors_match_the_error_schema() {
	# What: failures of each kind with --json. Must: {"error": {code,
	# message}} with the exit status the command has without --json.
	make_repo repo
	ok "new" -C repo new t1
	expect_rc 1 "exists" -C repo new t1 --json; valid error
	assert_eq "$(json_get "$out" 'j["error"]["code"]')" "exists" "code"
	expect_rc 2 "unknown task" -C repo status nosuch --json; valid error
	expect_rc 2 "bad name" -C repo new 'bad name' --json; valid error
	expect_rc 2 "unknown option" -C repo commit --json --bogus; valid error
	expect_rc 2 "no repository" -C / list --json; valid error
	expect_rc 2 "run unknown task" -C repo run nosuch --json -- true; valid error
	expect_rc 2 "restore nothing" -C repo restore nosuch --json; valid error
	expect_rc 2 "accept unknown" -C repo accept nosuch --json; valid error
}

test_partial_accept_and_drop_match_their_schemas() {
	# What: drop -- PATHSPEC, a partial accept, and a pathspec that matches
	# nothing, with --json. Must: each the document docs/json.md describes.
	make_repo repo
	ok "new" -C repo new t1
	agent_sh t1 'echo a >a; echo b >b; echo c >c'
	ok "drop" -C repo drop t1 --json -- c; valid drop
	ok "accept a part" -C repo accept t1 --json -- a; valid accept
	assert_eq "$(json_get "$out" 'j["accepted_paths"], j["left_paths"]')" "(['a'], ['b'])" "paths"
	expect_rc 2 "no match" -C repo accept t1 --json -- nothing; valid error
	ok "accept the rest" -C repo accept t1 --json; valid accept
}

run_tests
