#!/usr/bin/env bash
# agenttask run: every promise of the sandbox, checked from inside it.
#
# Run as whoever runs ctest (root here) and again as uid 65534 by
# sandbox_user.sh. Skips only when user namespaces are really unavailable;
# with CI=true that skip is a failure.
. "$(dirname "$0")/lib.sh"

require_user_namespaces

ME=$(id -u)
TAG=$((900000 + RANDOM % 90000))$ME

# A repository with tasks t1 (the one run) and t2 (another task), and a
# remote URL holding a credential. WT, WT2, COMMON are their real paths (a
# layered task's path holds nothing on the host: its files are its layer's
# upper over its base, mounted at WT inside).
sb_task() {
	make_repo repo
	git -C repo config remote.origin.url "https://user:SECRET-TOKEN@example.com/x.git"
	ok "new t1" -C repo new t1
	WT=$(realpath -m "$out")
	ok "new t2" -C repo new t2
	WT2=$(realpath -m "$out")
	COMMON=$(realpath "$(git -C repo rev-parse --absolute-git-dir)")
}

# wt_file [REL]: where the host holds what t1's commands wrote at REL of
# the worktree: its checkout, or a layered task's upper (app/layer.h).
wt_file() {
	if layered_form; then
		echo "$COMMON/agenttask/layers/t1/upper${1:+/$1}"
	else
		echo "$WT${1:+/$1}"
	fi
}

# assert_t1_files_gone: t1's worktree (a layered task's layer too) removed.
assert_t1_files_gone() {
	assert_no_file "$WT" "the worktree"
	assert_no_file "$COMMON/agenttask/layers/t1" "the layer"
}

# sbrun ARGS...: agenttask run t1 ARGS; $out $errout $rc.
sbrun() {
	at -C repo run t1 "$@"
}

# sbok WHAT ARGS...: must exit 0.
sbok() {
	local what=$1
	shift
	expect_rc 0 "$what" -C repo run t1 "$@"
}

# ---- the threat model's three checks ----

test_ssh_key_in_real_home_is_not_readable() {
	# What: `cat ~/.ssh/id_rsa` (and the key by its real path) inside.
	# Must: find no key; the real HOME is not there at all.
	sb_task
	local key="$HOME/.ssh/id_rsa" made=
	if [ ! -e "$key" ]; then
		mkdir -p "$HOME/.ssh"
		printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nFAKE-KEY-%s\n-----END OPENSSH PRIVATE KEY-----\n' "$TAG" >"$key"
		chmod 600 "$key"
		made=1
	fi
	sbrun -- sh -c 'cat ~/.ssh/id_rsa; cat "$1"' sh "$key"
	[ -n "$made" ] && rm -f "$key"
	[ "$rc" != 0 ] || fail "cat of the ssh key succeeded inside"
	assert_not_contains "$out" "PRIVATE KEY" "no key material printed"
	sbok "HOME is private" -- sh -c 'echo "$HOME"; ls -A "$HOME" | wc -l'
	assert_eq "$out" "/home/sandbox
0" "HOME is the private, empty /home/sandbox"
}

test_usr_is_read_only() {
	# What: `touch /usr/bin/malicious`. Must: fail, read-only file system.
	sb_task
	sbrun -- touch /usr/bin/malicious-$TAG
	[ "$rc" != 0 ] || fail "touch /usr/bin succeeded"
	assert_contains "$errout" "Read-only file system" "the error names the read-only fs"
	assert_no_file /usr/bin/malicious-$TAG "nothing created on the host"
}

test_worktree_is_writable() {
	# What: `echo passed > test_output.txt && cat test_output.txt` in the worktree.
	# Must: print passed; the file exists on the host.
	sb_task
	sbok "write in the worktree" -- sh -c 'echo passed > test_output.txt && cat test_output.txt'
	assert_eq "$out" "passed" "output"
	assert_eq "$(cat "$(wt_file test_output.txt)")" "passed" "file on the host"
	sbok "cwd" -- pwd
	assert_eq "$out" "$WT" "the working directory is the worktree, at its own path"
}

# ---- file system view ----

# What: read every file under /etc the sandbox shows, as root inside (the
# host's root when agenttask runs as root) and as an ordinary user; list
# the directories. Must: whatever is not world-readable on the host (shadow,
# gshadow, ssh host keys, ssl/private, ...) reads empty or lists empty, while
# a world-readable entry outside the old allow-list (a JDK's /etc/java-*,
# apt's sources, the way javac reads its /etc/java-17-openjdk) is there, as
# on the host; /etc is read-only; passwd and group are the run's own.
test_etc_shows_what_is_world_readable_and_nothing_else() {
	sb_task
	local secret public
	secret=$(find /etc \( -type f ! -perm -o=r \) -o \( -type d ! -perm -o=rx \) 2>/dev/null | head -n 40)
	[ -n "$secret" ] || fail "this host's /etc has nothing that is not world-readable to test with"
	sbok "secrets" -- sh -c 'for p in "$@"; do if [ -d "$p" ]; then ls -A "$p"; else cat "$p"; fi; done 2>&1 | head -c 400; echo END' sh $secret
	assert_eq "$out" "END" "no byte of what is not world-readable"
	sbok "root inside reads shadow" -- sh -c 'id -u; wc -c </etc/shadow'
	assert_eq "$(echo "$out" | tail -n 1)" "0" "/etc/shadow is empty even to uid $(echo "$out" | head -n 1)"
	# A world-readable directory that no allow-list named.
	public=$(find /etc/apt /etc/java-17-openjdk -type f -perm -o=r 2>/dev/null | head -n 1)
	[ -n "$public" ] || fail "no world-readable file in /etc/apt to test with"
	sbok "public" -- cat "$public"
	assert_eq "$out" "$(cat "$public")" "'$public' as on the host"
	if [ -d /etc/java-17-openjdk ] && command -v javac >/dev/null; then
		agent_sh t1 'printf "%s\n" "$1" >A.java' \
			'class A { public static void main(String[] a) { System.out.println("javac-ok"); } }'
		sbok "javac" -- sh -c 'javac A.java && java -cp . A'
		assert_eq "$out" "javac-ok" "javac finds its /etc/java-17-openjdk"
	fi
	sbrun -- touch /etc/agenttask-new
	[ "$rc" != 0 ] || fail "/etc is writable"
	# Covered by an empty file where the host has one (sandbox/etc.c).
	sbok "system gitconfig" -- sh -c 'if [ -e /etc/gitconfig ]; then wc -c </etc/gitconfig; else echo ABSENT; fi'
	case "$out" in 0 | ABSENT) ;; *) fail "/etc/gitconfig stays out: inside it holds $out bytes" ;; esac
	# The run's own passwd (identity.c): root, the caller's user where it is
	# not root, nobody; never the host's accounts.
	sbok "passwd" -- cat /etc/passwd
	[ "$(echo "$out" | wc -l)" -le 3 ] || fail "passwd is the run's own: $out"
	assert_not_contains "$out" "daemon:" "no host account in passwd"
}

# What: lscpu, nproc and a runtime's look at the CPUs; and look for the rest
# of /sys. Must: the topology is there, as the host's; no device tree, no
# firmware, no kernel knobs; /sys read-only.
test_sys_has_the_cpu_topology_only() {
	sb_task
	sbok "lscpu" -- lscpu
	assert_contains "$out" "CPU(s):" "lscpu works"
	sbok "nproc" -- nproc --all
	assert_eq "$out" "$(nproc --all)" "nproc --all as on the host"
	# /sys/fs holds the run's own cgroup alone, where it has one (limits.sh).
	sbok "sys" -- sh -c 'ls /sys | grep -vx fs; ls -A /sys/fs 2>/dev/null | grep -vx cgroup; ls /sys/devices; ls /sys/devices/system | grep -vx memory; test -e /sys/firmware && echo FIRMWARE; test -e /sys/class && echo CLASS; test -e /sys/kernel && echo KERNEL; touch /sys/x 2>/dev/null && echo WRITABLE; true'
	assert_eq "$out" "devices
system
cpu
node" "only devices/system/{cpu,memory,node} (and fs/cgroup)"
}

