#!/usr/bin/env bash
# Review comments (issue 27): the person's comments on lines of a task's
# change, carried forward through the agent's later edits; `review` in a
# scripted $EDITOR; what the agent sees of them (run --json, the read-only
# file in the sandbox); diff --since-review; the gate's open_comments.
# comments_user.sh runs it all again as uid 65534.
. "$(dirname "$0")/lib.sh"

setup() {
	require_user_namespaces
	make_repo repo
	printf 'one\ntwo\nthree\nfour\nfive\n' >repo/f.txt
	git -C repo add f.txt
	git -C repo commit -q -m "f"
	ok "new t1" -C repo new t1
	agent_writes 'one\ntwo\nTHREE\nfour\nfive\n'
}

# agent_writes TEXT: t1's agent writes f.txt (TEXT a printf format), on either form.
agent_writes() {
	agent_sh t1 'printf "$1" >f.txt' "$1"
}

# py EXPR: EXPR over j, the JSON in $out, printed.
py() {
	printf '%s' "$out" | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); print(('"$1"'))'
}

# The comments file's bytes (state dir), for "nothing changed".
state_of() {
	cat repo/.git/agenttask/comments/t1.json 2>/dev/null || echo none
}

test_comment_on_a_line_is_carried_forward() {
	# What: a comment on line 3, then the agent inserts two lines above it.
	# Must: shown on line 5 (its text, not outdated), made_on still line 3.
	setup
	ok "comment" -C repo comment t1 f.txt:3 "why upper case?"
	assert_eq "$out" "comment 1 on 't1'" "id"
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py 'j["open"], j["comments"][0]["line"], j["comments"][0]["outdated"]')" "(1, 3, False)" "as made"
	agent_writes 'zero\nhalf\none\ntwo\nTHREE\nfour\nfive\n'
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py 'j["comments"][0]["line"], j["comments"][0]["end_line"], j["comments"][0]["outdated"], j["comments"][0]["made_on"]["line"], j["comments"][0]["text"]')" "(5, 5, False, 3, 'why upper case?')" "moved down"
	ok "text" -C repo comments t1
	assert_contains "$out" "1  f.txt:5" "text shows the carried line"
}

test_comment_whose_line_went_is_outdated() {
	# What: a comment on lines 2-3, then the agent rewrites line 3.
	# Must: outdated, no current line; the text says so.
	setup
	ok "comment" -C repo comment t1 f.txt:2-3 "these two"
	agent_writes 'one\ntwo\nthree again\nfour\nfive\n'
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py 'j["comments"][0]["outdated"], j["comments"][0]["line"], j["comments"][0]["made_on"]["end_line"]')" "(True, None, 3)" "outdated"
	ok "text" -C repo comments t1
	assert_contains "$out" "outdated" "text"
}

test_whole_change_comment_and_resolve() {
	# What: a comment on the whole change, then --resolve. Must: it has no
	# path; resolved, it is gone from the open list, kept with --all.
	setup
	ok "comment" -C repo comment t1 "split this into two commits"
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py 'j["comments"][0]["path"], j["comments"][0]["line"]')" "(None, None)" "whole change"
	ok "resolve" -C repo comment t1 --resolve 1
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py 'j["open"], len(j["comments"])')" "(0, 0)" "none open"
	ok "all" -C repo comments t1 --json --all
	assert_eq "$(py 'j["comments"][0]["resolved"]')" "True" "kept, resolved"
}

test_bad_input_changes_nothing() {
	# What: a line outside the file, a path not in the task's state, a bad
	# place, an unknown id to resolve. Must: each one line naming it, exit
	# 2, the comments file unchanged.
	setup
	ok "comment" -C repo comment t1 f.txt:1 "first"
	before=$(state_of)
	expect_rc 2 "line outside" -C repo comment t1 f.txt:6 "x"
	assert_eq "$errout" "agenttask: line 6 is outside 'f.txt' (5 lines)" "message"
	expect_rc 2 "range outside" -C repo comment t1 f.txt:4-9 "x"
	expect_rc 2 "no such path" -C repo comment t1 nope.txt:1 "x"
	assert_eq "$errout" "agenttask: no file 'nope.txt' in task 't1'" "message"
	expect_rc 2 "a directory" -C repo comment t1 src:1 "x"
	expect_rc 2 "bad place" -C repo comment t1 f.txt:0 "x"
	expect_rc 2 "unknown id" -C repo comment t1 --resolve 7
	assert_eq "$errout" "agenttask: no comment '7' on task 't1'" "message"
	expect_rc 2 "bad id" -C repo comment t1 --resolve x
	expect_rc 2 "unknown task" -C repo comment nope "x"
	assert_eq "$(state_of)" "$before" "nothing changed"
}

