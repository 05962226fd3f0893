#!/usr/bin/env bash
# The whole sandbox suite (sandbox_run.sh) again as an ordinary user; with
# AT_USER_SUITE=limits.sh (limits_user.sh), the limits suite; with
# AT_USER_SUITE=sandbox_holes.sh (sandbox_holes_user.sh), the holes suite;
# and so on for each *_user.sh.
#
# Run by root, it drops to uid/gid 65534 with setpriv, in a fresh temporary
# directory owned by that user which is also its HOME and TMPDIR; the
# repository, the tasks and the fake ssh key are then that user's. Run by an
# ordinary user, it is sandbox_run.sh as that user.
here=$(cd "$(dirname "$0")" && pwd)
: "${AGENTTASK:?AGENTTASK must name the agenttask binary}"
suite=${AT_USER_SUITE:-sandbox_run.sh}
if [ "$(id -u)" != 0 ]; then
	exec bash "$here/$suite"
fi
dir=$(mktemp -d /tmp/agenttask-user.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
mkdir "$dir/home" "$dir/tmp"
chown 65534:65534 "$dir/home" "$dir/tmp"
# The checkout may lie where that user cannot reach (under /root, say): it
# runs copies of the binary and of the scripts, made here where the
# checkout has them (tests/integration), with docs/json.md, which the schema
# suite checks against.
scripts=$dir/tests/integration
mkdir -p "$dir/bin" "$scripts" "$dir/docs"
cp "$AGENTTASK" "$dir/bin/agenttask"
cp "$here"/*.sh "$here"/*.py "$scripts/"
cp "$here/../../docs/json.md" "$dir/docs/"
# The worktree suite's Jest (tests/jest), copied the same way.
if [ "$suite" = worktree_place.sh ] && [ -d "$here/../jest/node_modules" ]; then
	cp -a "$here/../jest" "$dir/tests/jest"
fi
chmod -R a+rX "$dir/bin" "$dir/tests" "$dir/docs"
if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$dir/bin/agenttask"; then
	echo "FAIL: uid 65534 cannot execute '$dir/bin/agenttask'"
	exit 1
fi
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$dir/home" TMPDIR="$dir/tmp" \
	AGENTTASK="$dir/bin/agenttask" CI="${CI:-}" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
	UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" AGENTTASK_TEST_FORM="${AGENTTASK_TEST_FORM:-}" \
	bash "$scripts/$suite"
