/*
 * run_args.c - parsing the options of `agenttask run`.
 */
#include "cmd/run_args.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "core/array.h"
#include "core/esc.h"
#include "core/parse.h"

/* --output-max at most: three buffers of it are held in memory. */
#define AT_RUN_OUTPUT_MAX_LIMIT ((uint64_t)1 << 30)

enum {
	OPT_RO = 256, OPT_RW, OPT_NET, OPT_ENV, OPT_PASS_ENV, OPT_TIMEOUT, OPT_MEMORY, OPT_PIDS,
	OPT_CPU, OPT_FSIZE, OPT_JSON, OPT_CPUS, OPT_NO_LIMITS, OPT_ALLOW_HOST, OPT_FORWARD,
	OPT_DENY_PRIVATE, OPT_TMP_SIZE, OPT_SHM_SIZE, OPT_HOME_SIZE, OPT_FRESH_HOME, OPT_CACHE,
	OPT_PROFILE, OPT_NO_CONFIG, OPT_CWD, OPT_OUTPUT_MAX, OPT_ALLOW_PRIVATE, OPT_SECRET,
};

static int push(struct at_strlist *l, const char *s, struct at_error *err)
{
	return at_strlist_push(l, s) < 0 ? at_error_set(err, AT_ESYS, "out of memory") : 0;
}

static int add_bind(struct run_args *a, const char *path, bool writable, struct at_error *err)
{
	if (AT_ARRAY_GROW(a->binds, a->cap, a->o.nbinds + 1) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	a->binds[a->o.nbinds].path = path;
	a->binds[a->o.nbinds++].writable = writable;
	return 0;
}

static int output_max(struct run_args *a, const char *arg, struct at_error *err)
{
	uint64_t v;
	int rc = at_parse_size(arg, &v, err);

	if (rc == 0 && (v == 0 || v > AT_RUN_OUTPUT_MAX_LIMIT))
		rc = at_error_set(err, AT_EUSAGE, "--output-max '%s' is not between 1 and 1G", arg);
	if (rc == 0)
		a->o.capture_max = (size_t)v;
	return rc;
}

static int parse_option(struct run_args *a, int c, char *arg, struct at_error *err)
{
	uint64_t *lim = a->o.limits.value;

	switch (c) {
	case OPT_RO:
	case OPT_RW: return add_bind(a, arg, c == OPT_RW, err);
	case OPT_NET: a->o.net = true; return 0;
	case OPT_ENV: return push(&a->set, arg, err);
	case OPT_PASS_ENV: return push(&a->pass, arg, err);
	case OPT_SECRET: return push(&a->secrets, arg, err);
	case OPT_TIMEOUT: return at_parse_seconds(arg, &a->o.timeout_ms, err);
	case OPT_MEMORY: return at_parse_size(arg, &lim[AT_LIMIT_MEMORY], err);
	case OPT_PIDS: return at_parse_count(arg, 4194304, &lim[AT_LIMIT_PIDS], err);
	case OPT_CPU: return at_parse_count(arg, 100000000, &lim[AT_LIMIT_CPU], err);
	case OPT_FSIZE: return at_parse_size(arg, &lim[AT_LIMIT_FSIZE], err);
	case OPT_CPUS: return at_parse_cpus(arg, &lim[AT_LIMIT_CPUS], err);
	case OPT_NO_LIMITS: a->o.no_limits = true; return 0;
	case OPT_TMP_SIZE: return at_parse_size(arg, &a->o.tmpfs_size[AT_TMPFS_TMP], err);
	case OPT_SHM_SIZE: return at_parse_size(arg, &a->o.tmpfs_size[AT_TMPFS_SHM], err);
	case OPT_HOME_SIZE: return at_parse_size(arg, &a->o.tmpfs_size[AT_TMPFS_HOME], err);
	case OPT_FRESH_HOME: a->o.fresh_home = true; return 0;
	case OPT_CACHE: return push(&a->caches, arg, err);
	case OPT_PROFILE: a->o.profile = arg; return 0;
	case OPT_NO_CONFIG: a->o.no_config = true; return 0;
	case OPT_JSON: a->json = a->o.capture = true; return 0;
	case OPT_ALLOW_HOST: return at_app_net_allow(a->net, arg, err);
	case OPT_FORWARD: return at_app_net_forward(a->net, arg, err);
	case OPT_DENY_PRIVATE: at_app_net_deny_private(a->net); return 0;
	case OPT_ALLOW_PRIVATE: at_app_net_allow_private(a->net); return 0;
	case OPT_CWD: a->o.cwd = arg; return 0;
	case OPT_OUTPUT_MAX: return output_max(a, arg, err);
	case 'v': a->verbose = true; return 0;
	case 't': a->o.tty = AT_TTY_FORCE; return 0;
	case 'T': a->o.tty = AT_TTY_NEVER; return 0;
	}
	return at_error_set(err, AT_EUSAGE, "invalid option");
}

/* Options come before "--"; the command after it. Returns -1 to go on, else an exit status. */
int at_cli_run_args(int argc, char **argv, struct run_args *a)
{
	static const struct option longopts[] = {
		{ "ro", required_argument, NULL, OPT_RO }, { "rw", required_argument, NULL, OPT_RW },
		{ "net", no_argument, NULL, OPT_NET }, { "env", required_argument, NULL, OPT_ENV },
		{ "pass-env", required_argument, NULL, OPT_PASS_ENV },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "pids", required_argument, NULL, OPT_PIDS }, { "cpu", required_argument, NULL, OPT_CPU },
		{ "file-size", required_argument, NULL, OPT_FSIZE },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "no-limits", no_argument, NULL, OPT_NO_LIMITS },
		{ "tmp-size", required_argument, NULL, OPT_TMP_SIZE },
		{ "shm-size", required_argument, NULL, OPT_SHM_SIZE },
		{ "home-size", required_argument, NULL, OPT_HOME_SIZE },
		{ "fresh-home", no_argument, NULL, OPT_FRESH_HOME },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
		{ "forward", required_argument, NULL, OPT_FORWARD },
		{ "deny-private", no_argument, NULL, OPT_DENY_PRIVATE },
		{ "allow-private", no_argument, NULL, OPT_ALLOW_PRIVATE },
		{ "secret", required_argument, NULL, OPT_SECRET },
		{ "cwd", required_argument, NULL, OPT_CWD },
		{ "output-max", required_argument, NULL, OPT_OUTPUT_MAX },
		{ "tty", no_argument, NULL, 't' }, { "no-tty", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	int dd, c;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	while ((c = at_cli_getopt(dd, argv, "hvtT", longopts)) != -1) {
		if (c == 'h')
			return AT_EXIT_HELP;
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
	a->o.name = optind < dd ? argv[optind] : NULL;
	a->o.argv = argv + dd + 1;
	return -1;
}
