#!/usr/bin/env bash
# `agenttask run --allow-host / --forward / --deny-private` and a policy
# check's allow_hosts, end to end: the command runs in the sandbox (its own
# network namespace, loopback only) and reaches the remote hosts net_lib.sh
# makes only through the proxy agenttask serves from outside. Every case runs
# as root and as uid 65534.
#
# The attacker is the sandboxed command. It tries to reach what it was not
# allowed: other names, raw addresses, other ports, names that resolve to the
# host's loopback, metadata or own addresses, the network around the proxy
# (raw TCP, UDP), the host's abstract unix sockets, and the host's loopback
# services beyond the one forwarded port.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"
net_setup "$@"

NETDIR=$(dirname "$NET_CERT")
cp "$AT" "$NETDIR/agenttask"
cp "$(dirname "$0")/net_client.py" "$NETDIR/"
chmod 755 "$NETDIR/agenttask" "$NETDIR/net_client.py"
ATBIN=$NETDIR/agenttask
CLIENT="python3 $NETDIR/net_client.py"
# A second service on the host's loopback, which no forward names.
NET_LOOPBACK_OTHER=$((NET_LOOPBACK_PORT + 1))
python3 -m http.server --bind 127.0.0.1 "$NET_LOOPBACK_OTHER" >/dev/null 2>&1 </dev/null &
OTHER_PID=$!
# An abstract unix socket listening in the host's network namespace.
ABSTRACT=agenttask-net-test-$$
python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind("\0"+sys.argv[1]); s.listen(); time.sleep(3600)' \
	"$ABSTRACT" </dev/null >/dev/null 2>&1 &
ABSTRACT_PID=$!
trap '_net_status=$?; kill $OTHER_PID $ABSTRACT_PID 2>/dev/null; net_teardown; (exit $_net_status); _at_exit' EXIT

# A repository and task 't' owned by the user of the case, in the test's directory.
setup_task() {
	[ "${NET_USER:-root}" != nobody ] || chown 65534:65534 .
	as_user git init -q -b main repo
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q --allow-empty -m init
	as_user "$ATBIN" -C repo new t >/dev/null
}

# atn ARGS...: agenttask -C repo ARGS as the case's user; $out, $errout, $rc.
atn() {
	set +e
	as_user "$ATBIN" -C repo "$@" >out.txt 2>err.txt
	rc=$?
	set -e
	out=$(cat out.txt)
	errout=$(cat err.txt)
}

case_allowed_host_is_reached_over_http_https_and_raw_tcp() {
	setup_task
	atn run t --allow-host remote.test --allow-host remote.test:7000 --ro "$NETDIR" -- sh -c "
		curl -s --max-time 20 http://remote.test/p; echo
		curl -s --max-time 20 --cacert '$NET_CERT' https://remote.test/s; echo
		$CLIENT connect 127.0.0.1:3128 remote.test 7000"
	assert_eq "$rc" 0 "the run succeeds: $errout"
	assert_contains "$out" "hello at 198.18.0.2 host=remote.test path=/p" "http through the proxy"
	assert_contains "$out" "hello at 198.18.0.2 host=remote.test path=/s" "https through CONNECT"
	assert_contains "$out" "banner at 198.18.0.2" "raw TCP through CONNECT"
	assert_contains "$out" "echo ping" "raw TCP echoes"
}

case_unlisted_names_raw_ips_and_ports_are_refused() {
	setup_task
	atn run t --allow-host remote.test --ro "$NETDIR" -- sh -c "
		curl -s --max-time 20 http://other.test/; echo
		curl -s -o /dev/null -w 'raw-ip %{http_code}\n' --max-time 20 http://198.18.0.2/
		curl -s -o /dev/null -w 'https-other %{http_connect}\n' --max-time 20 https://other.test/
		$CLIENT connect 127.0.0.1:3128 remote.test 7000"
	assert_contains "$out" "'other.test:80' is not allowed" "another name, named in the 403"
	assert_contains "$out" "raw-ip 403" "the raw IP of an allowed name"
	assert_contains "$out" "https-other 403" "another name over CONNECT"
	assert_contains "$out" "'remote.test:7000' is not allowed" "another port"
	assert_not_contains "$out" "hello at" "nothing refused is reached"
	assert_not_contains "$out" "banner" "nothing refused is reached"
}

