#!/usr/bin/env bash
# The task lifecycle: new, list, status, path, commit, discard; the command
# line itself (help, version, exit codes, -C, NAME from the cwd).
. "$(dirname "$0")/lib.sh"

# common_dir REPO: the repository's git common dir, absolute.
common_dir() {
	git -C "$1" rev-parse --path-format=absolute --git-common-dir
}

# layer_of REPO NAME: where a layered task's own files are (app/layer.h).
layer_of() {
	echo "$(common_dir "$1")/agenttask/layers/$2"
}

# one_line_error WHAT: stderr ($errout) is exactly one line "agenttask: ..." holding WHAT.
one_line_error() {
	assert_eq "$(printf '%s\n' "$errout" | wc -l)" "1" "one line on stderr ($errout)"
	assert_contains "$errout" "agenttask: " "error prefix"
	assert_contains "$errout" "$1" "error message"
}

# ---------------------------------------------------------------- the CLI

test_version_and_help_exit_zero() {
	ok "version" --version
	[[ $(printf '%s\n' "$out" | sed -n 1p) =~ ^agenttask\ [0-9]+\.[0-9]+\.[0-9]+$ ]] ||
		fail "version line: '$out'"
	ok "help" --help
	local c
	for c in new list status path commit discard gc; do
		assert_contains "$out" "  $c " "--help lists '$c'"
	done
}

test_every_command_has_help() {
	local c
	for c in new list status path commit discard gc; do
		ok "$c --help" "$c" --help
		assert_contains "$out" "usage: agenttask $c" "$c --help"
		assert_no_output "$errout" "$c --help writes nothing on stderr"
	done
}

test_help_needs_no_repository() {
	ok "help outside a repository" -C / new --help
	assert_contains "$out" "usage: agenttask new"
}

