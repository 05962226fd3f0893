/*
 * fuzz_policy.c - the review policy (core/policy.c) and its judgement.
 *
 * The policy is read from the base branch (.agenttask/policy.json), so its
 * bytes are the repository's; the change set it judges is the task's. The
 * input is the policy's text, then after a NUL the changed files, one per
 * NUL-terminated record: a status byte, a mode byte, a flags byte, then
 * "path\nold path\nlink target".
 *
 * A policy either parses into what the rules can rely on (patterns in
 * normal form, .agenttask always protected, checks with a program, a name
 * and a bounded timeout) or is refused with one AT_EPOLICY line naming the
 * file. The judgement reports the five built-in rules in order, each
 * consistent with the change set; and whatever the policy says, a change
 * under .agenttask/ fails protected_paths.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/glob.h"
#include "core/policy.h"

#define WHAT "main:.agenttask/policy.json"
#define MAX_FILES 16

static const enum at_change_status statuses[] = {
	AT_CHANGE_ADDED, AT_CHANGE_MODIFIED, AT_CHANGE_DELETED,
	AT_CHANGE_RENAMED, AT_CHANGE_COPIED, AT_CHANGE_TYPECHANGE,
};
static const unsigned int modes[] = { 0100644, 0100755, 0120000, 0160000, 0 };
static const char *const rules[] = { "protected_paths", "max_changed_files",
				     "max_changed_lines", "allow_binary", "allow_symlinks_out" };

struct files {
	struct at_change_file v[MAX_FILES + 1];
	char *text[MAX_FILES + 1];
	size_t n;
};

static char *take_line(char **s)
{
	char *line = *s, *nl = strchr(line, '\n');

	if (nl) {
		*nl = '\0';
		*s = nl + 1;
	} else {
		*s = line + strlen(line);
	}
	return line;
}

/* One record into f->v[f->n]; the strings point into f->text[f->n]. */
static void add_file(struct files *f, struct at_fuzz_input rec)
{
	struct at_change_file *c = &f->v[f->n];
	uint8_t status = at_fuzz_take_byte(&rec), mode = at_fuzz_take_byte(&rec);
	uint8_t flags = at_fuzz_take_byte(&rec);
	char *s, *old, *target;

	if (!(s = f->text[f->n] = at_fuzz_strndup(rec.p, rec.n)))
		return;
	memset(c, 0, sizeof(*c));
	c->path = take_line(&s);
	old = take_line(&s);
	target = take_line(&s);
	c->status = statuses[status % (sizeof(statuses) / sizeof(statuses[0]))];
	c->new_mode = modes[mode % (sizeof(modes) / sizeof(modes[0]))];
	c->old_mode = modes[(mode >> 4) % (sizeof(modes) / sizeof(modes[0]))];
	c->old_path = *old ? old : NULL;
	c->link_target = c->new_mode == 0120000 ? target : NULL;
	c->binary = flags & 1;
	c->has_nul = flags & 3;
	c->additions = flags >> 2;
	c->deletions = status >> 3;
	f->n++;
}

static void check_policy(const struct at_policy *p)
{
	char norm[AT_GLOB_MAX + 1];
	const char *why;
	bool own = false;
	size_t i, j;

	for (i = 0; i < p->nprotected; i++) {
		AT_FUZZ_CHECK(at_glob_normalize(p->protected_paths[i], norm, sizeof(norm), &why) == 0);
		AT_FUZZ_CHECK(strcmp(norm, p->protected_paths[i]) == 0);
		own |= strcmp(p->protected_paths[i], ".agenttask") == 0;
	}
	AT_FUZZ_CHECK(own);
	for (i = 0; i < p->nchecks; i++) {
		const struct at_policy_check *c = &p->checks[i];

		AT_FUZZ_CHECK(c->name[0] && strlen(c->name) <= AT_CHECK_NAME_MAX);
		AT_FUZZ_CHECK(c->argc >= 1 && c->argv[0][0] && c->argv[c->argc] == NULL);
		AT_FUZZ_CHECK(c->timeout >= 1 && c->timeout <= AT_CHECK_TIMEOUT_MAX);
		for (j = 0; j < i; j++)
			AT_FUZZ_CHECK(strcmp(p->checks[j].name, c->name) != 0);
	}
}

static void check_judgement(const struct at_policy *p, const struct at_change_set *cs)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_policy_result res;
	bool all = true, binary = false;
	size_t i;

	AT_FUZZ_CHECK(at_policy_evaluate(p, cs, &res, &err) == 0);
	AT_FUZZ_CHECK(res.count == 5);
	for (i = 0; i < res.count; i++) {
		AT_FUZZ_CHECK(strcmp(res.rules[i].rule, rules[i]) == 0 && !res.rules[i].is_check);
		AT_FUZZ_CHECK(res.rules[i].message != NULL);
		all &= res.rules[i].passed;
	}
	AT_FUZZ_CHECK(at_policy_result_passed(&res) == all);
	AT_FUZZ_CHECK(res.rules[0].passed == (res.rules[0].npaths == 0));
	AT_FUZZ_CHECK(res.rules[1].passed ==
		      (!p->has_max_files || cs->nfiles <= p->max_changed_files));
	AT_FUZZ_CHECK(res.rules[2].passed ==
		      (!p->has_max_lines || cs->additions + cs->deletions <= p->max_changed_lines));
	for (i = 0; i < cs->nfiles; i++)
		binary |= (cs->files[i].binary || cs->files[i].has_nul) &&
			  cs->files[i].status != AT_CHANGE_DELETED;
	AT_FUZZ_CHECK(res.rules[3].passed == (p->allow_binary || !binary));
	for (i = 0; i < cs->nfiles; i++)
		if (strncmp(cs->files[i].path, ".agenttask/", 11) == 0)
			AT_FUZZ_CHECK(!res.rules[0].passed);
	at_policy_result_release(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_fuzz_input in = { data, size }, text = at_fuzz_take_until(&in, '\0');
	struct at_error err = AT_ERROR_INIT;
	struct at_change_set cs;
	struct at_policy p;
	struct files f;
	char *policy = at_fuzz_strndup(text.p, text.n);
	int rc;
	size_t i;

	if (!policy)
		return 0;
	rc = at_policy_parse(&p, policy, WHAT, &err);
	free(policy);
	if (rc < 0) {
		at_fuzz_check_error(rc, &err);
		AT_FUZZ_CHECK(rc == AT_EPOLICY && strstr(err.msg, "malformed policy"));
		return 0;
	}
	check_policy(&p);
	memset(&f, 0, sizeof(f));
	while (in.n && f.n < MAX_FILES)
		add_file(&f, at_fuzz_take_until(&in, '\0'));
	/* A change to the policy itself, which no policy lets through. */
	f.text[f.n] = at_fuzz_strndup(".agenttask/policy.json", 22);
	if (f.text[f.n]) {
		memset(&f.v[f.n], 0, sizeof(f.v[f.n]));
		f.v[f.n].path = f.text[f.n];
		f.v[f.n].status = AT_CHANGE_MODIFIED;
		f.v[f.n].old_mode = f.v[f.n].new_mode = 0100644;
		f.n++;
	}
	memset(&cs, 0, sizeof(cs));
	cs.files = f.v;
	cs.nfiles = f.n;
	for (i = 0; i < f.n; i++) {
		cs.additions += f.v[i].additions;
		cs.deletions += f.v[i].deletions;
	}
	check_judgement(&p, &cs);
	for (i = 0; i < f.n; i++)
		free(f.text[i]);
	at_policy_release(&p);
	return 0;
}