test_comments_go_with_the_task() {
	# What: a task with comments is discarded and made again by that name.
	# Must: the new task has none.
	setup
	ok "comment" -C repo comment t1 "x"
	ok "discard" -C repo discard t1
	ok "new" -C repo new t1
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py 'len(j["comments"])')" "0" "none"
}

test_comments_survive_the_persons_git_gc() {
	# What: the person runs `git gc --prune=now` (or git's automatic gc
	# prunes, weeks later) after a comment, when the state it was made on is
	# no longer the task's. Must: that state is kept (a ref of agenttask's),
	# so the comment is still carried, not outdated, and --since-review still
	# reads it; the ref goes with the task.
	setup
	ok "comment" -C repo comment t1 f.txt:3 "why upper case?"
	agent_writes 'zero\nhalf\none\ntwo\nTHREE\nfour\nfive\n'
	# The runs' checkpoints also hold the commented state: without them
	# only the reviews ref can keep it from the gc.
	git -C repo for-each-ref --format='delete %(refname)' refs/agenttask/checkpoints |
		git -C repo update-ref --stdin
	git -C repo gc -q --prune=now
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py 'j["comments"][0]["line"], j["comments"][0]["outdated"]')" "(5, False)" "carried after gc"
	ok "since" -C repo diff t1 --since-review --name-only
	assert_eq "$out" "f.txt" "since the review, after gc"
	assert_eq "$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/reviews)" \
		"refs/agenttask/reviews/t1" "the ref that keeps it"
	ok "discard" -C repo discard t1
	assert_eq "$(git -C repo for-each-ref --format='%(refname)' refs/agenttask/reviews)" "" "gone with the task"
}

test_comments_survive_a_discard_and_restore() {
	# What: a task with a comment on a line, one resolved, and a reviewed
	# state is discarded, the person's git gc prunes what no ref holds, then
	# the task is restored. Must: its comments come back as they were (the
	# open one carried, not outdated; the resolved one with --all), the
	# reviews ref with them, diff --since-review reads its base; nothing of
	# them stays in the trash.
	setup
	ok "comment" -C repo comment t1 f.txt:3 "why upper case?"
	ok "comment 2" -C repo comment t1 "and this"
	ok "resolve" -C repo comment t1 --resolve 2
	agent_writes 'zero\none\ntwo\nTHREE\nfour\nfive\n'
	ok "comments before" -C repo comments t1 --json --all
	local before=$out review
	review=$(git -C repo rev-parse refs/agenttask/reviews/t1)
	ok "discard" -C repo discard t1
	assert_eq "$(state_of)" none "the task's comments file goes with it"
	git -C repo gc -q --prune=now
	ok "restore" -C repo restore t1
	ok "comments after" -C repo comments t1 --json --all
	assert_eq "$out" "$before" "the same comments, carried the same"
	out=$before
	assert_eq "$(py 'j["comments"][0]["line"], j["comments"][0]["outdated"], j["comments"][1]["resolved"]')" \
		"(4, False, True)" "carried, and the resolved one"
	assert_eq "$(git -C repo rev-parse refs/agenttask/reviews/t1)" "$review" "the reviews ref back"
	ok "since" -C repo diff t1 --since-review --name-only
	assert_eq "$out" "f.txt" "since the review"
	assert_empty "nothing left in the trash" git -C repo for-each-ref refs/agenttask/trash-kept
}

