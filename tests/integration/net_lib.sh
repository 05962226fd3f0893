# net_lib.sh - the remote hosts of the network tests, made for the test's length.
#
# Source it after lib.sh, then call net_setup once (before run_tests). It
# needs root, ip(8) with network namespaces, python3, openssl and curl; where
# one is missing the script skips (77), unless CI is set.
#
# net_setup re-executes the script in a private mount namespace whose
# /etc/hosts names the test hosts, so that nothing outside the test sees them
# and a kill leaves no hosts entry behind. It then makes:
#   - a network namespace ("the remote") joined to the host by a veth pair:
#     the host is 198.18.0.1 and fd00:18::1, the remote 198.18.0.2 (remote.test),
#     198.18.0.3 (other.test) and fd00:18::2 (private6.test);
#   - routes that send the metadata and link-local addresses the tests name
#     (169.254.169.254, 169.254.170.2, 169.254.1.1, 100.100.100.200,
#     fd00:ec2::254) into the remote, where the servers answer "at ADDR": a
#     broken guard reaches the test's own server, never a real metadata
#     service, and the test sees it;
#   - HTTP (80), HTTPS (443, throwaway certificate in $NET_CERT) and a raw TCP
#     service (7000) on every remote address, and HTTP on the host's
#     127.0.0.1:$NET_LOOPBACK_PORT (for --forward; never to be reachable
#     otherwise);
#   - names: evil-loopback.test (127.0.0.1), evil-metadata.test
#     (169.254.169.254), evil-alibaba.test (100.100.100.200), evil-self.test
#     (198.18.0.1, the host's own), evil-linklocal.test (169.254.1.1).
# Only one script makes these at a time (a lock): two would fight over the
# routes, and the second's teardown would leave the first's metadata route to
# the real network.

NET_LOCK=/run/lock/agenttask-net-test.lock
NET_NS=""
NET_LOOPBACK_PORT=""
here_net=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# A network suite that cannot run here: lib.sh's skip_suite (a failure
# under CI).
net_skip() {
	skip_suite "$@"
}

net_teardown() {
	[ -n "${NET_SERVERS_PID:-}" ] && kill "$NET_SERVERS_PID" 2>/dev/null
	[ -n "${NET_LOOP_PID:-}" ] && kill "$NET_LOOP_PID" 2>/dev/null
	wait 2>/dev/null
	if [ -n "$NET_NS" ]; then
		ip link del "athv$$" 2>/dev/null
		ip netns del "$NET_NS" 2>/dev/null
	fi
	return 0
}

_net_hosts() {
	cat /etc/hosts
	cat <<-EOF
	198.18.0.2 remote.test www.remote.test
	198.18.0.3 other.test
	fd00:18::2 private6.test
	127.0.0.1 evil-loopback.test
	169.254.169.254 evil-metadata.test
	100.100.100.200 evil-alibaba.test
	198.18.0.1 evil-self.test
	169.254.1.1 evil-linklocal.test
	EOF
}

_net_route_in() {
	local a
	for a in 169.254.169.254 169.254.170.2 169.254.1.1 100.100.100.200; do
		ip -n "$NET_NS" addr add "$a/32" dev lo
		ip route add "$a/32" via 198.18.0.2 dev "athv$$"
	done
	ip -n "$NET_NS" addr add fd00:ec2::254/128 dev lo
	ip -6 route add fd00:ec2::254/128 via fd00:18::2 dev "athv$$"
	# Prove the routes before anything relies on them.
	[ "$(ip route get 169.254.169.254 | grep -c "dev athv$$")" = 1 ] ||
		fail "169.254.169.254 is not routed into the test namespace"
}

_net_make() {
	local d=$1
	NET_NS=atnet$$
	ip netns add "$NET_NS"
	ip link add "athv$$" type veth peer name "atrv$$"
	ip link set "atrv$$" netns "$NET_NS"
	ip addr add 198.18.0.1/24 dev "athv$$"
	ip addr add fd00:18::1/64 dev "athv$$" nodad
	ip link set "athv$$" up
	ip -n "$NET_NS" link set lo up
	ip -n "$NET_NS" addr add 198.18.0.2/24 dev "atrv$$"
	ip -n "$NET_NS" addr add 198.18.0.3/24 dev "atrv$$"
	ip -n "$NET_NS" addr add fd00:18::2/64 dev "atrv$$" nodad
	ip -n "$NET_NS" link set "atrv$$" up
	ip -n "$NET_NS" route add default via 198.18.0.1
	_net_route_in
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=remote.test \
		-addext "subjectAltName=DNS:remote.test,DNS:www.remote.test" \
		-keyout "$d/key.pem" -out "$d/cert.pem" 2>/dev/null
	chmod 644 "$d/cert.pem" "$d/key.pem"
	ip netns exec "$NET_NS" python3 "$here_net/net_servers.py" "$d/cert.pem" "$d/key.pem" \
		"$d/ready" </dev/null >"$d/servers.log" 2>&1 &
	NET_SERVERS_PID=$!
	NET_LOOPBACK_PORT=$((20000 + $$ % 20000))
	python3 -c 'import http.server,sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b=b"host loopback service\n"; self.send_response(200)
        self.send_header("Content-Length",str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self,*a): pass
http.server.HTTPServer(("127.0.0.1",int(sys.argv[1])),H).serve_forever()' "$NET_LOOPBACK_PORT" \
		</dev/null >"$d/loop.log" 2>&1 &
	NET_LOOP_PID=$!
	for _ in $(seq 100); do
		[ -e "$d/ready" ] && curl -s "http://127.0.0.1:$NET_LOOPBACK_PORT/" >/dev/null && break
		sleep 0.1
	done
	[ -e "$d/ready" ] || { cat "$d/servers.log"; fail "the test servers did not start"; }
	NET_CERT=$d/cert.pem
}

# net_setup: see the top of this file. Call it at the top level of the script.
net_setup() {
	if [ -z "${AT_NET_INNER:-}" ]; then
		[ "$(id -u)" = 0 ] || net_skip "the network tests make network namespaces: run as root"
		local t
		for t in ip python3 openssl curl unshare flock setpriv; do
			command -v "$t" >/dev/null || net_skip "'$t' is not installed"
		done
		ip netns list >/dev/null 2>&1 || net_skip "ip netns does not work here"
		exec 9>"$NET_LOCK"
		flock 9
		_at_ran=1
		trap - EXIT
		rm -rf "$_at_root"
		AT_NET_INNER=1 exec unshare -m --propagation private bash "$0" "$@"
	fi
	local d
	d=$(mktemp -d "$_at_root/net.XXXXXX")
	chmod 755 "$d"
	_net_hosts >"$d/hosts"
	chmod 644 "$d/hosts"
	mount --bind "$d/hosts" /etc/hosts
	trap '_net_status=$?; net_teardown; (exit $_net_status); _at_exit' EXIT
	_net_make "$d"
	export NET_CERT NET_LOOPBACK_PORT NET_NS
}

# as_user CMD...: run CMD as the user the case is for: $NET_USER "nobody" is
# uid 65534; anything else (root, me) is the invoking user.
as_user() {
	if [ "${NET_USER:-root}" != nobody ]; then
		"$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp "$@"
	fi
}
