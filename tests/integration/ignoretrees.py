#!/usr/bin/env python3
"""ignoretrees.py DIR SEED - write an untracked tree with .gitignore files.

A generated tree of directories and files with .gitignore files at several
depths, their patterns drawn from what gitignore(5) allows: base names,
anchored and unanchored paths, trailing slashes, negations, '*', '?', '**',
bracket classes, escapes, comments, trailing blanks, CRLF lines. The caller
compares which files git and agenttask each leave unignored
(hostile.sh: test_ignore_rules_match_git_on_generated_trees).
"""
import os
import random
import sys

NAMES = ["a", "b", "a.o", "b.log", "keep.log", "build", "out", "x.tmp", "doc", "A",
         "data[1]", "sp ace", "!bang", "#hash", "deep", "ab", "abc", "a-b"]

PATTERNS = ["*.o", "*.log", "!keep.log", "build/", "/out", "out/", "doc/*.tmp", "**/deep",
            "a/**/b", "**/x.tmp", "?b", "a[bc]", "[!a]b", "[[:upper:]]", "data\\[1\\]",
            "sp ace", "\\!bang", "\\#hash", "# a comment", "", "   ", "deep/", "!deep/",
            "!b", "a*", "/a", "*/b", "**", "!**/keep.log", "abc   ", "ab\\ ", "*.tmp\r",
            "!/build", "a-b/", "doc", "!doc/", "[a-c]", "*.[ol]*"]


def main():
    root, seed = sys.argv[1], int(sys.argv[2])
    rnd = random.Random(seed)

    def fill(path, depth):
        for _ in range(rnd.randint(2, 5)):
            name = rnd.choice(NAMES)
            p = os.path.join(path, name)
            if os.path.exists(p):
                continue
            if depth < 3 and rnd.random() < 0.4:
                os.mkdir(p)
                fill(p, depth + 1)
            else:
                with open(p, "w") as f:
                    f.write(name + "\n")
        if rnd.random() < 0.6:
            lines = [rnd.choice(PATTERNS) for _ in range(rnd.randint(1, 6))]
            with open(os.path.join(path, ".gitignore"), "w", newline="") as f:
                f.write("\n".join(lines) + ("\n" if rnd.random() < 0.8 else ""))

    fill(root, 0)


if __name__ == "__main__":
    main()
