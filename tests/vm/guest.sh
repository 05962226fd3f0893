#!/usr/bin/env bash
# guest.sh - inside the test machine (run at boot by agenttask-vm.service, as
# root, from the work disk mounted at /mnt/work): run every suite listed in
# /mnt/work/suites as the ordinary user and as root, leave each log and a
# summary in /mnt/work/results, then the unit powers the machine off.
#
# The ordinary user's suites run in a login session of their own (`su -l`,
# through pam_systemd), as a user at a terminal or over ssh would: in
# session-N.scope, beside that user's manager, with XDG_RUNTIME_DIR set.
set -u
W=/mnt/work
R=$W/results
mkdir -p "$R"
chmod 755 "$R"
say() { echo "agenttask-vm: $*" >/dev/ttyS0; }

# A narrowed run (run.sh's AT_VM_WHO, AT_VM_ONLY): one identity, some tests.
WHO=$(cat "$W/who" 2>/dev/null)
ONLY=$(cat "$W/only" 2>/dev/null)
TIME_SCALE=$(sed -n 's/.*agenttask.time_scale=\([0-9]*\).*/\1/p' /proc/cmdline)
if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then cg="cgroup v2"; else cg="cgroup v1"; fi
say "kernel $(uname -r), $cg, user manager: $(systemctl is-active user@1000.service)"
: >"$R/summary"

# run_suite NAME SCRIPT WHO [REGEX]: one suite as one identity (only its tests
# matching REGEX, when given); a line in the summary.
run_suite() {
	local name=$1 script=$2 who=$3 only=${ONLY:-${4:-}} log=$R/$1.$3.log rc t0=$SECONDS
	[ -z "$WHO" ] || [ "$WHO" = "$who" ] || return 0
	# Software emulation is some 20 times slower: timing-based tests wait longer.
	local envs="CI=true AGENTTASK=$W/bin/agenttask LC_ALL=C.UTF-8 AT_TEST_TIME_SCALE=${TIME_SCALE:-1} AT_TEST_TIMES=1"
	# Quoted for the shell that su and bash -c start (a regex holds | and the like).
	[ -z "$only" ] || envs="$envs AT_ONLY=$(printf %q "$only")"
	say "running the $name suite as $who"
	# stdin from /dev/null, never the list of suites this loop reads: run
	# hands a command a pipe for a file given as stdin and reads the file
	# ahead (docs/security.md), which would take the rest of the list.
	if [ "$who" = root ]; then
		bash -c "cd /root && env HOME=/root $envs bash '$W/tests/$script'" </dev/null >"$log" 2>&1
	else
		su -l "$who" -c "cd ~ && env $envs bash '$W/tests/$script'" </dev/null >"$log" 2>&1
	fi
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	# One short append each: the two identities' lines never interleave.
	echo "$name|$who|$rc|${line:-no result line}|$cg|$((SECONDS - t0))" >>"$R/summary"
	say "$name as $who: exit $rc after $((SECONDS - t0))s: ${line:-no result line}"
}

# A suite marked `parallel` runs as both identities at once, as ctest runs
# sandbox_run.sh beside sandbox_user.sh: under software emulation that
# nearly halves its time on the VM's 2 CPUs. Others (the limits suite: two
# fork bombs and OOM tests at once would exhaust the machine) one by one.
while read -r name script mode regex; do
	case "$name" in '' | '#'*) continue ;; esac
	if [ "$mode" = parallel ]; then
		run_suite "$name" "$script" tester "$regex" &
		run_suite "$name" "$script" root "$regex" &
		wait
	else
		run_suite "$name" "$script" tester "$regex"
		run_suite "$name" "$script" root "$regex"
	fi
done <"$W/suites"
journalctl -b --no-pager >"$R/journal.log" 2>&1
sync
say "done"
