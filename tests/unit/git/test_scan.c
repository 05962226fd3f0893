/*
 * Unit tests for git/scan.c: at_scan_worktree() on real repositories made
 * with libgit2 in a temporary directory. Each test builds an index whose
 * files were written an hour before it (so that none is racily clean),
 * changes the worktree, and checks the exact list of changes reported, or
 * the one line of a refusal.
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
#include <sys/time.h>
#include <unistd.h>

#include <git2.h>

#include "core/fs.h"
#include "git/scan.h"

#include "../clock.h"

struct repo {
	char root[PATH_MAX];
	git_repository *repo;
};

static void put(struct repo *r, const char *path, const char *text)
{
	char full[PATH_MAX * 2], dir[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", r->root, path);
	snprintf(dir, sizeof(dir), "%s", full);
	for (slash = dir + strlen(r->root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(dir, 0777);
		*slash = '/';
	}
	assert_non_null(f = fopen(full, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void full_path(struct repo *r, const char *path, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", r->root, path);
}

/* Every file as an hour old: an index written now holds none racily clean. */
static void age(struct repo *r, const char *path)
{
	struct timespec ts[2];
	char full[PATH_MAX * 2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= 3600;
	ts[1] = ts[0];
	full_path(r, path, full, sizeof(full));
	assert_int_equal(utimensat(AT_FDCWD, full, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static void track(struct repo *r, const char *const *paths)
{
	git_index *idx;

	assert_int_equal(git_repository_index(&idx, r->repo), 0);
	for (; *paths; paths++) {
		age(r, *paths);
		assert_int_equal(git_index_add_bypath(idx, *paths), 0);
	}
	assert_int_equal(git_index_write(idx), 0);
	git_index_free(idx);
}

static int setup(void **state)
{
	struct repo *r = calloc(1, sizeof(*r));
	char tmpl[] = "/tmp/at-scan-test.XXXXXX";

	clock_reset();
	if (!r || !mkdtemp(tmpl) || !realpath(tmpl, r->root) ||
	    git_repository_init(&r->repo, r->root, 0) < 0)
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;

	git_repository_free(r->repo);
	at_rmtree(r->root, &err);
	free(r);
	return 0;
}

/* Scan; the changes as "C path", "D path", "U path" lines, or "refused: MESSAGE". */
static char *scan_text(struct repo *r)
{
	struct at_scan s = AT_SCAN_INIT;
	struct at_error err = AT_ERROR_INIT;
	git_index *idx;
	char *text = calloc(1, 1 << 16);
	size_t i;
	int rc;

	assert_non_null(text);
	assert_int_equal(git_repository_index(&idx, r->repo), 0);
	assert_int_equal(git_index_read(idx, true), 0);
	rc = at_scan_worktree(r->repo, r->root, idx, &s, &err);
	git_index_free(idx);
	if (rc == AT_EUNSAFE || rc == AT_EGIT) {
		assert_int_equal(s.n, 0);
		snprintf(text, 1 << 16, "refused: %s", err.msg);
		return text;
	}
	if (rc != 0)
		fail_msg("scan failed: %s", err.msg);
	for (i = 0; i < s.n; i++)
		snprintf(text + strlen(text), (1 << 16) - strlen(text), "%c %s\n",
			 "CDU"[s.v[i].kind], s.v[i].path);
	at_scan_free(&s);
	return text;
}

/* As scan_text, through at_scan_entries with the directory cache at cache. */
static char *scan_cached(struct repo *r, const char *cache, size_t *listed, size_t *known)
{
	struct at_scan s = AT_SCAN_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct timespec mtime = { 0, 0 };
	git_index_entry *v;
	git_index *idx;
	struct stat st;
	char *text = calloc(1, 1 << 16);
	size_t i, n;
	int rc;

	assert_non_null(text);
	assert_int_equal(git_repository_index(&idx, r->repo), 0);
	assert_int_equal(git_index_read(idx, true), 0);
	n = git_index_entrycount(idx);
	assert_non_null(v = calloc(n + 1, sizeof(*v)));
	for (i = 0; i < n; i++)
		v[i] = *git_index_get_byindex(idx, i);
	if (stat(git_index_path(idx), &st) == 0)
		mtime = st.st_mtim;
	rc = at_scan_entries(r->repo, r->root, v, n, &mtime, cache, &s, &err);
	free(v);
	git_index_free(idx);
	if (rc != 0)
		fail_msg("scan failed (%d): %s", rc, err.msg);
	for (i = 0; i < s.n; i++)
		snprintf(text + strlen(text), (1 << 16) - strlen(text), "%c %s\n",
			 "CDU"[s.v[i].kind], s.v[i].path);
	*listed = s.dirs_listed;
	*known = s.dirs_known;
	at_scan_free(&s);
	return text;
}

static void expect_cached(struct repo *r, const char *cache, const char *want, size_t *listed,
			  size_t *known)
{
	char *got = scan_cached(r, cache, listed, known);

	assert_string_equal(got, want);
	free(got);
}

static void expect(struct repo *r, const char *want)
{
	char *got = scan_text(r);

	assert_string_equal(got, want);
	free(got);
}

/* The scan refuses, with a message holding want. */
static void expect_refusal(struct repo *r, const char *want)
{
	char *got = scan_text(r);

	if (strncmp(got, "refused: ", 9) != 0 || !strstr(got, want))
		fail_msg("expected a refusal naming \"%s\", got \"%s\"", want, got);
	free(got);
}

static const char *const base_files[] = { ".gitignore", "README", "src/main.c",
					  "src/lib/util.c", "docs/guide.md", NULL };

static void make_base(struct repo *r)
{
	put(r, "README", "hello\n");
	put(r, "src/main.c", "int main(void) { return 0; }\n");
	put(r, "src/lib/util.c", "int util;\n");
	put(r, "docs/guide.md", "# guide\n");
	put(r, ".gitignore", "*.log\nbuild/\n");
	track(r, base_files);
}

static void test_scan__clean_worktree_has_no_change(void **state)
{
	struct repo *r = *state;

	make_base(r);
	expect(r, "");
}

static void test_scan__modified_deleted_and_mode_changes(void **state)
{
	struct repo *r = *state;
	char full[PATH_MAX * 2];

	make_base(r);
	put(r, "README", "hello, changed\n");
	full_path(r, "src/lib/util.c", full, sizeof(full));
	assert_int_equal(unlink(full), 0);
	full_path(r, "docs/guide.md", full, sizeof(full));
	assert_int_equal(chmod(full, 0755), 0);
	expect(r, "C README\nC docs/guide.md\nD src/lib/util.c\n");
}

static void test_scan__a_deleted_directory_deletes_every_entry(void **state)
{
	struct repo *r = *state;
	char full[PATH_MAX * 2];
	struct at_error err = AT_ERROR_INIT;

	make_base(r);
	full_path(r, "src", full, sizeof(full));
	assert_int_equal(at_rmtree(full, &err), 0);
	expect(r, "D src/lib/util.c\nD src/main.c\n");
}

static void test_scan__untracked_files_follow_the_ignore_rules(void **state)
{
	struct repo *r = *state;

	make_base(r);
	put(r, "new.txt", "new\n");
	put(r, "debug.log", "ignored\n");
	put(r, "build/out.o", "ignored directory\n");
	put(r, "src/new/deep/file.c", "untracked directory\n");
	put(r, "src/new/deep/trace.log", "ignored inside it\n");
	put(r, "build/repo/.git/HEAD", "an ignored repository is not looked at\n");
	expect(r, "U new.txt\nU src/new/deep/file.c\n");
}

/*
 * The attacker makes a repository in the worktree (a .git directory, a
 * .git file pointing elsewhere, a .git symlink) hoping the host records it
 * as a gitlink and a later `git status` runs its core.fsmonitor: refused,
 * naming the directory, wherever it is.
 */
static void test_scan__embedded_repositories_are_refused(void **state)
{
	struct repo *r = *state;
	char full[PATH_MAX * 2];
	struct at_error err = AT_ERROR_INIT;

	make_base(r);
	put(r, "vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
	put(r, "vendor/lib/code.c", "an embedded repository\n");
	expect_refusal(r, "embedded repository 'vendor/lib'");
	full_path(r, "vendor", full, sizeof(full));
	assert_int_equal(at_rmtree(full, &err), 0);

	put(r, "src/.git", "gitdir: /elsewhere\n");
	expect_refusal(r, "'src'");
	full_path(r, "src/.git", full, sizeof(full));
	assert_int_equal(unlink(full), 0);

	full_path(r, "docs/sub", full, sizeof(full));
	assert_int_equal(mkdir(full, 0755), 0);
	full_path(r, "docs/sub/.git", full, sizeof(full));
	assert_int_equal(symlink("/tmp", full), 0);
	expect_refusal(r, "'docs/sub'");
}

static void test_scan__racily_clean_entries_are_reported(void **state)
{
	struct repo *r = *state;
	struct timespec ts[2];
	git_index *idx;

	make_base(r);
	/*
	 * README's entry matches its file, but the file is no older than the
	 * index: a change in the same clock tick would not show in its stat
	 * data, so it must be hashed. The files an hour old need not.
	 */
	put(r, "README", "HELLO\n");
	assert_int_equal(git_repository_index(&idx, r->repo), 0);
	assert_int_equal(git_index_add_bypath(idx, "README"), 0);
	assert_int_equal(git_index_write(idx), 0);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= 60;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, git_index_path(idx), ts, 0), 0);
	git_index_free(idx);
	expect(r, "C README\n");
}

static void test_scan__symlinks_are_compared_as_links(void **state)
{
	struct repo *r = *state;
	const char *const links[] = { "link", NULL };
	char full[PATH_MAX * 2];

	make_base(r);
	full_path(r, "link", full, sizeof(full));
	assert_int_equal(symlink("README", full), 0);
	track(r, links);
	expect(r, "");
	assert_int_equal(unlink(full), 0);
	assert_int_equal(symlink("src/main.c", full), 0);
	expect(r, "C link\n");
}

static void test_scan__type_changes_are_a_deletion_and_an_addition(void **state)
{
	struct repo *r = *state;
	char full[PATH_MAX * 2];
	struct at_error err = AT_ERROR_INIT;

	make_base(r);
	/* a tracked file became a directory */
	full_path(r, "README", full, sizeof(full));
	assert_int_equal(unlink(full), 0);
	put(r, "README/inner", "x\n");
	expect(r, "D README\nU README/inner\n");
	assert_int_equal(at_rmtree(full, &err), 0);
	put(r, "README", "hello\n");
	age(r, "README");

	/* a tracked directory became a file */
	full_path(r, "src/lib", full, sizeof(full));
	assert_int_equal(at_rmtree(full, &err), 0);
	put(r, "src/lib", "now a file\n");
	expect(r, "C README\nU src/lib\nD src/lib/util.c\n");
	assert_int_equal(unlink(full), 0);

	/* a tracked directory became a symbolic link: recorded as one, never followed */
	assert_int_equal(symlink("/etc", full), 0);
	expect(r, "C README\nU src/lib\nD src/lib/util.c\n");
}

/*
 * Fifos, sockets and devices: one nobody tracks is not seen (git does not
 * see it either) and never opened; a tracked file that became one is
 * refused, as git add refuses it.
 */
static void test_scan__special_files_are_unseen_or_refused(void **state)
{
	struct repo *r = *state;
	char full[PATH_MAX * 2];

	make_base(r);
	full_path(r, "pipe", full, sizeof(full));
	assert_int_equal(mkfifo(full, 0600), 0);
	full_path(r, "src/pipe", full, sizeof(full));
	assert_int_equal(mkfifo(full, 0600), 0);
	put(r, "newdir/file", "new\n");
	full_path(r, "newdir/pipe", full, sizeof(full));
	assert_int_equal(mkfifo(full, 0600), 0);
	expect(r, "U newdir/file\n");

	full_path(r, "src/main.c", full, sizeof(full));
	assert_int_equal(unlink(full), 0);
	assert_int_equal(mkfifo(full, 0600), 0);
	expect_refusal(r, "'src/main.c' is a fifo");
}

/* A submodule's directory is never entered; only its own .git file may be there. */
static void test_scan__submodule_directories_are_not_entered(void **state)
{
	struct repo *r = *state;
	git_index_entry e;
	git_index *idx;
	char full[PATH_MAX * 2], text[PATH_MAX * 3];

	make_base(r);
	assert_int_equal(git_repository_index(&idx, r->repo), 0);
	memset(&e, 0, sizeof(e));
	e.path = "sub";
	e.mode = GIT_FILEMODE_COMMIT;
	assert_int_equal(git_oid_fromstr(&e.id, "1111111111111111111111111111111111111111"), 0);
	assert_int_equal(git_index_add(idx, &e), 0);
	assert_int_equal(git_index_write(idx), 0);
	git_index_free(idx);
	full_path(r, "sub", full, sizeof(full));
	assert_int_equal(mkdir(full, 0755), 0);
	expect(r, "");
	put(r, "sub/anything", "not looked at\n");
	expect(r, "");
	/* What `git submodule update` writes: left alone. */
	snprintf(text, sizeof(text), "gitdir: %s/.git/modules/sub\n", r->root);
	put(r, "sub/.git", text);
	expect(r, "");
	put(r, "sub/.git", "gitdir: ../.git/modules/sub\n");
	expect(r, "");
	/* Anything else: a repository the agent made there. */
	put(r, "sub/.git", "gitdir: ../.git/modules/../../elsewhere\n");
	expect_refusal(r, "'sub'");
	put(r, "sub/.git", "gitdir: /tmp/evil\n");
	expect_refusal(r, "'sub'");
	full_path(r, "sub/.git", full, sizeof(full));
	assert_int_equal(unlink(full), 0);
	put(r, "sub/.git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n");
	expect_refusal(r, "'sub'");
}

static void test_scan__ignorecase_is_refused(void **state)
{
	struct repo *r = *state;
	git_config *cfg;

	make_base(r);
	assert_int_equal(git_repository_config(&cfg, r->repo), 0);
	assert_int_equal(git_config_set_bool(cfg, "core.ignorecase", 1), 0);
	git_config_free(cfg);
	expect_refusal(r, "core.ignorecase");
}

/* An untracked tree far deeper than a recursion could take: walked from the heap. */
static void test_scan__deep_untracked_trees(void **state)
{
	struct repo *r = *state;
	static char path[PATH_MAX], want[PATH_MAX + 16];
	int i;

	make_base(r);
	for (i = 0; i < 1000; i++)
		strcat(path, "d/");
	strcat(path, "leaf");
	put(r, path, "deep\n");
	snprintf(want, sizeof(want), "U %s\n", path);
	expect(r, want);
}

/* Where agenttask keeps the cache of task "t" (its state directory made). */
static void cache_path(struct repo *r, char *out, size_t size)
{
	snprintf(out, size, "%s/.git/agenttask", r->root);
	assert_int_equal(mkdir(out, 0700), 0);
	snprintf(out, size, "%s/.git/agenttask/cache/t.scan", r->root);
}

/*
 * The directory cache: a directory is listed again unless its ctime, mtime
 * and inode are those recorded more than a second before the recording
 * scan; whatever changed in between is found either way.
 */
static void test_scan__directory_cache_is_trusted_only_when_it_may_be(void **state)
{
	struct repo *r = *state;
	char cache[PATH_MAX * 3], full[PATH_MAX * 2];
	struct timespec ts[2];
	size_t listed, known;
	struct stat st;

	make_base(r);
	cache_path(r, cache, sizeof(cache));
	expect_cached(r, cache, "", &listed, &known);
	assert_int_equal(known, 0);
	assert_int_equal(listed, 4);   /* the root, docs/, src/, src/lib/ */
	assert_int_equal(stat(cache, &st), 0);

	/* At once: the directories changed less than a second before that scan. */
	expect_cached(r, cache, "", &listed, &known);
	assert_int_equal(known, 0);

	clock_settle(1);
	expect_cached(r, cache, "", &listed, &known);   /* recorded a second later ... */
	expect_cached(r, cache, "", &listed, &known);   /* ... and now trusted */
	assert_int_equal(listed, 0);
	assert_true(known > 0);

	/* A tracked file changed in place: the directory is trusted, the file stat'ed. */
	put(r, "src/main.c", "int main(void) { return 1; }\n");
	expect_cached(r, cache, "C src/main.c\n", &listed, &known);
	assert_int_equal(listed, 0);

	/* A new file whose directory's mtime is then set back: its ctime tells. */
	full_path(r, "docs", full, sizeof(full));
	assert_int_equal(stat(full, &st), 0);
	put(r, "docs/hidden.md", "sneaked in\n");
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, full, ts, 0), 0);
	expect_cached(r, cache, "U docs/hidden.md\nC src/main.c\n", &listed, &known);
	assert_true(listed > 0);

	/* A deleted file and a new untracked directory, both found. */
	full_path(r, "src/lib/util.c", full, sizeof(full));
	assert_int_equal(unlink(full), 0);
	put(r, "src/new/x.c", "x\n");
	expect_cached(r, cache,
		      "U docs/hidden.md\nD src/lib/util.c\nC src/main.c\nU src/new/x.c\n",
		      &listed, &known);
}

/*
 * A tracked directory replaced by a link (or a file), in a directory the
 * cache vouches for: what was below it is deleted, the link is new, and the
 * link is never opened as the directory it replaced.
 */
static void test_scan__cached_directory_sees_a_type_change(void **state)
{
	struct repo *r = *state;
	char cache[PATH_MAX * 3], full[PATH_MAX * 2];
	struct at_error err = AT_ERROR_INIT;
	size_t listed, known;

	make_base(r);
	cache_path(r, cache, sizeof(cache));
	full_path(r, "src/lib", full, sizeof(full));
	assert_int_equal(at_rmtree(full, &err), 0);
	assert_int_equal(symlink("/etc", full), 0);
	expect_cached(r, cache, "U src/lib\nD src/lib/util.c\n", &listed, &known);
	clock_settle(1);
	expect_cached(r, cache, "U src/lib\nD src/lib/util.c\n", &listed, &known);
	expect_cached(r, cache, "U src/lib\nD src/lib/util.c\n", &listed, &known);
	assert_true(known > 0);
}

static void test_scan__damaged_directory_cache_is_ignored(void **state)
{
	struct repo *r = *state;
	char cache[PATH_MAX * 3], full[PATH_MAX * 2];
	size_t listed, known;
	struct stat st;
	FILE *f;

	make_base(r);
	cache_path(r, cache, sizeof(cache));
	expect_cached(r, cache, "", &listed, &known);
	/* names a directory as known, with nothing in it, far in the future */
	assert_non_null(f = fopen(cache, "w"));
	fputs("agenttask-dircache 1\n9999999999 0 1\n1 2 3 4 5 6 0 999\nsrc/", f);
	fclose(f);
	put(r, "src/untracked.c", "u\n");
	expect_cached(r, cache, "U src/untracked.c\n", &listed, &known);
	assert_int_equal(known, 0);
	/* matching src/ exactly, but for a name that leaves its directory */
	full_path(r, "src", full, sizeof(full));
	assert_int_equal(stat(full, &st), 0);
	assert_non_null(f = fopen(cache, "w"));
	fprintf(f, "agenttask-dircache 1\n9999999999 0 1\n%lld %ld %lld %ld %llu %llu 6 4\nsrc/",
		(long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, (long long)st.st_mtim.tv_sec,
		st.st_mtim.tv_nsec, (unsigned long long)st.st_ino, (unsigned long long)st.st_dev);
	fwrite("f../x\0\n", 1, 7, f);
	fclose(f);
	expect_cached(r, cache, "U src/untracked.c\n", &listed, &known);
	assert_int_equal(known, 0);
}

/* Enough entries for several threads: every change found, each once. */
static void test_scan__many_directories_with_threads(void **state)
{
	struct repo *r = *state;
	static char names[6000][32];
	static const char *paths[6001];
	char full[PATH_MAX * 2];
	size_t i;

	for (i = 0; i < 6000; i++) {
		snprintf(names[i], sizeof(names[i]), "d%02zu/s%zu/f%zu.txt", i % 60, i % 7, i);
		put(r, names[i], names[i]);
		paths[i] = names[i];
	}
	paths[6000] = NULL;
	track(r, paths);
	put(r, "d00/s0/f0.txt", "changed content\n");
	full_path(r, "d59/s0/f5999.txt", full, sizeof(full));
	assert_int_equal(unlink(full), 0);
	put(r, "d31/s3/new.txt", "new\n");
	expect(r, "C d00/s0/f0.txt\nU d31/s3/new.txt\nD d59/s0/f5999.txt\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scan__clean_worktree_has_no_change, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__modified_deleted_and_mode_changes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__a_deleted_directory_deletes_every_entry,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan__untracked_files_follow_the_ignore_rules,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan__racily_clean_entries_are_reported, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__symlinks_are_compared_as_links, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__embedded_repositories_are_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__type_changes_are_a_deletion_and_an_addition,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan__special_files_are_unseen_or_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__submodule_directories_are_not_entered,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan__ignorecase_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan__deep_untracked_trees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan__directory_cache_is_trusted_only_when_it_may_be,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan__cached_directory_sees_a_type_change, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__damaged_directory_cache_is_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan__many_directories_with_threads, setup,
						teardown),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
