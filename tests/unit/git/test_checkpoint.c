/*
 * Unit tests for git/checkpoint.c: a task's checkpoints, taken from its full
 * state on a real repository (made in a temporary directory, the task as
 * `new` makes it), checked against git itself (`git add -A && git
 * write-tree` through an index of the test's own, so that the task's index
 * is never touched), listed, removed, restored; the review's kept states.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/lifecycle.h"
#include "core/paths.h"
#include "core/util.h"
#include "git/checkpoint.h"
#include "git/repo.h"
#include "git/snapshot.h"

/*
 * The clock libgit2 signs commits with (linked with -Wl,--wrap=time: libgit2
 * is linked in statically): when moving, each call a minute later, so that
 * two commits of the same tree and parent differ unless one is not made.
 */
static bool clock_moving;
static time_t clock_now;

time_t __real_time(time_t *t);
time_t __wrap_time(time_t *t);
time_t __wrap_time(time_t *t)
{
	time_t now = clock_moving ? (clock_now += 60) : __real_time(NULL);

	if (t)
		*t = now;
	return now;
}

struct fixture {
	char root[PATH_MAX];  /* repo/ (the repository), wt/ (its tasks' worktrees), secret */
	char repo[PATH_MAX];
	struct at_repo *r;
	struct at_task task;
};

