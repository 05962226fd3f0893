#!/usr/bin/env bash
# The checkout of `agenttask new` (git/checkout.c: files written by worker
# threads, the index written by agenttask) against git's own checkout of
# the same commit: the same files, modes, links and index entries, stat data
# git accepts as clean, and every tree it must not write left to libgit2,
# which refuses it with nothing made.
. "$(dirname "$0")/lib.sh"

# A commit of every kind of entry: nested directories, an empty file, a
# binary, an executable, names with spaces and non-ASCII, a relative and a
# dangling symlink, a gitlink, and (FILES) enough files for several workers.
make_rich_repo() {
	local dir=$1 files=${2:-0} i
	make_repo "$dir"
	mkdir -p "$dir/deep/er/still" "$dir/sp ace" "$dir/bulk"
	printf 'deep\n' >"$dir/deep/er/still/file.txt"
	: >"$dir/empty"
	printf '\000\001\002binary\377\n' >"$dir/blob.bin"
	printf '#!/bin/sh\necho hi\n' >"$dir/run.sh"
	chmod +x "$dir/run.sh"
	printf 'spaced\n' >"$dir/sp ace/na me.txt"
	printf 'accents\n' >"$dir/caf$(printf '\303\251').txt"
	ln -s ../README "$dir/deep/to-readme"
	ln -s does/not/exist "$dir/dangling"
	for ((i = 0; i < files; i++)); do
		printf 'bulk file %d\n' "$i" >"$dir/bulk/f$i.txt"
	done
	git -C "$dir" add -A
	git -C "$dir" update-index --add --cacheinfo 160000,"$(git -C "$dir" rev-parse HEAD)",sub
	git -C "$dir" commit -q -m "every kind of entry"
}

# stat_data_mismatches WT: index entries (git ls-files --debug) whose stat
# data is not their file's lstat(), one line each.
stat_data_mismatches() {
	git -C "$1" ls-files --debug | python3 -c '
import codecs, os, re, sys
wt, lines = sys.argv[1], sys.stdin.buffer.read().decode("utf-8", "surrogateescape").split("\n")
for i in range(0, len(lines) - 1, 6):
    path, f = lines[i], " ".join(lines[i + 1:i + 6])
    if path.startswith("\""):   # quoted as git quotes (core.quotepath): C escapes
        raw = codecs.escape_decode(path[1:-1].encode("utf-8", "surrogateescape"))[0]
        path = raw.decode("utf-8", "surrogateescape")
    v = dict((k, int(a)) for k, a in re.findall(r"(\w+): (\d+)", f))
    v.update(("c" + k, tuple(map(int, a.split(":")))) for k, a in re.findall(r"(c?m?time): (\d+:\d+)", f))
    st = os.lstat(os.path.join(wt, path))
    want = {"ctime": (st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9),
            "mtime": (st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9),
            "dev": st.st_dev & 0xffffffff, "ino": st.st_ino & 0xffffffff,
            "uid": st.st_uid, "gid": st.st_gid, "size": st.st_size & 0xffffffff}
    got = {"ctime": v["cctime"], "mtime": v["cmtime"], "dev": v["dev"], "ino": v["ino"],
           "uid": v["uid"], "gid": v["gid"], "size": v["size"]}
    if os.path.isdir(os.path.join(wt, path)):
        want["size"] = 0
    if got != want:
        print(path, got, want)
' "$1"
}

# cache_tree_of WT: the TREE extension of WT's index, in hex.
cache_tree_of() {
	python3 - "$(git -C "$1" rev-parse --path-format=absolute --git-path index)" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n, p = struct.unpack(">I", d[8:12])[0], 12
for _ in range(n):
    flags = struct.unpack(">H", d[p + 60:p + 62])[0]
    fixed = 64 if flags & 0x4000 else 62
    name = d.index(b"\0", p + fixed) - (p + fixed)
    p += (fixed + name + 8) & ~7
while p < len(d) - 20:
    sig, size = d[p:p + 4], struct.unpack(">I", d[p + 4:p + 8])[0]
    if sig == b"TREE":
        print(d[p + 8:p + 8 + size].hex())
    p += 8 + size
PY
}

