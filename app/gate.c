/*
 * gate.c - the review gate: read the policy from the base, and only then,
 * if there is one, judge the change set by its rules and run its checks in
 * the sandbox (app/layout.c, as `run` does).
 */
#include "app/gate.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/gitview.h"
#include "app/comment.h"
#include "app/internal.h"
#include "core/audit.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/blob.h"
#include "git/diff.h"
#include "git/scratch.h"
#include "sandbox/sandbox.h"

/* Output kept of each stream of a check: enough for a log tail, bounded for JSON. */
#define CHECK_CAPTURE_MAX ((size_t)256 * 1024)

struct policy_source {
	struct at_oid commit;  /* the commit to read .agenttask/policy.json at */
	const char *label;     /* how messages name it: "main", "origin/main", an id */
	const char *file;      /* --policy FILE instead, or NULL */
};

/* What the checks need besides the policy: where to run them, and with what. */
struct check_env {
	char *const *environ;
	const struct at_progress_hook *progress;
	const struct at_task *task;   /* a task's gate: its open review comments; NULL in CI */
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

	rc = at_git_read_file_at(r, &src->commit, AT_POLICY_PATH, AT_POLICY_MAX_SIZE, text, len,
				 &e);
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

static bool check_proxied(const struct at_policy_check *c)
{
	return c->nallow_hosts || c->nforward;
}

/* "malformed policy 'FILE': key 'checks[I].KEY': WHY", as the policy's own parser says it. */
static int bad_net_key(const char *what, size_t idx, const char *key, const char *why,
		       struct at_error *err)
{
	return at_error_set(err, AT_EPOLICY, "malformed policy '%s': key 'checks[%zu].%s': %s",
			    what, idx, key, why);
}

/*
 * Check idx's network keys (allow_hosts, forward, deny_private), taken as
 * `run --allow-host`, `--forward` and `--deny-private` take them; a bad
 * one is a malformed policy naming the file (what) and the key.
 */
static int check_net(const struct at_policy_check *c, size_t idx, const char *what,
		     struct at_app_net *n, struct at_error *err)
{
	struct at_error perr = AT_ERROR_INIT;

	for (size_t i = 0; i < c->nallow_hosts; i++)
		if (at_app_net_allow(n, c->allow_hosts[i], &perr) < 0)
			return bad_net_key(what, idx, "allow_hosts", perr.msg, err);
	for (size_t i = 0; i < c->nforward; i++)
		if (at_app_net_forward_as(n, c->forward[i], "forward", &perr) < 0)
			return bad_net_key(what, idx, "forward", perr.msg, err);
	if (c->deny_private)
		at_app_net_deny_private(n);
	return 0;
}

/* Every check's network keys, before any check runs: a bad one runs none. */
static int checks_net_ok(const struct at_policy *p, const char *what, struct at_error *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < p->nchecks; i++) {
		struct at_app_net n;
		at_app_net_init(&n);
		rc = check_net(&p->checks[i], i, what, &n, err);
		at_app_net_release(&n);
	}
	return rc;
}

/* Parse the policy into *p; rep->has_policy says whether there was one. */
static int load_policy(struct at_repo *r, const struct policy_source *src, struct at_policy *p,
		       struct at_gate_report *rep, struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	char hex[AT_OID_HEXSZ + 1];
	size_t len = 0;
	int rc;

	if (src->file) {
		snprintf(rep->policy, sizeof(rep->policy), "%s", src->file);
		rc = read_policy_file(src->file, &text, &len, err);
	} else {
		snprintf(rep->policy, sizeof(rep->policy), "%s:%s", src->label, AT_POLICY_PATH);
		rep->has_policy_commit = true;
		rep->policy_commit = src->commit;
		rc = read_policy_at(r, src, &text, &len, err);
		if (rc == AT_ENOTFOUND) {
			at_error_clear(err);
			at_oid_fmt(hex, &src->commit);
			snprintf(rep->note, sizeof(rep->note), "no policy at %s in %s (%.12s)",
				 AT_POLICY_PATH, src->label, hex);
			return 0;
		}
	}
	if (rc < 0)
		return rc;
	if (strlen(text) != len)
		return at_error_set(err, AT_EPOLICY, "malformed policy '%s': it holds a NUL byte",
				    rep->policy);
	if ((rc = at_policy_parse(p, text, rep->policy, err)) == 0 &&
	    (rc = checks_net_ok(p, rep->policy, err)) == 0)
		rep->has_policy = true;
	return rc;
}

/* "exit 0 in 1.2 s", "timed out after 30 s", ... */
static void check_message(const struct at_policy_check *c, const struct at_run_result *sr,
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
static char *check_output(const struct at_run_result *sr)
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
			const struct at_run_result *sr, struct at_error *err)
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

