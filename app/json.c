#include "app/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/publish.h"
#include "core/array.h"
#include "core/audit.h"
#include "core/util.h"

static int add_oid(at_json *o, const char *key, const struct at_oid *id)
{
	char hex[AT_OID_HEXSZ + 1];

	at_oid_fmt(hex, id);
	return at_json_add_string(o, key, hex);
}

/* Free o and give NULL when a member could not be added. */
static at_json *done(at_json *o, int bad)
{
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

at_json *at_app_task_json(const struct at_task *t, const struct at_task_info *info)
{
	at_json *o = at_json_object();
	char created[AT_TIME_MAX];
	int bad = !o;

	at_time_iso(created, sizeof(created), t->created);
	bad |= at_json_add_string(o, "name", t->name);
	bad |= at_json_add_string(o, "phase", t->phase == AT_TASK_READY ? "ready" : "half-made");
	bad |= at_json_add_string(o, "branch", at_branch_short(t->branch));
	bad |= at_json_add_string(o, "base_branch", at_branch_short(t->base_branch));
	bad |= at_json_add_string(o, "base_commit", t->base_commit);
	bad |= at_json_add_string(o, "head_commit", info->head_commit);
	bad |= at_json_add_string(o, "path", t->path);
	bad |= at_json_add_string(o, "created", created);
	bad |= at_json_add_bool(o, "dirty", info->dirty);
	bad |= at_json_add_bool(o, "worktree_missing", info->worktree_missing);
	bad |= at_json_add_number(o, "commits_ahead", (double)info->commits_ahead);
	return done(o, bad);
}

int at_app_preview_json(at_json *o, const struct at_app_preview *p)
{
	at_json *conflicts = at_json_array();
	size_t i;
	int bad = !o || !conflicts;

	for (i = 0; !bad && p->ok && i < p->pv.conflicts.n; i++)
		bad |= at_json_append(conflicts, at_json_string(p->pv.conflicts.v[i]));
	if (bad) {
		at_json_free(conflicts);
		return -1;
	}
	bad |= at_json_add_bool(o, "base_moved", p->ok && p->pv.base_moved);
	bad |= at_json_add_number(o, "base_ahead", p->ok ? (double)p->pv.base_ahead : 0);
	bad |= p->ok ? at_json_add_bool(o, "merges_cleanly", p->pv.clean)
		     : at_json_add_null(o, "merges_cleanly");
	bad |= at_json_add(o, "conflicts", conflicts);
	if (!p->ok)
		bad |= at_json_add_string(o, "preview_error", p->err.msg);
	return bad ? -1 : 0;
}

static const char *mode_str(unsigned int mode, char buf[16])
{
	snprintf(buf, 16, "%06o", mode);
	return buf;
}

static at_json *file_json(const struct at_change_file *f)
{
	at_json *o = at_json_object();
	char m[16];
	int bad = !o;

	bad |= at_json_add_string(o, "path", f->path);
	if (f->status == AT_CHANGE_RENAMED || f->status == AT_CHANGE_COPIED)
		bad |= at_json_add_string(o, "old_path", f->old_path);
	bad |= at_json_add_string(o, "status", at_change_status_name(f->status));
	bad |= at_json_add_number(o, "additions", (double)f->additions);
	bad |= at_json_add_number(o, "deletions", (double)f->deletions);
	bad |= at_json_add_bool(o, "binary", f->binary);
	bad |= f->old_mode ? at_json_add_string(o, "old_mode", mode_str(f->old_mode, m))
			   : at_json_add_null(o, "old_mode");
	bad |= f->new_mode ? at_json_add_string(o, "new_mode", mode_str(f->new_mode, m))
			   : at_json_add_null(o, "new_mode");
	if (f->link_target)
		bad |= at_json_add_string(o, "link_target", f->link_target);
	return done(o, bad);
}

static int add_strings(at_json *o, const char *key, const struct at_strlist *l);

/* What a run changed: files (as diff --json has them), additions, deletions, into o. */
int at_app_run_changes_add(at_json *o, const struct at_change_set *cs)
{
	at_json *files = at_json_array();
	int bad = !files;
	size_t i;

	for (i = 0; !bad && i < cs->nfiles; i++)
		bad |= at_json_append(files, file_json(&cs->files[i]));
	if (bad) {
		at_json_free(files);
		return -1;
	}
	bad |= at_json_add(o, "files", files);
	bad |= at_json_add_number(o, "additions", (double)cs->additions);
	bad |= at_json_add_number(o, "deletions", (double)cs->deletions);
	return bad ? -1 : 0;
}

int at_app_log_add_changes(struct at_app_log *l)
{
	at_json *e;
	const char *event;
	size_t i, k = 0;
	double n;

	for (e = at_json_child(l->entries); l->has_runs && e; e = at_json_next(e), k++) {
		if (k < l->since || !(event = at_json_get_string(e, "event")) ||
		    strcmp(event, "run") != 0 || !at_json_get_number(e, "number", &n))
			continue;
		for (i = 0; i < l->runs.nruns; i++)
			if (l->runs.runs[i].before.n == (unsigned)n && l->runs.runs[i].known &&
			    at_app_run_changes_add(e, &l->runs.runs[i].cs) < 0)
				return -1;
	}
	return 0;
}

static at_json *checkpoint_json(const struct at_checkpoint *c)
{
	at_json *o = at_json_object();
	int bad = !o;

	bad |= at_json_add_number(o, "number", c->n);
	bad |= at_json_add_string(o, "kind", at_checkpoint_kind_name(c->kind));
	bad |= add_oid(o, "commit", &c->commit);
	bad |= add_oid(o, "head", &c->tip);
	bad |= add_oid(o, "tree", &c->tree);
	bad |= at_json_add_number(o, "time", (double)c->time);
	return done(o, bad);
}

at_json *at_app_checkpoints_json(const struct at_app_checkpoints *c)
{
	at_json *o = at_json_object(), *cps = at_json_array(), *runs = at_json_array(), *r;
	int bad = !o || !cps || !runs;
	size_t i;

	for (i = 0; !bad && i < c->list.n; i++)
		bad |= at_json_append(cps, checkpoint_json(&c->list.v[i]));
	for (i = 0; !bad && i < c->nruns; i++) {
		r = at_json_object();
		bad |= !r;
		bad |= at_json_add_number(r, "number", c->runs[i].before.n);
		bad |= at_json_add_bool(r, "last", c->runs[i].last);
		if (c->runs[i].known)
			bad |= at_app_run_changes_add(r, &c->runs[i].cs);
		bad |= at_json_append(runs, r);
	}
	bad |= at_json_add_string(o, "task", c->task.name);
	bad |= at_json_add(o, "checkpoints", cps);
	bad |= at_json_add(o, "runs", runs);
	bad |= add_strings(o, "warnings", &c->warnings);
	return done(o, bad);
}

static at_json *changes_json(const struct at_task *t, const struct at_change_set *cs)
{
	at_json *o = at_json_object(), *files = at_json_array();
	int bad = !o || !files;
	size_t i;

	for (i = 0; !bad && i < cs->nfiles; i++)
		bad |= at_json_append(files, file_json(&cs->files[i]));
	if (t)
		bad |= at_json_add_string(o, "task", t->name);
	bad |= add_oid(o, "merge_base", &cs->base);
	bad |= add_oid(o, "tree", &cs->tree);
	bad |= at_json_add(o, "files", files);
	bad |= at_json_add_number(o, "additions", (double)cs->additions);
	bad |= at_json_add_number(o, "deletions", (double)cs->deletions);
	return done(o, bad);
}

static int add_strings(at_json *o, const char *key, const struct at_strlist *l)
{
	at_json *arr = at_json_array();
	size_t i;
	int bad = !arr;

	for (i = 0; !bad && l && i < l->n; i++)
		bad |= at_json_append(arr, at_json_string(l->v[i]));
	if (bad) {
		at_json_free(arr);
		return -1;
	}
	return at_json_add(o, key, arr);
}

at_json *at_app_diff_json(struct at_app_diff *d, struct at_error *err)
{
	const struct at_task *t = at_app_diff_task(d);
	const struct at_change_set *cs;
	const struct at_strlist *host;
	struct at_app_preview p;
	at_json *j;
	int bad = 0;

	if (at_app_diff_changes(d, &cs, err) < 0)
		return NULL;
	if (at_app_diff_host_files(d, &host, err) < 0)
		return NULL;
	j = changes_json(t, cs);
	bad = add_strings(j, "host_files", host) < 0;
	if (j && t) {
		at_app_diff_preview(d, &p);
		bad |= at_app_preview_json(j, &p) < 0;
		at_app_preview_release(&p);
	}
	if (!j || bad) {
		at_json_free(j);
		at_error_set(err, AT_ESYS, "out of memory");
		return NULL;
	}
	return j;
}

/* The patch text, as `diff` prints it without colour, for --json --patch. */
struct patch_text {
	char *buf;
	size_t len, cap;
};

static int grow_put(struct patch_text *p, const char *s, size_t n)
{
	size_t need;

	if (!at_size_add(p->len, n + 1, &need) || AT_ARRAY_GROW(p->buf, p->cap, need) < 0)
		return -1;
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
	return 0;
}

/* git's output line: the origin character for ' ', '+' and '-', the content, a newline. */
static int collect_line(char origin, const char *content, size_t len, void *payload)
{
	char o = origin;

	if ((origin == ' ' || origin == '+' || origin == '-') && grow_put(payload, &o, 1) < 0)
		return -1;
	return grow_put(payload, content, len) < 0 || grow_put(payload, "\n", 1) < 0 ? -1 : 0;
}

int at_app_diff_json_add_patch(at_json *j, struct at_app_diff *d, struct at_error *err)
{
	struct patch_text p = { NULL, 0, 0 };
	int rc = at_app_diff_patch(d, collect_line, &p, err);

	if (rc == 0 && at_json_add_string(j, "patch", p.buf ? p.buf : "") < 0)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	free(p.buf);
	return rc;
}

at_json *at_app_trash_json(const struct at_trash_entry *e)
{
	at_json *o = at_json_object();
	char when[AT_TIME_MAX];
	int bad = !o;

	at_time_iso(when, sizeof(when), (int64_t)e->sec);
	bad |= at_json_add_string(o, "task", e->name);
	bad |= at_json_add_number(o, "entry", (double)e->index);
	bad |= at_json_add_string(o, "ref", e->ref);
	bad |= at_json_add_string(o, "discarded", when);
	bad |= at_json_add_string(o, "tip", e->tip);
	bad |= at_json_add_string(o, "base_branch", at_branch_short(e->base_branch));
	bad |= at_json_add_number(o, "checkpoints", (double)e->checkpoints);
	return done(o, bad);
}

static at_json *rule_json(const struct at_rule_result *r)
{
	at_json *o = at_json_object(), *paths = at_json_array();
	int bad = !o || !paths;
	size_t i;

	for (i = 0; paths && i < r->npaths; i++)
		bad |= at_json_append(paths, at_json_string(r->paths[i]));
	bad |= at_json_add_string(o, "rule", r->rule);
	bad |= at_json_add_string(o, "kind", r->is_check ? "check" : "rule");
	bad |= at_json_add_bool(o, "passed", r->passed);
	bad |= at_json_add_string(o, "message", r->message);
	bad |= at_json_add(o, "paths", paths);
	if (r->is_check)
		bad |= at_json_add_string(o, "output", r->output ? r->output : "");
	return done(o, bad);
}

at_json *at_app_gate_json(const struct at_gate_report *rep)
{
	at_json *o = at_json_object(), *results = at_json_array();
	int bad = !o || !results;
	size_t i;

	for (i = 0; results && i < rep->res.count; i++)
		bad |= at_json_append(results, rule_json(&rep->res.rules[i]));
	if (rep->task[0])
		bad |= at_json_add_string(o, "task", rep->task);
	bad |= at_json_add_bool(o, "passed", at_gate_report_passed(rep));
	/* Judged with or without a policy (host_files); null only where nothing was. */
	bad |= rep->judged ? add_oid(o, "merge_base", &rep->base)
			   : at_json_add_null(o, "merge_base");
	bad |= rep->judged ? add_oid(o, "tree", &rep->tree) : at_json_add_null(o, "tree");
	bad |= rep->has_policy ? at_json_add_string(o, "policy", rep->policy)
			       : at_json_add_null(o, "policy");
	if (rep->has_policy_commit)
		bad |= add_oid(o, "policy_commit", &rep->policy_commit);
	if (rep->note[0])
		bad |= at_json_add_string(o, "note", rep->note);
	bad |= at_json_add(o, "results", results);
	bad |= add_strings(o, "host_files", &rep->host_files);
	if (rep->network)
		bad |= at_json_add(o, "network", at_json_dup(rep->network));
	return done(o, bad);
}

/* The import after the run (app/gitview.c): "import" null when the branch did not move. */
static int add_import(at_json *j, const struct at_app_run_result *res)
{
	at_json *o;
	int bad;

	if (!res->imported)
		return at_json_add_null(j, "import");
	o = at_json_object();
	bad = !o;
	bad |= at_json_add_string(o, "old", res->import_old);
	bad |= at_json_add_string(o, "new", res->import_new);
	bad |= at_json_add_number(o, "objects", (double)res->import_objects);
	return at_json_add(j, "import", done(o, bad)) | bad;
}

at_json *at_app_error_json(const struct at_error *err)
{
	at_json *o = at_json_object();
	int bad = !o;

	bad |= at_json_add(o, "error", at_json_error_of(err));
	return done(o, bad);
}

/*
 * One captured stream: the text (lossless when the bytes are UTF-8, NUL
 * included), its base64 beside it when they are not, and what was dropped.
 */
static int add_stream(at_json *j, const char *key, const char *buf, size_t len,
		      uint64_t dropped)
{
	char k[32];
	bool exact = true;
	int bad;

	bad = at_json_add(j, key, at_json_bytes(buf ? buf : "", buf ? len : 0, &exact));
	if (!exact) {
		snprintf(k, sizeof(k), "%s_base64", key);
		bad |= at_json_add(j, k, at_json_base64(buf, len));
	}
	snprintf(k, sizeof(k), "%s_truncated", key);
	bad |= at_json_add_bool(j, k, dropped > 0);
	snprintf(k, sizeof(k), "%s_dropped", key);
	bad |= at_json_add_number(j, k, (double)dropped);
	return bad;
}

/* Why the run ended: a stop of a limit, else a signal, else its exit. */
static const char *reason(const struct at_run_result *r)
{
	if (at_run_stop_name(r->stop))
		return at_run_stop_name(r->stop);
	return r->term_signal ? "signal" : "exit";
}

at_json *at_app_run_json(const struct at_app_run_opts *o, const struct at_app_run_result *res,
			 const struct at_error *run_err)
{
	const struct at_run_result *r = &res->run;
	at_json *j = at_json_object(), *reqs;
	int bad = !j;

	bad |= at_json_add_string(j, "task", res->task);
	bad |= at_json_add_number(j, "exit_code", res->exit_code);
	bad |= at_json_add_string(j, "reason", run_err && run_err->code ? "error" : reason(r));
	bad |= at_json_add_number(j, "signal", r->term_signal);
	bad |= at_json_add_bool(j, "timed_out", r->timed_out);
	bad |= at_json_add_bool(j, "cancelled", r->cancelled);
	bad |= at_json_add_number(j, "duration_ms", (double)r->duration_ms);
	bad |= at_json_add_number(j, "max_rss_kb", (double)r->max_rss_kb);
	bad |= at_json_add_number(j, "user_cpu_ms", (double)r->user_cpu_ms);
	bad |= at_json_add_number(j, "sys_cpu_ms", (double)r->sys_cpu_ms);
	bad |= at_json_add_number(j, "output_max",
				  (double)(o->capture_max ? o->capture_max : AT_RUN_CAPTURE_MAX));
	bad |= add_stream(j, "stdout", r->out, r->out_len, r->out_dropped);
	bad |= add_stream(j, "stderr", r->err, r->err_len, r->err_dropped);
	bad |= add_stream(j, "output", r->output, r->output_len, r->output_dropped);
	bad |= at_json_add(j, "limits", at_audit_limits_json(&res->limits, r->mech, o->timeout_ms));
	if (r->oom_kills >= 0)
		bad |= at_json_add_number(j, "oom_kills", (double)r->oom_kills);
	if (r->limits_note[0])
		bad |= at_json_add_string(j, "limits_note", r->limits_note);
	/* The command could not be executed (126, 127): "exec", as the log says it. */
	if (run_err && run_err->code)
		bad |= at_json_add(j, "error", at_json_error_of(run_err));
	else if (r->exec_failed)
		bad |= at_json_add(j, "error", at_json_error("exec", r->exec_error));
	bad |= add_import(j, res);
	/* the person's open review comments, as the sandbox's file showed them */
	if (res->comments)
		bad |= at_json_add(j, "comments", at_json_dup(res->comments));
	/* where the run's published ports were (run --publish) */
	if (res->npublished)
		bad |= at_json_add(j, "published",
				   at_app_published_json(res->published, res->npublished));
	bad |= res->number ? at_json_add_number(j, "number", res->number)
			   : at_json_add_null(j, "number");
	if (res->has_changes)
		bad |= at_app_run_changes_add(j, &res->changes);
	/* the requests the proxy judged on terminated hosts (secrets, request rules) */
	if (o->proxy && (reqs = at_app_net_requests_json(o->proxy)))
		bad |= at_json_add(j, "requests", reqs);
	return done(j, bad);
}

at_json *at_app_doctor_json(const struct at_doctor *d)
{
	at_json *o = at_json_object(), *arr = at_json_array();
	size_t i;
	int bad = !o || !arr;

	for (i = 0; arr && i < d->n; i++) {
		const struct at_doctor_check *c = &d->checks[i];
		at_json *j = at_json_object();

		bad |= at_json_add_string(j, "check", c->id);
		bad |= at_json_add_string(j, "title", c->title);
		bad |= at_json_add_string(j, "state", at_doctor_state_name(c->state));
		bad |= at_json_add_string(j, "detail", c->detail);
		bad |= c->fix[0] ? at_json_add_string(j, "fix", c->fix) : at_json_add_null(j, "fix");
		bad |= at_json_append(arr, j);
	}
	bad |= at_json_add_bool(o, "can_sandbox", d->can_sandbox);
	bad |= at_json_add(o, "checks", arr);
	return done(o, bad);
}

/* {"task": name, ...} with the warnings, or NULL. */
static at_json *about(const char *task, const struct at_strlist *warnings)
{
	at_json *o = at_json_object();
	int bad = !o;

	bad |= at_json_add_string(o, "task", task);
	bad |= add_strings(o, "warnings", warnings);
	return done(o, bad);
}

at_json *at_app_new_json(const struct at_app_new_result *r)
{
	struct at_task_info info;
	at_json *o;

	/* The task object status gives: its branch at the commit it starts from, clean. */
	memset(&info, 0, sizeof(info));
	snprintf(info.head_commit, sizeof(info.head_commit), "%s", r->task.base_commit);
	o = at_app_task_json(&r->task, &info);
	return done(o, !o || add_strings(o, "warnings", &r->warnings) < 0);
}

at_json *at_app_rewind_json(const struct at_app_rewind_result *r)
{
	at_json *o = about(r->task.name, &r->warnings);
	int bad = !o;

	bad |= at_json_add_number(o, "to", r->to);
	bad |= at_json_add_number(o, "saved", r->saved);
	bad |= add_oid(o, "head", &r->head);
	bad |= at_json_add_number(o, "paths", (double)r->paths);
	return done(o, bad);
}

at_json *at_app_commit_json(const struct at_app_commit_result *r)
{
	at_json *o = about(r->task.name, &r->warnings);
	int bad = !o;

	bad |= at_json_add_bool(o, "made", r->made);
	bad |= add_oid(o, "commit", &r->commit);
	bad |= at_json_add_string(o, "branch", at_branch_short(r->task.branch));
	return done(o, bad);
}

static const char *merge_kind(enum at_merge_kind k)
{
	switch (k) {
	case AT_MERGED_UP_TO_DATE: return "up-to-date";
	case AT_MERGED_FAST_FORWARD: return "fast-forward";
	case AT_MERGED_COMMIT: return "merge";
	case AT_MERGED_SQUASH: return "squash";
	}
	return "?";
}

at_json *at_app_accept_json(const struct at_app_accept_opts *opts,
			    const struct at_app_accept_result *r)
{
	at_json *o = about(r->task.name, &r->warnings);
	int bad = !o;

	bad |= at_json_add_string(o, "result", merge_kind(r->merge.kind));
	bad |= at_json_add_string(o, "base_branch", at_branch_short(r->merge.base_branch));
	bad |= add_oid(o, "old_tip", &r->merge.old_tip);
	bad |= add_oid(o, "new_tip", &r->merge.new_tip);
	bad |= at_json_add_bool(o, "overridden", r->overriding);
	bad |= at_json_add_bool(o, "kept", opts->keep || (r->partial && !opts->drop_rest));
	bad |= at_json_add_bool(o, "removed", !opts->keep && !(r->partial && !opts->drop_rest) &&
					      !r->remove_failed);
	bad |= r->merge.updated_worktree[0]
		       ? at_json_add_string(o, "updated_worktree", r->merge.updated_worktree)
		       : at_json_add_null(o, "updated_worktree");
	bad |= add_strings(o, "notes", &r->notes);
	bad |= add_strings(o, "host_files", &r->host_files);
	/* A part (accept -- PATHSPEC): what was accepted, what stayed. */
	bad |= at_json_add_bool(o, "partial", r->partial);
	bad |= r->partial ? add_oid(o, "part_tree", &r->part_tree) : at_json_add_null(o, "part_tree");
	bad |= add_strings(o, "accepted_paths", &r->taken);
	bad |= add_strings(o, "left_paths", &r->left);
	bad |= r->trash[0] ? at_json_add_string(o, "trash", r->trash) : at_json_add_null(o, "trash");
	return done(o, bad);
}

at_json *at_app_discard_json(const struct at_app_discard_result *r)
{
	at_json *o = about(r->task.name, &r->warnings);
	int bad = !o;

	bad |= at_json_add_string(o, "ref", r->trash);   /* as trash --json names it */
	bad |= at_json_add_bool(o, "commits_only", r->commits_only);
	return done(o, bad);
}

at_json *at_app_drop_json(const struct at_app_drop_result *r)
{
	at_json *o = about(r->task.name, &r->warnings);
	int bad = !o;

	bad |= at_json_add_string(o, "ref", r->trash);   /* as trash --json names it */
	bad |= add_strings(o, "dropped_paths", &r->dropped);
	bad |= add_strings(o, "left_paths", &r->left);
	return done(o, bad);
}

at_json *at_app_restore_json(const struct at_app_restore_result *r)
{
	at_json *o = about(r->task.name, &r->warnings);
	int bad = !o;

	bad |= at_json_add_string(o, "ref", r->trash);   /* as trash --json names it */
	bad |= at_json_add_string(o, "path", r->task.path);
	bad |= at_json_add_string(o, "branch", at_branch_short(r->task.branch));
	return done(o, bad);
}

at_json *at_app_gc_json(const struct at_app_gc_result *r)
{
	at_json *o = at_json_object(), *arr = at_json_array();
	size_t i;
	int bad = !o || !arr;

	for (i = 0; !bad && i < r->done.lines.n; i++) {
		at_json *e = at_json_object();

		bad |= at_json_add_string(e, "message", r->done.lines.v[i]);
		bad |= at_json_add_bool(e, "failed", r->done.failed[i]);
		bad |= at_json_append(arr, e);
	}
	if (bad)
		at_json_free(arr);
	else
		bad |= at_json_add(o, "actions", arr);
	bad |= at_json_add_number(o, "failures", (double)r->done.nfailed);
	return done(o, bad);
}

static int add_line(at_json *o, const char *key, size_t line)
{
	return line ? at_json_add_number(o, key, (double)line) : at_json_add_null(o, key);
}

static at_json *comment_view_json(const struct at_app_comment_view *v)
{
	const struct at_comment *c = v->c;
	char when[AT_TIME_MAX];
	at_json *j = at_json_object(), *made = at_json_object();
	int bad = !j || !made;

	at_time_iso(when, sizeof(when), c->time);
	bad |= at_json_add_number(j, "id", (double)c->id);
	bad |= c->path ? at_json_add_string(j, "path", c->path) : at_json_add_null(j, "path");
	bad |= add_line(j, "line", v->first);
	bad |= add_line(j, "end_line", v->last);
	bad |= at_json_add_bool(j, "outdated", v->outdated);
	bad |= add_oid(made, "tree", &c->tree);
	bad |= add_line(made, "line", c->first);
	bad |= add_line(made, "end_line", c->last);
	bad |= at_json_add(j, "made_on", made);
	made = NULL;
	bad |= at_json_add_string(j, "text", c->text);
	bad |= at_json_add_string(j, "author", c->author);
	bad |= at_json_add_string(j, "time", when);
	bad |= at_json_add_bool(j, "resolved", c->resolved);
	at_json_free(made);
	return done(j, bad);
}

at_json *at_app_comments_json(const struct at_app_comments_result *res)
{
	at_json *a = at_json_array();
	size_t i;

	for (i = 0; a && i < res->n; i++)
		if (at_json_append(a, comment_view_json(&res->v[i])) < 0) {
			at_json_free(a);
			return NULL;
		}
	return a;
}

at_json *at_app_comments_result_json(const struct at_app_comments_result *res)
{
	at_json *j = at_json_object();
	int bad = !j;

	bad |= at_json_add_string(j, "task", res->task.name);
	bad |= at_json_add_number(j, "open", (double)res->open);
	bad |= at_json_add(j, "comments", at_app_comments_json(res));
	return done(j, bad);
}

static at_json *du_task_json(const struct at_app_du_task *t)
{
	at_json *o = at_json_object();
	int bad = !o;
	size_t i;

	bad |= at_json_add_string(o, "task", t->name);
	for (i = 0; i < AT_DU_NPARTS; i++)
		bad |= at_json_add_number(o, at_du_part_names[i], (double)t->bytes[i]);
	bad |= at_json_add_number(o, "total", (double)t->total);
	bad |= at_json_add_number(o, "trash_entries", (double)t->trash_entries);
	if (at_error_isset(&t->err))
		bad |= at_json_add(o, "error", at_json_error_of(&t->err));
	return done(o, bad);
}

at_json *at_app_du_json(const struct at_app_du *d)
{
	at_json *o = at_json_object(), *arr = at_json_array();
	int bad = !o || !arr;
	size_t i;

	for (i = 0; !bad && i < d->n; i++)
		bad |= at_json_append(arr, du_task_json(&d->v[i]));
	if (bad)
		at_json_free(arr);
	else
		bad |= at_json_add(o, "tasks", arr);
	bad |= at_json_add_number(o, "total", (double)d->total);
	return done(o, bad);
}

at_json *at_app_fork_json(const struct at_app_fork_result *r)
{
	struct at_task_info info;
	at_json *o;

	memset(&info, 0, sizeof(info));
	at_oid_fmt(info.head_commit, &r->tip);
	o = at_app_task_json(&r->task, &info);
	return done(o, !o || add_strings(o, "warnings", &r->warnings) < 0);
}

static int add_time_or_null(at_json *o, const char *key, bool has, int64_t secs)
{
	char when[AT_TIME_MAX];

	if (!has)
		return at_json_add_null(o, key);
	at_time_iso(when, sizeof(when), secs);
	return at_json_add_string(o, key, when);
}

static at_json *live_ports_json(const struct at_app_live *l)
{
	at_json *arr = at_json_array();
	char url[64];
	size_t i;
	int bad = !arr;

	for (i = 0; !bad && i < l->nports; i++) {
		at_json *p = at_json_object();

		snprintf(url, sizeof(url), "http://127.0.0.1:%u/", (unsigned)l->ports[i].host_port);
		bad |= at_json_add_number(p, "port", l->ports[i].port);
		bad |= at_json_add_number(p, "host_port", l->ports[i].host_port);
		bad |= at_json_add_string(p, "url", url);
		bad |= at_json_append(arr, p);
	}
	return done(arr, bad);
}

at_json *at_app_live_json(const struct at_app_live *l)
{
	bool live = l->state == AT_LIVE_RUNNING || l->state == AT_LIVE_WAITING;
	at_json *o = at_json_object(), *g = NULL, *c = NULL;
	int bad = !o;

	bad |= at_json_add_string(o, "state", at_live_state_name(l->state));
	bad |= live ? at_json_add(o, "command", at_json_bytes(l->command, strlen(l->command), NULL))
		    : at_json_add_null(o, "command");
	bad |= add_time_or_null(o, "since", live, l->since);
	bad |= live && l->has_usage ? at_json_add_number(o, "cpu_ms", (double)l->cpu_ms)
				    : at_json_add_null(o, "cpu_ms");
	bad |= live && l->has_usage ? at_json_add_number(o, "memory_bytes", (double)l->memory_bytes)
				    : at_json_add_null(o, "memory_bytes");
	bad |= live && l->has_usage ? at_json_add_string(o, "usage_source", l->usage_source)
				    : at_json_add_null(o, "usage_source");
	bad |= at_json_add_number(o, "runs", (double)l->nruns);
	bad |= l->has_exit ? at_json_add_number(o, "exit_code", l->exit_code)
			   : at_json_add_null(o, "exit_code");
	bad |= add_time_or_null(o, "exited_at", l->has_exit, l->exited_at);
	if (l->has_gate && (g = at_json_object())) {
		bad |= at_json_add_bool(g, "passed", l->gate_passed);
		bad |= add_time_or_null(g, "time", true, l->gate_at);
		bad |= at_json_add(o, "gate", g);
	} else {
		bad |= at_json_add_null(o, "gate");
	}
	if (l->has_change && (c = at_json_object())) {
		bad |= at_json_add_number(c, "files", (double)l->files);
		bad |= at_json_add_number(c, "additions", (double)l->additions);
		bad |= at_json_add_number(c, "deletions", (double)l->deletions);
		bad |= at_json_add(o, "change", c);
	} else {
		bad |= at_json_add_null(o, "change");
	}
	bad |= at_json_add(o, "ports", live_ports_json(l));
	return done(o, bad);
}
