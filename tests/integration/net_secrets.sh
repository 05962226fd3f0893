#!/usr/bin/env bash
# Secrets at the proxy (`run --secret`, config.json's "secrets" and "requests"),
# end to end: the command runs in the sandbox and reaches the remote hosts of
# net_lib.sh through agenttask's proxy, which terminates TLS for the hosts a
# secret is bound to (or that have request rules) with the task's CA, and
# verifies the real host against SSL_CERT_FILE (the test's throwaway CA).
# Every case runs as root and as uid 65534.
#
# The attacker is the sandboxed command. It holds the placeholder of the
# secret and wants the value: to read it anywhere inside, to have the proxy
# send it elsewhere (another host, another name on the same connection, a
# second request, plain HTTP), or to use the allowed host with a key of its
# own (the upload-with-the-attacker's-key exit). Each attempt fails and the
# value never shows inside.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"
net_setup "$@"

NETDIR=$(dirname "$NET_CERT")
cp "$AT" "$NETDIR/agenttask"
cp "$(dirname "$0")/net_client.py" "$(dirname "$0")/net_git_http.py" "$NETDIR/"
chmod 755 "$NETDIR/agenttask" "$NETDIR/net_client.py" "$NETDIR/net_git_http.py"
ATBIN=$NETDIR/agenttask
CLIENT="python3 $NETDIR/net_client.py"
ECHO_LOG=$NETDIR/ready.echo
# Claude Code and the stand-in API, where uid 65534 can read them (only when installed).
if [ -f "$(dirname "$0")/../claude/node_modules/@anthropic-ai/claude-code/cli.js" ]; then
	mkdir "$NETDIR/claude"
	cp -a "$(dirname "$0")/../claude/node_modules" "$(dirname "$0")/../claude/fake_api.py" \
		"$NETDIR/claude/"
	chmod -R a+rX "$NETDIR/claude"
fi
VALUE=sk-realsecret-0123456789abcdefABCDEF
export API_KEY=$VALUE

setup_task() {
	[ "${NET_USER:-root}" != nobody ] || chown 65534:65534 .
	as_user git init -q -b main repo
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q --allow-empty -m init
	as_user "$ATBIN" -C repo new t >/dev/null
	: >"$ECHO_LOG"
}

# atn ARGS...: agenttask -C repo ARGS as the case's user, the upstream verified with the
# test's CA; $out, $errout, $rc.
atn() {
	set +e
	as_user env SSL_CERT_FILE="$NET_CERT" API_KEY="$API_KEY" "$ATBIN" -C repo "$@" \
		>out.txt 2>err.txt
	rc=$?
	set -e
	out=$(cat out.txt)
	errout=$(cat err.txt)
}

SECRET=(--secret API_KEY:remote.test --allow-host remote.test:8443)

case_placeholder_inside_value_at_the_bound_host() {
	# What: the command reads its key and uses it. Must: it holds a placeholder shaped like
	# the value (its first three bytes, its length); the host receives the value.
	setup_task
	atn run t "${SECRET[@]}" -- sh -c 'printf "inside=%s\n" "$API_KEY"
		curl -s --max-time 20 https://remote.test:8443/v1/messages -H "x-api-key: $API_KEY"'
	assert_eq "$rc" 0 "the run succeeds: $errout"
	ph=$(printf '%s\n' "$out" | sed -n 's/^inside=//p')
	assert_eq "${#ph}" "${#VALUE}" "the placeholder has the value's length"
	assert_eq "${ph:0:3}" "${VALUE:0:3}" "and its first three bytes"
	[ "$ph" != "$VALUE" ] || fail "the value itself is inside"
	assert_contains "$out" "echo at 198.18.0.2 GET /v1/messages" "the request reached the host"
	assert_contains "$(cat "$ECHO_LOG")" "x-api-key: $VALUE" "the host got the value"
	# What: the host echoes the key back (in its body and a header). Must: the sandbox
	# sees the placeholder there, never the value.
	assert_contains "$out" "x-api-key: $ph" "the echo carries the placeholder"
	assert_not_contains "$out" "$VALUE" "the value never reaches the sandbox"
}

