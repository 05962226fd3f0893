/*
 * run_args.c - the options of `agenttask run`: their table (cmd/opt.h), and
 * the operands around "--".
 */
#include "cmd/run_args.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/array.h"
#include "core/parse.h"

/* --output-max at most: three buffers of it are held in memory. */
#define AT_RUN_OUTPUT_MAX_LIMIT ((uint64_t)1 << 30)

/* The run_args as a whole (the setter's field), for the options that set more than one field. */
#define RUN_CALL(NAME, ARG, SET, VAL, HELP) { NAME, 0, ARG, SET, 0, VAL, NULL, HELP }

static int set_bind(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err)
{
	struct run_args *a = field;

	if (AT_ARRAY_GROW(a->binds, a->cap, a->o.nbinds + 1) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	a->binds[a->o.nbinds].path = value;
	a->binds[a->o.nbinds++].writable = opt->val;
	return 0;
}

static int set_json(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err)
{
	struct run_args *a = field;

	(void)opt, (void)value, (void)err;
	a->json = a->o.capture = a->o.changes = true;
	return 0;
}

static int set_size(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err)
{
	(void)opt;
	return at_parse_size(value, field, err);
}

/* A count from 1 to opt->val. */
static int set_count(void *field, const struct at_cli_opt *opt, const char *value,
		     struct at_error *err)
{
	return at_parse_count(value, (uint64_t)opt->val, field, err);
}

static int set_seconds(void *field, const struct at_cli_opt *opt, const char *value,
		       struct at_error *err)
{
	(void)opt;
	return at_parse_seconds(value, field, err);
}

static int set_cpus(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err)
{
	(void)opt;
	return at_parse_cpus(value, field, err);
}

static int set_output_max(void *field, const struct at_cli_opt *opt, const char *value,
			  struct at_error *err)
{
	uint64_t v;
	int rc = at_parse_size(value, &v, err);

	(void)opt;
	if (rc == 0 && (v == 0 || v > AT_RUN_OUTPUT_MAX_LIMIT))
		rc = at_error_set(err, AT_EUSAGE, "--output-max '%s' is not between 1 and 1G", value);
	if (rc == 0)
		*(size_t *)field = (size_t)v;
	return rc;
}

static int set_tty(void *field, const struct at_cli_opt *opt, const char *value,
		   struct at_error *err)
{
	(void)value, (void)err;
	*(enum at_run_tty *)field = (enum at_run_tty)opt->val;
	return 0;
}

/* The network's options, into the struct at_app_net the field points at. */
static int set_allow_host(void *field, const struct at_cli_opt *opt, const char *value,
			  struct at_error *err)
{
	(void)opt;
	return at_app_net_allow(*(struct at_app_net **)field, value, err);
}

static int set_forward(void *field, const struct at_cli_opt *opt, const char *value,
		       struct at_error *err)
{
	(void)opt;
	return at_app_net_forward(*(struct at_app_net **)field, value, err);
}

static int set_private(void *field, const struct at_cli_opt *opt, const char *value,
		       struct at_error *err)
{
	(void)value, (void)err;
	if (opt->val)
		at_app_net_allow_private(*(struct at_app_net **)field);
	else
		at_app_net_deny_private(*(struct at_app_net **)field);
	return 0;
}

#define LIMIT(L) o.limits.value[L]
#define TMPFS(T) o.tmpfs_size[T]

const struct at_cli_opt cmd_run_opts[] = {
	RUN_CALL("ro", "PATH", set_bind, false, "also show PATH (read-only) at the same path"),
	RUN_CALL("rw", "PATH", set_bind, true,
		 "also show PATH read-write (never git metadata or state)"),
	AT_CLI_OPT_FLAG(0, "net", struct run_args, o.net,
			"share the host's network (default: loopback only)"),
	AT_CLI_OPT_CALL(0, "allow-host", "PATTERN", set_allow_host, struct run_args, net, 0,
			"reach hosts matching PATTERN through a proxy: host,\n"
			"host:port, *.domain (subdomains); ports 80 and 443 by default"),
	AT_CLI_OPT_CALL(0, "forward", "PORT[:INNER]", set_forward, struct run_args, net, 0,
			"the sandbox's loopback port INNER (default PORT)\n"
			"reaches the host's 127.0.0.1:PORT"),
	AT_CLI_OPT_CALL(0, "allow-private", NULL, set_private, struct run_args, net, true,
			"the proxy may dial private addresses (RFC 1918, 100.64/10,\n"
			"fc00::/7), refused by default whatever allowed the host"),
	AT_CLI_OPT_CALL(0, "deny-private", NULL, set_private, struct run_args, net, false,
			"refuse them even where your config.json allows them"),
	AT_CLI_OPT_LIST(0, "publish", "HOSTPORT:PORT|PORT", struct run_args, publish,
			"the host's 127.0.0.1:HOSTPORT reaches the sandbox's\n"
			"loopback port PORT while the run lasts; without HOSTPORT,\n"
			"the task's port of last time when free, else a free one\n"
			"(agenttask ports lists them)"),
	AT_CLI_OPT_FLAG(0, "notify", struct run_args, o.notify,
			"tell you when the run ends, and when it waits for input:\n"
			"the bell and a desktop notification (OSC 9/777) on your\n"
			"terminal, and your config.json's notify_command"),
	AT_CLI_OPT_LIST(0, "secret", "NAME[:HOST[,HOST...]]", struct run_args, secrets,
			"the proxy puts the value of NAME (your\n"
			"variable, or your config.json's secret) into requests to\n"
			"HOST over https; inside, NAME holds a placeholder"),
	AT_CLI_OPT_LIST(0, "env", "K=V", struct run_args, set, "set K in the command's environment"),
	AT_CLI_OPT_LIST(0, "pass-env", "K", struct run_args, pass,
			"pass K from agenttask's environment"),
	AT_CLI_OPT_CALL(0, "timeout", "SEC", set_seconds, struct run_args, o.timeout_ms, 0,
			"kill everything after SEC seconds (exit 124)"),
	AT_CLI_OPT_CALL(0, "memory", "SIZE", set_size, struct run_args, LIMIT(AT_LIMIT_MEMORY), 0,
			"memory limit of the whole run, like 512M or 2G\n"
			"(default: half of RAM)"),
	AT_CLI_OPT_CALL(0, "pids", "N", set_count, struct run_args, LIMIT(AT_LIMIT_PIDS), 4194304,
			"at most N processes and threads (default: 4096)"),
	AT_CLI_OPT_CALL(0, "cpus", "N", set_cpus, struct run_args, LIMIT(AT_LIMIT_CPUS), 0,
			"at most N CPUs' worth of time, like 2 or 0.5"),
	AT_CLI_OPT_CALL(0, "cpu", "SEC", set_count, struct run_args, LIMIT(AT_LIMIT_CPU), 100000000,
			"CPU seconds per process"),
	AT_CLI_OPT_CALL(0, "file-size", "SIZE", set_size, struct run_args, LIMIT(AT_LIMIT_FSIZE), 0,
			"largest file the command may write"),
	AT_CLI_OPT_FLAG(0, "no-limits", struct run_args, o.no_limits,
			"no default limits (those given still apply)"),
	AT_CLI_OPT_CALL(0, "tmp-size", "SIZE", set_size, struct run_args, TMPFS(AT_TMPFS_TMP), 0,
			"cap of /tmp, a tmpfs new on every run (default 512M)"),
	AT_CLI_OPT_CALL(0, "shm-size", "SIZE", set_size, struct run_args, TMPFS(AT_TMPFS_SHM), 0,
			"cap of /dev/shm (default 64M)"),
	AT_CLI_OPT_STRING(0, "profile", "NAME", struct run_args, o.profile,
			  "add the run configuration's profile NAME (see below)"),
	AT_CLI_OPT_FLAG(0, "no-config", struct run_args, o.no_config,
			"read no run configuration file"),
	AT_CLI_OPT_LIST(0, "cache", "DIR", struct run_args, caches,
			"show the host cache DIR (~/.npm, ~/.cache/pip, ...) warm:\n"
			"read-only below, the task's writes kept in the task; one\n"
			"under your home shows at the same place under HOME"),
	AT_CLI_OPT_FLAG(0, "fresh-home", struct run_args, o.fresh_home,
			"HOME an empty tmpfs for this run, not the task's own"),
	AT_CLI_OPT_CALL(0, "home-size", "SIZE", set_size, struct run_args, TMPFS(AT_TMPFS_HOME), 0,
			"cap of that tmpfs HOME (default 256M); of the task's own\n"
			"HOME (default none): it is measured after the run, and\n"
			"the next run with a cap is refused while it is over\n"
			"(each cap also at most a share of --memory)"),
	AT_CLI_OPT_STRING(0, "cwd", "DIR", struct run_args, o.cwd,
			  "start in DIR, a directory of the worktree (relative to its top)"),
	RUN_CALL("json", NULL, set_json, 0,
		 "capture output; print a JSON result (stdout, stderr and both\n"
		 "interleaved; the run's number and the files it changed; errors\n"
		 "as {\"error\": {code, message}})"),
	AT_CLI_OPT_CALL(0, "output-max", "SIZE", set_output_max, struct run_args, o.capture_max, 0,
			"with --json: keep SIZE bytes of each stream, half from its\n"
			"start and half from its end (default 1M)"),
	AT_CLI_OPT_CALL('t', "tty", NULL, set_tty, struct run_args, o.tty, AT_TTY_FORCE,
			"run on a pty even when stdin is not a terminal"),
	AT_CLI_OPT_CALL('T', "no-tty", NULL, set_tty, struct run_args, o.tty, AT_TTY_NEVER,
			"never a pty: a terminal is passed as it is"),
	AT_CLI_OPT_FLAG('v', "verbose", struct run_args, verbose,
			"say how each limit is enforced, and time each setup step"),
	AT_CLI_OPT_END,
};

/* Options come before "--"; the command after it. Returns -1 to go on, else an exit status. */
int at_cli_run_args(int argc, char **argv, struct run_args *a)
{
	int dd, rc;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	if ((rc = at_cli_parse("run", cmd_run_opts, dd, argv, a)) >= 0)
		return rc;
	if (dd >= argc)
		return at_cli_usage("run", "missing '--' before the command");
	if (dd + 1 >= argc)
		return at_cli_usage("run", "no command after '--'");
	if (optind + 1 < dd)
		return at_cli_usage("run", "too many arguments before '--'");
	a->o.name = optind < dd ? argv[optind] : NULL;
	a->o.argv = argv + dd + 1;
	return -1;
}