# The overview says where a task's worktree is: where 'new' makes it.
test_overview_says_where_the_worktree_is() {
	make_repo repo
	ok "new" -C repo new place
	local id=${out%/place}
	id=${id##*/repo-}
	assert_eq "$out" "$XDG_DATA_HOME/agenttask/worktrees/repo-$id/place" "the worktree's place"
	ok "help" --help
	assert_contains "$out" "linked worktree at <base>/<repo>-<id>/NAME" "the overview names it"
	assert_contains "$out" '${XDG_DATA_HOME:-~/.local/share}/agenttask/worktrees;' "and its base"
}

test_usage_errors_exit_two() {
	make_repo repo
	expect_rc 2 "no command" -C repo
	expect_rc 2 "unknown command" -C repo frobnicate
	assert_contains "$errout" "'frobnicate'" "names the unknown command"
	expect_rc 2 "unknown global option" --frobnicate
	expect_rc 2 "-C without a directory" -C
	expect_rc 2 "unknown command option" -C repo list --frobnicate
	assert_eq "$errout" "agenttask: unknown option '--frobnicate' (see 'agenttask list --help')" "one line that names the option"
	expect_rc 2 "option without its value" -C repo new --base
	assert_eq "$errout" "agenttask: option '--base' needs a value (see 'agenttask new --help')" "one line that names the option"
	expect_rc 2 "new without NAME" -C repo new
	expect_rc 2 "new with two names" -C repo new a b
	expect_rc 2 "path without NAME" -C repo path
	expect_rc 2 "list with an argument" -C repo list extra
	expect_rc 2 "gc with a bad --trash-days" -C repo gc --trash-days=-1
	expect_rc 2 "gc with a non-number" -C repo gc --trash-days soon
	assert_empty "no branch made by usage errors" git -C repo branch --list 'agenttask/*'
}

test_not_a_repository_exits_two() {
	mkdir plain
	expect_rc 2 "list outside a repository" -C plain list
	one_line_error "not a git repository"
	expect_rc 2 "new outside a repository" -C plain new x
	one_line_error "'plain'"
	expect_rc 2 "-C a missing directory" -C does-not-exist list
	assert_no_file plain/.git "nothing created"
}

test_empty_repository_is_refused_clearly() {
	git init -q -b main empty
	expect_rc 2 "new in an empty repository" -C empty new x
	one_line_error "no commit"
	expect_rc 2 "list in an empty repository" -C empty list
	assert_empty "no ref made" git -C empty for-each-ref
	assert_no_file "$(common_dir empty)/agenttask" "no state made"
}

test_bare_repository_is_refused_clearly() {
	make_repo repo
	git clone -q --bare repo bare.git
	expect_rc 2 "new in a bare repository" -C bare.git new x
	one_line_error "bare"
	assert_empty "no branch made" git -C bare.git branch --list 'agenttask/*'
	assert_no_file bare.git/agenttask "no state made"
	expect_rc 2 "list in a bare repository" -C bare.git list
	assert_contains "$errout" "git worktree add" "says what would work"
}

# A bare repository's linked worktree has a HEAD and a checkout: the whole
# life of a task works there, and accept updates that checkout (issue 14).
test_bare_repository_linked_worktree_works() {
	require_user_namespaces
	make_repo repo
	git clone -q --bare repo bare.git
	git -C bare.git worktree add -q "$PWD/wt" main
	ok "new in the bare repository's worktree" -C wt new t
	assert_eq "$out" "$(wt_home wt)/t" "task worktree in the data directory"
	agent_sh -C wt t 'printf "from the task\n" >README'
	ok "diff" -C wt diff t
	assert_contains "$out" "+from the task" "the change"
	ok "list" -C wt list --name-only
	assert_eq "$out" "t" "listed"
	ok "accept" -C wt accept t
	assert_eq "$(cat wt/README)" "from the task" "the worktree's checkout of main updated"
	assert_empty "and clean" git -C wt status --porcelain
	assert_eq "$(git -C bare.git show main:README)" "from the task" "main moved"
	ok "new again" -C wt new u
	ok "discard" -C wt discard u
	ok "restore" -C wt restore u
}

# A repository owned by someone else is refused as git refuses it, and the
# message says so, with git's own fix, instead of "not a git repository".
test_repository_of_another_user_reports_dubious_ownership() {
	[ "$(id -u)" = 0 ] || skip "needs root to give a repository to another user"
	local repo=$_at_root/owned   # short: the message names it twice
	make_repo "$repo"
	chown -R 65534:65534 "$repo"
	export HOME=$PWD
	expect_rc 2 "list in another user's repository" -C "$repo" list
	one_line_error "detected dubious ownership in repository at '$repo'"
	assert_contains "$errout" "git config --global --add safe.directory '$repo'" "git's fix"
	expect_rc 2 "from a subdirectory" -C "$repo/src" new x
	assert_contains "$errout" "safe.directory '$repo'" "names the top"
	assert_no_file "$repo/.git/agenttask" "nothing made"
	git config --global --add safe.directory "$repo"
	ok "trusted once git's fix is applied" -C "$repo" list
}

# ---------------------------------------------------------------- new

test_new_creates_branch_and_worktree() {
	! layered_form || require_user_namespaces
	make_repo repo
	ok "new" -C repo new fix-bug
	local wt=$out
	assert_eq "$wt" "$(wt_home repo)/fix-bug" "worktree path"
	git -C repo worktree list --porcelain | grep -qx "worktree $wt" || fail "git worktree list lacks '$wt'"
	assert_eq "$(git -C repo rev-parse agenttask/fix-bug)" "$(git -C repo rev-parse main)" "branch at base"
	if layered_form; then
		# Nothing on the host: the files are the shared base under the task's layer.
		assert_no_file "$wt" "a layered task's path holds nothing on the host"
		agent_sh fix-bug 'git symbolic-ref HEAD && git status --porcelain && cat src/main.c'
		assert_eq "$out" "$(printf 'refs/heads/agenttask/fix-bug\nint main(void) { return 0; }')" \
			"worktree HEAD, clean, files there"
	else
		assert_eq "$(git -C "$wt" symbolic-ref HEAD)" "refs/heads/agenttask/fix-bug" "worktree HEAD"
		assert_empty "fresh worktree is clean" git -C "$wt" status --porcelain
		assert_file "$wt/src/main.c" "files checked out"
	fi
	assert_empty "main worktree untouched" git -C repo status --porcelain
	assert_eq "$(git -C repo symbolic-ref HEAD)" "refs/heads/main" "main HEAD untouched"
	assert_fsck repo
}

test_new_records_base_and_creation_time() {
	make_repo repo
	local before after
	before=$(date +%s)
	ok "new" -C repo new t
	after=$(date +%s)
	ok "list --json" -C repo list --json
	assert_eq "$(json_get "$out" 'len(j)')" "1" "one task"
	assert_eq "$(json_get "$out" 'j[0]["name"]')" "t" "name"
	assert_eq "$(json_get "$out" 'j[0]["branch"]')" "agenttask/t" "branch"
	assert_eq "$(json_get "$out" 'j[0]["base_branch"]')" "main" "base branch"
	assert_eq "$(json_get "$out" 'j[0]["base_commit"]')" "$(git -C repo rev-parse main)" "base commit"
	assert_eq "$(json_get "$out" 'j[0]["head_commit"]')" "$(git -C repo rev-parse main)" "head commit"
	assert_eq "$(json_get "$out" 'j[0]["path"]')" "$(wt_home repo)/t" "path"
	assert_eq "$(json_get "$out" 'j[0]["dirty"]')" "False" "dirty"
	local created
	created=$(json_get "$out" 'int(__import__("calendar").timegm(__import__("time").strptime(j[0]["created"], "%Y-%m-%dT%H:%M:%SZ")))')
	[ "$created" -ge "$before" ] && [ "$created" -le "$after" ] ||
		fail "created $created not within [$before, $after]"
}

test_new_with_base_branch_records_that_branch() {
	make_repo repo
	git -C repo branch feature HEAD~1
	ok "new --base feature" -C repo new t --base feature
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$(git -C repo rev-parse feature)" "branch at feature"
	ok "status --json" -C repo status t --json
	assert_eq "$(json_get "$out" 'j["base_branch"]')" "feature" "base branch"
	assert_eq "$(json_get "$out" 'j["base_commit"]')" "$(git -C repo rev-parse feature)" "base commit"
	assert_eq "$(git -C repo symbolic-ref HEAD)" "refs/heads/main" "HEAD untouched"
}

test_new_with_base_commit_records_checked_out_branch() {
	make_repo repo
	local sha
	sha=$(git -C repo rev-parse HEAD~1)
	ok "new --base SHA" -C repo new t --base "$sha"
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$sha" "branch at the commit"
	ok "status --json" -C repo status t --json
	assert_eq "$(json_get "$out" 'j["base_commit"]')" "$sha" "base commit is the one given"
	assert_eq "$(json_get "$out" 'j["base_branch"]')" "main" "base branch is the checked-out one"
	assert_eq "$(json_get "$out" 'j["commits_ahead"]')" "0" "nothing ahead"
}

test_new_on_detached_head_has_no_base_branch() {
	make_repo repo
	git -C repo checkout -q --detach HEAD~1
	ok "new" -C repo new t
	ok "status --json" -C repo status t --json
	assert_empty "no base branch" json_get "$out" 'j["base_branch"]'
	assert_eq "$(json_get "$out" 'j["base_commit"]')" "$(git -C repo rev-parse HEAD)" "base commit"
}

test_new_with_unknown_base_makes_nothing() {
	make_repo repo
	expect_rc 2 "unknown base" -C repo new t --base no-such-rev
	one_line_error "'no-such-rev'"
	assert_empty "no branch" git -C repo branch --list 'agenttask/*'
	assert_eq "$(git -C repo worktree list | wc -l)" "1" "no worktree"
	assert_no_file "$(wt_home repo)/t" "no directory"
	assert_no_file "$(common_dir repo)/agenttask/tasks/t.json" "no record"
	ok "the name is still free" -C repo new t
}

test_new_rejects_bad_names_and_makes_nothing() {
	make_repo repo
	local long65 name
	long65=$(printf 'a%.0s' $(seq 65))
	for name in "" ".hidden" "-x" "_x" "a..b" "a/b" "../x" "a b" "a." "x.lock" "café" \
		"a:b" "a~1" "a^" "a*" "$long65"; do
		expect_rc 2 "name '$name'" -C repo new -- "$name"
		one_line_error "task name"
	done
	assert_empty "no branch" git -C repo for-each-ref --format='%(refname)' refs/heads/agenttask
	assert_eq "$(git -C repo worktree list | wc -l)" "1" "no worktree"
	local tasks
	tasks=$(common_dir repo)/agenttask/tasks
	[ ! -d "$tasks" ] || assert_empty "no record" ls -A "$tasks"
	assert_fsck repo
}

test_new_accepts_names_at_the_limits() {
	make_repo repo
	local long64
	long64=$(printf 'b%.0s' $(seq 64))
	ok "64 characters" -C repo new "$long64"
	ok "one digit" -C repo new 7
	ok "dots dashes underscores" -C repo new "v1.2_rc-3"
	assert_eq "$(git -C repo branch --list 'agenttask/*' | wc -l)" "3" "three branches"
	assert_fsck repo
}

test_new_refuses_an_existing_name() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo work >work.txt'
	expect_rc 1 "same name again" -C repo new t
	one_line_error "'t'"
	agent_sh t 'cat work.txt'
	assert_eq "$out" "work" "existing task untouched"
	assert_eq "$(git -C repo worktree list | wc -l)" "2" "still one task worktree"
}

