#!/usr/bin/env bash
# Setup (app/setup.c): the run configuration's "setup" commands, run by
# `new` in the new task's sandbox; their network only when their entry
# allows it; a failure or a hang keeps the task and says so, and `status`
# shows it. setup_user.sh runs it as uid 65534.
. "$(dirname "$0")/lib.sh"
require_user_namespaces
here=$(cd "$(dirname "$0")" && pwd)

setup_env() {
	make_repo repo
	mkdir -p home/.config/agenttask
	export HOME=$PWD/home XDG_CONFIG_HOME=
	CONF=$HOME/.config/agenttask/config.json
}

repo_config() {
	mkdir -p repo/.agenttask
	printf '%s\n' "$1" >repo/.agenttask/run.json
	git -C repo add .agenttask/run.json
	git -C repo commit -q -m "run config"
}

setup_state() {
	"$AT" -C repo status "$1" --json | python3 -c 'import json,sys; s=json.load(sys.stdin)["setup"]; print(s and (s["state"], s["done"], s["steps"], s.get("exit_code"), s.get("timed_out")))'
}

test_setup_runs_in_the_new_tasks_sandbox() {
	setup_env
	echo '{"setup": [["sh", "-c", "echo \"$HOME\" >home.txt"], ["sh", "-c", "cat /proc/1/comm >init.txt"]]}' >"$CONF"
	ok "new" -C repo new t
	WT=$(cd repo && "$AT" path t)
	ok "HOME inside" -C repo run t -- sh -c 'echo "$HOME"'
	assert_eq "$(cat "$WT/home.txt")" "$out" "in the sandbox's HOME"
	assert_eq "$(cat "$WT/init.txt")" "agenttask" "under the sandbox's init (pid 1 of its own pid namespace)"
	assert_eq "$(setup_state t)" "('done', 2, 2, None, None)" "status says done"
	ok "status" -C repo status t
	assert_contains "$out" "setup:        done (2 commands)" "status text"
	ok "list" -C repo list --json
	printf '%s' "$out" >list.json
	python3 "$here/json_check.py" list list.json || fail "list --json does not match its schema"
	assert_eq "$(json_get "$out" '[(e["name"], e["setup"]["state"], e["setup"]["done"]) for e in j]')" \
		"[('t', 'done', 2)]" "list --json has it as status does"
	rm "$CONF"
	ok "no setup" -C repo new u --quiet
	assert_eq "$(setup_state u)" "None" "a task without setup has none"
	ok "list" -C repo list --json
	assert_eq "$(json_get "$out" '[e["setup"] for e in j if e["name"] == "u"]')" "[None]" "list: none"
}

test_failed_setup_keeps_the_task_and_says_so() {
	setup_env
	repo_config '{"setup": [["touch", "one"], ["sh", "-c", "exit 4"], ["touch", "three"]]}'
	expect_rc 1 "new" -C repo new t --quiet
	assert_eq "$errout" "agenttask: setup of 't' failed: 'sh -c exit 4' exited 4; the task is kept" "one line"
	WT=$(cd repo && "$AT" path t)
	assert_file "$WT/one" "the first ran"
	assert_no_file "$WT/three" "none after the failure"
	assert_eq "$(setup_state t)" "('failed', 1, 3, 4, False)" "status says failed"
	"$AT" -C repo status t --json >status.json
	python3 "$here/json_check.py" status status.json || fail "status --json against docs/json.md"
	expect_rc 1 "new --json" -C repo new t2 --json
	printf '%s' "$out" >new.json
	python3 "$here/json_check.py" new new.json || fail "new --json against docs/json.md"
	assert_eq "$(json_get "$out" 'j["setup"]["state"]')" "failed" "new --json has setup"
	ok "status" -C repo status t
	assert_contains "$out" "setup:        failed: 'sh -c exit 4' exited 4" "status text"
	ok "the task is there" -C repo run t -- true
}