test_host_root_is_unreachable() {
	# What: look for host paths outside the sandbox. Must: none exist.
	sb_task
	touch "$_at_root/marker-$TAG"
	sbok "look around" -- sh -c "ls -A /; test -e '$_at_root/marker-$TAG' && echo MARKER; test -e /root/.bashrc && echo ROOTHOME; test -s /etc/shadow && echo SHADOW; test -s /etc/sudoers && echo SUDOERS; test -s /etc/gshadow && echo GSHADOW; for k in /etc/ssh/ssh_host_*key; do test -s \$k && echo SSH; done; test -e /var && echo VAR; touch /newfile 2>/dev/null && echo ROOTWRITABLE; true"
	assert_not_contains "$out" "MARKER" "a file beside the repository is hidden"
	assert_not_contains "$out" "ROOTHOME" "/root is hidden"
	assert_not_contains "$out" "SHADOW" "/etc/shadow is empty"
	assert_not_contains "$out" "SUDOERS" "/etc/sudoers is empty"
	assert_not_contains "$out" "SSH" "no ssh host key"
	assert_not_contains "$out" "VAR" "/var is absent"
	assert_not_contains "$out" "ROOTWRITABLE" "/ is read-only"
	sbok "etc basics" -- sh -c 'test -s /etc/passwd && test -e /etc/resolv.conf && echo ok'
	assert_eq "$out" "ok" "/etc/passwd and resolv.conf are there"
}

test_merged_usr_symlinks_stay_symlinks() {
	# What: readlink /bin, /lib inside. Must: the same links as on the host.
	sb_task
	local d
	for d in bin sbin lib lib64; do
		if [ -L "/$d" ]; then
			sbok "readlink /$d" -- readlink "/$d"
			assert_eq "$out" "$(readlink "/$d")" "/$d is a symlink inside too"
		fi
	done
}

test_every_mount_is_nosuid_and_nodev() {
	# What: read /proc/self/mountinfo. Must: every mount nosuid; nodev but
	# for the device nodes and devpts; /tmp, home, /dev/shm size-capped.
	sb_task
	sbok "mountinfo" -- cat /proc/self/mountinfo
	local line mp opts bad=
	while read -r line; do
		mp=$(echo "$line" | awk '{print $5}')
		opts=$(echo "$line" | awk '{print $6}')
		case ",$opts," in *,nosuid,*) ;; *) bad="$bad suid:$mp" ;; esac
		case "$mp" in
		/dev/null | /dev/zero | /dev/full | /dev/random | /dev/urandom | /dev/tty | /dev/pts) ;;
		*) case ",$opts," in *,nodev,*) ;; *) bad="$bad dev:$mp" ;; esac ;;
		esac
	done <<<"$out"
	[ -z "$bad" ] || fail "mounts without nosuid/nodev:$bad"
	local m
	for m in /tmp /dev/shm; do
		echo "$out" | awk -v m="$m" '$5 == m' | grep -q 'size=' || fail "$m has no size cap"
	done
	# HOME is the task's own directory (a bind); a tmpfs one is capped too.
	sbok "mountinfo, fresh home" --fresh-home -- cat /proc/self/mountinfo
	echo "$out" | awk '$5 == "/home/sandbox"' | grep -q 'size=' || fail "a fresh home has no size cap"
}

test_tmpfs_caps_can_be_set() {
	# What: --tmp-size, --shm-size, --home-size. Must: each tmpfs has that
	# size, the defaults are documented ones, and a bad size is one usage line.
	sb_task
	sbok "defaults" --fresh-home -- sh -c 'df -k /tmp /dev/shm /home/sandbox | tail -n 3'
	assert_eq "$(echo "$out" | awk '{print $2}' | tr '\n' ' ')" "524288 65536 262144 " "512M, 64M, 256M"
	sbok "set" --fresh-home --tmp-size 8M --shm-size 4M --home-size 2M -- \
		sh -c 'df -k /tmp /dev/shm /home/sandbox | tail -n 3'
	assert_eq "$(echo "$out" | awk '{print $2}' | tr '\n' ' ')" "8192 4096 2048 " "as given"
	sbrun --tmp-size 1M -- sh -c 'head -c 2000000 /dev/zero >/tmp/big'
	[ "$rc" != 0 ] || fail "/tmp took more than its cap"
	expect_rc 2 "a bad size" -C repo run t1 --tmp-size lots -- true
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line"
}

# A listing of everything under DIR that would show any change: names,
# types, modes, sizes, times, contents' hashes.
tree_state() {
	(cd "$1" && find . -printf '%p %y %m %s %T@ %C@ %l\n' | sort && find . -type f -exec sha1sum {} + | sort)
}

# What: with --cache DIR, the command writes, deletes, renames, chmods and
# plants links and a setuid file in the cache, as root inside too. Must: it
# reads the host's files warm; the host's DIR is unchanged to the byte; its
# writes are kept for the task's next run, never seen by another task, and
# go with the task; a cache under the caller's home shows under HOME.
test_cache_is_warm_and_never_written() {
	sb_task
	mkdir -p cache/pkgs fakehome/.npm/_cacache
	echo warm >cache/pkgs/a.tgz
	echo index >fakehome/.npm/_cacache/index
	local before home_before
	before=$(tree_state cache)
	home_before=$(tree_state fakehome)
	HOME=$PWD/fakehome expect_rc 0 "write the caches" -C repo run t1 --cache "$PWD/cache" \
		--cache "$PWD/fakehome/.npm" -- sh -c "
		cat '$PWD/cache/pkgs/a.tgz' ~/.npm/_cacache/index
		echo poisoned >'$PWD/cache/pkgs/a.tgz'; echo new >'$PWD/cache/pkgs/b.tgz'
		mv '$PWD/cache/pkgs' '$PWD/cache/moved'; chmod 4777 '$PWD/cache/moved/b.tgz'
		ln -s /etc/passwd '$PWD/cache/link'; rm -rf ~/.npm/_cacache; echo x >~/.npm/planted
		true"
	assert_eq "$out" "warm
index" "the host's cache read inside, ~/.npm under HOME"
	assert_eq "$(tree_state cache)" "$before" "the host cache is unchanged"
	assert_eq "$(tree_state fakehome)" "$home_before" "the host's ~/.npm is unchanged"
	sbok "the task's writes kept" --cache "$PWD/cache" -- sh -c "cat '$PWD/cache/moved/a.tgz'; ls '$PWD/cache'"
	assert_eq "$out" "poisoned
link
moved" "the next run of the task sees its own writes"
	expect_rc 0 "another task" -C repo run t2 --cache "$PWD/cache" -- cat "$PWD/cache/pkgs/a.tgz"
	assert_eq "$out" "warm" "another task sees the host's cache, not t1's writes"
	expect_rc 2 "a file" -C repo run t1 --cache "$PWD/cache/pkgs/a.tgz" -- true
	expect_rc 2 "the worktree" -C repo run t1 --cache "$(wt_file)" -- true
	expect_rc 2 "the git dir" -C repo run t1 --cache "$COMMON" -- true
	expect_rc 2 "missing" -C repo run t1 --cache "$PWD/nothing" -- true
	assert_contains "$errout" "agenttask: --cache '$PWD/nothing': No such file or directory" "the option named"
	ok "discard" -C repo discard t1
	assert_no_file "$COMMON/agenttask/caches/t1" "the task's cache layers go with it"
	assert_eq "$(tree_state cache)" "$before" "still unchanged"
}

