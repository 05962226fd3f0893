/*
 * fuzz_config.c - the sanitized repository config shown inside the sandbox
 * (git/config.c).
 *
 * The repository's config holds credentials (tokens in remote URLs,
 * http.extraHeader) and settings that run programs (core.fsmonitor,
 * core.hooksPath, filters, aliases). The sandbox sees a copy that keeps the
 * repository-format settings alone. The input is a config file, parsed by
 * libgit2 as the repository's own; the copy made of it, parsed again, must
 * hold nothing but those settings, each a plain token, each with the value
 * git would have used, plus core.bare = false. A copy git cannot parse
 * would break git inside the sandbox: it fails the check too.
 */
#include "tests/fuzz/fuzz.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>
#include <git2/sys/repository.h>

#include "git/config.h"
#include "git/internal.h"

static char in_path[PATH_MAX], out_path[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	snprintf(in_path, sizeof(in_path), "%s/config", at_fuzz_tmpdir());
	snprintf(out_path, sizeof(out_path), "%s/sanitized", at_fuzz_tmpdir());
	return 0;
}

static const char *const kept[] = { "core.repositoryformatversion", "core.filemode",
				     "core.symlinks", "core.ignorecase",
				     "core.precomposeunicode" };

/*
 * Every extensions.* variable with a name git accepts (a letter, then
 * letters, digits, '-': libgit2 is laxer), none of a subsection.
 */
static bool is_kept(const char *name)
{
	const char *key = name + 11;
	size_t i;

	if (strncmp(name, "extensions.", 11) == 0)
		return ((*key >= 'a' && *key <= 'z') || (*key >= 'A' && *key <= 'Z')) &&
		       strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-") == strlen(key);
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (strcasecmp(name, kept[i]) == 0)
			return true;
	return false;
}

static bool plain(const char *v)
{
	return v && *v && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789-_.") == strlen(v);
}

/* The value git uses (the last one), or NULL. The string is the caller's. */
static char *last_value(git_config *cfg, const char *name)
{
	git_config_entry *e = NULL;
	char *v = NULL;

	if (git_config_get_entry(&e, cfg, name) == 0 && e->value)
		v = strdup(e->value);
	git_config_entry_free(e);
	git_error_clear();
	return v;
}

/* Every entry of the copy is kept and plain; every kept plain setting is there, alike. */
static void check_copy(git_config *in, git_config *out)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;

	AT_FUZZ_CHECK(git_config_iterator_new(&it, out) == 0);
	while (git_config_next(&e, it) == 0) {
		AT_FUZZ_CHECK(is_kept(e->name) || strcmp(e->name, "core.bare") == 0);
		AT_FUZZ_CHECK(plain(e->value));
	}
	git_config_iterator_free(it);
	AT_FUZZ_CHECK(git_config_iterator_new(&it, in) == 0);
	while (git_config_next(&e, it) == 0) {
		char *want, *got;

		if (!is_kept(e->name) || !(want = last_value(in, e->name)))
			continue;
		got = last_value(out, e->name);
		if (plain(want))
			AT_FUZZ_CHECK(got && strcmp(got, want) == 0);
		free(want);
		free(got);
	}
	git_config_iterator_free(it);
	git_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	git_config *in = NULL, *out = NULL;
	struct at_repo r;
	char *text = NULL;

	memset(&r, 0, sizeof(r));
	at_fuzz_write_file(in_path, data, size);
	if (git_config_open_ondisk(&in, in_path) < 0) {   /* git would refuse it too */
		git_error_clear();
		return 0;
	}
	AT_FUZZ_CHECK(git_repository_new(&r.repo) == 0);
	git_repository_set_config(r.repo, in);
	if (at_git_sanitized_config(&r, &text, &err) == 0) {
		at_fuzz_write_file(out_path, text, strlen(text));
		if (git_config_open_ondisk(&out, out_path) < 0)
			fprintf(stderr, "the copy does not parse: %s\n---\n%s---\n",
				git_error_last() ? git_error_last()->message : "?", text);
		AT_FUZZ_CHECK(out != NULL);
		check_copy(in, out);
	} else {
		at_fuzz_check_error(err.code, &err);
	}
	free(text);
	git_config_free(out);
	git_config_free(in);
	git_repository_free(r.repo);
	return 0;
}
