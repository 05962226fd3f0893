#!/usr/bin/env bash
# bench/layered_hot.sh BINARY_A BINARY_B [ROUNDS] - a layered task's hot paths,
# two builds paired (issues 26 and 29): A the new build, B the old one.
#
# On repositories of 20,000 and 100,000 small files (one commit, by git
# fast-import; 100 files a directory), the base materialised once by a
# first task. Per size, ROUNDS rounds (default 15), each build once a
# round, the order reversed every other round:
#
#   new --layered N      a warm new (its base there), timed alone; then
#                        discard --force N and `sync`, untimed, so that the
#                        next measurement is not made in its wake
#   run T -- sh -c 'change 5 files'      with its checkpoint, and the same
#                        with AGENTTASK_TEST_NO_CHECKPOINT (core/trace.h):
#                        each build on a task of its own (its checkpoints
#                        are its own: a take's cost may grow with them)
#
# Prints, per size and measure, each build's median (ms) and, for the runs,
# the median of the pairs' ratios with/without the checkpoint.
set -euo pipefail
A=$(realpath "$1")
B=$(realpath "$2")
rounds=${3:-15}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/agenttask-hot.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C XDG_DATA_HOME=$work/data
unset AGENTTASK_TEST_FORM

make_repo() {   # make_repo DIR FILES
	git init -q -b main "$1"
	python3 - "$2" <<-'PY' | git -C "$1" fast-import --quiet
	import sys
	n = int(sys.argv[1])
	out = sys.stdout.buffer
	out.write(b"commit refs/heads/main\ncommitter b <b@b> 1700000000 +0000\ndata 5\nfiles\n")
	for i in range(n):
	    data = b"file %d\n" % i
	    out.write(b"M 100644 inline d%04d/f%03d.txt\ndata %d\n%s\n" % (i // 100, i % 100, len(data), data))
	out.write(b"\n")
	PY
	git -C "$1" checkout -q main
	git -C "$1" config gc.auto 0
	git -C "$1" config maintenance.auto false
}

for files in 20000 100000; do
	r=$work/r$files
	make_repo "$r" "$files"
	"$A" -C "$r" new --layered tA >/dev/null      # the base, made once
	"$B" -C "$r" new --layered tB >/dev/null
	"$A" -C "$r" run tA -- true >/dev/null
	"$B" -C "$r" run tB -- true >/dev/null
	python3 - "$r" "$A" "$B" "$rounds" "$files" <<-'PY'
	import os, statistics as st, subprocess, sys, time
	r, A, B, rounds, files = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
	five = 'for i in 1 2 3 4 5; do echo "$(date +%N)" >d000$i/f001.txt; done'
	null = subprocess.DEVNULL
	def timed(argv, env=None):
	    t = time.perf_counter()
	    subprocess.run(argv, stdout=null, stderr=null, check=True, env=env)
	    return (time.perf_counter() - t) * 1000
	nock = dict(os.environ, AGENTTASK_TEST_NO_CHECKPOINT="1")
	res = {k: {"new": [], "with": [], "without": []} for k in "AB"}
	for i in range(rounds):
	    order = [("A", A), ("B", B)] if i % 2 == 0 else [("B", B), ("A", A)]
	    for k, at in order:
	        res[k]["new"].append(timed([at, "-C", r, "new", "--layered", "n%s%d" % (k, i)]))
	        subprocess.run([at, "-C", r, "discard", "--force", "n%s%d" % (k, i)], stdout=null, stderr=null, check=True)
	        subprocess.run(["sync"], check=True)
	        pair = [("with", None), ("without", nock)] if i % 2 == 0 else [("without", nock), ("with", None)]
	        for m, env in pair:
	            res[k][m].append(timed([at, "-C", r, "run", "t" + k, "--", "sh", "-c", five], env))
	print("%s files, %d rounds, load %s" % (files, rounds, open("/proc/loadavg").read().split()[:3]))
	print("| files | measure | A (new) | B (old) |")
	print("|---|---|---|---|")
	print("| %s | warm `new --layered`, median ms | %.1f | %.1f |" % (files, st.median(res["A"]["new"]), st.median(res["B"]["new"])))
	w = {k: st.median([x / y for x, y in zip(res[k]["with"], res[k]["without"])]) for k in "AB"}
	print("| %s | `run -- change 5 files` with / without its checkpoint, medians ms | %.1f / %.1f | %.1f / %.1f |" % (
	    files, st.median(res["A"]["with"]), st.median(res["A"]["without"]),
	    st.median(res["B"]["with"]), st.median(res["B"]["without"])))
	print("| %s | the same, median of the pairs' ratios | %.3f | %.3f |" % (files, w["A"], w["B"]))
	PY
done
