#!/usr/bin/env bash
# agenttask diff: the task's whole change against its merge base, with the
# git command line as the oracle. The oracle stages the worktree's full
# state into a throwaway index (GIT_INDEX_FILE), so that neither the task's
# index nor its files are touched, and runs `git diff --cached MERGE-BASE`.
# The agent makes the task's changes in its sandbox (agent_sh); a layered
# task's files, which are not on the host, are judged by git in a copy the
# agent's sandbox gives of them (in_task): agenttask's diff read from the
# layer against git's on a full checkout of the same state.
. "$(dirname "$0")/lib.sh"

unset COLUMNS NO_COLOR

# new_task REPO NAME: create a task; its worktree path in $wt.
new_task() {
	ok "new $2" -C "$1" new "$2"
	wt=$out
}

# admin_dir WT: git's directory of the task whose worktree is WT.
admin_dir() {
	echo "$(git -C repo rev-parse --path-format=absolute --git-common-dir)/worktrees/agenttask-$(basename "$1")"
}

# in_task WT COMMAND...: COMMAND run at the top of the task's worktree WT.
# A layered task has none on the host: then at the top of a copy of its
# files as its agent sees them (taken in its sandbox by tar), with the
# task's own git directory: git on a full checkout of the same state.
in_task() {
	local wt=$1 copy status=0 admin
	shift
	if [ -e "$wt/.git" ]; then
		(cd "$wt" && "$@")
		return
	fi
	admin=$(admin_dir "$wt")
	copy=$(mktemp -d "$_at_root/files.XXXXXX")
	"$AT" -C repo run "$(basename "$wt")" -- tar -cf - --exclude=./.git . | tar -xf - -C "$copy" ||
		fail "the files of the task at '$wt'"
	# No optional lock: git status must not refresh the task's index with the copy's stat data.
	(cd "$copy" && GIT_DIR=$admin GIT_WORK_TREE=$copy GIT_OPTIONAL_LOCKS=0 "$@") ||
		status=$?
	rm -rf "$copy"
	return $status
}

# staged_git INDEX ARGS...: git add -A into a copy of INDEX (-p: a copy
# with a newer mtime would hide racily-clean files from git), then git ARGS.
staged_git() {
	local idx
	idx=$(mktemp "$_at_root/index.XXXXXX")
	cp -p "$1" "$idx"
	shift
	GIT_INDEX_FILE=$idx git add -A
	GIT_INDEX_FILE=$idx git "$@"
	rm -f "$idx"
}

# oracle WT BASE ARGS...: `git diff --cached BASE ARGS` of the worktree's full state.
oracle() {
	local wt=$1 base=$2
	shift 2
	in_task "$wt" staged_git "$(admin_dir "$wt")/index" diff --cached "$base" "$@"
}

# oracle_tree WT: the id of the tree of the worktree's full state.
oracle_tree() {
	in_task "$1" staged_git "$(admin_dir "$1")/index" write-tree
}

# same_as_git WHAT REPO NAME WT BASE ARGS...: agenttask diff NAME ARGS and the
# oracle must print the same bytes.
same_as_git() {
	local what=$1 repo=$2 name=$3 wt=$4 base=$5
	shift 5
	oracle "$wt" "$base" "$@" >want.out
	"$AT" -C "$repo" diff "$name" "$@" >got.out || fail "$what: agenttask diff $name $* failed"
	if ! cmp -s want.out got.out; then
		diff -u want.out got.out | head -60 >&2 || true
		fail "$what: 'agenttask diff $name $*' differs from git diff"
	fi
}

merge_base() {
	git -C "$1" merge-base main "agenttask/$2"
}

