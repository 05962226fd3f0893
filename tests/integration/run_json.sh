#!/usr/bin/env bash
# agenttask run --json for agent loops: always valid JSON, lossless, head
# and tail, interleaved output, why the run ended, resource use, --cwd, and
# errors as JSON. Python's json module is the oracle a loop would use.
. "$(dirname "$0")/lib.sh"

require_user_namespaces

setup() {
	make_repo repo
	ok "new t1" -C repo new t1
	WT=$(realpath -m "$out")
	agent_sh t1 'mkdir -p sub/deeper'
}

# py EXPR: EXPR over j, the JSON in $out (json.loads, strict), printed.
py() {
	printf '%s' "$out" | python3 -c 'import json,sys,base64; j=json.loads(sys.stdin.read()); r = ('"$1"'); print(r)'
}

test_bytes_are_kept() {
	# What: the command writes NUL, invalid UTF-8 and a cut UTF-8 character.
	# Must: json.loads takes it; text keeps NUL as \u0000 and shows bad bytes
	# as U+FFFD; stdout_base64 gives back every byte exactly.
	setup
	ok "run" -C repo run t1 --json -- sh -c "printf 'a\\000b\\377c\\342\\202'"
	assert_eq "$(py 'ascii(j["stdout"])')" "'a\\x00b\\ufffdc\\ufffd\\ufffd'" "text"
	assert_eq "$(py 'base64.b64decode(j["stdout_base64"]) == b"a\0b\xffc\xe2\x82"')" "True" "base64 exact"
	assert_eq "$(py 'j["stdout_truncated"], "stderr_base64" in j')" "(False, False)" "not truncated"
	ok "valid utf-8" -C repo run t1 --json -- printf 'caf\303\251 \342\202\254\n'
	assert_eq "$(py 'j["stdout"], "stdout_base64" in j')" "('café €\\n', False)" "valid text needs no base64"
}

test_head_and_tail() {
	# What: 200000 lines with the summary last, under a 4K cap. Must: the
	# head and the tail kept, a marker counting exactly what was dropped,
	# the default cap documented in the result.
	setup
	ok "run" -C repo run t1 --json --output-max 4K -- sh -c 'seq 1 200000; echo SUMMARY: 3 failed'
	assert_eq "$(py 'j["stdout"].startswith("1\n2\n3\n"), j["stdout"].endswith("200000\nSUMMARY: 3 failed\n"), j["output_max"]')" "(True, True, 4096)" "head and tail"
	total=$( (seq 1 200000; echo SUMMARY: 3 failed) | wc -c)
	assert_eq "$(py 'len(j["stdout"].encode()) - len("\n[agenttask: %d bytes dropped]\n" % j["stdout_dropped"]) + j["stdout_dropped"]')" "$total" "kept + dropped = all"
	ok "default" -C repo run t1 --json -- true
	assert_eq "$(py 'j["output_max"]')" "1048576" "default cap"
	expect_rc 2 "bad cap" -C repo run t1 --json --output-max 0 -- true
	assert_eq "$(py 'j["error"]["code"]')" "usage" "bad cap is a usage error"
}

test_no_split_character() {
	# What: 3-byte characters across both cuts of every small cap. Must: no
	# U+FFFD in the text (no character cut in two), no base64 needed.
	setup
	for cap in 7 8 9 10 11; do
		ok "cap $cap" -C repo run t1 --json --output-max "$cap" -- sh -c 'for i in $(seq 1 40); do printf "\342\202\254"; done'
		assert_eq "$(py '"\ufffd" in j["stdout"], "stdout_base64" in j')" "(False, False)" "cap $cap"
	done
}

test_interleaved_output() {
	# What: stdout and stderr written in turn, slowly. Must: output holds both
	# in the order they were written, beside the two streams.
	setup
	ok "run" -C repo run t1 --json -- sh -c 'echo 1; sleep 0.1; echo 2 >&2; sleep 0.1; echo 3; sleep 0.1; echo 4 >&2'
	assert_eq "$(py 'j["output"], j["stdout"], j["stderr"]')" "('1\\n2\\n3\\n4\\n', '1\\n3\\n', '2\\n4\\n')" "interleaved"
}

