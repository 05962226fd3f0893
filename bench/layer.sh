#!/usr/bin/env bash
# bench/layer.sh [LAYERSTATE_TOOL] [ROUNDS] [FILES] - a layered task's state
# against `git status` on a full checkout, 5 files changed of FILES (default
# 100,000, in directories of 100), issue 29.
#
# The layered side: git/layerstate.h's at_layer_state() through
# tests/helpers/layerstate_tool (built with the tests), on the base's tree
# checked out once (the lower), an upper holding the 5 changed files, and the
# task's index (the base's tree, with git's cache-tree, as read-tree writes
# it). The peer: `git status --porcelain` (untracked files included, as the
# state includes them) in a full checkout of the same base with the same 5
# files changed, its index refreshed once beforehand (so that git is timed
# at its best: stat data only). Both write nothing after their first run:
# the layered side's 5 blobs and trees exist by then, and git's refreshed
# index needs no rewrite; gc is off on both repositories.
#
# Interleaved (bench/interleave.py: one run of each per round, the order
# reversed every other round), ROUNDS rounds (default 30). Prints each
# side's median and the ratio of the medians, and the median of the pairs'
# ratios (layer over git: below 1.0 the layer is faster; the target is 0.2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tool=$(realpath "${1:-$here/../build/tests/layerstate_tool}")
rounds=${2:-30}
files=${3:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

git init -q -b main repo
git -C repo config gc.auto 0
python3 - repo "$files" <<'PY'
import os, sys
r, n = sys.argv[1], int(sys.argv[2])
for d in range((n + 99) // 100):
    os.makedirs("%s/d%04d" % (r, d))
    for f in range(min(100, n - d * 100)):
        with open("%s/d%04d/f%03d.txt" % (r, d, f), "w") as fh:
            fh.write("file %d %d\n" % (d, f))
PY
git -C repo add -A
git -C repo -c user.name=b -c user.email=b@b commit -q -m base
tree=$(git -C repo rev-parse 'HEAD^{tree}')

# The layered task: the lower (the base checked out once), its upper, its index.
mkdir lower upper
GIT_INDEX_FILE=$work/lidx git -C repo read-tree HEAD
GIT_INDEX_FILE=$work/lidx git -C repo --work-tree="$work/lower" checkout-index -a
GIT_INDEX_FILE=$work/idx git -C repo read-tree HEAD
# The full checkout, the same files changed.
git -C repo worktree add -q "$work/full" HEAD
git -C full config gc.auto 0
dirs=$(( (files + 99) / 100 ))
for i in 0 1 2 3 4; do
	d=$(printf %04d $(( i * dirs / 5 )))
	mkdir -p "upper/d$d"
	echo changed >"upper/d$d/f007.txt"
	echo changed >"full/d$d/f007.txt"
done
git -C full status --porcelain >/dev/null   # refresh the index once

"$tool" repo "$tree" lower upper idx >/dev/null
want=$(cd full && GIT_INDEX_FILE=$work/fidx git read-tree HEAD && GIT_INDEX_FILE=$work/fidx git add -A && GIT_INDEX_FILE=$work/fidx git write-tree)
got=$("$tool" repo "$tree" lower upper idx)
if [ "$got" != "$want" ]; then
	echo "bench/layer.sh: the layer's tree $got is not git's $want" >&2
	exit 1
fi

printf '%s\0' "$tool" repo "$tree" lower upper idx >layer.cmd
printf '%s\0' git -C full status --porcelain >git.cmd
sync
python3 "$here/interleave.py" "$rounds" layer layer.cmd git git.cmd >times.json
python3 - times.json "$files" <<'PY'
import json, statistics, sys
res = {r["command"]: r["times"] for r in json.load(open(sys.argv[1]))["results"]}
l, g = res["layer"], res["git"]
ml, mg = statistics.median(l), statistics.median(g)
pairs = statistics.median(a / b for a, b in zip(l, g))
print("%s files, 5 changed, %d rounds interleaved" % (sys.argv[2], len(l)))
print("at_layer_state            median %7.1f ms  min %7.1f ms" % (ml * 1e3, min(l) * 1e3))
print("git status (full checkout) median %7.1f ms  min %7.1f ms" % (mg * 1e3, min(g) * 1e3))
print("ratio of medians %.3f, median of pair ratios %.3f (target <= 0.2)" % (ml / mg, pairs))
PY
