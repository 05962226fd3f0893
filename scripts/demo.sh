#!/usr/bin/env bash
# A short real demo: a task, an edit made inside the sandbox, the review,
# the accept, and the log that shows it. Runs in a throw-away repository.
set -euo pipefail
AT=$(realpath "${1:-build/cmd/agenttask}")
demo=$(mktemp -d "${TMPDIR:-/tmp}/agenttask-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
export GIT_AUTHOR_NAME="Demo User" GIT_AUTHOR_EMAIL="demo@example.com"
export GIT_COMMITTER_NAME="Demo User" GIT_COMMITTER_EMAIL="demo@example.com"

step() {
	printf '\n\033[1m$'
	printf ' %q' "$@"
	printf '\033[0m\n'
}
run() {
	step "$@"
	"$@"
}

cd "$demo"
git init -q -b main project
cd project
cat >greet.sh <<'SH'
#!/bin/sh
echo "hello, world"
SH
chmod +x greet.sh
git add greet.sh
git commit -q -m "A greeting"
echo "A throw-away repository in $demo/project, with one commit:"
git log --oneline

run "$AT" new fix-greeting
wt=$("$AT" path fix-greeting)

# The agent's edit, made inside the sandbox: it sees only the worktree.
step "$AT" run fix-greeting -- sh -c "sed -i 's/world/agenttask/' greet.sh && ./greet.sh"
if ! "$AT" run fix-greeting -- sh -c "sed -i 's/world/agenttask/' greet.sh && ./greet.sh"; then
	echo "(the sandbox is not available on this machine: editing the worktree directly)"
	sed -i 's/world/agenttask/' "$wt/greet.sh"
fi
step "$AT" run fix-greeting -- cat "$HOME/.ssh/id_rsa"
"$AT" run fix-greeting -- cat "$HOME/.ssh/id_rsa" || echo "(no key: the sandbox has a private, empty home)"
# An API key by reference: inside, only a placeholder of its shape; the proxy outside holds the value.
export DEMO_API_KEY=sk-demo-0123456789abcdefghij
printf '\n\033[1m$ %s run fix-greeting --allow-host api.example.com --secret DEMO_API_KEY:api.example.com -- sh -c '"'"'echo "$DEMO_API_KEY"'"'"'\033[0m\n' "$AT"
"$AT" run fix-greeting --allow-host api.example.com --secret DEMO_API_KEY:api.example.com \
	-- sh -c 'echo "$DEMO_API_KEY"' || echo "(the sandbox is not available here)"
echo "(the real key, $DEMO_API_KEY, stays with agenttask's proxy, for requests to api.example.com)"

run "$AT" list
run "$AT" diff fix-greeting
run "$AT" log fix-greeting
run "$AT" commit fix-greeting -m "Greet agenttask"
run "$AT" accept fix-greeting
run git log --oneline --graph
run ./greet.sh
run git worktree list
