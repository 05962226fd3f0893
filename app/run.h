/*
 * run.h - running a command in a task's sandbox, and logging the run.
 *
 * Every run has default limits (sandbox/sandbox.h: at_sandbox_defaults)
 * unless the caller says no_limits; where nothing here can enforce a
 * default, the run goes on without it and the result says so (the
 * mechanism AT_MECH_UNENFORCED), while a limit asked for is refused then.
 *
 * HOME is the task's own directory (<state>/homes/NAME, core/paths.h), made
 * on its first run and kept across runs, read-write; no other task sees it
 * (the state dir is hidden in the sandbox), and it is removed with the task
 * (discard does not keep it in the trash). /tmp and /dev/shm are new on
 * every run. A --cache DIR is the host's directory under an overlay whose
 * upper is the task's (app/cache.c): read warm, never written. The gate's
 * checks never see either: a task could plant a startup
 * file there for a check to run.
 *
 * The run configuration (core/runconf.h; app/runconf.c: the files and
 * their precedence) adds binds, environment, PATH, caches, allowed hosts
 * and limits below what the options say.
 *
 * Before the command runs, once everything is checked, the task's full state
 * is kept as a checkpoint (app/checkpoint.h) whose number is the run's; a
 * state that cannot be recorded (a fifo, a file over the size limit in the
 * worktree) is a warning: the run goes on without one.
 *
 * Everything is checked before anything runs: a --ro/--rw that would expose
 * git metadata or state, a malformed --env, an allowlist with --net, a
 * forced terminal with capture, an unknown task are refused
 * (AT_EUSAGE, AT_ENOTFOUND, ...) with nothing run and nothing logged. Once
 * the sandbox is attempted the run is logged whatever happens, and the
 * result says how it ended: the command's status, or (AT_ESANDBOX) the
 * sandbox could not be set up and the command never ran.
 */
#ifndef AT_APP_RUN_H
#define AT_APP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "app/net.h"
#include "core/json.h"
#include "core/change.h"
#include "core/oid.h"
#include "core/ports.h"
#include "core/run.h"

struct at_app_run_opts {
	const char *name;                /* NULL: the task holding app->dir */
	char *const *argv;               /* NULL-terminated; argv[0] looked up in PATH */
	const struct at_run_bind *binds; /* --ro/--rw: absolute or relative to the cwd */
	size_t nbinds;
	bool net;                        /* share the host's network */
	struct at_app_net *proxy;        /* --allow-host, --forward (app/net.h): never with net;
					    its records are read after the run; NULL: none */
	char *const *ask_hosts;          /* hosts an agent asks for (the MCP run's allow_hosts):
					    each must be, exactly, one of grant_hosts or of the
					    user's config.json run.allow_hosts, or AT_EUSAGE names it
					    and nothing runs; then added to proxy (which must be set) */
	size_t nask_hosts;
	char *const *grant_hosts;        /* the person's (agenttask mcp --allow-host) */
	size_t ngrant_hosts;
	char *const *pass_env;           /* names passed from app->environ */
	size_t npass;
	char *const *set_env;            /* K=V */
	size_t nset;
	struct at_limits limits;         /* asked for (defaults 0) */
	bool no_limits;                  /* no default limits (those asked for still apply) */
	uint64_t timeout_ms;             /* 0: none */
	bool capture;                    /* keep stdout and stderr in the result */
	enum at_run_tty tty;             /* a pty for an interactive command; FORCE not with capture */
	size_t capture_max;              /* bytes kept of each stream; 0: AT_RUN_CAPTURE_MAX */
	const char *cwd;                 /* where the command starts: a directory of the worktree,
					    relative to its top (or absolute inside it); NULL: the top.
					    Checked as app/files.h checks a path: AT_EUSAGE outside it,
					    in .git, or through a symbolic link */
	int cancel_fd;                   /* -1: none; readable: everything is killed */
	struct at_progress_hook progress;
	bool fresh_home;                 /* HOME a tmpfs for this run, not the task's lasting one */
	char *const *caches;             /* --cache DIR: absolute or relative to the cwd */
	size_t ncaches;
	char *const *secrets;            /* --secret NAME or NAME:HOST[,HOST...] (app/secrets.c);
					    their hosts must be allowed; never with net */
	size_t nsecrets;
	const char *profile;             /* --profile NAME of the run configuration, or NULL */
	bool no_config;                  /* read no run configuration file */
	uint64_t tmpfs_size[AT_TMPFS_COUNT]; /* caps of /tmp, /dev/shm, a tmpfs HOME; 0: default */
	bool notify;                     /* --notify (app/notify.c) */
	bool no_config_hosts;            /* the configuration's allow_hosts, forward and publish
					    left out (a setup command's network is its own) */
	/* How the front end tells the person (with notify); status -1 while waiting; any thread. */
	void (*notify_tell)(const char *task, const char *state, int status, void *arg);
	void *notify_arg;
	char *const *publish;            /* --publish [HOSTPORT:]PORT (app/publish.c); not with net */
	size_t npublish;
	/* Told the published ports once they are bound, before the command runs; NULL: none. */
	void (*published)(const struct at_port_map *m, size_t n, void *arg);
	void *published_arg;
	bool changes;                    /* after the run, what it changed (one more scan) */
};

#define AT_APP_RUN_OPTS_INIT { .cancel_fd = -1 }

struct at_app_run_result {
	char task[AT_NAME_MAX + 1];
	bool attempted;                  /* the sandbox was tried: the run is in the log */
	int exit_code;                   /* what a front end exits with: the command's, or 125 */
	struct at_run_result run;
	struct at_limits limits;         /* as applied: those asked for and the defaults */
	struct at_strlist binds;         /* the binds as given to the sandbox (absolute) */
	int64_t resolve_us;              /* repository, task, layout: before the sandbox */
	/* The import after the run (app/gitview.c): the task's branch moved old -> new. */
	bool imported;
	char import_old[AT_OID_HEXSZ + 1], import_new[AT_OID_HEXSZ + 1];
	size_t import_objects;
	at_json *comments;               /* the person's open review comments the run was shown
					    (app/json.h's array: run --json's "comments") */
	/* The checkpoint taken before the run (app/checkpoint.h): its number, the run's; 0 when
	 * none could be taken (a warning says why). With opts.changes, what the run changed. */
	unsigned number;
	bool has_changes;
	struct at_change_set changes;
	struct at_strlist warnings;
	struct at_port_map published[AT_PORTS_MAX]; /* the ports the run published */
	size_t npublished;
};

/*
 * 0 when the command ran (whatever its status); < 0 with err set when it
 * did not: before the sandbox (usage, unknown task: attempted false) or in
 * it (AT_ESANDBOX, attempted true, exit_code 125). Release out in both cases.
 */
int at_app_run(const struct at_app *app, const struct at_app_run_opts *o,
	       struct at_app_run_result *out, struct at_error *err);
void at_app_run_result_release(struct at_app_run_result *res);

#endif
