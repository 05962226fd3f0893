/*
 * cmd_run.c - agenttask run [NAME] [OPTIONS] -- CMD [ARG...]
 *
 * Gathers what the sandbox needs from the repository (real paths, the
 * sanitized config), checks the options, runs, reports, and appends the run
 * to the task's audit log. The sandbox itself is sandbox/.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "core/audit.h"
#include "core/esc.h"
#include "core/json.h"
#include "core/runs.h"
#include "core/util.h"
#include "cmd/net_run.h"
#include "cmd/sandbox_run.h"
#include "git/worktree.h"
#include "sandbox/sandbox.h"

extern char **environ;

struct run_args {
	const char *name;
	char **cmd;
	bool net, json, verbose, no_limits;
	enum at_sandbox_tty tty;
	struct at_sandbox_bind *binds;   /* paths owned (absolute_path) */
	size_t nbinds;
	char **pass, **set;
	size_t npass, nset;
	uint64_t limits[AT_LIMIT_COUNT];
	uint64_t timeout_ms;
	struct at_net_run netrun;        /* --allow-host, --forward, --deny-private */
};

static void run_args_release(struct run_args *a)
{
	size_t i;

	for (i = 0; i < a->nbinds; i++)
		free((char *)a->binds[i].path);
	free(a->binds);
	free(a->pass);
	free(a->set);
	at_net_run_release(&a->netrun);
}

static int push(char ***arr, size_t *n, char *s)
{
	char **na = realloc(*arr, (*n + 1) * sizeof(*na));

	if (!na)
		return -1;
	na[(*n)++] = s;
	*arr = na;
	return 0;
}

/* Lexically normalise an absolute or cwd-relative path ("." ".." "//" trailing '/'). */
static char *absolute_path(const char *path)
{
	char cwd[PATH_MAX], *buf, *out, *save = NULL, *comp;
	size_t len = 0;

	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (path[0] == '/')
		buf = strdup(path);
	else if (asprintf(&buf, "%s/%s", cwd, path) < 0)
		buf = NULL;
	out = buf ? calloc(1, strlen(buf) + 2) : NULL;
	if (!out) {
		free(buf);
		return NULL;
	}
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		out[len++] = '/';
		strcpy(out + len, comp);
		len += strlen(comp);
	}
	if (len == 0)
		strcpy(out, "/");
	free(buf);
	return out;
}

static int add_bind(struct run_args *a, const char *path, bool writable)
{
	struct at_sandbox_bind *nb;
	char *abs = absolute_path(path);

	if (!abs)
		return -1;
	nb = realloc(a->binds, (a->nbinds + 1) * sizeof(*nb));
	if (!nb) {
		free(abs);
		return -1;
	}
	a->binds = nb;
	a->binds[a->nbinds].path = abs;
	a->binds[a->nbinds].writable = writable;
	a->nbinds++;
	return 0;
}

enum {
	OPT_RO = 256, OPT_RW, OPT_NET, OPT_ENV, OPT_PASS_ENV, OPT_TIMEOUT, OPT_MEMORY, OPT_PIDS,
	OPT_CPU, OPT_FSIZE, OPT_JSON, OPT_CPUS, OPT_NO_LIMITS, OPT_ALLOW_HOST, OPT_FORWARD,
	OPT_DENY_PRIVATE,
};

static int parse_option(struct run_args *a, int c, const char *arg, struct at_error *err)
{
	switch (c) {
	case OPT_RO:
	case OPT_RW:
		if (add_bind(a, arg, c == OPT_RW) < 0)
			return at_error_sys(err, AT_EUSAGE, "invalid path '%s'", arg);
		return 0;
	case OPT_NET:
		a->net = true;
		return 0;
	case OPT_ENV:
		return push(&a->set, &a->nset, (char *)arg) < 0 ? at_error_set(err, AT_ESYS, "out of memory") : 0;
	case OPT_PASS_ENV:
		return push(&a->pass, &a->npass, (char *)arg) < 0 ? at_error_set(err, AT_ESYS, "out of memory") : 0;
	case OPT_TIMEOUT:
		return at_sandbox_parse_seconds(arg, &a->timeout_ms, err);
	case OPT_MEMORY:
		return at_sandbox_parse_size(arg, &a->limits[AT_LIMIT_MEMORY], err);
	case OPT_PIDS:
		return at_sandbox_parse_count(arg, 4194304, &a->limits[AT_LIMIT_PIDS], err);
	case OPT_CPU:
		return at_sandbox_parse_count(arg, 100000000, &a->limits[AT_LIMIT_CPU], err);
	case OPT_FSIZE:
		return at_sandbox_parse_size(arg, &a->limits[AT_LIMIT_FSIZE], err);
	case OPT_CPUS:
		return at_sandbox_parse_cpus(arg, &a->limits[AT_LIMIT_CPUS], err);
	case OPT_NO_LIMITS:
		a->no_limits = true;
		return 0;
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_ALLOW_HOST:
		return at_net_run_allow(&a->netrun, arg, err);
	case OPT_FORWARD:
		return at_net_run_forward(&a->netrun, arg, err);
	case OPT_DENY_PRIVATE:
		a->netrun.deny_private = true;
		return 0;
	case 'v':
		a->verbose = true;
		return 0;
	case 't':
	case 'T':
		a->tty = c == 't' ? AT_TTY_FORCE : AT_TTY_NEVER;
		return 0;
	}
	return at_error_set(err, AT_EUSAGE, "invalid option");
}

