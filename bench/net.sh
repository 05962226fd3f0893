#!/usr/bin/env bash
# bench/net.sh - throughput of the allowlist proxy's relay against a direct
# loopback transfer, and the start-up cost of `run --allow-host` against `run`.
#
#   bench/net.sh [AGENTTASK] [ROUNDS] [BYTES]
#
# Throughput: a python sender on 127.0.0.1 writes BYTES (default 1 GiB) to
# each connection; a python reader takes them either directly or through
# the proxy engine's relay (tests/helpers/net_proxy_driver with a forward
# listener: the same splice() relay every proxied connection uses, with no
# name to resolve). ROUNDS (default 10) rounds of one transfer each, the
# order reversed every other round (bench/interleave.py). The ratio is
# direct time / proxied time: 1.0 is as fast as direct.
#
# Then where the time goes: CPU seconds per transfer of the sender, the
# proxy and the reader (from /proc and the reader's rusage), 3 transfers
# each way, one way after the other.
#
# Start-up: `agenttask run T -- true` against `agenttask run T --allow-host
# example.com -- true`, interleaved the same way (ROUNDS x 10 runs); the
# difference of the medians and the median of the pairs' differences.
# Prints markdown for docs/performance.md; writes nothing else.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-build/cmd/agenttask}")
rounds=${2:-10}
bytes=${3:-1073741824}
driver=$(dirname "$bin")/../tests/net_proxy_driver
work=$(mktemp -d)
pids=()
cleanup() {
	exec 7>&- 2>/dev/null || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

port=$((30000 + $$ % 20000))
python3 "$here/net_xfer.py" serve "$port" "$bytes" &
spid=$!
pids+=($spid)
mkfifo "$work/ctl"
"$driver" --forward "127.0.0.1:0=$port" <"$work/ctl" >"$work/proxy.out" &
dpid=$!
pids+=($dpid)
exec 7>"$work/ctl"
for _ in $(seq 100); do grep -q '^ready' "$work/proxy.out" && break; sleep 0.05; done
fwd=$(awk '/^forward /{print $2; exit}' "$work/proxy.out")
sleep 0.3

printf '%s\0' python3 "$here/net_xfer.py" fetch 127.0.0.1 "$port" "$bytes" >"$work/direct"
printf '%s\0' python3 "$here/net_xfer.py" fetch 127.0.0.1 "${fwd##*:}" "$bytes" >"$work/proxied"
python3 "$here/interleave.py" "$rounds" direct "$work/direct" proxied "$work/proxied" >"$work/xfer.json"

# CPU seconds of a process so far (utime + stime, clock ticks of 1/100 s on Linux)
cpu_of() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }
for way in direct proxied; do
	p=$port
	[ "$way" = direct ] || p=${fwd##*:}
	s0=$(cpu_of "$spid") d0=$(cpu_of "$dpid")
	r=$(python3 -c 'import resource, subprocess, sys
for _ in range(3):
    subprocess.run([sys.executable] + sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(ru.ru_utime, ru.ru_stime)' "$here/net_xfer.py" fetch 127.0.0.1 "$p" "$bytes")
	echo "$way $(cpu_of "$spid") $s0 $(cpu_of "$dpid") $d0 $r" >>"$work/cpu.txt"
done

repo=$work/repo
git init -q -b main "$repo"
git -C "$repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
"$bin" -C "$repo" new bench >/dev/null
printf '%s\0' "$bin" -C "$repo" run bench -- true >"$work/run"
printf '%s\0' "$bin" -C "$repo" run bench --allow-host example.com -- true >"$work/run_allow"
python3 "$here/interleave.py" $((rounds * 10)) run "$work/run" "run --allow-host" "$work/run_allow" \
	>"$work/start.json"

python3 - "$work/xfer.json" "$work/start.json" "$bytes" "$work/cpu.txt" <<'PY'
import json, statistics, sys
x = {r["command"]: r["times"] for r in json.load(open(sys.argv[1]))["results"]}
s = {r["command"]: r["times"] for r in json.load(open(sys.argv[2]))["results"]}
cpu = {}
for line in open(sys.argv[4]):
    way, s1, s0, d1, d0, ru, rs = line.split()
    cpu[way] = ((float(s1) - float(s0)) / 3, (float(d1) - float(d0)) / 3, (float(ru) + float(rs)) / 3)
gib = int(sys.argv[3]) / (1 << 30)
print("load average: %s" % open("/proc/loadavg").read().split()[:3])
print()
print("| %.2g GiB transfer | median s | min s | GiB/s (median) |" % gib)
print("|---|---|---|---|")
for k in ("direct", "proxied"):
    print("| %s | %.3f | %.3f | %.2f |" % (k, statistics.median(x[k]), min(x[k]), gib / statistics.median(x[k])))
print()
print("ratio direct/proxied: median %.2f, min %.2f, per-round median %.2f" % (
    statistics.median(x["direct"]) / statistics.median(x["proxied"]), min(x["direct"]) / min(x["proxied"]),
    statistics.median([d / p for d, p in zip(x["direct"], x["proxied"])])))
print()
print("| CPU s per transfer | sender | proxy | reader (with its start) | all |")
print("|---|---|---|---|---|")
for k in ("direct", "proxied"):
    print("| %s | %.3f | %.3f | %.3f | %.3f |" % ((k,) + cpu[k] + (sum(cpu[k]),)))
print()
print("| start-up | median ms | min ms |")
print("|---|---|---|")
for k in ("run", "run --allow-host"):
    print("| `%s` | %.2f | %.2f |" % (k, 1000 * statistics.median(s[k]), 1000 * min(s[k])))
print()
print("`run --allow-host` - `run`: medians %+.2f ms, median of the pairs %+.2f ms, min %+.2f ms" % (
    1000 * (statistics.median(s["run --allow-host"]) - statistics.median(s["run"])),
    1000 * statistics.median([b - a for a, b in zip(s["run"], s["run --allow-host"])]),
    1000 * (min(s["run --allow-host"]) - min(s["run"]))))
PY
