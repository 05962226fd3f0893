#!/usr/bin/env bash
# bench/sandbox.sh - start-up cost of `agenttask run` against bubblewrap at
# the same isolation, in one hyperfine run, and where agenttask's time goes.
#
#   bench/sandbox.sh [AGENTTASK] [RUNS] [STEP_RUNS]
#
# AGENTTASK is the binary to measure (default build/cmd/agenttask, built with
# optimisation: `make build`); RUNS the timed runs of each command (default
# 300); STEP_RUNS the runs whose --verbose step times are summarised (default
# 100). Needs bwrap, hyperfine and python3. Prints markdown tables for the
# "## Sandbox start-up" section of docs/performance.md; it writes nothing.
#
# bwrap gets what `agenttask run` sets up: every namespace (--unshare-all,
# and --unshare-user so that root gets a user namespace too), its own host
# name, --die-with-parent, --new-session, --cap-drop ALL, a cleared
# environment, the same system and /etc entries (a symbolic link into /usr
# stays one, another is bound as what it points to), /etc read-only with
# what is not world-readable covered, a /sys of the CPU and memory topology,
# private /tmp and /dev/shm, the task's lasting home, a minimal read-only
# /dev, a fresh /proc, the git common dir (under no overlay: bwrap 0.8 has
# none, see below), the state dir under a
# read-only tmpfs, the worktree read-write, its .git read-only, and / made
# read-only. It gets no seccomp filter (bwrap only loads a compiled one),
# which favours it slightly. The --net rows keep the host's network on both
# sides (agenttask --net, bwrap --share-net): the difference to the default
# rows is the cost of the network namespace. bwrap sets no limits: the
# --no-limits row is agenttask without them (no cgroup for the run, no
# rlimits), and the "git read-only" row without the writable git view too,
# which bwrap 0.8 cannot give (below): agenttask at exactly bwrap's
# isolation. The default row adds the limits' cost (docs/performance.md).
#
# BWRAP (default bwrap) is the bubblewrap to measure against. One with
# --overlay (0.9 or later) also gets the line "bwrap, git under an overlay",
# at the writable git view's isolation, and `run --no-limits` is compared
# with it as well.
#
# BENCH_DIR (default ${TMPDIR:-/tmp}) is where the repository, the task's
# state and its worktree go. The task's git view is an overlay whose work
# dir is ext4 metadata there: see bench/gitview.sh for why the development
# VM's root (no journal, discard) makes it dearer than Debian's default.
#
# hyperfine runs each command's runs in one block: on a loaded machine the
# load moves between blocks and can favour either side by 30% or more. So the
# sandbox commands are then timed again interleaved (one run of each per
# round, the order reversed every other round); the script prints the load
# average, and the median and minimum next to the mean. Back-to-back runs
# flatter whatever a run just before left warm, so a third table times
# PACE_ROUNDS rounds (default RUNS/4, at least 2) with a pause of PACE_GAP seconds
# (default 0.2) before each run, as an agent's commands come.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
AT=$(realpath "${1:-$here/build/cmd/agenttask}")
RUNS=${2:-300}
STEP_RUNS=${3:-100}

[ -x "$AT" ] || { echo "bench/sandbox.sh: no agenttask binary at '$AT'" >&2; exit 2; }
BWRAP=$(command -v "${BWRAP:-bwrap}") || { echo "bench/sandbox.sh: '${BWRAP:-bwrap}' is needed" >&2; exit 2; }
for tool in hyperfine python3 git; do
	command -v "$tool" >/dev/null || { echo "bench/sandbox.sh: '$tool' is needed" >&2; exit 2; }
done

export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/agenttask-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_DATA_HOME=$work/data   # the task's worktree beside its repository
git init -q -b main "$work/repo"
git -C "$work/repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
WT=$(realpath "$("$AT" -C "$work/repo" new bench)")
COMMON=$(realpath "$(git -C "$work/repo" rev-parse --absolute-git-dir)")
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' >"$work/config"

# The bwrap command line, mirroring sandbox/mounts.c's plan.
. "$here/bench/bwrap_recipe.sh"

