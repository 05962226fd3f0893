/*
 * Unit tests for sandbox/plan.c: the invariants at_sandbox_run enforces
 * whatever its caller built. The attacker here is a caller that forgets (or
 * a front end that is tricked into) a writable bind of git metadata: the
 * spec must be refused before anything runs, by the sandbox itself.
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
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"
#include "sandbox/internal.h"

struct tree {
	char root[PATH_MAX], common[PATH_MAX], wt[PATH_MAX], ptr[PATH_MAX + 8];
	char deep[PATH_MAX], link[PATH_MAX];
	struct at_sandbox_spec s;
};

/* A spec that runs `true`, with the git layout's protection: the common dir, but the worktree. */
static int reset(struct tree *t)
{
	at_sandbox_spec_release(&t->s);
	at_sandbox_spec_init(&t->s);
	at_strlist_push(&t->s.argv, "true");
	at_strlist_push(&t->s.envp, "PATH=/bin");
	t->s.cwd = strdup("/");
	at_sandbox_protect(&t->s, t->common);
	at_sandbox_except(&t->s, t->wt);
	at_sandbox_protect(&t->s, t->ptr);
	return t->s.failed || !t->s.cwd ? -1 : 0;
}

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char tmpl[] = "/tmp/at-test-plan.XXXXXX";
	struct at_error err = AT_ERROR_INIT;
	int fd;

	if (!t || !mkdtemp(tmpl) || !realpath(tmpl, t->root))
		return -1;
	if (at_fmt(t->common, sizeof(t->common), "%s/repo/.git", t->root) < 0 ||
	    at_fmt(t->wt, sizeof(t->wt), "%s/agenttask/worktrees/t1", t->common) < 0 ||
	    at_fmt(t->ptr, sizeof(t->ptr), "%s/.git", t->wt) < 0 ||
	    at_fmt(t->deep, sizeof(t->deep), "%s/sub/dir", t->wt) < 0 ||
	    at_fmt(t->link, sizeof(t->link), "%s/link", t->root) < 0 ||
	    at_mkdirs(t->wt, 0755, &err) < 0 || at_mkdirs(t->deep, 0755, &err) < 0 ||
	    symlink(t->wt, t->link) < 0 ||
	    (fd = open(t->ptr, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0 || close(fd) < 0)
		return -1;
	*state = t;
	return reset(t);
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;
	struct at_error err = AT_ERROR_INIT;

	at_sandbox_spec_release(&t->s);
	at_rmtree(t->root, &err);
	free(t);
	return 0;
}

/* The plan's verdict on the spec: 0 or the error code (the message in msg). */
static int plan(struct tree *t, char *msg, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_sb_op *ops = NULL;
	size_t n = 0;
	int rc = at_sb_plan_build(&t->s, &ops, &n, &err);

	if (msg)
		snprintf(msg, size, "%s", err.msg);
	at_sb_plan_free(ops, n);
	return rc;
}

static void test_plan__writable_bind_of_a_protected_path_is_refused(void **state)
{
	struct tree *t = *state;
	char msg[256];

	at_sandbox_bind(&t->s, t->common, "/x", 0);
	assert_int_equal(plan(t, msg, sizeof(msg)), AT_ESANDBOX);
	assert_non_null(strstr(msg, "protected"));
}

static void test_plan__writable_bind_below_a_protected_path_is_refused(void **state)
{
	struct tree *t = *state;
	struct at_error err = AT_ERROR_INIT;
	char hooks[PATH_MAX + 16];

	/* Nothing protected below it: refused for being below the common dir itself. */
	snprintf(hooks, sizeof(hooks), "%s/hooks", t->common);
	assert_int_equal(at_mkdirs(hooks, 0755, &err), 0);
	at_sandbox_bind(&t->s, hooks, hooks, 0);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
	/* The .git pointer: protected again below the excepted worktree. */
	assert_int_equal(reset(t), 0);
	at_sandbox_bind(&t->s, t->ptr, "/p", 0);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
}

static void test_plan__read_only_bind_of_a_protected_path_is_allowed(void **state)
{
	struct tree *t = *state;

	at_sandbox_bind(&t->s, t->common, t->common, AT_MOUNT_RO);
	assert_int_equal(plan(t, NULL, 0), 0);
}

static void test_plan__excepted_worktree_is_writable_when_its_pointer_is_covered(void **state)
{
	struct tree *t = *state;

	at_sandbox_bind(&t->s, t->wt, t->wt, 0);
	at_sandbox_bind(&t->s, t->ptr, t->ptr, AT_MOUNT_RO);
	assert_int_equal(plan(t, NULL, 0), 0);
	/* Inside the exception, below the worktree: fine too. */
	at_sandbox_bind(&t->s, t->deep, "/deep", 0);
	assert_int_equal(plan(t, NULL, 0), 0);
}

static void test_plan__uncovered_protected_child_is_refused(void **state)
{
	struct tree *t = *state;
	char msg[256];

	/* The caller forgot the read-only bind of the pointer. */
	at_sandbox_bind(&t->s, t->wt, t->wt, 0);
	assert_int_equal(plan(t, msg, sizeof(msg)), AT_ESANDBOX);
	assert_non_null(strstr(msg, t->ptr));
}

static void test_plan__cover_must_come_after_and_at_the_same_place(void **state)
{
	struct tree *t = *state;
	char elsewhere[PATH_MAX + 16];

	/* Covered before the writable bind: the bind goes over the cover. */
	at_sandbox_bind(&t->s, t->ptr, t->ptr, AT_MOUNT_RO);
	at_sandbox_bind(&t->s, t->wt, t->wt, 0);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
	assert_int_equal(reset(t), 0);
	/* Bound at another place: the cover must be where the pointer shows. */
	snprintf(elsewhere, sizeof(elsewhere), "/w");
	at_sandbox_bind(&t->s, t->wt, elsewhere, 0);
	at_sandbox_bind(&t->s, t->ptr, t->ptr, AT_MOUNT_RO);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
	at_sandbox_bind_data(&t->s, "/w/.git", "", 0);
	assert_int_equal(plan(t, NULL, 0), 0);
}

static void test_plan__writable_parent_of_a_protected_path_is_refused(void **state)
{
	struct tree *t = *state;
	char repo[PATH_MAX + 16], cover[PATH_MAX + 16];

	/* Covered below a directory that could be renamed (repo). */
	at_sandbox_bind(&t->s, t->root, t->root, 0);
	at_sandbox_bind(&t->s, t->common, t->common, AT_MOUNT_RO);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
	assert_int_equal(reset(t), 0);
	/* Covered on the source's child on the way (repo/.git), later: read-only there. */
	snprintf(repo, sizeof(repo), "%s/repo", t->root);
	snprintf(cover, sizeof(cover), "%s", t->common);
	at_sandbox_bind(&t->s, repo, repo, 0);
	at_sandbox_bind(&t->s, t->common, cover, AT_MOUNT_RO);
	assert_int_equal(plan(t, NULL, 0), 0);
	at_sandbox_bind(&t->s, "/", "/host", 0);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
}

static void test_plan__symlinked_source_and_odd_paths_are_refused(void **state)
{
	struct tree *t = *state;
	char msg[256];

	at_sandbox_bind(&t->s, t->link, "/l", AT_MOUNT_RO);
	assert_int_equal(plan(t, msg, sizeof(msg)), AT_ESANDBOX);
	assert_non_null(strstr(msg, "symbolic link"));
	assert_int_equal(reset(t), 0);
	at_sandbox_tmpfs(&t->s, "/a/../b", 1 << 20, 0755);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
}

static void test_plan__unknown_operation_is_refused_not_ignored(void **state)
{
	struct tree *t = *state;

	at_sandbox_dir(&t->s, "/d", 0755);
	t->s.mounts[t->s.nmounts - 1].kind = (enum at_mount_kind)99;
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
}

static void test_plan__data_files_and_optional_sources(void **state)
{
	struct tree *t = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_sb_op *ops = NULL;
	char missing[PATH_MAX + 16];
	size_t n = 0;

	snprintf(missing, sizeof(missing), "%s/missing", t->root);
	at_sandbox_bind(&t->s, missing, "/m", AT_MOUNT_RO | AT_MOUNT_OPTIONAL);
	at_sandbox_bind_data(&t->s, "/etc/x", "abc", 3);
	assert_int_equal(at_sb_plan_build(&t->s, &ops, &n, &err), 0);
	/* The optional bind left out; the data staged, bound read-only; the root made read-only. */
	assert_int_equal(n, 3);
	assert_int_equal(ops[0].kind, OP_FILE);
	assert_int_equal(ops[0].arg_len, 3);
	assert_int_equal(ops[1].kind, OP_BIND);
	assert_true(ops[1].flags & OPF_RO);
	assert_true(ops[1].flags & OPF_INROOT);
	assert_string_equal(ops[1].target, "etc/x");
	assert_int_equal(ops[2].kind, OP_RDONLY);
	assert_string_equal(ops[2].target, "");
	at_sb_plan_free(ops, n);
}

/* The run's cgroup: one op at its place, filled in by the child from what the limits made. */
static void test_plan__cgroup_is_one_op_at_its_place(void **state)
{
	struct tree *t = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_sb_op *ops = NULL;
	size_t n = 0;

	at_sandbox_cgroup(&t->s, "/sys/fs/cgroup");
	assert_int_equal(at_sb_plan_build(&t->s, &ops, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ops[0].kind, OP_CGROUP);
	assert_string_equal(ops[0].target, "sys/fs/cgroup");
	assert_null(ops[0].source);
	at_sb_plan_free(ops, n);
}

/*
 * An overlay's upper and work dirs are written from inside: a caller that
 * puts them in the common dir (not excepted), or over it, is refused.
 */
static void test_plan__overlay_layers_follow_the_protection(void **state)
{
	struct tree *t = *state;
	struct at_error err = AT_ERROR_INIT;
	char upper[PATH_MAX + 16], work[PATH_MAX + 16], msg[256];
	struct at_sb_op *ops = NULL;
	size_t n = 0;

	snprintf(upper, sizeof(upper), "%s/up", t->root);
	snprintf(work, sizeof(work), "%s/work", t->root);
	at_sandbox_overlay(&t->s, t->common, upper, work, t->common);
	assert_int_equal(at_sb_plan_build(&t->s, &ops, &n, &err), 0);
	assert_int_equal(ops[0].kind, OP_OVERLAY);
	assert_string_equal(ops[0].source, t->common);
	assert_string_equal(ops[0].arg, upper);
	assert_string_equal(ops[0].mode, work);
	at_sb_plan_free(ops, n);
	/* The upper in the protected common dir. */
	assert_int_equal(reset(t), 0);
	snprintf(upper, sizeof(upper), "%s/up", t->common);
	at_sandbox_overlay(&t->s, t->common, upper, work, t->common);
	assert_int_equal(plan(t, msg, sizeof(msg)), AT_ESANDBOX);
	assert_non_null(strstr(msg, "protected"));
	/* Excepted there: allowed. */
	assert_int_equal(reset(t), 0);
	at_sandbox_except(&t->s, upper);
	at_sandbox_overlay(&t->s, t->common, upper, work, t->common);
	assert_int_equal(plan(t, NULL, 0), 0);
	/* A work dir holding the repository. */
	assert_int_equal(reset(t), 0);
	snprintf(upper, sizeof(upper), "%s/up", t->root);
	at_sandbox_overlay(&t->s, t->common, upper, t->root, t->common);
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
	/* A lower that is a file. */
	assert_int_equal(reset(t), 0);
	at_sandbox_overlay(&t->s, t->ptr, upper, work, "/x");
	assert_int_equal(plan(t, NULL, 0), AT_ESANDBOX);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, tree_setup, tree_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_plan__writable_bind_of_a_protected_path_is_refused),
		TEST(test_plan__writable_bind_below_a_protected_path_is_refused),
		TEST(test_plan__read_only_bind_of_a_protected_path_is_allowed),
		TEST(test_plan__excepted_worktree_is_writable_when_its_pointer_is_covered),
		TEST(test_plan__uncovered_protected_child_is_refused),
		TEST(test_plan__cover_must_come_after_and_at_the_same_place),
		TEST(test_plan__writable_parent_of_a_protected_path_is_refused),
		TEST(test_plan__symlinked_source_and_odd_paths_are_refused),
		TEST(test_plan__unknown_operation_is_refused_not_ignored),
		TEST(test_plan__data_files_and_optional_sources),
		TEST(test_plan__overlay_layers_follow_the_protection),
		TEST(test_plan__cgroup_is_one_op_at_its_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
