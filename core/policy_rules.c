/*
 * policy_rules.c - the built-in rules of a policy, judged on a change set:
 * protected_paths, max_changed_files, max_changed_lines, allow_binary,
 * allow_symlinks_out, and host_files (judged without a policy too).
 */
#include "core/policy.h"

#include <stdio.h>
#include <string.h>

#include "core/glob.h"
#include "core/policy_internal.h"

#define MODE_SYMLINK 0120000u
#define MODE_GITLINK 0160000u

/*
 * Judged on the text alone, so conservatively: a ".." that follows a name
 * ("x/../y") counts as leaving, because "x" may itself be a symlink (added
 * by the same change, or already there) and ".." then climbs from wherever
 * it points: with a/l -> "..", the link "a/l/.." is the repository's parent
 * although it reads as "a". Leading ".." components climb the link's own
 * directories, which are real directories in a git tree.
 */
bool at_policy_link_escapes(const char *path, const char *target)
{
	const char *c, *end;
	long depth = 0;
	bool descended = false;

	if (!target)
		return true;
	if (target[0] == '/')
		return true;
	/* The link's own directory: one level per '/' in its path. */
	for (c = path; *c; c++)
		if (*c == '/')
			depth++;
	for (c = target; *c; c = *end ? end + 1 : end) {
		end = strchrnul(c, '/');
		if (end == c || (end - c == 1 && c[0] == '.'))
			continue;
		if (end - c == 2 && c[0] == '.' && c[1] == '.') {
			if (descended || --depth < 0)
				return true;
		} else {
			depth++;
			descended = true;
		}
	}
	return false;
}

/*
 * A symlink or a submodule is a directory to whoever checks the tree out:
 * one added at ".github" makes ".github/workflows/x" appear without any
 * changed path under it. So it counts as a change to every protected path
 * that could lie below it.
 */
static bool redirects_below(const char *pattern, const struct at_change_file *f)
{
	return f->status != AT_CHANGE_DELETED &&
	       (f->new_mode == MODE_SYMLINK || f->new_mode == MODE_GITLINK) &&
	       at_glob_match_below(pattern, f->path);
}

static const char *protected_match(const struct at_policy *p, const struct at_change_file *f,
				   const char **which)
{
	size_t i;

	for (i = 0; i < p->nprotected; i++) {
		if (at_glob_match_under(p->protected_paths[i], f->path) ||
		    redirects_below(p->protected_paths[i], f)) {
			*which = f->path;
			return p->protected_paths[i];
		}
		if (f->old_path && at_glob_match_under(p->protected_paths[i], f->old_path)) {
			*which = f->old_path;
			return p->protected_paths[i];
		}
	}
	return NULL;
}

static int rule_protected(const struct at_policy *p, const struct at_change_set *cs,
			  struct at_policy_result *res)
{
	const char *first_pat = NULL, *first_path = NULL, *which, *pat;
	struct at_rule_result *r;
	char msg[512];
	size_t i, hits = 0;

	for (i = 0; i < cs->nfiles; i++)
		if ((pat = protected_match(p, &cs->files[i], &which)) && hits++ == 0) {
			first_pat = pat;
			first_path = which;
		}
	if (hits == 0 && p->nprotected == 0)
		snprintf(msg, sizeof(msg), "no protected paths");
	else if (hits == 0)
		snprintf(msg, sizeof(msg), "no change under the %zu protected pattern%s",
			 p->nprotected, p->nprotected == 1 ? "" : "s");
	else
		snprintf(msg, sizeof(msg), "%zu changed path%s protected ('%s' by '%s')", hits,
			 hits == 1 ? " is" : "s are", first_path, first_pat);
	if (!(r = at_policy_result_push(res, "protected_paths", hits == 0, msg)))
		return -1;
	for (i = 0; i < cs->nfiles; i++)
		if (protected_match(p, &cs->files[i], &which) && at_policy_result_path(r, which) < 0)
			return -1;
	return 0;
}

static int rule_max_files(const struct at_policy *p, const struct at_change_set *cs,
			  struct at_policy_result *res)
{
	bool ok = !p->has_max_files || cs->nfiles <= p->max_changed_files;
	struct at_rule_result *r;
	char msg[256];
	size_t i;

	if (!p->has_max_files)
		snprintf(msg, sizeof(msg), "%zu file%s changed (no limit)", cs->nfiles,
			 cs->nfiles == 1 ? "" : "s");
	else
		snprintf(msg, sizeof(msg), "%zu file%s changed, %s the limit of %zu", cs->nfiles,
			 cs->nfiles == 1 ? "" : "s", ok ? "within" : "more than",
			 p->max_changed_files);
	if (!(r = at_policy_result_push(res, "max_changed_files", ok, msg)))
		return -1;
	for (i = 0; !ok && i < cs->nfiles; i++)
		if (at_policy_result_path(r, cs->files[i].path) < 0)
			return -1;
	return 0;
}

static int rule_max_lines(const struct at_policy *p, const struct at_change_set *cs,
			  struct at_policy_result *res)
{
	size_t total = cs->additions + cs->deletions, i;
	bool ok = !p->has_max_lines || total <= p->max_changed_lines;
	struct at_rule_result *r;
	char msg[256], limit[64];