/* The checks' environment, with the proxy's variables for one with allow_hosts or forward. */
static int check_envp(const struct at_policy_check *c, const struct check_env *ce,
		      struct at_strlist *out, struct at_error *err)
{
	char *const *net = at_app_net_env();
	size_t n = 0;

	while (check_proxied(c) && net[n])
		n++;
	return at_sandbox_env(ce->environ, NULL, 0, net, n, out, err);
}

/* What the proxy of a check with allow_hosts saw, kept in the report (and so in the log). */
static int record_network(struct at_gate_report *rep, const struct at_policy_check *c,
			  const struct at_app_net *net, struct at_error *err)
{
	at_json *j = at_json_object(), *nj = at_app_net_json(net);
	int bad = !j || !nj;

	if (!bad && !rep->network && !(rep->network = at_json_array()))
		bad = 1;
	bad |= at_json_add_string(j, "check", c->name);
	bad |= at_json_add(j, "network", nj);
	if (!bad)
		bad |= at_json_append(rep->network, j);
	else
		at_json_free(j);
	return bad ? at_error_set(err, AT_ESYS, "out of memory") : 0;
}

static int sandbox_check(struct at_repo *r, const struct at_scratch *s,
			 const struct at_policy_check *c, size_t idx, const struct check_env *ce,
			 struct at_gate_report *rep, struct at_error *err)
{
	struct at_app_sandbox_opts o = AT_APP_SANDBOX_OPTS_INIT;
	struct at_strlist env = AT_STRLIST_INIT;
	struct at_app_layout l = { .config = NULL };
	struct at_run_result sr;
	struct at_app_net net;
	struct at_task t;
	int rc;

	at_run_result_init(&sr);
	at_app_net_init(&net);
	at_scratch_as_task(s, &t);
	if ((rc = check_net(c, idx, rep->policy, &net, err)) == 0 &&
	    (rc = check_envp(c, ce, &env, err)) == 0)
		rc = at_app_layout_resolve(r, &t, &l, err);
	o.argv = c->argv;
	o.envp = env.v;
	o.proc.share_net = c->net;
	o.net = check_proxied(c) ? &net : NULL;
	o.proc.timeout_ms = (uint64_t)c->timeout * 1000;
	/* A check runs the task's code: the defaults of every run hold it too. */
	at_sandbox_defaults(&o.proc.limits);
	o.proc.stdio = AT_STDIO_CAPTURE;
	o.proc.capture_max = CHECK_CAPTURE_MAX;
	if (rc == 0)
		rc = at_app_sandbox_run(&l, &o, &sr, err);
	if (rc == 0)
		rc = record_check(&rep->res, c, &sr, err);
	if (rc == 0 && check_proxied(c))
		rc = record_network(rep, c, &net, err);
	at_run_result_release(&sr);
	at_app_layout_release(&l);
	at_strlist_release(&env);
	at_app_net_release(&net);
	return rc;
}

/*
 * Each check in a scratch worktree of its own: a check running the task's
 * code (its tests, say) could otherwise change the files the next check
 * inspects. Removed on every path; if we are killed, the sweep removes it.
 */
static int run_check(struct at_repo *r, const struct at_policy_check *c, size_t idx,
		     const struct at_oid *commit, const struct at_oid *tree,
		     const struct check_env *ce, struct at_gate_report *rep,
		     struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_scratch s;
	int rc;

	if ((rc = at_scratch_create(r, commit, tree, &s, err)) < 0)
		return rc;
	at_test_kill_point("gate:scratch");
	rc = sandbox_check(r, &s, c, idx, ce, rep, err);
	at_scratch_remove(&s, &ignored);
	return rc;
}

static int run_checks(struct at_repo *r, const struct at_policy *p, const struct at_oid *commit,
		      const struct at_oid *tree, const struct check_env *ce,
		      struct at_gate_report *rep, struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	char what[AT_CHECK_NAME_MAX + 32];
	size_t i;
	int rc = 0;

	if (p->nchecks == 0)
		return 0;
	/* What killed gates left behind; best effort, it is not this gate's business. */
	at_scratch_sweep(r, NULL, &ignored);
	for (i = 0; rc == 0 && i < p->nchecks; i++) {
		snprintf(what, sizeof(what), "check %zu of %zu: %s", i + 1, p->nchecks,
			 p->checks[i].name);
		at_progress_say(ce->progress, what, 0, 0);
		rc = run_check(r, &p->checks[i], i, commit, tree, ce, rep, err);
	}
	return rc;
}