case_names_of_refused_addresses_are_refused_even_when_allowed() {
	local h allow=()
	setup_task
	for h in evil-loopback evil-metadata evil-alibaba evil-self evil-linklocal; do
		allow+=(--allow-host "$h.test")
	done
	atn run t "${allow[@]}" --allow-host 169.254.169.254 --allow-host '[fd00:ec2::254]' \
		--allow-host 127.0.0.1 -- sh -c '
		for u in evil-loopback.test evil-metadata.test evil-alibaba.test evil-self.test \
			evil-linklocal.test 169.254.169.254 [fd00:ec2::254] 127.0.0.1; do
			curl -s --max-time 20 -x http://127.0.0.1:3128 --noproxy "" -g "http://$u/"; echo
		done'
	assert_eq "$(grep -c 'never dialled' <<<"$out")" 8 "all eight refused: $out"
	assert_contains "$out" "a cloud metadata address" "the class is named"
	assert_contains "$out" "allowed by 'evil-metadata.test'" "the rule is named"
	assert_not_contains "$out" "hello at" "the remote (where these are routed) never answers"
}

# Around the proxy: the sandbox's network namespace has only loopback.
case_raw_tcp_and_udp_around_the_proxy_reach_nothing() {
	setup_task
	atn run t --allow-host remote.test --ro "$NETDIR" -- sh -c "
		$CLIENT direct 198.18.0.2 80
		$CLIENT direct 169.254.169.254 80
		$CLIENT direct 127.0.0.1 $NET_LOOPBACK_PORT
		python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b\"x\", (\"198.18.0.2\", 53)); print(\"udp sent\")
except OSError as e:
    print(\"udp error\", e.strerror)'
		curl -s --max-time 5 --noproxy '*' http://remote.test/ || echo 'no proxy: failed'"
	assert_eq "$(grep -c '^error Network is unreachable' <<<"$out")" 2 "raw TCP off the box: $out"
	assert_contains "$out" "error Connection refused" "the host's loopback is not the sandbox's"
	assert_contains "$out" "udp error Network is unreachable" "UDP"
	assert_contains "$out" "no proxy: failed" "a client that ignores the proxy"
}

case_hosts_abstract_sockets_are_unreachable() {
	setup_task
	atn run t --allow-host remote.test -- python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0" + sys.argv[1]); print("connected")
except OSError as e:
    print("error", e.strerror)' "$ABSTRACT"
	assert_eq "$out" "error Connection refused" "the host's abstract socket"
}

# The command holds no descriptor of the proxy's sockets and cannot take the
# proxy's port (to impersonate it to other processes in the sandbox).
case_the_command_cannot_take_the_proxys_socket_or_port() {
	setup_task
	atn run t --allow-host remote.test -- python3 -c 'import os, socket
def link(f):
    try:
        return os.readlink("/proc/self/fd/" + f)
    except OSError:
        return ""
print("sockets:", sum(1 for f in os.listdir("/proc/self/fd") if link(f).startswith("socket:")))
s = socket.socket()
try:
    s.bind(("127.0.0.1", 3128)); print("bound")
except OSError as e:
    print("bind", e.strerror)'
	assert_contains "$out" "sockets: 0" "no proxy socket inherited: $out $errout"
	assert_contains "$out" "bind Address already in use" "the port is the proxy's"
}

case_300_concurrent_connections() {
	setup_task
	atn run t --allow-host remote.test:7000 --ro "$NETDIR" -- \
		python3 "$NETDIR/net_client.py" many 127.0.0.1:3128 remote.test 7000 300
	assert_contains "$out" "open at once: 300" "300 tunnels at once: $errout"
	assert_contains "$out" "echoed: 300" "all 300 work"
}

case_forward_reaches_that_loopback_port_only() {
	setup_task
	atn run t --forward "$NET_LOOPBACK_PORT" --forward "$NET_LOOPBACK_PORT:8080" -- sh -c "
		curl -s --max-time 10 http://127.0.0.1:$NET_LOOPBACK_PORT/
		curl -s --max-time 10 -g 'http://[::1]:$NET_LOOPBACK_PORT/'
		curl -s --max-time 10 http://localhost:8080/
		curl -s --max-time 5 http://127.0.0.1:$NET_LOOPBACK_OTHER/ || echo 'other: refused'
		curl -s --max-time 5 -x http://127.0.0.1:3128 --noproxy '' \
			http://127.0.0.1:$NET_LOOPBACK_OTHER/; echo"
	assert_eq "$(grep -c '^host loopback service' <<<"$out")" 3 "forwarded, on v4, v6 and INNER: $out $errout"
	assert_contains "$out" "other: refused" "another host port is not there"
	assert_contains "$out" "is not allowed" "nor reachable through the proxy"
	atn log t --json
	json_get "$out" '[c["proto"] for r in j for c in r.get("network", {}).get("connections", [])]' >protos.txt
	assert_contains "$(cat protos.txt)" "'forward'" "the forward is logged"
}

# What: the command asks the proxy for a private address (fd00:18::2, a
# ULA; the same class as RFC 1918 and 100.64/10) that some source of
# allowances lets through: a name that resolves to it, the IP literal
# itself, on the command line, in the user's config.json, in the
# repository's run.json (which also asks for allow_private), in a policy
# check. Must: refused from every source unless the person says
# --allow-private or allow_private in their own config.json; a repository's
# allow_private is an error; --deny-private still wins.
case_private_addresses_are_refused_unless_the_person_allows() {
	local get='curl -s --max-time 20 http://private6.test/; curl -s --max-time 20 -g http://[fd00:18::2]/'
	setup_task
	atn run t --allow-host private6.test --allow-host '[fd00:18::2]' -- sh -c "$get"
	assert_eq "$(grep -c 'a private address, which is never dialled' <<<"$out")" 2 \
		"by name and by literal, refused by default: $out"
	assert_not_contains "$out" "hello at" "nothing reached"
	atn run t --allow-host private6.test --allow-host '[fd00:18::2]' --allow-private -- sh -c "$get"
	assert_eq "$(grep -c 'hello at fd00:18::2' <<<"$out")" 2 "reached with --allow-private: $out"
	atn run t --allow-host private6.test --allow-private --deny-private -- sh -c "$get"
	assert_contains "$out" "a private address, which is never dialled" "--deny-private wins"

	user_conf '{"run": {"allow_hosts": ["private6.test", "[fd00:18::2]"]}}'
	atx run t -- sh -c "$get"
	assert_eq "$(grep -c 'a private address, which is never dialled' <<<"$out")" 2 \
		"the user's allow_hosts, refused by default: $out"
	user_conf '{"run": {"allow_hosts": ["private6.test", "[fd00:18::2]"], "allow_private": true}}'
	atx run t -- sh -c "$get"
	assert_eq "$(grep -c 'hello at fd00:18::2' <<<"$out")" 2 "the user's allow_private: $out"

	user_conf '{"run": {"allow_hosts": ["private6.test"]}}'
	repo_task t2 '{"run": {"allow_hosts": ["private6.test"], "allow_private": true}}'
	atx run t2 -- sh -c "$get"
	assert_eq "$rc" 2 "the repository's allow_private: $errout"
	assert_contains "$errout" ":.agenttask/run.json': allow_private is yours to give" "named"
	assert_not_contains "$out" "hello at" "nothing ran"
	repo_task t3 '{"run": {"allow_hosts": ["private6.test"]}}'
	atx run t3 -- curl -s --max-time 20 http://private6.test/
	assert_contains "$out" "a private address, which is never dialled" "the repository's allow_hosts"

	put_policy '{"checks": [{"name": "private", "allow_hosts": ["private6.test", "[fd00:18::2]"],
	  "run": ["sh", "-c", "curl -sf --max-time 20 http://private6.test/ || curl -sf --max-time 20 -g http://[fd00:18::2]/"]}]}'
	atn gate --base main --head main --json
	python3 - "$out" <<-'PY' || fail "gate: $out $errout"
	import json, sys
	g = json.loads(sys.argv[1])
	assert {x["rule"]: x["passed"] for x in g["results"]}["private"] is False, g
	net = g["network"][0]["network"]
	assert net["deny_private"] is True and not any(c["allowed"] for c in net["connections"]), net
	PY
}

