#!/usr/bin/env python3
"""scripts/cli-md.py AGENTTASK [--check]: the command blocks of docs/cli.md.

Under each "## COMMAND" heading, the first fenced block is the text of
`agenttask help COMMAND`: this rewrites those blocks from the binary, or with
--check says which differ (exit 1), so the reference cannot drift from the
help (the command table of cmd/commands.c and each command's option table are
the one source).
"""
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def commands(binary):
    """The commands, from `agenttask help --complete`: one "NAME|OPERAND|SUMMARY" a line."""
    out = subprocess.run([binary, "help", "--complete"], check=True, capture_output=True,
                         text=True).stdout
    return [line.split("|", 1)[0] for line in out.splitlines() if line]


def main():
    binary, check = sys.argv[1], "--check" in sys.argv[2:]
    text = DOC.read_text()
    stale, missing = [], []
    for cmd in commands(binary):
        help_text = subprocess.run([binary, "help", cmd], check=True, capture_output=True,
                                   text=True).stdout
        pattern = re.compile(r"(^## %s\n\n```\n)(.*?)(^```\n)" % re.escape(cmd), re.S | re.M)
        m = pattern.search(text)
        if not m:
            missing.append(cmd)
            continue
        if m.group(2) != help_text:
            stale.append(cmd)
            text = text[:m.start(2)] + help_text + text[m.end(2):]
    if missing:
        print("docs/cli.md has no section '## %s'" % "', '## ".join(missing), file=sys.stderr)
    if check:
        if stale:
            print("docs/cli.md differs from 'agenttask help' for: %s (run scripts/cli-md.py)"
                  % ", ".join(stale), file=sys.stderr)
        return 1 if stale or missing else 0
    DOC.write_text(text)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
