#!/usr/bin/env bash
# Published ports (run --publish, app/publish.c, sandbox/netns.c): a
# localhost per task. The host's 127.0.0.1:HOSTPORT reaches the sandbox's
# loopback port for the length of the run, and only that sandbox's;
# `agenttask ports` lists them. publish_user.sh runs it as uid 65534.
. "$(dirname "$0")/lib.sh"
require_user_namespaces
here=$(cd "$(dirname "$0")" && pwd)

# get PORT: the body of http://127.0.0.1:PORT/index.html, or "refused" / "error: ...".
get() {
	python3 - "$1" <<'PY'
import socket, sys, urllib.request
try:
    print(urllib.request.urlopen("http://127.0.0.1:%s/index.html" % sys.argv[1], timeout=10).read().decode().strip())
except Exception as e:
    r = getattr(e, "reason", e)
    print("refused" if isinstance(r, ConnectionRefusedError) else "error: %r" % (e,))
PY
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve NAME ARGS...: run NAME's http.server on its port 3000 in the
# background with ARGS (--publish ...), until NAME's worktree has "stop".
serve() {
	local name=$1
	shift
	"$AT" -C repo run "$name" "$@" -- sh -c \
		'python3 -m http.server 3000 --bind 127.0.0.1 >/dev/null 2>&1 & p=$!
		 while [ ! -e stop ]; do sleep 0.05; done; kill $p' >"$name.out" 2>"$name.err" &
	echo $! >"$name.pid"
}

stop() {
	touch "$(cd repo && "$AT" path "$1")/stop"
	wait "$(cat "$1.pid")" || true
}

# host_port NAME: the host port `ports --json` lists for NAME's port 3000.
host_port() {
	"$AT" -C repo ports "$1" --json |
		python3 -c 'import json,sys; p=[e["host_port"] for e in json.load(sys.stdin)["ports"] if e["port"] == 3000]; print(p[0] if p else "")'
}

listed() {
	[ -n "$(host_port "$1")" ]
}

answers() {
	[ "$(get "$1")" = "$2" ]
}

# one_line TEXT WHAT: agenttask's stderr is one line, holding TEXT.
one_line() {
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" 1 "$2: one line ($errout)"
	assert_contains "$errout" "$1" "$2"
}

new_task() {
	ok "new $1" -C repo new "$1"
	echo "I am $1" >"$(cd repo && "$AT" path "$1")/index.html"
}

test_three_tasks_serve_port_3000_each_as_itself() {
	# What: three tasks each serve HTTP on their port 3000 at once, each
	# published without a host port. Must: each gets a host port of its
	# own, and each host port answers with its own task's file.
	make_repo repo
	for t in a b c; do new_task $t; serve $t --publish 3000; done
	for t in a b c; do wait_until 20 listed $t || fail "$t's port is not listed: $(cat $t.err)"; done
	pa=$(host_port a) pb=$(host_port b) pc=$(host_port c)
	[ "$pa" != "$pb" ] && [ "$pb" != "$pc" ] && [ "$pa" != "$pc" ] || fail "ports shared: $pa $pb $pc"
	for t in a b c; do
		p=$(host_port $t)
		wait_until 20 answers "$p" "I am $t" || fail "$t's port $p answers '$(get "$p")'"
	done
	"$AT" -C repo ports --json >ports.json
	python3 "$here/json_check.py" ports ports.json || fail "ports --json against docs/json.md"
	for t in a b c; do stop $t; done
	assert_contains "$(cat a.err)" "published http://127.0.0.1:$pa/" "run says where"
}

test_published_port_refuses_once_the_run_ends() {
	# What: a client connects to a published port after its run ended.
	# Must: the host port refuses (nothing listens on it any more), and
	# `ports` no longer lists it.
	make_repo repo
	new_task a
	port=$(free_port)
	serve a --publish "$port:3000"
	wait_until 20 answers "$port" "I am a" || fail "no answer: $(get "$port") $(cat a.err)"
	stop a
	assert_eq "$(get "$port")" "refused" "the port after the run"
	ok "ports" -C repo ports --json
	assert_eq "$(json_get "$out" 'j["ports"]')" "[]" "nothing listed"
	ok "log" -C repo log a --json
	assert_eq "$(json_get "$out" '[(p["port"], p["host_port"]) for e in j if e["event"] == "run" for p in e.get("published", [])]')" \
		"[(3000, $port)]" "the run's audit entry names what it published"
	printf '%s' "$out" >log.json
	python3 "$here/json_check.py" log log.json || fail "log --json against docs/json.md"
}

test_host_side_listens_on_loopback_only() {
	# What: another machine (or a container on another address) connects to
	# the published port through one of the host's other addresses.
	# Must: the host's socket is bound to 127.0.0.1 alone; nothing listens
	# on any other address or on the wildcard.
	make_repo repo
	new_task a
	port=$(free_port)
	serve a --publish "$port:3000"
	wait_until 20 answers "$port" "I am a" || fail "no answer: $(cat a.err)"
	listeners=$(python3 - "$port" <<'PY'
import sys
port = int(sys.argv[1])
for f in ("/proc/net/tcp", "/proc/net/tcp6"):
    for line in open(f).read().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        addr, p = local.split(":")
        if int(p, 16) == port and state == "0A":
            print(addr)
PY
)
	assert_eq "$listeners" "0100007F" "the only listener on the port: 127.0.0.1"
	stop a
}

test_a_task_cannot_reach_another_tasks_published_port() {
	# What: a command of task b connects to task a's published host port,
	# and to port 3000 on its own loopback, to reach a's server.
	# Must: both are refused: b's loopback is b's own; a's port is on the
	# host's loopback, which no sandbox reaches.
	make_repo repo
	new_task a
	ok "new b" -C repo new b
	port=$(free_port)
	serve a --publish "$port:3000"
	wait_until 20 answers "$port" "I am a" || fail "no answer: $(cat a.err)"
	ok "b tries" -C repo run b -- python3 -c '
import socket, sys
for p in (int(sys.argv[1]), 3000):
    try:
        socket.create_connection(("127.0.0.1", p), timeout=5); print(p, "open")
    except OSError as e:
        print(p, type(e).__name__)' "$port"
	assert_eq "$out" "$port ConnectionRefusedError
3000 ConnectionRefusedError" "b reaches nothing of a"
	stop a
}

test_without_host_port_the_same_port_from_run_to_run() {
	# Without HOSTPORT: the task's port of last time while it is free.
	make_repo repo
	ok "new" -C repo new a
	ok "first" -C repo run a --publish 3000 -- true
	first=$(printf '%s\n' "$errout" | sed -n 's|.*published http://127.0.0.1:\([0-9]*\)/.*|\1|p')
	[ -n "$first" ] || fail "no port said: $errout"
	ok "second" -C repo run a --publish 3000 -- true
	assert_contains "$errout" "published http://127.0.0.1:$first/" "the same port again"
	# Taken meanwhile: another one, said.
	python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' "$first" &
	holder=$!
	wait_until 10 python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$first"
	ok "third" -C repo run a --publish 3000 -- true
	assert_not_contains "$errout" "127.0.0.1:$first/" "a port in use is not taken"
	kill $holder
}

test_run_json_says_where_its_ports_were() {
	# run --json: published, as the schema of docs/json.md says.
	make_repo repo
	ok "new" -C repo new a
	ok "run" -C repo run a --json --publish 3000 -- true
	printf '%s' "$out" >run.json
	python3 "$here/json_check.py" run run.json || fail "run --json does not match its schema"
	assert_eq "$(json_get "$out" '[(p["port"], p["url"] == "http://127.0.0.1:%d/" % p["host_port"]) for p in j["published"]]')" \
		"[(3000, True)]" "published"
	ok "run" -C repo run a --json -- true
	assert_eq "$(json_get "$out" '"published" in j')" "False" "none published, none said"
}

test_gc_sweeps_the_port_records_of_runs_and_tasks_gone() {
	# What: a published run killed with SIGKILL leaves its live record, and a
	# discarded task its assigned port. Must: `ports` never lists the dead
	# run, and `gc` removes both records (and says so), keeping those of a
	# task that is still there.
	make_repo repo
	local dir=repo/.git/agenttask/ports pid
	new_task a
	new_task b
	ok "b's port" -C repo run b --publish 3000 -- true
	serve a --publish 3000
	pid=$(cat a.pid)
	wait_until 30 listed a || fail "a's port never listed: $(cat a.err)"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	[ -n "$(ls "$dir" | grep '^a\.[0-9]*\.live$')" ] || fail "no live record left by the killed run: $(ls "$dir")"
	ok "ports" -C repo ports
	assert_not_contains "$out" "3000" "a dead run's port listed"
	ok "discard a" -C repo discard a
	assert_file "$dir/a.assigned"
	ok "gc" -C repo gc
	assert_contains "$out$errout" "stale published-port record" "gc says what it removed"
	[ -z "$(ls "$dir" | grep '^a\.')" ] || fail "a's records left: $(ls "$dir")"
	assert_file "$dir/b.assigned"
}

test_bad_publish_input_is_one_line_and_changes_nothing() {
	make_repo repo
	ok "new" -C repo new a
	port=$(free_port)
	python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' "$port" &
	holder=$!
	wait_until 10 python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$port"
	for bad in "70000" "0" "x" "3000:" ":3000" "1:2:3"; do
		expect_rc 2 "--publish $bad" -C repo run a --publish "$bad" -- touch ran
		one_line "invalid --publish '$bad': [HOSTPORT:]PORT, ports from 1 to 65535" "$bad"
	done
	expect_rc 2 "twice" -C repo run a --publish 3000 --publish 8080:3000 -- touch ran
	one_line "invalid --publish '8080:3000': the sandbox's port 3000 is published already" "twice"
	expect_rc 2 "host port twice" -C repo run a --publish 8080:3000 --publish 8080:3001 -- touch ran
	one_line "the host's port 8080 is published already" "host port twice"
	expect_rc 2 "in use" -C repo run a --publish 3001 --publish "$port:3000" -- touch ran
	one_line "agenttask: cannot publish '$port:3000': the host's port 127.0.0.1:$port is in use" "in use"
	expect_rc 2 "with --net" -C repo run a --net --publish 3000 -- touch ran
	one_line "cannot go with --net" "--net"
	assert_no_file "$(cd repo && "$AT" path a)/ran" "no run ran"
	ok "ports" -C repo ports --json
	assert_eq "$(json_get "$out" 'j["ports"]')" "[]" "nothing left published"
	kill $holder
}

test_run_configuration_publishes_a_repositorys_only_among_yours() {
	# What: the repository's run.json (the agent's to write) publishes a
	# port the person's config.json does not. Must: refused, one line.
	make_repo repo
	mkdir -p home/.config/agenttask repo/.agenttask
	export HOME=$PWD/home XDG_CONFIG_HOME=
	echo '{"run": {"publish": ["3000"]}}' >repo/.agenttask/run.json
	git -C repo add -A && git -C repo commit -q -m conf
	ok "new" -C repo new a
	expect_rc 2 "the repository's alone" -C repo run a -- true
	assert_contains "$errout" "publish '3000' is not among your config.json's" "refused"
	echo '{"run": {"publish": ["3000"]}}' >home/.config/agenttask/config.json
	ok "yours allows it" -C repo run a -- true
	assert_contains "$errout" "-> the sandbox's port 3000" "published"
}

run_tests
