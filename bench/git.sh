#!/usr/bin/env bash
# bench/git.sh [AGENTTASK] - agenttask's git work against git's own.
#
# Makes a repository of 20,000 small files (200 directories of 100, one
# commit, by git fast-import), then one hyperfine run of four commands:
#
#   agenttask new NAME              vs  git worktree add -b BRANCH PATH main
#   agenttask diff NAME             vs  git -C WORKTREE diff BASE
#
# then the two diff commands again interleaved (ROUNDS rounds of one run
# each, the order reversed every other round: hyperfine times each command
# in one block, and the load a block inherits from the one before, such as
# the freeing of the previous block's 20,000-file worktrees, falls on one
# side only), and writes the tables, with agenttask/git ratios, into the section
# "## Task creation and diff (vs git)" of docs/performance.md (only that
# section: the rest of the file is left as it is).
#
# AGENTTASK is the binary to measure (default build/cmd/agenttask; build it
# with optimisation, e.g. `make build`). Needs git, hyperfine and python3.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
AT=$(realpath "${1:-$here/build/cmd/agenttask}")
DOC=${AT_BENCH_DOC:-$here/docs/performance.md}
DIRS=200
FILES=100
RUNS=10
ROUNDS=200

[ -x "$AT" ] || { echo "bench/git.sh: no agenttask binary at '$AT'" >&2; exit 2; }
for tool in git hyperfine python3; do
	command -v "$tool" >/dev/null || { echo "bench/git.sh: '$tool' is needed" >&2; exit 2; }
done

export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
unset GIT_DIR GIT_WORK_TREE

# On tmpfs by default: on a disk, each run's 20,000 new files follow the
# previous run's 20,000 deletions, and ext4's inode allocator then scans for
# recently deleted inodes (seconds of kernel time, for git as for agenttask,
# growing run after run), which would drown what the tools themselves cost.
# BENCH_DIR=/some/disk/dir measures there instead.
if [ -z "${BENCH_DIR:-}" ]; then
	BENCH_DIR=${TMPDIR:-/tmp}
	[ -d /dev/shm ] && [ -w /dev/shm ] && BENCH_DIR=/dev/shm