# What: two runs of one task at once with the same --cache. Two overlays
# on one upper are undefined (overlayfs warns and lets them), and the
# first run's scratch is live while the second ends. Must: the second run
# sees the host's copy read-only and says so; the first keeps writing into
# its layer (copy-ups need its scratch) after the second has ended and
# ended; its writes are kept, the host's cache is unchanged, and once
# both are over one scratch is left at most, the first run's, which the
# next run removes.
test_cache_of_a_concurrent_run_is_read_only_and_its_scratch_kept() {
	sb_task
	mkdir -p cache
	echo warm >cache/a
	echo warm >cache/b
	local before layer
	before=$(tree_state cache)
	# The first run and the test meet in a directory of the test's own.
	mkdir sync
	"$AT" -C repo run t1 --cache "$PWD/cache" --rw "$PWD/sync" -- sh -c "
		echo one >'$PWD/cache/a'; touch '$PWD/sync/started'
		while [ ! -e '$PWD/sync/go' ]; do sleep 0.05; done
		echo two >'$PWD/cache/b'" >/dev/null 2>&1 &
	local pid=$!
	wait_until 10 test -e sync/started || fail "the first run did not start"
	expect_rc 7 "the second run" -C repo run t1 --cache "$PWD/cache" -- sh -c "cat '$PWD/cache/a'; touch '$PWD/cache/c' || exit 7"
	assert_contains "$errout" "another run of 't1' has its cache '$PWD/cache': read-only in this one" "said"
	assert_contains "$out" "warm" "the host's copy, not the first run's layer"
	touch sync/go
	wait $pid || fail "the first run failed after the second had ended"
	sbok "the layer" --cache "$PWD/cache" -- cat "$PWD/cache/a" "$PWD/cache/b"
	assert_eq "$out" "one
two" "both of the first run's writes kept"
	assert_eq "$(tree_state cache)" "$before" "the host cache is unchanged"
	layer=$(find "$COMMON/agenttask/caches/t1" -mindepth 1 -maxdepth 1 -type d)
	assert_eq "$(find "$layer" -mindepth 2 -maxdepth 2 -path "$layer/work*/work" | wc -l)" 1 \
		"the last run's scratch only"
	sbok "a run after" --cache "$PWD/cache" -- true
	assert_eq "$(find "$layer" -mindepth 2 -maxdepth 2 -path "$layer/work*/work" | wc -l)" 1 \
		"the one before removed by the next run"
}

# What: the agent's state in HOME (a login, pip --user, caches). Must: kept
# from one run of the task to the next, never seen by another task, not the
# user's home, and gone with the task (discard; restore brings back no home).
test_home_lasts_for_the_task_and_only_for_it() {
	sb_task
	sbok "write home" -- sh -c 'echo secret-of-t1 >"$HOME/.token"; mkdir -p "$HOME/.cache/pip"; echo "$HOME"'
	assert_eq "$out" "/home/sandbox" "HOME"
	sbok "read it back" -- cat /home/sandbox/.token
	assert_eq "$out" "secret-of-t1" "kept across runs"
	sbok "/tmp is per run" -- sh -c 'echo x >/tmp/left && test -e /tmp/left && echo WROTE'
	assert_eq "$out" "WROTE" "/tmp written in the first run"
	sbok "/tmp is new" -- sh -c 'test -e /tmp/left && echo LEFT || echo NEW'
	assert_eq "$out" "NEW" "/tmp new on every run"
	expect_rc 0 "other task" -C repo run t2 -- sh -c 'cat /home/sandbox/.token 2>&1; ls -A /home/sandbox'
	assert_not_contains "$out" "secret-of-t1" "another task sees its own home"
	expect_rc 0 "other task looks in the state" -C repo run t2 -- sh -c "ls -A '$COMMON/agenttask' 2>/dev/null; find / -name .token 2>/dev/null; echo END"
	assert_eq "$out" "END" "t1's home nowhere in t2's sandbox"
	sbok "fresh home" --fresh-home -- sh -c 'test -e "$HOME/.token" && echo KEPT || echo EMPTY'
	assert_eq "$out" "EMPTY" "--fresh-home starts empty"
	assert_file "$COMMON/agenttask/homes/t1/.token" "the home is the task's state"
	[ ! -e "$HOME/.token" ] || fail "the user's home was written"
	ok "discard" -C repo discard t1
	assert_no_file "$COMMON/agenttask/homes/t1" "the home goes with the task"
	ok "restore" -C repo restore t1
	sbok "restored" -- sh -c 'ls -A "$HOME"; echo END'
	assert_eq "$out" "END" "the trash keeps no home"
}

test_home_size_caps_the_lasting_home() {
	# What: --home-size on the task's lasting home (on disk): a run writes
	# past the cap; the task then tries to hide bytes from the count (hard
	# links, a tree too deep to walk). Must: that run ends as it would
	# (a warning says the home is over its cap); the next run with the cap
	# is refused in one line naming the task, exit 1, and runs nothing; a
	# run with a larger cap can free it, and the capped run runs again; a
	# file's hard links count once; a tree too deep to measure is refused,
	# never passed; a run without a cap is never refused.
	sb_task
	sbok "write past the cap" --home-size 1M -- sh -c 'head -c 3000000 /dev/zero >"$HOME/big"'
	assert_contains "$errout" "the home of 't1' now holds 2.9 MiB, over --home-size 1.0 MiB" "warned"
	expect_rc 1 "the next capped run" -C repo run t1 --home-size 1M -- touch "$WT/ran"
	assert_contains "$errout" "the home of 't1' holds 2.9 MiB, over --home-size 1.0 MiB" "refused"
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line"
	assert_no_file "$(wt_file ran)" "nothing ran"
	sbok "a larger cap frees it" --home-size 10M -- sh -c 'rm "$HOME/big"'
	sbok "the cap holds again" --home-size 1M -- true
	sbok "hard links" --home-size 2M -- sh -c 'head -c 1500000 /dev/zero >"$HOME/one"
		for i in 1 2 3 4 5 6 7 8; do ln "$HOME/one" "$HOME/link$i"; done'
	assert_not_contains "$errout" "over --home-size" "a file's links count once"
	sbok "still under it" --home-size 2M -- true
	sbok "uncapped" -- sh -c 'rm -f "$HOME"/one "$HOME"/link*
		d="$HOME/deep"; i=0; while [ $i -lt 300 ]; do d="$d/d"; i=$((i + 1)); done
		mkdir -p "$d" && head -c 3000000 /dev/zero >"$d/hidden"'
	expect_rc 1 "too deep to measure" -C repo run t1 --home-size 1M -- true
	assert_contains "$errout" "the home of 't1' cannot be measured for --home-size" "refused"
	assert_contains "$errout" "too deep" "why"
	sbok "no cap, no refusal" -- true
}

test_proc_globals_are_read_only() {
	# What: write a sysctl and the sysrq trigger (harmless values), as the
	# invoking user (root: uid 0 of the host). Must: refused (read-only).
	sb_task
	sbrun -- sh -c 'echo 1 > /proc/sys/vm/drop_caches'
	[ "$rc" != 0 ] || fail "a sysctl was writable"
	if [ -e /proc/sysrq-trigger ]; then
		sbrun -- sh -c 'echo h > /proc/sysrq-trigger'
		[ "$rc" != 0 ] || fail "the sysrq trigger was writable"
	fi
	sbok "proc mounts" -- sh -c 'grep " /proc/sys " /proc/self/mountinfo'
	assert_contains "$out" " ro," "/proc/sys is mounted read-only"
}

test_tmp_and_home_are_private() {
	# What: write to /tmp and $HOME inside. Must: work, and stay inside.
	sb_task
	touch "/tmp/host-marker-$TAG"
	sbok "write tmp/home" -- sh -c "echo x > /tmp/private-$TAG && echo y > \$HOME/h && ls -A /tmp"
	rm -f "/tmp/host-marker-$TAG"
	assert_not_contains "$out" "host-marker" "the host's /tmp is not visible"
	assert_contains "$out" "private-$TAG" "/tmp is writable"
	assert_no_file "/tmp/private-$TAG" "the sandbox's /tmp is not the host's"
}

test_dev_is_minimal() {
	# What: list /dev and use its nodes. Must: only the safe nodes, working.
	sb_task
	sbok "ls /dev" -- sh -c 'ls -A /dev | tr "\n" " "; echo; echo x > /dev/null && head -c 4 /dev/urandom | wc -c && readlink /dev/ptmx /dev/fd && echo s > /dev/shm/s && cat /dev/shm/s'
	assert_eq "$(echo "$out" | head -1)" "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " "/dev entries"
	assert_contains "$out" "pts/ptmx" "ptmx points into the new devpts"
	assert_contains "$out" "/proc/self/fd" "/dev/fd"
}

test_proc_is_the_sandboxs_own() {
	# What: list pids in /proc. Must: only the sandbox's (init, the command).
	sb_task
	sbok "pids" -- sh -c 'echo /proc/[0-9]*'
	assert_eq "$out" "/proc/1 /proc/2" "the init and the command, nothing of the host"
}