# same_checkout_as_git REPO WT: WT holds what `git worktree add` makes of
# WT's HEAD, and git finds WT's index clean without re-reading a file.
same_checkout_as_git() {
	local repo=$1 wt=$2 ref
	ref=$_at_root/git-wt.$$.$RANDOM
	git -C "$repo" worktree add -q --detach "$ref" "$(git -C "$wt" rev-parse HEAD)"
	diff -r --no-dereference -x .git "$ref" "$wt" || fail "files differ from git's checkout"
	assert_eq "$(cd "$wt" && find . -path ./.git -prune -o -printf '%y %m %p %l\n' | sort)" \
		"$(cd "$ref" && find . -path ./.git -prune -o -printf '%y %m %p %l\n' | sort)" \
		"types, modes and link targets"
	assert_eq "$(git -C "$wt" ls-files -s)" "$(git -C "$ref" ls-files -s)" "index entries"
	# The cache-tree extension, byte for byte git's, and git trusts it.
	assert_eq "$(cache_tree_of "$wt")" "$(cache_tree_of "$ref")" "cache-tree extension"
	[ -n "$(cache_tree_of "$wt")" ] || fail "no cache-tree extension"
	assert_eq "$(git -C "$wt" write-tree)" "$(git -C "$wt" rev-parse 'HEAD^{tree}')" "write-tree"
	# diff-files compares stat data only: an entry listed has stat data
	# that does not match its file; git does not compare nanoseconds, so
	# every field of every entry is compared with lstat() as well.
	assert_empty "stat data of the index" git -C "$wt" diff-files
	assert_empty "stat data against lstat()" stat_data_mismatches "$wt"
	assert_empty "status" git -C "$wt" status --porcelain --ignored --untracked-files=all
	git -C "$repo" worktree remove --force "$ref"
}

# new_checkout REPO NAME: a new task, its checkout on the host in $out: a
# layered task's made by `path` (its base's files and its layer, as the
# person gets them), which must be what git writes as well.
new_checkout() {
	ok "new $2" -C "$1" new "$2"
	task_path -C "$1" "$2"
}

test_checkout_writes_what_git_writes() {
	make_rich_repo repo
	new_checkout repo t
	same_checkout_as_git repo "$out"
	[ -d "$out/sub" ] && [ -z "$(ls -A "$out/sub")" ] || fail "gitlink: not an empty directory"
	assert_eq "$(readlink "$out/deep/to-readme")" "../README" "relative link"
	assert_eq "$(cat "$out/deep/to-readme")" "$(cat repo/README)" "link resolves"
	assert_fsck repo
}

test_checkout_the_person_opens_shows_the_agents_changes_to_git() {
	# What: the agent rewrites a file keeping its size, replaces a
	# directory's file the same way and adds one; then the
	# person opens the task (path: a layered task's checkout made of its
	# base and its layer, its index given the copies' stat data). Must:
	# git on the host sees every change (diff-files, status), and every
	# file the agent left alone is clean by its stat data alone.
	make_rich_repo repo
	ok "new t" -C repo new t
	agent_sh t 'printf "HELLO\nline two\n" >README && rm -r src && mkdir src &&
		printf "int main(void) { return 1; }\n" >src/main.c && echo new >added'
	task_path t
	local wt=$out
	# First, before git rewrites the index (smudging what is racily clean):
	# git finds a change where the stat data differs, or the file is no
	# older than the index (within its second, here: it then reads the file).
	assert_eq "$(stat_data_mismatches "$wt" | cut -d' ' -f1 | sort | tr '\n' ' ')" "README src/main.c " \
		"the changed files' stat data is not vouched for, every other entry's is its file's"
	assert_eq "$(git -C "$wt" diff-files --name-only)" "$(printf 'README\nsrc/main.c')" "diff-files"
	assert_eq "$(git -C "$wt" status --porcelain)" \
		"$(printf ' M README\n M src/main.c\n?? added')" "git's view"
}

test_checkout_with_many_files_uses_workers_and_stays_exact() {
	make_rich_repo repo 3000
	new_checkout repo t
	same_checkout_as_git repo "$out"
	assert_eq "$(git -C "$out" ls-files bulk | wc -l)" "3000" "bulk files in the index"
	ok "diff of a fresh task" -C repo diff t --name-only
	assert_no_output "$out" "a fresh task has no change"
}

