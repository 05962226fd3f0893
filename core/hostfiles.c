#include "core/hostfiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json.h"

#define MODE_SYMLINK 0120000u
#define MODE_GITLINK 0160000u

/* A directory or file name that counts wherever it is. */
static const char *const any_depth[] = {
	".vscode", ".idea", ".claude", ".cursor", ".codex", ".gemini", ".mcp.json", ".envrc",
	".husky", ".githooks", ".gitattributes", NULL,
};

/* A path that counts only from the root (a directory's too: everything below it). */
static const char *const root_only[] = {
	".github/workflows", ".gitlab-ci.yml", ".gitmodules", ".worktreeinclude", ".agenttask",
	NULL,
};

/* path is prefix itself or below it ("a/b" is under "a", "ab" is not); "" holds everything. */
static bool under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return n == 0 || (strncasecmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/'));
}

/* path is a proper ancestor of target ("a" of "a/b"). */
static bool ancestor_of(const char *path, const char *target)
{
	size_t n = strlen(path);

	return n > 0 && strncasecmp(target, path, n) == 0 && target[n] == '/';
}

static bool component_in(const char *path, const char *const *names)
{
	const char *c, *end;

	for (c = path; *c; c = *end ? end + 1 : end) {
		end = strchrnul(c, '/');
		for (const char *const *n = names; *n; n++)
			if (strlen(*n) == (size_t)(end - c) && strncasecmp(c, *n, (size_t)(end - c)) == 0)
				return true;
	}
	return false;
}

bool at_hostfiles_hooks_dir(const char *raw, const char *workdir, char *out, size_t size)
{
	size_t wlen, n = 0;
	const char *c, *end;

	if (!raw || !*raw || size == 0)
		return false;
	if (raw[0] == '/') {
		if (!workdir)
			return false;
		wlen = strlen(workdir);
		while (wlen > 1 && workdir[wlen - 1] == '/')
			wlen--;
		if (strncmp(raw, workdir, wlen) != 0 || (raw[wlen] != '\0' && raw[wlen] != '/'))
			return false;
		raw += wlen;
	}
	out[0] = '\0';
	for (c = raw; *c; c = *end ? end + 1 : end) {
		size_t len;

		end = strchrnul(c, '/');
		len = (size_t)(end - c);
		if (len == 0 || (len == 1 && c[0] == '.'))
			continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			if (n == 0)
				return false;   /* above the root */
			while (n > 0 && out[n - 1] != '/')
				n--;
			n = n > 0 ? n - 1 : 0;
			out[n] = '\0';
			continue;
		}
		if (n + (n > 0) + len + 1 > size)
			return false;
		if (n > 0)
			out[n++] = '/';
		memcpy(out + n, c, len);
		n += len;
		out[n] = '\0';
	}
	return true;
}

bool at_hostfiles_path(const char *path, const char *hooks_dir, bool redirect)
{
	const char *const *p;

	if (!path || !*path)
		return false;
	if (component_in(path, any_depth))
		return true;
	for (p = root_only; *p; p++)
		if (under(path, *p) || (redirect && ancestor_of(path, *p)))
			return true;
	if (!hooks_dir)
		return false;
	if (!*hooks_dir)   /* the root itself: a hook is a file at the top */
		return strchr(path, '/') == NULL;
	return under(path, hooks_dir) || (redirect && ancestor_of(path, hooks_dir));
}

bool at_hostfiles_is_package_json(const char *path)
{
	const char *base = strrchr(path, '/');

	return strcasecmp(base ? base + 1 : path, "package.json") == 0;
}

/*
 * The parsed content, or NULL when it does not parse as npm would take it
 * (a NUL inside, which JSON.parse refuses and cJSON would stop at).
 */
static at_json *parse_package(const char *text, size_t len)
{
	struct at_error ignored = AT_ERROR_INIT;
	at_json *j = NULL;

	if (strlen(text) != len)
		return NULL;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		text += 3;
	if (at_json_parse(&j, text, "package.json", &ignored) < 0)
		return NULL;
	return j;
}

