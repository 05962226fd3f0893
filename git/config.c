#include "git/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/array.h"
#include "core/util.h"
#include "git/internal.h"

/*
 * What git needs to read the repository; nothing that runs or reaches out.
 * Every extensions.* entry is kept as well. (A table rather than
 * git_config_iterator_glob_new: that regex iterator leaks in libgit2 1.5.)
 */
static const char *const keep_core[] = {
	"core.repositoryformatversion", "core.filemode", "core.symlinks", "core.ignorecase",
	"core.precomposeunicode",
};

static bool keep_entry(const char *name)
{
	static const char ext[] = "extensions.";
	size_t i;

	if (strncmp(name, ext, sizeof(ext) - 1) == 0)
		return name[sizeof(ext) - 1] != '\0';
	for (i = 0; i < sizeof(keep_core) / sizeof(keep_core[0]); i++)
		if (strcasecmp(name, keep_core[i]) == 0)
			return true;
	return false;
}

struct text {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void text_add(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->oom)
		return;
	if (AT_ARRAY_GROW(t->buf, t->cap, t->len + n + 1) < 0) {
		t->oom = true;
		return;
	}
	memcpy(t->buf + t->len, s, n + 1);
	t->len += n;
}

/*
 * A variable's name as git parses it back under its section header: a letter,
 * then letters, digits and '-'. An entry of a subsection ([extensions "x"] y)
 * has none: written back as "x.y" it would make the whole copy unparsable.
 */
static bool key_plain(const char *k)
{
	if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z')))
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '-'))
			return false;
	return true;
}

/* A value written back must stay one harmless token: letters, digits, - _ . */
static bool value_plain(const char *v)
{
	if (!v || !*v)
		return false;
	for (; *v; v++) {
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || *v == '-' || *v == '_' || *v == '.'))
			return false;
	}
	return true;
}

static void add_section(struct text *t, git_config *snap, const char *section)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;
	size_t slen = strlen(section);

	if (git_config_iterator_new(&it, snap) < 0) {
		t->oom = true;
		return;
	}
	text_add(t, "[");
	text_add(t, section);
	text_add(t, "]\n");
	if (strcmp(section, "core") == 0)
		text_add(t, "\tbare = false\n");
	while (git_config_next(&e, it) == 0) {
		/* Only the repository's own file: the global config is hidden too. */
		if (e->level != GIT_CONFIG_LEVEL_LOCAL || !keep_entry(e->name))
			continue;
		if (strncmp(e->name, section, slen) != 0 || e->name[slen] != '.')
			continue;
		if (!value_plain(e->value) || !key_plain(e->name + slen + 1))
			continue;
		text_add(t, "\t");
		text_add(t, e->name + slen + 1);
		text_add(t, " = ");
		text_add(t, e->value);
		text_add(t, "\n");
	}
	git_config_iterator_free(it);
}

/*
 * The user's identity (user.name, user.email, from any level: the global
 * config is where it usually is), so that a commit made inside is the
 * user's, as in their clone. Quoted; a value with a control byte is left out.
 */
static void add_identity(struct text *t, git_config *snap)
{
	static const char *const keys[] = { "name", "email" };
	bool header = false;
	size_t i;

	for (i = 0; i < 2; i++) {
		char key[16];
		git_config_entry *e = NULL;
		const char *v;

		snprintf(key, sizeof(key), "user.%s", keys[i]);
		if (git_config_get_entry(&e, snap, key) < 0) {
			git_error_clear();
			continue;
		}
		for (v = e->value; *v && (unsigned char)*v >= 0x20 && *v != 0x7f; v++)
			;
		if (!*v && e->value[0]) {
			if (!header)
				text_add(t, "[user]\n");
			header = true;
			text_add(t, "\t");
			text_add(t, keys[i]);
			text_add(t, " = \"");
			for (v = e->value; *v; v++) {
				char c[3] = { *v, 0, 0 };

				if (*v == '"' || *v == '\\') {
					c[0] = '\\';
					c[1] = *v;
				}
				text_add(t, c);
			}
			text_add(t, "\"\n");
		}
		git_config_entry_free(e);
	}
}

