#include "git/trash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "git/internal.h"
#include "git/snapshot.h"

#define TRASH_PREFIX "refs/agenttask/trash/"

/*
 * The trash commit: tree = the task's full state, parent = the branch tip,
 * and the task's base recorded as trailers so restore can rebuild the task.
 */
static int trash_message(char *buf, size_t size, const struct at_task *t)
{
	return at_fmt(buf, size,
		      "agenttask: discarded task '%s'\n\n"
		      "Agenttask-Task: %s\nAgenttask-Base-Branch: %s\nAgenttask-Base-Commit: %s\n"
		      "Agenttask-Created: %lld\n",
		      t->name, t->name, t->base_branch, t->base_commit, (long long)t->created);
}

static int branch_tip(git_repository *repo, const struct at_task *t, git_commit **out,
		      struct at_error *err)
{
	git_object *obj = NULL;
	int rc = 0;

	if (git_revparse_single(&obj, repo, t->branch) < 0 ||
	    git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read branch '%s'", at_branch_short(t->branch));
	git_object_free(obj);
	return rc;
}

static int full_state_tree(struct at_repo *r, const struct at_task *t, const git_commit *tip,
			   git_oid *out, struct at_error *err)
{
	char hex[AT_OID_HEXSZ + 1];

	/* A task whose worktree is gone: its commits are all there is. */
	if (access(t->path, F_OK) != 0) {
		git_oid_cpy(out, git_commit_tree_id(tip));
		return 0;
	}
	if (at_snapshot_tree(r, t, hex, err) < 0)
		return err->code;
	git_oid_fromstr(out, hex);
	return 0;
}

int at_trash_save(struct at_repo *r, const struct at_task *t, char *ref_out, size_t ref_size,
		  struct at_error *err)
{
	git_signature *sig = NULL;
	git_commit *tip = NULL;
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	git_oid tree_id, commit_id;
	char msg[1024], refname[256];
	struct timespec now;
	int rc;

	clock_gettime(CLOCK_REALTIME, &now);
	if ((rc = branch_tip(r->repo, t, &tip, err)) < 0 ||
	    (rc = full_state_tree(r, t, tip, &tree_id, err)) < 0 ||
	    (rc = at_git_signature(&sig, r->repo, err)) < 0)
		goto out;
	/* Seconds and nanoseconds: two discards of one name never share a ref. */
	if (trash_message(msg, sizeof(msg), t) < 0 ||
	    at_fmt(refname, sizeof(refname), TRASH_PREFIX "%s/%lld.%09ld", t->name,
		   (long long)now.tv_sec, now.tv_nsec) < 0) {
		rc = at_error_set(err, AT_ESYS, "task name too long for the trash '%s'", t->name);
		goto out;
	}
	if (git_tree_lookup(&tree, r->repo, &tree_id) < 0 ||
	    git_commit_create_v(&commit_id, r->repo, NULL, sig, sig, NULL, msg, tree, 1, tip) < 0 ||
	    git_reference_create(&ref, r->repo, refname, &commit_id, 0, "agenttask: discard") < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot save task '%s' in the trash", t->name);
		goto out;
	}
	snprintf(ref_out, ref_size, "%s", refname);
out:
	git_reference_free(ref);
	git_tree_free(tree);
	git_signature_free(sig);
	git_commit_free(tip);
	return rc;
}

/* refs/agenttask/trash/NAME/SECONDS.NANOS -> SECONDS */
static long long trash_time(const char *refname)
{
	const char *slash = strrchr(refname, '/');

	return slash ? strtoll(slash + 1, NULL, 10) : 0;
}

int at_trash_prune(struct at_repo *r, int days, struct at_gc_report *rep, struct at_error *err)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	long long cutoff = (long long)time(NULL) - (long long)days * 86400;
	int rc = 0, next;

	if (git_reference_iterator_glob_new(&it, r->repo, TRASH_PREFIX "*") < 0)
		return at_git_error(err, AT_EGIT, "cannot list the trash");
	while (rc == 0 && (next = git_reference_next(&ref, it)) == 0) {
		char name[256];

		snprintf(name, sizeof(name), "%s", git_reference_name(ref));
		if (trash_time(name) < cutoff) {
			if (git_reference_delete(ref) < 0)
				rc = at_git_error(err, AT_EGIT, "cannot prune '%s'", name);
			else
				at_gc_report_add(rep, "pruned trash '%s'", name);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	return rc;
}