# A repository with files of every kind, and a task changing each of them:
# committed and uncommitted, untracked, ignored, spaces and non-ASCII names,
# symlinks, a mode change, binary files, a rename, deletions, no final newline.
make_rich_task() {
	make_repo repo
	printf 'a\nb\nc\n' >repo/f
	printf 'x\n' >"repo/my file.txt"
	printf 'foo\n' >"repo/naïve-ü.txt"
	printf 'run\n' >repo/tool.sh
	printf 'rn content line\nmore\nmore2\nmore3\n' >repo/old
	mkdir -p repo/lib/deep
	printf 'deep one\ndeep two\ndeep three\n' >repo/lib/deep/mod.c
	printf 'last' >repo/eol
	printf 'bin\0ary' >repo/bin.dat
	ln -s f repo/link
	printf 'f\n' >repo/typechange
	printf 'gone\n' >repo/gone.txt
	: >repo/empty-gone
	printf 'one\r\ntwo\r\n' >repo/crlf.txt
	printf 'ignored.log\nbuild/\n' >repo/.gitignore
	{
		echo 'int compute(int x)'
		echo '{'
		for i in 1 2 3 4 5 6 7 8 9; do echo "	x += $i;"; done
		echo '	return x;'
		echo '}'
	} >repo/func.c
	git -C repo add -A
	git -C repo commit -q -m "files of every kind"

	new_task repo rich
	# The agent's work: committed on the task branch, then uncommitted and untracked.
	agent_sh rich 'printf "a\nB\nc\nd\n" >f
		chmod +x tool.sh
		git mv old new
		printf "more4\n" >>new
		git mv lib/deep/mod.c lib/mod.c
		git commit -q -am "committed part"
		printf "y\n" >>"my file.txt"
		printf "z\n" >>"naïve-ü.txt"
		printf "last2" >eol
		printf "bin\0ary2" >bin.dat
		printf "n\0b" >newbin
		ln -sf tool.sh link
		rm typechange
		ln -s f typechange
		ln -s "my file.txt" "new link"
		rm gone.txt empty-gone
		: >empty-new
		printf "new\n" >"new file.txt"
		printf "one\r\nTWO\r\n" >crlf.txt
		sed -i "s/x += 6;/x -= 6;/" func.c
		printf "a\n\n   \nx \t\n\tb\n \tc\n" >ws.txt
		mkdir -p "sub dir" build
		printf "nested\n" >"sub dir/n.txt"
		printf "noise\n" >ignored.log
		printf "noise\n" >build/out.o'
}

# ---------------------------------------------------------------- output

test_diff_shows_committed_uncommitted_and_untracked_like_git() {
	make_repo repo
	new_task repo t
	agent_sh t 'printf "committed\n" >>README && git commit -q -am "on the task branch" &&
		printf "uncommitted\n" >>src/main.c && printf "untracked\n" >NEW.txt &&
		printf "*.log\n" >.gitignore && printf "ignored\n" >debug.log'
	local base
	base=$(merge_base repo t)
	same_as_git "patch" repo t "$wt" "$base"
	ok "name-only" -C repo diff t --name-only
	assert_eq "$out" "$(printf '.gitignore\nNEW.txt\nREADME\nsrc/main.c')" "every kind of change, nothing ignored"
	ok "patch" -C repo diff t
	assert_contains "$out" "+committed" "committed change"
	assert_contains "$out" "+uncommitted" "uncommitted change"
	assert_contains "$out" "+untracked" "untracked file"
	assert_not_contains "$out" "debug.log" "ignored file"
}

test_diff_matches_git_for_every_kind_of_file() {
	make_rich_task
	local base
	base=$(merge_base repo rich)
	same_as_git "patch" repo rich "$wt" "$base"
	same_as_git "stat" repo rich "$wt" "$base" --stat
	same_as_git "name-only" repo rich "$wt" "$base" --name-only
	same_as_git "coloured patch" repo rich "$wt" "$base" --color=always
	same_as_git "coloured stat" repo rich "$wt" "$base" --stat --color=always
	COLUMNS=50 same_as_git "stat at 50 columns" repo rich "$wt" "$base" --stat
}

