#!/usr/bin/env bash
# Run configuration (core/runconf.h, app/runconf.c): the user's
# ~/.config/agenttask/config.json and the repository's .agenttask/run.json,
# read from the task's base commit; profiles; precedence; and a repository
# file that can ask for less than the user gives, never more.
. "$(dirname "$0")/lib.sh"
require_user_namespaces

# A fake toolchain in a home of its own, the way rustup lays one out.
setup() {
	make_repo repo
	mkdir -p home/.config/agenttask home/.cargo/bin home/.rustup/toolchains/stable/bin
	printf '#!/bin/sh\necho "cargo $1 with $RUSTUP_HOME" ; cat "$RUSTUP_HOME/settings.toml"\n' \
		>home/.cargo/bin/cargo
	chmod +x home/.cargo/bin/cargo
	echo 'default_toolchain = "stable"' >home/.rustup/settings.toml
	HOMEDIR=$(cd home && pwd -P)
	export HOME=$HOMEDIR XDG_CONFIG_HOME=
	CONF=$HOMEDIR/.config/agenttask/config.json
}

user_config() {
	printf '%s\n' "$1" >"$CONF"
}

repo_config() {
	mkdir -p repo/.agenttask
	printf '%s\n' "$1" >repo/.agenttask/run.json
	git -C repo add .agenttask/run.json
	git -C repo commit -q -m "run config"
}

test_a_profile_with_rustup_like_binds_works() {
	setup
	user_config '{"profiles": {"rust": {
		"ro": ["~/.cargo", "~/.rustup"], "path": ["~/.cargo/bin"],
		"env": {"CARGO_HOME": "~/.cargo", "RUSTUP_HOME": "~/.rustup"}}}}'
	ok "new" -C repo new t
	ok "cargo through the profile" -C repo run t --profile rust -- cargo build
	assert_eq "$out" "cargo build with $HOMEDIR/.rustup
default_toolchain = \"stable\"" "the toolchain found, its env set"
	expect_rc 127 "without the profile" -C repo run t -- cargo build
	expect_rc 2 "an unknown profile" -C repo run t --profile go -- true
	assert_contains "$errout" "'go'" "names the profile"
	sbtest=$(HOME=$HOMEDIR "$AT" -C repo run t --profile rust -- sh -c 'touch ~/.cargo/x 2>&1 || true; touch "$CARGO_HOME/x" 2>/dev/null && echo WRITABLE; true')
	assert_not_contains "$sbtest" "WRITABLE" "ro binds are read-only"
}

test_precedence_user_repo_options() {
	setup
	user_config '{"run": {"env": {"A": "user", "B": "user", "C": "user"}, "limits": {"pids": 300}},
		"profiles": {"p": {"env": {"B": "user-profile"}}}}'
	repo_config '{"run": {"env": {"C": "repo", "D": "repo"}, "limits": {"pids": 200}},
		"profiles": {"p": {"env": {"D": "repo-profile"}}}}'
	ok "new" -C repo new t
	ok "env" -C repo run t --profile p --env A=cli -- sh -c 'echo $A $B $C $D'
	assert_eq "$out" "cli user-profile repo repo-profile" "lowest first: user, its profile, repo, its profile, options"
	ok "limits" -C repo run t --json -- true
	assert_eq "$(json_get "$out" 'j["limits"]["pids"]["value"]')" "200" "the repository's lower pids"
	ok "limits from the options" -C repo run t --pids 50 --json -- true
	assert_eq "$(json_get "$out" 'j["limits"]["pids"]["value"]')" "50" "--pids wins"
	ok "no config" -C repo run t --no-config -- sh -c 'echo "${A:-none}"'
	assert_eq "$out" "none" "--no-config reads neither file"
}

test_an_unknown_key_is_one_line_naming_file_and_key() {
	setup
	ok "new" -C repo new t
	local bad
	for bad in '{"run": {"limts": {}}}' '{"runs": {}}' '{"profiles": {"x": {"ro": ["~/a"], "rw": ["/"]}}}' \
		'{"run": {"limits": {"disk": "1G"}}}'; do
		user_config "$bad"
		expect_rc 2 "config $bad" -C repo run t -- true
		assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line for $bad"
		assert_contains "$errout" "'$CONF'" "names the file"
	done
	user_config '{"run": {"limts": {}}}'
	expect_rc 2 "bad key" -C repo run t -- true
	assert_contains "$errout" "'run.limts'" "names the key"
	for bad in '{"run": {"ro": ["relative"]}}' '{"run": {"env": {"A B": "x"}}}' \
		'{"run": {"limits": {"memory": "lots"}}}' '[1]' '{"run": {"ro": "~/x"}}'; do
		user_config "$bad"
		expect_rc 2 "config $bad" -C repo run t -- true
		assert_contains "$errout" "'$CONF'" "names the file"
	done
	user_config '{}'
	repo_config '{"run": {"cahce": []}}'
	ok "new u" -C repo new u
	expect_rc 2 "repo bad key" -C repo run u -- true
	assert_contains "$errout" ".agenttask/run.json': unknown key 'run.cahce'" "names the repository's file and the key"
}