# --verbose and the audit log name every connection, allowed or denied, with its bytes.
case_connections_are_recorded() {
	setup_task
	atn run t -v --allow-host remote.test -- sh -c 'curl -s http://remote.test/bytes/100000 >/dev/null; curl -s http://other.test/ >/dev/null'
	assert_contains "$errout" "agenttask: net allowed http remote.test:80 at 198.18.0.2 by remote.test" "--verbose: allowed"
	assert_contains "$errout" "agenttask: net denied http other.test:80" "--verbose: denied"
	atn log t --json
	python3 - "$out" <<-'PY' || fail "the audit record: $out"
	import json, sys
	j = json.loads(sys.argv[1])
	runs = j
	net = [r["network"] for r in runs if "network" in r][-1]
	assert net["allow_hosts"] == ["remote.test"], net
	ok = [c for c in net["connections"] if c["allowed"]][0]
	assert ok["host"] == "remote.test" and ok["port"] == 80 and ok["address"] == "198.18.0.2", ok
	assert 100000 < ok["bytes_down"] < 101000 and ok["bytes_up"] > 0 and ok["rule"] == "remote.test", ok
	bad = [c for c in net["connections"] if not c["allowed"]][0]
	assert bad["host"] == "other.test" and bad["rule"] is None and "not allowed" in bad["reason"], bad
	PY
}