# ---- git ----

test_git_works_read_only() {
	# What: git status/log/diff inside. Must: succeed.
	sb_task
	agent_sh t1 'echo change >>README'
	sbok "git status" -- git status --short
	assert_eq "$out" " M README" "git status sees the change"
	sbok "git log" -- git log --oneline
	[ "$(echo "$out" | wc -l)" = 2 ] || fail "git log: $out"
	sbok "git diff" -- git diff --stat
	assert_contains "$out" "README" "git diff"
}

test_git_metadata_changes_stay_inside() {
	# What: set core.hooksPath / core.fsmonitor / a filter driver, write a
	# hook, move HEAD, commit, rewrite the .git pointer. Must: git works on
	# the task's own layer (sandbox_git.sh has the rest), nothing of it
	# reaches the host's config, hooks or HEAD file, and the pointer stays
	# read-only.
	sb_task
	local before
	before=$(md5sum "$COMMON/config" "$COMMON/worktrees/agenttask-t1/HEAD" | md5sum)
	agent_sh t1 'echo change >>README'
	sbok "commit" -- sh -c 'git add -A && git -c user.name=x -c user.email=x@y commit -qm x'
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t1)" "x" "the commit imported"
	sbok "hooksPath" -- git config core.hooksPath /tmp/hooks
	sbok "fsmonitor" -- git config core.fsmonitor /tmp/x
	sbok "filter" -- git config filter.evil.clean /tmp/x
	sbok "a hook" -- sh -c "echo evil > '$COMMON/hooks/pre-commit'"
	sbrun -- sh -c 'echo "gitdir: /tmp" > .git'
	[ "$rc" != 0 ] || fail "rewriting the .git pointer succeeded"
	sbrun -- sh -c "echo 0000 > '$COMMON/worktrees/agenttask-t1/HEAD'"
	assert_contains "$errout" "not imported" "a malformed HEAD is refused by the import"
	assert_eq "$(md5sum "$COMMON/config" "$COMMON/worktrees/agenttask-t1/HEAD" | md5sum)" "$before" "config and HEAD unchanged"
	assert_no_file "$COMMON/hooks/pre-commit" "no hook on the host"
	assert_exit 1 "no hooksPath on the host" git -C repo config core.hooksPath
	assert_exit 1 "no fsmonitor on the host" git -C repo config core.fsmonitor
	assert_fsck repo
}

test_links_planted_inside_are_never_followed_by_the_host() {
	# What: inside, README becomes a link to a host secret and sub a link to
	# a host directory; commit and accept; then a second task turns sub into
	# a real directory holding sub/keep, and is accepted. Must: the commit
	# holds the link text, never the secret; accept writes links into the
	# main worktree, and then replaces the link sub, never writing through it.
	sb_task
	mkdir outside
	printf 'precious\n' >outside/keep
	printf 'HOST-SECRET-%s\n' "$TAG" >secret
	sbok "plant" -- sh -c "rm README && ln -s '$PWD/secret' README && ln -s '$PWD/outside' sub"
	ok "commit" -C repo commit t1 -m links
	assert_eq "$(git -C repo cat-file -p agenttask/t1:README)" "$PWD/secret" "the link, not the secret"
	ok "accept" -C repo accept t1
	[ -L repo/README ] && [ -L repo/sub ] || fail "accept did not write links"
	ok "new t3" -C repo new t3
	at -C repo run t3 -- sh -c 'rm sub && mkdir sub && echo PWNED > sub/keep && echo PWNED > sub/new'
	assert_eq "$rc" 0 "run t3"
	ok "accept t3" -C repo accept t3
	assert_eq "$(cat outside/keep)" "precious" "nothing written through the old link"
	assert_no_file outside/new "nothing created through the old link"
	assert_eq "$(cat repo/sub/keep)" "PWNED" "sub is a directory now"
	assert_eq "$(cat secret)" "HOST-SECRET-$TAG" "the secret unchanged"
}

test_real_config_is_not_readable() {
	# What: read the repository's config inside. Must: the sanitized one,
	# without the remote URL and its credential.
	sb_task
	git -C repo config http.extraHeader "Authorization: Bearer SECRET-TOKEN"
	sbok "cat config" -- cat "$COMMON/config"
	assert_not_contains "$out" "SECRET-TOKEN" "no credential"
	assert_not_contains "$out" "remote" "no remote"
	assert_contains "$out" "repositoryformatversion" "format settings kept"
	sbrun -- git config --get remote.origin.url
	assert_eq "$rc" 1 "git finds no remote URL (git config's status for a missing key)"
	assert_no_output "$out" "git sees no remote URL"
}

test_other_tasks_and_state_are_invisible() {
	# What: look for task t2's worktree, records, logs and lock. Must: absent.
	sb_task
	agent_sh t2 'echo other >other-file'
	sbok "look" -- sh -c "ls -A '$COMMON/agenttask'; ls -A '$(dirname "$WT")'; test -e '$WT2/other-file' && echo OTHER; true"
	assert_eq "$out" "t1" "the state dir empty, only this task's worktree beside it"
	# With a bind that could show them (--ro of the data directory), the same.
	sbok "look under --ro" --ro "$XDG_DATA_HOME" -- sh -c "ls -A '$COMMON/agenttask'; ls -A '$(dirname "$WT")'; ls -A '$(dirname "$(dirname "$WT")")'; test -e '$WT2/other-file' && echo OTHER; true"
	assert_eq "$out" "t1
$(basename "$(dirname "$WT")")" "other tasks' worktrees hidden under a --ro parent"
	sbrun -- touch "$(dirname "$WT")/x"
	assert_no_file "$(dirname "$WT")/x" "a file made beside the worktree reaches the host"
	sbrun -- touch "$COMMON/agenttask/x"
	[ "$rc" != 0 ] || fail "the state dir placeholder is writable"
}

test_read_only_git_files_cannot_be_hardlinked_into_the_worktree() {
	# What: hard-link the task's HEAD, a hook sample and the objects dir's
	# files into the writable worktree, then write through the link (same
	# inode: it would change the host's file). Must: link() fails (EXDEV:
	# another mount), the host's files unchanged.
	sb_task
	local head="$COMMON/worktrees/agenttask-t1/HEAD" before obj
	before=$(md5sum "$head" | cut -d' ' -f1)
	obj=$(find "$COMMON/objects" -type f | head -1)
	sbrun -- sh -c "ln '$head' h1 || ln '$obj' h2 || ln '$COMMON/description' h3 || exit 1; echo evil > h1"
	[ "$rc" != 0 ] || fail "a hard link out of the worktree was made"
	assert_contains "$errout" "cross-device" "refused as cross-device"
	assert_eq "$(md5sum "$head" | cut -d' ' -f1)" "$before" "HEAD unchanged"
	assert_no_file "$(wt_file h1)" "no link"
}

test_the_init_cannot_be_inspected() {
	# What: the sandbox's pid 1 is a copy of agenttask, whose memory holds
	# the host's environment. Read its environ, memory, namespaces, root,
	# open its descriptors (pipes to the supervisor), attach to it. Must: all refused (it is not dumpable);
	# the host's secret never shows.
	sb_task
	HOST_SECRET_ENV=secret-$TAG sbrun -- sh -c '
		for f in environ mem ns/mnt; do
			head -c 1 /proc/1/$f >/dev/null 2>&1 && echo "READ $f"
		done
		ls /proc/1/root/ >/dev/null 2>&1 && echo "READ root"
		# Root may list the numbers (it owns the directory), never follow them.
		for fd in 0 1 2 3 4 5 6 7 8 9; do
			readlink /proc/1/fd/$fd >/dev/null 2>&1 && echo "READ fd $fd"
			(: </proc/1/fd/$fd) 2>/dev/null && echo "READ fd $fd"
		done
		grep -a HOST_SECRET_ENV /proc/1/environ 2>/dev/null
		/usr/bin/python3 -c "
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if libc.ptrace(16, 1, 0, 0) == 0 else 1)" && echo ATTACHED
		true'
	assert_eq "$rc" 0 "the probe ran"
	assert_not_contains "$out" "READ" "nothing of pid 1 readable"
	assert_not_contains "$out" "secret-$TAG" "the host environment does not leak"
	assert_not_contains "$out" "ATTACHED" "ptrace of pid 1 refused"
}

