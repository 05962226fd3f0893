#!/usr/bin/env bash
# Removing a task's worktree while something of the task may still run in it
# (issue 8, hole 6): the remover never acts through a name that can be
# swapped, removes a tree of any depth with few descriptors, and gc goes on
# past a failure. The live runs themselves (refused, or killed with --force)
# are in sandbox_run.sh, which runs as root and as an ordinary user.
. "$(dirname "$0")/lib.sh"

SWAPPER=${AT_TEST_SWAPPER:?AT_TEST_SWAPPER must name the built at-test-swapper}

# victims DIR N TARGET: N pairs vK (a directory the remover must make
# writable: mode 6555, so setuid and setgid too) and lK (a symbolic link to
# TARGET), and 300 plain files to make the removal take a while.
victims() {
	local dir=$1 n=$2 target=$3 k
	mkdir -p "$dir"
	for k in $(seq 1 "$n"); do
		mkdir "$dir/v$k"
		echo x >"$dir/v$k/inside"
		chmod 6555 "$dir/v$k"
		ln -s "$target" "$dir/l$k"
	done
	(cd "$dir" && seq 1 300 | xargs touch)
}

# start_swapper DIR: the attacker, exchanging each vK with its lK.
start_swapper() {
	rm -f ready
	"$SWAPPER" "$1" "$PWD/ready" &
	SWAPPER_PID=$!
	while [ ! -e ready ]; do
		kill -0 $SWAPPER_PID 2>/dev/null || fail "the swapper did not start"
		sleep 0.01
	done
}

stop_swapper() {
	kill $SWAPPER_PID 2>/dev/null || true
	wait $SWAPPER_PID 2>/dev/null || true
}

test_discard_while_a_process_swaps_directories_for_links_never_touches_the_host() {
	# What: a process of the task that survived exchanges, in a tight loop,
	# directories of the worktree with symbolic links to a host file (root's,
	# when the tests run as root) while discard removes the worktree; 30
	# times (the old remover lost within 20 four times in five). It is a host process here: a sandboxed one is killed before any
	# removal (sandbox_run.sh). The old remover chmod'ed each directory by
	# name and turned the host file setuid and setgid (mode 6755).
	# Must: the host file keeps its mode and bytes every time; the worktree
	# goes (what a remover gives up on is left for gc, which removes it).
	local i w
	make_repo repo
	echo host >host
	for i in $(seq 1 30); do
		chmod 0644 host
		ok "new ($i)" -C repo new t
		task_path t    # a host process works in the worktree (a layered task's made full)
		w=$out
		victims "$w/sub" 32 "$PWD/host"
		start_swapper "$w/sub"
		at -C repo discard --force t
		stop_swapper
		assert_eq "$(stat -c %a host)" 644 "the host file's mode after discard $i"
		assert_eq "$(cat host)" host "the host file after discard $i"
		[ "$rc" = 0 ] || echo "discard $i: $errout" >&2
		"$AT" -C repo list | grep -q '^t ' && ok "discard again" -C repo discard --force t
		ok "gc" -C repo gc
		assert_empty "nothing left after discard $i" ls -A "$(wt_home repo)"
	done
}

# DEEP: a python3 program, DIR N its arguments: a chain of N directories
# below DIR, deeper than a path can name.
DEEP='
import os, sys
os.chdir(sys.argv[1])
for i in range(int(sys.argv[2])):
    os.mkdir("dddddddd")
    os.chdir("dddddddd")
open("bottom", "w").write("x")
'

test_discard_removes_a_tree_1100_levels_deep_under_ulimit_n_1024() {
	# What: the agent leaves a chain of 1,100 directories, 9,900 bytes of
	# path, so that the task cannot be removed: the old remover held one
	# descriptor per level and failed with EMFILE under `ulimit -n 1024`.
	# Must: discard removes it (the worktree, or a layered task's layer),
	# with that limit. (--force: git cannot record a tree that deep, so only
	# the commits go to the trash.)
	local w
	make_repo repo
	ok "new" -C repo new t
	w=$out
	agent_sh t 'python3 -c "$1" . 1100' "$DEEP"
	at_rc=$(ulimit -n 1024 && at -C repo discard --force t && echo "$rc:$errout")
	case "$at_rc" in
	0:*) ;;
	*) fail "discard under ulimit -n 1024: $at_rc" ;;
	esac
	assert_no_file "$w" "the worktree"
	assert_no_file "$(git -C repo rev-parse --absolute-git-dir)/agenttask/layers/t" "the layer"
	# (a layered task made no directory there)
	if ! layered_form || [ -d "$(wt_home repo)" ]; then
		assert_empty "nothing left for gc" ls -A "$(wt_home repo)"
	fi
}

# in_mount_ns CMD...: CMD in a mount namespace of its own (root in a user
# namespace too when not root), where the test may mount a tmpfs.
in_mount_ns() {
	if [ "$(id -u)" = 0 ]; then unshare -m "$@"; else unshare -rm "$@"; fi
}

test_gc_goes_on_past_a_failure_and_reports_each() {
	# What: two things gc cannot remove (a file system mounted in a stray
	# worktree directory, and in the admin directory of a task whose
	# worktree is gone) among two it can. The old gc stopped at the first.
	# Must: each failure is one line on stderr naming its path, everything
	# else is removed and reported, the exit status is 1; once the mounts
	# are gone, gc finishes the work.
	local wa wb common
	in_mount_ns true 2>/dev/null || return 77
	make_repo repo
	common=$(git -C repo rev-parse --path-format=absolute --git-common-dir)
	ok "new a" -C repo new a
	task_path a    # the worktrees removed by hand (a layered task's made full first)
	wa=$out
	ok "new b" -C repo new b
	task_path b
	wb=$out
	rm -rf "$wa" "$wb"
	mkdir -p "$common/agenttask/worktrees/stray1/m" "$common/agenttask/worktrees/stray2/d"
	mkdir "$common/worktrees/agenttask-a/m"
	in_mount_ns sh -c '
		mount -t tmpfs none "$1/agenttask/worktrees/stray1/m" &&
		mount -t tmpfs none "$1/worktrees/agenttask-a/m" &&
		exec "$2" -C repo gc' sh "$common" "$AT" >gc.out 2>gc.err && fail "gc exited 0"
	assert_eq "$(wc -l <gc.err)" 2 "one line per failure: $(cat gc.err)"
	assert_contains "$(cat gc.err)" "stray1" "the stray directory's failure"
	assert_contains "$(cat gc.err)" "agenttask-a" "the task's failure"
	assert_contains "$(cat gc.out)" "removed task 'b'" "the other task"
	assert_contains "$(cat gc.out)" "stray2" "the other stray directory"
	assert_no_file "$common/agenttask/worktrees/stray2" "the other stray directory"
	ok "gc once the mounts are gone" -C repo gc
	assert_contains "$out" "removed task 'a'" "the task"
	assert_no_file "$common/agenttask/worktrees/stray1" "the stray directory"
	assert_empty "no task left" "$AT" -C repo list
}

run_tests