test_diff_names_special_changes_as_git_does() {
	make_rich_task
	ok "patch" -C repo diff rich
	assert_contains "$out" 'Binary files a/bin.dat and b/bin.dat differ' "binary change"
	assert_contains "$out" 'Binary files /dev/null and b/newbin differ' "binary addition"
	assert_contains "$out" "$(printf 'diff --git a/tool.sh b/tool.sh\nold mode 100644\nnew mode 100755')" "mode change"
	assert_contains "$out" "$(printf 'rename from old\nrename to new')" "rename"
	assert_contains "$out" "$(printf 'rename from lib/deep/mod.c\nrename to lib/mod.c')" "rename across directories"
	assert_contains "$out" "$(printf 'diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644')" "deletion"
	assert_contains "$out" "$(printf 'diff --git a/new link b/new link\nnew file mode 120000')" "new symlink"
	assert_contains "$out" "$(printf 'deleted file mode 100644')" "type change: the file goes"
	assert_contains "$out" "$(printf 'diff --git a/typechange b/typechange\nnew file mode 120000')" "type change: the link comes"
	assert_contains "$out" 'diff --git "a/na\303\257ve-\303\274.txt" "b/na\303\257ve-\303\274.txt"' "non-ASCII quoted"
	assert_contains "$out" "$(printf -- '--- a/my file.txt\t')" "name with a space: git's tab"
	assert_contains "$out" '\ No newline at end of file' "no final newline"
	assert_contains "$out" '@@ int compute(int x)' "function context"
	assert_not_contains "$out" "ignored.log" "ignored file"
	assert_not_contains "$out" "build/out.o" "ignored directory"
	ok "stat" -C repo diff rich --stat
	assert_contains "$out" "lib/{deep => }/mod.c" "rename in --stat"
	assert_contains "$out" "Bin 7 -> 8 bytes" "binary in --stat"
}

test_diff_honours_core_quotepath() {
	make_rich_task
	git -C repo config core.quotepath false
	local base
	base=$(merge_base repo rich)
	same_as_git "patch" repo rich "$wt" "$base"
	same_as_git "name-only" repo rich "$wt" "$base" --name-only
	ok "name-only" -C repo diff rich --name-only
	assert_contains "$out" "naïve-ü.txt" "UTF-8 name as is"
}

test_diff_abbreviates_ids_as_git_does() {
	make_rich_task
	git -C repo config core.abbrev 12
	same_as_git "core.abbrev 12" repo rich "$wt" "$(merge_base repo rich)"
	git -C repo config --unset core.abbrev
	# Past 2^14 packed objects git's default abbreviation grows to 8 digits.
	local i
	for ((i = 0; i < 17000; i++)); do
		printf 'blob\ndata <<E\n%d\nE\n' "$i"
	done | git -C repo fast-import --quiet
	same_as_git "many packed objects" repo rich "$wt" "$(merge_base repo rich)"
	ok "patch" -C repo diff rich
	echo "$out" | grep -Eq '^index [0-9a-f]{8}\.\.[0-9a-f]{8} ' || fail "no 8-digit index line"
}

test_diff_finds_renames_with_gits_similarity() {
	make_repo repo
	seq 1 40 >repo/a.txt
	seq 100 130 >repo/b.txt
	git -C repo add -A
	git -C repo commit -q -m "two files"
	new_task repo t
	# moved-b.txt too different: a deletion and an addition
	agent_sh t 'git mv a.txt moved-a.txt && seq 41 47 >>moved-a.txt &&
		git mv b.txt moved-b.txt && seq 200 240 >moved-b.txt'
	same_as_git "renames" repo t "$wt" "$(merge_base repo t)"
	ok "patch" -C repo diff t
	assert_contains "$out" "rename to moved-a.txt" "similar file renamed"
	assert_contains "$out" "similarity index $(oracle "$wt" "$(merge_base repo t)" | sed -n 's/^similarity index //p')" "git's percentage"
	assert_not_contains "$out" "rename to moved-b.txt" "dissimilar file not renamed"
}

