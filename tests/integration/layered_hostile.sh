#!/usr/bin/env bash
# The red team of layered tasks (issue 29): what an agent plants in its
# layer (the overlay's upper, on the host's file system) for the host to
# read, copy or honour afterwards. Run by layered_hostile_user.sh as uid
# 65534 too.
#
# Each test is an attack made for real from inside the sandbox; the host's
# commands that read the upper (status, diff, path, fork) must do what they
# do for a full task of the same files, and nothing more.
. "$(dirname "$0")/lib.sh"

require_user_namespaces

# A layered task t1 of ./repo (README, src/main.c); `new --layered` whatever the suite's form.
layered_task() {
	require_overlay
	make_repo repo
	ok "new --layered" -C repo new --layered "${1:-t1}"
}

# allocated_kb FILE: the disk space FILE takes, in KiB (not its size).
allocated_kb() {
	du -k "$1" | cut -f1
}

test_path_and_fork_keep_a_sparse_file_sparse() {
	# What: the agent makes a sparse file (no disk used; 16 TB would do as
	# well as 256 MB), in its worktree and its HOME, for the host's copy to
	# write out as zeros: `path` (and so rewind, drop, fork of a layered task)
	# and fork's copy of the HOME would fill the host's disk.
	# Must: the copies are as sparse as the originals, byte for byte the same.
	layered_task
	agent_sh t1 'truncate -s 64M big && printf tail >>big &&
		truncate -s 64M "$HOME/big" && printf tail >>"$HOME/big" && du -k big | cut -f1'
	[ "$out" -lt 1024 ] || skip "this file system stores no sparse file (du says $out KiB)"
	ok "path" -C repo path t1
	local wt=$out
	assert_eq "$(stat -c %s "$wt/big")" $((64 * 1024 * 1024 + 4)) "the file's size"
	assert_eq "$(tail -c 4 "$wt/big")" "tail" "its last bytes"
	[ "$(allocated_kb "$wt/big")" -lt 1024 ] ||
		fail "path wrote the holes out: $(allocated_kb "$wt/big") KiB on disk"
	ok "fork" -C repo fork t1 t2
	local home2
	home2="$(repo_state)/homes/t2/big"
	assert_eq "$(tail -c 4 "$home2")" "tail" "the forked HOME's file"
	[ "$(allocated_kb "$home2")" -lt 1024 ] ||
		fail "fork wrote the HOME's holes out: $(allocated_kb "$home2") KiB on disk"
}

test_a_deep_tree_in_the_upper_is_made_full_as_a_full_task_holds_it() {
	# What: the agent nests 1,000 directories in its layer (a path of 2,000
	# bytes, which a full task's worktree, diff and checkpoints hold), so
	# that `path` refuses the task (it kept a descriptor or more per level,
	# and stopped at 256): the person can no longer make it full, nor
	# rewind, drop or fork it, and the message named one component.
	# Must: path makes it full, with the deep file and a link beside it (as
	# its text), with as few as 64 descriptors to spend.
	layered_task
	agent_sh t1 'i=0; while [ $i -lt 1000 ]; do mkdir d && cd d || exit 1; i=$((i+1)); done;
		echo deep >f && ln -s /etc up'
	ok "diff" -C repo diff t1 --name-only
	assert_eq "$(printf '%s\n' "$out" | wc -l)" 2 "diff names the deep file and the link"
	(ulimit -n 64 && "$AT" -C repo path t1 >/dev/null) || fail "path of the deep task failed"
	ok "path" -C repo path t1
	local deep
	deep=$(cd "$out" && find . -name f -path './d/*')
	assert_eq "$(cat "$out/$deep")" "deep" "the deep file"
	assert_eq "$(readlink "$out/${deep%/f}/up")" "/etc" "the link, as its text"
}

test_overlay_markers_the_agent_sets_are_never_honoured_by_the_host() {
	# What: the agent sets overlayfs's own attributes in its merged view,
	# user.overlay.opaque on src/ (the base's src/main.c would be hidden)
	# and user.overlay.whiteout on an emptied README (deleted), hoping the
	# host's reader of the upper takes them for the kernel's markers.
	# Must: the kernel escapes them (Linux 6.7+: user.overlay.overlay.*) or
	# refuses them; diff names README as changed, nothing deleted; path
	# keeps src/main.c and an empty README.
	layered_task
	agent_sh t1 'command -v python3 >/dev/null || { echo none; exit 0; }
		: >README && python3 -c "
import os
for path, name, value in ((\"src\", \"user.overlay.opaque\", b\"y\"),
                          (\"README\", \"user.overlay.whiteout\", b\"\"),
                          (\"src\", \"user.overlay.redirect\", b\"/d\")):
    try:
        os.setxattr(path, name, value)
    except OSError:
        pass
print(\"set\")"'
	[ "$out" != none ] || skip "no python3 to set extended attributes with"
	ok "diff" -C repo diff t1 --name-only
	assert_eq "$out" "README" "the host reads what the overlay shows"
	ok "diff" -C repo diff t1
	assert_not_contains "$out" "deleted file" "README is emptied, not deleted"
	ok "path" -C repo path t1
	assert_file "$out/src/main.c" "the base's file under the forged opaque directory"
	assert_eq "$(stat -c %s "$out/README")" 0 "README, emptied, not deleted"
}

test_no_device_and_no_link_to_the_base_from_the_sandbox() {
	# What: the agent makes a device node (a disk, /dev/null's 1:3) or a
	# whiteout of its own with mknod, and a hard link to a base file, which
	# every layered task of that tree shares, then writes through it.
	# Must: mknod is refused; the link is to the agent's own copy (the
	# overlay copies the file up first): the base and another task of the
	# same base see README unchanged.
	layered_task
	ok "second task" -C repo new --layered t2
	agent_sh t1 'mknod dev c 1 3 2>/dev/null && echo dev; mknod wo c 0 0 2>/dev/null && echo wo;
		ln README hard && echo changed >>hard && cat README'
	assert_eq "$out" "$(printf 'hello\nline two\nchanged')" "no node made; the link is the agent's copy"
	[ -z "$(find "$(repo_state)/layers/t1/upper" \( -type c -o -type b \) -print)" ] ||
		fail "a device node in the upper"
	assert_eq "$(cat "$(repo_state)"/bases/*/files/README)" "$(printf 'hello\nline two')" "the base's README"
	TASK=t2 agent_sh t2 'cat README'
	assert_eq "$out" "$(printf 'hello\nline two')" "another task's README"
}

test_path_is_refused_while_a_run_writes_the_upper() {
	# What: the agent keeps a run alive, writing into its upper, while the
	# person asks for `path`: the copy would be made from a changing upper
	# (what the run writes after it lost, or a name swapped mid-copy), and
	# the upper removed under the live overlay.
	# Must: path refuses (exit 1, one line naming the running command), the
	# task stays layered; once the run has ended, path makes it full with
	# what the run wrote.
	layered_task
	local upper pid
	upper="$(repo_state)/layers/t1/upper"
	"$AT" -C repo run t1 -- sh -c 'echo started >started; while :; do date >>clock; sleep 0.1; done' \
		>/dev/null 2>&1 &
	pid=$!
	wait_until 60 test -s "$upper/clock" || fail "the run never wrote its upper"
	expect_rc 1 "path during the run" -C repo path t1
	assert_contains "$errout" "running command" "one line naming the run"
	assert_file "$upper/started" "the layer is still there"
	kill "$pid"
	wait "$pid" || true
	ok "path once the run ended" -C repo path t1
	assert_eq "$(cat "$out/started")" "started" "what the run wrote"
}

run_tests