case_no_trace_of_the_value_inside() {
	# What: search everything readable inside (every process's environment and command
	# line, /proc/1's memory, files, the state the CA key lives in). Must: no trace.
	setup_task
	# The value, in two halves: the script's own text must not hold it whole.
	atn run t "${SECRET[@]}" --env "P1=${VALUE:0:12}" --env "P2=${VALUE:12}" -- sh -c '
		printf "%s%s\n" "$P1" "$P2" >/tmp/pat   # never in an argv that the search reads
		curl -s --max-time 20 -o /dev/null https://remote.test:8443/ -H "x-api-key: $API_KEY"
		for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat "$f" 2>/dev/null; done \
			| tr "\0" "\n" | grep -c -F -f /tmp/pat | sed "s/^/proc-hits=/"
		cat /proc/1/environ >/dev/null 2>&1 && echo init-readable
		cat /proc/1/maps >/dev/null 2>&1 && echo init-readable
		grep -rIlsF -f /tmp/pat --exclude=pat /etc /tmp /dev/shm /run "$HOME" . 2>/dev/null \
			| sed "s/^/file-hit=/"
		find / -xdev -name ca.key 2>/dev/null | sed "s/^/cakey=/"
		# replacing the trust store inside: refused (and it would fool only the inside)
		cp /dev/null /etc/ssl/certs/ca-certificates.crt 2>/dev/null && echo bundle-replaced
		grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt | sed "s/^/bundle-certs=/"
		echo done'''
	assert_eq "$rc" 0 "the run succeeds: $errout"
	assert_contains "$out" "proc-hits=0" "no process's environment or command line"
	assert_not_contains "$out" "init-readable" "the init (a copy of agenttask, which holds
		the variable) stays unreadable"
	assert_not_contains "$out" "file-hit=" "no file"
	assert_not_contains "$out" "cakey=" "the CA key is not inside"
	assert_not_contains "$out" "bundle-replaced" "the trust store inside is read-only"
	[ "$(printf '%s\n' "$out" | sed -n 's/^bundle-certs=//p')" -gt 1 ] || fail "the bundle: $out"
	assert_contains "$out" "done" "the search ran"
}

case_another_key_to_the_bound_host_is_refused() {
	# What: upload to the allowed host with the attacker's own key (or a second one beside
	# the placeholder). Must: 403 naming why; the host gets no such request.
	setup_task
	atn run t "${SECRET[@]}" -- sh -c '
		curl -s --max-time 20 -w "\nown-key %{http_code}\n" -X POST -d @/etc/hostname \
			https://remote.test:8443/v1/files -H "x-api-key: sk-attacker-000000000000"
		curl -s --max-time 20 -w "\nsecond %{http_code}\n" https://remote.test:8443/v1/x \
			-H "x-api-key: $API_KEY" -H "Authorization: Bearer sk-attacker"'
	assert_contains "$out" "own-key 403" "another key"
	assert_contains "$out" "is not the placeholder" "says why"
	assert_contains "$out" "second 403" "a second credential"
	assert_not_contains "$(cat "$ECHO_LOG")" "sk-attacker" "the host saw neither"
}

case_plain_http_and_other_names_get_no_value() {
	# What: have the value sent over plain HTTP to the bound host, or to another host
	# (SNI or Host naming it) through the bound host's connection. Must: refused.
	setup_task
	cat >req2 <<-REQ
	GET /one HTTP/1.1
	Host: remote.test:8443
	x-api-key: PH

	GET /two HTTP/1.1
	Host: other.test
	x-api-key: PH

	REQ
	chmod 644 req2
	atn run t "${SECRET[@]}" --allow-host remote.test --ro "$NETDIR" --ro "$PWD" -- sh -c "
		sed -e \"s/PH/\$API_KEY/\" -e 's/\$/\\r/' '$PWD/req2' >/tmp/req2
		curl -s --max-time 20 -w '\nplain %{http_code}\n' http://remote.test/ -H \"x-api-key: \$API_KEY\"
		curl -s --max-time 20 -w '\nhost %{http_code}\n' https://remote.test:8443/ -H 'Host: other.test' \
			-H \"x-api-key: \$API_KEY\"
		$CLIENT tls 127.0.0.1:3128 remote.test 8443 other.test
		$CLIENT tlssend 127.0.0.1:3128 remote.test 8443 remote.test /etc/ssl/certs/ca-certificates.crt /tmp/req2"
	assert_contains "$out" "plain 403" "plain HTTP to the bound host"
	assert_contains "$out" "host 403" "a Host other than the connection's"
	assert_contains "$out" "tls failed" "TLS naming another server"
	assert_contains "$out" "echo at 198.18.0.2 GET /one" "the first request goes"
	assert_contains "$out" "'other.test' is not 'remote.test'" "the second, to another host, not"
	assert_not_contains "$(cat "$ECHO_LOG")" "/two" "the host never saw it"
	assert_not_contains "$(cat "$ECHO_LOG")" "other.test" "nor any other name"
}

case_placeholder_to_an_unbound_host_goes_unchanged() {
	# What: send the secret's placeholder to another allowed host (terminated for its
	# request rules), hoping the proxy puts the value in there. Must: it goes unchanged,
	# and the run's record says so.
	setup_task
	as_user mkdir -p cfg/agenttask
	printf '{"requests": {"www.remote.test": {"methods": ["GET"]}}}' >cfg/agenttask/config.json
	set +e
	as_user env XDG_CONFIG_HOME="$PWD/cfg" SSL_CERT_FILE="$NET_CERT" API_KEY="$API_KEY" \
		"$ATBIN" -C repo run t --json "${SECRET[@]}" --allow-host www.remote.test:8443 -- sh -c \
		'curl -s --max-time 20 https://www.remote.test:8443/leak -H "x-api-key: $API_KEY"; echo "ph=$API_KEY"' \
		>out.json 2>err.txt
	rc=$?
	set -e
	assert_eq "$rc" 0 "the run succeeds: $(cat err.txt)"
	python3 - out.json "$VALUE" "$ECHO_LOG" <<-'PY' || fail "the record: $(cat out.json)"
	import json, sys
	run = json.load(open(sys.argv[1]))
	ph = [l for l in run["stdout"].splitlines() if l.startswith("ph=")][0][3:]
	log = open(sys.argv[3]).read()
	assert "x-api-key: " + ph in log and sys.argv[2] not in log, log
	req = [r for r in run["requests"] if r["host"] == "www.remote.test"][0]
	assert req["placeholder_unchanged"] == "API_KEY" and req["secret"] is None, req
	PY
}

case_terminated_connections_are_bounded() {
	# What: open many connections to the terminated host and never finish their handshake:
	# each is a thread of agenttask's, outside the run's memory and pids limits. Must: at
	# most 64 at once, the rest refused with a 503; once they close, the host works again.
	setup_task
	atn run t "${SECRET[@]}" -- sh -c '
		python3 -c "
import socket
socks, codes = [], []
for i in range(72):
    s = socket.create_connection((\"127.0.0.1\", 3128))
    s.sendall(b\"CONNECT remote.test:8443 HTTP/1.1\\r\\nHost: remote.test:8443\\r\\n\\r\\n\")
    codes.append(s.recv(200).split(b\" \")[1].decode())
    socks.append(s)
print(\"200s=%d 503s=%d\" % (codes.count(\"200\"), codes.count(\"503\")))
for s in socks:
    s.close()
"
		for i in $(seq 50); do
			curl -s --max-time 20 -o /dev/null -w "%{http_code}" https://remote.test:8443/ \
				-H "x-api-key: $API_KEY" | grep -q 200 && { echo after=200; break; }
			sleep 0.2
		done'
	assert_eq "$rc" 0 "the run succeeds: $errout"
	assert_contains "$out" "200s=64 503s=8" "64 at once, the rest refused"
	assert_contains "$out" "after=200" "the host works once they are gone"
}

case_smuggling_and_upgrades_are_refused() {
	# What: a body framed two ways (CL.TE), a WebSocket and an h2c upgrade on the bound host.
	# Must: 400 each, nothing of them forwarded.
	setup_task
	printf 'POST /s HTTP/1.1\r\nHost: remote.test:8443\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: remote.test\r\n\r\n' >smug
	printf 'GET /ws HTTP/1.1\r\nHost: remote.test:8443\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n' >ws
	printf 'GET /h2c HTTP/1.1\r\nHost: remote.test:8443\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n' >h2c
	chmod 644 smug ws h2c
	atn run t "${SECRET[@]}" --ro "$NETDIR" --ro "$PWD" -- sh -c "
		for f in smug ws h2c; do $CLIENT tlssend 127.0.0.1:3128 remote.test 8443 remote.test \
			/etc/ssl/certs/ca-certificates.crt '$PWD'/\$f; done"
	assert_contains "$out" "content-length" "CL.TE (http_parser's own refusal)"
	assert_contains "$out" "protocol upgrade" "upgrades"
	assert_eq "$(grep -c ' 400 Bad Request' out.txt)" 3 "three 400s: $out"
	assert_eq "$(cat "$ECHO_LOG")" "" "nothing reached the host"
}

case_a_header_name_with_a_space_is_refused() {
	# What: "Authorization : Bearer KEY" and "Host : other.test" (a space before the colon):
	# no credential and no Host to a judge that compares names, but the server (like many,
	# this test's too) trims the name and reads the attacker's key. Must: 400, the host
	# gets nothing.
	setup_task
	printf 'GET /sp HTTP/1.1\r\nHost: remote.test:8443\r\nAuthorization : Bearer sk-attacker-000\r\n\r\n' >sp
	printf 'GET /sp2 HTTP/1.1\r\nHost: remote.test:8443\r\nHost : other.test\r\n\r\n' >sp2
	chmod 644 sp sp2
	atn run t "${SECRET[@]}" --ro "$NETDIR" --ro "$PWD" -- sh -c "
		for f in sp sp2; do $CLIENT tlssend 127.0.0.1:3128 remote.test 8443 remote.test \
			/etc/ssl/certs/ca-certificates.crt '$PWD'/\$f; done"
	assert_eq "$(grep -c ' 400 Bad Request' out.txt)" 2 "two 400s: $out"
	assert_contains "$out" "a header name with a space" "says why"
	assert_eq "$(cat "$ECHO_LOG")" "" "nothing reached the host"
}

case_the_value_goes_only_where_the_credential_stands() {
	# What: the placeholder beside the key, in a header the host reflects base64'd (where the
	# proxy's scrub of the response cannot recognise the value), and as Basic's user name.
	# Must: the host gets the value in the credential alone, the placeholder elsewhere; the
	# decoded reflection inside holds no value.
	setup_task
	atn run t "${SECRET[@]}" -- sh -c '
		curl -s --max-time 20 https://remote.test:8443/echo-base64 -H "x-api-key: $API_KEY" \
			-H "X-Note: $API_KEY" | while read -r l; do echo "$l" | base64 -d; echo; done
		curl -s --max-time 20 -o /dev/null -u "$API_KEY:$API_KEY" https://remote.test:8443/basic'
	assert_eq "$rc" 0 "the run succeeds: $errout"
	assert_contains "$out" "X-Note: " "the host reflected the header"
	assert_not_contains "$out" "$VALUE" "the value never reaches the sandbox"
	assert_contains "$(cat "$ECHO_LOG")" "x-api-key: $VALUE" "the credential got the value"
	assert_not_contains "$(grep -i '^x-note' "$ECHO_LOG")" "$VALUE" "the other header not"
	python3 - "$ECHO_LOG" "$VALUE" <<-'PY' || fail "Basic: $(cat "$ECHO_LOG")"
	import base64, sys
	auth = [l.split(" ", 2)[2] for l in open(sys.argv[1]) if l.startswith("Authorization: Basic")]
	user, pw = base64.b64decode(auth[0]).decode().split(":", 1)
	assert pw == sys.argv[2] and user != sys.argv[2] and len(user) == len(pw), (user, pw)
	PY
}

case_an_echo_split_by_chunks_is_scrubbed() {
	# What: the bound host echoes the key in a chunked body whose chunks split it (a server
	# streaming its answer): the value, broken by the chunks' framing, passes a search of
	# the bytes as they come. Must: the sandbox reads the placeholder, never the value.
	setup_task
	atn run t "${SECRET[@]}" -- sh -c '
		for n in 1 7 10 "4099?70000" "65536?65530"; do curl -s --max-time 20 \
			"https://remote.test:8443/echo-chunked/$n" -H "x-api-key: $API_KEY" \
			| awk "/^x/ { print \"pad=\" length(\$0) } !/^x/"
		done; echo "ph=$API_KEY"'
	assert_eq "$rc" 0 "the run succeeds: $errout"
	ph=$(printf '%s\n' "$out" | sed -n 's/^ph=//p')
	assert_eq "$(printf '%s\n' "$out" | grep -c "^key=$ph\$")" 5 "each echo, the placeholder: $out"
	assert_contains "$out" "pad=70000" "a long body, whole"
	assert_contains "$out" "pad=65530" "the value across the proxy's reads"
	assert_not_contains "$out" "$VALUE" "the value never reaches the sandbox"
}

case_a_body_framed_for_two_readers_is_not_smuggled() {
	# What: a chunk extension holding a bare LF: the proxy's parser reads it as part of the
	# extension, a server like nginx as the end of the chunk's size line; so what the proxy
	# takes for a chunk's data, the server takes for a second request, one with the
	# attacker's own key that the proxy never judged. Must: the server sees one request,
	# its body as the proxy read it; the smuggled one never reaches it.
	local n
	setup_task
	n=$(python3 - <<-'PY'
	smug = (b"0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: remote.test:8443\r\n"
	        b"x-api-key: sk-attacker-000\r\n\r\n")
	n = len(smug)
	body = b"%x;\n" % n + b"a" * n + b"\r\n" + smug + b"\r\n0\r\n\r\n"
	open("lf", "wb").write(b"POST /first HTTP/1.1\r\nHost: remote.test:8443\r\n"
	                       b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + body)
	print(n)
	PY
	)
	chmod 644 lf
	atn run t "${SECRET[@]}" --ro "$NETDIR" --ro "$PWD" -- sh -c "
		$CLIENT tlssend 127.0.0.1:3128 remote.test 8443 remote.test \
			/etc/ssl/certs/ca-certificates.crt '$PWD'/lf"
	assert_eq "$rc" 0 "the run succeeds: $errout"
	assert_not_contains "$(cat "$ECHO_LOG")" "/smuggled" "the server saw no second request"
	assert_not_contains "$(cat "$ECHO_LOG")" "sk-attacker" "nor the attacker's key"
	assert_contains "$out" "POST /first body=$n" "the body, as the proxy read it"
}

case_request_rules_and_records() {
	# What: publish (POST) to a host whose rules allow GET and HEAD only. Must: 403 naming
	# the rule. Every request is in run --json and the log: method, path without its
	# query, status, the secret's name; never the value.
	setup_task
	as_user mkdir -p cfg/agenttask
	printf '{"requests": {"remote.test": {"methods": ["GET", "HEAD"], "paths": ["/v1/"]}}}' \
		>cfg/agenttask/config.json
	set +e
	as_user env XDG_CONFIG_HOME="$PWD/cfg" SSL_CERT_FILE="$NET_CERT" API_KEY="$API_KEY" \
		"$ATBIN" -C repo run t --json "${SECRET[@]}" -- sh -c '
		curl -s --max-time 20 -o /dev/null -w "get %{http_code}\n" "https://remote.test:8443/v1/m?key=q" -H "x-api-key: $API_KEY"
		curl -s --max-time 20 -w "\npost %{http_code}\n" -X POST -d x https://remote.test:8443/v1/m -H "x-api-key: $API_KEY"
		curl -s --max-time 20 -w "\npath %{http_code}\n" https://remote.test:8443/admin -H "x-api-key: $API_KEY"' \
		>out.json 2>err.txt
	rc=$?
	set -e
	assert_eq "$rc" 0 "the run succeeds: $(cat err.txt)"
	atn log t --json
	python3 - out.json "$out" "$VALUE" <<-'PY' || fail "the records: $(cat out.json)"
	import json, sys
	run = json.load(open(sys.argv[1]))
	assert sys.argv[3] not in open(sys.argv[1]).read() and sys.argv[3] not in sys.argv[2]
	out = run["stdout"]
	assert "get 200" in out and "post 403" in out and "path 403" in out, out
	assert "request rules" in out, out
	reqs = run["requests"]
	assert [(r["method"], r["path"], r["status"]) for r in reqs] == [
	    ("GET", "/v1/m", 200), ("POST", "/v1/m", 403), ("GET", "/admin", 403)], reqs
	assert reqs[0]["secret"] == "API_KEY" and reqs[0]["host"] == "remote.test", reqs
	assert "refused" in reqs[1] and reqs[0]["bytes_down"] > 0, reqs
	logged = [e for e in json.loads(sys.argv[2]) if e["event"] == "run"][-1]
	assert [r["path"] for r in logged["network"]["requests"]] == ["/v1/m", "/v1/m", "/admin"]
	PY
	# The task's CA: its key outside, mode 0600, and gone with the task.
	local ca
	ca=$(as_user git -C repo rev-parse --path-format=absolute --git-common-dir)/agenttask/ca/t
	assert_eq "$(stat -c %a "$ca/ca.key")" 600 "the CA key is the user's alone"
	atn discard t --force
	assert_eq "$rc" 0 "discard: $errout"
	[ ! -e "$ca" ] || fail "the task's CA outlived it"
}

case_bad_secrets_stop_the_run() {
	# Bad input: one clear line naming the secret, status 2, and nothing runs.
	setup_task
	atn run t --secret NOPE:remote.test --allow-host remote.test -- touch ran
	assert_eq "$rc" 2 "an unset variable: $errout"
	assert_contains "$errout" "cannot load secret 'NOPE' from 'env:NOPE'" "names it"
	atn run t --secret API_KEY:other.test --allow-host remote.test -- touch ran
	assert_eq "$rc" 2 "a host the run does not allow"
	assert_contains "$errout" "goes to 'other.test', which this run does not allow" "says so"
	atn run t --secret UNKNOWN --allow-host remote.test -- touch ran
	assert_eq "$rc" 2 "a name config.json does not define"
	assert_contains "$errout" "unknown secret 'UNKNOWN'" "says so"
	atn run t "${SECRET[@]}" --pass-env API_KEY -- touch ran
	assert_eq "$rc" 2 "passing the variable itself"
	# What: the value inside through a variable passed by default (LANG, TERM, LC_*, TZ) or
	# typed with --env. Must: refused, naming the variable.
	set +e
	as_user env SSL_CERT_FILE="$NET_CERT" API_KEY="$API_KEY" LC_PAPER="$API_KEY" "$ATBIN" -C repo \
		run t "${SECRET[@]}" -- touch ran >out.txt 2>err.txt
	rc=$?
	set -e
	assert_eq "$rc" 2 "a value in a variable passed by default: $(cat err.txt)"
	assert_contains "$(cat err.txt)" "the variable 'LC_PAPER' would put the value of secret" "names it"
	atn run t "${SECRET[@]}" --env "COPY=x$VALUE" -- touch ran
	assert_eq "$rc" 2 "a value typed with --env"
		atn run t "${SECRET[@]}" --net -- touch ran
	assert_eq "$rc" 2 "with the host's network"
	# What: --pass-env spelled differently: the variable a secret is read from under
	# another name (config.json's "from": "env:REAL_KEY"), or a copy of the value. Must:
	# refused like the secret's own name.
	as_user mkdir -p cfg/agenttask
	printf '{"secrets": {"K": {"hosts": ["remote.test"], "from": "env:REAL_KEY"}}}' \
		>cfg/agenttask/config.json
	set +e
	as_user env XDG_CONFIG_HOME="$PWD/cfg" REAL_KEY="$VALUE" COPY="x$VALUE" "$ATBIN" -C repo \
		run t --allow-host remote.test --pass-env REAL_KEY -- touch ran >out.txt 2>err.txt
	assert_eq "$?" 2 "passing the variable the secret is read from: $(cat err.txt)"
	assert_contains "$(cat err.txt)" "--pass-env 'REAL_KEY' would put the value of secret 'K'" \
		"names both"
	as_user env XDG_CONFIG_HOME="$PWD/cfg" REAL_KEY="$VALUE" COPY="x$VALUE" "$ATBIN" -C repo \
		run t --allow-host remote.test --pass-env COPY -- touch ran >out.txt 2>err.txt
	assert_eq "$?" 2 "passing a copy of the value: $(cat err.txt)"
	set -e
	[ ! -e "$(as_user "$ATBIN" -C repo path t)/ran" ] || fail "a refused run ran"
}

case_config_secrets_and_the_repository() {
	# What: the repository's run.json defines a secret of its own, or uses one the user
	# never defined. Must: refused. The user's definition (from a file) is used by name.
	setup_task
	as_user mkdir -p cfg/agenttask
	printf '%s\n' "$VALUE" >key.txt
	chmod 644 key.txt
	printf '{"secrets": {"FILE_KEY": {"hosts": ["remote.test"], "from": "file:%s"}}}' \
		"$PWD/key.txt" >cfg/agenttask/config.json
	set +e
	as_user env XDG_CONFIG_HOME="$PWD/cfg" SSL_CERT_FILE="$NET_CERT" "$ATBIN" -C repo run t \
		--allow-host remote.test:8443 -- sh -c \
		'curl -s --max-time 20 https://remote.test:8443/f -H "x-api-key: $FILE_KEY"' >out.txt 2>err.txt
	rc=$?
	set -e
	assert_eq "$rc" 0 "a defined secret for an allowed host is used: $(cat err.txt)"
	assert_contains "$(cat "$ECHO_LOG")" "x-api-key: $VALUE" "the host got the file's value"
	as_user mkdir -p repo/.agenttask
	printf '{"secrets": {"MINE": {"hosts": ["remote.test"], "from": "env:HOME"}}}' \
		| as_user tee repo/.agenttask/run.json >/dev/null
	as_user git -C repo add .agenttask
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q -m conf
	as_user "$ATBIN" -C repo new t2 >/dev/null
	atn run t2 --allow-host remote.test -- true
	assert_eq "$rc" 2 "a repository defining a secret"
	assert_contains "$errout" "secrets are yours to define" "says so"
}

case_git_helper_answers_with_the_placeholder() {
	# git inside asks for a credential for the bound host: it gets the placeholder.
	setup_task
	as_user mkdir -p cfg/agenttask
	printf '{"secrets": {"GH_TOKEN": {"hosts": ["remote.test"], "header": "basic"}}}' \
		>cfg/agenttask/config.json
	set +e
	as_user env XDG_CONFIG_HOME="$PWD/cfg" GH_TOKEN=ghp_realtoken0123456789 \
		SSL_CERT_FILE="$NET_CERT" "$ATBIN" -C repo run t --allow-host remote.test:8443 -- sh -c \
		'printf "protocol=https\nhost=remote.test\n\n" | git credential fill
		printf "protocol=https\nhost=remote.test:8443\n\n" | git credential fill | sed "s/^/8443:/"
		echo "ph=$GH_TOKEN"' \
		>out.txt 2>err.txt
	rc=$?
	set -e
	assert_eq "$rc" 0 "the run succeeds: $(cat err.txt)"
	ph=$(sed -n 's/^ph=//p' out.txt)
	assert_contains "$(cat out.txt)" "password=$ph" "git's helper answers with the placeholder"
	assert_contains "$(cat out.txt)" "8443:password=$ph" "on the port the run allows too"
	assert_not_contains "$(cat out.txt)" "ghp_realtoken0123456789" "never the value"
}

case_git_push_reaches_only_the_named_repository() {
	# What: an agent pushes the task's code (or anything read inside) to a repository the
	# person did not name, with the person's token. Must: refused by the proxy (403 naming
	# the request rules), that repository gets nothing, not even a request; the push to the
	# named one works (a real git smart-HTTP server, behind Basic auth only the real token
	# passes; a pack larger than git's post buffer, so sent chunked); the token's value is
	# never inside: git there sends the placeholder, the proxy puts the value in.
	local token=ghp_realGitToken0123456789abcdefXYZ srv r log want
	[ -x "$(git --exec-path)/git-http-backend" ] || skip "git http-backend is missing"
	setup_task
	for r in repo other; do
		git init -q --bare "srv/me/$r.git"
		git -C "srv/me/$r.git" config http.receivepack true
	done
	REAL_TOKEN=$token ip netns exec "$NET_NS" python3 "$NETDIR/net_git_http.py" "$PWD/srv" \
		"$PWD/git.log" "$PWD/git.ready" 198.18.0.2 8445 "$NET_CERT" "$NETDIR/key.pem" \
		</dev/null >git.err 2>&1 &
	srv=$!
	trap "kill $srv 2>/dev/null" EXIT
	wait_until 30 test -e git.ready || fail "the git server did not start: $(cat git.err)"
	as_user mkdir -p cfg/agenttask
	printf '{"secrets": {"GH_TOKEN": {"hosts": ["remote.test"], "header": "basic"}},
		"requests": {"remote.test": {"paths": ["/me/repo.git/"]}}}' >cfg/agenttask/config.json
	set +e
	as_user env XDG_CONFIG_HOME="$PWD/cfg" GH_TOKEN="$token" SSL_CERT_FILE="$NET_CERT" \
		"$ATBIN" -C repo run t --json --allow-host remote.test:8445 -- sh -c '
		export GIT_TERMINAL_PROMPT=0 GIT_TRACE_REDACT=0
		head -c 300000 /dev/urandom >blob
		git add blob && git -c user.name=a -c user.email=a@a commit -q -m blob
		echo "head=$(git rev-parse HEAD)"
		echo "ph=$GH_TOKEN"
		GIT_TRACE_CURL=/tmp/trace1 GIT_TRACE_CURL_NO_DATA=1 git -c http.postBuffer=65536 \
			push https://remote.test:8445/me/repo.git HEAD:refs/heads/x
		echo "push1=$?"
		git push https://remote.test:8445/me/other.git HEAD:refs/heads/x
		echo "push2=$?"
		sed -n "s/.*Authorization: Basic /sent=/p" /tmp/trace1 | tr -d "\r" | sort -u
		grep -c "Transfer-Encoding: chunked" /tmp/trace1 | sed "s/^/chunked=/"' </dev/null >out.json 2>err.txt
	rc=$?
	set -e
	assert_eq "$rc" 0 "the run succeeds: $(cat err.txt)"
	log=$(cat git.log)
	python3 - out.json "$token" <<-'PY' || fail "the run: $(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["stdout"], r["stderr"], r["requests"])' out.json) $(cat err.txt) the server's log: $log"
	import base64, json, sys
	run, token = json.load(open(sys.argv[1])), sys.argv[2]
	out = run["stdout"]
	val = dict(l.split("=", 1) for l in out.splitlines()
	           if l.split("=", 1)[0] in ("head", "ph", "push1", "push2"))
	assert val["push1"] == "0" and val["push2"] != "0", val
	ph = val["ph"]
	assert ph != token and len(ph) == len(token), ph
	sent = [l[5:] for l in out.splitlines() if l.startswith("sent=")]
	assert sent and all(base64.b64decode(s).decode() == "x-access-token:" + ph for s in sent), sent
	assert "chunked=0" not in out, "the pack went with a Content-Length"
	assert "remote: agenttask: the path of a request to 'remote.test' is under none of the " \
	    "path prefixes of its request rules" in run["stderr"], "git shows the proxy's 403"
	reqs = [(r["method"], r["path"], r["status"], r.get("secret")) for r in run["requests"]]
	assert ("POST", "/me/repo.git/git-receive-pack", 200, "GH_TOKEN") in reqs, reqs
	other = [r for r in run["requests"] if r["path"].startswith("/me/other.git/")]
	assert other and all(r["status"] == 403 and "refused" in r for r in other), other
	open("head", "w").write(val["head"])
	PY
	assert_eq "$(git -C srv/me/repo.git rev-parse refs/heads/x)" "$(cat head)" \
		"the named repository has the task's commit"
	assert_eq "$(git -C srv/me/other.git for-each-ref)" "" "the other one gets no ref"
	assert_not_contains "$log" "/me/other.git" "nor any request"
	want=$(printf 'x-access-token:%s' "$token" | base64 -w0)
	assert_contains "$log" "\"auth\": \"Basic $want\"" "the server got the real token"
	assert_not_contains "$(cat out.json err.txt)" "$token" "the value never reaches the sandbox"
	assert_not_contains "$(cat out.json err.txt)" "$want" "nor its Basic form"
}

case_claude_code_with_its_key_by_reference() {
	# The recipe of docs/agents.md: Claude Code run whole inside with its API key by
	# reference. What: everything inside (the agent, its tools) would read the key. Must:
	# the agent works with the placeholder, the API (behind TLS, under the test's CA,
	# which the proxy verifies) receives the real key on every request, and no trace
	# of the value is readable inside.
	local cc=$NETDIR/claude/node_modules/@anthropic-ai/claude-code wt key=sk-ant-api03-realKEY0123456789
	command -v node >/dev/null || skip "node is missing (apt-get install nodejs)"
	[ -f "$cc/cli.js" ] || skip "the Claude Code package is missing (make deps)"
	setup_task
	wt=$(as_user "$ATBIN" -C repo path t)
	printf '#!/bin/sh\necho helo\n' | as_user tee "$wt/greet.sh" >/dev/null
	printf '%s\n' 'out=$(sh greet.sh)' \
		'if [ "$out" = hello ]; then echo "test: PASS"; else echo "test: FAIL: got $out"; exit 1; fi' \
		| as_user tee "$wt/test.sh" >/dev/null
	rm -f api.log api.port
	ip netns exec "$NET_NS" python3 "$NETDIR/claude/fake_api.py" "$wt" "$PWD/api.log" \
		"$PWD/api.port" 198.18.0.2 8444 "$NET_CERT" "$NETDIR/key.pem" </dev/null >api.err 2>&1 &
	local api=$!
	wait_until 30 test -s api.port || fail "the stand-in API did not start: $(cat api.err)"
	set +e
	as_user env SSL_CERT_FILE="$NET_CERT" ANTHROPIC_API_KEY="$key" "$ATBIN" -C repo run t \
		--timeout 300 --secret ANTHROPIC_API_KEY:remote.test --allow-host remote.test:8444 \
		--ro "$cc" -- env ANTHROPIC_BASE_URL=https://remote.test:8444 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
		node "$cc/cli.js" -p "Fix the greeting so that test.sh passes" \
		--allowedTools Read,Edit,Write,Bash --permission-mode acceptEdits </dev/null \
		>out.txt 2>err.txt
	rc=$?
	set -e
	kill "$api" 2>/dev/null
	assert_eq "$rc" 0 "the agent's run succeeds: $(cat out.txt err.txt | tail -20)"
	assert_contains "$(cat out.txt)" "Fixed the greeting; the test passes." "the agent finished"
	assert_eq "$(cat "$wt/greet.sh")" "$(printf '#!/bin/sh\necho hello')" "its edit landed"
	python3 - api.log "$key" <<-'PY' || fail "the API's requests: $(cat api.log)"
	import json, sys
	reqs = [json.loads(l) for l in open(sys.argv[1])]
	posts = [r for r in reqs if r["method"] == "POST"]
	assert len(posts) >= 4, len(posts)
	assert all(r["key"] == sys.argv[2] for r in posts), {r["key"] for r in posts}
	PY
	assert_not_contains "$(cat out.txt err.txt)" "$key" "the value never reached the sandbox"
	# What the agent kept (its settings and conversation in the task's HOME, the
	# worktree) holds no trace of it either.
	assert_eq "$(grep -rlF "$key" "$wt" "$(as_user git -C repo rev-parse --path-format=absolute --git-common-dir)" 2>/dev/null)" "" \
		"no file the agent wrote holds the value"
}

for c in $(declare -F | awk '{print $3}' | grep '^case_'); do
	eval "test_${c#case_}__as_root() { NET_USER=root $c; }"
	eval "test_${c#case_}__as_nobody() { NET_USER=nobody $c; }"
done
run_tests
