#!/usr/bin/env bash
# The proxy engine (net/), driven by tests/helpers/net_proxy_driver, against
# remote hosts this script makes (net_lib.sh). Every case runs twice: with the
# proxy run by root, and by uid 65534.
#
# The attacker is the client: a process in the sandbox that may send the
# proxy anything. What it tries, case by case, is said above each case.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"
net_setup "$@"

DRIVER_SRC=${NET_PROXY_DRIVER:-$(dirname "$AT")/../tests/net_proxy_driver}
DRIVER=$(dirname "$NET_CERT")/net_proxy_driver
cp "$DRIVER_SRC" "$DRIVER"
chmod 755 "$DRIVER"
CLIENT="python3 $(cd "$(dirname "$0")" && pwd)/net_client.py"

# proxy_start ARGS...: the driver with ARGS, as $NET_USER; $PROXY is its address.
proxy_start() {
	mkfifo ctl
	chmod 666 ctl
	as_user "$DRIVER" "$@" <ctl >proxy.out 2>proxy.err &
	PROXY_PID=$!
	exec 8>ctl
	for _ in $(seq 100); do
		grep -q '^ready' proxy.out 2>/dev/null && break
		sleep 0.05
	done
	grep -q '^ready' proxy.out || fail "the proxy did not start: $(cat proxy.err)"
	PROXY=$(awk '/^listen /{print $2; exit}' proxy.out)
}