int at_git_sanitized_config(struct at_repo *r, char **out_text, struct at_error *err)
{
	struct text t = { NULL, 0, 0, false };
	git_config *snap = NULL;

	if (git_repository_config_snapshot(&snap, r->repo) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the repository's configuration");
	text_add(&t, "# agenttask: sanitized copy of the repository's config\n");
	add_section(&t, snap, "core");
	add_section(&t, snap, "extensions");
	add_identity(&t, snap);
	git_config_free(snap);
	if (t.oom) {
		free(t.buf);
		return at_error_set(err, AT_ESYS, "cannot build the sanitized configuration");
	}
	*out_text = t.buf;
	return 0;
}

/* key from the person's configuration, as a string or (path) with ~ expanded. */
static bool user_config(struct at_repo *r, const char *key, bool path, char *buf, size_t size)
{
	git_config *cfg = NULL;
	git_buf val = GIT_BUF_INIT;
	bool found = false;

	if (git_repository_config_snapshot(&cfg, r->repo) == 0 &&
	    (path ? git_config_get_path(&val, cfg, key)
		  : git_config_get_string_buf(&val, cfg, key)) == 0 &&
	    val.ptr && strlen(val.ptr) < size) {
		snprintf(buf, size, "%s", val.ptr);
		found = true;
	}
	git_buf_dispose(&val);
	git_config_free(cfg);
	git_error_clear();
	return found;
}

bool at_git_user_config(struct at_repo *r, const char *key, char *buf, size_t size)
{
	return user_config(r, key, false, buf, size);
}

bool at_git_user_config_path(struct at_repo *r, const char *key, char *buf, size_t size)
{
	return user_config(r, key, true, buf, size);
}

/* include.path, includeIf.<condition>.path: git's names, any case. */
static bool include_key(const char *name)
{
	size_t n = strlen(name);

	if (n < 5 || strcasecmp(name + n - 5, ".path") != 0)
		return false;
	return strcasecmp(name, "include.path") == 0 || strncasecmp(name, "includeif.", 10) == 0;
}

#define INCLUDE_DEPTH_MAX 10   /* git's own bound on nested includes */
#define INCLUDES_MAX 256       /* files named in all: a loop of includes stays cheap */

/*
 * The files path includes, each named as git reads it: absolute, or
 * relative to the directory of the file that names it (so a nested one is
 * followed from its own file, not from the first). libgit2 lists the
 * entries of included files too: only the file's own (depth 0) are taken
 * here, and each included file is read in turn.
 */
static int includes_of(const char *path, int depth, struct at_strlist *out,
		       struct at_error *err)
{
	const char *slash = strrchr(path, '/');
	size_t from = out->n, to, i;
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	int rc = 0;

	if (depth > INCLUDE_DEPTH_MAX || out->n >= INCLUDES_MAX || !slash ||
	    access(path, F_OK) < 0)
		return 0;
	if (git_config_new(&cfg) < 0 ||
	    git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_LOCAL, NULL, 0) < 0 ||
	    git_config_iterator_new(&it, cfg) < 0) {
		git_config_free(cfg);
		git_error_clear();
		return 0;   /* git would not read it either: nothing to hide */
	}
	while (rc == 0 && git_config_next(&e, it) == 0) {
		if (e->include_depth || !include_key(e->name) || !e->value || !e->value[0] ||
		    e->value[0] == '~')
			continue;
		if (e->value[0] == '/')
			rc = at_strlist_push(out, e->value);
		else
			rc = at_strlist_pushf(out, "%.*s/%s", (int)(slash - path), path, e->value);
		if (rc < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	}
	git_config_iterator_free(it);
	git_config_free(cfg);
	git_error_clear();
	for (i = from, to = out->n; rc == 0 && i < to; i++)
		rc = includes_of(out->v[i], depth + 1, out, err);
	return rc;
}

int at_git_config_includes(const char *dir, const char *name, struct at_strlist *out,
			   struct at_error *err)
{
	char path[PATH_MAX];

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", dir);
	return includes_of(path, 0, out, err);
}