test_diff_pairs_renames_as_git_does_where_libgit2_would_not() {
	# git's rename detection, not libgit2's: a moved symlink is a rename; a
	# file that became a symlink is a type change, never a rename source for
	# a new file holding its content; a unique base name pairs first; and
	# of two new files with one source's content, the first takes it.
	make_repo repo
	mkdir repo/lib repo/old
	ln -s /etc/hosts repo/link
	seq 1 30 >repo/typed
	seq 1 50 >repo/lib/util.c
	seq 1 50 | sed 's/^/x/' >repo/old/util.c
	ln -s target repo/twice
	git -C repo add -A
	git -C repo commit -q -m "kinds"
	new_task repo t
	agent_sh t 'mv link link2 && rm typed && ln -s elsewhere typed && seq 1 30 >copy-of-typed &&
		mkdir new && { seq 1 50; echo more; } >new/util.c && rm lib/util.c twice &&
		ln -s target twice-a && ln -s target twice-b'
	same_as_git "renames" repo t "$wt" "$(merge_base repo t)"
	same_as_git "name-status" repo t "$wt" "$(merge_base repo t)" --name-only
	ok "json" -C repo diff t --json
	assert_eq "$(json_get "$out" '[(f["status"], f.get("old_path", "")) for f in j["files"] if f["path"] in ("link2", "typed", "twice-a", "twice-b")]')" \
		"[('renamed', 'link'), ('renamed', 'twice'), ('added', ''), ('typechange', '')]" "statuses"
}

test_diff_is_against_the_merge_base_after_the_base_moves() {
	make_repo repo
	new_task repo t
	agent_sh t 'printf "task line\n" >>README'
	printf 'base moved on\n' >repo/LATER.txt
	printf 'main line\n' >>repo/src/main.c
	git -C repo add -A
	git -C repo commit -q -m "main moves on"
	local base
	base=$(merge_base repo t)
	assert_eq "$base" "$(git -C repo rev-parse main~1)" "merge base is where the task started"
	same_as_git "patch" repo t "$wt" "$base"
	ok "patch" -C repo diff t
	assert_not_contains "$out" "LATER.txt" "the base's new file is not shown as deleted"
	assert_not_contains "$out" "main line" "the base's new line is not shown as removed"
	ok "json" -C repo diff t --json
	assert_eq "$(json_get "$out" 'j["merge_base"]')" "$base" "JSON base is the merge base"
	# The task merged main in: the merge base moves with it.
	agent_sh t 'git commit -q -am "task work" && git merge -q --no-edit main'
	ok "json after merge" -C repo diff t --json
	assert_eq "$(json_get "$out" 'j["merge_base"]')" "$(git -C repo rev-parse main)" "merge base after merging main"
	assert_eq "$(json_get "$out" '[f["path"] for f in j["files"]]')" "['README']" "only the task's change"
}

test_diff_uses_base_commit_when_base_branch_is_gone() {
	make_repo repo
	git -C repo branch feature
	ok "new --base feature" -C repo new t --base feature
	agent_sh t 'printf "x\n" >x.txt'
	git -C repo branch -D -q feature
	ok "json" -C repo diff t --json
	assert_eq "$(json_get "$out" 'j["merge_base"]')" "$(git -C repo rev-parse main)" "base commit"
	assert_eq "$(json_get "$out" '[f["path"] for f in j["files"]]')" "['x.txt']" "files"
}

# task_file NAME PATH: the bytes of PATH in the task's worktree on stdout,
# as its agent reads them (in its sandbox: a layered task's, from its layers).
task_file() {
	"$AT" -C repo run "$1" -- cat "$2" || fail "cannot read '$2' in '$1'"
}

