#!/usr/bin/env bash
# agenttask run: the command's stdio (issue 8, hole 8), the user's terminal
# (hole 9, issue 12 §6) and what it learns of who and where it is (hole 10).
#
# Run as whoever runs ctest (root here) and again as uid 65534 by
# sandbox_user.sh (SB_SCRIPT=sandbox_holes.sh). Skips only when user
# namespaces are really unavailable; with CI=true that skip is a failure.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

require_user_namespaces

ME=$(id -u)
TAG=$((900000 + RANDOM % 90000))$ME

sb_task() {
	make_repo repo
	ok "new t1" -C repo new t1
}

# raw ARGS...: agenttask -C repo run t1 ARGS with the caller's redirections
# (at() would put its own files on stdout and stderr); $rc.
raw() {
	set +e
	"$AT" -C repo run t1 "$@"
	rc=$?
	set -e
}

# ---- hole 8: a file or directory as stdio is never handed over ----

test_stdin_file_cannot_be_rewritten() {
	# What: `run < notes` with a file the user may write, opened read-only
	# for the command; it reopens fd 0 for writing through /proc/self/fd/0.
	# Must: the file is unchanged; the command still reads all of it.
	sb_task
	printf 'line one\nline two\n' >notes
	raw -- sh -c 'cat; echo pwned >/proc/self/fd/0; echo pwned 2>/dev/null >>/dev/stdin;
		      exec 3<>/proc/self/fd/0 && echo pwned >&3' <notes >out 2>err
	assert_eq "$(cat notes)" "line one
line two" "the stdin file is untouched"
	assert_eq "$(head -2 out)" "line one
line two" "the command read its stdin"
	raw -- sh -c 'ls -l /proc/self/fd/0' <notes >out
	assert_contains "$(cat out)" "pipe:" "stdin is a pipe"
}

test_a_stdin_file_keeps_what_the_command_did_not_read() {
	# What: the copy of a stdin file through a pipe must not cost the
	# caller the rest of it: `while read f; do agenttask run ...; done <list`
	# and `{ run -- sh -c read; cat; } <file` share one offset with run.
	# Must: a command that reads nothing leaves the offset where it was;
	# one that reads a line from the pipe moves it past that line only.
	sb_task
	printf 'a\nb\nc\n' >list
	: >seen
	while read -r l; do
		echo "$l" >>seen
		raw -- true
	done <list
	assert_eq "$(cat seen)" "a
b
c" "the loop read its whole list"
	printf 'l1\nl2\nl3\n' >f
	{ raw -- sh -c 'read -r x; echo "inner $x"'; cat; } <f >out
	assert_eq "$(cat out)" "inner l1
l2
l3" "the offset follows what the command read"
}

test_append_only_log_cannot_be_truncated() {
	# What: `run >>log` (O_APPEND); the command reopens fd 1 and fd 2 with
	# O_TRUNC (`: >/proc/self/fd/1`), or writes at offset 0 of a reopened
	# one (dd conv=notrunc).
	# Must: what the log held is still there, the command's output follows it.
	sb_task
	echo "earlier entry $TAG" >log
	raw -- sh -c ': >/proc/self/fd/1; : >/proc/self/fd/2;
		      echo XX | dd of=/proc/self/fd/1 conv=notrunc 2>/dev/null; echo new' >>log 2>>log
	assert_eq "$(head -1 log)" "earlier entry $TAG" "the log was not truncated"
	assert_contains "$(cat log)" "new" "the output was appended"
}

test_directory_as_stdin_cannot_be_walked() {
	# What: `run < dir` with a directory the sandbox does not show; the
	# command lists and reads it through /proc/self/fd/0.
	# Must: it sees nothing of the directory.
	sb_task
	mkdir -p private
	echo "secret $TAG" >private/secret.txt
	raw -- sh -c 'ls -a /proc/self/fd/0/ 2>/dev/null; cat /proc/self/fd/0/secret.txt 2>/dev/null;
		      cat; find /proc/self/fd/0/ 2>/dev/null' <private >out
	assert_not_contains "$(cat out)" "secret.txt" "the directory's entries"
	assert_not_contains "$(cat out)" "$TAG" "the directory's files"
}

