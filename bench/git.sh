#!/usr/bin/env bash
# bench/git.sh [AGENTTASK] - agenttask's git work against git's own.
#
# Makes a repository of 20,000 small files (200 directories of 100, one
# commit, by git fast-import), then one hyperfine run of four commands:
#
#   agenttask new NAME              vs  git worktree add -b BRANCH PATH main
#   agenttask diff NAME             vs  git -C WORKTREE diff BASE
#
# and writes the table, with agenttask/git ratios, into the section
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

python3 - "$work/result.json" "$DOC" "$DIRS" "$FILES" "$fstype" <<'EOF'
import json, os, platform, re, subprocess, sys

result, doc, dirs, files, fstype = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
runs = {r["command"]: r for r in json.load(open(result))["results"]}

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
        "Where the time goes, and what was done (profiled with perf and strace -c):",
        "",
        "- **new.** libgit2's checkout looked up the attributes of every file to pick its "
        "filters, and each lookup resolves the file's directory with realpath(): 18 failed "
        "readlink() calls a file, 360,000 for 20,000 files, 68% of the syscall time; the "
        "checkout took 1.08 s against git's 0.26 s on tmpfs. `add_worktree` now checks out "
        "with filters disabled when none can apply: no `.gitattributes` in the tree, no "
        "`info/attributes`, no user or system attributes file, no `core.attributesFile`, "
        "`core.autocrlf` unset or false, `core.eol` not crlf. Otherwise it checks out with "
        "filters as before (tests/integration/diff.sh checks eol=crlf and core.autocrlf). "
        "Then two process-wide libgit2 settings (git/repo.c): no hash check of every object "
        "read (git does not check on read either; it was a quarter of new's user time, 120 -> "
        "81 ms) and trees of any size kept in the object cache (by default only trees under "
        "4 KiB are, so the `.gitattributes` walk and the checkout inflated every directory "
        "twice). What remains is about 28 ms of user time more than git's, inside libgit2's "
        "checkout (filling and resizing its index map, comparing entries); the checkout "
        "strategy (FORCE, NO_REFRESH) made no measurable difference.",
        "- **diff.** `agenttask diff` spent about three quarters of its time in "
        "`at_snapshot_tree()` (git/snapshot.c): reading the 1.6 MB index with its SHA-1 "
        "checked (~9 ms; git does not check it), comparing the index with the worktree "
        "including untracked files (~45 ms: 20,000 lstat() and 200 directory listings with "
        "ignore rules; git diff only stats), and writing the full-state tree (~16 ms: the "
        "index libgit2's checkout writes has no cached-tree extension, so all 201 trees were "
        "built, hashed and looked up in the object database again on every diff). The "
        "snapshot now builds the tree from HEAD's tree with only the paths where the updated "
        "in-memory index differs from it (`git_diff_tree_to_index`, then "
        "`git_tree_create_updated`): only the changed directories and the root are hashed "
        "and written, 5 trees here instead of 201. When it was done, the binaries before and "
        "after, run one after the other by this script on a loaded machine: 120.1 ± 8.7 ms "
        "and 108.0 ± 1.5 ms (`git diff` 29.5 and 29.7 ms); the 99.3 ms of the previous "
        "table was measured at another time, under another load. "
        "It falls back to writing the whole index where `git_tree_create_updated` cannot "
        "(no HEAD, conflicts, a path turning from file to directory or to or from a gitlink). "
        "tests/integration/snapshot.sh checks the tree against `git add -A && git write-tree` "
        "for each kind of change. What remains is the index-to-worktree scan (libgit2 stats "
        "every file by its absolute path, ~9 components each, where git stats relative "
        "paths; and it validates every name for NTFS/HFS) and the index read; none of the "
        "libgit2 1.5 diff flags looked at applies (not measured: untracked files must be "
        "listed one by one, so `ENABLE_FAST_UNTRACKED_DIRS` cannot be used). Outside the snapshot, "
        "the conflict preview (`at_merge_preview_tree`, git/merge.c) took ~20% of "
        "`agenttask diff` when the base has moved; it is skipped when the base has not moved "
        "(nothing can conflict) and no longer writes the merged tree. Objects are read "
        "without libgit2's per-object hash check, as git reads them.",
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