# proxy_stop: end the driver; it must leave no descriptor or thread behind.
proxy_stop() {
	local port=${PROXY##*:}
	exec 8>&-
	wait "$PROXY_PID" || true
	grep -q '^clean' proxy.out || fail "the proxy did not stop clean: $(grep -v '^record' proxy.out)"
	if ss -Hltn "sport = :$port" | grep -q .; then fail "port $port still listens"; fi
}

http_get() { # URL [curl args]: the body, or the 403's text
	local url=$1
	shift
	curl -s --max-time 20 -x "http://$PROXY" "$@" "$url" || true
}

# The allowed name is reached over HTTP, HTTPS through CONNECT and raw TCP through CONNECT.
case_allowed_name_is_reached() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test --allow remote.test:7000
	body=$(http_get http://remote.test/some/path?q=1)
	assert_contains "$body" "hello at 198.18.0.2 host=remote.test path=/some/path?q=1" "http"
	assert_contains "$body" "proxyheaders=none" "Proxy-* headers are not forwarded"
	body=$(http_get https://remote.test/ --cacert "$NET_CERT")
	assert_contains "$body" "hello at 198.18.0.2 host=remote.test" "https through CONNECT"
	out=$($CLIENT connect "$PROXY" remote.test 7000)
	assert_contains "$out" "banner at 198.18.0.2" "raw TCP through CONNECT"
	assert_contains "$out" "echo ping" "raw TCP echoes"
	proxy_stop
	grep -q '^record proto=http host=remote.test port=80 addr=198.18.0.2 allowed=1 rule=remote.test' proxy.out ||
		fail "the http request is recorded: $(cat proxy.out)"
	grep -q '^record proto=connect host=remote.test port=7000 addr=198.18.0.2 allowed=1 rule=remote.test:7000' proxy.out ||
		fail "the raw tunnel is recorded"
}

# A client that names the allowed host in the URI but another in Host must not
# reach that other virtual host: the URI's authority is what is sent.
case_host_header_is_the_uris() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test
	body=$(http_get http://remote.test/ -H "Host: other.test")
	assert_contains "$body" "host=remote.test " "Host replaced by the URI's authority"
	proxy_stop
}

# send NAME FORMAT...: printf FORMAT... into the file NAME.
req() { local f=$1; shift; printf "$@" >"$f"; }

# The client sends, on one connection to an allowed host:port whose server
# answers every request it reads (a sloppy keep-alive server, 8080), a first
# request and then a second for another virtual host (Host: other.test):
# pipelined behind the first, after the first's answer (kept alive), behind
# a body declared by Content-Length or chunked, or behind a body the client
# declares too short. Must: the first request reaches the server with exactly
# its declared body; the second never does (no "host=other.test" answer).
case_one_request_per_judged_head() {
	local two='GET /two HTTP/1.1\r\nHost: other.test\r\n\r\n'
	proxy_start --listen 127.0.0.1:0 --allow remote.test:8080
	req pipelined "GET http://remote.test:8080/one HTTP/1.1\r\n\r\n$two"
	req first 'GET http://remote.test:8080/one HTTP/1.1\r\n\r\n'
	req second "$two"
	req cl "POST http://remote.test:8080/one HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello$two"
	req chunked "POST http://remote.test:8080/one HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n3\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n$two"
	req short "POST http://remote.test:8080/one HTTP/1.1\r\nContent-Length: 2\r\n\r\nhello\r\n\r\n$two"
	for f in pipelined "first second" cl chunked short; do
		# shellcheck disable=SC2086
		out=$($CLIENT send "$PROXY" $f)
		assert_contains "$out" "ka at 198.18.0.2 host=remote.test:8080 path=/one" "$f: the first request"
		assert_not_contains "$out" "other.test" "$f: the second request never reaches the server"
		assert_not_contains "$out" "path=/two" "$f: the second request never reaches the server"
	done
	assert_contains "$($CLIENT send "$PROXY" cl)" "body=5" "a Content-Length body whole"
	assert_contains "$($CLIENT send "$PROXY" chunked)" "body=8" "a chunked body whole"
	assert_contains "$($CLIENT send "$PROXY" short)" "body=2" "as declared, not as sent"
	proxy_stop
}

# The client frames a request so that the proxy and a server could disagree
# about where it ends (RFC 9112's smuggling: Content-Length beside
# Transfer-Encoding, two lengths, a coding other than chunked, a folded,
# NUL- or bare-CR-hidden header) or asks to switch protocols (WebSocket,
# h2c), each followed by a second request for another virtual host. Must: a
# 400 naming the fault, and nothing reaches the server.
case_ambiguous_framing_is_refused() {
	local two='GET /two HTTP/1.1\r\nHost: other.test\r\n\r\n' u='POST http://remote.test:8080/one HTTP/1.1\r\n' i=0 h
	proxy_start --listen 127.0.0.1:0 --allow remote.test:8080
	for h in 'Content-Length: 5\r\nTransfer-Encoding: chunked' \
		'Transfer-Encoding: chunked\r\nContent-Length: 5' \
		'Content-Length: 5\r\nContent-Length: 5' \
		'Content-Length: 5\r\nContent-Length: 40' \
		'Content-Length: 5, 5' 'Content-Length: +5' 'Content-Length: 0x5' 'Content-Length:' \
		'Transfer-Encoding: gzip, chunked' 'Transfer-Encoding: chunked, chunked' \
		'Transfer-Encoding: identity' 'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked' \
		'Transfer-Encoding:\x0bchunked' 'Transfer-Encoding: chunked\x00' \
		'Transfer-Encoding:\r\n chunked' 'Transfer-Encoding:\r\n\tchunked' \
		'X: a\rTransfer-Encoding: chunked' 'X: a\x00b' \
		'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13' \
		'Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__'; do
		i=$((i + 1))
		req "bad$i" "$u$h\r\n\r\nhello\r\n0\r\n\r\n$two"
		out=$($CLIENT send "$PROXY" "bad$i")
		assert_contains "$out" "400 Bad Request" "refused: $h"
		assert_not_contains "$out" "ka at" "nothing reaches the server: $h"
	done
	req v10 "POST http://remote.test:8080/one HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n$two"
	assert_contains "$($CLIENT send "$PROXY" v10)" "400 Bad Request" "chunked in HTTP/1.0"
	proxy_stop
	if grep '^record' proxy.out | grep -q 'allowed=1'; then
		fail "a refused request was dialled: $(grep allowed=1 proxy.out)"
	fi
	rm -f ctl
	proxy_start --listen 127.0.0.1:0 --allow remote.test:8080
	# A chunked body that is not chunked framing: cut, the server never answers.
	for h in '0x5\r\nhello\r\n0\r\n\r\n' '5 ;x\r\nhello\r\n0\r\n\r\n' '-5\r\nhello\r\n0\r\n\r\n' \
		'5\r\nhelloXX0\r\n\r\n' '5\nhello\r\n0\r\n\r\n' '0\r\n folded: trailer\r\n\r\n'; do
		i=$((i + 1))
		req "bad$i" "${u}Transfer-Encoding: chunked\r\n\r\n$h$two"
		out=$($CLIENT send "$PROXY" "bad$i")
		assert_not_contains "$out" "ka at" "a malformed chunked body is never forwarded: $h"
	done
	proxy_stop
}

case_socks5_by_name_is_reached() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test
	body=$(curl -s --max-time 20 --socks5-hostname "$PROXY" http://remote.test/)
	assert_contains "$body" "hello at 198.18.0.2" "SOCKS5 with a host name"
	out=$($CLIENT socks "$PROXY" other.test 80)
	assert_contains "$out" "socks reply 2" "SOCKS5 refusal is 'not allowed by ruleset'"
	proxy_stop
}

# The client asks for what no rule allows: another name, the raw IP of an
# allowed name, another port. Each is a 403 naming the host, nothing is dialled.
case_unlisted_names_ips_and_ports_are_refused() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test
	body=$(http_get http://other.test/)
	assert_contains "$body" "'other.test:80' is not allowed" "another name"
	assert_not_contains "$body" "hello at" "another name is not reached"
	code=$(curl -s -o /dev/null -w '%{http_code}' -x "http://$PROXY" http://198.18.0.2/)
	assert_eq "$code" 403 "the raw IP of an allowed name"
	out=$($CLIENT connect "$PROXY" remote.test 7000)
	assert_contains "$out" "403" "another port"
	assert_contains "$out" "'remote.test:7000' is not allowed" "the refusal names host and port"
	out=$($CLIENT connect "$PROXY" 198.18.0.2 443)
	assert_contains "$out" "403" "CONNECT to the raw IP"
	proxy_stop
	grep -q "^record proto=connect host=198.18.0.2 port=443 addr=- allowed=0" proxy.out ||
		fail "the refusal is recorded: $(cat proxy.out)"
}

# The client names hosts the rules allow, but which resolve to (or are) the
# host's loopback, a metadata address, a link-local address or the host's own
# address. The proxy must refuse each, naming the rule and the class, and the
# remote's servers (which these addresses are routed to) must never answer.
case_refused_classes_are_refused_even_when_allowed() {
	local h lit allow=()
	for h in evil-loopback evil-metadata evil-alibaba evil-self evil-linklocal; do
		allow+=(--allow "$h.test" --allow "$h.test:7000")
	done
	proxy_start --listen 127.0.0.1:0 "${allow[@]}" --allow 169.254.169.254 --allow 100.100.100.200 --allow 127.0.0.1 \
		--allow '[fd00:ec2::254]' --allow 198.18.0.1 --allow 169.254.170.2
	for h in evil-loopback evil-metadata evil-alibaba evil-self evil-linklocal; do
		body=$(http_get "http://$h.test/")
		assert_contains "$body" "allowed by '$h.test'" "$h: the rule is named"
		assert_contains "$body" "never dialled" "$h is refused"
		assert_not_contains "$body" "hello at" "$h is not reached"
		out=$($CLIENT connect "$PROXY" "$h.test" 7000)
		assert_contains "$out" "403" "$h over CONNECT"
		assert_not_contains "$out" "banner" "$h over CONNECT is not reached"
	done
	assert_contains "$(http_get http://evil-loopback.test/)" "a loopback address" "class named"
	assert_contains "$(http_get http://evil-metadata.test/)" "a cloud metadata address" "class named"
	assert_contains "$(http_get http://evil-self.test/)" "an address of this host" "class named"
	for lit in 169.254.169.254 100.100.100.200 127.0.0.1 '[fd00:ec2::254]' 198.18.0.1 169.254.170.2; do
		body=$(http_get "http://$lit/")
		assert_contains "$body" "never dialled" "literal $lit is refused"
		assert_not_contains "$body" "hello at" "literal $lit is not reached"
	done
	# the same through SOCKS5, by literal
	out=$($CLIENT socks "$PROXY" 169.254.169.254 80)
	assert_contains "$out" "socks reply 2" "SOCKS5 to the metadata address"
	proxy_stop
	if grep '^record' proxy.out | grep -q 'allowed=1'; then
		fail "a refused class was let through: $(grep allowed=1 proxy.out)"
	fi
}

# Private ranges are dialled unless --deny-private.
case_private_ranges_refused_only_when_asked() {
	proxy_start --listen 127.0.0.1:0 --allow private6.test
	assert_contains "$(http_get http://private6.test/)" "hello at fd00:18::2" "private reached"
	proxy_stop
	rm -f ctl
	proxy_start --listen 127.0.0.1:0 --allow private6.test --deny-private
	body=$(http_get http://private6.test/)
	assert_contains "$body" "a private address, which is never dialled" "private refused"
	proxy_stop
}

# Domain fronting: a CONNECT to the allowed name whose TLS ClientHello names
# another server is closed before a byte reaches the remote.
case_tls_naming_another_server_is_closed() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test
	out=$($CLIENT tls "$PROXY" remote.test 443 remote.test)
	assert_contains "$out" "hello at 198.18.0.2" "TLS naming the CONNECT host"
	out=$($CLIENT tls "$PROXY" remote.test 443 other.test)
	assert_contains "$out" "tls failed" "TLS naming another host is cut"
	proxy_stop
	grep -q "allowed=0 .*reason=TLS names a server other than 'remote.test'" proxy.out ||
		fail "the cut is recorded: $(cat proxy.out)"
}

# Domain fronting without a name: a CONNECT to the allowed name whose TLS
# ClientHello names no server at all (a server on that shared address then
# picks its default virtual host, which need not be the allowed one). Must:
# closed before a byte reaches the remote; an IP literal allowed as such
# still takes a hello without a name (there is no name to give).
case_tls_without_a_server_name_is_closed() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test --allow 198.18.0.2:443
	out=$($CLIENT tls "$PROXY" remote.test 443 "")
	assert_contains "$out" "tls failed" "TLS naming no server, to a host allowed by name, is cut"
	assert_not_contains "$out" "hello at" "nothing reached the remote"
	out=$($CLIENT tls "$PROXY" 198.18.0.2 443 "")
	assert_contains "$out" "hello at 198.18.0.2" "TLS naming no server, to an allowed IP literal"
	proxy_stop
	grep -q "allowed=0 .*reason=TLS names no server, and 'remote.test' was allowed by name" proxy.out ||
		fail "the cut is recorded: $(cat proxy.out)"
}

case_300_concurrent_connections() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test:7000
	out=$($CLIENT many "$PROXY" remote.test 7000 300)
	assert_contains "$out" "open at once: 300" "300 tunnels open at once"
	assert_contains "$out" "echoed: 300" "all 300 work"
	proxy_stop
	assert_eq "$(grep -c '^record proto=connect .*allowed=1' proxy.out)" 300 "300 recorded"
}

# --forward: one port of the host's loopback, logged; the proxy listener
# still refuses the host's loopback.
case_forward_reaches_the_hosts_loopback_service() {
	proxy_start --listen 127.0.0.1:0 --forward "127.0.0.1:0=$NET_LOOPBACK_PORT" --allow remote.test
	fwd=$(awk '/^forward /{print $2; exit}' proxy.out)
	body=$(curl -s --max-time 10 "http://$fwd/")
	assert_eq "$body" "host loopback service" "the forwarded service answers"
	body=$(http_get "http://127.0.0.1:$NET_LOOPBACK_PORT/")
	assert_contains "$body" "not allowed" "the proxy does not reach it"
	proxy_stop
	grep -q "^record proto=forward host=127.0.0.1 port=$NET_LOOPBACK_PORT addr=127.0.0.1 allowed=1" proxy.out ||
		fail "the forward is recorded: $(cat proxy.out)"
}

# Bytes each way are counted, and the stop leaves nothing (proxy_stop checks).
case_records_count_bytes_each_way() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test
	http_get http://remote.test/bytes/1000000 >/dev/null
	proxy_stop
	line=$(grep '^record proto=http' proxy.out)
	down=$(sed 's/.* down=\([0-9]*\).*/\1/' <<<"$line")
	up=$(sed 's/.* up=\([0-9]*\).*/\1/' <<<"$line")
	[ "$down" -gt 1000000 ] && [ "$down" -lt 1001000 ] || fail "bytes down: $line"
	[ "$up" -gt 20 ] && [ "$up" -lt 1000 ] || fail "bytes up: $line"
}

# Malformed requests get a 400 and nothing is dialled.
case_malformed_requests_are_400() {
	proxy_start --listen 127.0.0.1:0 --allow remote.test
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://$PROXY/relative")
	assert_eq "$code" 400 "an origin-form request"
	out=$(printf 'GET http://remote.test/ HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n' |
		timeout 5 python3 -c 'import socket,sys; h,p=sys.argv[1].rsplit(":",1); s=socket.create_connection((h,int(p))); s.sendall(sys.stdin.buffer.read()); print(s.recv(200).decode())' "$PROXY")
	assert_contains "$out" "400" "a folded header"
	proxy_stop
}

for c in $(declare -F | awk '{print $3}' | grep '^case_'); do
	eval "test_${c#case_}__as_root() { NET_USER=root $c; }"
	eval "test_${c#case_}__as_nobody() { NET_USER=nobody $c; }"
done
run_tests
