#!/usr/bin/env bash
# bench/secrets.sh - what holding a secret at the proxy costs (issue 24): a
# terminated host (the proxy takes the client's TLS under the task's CA,
# judges each request, opens its own TLS upstream) against the same host as
# today's end-to-end tunnel, in the same run.
#
#   sudo bench/secrets.sh [AGENTTASK] [ROUNDS]
#
# Needs root (a network namespace for the remote, as tests/integration/
# net_lib.sh makes: the proxy never dials loopback). Inside `agenttask run`,
# one curl (one process, one connection kept alive) makes 1 + ROUNDS
# requests to https://remote.test:8443/ (the test servers' keep-alive
# HTTPS): tunnel (--allow-host only; curl verifies the remote with its CA, in a
# bundle as large as the sandbox's)
# and terminated (--secret bound to the host; curl trusts the task's CA).
# Reported: the TLS handshake of the first request (time_appconnect -
# time_connect), the median time of a request after the first on the kept
# connection, and a 256 MiB download's time (throughput ratio). Then `run
# --allow-host H -- true` against `run --allow-host H --secret K:H -- true`,
# interleaved (bench/interleave.py). Prints markdown for docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-build/cmd/agenttask}")
rounds=${2:-200}
[ "$(id -u)" = 0 ] || { echo "bench/secrets.sh: run as root (a network namespace)" >&2; exit 2; }
if [ -z "${AT_BENCH_INNER:-}" ]; then
	AT_BENCH_INNER=1 exec unshare -m --propagation private bash "$0" "$@"
fi
work=$(mktemp -d)
ns=atbench$$
cleanup() {
	[ -n "${spid:-}" ] && kill "$spid" 2>/dev/null
	wait 2>/dev/null || true
	ip link del "abv$$" 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	[ -n "${AT_BENCH_KEEP:-}" ] || rm -rf "$work"; echo "work: $work" >&2
}
trap cleanup EXIT
{ cat /etc/hosts; echo "198.18.0.2 remote.test"; } >"$work/hosts"
mount --bind "$work/hosts" /etc/hosts
ip netns add "$ns"
ip link add "abv$$" type veth peer name "arv$$"
ip link set "arv$$" netns "$ns"
ip addr add 198.18.0.1/24 dev "abv$$"
ip link set "abv$$" up
ip -n "$ns" link set lo up
ip -n "$ns" addr add 198.18.0.2/24 dev "arv$$"
ip -n "$ns" link set "arv$$" up
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=remote.test \
	-addext "subjectAltName=DNS:remote.test" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
chmod 644 "$work/key.pem" "$work/cert.pem"
# The tunnel's client trusts a bundle as large as the sandbox's (the system's and one
# more): a CA file's parsing is the client's cost, the same in both rows.
cat /etc/ssl/certs/ca-certificates.crt "$work/cert.pem" >"$work/bundle.pem"
chmod 644 "$work/bundle.pem"
ip netns exec "$ns" python3 "$here/../tests/integration/net_servers.py" "$work/cert.pem" \
	"$work/key.pem" "$work/ready" 18080 18443 17000 18081 </dev/null >"$work/servers.log" 2>&1 &
spid=$!
for _ in $(seq 100); do [ -e "$work/ready" ] && break; sleep 0.1; done
[ -e "$work/ready" ] || { cat "$work/servers.log"; exit 1; }
export SSL_CERT_FILE=$work/cert.pem K=sk-benchsecret-0123456789abcdef
repo=$work/repo
git init -q -b main "$repo"
git -C "$repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
"$bin" -C "$repo" new bench >/dev/null
url=https://remote.test:26443   # 18443 + 8000: the keep-alive echo service
host=(--allow-host remote.test:26443)
fmt='%{time_connect} %{time_appconnect} %{time_total}\n'
urls=$(for _ in $(seq 0 "$rounds"); do printf -- '-o /dev/null -w "%s" %s/r ' "$fmt" "$url"; done)