test_output_to_files_is_byte_exact_and_ordered() {
	# Must: bytes out equal bytes in (50 MB, every byte value), stdout and
	# stderr to one file (2>&1) keep their order exactly, the exit status
	# and EOF come through, nothing deadlocks when both streams are large.
	sb_task
	head -c 50000000 /dev/urandom >big
	raw -- cat <big >copy
	assert_eq "$rc" 0 "cat exited 0"
	cmp -s big copy || fail "50 MB through stdin and stdout differ"
	raw -- sh -c 'i=0; while [ $i -lt 5000 ]; do echo "out $i"; echo "err $i" >&2;
		      i=$((i+1)); done; exit 5' >both 2>&1
	assert_eq "$rc" 5 "the exit status"
	seq 0 4999 | awk '{print "out " $1; print "err " $1}' >want
	cmp -s both want || fail "2>&1 lost the order of stdout and stderr"
	raw -- sh -c 'head -c 30000000 /dev/zero; head -c 30000000 /dev/zero >&2 &
		      head -c 30000000 /dev/zero; wait' >o 2>e
	assert_eq "$(stat -c %s o) $(stat -c %s e)" "60000000 30000000" "large outputs, both streams"
	raw -- wc -c <big >count
	assert_eq "$(cat count)" "50000000" "EOF on stdin reaches the command"
	raw -- head -c 5 <big >five
	assert_eq "$rc" 0 "a command that reads only part of stdin"
	assert_eq "$(stat -c %s five)" 5 "and its output"
}

test_copying_does_not_spin() {
	# What: a command that neither reads stdin (/dev/zero, endless) nor
	# writes, given files and devices; and one that is timed out.
	# Must: agenttask uses next to no CPU while it waits.
	sb_task
	local t
	TIMEFORMAT=%U+%S
	t=$({ time raw -- sleep 1.5 </dev/zero >out 2>err; } 2>&1)
	assert_eq "$rc" 0 "sleep exited 0"
	python3 -c "import sys; sys.exit(0 if eval('$t') < 0.5 else 1)" ||
		fail "agenttask spent ${t}s of CPU waiting for a 1.5 s sleep"
	raw --timeout 1 -- sleep 30 </dev/zero >out 2>err
	assert_eq "$rc" 124 "the timeout still applies"
}

test_pipes_sockets_and_null_are_passed_as_they_are() {
	# Must: a pipe is still the caller's pipe (no copy), /dev/null is the
	# sandbox's own; SIGPIPE to a closed pipe reaches the command as before.
	sb_task
	out=$(echo hi | "$AT" -C repo run t1 -- sh -c 'cat; readlink /proc/self/fd/1' | cat)
	assert_contains "$out" "hi" "stdin through a pipe"
	raw -- sh -c 'readlink /proc/self/fd/0' </dev/null >out
	assert_eq "$(cat out)" "/dev/null" "/dev/null stays /dev/null"
	set +e
	"$AT" -C repo run t1 -- yes | head -1 >/dev/null
	local st=${PIPESTATUS[0]}
	set -e
	assert_eq "$st" 141 "yes | head: the command dies of SIGPIPE"
}

# ---- hole 9 and issue 12 §6: the user's terminal ----

pty_check() {
	local st=0
	sb_task
	python3 "$here/sandbox_pty.py" "$1" "$AT" "$PWD/repo" t1 || st=$?
	[ "$st" = 77 ] && exit 77
	[ "$st" = 0 ] || fail "pty check '$1'"
}

test_interactive_run_has_a_terminal_of_its_own() {
	# What: `tty` and `stty size` inside an interactive run.
	# Must: a pty of the sandbox (/dev/pts/N), our size, and the new size
	# after SIGWINCH.
	pty_check tty
}

test_interactive_shell_has_job_control() {
	# What: ^Z to a job of the shell inside, then fg and ^C.
	# Must: the job stops, not agenttask; fg resumes it.
	pty_check jobs
}

test_terminal_is_restored_after_every_run() {
	# What: the command sets raw mode, -echo and TIOCEXCL, with and without
	# a pty, and is then timed out or kills itself.
	# Must: the terminal's termios is as before and TIOCEXCL is clear.
	pty_check termios
}

test_terminal_line_discipline_cannot_be_changed() {
	# What: a command given the terminal itself (-T) sets its line
	# discipline (TIOCSETD) to n_null, which outlives the run: the
	# person's terminal takes no more input.
	# Must: TIOCSETD is refused (EPERM); the discipline is n_tty after.
	pty_check ldisc
}

