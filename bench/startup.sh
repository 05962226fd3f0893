#!/usr/bin/env bash
# bench/startup.sh - `agenttask run NAME -- /bin/true` against bubblewrap at
# the same isolation (the seed's recipe, bench/bwrap_recipe.sh): wall time,
# CPU time and page faults of many interleaved pairs, and the system calls
# of one run of each side.
#
#   bench/startup.sh [AGENTTASK] [ROUNDS]
#
# AGENTTASK (default build/cmd/agenttask, an optimised build) is measured
# against BWRAP (default bwrap) in ROUNDS rounds (default 200) of one run of
# each, the order reversed every other round (bench/startup.py), with and
# without the default limits, and at exactly bwrap's isolation (no limits, git
# read-only: the row bench/sandbox.sh explains). Each side's CPU time and page faults are its
# whole process tree's, as wait4() reports them (user + system; work the
# kernel defers to its own threads, such as a network namespace's teardown,
# is in neither side's figure). System calls: `strace -f -c` of one run of
# each, untimed. Needs bwrap, python3 and git; strace for the counts.
# Prints a markdown table for docs/performance.md; writes nothing else.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
AT=$(realpath "${1:-$here/build/cmd/agenttask}")
ROUNDS=${2:-200}
[ -x "$AT" ] || { echo "bench/startup.sh: no agenttask binary at '$AT'" >&2; exit 2; }
BWRAP=$(command -v "${BWRAP:-bwrap}") || { echo "bench/startup.sh: '${BWRAP:-bwrap}' is needed" >&2; exit 2; }
for tool in python3 git; do
	command -v "$tool" >/dev/null || { echo "bench/startup.sh: '$tool' is needed" >&2; exit 2; }
done

export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/agenttask-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_DATA_HOME=$work/data
git init -q -b main "$work/repo"
git -C "$work/repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
WT=$(realpath "$("$AT" -C "$work/repo" new bench)")
COMMON=$(realpath "$(git -C "$work/repo" rev-parse --absolute-git-dir)")
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' >"$work/config"
. "$here/bench/bwrap_recipe.sh"

"${b[@]}" /bin/true || { echo "bench/startup.sh: bwrap cannot run here" >&2; exit 1; }
cd "$work/repo"
"$AT" run bench -- /bin/true || { echo "bench/startup.sh: agenttask run fails here" >&2; exit 1; }

# agenttask at exactly bwrap's isolation (as in bench/sandbox.sh): no limits,
# and git read-only, as a second run of a task whose git view a long run holds.
"$AT" new held >/dev/null
"$AT" run held -- sleep 100000 >/dev/null 2>&1 &
held_pid=$!
trap 'kill $held_pid 2>/dev/null; wait $held_pid 2>/dev/null || true; rm -rf "$work"' EXIT
held_ro=false
for _ in $(seq 100); do
	"$AT" run held --no-limits -- /bin/true 2>&1 | grep -q "git is read-only" && { held_ro=true; break; }
	sleep 0.05
done
$held_ro || { echo "bench/startup.sh: the held task's runs never got git read-only" >&2; exit 1; }

printf '%s\0' "$AT" run bench -- /bin/true >"$work/cmd.0"
printf '%s\0' "$AT" run bench --no-limits -- /bin/true >"$work/cmd.1"
printf '%s\0' "${b[@]}" /bin/true >"$work/cmd.2"
printf '%s\0' "$AT" run held --no-limits -- /bin/true >"$work/cmd.3"
sys_calls() { # the system calls of one run of the command in file $1, every process
	command -v strace >/dev/null || { echo "-"; return; }
	xargs -0 -a "$1" strace -f -c -o "$work/strace" >/dev/null 2>&1 || { echo "-"; return; }
	awk '$NF == "total" { print $(NF-2) }' "$work/strace"
}
calls=("$(sys_calls "$work/cmd.0")" "$(sys_calls "$work/cmd.1")" "$(sys_calls "$work/cmd.3")"
	"$(sys_calls "$work/cmd.2")")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$here/bench/startup.py" "$ROUNDS" "agenttask run" "$work/cmd.0" \
	"agenttask run --no-limits" "$work/cmd.1" \
	"agenttask run --no-limits, git read-only" "$work/cmd.3" "bwrap" "$work/cmd.2" >"$work/result.json"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work/result.json" "$load_before" "$load_after" "${calls[@]}" <<'PY'
import json, os, platform, statistics as st, sys
path, lb, la = sys.argv[1:4]
calls = sys.argv[4:8]
res = {r["command"]: r for r in json.load(open(path))["results"]}
ref = res["bwrap"]
print("Linux %s, %d CPUs; load average %s before, %s after; %d interleaved rounds."
      % (platform.release(), os.cpu_count() or 0, lb, la, len(ref["wall"])))
print()
print("| command | wall median ms | CPU median ms | page faults (median) | system calls (one run) "
      "| wall / bwrap, median of the pairs | CPU / bwrap, median of the pairs |")
print("|---|---:|---:|---:|---:|---:|---:|")
for i, name in enumerate(("agenttask run", "agenttask run --no-limits",
                           "agenttask run --no-limits, git read-only", "bwrap")):
    r = res[name]
    pw = st.median([a / b for a, b in zip(r["wall"], ref["wall"])])
    pc = st.median([a / b for a, b in zip(r["cpu"], ref["cpu"]) if b > 0] or [float("nan")])
    print("| `%s` | %.2f | %.2f | %d | %s | %.2f | %.2f |"
          % (name, 1000 * st.median(r["wall"]), 1000 * st.median(r["cpu"]),
             st.median([a + b for a, b in zip(r["minflt"], r["majflt"])]), calls[i], pw, pc))
PY