	if (p->has_max_lines)
		snprintf(limit, sizeof(limit), "%s the limit of %zu", ok ? "within" : "more than",
			 p->max_changed_lines);
	else
		snprintf(limit, sizeof(limit), "no limit");
	snprintf(msg, sizeof(msg), "%zu line%s changed (+%zu -%zu), %s", total,
		 total == 1 ? "" : "s", cs->additions, cs->deletions, limit);
	if (!(r = at_policy_result_push(res, "max_changed_lines", ok, msg)))
		return -1;
	for (i = 0; !ok && i < cs->nfiles; i++)
		if (cs->files[i].additions + cs->files[i].deletions > 0 &&
		    at_policy_result_path(r, cs->files[i].path) < 0)
			return -1;
	return 0;
}

static bool binary_added_or_changed(const struct at_change_file *f)
{
	return (f->binary || f->has_nul) && f->status != AT_CHANGE_DELETED;
}

static int rule_binary(const struct at_policy *p, const struct at_change_set *cs,
		       struct at_policy_result *res)
{
	struct at_rule_result *r;
	size_t i, n = 0;
	char msg[256];

	for (i = 0; i < cs->nfiles; i++)
		n += binary_added_or_changed(&cs->files[i]);
	if (p->allow_binary)
		snprintf(msg, sizeof(msg), "binary files allowed (%zu added or changed)", n);
	else if (n == 0)
		snprintf(msg, sizeof(msg), "no binary file added or changed");
	else
		snprintf(msg, sizeof(msg), "%zu binary file%s added or changed", n,
			 n == 1 ? "" : "s");
	if (!(r = at_policy_result_push(res, "allow_binary", p->allow_binary || n == 0, msg)))
		return -1;
	for (i = 0; !p->allow_binary && i < cs->nfiles; i++)
		if (binary_added_or_changed(&cs->files[i]) && at_policy_result_path(r, cs->files[i].path) < 0)
			return -1;
	return 0;
}

static bool link_out(const struct at_change_file *f)
{
	return f->new_mode == MODE_SYMLINK && f->status != AT_CHANGE_DELETED &&
	       at_policy_link_escapes(f->path, f->link_target);
}

static int rule_symlinks(const struct at_policy *p, const struct at_change_set *cs,
			 struct at_policy_result *res)
{
	const struct at_change_file *first = NULL;
	struct at_rule_result *r;
	size_t i, n = 0;
	char msg[512];

	for (i = 0; i < cs->nfiles; i++)
		if (link_out(&cs->files[i]) && n++ == 0)
			first = &cs->files[i];
	if (n == 0)
		snprintf(msg, sizeof(msg), "no symlink points outside the repository");
	else if (p->allow_symlinks_out)
		snprintf(msg, sizeof(msg), "symlinks out of the repository allowed (%zu)", n);
	else
		snprintf(msg, sizeof(msg), "%zu symlink%s outside the repository ('%s' -> '%s')",
			 n, n == 1 ? " points" : "s point", first->path,
			 first->link_target ? first->link_target : "?");
	if (!(r = at_policy_result_push(res, "allow_symlinks_out", p->allow_symlinks_out || n == 0, msg)))
		return -1;
	for (i = 0; !p->allow_symlinks_out && i < cs->nfiles; i++)
		if (link_out(&cs->files[i]) && at_policy_result_path(r, cs->files[i].path) < 0)
			return -1;
	return 0;
}

int at_policy_evaluate(const struct at_policy *p, const struct at_change_set *cs,
		       struct at_policy_result *out, struct at_error *err)
{
	struct at_policy_result res = { NULL, 0 };

	if (rule_protected(p, cs, &res) < 0 || rule_max_files(p, cs, &res) < 0 ||
	    rule_max_lines(p, cs, &res) < 0 || rule_binary(p, cs, &res) < 0 ||
	    rule_symlinks(p, cs, &res) < 0) {
		at_policy_result_release(&res);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	*out = res;
	return 0;
}

int at_policy_rule_host_files(const struct at_policy *p, const struct at_strlist *paths,
			      struct at_policy_result *res, struct at_error *err)
{
	bool allow = p && p->allow_host_files;
	size_t i, n = paths ? paths->n : 0;
	struct at_rule_result *r;
	char msg[512];

	if (n == 0)
		snprintf(msg, sizeof(msg), "no change to a file that tools on the host run");
	else if (allow)
		snprintf(msg, sizeof(msg), "%zu file%s that tools on the host run changed, allowed "
			 "by the policy", n, n == 1 ? "" : "s");
	else
		snprintf(msg, sizeof(msg), "%zu changed file%s run by tools on the host ('%s'): "
			 "review %s", n, n == 1 ? " is" : "s are", paths->v[0],
			 n == 1 ? "it" : "them");
	if (!(r = at_policy_result_push(res, "host_files", allow || n == 0, msg)))
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; i < n; i++)
		if (at_policy_result_path(r, paths->v[i]) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

int at_policy_rule_open_comments(const struct at_policy *p, const struct at_strlist *open,
				 struct at_policy_result *res, struct at_error *err)
{
	bool has = p && p->has_open_comments;
	size_t i, n = open ? open->n : 0;
	bool ok = !has || n <= p->max_open_comments;
	struct at_rule_result *r;
	char msg[256];

	if (!has && n == 0)
		return 0;
	if (!has)
		snprintf(msg, sizeof(msg), "%zu open review comment%s (no limit)", n,
			 n == 1 ? "" : "s");
	else
		snprintf(msg, sizeof(msg), "%zu open review comment%s, %s the limit of %zu", n,
			 n == 1 ? "" : "s", ok ? "within" : "more than", p->max_open_comments);
	if (!(r = at_policy_result_push(res, "open_comments", ok, msg)))
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; i < n; i++)
		if (at_policy_result_path(r, open->v[i]) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}