test_tty_flags() {
	# Must: -t gives a pty even with stdin a pipe, and hangs the command up
	# when the reader of its output goes; -t with --json is a usage error.
	sb_task
	out=$(echo | "$AT" -C repo run t1 -t -- tty)
	assert_contains "$out" "/dev/pts/" "-t with stdin a pipe"
	out=$(printf 'abc' | "$AT" -C repo run t1 -t -- sh -c 'cat; echo; echo END')
	assert_contains "$out" "abc" "-t relays stdin"
	assert_contains "$out" "END" "and its end"
	# A reader that goes away hangs the run up, as ssh -t does.
	set +e
	timeout 60 "$AT" -C repo run t1 -t -- yes | head -1 >/dev/null
	local st=${PIPESTATUS[0]}
	set -e
	assert_eq "$st" 129 "run -t -- yes | head: the command is hung up"
	expect_rc 2 "-t with --json" -C repo run t1 -t --json -- true
	assert_contains "$errout" "-t" "the error names -t"
}

# ---- hole 10: identity ----

test_passwd_and_group_list_only_root_nobody_and_the_user() {
	# What: the command reads /etc/passwd and /etc/group to learn the
	# machine's accounts, the user's real home and name.
	# Must: root, nobody and the invoking user only, whose home is the
	# sandbox's HOME; the real ones never shown.
	sb_task
	ok "passwd" -C repo run t1 -- sh -c 'cat /etc/passwd; echo ==; cat /etc/group; echo ==;
		id -un; echo ~'
	local passwd=${out%%==*} rest=${out#*==}
	local n
	n=$(printf '%s' "$passwd" | grep -c .)
	if [ "$ME" = 0 ] || [ "$ME" = 65534 ]; then
		assert_eq "$n" 2 "passwd lines for root and nobody"
	else
		assert_eq "$n" 3 "passwd lines for root, nobody and the user"
	fi
	assert_contains "$passwd" "root:x:0:0:" "root"
	assert_contains "$passwd" "nobody:x:65534:65534:" "nobody"
	printf '%s\n' "$passwd" | awk -F: -v u="$ME" '$3 == u && $6 != "/home/sandbox" { bad = 1 }
		END { exit bad }' || fail "the user's home is not the sandbox HOME: $passwd"
	assert_not_contains "$passwd" "daemon:" "other accounts"
	assert_not_contains "$passwd" "$HOME" "the real home"
	assert_contains "$rest" "root:x:0:" "group root"
	assert_not_contains "$rest" "sudo:" "other groups"
	assert_contains "$out" "/home/sandbox" "HOME"
}

test_boot_id_and_cmdline_are_masked() {
	# What: the command reads the host's boot id (to link runs and hosts)
	# and kernel command line.
	# Must: a boot id that is not the host's (a new one per run), an empty
	# command line.
	sb_task
	local host
	host=$(cat /proc/sys/kernel/random/boot_id)
	ok "boot_id" -C repo run t1 -- sh -c 'cat /proc/sys/kernel/random/boot_id; wc -c </proc/cmdline'
	local inside=${out%%$'\n'*}
	[ "$inside" != "$host" ] || fail "the host's boot id is shown"
	[[ "$inside" =~ ^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]] ||
		fail "boot id '$inside' is not a UUID"
	assert_eq "${out#*$'\n'}" 0 "/proc/cmdline is empty"
	ok "boot_id again" -C repo run t1 -- cat /proc/sys/kernel/random/boot_id
	[ "$out" != "$inside" ] || fail "the boot id is the same in two runs"
}

test_keyrings_are_not_shown() {
	# What: the user holds a key in their user keyring (an agent's login,
	# say); the command reads /proc/keys and /proc/key-users.
	# Must: nothing of it is shown (keyctl itself is denied by seccomp).
	sb_task
	python3 -c 'import ctypes,sys
libc = ctypes.CDLL(None, use_errno=True)
n = {"x86_64": 248, "aarch64": 217}.get(__import__("os").uname().machine)
if n is None or libc.syscall(n, b"user", sys.argv[1].encode(), b"pw", 2, -4) < 0:
    sys.exit(77)' "agenttask-test-$TAG" || skip "cannot add a key to the user keyring here"
	grep -q "agenttask-test-$TAG" /proc/keys || skip "/proc/keys does not show the user keyring here"
	ok "keys" -C repo run t1 -- sh -c 'cat /proc/keys /proc/key-users; echo END'
	assert_not_contains "$out" "agenttask-test-$TAG" "the user's key"
	assert_eq "$out" "END" "/proc/keys and /proc/key-users are empty"
}

run_tests
