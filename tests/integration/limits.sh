#!/usr/bin/env bash
# agenttask run's limits: --memory, --pids, --cpus, the defaults, a fork bomb
# contained without a flag, and the reason a run was stopped.
#
# Each test expects the mechanism this machine offers (`mechanism` below):
# here (cgroup v1 hierarchies, no systemd) cgroup v1 as root and rlimits as
# an ordinary user (limits_user.sh); in the Debian 12 test machine (make
# check-vm) a systemd scope, as uid 1000 and as root. A test of a mechanism
# the machine lacks says so and passes: the VM and this machine together
# run them all.
. "$(dirname "$0")/lib.sh"

require_user_namespaces

ME=$(id -u)
# A slow machine (the VM's software emulation) gives its runs longer.
SCALE=${AT_TEST_TIME_SCALE:-1}
V2=false
[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && V2=true
SYSTEMD=false
[ -d /run/systemd/system ] && SYSTEMD=true

# The mechanism that holds the tree-wide limits of a run started from here.
mechanism() {
	if $V2 && $SYSTEMD; then
		echo systemd-scope
	elif ! $V2 && [ "$ME" = 0 ] && [ -w /sys/fs/cgroup/pids ]; then
		echo cgroup-v1
	else
		echo rlimit
	fi
}
MECH=$(mechanism)
cgroup() { [ "$MECH" != rlimit ]; }

# lt_task: a task t1, and $SIG, a directory of the test's through which it
# signals a run that waits for it (shown to the run with --ro "$SIG": a
# layered task's files exist on the host only inside its runs).
lt_task() {
	make_repo repo
	ok "new t1" -C repo new t1
	SIG=$PWD/sig
	mkdir -p "$SIG"
}

lrun() {
	at -C repo run t1 "$@"
}

# Every cgroup a run of this user made (v1 dirs, v2 scopes and subtrees),
# anywhere.
run_cgroups() {
	find /sys/fs/cgroup -maxdepth 8 -type d -user "$ME" \( -name 'agenttask-[0-9]*' -o -name 'agenttask-run-*' \) 2>/dev/null
}

# Those whose agenttask is gone: left behind. Other suites run beside this
# one (ctest -j2; other jobs on a shared machine), and a killed run of
# theirs leaves its cgroup until some next run sweeps it. So a v1 cgroup
# counts only directly below this shell's own (where our runs make theirs),
# and what is found is judged after one sweep of our own (doctor makes the
# cgroup a run would, sweeping dead runs' empty ones first): what a sweep
# cannot remove is left behind.
run_cgroups_left() {
	[ -n "$(dead_run_cgroups)" ] || return 0
	"$AT" doctor >/dev/null 2>&1 || true
	dead_run_cgroups
}

# left_why DIR...: what holds each left cgroup, for the failure's message:
# its processes, its events, and the scope's state as its manager sees it.
left_why() {
	local d mgr=--user
	[ "$ME" = 0 ] && mgr=--system
	for d in "$@"; do
		echo "$d: procs [$(tr '\n' ' ' <"$d/cgroup.procs" 2>&1)]" \
			"events [$(tr '\n' ' ' <"$d/cgroup.events" 2>&1)]" \
			"children [$(find "$d" -mindepth 1 -maxdepth 1 -type d -printf '%f ' 2>&1)]"
		ps -o pid=,ppid=,stat=,wchan:20=,args= -p "$(paste -sd, "$d/cgroup.procs" 2>/dev/null)" 2>/dev/null
		case "$d" in
		*.scope) systemctl $mgr show -p ActiveState,SubState,Result "${d##*/}" 2>&1 | tr '\n' ' ' ;;
		esac
	done
}

# run_cgroup_of PID: the cgroup of the run whose agenttask is PID, once it
# appears (up to 10 s); fails the test if it does not.
run_cgroup_of() {
	wait_until 30 run_has_cgroup "$1" || fail "no cgroup for the run"
	run_cgroups | grep -e "-$1-" -e "agenttask-$1-" | head -1
}

run_has_cgroup() {
	run_cgroups | grep -q -e "-$1-" -e "agenttask-$1-"
}

# run_cgroups_empty PID: every cgroup of the run whose agenttask was PID
# holds no process.
run_cgroups_empty() {
	local d
	for d in $(run_cgroups | grep -e "-$1-" -e "agenttask-$1-"); do
		[ -z "$(cat "$d/cgroup.procs" 2>/dev/null)" ] || return 1
	done
}

