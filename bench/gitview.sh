#!/usr/bin/env bash
# bench/gitview.sh [AGENTTASK] [ROUNDS] - what the task's git view costs `run`.
#
# Two tasks of one repository (200 files): task "free" runs with its git
# view (the common dir under an overlay with the task's upper, imported
# after the run: app/gitview.c); task "held" has a long run of its own in
# the background, which holds its view, so that its timed runs get git
# read-only, as every run did before git worked inside. Same binary, same
# repository, same sandbox otherwise: the difference is the view alone
# (its lock, the overlay's mount and unmount, the import's look at HEAD).
# ROUNDS rounds (default 200) of one `run NAME -- /bin/true` of each, the
# order reversed every other round; each run's wall time and the CPU time
# of everything under it (wait4's rusage) are kept; the medians, minimums
# and paired ratios are printed.
#
# BENCH_DIR (default ${TMPDIR:-/tmp}) is where the repository, its state
# (and so the overlay's upper and work dirs) and the worktrees go: the
# overlay's cost is ext4 metadata there. On a file system without a journal
# ext4's inode allocator checks recently deleted inodes one by one, and
# with the discard mount option every removed directory is discarded at
# once: the development VM's root is both, and there the view costs twice
# what it costs on Debian's default ext4 (journal, no discard). Mount a
# fresh image to measure that case:
#   truncate -s 2G img && mkfs.ext4 -q img && mount -o loop img /mnt/j
#   BENCH_DIR=/mnt/j bench/gitview.sh
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
AT=$(realpath "${1:-$here/build/cmd/agenttask}")
ROUNDS=${2:-200}

[ -x "$AT" ] || { echo "bench/gitview.sh: no agenttask binary at '$AT'" >&2; exit 2; }
for tool in git python3; do
	command -v "$tool" >/dev/null || { echo "bench/gitview.sh: '$tool' is needed" >&2; exit 2; }
done

export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/agenttask-gitview.XXXXXX")
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
export XDG_DATA_HOME=$work/data
git init -q -b main "$work/repo"
for i in $(seq 200); do echo "$i" >"$work/repo/f$i"; done
git -C "$work/repo" add -A
git -C "$work/repo" -c user.name=b -c user.email=b@b commit -q -m init
cd "$work/repo"
"$AT" new free >/dev/null
"$AT" new held >/dev/null
"$AT" run held -- sleep 100000 &
holder=$!
# The holder's run has its view once its sandbox is up.
for _ in $(seq 100); do
	"$AT" run held -- true 2>&1 | grep -q 'git is read-only' && break
	sleep 0.1
done
"$AT" run held -- true 2>&1 | grep -q 'git is read-only' ||
	{ echo "bench/gitview.sh: the held task's view is not held" >&2; exit 1; }

echo "file system of BENCH_DIR: $(stat -f -c %T "$work"), $(findmnt -n -o OPTIONS -T "$work" 2>/dev/null)"
python3 - "$AT" "$ROUNDS" <<'EOF'
import os, resource, statistics, sys, time

at, rounds = sys.argv[1], int(sys.argv[2])
cmds = {"with the view": [at, "run", "free", "--", "/bin/true"],
        "git read-only": [at, "run", "held", "--", "/bin/true"]}
null = os.open(os.devnull, os.O_WRONLY)
wall = {k: [] for k in cmds}
cpu = {k: [] for k in cmds}
names = list(cmds)
for r in range(rounds):
    for k in (names if r % 2 == 0 else names[::-1]):
        t0 = time.perf_counter()
        pid = os.posix_spawn(cmds[k][0], cmds[k], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, null, 1),
                                           (os.POSIX_SPAWN_DUP2, null, 2)])
        _, status, ru = os.wait4(pid, 0)
        wall[k].append((time.perf_counter() - t0) * 1e3)
        cpu[k].append((ru.ru_utime + ru.ru_stime) * 1e3)
        if status:
            sys.exit("bench/gitview.sh: '%s' failed" % k)
a, b = names
print("\n%d rounds, load average %s\n" % (rounds, open("/proc/loadavg").read().split()[0]))
print("| `run -- /bin/true` | wall median [ms] | wall min [ms] | CPU median [ms] |")
print("|:---|---:|---:|---:|")
for k in names:
    print("| %s | %.2f | %.2f | %.2f |" % (k, statistics.median(wall[k]), min(wall[k]),
                                          statistics.median(cpu[k])))
pw = statistics.median([x / y for x, y in zip(wall[a], wall[b])])
pc = statistics.median([x / y for x, y in zip(cpu[a], cpu[b]) if y > 0])
dw = statistics.median([x - y for x, y in zip(wall[a], wall[b])])
dc = statistics.median([x - y for x, y in zip(cpu[a], cpu[b])])
print("\nPaired, with the view / without: wall %.2f (%+.2f ms), CPU %.2f (%+.2f ms), medians of"
      " the rounds' ratios and differences." % (pw, dw, pc, dc))
EOF