# new checks out without libgit2's filters only when no attribute or
# setting could ask for one (git/worktree.c): where they can, the files must
# still come out as git writes them.
test_new_converts_line_endings_when_attributes_ask() {
	make_repo repo
	printf '*.txt eol=crlf\n' >repo/.gitattributes
	mkdir -p repo/docs
	printf 'one\ntwo\n' >repo/docs/a.txt
	printf 'one\ntwo\n' >repo/b.dat
	git -C repo add -A
	git -C repo commit -q -m "attributes"
	new_task repo t
	git -C repo worktree add -q -b by-git "$PWD/by-git" main
	task_file t docs/a.txt >a.txt
	task_file t b.dat >b.dat
	cmp -s a.txt by-git/docs/a.txt || fail "eol=crlf file differs from git's checkout"
	assert_eq "$(od -c a.txt | head -1)" "$(printf 'one\r\ntwo\r\n' | od -c | head -1)" "CRLF written"
	cmp -s b.dat repo/b.dat || fail "file without attributes changed"
	"$AT" -C repo diff t >out.diff || fail "diff"
	assert_eq "$(wc -c <out.diff)" "0" "converted files are no change"
}

test_new_honours_core_autocrlf() {
	make_repo repo
	git -C repo config core.autocrlf true
	new_task repo t
	task_file t README >t.README
	assert_eq "$(od -c t.README | head -1)" "$(printf 'hello\r\nline two\r\n' | od -c | head -1)" "autocrlf applied"
	git -C repo config core.autocrlf false
	new_task repo u
	task_file u README >u.README
	cmp -s u.README repo/README || fail "no conversion without autocrlf"
}

# ---------------------------------------------------------------- JSON

test_diff_json_describes_each_file_and_adds_up() {
	make_rich_task
	ok "json" -C repo diff rich --json
	local j=$out
	assert_eq "$(json_get "$j" 'j["merge_base"]')" "$(merge_base repo rich)" "base"
	assert_eq "$(json_get "$j" 'j["tree"]')" "$(oracle_tree "$wt")" "tree of the full state"
	assert_eq "$(json_get "$j" 'sum(f["additions"] for f in j["files"]) == j["additions"]')" "True" "additions add up"
	assert_eq "$(json_get "$j" 'sum(f["deletions"] for f in j["files"]) == j["deletions"]')" "True" "deletions add up"
	# git's own counts (numstat: "-" for binary files)
	local want
	want=$(oracle "$wt" "$(merge_base repo rich)" --numstat | awk '$1 != "-" {a += $1; d += $2} END {print a, d}')
	assert_eq "$(json_get "$j" '"%d %d" % (j["additions"], j["deletions"])')" "$want" "totals as git counts"
	assert_eq "$(json_get "$j" '[f["path"] for f in j["files"]] == sorted(f["path"] for f in j["files"])')" "True" "sorted by path"
	assert_eq "$(json_get "$j" '[f for f in j["files"] if f["path"] == "bin.dat"][0]["binary"]')" "True" "binary"
	assert_eq "$(json_get "$j" '[f for f in j["files"] if f["path"] == "f"][0]["binary"]')" "False" "text"
	assert_eq "$(json_get "$j" '[(f["status"], f["old_path"]) for f in j["files"] if f["path"] == "new"][0]')" "('renamed', 'old')" "rename"
	assert_eq "$(json_get "$j" '[f["status"] for f in j["files"] if f["path"] == "gone.txt"][0]')" "deleted" "deletion"
	assert_eq "$(json_get "$j" '[f["status"] for f in j["files"] if f["path"] == "new file.txt"][0]')" "added" "addition"
	assert_eq "$(json_get "$j" '[f["status"] for f in j["files"] if f["path"] == "typechange"][0]')" "typechange" "type change"
	assert_eq "$(json_get "$j" '[(f["old_mode"], f["new_mode"]) for f in j["files"] if f["path"] == "tool.sh"][0]')" "('100644', '100755')" "modes"
	assert_eq "$(json_get "$j" '[f["link_target"] for f in j["files"] if f["path"] == "link"][0]')" "tool.sh" "link target"
	assert_eq "$(json_get "$j" '[f["path"] for f in j["files"] if f["path"] == "naïve-ü.txt"]')" "['naïve-ü.txt']" "UTF-8 path unquoted in JSON"
	assert_eq "$(json_get "$j" 'len(j["files"])')" "$(oracle "$wt" "$(merge_base repo rich)" --name-only | wc -l)" "one entry per file git lists"
}