test_new_refuses_a_branch_the_user_made() {
	make_repo repo
	git -C repo branch agenttask/mine HEAD~1
	local before
	before=$(git -C repo rev-parse agenttask/mine)
	expect_rc 1 "branch exists" -C repo new mine
	one_line_error "'agenttask/mine'"
	assert_eq "$(git -C repo rev-parse agenttask/mine)" "$before" "user's branch untouched"
	assert_eq "$(git -C repo worktree list | wc -l)" "1" "no worktree"
	assert_no_file "$(common_dir repo)/agenttask/tasks/mine.json" "no record"
}

# ---------------------------------------------------------------- list, status, path

test_list_shows_every_task() {
	make_repo repo
	ok "new a" -C repo new alpha
	ok "new b" -C repo new beta --base HEAD~1
	ok "list" -C repo list
	assert_eq "$(printf '%s\n' "$out" | wc -l)" "3" "a header and two rows"
	# The header names every column; the branch column holds the task's branch.
	assert_eq "$(printf '%s\n' "$out" | sed -n 1p | tr -s ' ')" \
		"NAME STATE BRANCH BASE HEAD CREATED PATH" "header"
	assert_eq "$(printf '%s\n' "$out" | awk 'NR > 1 { print $1 " " $3 " " $4 }')" \
		"$(printf 'alpha agenttask/alpha main\nbeta agenttask/beta main')" "branch and base columns"
	assert_contains "$out" "alpha" "alpha listed"
	assert_contains "$out" "beta" "beta listed"
	assert_contains "$out" "$(wt_home repo)/beta" "path listed"
	assert_contains "$out" "$(git -C repo rev-parse --short=12 HEAD~1)" "beta's commit listed"
	ok "list --json" -C repo list --json
	assert_eq "$(json_get "$out" '",".join(t["name"] for t in j)')" "alpha,beta" "names, sorted"
	assert_eq "$(json_get "$out" 'all({"name","branch","base_branch","base_commit","head_commit","path","created","dirty"} <= set(t) for t in j)')" \
		"True" "every task has every field"
	ok "list --name-only" -C repo list --name-only
	assert_eq "$out" "$(printf 'alpha\nbeta')" "names alone"
	expect_rc 2 "--json with --name-only" -C repo list --json --name-only
}

