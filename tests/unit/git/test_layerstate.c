/*
 * Unit tests for git/layerstate.c on real overlays: a lower made by git
 * (lower_tree checked out), the kernel's overlayfs mounted over it in a user
 * namespace (unshare -Urm, userxattr, as a layered task's sandbox mounts it),
 * the agent's commands run in the merged view, and at_layer_state() on
 * (lower_tree, lower, upper, the index) compared with the tree git gives for
 * the merged view's content (git add -A && git write-tree there, with the
 * same index). Then a differential test over generated trees and generated
 * commands. Run by root, the whole binary runs again as uid 65534.
 * Skips (77) where an overlay cannot be mounted in a user namespace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/change.h"
#include "core/fs.h"
#include "core/oid.h"
#include "core/util.h"
#include "git/layerstate.h"
#include "git/repo.h"

struct fx {
	char d[256];           /* repo/, L/ (lower), U/, W/, M/ (merged), idx, expect */
	struct at_oid lower;   /* lower_tree */
};

static int shf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A shell command; its exit status. */
static int shf(const char *fmt, ...)
{
	AT_AUTOFREE char *cmd = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	fputs(text, fp);
	return fclose(fp);
}

/* The first line of a command's output, into buf. */
static int first_line(char *buf, size_t size, const char *cmd)
{
	FILE *p = popen(cmd, "r");
	int ok;

	if (!p)
		return -1;
	ok = fgets(buf, (int)size, p) != NULL;
	pclose(p);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	char tmpl[256];

	snprintf(tmpl, sizeof(tmpl), "%s/at-layerstate.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	char real[PATH_MAX];

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof(f->d))
		return -1;
	memcpy(f->d, real, strlen(real) + 1);
	if (shf("cd '%s' && mkdir home && git init -q -b main repo && cd repo &&"
		" git config user.name t && git config user.email t@t", f->d) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	struct at_error err = AT_ERROR_INIT;

	shf("chmod -R u+rwx '%s' 2>/dev/null", f->d);
	at_rmtree(f->d, &err);
	free(f);
	return 0;
}

/*
 * The lower: script run in an empty worktree of the repository, everything
 * committed (ignored files too: the lower holds exactly a commit's tree),
 * checked out into L; the task's index is that tree (with its cache-tree).
 */
static int make_lower(struct fx *f, const char *script)
{
	char hex[64], cmd[PATH_MAX + 64];

	if (shf("cd '%s/repo' && git rm -rqf --cached --ignore-unmatch . >/dev/null &&"
		" find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} + &&"
		" { %s ; } && git add -Af && git commit -q --allow-empty -m lower &&"
		" rm -rf ../L && mkdir ../L &&"
		" GIT_INDEX_FILE=../lidx git read-tree HEAD &&"
		" GIT_INDEX_FILE=../lidx git --work-tree='%s/L' checkout-index -a",
		f->d, script, f->d) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "git -C '%s/repo' rev-parse 'HEAD^{tree}'", f->d);
	if (first_line(hex, sizeof(hex), cmd) < 0 || at_oid_parse(&f->lower, hex) < 0)
		return -1;
	return 0;
}

/*
 * The agent's commands ops run in the merged view of a fresh overlay over
 * L, with the task's index; then, when oracle, git's tree of the merged
 * view into expect (the index the agent left kept as idx.task).
 */
static int run_ops(struct fx *f, const char *ops, bool oracle)
{
	char path[PATH_MAX];
	AT_AUTOFREE char *script = NULL;

	/* The overlay's work directory is mode 0 (the kernel's): root alone could remove it. */
	if (shf("cd '%s' && chmod -R u+rwx U W M 2>/dev/null; rm -rf U W M idx idx.task expect &&"
		" mkdir U W M &&"
		" GIT_INDEX_FILE=\"$PWD/idx\" git -C repo read-tree HEAD", f->d) != 0)
		return -1;
	if (asprintf(&script,
		     "mount -t overlay -o lowerdir=%1$s/L,upperdir=%1$s/U,workdir=%1$s/W,userxattr"
		     " none %1$s/M || exit 97\n"
		     "cd %1$s/M || exit 97\n"
		     "export GIT_DIR=%1$s/repo/.git GIT_WORK_TREE=%1$s/M GIT_INDEX_FILE=%1$s/idx\n"
		     "( %2$s\n) >/dev/null 2>&1\n"
		     "cp %1$s/idx %1$s/idx.task || exit 98\n"
		     "%3$s\n",
		     f->d, ops,
		     oracle ? "git add -A && git write-tree >../expect || exit 99" : "") < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/case.sh", f->d);
	if (write_file(path, script) < 0)
		return -1;
	return shf("unshare -Urm sh '%s/case.sh'", f->d);
}

struct result {
	int rc;
	struct at_error err;
	char tree[AT_OID_HEXSZ + 1];
	struct at_change_set cs;
};

/* at_layer_state on the overlay's layers; index: the task's, or NULL. */
static void layer_state(struct fx *f, bool index, struct result *res)
{
	struct at_repo *r = NULL;
	struct at_oid tree;
	char path[PATH_MAX];
	AT_AUTOCLOSE int lower = -1;
	AT_AUTOCLOSE int upper = -1;

	memset(res, 0, sizeof(*res));
	snprintf(path, sizeof(path), "%s/repo", f->d);
	if ((res->rc = at_repo_open(&r, path, &res->err)) < 0)
		return;
	snprintf(path, sizeof(path), "%s/L", f->d);
	lower = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/U", f->d);
	upper = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/idx.task", f->d);
	res->rc = at_layer_state(r, NULL, &f->lower, lower, upper, index ? path : NULL, &tree, &res->cs,
				 &res->err);
	if (res->rc == 0)
		at_oid_fmt(res->tree, &tree);
	at_repo_free(r);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Do the changes reported name exactly the paths git's diff of the two trees names? */
static bool changes_match(struct fx *f, const struct result *res, char *why, size_t size)
{
	AT_AUTOFREE char *cmd = NULL;
	char *names[4096], buf[8192];
	size_t n = 0, i, len;
	FILE *p;
	int c;

	char lower[AT_OID_HEXSZ + 1];

	at_oid_fmt(lower, &f->lower);
	if (asprintf(&cmd, "git -C '%s/repo' diff-tree -r -z --no-renames --name-only %s %s", f->d,
		     lower, res->tree) < 0 ||
	    !(p = popen(cmd, "r")))
		return false;
	len = 0;
	while ((c = fgetc(p)) != EOF && n < 4096) {
		if (len + 1 >= sizeof(buf))
			break;
		buf[len++] = (char)c;
		if (c == '\0') {
			names[n++] = strdup(buf);
			len = 0;
		}
	}
	pclose(p);
	qsort(names, n, sizeof(*names), str_cmp);
	bool ok = n == res->cs.nfiles;
	for (i = 0; ok && i < n; i++)
		ok = strcmp(names[i], res->cs.files[i].path) == 0;
	if (!ok) {
		snprintf(why, size, "git names %zu changed paths (first '%s'), the layer %zu:",
			 n, n ? names[0] : "", res->cs.nfiles);
		for (i = 0; i < res->cs.nfiles; i++)
			snprintf(why + strlen(why), size - strlen(why), " '%s' %c",
				 res->cs.files[i].path, res->cs.files[i].status);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return ok;
}

/*
 * One case: the layer's tree equals git's, with the index and (when the
 * agent left the index as it was) without; the changes are git's paths.
 * 0, or -1 with why filled.
 */
static int check_case(struct fx *f, const char *ops, char *why, size_t size)
{
	struct result res;
	char expect[128], cmd[PATH_MAX + 64];
	int rc;

	if ((rc = run_ops(f, ops, true)) != 0) {
		snprintf(why, size, "the overlay or git failed (exit %d)", rc);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "cat '%s/expect'", f->d);
	if (first_line(expect, sizeof(expect), cmd) < 0) {
		snprintf(why, size, "no tree from git");
		return -1;
	}
	layer_state(f, true, &res);
	if (res.rc < 0) {
		snprintf(why, size, "at_layer_state: %s", res.err.msg);
		return -1;
	}
	if (strcmp(res.tree, expect) != 0) {
		snprintf(why, size, "tree %s, git's %s", res.tree, expect);
		shf("git -C '%s/repo' diff-tree -r %s %s >&2", f->d, expect, res.tree);
		at_change_set_release(&res.cs);
		return -1;
	}
	rc = changes_match(f, &res, why, size) ? 0 : -1;
	at_change_set_release(&res.cs);
	/* The agent left the index's paths as they were: NULL (lower_tree's) says the same. */
	if (rc == 0 && shf("cd '%s' && test \"$(GIT_INDEX_FILE=$PWD/idx.task git -C repo ls-files -z"
			   " | md5sum)\" = \"$(git -C repo ls-tree -r -z --name-only HEAD | md5sum)\"",
			   f->d) == 0) {
		layer_state(f, false, &res);
		if (res.rc < 0 || strcmp(res.tree, expect) != 0) {
			snprintf(why, size, "without the index: %s %s", res.tree, res.err.msg);
			rc = -1;
		}
		at_change_set_release(&res.cs);
	}
	return rc;
}

static void case_ok(void **state, const char *lower, const char *ops)
{
	struct fx *f = *state;
	char why[512] = "";

	assert_int_equal(make_lower(f, lower), 0);
	if (check_case(f, ops, why, sizeof(why)) < 0)
		fail_msg("lower: %s\nops: %s\n%s", lower, ops, why);
}

/* What: the agent replaces a file of the base. Must: the upper's bytes are the state's. */
static void test_layer__a_file_in_upper_replaces_the_lowers(void **state)
{
	case_ok(state, "echo one >a && echo keep >b", "echo two >a");
}

static void test_layer__a_whiteout_deletes(void **state)
{
	case_ok(state, "echo one >a && mkdir d && echo x >d/x && echo y >d/y",
		"rm a d/x");
}

/*
 * What: the agent removes a directory and makes one of the same name (the
 * overlay marks it opaque). Must: only the upper's entries under it count.
 */
static void test_layer__an_opaque_directory_replaces_the_lowers(void **state)
{
	case_ok(state, "mkdir -p d/sub && echo x >d/x && echo y >d/sub/y",
		"rm -rf d && mkdir d && echo z >d/z");
}

static void test_layer__a_directory_without_opaque_merges(void **state)
{
	case_ok(state, "mkdir -p d/sub && echo x >d/x && echo y >d/sub/y",
		"echo z >d/z && echo changed >d/sub/y && mkdir d/new && echo n >d/new/n");
}

static void test_layer__types_change_both_ways(void **state)
{
	case_ok(state,
		"echo f >f && mkdir d && echo x >d/x && echo g >g && ln -s f l && mkdir e &&"
		" echo e >e/e && ln -s g m",
		"rm f && mkdir f && echo in >f/in; rm -rf d && echo now-a-file >d;"
		" rm g && ln -s f g; rm l && echo file >l; rm -rf e && ln -s f e;"
		" rm m && mkdir m && echo m >m/m");
}

static void test_layer__the_exec_bit_both_ways(void **state)
{
	case_ok(state, "echo a >a && echo b >b && chmod +x b", "chmod +x a && chmod -x b");
}

/* A directory renamed (copied up: no redirect_dir) and a file renamed. */
static void test_layer__renames(void **state)
{
	case_ok(state, "mkdir -p d/s && echo x >d/x && echo y >d/s/y && echo a >a",
		"mv d e && mv a b && mv e/s s2");
}

static void test_layer__untracked_files_follow_the_ignore_rules(void **state)
{
	case_ok(state, "printf '*.log\\nbuild/\\n' >.gitignore && mkdir d && echo x >d/x",
		"echo n >new.log && echo t >new.txt && mkdir build && echo b >build/b &&"
		" echo i >d/i.log && mkdir -p e/build && echo c >e/build/c");
}

/*
 * What: the .gitignore the merged view shows changes: written in the
 * upper, whited out, hidden by an opaque directory. Must: the rules are
 * the merged view's, as git reads them there.
 */
static void test_layer__the_merged_views_gitignore_files_decide(void **state)
{
	case_ok(state,
		"printf '*.log\\n' >.gitignore && mkdir d e && printf '*.tmp\\n' >d/.gitignore &&"
		" printf '*.o\\n' >e/.gitignore && echo x >d/x && echo y >e/y",
		"printf '*.txt\\n' >.gitignore && echo l >x.log && echo t >y.txt;"
		" rm -rf d && mkdir d && echo a >d/a.tmp; rm e/.gitignore && echo o >e/z.o");
}

static void test_layer__info_exclude_and_the_persons_excludes_file(void **state)
{
	struct fx *f = *state;

	assert_int_equal(shf("cd '%s' && printf '*.ex\\n' >home/ex &&"
			     " git -C repo config core.excludesFile \"$PWD/home/ex\" &&"
			     " mkdir -p repo/.git/info && printf '*.ie\\n' >repo/.git/info/exclude",
			     f->d),
			 0);
	case_ok(state, "echo a >a", "echo 1 >a.ex && echo 2 >b.ie && echo 3 >c.ok");
}

/* A tracked file stays, ignored or not; an ignored one git rm --cached drops out. */
static void test_layer__tracked_ignored_stays_and_untracked_ignored_drops(void **state)
{
	case_ok(state,
		"printf '*.log\\n' >.gitignore && echo t >t.log && echo u >u.log && mkdir d &&"
		" echo o >d/only.log && echo k >keep.txt && mkdir e && echo e >e/e.log &&"
		" echo f >e/f.txt",
		"echo changed >t.log && git rm -q --cached u.log d/only.log keep.txt e/e.log &&"
		" echo n >n.log && git add -f n.log");
}

/*
 * A directory of the base the index no longer tracks anything in, now
 * ignored, with a file of the upper in it: left out whole, once (found by
 * the differential test, seed 4: the drop of its lower files failed).
 */
static void test_layer__an_untracked_ignored_directory_with_upper_files_drops_once(void **state)
{
	case_ok(state, "printf 'x*\\n' >.gitignore && mkdir -p xd/sub && echo a >xd/sub/a",
		"echo b >xd/b && git rm -rq --cached xd");
}

/* An index file without its extensions (versions 2 and 3): the cache-tree gone. */
static const char strip_py[] =
	"import hashlib, struct, sys\n"
	"p = sys.argv[1]\n"
	"b = open(p, 'rb').read()\n"
	"sig, ver, n = struct.unpack('>4sII', b[:12])\n"
	"assert sig == b'DIRC' and ver in (2, 3)\n"
	"off = 12\n"
	"for _ in range(n):\n"
	"    flags = struct.unpack('>H', b[off + 60:off + 62])[0]\n"
	"    ext = 2 if ver == 3 and flags & 0x4000 else 0\n"
	"    plen = b.index(b'\\0', off + 62 + ext) - (off + 62 + ext)\n"
	"    off += (62 + ext + plen + 8) & ~7\n"
	"body = b[:off]\n"
	"open(p, 'wb').write(body + hashlib.sha1(body).digest())\n";

/*
 * An index without the cache-tree extension: every directory of the base
 * is compared with the index (none is vouched for), with the same state.
 */
static void test_layer__an_index_without_cache_tree(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/strip.py", f->d);
	assert_int_equal(write_file(path, strip_py), 0);
	case_ok(state, "printf '*.log\\n' >.gitignore && mkdir d e && echo o >d/o.log && echo k >d/k &&"
		" echo e >e/e.log",
		"git rm -q --cached d/o.log && python3 \"$GIT_DIR/../../strip.py\" \"$GIT_INDEX_FILE\" &&"
		" ! grep -q TREE \"$GIT_INDEX_FILE\"");
}

/* An upper file is hashed through the base's attributes, as a full checkout's. */
static void test_layer__files_are_hashed_with_the_bases_attributes(void **state)
{
	case_ok(state, "printf '*.txt text\\n' >.gitattributes && echo a >a.txt",
		"printf 'one\\r\\ntwo\\r\\n' >a.txt && printf 'x\\r\\n' >b.txt &&"
		" printf 'y\\r\\n' >c.bin");
}

static void test_layer__unicode_and_odd_names(void **state)
{
	case_ok(state, "mkdir 'é d' && echo a >'é d/ü x' && echo b >\"it's\" && echo c >-x",
		"echo n >'日本' && rm \"it's\" && mv 'é d' 'ñ' && echo t >'tab\tname'");
}

/*
 * What: an agent plants, in its layer, a link named .gitignore (to a file
 * ignoring everything), a link to a host directory, and a fifo where a
 * file is tracked. Must: the link is never followed for the rules and
 * refused as git's, the host link recorded as a link, and the fifo
 * refused (never opened: the call returns).
 */
static void test_layer__links_and_fifos_are_never_followed(void **state)
{
	struct fx *f = *state;
	struct result res;

	assert_int_equal(make_lower(f, "echo a >a && mkdir d && echo x >d/x"), 0);
	assert_int_equal(run_ops(f, "ln -s /etc etc && ln -s /etc/passwd pw", true), 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, 0);
	at_change_set_release(&res.cs);
	assert_int_equal(shf("cd '%s/repo' && test \"$(git cat-file -p %s:etc)\" = /etc &&"
			     " test \"$(git ls-tree %s etc | cut -c1-6)\" = 120000",
			     f->d, res.tree, res.tree),
			 0);
	assert_int_equal(run_ops(f, "printf '*\\n' >all && ln -s all d/.gitignore", false), 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, AT_EUNSAFE);
	assert_non_null(strstr(res.err.msg, "symbolic link"));
	assert_int_equal(run_ops(f, "rm a && mkfifo a", false), 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, AT_EUNSAFE);
	assert_non_null(strstr(res.err.msg, "fifo"));
	/* A fifo nobody tracks is not seen, as git does not see one. */
	case_ok(state, "echo a >a", "mkfifo p && echo b >b");
}

/*
 * What: the agent leaves a 2 GB sparse file, or a device (root only), in
 * its layer. Must: refused as a full checkout's snapshot refuses it, unread.
 */
static void test_layer__huge_files_and_devices_are_refused(void **state)
{
	struct fx *f = *state;
	struct result res;
	char path[PATH_MAX];

	assert_int_equal(make_lower(f, "echo a >a"), 0);
	assert_int_equal(run_ops(f, "truncate -s 2G big", false), 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, AT_EUNSAFE);
	assert_non_null(strstr(res.err.msg, "big"));
	if (getuid() != 0)
		return;
	assert_int_equal(run_ops(f, "echo b >b", false), 0);
	snprintf(path, sizeof(path), "%s/U/a", f->d);
	assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(1, 3)), 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, AT_EUNSAFE);
	assert_non_null(strstr(res.err.msg, "device"));
}

/* What: a repository made inside the layer. Must: refused, as the scan refuses one. */
static void test_layer__an_embedded_repository_is_refused(void **state)
{
	struct fx *f = *state;
	struct result res;

	assert_int_equal(make_lower(f, "echo a >a"), 0);
	assert_int_equal(run_ops(f, "mkdir sub && env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE git init -q sub", false), 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, AT_EUNSAFE);
	assert_non_null(strstr(res.err.msg, "embedded repository 'sub'"));
}

/*
 * What: the agent nests directories until a path is longer than PATH_MAX.
 * Must: refused, one line, as the scan refuses it (the walk holds one
 * descriptor at a time, whatever the depth).
 */
static void test_layer__a_path_longer_than_path_max_is_refused(void **state)
{
	struct fx *f = *state;
	struct result res;

	assert_int_equal(make_lower(f, "echo a >a"), 0);
	assert_int_equal(run_ops(f, "n=$(printf '%0100d' 0); for i in $(seq 45); do mkdir $n && cd $n"
				    " || exit 1; done; echo deep >deep",
				 false),
			 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, AT_EUNSAFE);
	assert_non_null(strstr(res.err.msg, "path too long"));
}

/* The whiteout and opaque markers newer kernels write as xattrs, made by hand. */
static void test_layer__xattr_whiteouts_and_trusted_opaque(void **state)
{
	struct fx *f = *state;
	struct result res;
	char path[PATH_MAX];

	assert_int_equal(make_lower(f, "echo a >a && echo b >b && mkdir d && echo x >d/x"), 0);
	assert_int_equal(run_ops(f, "true", false), 0);
	snprintf(path, sizeof(path), "%s/U/a", f->d);
	assert_int_equal(write_file(path, ""), 0);
	if (setxattr(path, "user.overlay.whiteout", "", 0, 0) < 0) {
		print_message("skip: no user xattrs here (%s)\n", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/U/d", f->d);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(setxattr(path, "user.overlay.opaque", "y", 1, 0), 0);
	snprintf(path, sizeof(path), "%s/U/d/y", f->d);
	assert_int_equal(write_file(path, "y\n"), 0);
	layer_state(f, true, &res);
	assert_int_equal(res.rc, 0);
	at_change_set_release(&res.cs);
	assert_int_equal(shf("cd '%s/repo' && test \"$(git ls-tree -r --name-only %s | tr '\\n' ,)\""
			     " = b,d/y,", f->d, res.tree),
			 0);
}

/* ---- the differential test ---- */

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

static const char *const names[] = {
	"a", "b", "c.txt", "d", "e.log", "sub", "x y", "é", "日本", "-n", "it's", "k.tmp", "build",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* A random path of depth 1..3, single-quoted for sh, into buf. */
static void rnd_path(char *buf, size_t size)
{
	unsigned depth = 1 + rnd(3), i;
	size_t len = 0;

	buf[len++] = '\'';
	for (i = 0; i < depth; i++) {
		const char *n = names[rnd(NNAMES)];

		if (i)
			buf[len++] = '/';
		for (; *n && len + 6 < size; n++) {
			if (*n == '\'') {
				memcpy(buf + len, "'\\''", 4);
				len += 4;
			} else {
				buf[len++] = *n;
			}
		}
	}
	buf[len++] = '\'';
	buf[len] = '\0';
}

static void append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*s + *len, *cap - *len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < *cap - *len) {
			*len += (size_t)n;
			return;
		}
		*cap = *cap * 2 + (size_t)n + 64;
		*s = realloc(*s, *cap);
		assert_non_null(*s);
	}
}

static const char *const ignores[] = {"*.log", "build/", "!e.log", "/a", "*.tmp", "sub/*", "x*"};

/* A lower: files and links at random paths, a few .gitignore files, some executables. */
static char *gen_lower(void)
{
	size_t len = 0, cap = 256;
	char *s = malloc(cap), p[256];
	unsigned i, n = 4 + rnd(12);

	assert_non_null(s);
	s[0] = '\0';
	append(&s, &len, &cap, "true");
	for (i = 0; i < n; i++) {
		rnd_path(p, sizeof(p));
		append(&s, &len, &cap, "; mkdir -p \"$(dirname -- %s)\" 2>/dev/null && echo %u >%s", p,
		       rnd(1000), p);
		if (rnd(5) == 0)
			append(&s, &len, &cap, " && chmod +x %s", p);
	}
	for (i = rnd(3); i > 0; i--) {
		rnd_path(p, sizeof(p));
		append(&s, &len, &cap, "; mkdir -p \"$(dirname -- %s)\" 2>/dev/null && ln -s a %s", p, p);
	}
	for (i = rnd(3); i > 0; i--) {
		const char *dir = rnd(2) ? "." : names[rnd(4) + 2];

		append(&s, &len, &cap, "; test -d '%s' && printf '%s\\n%s\\n' >'%s/.gitignore'", dir,
		       ignores[rnd(7)], ignores[rnd(7)], dir);
	}
	append(&s, &len, &cap, "; true");
	return s;
}

/* The agent's commands: writes, deletions, opaque directories, type and mode changes, renames. */
static char *gen_ops(void)
{
	size_t len = 0, cap = 256;
	char *s = malloc(cap), p[256], q[256];
	unsigned i, n = 1 + rnd(8);

	assert_non_null(s);
	s[0] = '\0';
	append(&s, &len, &cap, "true");
	for (i = 0; i < n; i++) {
		rnd_path(p, sizeof(p));
		rnd_path(q, sizeof(q));
		switch (rnd(14)) {
		case 0:
		case 1:
			append(&s, &len, &cap, "; mkdir -p \"$(dirname -- %s)\"; echo %u >%s", p,
			       rnd(1000), p);
			break;
		case 2:
			append(&s, &len, &cap, "; rm -f %s", p);
			break;
		case 3:
			append(&s, &len, &cap, "; rm -rf %s", p);
			break;
		case 4:   /* opaque */
			append(&s, &len, &cap, "; rm -rf %s && mkdir %s && echo o >%s/'o k'", p, p, p);
			break;
		case 5:
			append(&s, &len, &cap, "; mv %s %s", p, q);
			break;
		case 6:
			/* Files only: a directory without x is unreadable to uid 65534 outside. */
			append(&s, &len, &cap, "; test -d %s || chmod %cx %s", p, rnd(2) ? '+' : '-', p);
			break;
		case 7:
			/*
			 * Never a link to itself: git keeps a tracked path below a
			 * looping link (ELOOP is not "gone" to git), which the scan
			 * of a full checkout takes as deleted, as this does.
			 */
			append(&s, &len, &cap, "; rm -rf %s; ln -s %s %s", p, rnd(2) ? "t-gone" : "../b", p);
			break;
		case 8:   /* file -> directory */
			append(&s, &len, &cap, "; rm -f %s && mkdir -p %s/in && echo i >%s/in/f", p, p, p);
			break;
		case 9:
			append(&s, &len, &cap, "; mkdir -p \"$(dirname -- %s)\"; printf '%s\\n' >%s/.gitignore 2>/dev/null"
			       " || printf '%s\\n' >\"$(dirname -- %s)/.gitignore\"",
			       p, ignores[rnd(7)], p, ignores[rnd(7)], p);
			break;
		case 10:
			append(&s, &len, &cap, "; git rm -rq --cached %s", p);
			break;
		case 11:   /* an ignored file, tracked or not */
			append(&s, &len, &cap, "; mkdir -p \"$(dirname -- %s)\"; echo g >%s.log%s%s%s", p, p,
			       rnd(2) ? "" : "; git add -f ", p, ".log");
			break;
		case 12:
			append(&s, &len, &cap, "; rm -f %s/.gitignore", p);
			break;
		default:
			append(&s, &len, &cap, "; cp -R %s %s", p, q);
			break;
		}
	}
	return s;
}

static void test_layer__differential(void **state)
{
	struct fx *f = *state;
	const char *env = getenv("AT_LAYER_SEED"), *cases = getenv("AT_LAYER_CASES");
	unsigned long long seed = env ? strtoull(env, NULL, 0) : 29;
	unsigned lowers = cases ? (unsigned)atoi(cases) : 32, i, k, failed = 0, total = 0;

	rng_state = seed;
	for (i = 0; i < lowers; i++) {
		AT_AUTOFREE char *lower = gen_lower();

		assert_int_equal(make_lower(f, lower), 0);
		for (k = 0; k < 8; k++) {
			AT_AUTOFREE char *ops = gen_ops();
			char why[512] = "";

			total++;
			if (check_case(f, ops, why, sizeof(why)) == 0)
				continue;
			fprintf(stderr, "case %u.%u (seed %llu):\nlower: %s\nops: %s\n%s\n", i, k, seed,
				    lower, ops, why);
			if (++failed >= 3)
				fail_msg("differential: stopped after %u failures", failed);
		}
	}
	print_message("differential: %u cases, %u failed (seed %llu)\n", total, failed, seed);
	assert_int_equal(failed, 0);
}

/* Can this user mount an overlay (userxattr) in a user namespace of its own? */
static bool overlay_works(char *why, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char d[256];
	int rc;

	snprintf(d, sizeof(d), "%s/at-layerprobe.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(d)) {
		snprintf(why, size, "cannot make a directory in %s", d);
		return false;
	}
	rc = shf("cd '%s' && mkdir L U W M && unshare -Urm sh -c 'mount -t overlay -o"
		 " lowerdir=L,upperdir=U,workdir=W,userxattr none M' 2>/dev/null", d);
	shf("rm -rf '%s'", d);
	if (rc != 0)
		snprintf(why, size, "no overlay with userxattr in a user namespace for uid %u",
			 (unsigned)getuid());
	return rc == 0;
}

/* Run by root: this binary again as uid 65534, in a directory of its own. */
static int rerun_as_nobody(void)
{
	char d[] = "/tmp/at-layer-user.XXXXXX", exe[PATH_MAX];
	pid_t pid;
	int status;

	if (!mkdtemp(d) || chmod(d, 0755) < 0)
		return -1;
	snprintf(exe, sizeof(exe), "%s/test_layerstate", d);
	if (shf("cp /proc/%d/exe '%s' && chmod 755 '%s' && mkdir '%s/tmp' && chown 65534:65534"
		" '%s/tmp'", (int)getpid(), exe, exe, d, d) != 0)
		return -1;
	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		char tmp[PATH_MAX];

		snprintf(tmp, sizeof(tmp), "%s/tmp", d);
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		setenv("HOME", tmp, 1);
		setenv("TMPDIR", tmp, 1);
		setenv("AT_LAYER_AS_USER", "1", 1);
		execl(exe, exe, (char *)NULL);
		_exit(1);
	}
	waitpid(pid, &status, 0);
	shf("rm -rf '%s'", d);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_layer__a_file_in_upper_replaces_the_lowers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__a_whiteout_deletes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__an_opaque_directory_replaces_the_lowers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__a_directory_without_opaque_merges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__types_change_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__the_exec_bit_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__renames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__untracked_files_follow_the_ignore_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__the_merged_views_gitignore_files_decide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__info_exclude_and_the_persons_excludes_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__tracked_ignored_stays_and_untracked_ignored_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__an_untracked_ignored_directory_with_upper_files_drops_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__an_index_without_cache_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__files_are_hashed_with_the_bases_attributes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__unicode_and_odd_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__links_and_fifos_are_never_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__huge_files_and_devices_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__an_embedded_repository_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__a_path_longer_than_path_max_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__xattr_whiteouts_and_trusted_opaque, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer__differential, setup, teardown),
	};
	char why[512];
	int rc, user;

	/* git and agenttask read the same global ignore file: none but the tests'. */
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("GIT_DIR");
	unsetenv("GIT_INDEX_FILE");
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	if (!overlay_works(why, sizeof(why))) {
		printf("skip: %s\n", why);
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (rc != 0 || getuid() != 0 || getenv("AT_LAYER_AS_USER"))
		return rc;
	user = rerun_as_nobody();
	if (user == 77)
		printf("note: the run as uid 65534 skipped (above)\n");
	return user == 77 ? 0 : user;
}