test_reason_and_resources() {
	# What: runs ending by exit, by a signal, by the timeout. Must: reason
	# says which; max RSS and CPU time are given.
	setup
	expect_rc 3 "exit" -C repo run t1 --json -- sh -c 'exit 3'
	assert_eq "$(py 'j["reason"], j["exit_code"], j["max_rss_kb"] > 0, j["user_cpu_ms"] >= 0, j["sys_cpu_ms"] >= 0')" "('exit', 3, True, True, True)" "exit"
	expect_rc 143 "signal" -C repo run t1 --json -- sh -c 'kill -TERM $$'
	assert_eq "$(py 'j["reason"], j["signal"]')" "('signal', 15)" "signal"
	expect_rc 124 "timeout" -C repo run t1 --json --timeout 0.3 -- sleep 5
	assert_eq "$(py 'j["reason"], j["timed_out"]')" "('timeout', True)" "timeout"
	expect_rc 127 "not found" -C repo run t1 --json -- no-such-command
	assert_eq "$(py 'j["reason"], j["error"]["code"]')" "('exit', 'exec')" "exec failure"
}

test_cwd() {
	# What: --cwd inside the worktree, and attempts to leave it (.., an
	# absolute path elsewhere, .git, a symbolic link the agent planted, a
	# directory it removed). Must: the command starts there; every escape is
	# refused before anything runs (on a layered task too, whose worktree
	# is its layers: the directory as the overlay shows it).
	setup
	ok "sub" -C repo run t1 --json --cwd sub/deeper -- pwd
	assert_eq "$(py 'j["stdout"]')" "$WT/sub/deeper" "cwd"
	ok "absolute inside" -C repo run t1 --json --cwd "$WT/sub" -- pwd
	assert_eq "$(py 'j["stdout"]')" "$WT/sub" "absolute cwd"
	agent_sh t1 'ln -s /etc evil'
	for bad in .. ../.. /etc /tmp .git evil sub/../../x nosuch; do
		expect_rc 2 "cwd $bad" -C repo run t1 --json --cwd "$bad" -- touch "$PWD/escaped"
		assert_eq "$(py 'list(j), j["error"]["code"]')" "(['error'], 'usage')" "cwd $bad refused"
		[ ! -e escaped ] || fail "ran with --cwd $bad"
	done
	# A directory of the base (a layered task's lower), then one the agent removed.
	ok "base dir" -C repo run t1 --json --cwd src -- pwd
	assert_eq "$(py 'j["stdout"]')" "$WT/src" "cwd in the base's directory"
	agent_sh t1 'rm -r src'
	expect_rc 2 "cwd removed" -C repo run t1 --json --cwd src -- true
	assert_eq "$(py 'j["error"]["code"]')" "usage" "a removed directory refused"
}

test_errors_are_json() {
	# What: agenttask's own failures with --json. Must: one JSON object on
	# stdout, {"error": {code, message}}, with the exit status it has
	# without --json; the message on stderr too.
	setup
	expect_rc 2 "unknown task" -C repo run nosuch --json -- true
	assert_eq "$(py 'j["error"]["code"], "nosuch" in j["error"]["message"]')" "('not-found', True)" "unknown task"
	assert_contains "$errout" "no such task 'nosuch'" "stderr"
	expect_rc 2 "bad option" -C repo run t1 --json --bogus -- true
	assert_eq "$(py 'j["error"]["code"]')" "usage" "bad option"
	expect_rc 2 "not a repository" -C / run t1 --json -- true
	assert_eq "$(py 'j["error"]["code"]')" "not-a-repository" "no repository"
	expect_rc 2 "status" -C repo status nosuch --json
	assert_eq "$(py 'j["error"]["code"]')" "not-found" "status too"
	# Without --json nothing changes on stdout.
	expect_rc 2 "plain" -C repo run nosuch -- true
	assert_no_output "$out" "no JSON without --json"
}

run_tests