test_list_of_no_tasks_is_empty() {
	make_repo repo
	ok "list" -C repo list
	assert_no_output "$out" "no rows"
	ok "list --json" -C repo list --json
	assert_eq "$(json_get "$out" 'j')" "[]" "empty array"
}

test_dirty_flag_follows_the_worktree() {
	require_user_namespaces
	make_repo repo
	printf '*.log\n' >repo/.gitignore
	git -C repo add .gitignore
	git -C repo commit -q -m ignore
	ok "new" -C repo new t
	agent_sh t 'echo noise >build.log'
	ok "list --json" -C repo list --json
	assert_eq "$(json_get "$out" 'j[0]["dirty"]')" "False" "ignored file is not dirt"
	agent_sh t 'echo change >>README'
	ok "list --json" -C repo list --json
	assert_eq "$(json_get "$out" 'j[0]["dirty"]')" "True" "modified file"
	agent_sh t 'git checkout -q README && echo new >untracked'
	ok "status --json" -C repo status t --json
	assert_eq "$(json_get "$out" 'j["dirty"]')" "True" "untracked file"
	ok "status" -C repo status t
	assert_contains "$out" "uncommitted" "human status says so"
}

test_status_and_path_of_a_task() {
	make_repo repo
	ok "new" -C repo new t
	local wt=$out
	ok "path" -C repo path t
	assert_eq "$out" "$wt" "path"
	ok "status" -C repo status t
	assert_contains "$out" "agenttask/t" "status names the branch"
	assert_contains "$out" "main" "status names the base"
	ok "status --json" -C repo status t --json
	assert_eq "$(json_get "$out" 'j["path"]')" "$wt" "json path"
	assert_eq "$(json_get "$out" 'j["name"]')" "t" "json name"
}

test_unknown_task_exits_two() {
	make_repo repo
	expect_rc 2 "status" -C repo status nope
	one_line_error "'nope'"
	expect_rc 2 "path" -C repo path nope
	one_line_error "'nope'"
	expect_rc 2 "commit" -C repo commit nope
	expect_rc 2 "discard" -C repo discard nope
	one_line_error "'nope'"
	expect_rc 2 "invalid name" -C repo status ../x
}

