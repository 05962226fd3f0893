#!/usr/bin/env python3
"""diff_differential.py - agenttask's diff against git's, over generated trees.

    diff_differential.py [--pairs N] [--seed S]

difftrees.py makes pairs of trees A -> B with every kind of entry (files,
executables, symlinks, directories, gitlinks) and every type swap between
them, over names that sort side by side in git's tree order (a, a-b, a.b,
a/..., a0). For each pair agenttask's changed paths, statuses and line
counts (diff --json), its --name-only and its patch must equal git's
(`git diff -M --name-status / --numstat / --name-only / A B`):
  - in CI mode (diff --base A --head B), the trees as committed;
  - for a task based on A whose worktree holds B, uncommitted and
    untracked, where the full-state tree must be B's tree as well.
A path the review leaves out would be merged unseen (hole 1 of the
hostile-worktree issue: a directory replaced by a file showed only the
deletions). B is written by the agent, inside the task's sandbox: with
AGENTTASK_TEST_FORM=layered the task is layered, and its diff is read
from its layer (whiteouts, opaque directories, type changes, renames).

One interpreter drives it all: the trees' objects are written here (zlib,
SHA-1), so that a pair costs only the git and agenttask commands compared.
The pairs' seeds rotate: S (default: drawn anew each run, printed) and the
N - 1 after it, so that every run tries new trees and a failure names the
seed that reproduces it (`--seed S --pairs 1`). `make check` runs a few
(DIFF_PAIRS, default 24 per mode); `make fuzz` many.

$AGENTTASK is the binary under test. Ends with "N passed, N failed".
"""
import argparse
import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import difftrees  # noqa: E402
import difftree_check  # noqa: E402

AT = os.environ.get("AGENTTASK") or sys.exit("AGENTTASK must name the agenttask binary")
TREE_MODES = dict(difftrees.MODES, dir="40000")


def run(argv, cwd=None, env=None):
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    if p.returncode != 0:
        raise Failure("'%s' exited %d: %s" % (" ".join(argv), p.returncode,
                                               p.stderr.decode(errors="replace").strip()))
    return p.stdout


class Failure(Exception):
    pass


class Objects:
    """Loose objects written straight into a repository's object store."""

    def __init__(self, gitdir):
        self.dir = os.path.join(gitdir, "objects")

    def put(self, kind, body):
        data = b"%s %d\0" % (kind.encode(), len(body)) + body
        oid = hashlib.sha1(data).hexdigest()
        path = os.path.join(self.dir, oid[:2], oid[2:])
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".tmp", "wb") as f:
                f.write(zlib.compress(data))
            os.rename(path + ".tmp", path)
        return oid

    def tree(self, t):
        # git's order: a directory sorts as if its name ended with '/'.
        def key(name):
            return name.encode() + (b"/" if t[name][0] == "dir" else b"")
        body = b""
        for name in sorted(t, key=key):
            kind, data = t[name]
            if kind == "dir":
                oid = self.tree(data)
            elif kind == "gitlink":
                oid = data
            else:
                oid = self.put("blob", data.encode())
            body += b"%s %s\0" % (TREE_MODES[kind].encode(), name.encode()) + bytes.fromhex(oid)
        return self.put("tree", body)

    def commit(self, tree, parent, msg):
        who = b"Test Author <author@example.com> 1700000000 +0000"
        body = b"tree %s\n" % tree.encode()
        if parent:
            body += b"parent %s\n" % parent.encode()
        body += b"author %s\ncommitter %s\n\n%s\n" % (who, who, msg.encode())
        return self.put("commit", body)


def pair(seed, task):
    """Trees A and B of SEED, as difftrees.py makes them."""
    rng = difftrees.random.Random(seed)
    difftrees.POOL.clear()
    a = difftrees.tree(rng, 0, True)
    b = difftrees.mutate(rng, a, not task)
    while b == a:
        b = difftrees.mutate(rng, a, not task)
    return a, b


def git_side(repo, a, b):
    git = ["git", "-C", repo, "-c", "diff.renames=true", "-c", "color.ui=never", "diff", "-M"]
    return {
        "ns": run(git + ["-z", "--name-status", a, b]),
        "num": run(git + ["-z", "--numstat", a, b]),
        "names": run(git + ["--name-only", a, b]),
        "patch": run(git + [a, b]),
    }


def same(work, what, at_json, at_names, at_patch, g):
    paths = [os.path.join(work, n) for n in ("at.json", "git.ns", "git.num")]
    for p, data in zip(paths, (at_json, g["ns"], g["num"])):
        with open(p, "wb") as f:
            f.write(data)
    if difftree_check.compare(*paths):
        raise Failure("%s: the change sets differ" % what)
    if at_names != g["names"]:
        raise Failure("%s: --name-only differs:\n git: %r\n agenttask: %r" % (what, g["names"], at_names))
    if at_patch != g["patch"]:
        raise Failure("%s: the patch differs:\n--- git\n%s\n--- agenttask\n%s" % (
            what, g["patch"].decode(errors="replace")[:2000], at_patch.decode(errors="replace")[:2000]))


