#!/usr/bin/env python3
"""difftrees.py - pairs of trees for the differential diff test (diff_differential.py).

tree(rng, 0, True) makes a tree A; mutate(rng, A, allow_new_gitlinks) a tree
B made from A by random edits: content changes, mode changes, deletions,
additions, moves (renames) and type swaps between files, executables,
symlinks, directories and gitlinks, over names that sort next to each other
in git's tree order (a, a.b, a-b, a0, a/b, ...). A tree is a dict: name ->
[kind, data], data a dict for a directory.

Without new gitlinks (a task's worktree), B adds no gitlink that A lacks (a
gitlink cannot appear in a worktree without a nested repository) and turns
no gitlink into a directory (which a worktree shows as the submodule's
unpopulated checkout), so that B can be written into a task's worktree.
"""
import json
import random

NAMES = ["a", "a.b", "a-b", "a0", "b", "c d", "x"]
KINDS = ["file", "file", "file", "exec", "link", "dir", "dir", "gitlink"]
MODES = {"file": "100644", "exec": "100755", "link": "120000", "gitlink": "160000"}


def text(rng, lines=None):
    # A fresh file's content is its own (a unique first line); POOL repeats
    # some on purpose.
    n = lines if lines is not None else rng.randint(0, 12)
    body = "".join("line %d %08x\n" % (i, rng.getrandbits(32)) for i in range(n))
    body = "id %016x\n" % rng.getrandbits(64) + body
    if rng.random() < 0.1:
        body = body.rstrip("\n")   # no newline at the end
    return body


# Leaves made so far: a quarter of new leaves repeat one, so that several
# sources can hold a destination's content and git's tie-break is tested.
POOL = []


def leaf(rng, kind, gitlinks):
    if kind == "gitlink" and not gitlinks:
        kind = "file"
    same = [l for l in POOL if l[0] == kind or (kind in ("file", "exec") and l[0] in ("file", "exec"))]
    if same and rng.random() < 0.25:
        return [kind, rng.choice(same)[1]]
    l = leaf_new(rng, kind)
    POOL.append(l)
    return l


def leaf_new(rng, kind):
    if kind in ("file", "exec"):
        data = text(rng)
        if rng.random() < 0.12:
            data = data + "\0binary\0"
        return [kind, data]
    if kind == "link":
        return ["link", rng.choice(["target", "../up", "/etc/", "a/b/", "no such "]) +
                "%08x" % rng.getrandbits(32)]
    return ["gitlink", "%040x" % rng.getrandbits(160)]


def tree(rng, depth, gitlinks):
    out = {}
    for name in rng.sample(NAMES, rng.randint(1, 4)):
        kind = rng.choice(KINDS)
        if kind == "dir" and depth < 3:
            sub = tree(rng, depth + 1, gitlinks)
            if sub:
                out[name] = ["dir", sub]
                continue
            kind = "file"
        elif kind == "dir":
            kind = "file"
        out[name] = leaf(rng, kind, gitlinks)
    return out


def flatten(t, prefix=""):
    for name, (kind, data) in sorted(t.items()):
        if kind == "dir":
            yield from flatten(data, prefix + name + "/")
        else:
            yield prefix + name, kind, data


def dirs_of(t, prefix=""):
    """Every directory dict with its path prefix."""
    yield prefix, t
    for name, (kind, data) in t.items():
        if kind == "dir":
            yield from dirs_of(data, prefix + name + "/")


def mutate(rng, a, allow_new_gitlinks):
    b = json.loads(json.dumps(a))
    for _ in range(rng.randint(1, 6)):
        places = list(dirs_of(b))
        prefix, d = rng.choice(places)
        op = rng.choice(["edit", "edit", "mode", "delete", "add", "swap", "swap", "swap",
                         "move"])
        names = list(d.keys())
        if op == "add" or not names:
            free = [n for n in NAMES if n not in d]
            if free:
                kind = rng.choice(KINDS)
                name = rng.choice(free)
                d[name] = (["dir", tree(rng, 2, allow_new_gitlinks)] if kind == "dir"
                           else leaf(rng, kind, allow_new_gitlinks))
            continue
        name = rng.choice(names)
        kind, data = d[name]
        if op == "edit" and kind in ("file", "exec"):
            lines = data.split("\n")
            i = rng.randrange(len(lines))
            lines[i] = "changed %08x" % rng.getrandbits(32)
            if rng.random() < 0.5:
                lines.insert(i, "inserted")
            d[name] = [kind, "\n".join(lines)]
        elif op == "mode" and kind in ("file", "exec"):
            d[name] = ["exec" if kind == "file" else "file", data]
        elif op == "delete":
            del d[name]
        elif op == "move" and kind in ("file", "exec", "link"):
            # A rename: the same content (maybe edited a little) at a new name.
            dest_prefix, dest = rng.choice(list(dirs_of(b)))
            free = [n for n in NAMES if n not in dest]
            if free and dest is not d.get(name, [None, None])[1]:
                del d[name]
                if kind != "link" and rng.random() < 0.3:
                    data = data + "appended\n"
                dest[rng.choice(free)] = [kind, data]
        else:
            # A type swap: the same name, another kind.
            new = rng.choice([k for k in ["file", "exec", "link", "dir", "gitlink"] if k != kind])
            if new == "gitlink" and not allow_new_gitlinks:
                new = "link"
            if new == "dir":
                sub = tree(rng, 2, allow_new_gitlinks) or {"f": leaf(rng, "file", False)}
                d[name] = ["dir", sub]
            else:
                d[name] = leaf(rng, new, True)
    prune(b)
    if not allow_new_gitlinks:
        no_dir_at_gitlink(a, b)
    return b


def no_dir_at_gitlink(a, b):
    """In a worktree, a directory at a gitlink's path is that submodule's
    (unpopulated) checkout, for git as for agenttask: make it a file."""
    for name, (kind, data) in a.items():
        if name not in b:
            continue
        if kind == "gitlink" and b[name][0] == "dir":
            b[name] = ["file", "id was a gitlink %s\n" % data]
        elif kind == "dir" and b[name][0] == "dir":
            no_dir_at_gitlink(data, b[name][1])


def prune(t):
    """git stores no empty directory."""
    for name in list(t):
        kind, data = t[name]
        if kind == "dir":
            prune(data)
            if not data:
                del t[name]