no_dead_run_cgroups() {
	[ -z "$(dead_run_cgroups)" ]
}

dead_run_cgroups() {
	local d pid
	for d in $(run_cgroups); do
		ours "$d" || continue
		pid=${d##*/agenttask-}
		pid=${pid#run-}
		pid=${pid%%-*}
		# /proc, not kill -0: another user's live agenttask is not gone.
		[ -d "/proc/$pid" ] || echo "$d"
	done
}

# ours DIR: a v2 cgroup, or a v1 one directly below this shell's cgroup in
# its hierarchy.
ours() {
	local h path
	$V2 && return 0
	while IFS=: read -r _ h path; do
		[ "${1%/*}" = "/sys/fs/cgroup/${h#name=}${path%/}" ] && return 0
	done </proc/self/cgroup
	return 1
}

test_defaults_apply_to_every_run() {
	# What: a run without a single limit flag. Must: pids 4096 and memory
	# (half of RAM) applied, shown as defaults, by this machine's mechanism;
	# --no-limits lifts them.
	lt_task
	lrun -v -- true
	assert_eq "$rc" 0 "run"
	assert_contains "$errout" "limit pids=4096 (default) enforced by" "pids default"
	local half
	half=$(python3 -c 'import os; print(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 100 * 50)')
	if cgroup; then
		assert_contains "$errout" "limit memory=$half (default) enforced by $MECH" "memory default"
		assert_contains "$errout" "pids=4096 (default) enforced by $MECH" "pids mechanism"
	else
		assert_contains "$errout" "limit memory=$half (default) enforced by unenforced" "memory default, not enforced"
		assert_contains "$errout" "RLIMIT_AS would break programs" "what that weakens"
	fi
	lrun --json -- true
	assert_eq "$(json_get "$out" 'j["limits"]["pids"]["value"], j["limits"]["pids"]["default"]')" "(4096, True)" "json pids default"
	lrun --json --no-limits -- true
	assert_eq "$(json_get "$out" 'sorted(j["limits"].keys())')" "[]" "--no-limits: no limit"
	lrun --json --no-limits --pids 77 -- true
	assert_eq "$(json_get "$out" 'sorted(j["limits"].keys()), j["limits"]["pids"]["default"]')" "(['pids'], False)" "--no-limits keeps what was asked"
}

test_default_memory_never_becomes_rlimit_as() {
	# What: where no cgroup holds memory, the default must not turn into
	# RLIMIT_AS (node and the JVM reserve far more address space than they
	# use). Must: the address space is unlimited inside unless --memory asks.
	lt_task
	lrun -- sh -c 'ulimit -v'
	assert_eq "$out" "unlimited" "no RLIMIT_AS by default"
	lrun --memory 2G -- sh -c 'ulimit -v'
	if cgroup; then
		assert_eq "$out" "unlimited" "a cgroup holds --memory"
	else
		assert_eq "$out" "2097152" "--memory without a cgroup: RLIMIT_AS, as asked"
	fi
}

test_a_fork_bomb_is_contained_without_any_flag() {
	# What: the classic fork bomb, with no limit flag (a --timeout only as a
	# backstop). Must: the default limit is applied, its processes never
	# exceed it (4096, and the init), forks fail there, and nothing is left
	# behind. The bomb is watched until the limit has been hit, then its run
	# is stopped, unless its shell went on and ended it first: how long that
	# shell takes among 4096 processes is the machine's speed, not the
	# limit's (bomb_watched).
	if [ "$ME" = 0 ] && ! cgroup; then
		skip "root without a pids cgroup: the pids default cannot be enforced here"
	fi
	lt_task
	bomb_watched $((300 * SCALE))
	wait_until 10 no_process "bomb-$ME-$$" || fail "processes of the bomb are left"
	if cgroup; then
		# The reason, with a bomb that hits the limit by construction: it
		# forks until a fork fails, however slow the machine, then exits 3.
		forker
		lrun --json --timeout $((120 * SCALE)) --ro "$PWD/bin" -- "$PWD/bin/forker"
		assert_eq "$(json_get "$out" 'j["exit_code"], j["reason"]')" "(3, 'pids')" "reason pids"
	fi
	local left
	left=$(run_cgroups_left)
	[ -z "$left" ] || fail "cgroups left: $(left_why $left)"
}

# bomb_watched TIMEOUT: the bomb in the background, sampled each half second:
# with a cgroup, its pids.current (at most 4096 + the init); without one
# (RLIMIT_NPROC), the count of its processes (at most 4096, which the limit
# is). It has hit the limit once it has been seen at 4000 or more, or once a
# cgroup of the run counts refused forks in its pids.events ("max N": Linux
# 6.1 counts a refused fork in the forking task's own cgroup, so every
# cgroup of the run is read). On a quick machine the whole bomb rises and
# falls between two samples (seen in CI: at most 4 tasks sampled); its
# refused forks stay counted while its shell sleeps. Once hit and a few
# samples more taken, the run is stopped: SIGKILL to agenttask, which takes the whole
# sandbox with it (sandbox_run.sh's kill -9 test), where a SIGTERM would be
# passed on to the bomb's starving shell. A run that ends by itself first
# must have gone on after its forks failed ("survived").
bomb_watched() {
	# It waits for a file before it bombs, so that its cgroup is found
	# while the machine still answers: sampling it is then a read.
	"$AT" -C repo run t1 -v --timeout "$1" --ro "$SIG" -- \
		sh -c 'while [ ! -e "$1/go" ]; do sleep 0.05; done; exec 2>/dev/null; b() { b | b & }; b; sleep 3; echo survived' "bomb-$ME-$$" "$SIG" \
		>bomb.out 2>bomb.err &
	local pid=$! max=0 v f hit=false after=0 status=0 cgs="" pmax="" refused=0
	if cgroup; then
		run_cgroup_of $pid >/dev/null
		for f in $(run_cgroups | grep -e "-$pid-"); do
			[ ! -e "$f/pids.current" ] || cgs="$cgs $f"
			[ ! -e "$f/pids.max" ] || pmax=$(cat "$f/pids.max")
		done
		[ -n "$cgs" ] || fail "no pids cgroup for the run"
	fi
	touch "$SIG/go"
	while kill -0 $pid 2>/dev/null; do
		if cgroup; then
			for f in $cgs; do
				v=$(cat "$f/pids.current" 2>/dev/null || echo 0)
				[ "$v" -le "$max" ] || max=$v
				v=$(sed -n 's/^max //p' "$f/pids.events" 2>/dev/null)
				[ "${v:-0}" -le "$refused" ] || refused=$v
			done
		else
			v=$(pgrep -c -f "bomb-$ME-$$" || true)
			[ "$v" -le "$max" ] || max=$v
		fi
		[ "$max" -lt 4000 ] && [ "$refused" = 0 ] || hit=true
		if $hit; then
			after=$((after + 1))
			[ $after -lt 3 ] || kill -KILL $pid 2>/dev/null || true
		fi
		sleep 0.5
	done
	wait $pid || status=$?
	echo "the bomb held at most $max tasks sampled, $refused forks refused; the limit seen hit: $hit; exit $status"
	[ "$status" != 124 ] || fail "the bomb ran until the timeout, the limit never seen hit"
	if $hit && [ "$status" = 137 ]; then
		# Stopped here: the default, as the cgroup that enforced it had it.
		! cgroup || assert_eq "$pmax" 4097 "the default pids limit (4096, and the init)"
	else
		assert_contains "$(cat bomb.err)" "limit pids=4096 (default)" "the default applied"
		assert_contains "$(cat bomb.out)" "survived" "the shell went on after the forks failed"
	fi
	! cgroup || [ "$max" -gt 100 ] || [ "$refused" -gt 0 ] ||
		fail "the bomb was not seen in its cgroup (at most $max tasks, no fork refused)"
	[ "$max" -le 4097 ] || fail "the bomb held $max tasks: over the limit"
}

# forker: $PWD/bin/forker, a program that forks until a fork fails (each
# child waits on a pipe the parent holds), then exits 3: a bomb whose end is
# the limit itself, not a time. A run is shown it with --ro "$PWD/bin".
forker() {
	mkdir -p bin
	cat >bin/forker.c <<'EOF'
#include <unistd.h>
int main(void)
{
	int p[2];
	char c;
	if (pipe(p) != 0)
		return 1;
	for (;;) {
		pid_t pid = fork();
		if (pid < 0)
			return 3;
		if (pid == 0) {
			close(p[1]);
			_exit(read(p[0], &c, 1) < 0);
		}
	}
}
EOF
	cc -o bin/forker bin/forker.c || fail "cannot build the forker"
}

test_pids_limit() {
	# What: 40 children under --pids 10. Must: forks fail, and with a cgroup
	# the run says the pids limit stopped it (JSON reason "pids").
	lt_task
	lrun -v --pids 10 -- sh -c 'for i in $(seq 40); do sleep 5 & done; echo started'
	[ "$rc" != 0 ] || fail "40 children started under --pids 10"
	assert_contains "$errout" "pids=10 enforced by $MECH" "mechanism"
	if cgroup; then
		assert_contains "$errout" "reached its pids limit (10)" "the one-line reason"
	fi
	lrun --pids 10 -- sh -c 'for i in $(seq 8); do sleep 0.2 & done; wait; echo fine'
	assert_eq "$out" "fine" "below the limit all is well"
}

test_oom_is_reported() {
	# What: allocate 300 MB under --memory 64M. Must: with a cgroup, the
	# kernel's OOM killer stops it: exit 137, a one-line message, JSON reason
	# "oom", read from the cgroup's counters; with an rlimit, the allocation
	# fails (RLIMIT_AS) and the JSON says what that weakens.
	lt_task
	local alloc='x = bytearray(300 * 1024 * 1024); print("ALLOCATED")'
	lrun -v --memory 64M -- /usr/bin/python3 -c "$alloc"
	assert_not_contains "$out" "ALLOCATED" "no allocation"
	assert_contains "$errout" "memory=67108864 enforced by $MECH" "mechanism"
	lrun --json --memory 64M -- /usr/bin/python3 -c "$alloc"
	if cgroup; then
		assert_eq "$rc" 137 "exit status"
		assert_eq "$(json_get "$out" 'j["exit_code"], j["reason"], j["oom_kills"] >= 1')" "(137, 'oom', True)" "json"
		lrun --memory 64M -- /usr/bin/python3 -c "$alloc"
		assert_eq "$rc" 137 "exit status"
		assert_contains "$errout" "out of memory: the run reached its memory limit (64 MiB)" "message"
	else
		[ "$rc" != 0 ] || fail "allocation succeeded"
		assert_eq "$(json_get "$out" 'j["limits"]["memory"]["mechanism"], j["reason"] in ("exit", "signal")')" "('rlimit', True)" "json"
		assert_contains "$(json_get "$out" 'j["limits"]["memory"]["note"]')" "RLIMIT_AS, per process" "what it weakens"
	fi
	lrun --memory 256M -- /usr/bin/python3 -c 'x = bytearray(32 * 1024 * 1024); print("ok")'
	assert_eq "$out" "ok" "a small allocation works"
}

test_memory_limit_holds_the_whole_tree() {
	# What: two processes of 60 MB each under --memory 100M: per process
	# each is under the limit, together they are not. Must: with a cgroup,
	# the tree is stopped (137, oom); an rlimit cannot see it (documented).
	# Each takes its 60 MB in one mmap(MAP_POPULATE), faulted in by the
	# kernel, and holds it for 8 s (times the emulation's scale). Touched
	# page by page from user space instead, the second one's faults above
	# memory.high (90%) are throttled on each return to user space: it
	# crept towards memory.max by some 15 KB a second (the VM, measured),
	# so the OOM came anywhere from 8 to 76 s in, main and branch alike,
	# and after the first had exited at times (exit 1: the tree held, but
	# without the kill this test looks for).
	cgroup || skip "no cgroup here: per-process rlimits only"
	lt_task
	lrun --memory 100M --timeout $((60 * SCALE)) -- sh -c 'for i in 1 2; do /usr/bin/python3 -c "import mmap, time; m = mmap.mmap(-1, 60 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE); time.sleep('"$((8 * SCALE))"')" & done; wait; exit 1'
	assert_eq "$rc" 137 "the tree's memory is limited"
	assert_contains "$errout" "out of memory" "message"
}

test_tmpfs_is_inside_the_memory_limit() {
	# What: fill /tmp under --memory 64M. Must: /tmp is at most half the
	# limit and fills up (ENOSPC) before the memory limit is reached. Also
	# where --memory is only RLIMIT_AS (an ordinary user here, limits_user.sh;
	# issue 8's hole 11): tmpfs pages are no process's address space, so
	# without these sizes a `--memory 128M` run could keep 832 MiB in tmpfs.
	lt_task
	# HOME is a tmpfs with --fresh-home (else the task's own directory, on disk).
	lrun -v --memory 128M --fresh-home -- sh -c 'df -k /tmp /home/sandbox /dev/shm | awk "NR > 1 {s += \$2} END {print s}"'
	assert_eq "$out" "114688" "the three tmpfs together: 7/8 of 128 MiB"
	cgroup || assert_contains "$errout" "limit memory=134217728 enforced by rlimit" "the rlimit fallback"
	lrun --memory 64M --fresh-home -- sh -c 'df -k /tmp /home/sandbox /dev/shm | awk "NR > 1 {print \$2}"'
	assert_eq "$out" "32768
16384
8192" "tmpfs sizes: 1/2, 1/4, 1/8 of the limit"
	lrun --memory 64M -- sh -c 'head -c 100000000 /dev/zero > /tmp/fill; echo "write $?"; du -k /tmp/fill | cut -f1'
	assert_contains "$out" "write 1" "the write fails"
	assert_contains "$errout" "No space left on device" "ENOSPC, not the OOM killer"
	lrun -- sh -c 'df -k /tmp | awk "NR > 1 {print \$2}"'
	assert_eq "$out" "524288" "without --memory /tmp is 512 MiB"
}

test_cpus_limit() {
	# What: --cpus 0.5. Must: with a cgroup, cpu.max (v2) or cpu.cfs_quota_us
	# (v1) of the run's cgroup is set; without one, refused (125) with the reason.
	lt_task
	if ! cgroup; then
		lrun --cpus 0.5 -- true
		assert_eq "$rc" 125 "refused"
		assert_contains "$errout" "cannot enforce --cpus" "reason"
		return 0
	fi
	lrun -v --cpus 0.5 -- true
	assert_contains "$errout" "limit cpus=500 enforced by $MECH" "mechanism"
	# The run lasts until the test has read its cgroup: it waits for a file.
	"$AT" -C repo run t1 --cpus 0.5 --memory 100M --pids 50 --ro "$SIG" -- \
		sh -c 'while [ ! -e "$1/read" ]; do sleep 0.05; done' sh "$SIG" >/dev/null 2>&1 &
	local pid=$! dir
	run_cgroup_of $pid >/dev/null
	# This run's (another identity's suite may be running: check-vm), the cpu one.
	dir=$(run_cgroups | grep -e "-$pid-" | grep -v '/memory/\|/pids/' | head -1)
	[ -n "$dir" ] || fail "no cpu cgroup for the run"
	if $V2; then
		assert_eq "$(cat "$dir/cpu.max")" "50000 100000" "cpu.max"
		assert_eq "$(cat "$dir/memory.max") $(cat "$dir/memory.high") $(cat "$dir/memory.swap.max")" "104857600 94371840 0" "memory.max, memory.high at 90%, no swap"
		assert_eq "$(cat "$dir/pids.max")" "51" "pids.max (the init counts)"
	else
		assert_eq "$(cat "$dir/cpu.cfs_quota_us")" "50000" "cpu.cfs_quota_us"
	fi
	touch "$SIG/read"
	wait $pid
}

test_the_runs_cgroup_is_removed_afterwards() {
	# What: runs that end well, fail, are OOM-killed, time out. Must: no
	# cgroup of theirs (nor a systemd scope) is left.
	cgroup || skip "no cgroup for a run here ($MECH)"
	lt_task
	lrun -- true
	lrun -- sh -c 'exit 3'
	lrun --memory 32M -- /usr/bin/python3 -c 'x = bytearray(100 << 20)'
	lrun --timeout 0.5 -- sleep 5
	# A systemd scope goes once its job ends, after the run: waited for.
	wait_until 10 no_dead_run_cgroups || true
	local left
	left=$(run_cgroups_left)
	[ -z "$left" ] || fail "left behind: $(left_why $left)"
	if [ "$MECH" = systemd-scope ]; then
		local mgr=--user
		[ "$ME" = 0 ] && mgr=--system
		[ -z "$(systemctl $mgr list-units --all --plain --no-legend 'agenttask-run-*' 2>/dev/null)" ] ||
			fail "scopes left: $(systemctl $mgr list-units --all --plain --no-legend 'agenttask-run-*')"
	fi
}

test_a_killed_runs_cgroup_is_removed_by_the_next_run() {
	# What: kill -9 agenttask while its run sleeps: it cannot remove the
	# run's cgroup. Must: the sandbox dies with it, and the next run removes
	# the dead run's empty cgroup (a systemd scope goes by itself).
	cgroup || skip "no cgroup for a run here ($MECH)"
	lt_task
	"$AT" -C repo run t1 -- sleep 60 >/dev/null 2>&1 &
	local pid=$! n
	run_cgroup_of $pid >/dev/null || return 1
	kill -9 $pid
	wait $pid 2>/dev/null || true
	# The sandbox dies with it: its cgroups empty (the kernel's work, after the kill).
	wait_until 30 run_cgroups_empty $pid || fail "the killed run's processes live on"
	lrun -- true
	assert_eq "$rc" 0 "the next run"
	# That run's sweep, not doctor's (run_cgroups_left): the one under test.
	# A scope it stopped goes once systemd's job ends: waited for.
	local left
	wait_until 10 no_dead_run_cgroups || true
	left=$(dead_run_cgroups)
	[ -z "$left" ] || fail "left behind: $(left_why $left)"
}

test_a_live_runs_cgroup_survives_another_runs_sweep() {
	# What: a run starts while another run of the same user sleeps. Must:
	# the new run's sweep of dead runs' cgroups (and, under systemd, of
	# their scopes) leaves the live run's alone: its command goes on, in
	# the same cgroup.
	cgroup || skip "no cgroup for a run here ($MECH)"
	lt_task
	"$AT" -C repo run t1 -- sh -c "sleep 30; echo live-$ME-$$" >live.out 2>&1 &
	local pid=$! cg
	cg=$(run_cgroup_of $pid) || return 1
	lrun -- true
	assert_eq "$rc" 0 "the other run"
	[ -d "$cg" ] || fail "the live run's cgroup was removed: $cg"
	pgrep -f "sleep 30" >/dev/null || fail "the live run's command is gone"
	kill $pid
	wait $pid 2>/dev/null || true
}

test_v1_the_init_moves_itself_in_and_keeps_no_descriptor() {
	# What: on cgroup v1 the init writes itself into the run's cgroups
	# through tasks files the supervisor opened on the host's cgroupfs. The
	# attacker inside looks for those descriptors, in its own table and in
	# the init's, to write a process of its choice into a host cgroup.
	# Must: the command is in the run's cgroup in every hierarchy the run
	# made (memory, pids), and no descriptor of the command's or the init's
	# reaches the host's cgroupfs.
	[ "$MECH" = cgroup-v1 ] || skip "runs are not limited by cgroup v1 here ($MECH)"
	lt_task
	"$AT" -C repo run t1 -- sh -c 'for f in /proc/self/fd/* /proc/1/fd/*; do
			l=$(readlink "$f" 2>/dev/null) && echo "fd $f $l"
		done; echo 0 >/proc/1/fd/3 2>/dev/null && echo wrote-through-init-fd; sleep '"30.$$" \
		>inside.out 2>&1 &
	# The sleep's argument is this shell's pid: another suite's sleep is not it.
	local pid=$! cmd h
	wait_until 30 pgrep -xf "sleep 30.$$" >/dev/null || fail "the run's command did not start"
	cmd=$(pgrep -xf "sleep 30.$$")
	for h in memory pids; do
		grep -Eq "^[0-9]+:$h:.*/agenttask-$pid-[0-9]+\$" "/proc/$cmd/cgroup" ||
			fail "the command is not in the run's $h cgroup: $(grep ":$h:" "/proc/$cmd/cgroup")"
	done
	kill $pid
	wait $pid 2>/dev/null || true
	assert_not_contains "$(cat inside.out)" "cgroup" "a descriptor inside reaches the cgroupfs"
	assert_not_contains "$(cat inside.out)" "tasks" "a descriptor inside reaches a tasks file"
	assert_not_contains "$(cat inside.out)" "wrote-through-init-fd" "the init's descriptors"
	assert_contains "$(cat inside.out)" "fd /proc/self/fd/0" "the listing itself ran"
}

test_a_delegated_subtree_is_used_directly() {
	# What: agenttask started in a scope of its own with Delegate=yes
	# (systemd-run --scope -p Delegate=yes). Must: the run's cgroup is made in
	# that subtree (cgroup-v2), the OOM still reported, nothing left after.
	$V2 && $SYSTEMD || skip "no systemd with cgroup v2 here"
	lt_task
	local mgr=--user
	[ "$ME" = 0 ] && mgr=
	at_scoped() {
		local o e
		o=$(mktemp) e=$(mktemp)
		set +e
		systemd-run $mgr --quiet --scope -p Delegate=yes "$AT" -C repo run t1 "$@" >"$o" 2>"$e"
		rc=$?
		set -e
		out=$(cat "$o") errout=$(cat "$e")
		rm -f "$o" "$e"
	}
	at_scoped -v --pids 50 -- true
	assert_eq "$rc" 0 "run in a delegated scope"
	assert_contains "$errout" "pids=50 enforced by cgroup-v2" "the subtree is used"
	at_scoped --memory 64M -- /usr/bin/python3 -c 'x = bytearray(300 << 20)'
	assert_eq "$rc" 137 "OOM in the subtree"
	assert_contains "$errout" "out of memory" "reported"
}

# ---- the run's cgroup, as runtimes read it ----

test_the_runs_cgroup_is_shown_read_only() {
	# What: a runtime sizing itself (a JVM, Go, python) reads
	# /sys/fs/cgroup; the attacker inside tries to lift memory.max (to
	# max; on v1 memsw first, which memory.limit_in_bytes may not pass), move
	# itself (cgroup.procs), enable controllers (cgroup.subtree_control),
	# make a cgroup, reach a parent cgroup, mount a cgroup file system of
	# its own. Must: the run's own limits are what it reads (memory.max is
	# --memory, pids.max --pids + 1 for the init, cpu.max --cpus), its
	# cgroup is the namespace's root ("0::/"), every write fails and the
	# limit stays; without a cgroup of the run's own, /sys/fs/cgroup is
	# absent (the cgroup agenttask runs in is not the run's).
	lt_task
	if ! cgroup; then
		lrun --memory 300M -- sh -c 'ls -A /sys/fs/cgroup 2>&1; echo "[$(ls -A /sys/fs)]"'
		assert_contains "$out" "No such file or directory" "no cgroup shown"
		assert_contains "$out" "[]" "nothing in /sys/fs"
		return 0
	fi
	local attack='
		try() { if sh -c "$1" 2>/dev/null; then echo "WROTE: $1"; else echo "refused: $1"; fi; }
		try "$RAISE"
		try "echo \$\$ > $C/cgroup.procs"
		try "mkdir $C/escape"
		rmdir $C/escape 2>/dev/null   # made only when broken: else it would keep the cgroup of the run
		try "echo 0 > $C/../cgroup.procs"
		try "mkdir -p /tmp/cg && mount -t cgroup2 none /tmp/cg"
		try "mount -o remount,rw $C"
		echo "after: $(cat $M)"'
	if $V2; then
		lrun --memory 300M --pids 77 --cpus 1 -- sh -c '
			echo "memory.max $(cat /sys/fs/cgroup/memory.max)"
			echo "pids.max $(cat /sys/fs/cgroup/pids.max)"
			echo "cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo none)"
			echo "python $(python3 -c "print(int(open(\"/sys/fs/cgroup/memory.max\").read()))")"
			echo "self $(cat /proc/self/cgroup)"
			echo "mount $(grep " /sys/fs/cgroup " /proc/self/mountinfo | cut -d" " -f6,8)"
			M=/sys/fs/cgroup/memory.max C=/sys/fs/cgroup RAISE="echo max > /sys/fs/cgroup/memory.max"
			try() { if sh -c "$1" 2>/dev/null; then echo "WROTE: $1"; else echo "refused: $1"; fi; }
			try "echo +memory > $C/cgroup.subtree_control"
			'"$attack"
		assert_eq "$rc" 0 "run"
		assert_contains "$out" "memory.max 314572800" "memory.max is --memory"
		assert_contains "$out" "python 314572800" "python reads it"
		assert_contains "$out" "pids.max 78" "pids.max: --pids and the init"
		grep -q "cpu.max none" <<<"$out" || assert_contains "$out" "cpu.max 100000 100000" "cpu.max is --cpus"
		assert_contains "$out" "self 0::/" "the run's cgroup is the namespace's root"
		assert_contains "$out" "mount ro,nosuid,nodev,noexec,relatime cgroup2" "cgroup2, read-only"
	else
		lrun --memory 300M --pids 77 -- sh -c '
			echo "memory $(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"
			echo "pids.max $(cat /sys/fs/cgroup/pids/pids.max)"
			echo "python $(python3 -c "print(int(open(\"/sys/fs/cgroup/memory/memory.limit_in_bytes\").read()))")"
			echo "self $(grep :memory: /proc/self/cgroup)"
			echo "mount $(grep " /sys/fs/cgroup/memory " /proc/self/mountinfo | cut -d" " -f4,6,8)"
			M=/sys/fs/cgroup/memory/memory.limit_in_bytes C=/sys/fs/cgroup/memory
			RAISE="echo -1 > $C/memory.memsw.limit_in_bytes && echo -1 > $M"
			'"$attack"
		assert_eq "$rc" 0 "run"
		assert_contains "$out" "memory 314572800" "memory.limit_in_bytes is --memory"
		assert_contains "$out" "python 314572800" "python reads it"
		assert_contains "$out" "pids.max 78" "pids.max: --pids and the init"
		assert_contains "$out" "self 4:memory:/" "the run's cgroup is the namespace's root"
		assert_contains "$out" "mount / ro,nosuid,nodev,noexec,relatime cgroup" "the run's cgroup, read-only"
	fi
	if grep -q "WROTE" <<<"$out"; then
		fail "a write inside succeeded: $(grep WROTE <<<"$out")"
	fi
	assert_contains "$out" "after: 314572800" "the limit is unchanged"
	[ "$(grep -c '^refused' <<<"$out")" -ge 6 ] || fail "not every attack ran: $out"
	if command -v java >/dev/null; then
		lrun --memory 300M -- java -XshowSettings:system -version
		assert_contains "$errout$out" "Memory Limit: 300.00M" "a JVM sees the run's memory"
	fi
}

test_file_size_and_cpu_reasons() {
	# What: a file over --file-size, a spin over --cpu. Must: SIGXFSZ (153)
	# with reason file-size; SIGXCPU or SIGKILL with reason cpu.
	lt_task
	lrun --json --file-size 1M -- sh -c 'head -c 2097152 /dev/zero > big'
	assert_eq "$(json_get "$out" 'j["exit_code"], j["reason"]')" "(153, 'file-size')" "file-size"
	lrun --file-size 1M -- sh -c 'head -c 2097152 /dev/zero > big'
	assert_contains "$errout" "file-size limit (1048576 bytes)" "message"
	lrun --json --cpu 1 --timeout 30 -- sh -c 'while :; do :; done'
	assert_eq "$(json_get "$out" 'j["reason"]')" "cpu" "cpu"
	case "$(json_get "$out" 'j["exit_code"]')" in 152 | 137) ;; *) fail "exit $out" ;; esac
}

test_pids_as_root_without_a_cgroup_is_refused() {
	# What: --pids asked for as root where no pids cgroup exists (RLIMIT_NPROC
	# does not bind root). Must: 125 with the reason, never silently unenforced.
	[ "$ME" = 0 ] && ! cgroup || skip "only for root without a cgroup ($MECH as uid $ME here)"
	lt_task
	lrun --pids 5 -- true
	assert_eq "$rc" 125 "refused"
	assert_contains "$errout" "RLIMIT_NPROC does not bind root" "reason"
}

# ---- doctor ----

test_doctor_says_what_works_here() {
	# What: agenttask doctor, outside any repository. Must: exit 0 (the
	# sandbox works here), every check named, the cgroup check agreeing
	# with the mechanism a run gets, a fix wherever something falls back.
	cd /
	expect_rc 0 "doctor" doctor --json
	assert_eq "$(json_get "$out" 'j["can_sandbox"], [c["check"] for c in j["checks"]]')" "(True, ['userns', 'overlayfs', 'cgroups', 'seccomp', 'openat2', 'mount_api', 'mount_setattr'])" "checks"
	assert_eq "$(json_get "$out" 'all(c["state"] != "fail" for c in j["checks"]) and all(c["fix"] for c in j["checks"] if c["state"] != "ok")')" "True" "a fix for each fallback"
	local cg
	cg=$(json_get "$out" '[c["state"] + " " + c["detail"] for c in j["checks"] if c["check"] == "cgroups"][0]')
	if cgroup; then
		assert_contains "$cg" "ok a run's limits hold its whole tree: $MECH" "cgroup check"
	else
		assert_contains "$cg" "fallback" "cgroup check"
	fi
	expect_rc 0 "doctor text" doctor
	assert_contains "$out" "agenttask can sandbox on this machine" "summary line"
	local left
	left=$(dead_run_cgroups)
	[ -z "$left" ] || fail "doctor left a cgroup: $left"
}

test_doctor_fails_without_user_namespaces() {
	# What: doctor where user namespaces are disabled (user.max_user_namespaces=0
	# in a namespace of our own). Must: exit 1, the user namespace check
	# failed with the sysctl and its fix named.
	unshare -Ur sh -c "echo 0 > /proc/sys/user/max_user_namespaces && exec '$AT' doctor --json" >out.json 2>err.txt && rc=0 || rc=$?
	assert_eq "$rc" 1 "exit status"
	out=$(cat out.json)
	assert_eq "$(json_get "$out" 'j["can_sandbox"], j["checks"][0]["state"]')" "(False, 'fail')" "userns fails"
	assert_contains "$(json_get "$out" 'j["checks"][0]["detail"] + j["checks"][0]["fix"]')" "user.max_user_namespaces=0" "the sysctl named"
}

run_tests