def tree_of(repo, rev):
    return run(["git", "-C", repo, "rev-parse", rev + "^{tree}"]).decode().strip()


def new_pair(work, seed, task):
    """A repository r whose main is A, and commits A and B of SEED; B's tree."""
    repo = os.path.join(work, "r")
    shutil.rmtree(repo, ignore_errors=True)
    run(["git", "init", "-q", "-b", "main", repo])
    objs = Objects(os.path.join(repo, ".git"))
    ta, tb = pair(seed, task)
    a = objs.commit(objs.tree(ta), None, "A %d" % seed)
    b = objs.commit(objs.tree(tb), a, "B %d" % seed)
    run(["git", "-C", repo, "update-ref", "refs/heads/main", a])
    return repo, a, b, tb


def compare(work, what, repo, a, b, at, env=None):
    """agenttask's diff (the command line AT) against git's diff A..B."""
    g = git_side(repo, a, b)
    j = run(at + ["--json"], env=env)
    same(work, what, j, run(at + ["--name-only"], env=env), run(at + ["--color=never"], env=env), g)
    if json.loads(j)["tree"] != tree_of(repo, b):
        raise Failure("%s: the tree judged is not B's" % what)


def ci_mode(work, seed):
    repo, a, b, _ = new_pair(work, seed, False)
    compare(work, "seed %d (CI mode)" % seed, repo, a, b,
            [AT, "-C", repo, "diff", "--base", a, "--head", b])


# What the agent runs in its sandbox (python3 -c, the tree as JSON in argv[1]):
# everything but .git removed, then B's tree written (difftree_check.write).
AGENT_WRITES_B = """
import json, os, shutil, sys
%s
for name in os.listdir("."):
    if name != ".git":
        if os.path.isdir(name) and not os.path.islink(name):
            shutil.rmtree(name)
        else:
            os.unlink(name)
write(".", json.loads(sys.argv[1]))
""" % inspect.getsource(difftree_check.write)


LAYERED = [0, 0]   # tasks made layered, and full (a tree the layered form declines)


def task_mode(work, seed, env):
    shutil.rmtree(env["XDG_DATA_HOME"], ignore_errors=True)
    repo, a, b, tb = new_pair(work, seed, True)
    wt = run([AT, "-C", repo, "new", "t"], env=env).decode().strip()
    if os.environ.get("AGENTTASK_TEST_FORM") == "layered":
        LAYERED[os.path.exists(wt)] += 1   # a layered task has no worktree on the host
    # The agent writes B over A in its worktree (a layered task's: its
    # layer, whiteouts, opaque directories and all, under AGENTTASK_TEST_FORM=layered).
    run([AT, "-C", repo, "run", "t", "--", "python3", "-c", AGENT_WRITES_B, json.dumps(tb)],
        env=env)
    # The full-state tree of the task must be B's too.
    compare(work, "seed %d (task)" % seed, repo, a, b, [AT, "-C", repo, "diff", "t"], env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=int(os.environ.get("DIFF_PAIRS", "24")))
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("DIFF_SEED") or int.from_bytes(os.urandom(3), "big")))
    args = ap.parse_args()
    print("seeds %d to %d (again: DIFF_SEED=%d DIFF_PAIRS=%d)" % (
        args.seed, args.seed + args.pairs - 1, args.seed, args.pairs), flush=True)
    os.environ.update(GIT_CONFIG_NOSYSTEM="1", LC_ALL="C.UTF-8", GIT_AUTHOR_NAME="Test Author",
                      GIT_AUTHOR_EMAIL="author@example.com", GIT_COMMITTER_NAME="Test Author",
                      GIT_COMMITTER_EMAIL="author@example.com")
    for v in ("GIT_DIR", "GIT_WORK_TREE"):
        os.environ.pop(v, None)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="agenttask-diffdiff.") as work:
        env = dict(os.environ, XDG_DATA_HOME=os.path.join(work, ".data"))
        for name, fn in (("ci_mode_matches_git", lambda s: ci_mode(work, s)),
                         ("task_worktree_matches_git", lambda s: task_mode(work, s, env))):
            try:
                for seed in range(args.seed, args.seed + args.pairs):
                    fn(seed)
                passed += 1
                print("ok   test_%s" % name, flush=True)
            except Failure as e:
                failed += 1
                print("FAIL test_%s\n    %s" % (name, str(e).replace("\n", "\n    ")), flush=True)
    if os.environ.get("AGENTTASK_TEST_FORM") == "layered":
        print("layered tasks: %d, full: %d" % tuple(LAYERED))
        if not LAYERED[0]:
            failed += 1
            print("FAIL no task was layered")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