test_name_defaults_to_the_task_of_the_cwd() {
	make_repo repo
	ok "new a" -C repo new a
	ok "new b" -C repo new b
	local wt home
	home=$(wt_home repo)
	# The person works in b's worktree (a layered task: made full by path).
	task_path b
	wt=$(cd "$out" && pwd)
	mkdir -p "$wt/src/deep"
	(
		cd "$wt/src/deep"
		ok "status from inside" status --json
		assert_eq "$(json_get "$out" 'j["name"]')" "b" "task of the cwd"
		echo x >here.txt
		ok "commit from inside" commit -m inside
		ok "list from inside" list --name-only
		assert_eq "$(printf '%s\n' "$out" | wc -l)" "2" "list from inside sees all"
		ok "path with a name from inside" path a
		assert_eq "$out" "$home/a" "other task's path"
	)
	assert_eq "$(git -C repo log -1 --format=%s agenttask/b)" "inside" "committed to b"
	assert_eq "$(git -C repo rev-parse agenttask/a)" "$(git -C repo rev-parse main)" "a untouched"
	ok "-C a subdirectory of the task" -C "$wt/src" status --json
	assert_eq "$(json_get "$out" 'j["name"]')" "b" "task of -C"
	expect_rc 2 "no NAME in the main worktree" -C repo status
	one_line_error "not inside a task"
}

test_dash_c_with_a_subdirectory_of_the_main_worktree() {
	make_repo repo
	ok "new from a subdirectory" -C repo/src new t
	assert_eq "$out" "$(wt_home repo)/t" "same repository"
	ok "list from a subdirectory" -C repo/src list
	assert_contains "$out" "t " "listed"
}

# ---------------------------------------------------------------- commit

test_commit_records_every_kind_of_change() {
	require_user_namespaces
	make_repo repo
	printf 'old\n' >repo/gone.txt
	printf '#!/bin/sh\n' >repo/run.sh
	mkdir -p repo/sub
	echo inside >repo/sub/file
	printf 'ignored/\n*.o\n' >repo/.gitignore
	git -C repo add -A
	git -C repo commit -q -m more
	ok "new" -C repo new t
	local wt=$out base
	base=$(git -C repo rev-parse agenttask/t)

	# The agent's changes; it prints the id of README's new content.
	agent_sh t 'set -e
		echo changed >>README                   # modified
		rm gone.txt                             # deleted
		echo spaced >"with space.txt"           # untracked, a space
		echo accent >"été ünïcode.txt"          # untracked, non-ASCII
		mkdir -p new/dir
		echo deep >new/dir/file.c               # untracked in a new directory
		chmod +x run.sh                         # mode change only
		printf "#!/bin/sh\necho hi\n" >tool
		chmod 755 tool                          # new executable
		ln -s README link                       # symlink
		ln -s new/dir dirlink                   # symlink to a directory
		mkdir -p ignored
		echo no >ignored/secret                 # ignored directory
		echo no >main.o                         # ignored pattern
		git add README                          # a staged change is included too
		rm src/main.c
		ln -s ../README src/main.c              # file replaced by a symlink
		rm -rf sub
		echo now-a-file >sub                    # directory replaced by a file
		git hash-object README'
	local readme_blob=$out

	ok "commit" -C repo commit t -m "all of it"
	assert_contains "$out" "agenttask/t" "says where"
	assert_eq "$(git -C repo rev-list --count "$base..agenttask/t")" "1" "exactly one commit"
	assert_eq "$(git -C repo log -1 --format=%s agenttask/t)" "all of it" "message"
	assert_eq "$(git -C repo rev-parse agenttask/t~1)" "$base" "parent is the old tip"

	local tree
	tree=$(git -C repo ls-tree -r agenttask/t)
	assert_contains "$tree" "$(printf '100644 blob %s\tREADME' "$readme_blob")" "modified content"
	assert_not_contains "$tree" "gone.txt" "deletion"
	assert_contains "$tree" "	with space.txt" "file with a space"
	assert_eq "$(git -C repo ls-tree --name-only -z agenttask/t | tr '\0' '\n' | grep -c 'été ünïcode.txt')" "1" "non-ASCII name"
	assert_contains "$tree" "	new/dir/file.c" "new directory"
	assert_contains "$tree" "100755 blob $(git -C repo rev-parse HEAD:run.sh)	run.sh" "mode change"
	assert_contains "$tree" "100755 blob" "new executable"
	assert_contains "$(git -C repo ls-tree agenttask/t tool)" "100755" "tool is executable"
	assert_contains "$(git -C repo ls-tree agenttask/t link)" "120000" "symlink"
	assert_eq "$(git -C repo cat-file -p agenttask/t:link)" "README" "symlink target"
	assert_contains "$(git -C repo ls-tree agenttask/t dirlink)" "120000" "symlink to a directory"
	assert_contains "$(git -C repo ls-tree agenttask/t src/main.c)" "120000" "file that became a symlink"
	assert_contains "$(git -C repo ls-tree agenttask/t sub)" "100644 blob" "directory that became a file"
	assert_not_contains "$tree" "sub/file" "the directory's file is gone"
	assert_not_contains "$tree" "ignored/" "ignored directory"
	assert_not_contains "$tree" "main.o" "ignored file"

	agent_sh t 'git status --porcelain && test -f main.o && echo main.o kept'
	assert_eq "$out" "main.o kept" "worktree clean after commit, ignored file left in place"
	assert_eq "$(git -C repo rev-parse main)" "$(git -C repo rev-parse HEAD)" "main untouched"
	assert_empty "main worktree untouched" git -C repo status --porcelain
	assert_fsck repo
}

