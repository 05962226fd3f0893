#!/usr/bin/env bash
# examples/python/agent_loop.py against a scripted stand-in model: the edit
# the model asks for lands in the task's worktree (git is the oracle), the
# test it runs is seen failing then passing, output that is not UTF-8 does not
# break the loop, and nothing outside the worktree changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${AGENTTASK:?AGENTTASK must name the agenttask binary}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/bin"
ln -s "$AGENTTASK" "$dir/bin/agenttask"
export PATH="$dir/bin:$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
git init -q -b main "$dir/repo"
printf 'def add(a, b):\n    return a - b\n' >"$dir/repo/calc.py"
printf 'from calc import add\nassert add(2, 3) == 5, "add is wrong"\nprint("tests pass")\n' >"$dir/repo/test_calc.py"
git -C "$dir/repo" add . && git -C "$dir/repo" -c user.name=t -c user.email=t@t commit -qm init
cat >"$dir/script.json" <<'JSON'
[
  {"command": "python3 -B test_calc.py"},
  {"command": "printf 'bad \\377 bytes\\n'; sed -i 's/a - b/a + b/' calc.py"},
  {"command": "python3 -B test_calc.py"},
  {"command": "touch /tmp/agent-loop-escape-$$ 2>&1; echo $?"},
  {"done": "fixed add"}
]
JSON
out=$(python3 "$here/agent_loop.py" -C "$dir/repo" --task fix --model "scripted:$dir/script.json" "fix add")
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
grep -q "exit 1 (exit)" <<<"$out" || fail "the failing test was not seen"
grep -q "AssertionError: add is wrong" <<<"$out" || fail "the test's message was not seen"
grep -q "tests pass" <<<"$out" || fail "the passing test was not seen"
grep -q "done: fixed add" <<<"$out" || fail "the loop did not end"
wt=$("$AGENTTASK" -C "$dir/repo" path fix)
grep -q "a + b" "$wt/calc.py" || fail "the edit did not land in the worktree"
grep -q "a - b" "$dir/repo/calc.py" || fail "the repository's own checkout changed"
"$AGENTTASK" -C "$dir/repo" diff fix | grep -q '^+    return a + b' || fail "diff does not show the edit"
ls /tmp/agent-loop-escape-* >/dev/null 2>&1 && fail "the command wrote outside the worktree"
echo "PASS: agent_loop.py with a scripted model"
