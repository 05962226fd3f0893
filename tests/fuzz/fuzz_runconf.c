/*
 * fuzz_runconf.c - the run configuration (core/runconf.c).
 *
 * .agenttask/run.json is read from a repository's base commit: its bytes are
 * whoever committed them. The input is the file's text. It either parses
 * into what app/runconf.c relies on, or is refused with one AT_EUSAGE line
 * naming the file: every path absolute (a "~/" one under the home given),
 * every env entry NAME=value with a name of letters, digits and '_', every
 * list bounded, every limit said non-zero, every profile with a valid,
 * unique name that at_runconf_profile finds.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/name.h"
#include "core/runconf.h"

#define WHAT "main:.agenttask/run.json"
#define HOME "/home/fuzz"

static void check_paths(const struct at_strlist *l)
{
	size_t i;

	AT_FUZZ_CHECK(l->n <= 8 * AT_RUNCONF_MAX_ITEMS);
	for (i = 0; i < l->n; i++)
		AT_FUZZ_CHECK(l->v[i][0] == '/');
}

static void check_env(const struct at_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const char *eq = strchr(l->v[i], '=');

		AT_FUZZ_CHECK(eq && eq > l->v[i]);
		AT_FUZZ_CHECK(strspn(l->v[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						 "0123456789_") == (size_t)(eq - l->v[i]));
	}
}

static void check_set(const struct at_runconf_set *s)
{
	check_paths(&s->ro);
	check_paths(&s->path);
	check_paths(&s->cache);
	check_env(&s->env);
	AT_FUZZ_CHECK(s->allow_hosts.n <= AT_RUNCONF_MAX_ITEMS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_runconf c;
	char *text = at_fuzz_strndup(data, size);
	size_t i;
	int rc;

	if (!text)
		return 0;
	rc = at_runconf_parse(&c, text, WHAT, size % 2 ? HOME : NULL, &err);
	if (rc < 0) {
		at_fuzz_check_error(rc, &err);
		AT_FUZZ_CHECK(rc == AT_EUSAGE || rc == AT_ESYS);
		AT_FUZZ_CHECK(rc == AT_ESYS || strstr(err.msg, WHAT));
	} else {
		check_set(&c.run);
		for (i = 0; i < c.nprofiles; i++) {
			AT_FUZZ_CHECK(at_name_valid(c.profiles[i].name));
			AT_FUZZ_CHECK(at_runconf_profile(&c, c.profiles[i].name) ==
				      &c.profiles[i].set);
			check_set(&c.profiles[i].set);
		}
		at_runconf_release(&c);
	}
	free(text);
	return 0;
}
