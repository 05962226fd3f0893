#!/usr/bin/env python3
"""bench/list_watch.py [AGENTTASK] [SECONDS] [ROUNDS] - what `list --watch` costs.

One repository (200 files) with 20 tasks, each with a few uncommitted
changes, one of them running a command the whole time. Then, ROUNDS times
(default 1) and alternated: `agenttask list --watch` on a pseudo-terminal
for SECONDS (default 60), and its peer for as long: what a person or an
orchestrator does without it, `agenttask list --json` once a second (the
states and changes, from scratch each time). The CPU time (user + system,
wait4's rusage of everything under each, the pty's reader not included)
is printed, in total and as a share of one core over the time.

BENCH_DIR (default ${TMPDIR:-/tmp}) is where the repository goes.
"""
import os
import pty
import resource
import select
import shutil
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AT = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "build/cmd/agenttask"))
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 1
TASKS = 20


def sh(*args, **kw):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, text=True, **kw).stdout


def make_repo(root):
    repo = os.path.join(root, "repo")
    os.makedirs(os.path.join(repo, "src"))
    for i in range(200):
        with open(os.path.join(repo, "src", "f%03d.c" % i), "w") as f:
            f.write("int f%d(void) { return %d; }\n" % (i, i) * 20)
    sh("git", "-C", repo, "init", "-q", "-b", "main")
    sh("git", "-C", repo, "add", "-A")
    sh("git", "-C", repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "i")
    for t in range(TASKS):
        wt = sh(AT, "-C", repo, "new", "t%02d" % t).strip()
        for i in range(3):
            with open(os.path.join(wt, "src", "f%03d.c" % (t * 3 + i)), "a") as f:
                f.write("/* changed */\n")
    return repo


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def watch(repo):
    before = cpu_children()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(AT, [AT, "-C", repo, "list", "--watch", "--no-color"])
    end = time.time() + SECONDS
    while time.time() < end:
        if select.select([fd], [], [], 0.5)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                break
    os.write(fd, b"q")
    while True:
        try:
            if not os.read(fd, 65536):
                break
        except OSError:
            break
    os.waitpid(pid, 0)
    return cpu_children() - before


def peer(repo):
    before = cpu_children()
    end = time.time() + SECONDS
    while time.time() < end:
        start = time.time()
        subprocess.run([AT, "-C", repo, "list", "--json"], stdout=subprocess.DEVNULL, check=True)
        time.sleep(max(0.0, 1.0 - (time.time() - start)))
    return cpu_children() - before


def main():
    root = tempfile.mkdtemp(dir=os.environ.get("BENCH_DIR"))
    env_home = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = os.path.join(root, "data")
    try:
        repo = make_repo(root)
        busy = subprocess.Popen([AT, "-C", repo, "run", "t00", "--", "sleep", "100000"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(2)
        results = {"list --watch": [], "list --json each second": []}
        for r in range(ROUNDS):
            order = [("list --watch", watch), ("list --json each second", peer)]
            if r % 2:
                order.reverse()
            for name, fn in order:
                results[name].append(fn(repo))
        busy.kill()
        busy.wait()
        print("%d tasks, %.0f s each, %d round(s), load %.1f" %
              (TASKS, SECONDS, ROUNDS, os.getloadavg()[0]))
        for name, v in results.items():
            print("%-26s CPU %s s  (%s of a core)" %
                  (name, ", ".join("%.3f" % x for x in v),
                   ", ".join("%.2f%%" % (100 * x / SECONDS) for x in v)))
    finally:
        if env_home is None:
            del os.environ["XDG_DATA_HOME"]
        sh(AT, "-C", os.path.join(root, "repo"), "gc", "-q") if os.path.isdir(os.path.join(root, "repo")) else None
        shutil.rmtree(root, ignore_errors=True)


main()