fi
work=$(mktemp -d "$BENCH_DIR/agenttask-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
fstype=$(stat -f -c %T "$work")
repo=$work/repo

# One commit of DIRS x FILES small files, streamed into git fast-import.
generate() {
	local d f
	echo "commit refs/heads/main"
	echo "committer bench <bench@example.com> 1700000000 +0000"
	echo "data 17"
	echo "20000 small files"
	for ((d = 0; d < DIRS; d++)); do
		for ((f = 0; f < FILES; f++)); do
			printf 'M 100644 inline dir%03d/file%03d.txt\ndata <<EOF\n' "$d" "$f"
			printf 'file %d of directory %d\nline two\nline three\nEOF\n' "$f" "$d"
		done
	done
}

echo "generating $((DIRS * FILES)) files..." >&2
start=$(date +%s)
git init -q -b main "$repo"
generate | git -C "$repo" fast-import --quiet
git -C "$repo" reset -q --hard main
echo "generated in $(($(date +%s) - start)) s" >&2

# The task that diff is measured on: a few files changed, one deleted, one new.
diff_wt=$("$AT" -C "$repo" new diffed)
# A steady state for both: entries written in the index's own second are
# "racily clean" and git would re-read all 20,000 files on every run.
sleep 1
git -C "$diff_wt" update-index -q --really-refresh
for f in dir000/file000.txt dir050/file010.txt dir199/file099.txt; do
	printf 'changed\n' >>"$diff_wt/$f"
done
git -C "$diff_wt" rm -q dir100/file050.txt
printf 'a new file\n' >"$diff_wt/dir100/new.txt"
base=$(git -C "$repo" rev-parse main)
diff_index=$(git -C "$diff_wt" rev-parse --path-format=absolute --git-path index)

git_wt=$work/git-wt
q() { printf '%q' "$1"; }
prepare_new="$(q "$AT") -C $(q "$repo") discard fresh >/dev/null 2>&1 || true"
prepare_add="git -C $(q "$repo") worktree remove --force $(q "$git_wt") >/dev/null 2>&1 || true; git -C $(q "$repo") branch -D -q fresh-git >/dev/null 2>&1 || true"

hyperfine --warmup 2 --runs "$RUNS" --style basic \
	--export-json "$work/result.json" --export-markdown "$work/result.md" \
	--prepare "$prepare_new" -n "agenttask new" "$(q "$AT") -C $(q "$repo") new fresh" \
	--prepare "$prepare_add" -n "git worktree add -b" \
	"git -C $(q "$repo") worktree add -q -b fresh-git $(q "$git_wt") main" \
	--prepare true -n "agenttask diff" "$(q "$AT") -C $(q "$repo") diff diffed" \
	--prepare true -n "git diff" "git -C $(q "$diff_wt") diff $base" \
	--prepare true -n "git add -A + diff --cached" \
	"cp -p $(q "$diff_index") $(q "$work/index") && GIT_INDEX_FILE=$(q "$work/index") git -C $(q "$diff_wt") add -A && GIT_INDEX_FILE=$(q "$work/index") git -C $(q "$diff_wt") diff --cached $base"

# The diffs again, interleaved; each command line NUL-separated in a file.
printf '%s\0' "$AT" -C "$repo" diff diffed >"$work/cmd.0"
printf '%s\0' git -C "$diff_wt" diff "$base" >"$work/cmd.1"
python3 "$here/bench/interleave.py" "$ROUNDS" "agenttask diff" "$work/cmd.0" "git diff" "$work/cmd.1" \
	>"$work/interleaved.json"

python3 - "$work/result.json" "$DOC" "$DIRS" "$FILES" "$fstype" "$work/interleaved.json" <<'EOF'
import json, os, platform, re, statistics, subprocess, sys

result, doc, dirs, files, fstype = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
runs = {r["command"]: r for r in json.load(open(result))["results"]}
inter = {r["command"]: r["times"] for r in json.load(open(sys.argv[6]))["results"]}

def ms(r):
    return "%.1f ± %.1f" % (r["mean"] * 1000, r["stddev"] * 1000)

rows = [
    ("create a task (checkout of %d files)" % (dirs * files),
     "agenttask new", "git worktree add -b"),
    ("diff a task with 5 changed files", "agenttask diff", "git diff"),
    ("the same, git doing the same work", "agenttask diff", "git add -A + diff --cached"),
]
cpu = "unknown CPU"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()

out = ["## Task creation and diff (vs git)", "",
       "Measured by `bench/git.sh` on a repository of %d files (%d directories of %d "
       "small files, one commit) on %s, hyperfine, 2 warm-up runs and %d timed runs "
       "each, in one hyperfine session, on %s (%d cores), %s, Linux %s. Times in "
       "milliseconds (mean ± standard deviation); ratio = agenttask / git (below 1.0: "
       "agenttask is faster)." % (dirs * files, dirs, files, fstype,
       len(runs["agenttask new"]["times"]), cpu, os.cpu_count() or 0, git,
       platform.release()), "",
       "| operation | agenttask (ms) | git (ms) | ratio |",
       "|---|---|---|---|"]
for what, at, g in rows:
    ratio = runs[at]["mean"] / runs[g]["mean"]
    out.append("| %s: `%s` vs `%s` | %s | %s | %.2f |" % (what, at, g, ms(runs[at]), ms(runs[g]), ratio))
a, g = inter["agenttask diff"], inter["git diff"]
out += ["",
        "The diffs again, interleaved (%d rounds of one run each, the order reversed every "
        "other round; milliseconds):" % len(a), "",
        "| command | mean | median | min |",
        "|---|---|---|---|"]
for name, v in (("agenttask diff", a), ("git diff", g)):
    out.append("| `%s` | %.1f | %.1f | %.1f |" % (name, 1000 * statistics.mean(v),
               1000 * statistics.median(v), 1000 * min(v)))
out.append("| ratio | %.2f | %.2f | %.2f |" % (statistics.mean(a) / statistics.mean(g),
           statistics.median(a) / statistics.median(g), min(a) / min(g)))
out += ["",
        "What each side does:",
        "",
        "- `agenttask new` creates the branch `agenttask/NAME`, the linked worktree with all "
        "files checked out and the index written, and the task's record (written atomically, "
        "fsync'd, twice: marked as under construction first) under the repository lock; "
        "`git worktree add -b` creates the branch and the checked-out worktree.",
        "- `agenttask diff` takes the task's full state (commits, uncommitted changes and "
        "untracked files that are not ignored: it hashes new and changed files into the object "
        "database, the index on disk is left alone), finds the merge base with the base "
        "branch, and prints the patch against it; `git diff BASE` in the worktree compares "
        "tracked files only (the new untracked file is not in its output) and reads no "
        "directory listing. `git add -A + diff --cached` does the same work as `agenttask "
        "diff` with git: stage everything into a copy of the worktree's index (`cp -p`, "
        "`GIT_INDEX_FILE`), then diff it against the base.",
        "",
        "Where the time goes, and what was done (profiled with perf, strace -c and timestamps "
        "in the code):",
        "",
        "- **new.** libgit2's checkout first cost 4.2 times git's: it looked up the attributes "
        "of every file (two realpath() walks each), checked the hash of every object read, and "
        "dropped large trees from its cache; with those fixed it was still 1.06-1.15 times "
        "`git worktree add`, the rest inside its checkout (diffing against the empty "
        "directory, adding the 20,000 entries to its index one by one, ~1 microsecond each). "
        "`git/checkout.c` now does what an empty directory needs: it plans every directory "
        "and file from the tree, creates the directories, writes the files with one worker "
        "thread per CPU (each with its own object database handle), and writes the index in "
        "one pass, with the stat data of the files it wrote and git's cache-tree extension "
        "(byte for byte what git writes; SHA-1 from OpenSSL's libcrypto, 0.8 ms for 1.6 MB). "
        "`git_worktree_add` still makes the worktree, its own checkout a dry run. Where a "
        "filter could apply (a `.gitattributes`, an attributes file, `core.autocrlf`, "
        "`core.eol`), where `core.symlinks` is false, or for a name git refuses or that is "
        "unusual, it declines before writing anything and libgit2's checkout runs as before. "
        "One worker thread wrote the 20,000 files in 238 ms, two in 170, four in 165 (2 "
        "CPUs): one a CPU.",
        "- **diff.** `agenttask diff` took 92 ms at the start of this work: libgit2 read the "
        "task's 1.6 MB index (its SHA-1, every path validated, a hash map: ~9 ms), compared "
        "it with the worktree by 20,000 lstat() calls on absolute paths (~45 ms), compared it "
        "with HEAD (~6 ms), read the main worktree's index a second time for the patch's "
        "attribute lookups (~10 ms), and read all 201 trees of both sides for the tree-to-tree "
        "diff (~6 ms). Now: the index file is parsed directly (`git/index_file.c`, no "
        "checksum, as git reads it; versions 2-4); the worktree is scanned by "
        "`git/scan.c` (a descriptor per directory, fstatat() of one path component, a file "
        "found by binary search among its directory's entries, three threads a CPU: on 2 "
        "CPUs 1 thread took 51 ms, 2 took 41, 4 took 31-33, 6 took 29-30, 8 took 28-31, 12 "
        "took 35); the index is compared with HEAD skipping every directory whose cache-tree "
        "entry is HEAD's tree; changed files are hashed by `git/wtread.c` (as they are, "
        "unless the base commit's attributes or the configuration ask for a filter); the "
        "tree is HEAD's with only the changed paths replaced (`git_tree_create_updated`); "
        "the patch's attribute lookups get an in-memory index holding only the base's "
        "`.gitattributes` on the way to the changed paths (`git/attrs.c`); and the "
        "tree-to-tree diff is restricted to the paths that differ "
        "(`git/tree_changes.c` descends only into subtrees whose ids differ). Every command "
        "also starts faster: libgit2's HTTP Negotiate authentication is replaced like its TLS "
        "and SSH set-up, so libgssapi_krb5 and six Kerberos libraries are no longer loaded "
        "(`agenttask --version`: 1.8 -> 1.0 ms; `git --version`: 1.1 ms). Listing the 200 "
        "directories (to find untracked files, which `git diff` does not look for) was the "
        "last difference; like git's untracked cache, the scan now keeps what it found in "
        "each directory and does not list again a directory whose inode, mtime and ctime are "
        "unchanged since a scan that began more than a second after its last change "
        "(`git/dircache.h`; ctime because an agent can set mtimes back). What is left is "
        "the same work as git's: 20,000 fstatat() calls (git: lstat() with up to 20 threads), "
        "an open of each directory, reading the index, the diff. "
        "tests/integration/snapshot.sh checks every kind of change against `git add "
        "-A && git write-tree`, on both the fast and the general path.",
        "- **On a disk.** With BENCH_DIR on this machine's ext4, both `new` and `git "
        "worktree add` took 10-14 s a run, nearly all kernel time in ext4's inode "
        "allocator (`recently_deleted`, `find_inode_bit`) after the previous run's "
        "deletions, growing from run to run; the ratio came out between 1.0 and 1.4 in the "
        "noise.",
        ""]
section = "\n".join(out) + "\n"

text = open(doc).read() if os.path.exists(doc) else (
    "# Performance\n\nMeasurements of agenttask, each section written by the benchmark "
    "script it names.\n\n")
pattern = re.compile(r"^## Task creation and diff \(vs git\)\n.*?(?=^## |\Z)", re.M | re.S)
if pattern.search(text):
    text = pattern.sub(lambda m: section, text, count=1)
else:
    text = text.rstrip("\n") + "\n\n" + section
open(doc, "w").write(text)
print(section)
EOF