test_host_unix_sockets_are_unreachable() {
	# What: an ssh-agent-like socket named by $SSH_AUTH_SOCK, and an
	# abstract unix socket (like X11's @/tmp/.X11-unix/X0 or a D-Bus bus)
	# that the host listens on. Must: the variable is not passed, the path
	# does not exist inside, the abstract name is unreachable (abstract
	# sockets belong to the network namespace); with --net it is reachable.
	sb_task
	/usr/bin/python3 -c '
import socket, time
a = socket.socket(socket.AF_UNIX); a.bind("\0agenttask-test-'"$TAG"'"); a.listen(8)
p = socket.socket(socket.AF_UNIX); p.bind("agent.sock"); p.listen(8)
open("ready", "w").close()
time.sleep(60)' &
	local lpid=$!
	wait_until 5 test -e ready || fail "no listener"
	SSH_AUTH_SOCK="$PWD/agent.sock" sbrun -- /usr/bin/python3 -c '
import os, socket, sys
print(os.environ.get("SSH_AUTH_SOCK", "unset"), os.path.exists(sys.argv[1]))
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0agenttask-test-'"$TAG"'"); print("CONNECTED")
except OSError as e:
    print("refused")' "$PWD/agent.sock"
	local inside=$out
	sbrun --net -- /usr/bin/python3 -c '
import socket
socket.socket(socket.AF_UNIX).connect("\0agenttask-test-'"$TAG"'"); print("CONNECTED")'
	kill $lpid
	assert_eq "$inside" "unset False
refused" "no agent socket, no abstract socket"
	assert_eq "$out" "CONNECTED" "--net shares the host's abstract sockets"
}

# ---- symlinks planted in what setup mounts ----

test_planted_git_pointer_symlink_is_refused() {
	# What: the worktree's .git (a layered task's: the mount point in its
	# upper) replaced by a symlink to /etc/passwd.
	# Must: setup refuses (125), never follows it, the command never runs.
	sb_task
	local git
	git=$(wt_file .git)
	mv "$git" "$git.real"
	ln -s /etc/passwd "$git"
	sbrun -- sh -c "echo RAN > ran-$TAG"
	rm "$git"
	mv "$git.real" "$git"
	assert_eq "$rc" 125 "exit status"
	assert_contains "$errout" "symbolic link" "the error names the link"
	assert_no_file "$(wt_file ran-$TAG)" "the command did not run"
}

test_rw_symlink_is_refused() {
	# What: --rw of a symlink, and of a path through a symlinked directory.
	# Must: exit 2 with a clear error.
	sb_task
	mkdir real
	ln -s real link
	expect_rc 2 "--rw symlink" -C repo run t1 --rw "$PWD/link" -- true
	assert_contains "$errout" "symbolic link" "error"
	mkdir real/sub
	expect_rc 2 "--rw through a symlink" -C repo run t1 --rw "$PWD/link/sub" -- true
}

test_bind_policy() {
	# What: --rw/--ro that would expose git metadata or state.
	# Must: exit 2; allowed binds work at their own paths.
	sb_task
	expect_rc 2 "--rw common dir" -C repo run t1 --rw "$COMMON" -- true
	expect_rc 2 "--rw parent of common dir" -C repo run t1 --rw "$(dirname "$COMMON")" -- true
	expect_rc 2 "--ro config" -C repo run t1 --ro "$COMMON/config" -- true
	# Another task's files: its worktree, or a layered task's upper.
	local other=$WT2
	! layered_form || other=$COMMON/agenttask/layers/t2/upper
	expect_rc 2 "--ro other task" -C repo run t1 --ro "$other" -- true
	expect_rc 2 "--rw .git pointer" -C repo run t1 --rw "$(wt_file .git)" -- true
	expect_rc 2 "--ro missing" -C repo run t1 --ro "$PWD/missing" -- true
	mkdir ro rw
	echo data >ro/f
	sbok "--ro and --rw" --ro "$PWD/ro" --rw "$PWD/rw" -- sh -c "cat '$PWD/ro/f'; touch '$PWD/ro/g' 2>/dev/null && echo ROWRITE; echo w > '$PWD/rw/w'"
	assert_eq "$out" "data" "--ro readable, not writable"
	assert_eq "$(cat rw/w)" "w" "--rw writes reach the host"
	# A --ro parent of the repository does not uncover its config or state.
	sbok "--ro parent" --ro "$PWD" -- sh -c "cat '$COMMON/config'; ls -R '$COMMON/agenttask' '$(dirname "$WT")'"
	assert_not_contains "$out" "SECRET" "config still sanitized under a --ro parent"
	# Only an entry or a directory header named t2 counts: the temporary
	# directories' random names may hold "t2" too.
	if printf '%s\n' "$out" | grep -qE '(^|/)t2($|[.:])'; then
		fail "state still hidden under a --ro parent: the other task shows in: $out"
	fi
}

# ---- process ----

test_environment_is_scrubbed() {
	# What: print the environment. Must: no GITHUB_TOKEN; only PATH, HOME,
	# TERM, LANG, LC_*, TZ, AGENTTASK_COMMENTS (the review comments' file,
	# agenttask's own), and what --env/--pass-env add.
	sb_task
	GITHUB_TOKEN=fake-$TAG KEEPME=kept TERM=xterm-test sbok "env" --env FOO=bar --pass-env KEEPME -- env
	assert_not_contains "$out" "GITHUB_TOKEN" "token scrubbed"
	assert_contains "$out" "PATH=/usr/local/bin:/usr/bin:/bin" "fixed PATH"
	assert_contains "$out" "HOME=/home/sandbox" "HOME"
	assert_contains "$out" "TERM=xterm-test" "TERM passes"
	assert_contains "$out" "FOO=bar" "--env"
	assert_contains "$out" "KEEPME=kept" "--pass-env"
	assert_contains "$out" "AGENTTASK_COMMENTS=/run/agenttask/comments.json" "the comments' file"
	local names
	assert_empty "nothing else in the environment" \
		sh -c 'echo "$1" | cut -d= -f1 | grep -vE "^(PATH|HOME|TERM|LANG|LC_.*|TZ|AGENTTASK_COMMENTS|FOO|KEEPME|PWD|SHLVL|_)\$" || [ $? = 1 ]' sh "$out"
}

test_inherited_fds_are_closed() {
	# What: fd 7 open in the calling shell. Must: closed inside.
	sb_task
	exec 7>"$PWD/fd7"
	sbok "fds" -- sh -c 'for fd in 0 1 2 3 4 5 6 7 8 9 10 11 12; do [ -e /proc/$$/fd/$fd ] && printf "%s " $fd; done; true'
	exec 7>&-
	assert_eq "$out" "0 1 2 " "only stdin, stdout, stderr"
}

test_capabilities_seccomp_no_new_privs() {
	# What: /proc/self/status. Must: all caps zero, NoNewPrivs 1, Seccomp 2.
	sb_task
	sbok "status" -- grep -E '^(Cap[A-Za-z]+|NoNewPrivs|Seccomp):' /proc/self/status
	assert_eq "$out" "CapInh:	0000000000000000
CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000
CapAmb:	0000000000000000
NoNewPrivs:	1
Seccomp:	2" "capabilities, no_new_privs, seccomp"
}

test_namespaces_and_ids() {
	# What: compare namespaces and ids with the host's. Must: new user,
	# mnt, pid, ipc, uts, cgroup, net; same uid/gid; setgroups denied.
	sb_task
	local ns host
	for ns in user mnt pid ipc uts cgroup net; do
		host=$(readlink /proc/self/ns/$ns)
		sbok "ns $ns" -- readlink /proc/self/ns/$ns
		[ "$out" != "$host" ] || fail "namespace $ns is the host's"
	done
	sbok "ids" -- sh -c 'id -u; id -g; cat /proc/self/uid_map /proc/self/setgroups; hostname'
	assert_eq "$out" "$(id -u)
$(id -g)
$(printf '%10s %10s %10s' "$(id -u)" "$(id -u)" 1)
deny
agenttask" "uid/gid map, setgroups, hostname"
}