test_diff_of_a_task_without_changes_is_empty() {
	make_repo repo
	new_task repo t
	"$AT" -C repo diff t >patch.out || fail "diff failed"
	assert_eq "$(wc -c <patch.out)" "0" "no patch"
	"$AT" -C repo diff t --stat >stat.out || fail "diff --stat failed"
	assert_eq "$(wc -c <stat.out)" "0" "no stat"
	ok "json" -C repo diff t --json
	assert_eq "$(json_get "$out" '(j["files"], j["additions"], j["deletions"])')" "([], 0, 0)" "empty change"
	assert_eq "$(json_get "$out" 'j["tree"]')" "$(git -C repo rev-parse 'main^{tree}')" "tree is the base's"
}

# ---------------------------------------------------------------- colour

test_diff_colours_only_when_asked_or_on_a_terminal() {
	make_repo repo
	new_task repo t
	agent_sh t 'printf "more\n" >>README'
	local esc=$'\033['
	ok "always" -C repo diff t --color=always
	assert_contains "$out" "${esc}1mdiff --git" "bold header"
	assert_contains "$out" "${esc}32m+" "green addition"
	assert_contains "$out" "${esc}36m@@" "cyan hunk header"
	ok "--color" -C repo diff t --color
	assert_contains "$out" "$esc" "--color alone means always"
	ok "never" -C repo diff t --color=never
	assert_not_contains "$out" "$esc" "no colour with never"
	ok "default on a pipe" -C repo diff t
	assert_not_contains "$out" "$esc" "no colour on a pipe"
	ok "stat always" -C repo diff t --stat --color=always
	assert_contains "$out" "${esc}32m+" "green graph"
	ok "json ignores colour" -C repo diff t --json --color=always
	assert_not_contains "$out" "$esc" "JSON never coloured"
	# Under script(1) (a terminal), without the pager (it has escapes of its
	# own), with a TERM: git colours only a terminal whose TERM is set and not
	# dumb (terminal.sh tests those rules).
	if command -v script >/dev/null; then
		TERM=xterm script -qec "'$AT' --no-pager -C repo diff t" /dev/null >tty.out </dev/null || true
		grep -q $'\033\[' tty.out || fail "no colour on a terminal"
		TERM=xterm NO_COLOR=1 script -qec "'$AT' --no-pager -C repo diff t" /dev/null >tty.out </dev/null || true
		if grep -q $'\033\[' tty.out; then fail "colour despite NO_COLOR"; fi
	fi
}

# ---------------------------------------------------------------- errors

test_diff_of_unknown_task_exits_two_naming_it() {
	make_repo repo
	expect_rc 2 "unknown task" -C repo diff nope
	assert_contains "$errout" "'nope'" "task named"
	assert_eq "$(echo "$errout" | wc -l)" "1" "one line"
	assert_no_output "$out" "nothing on stdout"
}

test_diff_rejects_bad_options() {
	make_repo repo
	new_task repo t
	expect_rc 2 "two modes" -C repo diff t --stat --json
	expect_rc 2 "bad colour" -C repo diff t --color=sometimes
	assert_contains "$errout" "sometimes" "bad value named"
	expect_rc 2 "two names" -C repo diff t u
	expect_rc 2 "unknown option" -C repo diff t --patience
	ok "help" -C repo diff --help
	assert_contains "$out" "--name-only" "help lists options"
}

