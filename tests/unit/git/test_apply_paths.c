/*
 * Unit tests for git/apply_paths.c: the checkout accept makes of the base's
 * worktree. It brings files, links, modes, deletions and type changes to the
 * new tree with the index to match (git is the oracle); killed before any of
 * its renames, it leaves every path whole (old or new), what it wrote is
 * recognised as new, its index.lock as its own, and an apply run again
 * finishes the work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#include "core/fs.h"
#include "core/util.h"
#include "git/apply_paths.h"

/* The renames of the code under test, counted; the K-th one is never made. */
int __real_renameat(int olddfd, const char *old, int newdfd, const char *new);
int __real_renameat2(int olddfd, const char *old, int newdfd, const char *new, unsigned flags);
int __wrap_renameat(int olddfd, const char *old, int newdfd, const char *new);
int __wrap_renameat2(int olddfd, const char *old, int newdfd, const char *new, unsigned flags);

static int die_before;   /* 0: never */
static int renames;

#define KILLED 3

static void count_rename(void)
{
	if (die_before && ++renames == die_before)
		_exit(KILLED);   /* as SIGKILL would: nothing after this happens */
}

int __wrap_renameat(int olddfd, const char *old, int newdfd, const char *new)
{
	count_rename();
	return __real_renameat(olddfd, old, newdfd, new);
}

int __wrap_renameat2(int olddfd, const char *old, int newdfd, const char *new, unsigned flags)
{
	count_rename();
	return __real_renameat2(olddfd, old, newdfd, new, flags);
}

struct repo {
	char root[PATH_MAX];
	git_repository *repo;
	git_tree *old_tree, *new_tree;
	git_strarray paths;      /* changed between the two, sorted */
};

static int sh(const struct repo *r, const char *cmd)
{
	AT_AUTOFREE char *buf = NULL;

	if (asprintf(&buf, "cd '%s' && { %s; } >/dev/null 2>&1", r->root, cmd) < 0)
		return -1;
	return system(buf);
}

static int tree_of(struct repo *r, const char *rev, git_tree **out)
{
	git_object *obj = NULL;
	int rc = git_revparse_single(&obj, r->repo, rev);

	if (rc == 0)
		rc = git_object_peel((git_object **)out, obj, GIT_OBJECT_TREE);
	git_object_free(obj);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Commit "old", then "new": contents, a mode, a deletion, a file that
 * becomes a directory and one that a directory becomes, a link, a new
 * nested file, 5 more files. The worktree and index are left at "old".
 */
static int setup(void **state)
{
	struct repo *r = calloc(1, sizeof(*r));
	char tmpl[] = "/tmp/at-apply-test.XXXXXX";
	git_diff *diff = NULL;
	size_t i;

	if (!r || !mkdtemp(tmpl) || !realpath(tmpl, r->root))
		return -1;
	if (sh(r, "git init -q -b main . && git config user.name t && git config user.email t@t &&"
		  " echo old a >a.txt && mkdir -p dir todir && echo old b >dir/b.txt &&"
		  " echo gone >gone.txt && echo file >tofile && echo x >todir/x &&"
		  " for i in 1 2 3 4 5; do echo $i >many$i; done &&"
		  " git add -A && git commit -q -m old && git tag old &&"
		  " echo new a >a.txt && echo new b >dir/b.txt && chmod +x dir/b.txt &&"
		  " rm gone.txt tofile && mkdir tofile && echo in >tofile/in &&"
		  " rm -r todir && echo now a file >todir && ln -s a.txt link &&"
		  " mkdir -p new/deep && echo c >new/deep/c.txt &&"
		  " for i in 1 2 3 4 5; do echo new $i >many$i; done &&"
		  " git add -A && git commit -q -m new && git tag new &&"
		  " git checkout -q --detach old") != 0)
		return -1;
	if (git_repository_open(&r->repo, r->root) < 0 || tree_of(r, "old", &r->old_tree) < 0 ||
	    tree_of(r, "new", &r->new_tree) < 0 ||
	    git_diff_tree_to_tree(&diff, r->repo, r->old_tree, r->new_tree, NULL) < 0)
		return -1;
	r->paths.strings = calloc(2 * git_diff_num_deltas(diff), sizeof(char *));
	for (i = 0; i < git_diff_num_deltas(diff); i++)
		r->paths.strings[r->paths.count++] = strdup(git_diff_get_delta(diff, i)->new_file.path);
	git_diff_free(diff);
	qsort(r->paths.strings, r->paths.count, sizeof(char *), cmp_str);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;

	git_strarray_dispose(&r->paths);
	git_tree_free(r->old_tree);
	git_tree_free(r->new_tree);
	git_repository_free(r->repo);
	at_rmtree(r->root, &err);
	free(r);
	return 0;
}

/* The worktree and the index are tree `tag` exactly, by git's reckoning. */
static bool is_at(const struct repo *r, const char *tag)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "git diff --quiet %s -- && git diff --cached --quiet %s -- &&"
		 " test -z \"$(git ls-files --others --exclude-standard)\"", tag, tag);
	return sh(r, cmd) == 0;
}

static void test_apply__brings_the_paths_to_the_new_tree_and_the_index_with_them(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	size_t i;

	assert_true(is_at(r, "old"));
	assert_int_equal(at_apply_paths(r->repo, r->new_tree, r->paths.strings, r->paths.count,
					&err), 0);
	assert_true(is_at(r, "new"));
	for (i = 0; i < r->paths.count; i++)
		assert_true(at_apply_path_is_new(r->repo, r->new_tree, r->paths.strings[i]));
	/* And back, as accept puts files back when its ref cannot move. */
	assert_int_equal(at_apply_paths(r->repo, r->old_tree, r->paths.strings, r->paths.count,
					&err), 0);
	assert_true(is_at(r, "old"));
}

