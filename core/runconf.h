/*
 * runconf.h - run configuration: what each `agenttask run` of a repository
 * needs, said once in a file instead of in flags on every run.
 *
 *   {"run": {...}, "profiles": {"NAME": {...}}}
 *
 * `run` applies to every run, a profile (`run --profile NAME`) on top of it;
 * each holds the same keys, all optional:
 *   ro           paths bound read-only at their own place   ["~/.cargo"]
 *   env          names and values set inside                {"CARGO_HOME": "~/.cargo"}
 *   path         directories put before PATH inside          ["~/.cargo/bin"]
 *   cache        host caches shown warm (run --cache)        ["~/.cargo/registry"]
 *   allow_hosts  hosts reached through the proxy (--allow-host) ["crates.io"]
 *   forward      host loopback ports seen inside (--forward)  ["5432", "8080:80"]
 *   publish      sandbox ports reached from the host (--publish)  ["3000", "8080:80"]
 *   notify       tell the person when the run ends or waits (--notify)  true
 *   deny_private the proxy refuses private addresses even if allowed (--deny-private) true
 *   allow_private the proxy may dial private addresses (--allow-private): the
 *                user's file only; in a repository's it is an error (app/runconf.c)
 *   limits       {"memory": "2G", "pids": 4096, "cpus": 2, "cpu": 600, "file-size": "1G"}
 *   secrets      secrets used by the run, by name ["ANTHROPIC_API_KEY"]: each defined
 *                in the user's file (below)
 *
 * Beside "run" and "profiles", at the top of the file:
 *   secrets      the user's file only: {"NAME": {"hosts": ["api.anthropic.com"],
 *                "from": "env:NAME" | "file:PATH" | "command:ARGV...",
 *                "header": "x-api-key" | "bearer" | "basic" | another header}}:
 *                the proxy puts the value into requests to those hosts; inside,
 *                the variable NAME holds a placeholder (app/secrets.c)
 *   setup        what `new` runs in the task's sandbox, in order: each an argv
 *                (offline) or {"run": argv, "allow_hosts": [...], "timeout": SEC}
 *                [["npm", "ci"]]; a repository's hosts must be among yours
 *                (run.allow_hosts or your setup's)
 *   setup_timeout  seconds each setup command may take (default 600)
 *   notify_command  the user's file only: ["notify-send", "agenttask"]: run --notify
 *                runs it with the task, the state and the exit status added
 *   requests     {"HOST": {"methods": ["GET", "HEAD"], "paths": ["/prefix/"]}}: what
 *                requests to HOST may be (net/term.h); either file (they only narrow)
 * A path (and an env value) that starts with "~/" is under the caller's home.
 * Paths must be absolute then. Anything else, an unknown key above all, is
 * one AT_EUSAGE line naming the file and the key ("'F': unknown key
 * 'run.limts'"). The text is untrusted (a repository's file): bounded, each
 * value checked here where it enters.
 */
#ifndef AT_CORE_RUNCONF_H
#define AT_CORE_RUNCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/run.h"
#include "core/strlist.h"

#define AT_RUNCONF_MAX_SIZE ((size_t)64 << 10)
#define AT_RUNCONF_MAX_ITEMS 256
#define AT_RUNCONF_REPO_PATH ".agenttask/run.json"

struct at_runconf_set {
	struct at_strlist ro, env, path, cache, allow_hosts;  /* env: "NAME=value" */
	struct at_strlist secrets;                            /* names used */
	struct at_strlist forward;                            /* "PORT[:INNER]", syntax checked */
	struct at_strlist publish;                            /* "[HOSTPORT:]PORT", syntax checked */
	bool notify;                                          /* run --notify */
	bool deny_private;
	bool allow_private;                                   /* the user's file only */
	uint64_t limits[AT_LIMIT_COUNT];                      /* 0: not said */
};

struct at_runconf_profile {
	char *name;
	struct at_runconf_set set;
};

#define AT_RUNCONF_SECRETS_MAX 32

/* A secret's definition: the value is read where `from` says, when a run uses it. */
struct at_runconf_secret {
	char *name;               /* an environment variable's name */
	struct at_strlist hosts;  /* the hosts it may go to */
	char *from;               /* "env:NAME", "file:PATH" (absolute or ~/), "command:ARGV..." */
	char *header;             /* NULL (Authorization or x-api-key), "bearer", "basic", or a
				     header's name, lower case */
};

/* Rules for requests to one host: a method among methods, a path under one of paths. */
struct at_runconf_request {
	char *host;
	struct at_strlist methods, paths;  /* empty: any */
};

#define AT_RUNCONF_SETUP_MAX 32
#define AT_RUNCONF_SETUP_TIMEOUT_MS ((uint64_t)600 * 1000)

/* One command of setup: argv, the hosts it reaches (none: offline), its timeout (0: the file's). */
struct at_runconf_setup {
	struct at_strlist argv, allow_hosts;
	uint64_t timeout_ms;
};

struct at_runconf {
	struct at_runconf_set run;
	struct at_runconf_setup *setup;
	size_t nsetup;
	uint64_t setup_timeout_ms;          /* 0: not said */
	struct at_runconf_profile *profiles;
	size_t nprofiles;
	struct at_runconf_secret *secrets;
	size_t nsecrets;
	struct at_runconf_request *requests;
	size_t nrequests;
	struct at_strlist notify_command;   /* argv; empty: none */
};

void at_runconf_secret_release(struct at_runconf_secret *s);
void at_runconf_setup_release(struct at_runconf_setup *s);
void at_runconf_request_release(struct at_runconf_request *r);

/* Parse text (what: the file, for messages); home: the caller's, for "~/", or NULL. */
int at_runconf_parse(struct at_runconf *out, const char *text, const char *what,
		     const char *home, struct at_error *err);
void at_runconf_release(struct at_runconf *c);

/* The profile named name, or NULL. */
const struct at_runconf_set *at_runconf_profile(const struct at_runconf *c, const char *name);

#endif