test_diff_from_inside_the_worktree_needs_no_name() {
	make_repo repo
	new_task repo t
	agent_sh t 'printf "inside\n" >>README && mkdir -p src/deeper'
	"$AT" -C repo diff t >by-name.out || fail "diff by name"
	task_path t   # the person in the worktree: a layered task's made then
	wt=$out
	(cd "$wt/src/deeper" && "$AT" diff) >from-inside.out || fail "diff from inside"
	cmp -s by-name.out from-inside.out || fail "diff from inside differs"
	assert_contains "$(cat from-inside.out)" "+inside" "the task's change"
	expect_rc 2 "no name outside a task" -C repo diff
}

# files_on_disk WT: every file of the task's worktree WT with its size,
# mtime and mode; a layered task's: those of its layer and of the bases.
files_on_disk() {
	local common dir
	if [ -e "$1/.git" ]; then
		(cd "$1" && find . -path ./.git -prune -o -print0 | sort -z | xargs -0 stat -c '%n %s %Y %a' --)
		return
	fi
	common=$(git -C repo rev-parse --path-format=absolute --git-common-dir)
	for dir in "$common/agenttask/layers/$(basename "$1")/upper" "$common/agenttask/bases"; do
		(cd "$dir" && find . -print0 | sort -z | xargs -0 stat -c '%n %s %Y %a' --)
	done
}

test_diff_leaves_index_and_files_untouched() {
	make_rich_task
	local index before_sum before_time before_status before_files
	index=$(admin_dir "$wt")/index
	before_status=$(in_task "$wt" git status --porcelain)   # first: git status may refresh the index
	before_sum=$(sha256sum <"$index")
	before_time=$(stat -c %y "$index")
	before_files=$(files_on_disk "$wt")
	sleep 1.1   # so that a rewrite would show in the mtime
	"$AT" -C repo diff rich >/dev/null || fail "diff"
	"$AT" -C repo diff rich --stat >/dev/null || fail "diff --stat"
	"$AT" -C repo diff rich --name-only >/dev/null || fail "diff --name-only"
	"$AT" -C repo diff rich --json >/dev/null || fail "diff --json"
	# From inside the worktree (a layered task has none until path makes it full).
	[ ! -e "$wt/.git" ] || (cd "$wt" && "$AT" diff >/dev/null) || fail "diff from inside"
	assert_eq "$(sha256sum <"$index")" "$before_sum" "index bytes"
	assert_eq "$(stat -c %y "$index")" "$before_time" "index mtime"
	assert_eq "$(in_task "$wt" git status --porcelain)" "$before_status" "git status"
	assert_eq "$(files_on_disk "$wt")" "$before_files" "files on disk"
	assert_fsck repo
}

test_diff_previews_the_merge_when_the_base_moved() {
	make_repo repo
	ok "new" -C repo new t
	local wt=$out
	agent_sh t 'echo task >task.txt'
	ok "diff --json before the base moves" -C repo diff t --json
	assert_eq "$(json_get "$out" '(j["base_moved"], j["base_ahead"], j["merges_cleanly"], j["conflicts"])')" "(False, 0, True, [])" "unmoved base"
	ok "patch before the base moves" -C repo diff t
	assert_no_output "$errout" "no note while the base has not moved"
	echo other >repo/other.txt
	git -C repo add other.txt
	git -C repo commit -q -m other
	ok "diff --json after an unrelated commit on the base" -C repo diff t --json
	assert_eq "$(json_get "$out" '(j["base_moved"], j["base_ahead"], j["merges_cleanly"])')" "(True, 1, True)" "moved, still clean"
	ok "patch after the base moved" -C repo diff t
	assert_eq "$errout" "agenttask: note: main moved on by 1 commit since the task began; merges cleanly" "note on stderr"
	assert_not_contains "$out" "moved on" "the patch on stdout stays a patch"
	agent_sh t 'echo theirs >README'
	echo ours >repo/README
	git -C repo commit -q -am "conflicting"
	ok "diff --json with a conflicting base" -C repo diff t --json
	assert_eq "$(json_get "$out" '(j["base_moved"], j["base_ahead"], j["merges_cleanly"], j["conflicts"])')" "(True, 2, False, ['README'])" "conflict previewed"
	local before
	before=$(git -C repo rev-parse main agenttask/t; in_task "$wt" git status --porcelain; git -C repo status --porcelain)
	ok "patch with a conflicting base" -C repo diff t
	assert_contains "$errout" "would conflict in: README" "note names the conflicting path"
	assert_eq "$(git -C repo rev-parse main agenttask/t; in_task "$wt" git status --porcelain; git -C repo status --porcelain)" "$before" "the preview writes nothing"
}

