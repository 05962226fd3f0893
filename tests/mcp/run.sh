#!/usr/bin/env bash
# The MCP server driven by the official TypeScript SDK client
# (tests/mcp/mcp_test.mjs), as the user running the tests and, when that is
# root, again as uid/gid 65534 in a fresh directory of its own (as
# tests/integration/sandbox_user.sh does).
#
# It needs node and the SDK (package-lock.json; `make deps` runs npm ci).
# Without node it is skipped with one line saying so, unless CI is set: CI
# installs node (Makefile's DEBIAN_PACKAGES), so a missing one is a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${AGENTTASK:?AGENTTASK must name the agenttask binary}"
if ! command -v node >/dev/null; then
	echo "SKIP: node is missing (apt-get install nodejs); the MCP client test did not run"
	[ -n "${CI:-}" ] && exit 1
	exit 0
fi
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || {
		echo "FAIL: cannot install the MCP SDK (npm ci in tests/mcp)"
		exit 1
	}
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
node "$here/mcp_test.mjs" || exit 1
[ "$(id -u)" = 0 ] || exit 0

echo "# again as uid 65534"
dir=$(mktemp -d /tmp/agenttask-mcp-user.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
mkdir "$dir/home" "$dir/tmp" "$dir/bin" "$dir/mcp"
chown 65534:65534 "$dir/home" "$dir/tmp"
cp "$AGENTTASK" "$dir/bin/agenttask"
cp -r "$here/mcp_test.mjs" "$here/package.json" "$here/node_modules" "$dir/mcp/"
chmod -R a+rX "$dir/bin" "$dir/mcp"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$dir/home" TMPDIR="$dir/tmp" \
	AGENTTASK="$dir/bin/agenttask" ASAN_OPTIONS="$ASAN_OPTIONS" \
	UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
	node "$dir/mcp/mcp_test.mjs"
