/*
 * review.c - the review gate: read the policy from the base, judge the
 * change set by its rules, run its checks in the sandbox.
 */
#include "cmd/review.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/review_report.h"
#include "cmd/net_run.h"
#include "cmd/sandbox_run.h"
#include "core/policy.h"
#include "core/util.h"
#include "git/blob.h"
#include "git/diff.h"
#include "git/scratch.h"
#include "sandbox/sandbox.h"

extern char **environ;

/* Output kept of each stream of a check: enough for a log tail, bounded for JSON. */
#define CHECK_CAPTURE_MAX ((size_t)256 * 1024)

struct policy_source {
	const char *commit;   /* the commit to read .agenttask/policy.json at */
	const char *label;    /* how messages name it: "main", "origin/main", an id */
	const char *file;     /* --policy FILE instead, or NULL */
};

static int read_policy_file(const char *file, char **text, size_t *len, struct at_error *err)
{
	FILE *f = fopen(file, "re");
	char *buf;
	size_t n;

	if (!f)
		return at_error_sys(err, AT_EPOLICY, "cannot read policy '%s'", file);
	buf = malloc(AT_POLICY_MAX_SIZE + 2);
	if (!buf) {
		fclose(f);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	n = fread(buf, 1, AT_POLICY_MAX_SIZE + 1, f);
	if (ferror(f) || n > AT_POLICY_MAX_SIZE) {
		int e = ferror(f) ? errno : EFBIG;
		fclose(f);
		free(buf);
		errno = e;
		return at_error_sys(err, AT_EPOLICY, "cannot read policy '%s'", file);
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* The policy text from the base commit; AT_ENOTFOUND when it has none. */
static int read_policy_at(struct at_repo *r, const struct policy_source *src, char **text,
			  size_t *len, struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;
	int rc;

	rc = at_git_read_file_at(r, src->commit, AT_POLICY_PATH, AT_POLICY_MAX_SIZE, text, len, &e);
	if (rc == AT_EUSAGE)
		/* There, but a directory, a symlink or too big: malformed, never absent. */
		return at_error_set(err, AT_EPOLICY, "malformed policy '%s:%s': %s", src->label,
				    AT_POLICY_PATH, e.msg);
	if (rc < 0) {
		*err = e;
		return rc;
	}
	return 0;
}

/* Parse the policy into *p; rep->has_policy says whether there was one. */
static int load_policy(struct at_repo *r, const struct policy_source *src, struct at_policy *p,
		       struct at_gate_report *rep, struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	size_t len = 0;
	int rc;

	if (src->file) {
		snprintf(rep->policy, sizeof(rep->policy), "%s", src->file);
		rc = read_policy_file(src->file, &text, &len, err);
	} else {
		snprintf(rep->policy, sizeof(rep->policy), "%s:%s", src->label, AT_POLICY_PATH);
		snprintf(rep->policy_commit, sizeof(rep->policy_commit), "%s", src->commit);
		rc = read_policy_at(r, src, &text, &len, err);
		if (rc == AT_ENOTFOUND) {
			at_error_clear(err);
			snprintf(rep->note, sizeof(rep->note), "no policy at %s in %s (%.12s)",
				 AT_POLICY_PATH, src->label, src->commit);
			return 0;
		}
	}
	if (rc < 0)
		return rc;
	if (strlen(text) != len)
		return at_error_set(err, AT_EPOLICY, "malformed policy '%s': it holds a NUL byte",
				    rep->policy);
	if ((rc = at_policy_parse(p, text, rep->policy, err)) == 0)
		rep->has_policy = true;
	return rc;
}

/* "exit 0 in 1.2 s", "timed out after 30 s", ... */
static void check_message(const struct at_policy_check *c, const struct at_sandbox_result *sr,
			  char *buf, size_t size)
{
	double secs = (double)sr->duration_ms / 1000;

	if (sr->timed_out)
		snprintf(buf, size, "timed out after %u s (everything it started was killed)",
			 c->timeout);
	else if (sr->exec_failed)
		snprintf(buf, size, "%s", sr->exec_error);
	else if (sr->term_signal)
		snprintf(buf, size, "killed by signal %d after %.1f s", sr->term_signal, secs);
	else
		snprintf(buf, size, "exit %d in %.1f s", sr->exit_code, secs);
}

/* stdout then stderr, each marked when cut short. */
static char *check_output(const struct at_sandbox_result *sr)
{
	const char *out = sr->out ? sr->out : "", *err = sr->err ? sr->err : "";
	const char *cut = "\n[... output truncated ...]\n";
	char *buf = NULL;

	if (asprintf(&buf, "%s%s%s%s", out, sr->out_truncated ? cut : "", err,
		     sr->err_truncated ? cut : "") < 0)
		return NULL;
	return buf;
}

static int record_check(struct at_policy_result *res, const struct at_policy_check *c,
			const struct at_sandbox_result *sr, struct at_error *err)
{
	bool passed = !sr->timed_out && !sr->exec_failed && !sr->term_signal &&
		      sr->exit_code == 0;
	AT_AUTOFREE char *output = check_output(sr);
	char msg[320];

	if (!output)
		return at_error_set(err, AT_ESYS, "out of memory");
	check_message(c, sr, msg, sizeof(msg));
	return at_policy_result_add(res, c->name, passed, msg, output, err);
}

/* A check's allow_hosts, as `run --allow-host` takes them; a bad one is a malformed policy. */
static int check_net(const struct at_policy_check *c, struct at_net_run *n, struct at_error *err)
{
	struct at_error perr = AT_ERROR_INIT;

	for (size_t i = 0; i < c->nallow_hosts; i++)
		if (at_net_run_allow(n, c->allow_hosts[i], &perr) < 0)
			return at_error_set(err, AT_EPOLICY, "malformed policy: check '%s': "
					    "allow_hosts: %s", c->name, perr.msg);
	return 0;
}

static int sandbox_check(struct at_repo *r, const struct at_scratch *s,
			 const struct at_policy_check *c, char **env,
			 struct at_policy_result *res, struct at_error *err)
{
	struct at_sandbox_opts o = AT_SANDBOX_OPTS_INIT;
	struct at_sandbox_target st;
	struct at_sandbox_result sr;
	struct at_net_run net;
	struct at_task t;
	char **net_env = NULL;
	size_t nvars = 0;
	int rc;

	memset(&sr, 0, sizeof(sr));
	at_net_run_init(&net);
	at_scratch_as_task(s, &t);
	while (at_net_run_env()[nvars])
		nvars++;
	if ((rc = check_net(c, &net, err)) < 0 ||
	    (c->nallow_hosts && (rc = at_sandbox_env(environ, NULL, 0, at_net_run_env(), nvars,
						     &net_env, err)) < 0) ||
	    (rc = at_cli_sandbox_target(r, &t, &st, err)) < 0) {
		at_sandbox_env_free(net_env);
		at_net_run_release(&net);
		return rc;
	}
	at_cli_sandbox_opts(&st, &o);
	o.argv = c->argv;
	o.envp = net_env ? net_env : env;
	o.net = c->net;
	o.timeout_ms = (uint64_t)c->timeout * 1000;
	/* A check runs the task's code: the defaults of every run hold it too. */
	at_sandbox_defaults(o.limits, &o.default_limits);
	o.capture = true;
	o.capture_max = CHECK_CAPTURE_MAX;
	at_net_run_prepare(&net, &o);
	fflush(NULL);
	rc = at_sandbox_run(&o, &sr, err);
	at_net_run_stop(&net);
	if (rc == 0)
		rc = record_check(res, c, &sr, err);
	at_sandbox_result_release(&sr);
	at_cli_sandbox_target_release(&st);
	at_sandbox_env_free(net_env);
	at_net_run_release(&net);
	return rc;
}

/*
 * Each check in a scratch worktree of its own: a check running the task's
 * code (its tests, say) could otherwise change the files the next check
 * inspects. Removed on every path; if we are killed, the sweep removes it.
 */
static int run_check(struct at_repo *r, const struct at_policy_check *c, const char *commit,
		     const char *tree, char **env, struct at_policy_result *res,
		     struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_scratch s;
	int rc;

	if ((rc = at_scratch_create(r, commit, tree, &s, err)) < 0)
		return rc;
	rc = sandbox_check(r, &s, c, env, res, err);
	at_scratch_remove(&s, &ignored);
	return rc;
}

/* Each check is a step of the progress: "check 2 of 3: unit tests", and its time. */
static int run_checks(struct at_repo *r, const struct at_policy *p, const char *commit,
		      const char *tree, const struct at_progress_hook *progress,
		      struct at_policy_result *res, struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	char what[AT_CHECK_NAME_MAX + 32];
	char **env = NULL;
	size_t i;
	int rc;

	if (p->nchecks == 0)
		return 0;
	/* What killed gates left behind; best effort, it is not this gate's business. */
	at_scratch_sweep(r, NULL, &ignored);
	if ((rc = at_sandbox_env(environ, NULL, 0, NULL, 0, &env, err)) < 0)
		return rc;
	for (i = 0; rc == 0 && i < p->nchecks; i++) {
		snprintf(what, sizeof(what), "check %zu of %zu: %s", i + 1, p->nchecks,
			 p->checks[i].name);
		at_progress_say(progress, what, 0, 0);
		rc = run_check(r, &p->checks[i], commit, tree, env, res, err);
	}
	at_sandbox_env_free(env);
	return rc;
}

static int judge(struct at_repo *r, const struct policy_source *src,
		 const struct at_change_set *cs, const char *commit,
		 const struct at_progress_hook *progress, struct at_gate_report **out,
		 struct at_error *err)
{
	struct at_gate_report *rep = calloc(1, sizeof(*rep));
	struct at_policy p;
	int rc;

	if (!rep)
		return at_error_set(err, AT_ESYS, "out of memory");
	memset(&p, 0, sizeof(p));
	snprintf(rep->base, sizeof(rep->base), "%s", cs->base);
	snprintf(rep->tree, sizeof(rep->tree), "%s", cs->tree);
	rc = load_policy(r, src, &p, rep, err);
	if (rc == 0 && rep->has_policy)
		rc = at_policy_evaluate(&p, cs, &rep->res, err);
	if (rc == 0 && rep->has_policy)
		rc = run_checks(r, &p, commit, cs->tree, progress, &rep->res, err);
	at_policy_release(&p);
	if (rc < 0) {
		at_gate_report_free(rep);
		return rc;
	}
	*out = rep;
	return 0;
}

int at_review_task(struct at_cli *cli, struct at_repo *r, const struct at_task *t,
		   const char *policy_file, struct at_gate_report **out, struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;
	struct at_change_set cs;
	struct policy_source src = { NULL, NULL, policy_file };
	char base[AT_OID_HEXSZ + 1], tip[AT_OID_HEXSZ + 1], label[AT_OID_HEXSZ + 1];
	int rc;

	memset(&cs, 0, sizeof(cs));
	/* The base branch's tip; the recorded base commit when the branch is unset or gone. */
	if (t->base_branch[0] && at_git_resolve_commit(r, t->base_branch, base, &e) == 0) {
		src.label = at_branch_short(t->base_branch);
	} else {
		snprintf(base, sizeof(base), "%s", t->base_commit);
		snprintf(label, sizeof(label), "%.12s", t->base_commit);
		src.label = label;
	}
	src.commit = base;
	rc = at_git_resolve_commit(r, t->branch, tip, err);
	if (rc == 0)
		rc = at_diff_task(r, t, &cs, err);
	if (rc == 0)
		rc = judge(r, &src, &cs, tip, &cli->progress, out, err);
	at_change_set_release(&cs);
	return rc;
}

int at_review_revs(struct at_cli *cli, struct at_repo *r, const char *base_rev,
		   const char *head_rev, const char *policy_file, struct at_gate_report **out,
		   struct at_error *err)
{
	struct at_change_set cs;
	struct policy_source src = { NULL, base_rev, policy_file };
	char base[AT_OID_HEXSZ + 1], head[AT_OID_HEXSZ + 1];
	int rc;

	memset(&cs, 0, sizeof(cs));
	src.commit = base;
	rc = at_git_resolve_commit(r, base_rev, base, err);
	if (rc == 0)
		rc = at_git_resolve_commit(r, head_rev, head, err);
	if (rc == 0)
		rc = at_diff_revs(r, base, head, &cs, err);
	if (rc == 0)
		rc = judge(r, &src, &cs, head, &cli->progress, out, err);
	at_change_set_release(&cs);
	return rc;
}

bool at_gate_report_has_policy(const struct at_gate_report *rep)
{
	return rep && rep->has_policy;
}

bool at_gate_report_passed(const struct at_gate_report *rep)
{
	return !rep || !rep->has_policy || at_policy_result_passed(&rep->res);
}

const char *at_gate_report_tree(const struct at_gate_report *rep)
{
	return rep ? rep->tree : "";
}

void at_gate_report_free(struct at_gate_report *rep)
{
	if (!rep)
		return;
	at_policy_result_release(&rep->res);
	free(rep);
}
