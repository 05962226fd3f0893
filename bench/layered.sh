#!/usr/bin/env bash
# bench/layered.sh [AGENTTASK] - layered tasks (issue 29) against git worktree add.
#
# A repository of FILES small files (default 100,000: 1,000 directories of
# 100, one commit, by git fast-import), then, the peer in the same run and
# alternated (A B, then B A, ROUNDS pairs), each side's leftovers cleaned
# before the next measurement (its task or worktree removed, `sync` for the
# dirty pages, the repository's automatic gc off and its loose objects
# counted: new makes none):
#
#   new, base already there:  agenttask new --layered  vs  git worktree add -b B P main
#   new, first of its base:   the same, with the base removed before each run
#                             (agenttask discard + gc), so that new makes it
#   disk of 10 tasks:         10 layered tasks of one base, 5 files changed in each
#                             (through `agenttask run`), du of the base, the layers
#                             and their admin dirs, against du of one checkout
#
# Medians and ratios go into the section "## Layered tasks (vs git worktree
# add)" of docs/performance.md (only that section). BENCH_DIR is where the
# repository is made (default: TMPDIR or /tmp, a disk, as the issue measured).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
AT=$(realpath "${1:-$here/build/cmd/agenttask}")
DOC=${AT_BENCH_DOC:-$here/docs/performance.md}
FILES=${FILES:-100000}
ROUNDS=${ROUNDS:-5}

[ -x "$AT" ] || { echo "bench/layered.sh: no agenttask binary at '$AT'" >&2; exit 2; }
for tool in git python3 du sync; do
	command -v "$tool" >/dev/null || { echo "bench/layered.sh: '$tool' is needed" >&2; exit 2; }
done

export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
unset GIT_DIR GIT_WORK_TREE AGENTTASK_TEST_FORM

BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}}
work=$(mktemp -d "$BENCH_DIR/agenttask-layered.XXXXXX")
trap 'rm -rf "$work"' EXIT
fstype=$(stat -f -c %T "$work")
repo=$work/repo
export XDG_DATA_HOME=$work/data

generate() {
	python3 - "$FILES" <<'PY'
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
out.write(b"commit refs/heads/main\ncommitter bench <bench@example.com> 1700000000 +0000\n"
          b"data 5\nfiles\n")
for i in range(n):
    data = b"file %d\n" % i
    out.write(b"M 100644 inline d%04d/f%03d.txt\ndata %d\n%s\n" % (i // 100, i % 100, len(data), data))
out.write(b"\n")
PY
}

git init -q -b main "$repo"
generate | git -C "$repo" fast-import --quiet
git -C "$repo" checkout -q main
git -C "$repo" config gc.auto 0
git -C "$repo" config maintenance.auto false

# Milliseconds of wall time of one command (its output thrown away).
ms() {
	python3 -c 'import subprocess,sys,time
t=time.monotonic(); r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
d=(time.monotonic()-t)*1000
print("%.1f"%d if r.returncode==0 else "FAIL")' "$@"
}

loose() { git -C "$repo" count-objects | cut -d' ' -f1; }

# Each side's leftovers, before the next measurement.
clean_at() {
	"$AT" -C "$repo" discard --force "$1" >/dev/null 2>&1 || true
	[ "${2:-}" = base ] && "$AT" -C "$repo" gc >/dev/null 2>&1
	sync
}
clean_git() {
	git -C "$repo" worktree remove --force "$work/wt-$1" >/dev/null 2>&1 || rm -rf "$work/wt-$1"
	git -C "$repo" worktree prune
	git -C "$repo" branch -q -D "b-$1" >/dev/null 2>&1 || true
	sync
}

at_new() { ms "$AT" -C "$repo" new --layered "$1"; }
git_add() { ms git -C "$repo" worktree add -q -b "b-$1" "$work/wt-$1" main; }

# ROUNDS alternated pairs of (agenttask, git); $1: "base" to remove the base before each.
pairs() {
	local i a g
	for i in $(seq 1 "$ROUNDS"); do
		if [ $((i % 2)) = 1 ]; then
			a=$(at_new "t$i"); clean_at "t$i" "$1"
			g=$(git_add "$i"); clean_git "$i"
		else
			g=$(git_add "$i"); clean_git "$i"
			a=$(at_new "t$i"); clean_at "t$i" "$1"
		fi
		echo "$a $g"
	done
}

median() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print("%.1f"%statistics.median(v))' "$@"; }
ratio() { python3 -c 'import sys; print("%.3f"%(float(sys.argv[1])/float(sys.argv[2])))' "$1" "$2"; }

# A base already there: one task of it kept for the whole measurement.
"$AT" -C "$repo" new --layered keep >/dev/null
warm=$(pairs keep)
"$AT" -C "$repo" discard --force keep >/dev/null; "$AT" -C "$repo" gc >/dev/null
first=$(pairs base)
loose_after=$(loose)

w_at=$(median $(echo "$warm" | cut -d' ' -f1)); w_git=$(median $(echo "$warm" | cut -d' ' -f2))
f_at=$(median $(echo "$first" | cut -d' ' -f1)); f_git=$(median $(echo "$first" | cut -d' ' -f2))

# Disk: 10 layered tasks, 5 files changed in each, against one checkout.
for i in $(seq 1 10); do
	"$AT" -C "$repo" new --layered "d$i" >/dev/null
	"$AT" -C "$repo" run "d$i" -- sh -c 'for f in d0001/f001 d0002/f002 d0003/f003 d0004/f004 d0005/f005; do echo changed >>$f.txt; done' >/dev/null
done
git -C "$repo" worktree add -q -b disk "$work/wt-disk" main
sync
common=$(git -C "$repo" rev-parse --path-format=absolute --git-common-dir)
kb_at=$(du -sk "$common/agenttask/bases" "$common/agenttask/layers" "$common"/worktrees/agenttask-d* |
	awk '{s+=$1} END {print s}')
kb_git=$(du -sk "$work/wt-disk" "$common/worktrees/wt-disk" | awk '{s+=$1} END {print s}')

table=$(cat <<EOF
$(date -u +%Y-%m-%d), $(nproc) cores, $fstype, $FILES files, $ROUNDS alternated pairs each, medians
(\`bench/layered.sh\`; loose objects after all the runs: $loose_after).

| measure | agenttask | git worktree add | ratio | target |
|---|---|---|---|---|
| \`new\`, base already materialised | $w_at ms | $w_git ms | $(ratio "$w_at" "$w_git") | <= 50 ms and <= 0.05 |
| \`new\`, first task of a base | $f_at ms | $f_git ms | $(ratio "$f_at" "$f_git") | <= 1.0 |
| disk of 10 tasks of one base, 5 files changed each, against one checkout | $kb_at KiB | $kb_git KiB | $(ratio "$kb_at" "$kb_git") | <= 1.1 |
EOF
)
echo "$table"
python3 - "$DOC" "$table" <<'PY'
import sys, re
doc, table = sys.argv[1], sys.argv[2]
head = "## Layered tasks (vs git worktree add)"
text = open(doc).read()
section = head + "\n\n" + table + "\n"
if head in text:
    text = re.sub(re.escape(head) + r"\n.*?(?=\n## |\Z)", section.rstrip("\n") + "\n", text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + section
open(doc, "w").write(text)
PY
