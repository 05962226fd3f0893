#!/usr/bin/env bash
# bench/publish.sh - a published port (run --publish) against a direct
# loopback connection, and the start-up cost of `run --publish`.
#
#   bench/publish.sh [AGENTTASK] [ROUNDS] [BYTES]
#
# The same servers run twice: on the host's 127.0.0.1 (direct) and inside a
# task's sandbox on its port 3000 and 3001, published (app/publish.c: each
# connection dialled through a socket made in the sandbox's namespace, then
# net/proxy.c's splice() relay).
#   latency:    ROUNDS (default 10) rounds, alternated, of 200 connections
#               each way: connect, one byte each way, close (bench/publish_lat.py);
#               the median per round, and the difference per round.
#   throughput: ROUNDS rounds of one BYTES transfer (default 256 MiB) each way,
#               the order reversed every other round (bench/interleave.py).
#   start-up:   `run T -- true` against `run T --publish 3000 -- true`,
#               ROUNDS x 10 runs interleaved.
# Prints markdown for docs/performance.md; writes nothing else.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-build/cmd/agenttask}")
rounds=${2:-10}
bytes=${3:-268435456}
work=$(mktemp -d)
pids=()
cleanup() {
	[ -z "${wt:-}" ] || touch "$wt/stop"
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

repo=$work/repo
git init -q -b main "$repo"
git -C "$repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
wt=$("$bin" -C "$repo" new bench)
cp "$here/publish_lat.py" "$here/net_xfer.py" "$wt/"

# direct: on the host
dlat=$(free_port) dxfer=$(free_port)
python3 "$here/publish_lat.py" serve "$dlat" & pids+=($!)
python3 "$here/net_xfer.py" serve "$dxfer" "$bytes" & pids+=($!)
# published: the same servers in the sandbox
plat=$(free_port) pxfer=$(free_port)
"$bin" -C "$repo" run bench --publish "$plat:3000" --publish "$pxfer:3001" -- sh -c \
	"python3 publish_lat.py serve 3000 & python3 net_xfer.py serve 3001 $bytes &
	 while [ ! -e stop ]; do sleep 0.1; done; kill %1 %2" 2>/dev/null & pids+=($!)
for p in "$dlat" "$plat"; do
	for _ in $(seq 200); do python3 "$here/publish_lat.py" probe "$p" 1 >/dev/null 2>&1 && break; sleep 0.05; done
done

: >"$work/lat.txt"
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then order="direct published"; else order="published direct"; fi
	for way in $order; do
		p=$dlat
		[ "$way" = direct ] || p=$plat
		echo "$r $way $(python3 "$here/publish_lat.py" probe "$p" 200)" >>"$work/lat.txt"
	done
done

printf '%s\0' python3 "$here/net_xfer.py" fetch 127.0.0.1 "$dxfer" "$bytes" >"$work/direct"
printf '%s\0' python3 "$here/net_xfer.py" fetch 127.0.0.1 "$pxfer" "$bytes" >"$work/published"
python3 "$here/interleave.py" "$rounds" direct "$work/direct" published "$work/published" >"$work/xfer.json"
touch "$wt/stop"

"$bin" -C "$repo" new bench2 >/dev/null
printf '%s\0' "$bin" -C "$repo" run bench2 -- true >"$work/run"
printf '%s\0' "$bin" -C "$repo" run bench2 --publish 3000 -- true >"$work/run_pub"
python3 "$here/interleave.py" $((rounds * 10)) run "$work/run" "run --publish" "$work/run_pub" \
	>"$work/start.json" 2>/dev/null

python3 - "$work/lat.txt" "$work/xfer.json" "$work/start.json" "$bytes" <<'PY'
import json, statistics, sys
lat = {"direct": {}, "published": {}}
for line in open(sys.argv[1]):
    r, way, med, mn = line.split()
    lat[way][r] = (float(med), float(mn))
x = {r["command"]: r["times"] for r in json.load(open(sys.argv[2]))["results"]}
s = {r["command"]: r["times"] for r in json.load(open(sys.argv[3]))["results"]}
mib = int(sys.argv[4]) / (1 << 20)
print("load average: %s" % open("/proc/loadavg").read().split()[:3])
print()
print("| connection: connect, 1 byte each way, close | median of the rounds' medians µs | min µs |")
print("|---|---|---|")
for k in ("direct", "published"):
    print("| %s | %.0f | %.0f |" % (k, statistics.median(v[0] for v in lat[k].values()),
                                   min(v[1] for v in lat[k].values())))
d = [lat["published"][r][0] - lat["direct"][r][0] for r in lat["direct"]]
print()
print("published - direct, per round (median): %+.0f µs" % statistics.median(d))
print()
print("| %.0f MiB transfer | median s | MiB/s (median) |" % mib)
print("|---|---|---|")
for k in ("direct", "published"):
    print("| %s | %.3f | %.0f |" % (k, statistics.median(x[k]), mib / statistics.median(x[k])))
print()
print("ratio direct/published: median %.2f, per-round median %.2f" % (
    statistics.median(x["direct"]) / statistics.median(x["published"]),
    statistics.median([a / b for a, b in zip(x["direct"], x["published"])])))
print()
print("| start-up | median ms | min ms |")
print("|---|---|---|")
for k in ("run", "run --publish"):
    print("| `%s` | %.2f | %.2f |" % (k, 1000 * statistics.median(s[k]), 1000 * min(s[k])))
print()
print("`run --publish` - `run`: medians %+.2f ms, median of the pairs %+.2f ms" % (
    1000 * (statistics.median(s["run --publish"]) - statistics.median(s["run"])),
    1000 * statistics.median([b - a for a, b in zip(s["run"], s["run --publish"])])))
PY