# After the run the proxy is gone: no listener, no process, no socket file.
case_nothing_is_left_after_the_run() {
	setup_task
	atn run t --allow-host remote.test --forward "$NET_LOOPBACK_PORT" -- sh -c 'sleep 0.2 & curl -s http://remote.test/ >/dev/null'
	assert_eq "$rc" 0 "the run"
	if ss -Hltn 'sport = :3128' | grep -q .; then fail "a listener on the host's port 3128"; fi
	if pgrep -f "$ATBIN" >/dev/null; then fail "an agenttask process is left"; fi
	[ -z "$(find repo /tmp -maxdepth 3 -type s -newer repo 2>/dev/null)" ] || fail "a socket file was left"
}

case_usage_errors() {
	setup_task
	atn run t --allow-host 'bad host' -- true
	assert_eq "$rc" 2 "a malformed pattern"
	assert_contains "$errout" "malformed host pattern 'bad host'" "named"
	atn run t --allow-host '*.com' -- true
	assert_eq "$rc" 2 "a top-level wildcard"
	atn run t --net --allow-host remote.test -- true
	assert_eq "$rc" 2 "--net with --allow-host"
	atn run t --forward 3128 -- true
	assert_eq "$rc" 2 "the proxy's port"
	atn run t --forward 0 -- true
	assert_eq "$rc" 2 "port 0"
	atn run t --deny-private -- true
	assert_eq "$rc" 2 "--deny-private alone"
}

# A policy check's allow_hosts work as --allow-host: the gate's check reaches
# the allowed host and no other.
case_policy_checks_take_allow_hosts() {
	setup_task
	as_user mkdir -p repo/.agenttask
	cat >policy.json <<-'EOF'
	{"checks": [
	  {"name": "fetch", "run": ["curl", "-sf", "--max-time", "20", "http://remote.test/"],
	   "allow_hosts": ["remote.test"]},
	  {"name": "blocked", "run": ["curl", "-sf", "--max-time", "20", "http://other.test/"],
	   "allow_hosts": ["remote.test"]},
	  {"name": "offline", "run": ["curl", "-sf", "--max-time", "5", "http://remote.test/"]}
	]}
	EOF
	as_user cp policy.json repo/.agenttask/policy.json
	as_user git -C repo add .agenttask
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q -m policy
	atn gate --base main --head main --json
	python3 - "$out" <<-'PY' || fail "gate: $out $errout"
	import json, sys
	r = {x["rule"]: x["passed"] for x in json.loads(sys.argv[1])["results"]}
	assert r["fetch"] is True and r["blocked"] is False and r["offline"] is False, r
	PY
	sed -i 's/"remote.test"]},/"*.com"]},/' policy.json
	as_user cp policy.json repo/.agenttask/policy.json
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q -am bad
	atn gate --base main --head main
	assert_eq "$rc" 2 "a malformed allow_hosts pattern is a malformed policy: $errout"
	assert_contains "$errout" "malformed policy 'main:.agenttask/policy.json': key 'checks[0].allow_hosts': malformed host pattern '*.com'" "the file and the key named"
}

# put_policy JSON: the policy of main's next commit.
put_policy() {
	as_user mkdir -p repo/.agenttask
	printf '%s\n' "$1" >policy.json
	as_user cp policy.json repo/.agenttask/policy.json
	as_user git -C repo add .agenttask
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q -m policy
}