static int sh(const char *dir, const char *cmd)
{
	AT_AUTOFREE char *buf = NULL;

	if (asprintf(&buf, "cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd) < 0)
		return -1;
	return system(buf);
}

/* cmd's first line of output in dir, into buf ("" when none). */
static void capture(const char *dir, const char *cmd, char *buf, size_t size)
{
	AT_AUTOFREE char *full = NULL;
	FILE *p;

	buf[0] = '\0';
	assert_true(asprintf(&full, "cd '%s' && { %s; } 2>/dev/null", dir, cmd) >= 0);
	assert_non_null(p = popen(full, "r"));
	if (!fgets(buf, (int)size, p))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	pclose(p);
}

/* A repository with a file, a script, a directory and a task t on it. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct at_error err = AT_ERROR_INIT;
	char tmpl[] = "/tmp/at-checkpoint-test.XXXXXX";

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->root) ||
	    at_fmt(f->repo, sizeof(f->repo), "%s/repo", f->root) < 0)
		return -1;
	/* The task's worktree under root too, not in the HOME's share. */
	if (sh(f->root, "git init -q -b main repo && cd repo && git config user.name t &&"
			" git config agenttask.worktreeDir \"$PWD/../wt\" &&"
			" git config user.email t@t && printf 'one\\ntwo\\n' >text.txt &&"
			" printf '#!/bin/sh\\n' >tool.sh && mkdir dir && echo in >dir/inner.txt &&"
			" echo plain >link.txt && printf 'ignored.log\\n' >.gitignore &&"
			" git add -A && git commit -q -m base") != 0)
		return -1;
	if (at_repo_open(&f->r, f->repo, &err) < 0 ||
	    at_app_task_create(f->r, "t", NULL, &f->task, &err) < 0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	AT_AUTOFREE char *cmd = NULL;

	at_repo_free(f->r);
	if (asprintf(&cmd, "rm -rf '%s'", f->root) >= 0 && system(cmd) != 0)
		fprintf(stderr, "teardown: cannot remove %s\n", f->root);
	free(f);
	return 0;
}

/* The task's full state (one scan), as a run's checkpoint takes it. */
static int state_of(struct fixture *f, struct at_task_state *st, struct at_error *err)
{
	struct at_worktree *w = NULL;
	int rc = at_worktree_open(&w, f->r, &f->task, err);

	if (rc == 0)
		rc = at_task_state(f->r, &f->task, w, st, err);
	at_worktree_free(w);
	return rc;
}

static void take(struct fixture *f, enum at_checkpoint_kind kind, struct at_checkpoint *out)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_task_state st;

	assert_int_equal(state_of(f, &st, &err), 0);
	assert_int_equal(at_checkpoint_take(f->r, &f->task, &st, kind, out, &err), 0);
}

static void hex(const struct at_oid *id, char *buf)
{
	at_oid_fmt(buf, id);
}

/* What git records of the worktree (tracked and untracked, not ignored), with an index of its own. */
static void git_tree(struct fixture *f, char *buf, size_t size)
{
	capture(f->task.path,
		"i=$(mktemp) && cp \"$(git rev-parse --absolute-git-dir)/index\" \"$i\" &&"
		" GIT_INDEX_FILE=$i git add -A && GIT_INDEX_FILE=$i git write-tree; rm -f \"$i\"",
		buf, size);
}

static unsigned long objects(struct fixture *f)
{
	char n[32];

	capture(f->repo, "find .git/objects -type f | wc -l", n, sizeof(n));
	return strtoul(n, NULL, 10);
}

static void list(struct fixture *f, struct at_checkpoint_list *l)
{
	struct at_error err = AT_ERROR_INIT;

	assert_int_equal(at_checkpoint_list(f->r, "t", l, &err), 0);
}

/*
 * A state equal to the last checkpoint's costs no new object: the second
 * ref names the same commit, and the object store holds what it held
 * (with the clock moving: a second commit made would be another).
 */
static void test_checkpoint__unchanged_state_costs_no_new_object(void **state)
{
	struct fixture *f = *state;
	struct at_checkpoint a, b;
	unsigned long before;

	assert_int_equal(sh(f->task.path, "echo changed >>text.txt && echo new >new.txt"), 0);
	clock_now = time(NULL);
	clock_moving = true;
	take(f, AT_CHECKPOINT_RUN, &a);
	before = objects(f);
	take(f, AT_CHECKPOINT_RUN, &b);
	clock_moving = false;
	assert_int_equal(a.n, 1);
	assert_int_equal(b.n, 2);
	assert_memory_equal(a.commit.id, b.commit.id, AT_OID_RAWSZ);
	assert_memory_equal(a.tree.id, b.tree.id, AT_OID_RAWSZ);
	assert_int_equal(objects(f), before);
}

/*
 * Every kind of change a command makes: a file modified, created, deleted,
 * chmod'ed, turned into a link, a directory turned into a file, a file
 * into a directory, an ignored file. Must: the checkpoint's tree is the
 * one git writes for the same worktree, its parent HEAD.
 */
static void test_checkpoint__records_each_kind_of_change_exactly(void **state)
{
	struct fixture *f = *state;
	char want[64], got[AT_OID_HEXSZ + 1], head[64], tip[AT_OID_HEXSZ + 1];
	struct at_checkpoint c;

	assert_int_equal(sh(f->task.path,
			    "echo more >>text.txt && echo new >created.txt && chmod +x tool.sh &&"
			    " rm link.txt && ln -s text.txt link.txt && rm -r dir && echo f >dir &&"
			    " rm text.txt && mkdir text.txt && echo deep >text.txt/x &&"
			    " echo noise >ignored.log && mkdir empty"), 0);
	take(f, AT_CHECKPOINT_RUN, &c);
	git_tree(f, want, sizeof(want));
	hex(&c.tree, got);
	assert_string_equal(got, want);
	/* What the ref holds, read back by git. */
	capture(f->repo, "git rev-parse refs/agenttask/checkpoints/t/1^{tree}", got, sizeof(got));
	assert_string_equal(got, want);
	capture(f->task.path, "git rev-parse HEAD", head, sizeof(head));
	capture(f->repo, "git rev-parse refs/agenttask/checkpoints/t/1^", tip, sizeof(tip));
	assert_string_equal(tip, head);
}

/*
 * The task's git inside: a commit made in the worktree, a change staged and
 * not committed. Must: the checkpoint's parent is the new HEAD, its
 * message names the branch and the kind, its tree has the staged change;
 * a rewind's checkpoint of the same state is a commit of its own (kind).
 */
static void test_checkpoint__records_head_branch_and_index_inside(void **state)
{
	struct fixture *f = *state;
	char head[64], tip[AT_OID_HEXSZ + 1], msg[256], id[AT_OID_HEXSZ + 1], cmd[128];
	struct at_checkpoint_list l;
	struct at_checkpoint run, rew;

	assert_int_equal(sh(f->task.path, "echo c >c.txt && git add c.txt && git commit -q -m inside &&"
					  " echo s >staged.txt && git add staged.txt"), 0);
	take(f, AT_CHECKPOINT_RUN, &run);
	capture(f->task.path, "git rev-parse HEAD", head, sizeof(head));
	hex(&run.tip, tip);
	assert_string_equal(tip, head);
	hex(&run.commit, id);
	snprintf(cmd, sizeof(cmd), "git log -1 --format=%%B %s | grep Branch", id);
	capture(f->repo, cmd, msg, sizeof(msg));
	assert_string_equal(msg, "Agenttask-Branch: refs/heads/agenttask/t");
	snprintf(cmd, sizeof(cmd), "git cat-file -p %s:staged.txt", id);
	capture(f->repo, cmd, msg, sizeof(msg));
	assert_string_equal(msg, "s");

	take(f, AT_CHECKPOINT_REWIND, &rew);
	assert_memory_not_equal(rew.commit.id, run.commit.id, AT_OID_RAWSZ);
	assert_memory_equal(rew.tree.id, run.tree.id, AT_OID_RAWSZ);
	list(f, &l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0].kind, AT_CHECKPOINT_RUN);
	assert_int_equal(l.v[1].kind, AT_CHECKPOINT_REWIND);
	assert_memory_equal(l.v[1].commit.id, rew.commit.id, AT_OID_RAWSZ);
	at_checkpoint_list_release(&l);
}