/* Options come before "--"; the command after it. Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option longopts[] = {
		{ "ro", required_argument, NULL, OPT_RO },
		{ "rw", required_argument, NULL, OPT_RW },
		{ "net", no_argument, NULL, OPT_NET },
		{ "env", required_argument, NULL, OPT_ENV },
		{ "pass-env", required_argument, NULL, OPT_PASS_ENV },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "pids", required_argument, NULL, OPT_PIDS },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "file-size", required_argument, NULL, OPT_FSIZE },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "no-limits", no_argument, NULL, OPT_NO_LIMITS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
		{ "forward", required_argument, NULL, OPT_FORWARD },
		{ "deny-private", no_argument, NULL, OPT_DENY_PRIVATE },
		{ "tty", no_argument, NULL, 't' },
		{ "no-tty", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	int dd, c;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	while ((c = at_cli_getopt(dd, argv, "hvtT", longopts)) != -1) {
		if (c == 'h')
			return at_cli_help("run");
		if (c == '?')
			return at_cli_bad_option("run");
		if (parse_option(a, c, optarg, &err) < 0)
			return at_cli_usage("run", "%s", err.msg);
	}
	if (dd >= argc)
		return at_cli_usage("run", "missing '--' before the command");
	if (dd + 1 >= argc)
		return at_cli_usage("run", "no command after '--'");
	if (optind + 1 < dd)
		return at_cli_usage("run", "too many arguments before '--'");
	if (a->net && at_net_run_active(&a->netrun))
		return at_cli_usage("run", "--allow-host and --forward keep the sandbox's own "
				    "network: they cannot go with --net");
	if (a->tty == AT_TTY_FORCE && a->json)
		return at_cli_usage("run", "-t gives the command a terminal: it cannot go with "
				    "--json, which captures the output");
	if (a->netrun.deny_private && a->netrun.rules.n == 0)
		return at_cli_usage("run", "--deny-private applies to --allow-host: none given");
	a->name = optind < dd ? argv[optind] : NULL;
	a->cmd = argv + dd + 1;
	return -1;
}

/* The task, and the real paths (no symlinks) of everything the sandbox binds. */
struct run_paths {
	struct at_paths paths;    /* as agenttask knows them, for the audit log */
	char task[AT_NAME_MAX + 1];
	struct at_sandbox_target target;
	int64_t resolve_us;       /* --verbose: the repository opened, all of the above */
	struct at_run_lock lock;  /* held for the whole run: discard, accept, gc stop it first */
};

static int resolve(struct at_cli *cli, const char *name, struct run_paths *rp,
		   struct at_error *err)
{
	struct at_repo *repo = NULL;
	struct at_task t;
	int rc;

	rc = at_cli_open(cli, &repo, err);
	if (rc == 0)
		rc = at_cli_task(cli, repo, name, &t, err);
	/* A remover may have held the run lock meanwhile: look the task up again. */
	if (rc == 0)
		rc = at_runs_enter(at_repo_paths(repo), t.name, &rp->lock, err);
	if (rc == 0)
		rc = at_task_resolve(repo, t.name, ".", &t, err);
	if (rc == 0)
		rc = at_cli_sandbox_target(repo, &t, &rp->target, err);
	if (rc == 0) {
		rp->paths = *at_repo_paths(repo);
		memcpy(rp->task, t.name, sizeof(rp->task));
	}
	at_repo_free(repo);
	return rc;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void iso_time(char *buf, size_t size, int64_t ms)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;
	char base[32];