# A check's forward and deny_private work as --forward and --deny-private:
# a check that runs the task's code reaches the host loopback port the
# policy forwards and no other, and with deny_private the proxy will not
# dial a private address even for an allowed name.
case_policy_checks_take_forward_and_deny_private() {
	local p=$NET_LOOPBACK_PORT o=$NET_LOOPBACK_OTHER
	setup_task
	put_policy '{"checks": [
	  {"name": "db", "run": ["curl", "-sf", "--max-time", "10", "http://127.0.0.1:'$p'/"],
	   "forward": ["'$p'"]},
	  {"name": "inner", "run": ["curl", "-sf", "--max-time", "10", "http://localhost:8080/"],
	   "forward": ["'$p':8080"]},
	  {"name": "other", "run": ["curl", "-sf", "--max-time", "5", "http://127.0.0.1:'$o'/"],
	   "forward": ["'$p'"]},
	  {"name": "nopriv", "run": ["curl", "-sf", "--max-time", "20", "http://private6.test/"],
	   "allow_hosts": ["private6.test"], "deny_private": true}
	]}'
	atn gate --base main --head main --json
	python3 - "$out" "$p" <<-'PY' || fail "gate: $out $errout"
	import json, sys
	g = json.loads(sys.argv[1])
	r = {x["rule"]: x["passed"] for x in g["results"]}
	assert r["db"] and r["inner"] and not r["other"], r
	assert not r["nopriv"], r
	by = {c["check"]: c["network"] for c in g["network"]}
	assert by["db"]["forward"] == [sys.argv[2]] and by["db"]["connections"][0]["proto"] == "forward", by
	assert by["nopriv"]["deny_private"] is True, by
	refused = by["nopriv"]["connections"][0]
	assert not refused["allowed"] and "a private address" in refused["reason"], refused
	PY
}

# policy_refused CHECK_KEYS MESSAGE: a policy of one check with those keys is
# a malformed policy (2) whose message names the file and the key.
policy_refused() {
	put_policy '{"checks": [{"name": "a", "run": ["true"], '"$1"'}]}'
	atn gate --base main --head main
	assert_eq "$rc" 2 "$1: $errout"
	assert_contains "$errout" "malformed policy 'main:.agenttask/policy.json': key 'checks[0].$2" "$1"
}

# A check's network keys are validated as the command line's are, before
# any check runs: a bad one is a malformed policy (2) naming the file and key.
case_policy_network_keys_are_validated() {
	setup_task
	policy_refused '"forward": ["3128"]' \
		"forward': invalid forward '3128': the sandbox's port 3128 is the proxy's"
	policy_refused '"forward": ["80", "81:80"]' \
		"forward': invalid forward '81:80': port 80 is forwarded already"
	policy_refused '"forward": ["70000"]' "forward': item 0 is not a forward"
	policy_refused '"deny_private": true' "deny_private': applies to allow_hosts: none given"
	policy_refused '"allow_hosts": ["a.test"], "deny_private": "yes"' \
		"deny_private': must be true or false"
	policy_refused '"net": true, "forward": ["80"]' \
		"forward': a forward keeps the sandbox's own network"
}

# atx ARGS...: atn with the case's own user configuration (xdg/agenttask/config.json).
atx() {
	XDG_CONFIG_HOME=$PWD/xdg atn "$@"
}

user_conf() {
	as_user mkdir -p xdg/agenttask
	printf '%s\n' "$1" | as_user tee xdg/agenttask/config.json >/dev/null
}

# repo_task NAME JSON: .agenttask/run.json committed on main, and a task NAME on it.
repo_task() {
	as_user mkdir -p repo/.agenttask
	printf '%s\n' "$2" | as_user tee repo/.agenttask/run.json >/dev/null
	as_user git -C repo add .agenttask
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q -m "run config"
	as_user "$ATBIN" -C repo new "$1" >/dev/null
}

