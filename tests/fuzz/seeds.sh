#!/usr/bin/env bash
# Write the seed corpora of tests/fuzz/corpus/ from real inputs: index files
# written by git (versions 2, 3, 4, with every extension git 2.39 writes),
# the directory cache, task records and audit logs written by agenttask
# itself, real policies and configs. Run by hand when a format changes:
#
#   bash tests/fuzz/seeds.sh build/cmd/agenttask
#
# It replaces the seed_* files only; regression inputs (regress-*) stay.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: seeds.sh AGENTTASK" >&2; exit 2; }
A=$(realpath "$1")
out=$(cd "$(dirname "$0")" && pwd)/corpus
work=$(mktemp -d /tmp/at-seeds.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=seed GIT_AUTHOR_EMAIL=seed@example.com
export GIT_COMMITTER_NAME=seed GIT_COMMITTER_EMAIL=seed@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$work

for d in index cache_tree dircache task audit policy glob ignore diff_format config; do
	mkdir -p "$out/$d"
	rm -f "$out/$d"/seed_*
done

# ---- a repository with files of every kind ----------------------------------
repo=$work/repo
git init -q -b main "$repo"
cd "$repo"
mkdir -p src/lib docs 'name with space'
echo hello >README
printf 'int main(void)\n{\n\treturn 0;\n}\n' >src/main.c
printf 'int util(void);\n' >src/lib/util.c
echo guide >docs/guide.md
echo x >'name with space/f'
printf 'caf\xc3\xa9\n' >"$(printf 'caf\xc3\xa9.txt')"
ln -s src/main.c link
printf '#!/bin/sh\necho run\n' >run.sh
chmod +x run.sh
git add -A
git commit -qm init
seed() { cp "$1" "$out/$2/seed_$3"; }

seed .git/index index v2_tree
git update-index --index-version 3
echo new >new.txt
git add -N new.txt
git update-index --skip-worktree docs/guide.md
seed .git/index index v3_intent_to_add_skip_worktree
git update-index --no-skip-worktree docs/guide.md
git update-index --index-version 4
seed .git/index index v4_prefix_compressed
git update-index --index-version 2
git rm -q --cached new.txt
rm new.txt

# A path longer than the 12 bits of the name length (flags 0xfff).
long=$(printf 'd%.0s' $(seq 1 200))
longpath=$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/file
blob=$(echo long | git hash-object -w --stdin)
git update-index --add --cacheinfo "100644,$blob,$longpath"
seed .git/index index v2_long_path
git update-index --index-version 4
seed .git/index index v4_long_path
git update-index --index-version 2
git update-index --force-remove "$longpath"
git read-tree HEAD

# Stages 1-3 of a conflict, then the resolve-undo extension once resolved.
git checkout -q -b side
echo side >README
git commit -qam side
git checkout -q main
echo main >README
git commit -qam main
git merge -q side >/dev/null 2>&1 || true
seed .git/index index v2_conflict_stages
echo resolved >README
git add README
seed .git/index index v2_resolve_undo
git commit -qm merged

# The untracked cache, the end-of-index entry, the split and the sparse index.
echo untracked >untracked.txt
git -c core.untrackedCache=true update-index --untracked-cache
git -c core.untrackedCache=true status --porcelain >/dev/null
seed .git/index index v2_untracked_cache
git update-index --no-untracked-cache
rm untracked.txt
git -c index.recordEndOfIndexEntries=true update-index --really-refresh >/dev/null
seed .git/index index v2_end_of_index_entry
git update-index --really-refresh >/dev/null
git update-index --split-index
seed .git/index index v2_split_index_link
git update-index --no-split-index
git read-tree --empty
seed .git/index index v2_empty
git read-tree HEAD
git sparse-checkout init --cone --sparse-index
git sparse-checkout set src 2>/dev/null
seed .git/index index v2_sparse_index_sdir
git sparse-checkout disable 2>/dev/null

# The cache-tree payloads alone, cut out of those indexes.
python3 - "$out/index" "$out/cache_tree" <<'EOF'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    if not name.startswith('seed_'):
        continue
    data = open(os.path.join(src, name), 'rb').read()
    ver, count = struct.unpack('>II', data[4:12])
    p, prev = 12, b''
    for _ in range(count):
        flags = struct.unpack('>H', data[p + 60:p + 62])[0]
        q = p + 62 + (2 if flags & 0x4000 else 0)
        if ver == 4:
            strip, shift = 0, data[q] & 127
            while data[q] & 128:
                q += 1
                shift = ((shift + 1) << 7) | (data[q] & 127)
            q += 1
            nul = data.index(b'\0', q)
            prev = prev[:len(prev) - shift] + data[q:nul]
            p = nul + 1
        else:
            nul = data.index(b'\0', q)
            p += (q - p + (nul - q) + 8) & ~7
    while p + 8 <= len(data) - 20:
        sig, size = data[p:p + 4], struct.unpack('>I', data[p + 4:p + 8])[0]
        if sig == b'TREE':
            open(os.path.join(dst, name), 'wb').write(data[p + 8:p + 8 + size])
        p += 8 + size
EOF

# ---- agenttask's own files ------------------------------------------------
"$A" new fix-bug >/dev/null
"$A" new other --base "$(git rev-parse HEAD)" >/dev/null
wt=$("$A" path fix-bug)
seed "$(git rev-parse --git-common-dir)/worktrees/agenttask-fix-bug/index" index v2_written_by_agenttask_new
(
	cd "$wt"
	echo change >>README
	echo new >newfile
	mkdir -p newdir/sub 'odd name'
	echo z >newdir/sub/f
	echo y >'odd name/x'
	"$A" diff --stat >/dev/null
)
state=$repo/.git/agenttask
seed "$state/cache/fix-bug.scan" dircache untracked_names
"$A" run fix-bug -- sh -c 'echo hi; exit 3' >/dev/null 2>&1 || true
"$A" run fix-bug --timeout 1 -- sleep 5 >/dev/null 2>&1 || true
"$A" run fix-bug -- /nonexistent >/dev/null 2>&1 || true
"$A" run fix-bug --memory 256M --pids 64 -- printf '%s\n' "a b" "it's" "$(printf '\033[2J \xc3\xa9')" >/dev/null 2>&1 || true
"$A" commit fix-bug -m edit >/dev/null
mkdir -p .agenttask
cat >.agenttask/policy.json <<'EOF'
{
  "protected_paths": [".github/**", ".agenttask", "secrets", "**/*.pem"],
  "max_changed_files": 50,
  "max_changed_lines": 2000,
  "allow_binary": false,
  "allow_symlinks_out": false,
  "checks": [
    { "name": "unit tests", "run": ["true"], "timeout": 600 },
    { "name": "lint", "run": ["sh", "-c", "exit 0"], "timeout": 120, "net": false }
  ]
}
EOF
git add .agenttask
git commit -qm policy
"$A" run other -- sh -c 'mkdir -p secrets; echo key >secrets/k' >/dev/null 2>&1
"$A" gate other >/dev/null 2>&1 || true
"$A" accept other --override "reviewed by hand" >/dev/null 2>&1
"$A" discard fix-bug --force >/dev/null
"$A" restore fix-bug >/dev/null
seed "$state/logs/fix-bug.jsonl" audit runs_discard_restore
seed "$state/logs/other.jsonl" audit gate_override_accept
head -c 200 "$state/logs/fix-bug.jsonl" >"$out/audit/seed_cut_by_a_crash"
seed "$state/tasks/fix-bug.json" task ready
"$A" new detached --base "$(git rev-parse HEAD)" >/dev/null
seed "$state/tasks/detached.json" task detached_base
sed 's/"ready"/"creating"/' "$state/tasks/fix-bug.json" >"$out/task/seed_creating"
(cd "$("$A" path detached)" && "$A" diff >/dev/null)
seed "$state/cache/detached.scan" dircache clean_checkout

# ---- policies, with change records after a NUL -----------------------------
rec() {   # status mode flags path old target
	printf '\0%s%s%s%s\n%s\n%s' "$1" "$2" "$3" "$4" "$5" "$6"
}
policy() {
	{ cat; rec '\001' '\000' '\004' src/main.c '' ''; rec '\000' '\002' '\000' link '' ../x
	  rec '\003' '\000' '\000' new/name old/name ''; rec '\000' '\000' '\001' bin.dat '' ''; } \
		>"$out/policy/seed_$1"
}
policy ci <.agenttask/policy.json
echo '{}' | policy empty
printf '{"protected_paths": ["src/lib/**", "deploy/**", "*.lock"], "allow_symlinks_out": true}' | policy symlinks_allowed
printf '{"checks": [{"name": "x", "run": ["make", "test"], "timeout": 1, "net": true}], "max_changed_lines": 0}' | policy check_net

# ---- glob: pattern, path, link target ------------------------------------------
glob() { printf '%s\0%s\0%s' "$2" "$3" "$4" >"$out/glob/seed_$1"; }
glob under 'src/lib/**' src/lib/util.c ../x
glob dir .github .github/workflows/ci.yml ''
glob globstar_first '**/*.pem' keys/a.pem /etc/passwd
glob star 'docs/*.md' docs/guide.md guide.md
glob globstar_middle 'a/**/b' a/x/y/b x/../../y
glob question 'src/?.c' src/a.c ./a/../b
glob utf8 'caf?.txt' "$(printf 'caf\xc3\xa9.txt')" a/b/../../..

# ---- ignore: a flags byte (1: a directory), the path, then DIR NUL TEXT NUL per file --
# (DIR "" the root's .gitignore, "\001" a global file such as info/exclude)
ignore() { local name=$1 flags=$2 path=$3; shift 3; { printf "$flags"; printf '%s\0' "$path" "$@"; } >"$out/ignore/seed_$name"; }
ignore git_own '\000' build/x.o '' "$(printf '*.o\n/build*/\n!keep.o\n')"
ignore negation_below_excluded_dir '\000' logs/keep.log '' "$(printf 'logs/\n!logs/keep.log\n')"
ignore nested_precedence '\000' src/gen/a.c '' '*.c' src/ '!gen/*.c' src/gen '*.c'
ignore dir_only '\001' a/b/cache '' 'cache/'
ignore globstar '\000' a/x/y/b/z.txt '' "$(printf 'a/**/b/*.txt\n**/tmp\n/top/**\n')"
ignore classes '\000' 'file 1.tmp' '' "$(printf '[[:digit:]]*.tmp\n*[!a-z].tmp\n[a-]x\nfile\\ 1.tmp\n')"
ignore escapes_and_spaces '\000' '#hash' '' "$(printf '\\#hash\n\\!bang\ntrail\\ \nsp   \n# comment\n')"
ignore bom_crlf '\000' x.bak '' "$(printf '\357\273\277*.bak\r\n!y.bak\r\n')"
ignore global_weaker '\000' d/notes.txt $'\001' '*.txt' '' '!notes.txt'
ignore literal '\000' docs/guide.md '' 'guide.md'
ignore path_patterns '\000' src/lib/util.c '' "$(printf 'src/lib/util.c\nsrc/*/util.c\nsrc/?ib/util.c\n*/lib/*\n')"
ignore stars '\000' aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab '' '*a*a*a*a*a*a*a*a*a*a*a*a*c'

# ---- diff_format: options byte, then two paths or two contents -----------------
printf '\001src/lib/util.c\0src/util/util.c' >"$out/diff_format/seed_rename"
printf '\003%s\0%s' "$(printf 'caf\xc3\xa9 \033[2J\t.txt')" 'a"b\c' >"$out/diff_format/seed_quoted"
{ printf '\040'; cat src/main.c; printf '\0'; cat src/main.c; echo 'int x;'; } >"$out/diff_format/seed_contents"
{ printf '\340'; printf 'line\r\n%.0s' $(seq 1 40); printf '\0'; printf 'line\n%.0s' $(seq 1 40); } >"$out/diff_format/seed_crlf"

# ---- config: the repository's own config, as git writes it -------------------
seed .git/config config init
git config remote.origin.url https://user:token@example.com/repo.git
git config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'
git config http.extraHeader 'Authorization: Bearer secret'
git config core.fsmonitor /tmp/evil
git config core.hooksPath /tmp/hooks
git config filter.lfs.process 'git-lfs filter-process'
git config alias.st status
git config include.path /nonexistent/included
git config extensions.worktreeConfig true
git config branch.main.remote origin
seed .git/config config remote_credentials_and_programs
git init -q --object-format=sha256 "$work/sha256"
seed "$work/sha256/.git/config" config sha256
printf '[core]\n\tRepositoryFormatVersion = 1\n\tFileMode = false\n\tsymlinks = "true"\n[Extensions]\n\tobjectFormat = sha1\n[extensions "x"]\n\ty = 1\n[core]\n\tfilemode = true\n' \
	>"$out/config/seed_case_quotes_subsection"
echo "seeds written under $out"
