#include "git/merge_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Commit messages */

static void write_subjects(FILE *f, git_repository *repo, git_commit *base, git_commit *tip)
{
	git_revwalk *walk = NULL;
	git_commit *c = NULL;
	git_oid id;

	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_push(walk, git_commit_id(tip)) < 0 ||
	    git_revwalk_hide(walk, git_commit_id(base)) < 0)
		goto out;
	while (git_revwalk_next(&id, walk) == 0) {
		if (git_commit_lookup(&c, repo, &id) < 0)
			break;
		fprintf(f, "* %s\n", git_commit_summary(c) ? git_commit_summary(c) : "");
		git_commit_free(c);
	}
out:
	git_error_clear();
	git_revwalk_free(walk);
}

static void write_body(FILE *f, git_repository *repo, const struct at_task *t,
		       const struct at_merge_opts *o, enum at_merge_kind kind, git_commit *base,
		       git_commit *tip)
{
	git_buf pretty = { NULL, 0, 0 };

	if (o->message && git_message_prettify(&pretty, o->message, 0, '#') == 0 && pretty.size) {
		fputs(pretty.ptr, f);
	} else if (kind == AT_MERGED_SQUASH) {
		fprintf(f, "Squashed task '%s' (%s)\n\n", t->name, at_branch_short(t->branch));
		write_subjects(f, repo, base, tip);
	} else {
		fprintf(f, "Merge task '%s' (%s) into %s\n", t->name, at_branch_short(t->branch),
			at_branch_short(t->base_branch));
	}
	git_buf_dispose(&pretty);
	git_error_clear();
}

char *at_merge_build_message(git_repository *repo, const struct at_task *t,
			     const struct at_merge_opts *o, enum at_merge_kind kind,
			     git_commit *base, git_commit *tip)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	write_body(f, repo, t, o, kind, base, tip);
	if (o->trailer)
		fprintf(f, "\n%s\n", o->trailer);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