test_commit_with_nothing_to_commit_makes_no_commit() {
	make_repo repo
	ok "new" -C repo new t
	local before
	before=$(git -C repo rev-parse agenttask/t)
	ok "commit" -C repo commit t
	assert_contains "$out" "nothing to commit" "says so"
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$before" "no commit"
}

test_commit_default_message_names_the_task() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo x >x'
	ok "commit" -C repo commit t
	assert_contains "$(git -C repo log -1 --format=%B agenttask/t)" "'t'" "default message"
}

test_commit_author_comes_from_the_repository_config() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo x >x'
	ok "commit" -C repo commit t
	assert_eq "$(git -C repo log -1 --format='%an <%ae>|%cn <%ce>' agenttask/t)" \
		"Repo User <user@example.com>|Repo User <user@example.com>" "author and committer"
}

test_commit_author_falls_back_without_any_config() {
	require_user_namespaces
	make_repo repo
	git -C repo config --unset user.name
	git -C repo config --unset user.email
	ok "new" -C repo new t
	agent_sh t 'echo x >x'
	mkdir home
	(
		export HOME=$PWD/home XDG_CONFIG_HOME=$PWD/home/.config GIT_CONFIG_NOSYSTEM=1
		unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
		if git config user.name >/dev/null 2>&1 || git config --system user.name >/dev/null 2>&1 ||
			git config -f /etc/gitconfig user.name >/dev/null 2>&1; then
			skip "a user.name is configured on this machine outside HOME"
		fi
		ok "commit" -C repo commit t
	) || { [ $? -eq 77 ] && exit 77; fail "commit without configuration"; }
	assert_eq "$(git -C repo log -1 --format='%an%ae' agenttask/t)" "agenttaskagenttask@localhost" "fallback author"
	assert_eq "$(git -C repo log -1 --format='%cn%ce' agenttask/t)" "agenttaskagenttask@localhost" "fallback committer"
}

test_commit_twice_stacks_commits() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo 1 >one'
	ok "first" -C repo commit t -m one
	agent_sh t 'echo 2 >two'
	ok "second" -C repo commit t --message two
	assert_eq "$(git -C repo log --format=%s main..agenttask/t | tr '\n' ' ')" "two one " "two commits"
	ok "status --json" -C repo status t --json
	assert_eq "$(json_get "$out" 'j["commits_ahead"]')" "2" "commits ahead"
	assert_eq "$(json_get "$out" 'j["head_commit"]')" "$(git -C repo rev-parse agenttask/t)" "head commit"
}

# ---------------------------------------------------------------- discard

test_discard_removes_the_task_and_keeps_main() {
	require_user_namespaces
	make_repo repo
	ok "new keep" -C repo new keep
	ok "new" -C repo new t
	local wt=$out cd main_before
	cd=$(common_dir repo)
	main_before=$(git -C repo rev-parse main)
	agent_sh t 'echo work >work.txt'
	ok "commit" -C repo commit t -m work
	ok "discard" -C repo discard t
	assert_contains "$out" "refs/agenttask/trash/t/" "names the trash ref"
	assert_no_file "$wt" "worktree directory"
	assert_no_file "$(layer_of repo t)" "layer"
	assert_no_file "$cd/worktrees/agenttask-t" "admin directory"
	assert_no_file "$cd/agenttask/tasks/t.json" "record"
	assert_empty "branch" git -C repo branch --list agenttask/t
	git -C repo worktree list --porcelain | grep -q "worktrees/t$" && fail "git still lists the worktree"
	assert_eq "$(git -C repo rev-parse main)" "$main_before" "base branch untouched"
	assert_empty "main worktree untouched" git -C repo status --porcelain
	assert_eq "$(git -C repo branch --list agenttask/keep | wc -l)" "1" "other task kept"
	ok "list" -C repo list
	assert_not_contains "$out" "t  " "not listed"
	assert_contains "$out" "keep" "other task listed"
	ok "the name can be used again" -C repo new t
	assert_fsck repo
}

