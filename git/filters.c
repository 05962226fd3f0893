#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fs.h"
#include "core/util.h"
#include "git/internal.h"

static bool has_key(const git_config *cfg, const char *key)
{
	git_config_entry *e = NULL;
	bool found = git_config_get_entry(&e, cfg, key) == 0;

	git_config_entry_free(e);
	return found;
}

/* core.autocrlf (true, or input: not a bool), core.eol crlf, or an attributes file named. */
static bool config_converts(git_repository *repo)
{
	const char *eol = NULL;
	git_config *cfg = NULL;
	int autocrlf = 0;
	bool convert = true;

	if (git_repository_config_snapshot(&cfg, repo) == 0)
		convert = has_key(cfg, "core.attributesFile") ||
			  (has_key(cfg, "core.autocrlf") &&
			   (git_config_get_bool(&autocrlf, cfg, "core.autocrlf") < 0 || autocrlf)) ||
			  (git_config_get_string(&eol, cfg, "core.eol") == 0 &&
			   strcmp(eol, "crlf") == 0);
	git_config_free(cfg);
	git_error_clear();
	return convert;
}

/* The user's attributes file, where libgit2 looks for it. */
static bool user_attributes_exist(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char path[PATH_MAX];

	if (xdg && xdg[0])
		return at_fmt(path, sizeof(path), "%s/git/attributes", xdg) < 0 || at_path_exists(path);
	if (home && home[0])
		return at_fmt(path, sizeof(path), "%s/.config/git/attributes", home) < 0 ||
		       at_path_exists(path);
	return false;
}

bool at_git_config_bool(git_repository *repo, const char *key, bool dflt)
{
	git_config *cfg = NULL;
	int value = dflt;

	if (git_repository_config_snapshot(&cfg, repo) == 0 &&
	    git_config_get_bool(&value, cfg, key) < 0)
		value = dflt;
	git_config_free(cfg);
	git_error_clear();
	return value != 0;
}

bool at_git_filters_configured(git_repository *repo)
{
	char info[PATH_MAX];

	if (config_converts(repo) || user_attributes_exist() || at_path_exists("/etc/gitattributes"))
		return true;
	return at_fmt(info, sizeof(info), "%sinfo/attributes", git_repository_commondir(repo)) < 0 ||
	       at_path_exists(info);
}
