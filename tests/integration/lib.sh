# lib.sh - shared helpers for the integration tests.
#
# A test script defines functions named test_*, sources this file, and ends
# with `run_tests`. Each test runs in a subshell of its own, in a fresh
# temporary directory, with `set -e`: any failing command or assertion fails
# that test alone. The last line printed is "N passed, N failed".
# AT_ONLY=REGEX runs only the tests whose names match.
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
# New tasks' worktrees go in the user's data directory (core/task.h): each
# test's own (run_tests), never the real one.
export XDG_DATA_HOME="$_at_root/.data"
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

# skip WHY: the subject of this test is missing on this machine (a kernel
# feature, a tool, an identity, a mechanism): say so and end the test with
# 77, which run_tests counts as skipped, never as passed. A test never
# `return 0`s on a missing precondition.
skip() {
	echo "skip: $*"
	exit 77
}

# skip_suite WHY: the whole script cannot run here. It skips (77), except
# with CI=true, where a sandbox or network suite that cannot run is a
# failure: CI's machines have what they need.
skip_suite() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* (CI=true forbids skipping)"
		exit 1
	fi
	skip "$@"
}

# A sandbox suite skips only where user namespaces are really unavailable.
require_user_namespaces() {
	unshare -Ur true 2>/dev/null || skip_suite "user namespaces are unavailable here"
}

# wt_home REPO: where new tasks' worktrees of REPO go (git/wtplace.c): the
# data directory's agenttask/worktrees/<name>-<hash of the git common dir>.
wt_home() {
	local common
	common=$(cd "$(git -C "$1" rev-parse --path-format=absolute --git-common-dir)" && pwd -P)
	python3 - "$common" "$XDG_DATA_HOME" <<'PY'
import os, sys
common, data = sys.argv[1], sys.argv[2]
d = common[:-5] if common.endswith("/.git") else common[:-4] if len(common) > 4 and common.endswith(".git") else common
h = 0xcbf29ce484222325
for b in common.encode():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
print("%s/agenttask/worktrees/%s-%012x" % (data, os.path.basename(d), h >> 16))
PY
}

# wait_until SECONDS COMMAND...: poll until COMMAND succeeds, for at most
# SECONDS (times AT_TEST_TIME_SCALE, on a slow machine): a test waits for
# the event it needs, never for a fixed time. Fails (1) at the deadline.
wait_until() {
	local n=$(($1 * ${AT_TEST_TIME_SCALE:-1} * 20))
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.05
	done
}

# no_process PATTERN: no process's command line matches PATTERN.
no_process() {
	! pgrep -f "$1" >/dev/null
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

# overlayfs in a user namespace (userxattr, Linux 5.11): a layered run needs
# it; skips the test where it cannot be mounted.
require_overlay() {
	local d
	d=$(mktemp -d "$_at_root/ovl.XXXXXX")
	mkdir "$d/l" "$d/u" "$d/w" "$d/m"
	unshare -Urm sh -c "mount -t overlay -o lowerdir=$d/l,upperdir=$d/u,workdir=$d/w,userxattr \
		none $d/m" 2>/dev/null || skip "overlayfs cannot be mounted in a user namespace here"
}

# agenttask's state directory of ./repo (the bases, layers, tasks, ...).
repo_state() {
	echo "$(git -C repo rev-parse --path-format=absolute --git-common-dir)/agenttask"
}

# The form of the tasks `new` makes in this run of the suite: layered when
# AGENTTASK_TEST_FORM=layered (ctest's layered.* tests), else full. A test
# that checks something only one form has asks layered_form.
layered_form() {
	[ "${AGENTTASK_TEST_FORM:-}" = layered ]
}

# agent_sh [-C DIR] TASK SCRIPT [ARGS...]: what the agent does, SCRIPT run by
# sh in TASK's sandbox (`run`, from the worktree's top; ARGS are its $1...):
# the way a test changes a task's files as its agent would, on either form
# (a layered task's files exist on the host only once `path` made it full).
# DIR defaults to repo. The run must succeed; its output is in $out.
agent_sh() {
	local dir=repo
	if [ "$1" = -C ]; then
		dir=$2
		shift 2
	fi
	local task=$1 script=$2
	shift 2
	ok "the agent's script in '$task'" -C "$dir" run "$task" -- sh -c "$script" agent "$@"
}

# task_path [-C DIR] TASK: the task's worktree on the host into $out, as a
# person opening it in an editor gets it (`path`: a layered task is made
# full then, so a test that plays the agent uses agent_sh instead).
task_path() {
	local dir=repo
	if [ "$1" = -C ]; then
		dir=$2
		shift 2
	fi
	ok "path of '$1'" -C "$dir" path "$1"
}

# state_tree [-C DIR] TASK: print the tree of TASK's full state, its files as
# `git add -A` stages them on a copy of its index (its time kept, so that git
# still sees a racily clean entry as one), by git's own reckoning in
# TASK's sandbox (agent_sh: on either form, a layered task left layered),
# and copy that tree's objects into DIR's repository (a pack through the
# run's output) so that the host's git can read it (an oracle's diff or
# apply). DIR defaults to repo.
state_tree() {
	local dir=repo
	if [ "$1" = -C ]; then
		dir=$2
		shift 2
	fi
	agent_sh -C "$dir" "$1" 'set -e
		idx=$(mktemp)
		cp -p "$(git rev-parse --git-path index)" "$idx"
		t=$(GIT_INDEX_FILE=$idx git add -A && GIT_INDEX_FILE=$idx git write-tree)
		rm -f "$idx"
		echo "$t"
		git rev-list --objects "$t" | git pack-objects -q --stdout | base64 -w0'
	printf '%s' "${out#*$'\n'}" | base64 -d | git -C "$dir" unpack-objects -q
	echo "${out%%$'\n'*}"
}

assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

# assert_empty DESCRIPTION COMMAND...: COMMAND must succeed and print nothing.
# (assert_eq "$(probe)" "" would pass when the probe itself fails: a wrong
# path, a missing repository. This does not.)
assert_empty() {
	local what=$1 o status
	shift
	set +e
	o=$("$@")
	status=$?
	set -e
	[ $status -eq 0 ] || fail "$what: '$*' failed (exit $status)"
	[ -z "$o" ] || fail "$what: expected no output from '$*', got: $o"
}

# assert_no_output TEXT DESCRIPTION: TEXT, what agenttask printed on one
# stream (its $out or $errout, its exit status already checked by ok or
# expect_rc), must be nothing. For a probe of the test's own, assert_empty,
# which also fails when the probe does.
assert_no_output() {
	[ -z "$1" ] || fail "$2: expected no output, got: $1"
}

# assert_exit N DESCRIPTION COMMAND...: COMMAND must exit N and print nothing.
assert_exit() {
	local want=$1 what=$2 o status
	shift 2
	set +e
	o=$("$@")
	status=$?
	set -e
	[ $status -eq "$want" ] || fail "$what: '$*' exited $status, expected $want"
	[ -z "$o" ] || fail "$what: expected no output from '$*', got: $o"
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
	# AT_ONLY=REGEX runs the tests whose names match it (for a quick loop).
	for t in $(declare -F | awk '{print $3}' | grep '^test_' | grep -E -- "${AT_ONLY:-.}"); do
		local dir t0=$SECONDS
		dir=$(mktemp -d "$_at_root/$t.XXXXXX")
		(
			cd "$dir" || exit 1
			export XDG_DATA_HOME="$dir/.data"
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