# What: the agent writes .agenttask/run.json in its worktree (binding the
# user's ~/.ssh, say). Must: only the base commit's file counts.
test_the_worktree_file_is_never_read() {
	setup
	mkdir -p home/.ssh
	echo PRIVATE-KEY >home/.ssh/id_ed25519
	user_config '{"run": {"ro": ["~/.ssh"]}}'
	ok "new" -C repo new t
	user_config '{}'
	agent_sh t 'mkdir -p .agenttask && printf "%s\n" "$1" >.agenttask/run.json &&
		git add .agenttask/run.json && git commit -q -m plant' \
		'{"run": {"ro": ["~/.ssh"], "env": {"X": "planted"}}}'
	ok "run" -C repo run t -- sh -c "echo \${X:-none}; cat '$HOMEDIR/.ssh/id_ed25519' 2>&1; true"
	assert_contains "$out" "none" "the task's file was not read"
	assert_not_contains "$out" "PRIVATE-KEY" "the key stays out"
}

# What: a repository's run.json asks for the user's ~/.ssh, a host the user
# never allowed, a higher limit. Must: refused, one line naming the file and
# what it asked, nothing run; asking for less (within the user's, lower) works.
test_the_repository_asks_for_less_never_more() {
	setup
	mkdir -p home/.ssh home/.cache/pip
	echo PRIVATE-KEY >home/.ssh/id_ed25519
	user_config '{"run": {"ro": ["~/.cache"], "allow_hosts": ["pypi.org"], "limits": {"pids": 300}}}'
	local bad
	for bad in '{"run": {"ro": ["~/.ssh"]}}' '{"run": {"cache": ["~/.ssh"]}}' \
		'{"profiles": {"p": {"ro": ["/etc"]}}}' '{"run": {"allow_hosts": ["evil.example"]}}' \
		'{"run": {"limits": {"pids": 100000}}}'; do
		repo_config "$bad"
		ok "new" -C repo new t
		expect_rc 2 "repo $bad" -C repo run t --profile p -- sh -c 'echo RAN'
		assert_not_contains "$out" "RAN" "nothing ran for $bad"
		assert_contains "$errout" ".agenttask/run.json'" "names the repository's file"
		assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line"
		ok "discard" -C repo discard t
	done
	repo_config '{"run": {"cache": ["~/.cache/pip"], "allow_hosts": ["pypi.org"], "limits": {"pids": 100}},
		"profiles": {"p": {}}}'
	ok "new" -C repo new t
	ok "less is fine" -C repo run t --profile p --json -- sh -c "ls -d '$HOMEDIR/.cache/pip' ~/.cache/pip"
	assert_eq "$(json_get "$out" 'j["limits"]["pids"]["value"]')" "100" "a lower limit applies"
}

