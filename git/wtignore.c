#include "git/wtignore.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ignore.h"
#include "core/util.h"
#include "git/internal.h"
#include "git/wtread.h"

struct at_wt_ignore {
	struct at_ignore *rules;
	int root;
	at_wt_ignore_read_fn read;
	void *payload;
};

/* The worktree's own .gitignore files: below its one directory. */
static int read_below_root(void *payload, const char *path, char **buf, size_t *len,
			   struct at_error *err)
{
	return at_wt_read_small(*(const int *)payload, path, AT_SPECIAL_FILE_MAX, buf, len, err);
}

/*
 * One of the user's own files (they may be links: theirs to make); never a
 * fifo, never past the bound. Absent or unreadable: no rules, as git.
 */
static int add_user_file(struct at_wt_ignore *wi, const char *path, struct at_error *err)
{
	AT_AUTOCLOSE int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	AT_AUTOFREE char *buf = NULL;
	char e[200];
	struct stat st;
	ssize_t got;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if ((uint64_t)st.st_size > AT_SPECIAL_FILE_MAX)
		return at_error_set(
		    err, AT_EUNSAFE, "ignore file '%s' is over the %llu bytes agenttask reads",
		    at_esc(e, sizeof(e), path), (unsigned long long)AT_SPECIAL_FILE_MAX);
	if (!(buf = malloc((size_t)st.st_size + 1)))
		return at_error_set(err, AT_ESYS, "out of memory");
	got = read(fd, buf, (size_t)st.st_size);
	if (got < 0)
		return 0;
	if (at_ignore_add_global(wi->rules, buf, (size_t)got) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

/* core.excludesFile, else git's default place for it. */
static int excludes_file(git_repository *repo, char *out, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	git_config *cfg = NULL;
	git_buf b = GIT_BUF_INIT;
	int rc = -1;

	if (git_repository_config_snapshot(&cfg, repo) == 0 &&
	    git_config_get_path(&b, cfg, "core.excludesFile") == 0)
		rc = at_fmt(out, size, "%s", b.ptr);
	else if (xdg && xdg[0])
		rc = at_fmt(out, size, "%s/git/ignore", xdg);
	else if (home && home[0])
		rc = at_fmt(out, size, "%s/.config/git/ignore", home);
	git_buf_dispose(&b);
	git_config_free(cfg);
	git_error_clear();
	return rc;
}

int at_wt_ignore_open(struct at_wt_ignore **out, git_repository *repo, int root,
		      struct at_error *err)
{
	struct at_wt_ignore *wi = NULL;
	int rc = at_wt_ignore_open_reader(&wi, repo, read_below_root, NULL, err);

	if (rc < 0)
		return rc;
	wi->root = root;
	wi->payload = &wi->root;
	*out = wi;
	return 0;
}

int at_wt_ignore_open_reader(struct at_wt_ignore **out, git_repository *repo,
			     at_wt_ignore_read_fn read, void *payload, struct at_error *err)
{
	struct at_wt_ignore *wi = calloc(1, sizeof(*wi));
	char path[PATH_MAX];
	int rc = 0;

	if (!wi || !(wi->rules = at_ignore_new())) {
		free(wi);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	wi->root = -1;
	wi->read = read;
	wi->payload = payload;
	/* The later added is the stronger: info/exclude over core.excludesFile. */
	if (excludes_file(repo, path, sizeof(path)) == 0)
		rc = add_user_file(wi, path, err);
	if (rc == 0 &&
	    at_fmt(path, sizeof(path), "%sinfo/exclude", git_repository_commondir(repo)) == 0)
		rc = add_user_file(wi, path, err);
	if (rc < 0) {
		at_wt_ignore_free(wi);
		return rc;
	}
	*out = wi;
	return 0;
}

void at_wt_ignore_free(struct at_wt_ignore *wi)
{
	if (!wi)
		return;
	at_ignore_free(wi->rules);
	free(wi);
}

/* dir's .gitignore (dir: "" or "a/b/"), unless already read. */
static int load_dir(struct at_wt_ignore *wi, const char *dir, size_t dlen, struct at_error *err)
{
	AT_AUTOFREE char *buf = NULL;
	char key[PATH_MAX];
	size_t len;
	int rc;

	if (dlen + sizeof(".gitignore") > sizeof(key))
		return 0;
	memcpy(key, dir, dlen);
	key[dlen] = '\0';
	if (at_ignore_has_dir(wi->rules, key))
		return 0;
	memcpy(key + dlen, ".gitignore", sizeof(".gitignore"));
	if ((rc = wi->read(wi->payload, key, &buf, &len, err)) < 0)
		return rc;
	key[dlen] = '\0';
	if (at_ignore_add_dir(wi->rules, key, buf ? buf : "", buf ? len : 0) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

int at_wt_ignored(struct at_wt_ignore *wi, const char *path, bool is_dir, bool parent_ok,
		  bool *ignored, struct at_error *err)
{
	const char *p;
	int rc = load_dir(wi, "", 0, err);

	for (p = strchr(path, '/'); rc == 0 && p; p = strchr(p + 1, '/'))
		rc = load_dir(wi, path, (size_t)(p - path) + 1, err);
	if (rc < 0)
		return rc;
	*ignored = parent_ok ? at_ignore_match(wi->rules, path, is_dir)
			     : at_ignore_excluded(wi->rules, path, is_dir);
	return 0;
}