/* The task's open review comments against the state judged, one line each: the rule's row. */
static int open_comments(struct at_repo *r, const struct at_policy *p, const struct at_task *t,
			 const struct at_oid *tree, struct at_gate_report *rep,
			 struct at_error *err)
{
	struct at_app_comments_result res;
	struct at_strlist lines = { 0 };
	size_t i;
	int rc;

	if ((rc = at_app_comments_of(r, t, tree, false, &res, err)) < 0)
		return rc;
	for (i = 0; rc == 0 && i < res.n; i++) {
		const struct at_app_comment_view *v = &res.v[i];
		char where[64];

		if (!v->c->path)
			snprintf(where, sizeof(where), "(the whole change)");
		else if (v->outdated)
			snprintf(where, sizeof(where), ":%zu (outdated)", v->c->first);
		else
			snprintf(where, sizeof(where), ":%zu", v->first);
		if (at_strlist_pushf(&lines, "%lu %s%s %s", v->c->id, v->c->path ? v->c->path : "",
				     where, v->c->text) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	}
	if (rc == 0)
		rc = at_policy_rule_open_comments(p, &lines, &rep->res, err);
	at_strlist_release(&lines);
	at_app_comments_result_release(&res);
	return rc;
}

/*
 * The rules on the change set (only host_files without a policy), then the
 * checks on (commit, the tree judged).
 */
static int judge(struct at_repo *r, const struct at_policy *p, struct at_diff *d,
		 const struct at_oid *commit, const struct check_env *ce,
		 struct at_gate_report *rep, struct at_error *err)
{
	const struct at_policy *pp = rep->has_policy ? p : NULL;
	const struct at_change_set *cs;
	int rc;

	if ((rc = at_diff_changes(d, &cs, err)) < 0)
		return rc;
	rep->judged = true;
	rep->base = cs->base;
	rep->tree = cs->tree;
	if ((rc = at_app_host_files(r, cs, &rep->host_files, err)) < 0)
		return rc;
	if (pp && (rc = at_policy_evaluate(pp, cs, &rep->res, err)) < 0)
		return rc;
	if ((rc = at_policy_rule_host_files(pp, &rep->host_files, &rep->res, err)) < 0)
		return rc;
	if (ce->task && (rc = open_comments(r, pp, ce->task, &cs->tree, rep, err)) < 0)
		return rc;
	if (pp)
		rc = run_checks(r, pp, commit, &cs->tree, ce, rep, err);
	return rc;
}

/* A diff of what is judged: the files the host runs are, with or without a policy. */
typedef int (*open_diff_fn)(void *arg, struct at_diff **out, struct at_oid *commit,
			    struct at_error *err);

static int gate(struct at_repo *r, const struct policy_source *src, open_diff_fn open_diff,
		void *arg, const struct check_env *ce, struct at_gate_report **out,
		struct at_error *err)
{
	struct at_gate_report *rep = calloc(1, sizeof(*rep));
	struct at_diff *d = NULL;
	struct at_policy p;
	struct at_oid commit;
	int rc;

	if (!rep)
		return at_error_set(err, AT_ESYS, "out of memory");
	memset(&p, 0, sizeof(p));
	rc = load_policy(r, src, &p, rep, err);
	if (rc == 0)
		rc = open_diff(arg, &d, &commit, err);
	if (rc == 0)
		rc = judge(r, &p, d, &commit, ce, rep, err);
	at_diff_free(d);
	at_policy_release(&p);
	if (rc < 0) {
		at_gate_report_free(rep);
		return rc;
	}
	*out = rep;
	return 0;
}

/* ---- a task ---- */

static int open_task_diff(void *arg, struct at_diff **out, struct at_oid *commit,
			  struct at_error *err)
{
	struct at_app_view *v = arg;
	const struct at_task_state *st;
	int rc;

	if ((rc = at_app_view_state(v, &st, err)) < 0)
		return rc;
	if (!v->w)
		return at_error_set(err, AT_EGIT, "cannot open the worktree of task '%s': '%s' is "
				    "missing", v->task->name, v->task->path);
	*commit = st->tip;
	return at_diff_open_state(out, v->r, v->w, st, err);
}

int at_app_gate_task(struct at_repo *r, struct at_app_view *v, const char *policy_file,
		     char *const *environ, const struct at_progress_hook *progress,
		     struct at_gate_report **out, struct at_error *err)
{
	const struct at_task *t = v->task;
	struct policy_source src = { { { 0 } }, NULL, policy_file };
	struct check_env ce = { environ, progress, t };
	struct at_error e = AT_ERROR_INIT;
	char label[AT_OID_HEXSZ + 1];
	int rc;