test_review_in_a_scripted_editor() {
	# What: review with an editor that adds '>>' lines: before the first
	# file, under an added line (two lines: one comment), under a removed
	# line. Must: a whole-change comment, one on the added line's new line,
	# one on the nearest new line (and a note saying so); an editor that
	# adds nothing records nothing; one that changes a diff line records
	# nothing and says which line.
	setup
	cat >ed.py <<'PY'
import sys
p = sys.argv[1]
out = [">> overall: fine"]
for l in open(p).read().split("\n"):
    out.append(l)
    if l == "+THREE":
        out += [">> why upper case?", ">> and why here"]
    if l == "-three":
        out.append(">> this was fine")
open(p, "w").write("\n".join(out))
PY
	printf '#!/bin/sh\nexec python3 %s "$@"\n' "$PWD/ed.py" >ed.sh
	chmod +x ed.sh
	EDITOR=$PWD/ed.sh expect_rc 0 "review" -C repo review t1
	assert_contains "$errout" "comment under a removed line of 'f.txt': on line 3" "note"
	ok "comments" -C repo comments t1 --json
	assert_eq "$(py '[(c["path"], c["line"], c["text"]) for c in j["comments"]]')" "[(None, None, 'overall: fine'), ('f.txt', 3, 'this was fine'), ('f.txt', 3, 'why upper case?\nand why here')]" "comments"
	before=$(state_of)
	GIT_EDITOR=true expect_rc 0 "review, nothing added" -C repo review t1
	assert_contains "$out" "nothing recorded" "nothing"
	GIT_EDITOR="sed -i s/^+THREE/+X/" expect_rc 2 "diff changed" -C repo review t1
	assert_contains "$errout" "line 9 of the review was changed" "names the line"
	GIT_EDITOR=false expect_rc 1 "editor failed" -C repo review t1
	assert_eq "$(state_of)" "$before" "nothing changed"
}

test_review_places_comments_across_renames_and_type_changes() {
	# What: a review of a rename with an edit, a file turned into a symlink
	# (two sections of the diff for one path) and a later file, with a '>>'
	# under a line of each. Must: the renamed file's new path and line, the
	# later file's line (the sections counted right), the symlink's on the
	# whole change naming it (it has no lines to comment on).
	setup
	printf '1\n2\n3\n' >repo/a.txt
	echo x >repo/l
	git -C repo add a.txt l
	git -C repo commit -q -m more
	ok "new" -C repo new t2
	agent_sh t2 'git mv a.txt b.txt && printf "1\n2\nthree\n" >b.txt && rm l && ln -s b.txt l &&
		echo more >>f.txt'
	cat >ed.py <<'PY'
import sys
p = sys.argv[1]
out = []
for l in open(p).read().split("\n"):
    out.append(l)
    if l in ("+three", "+b.txt", "+more"):
        out.append(">> on " + l)
open(p, "w").write("\n".join(out))
PY
	GIT_EDITOR="python3 $PWD/ed.py" ok "review" -C repo review t2
	ok "comments" -C repo comments t2 --json
	assert_eq "$(py '[(c["path"], c["line"], c["text"]) for c in j["comments"]]')" "[('b.txt', 3, 'on +three'), ('f.txt', 6, 'on +more'), (None, None, \"on 'l': on +b.txt\")]" "placed"
}

test_review_editor_line_is_not_built_from_task_bytes() {
	# What: a file name in the task that is shell syntax, and a review file
	# whose directory name is too. Must: the editor gets the review file as
	# one argument, never part of the shell line; nothing in either runs.
	setup
	agent_sh t1 'touch "$1"' "\$(touch pwned)\`touch pwned2\`;x"
	mkdir "tmp \$(touch pwned3);x"
	printf '#!/bin/sh\n[ $# = 1 ] && grep -q pwned "$1" && echo ok >%s\n' "$PWD/got" >ed.sh
	chmod +x ed.sh
	TMPDIR="$PWD/tmp \$(touch pwned3);x" EDITOR=$PWD/ed.sh ok "review" -C repo review t1
	assert_eq "$(cat got)" "ok" "one argument, the diff in it"
	assert_no_file repo/pwned "no command ran"
	assert_no_file pwned "no command ran"
	assert_no_file pwned2 "no command ran"
	assert_no_file repo/pwned3 "no command ran"
	assert_no_file pwned3 "no command ran"
}