test_command_runs_in_its_own_session_under_an_init() {
	# What: the command's session, group and parent. Must: a session
	# leader whose parent is the sandbox's pid 1.
	sb_task
	sbok "stat" -- sh -c 'set -- $(cat /proc/$$/stat); echo "$1 $4 $5 $6"'
	set -- $out
	assert_eq "$2" 1 "parent is pid 1"
	assert_eq "$3" "$1" "process group leader"
	assert_eq "$4" "$1" "session leader"
}

test_cannot_mount_or_unshare_inside() {
	# What: unshare -U, mount a tmpfs, umount /proc, mknod a device in the
	# worktree. Must: all refused.
	sb_task
	sbrun -- unshare -U true
	[ "$rc" != 0 ] || fail "unshare -U succeeded"
	sbrun -- unshare -m true
	[ "$rc" != 0 ] || fail "unshare -m succeeded"
	sbrun -- mount -t tmpfs none /tmp
	[ "$rc" != 0 ] || fail "mount succeeded"
	sbrun -- umount -l /tmp
	[ "$rc" != 0 ] || fail "umount succeeded"
	# A device node in the worktree would outlive the run on the host,
	# where the worktree's file system allows devices.
	sbrun -- mknod dev-null-copy c 1 3
	[ "$rc" != 0 ] || fail "mknod succeeded"
	assert_no_file "$(wt_file dev-null-copy)" "no device node in the worktree"
}

# probe.c: system calls the seccomp filter must refuse, compiled on the host
# (./probe) and copied into the worktree by the agent.
build_probe() {
	cat >probe.c <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
static void show(const char *what, long r)
{
	printf("%s %ld %d\n", what, r, r < 0 ? errno : 0);
}
int main(int argc, char **argv)
{
	char c = 'x';
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && strcmp(argv[1], "x32") == 0)
		show("x32", syscall(0x40000000 | SYS_getpid));
#ifdef __x86_64__
	if (argc > 1 && strcmp(argv[1], "i386") == 0) {
		long r;
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
		show("i386", r);
	}
#endif
	errno = 0;
	show("tiocsti", ioctl(0, TIOCSTI, &c));
	show("tiocsti-high", syscall(SYS_ioctl, 0, 0xdead00000000UL | TIOCSTI, &c));
	show("tioclinux", syscall(SYS_ioctl, 0, TIOCLINUX, &c));
	show("tiocsetd", syscall(SYS_ioctl, 0, TIOCSETD, &c));
	show("clone3", syscall(SYS_clone3, NULL, 0));
	show("unshare", unshare(CLONE_NEWUSER));
	show("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0));
	show("bpf", syscall(SYS_bpf, 0, NULL, 0));
	show("getpid", syscall(SYS_getpid) > 0 ? 0 : -1);
	return 0;
}
EOF
	cc -o probe probe.c || fail "cannot build probe"
	expect_rc 0 "the probe copied in" -C repo run t1 -- sh -c 'cat >probe && chmod 755 probe' <probe
}

test_seccomp_refuses_tiocsti_and_friends() {
	# What: ioctl(TIOCSTI) (also with junk in the upper 32 bits), TIOCLINUX,
	# TIOCSETD, clone3, unshare, keyctl, bpf. Must: EPERM (clone3: ENOSYS); getpid works.
	sb_task
	build_probe
	sbok "probe" -- ./probe
	assert_eq "$out" "tiocsti -1 1
tiocsti-high -1 1
tioclinux -1 1
tiocsetd -1 1
clone3 -1 38
unshare -1 1
keyctl -1 1
bpf -1 1
getpid 0 0" "probe results"
}

test_seccomp_kills_x32_system_calls() {
	# What: an x32 system call (the x32 bit on a native number). Must: killed
	# (SIGSYS, 159). seccomp sees it whether or not the kernel has x32.
	sb_task
	build_probe
	sbrun -- ./probe x32
	assert_eq "$rc" 159 "x32 system call"
}

test_seccomp_kills_i386_system_calls() {
	# What: an i386 system call (int 0x80). Must: killed (SIGSYS, 159).
	# A kernel without IA-32 emulation (ia32_emulation=0, or built without)
	# kills it with SIGSEGV before seccomp sees it: probed outside first.
	[ "$(uname -m)" = x86_64 ] || skip "int 0x80 is an x86-64 kernel's IA-32 entry; this is $(uname -m)"
	sb_task
	build_probe
	local host_rc=0
	./probe i386 >/dev/null 2>&1 || host_rc=$?
	[ "$host_rc" = 0 ] || skip "this kernel refuses IA-32 system calls itself (the probe outside any sandbox exits $host_rc)"
	sbrun -- ./probe i386
	assert_eq "$rc" 159 "i386 system call"
}

test_loopback_only_network() {
	# What: list interfaces; connect to a port the host listens on.
	# Must: only lo (up); the host's port unreachable; with --net reachable.
	sb_task
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.close()' >port &
	local lpid=$!
	wait_until 5 test -s port || fail "no listener"
	local port
	port=$(cat port)
	sbok "interfaces" -- sh -c "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; cat /sys/class/net/lo/operstate 2>/dev/null; bash -c 'exec 3<>/dev/tcp/127.0.0.1/$port' 2>/dev/null && echo CONNECTED; true"
	assert_eq "$out" "lo" "only lo, and no connection to the host"
	sbok "loopback works" -- /usr/bin/python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); print("ok")'
	assert_eq "$out" "ok" "lo is up"
	sbok "--net" --net -- sh -c "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$port' && echo CONNECTED; tail -n +3 /proc/net/dev | wc -l"
	kill $lpid
	assert_contains "$out" "CONNECTED" "--net reaches the host"
	[ "$(echo "$out" | tail -1)" = "$(tail -n +3 /proc/net/dev | wc -l)" ] || fail "--net shows the host's interfaces"
}

# ---- lifetime ----

test_kill9_of_agenttask_kills_everything_inside() {
	# What: kill -9 agenttask while the command has setsid'd, double-forked
	# and nohup'd children. Must: none of them survives.
	sb_task
	local s=sleep_${TAG}1
	"$AT" -C repo run t1 -- sh -c "ln -s /usr/bin/sleep /tmp/$s; setsid sh -c '/tmp/$s 1000 & /tmp/$s 1000' & (/tmp/$s 1000 &) ; nohup /tmp/$s 1000 >/dev/null 2>&1 & /tmp/$s 1000" \
		>/dev/null 2>&1 &
	local pid=$!
	wait_until 10 sh -c "[ \$(pgrep -c -f '$s 1000') -ge 5 ]" || fail "the sleeps did not start"
	kill -9 $pid
	wait $pid 2>/dev/null || true
	wait_until 5 no_process "$s 1000" || fail "processes outlived agenttask: $(pgrep -a -f "$s 1000")"
}

test_orphans_die_when_the_command_exits() {
	# What: the command leaves a setsid'd daemon and exits. Must: the run
	# ends at once and the daemon is gone.
	sb_task
	local s=sleep_${TAG}2
	sbok "daemonize" -- sh -c "ln -s /usr/bin/sleep /tmp/$s; setsid /tmp/$s 1000 >/dev/null 2>&1 & (nohup /tmp/$s 1000 >/dev/null 2>&1 &); exit 0"
	wait_until 3 no_process "$s 1000" || fail "a daemon outlived the run"
}

test_timeout_kills_the_tree() {
	# What: --timeout 1 on a command with a background child. Must: 124,
	# within a few seconds, nothing left.
	sb_task
	local s=sleep_${TAG}3 t0 t1
	t0=$(date +%s)
	sbrun --timeout 1 -- sh -c "ln -s /usr/bin/sleep /tmp/$s; /tmp/$s 1000 & /tmp/$s 1000"
	t1=$(date +%s)
	assert_eq "$rc" 124 "exit status"
	[ $((t1 - t0)) -le $((5 * ${AT_TEST_TIME_SCALE:-1})) ] || fail "took $((t1 - t0))s"
	wait_until 3 no_process "$s 1000" || fail "processes outlived the timeout"
}

