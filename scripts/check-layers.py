#!/usr/bin/env python3
"""check-layers.py BUILD_DIR SOURCE_DIR - the module rules, checked on the build.

1. Calls between files form no cycle: an edge A -> B when A's object file
   uses a symbol B's defines (nm), over every file of every module; a
   strongly connected set of two or more files is a cycle (the init and the
   supervisor calling each other, say).
2. Calls point down the layers: cmd -> app -> {git, sandbox, net} -> core,
   and git, sandbox and net never call each other. gitfmt/ (git's byte
   formats: bytes in, structs out) lies between core and git: git and app
   may call it, sandbox and net never; it calls core alone, and no libgit2
   function (its object files leave no git_* symbol undefined). A front end (cmd/, mcp/)
   calls app/ and core/ only, nothing of git/, sandbox/ or net/; cmd/ may
   start mcp/ (cmd_mcp.c), mcp/ never calls cmd/.
3. Includes follow the same arrows; <git2.h> only under git/, <seccomp.h>
   only under sandbox/, cJSON only in core/json.c (<git2.h> also in gitfmt/,
   for libgit2's types alone: rule 2 keeps its functions out); app/'s public
   headers include nothing of git/, gitfmt/, sandbox/ or net/ (a second front end needs app/ and
   core/ alone); nothing includes a file outside its module's arrows.
4. One owner of every path of agenttask's state (core/paths.c): outside it,
   no format call joins one of struct at_paths' directories with anything
   (a bare "%s" copy is fine), and no literal spells a state directory or a
   task's part ("%s/homes/", "%s.scan"; not "logs/", which git has too);
   sandbox/ and net/ know nothing of the state, so their own "%s/tasks" (a
   cgroup's) is not looked at.

Prints one line per violation and exits 1 when there is any.
"""
import glob
import os
import re
import subprocess
import sys

RANK = {"core": 0, "gitfmt": 1, "git": 2, "sandbox": 2, "net": 2, "app": 3, "mcp": 4, "cmd": 5}
FRONT_ENDS = {"cmd": ("app", "core", "mcp"), "mcp": ("app", "core")}
MIDDLE = ("git", "sandbox", "net")
# The modules that may use gitfmt/ (besides the ranks: sandbox and net never).
GITFMT_USERS = ("git", "app")
OBJ_DIRS = {
    "core": "core/CMakeFiles/at_core.dir",
    "gitfmt": "gitfmt/CMakeFiles/at_gitfmt.dir",
    "git": "git/CMakeFiles/at_git.dir",
    "sandbox": "sandbox/CMakeFiles/at_sandbox.dir",
    "net": "net/CMakeFiles/at_net.dir",
    "app": "app/CMakeFiles/at_app.dir",
    "mcp": "mcp/CMakeFiles/at_mcp.dir",
    "cmd": ("cmd/CMakeFiles/at_cmd.dir", "cmd/CMakeFiles/agenttask.dir"),
}


def may_use(frm, to):
    """May module frm call into / include module to?"""
    if frm == to:
        return True
    if frm in MIDDLE and to in MIDDLE:
        return False
    if to == "gitfmt":
        return frm in GITFMT_USERS
    if frm in FRONT_ENDS:
        return to in FRONT_ENDS[frm]
    return RANK[to] < RANK[frm]


def symbols(paths):
    """One nm over every object: {path: (defined, undefined)} of global symbols."""
    out = subprocess.run(["nm", "-P", "-A", "-g", *paths], capture_output=True, text=True,
                         check=True).stdout
    syms = {p: (set(), set()) for p in paths}
    for line in out.splitlines():
        head, _, rest = line.rpartition(": ")
        fields = rest.split()
        if head not in syms or len(fields) < 2:
            continue
        (syms[head][1] if fields[1] in "Uw" else syms[head][0]).add(fields[0])
    return syms


def objects(build, src):
    """The object file of every source file there is (not those of removed ones)."""
    objs = {}
    for module, rels in OBJ_DIRS.items():
        paths = [p for rel in ((rels,) if isinstance(rels, str) else rels)
                 for p in glob.glob(os.path.join(build, rel, "*.o"))]
        for path in sorted(paths):
            name = os.path.basename(path)[:-len(".c.o")]
            if os.path.exists(os.path.join(src, module, name + ".c")):
                objs[f"{module}/{name}.c"] = (module, path)
    return objs