test_since_review_shows_the_fix_only() {
	# What: a comment, then the agent's fix. Must: diff --since-review is
	# only the fix; before any review, one clear line and exit 2.
	setup
	expect_rc 2 "no review" -C repo diff t1 --since-review
	assert_eq "$errout" "agenttask: task 't1' has no review yet: no comment made, no part accepted with --keep" "message"
	ok "comment" -C repo comment t1 f.txt:3 "lower case please"
	ok "nothing since" -C repo diff t1 --since-review
	assert_no_output "$out" "nothing changed since"
	agent_sh t1 'printf "one\ntwo\nthree\nfour\nfive\n" >f.txt && echo new >g.txt'
	ok "since" -C repo diff t1 --since-review --name-only
	assert_eq "$out" "$(printf 'f.txt\ng.txt')" "the fix"
	ok "since" -C repo diff t1 --since-review
	assert_contains "$out" "-THREE" "the fix's patch"
	assert_contains "$out" "+three" "the fix's patch"
}

test_accept_keep_marks_reviewed() {
	# What: accept --keep, then the agent changes more. Must: --since-review
	# shows only what came after the accept.
	setup
	ok "accept" -C repo accept t1 --keep
	agent_sh t1 'echo more >h.txt'
	ok "since" -C repo diff t1 --since-review --name-only
	assert_eq "$out" "h.txt" "after the accept"
}

test_gate_fails_with_an_open_comment() {
	# What: a policy {"open_comments": 0} and one open comment. Must: the
	# gate fails (exit 1) naming it, text and JSON; resolved, it passes.
	setup
	set_policy '{"open_comments": 0}'
	ok "rebase-free: comment" -C repo comment t1 f.txt:3 "lower case please"
	expect_rc 1 "gate" -C repo gate t1
	assert_contains "$out" "open_comments" "row"
	assert_contains "$out" "1 f.txt:3 lower case please" "the comment"
	expect_rc 1 "gate json" -C repo gate t1 --json
	assert_eq "$(py '[(r["passed"], r["paths"]) for r in j["results"] if r["rule"] == "open_comments"]')" "[(False, ['1 f.txt:3 lower case please'])]" "json"
	expect_rc 1 "accept refused" -C repo accept t1
	ok "resolve" -C repo comment t1 --resolve 1
	ok "gate" -C repo gate t1
}

test_agent_reads_comments_in_the_sandbox() {
	# What: the agent, inside the sandbox, reads $AGENTTASK_COMMENTS and
	# tries to write it. Must: the variable names the file, which holds the
	# open comments carried to the current state; writing fails; run --json
	# has the same comments.
	unshare -Ur true 2>/dev/null || skip "user namespaces are unavailable here"
	setup
	ok "comment" -C repo comment t1 f.txt:3 "lower case please"
	agent_writes 'zero\none\ntwo\nTHREE\nfour\nfive\n'
	ok "run" -C repo run t1 -- sh -c 'echo "$AGENTTASK_COMMENTS"; python3 -c "import json,os; c=json.load(open(os.environ[\"AGENTTASK_COMMENTS\"])); print(c[0][\"line\"], c[0][\"text\"])"; (echo x >"$AGENTTASK_COMMENTS") 2>/dev/null && echo WROTE || echo readonly; (chmod 666 "$AGENTTASK_COMMENTS") 2>/dev/null && echo CHMOD || echo nochmod'
	assert_eq "$out" "$(printf '/run/agenttask/comments.json\n4 lower case please\nreadonly\nnochmod')" "read, not written"
	ok "run json" -C repo run t1 --json -- true
	assert_eq "$(py 'len(j["comments"]), j["comments"][0]["line"]')" "(1, 4)" "run --json"
	ok "resolve" -C repo comment t1 --resolve 1
	ok "run" -C repo run t1 -- cat /run/agenttask/comments.json
	assert_eq "$out" "[]" "none open: an empty list"
}

run_tests