test_discard_saves_the_full_state_in_the_trash() {
	require_user_namespaces
	make_repo repo
	printf '*.log\n' >repo/.gitignore
	git -C repo add .gitignore
	git -C repo commit -q -m ignore
	ok "new" -C repo new t
	agent_sh t 'echo committed >committed.txt'
	ok "commit" -C repo commit t -m committed
	local tip
	tip=$(git -C repo rev-parse agenttask/t)
	agent_sh t 'set -e
		echo modified >>README
		echo untracked >"untracked file.txt"
		rm src/main.c
		chmod +x committed.txt
		ln -s README link
		echo ignored >debug.log
		git hash-object README'
	local readme_blob=$out
	ok "discard" -C repo discard t
	local refs
	refs=$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/trash/t/)
	assert_eq "$(printf '%s\n' "$refs" | wc -l)" "1" "one trash entry"
	[ -n "$refs" ] || fail "no trash entry"
	local tree
	tree=$(git -C repo ls-tree -r "$refs")
	assert_contains "$tree" "$readme_blob	README" "uncommitted modification saved"
	assert_contains "$tree" "	untracked file.txt" "untracked file saved"
	assert_contains "$tree" "	committed.txt" "committed file saved"
	assert_contains "$(git -C repo ls-tree "$refs" committed.txt)" "100755" "mode change saved"
	assert_contains "$(git -C repo ls-tree "$refs" link)" "120000" "symlink saved"
	assert_not_contains "$tree" "src/main.c" "deletion saved"
	assert_not_contains "$tree" "debug.log" "ignored file not saved"
	assert_eq "$(git -C repo rev-parse "$refs^1")" "$tip" "parent is the branch tip"
	assert_contains "$(git -C repo log -1 --format=%B "$refs")" "Agenttask-Base-Commit: $(git -C repo rev-parse main)" "base recorded"
	assert_fsck repo
}

test_discard_twice_keeps_both_trash_entries() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo one >f'
	ok "discard 1" -C repo discard t
	ok "new again" -C repo new t
	agent_sh t 'echo two >f'
	ok "discard 2" -C repo discard t
	assert_eq "$(git -C repo for-each-ref refs/agenttask/trash/t/ | wc -l)" "2" "two entries"
}

test_discard_from_inside_the_worktree() {
	make_repo repo
	ok "new" -C repo new t
	# The person in the worktree (a layered task: made full by path).
	task_path t
	local wt=$out
	(
		cd "$wt"
		ok "discard without NAME" discard
	)
	assert_no_file "$wt" "worktree removed"
	assert_empty "branch removed" git -C repo branch --list agenttask/t
}

# What: the agent plants links to a directory and a file outside its
# worktree, and a tree it made unwritable. Must: discard removes the
# worktree (a layered task's layer) whole, never reaching through a link:
# the outside directory and file are untouched.
test_discard_does_not_follow_links_out_of_the_worktree() {
	require_user_namespaces
	make_repo repo
	mkdir outside
	echo precious >outside/keep.txt
	ok "new" -C repo new t
	local wt=$out
	agent_sh t 'set -e
		ln -s "$1" escape
		ln -s "$1/keep.txt" escape-file
		mkdir -p ro/inner
		echo x >ro/inner/f
		chmod 500 ro/inner ro' "$PWD/outside"
	ok "discard" -C repo discard t
	assert_no_file "$wt" "worktree removed"
	assert_no_file "$(layer_of repo t)" "layer removed"
	assert_eq "$(ls -A outside)" "keep.txt" "nothing added or removed outside"
	assert_eq "$(cat outside/keep.txt)" "precious" "outside content survives"
}

test_main_worktree_changes_survive_the_lifecycle() {
	require_user_namespaces
	make_repo repo
	echo local >>repo/README
	echo mine >repo/untracked.txt
	ok "new" -C repo new t
	agent_sh t 'echo x >x'
	ok "commit" -C repo commit t
	ok "discard" -C repo discard t
	assert_eq "$(git -C repo status --porcelain | sort | tr '\n' ' ')" " M README ?? untracked.txt " "user's changes untouched"
}

test_new_in_a_linked_worktree_is_based_on_its_branch() {
	make_repo repo
	git -C repo worktree add -q -b feat ../feat
	echo f >feat/f
	git -C feat add f
	git -C feat commit -q -m feat
	ok "new from the user's linked worktree" -C feat new t
	local rec
	ok "status --json" -C repo status t --json
	assert_eq "$(json_get "$out" 'j["base_branch"]')" "feat" "base branch is the worktree's"
	assert_eq "$(json_get "$out" 'j["base_commit"]')" "$(git -C feat rev-parse HEAD)" "base commit is the worktree's HEAD"
	# The person in the task's worktree (a layered task: made full by path).
	task_path t
	ok "new from inside a task worktree" -C "$out" new u
	ok "status --json" -C repo status u --json
	assert_eq "$(json_get "$out" 'j["base_branch"]')" "main" "a task's own branch is never a base by default"
}