test_a_hanging_setup_is_killed_at_its_timeout() {
	setup_env
	echo '{"setup": [{"run": ["sleep", "120"], "timeout": 1}]}' >"$CONF"
	t0=$SECONDS
	expect_rc 1 "new" -C repo new t --quiet
	[ $((SECONDS - t0)) -lt 60 ] || fail "the hang was not cut"
	assert_eq "$errout" "agenttask: setup of 't' failed: 'sleep 120' timed out and was killed; the task is kept" "one line"
	assert_eq "$(setup_state t)" "('failed', 0, 1, 124, True)" "status: timed out"
	echo '{"setup_timeout": 1, "setup": [["sleep", "120"]]}' >"$CONF"
	expect_rc 1 "new, the file's timeout" -C repo new u --quiet
	assert_contains "$errout" "timed out" "setup_timeout"
}

test_setup_has_the_network_only_its_entry_allows() {
	# What: a setup command reaches out: the proxy, or a host the run
	# configuration allows for runs. Must: an entry without allow_hosts is
	# offline (no proxy at all, even with run.allow_hosts in the file); an
	# entry with allow_hosts has the proxy, for those hosts.
	setup_env
	cat >"$CONF" <<'JSON'
{"run": {"allow_hosts": ["example.org"]},
 "setup": [["sh", "-c", "echo \"${HTTPS_PROXY:-none}\" >offline.txt; python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 3128), timeout=5)' 2>/dev/null && echo open >>offline.txt || echo closed >>offline.txt"],
           {"run": ["sh", "-c", "echo \"${HTTPS_PROXY:-none}\" >online.txt; python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 3128), timeout=5)' && echo open >>online.txt"], "allow_hosts": ["example.com"]}]}
JSON
	ok "new" -C repo new t --quiet
	WT=$(cd repo && "$AT" path t)
	assert_eq "$(cat "$WT/offline.txt")" "none
closed" "no allow_hosts: offline"
	assert_eq "$(cat "$WT/online.txt")" "http://127.0.0.1:3128
open" "allow_hosts: the proxy"
	ok "log" -C repo log t --json
	assert_eq "$(json_get "$out" '[e.get("network", {}).get("allow_hosts") if e.get("network") else None for e in j if e["event"] == "run"]')" \
		"[None, ['example.com']]" "each run's allowlist, its entry's alone"
}

test_a_repositorys_setup_reaches_only_your_hosts() {
	# What: the repository's run.json (the agent's to write) gives a setup
	# command a host the person never allowed, or more time than theirs.
	# Must: refused, one line; no setup command runs.
	setup_env
	echo '{"run": {"allow_hosts": ["registry.npmjs.org"]}}' >"$CONF"
	repo_config '{"setup": [["touch", "ran"], {"run": ["npm", "ci"], "allow_hosts": ["evil.example"]}]}'
	expect_rc 2 "new" -C repo new t --quiet
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" 1 "one line"
	assert_contains "$errout" "setup[1] reaches 'evil.example', which is not among your config.json's hosts" "refused"
	assert_no_file "$(cd repo && "$AT" path t)/ran" "nothing ran"
	repo_config '{"setup": [{"run": ["touch", "ran"], "allow_hosts": ["registry.npmjs.org"], "timeout": 5000}]}'
	expect_rc 2 "new" -C repo new u --quiet
	assert_contains "$errout" "setup[0]'s timeout is more than allowed" "more time"
	repo_config '{"setup": [{"run": ["touch", "ran"], "allow_hosts": ["registry.npmjs.org"]}]}'
	ok "among yours" -C repo new v --quiet
	assert_file "$(cd repo && "$AT" path v)/ran" "it ran"
}

test_bad_setup_entries_are_one_line() {
	setup_env
	for bad in '{"setup": [[]]}' '{"setup": [{"allow_hosts": ["a"]}]}' '{"setup": [{"run": ["x"], "timeout": 0}]}' \
		'{"setup": "npm ci"}' '{"setup": [{"run": ["x"], "shell": true}]}'; do
		printf '%s\n' "$bad" >"$CONF"
		expect_rc 2 "$bad" -C repo new "t$RANDOM" --quiet
		assert_eq "$(printf '%s\n' "$errout" | wc -l)" 1 "$bad: one line ($errout)"
		assert_contains "$errout" "setup" "$bad names the key"
	done
}

run_tests
