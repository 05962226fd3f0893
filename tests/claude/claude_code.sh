#!/usr/bin/env bash
# A real agent CLI run whole inside `agenttask run` (issue 11 §4): Claude
# Code (the npm package pinned in tests/claude/package-lock.json) against a
# stand-in for the model API (fake_api.py) on the host's loopback, reached
# through --forward. run.sh runs this as the caller and as uid 65534.
#
# The agent is the attacker here as everywhere: whatever it runs, nothing
# outside the task's worktree may change. Its edit must land in the
# worktree, show in `agenttask diff`, and be all the diff shows; the
# repository's common dir must stay byte for byte as it was (but for
# agenttask's own state: the log, the task's home); the caller's HOME must
# not gain a ~/.claude or anything else: Claude Code's configuration and
# its conversation live in the task's lasting home.
#
# CLAUDE_CODE names the package's directory (default: ./node_modules's);
# CLAUDE_NODE another node to run it with, whose directory is bound
# read-only too (default: node, the system's).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"

CC=${CLAUDE_CODE:-$here/node_modules/@anthropic-ai/claude-code}
NODE=${CLAUDE_NODE:-node}
BIND=(--ro "$CC")
[ -z "${CLAUDE_NODE:-}" ] || BIND+=(--ro "$(dirname "$CLAUDE_NODE")")
require_user_namespaces

# The task: greet.sh prints "helo", test.sh wants "hello".
task() {
	git init -q -b main repo
	git -C repo config user.name "Repo User"
	git -C repo config user.email "user@example.com"
	printf '#!/bin/sh\necho helo\n' >repo/greet.sh
	printf '%s\n' 'out=$(sh greet.sh)' \
		'if [ "$out" = hello ]; then echo "test: PASS"; else echo "test: FAIL: got $out"; exit 1; fi' \
		>repo/test.sh
	git -C repo add -A
	git -C repo commit -q -m "greet, with a test"
	ok "new t1" -C repo new t1
	WT=$(realpath "$out")
	COMMON=$(realpath "$(git -C repo rev-parse --absolute-git-dir)")
}

# The caller's HOME: a file of its own, nothing else.
caller_home() {
	export HOME=$PWD/home
	mkdir "$HOME"
	echo 'export PS1=caller' >"$HOME/.profile"
}