latency() {   # $1: label; the rest: agenttask run's options
	local label=$1
	shift
	"$bin" -C "$repo" run bench "$@" --ro "$work" -- sh -c "curl -s -H \"x-api-key: \$K\" \
		--cacert \${CURL_CA_BUNDLE:-$work/bundle.pem} $urls" | sed "s/^/$label /"
}
bytes=$((256 << 20))
download() {
	local label=$1
	shift
	"$bin" -C "$repo" run bench "$@" --ro "$work" -- sh -c "curl -s -o /dev/null -w '%{time_total}\n' \
		-H \"x-api-key: \$K\" --cacert \${CURL_CA_BUNDLE:-$work/bundle.pem} $url/bytes/$bytes" \
		| sed "s/^/$label /"
}
for i in 1 2 3 4 5; do
	latency tunnel "${host[@]}" >>"$work/lat.txt"
	latency terminated "${host[@]}" --secret K:remote.test >>"$work/lat.txt"
	download tunnel "${host[@]}" >>"$work/dl.txt"
	download terminated "${host[@]}" --secret K:remote.test >>"$work/dl.txt"
done
printf '%s\0' "$bin" -C "$repo" run bench "${host[@]}" -- true >"$work/run_allow"
printf '%s\0' "$bin" -C "$repo" run bench "${host[@]}" --secret K:remote.test -- true >"$work/run_secret"
python3 "$here/interleave.py" 100 "run --allow-host" "$work/run_allow" \
	"run --allow-host --secret" "$work/run_secret" >"$work/start.json"

python3 - "$work/lat.txt" "$work/dl.txt" "$work/start.json" "$bytes" <<'PY'
import json, statistics as st, sys
lat = {"tunnel": [], "terminated": []}
hs = {"tunnel": [], "terminated": []}
first = None
for line in open(sys.argv[1]):
    k, c, a, t = line.split()
    c, a, t = float(c), float(a), float(t)
    if a > 0:                 # a new connection: its TLS handshake
        hs[k].append(a - c)
    else:
        lat[k].append(t)
dl = {"tunnel": [], "terminated": []}
for line in open(sys.argv[2]):
    k, t = line.split()
    dl[k].append(float(t))
s = {r["command"]: r["times"] for r in json.load(open(sys.argv[3]))["results"]}
mib = int(sys.argv[4]) / (1 << 20)
print("load average: %s" % open("/proc/loadavg").read().split()[:3])
print()
print("| per request, loopback veth | tunnel | terminated | difference |")
print("|---|---|---|---|")
m = {k: 1000 * st.median(v) for k, v in lat.items()}
print("| a request on the kept connection, median ms (%d each) | %.3f | %.3f | %+.3f |" % (
    len(lat["tunnel"]), m["tunnel"], m["terminated"], m["terminated"] - m["tunnel"]))
h = {k: 1000 * st.median(v) for k, v in hs.items()}
print("| TLS handshake of the first, median ms (%d each) | %.3f | %.3f | %+.3f |" % (
    len(hs["tunnel"]), h["tunnel"], h["terminated"], h["terminated"] - h["tunnel"]))
d = {k: st.median(v) for k, v in dl.items()}
print("| %d MiB download, median s | %.3f | %.3f | throughput ratio terminated/tunnel %.2f |" % (
    mib, d["tunnel"], d["terminated"], d["tunnel"] / d["terminated"]))
print()
a, b = s["run --allow-host"], s["run --allow-host --secret"]
print("`run --allow-host --secret` - `run --allow-host` (100 interleaved pairs): medians %+.2f ms, "
      "median of the pairs %+.2f ms (%.2f ms / %.2f ms)" % (
    1000 * (st.median(b) - st.median(a)), 1000 * st.median([y - x for x, y in zip(a, b)]),
    1000 * st.median(a), 1000 * st.median(b)))
PY