test_signals_reach_the_command() {
	# What: SIGTERM and SIGINT (Ctrl-C) to agenttask. Must: reach the
	# command, whose trap runs; its status is returned.
	sb_task
	local sig
	for sig in TERM INT; do
		"$AT" -C repo run t1 -- sh -c "trap 'echo $sig > got-$sig; exit 42' $sig; touch ready-$sig; while :; do sleep 0.1; done" &
		local pid=$!
		wait_until 10 test -e "$(wt_file ready-$sig)" || fail "not started"
		kill -$sig $pid
		set +e
		wait $pid
		rc=$?
		set -e
		assert_eq "$rc" 42 "status after SIG$sig"
		assert_eq "$(cat "$(wt_file got-$sig)")" "$sig" "the trap ran"
	done
}

test_interactive_shell_on_a_terminal() {
	# What: `agenttask run t1 -- bash -i` on a pseudo-terminal: type a
	# command, Ctrl-C a foreground sleep, exit 7. Must: all work; status 7.
	# AT_TEST_TIME_SCALE stretches its waits on a slow machine (the VM's TCG).
	sb_task
	local res
	res=$(cd repo && timeout $((30 * ${AT_TEST_TIME_SCALE:-1})) /usr/bin/python3 - "$AT" <<'EOF'
import os, pty, select, sys, time
S = float(os.environ.get("AT_TEST_TIME_SCALE", "1"))
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], ["agenttask", "run", "t1", "--", "bash", "--norc", "-i"])
def read(t):
    out = b""; end = time.time() + t * S
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try: out += os.read(fd, 4096)
            except OSError: break
    return out.decode(errors="replace")
read(1)
os.write(fd, b"echo typed-$((40+2))\n"); a = read(1.5)
os.write(fd, b"sleep 100\n"); time.sleep(0.5 * S); os.write(fd, b"\x03"); read(1)
os.write(fd, b"echo survived\n"); b = read(1.5)
os.write(fd, b"exit 7\n"); read(1)
_, st = os.waitpid(pid, 0)
print("typed-42" in a, "survived" in b, os.waitstatus_to_exitcode(st))
EOF
)
	assert_eq "$res" "True True 7" "typed command ran, Ctrl-C stopped only the sleep, status"
}

test_stdin_passes_through() {
	# What: pipe text to the command. Must: it reads it.
	sb_task
	out=$(echo "hello-$TAG" | "$AT" -C repo run t1 -- cat)
	assert_eq "$out" "hello-$TAG" "stdin to stdout"
}

# ---- a task's running commands, and removing the task ----

# start_run NAME: a command of t1 in the background that sleeps until
# killed, its process named /tmp/NAME; RUN_PID is agenttask's (the run's
# supervisor's) pid. The sleep's own command line begins with /tmp/NAME
# (agenttask's and sh's hold it further on): it runs once the run holds
# the task's run lock.
start_run() {
	"$AT" -C repo run t1 -- sh -c "ln -s /usr/bin/sleep /tmp/$1; exec /tmp/$1 1000" \
		>/dev/null 2>&1 &
	RUN_PID=$!
	wait_until 10 sleeping "$1" || fail "the command did not start"
}

sleeping() {
	pgrep -f "^/tmp/$1 1000" >/dev/null
}

# run_status: the exit status of the run started by start_run.
run_status() {
	local st=0
	wait "$RUN_PID" || st=$?
	echo $st
}

test_discard_refuses_while_a_command_runs_and_force_stops_it_first() {
	# What: discard while a command of the task still runs in its worktree,
	# where it could race the removal (swap a directory for a link). Must:
	# refuse with one line naming the run's pid, change nothing, leave the
	# command running; with --force, kill the whole sandbox before anything
	# is removed: nothing of it is left when discard returns, and the run
	# is logged as killed (137).
	sb_task
	local s=sleep_${TAG}d before
	agent_sh t1 'echo change >file'
	start_run $s
	before=$(git -C repo for-each-ref; ls -A "$(wt_file)"; ls "$COMMON/agenttask/tasks")
	expect_rc 1 "discard during a run" -C repo discard t1
	assert_eq "$errout" "agenttask: task 't1' has a running command (pid $RUN_PID); stop it or use --force" "the refusal"
	assert_eq "$(git -C repo for-each-ref; ls -A "$(wt_file)"; ls "$COMMON/agenttask/tasks")" "$before" "the refusal changed something"
	sleeping $s || fail "the refusal stopped the command"
	ok "discard --force" -C repo discard --force t1
	! sleeping $s || fail "the command outlived discard --force: $(pgrep -a -f "^/tmp/$s")"
	assert_eq "$(run_status)" 137 "the run's status"
	assert_t1_files_gone
	ok "log" -C repo log t1 --json
	assert_eq "$(json_get "$out" '[e["exit_code"] for e in j if e["event"] == "run"]')" "[0, 137]" \
		"the agent's run, then this one logged as killed"
	ok "restore" -C repo restore t1
	assert_eq "$(cat "$WT/file")" change "the change was saved before the removal"
}

test_accept_refuses_while_a_command_runs_unless_kept_or_forced() {
	# What: accept, which removes the task, while a command of it runs.
	# Must: refuse before merging anything; accept --keep merges and leaves
	# the command alone; accept --force kills it, then merges and removes.
	sb_task
	local s=sleep_${TAG}a main
	agent_sh t1 'echo one >one'
	start_run $s
	main=$(git -C repo rev-parse main)
	expect_rc 1 "accept during a run" -C repo accept t1
	assert_eq "$errout" "agenttask: task 't1' has a running command (pid $RUN_PID); stop it or use --force" "the refusal"
	assert_eq "$(git -C repo rev-parse main)" "$main" "main did not move"
	assert_eq "$(git -C repo rev-parse agenttask/t1)" "$main" "nothing was committed"
	ok "accept --keep during a run" -C repo accept --keep t1
	assert_file repo/one "the change landed"
	sleeping $s || fail "accept --keep stopped the command"
	# A second run of the task while the first goes on.
	agent_sh t1 'echo two >two'
	ok "accept --force" -C repo accept --force t1
	! sleeping $s || fail "the command outlived accept --force"
	assert_eq "$(run_status)" 137 "the run's status"
	assert_file repo/two "the second change landed"
	assert_t1_files_gone
}

test_gc_leaves_a_task_with_a_running_command_alone_unless_forced() {
	# What: the worktree of a task (a layered task's upper) is deleted by
	# hand while a command of the task still runs in it; gc would remove
	# the task. Must: gc leaves it alone and says why (exit 0); gc --force
	# kills the command and removes the task.
	sb_task
	local s=sleep_${TAG}g
	start_run $s
	rm -rf "$(wt_file)"
	ok "gc during a run" -C repo gc
	assert_contains "$out" "left alone: task 't1' has a running command (pid $RUN_PID)" "gc says why"
	"$AT" -C repo list | grep -q '^t1 ' || fail "gc removed the task"
	sleeping $s || fail "gc stopped the command"
	ok "gc --force" -C repo gc --force
	assert_contains "$out" "removed task 't1'" "gc --force"
	! sleeping $s || fail "the command outlived gc --force"
	assert_eq "$(run_status)" 137 "the run's status"
}

test_force_stops_a_run_whose_supervisor_is_stopped() {
	# What: the run's agenttask is stopped (Ctrl-Z, SIGSTOP), so it cannot
	# let go of the task's lock when its sandbox is killed. Must: discard
	# --force kills it too, after a grace period, and removes the task.
	sb_task
	local s=sleep_${TAG}s
	start_run $s
	kill -STOP "$RUN_PID"
	ok "discard --force" -C repo discard --force t1
	! sleeping $s || fail "the command outlived discard --force"
	assert_eq "$(run_status)" 137 "the run's status"
	assert_t1_files_gone
}

test_a_run_waits_while_a_remover_holds_the_task() {
	# What: a run starts while a remover (discard, accept, gc) holds the
	# task's run lock: it must not start in a worktree being removed.
	# Must: the run waits until the lock is released, then runs.
	sb_task
	sbok "a first run" -- true
	flock -x "$COMMON/agenttask/runs/t1.lock" sleep 1 &
	wait_until 5 sh -c "! flock -n -s '$COMMON/agenttask/runs/t1.lock' true" || fail "no holder"
	local t0 t1
	t0=$(date +%s%N)
	sbok "a run while the lock is held" -- true
	t1=$(date +%s%N)
	wait
	[ $(((t1 - t0) / 1000000)) -ge 500 ] || fail "the run did not wait: $(((t1 - t0) / 1000000)) ms"
}