test_checkout_honours_the_umask() {
	make_rich_repo repo
	(umask 077 && "$AT" -C repo new t >/dev/null) || fail "new t under umask 077"
	wt=$("$AT" -C repo path t)
	assert_eq "$(stat -c %a "$wt/run.sh") $(stat -c %a "$wt/README") $(stat -c %a "$wt/deep")" \
		"700 600 700" "modes under umask 077"
}

# git_status NAME: `git status --porcelain` of the task into $out: on the
# host in its worktree, or inside its sandbox on the layered form (whose
# files are not on the host).
git_status() {
	if layered_form; then
		agent_sh "$1" 'git status --porcelain'
	else
		out=$(git -C "$(wt_home repo)/$1" status --porcelain)
	fi
}

test_checkout_index_is_read_by_libgit2_and_git_alike() {
	make_rich_repo repo 1500
	ok "new t" -C repo new t
	agent_sh t 'printf "changed\n" >>bulk/f7.txt && rm blob.bin'
	ok "diff" -C repo diff t --name-only
	assert_eq "$out" "$(printf 'blob.bin\nbulk/f7.txt')" "agenttask's view"
	git_status t
	assert_eq "$out" "$(printf ' D blob.bin\n M bulk/f7.txt')" "git's view"
	ok "commit" -C repo commit t -m change
	git_status t
	assert_no_output "$out" "clean after commit"
	assert_fsck repo
}

test_checkout_with_core_symlinks_false_writes_link_files() {
	make_rich_repo repo
	git -C repo config core.symlinks false
	ok "new t" -C repo new t
	[ -f "$out/deep/to-readme" ] && [ ! -L "$out/deep/to-readme" ] ||
		fail "core.symlinks=false: a link was made"
	assert_eq "$(cat "$out/deep/to-readme")" "../README" "link file holds the target"
	assert_empty "status" git -C "$out" status --porcelain
}

# commit_with_entry REPO NAME: a commit whose root tree holds a directory
# NAME with a file inside (a name no `git add` makes, written with mktree).
commit_with_entry() {
	local repo=$1 name=$2 blob sub root
	blob=$(printf '[core]\n\thooksPath = /tmp/evil\n' | git -C "$repo" hash-object -w --stdin)
	sub=$(printf '100644 blob %s\tconfig\n' "$blob" | git -C "$repo" mktree)
	root=$( (git -C "$repo" ls-tree HEAD; printf '040000 tree %s\t%s\n' "$sub" "$name") |
		git -C "$repo" mktree)
	git -C "$repo" commit-tree -p HEAD -m "evil tree" "$root"
}

test_checkout_refuses_git_dir_spellings_and_makes_nothing() {
	local name commit
	make_repo repo
	for name in .GIT .Git git~1 GIT~1 ".git." ".git  "; do
		commit=$(commit_with_entry repo "$name")
		expect_rc 1 "new on a tree with '$name'" -C repo new t --base "$commit"
		assert_contains "$errout" "t" "error for '$name'"
		assert_no_file "$(wt_home repo)/t" "worktree for '$name'"
		assert_no_file "repo/.git/worktrees/agenttask-t" "admin dir for '$name'"
		[ -z "$(git -C repo branch --list 'agenttask/*')" ] || fail "branch left for '$name'"
		assert_eq "$(git -C repo worktree list | wc -l)" "1" "worktrees for '$name'"
	done
	assert_no_file "repo/.git/agenttask/tasks/t.json" "task record"
}

test_checkout_of_an_unusual_name_is_left_to_libgit2() {
	local commit
	make_repo repo
	# A backslash is a plain character to git on Linux, but not to NTFS:
	# agenttask's checkout declines it and libgit2's writes it.
	commit=$(commit_with_entry repo 'back\slash')
	ok "new on a tree with a backslash" -C repo new t --base "$commit"
	assert_eq "$(head -1 "$out/back\\slash/config")" "[core]" "file written"
	assert_empty "status" git -C "$out" status --porcelain
	# ".git" with a zero-width non-joiner: ".git" to HFS+, which git and
	# libgit2 protect against only on macOS; on Linux it is an ordinary name.
	commit=$(commit_with_entry repo ".g$(printf '\342\200\214')it")
	ok "new on a tree with an HFS spelling of .git" -C repo new u --base "$commit"
	assert_eq "$(head -1 "$out/.g$(printf '\342\200\214')it/config")" "[core]" "file written"
	assert_empty "status of u" git -C "$out" status --porcelain
}

run_tests