	/* The base branch's tip; the recorded base commit when the branch is unset or gone. */
	if (t->base_branch[0] && at_git_resolve_commit(r, t->base_branch, &src.commit, &e) == 0) {
		src.label = at_branch_short(t->base_branch);
	} else if (at_oid_parse(&src.commit, t->base_commit) == 0) {
		snprintf(label, sizeof(label), "%.12s", t->base_commit);
		src.label = label;
	} else {
		return at_error_set(err, AT_ECORRUPT, "task '%s' has a bad base commit '%s'",
				    t->name, t->base_commit);
	}
	if ((rc = gate(r, &src, open_task_diff, v, &ce, out, err)) == 0)
		snprintf((*out)->task, sizeof((*out)->task), "%s", t->name);
	return rc;
}

/* ---- CI: two revisions ---- */

struct revs {
	struct at_repo *r;
	struct at_oid base, head;
};

static int open_revs_diff(void *arg, struct at_diff **out, struct at_oid *commit,
			  struct at_error *err)
{
	struct revs *rv = arg;

	*commit = rv->head;
	return at_diff_open_commits(out, rv->r, &rv->base, &rv->head, err);
}

static int gate_revs(struct at_repo *r, const struct at_app_gate_opts *o, char *const *environ,
		     struct at_gate_report **out, struct at_error *err)
{
	struct revs rv = { r, { { 0 } }, { { 0 } } };
	struct policy_source src = { { { 0 } }, o->base_rev, o->policy_file };
	struct check_env ce = { environ, &o->progress, NULL };
	int rc;

	if ((rc = at_git_resolve_commit(r, o->base_rev, &rv.base, err)) < 0 ||
	    (rc = at_git_resolve_commit(r, o->head_rev ? o->head_rev : "HEAD", &rv.head, err)) < 0)
		return rc;
	src.commit = rv.base;
	return gate(r, &src, open_revs_diff, &rv, &ce, out, err);
}

/* ---- the use case ---- */

static void audit(struct at_repo *r, const struct at_task *t, const struct at_gate_report *rep,
		  struct at_strlist *warnings)
{
	struct at_strlist failed = AT_STRLIST_INIT;
	struct at_error err = AT_ERROR_INIT;

	if (at_gate_report_failed(rep, &failed) < 0)
		at_error_set(&err, AT_ESYS, "out of memory");
	else
		at_audit_gate(at_repo_paths(r), t->name, at_gate_report_passed(rep),
			      rep->judged ? &rep->tree : NULL,
			      rep->has_policy ? rep->policy : NULL, &failed, rep->network, &err);
	if (at_error_isset(&err))
		at_strlist_pushf(warnings, "the gate was not logged: %s", err.msg);
	at_strlist_release(&failed);
}

int at_app_gate(const struct at_app *app, const struct at_app_gate_opts *o,
		struct at_app_gate_result *out, struct at_error *err)
{
	char *const *environ = app ? app->environ : NULL;
	struct at_repo *r = NULL;
	struct at_app_view v;
	struct at_task t;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = at_app_open(app, &r, err);
	if (rc == 0 && o->base_rev) {
		rc = gate_revs(r, o, environ, &out->report, err);
	} else if (rc == 0 && (rc = at_app_resolve_present(app, r, o->name, &t, err)) == 0 &&
		   (rc = at_app_import_before(r, &t, &out->warnings, err)) == 0) {
		at_app_view_init(&v, r, &t);
		rc = at_app_gate_task(r, &v, o->policy_file, environ, &o->progress, &out->report,
				      err);
		at_app_view_release(&v);
		if (rc == 0)
			audit(r, &t, out->report, &out->warnings);
	}
	at_repo_free(r);
	return rc;
}

void at_app_gate_result_release(struct at_app_gate_result *res)
{
	if (!res)
		return;
	at_gate_report_free(res->report);
	res->report = NULL;
	at_strlist_release(&res->warnings);
}

bool at_gate_report_passed(const struct at_gate_report *rep)
{
	return !rep || at_policy_result_passed(&rep->res);
}

int at_gate_report_failed(const struct at_gate_report *rep, struct at_strlist *out)
{
	size_t i;

	for (i = 0; rep && i < rep->res.count; i++)
		if (!rep->res.rules[i].passed && at_strlist_push(out, rep->res.rules[i].rule) < 0)
			return -1;
	return 0;
}

void at_gate_report_free(struct at_gate_report *rep)
{
	if (!rep)
		return;
	at_policy_result_release(&rep->res);
	at_strlist_release(&rep->host_files);
	at_json_free(rep->network);
	free(rep);
}