/*
 * What a run plants: a FIFO (no writer: opening it would block for ever)
 * and a link out of the tree to a file of the host's. Must: the checkpoint
 * is taken at once, without the FIFO (git records none either: the tree is
 * git's), the link recorded as a link whose blob is its target's name,
 * never the target's bytes.
 */
static void test_checkpoint__fifo_and_outside_link_neither_opened_nor_followed(void **state)
{
	struct fixture *f = *state;
	struct at_checkpoint c;
	char cmd[3 * PATH_MAX], got[PATH_MAX], want[64], id[AT_OID_HEXSZ + 1];

	snprintf(cmd, sizeof(cmd), "echo secret >'%s/secret' && ln -s '%s/secret' out &&"
		 " mkfifo fifo", f->root, f->root);
	assert_int_equal(sh(f->task.path, cmd), 0);
	take(f, AT_CHECKPOINT_RUN, &c);
	git_tree(f, want, sizeof(want));
	hex(&c.tree, id);
	assert_string_equal(id, want);
	snprintf(cmd, sizeof(cmd), "git ls-tree %s fifo", id);
	capture(f->repo, cmd, got, sizeof(got));
	assert_string_equal(got, "");
	hex(&c.commit, id);
	snprintf(cmd, sizeof(cmd), "git ls-tree %s out | cut -c1-6", id);
	capture(f->repo, cmd, got, sizeof(got));
	assert_string_equal(got, "120000");
	snprintf(cmd, sizeof(cmd), "git cat-file -p %s:out", id);
	capture(f->repo, cmd, got, sizeof(got));
	snprintf(cmd, sizeof(cmd), "%s/secret", f->root);
	assert_string_equal(got, cmd);
}

/*
 * Refs numbered from 1 in the order taken; a ref under the task's prefix
 * that is no checkpoint (0, a leading zero, not a number, not a commit) is
 * not listed, nor another task's; remove_all deletes the task's own only.
 */
