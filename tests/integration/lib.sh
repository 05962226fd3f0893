# lib.sh - shared helpers for the integration tests.
#
# A test script defines functions named test_*, sources this file, and ends
# with `run_tests`. Each test runs in a subshell of its own, in a fresh
# temporary directory, with `set -e`: any failing command or assertion fails
# that test alone. The last line printed is "N passed, N failed".
#
# $AGENTTASK is the binary under test (ctest sets it).

set -u
AT=${AGENTTASK:?AGENTTASK must name the agenttask binary}
export GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Test Author" GIT_AUTHOR_EMAIL="author@example.com"
export GIT_COMMITTER_NAME="Test Author" GIT_COMMITTER_EMAIL="author@example.com"
export LC_ALL=C.UTF-8
unset GIT_DIR GIT_WORK_TREE

_at_root=$(mktemp -d "${TMPDIR:-/tmp}/agenttask-test.XXXXXX")
chmod 755 "$_at_root"
_at_ran=0
_at_exit() {
	local status=$?
	chmod -R u+rwX "$_at_root" 2>/dev/null
	rm -rf "$_at_root"
	# A script that never reached run_tests has tested nothing: that is a
	# failure, unless it skipped on purpose (exit 77).
	if [ "$_at_ran" = 0 ] && [ "$status" != 77 ]; then
		echo "error: $0 ended before run_tests: no test ran" >&2
		exit 1
	fi
	exit $status
}
trap _at_exit EXIT

# A sandbox suite skips (77) only where user namespaces are really
# unavailable; with CI=true that skip is a failure.
require_user_namespaces() {
	unshare -Ur true 2>/dev/null && return 0
	if [ "${CI:-}" = true ]; then
		echo "FAIL: user namespaces are unavailable, and CI=true forbids skipping"
		exit 1
	fi
	echo "skip: user namespaces are unavailable here"
	exit 77
}

fail() {
	echo "    FAIL: $*" >&2
	exit 1
}

# make_repo DIR: a repository on branch main with two commits.
make_repo() {
	local dir=$1
	git init -q -b main "$dir"
	git -C "$dir" config user.name "Repo User"
	git -C "$dir" config user.email "user@example.com"
	printf 'hello\n' >"$dir/README"
	mkdir -p "$dir/src"
	printf 'int main(void) { return 0; }\n' >"$dir/src/main.c"
	git -C "$dir" add -A
	git -C "$dir" commit -q -m "initial"
	printf 'line two\n' >>"$dir/README"
	git -C "$dir" commit -q -am "second"
}

# set_policy JSON: commit .agenttask/policy.json on main of ./repo.
set_policy() {
	mkdir -p repo/.agenttask
	printf '%s\n' "$1" >repo/.agenttask/policy.json
	git -C repo add .agenttask/policy.json
	git -C repo commit -q -m "policy"
}

# at ARGS...: run agenttask; stdout in $out, stderr in $errout, status in $rc.
at() {
	local o e
	o=$(mktemp "$_at_root/out.XXXXXX")
	e=$(mktemp "$_at_root/err.XXXXXX")
	set +e
	"$AT" "$@" >"$o" 2>"$e"
	rc=$?
	set -e
	out=$(cat "$o")
	errout=$(cat "$e")
	rm -f "$o" "$e"
}

# expect_rc N DESCRIPTION ARGS...: agenttask ARGS must exit with status N.
expect_rc() {
	local want=$1 what=$2
	shift 2
	at "$@"
	if [ "$rc" != "$want" ]; then
		echo "    stdout: $out" >&2
		echo "    stderr: $errout" >&2
		fail "$what: 'agenttask $*' exited $rc, expected $want"
	fi
}

# ok DESCRIPTION ARGS...: agenttask ARGS must succeed.
ok() {
	local what=$1
	shift
	expect_rc 0 "$what" "$@"
}

assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

assert_contains() {
	case "$1" in
	*"$2"*) ;;
	*) fail "$3: '$2' not found in: $1" ;;
	esac
}

assert_not_contains() {
	case "$1" in
	*"$2"*) fail "$3: '$2' unexpectedly found in: $1" ;;
	*) ;;
	esac
}

assert_file() {
	[ -e "$1" ] || [ -L "$1" ] || fail "$2: '$1' does not exist"
}

assert_no_file() {
	if [ -e "$1" ] || [ -L "$1" ]; then fail "$2: '$1' exists"; fi
}

# The repository must be consistent by git's own judgement.
assert_fsck() {
	git -C "$1" fsck --no-progress >/dev/null 2>&1 || fail "git fsck failed in '$1'"
}

# json_get JSON EXPR: evaluate a Python expression on the parsed value `j`.
json_get() {
	python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

run_tests() {
	local t passed=0 failed=0 skipped=0 status
	_at_ran=1
	for t in $(declare -F | awk '{print $3}' | grep '^test_'); do
		local dir t0=$SECONDS
		dir=$(mktemp -d "$_at_root/$t.XXXXXX")
		(
			cd "$dir" || exit 1
			set -e
			"$t"
		) >"$dir.log" 2>&1
		status=$?
		# AT_TEST_TIMES=1 (check-vm): how long each test took, to see where a slow machine's time goes.
		[ -z "${AT_TEST_TIMES:-}" ] || echo "time $t $((SECONDS - t0))s"
		if [ $status -eq 0 ]; then
			passed=$((passed + 1))
			echo "ok   $t"
		elif [ $status -eq 77 ]; then
			skipped=$((skipped + 1))
			echo "skip $t"
			sed 's/^/    /' "$dir.log"
		else
			failed=$((failed + 1))
			echo "FAIL $t"
			sed 's/^/    /' "$dir.log"
		fi
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ]
}