"${b[@]}" /bin/true || { echo "bench/sandbox.sh: bwrap cannot run here" >&2; exit 1; }
[ ${#bov[@]} -eq 0 ] || "${bov[@]}" /bin/sh -c "echo x >'$COMMON/probe'" ||
	{ echo "bench/sandbox.sh: bwrap's overlay cannot run here" >&2; exit 1; }
cd "$work/repo"
"$AT" run bench -- /bin/true || { echo "bench/sandbox.sh: agenttask run fails here" >&2; exit 1; }
# agenttask at exactly bwrap's isolation: no limits, and git read-only as
# bwrap shows it. A second task whose git view a long run holds: its other
# runs get git read-only (with a warning), so the difference to the
# --no-limits row is what the writable git view costs.
"$AT" new held >/dev/null
"$AT" run held -- sleep 100000 >/dev/null 2>&1 &
held_pid=$!
trap 'kill $held_pid 2>/dev/null; wait $held_pid 2>/dev/null || true; rm -rf "$work"' EXIT
held_ro=false
for _ in $(seq 100); do
	"$AT" run held --no-limits -- /bin/true 2>&1 | grep -q "git is read-only" && { held_ro=true; break; }
	sleep 0.05
done
$held_ro || { echo "bench/sandbox.sh: the held task's runs never got git read-only" >&2; exit 1; }
echo "mounts inside: agenttask $("$AT" run bench -- cat /proc/self/mountinfo | wc -l)," \
	"bwrap $("${b[@]}" /bin/cat /proc/self/mountinfo | wc -l)"

q() { printf '%q ' "$@"; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
hyperfine -N --warmup 20 --runs "$RUNS" --style basic --export-json "$work/result.json" \
	-n "agenttask run" "$(q "$AT" run bench -- /bin/true)" \
	-n "bwrap" "$(q "${b[@]}" /bin/true)" \
	-n "agenttask run --no-limits" "$(q "$AT" run bench --no-limits -- /bin/true)" \
	-n "agenttask run --no-limits, git read-only" "$(q "$AT" run held --no-limits -- /bin/true)" \
	-n "agenttask run --net" "$(q "$AT" run bench --net -- /bin/true)" \
	-n "bwrap --share-net" "$(q "${bnet[@]}" /bin/true)" \
	-n "agenttask path" "$(q "$AT" path bench)" \
	${bov[0]+-n "bwrap, git under an overlay" "$(q "${bov[@]}" /bin/true)"} >&2

# The same, interleaved; each command line NUL-separated in a file.
printf '%s\0' "$AT" run bench -- /bin/true >"$work/cmd.0"
printf '%s\0' "${b[@]}" /bin/true >"$work/cmd.1"
printf '%s\0' "$AT" run bench --net -- /bin/true >"$work/cmd.2"
printf '%s\0' "${bnet[@]}" /bin/true >"$work/cmd.3"
printf '%s\0' "$AT" run bench --no-limits -- /bin/true >"$work/cmd.4"
printf '%s\0' "$AT" run held --no-limits -- /bin/true >"$work/cmd.5"
[ ${#bov[@]} -eq 0 ] || printf '%s\0' "${bov[@]}" /bin/true >"$work/cmd.6"
python3 "$here/bench/interleave.py" "$RUNS" "agenttask run" "$work/cmd.0" "bwrap" "$work/cmd.1" \
	"agenttask run --net" "$work/cmd.2" "bwrap --share-net" "$work/cmd.3" \
	"agenttask run --no-limits" "$work/cmd.4" \
	"agenttask run --no-limits, git read-only" "$work/cmd.5" \
	${bov[0]+"bwrap, git under an overlay" "$work/cmd.6"} >"$work/interleaved.json"
PACE_GAP=${PACE_GAP:-0.2}
INTERLEAVE_GAP=$PACE_GAP python3 "$here/bench/interleave.py" "${PACE_ROUNDS:-$((RUNS / 4 > 2 ? RUNS / 4 : 2))}" \
	"agenttask run" "$work/cmd.0" "bwrap" "$work/cmd.1" \
	"agenttask run --no-limits" "$work/cmd.4" \
	"agenttask run --no-limits, git read-only" "$work/cmd.5" \
	${bov[0]+"bwrap, git under an overlay" "$work/cmd.6"} >"$work/paced.json"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --verbose: the step lines of STEP_RUNS runs, with and without --net.
for mode in default --net; do
	opts=(-v)
	[ "$mode" = default ] || opts+=("$mode")
	for ((i = 0; i < STEP_RUNS; i++)); do
		"$AT" run bench "${opts[@]}" -- /bin/true 2>&1 >/dev/null | sed "s/^/$mode /"
	done
done >"$work/steps.txt"

python3 - "$work/result.json" "$work/interleaved.json" "$work/steps.txt" "$load_before" \
	"$load_after" "$work/paced.json" "$PACE_GAP" <<'EOF'
import json, os, platform, re, statistics, sys

result, interleaved, steps, load_before, load_after, paced, gap = sys.argv[1:8]

def table(path, title):
    runs = {r["command"]: sorted(t * 1000 for t in r["times"])
            for r in json.load(open(path))["results"]}

    def stats(name):
        t = runs[name]
        return statistics.mean(t), (statistics.stdev(t) if len(t) > 1 else 0.0), statistics.median(t), t[0]

    print("\n%s, %d runs each:\n" % (title, len(runs["bwrap"])))
    print("| Command | Mean ± σ [ms] | Median [ms] | Min [ms] | Ratio (to bwrap unless named): mean / median / min |")
    print("|:---|---:|---:|---:|---:|")
    for name, ref in [("agenttask run", "bwrap"), ("bwrap", "bwrap"),
                      ("agenttask run --no-limits", "bwrap"),
                      ("agenttask run --no-limits, git read-only", "bwrap"),
                      ("agenttask run --net", "bwrap --share-net"),
                      ("bwrap --share-net", "bwrap --share-net"), ("agenttask path", None),
                      ("bwrap, git under an overlay", "bwrap"),
                      ("agenttask run --no-limits", "bwrap, git under an overlay")]:
        if name not in runs or (ref and ref not in runs):
            continue
        m, sd, med, lo = stats(name)
        ratio = "—"
        if ref:
            rm, _, rmed, rlo = stats(ref)
            ratio = "%.2f / %.2f / %.2f" % (m / rm, med / rmed, lo / rlo)
        if ref not in (None, "bwrap", "bwrap --share-net"):
            ratio += " (to `%s`)" % ref
        print("| `%s` | %.2f ± %.2f | %.2f | %.2f | %s |" % (name, m, sd, med, lo, ratio))

print("\nLinux %s, %d CPUs; load average %s before, %s after."
      % (platform.release(), os.cpu_count() or 0, load_before, load_after))
table(result, "hyperfine (one block of runs per command)")
table(interleaved, "Interleaved (one run of each per round)")
table(paced, "At an agent's pace (interleaved, %s s before each run)" % gap)

# "default agenttask: step mounts 1.234 ms after clone", "... resolved in 0.5 ms (...)".
vals = {}
for line in open(steps):
    mode, rest = line.split(" ", 1)
    m = re.match(r"agenttask: step (\S+)\s+([\d.]+) ms", rest) or \
        re.match(r"agenttask: (?:task|sandbox) (resolved|prepared) in ([\d.]+) ms", rest)
    if m:
        vals.setdefault(m.group(1), {}).setdefault(mode, []).append(float(m.group(2)))

print("\nSteps of `agenttask run -v` over %s runs (min / median, ms):\n"
      % len(vals["exec"]["default"]))
print("| Step | default | --net |")
print("|:---|---:|---:|")
for name, v in vals.items():
    cells = []
    for mode in ("default", "--net"):
        t = sorted(v.get(mode, []))
        cells.append("%.3f / %.3f" % (t[0], statistics.median(t)) if t else "—")
    label = {"resolved": "task resolved (before the sandbox)",
             "prepared": "sandbox prepared (before clone)"}.get(name, name + " (after clone)")
    print("| %s | %s | %s |" % (label, cells[0], cells[1]))
EOF