static void test_checkpoint__numbered_from_one_and_listed_strictly(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_checkpoint_list l;
	struct at_checkpoint c;
	char left[64];
	unsigned i;

	for (i = 1; i <= 3; i++) {
		assert_int_equal(sh(f->task.path, "echo x >>text.txt"), 0);
		take(f, AT_CHECKPOINT_RUN, &c);
		assert_int_equal(c.n, i);
	}
	assert_int_equal(sh(f->repo, "c=$(git rev-parse refs/agenttask/checkpoints/t/1) &&"
				     " git update-ref refs/agenttask/checkpoints/t/0 $c &&"
				     " git update-ref refs/agenttask/checkpoints/t/04 $c &&"
				     " git update-ref refs/agenttask/checkpoints/t/x $c &&"
				     " git update-ref refs/agenttask/checkpoints/t/7 HEAD^{tree} &&"
				     " git update-ref refs/agenttask/checkpoints/tt/1 $c"), 0);
	list(f, &l);
	assert_int_equal(l.n, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(l.v[i].n, i + 1);
	at_checkpoint_list_release(&l);
	take(f, AT_CHECKPOINT_RUN, &c);
	assert_int_equal(c.n, 4);

	assert_int_equal(at_checkpoint_list(f->r, "../t", &l, &err) < 0, 1);
	err = (struct at_error)AT_ERROR_INIT;
	assert_int_equal(at_checkpoint_remove_all(f->r, "t", &err), 0);
	list(f, &l);
	assert_int_equal(l.n, 0);
	capture(f->repo, "git for-each-ref --format='%(refname)' refs/agenttask/checkpoints/tt",
		left, sizeof(left));
	assert_string_equal(left, "refs/agenttask/checkpoints/tt/1");
}

/*
 * Restore brings the worktree, the index and the branch back to a
 * checkpoint: after a commit inside and changes of every kind, restoring
 * checkpoint 1 gives git's own view of the state then (its tree from the
 * worktree, HEAD, and an index at HEAD's tree plus what was staged... none
 * here: the index is the tip's).
 */
static void test_checkpoint__restore_brings_back_files_index_and_branch(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char want[64], tree1[AT_OID_HEXSZ + 1], head[64], tip1[AT_OID_HEXSZ + 1], idx[64];
	struct at_checkpoint one, two;
	struct at_task_state now;
	size_t n = 0;

	assert_int_equal(sh(f->task.path, "echo u >untracked.txt && echo m >>text.txt"), 0);
	take(f, AT_CHECKPOINT_RUN, &one);
	assert_int_equal(sh(f->task.path, "rm untracked.txt && echo c >c.txt && git add c.txt &&"
					  " git commit -q -m inside && rm -r dir && ln -s tool.sh dir &&"
					  " chmod +x text.txt"), 0);
	take(f, AT_CHECKPOINT_REWIND, &two);
	assert_int_equal(state_of(f, &now, &err), 0);
	assert_int_equal(at_checkpoint_restore(f->r, &f->task, &now, &one, &n, &err), 0);
	assert_true(n > 0);
	git_tree(f, want, sizeof(want));
	hex(&one.tree, tree1);
	assert_string_equal(want, tree1);
	capture(f->task.path, "git rev-parse HEAD", head, sizeof(head));
	hex(&one.tip, tip1);
	assert_string_equal(head, tip1);
	capture(f->task.path, "git write-tree", idx, sizeof(idx));
	capture(f->task.path, "git rev-parse HEAD^{tree}", want, sizeof(want));
	assert_string_equal(idx, want);
	capture(f->task.path, "git status --porcelain | tr '\\n' ' '", want, sizeof(want));
	assert_string_equal(want, " M text.txt ?? untracked.txt ");
}

/*
 * The review's kept states: a tree kept twice makes one commit; another
 * tree a second one whose parent is the first (both stay reachable);
 * forget deletes the ref, and again is no error.
 */
static void test_checkpoint__review_keep_chains_trees_once_each(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_checkpoint a, b;
	char first[64], again[64], parent[64], ha[AT_OID_HEXSZ + 1];

	take(f, AT_CHECKPOINT_RUN, &a);
	assert_int_equal(sh(f->task.path, "echo y >>text.txt"), 0);
	take(f, AT_CHECKPOINT_RUN, &b);
	assert_int_equal(at_review_keep(f->r, "t", &a.tree, &err), 0);
	capture(f->repo, "git rev-parse refs/agenttask/reviews/t", first, sizeof(first));
	assert_int_equal(at_review_keep(f->r, "t", &a.tree, &err), 0);
	capture(f->repo, "git rev-parse refs/agenttask/reviews/t", again, sizeof(again));
	assert_string_equal(again, first);
	assert_int_equal(at_review_keep(f->r, "t", &b.tree, &err), 0);
	capture(f->repo, "git rev-parse refs/agenttask/reviews/t^", parent, sizeof(parent));
	assert_string_equal(parent, first);
	capture(f->repo, "git rev-parse refs/agenttask/reviews/t^^{tree}", parent, sizeof(parent));
	hex(&a.tree, ha);
	assert_string_equal(parent, ha);
	assert_int_equal(at_review_forget(f->r, "t", &err), 0);
	capture(f->repo, "git for-each-ref refs/agenttask/reviews", again, sizeof(again));
	assert_string_equal(again, "");
	assert_int_equal(at_review_forget(f->r, "t", &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_checkpoint__unchanged_state_costs_no_new_object,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint__records_each_kind_of_change_exactly,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint__records_head_branch_and_index_inside,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_checkpoint__fifo_and_outside_link_neither_opened_nor_followed, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint__numbered_from_one_and_listed_strictly,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_checkpoint__restore_brings_back_files_index_and_branch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint__review_keep_chains_trees_once_each,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