/*
 * Each path is its content in one of the trees, never a mix nor anything
 * else; "" when all are, else the first that is not.
 */
static const char *not_whole(const struct repo *r)
{
	static const char check[] =
		"for p in $PATHS; do ok=; for t in old new; do"
		" if [ \"$(git cat-file -t \"$t:$p\" 2>/dev/null)\" = blob ]; then"
		"  if [ -L \"$p\" ]; then [ \"$(readlink \"$p\")\" = \"$(git cat-file -p \"$t:$p\")\" ] && ok=1;"
		"  elif [ -f \"$p\" ]; then git cat-file -p \"$t:$p\" | cmp -s - \"$p\" && ok=1; fi;"
		" elif [ ! -f \"$p\" ] && [ ! -L \"$p\" ]; then ok=1; fi; done;"
		" [ -n \"$ok\" ] || { echo \"$p\" >&3; exit 1; }; done";
	static char bad[PATH_MAX];
	AT_AUTOFREE char *cmd = NULL, *list = NULL;
	char out[PATH_MAX + 32];
	size_t i, len = 0;
	FILE *f;

	for (i = 0; i < r->paths.count; i++)
		len += strlen(r->paths.strings[i]) + 1;
	list = calloc(1, len + 1);
	for (i = 0; list && i < r->paths.count; i++) {
		strcat(list, r->paths.strings[i]);
		strcat(list, " ");
	}
	assert_int_equal(at_fmt(out, sizeof(out), "%s.bad", r->root), 0);
	if (!list || asprintf(&cmd, "PATHS='%s'; exec 3>'%s'; %s", list, out, check) < 0)
		return "?";
	if (sh(r, cmd) == 0)
		return "";
	bad[0] = '\0';
	if ((f = fopen(out, "r"))) {
		if (fgets(bad, sizeof(bad), f))
			bad[strcspn(bad, "\n")] = '\0';
		fclose(f);
	}
	return bad;
}

/* Run at_apply_paths in a child that dies before its k-th rename: its exit status. */
static int apply_dying_before(struct repo *r, int k)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct at_error err = AT_ERROR_INIT;

		die_before = k;
		_exit(at_apply_paths(r->repo, r->new_tree, r->paths.strings, r->paths.count,
				     &err) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void check_after_a_kill(struct repo *r, int k)
{
	struct at_error err = AT_ERROR_INIT;
	char lock[PATH_MAX];
	size_t i;

	const char *bad = not_whole(r);

	if (bad[0])
		fail_msg("killed before rename %d: '%s' is neither old nor new", k, bad);
	/* What accept run again relies on: each path is seen to be at one tree or the other. */
	for (i = 0; i < r->paths.count; i++)
		if (!at_apply_path_is_new(r->repo, r->new_tree, r->paths.strings[i]) &&
		    !at_apply_path_is_new(r->repo, r->old_tree, r->paths.strings[i]))
			fail_msg("killed before rename %d: '%s' is seen at neither tree", k,
				 r->paths.strings[i]);
	assert_int_equal(at_fmt(lock, sizeof(lock), "%s/.git/index.lock", r->root), 0);
	if (at_path_exists(lock))
		assert_true(at_apply_clear_stale_lock(r->repo));
	assert_false(at_path_exists(lock));
	assert_int_equal(at_apply_paths(r->repo, r->new_tree, r->paths.strings, r->paths.count,
					&err), 0);
	if (!is_at(r, "new"))
		fail_msg("killed before rename %d, applied again: not at the new tree", k);
}

static void test_apply__killed_before_any_rename_leaves_each_path_whole_and_can_finish(void **state)
{
	struct repo *r = *state;
	int k, status = KILLED;

	for (k = 1; status == KILLED; k++) {
		assert_int_equal(sh(r, "git checkout -q -f --detach old && git clean -fdq"), 0);
		assert_true(is_at(r, "old"));
		status = apply_dying_before(r, k);
		if (status == KILLED)
			check_after_a_kill(r, k);
		else
			assert_int_equal(status, 0);
	}
	/* Every file renamed, then the index: index.lock, then over the index. */
	assert_true(k > (int)r->paths.count);
	assert_true(is_at(r, "new"));
}

static void test_apply__a_lock_it_did_not_make_is_left_alone(void **state)
{
	struct repo *r = *state;
	char lock[PATH_MAX];
	int fd;

	assert_int_equal(at_fmt(lock, sizeof(lock), "%s/.git/index.lock", r->root), 0);
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_false(at_apply_clear_stale_lock(r->repo));
	assert_true(at_path_exists(lock));
}

static void test_apply__never_writes_through_a_link_on_the_way(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	char outside[PATH_MAX];

	/* The user's checkout has new/ as a link to a directory elsewhere. */
	assert_int_equal(at_fmt(outside, sizeof(outside), "%s.outside", r->root), 0);
	assert_int_equal(at_mkdirs(outside, 0755, &err), 0);
	assert_int_equal(chdir(r->root), 0);
	assert_int_equal(symlink(outside, "new"), 0);
	assert_int_equal(at_apply_paths(r->repo, r->new_tree, r->paths.strings, r->paths.count,
					&err), AT_EDIRTY);
	assert_int_equal(sh(r, "git diff --quiet old -- && git diff --cached --quiet old --"), 0);
	assert_int_equal(rmdir(outside), 0);   /* empty: nothing was written there */
	assert_int_equal(chdir("/"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_apply__brings_the_paths_to_the_new_tree_and_the_index_with_them, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_apply__killed_before_any_rename_leaves_each_path_whole_and_can_finish,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply__a_lock_it_did_not_make_is_left_alone,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply__never_writes_through_a_link_on_the_way,
						setup, teardown),
	};

	git_libgit2_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