# What: a repository's run.json names a path that passes a check of the
# text but reaches the user's ~/.ssh: "~/.npm/../.ssh" against the user's
# cache ~/.npm (normalised only after the check), or a link planted below
# ~/.npm that points at ~/.ssh. Must: refused before anything runs, one
# line naming the repository's file and the path; the key is never read.
test_dotdot_and_links_below_a_user_path_do_not_widen() {
	setup
	mkdir -p home/.ssh home/.npm/pkgs
	echo PRIVATE-KEY >home/.ssh/id_ed25519
	ln -s "$HOMEDIR/.ssh" home/.npm/keys
	user_config '{"run": {"ro": ["~/.npm"], "cache": ["~/.npm"]}}'
	local bad
	for bad in '"run": {"cache": ["~/.npm/../.ssh"]}' '"run": {"ro": ["~/.npm/../.ssh"]}' \
		'"run": {"ro": ["~/.npm/./pkgs/../../.ssh"]}' '"run": {"ro": ["~/.npm//keys"]}' \
		'"run": {"ro": ["~/.npm/keys"]}' '"run": {"cache": ["~/.npm/keys"]}' \
		'"run": {"ro": ["~/.npm/keys/"]}'; do
		repo_config "{$bad, \"profiles\": {\"p\": {}}}"
		ok "new" -C repo new t
		expect_rc 2 "repo $bad" -C repo run t --profile p -- \
			sh -c "cat '$HOMEDIR/.ssh/id_ed25519' ~/.npm/keys/id_ed25519 2>/dev/null; echo RAN"
		assert_not_contains "$out" "RAN" "nothing ran for $bad"
		assert_not_contains "$out" "PRIVATE-KEY" "the key stays out for $bad"
		assert_contains "$errout" ".agenttask/run.json'" "names the repository's file"
		assert_contains "$errout" "'$HOMEDIR/.npm" "names the path"
		assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line"
		ok "discard" -C repo discard t
	done
	repo_config '{"run": {"ro": ["~/.npm/pkgs"]}, "profiles": {"p": {}}}'
	ok "new" -C repo new t
	ok "a real directory below the user's is fine" -C repo run t --profile p -- \
		ls -d "$HOMEDIR/.npm/pkgs"
}

# A JSON-RPC request line calling TOOL with ARGS (a JSON object).
mcp_call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
		"$1" "$2" "$3"
}

# mcp_session [MCP-OPTIONS...] <requests: each request sent once the last is
# answered (the end of the input would cancel a run under way); the answers,
# one a line, in $out.
mcp_session() {
	out=$(python3 -c '
import json, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion":
        "2025-11-25", "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}}}
for line in [json.dumps(init)] + [l for l in sys.stdin.read().splitlines() if l.strip()]:
    p.stdin.write(line.encode() + b"\n")
    p.stdin.flush()
    while True:
        answer = p.stdout.readline()
        if not answer:
            sys.exit("the server ended early")
        if "id" in json.loads(answer):
            print(answer.decode().strip())
            break
p.stdin.close()
sys.exit(p.wait())
' "$AT" -C repo mcp "$@")
}

# The answer to request ID in $out: "ok TEXT" or "error TEXT" (the tool's text).
mcp_answer() {
	printf '%s\n' "$out" | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") != int(sys.argv[1]):
        continue
    if "error" in m:
        print("rpc-error", m["error"]["message"])
    else:
        r = m["result"]
        print("error" if r.get("isError") else "ok", r["content"][0]["text"])
' "$1"
}

# What: an agent (through MCP) commits a run.json of its own on its task's
# branch, then makes a new task from that branch (or from the commit), so
# that its file decides the new task's sandbox. Must: task_new refuses a
# base on no branch of the person's; a base on the person's branch works,
# and its run uses the person's run.json, not the agent's.
test_an_agent_never_picks_the_commit_whose_run_json_applies() {
	setup
	user_config '{"run": {"ro": ["~/.cargo"]}}'
	repo_config '{"run": {"env": {"X": "person"}}}'
	mcp_session <<EOF_
$(mcp_call 1 task_new '{"task": "t1"}')
EOF_
	assert_contains "$(mcp_answer 1)" "ok " "task_new"
	agent_sh t1 'printf "%s\n" "$1" >.agenttask/run.json && git commit -q -am "the run.json of the agent"' \
		'{"run": {"ro": ["~/.cargo"], "env": {"X": "agent"}}}'
	local tip
	tip=$(git -C repo rev-parse agenttask/t1)
	mcp_session <<EOF_
$(mcp_call 1 task_new '{"task": "t2", "base": "agenttask/t1"}')
$(mcp_call 2 task_new "{\"task\": \"t3\", \"base\": \"$tip\"}")
$(mcp_call 3 task_new '{"task": "t4", "base": "main"}')
$(mcp_call 4 run '{"task": "t4", "command": "echo X=$X"}')
EOF_
	assert_contains "$(mcp_answer 1)" "error" "a task's branch as base"
	assert_contains "$(mcp_answer 1)" "'agenttask/t1' is on none of your branches" "names the base"
	assert_contains "$(mcp_answer 2)" "on none of your branches" "a task's commit as base"
	assert_contains "$(mcp_answer 3)" "ok " "the person's branch"
	assert_contains "$(mcp_answer 4)" "X=person" "the person's run.json applies"
	expect_rc 2 "no t2" -C repo path t2
	expect_rc 2 "no t3" -C repo path t3
	# The person may: the command line is the person's.
	ok "the person's choice" -C repo new t5 --base agenttask/t1
}

run_tests
