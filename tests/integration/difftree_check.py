#!/usr/bin/env python3
"""difftree_check.py - helpers of diff_differential.py.

    write(ROOT, TREE)
        Write a difftrees.py tree under ROOT: files, executables, symlinks,
        directories; a gitlink as the empty directory a checkout leaves.

    compare(AGENTTASK_JSON, NAME_STATUS_Z, NUMSTAT_Z)
        Compare agenttask's change set (diff --json) with git's
        `diff -z --name-status` and `diff -z --numstat` of the same trees:
        the same paths, statuses and line counts. Prints the differences
        and returns 1 when there are any.
"""
import json
import os

STATUS = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R", "copied": "C",
          "typechange": "T"}


def write(root, t):
    for name, (kind, data) in t.items():
        p = os.path.join(root, name)
        if kind == "dir":
            os.mkdir(p)
            write(p, data)
        elif kind == "link":
            os.symlink(data, p)
        elif kind == "gitlink":
            os.mkdir(p)
        else:
            with open(p, "wb") as f:
                f.write(data.encode())
            os.chmod(p, 0o755 if kind == "exec" else 0o644)


def git_changes(name_status, numstat):
    f = name_status.split(b"\0")
    out = {}
    i = 0
    while i < len(f) and f[i]:
        st = f[i].decode()[0]
        if st in "RC":
            old, new = f[i + 1].decode(), f[i + 2].decode()
            i += 3
        else:
            old = new = f[i + 1].decode()
            i += 2
        out[new] = [st, old, None, None]
    f = numstat.split(b"\0")
    i = 0
    while i < len(f) and f[i]:
        add, dele, path = f[i].decode().split("\t", 2)
        if path == "":   # a rename: old and new follow
            path = f[i + 2].decode()
            i += 3
        else:
            i += 1
        key = "-" if add == "-" else int(add), "-" if dele == "-" else int(dele)
        out[path][2], out[path][3] = key
    return {k: tuple(v) for k, v in out.items()}


def at_changes(j):
    out = {}
    for f in j["files"]:
        st = STATUS[f["status"]]
        old = f.get("old_path", f["path"])
        if f["binary"]:
            counts = ("-", "-")
        else:
            counts = (f["additions"], f["deletions"])
        out[f["path"]] = (st, old) + counts
    return out


def compare(at_json, ns, num):
    with open(at_json) as f:
        a = at_changes(json.load(f))
    with open(ns, "rb") as f1, open(num, "rb") as f2:
        g = git_changes(f1.read(), f2.read())
    bad = 0
    for path in sorted(set(a) | set(g)):
        if a.get(path) != g.get(path):
            print("  %r: agenttask %s, git %s" % (path, a.get(path), g.get(path)))
            bad = 1
    return bad