# ---- limits ----

# The mechanism of limit $1 here (limits.sh tests each one).
cgroup_expected() {
	if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && [ -d /run/systemd/system ]; then
		echo systemd-scope
	elif [ "$ME" = 0 ] && [ -w "/sys/fs/cgroup/$1" ]; then
		echo cgroup-v1
	else
		echo rlimit
	fi
}

test_pids_limit_stops_a_fork_bomb() {
	# What: a fork bomb under --pids 30 (and --timeout 20 as a backstop).
	# Must: forks fail, the run ends, and nothing is left.
	sb_task
	sbrun -v --pids 30 --timeout 20 -- sh -c 'b() { b | b & }; b; sleep 2; exit 7'
	assert_contains "$errout" "pids=30 enforced by $(cgroup_expected pids)" "mechanism"
	sbrun --pids 10 -- sh -c 'for i in $(seq 40); do sleep 5 & done; echo started'
	[ "$rc" != 0 ] || fail "40 children started under --pids 10"
	assert_contains "$errout" "fork" "forks beyond the limit fail"
	sbok "no limit: 40 children" --timeout 20 -- sh -c 'for i in $(seq 40); do sleep 0.5 & done; wait; echo done'
}

test_memory_limit() {
	# What: allocate 300 MB under --memory 64M. Must: fail (OOM kill or ENOMEM).
	sb_task
	sbrun -v --memory 64M --timeout 30 -- /usr/bin/python3 -c 'x = bytearray(300 * 1024 * 1024); print("ALLOCATED")'
	assert_contains "$errout" "memory=67108864 enforced by $(cgroup_expected memory)" "mechanism"
	[ "$rc" != 0 ] || fail "allocation succeeded under the limit"
	assert_not_contains "$out" "ALLOCATED" "no allocation"
	sbok "small allocation" --memory 256M -- /usr/bin/python3 -c 'x = bytearray(32 * 1024 * 1024); print("ok")'
}

test_file_size_limit() {
	# What: write 2 MiB under --file-size 1M. Must: SIGXFSZ (153), file <= 1 MiB.
	sb_task
	sbrun --file-size 1M -- sh -c 'head -c 2097152 /dev/zero > big'
	[ "$rc" != 0 ] || fail "write succeeded"
	[ "$(stat -c %s "$(wt_file big)")" -le 1048576 ] || fail "file grew past the limit"
}

test_cpu_limit() {
	# What: spin under --cpu 1. Must: killed (SIGXCPU 152 or SIGKILL 137) in seconds.
	sb_task
	sbrun --cpu 1 --timeout 20 -- sh -c 'while :; do :; done'
	case "$rc" in 152 | 137) ;; *) fail "exit $rc" ;; esac
}

test_limits_hold_as_root_too() {
	# What: as root, RLIMIT_NPROC would not bind: the pids limit must come
	# from a cgroup (or the run is refused with 125), never be ignored.
	[ "$ME" = 0 ] || skip "only root is exempt from RLIMIT_NPROC"
	sb_task
	sbrun -v --pids 5 -- sh -c 'for i in $(seq 20); do sleep 3 & done; echo started'
	if [ "$rc" = 125 ]; then
		assert_contains "$errout" "RLIMIT_NPROC does not bind root" "refused, with the reason"
	else
		[ "$rc" != 0 ] || fail "20 children started as root under --pids 5"
		assert_contains "$errout" "fork" "forks beyond 5 fail for root too"
	fi
}

# ---- exit statuses, output ----

test_exit_statuses() {
	# What: commands that exit 3, are not found, cannot execute, are killed.
	# Must: 3, 127, 126, 128+N.
	sb_task
	expect_rc 3 "exit 3" -C repo run t1 -- sh -c 'exit 3'
	expect_rc 127 "not found" -C repo run t1 -- no-such-command-$TAG
	assert_contains "$errout" "cannot execute 'no-such-command-$TAG'" "message"
	agent_sh t1 'printf "data\n" >notexec'
	expect_rc 126 "not executable" -C repo run t1 -- ./notexec
	expect_rc 137 "SIGKILL" -C repo run t1 -- sh -c 'kill -KILL $$'
	expect_rc 143 "SIGTERM" -C repo run t1 -- sh -c 'kill -TERM $$'
}

test_json_result() {
	# What: --json on a command writing to both streams, and 2 MiB to stdout.
	# Must: the documented fields; output capped at 1 MiB (head and tail),
	# the bytes dropped counted exactly.
	sb_task
	expect_rc 3 "json" -C repo run t1 --json --memory 512M -- sh -c 'echo out; echo err >&2; exit 3'
	assert_eq "$(json_get "$out" 'j["exit_code"], j["timed_out"], j["stdout"], j["stderr"]')" "(3, False, 'out\\n', 'err\\n')" "fields"
	json_get "$out" 'j["duration_ms"] >= 0 and j["limits"]["memory"]["mechanism"]' >/dev/null
	"$AT" -C repo run t1 --json -- sh -c 'yes | head -c 2097152' >big.json
	assert_eq "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); m="\n[agenttask: %d bytes dropped]\n" % j["stdout_dropped"]; print(len(j["stdout"]) - len(m), j["stdout_dropped"], m in j["stdout"], j["stdout_truncated"], j["exit_code"])' big.json)" "1048576 1048576 True True 0" "1 MiB kept, truncated"
	expect_rc 124 "json timeout" -C repo run t1 --json --timeout 0.3 -- sleep 5
	assert_eq "$(json_get "$out" 'j["timed_out"]')" "True" "timed_out"
}

test_audit_log() {
	# What: two runs, then `agenttask log`. Must: both recorded with argv,
	# status, duration, rusage; a corrupt line is reported, not fatal.
	sb_task
	sbok "first" -- true
	expect_rc 5 "second" -C repo run t1 -- sh -c 'exit 5'
	ok "log json" -C repo log t1 --json
	assert_eq "$(json_get "$out" '[(e["event"], e["argv"][0], e["exit_code"]) for e in j if e["event"] == "run"]')" "[('run', 'true', 0), ('run', 'sh', 5)]" "entries"
	json_get "$out" '[e["duration_ms"] >= 0 and e["max_rss_kb"] > 0 and "user_cpu_ms" in e and "start" in e for e in j if e["event"] == "run"]' | grep -qx '\[True, True\]' || fail "fields missing: $out"
	echo '{not json' >>"$COMMON/agenttask/logs/t1.jsonl"
	ok "log text" -C repo log t1
	assert_contains "$out" "exit 5" "human log"
	assert_contains "$out" "corrupt" "the corrupt line is reported"
	# The person in the worktree (a layered task: made full by path).
	task_path t1
	( cd "$WT" && "$AT" log ) >/dev/null || fail "log without NAME in the worktree"
}

test_usage_errors() {
	# What: bad option values. Must: exit 2 with the bad value named.
	sb_task
	expect_rc 2 "bad memory" -C repo run t1 --memory lots -- true
	assert_contains "$errout" "'lots'" "names the value"
	expect_rc 2 "bad timeout" -C repo run t1 --timeout -1 -- true
	expect_rc 2 "bad pids" -C repo run t1 --pids 0 -- true
	expect_rc 2 "no --" -C repo run t1 true
	expect_rc 2 "bad env" -C repo run t1 --env NOEQUALS -- true
}

test_setup_failure_is_125_with_the_cause() {
	# What: user namespaces disabled (user.max_user_namespaces=0 in a
	# namespace of our own). Must: 125, the sysctl named, the command never run.
	sb_task
	unshare -Ur sh -c "echo 0 > /proc/sys/user/max_user_namespaces && exec '$AT' -C repo run t1 -- touch ran-$TAG" >out.txt 2>err.txt && rc=0 || rc=$?
	assert_eq "$rc" 125 "exit status"
	assert_contains "$(cat err.txt)" "user.max_user_namespaces=0" "the cause is named"
	assert_no_file "$(wt_file ran-$TAG)" "the command did not run unsandboxed"
}

run_tests