# Every path, type, mode and content below $1, but for the paths matching
# the find expression in the rest of the arguments (if any).
tree_sum() {
	local top=$1
	shift
	[ $# -gt 0 ] || set -- -false
	(cd "$top" && find . \( "$@" \) -prune -o -printf '%p %y %m\n' | LC_ALL=C sort &&
		find . \( "$@" \) -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum) |
		sha256sum
}

# The common dir but for agenttask's own state (the audit log, the task's
# home and git layer, its checkpoints under refs/agenttask/) and new objects (a run records the worktree's full
# state as a tree): the objects there before must stay as they were. No
# ref moves: the agent commits nothing.
common_sum() {
	local before=$PWD/objects.before
	[ -f "$before" ] || (cd "$COMMON" && find ./objects -type f | LC_ALL=C sort >"$before")
	tree_sum "$COMMON" -path ./agenttask -o -path ./objects -o -path ./refs/agenttask -o \
		-path ./logs/refs/agenttask
	(cd "$COMMON" && xargs -d '\n' sha256sum <"$before" && find ./objects -printf '%p %y %m\n' |
		grep -v '^\./objects/[0-9a-f][0-9a-f]' | LC_ALL=C sort) | sha256sum
}

# fake_api: the stand-in, serving on a free port of the host's loopback
# ($PORT), logging to $PWD/api.log.
fake_api() {
	python3 "$here/fake_api.py" "$WT" "$PWD/api.log" "$PWD/port" &
	API_PID=$!
	local i
	for i in $(seq 1 100); do
		[ -s port ] && break
		sleep 0.1
	done
	PORT=$(cat port) || fail "the stand-in API did not start"
	trap 'kill "$API_PID" 2>/dev/null' EXIT
}

# claude ARGS...: Claude Code in task t1's sandbox, no TTY, stdin empty, its
# package read-only; its stdout in $out.
claude() {
	set +e
	out=$("$AT" -C repo run t1 --timeout 300 --forward "$PORT" "${BIND[@]}" -- \
		env ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
		"$NODE" "$CC/cli.js" -p "$@" \
		--allowedTools Read,Edit,Write,Bash --permission-mode acceptEdits \
		</dev/null 2>"$PWD/claude.err")
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "claude exited $rc: $out $(cat claude.err)"
}

# api EXPR: a Python expression on `reqs` (the logged requests: method,
# path, body) and `turns` (the main model's requests: those with tools).
api() {
	python3 - "$PWD/api.log" "$1" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
turns = [r["body"] for r in reqs if r["method"] == "POST" and (r["body"] or {}).get("tools")]
def results(body):
	return [b for m in body["messages"] if isinstance(m["content"], list)
		for b in m["content"] if b.get("type") == "tool_result"]
def text(block):
	c = block.get("content")
	return c if isinstance(c, str) else "".join(x.get("text", "") for x in c or [])
print(eval(sys.argv[2]))
PY
}

test_claude_code_edits_and_tests_inside_the_sandbox() {
	task
	caller_home
	fake_api
	local home_before common_before
	home_before=$(tree_sum "$HOME")
	common_before=$(common_sum)

	claude "Fix the greeting so that test.sh passes"
	assert_eq "$out" "Fixed the greeting; the test passes." "the agent's last word is the script's"

	# The conversation went as scripted: four turns of the main model, each
	# with one more tool result, the test's own output in the last one.
	assert_eq "$(api 'len(turns)')" 4 "the main model was asked four times"
	assert_eq "$(api '[len(results(t)) for t in turns]')" "[0, 1, 2, 3]" "one tool result more each turn"
	assert_eq "$(api '[r["tool_use_id"] for r in results(turns[3])]')" \
		"['toolu_read', 'toolu_edit', 'toolu_bash']" "Read, Edit and Bash answered"
	assert_eq "$(api '[bool(r.get("is_error")) for r in results(turns[3])]')" \
		"[False, False, False]" "no tool failed: $(api "text(results(turns[3])[2])")"
	assert_contains "$(api 'text(results(turns[3])[0])')" "echo helo" "Read gave the worktree's file"
	assert_contains "$(api 'text(results(turns[3])[2])')" "test: PASS" \
		"the test's output came back to the model"
	assert_eq "$(api 'all(r["body"].get("stream") for r in reqs if r["path"].split("?")[0] == "/v1/messages")')" \
		True "every message was streamed"

	# The edit is in the worktree, and it is the whole change.
	assert_eq "$(cat "$WT/greet.sh")" "$(printf '#!/bin/sh\necho hello')" "the edit landed"
	ok "diff" -C repo diff t1
	assert_contains "$out" "+echo hello" "diff shows the edit"
	ok "diff --name-only" -C repo diff t1 --name-only
	assert_eq "$out" "greet.sh" "the edit is all the diff shows"

	# Nothing else changed; Claude Code's state is in the task's home.
	assert_eq "$(common_sum)" "$common_before" "the common dir is as it was"
	assert_eq "$(tree_sum "$HOME")" "$home_before" "the caller's HOME is as it was"
	assert_no_file "$HOME/.claude" "no ~/.claude for the caller"
	assert_file "$COMMON/agenttask/homes/t1/.claude.json" "Claude Code's settings in the task's home"
	assert_fsck repo

	# Every connection the run made went to the stand-in, through the
	# forward. (Claude Code also calls api.anthropic.com itself, whatever
	# ANTHROPIC_BASE_URL says: that goes to the proxy, which refuses it.)
	ok "log" -C repo log t1 --json
	local conns='[c for r in j if r["event"] == "run" for c in r["network"]["connections"]]'
	assert_eq "$(json_get "$out" "{(c['proto'], c['port']) for c in $conns if c['allowed']}")" \
		"{('forward', $PORT)}" "only the forwarded port was reached"
	assert_eq "$(json_get "$out" "{c['host'] for c in $conns if c['proto'] != 'forward' and not c['allowed']} <= {'api.anthropic.com'}")" \
		True "nothing else was tried but the real API, refused"
}

test_claude_code_continues_its_conversation_from_the_tasks_home() {
	# The task's home lasts (issue 12): a second run's --continue sends the
	# first run's whole conversation back to the model.
	task
	caller_home
	fake_api
	claude "Fix the greeting so that test.sh passes"
	claude --continue "Anything left?"
	assert_eq "$(api 'len(turns)')" 5 "one more turn"
	assert_eq "$(api 'len(results(turns[4]))')" 3 "the first run's tool results came back"
	assert_contains "$(api 'json.dumps(turns[4]["messages"])')" "Anything left?" "the new prompt"
	assert_no_file "$HOME/.claude" "no ~/.claude for the caller"
}

run_tests