	gmtime_r(&s, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03dZ", base, (int)(ms % 1000));
}

/* Each limit: its value, how it was enforced, whether a default, and what that weakens. */
static at_json *limits_json(const struct at_sandbox_opts *o, const struct at_sandbox_result *res)
{
	at_json *obj = at_json_object();
	int i, bad = 0;

	for (i = 0; obj && i < AT_LIMIT_COUNT; i++) {
		enum at_sandbox_limit l = (enum at_sandbox_limit)i;
		const char *note = at_sandbox_mech_note(l, res->mech[i]);
		at_json *j;

		if (!o->limits[i])
			continue;
		j = at_json_object();
		bad |= at_json_add_number(j, "value", (double)o->limits[i]);
		bad |= at_json_add_string(j, "mechanism", at_sandbox_mech_name(res->mech[i]));
		bad |= at_json_add_bool(j, "default", (o->default_limits >> i) & 1);
		if (note)
			bad |= at_json_add_string(j, "note", note);
		bad |= at_json_add(obj, at_sandbox_limit_name(l), j);
	}
	if (obj && o->timeout_ms)
		bad |= at_json_add_number(obj, "timeout_ms", (double)o->timeout_ms);
	if (bad) {
		at_json_free(obj);
		return NULL;
	}
	return obj;
}

/* "reason": why the run was stopped, or null. */
static int add_reason(at_json *obj, const struct at_sandbox_result *res)
{
	const char *why = at_sandbox_stop_name(res->stop);

	return why ? at_json_add_string(obj, "reason", why) : at_json_add_null(obj, "reason");
}

static at_json *strings_json(char *const *v, size_t n)
{
	at_json *arr = at_json_array();
	size_t i;

	for (i = 0; arr && (n ? i < n : v[i] != NULL); i++) {
		if (at_json_append(arr, at_json_string(v[i])) < 0) {
			at_json_free(arr);
			return NULL;
		}
	}
	return arr;
}

static void audit(const struct run_paths *rp, const struct run_args *a,
		  const struct at_sandbox_opts *o, const struct at_sandbox_result *res, int exit_code,
		  const struct at_error *rerr)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *e = at_json_object(), *binds = at_json_array();
	char start[48];
	size_t i;
	int bad = 0;

	iso_time(start, sizeof(start), res->start_ms);
	for (i = 0; binds && i < a->nbinds; i++) {
		at_json *b = at_json_object();
		bad |= at_json_add_string(b, "path", a->binds[i].path);
		bad |= at_json_add_bool(b, "writable", a->binds[i].writable);
		bad |= at_json_append(binds, b);
	}
	bad |= at_json_add_string(e, "event", "run");
	bad |= at_json_add_string(e, "time", start);
	bad |= at_json_add_string(e, "task", rp->task);
	bad |= at_json_add(e, "argv", strings_json(a->cmd, 0));
	bad |= at_json_add_string(e, "start", start);
	bad |= at_json_add_number(e, "duration_ms", (double)res->duration_ms);
	bad |= at_json_add_number(e, "exit_code", exit_code);
	bad |= at_json_add_bool(e, "timed_out", res->timed_out);
	bad |= at_json_add_number(e, "signal", res->term_signal);
	bad |= at_json_add_number(e, "max_rss_kb", (double)res->max_rss_kb);
	bad |= at_json_add_number(e, "user_cpu_ms", (double)res->user_cpu_ms);
	bad |= at_json_add_number(e, "sys_cpu_ms", (double)res->sys_cpu_ms);
	bad |= at_json_add_bool(e, "net", a->net);
	if (at_net_run_active(&a->netrun))
		bad |= at_json_add(e, "network", at_net_run_json(&a->netrun));
	bad |= at_json_add(e, "binds", binds);
	bad |= at_json_add(e, "limits", limits_json(o, res));
	bad |= add_reason(e, res);
	if (rerr && rerr->msg[0])
		bad |= at_json_add_string(e, "error", rerr->msg);
	else if (res->exec_failed)
		bad |= at_json_add_string(e, "error", res->exec_error);
	if (bad)
		at_error_set(&err, AT_ESYS, "out of memory");
	else
		at_audit_append(&rp->paths, rp->task, e, &err);
	if (at_error_isset(&err))
		at_esc_printf(stderr, "agenttask: warning: the run was not logged: %s\n", err.msg);
	at_json_free(e);
}

