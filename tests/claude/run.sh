#!/usr/bin/env bash
# Claude Code run whole inside `agenttask run` (tests/claude/claude_code.sh),
# as the user running the tests and, when that is root, again as uid/gid
# 65534 in a fresh directory of its own (as tests/integration/sandbox_user.sh
# does): copies of the binary, the scripts and the package.
#
# It needs node and the package (package-lock.json; `make deps` runs npm ci).
# Without either it is skipped (77) with one line saying so, unless CI is
# set: CI installs both, so a missing one is a failure there.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${AGENTTASK:?AGENTTASK must name the agenttask binary}"
skip() {
	echo "SKIP: $1; the Claude Code test did not run"
	[ -n "${CI:-}" ] && exit 1
	exit 77
}
command -v node >/dev/null || skip "node is missing (apt-get install nodejs)"
[ -f "$here/node_modules/@anthropic-ai/claude-code/cli.js" ] ||
	skip "the package is missing (make deps, or npm ci in tests/claude)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
bash "$here/claude_code.sh" || exit 1
[ "$(id -u)" = 0 ] || exit 0

echo "# again as uid 65534"
dir=$(mktemp -d /tmp/agenttask-claude-user.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
mkdir "$dir/home" "$dir/tmp" "$dir/bin" "$dir/tests" "$dir/tests/integration"
chown 65534:65534 "$dir/home" "$dir/tmp"
cp "$AGENTTASK" "$dir/bin/agenttask"
cp "$here/../integration/lib.sh" "$dir/tests/integration/"
mkdir "$dir/tests/claude"
cp -a "$here/claude_code.sh" "$here/fake_api.py" "$here/node_modules" "$dir/tests/claude/"
chmod -R a+rX "$dir/bin" "$dir/tests"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$dir/home" TMPDIR="$dir/tmp" \
	AGENTTASK="$dir/bin/agenttask" CI="${CI:-}" ASAN_OPTIONS="$ASAN_OPTIONS" \
	UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
	bash "$dir/tests/claude/claude_code.sh"