# The run configuration's forward and deny_private, as the flags. The
# attacker writes the repository's run.json: it may narrow (deny_private)
# but never reach a host port the user's own configuration does not forward.
case_run_configuration_takes_forward_and_deny_private() {
	local p=$NET_LOOPBACK_PORT o=$NET_LOOPBACK_OTHER
	setup_task
	user_conf '{"run": {"forward": ["'$p'"], "deny_private": true}}'
	atx run t --allow-host private6.test -- sh -c "
		curl -s --max-time 10 http://127.0.0.1:$p/; echo
		curl -s --max-time 5 http://127.0.0.1:$o/ || echo 'other: refused'
		curl -s --max-time 20 http://private6.test/"
	assert_eq "$rc" 0 "the run: $errout"
	assert_contains "$out" "host loopback service" "the user's forward"
	assert_contains "$out" "other: refused" "no other host port"
	assert_contains "$out" "a private address, which is never dialled" "the user's deny_private"
	atx run t -- true
	assert_eq "$rc" 0 "deny_private in a file needs no allow_hosts: $errout"
	user_conf '{"run": {"allow_hosts": ["private6.test"]}}'
	atx run t --deny-private -- curl -s --max-time 20 http://private6.test/
	assert_eq "$rc" 0 "--deny-private with the file's allow_hosts: $errout"
	assert_contains "$out" "a private address, which is never dialled" "--deny-private on the file's hosts"

	repo_task t2 '{"run": {"forward": ["'$o'"]}}'
	atx run t2 -- true
	assert_eq "$rc" 2 "the repository's forward the user does not give: $errout"
	assert_contains "$errout" ":.agenttask/run.json': forward '$o' reaches a host port your config.json does not forward" "named"

	repo_task t3 '{"run": {"forward": ["'$p':8080"], "deny_private": true}}'
	user_conf '{"run": {"forward": ["'$p'"]}}'
	atx run t3 --allow-host private6.test -- sh -c "
		curl -s --max-time 10 http://localhost:8080/; echo
		curl -s --max-time 20 http://private6.test/"
	assert_eq "$rc" 0 "the run: $errout"
	assert_contains "$out" "host loopback service" "a granted host port at another inner port"
	assert_contains "$out" "a private address, which is never dialled" "the repository may narrow"

	user_conf '{"run": {"forward": ["99999"]}}'
	atx run t -- true
	assert_eq "$rc" 2 "a malformed forward: $errout"
	assert_contains "$errout" "not PORT[:INNER] (ports from 1 to 65535), in 'run.forward'" "named"
	user_conf '{"run": {"deny_private": 1}}'
	atx run t -- true
	assert_eq "$rc" 2 "a malformed deny_private: $errout"
	assert_contains "$errout" "not true or false: 'run.deny_private'" "named"
	user_conf '{"run": {"allow_private": "yes"}}'
	atx run t -- true
	assert_eq "$rc" 2 "a malformed allow_private: $errout"
	assert_contains "$errout" "not true or false: 'run.allow_private'" "named"
	user_conf '{"run": {"forward": ["3128"]}}'
	atx run t -- true
	assert_eq "$rc" 2 "the proxy's port: $errout"
	assert_contains "$errout" "invalid forward of the run configuration '3128'" "named"
}

# The connections of a gate's checks are on record as a run's are: in the
# gate's JSON and in the task's audit log, each check's allowed and denied
# connections named. An attacker's check that phones another host leaves its
# attempt in the log.
case_gate_checks_connections_are_recorded() {
	setup_task
	as_user mkdir -p repo/.agenttask
	cat >policy.json <<-'EOF'
	{"checks": [
	  {"name": "fetch", "run": ["curl", "-sf", "--max-time", "20", "http://remote.test/bytes/5000"],
	   "allow_hosts": ["remote.test"]},
	  {"name": "phone", "run": ["curl", "-sf", "--max-time", "20", "http://other.test/"],
	   "allow_hosts": ["remote.test"]},
	  {"name": "offline", "run": ["true"]}
	]}
	EOF
	as_user cp policy.json repo/.agenttask/policy.json
	as_user git -C repo add .agenttask
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q -m policy
	atn gate t --json
	assert_eq "$rc" 1 "the phoning check fails the gate: $errout"
	printf '%s' "$out" >gate.json
	atn log t --json
	python3 - gate.json "$out" <<-'PY' || fail "the records: $(cat gate.json) $out"
	import json, sys
	gate = json.load(open(sys.argv[1]))
	logged = [e for e in json.loads(sys.argv[2]) if e["event"] == "gate"][-1]
	for where, j in (("gate --json", gate["network"]), ("the log", logged["network"])):
	    by = {c["check"]: c["network"] for c in j}
	    assert sorted(by) == ["fetch", "phone"], (where, by)
	    ok = by["fetch"]["connections"]
	    assert len(ok) == 1 and ok[0]["allowed"] and ok[0]["host"] == "remote.test", (where, ok)
	    assert 5000 <= ok[0]["bytes_down"] < 6000, (where, ok)
	    bad = by["phone"]["connections"]
	    assert len(bad) == 1 and not bad[0]["allowed"] and bad[0]["host"] == "other.test", (where, bad)
	    assert by["fetch"]["allow_hosts"] == ["remote.test"], (where, by)
	PY
}

for c in $(declare -F | awk '{print $3}' | grep '^case_'); do
	eval "test_${c#case_}__as_root() { NET_USER=root $c; }"
	eval "test_${c#case_}__as_nobody() { NET_USER=nobody $c; }"
done
run_tests