static void print_verbose(const struct run_args *a, const struct at_sandbox_opts *o,
			  const struct run_paths *rp, const struct at_sandbox_result *res)
{
	int i;

	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		enum at_sandbox_limit l = (enum at_sandbox_limit)i;
		const char *note = at_sandbox_mech_note(l, res->mech[i]);

		if (!o->limits[i])
			continue;
		fprintf(stderr, "agenttask: limit %s=%llu%s enforced by %s%s%s%s\n",
			at_sandbox_limit_name(l), (unsigned long long)o->limits[i],
			(o->default_limits >> i) & 1 ? " (default)" : "",
			at_sandbox_mech_name(res->mech[i]), note ? " (" : "", note ? note : "",
			note ? ")" : "");
	}
	if (res->limits_note[0])
		fprintf(stderr, "agenttask: no cgroup for the limits: %s\n", res->limits_note);
	if (a->timeout_ms)
		fprintf(stderr, "agenttask: timeout %.3fs enforced by the supervisor\n",
			(double)a->timeout_ms / 1000);
	fprintf(stderr, "agenttask: task resolved in %.3f ms (repository, task, config)\n",
		(double)rp->resolve_us / 1000);
	if (res->prepare_us >= 0)
		fprintf(stderr, "agenttask: sandbox prepared in %.3f ms (mounts, seccomp)\n",
			(double)res->prepare_us / 1000);
	for (i = 0; i < AT_STEP_COUNT; i++) {
		if (res->step_us[i] >= 0)
			fprintf(stderr, "agenttask: step %-13s %8.3f ms after clone\n",
				at_sandbox_step_name((enum at_sandbox_step)i),
				(double)res->step_us[i] / 1000);
	}
	at_net_run_print(&a->netrun, stderr);
	fprintf(stderr, "agenttask: ran %lld ms, exit %d, max rss %lld KiB, cpu %lld+%lld ms\n",
		(long long)res->duration_ms, res->exit_code, (long long)res->max_rss_kb,
		(long long)res->user_cpu_ms, (long long)res->sys_cpu_ms);
}

static int print_json(const struct at_sandbox_opts *opts, const struct at_sandbox_result *res,
		      int exit_code, const struct at_error *rerr)
{
	at_json *o = at_json_object();
	int bad = 0;

	bad |= at_json_add_number(o, "exit_code", exit_code);
	bad |= at_json_add_bool(o, "timed_out", res->timed_out);
	bad |= at_json_add_number(o, "duration_ms", (double)res->duration_ms);
	bad |= at_json_add_number(o, "signal", res->term_signal);
	bad |= at_json_add_string(o, "stdout", res->out ? res->out : "");
	bad |= at_json_add_string(o, "stderr", res->err ? res->err : "");
	bad |= at_json_add_bool(o, "stdout_truncated", res->out_truncated);
	bad |= at_json_add_bool(o, "stderr_truncated", res->err_truncated);
	bad |= at_json_add(o, "limits", limits_json(opts, res));
	bad |= add_reason(o, res);
	if (res->oom_kills >= 0)
		bad |= at_json_add_number(o, "oom_kills", (double)res->oom_kills);
	if (res->limits_note[0])
		bad |= at_json_add_string(o, "limits_note", res->limits_note);
	if (rerr && rerr->msg[0])
		bad |= at_json_add_string(o, "error", rerr->msg);
	else if (res->exec_failed)
		bad |= at_json_add_string(o, "error", res->exec_error);
	if (bad) {
		at_json_free(o);
		fputs("agenttask: out of memory\n", stderr);
		return AT_EXIT_FAIL;
	}
	at_cli_print_json(o);
	return exit_code;
}

/* One line on why the run was stopped, when a limit or the timeout stopped it. */
static void print_stop(const struct at_sandbox_opts *o, const struct at_sandbox_result *res)
{
	const uint64_t *l = o->limits;

	switch (res->stop) {
	case AT_STOP_TIMEOUT:
		fprintf(stderr, "agenttask: timed out after %.3fs: everything in the sandbox was killed\n",
			(double)o->timeout_ms / 1000);
		break;
	case AT_STOP_OOM:
		fprintf(stderr, "agenttask: out of memory: the run reached its memory limit (%llu MiB) "
			"and the kernel killed a process (exit 137)\n",
			(unsigned long long)(l[AT_LIMIT_MEMORY] >> 20));
		break;
	case AT_STOP_PIDS:
		fprintf(stderr, "agenttask: the run reached its pids limit (%llu): forks failed\n",
			(unsigned long long)l[AT_LIMIT_PIDS]);
		break;
	case AT_STOP_CPU:
		fprintf(stderr, "agenttask: a process used up its CPU time (--cpu %llu) and was killed\n",
			(unsigned long long)l[AT_LIMIT_CPU]);
		break;
	case AT_STOP_FSIZE:
		fprintf(stderr, "agenttask: a file reached the file-size limit (%llu bytes): the "
			"writer was killed\n", (unsigned long long)l[AT_LIMIT_FSIZE]);
		break;
	default:
		break;
	}
}

