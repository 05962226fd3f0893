#!/usr/bin/env bash
# bench/checkpoint.sh BINARY [ROUNDS] - the cost of checkpoints and rewind (issue 26).
# FORM=layered (or full, the default) picks the form of the tasks (issue 29); a
# rewind makes a layered task full, so its rows are the full form's either way.
#
# On repositories of 20,000 and 100,000 small files (200 and 1,000
# directories of 100, one commit), a task each. Interleaved (bench/interleave.py),
# ROUNDS rounds (default 30):
#   run T -- true                     with its checkpoint, and without
#                                     (AGENTTASK_TEST_NO_CHECKPOINT=1, core/trace.h)
#   run T -- sh -c 'change 5 files'   the same pair
#   run T --json -- true              against run T -- true: the files the run
#                                     changed, worked out after it
#   diff T --run N                    against diff T (the whole change)
#   rewind T N, of a run that changed 5 files (then rewind back: both timed
#   as one pair of rewinds), against `git stash && git stash drop` of the
#   same 5 changes in a plain clone of the same tree
# With BEFORE=OTHER_BINARY (an older build), its pair of rewinds is timed
# in the same rounds, on the same task, as a third command of that row:
# before -> after in one run, under one load.
# Prints the medians and the median of the pairs' ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
AT=$(realpath "$1")
rounds=${2:-30}
work=$(mktemp -d)
# The tasks discarded first: their worktrees live in agenttask's state, not in $work.
trap 'for n in 200 1000; do [ ! -d "$work/r$n" ] || "$AT" -C "$work/r$n" discard t -q >/dev/null 2>&1; done; rm -rf "$work"' EXIT

make_repo() {
	local r=$1 dirs=$2
	git init -q -b main "$r"
	python3 - "$r" "$dirs" <<-'PY'
	import os, sys
	r, dirs = sys.argv[1], int(sys.argv[2])
	for d in range(dirs):
	    os.makedirs("%s/d%04d" % (r, d))
	    for f in range(100):
	        with open("%s/d%04d/f%03d.txt" % (r, d, f), "w") as fh:
	            fh.write("file %d %d\n" % (d, f))
	PY
	git -C "$r" add -A
	git -C "$r" -c user.name=b -c user.email=b@b commit -q -m base
}

cmdfile() {   # cmdfile FILE ARGS...: one command line for interleave.py
	local f=$1
	shift
	printf '%s\0' "$@" >"$f"
}

five='for i in 1 2 3 4 5; do echo "$(date +%N)" >d000$i/f001.txt; done'
for n in 200 1000; do
	r=$work/r$n
	make_repo "$r" "$n"
	"$AT" -C "$r" new ${FORM:+--$FORM} t >/dev/null
	"$AT" -C "$r" run t -- true >/dev/null   # the first checkpoint and the git view made
	cmdfile "$work/$n.true" "$AT" -C "$r" run t -- true
	cmdfile "$work/$n.true0" env AGENTTASK_TEST_NO_CHECKPOINT=1 "$AT" -C "$r" run t -- true
	cmdfile "$work/$n.five" "$AT" -C "$r" run t -- sh -c "$five"
	cmdfile "$work/$n.five0" env AGENTTASK_TEST_NO_CHECKPOINT=1 "$AT" -C "$r" run t -- sh -c "$five"
	cmdfile "$work/$n.json" "$AT" -C "$r" run t --json -- true
	python3 "$here/interleave.py" "$rounds" with "$work/$n.true" without "$work/$n.true0" >"$work/$n.true.json"
	python3 "$here/interleave.py" "$rounds" with "$work/$n.five" without "$work/$n.five0" >"$work/$n.five.json"
	python3 "$here/interleave.py" "$rounds" json "$work/$n.json" plain "$work/$n.true" >"$work/$n.json.json"
	# A run that changed 5 files, then diff --run of it against diff.
	"$AT" -C "$r" run t -- sh -c "$five" >/dev/null
	last=$("$AT" -C "$r" run t --json -- true | python3 -c 'import json,sys; print(json.load(sys.stdin)["number"])')
	prev=$((last - 1))
	cmdfile "$work/$n.diffrun" "$AT" -C "$r" diff t --run "$prev" --stat
	cmdfile "$work/$n.diff" "$AT" -C "$r" diff t --stat
	python3 "$here/interleave.py" "$rounds" run "$work/$n.diffrun" whole "$work/$n.diff" >"$work/$n.diff.json"
	# rewind to before that run and back, against stash and drop of the same 5 changes.
	cmdfile "$work/$n.rewind" sh -c "'$AT' -C '$r' rewind t $prev -q >/dev/null && '$AT' -C '$r' rewind t \$(git -C '$r' for-each-ref --format='%(refname:lstrip=-1)' refs/agenttask/checkpoints/t | sort -n | tail -1) -q >/dev/null"
	git clone -q --no-local "$r" "$work/c$n"   # (a local clone copies the objects, and failed here once)
	cmdfile "$work/$n.stash" sh -c "cd '$work/c$n' && $five && git stash -q && git stash drop -q && $five && git stash -q && git stash drop -q"
	before=()
	if [ -n "${BEFORE:-}" ]; then
		cmdfile "$work/$n.rewind0" sh -c "'$BEFORE' -C '$r' rewind t $prev -q >/dev/null && '$BEFORE' -C '$r' rewind t \$(git -C '$r' for-each-ref --format='%(refname:lstrip=-1)' refs/agenttask/checkpoints/t | sort -n | tail -1) -q >/dev/null"
		before=(before "$work/$n.rewind0")
	fi
	python3 "$here/interleave.py" "$rounds" rewind "$work/$n.rewind" stash "$work/$n.stash" "${before[@]}" >"$work/$n.rewind.json"
done
python3 - "$work" "$rounds" "${BEFORE:-}" <<'PY'
import json, statistics as st, sys
work, rounds, before = sys.argv[1], sys.argv[2], sys.argv[3]
print("load average: %s, %s rounds" % (open("/proc/loadavg").read().split()[:3], rounds))
print()
print("| files | measure | A median ms | B median ms | A/B, median of the pairs |")
print("|---|---|---|---|---|")
rows = [("true", "`run -- true`: with / without its checkpoint", "with", "without"),
        ("five", "`run -- sh -c 'change 5 files'`: with / without", "with", "without"),
        ("json", "`run --json -- true` / `run -- true`", "json", "plain"),
        ("diff", "`diff --run N` / `diff`", "run", "whole"),
        ("rewind", "two `rewind`s of 5 files / two `git stash && git stash drop`", "rewind", "stash")]
if before:
    rows.append(("rewind", "the same, BEFORE's two `rewind`s / two `git stash && git stash drop`",
                 "before", "stash"))
for n, files in (("200", "20,000"), ("1000", "100,000")):
    for key, what, a, b in rows:
        r = {x["command"]: x["times"] for x in json.load(open("%s/%s.%s.json" % (work, n, key)))["results"]}
        print("| %s | %s | %.2f | %.2f | %.3f |" % (files, what, 1000 * st.median(r[a]), 1000 * st.median(r[b]),
              st.median([x / y for x, y in zip(r[a], r[b])])))
PY