def libgit2_calls(objs):
    """gitfmt/ calls no libgit2 function: bytes in, structs out."""
    units = [u for u, (m, _) in objs.items() if m == "gitfmt"]
    syms = symbols([objs[u][1] for u in units]) if units else {}
    return [f"{u} calls libgit2's {sym}" for u in units
            for sym in sorted(syms[objs[u][1]][1]) if sym.startswith("git_")]


def call_graph(objs):
    syms = symbols([path for _, path in objs.values()])
    defines = {}
    for unit, (_, path) in objs.items():
        for sym in syms[path][0]:
            defines.setdefault(sym, unit)
    graph = {u: set() for u in objs}
    for unit, (_, path) in objs.items():
        for sym in syms[path][1]:
            to = defines.get(sym)
            if to and to != unit:
                graph[unit].add(to)
    return graph


def cycles(graph):
    """Tarjan: the strongly connected sets of two or more nodes."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)


def include_errors(src):
    errors = []
    for module in RANK:
        for path in sorted(glob.glob(os.path.join(src, module, "*.[ch]"))):
            rel = os.path.relpath(path, src)
            text = open(path, encoding="utf-8").read()
            for kind, inc in INCLUDE.findall(text):
                if kind == "<":
                    if inc.startswith("git2") and module not in ("git", "gitfmt"):
                        errors.append(f"{rel}: <{inc}> outside git/ and gitfmt/")
                    if inc == "seccomp.h" and module != "sandbox":
                        errors.append(f"{rel}: <seccomp.h> outside sandbox/")
                    if "cjson" in inc.lower() and rel != "core/json.c":
                        errors.append(f"{rel}: cJSON outside core/json.c")
                    continue
                to = inc.split("/")[0]
                if to not in RANK:
                    continue
                if not may_use(module, to):
                    errors.append(f"{rel}: includes {inc} ({module} -> {to})")
                if module == "app" and rel.endswith(".h") and rel != "app/internal.h" \
                        and (to in MIDDLE or to == "gitfmt"):
                    errors.append(f"{rel}: a front end's header includes {inc}")
    return errors


PATHS_OWNER = "core/paths.c"
PATH_FIELD = re.compile(
    r"\b(state|tasks|homes|caches|cache|views|logs|runs|scratch|admins|worktrees)_dir\b")
FORMAT_CALL = re.compile(r"\b(at_fmt|snprintf|asprintf|at_strlist_pushf)\s*\(")
STATE_LITERAL = re.compile(
    r'"%s/(tasks|homes|caches|cache|runs|scratch|git/%s)(/|")|%s\.(scan|home|jsonl)"')


def call_text(text, start):
    """The text of the call whose "(" is at start, to its matching ")"."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i + 1]
    return text[start:]


def path_errors(src):
    errors = []
    for module in ("core", "git", "app", "mcp", "cmd"):
        for path in sorted(glob.glob(os.path.join(src, module, "*.c"))):
            rel = os.path.relpath(path, src)
            if rel == PATHS_OWNER:
                continue
            text = open(path, encoding="utf-8").read()
            for m in FORMAT_CALL.finditer(text):
                call = call_text(text, m.end() - 1)
                field = PATH_FIELD.search(call)
                if field and not re.search(r'^\(\s*[^,]+,\s*[^,]+,\s*"%s"\s*,', call):
                    line = text.count("\n", 0, m.start()) + 1
                    errors.append(f"{rel}:{line}: builds a path from {field.group(0)} "
                                  f"(only {PATHS_OWNER} does)")
            for m in STATE_LITERAL.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                errors.append(f"{rel}:{line}: spells {m.group(0)} (only {PATHS_OWNER} does)")
    return errors


def main():
    build, src = sys.argv[1], sys.argv[2]
    objs = objects(build, src)
    if len(objs) < 40:
        print(f"check-layers: only {len(objs)} object files under {build}: not built?")
        return 1
    errors = include_errors(src) + path_errors(src)
    graph = call_graph(objs)
    for unit, tos in sorted(graph.items()):
        for to in sorted(tos):
            if not may_use(objs[unit][0], objs[to][0]):
                errors.append(f"{unit} calls into {to} ({objs[unit][0]} -> {objs[to][0]})")
    errors += libgit2_calls(objs)
    for comp in cycles(graph):
        errors.append("call cycle between files: " + " <-> ".join(comp))
    for e in errors:
        print(e)
    print(f"check-layers: {len(objs)} files, {sum(len(v) for v in graph.values())} "
          f"call edges, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