/* The proxy's variables first: the user's --env replaces them. */
static char **env_sets(const struct run_args *a, size_t *n)
{
	char *const *net = at_net_run_active(&a->netrun) ? at_net_run_env() : NULL;
	size_t nnet = 0;
	char **v;

	while (net && net[nnet])
		nnet++;
	v = calloc(nnet + a->nset + 1, sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, net ? net : v, nnet * sizeof(*v));
	if (a->nset)
		memcpy(v + nnet, a->set, a->nset * sizeof(*v));
	*n = nnet + a->nset;
	return v;
}

static void note_init(int init_pid, void *lock)
{
	at_runs_note_init(lock, init_pid);
}

static int run(struct run_args *a, struct run_paths *rp)
{
	struct at_sandbox_opts o = AT_SANDBOX_OPTS_INIT;
	struct at_sandbox_result res;
	struct at_error err = AT_ERROR_INIT;
	AT_AUTOFREE char **sets = NULL;
	char **env = NULL;
	size_t i, nsets = 0;
	int rc, code;

	at_cli_sandbox_opts(&rp->target, &o);
	o.argv = a->cmd;
	o.binds = a->binds;
	o.nbinds = a->nbinds;
	o.net = a->net;
	memcpy(o.limits, a->limits, sizeof(o.limits));
	if (!a->no_limits)
		at_sandbox_defaults(o.limits, &o.default_limits);
	o.timeout_ms = a->timeout_ms;
	o.capture = a->json;
	o.tty = a->tty;
	o.started = note_init;
	o.started_arg = &rp->lock;
	for (i = 0; i < a->nbinds; i++) {
		if (at_sandbox_check_bind(&o, a->binds[i].path, a->binds[i].writable, &err) < 0)
			return at_cli_usage("run", "%s", err.msg);
	}
	if (!(sets = env_sets(a, &nsets)))
		return at_cli_fail(&(struct at_error){ AT_ESYS, ENOMEM, "out of memory" });
	if (at_sandbox_env(environ, a->pass, a->npass, sets, nsets, &env, &err) < 0)
		return at_cli_usage("run", "%s", err.msg);
	o.envp = env;
	at_net_run_prepare(&a->netrun, &o);

	fflush(NULL);
	rc = at_sandbox_run(&o, &res, &err);
	at_net_run_stop(&a->netrun);
	code = rc < 0 ? at_exit_code(rc) : res.exit_code;
	if (rc < 0)
		at_cli_fail(&err);
	else if (res.exec_failed)
		at_esc_printf(stderr, "agenttask: %s\n", res.exec_error);   /* names argv[0] */
	else
		print_stop(&o, &res);
	if (a->verbose)
		print_verbose(a, &o, rp, &res);
	audit(rp, a, &o, &res, code, rc < 0 ? &err : NULL);
	if (a->json)
		code = print_json(&o, &res, code, rc < 0 ? &err : NULL);
	at_sandbox_result_release(&res);
	at_sandbox_env_free(env);
	return code;
}

int cmd_run(struct at_cli *cli, int argc, char **argv)
{
	struct run_args a;
	struct run_paths rp;
	struct at_error err = AT_ERROR_INIT;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&rp, 0, sizeof(rp));
	at_net_run_init(&a.netrun);
	rp.lock = (struct at_run_lock)AT_RUN_LOCK_INIT;
	rc = parse_args(argc, argv, &a);
	if (rc < 0) {
		int64_t t0 = now_us();
		int resolved = resolve(cli, a.name, &rp, &err);

		rp.resolve_us = now_us() - t0;
		rc = resolved < 0 ? at_cli_fail(&err) : run(&a, &rp);
	}
	at_runs_leave(&rp.lock);
	at_cli_sandbox_target_release(&rp.target);
	run_args_release(&a);
	return rc;
}