# git add would record it as a gitlink to its HEAD, and every later git
# status would run its hooks: agenttask refuses it (hostile.sh has the attack).
test_commit_refuses_an_embedded_repository() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	local tip
	tip=$(git -C repo rev-parse agenttask/t)
	agent_sh t 'set -e
		git init -q inner
		echo x >inner/f
		git -C inner add f
		git -C inner -c user.name=agent -c user.email=agent@example.com commit -q -m inner'
	expect_rc 1 "commit with an embedded repository" -C repo commit t
	assert_contains "$errout" "embedded repository 'inner'" "names it"
	assert_eq "$(git -C repo rev-parse agenttask/t)" "$tip" "nothing committed"
	expect_rc 1 "discard refuses what it cannot save" -C repo discard t
	assert_contains "$errout" "discard --force" "offers --force"
	ok "discard --force" -C repo discard --force t
}

test_list_json_marks_half_made_tasks() {
	make_repo repo
	ok "new" -C repo new t
	local rec
	rec="$(git -C repo rev-parse --absolute-git-dir)/agenttask/tasks/t.json"
	sed -i 's/"ready"/"creating"/' "$rec"
	at -C repo list --json
	assert_eq "$(json_get "$out" 'j[0]["phase"]')" "half-made" "phase of an interrupted task"
}

test_audit_log_records_the_lifecycle_and_outlives_the_task() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo x >x'
	ok "accept" -C repo accept t
	ok "new again" -C repo new t
	ok "discard" -C repo discard t
	ok "log of a removed task" -C repo log t --json
	# The agent's run that wrote x is one of them.
	assert_eq "$(json_get "$out" '" ".join(e["event"] for e in j)')" "new run accept new discard" "events in order"
	assert_eq "$(json_get "$out" 'j[2]["commit"]')" "$(git -C repo rev-parse main)" "accept names the new tip"
	assert_contains "$(json_get "$out" 'j[4]["trash"]')" "refs/agenttask/trash/t/" "discard names the trash entry"
}

# What: commit and restore change the repository too. Must: logged like the
# rest (the commit made, the trash entry brought back), and a commit that
# makes nothing is not an event.
test_commit_and_restore_are_logged() {
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'echo x >x'
	ok "commit" -C repo commit t -m "the change"
	ok "commit with nothing to commit" -C repo commit t
	ok "discard" -C repo discard t
	ok "restore" -C repo restore t
	ok "log" -C repo log t --json
	# The agent's run that wrote x is one of them.
	assert_eq "$(json_get "$out" '" ".join(e["event"] for e in j)')" "new run commit discard restore" \
		"events in order"
	assert_eq "$(json_get "$out" 'j[2]["commit"]')" "$(git -C repo rev-parse agenttask/t)" \
		"commit names the commit made"
	assert_eq "$(json_get "$out" 'j[4]["trash"]')" "$(json_get "$out" 'j[3]["trash"]')" \
		"restore names the entry discard made"
}

test_discard_refuses_what_it_cannot_save_unless_forced() {
	# What: the worktree holds a path git refuses to record.
	# Must: discard removes nothing and says why; --force saves the commits only.
	require_user_namespaces
	make_repo repo
	ok "new" -C repo new t
	local wt=$out
	agent_sh t 'echo committed >c'
	ok "commit" -C repo commit t -m "work"
	local tip
	tip=$(git -C repo rev-parse agenttask/t)
	agent_sh t 'mkdir ".git " && touch ".git /x"'
	expect_rc 1 "discard of an unrecordable worktree" -C repo discard t
	# A full worktree's scan names the file; a layered task's reader the
	# directory whose name git refuses (a tree entry it cannot write).
	if layered_form; then
		assert_contains "$errout" "cannot record '.git '" "names the path"
	else
		assert_contains "$errout" "'.git /x'" "names the path"
	fi
	assert_contains "$errout" "--force" "says how to go on"
	agent_sh t 'cat c && ls ".git "'
	assert_eq "$out" "$(printf 'committed\nx')" "nothing removed"
	ok "discard --force" -C repo discard t --force
	assert_no_file "$wt" "worktree removed"
	assert_no_file "$(layer_of repo t)" "layer removed"
	assert_eq "$(git -C repo rev-parse "$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/trash/t)^")" "$tip" "the commits are in the trash"
	ok "restore" -C repo restore t
	assert_eq "$(cat "$out/c")" "committed" "committed work restored"
}

run_tests