bool at_hostfiles_scripts_changed(const char *old, size_t old_len, const char *new_,
				  size_t new_len)
{
	at_json *o = old ? parse_package(old, old_len) : NULL;
	at_json *n = new_ ? parse_package(new_, new_len) : NULL;
	const at_json *os, *ns;
	bool changed;

	if (new_ && !n) {
		changed = true;
	} else {
		os = at_json_is_object(o) ? at_json_get(o, "scripts") : NULL;
		ns = at_json_is_object(n) ? at_json_get(n, "scripts") : NULL;
		changed = (os || ns) && !(os && ns && at_json_equal(os, ns));
	}
	at_json_free(o);
	at_json_free(n);
	return changed;
}

/* One side of a package.json: *text NULL when absent; *odd when it cannot be compared. */
static int read_side(at_hostfiles_read_fn read, void *payload, bool new_side, const char *path,
		     char **text, size_t *len, bool *odd, struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;
	int rc = read(payload, new_side, path, text, len, &e);

	if (rc == AT_ENOTFOUND || rc == AT_EUSAGE) {
		*text = NULL;
		*odd |= rc == AT_EUSAGE;
		return 0;
	}
	if (rc < 0)
		*err = e;
	return rc;
}

static bool is_link(unsigned int mode)
{
	return mode == MODE_SYMLINK || mode == MODE_GITLINK;
}

/*
 * The sides that are a package.json: the old one at the old path (none for
 * a copy, whose source stays), the new one unless deleted.
 */
static int package_changed(const struct at_change_file *f, at_hostfiles_read_fn read,
			   void *payload, bool *out, struct at_error *err)
{
	const char *old_path = f->old_path ? f->old_path : f->path;
	bool has_old = f->status != AT_CHANGE_ADDED && f->status != AT_CHANGE_COPIED &&
		       at_hostfiles_is_package_json(old_path);
	bool has_new = f->status != AT_CHANGE_DELETED && at_hostfiles_is_package_json(f->path);
	char *old = NULL, *new_ = NULL;
	size_t old_len = 0, new_len = 0;
	bool odd = false;
	int rc = 0;

	/* A package.json that is (or was) a link or a submodule: nothing to compare. */
	if ((has_old && is_link(f->old_mode)) || (has_new && is_link(f->new_mode))) {
		*out = true;
		return 0;
	}
	if (has_old)
		rc = read_side(read, payload, false, old_path, &old, &old_len, &odd, err);
	if (rc == 0 && has_new)
		rc = read_side(read, payload, true, f->path, &new_, &new_len, &odd, err);
	if (rc == 0)
		*out = odd || at_hostfiles_scripts_changed(old, old_len, new_, new_len);
	free(old);
	free(new_);
	return rc;
}

int at_hostfiles_changed(const struct at_change_set *cs, const char *hooks_dir,
			 at_hostfiles_read_fn read, void *payload, struct at_strlist *out,
			 struct at_error *err)
{
	size_t i;
	int rc;

	for (i = 0; cs && i < cs->nfiles; i++) {
		const struct at_change_file *f = &cs->files[i];
		bool redirect = f->status != AT_CHANGE_DELETED && is_link(f->new_mode);
		const char *hit = NULL;
		bool pkg = false;

		if (at_hostfiles_path(f->path, hooks_dir, redirect))
			hit = f->path;
		else if (f->old_path && at_hostfiles_path(f->old_path, hooks_dir, false))
			hit = f->old_path;
		else if (at_hostfiles_is_package_json(f->path) ||
			 (f->old_path && at_hostfiles_is_package_json(f->old_path))) {
			if ((rc = package_changed(f, read, payload, &pkg, err)) < 0)
				return rc;
			if (pkg)
				hit = f->path;
		}
		if (hit && at_strlist_push(out, hit) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	}
	at_strlist_sort_unique(out);
	return 0;
}