# ---------------------------------------------------------------- pathspec

# A task changing files in two directories and at the top.
make_spread_task() {
	make_repo repo
	mkdir -p repo/doc
	printf 'doc\n' >repo/doc/guide.md
	printf 'notes\n' >repo/doc/notes.txt
	git -C repo add -A && git -C repo commit -q -m docs
	new_task repo t
	agent_sh t 'printf "more\n" >>README && printf "int x;\n" >>src/main.c && printf "new\n" >src/new.c &&
		printf "changed\n" >>doc/guide.md && rm doc/notes.txt'
}

test_diff_pathspec_limits_it_as_git_does() {
	make_spread_task
	local base
	base=$(merge_base repo t)
	same_as_git "a directory" repo t "$wt" "$base" -- src
	same_as_git "a file and a directory" repo t "$wt" "$base" -- README doc
	same_as_git "a glob" repo t "$wt" "$base" -- '*.md'
	same_as_git "--stat" repo t "$wt" "$base" --stat -- src
	same_as_git "--name-only" repo t "$wt" "$base" --name-only -- doc
	same_as_git "nothing matches" repo t "$wt" "$base" -- nowhere
	ok "--json" -C repo diff t --json -- src
	assert_eq "$(json_get "$out" '",".join(f["path"] for f in j["files"])')" "src/main.c,src/new.c" "files"
	assert_eq "$(json_get "$out" 'j["tree"]')" "$(oracle_tree "$wt")" "the tree is the whole state's"
	# Relative to the current directory, as git's; ':/' from the top (the
	# person in the worktree: a layered task's made then).
	task_path t
	ok "from src" -C "$wt/src" diff --name-only -- main.c ../README
	assert_eq "$out" "$(printf 'README\nsrc/main.c')" "cwd-relative"
	ok "from src, :/doc" -C "$wt/src" diff --name-only -- :/doc
	assert_eq "$out" "$(printf 'doc/guide.md\ndoc/notes.txt')" "top-relative"
	ok "'.' at the top is everything" -C repo diff t --name-only -- .
	assert_eq "$(printf '%s\n' "$out" | wc -l)" "5" "every file"
	expect_rc 2 "outside the repository" -C repo diff t -- ../elsewhere
	assert_contains "$errout" "pathspec '../elsewhere' is outside the repository" "says so"
}

test_diff_json_patch_holds_the_patch_text() {
	make_spread_task
	local base
	base=$(merge_base repo t)
	ok "--json --patch" -C repo diff t --json --patch
	json_get "$out" 'j["patch"]' >got.patch
	oracle "$wt" "$base" >want.patch
	# json_get's print adds one newline at the end.
	printf '\n' >>want.patch
	cmp -s want.patch got.patch || { diff -u want.patch got.patch | head -40 >&2; fail "patch differs from git's"; }
	ok "--json without --patch has none" -C repo diff t --json
	assert_eq "$(json_get "$out" '"patch" in j')" "False" "no patch key"
	ok "-p with a pathspec" -C repo diff t --json -p -- README
	assert_contains "$(json_get "$out" 'j["patch"]')" "+more" "the README's hunk"
	assert_not_contains "$(json_get "$out" 'j["patch"]')" "main.c" "only README"
	expect_rc 2 "--patch --stat" -C repo diff t --stat --patch
}

run_tests
