#!/usr/bin/env bash
# bench/ab.sh BINARY_A BINARY_B [ROUNDS] - two builds of agenttask on the same work, paired.
#
# For a change that should cost nothing (a redesign, issue 25): A the new
# build, B the old one, each on a repository of its own made alike (20,000
# small files in 200 directories, one commit; a task with 5 files changed).
# Interleaved (bench/interleave.py: one run of each per round, the order
# reversed every other round), ROUNDS rounds (default 40):
#   run T -- true        the sandbox's start-up and the run's bookkeeping
#   status T             the task's state (a scan of its worktree)
#   diff T --stat        the change against its base
#   new N && discard N   a task made and removed (20,000 files checked out)
# Prints, per command, each build's median and the median of the pairs'
# ratios A/B (1.00: the same; below: A faster).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
A=$(realpath "$1")
B=$(realpath "$2")
rounds=${3:-40}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_repo() {
	local r=$1
	git init -q -b main "$r"
	python3 - "$r" <<-'PY'
	import os, sys
	r = sys.argv[1]
	for d in range(200):
	    os.makedirs("%s/d%03d" % (r, d))
	    for f in range(100):
	        with open("%s/d%03d/f%03d.txt" % (r, d, f), "w") as fh:
	            fh.write("file %d %d\n" % (d, f))
	PY
	git -C "$r" add -A
	git -C "$r" -c user.name=b -c user.email=b@b commit -q -m base
}
for k in A B; do
	make_repo "$work/$k"
	bin=${!k}
	"$bin" -C "$work/$k" new t >/dev/null
	wt=$("$bin" -C "$work/$k" path t)
	for i in 1 2 3 4 5; do echo "change $i" >>"$wt/d00$i/f001.txt"; done
	printf '%s\0' "$bin" -C "$work/$k" run t -- true >"$work/$k.run"
	printf '%s\0' "$bin" -C "$work/$k" status t >"$work/$k.status"
	printf '%s\0' "$bin" -C "$work/$k" diff t --stat >"$work/$k.diff"
	printf '%s\0' sh -c "'$bin' -C '$work/$k' new n >/dev/null && '$bin' -C '$work/$k' discard n --force >/dev/null" \
		>"$work/$k.new"
done
for c in run status diff new; do
	python3 "$here/interleave.py" "$rounds" A "$work/A.$c" B "$work/B.$c" >"$work/$c.json"
done
python3 - "$work" <<'PY'
import json, statistics as st, sys
print("load average: %s" % open("/proc/loadavg").read().split()[:3])
print()
print("| command | A median ms | B median ms | A/B, median of the pairs |")
print("|---|---|---|---|")
names = {"run": "`run T -- true`", "status": "`status T`", "diff": "`diff T --stat`",
         "new": "`new N` + `discard N` (20,000 files)"}
for c in ("run", "status", "diff", "new"):
    r = {x["command"]: x["times"] for x in json.load(open("%s/%s.json" % (sys.argv[1], c)))["results"]}
    print("| %s | %.2f | %.2f | %.3f |" % (names[c], 1000 * st.median(r["A"]), 1000 * st.median(r["B"]),
          st.median([a / b for a, b in zip(r["A"], r["B"])])))
PY
