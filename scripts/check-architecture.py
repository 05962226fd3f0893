#!/usr/bin/env python3
"""check-architecture.py SOURCE_DIR - docs/architecture.md names every file.

Each module's row of the module table in docs/architecture.md (`| \\`core/\\` |
files | owns |`) must name, in backticks, every source file of the module's
directory by its stem (`vault` for core/vault.c and core/vault.h); a pattern
such as `cmd_*` covers the stems it matches, and a header named in the row
(`sandbox/internal.h`) covers itself. A stem the row names that no file has
is reported too (a file moved or removed, the table not). Prints one line per
problem and exits 1 when there is any.
"""
import fnmatch
import os
import re
import sys

MODULES = ("core", "gitfmt", "git", "sandbox", "net", "app", "mcp", "cmd")


def main():
    src = sys.argv[1]
    doc = open(os.path.join(src, "docs", "architecture.md"), encoding="utf-8").read()
    rows = {}
    for line in doc.splitlines():
        m = re.match(r"\| `(\w+)/` \| ([^|]*) \|", line)
        if m and m.group(1) in MODULES:
            rows[m.group(1)] = m.group(2)
    problems = []
    for mod in MODULES:
        if mod not in rows:
            problems.append("docs/architecture.md: no row for %s/" % mod)
            continue
        names = re.findall(r"`([^`]+)`", rows[mod])
        stems = {os.path.splitext(f)[0] for f in os.listdir(os.path.join(src, mod))
                 if f.endswith((".c", ".h"))}
        for stem in sorted(stems):
            if not any(n == stem or n == "%s/%s.h" % (mod, stem) or n == "%s/%s.c" % (mod, stem)
                       or ("*" in n and fnmatch.fnmatch(stem, n)) for n in names):
                problems.append("docs/architecture.md: %s/%s is in no row (the %s/ row)" %
                                (mod, stem, mod))
        for n in names:
            bare = n.split("/")[-1].rsplit(".", 1)[0] if "/" in n else n
            if "*" not in n and re.fullmatch(r"[a-z0-9_]+", bare) and bare not in stems:
                problems.append("docs/architecture.md: the %s/ row names '%s', which %s/ has not" %
                                (mod, n, mod))
    for p in problems:
        print(p)
    print("check-architecture: %d modules, %d problem(s)" % (len(MODULES), len(problems)))
    return 1 if problems else 0


sys.exit(main())
