/*
 * internal.h - what the files of app/ share; never included by a front end.
 */
#ifndef AT_APP_INTERNAL_H
#define AT_APP_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>

#include "app/app.h"
#include "core/change.h"
#include "core/checkpoint.h"
#include "core/json.h"
#include "core/ports.h"
#include "core/run.h"
#include "core/runconf.h"
#include "core/vault.h"
#include "git/repo.h"
#include "git/snapshot.h"
#include "app/layer.h"
#include "app/net.h"
#include "net/proxy.h"
#include "net/rules.h"
#include "net/term.h"
#include "sandbox/sandbox.h"

/* The repository app->dir is in. */
int at_app_open(const struct at_app *app, struct at_repo **out, struct at_error *err);

/* Task name, or (NULL) the one whose worktree holds app->dir; ready ones only. */
int at_app_resolve(const struct at_app *app, struct at_repo *r, const char *name,
		   struct at_task *out, struct at_error *err);

/*
 * A pathspec as typed in directory dir (`diff -- PATH...`), as git reads
 * one: each path relative to dir when that is inside the task's worktree
 * task_top (or the repository's repo_top; either may be NULL), ":/PATH" from
 * the top, an absolute path inside the top as the rest of it; into out,
 * relative to the top. A path naming the top itself leaves out empty (no
 * limit). AT_EUSAGE for a path outside.
 */
int at_app_pathspec(const char *dir, const char *task_top, const char *repo_top,
		    char *const *paths, size_t npaths, struct at_strlist *out,
		    struct at_error *err);

/*
 * As at_app_resolve, for a use case that reads the task's worktree (gate,
 * accept): a worktree deleted by hand is refused, saying what to do about
 * it (at_task_worktree_gone).
 */
int at_app_resolve_present(const struct at_app *app, struct at_repo *r, const char *name,
			   struct at_task *out, struct at_error *err);

/* A mutating use case's hold on the repository: open, with its lock taken. */
/*
 * The rest of a layered task made full once its full checkout is at its
 * path (app/fullform.c): git's lock of the worktree and the layer removed,
 * the record flipped. Under the repository lock.
 */
int at_app_fullform_finish(struct at_repo *r, const struct at_task *t, struct at_error *err);

/*
 * What writes a task's files on the host (rewind, drop, fork) makes a
 * layered task full, as `path` does (its files are then a real directory):
 * under the caller's repository lock, the task's runs stopped (its
 * at_runs_stop guard held), once the caller has checked what it was asked,
 * so that a command refused leaves a layered task layered. *t made full; a
 * full task is left as it is.
 */
int at_app_full_locked(struct at_repo *r, struct at_task *t, struct at_error *err);

/* A directory of agenttask's state (0700) made unless there; one that is not a directory: refused. */
int at_app_make_dir(const char *path, struct at_error *err);

struct at_app_locked {
	struct at_repo *r;
	int lock;
};

/*
 * Open app's repository and take its lock; with task non-NULL, then look
 * name up (NULL: by app->dir) under the lock. Undo with at_app_unlock, on
 * success or not.
 */
int at_app_lock(const struct at_app *app, struct at_app_locked *l, const char *name,
		struct at_task *task, struct at_error *err);
void at_app_unlock(struct at_app_locked *l);

/*
 * An audit entry that could not be written (rc < 0) is a warning of the
 * result: the command it records has happened. Out of memory: dropped.
 */
void at_app_audited(struct at_strlist *warnings, const char *task, int rc,
		    const struct at_error *aerr);

/*
 * A task's worktree and full state, worked out on first use and shared by
 * whoever needs them next (accept's --tree check and its gate): one open,
 * one scan. A task whose worktree is missing has the state of its branch.
 */
struct at_app_view {
	struct at_repo *r;
	const struct at_task *task;
	struct at_worktree *w;        /* NULL until opened, or when the worktree is missing */
	struct at_task_state st;
	bool have_state;
};

void at_app_view_init(struct at_app_view *v, struct at_repo *r, const struct at_task *t);
int at_app_view_state(struct at_app_view *v, const struct at_task_state **out,
		      struct at_error *err);
void at_app_view_release(struct at_app_view *v);

/*
 * Discard out->task (its record, as the caller looked it up under the
 * repository lock it holds): its runs stopped (refused, AT_EBUSY, while one
 * runs, unless force kills them), what they left imported, its full state
 * saved in the trash, the task removed, the discard logged. out->task is
 * set by the caller; the rest of *out is filled. For discard and gc --max-age.
 */
struct at_app_discard_result;
int at_app_discard_task(struct at_repo *r, bool force, const struct at_progress_hook *progress,
			struct at_app_discard_result *out, struct at_error *err);

/*
 * gc --max-age (gc_age.c): every ready task with no entry in its log (and
 * not made) for max_age_days is discarded (or, dry_run, reported as it would
 * be); one whose command runs is left alone, and said so.
 */
struct at_report;
int at_app_gc_aged(struct at_repo *r, int max_age_days, bool dry_run, struct at_report *rep,
		   struct at_error *err);

/* ---- checkpoints (checkpoint.c) ---- */

/* v's task's full state (v's, shared) recorded as its next checkpoint of that kind. */
int at_app_checkpoint_take(struct at_app_view *v, enum at_checkpoint_kind kind,
			   struct at_checkpoint *out, struct at_error *err);

/*
 * What changed from checkpoint `from` to tree to_tree (a later checkpoint's),
 * or with to_tree NULL, to v's state now; into *out (the caller's).
 */
int at_app_checkpoint_changes(struct at_app_view *v, const struct at_checkpoint *from,
			      const struct at_oid *to_tree, struct at_change_set *out,
			      struct at_error *err);

/*
 * Checkpoint `text` (a number as typed) of t, from l (listed here: release
 * it on success or not). AT_EUSAGE naming it when there is no such one.
 */
int at_app_checkpoint_pick(struct at_repo *r, const struct at_task *t, const char *text,
			   struct at_checkpoint_list *l, const struct at_checkpoint **out,
			   struct at_error *err);

/* ---- a rewind a kill left unfinished (rewind.c) ---- */

/* Is a rewind of t under way, or left by a kill? (Its record is there.) */
bool at_app_rewind_pending(struct at_repo *r, const struct at_task *t);

/*
 * Under the lock, with no run of t: complete the rewind its record names
 * (*done), or drop a record that was never written whole (nothing begun).
 */
int at_app_rewind_finish(struct at_repo *r, const struct at_task *t, bool *done,
			 struct at_error *err);

/* ---- the gate's engine, for gate and accept (gate.c) ---- */

struct at_gate_report;

/*
 * The gate of the task of view v: the policy first, then the task's state
 * (v's, shared with the caller), judged by it and by host_files.
 */
int at_app_gate_task(struct at_repo *r, struct at_app_view *v, const char *policy_file,
		     char *const *environ, const struct at_progress_hook *progress,
		     struct at_gate_report **out, struct at_error *err);

/* ---- review comments (comment.c) ---- */

struct at_app_comments_result;

/*
 * The comments of t (open ones unless all), their lines carried to tree
 * (NULL: as made): for `comments`, run, the gate and the MCP tool.
 */
int at_app_comments_of(struct at_repo *r, const struct at_task *t, const struct at_oid *tree,
		       bool all, struct at_app_comments_result *out, struct at_error *err);

/* ---- files the host runs (hostfiles.c) ---- */

/*
 * The paths of cs that tools on the host run or obey (core/hostfiles.h),
 * sorted, appended to out: the hooks directory is the person's
 * core.hooksPath, a package.json is compared between cs's base and tree.
 */
int at_app_host_files(struct at_repo *r, const struct at_change_set *cs, struct at_strlist *out,
		      struct at_error *err);

/* ---- the secrets and request rules of a run (secrets.c) ---- */

struct at_app_runconf;

struct at_app_secrets {
	bool active;                    /* some host is terminated: the proxy needs term */
	struct at_net_term term;        /* secrets, terminated hosts, the task's CA */
	struct at_vault vault;          /* the values */
	struct at_strlist env;          /* NAME=placeholder, the CA variables, git's helper */
	char *bundle;                   /* the sandbox's CA bundle (system's + the task's CA) */
	size_t bundle_len;
};

/*
 * The secrets the run uses (flags: --secret specs; conf: the run
 * configuration; n: the run's allowlist, complete), loaded, and the hosts
 * to terminate. AT_EUSAGE naming the secret, its source or its host when
 * one cannot be used: nothing runs then. Release s on success or not.
 */
int at_app_secrets_prepare(const struct at_app *app, struct at_repo *r, const struct at_task *t,
			   const struct at_app_runconf *conf, char *const *flags, size_t nflags,
			   const struct at_app_net *n, struct at_app_secrets *s,
			   struct at_error *err);
void at_app_secrets_release(struct at_app_secrets *s);

/*
 * Whatever way a value came into envp (TERM, LANG, LC_* and TZ pass by
 * default; --env; the run configuration's env), the sandbox's environment
 * must not hold a secret's value: AT_EUSAGE naming the variable.
 */
int at_app_secrets_check_env(const struct at_app_secrets *s, char *const *envp,
			     struct at_error *err);

/*
 * AT_EUSAGE naming it when a variable --pass-env would pass (pass, npass)
 * is a secret's, or holds a value of s in caller's environment, however it
 * is named (the variable a config.json "from" reads, a copy): its
 * placeholder is inside already, its value must never be.
 */
int at_app_secrets_check_pass(const struct at_app *app, const struct at_app_secrets *s,
			      char *const *pass, size_t npass, struct at_error *err);

/* ---- the network allowlist of a run (net.c; the rest is app/net.h) ---- */

struct at_app_net_forward {
	uint16_t host_port;       /* the host's 127.0.0.1:host_port */
	uint16_t inner_port;      /* the sandbox's loopback port */
	char text[16];            /* as given, for the records */
};

struct at_app_net {
	struct at_net_rules rules;
	struct at_app_net_forward forwards[AT_APP_NET_FORWARDS_MAX];
	size_t nforwards;
	bool deny_private;
	bool allow_private;       /* the person's opt-in; deny_private still wins */

	/* during a run */
	struct at_sandbox_listen listen[1 + 2 * AT_APP_NET_FORWARDS_MAX];
	size_t nlisten;
	struct at_net_proxy *proxy;
	int64_t start_us, stop_us;  /* the proxy's start and stop, for --verbose */

	const struct at_net_term *term;  /* hosts terminated (app/secrets.c), or NULL */
	bool terminated;          /* the last run's proxy had term: its requests are recorded */

	pthread_mutex_t lock;     /* the records, written by the proxy's threads */
	struct at_app_net_conn *conns;  /* grown as connections end: most runs make few */
	size_t nconns, capconns;
	struct at_app_net_request *requests;  /* on terminated connections */
	size_t nrequests, caprequests;
	uint64_t dropped;
};

/*
 * A forward from elsewhere than --forward (as: what names it in the
 * message, "forward of the run configuration"); AT_EUSAGE as at_app_net_forward.
 */
int at_app_net_forward_as(struct at_app_net *n, const char *spec, const char *as,
			  struct at_error *err);
/* spec (PORT[:INNER]) is forwarded already, the same way. */
bool at_app_net_has_forward(const struct at_app_net *n, const char *spec);

/* An at_app_net in place (the gate's, per check); at_app_net_new is this on the heap. */
void at_app_net_init(struct at_app_net *n);
void at_app_net_release(struct at_app_net *n);

/*
 * Point the spec at this run's listening sockets and the callback that
 * serves them (nothing when not active). n must stay where it is until
 * at_app_net_stop. Only layout.c calls this and at_app_net_stop.
 */
void at_app_net_prepare(struct at_app_net *n, struct at_sandbox_spec *s);

/* The K=V strings that send the command's tools to the proxy (NULL-terminated, static). */
char *const *at_app_net_env(void);

/* Stop the proxy, if it started: every connection ended and recorded. */
void at_app_net_stop(struct at_app_net *n);

/* ---- a run's published ports (publish.c) ---- */

struct at_app_published {
	uint16_t port, host_port;       /* the sandbox's, the host's (0: any, until bound) */
	bool automatic;                 /* no HOSTPORT was given */
	uint16_t last;                  /* automatic: the task's port of last time; 0 */
	int fd;                         /* the host's listening socket, once bound; -1 */
	char text[24];                  /* as given, for messages */
};

struct at_app_publish {
	struct at_app_published v[AT_PORTS_MAX];
	size_t n;
	struct at_sandbox_sockets *sockets;  /* made at the first connection */
	int ns[2];                      /* the sandbox's user and network namespaces until then */
	struct at_net_proxy *proxy;
	char live[PATH_MAX];            /* this run's record (core/ports.h); "" none */
};

void at_app_publish_init(struct at_app_publish *p);
/* Add "[HOSTPORT:]PORT" (as: "--publish", for the message); AT_EUSAGE for bad or twice. */
int at_app_publish_add(struct at_app_publish *p, const char *spec, const char *as,
		       struct at_error *err);
bool at_app_publish_has(const struct at_app_publish *p, uint16_t port);
/*
 * Bind every host port on 127.0.0.1 and record them (core/ports.h): AT_EUSAGE
 * for one in use or privileged, and then nothing is left bound or recorded.
 */
int at_app_publish_bind(struct at_app_publish *p, const struct at_paths *paths, const char *task,
			struct at_error *err);
/* The relay, started by the sandbox (its on_netns) once its init is cloned. */
void at_app_publish_prepare(struct at_app_publish *p, struct at_sandbox_spec *s);
/* The relay stopped (the host ports refuse from now on), the record removed; again is a no-op. */
void at_app_publish_stop(struct at_app_publish *p);

/* ---- run --notify (notify.c) ---- */

#define AT_APP_NOTIFY_CHILDREN 16

struct at_app_notify {
	bool on;
	char task[AT_NAME_MAX + 1];
	struct at_strlist argv;         /* the user's notify_command; empty: none */
	char *const *environ;
	/* The front end's (at_app_run_opts.notify_tell); status -1 while waiting. */
	void (*tell)(const char *task, const char *state, int status, void *arg);
	void *tell_arg;
	int init_pid;
	int stop[2];
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pid_t children[AT_APP_NOTIFY_CHILDREN];
	size_t nchildren;
};

void at_app_notify_init(struct at_app_notify *n);
/* Turn it on for task: AT_EUSAGE when command (may be empty) names no executable. */
int at_app_notify_prepare(struct at_app_notify *n, const struct at_app *app, const char *task,
			  const struct at_strlist *command, struct at_error *err);
/* From the sandbox's started hook: the watcher starts (it must not block). */
void at_app_notify_started(struct at_app_notify *n, int init_pid);
/* The run is over: the watcher stopped, "exited" told, the commands waited for (bounded). */
void at_app_notify_end(struct at_app_notify *n, int exit_code);
void at_app_notify_release(struct at_app_notify *n);

/* ---- the sandbox: one point for `run` and the gate's checks (layout.c) ---- */

struct at_app_sandbox_opts {
	char *const *argv;
	char *const *envp;              /* the whole environment */
	const struct at_run_bind *binds;/* checked by at_app_check_bind already */
	size_t nbinds;
	const char *cwd;                /* absolute, in the worktree; NULL: the worktree */
	struct at_app_net *net;         /* the allowlist's proxy, started and stopped here; NULL */
	struct at_app_publish *publish; /* the published ports' relay, started and stopped here */
	const struct at_app_cache *caches; /* overlays over the binds, in this order */
	size_t ncaches;
	const char *ca_bundle;          /* the task's CA with the system's, over /etc's bundle */
	size_t ca_bundle_len;
	const char *comments;           /* the open review comments' JSON, at AT_RUN_COMMENTS */
	size_t comments_len;            /* read-only (NULL: no file, a gate's check) */
	/* How the command runs (sandbox.h), handed to the sandbox whole: its home (the
	 * task's lasting HOME, or NULL), limits, timeout, stdio, the walk of /etc begun early. */
	struct at_sandbox_proc proc;
};

#define AT_APP_SANDBOX_OPTS_INIT { .proc = AT_SANDBOX_PROC_INIT }

/*
 * The git layout of worktree `where` (a task's, or a scratch worktree's as
 * a task: git/scratch.h) as the sandbox shows it: real paths (the sandbox
 * refuses symbolic links on the way) and the sanitized config.
 */
struct at_app_layout {
	char worktree[PATH_MAX];
	char common[PATH_MAX];
	char state[PATH_MAX];
	char admin[PATH_MAX];
	char pointer[PATH_MAX + 8];
	/* Outside the state dir (core/task.h): the worktree's parent, and its
	 * parent where that is agenttask's own (.../worktrees), hidden under
	 * empty tmpfs so that other tasks' worktrees stay out of sight. */
	char siblings[2][PATH_MAX];
	char *config;                   /* the sanitized config text (owned) */
	/* The task's git view (app/gitview.c): the common dir's overlay layers; "" for none. */
	char upper[PATH_MAX];
	char work[PATH_MAX];
	/*
	 * A layered task (core/task.h): its worktree is an overlay of its
	 * base's files and its own layer (app/layer.h), whose lock this layout
	 * holds until released; pointer is then the .git placeholder in the
	 * upper, bound over by a file of the pointer's text.
	 */
	bool layered;
	struct at_app_layer layer;
};

/* A host cache shown inside as an overlay with a task-private upper (app/cache.c). */
struct at_app_cache {
	char lower[PATH_MAX];           /* the host's directory, never written */
	char upper[PATH_MAX], work[PATH_MAX]; /* the task's: <state>/caches/NAME/... */
	char spare[PATH_MAX];           /* the other work dir: an earlier run's scratch */
	char dest[PATH_MAX];            /* where it shows inside */
	/*
	 * Its layers' lock (flock of <dir>/lock), held for the run: a second
	 * run of the task at once would share the upper, which overlayfs
	 * leaves undefined. -1 and busy: another run holds it, and this one
	 * shows the host's copy read-only. at_app_cache_release drops it.
	 */
	int lock;
	bool busy;
};

struct at_app_layout;

/* Check path (absolute, normalised) as a --cache, make its layers; home: the caller's (real). */
int at_app_cache_add(struct at_repo *r, const struct at_task *t, const struct at_app_layout *l,
		     const char *path, const char *home, struct at_app_cache *out,
		     struct at_error *err);
/*
 * An overlay's layers have two work dirs (at_sandbox_overlay_pick): work
 * becomes the one to mount, spare the other. Under the layers' lock.
 */
void at_app_pick_work(char work[PATH_MAX], char spare[PATH_MAX]);

/* While the run goes on: the scratch an earlier run left in the spare work dir removed. */
void at_app_cache_aside(const struct at_app_cache *c);
/* Drop the layers' lock (the run's scratch stays, for the next run's aside). */
void at_app_cache_release(struct at_app_cache *c);

/* What the run configuration files add to a run (app/runconf.c has the precedence). */
struct at_app_runconf {
	struct at_strlist ro, env, path, cache, allow_hosts;  /* env: NAME=value */
	struct at_strlist forward;
	struct at_strlist publish;      /* both files' ("[HOSTPORT:]PORT") */
	bool notify;                    /* a file said notify: true */
	struct at_strlist notify_command;  /* the user's file's, argv; empty: none */
	struct at_runconf_setup *setup;    /* both files' setup, the user's first (owned) */
	size_t nsetup;
	uint64_t setup_timeout_ms;         /* the user's (a repository's is at most it); 0 */
	bool deny_private;              /* any file said true */
	bool allow_private;             /* the user's file said true */
	uint64_t limits[AT_LIMIT_COUNT];
	struct at_strlist secrets;      /* the secrets the sets name (used) */
	struct at_runconf_secret *defs; /* the user's file's definitions (owned) */
	size_t ndefs;
	struct at_runconf_request *requests;  /* both files' (owned) */
	size_t nrequests;
};

int at_app_runconf_load(const struct at_app *app, struct at_repo *r, const struct at_task *t,
			const char *profile, struct at_app_runconf *out, struct at_error *err);
/* The same for `new`'s setup: a repository's file judged on its setup alone. */
int at_app_runconf_load_setup(const struct at_app *app, struct at_repo *r,
			      const struct at_task *t, struct at_app_runconf *out,
			      struct at_error *err);
void at_app_runconf_release(struct at_app_runconf *c);
/* The user's definition of the secret name, or NULL. */
const struct at_runconf_secret *at_app_runconf_def(const struct at_app_runconf *c,
						   const char *name);

/* The task's lasting HOME (app/home.c), made when missing: its real path in out. */
int at_app_task_home(struct at_repo *r, const struct at_task *t, char *out, size_t size,
		     struct at_error *err);
/*
 * --home-size for the lasting HOME (app/home.c): before the run, 0, or
 * AT_EUNSAFE when the home is over cap (or cannot be measured); cap 0 (none)
 * forgets the size recorded. After a capped run, its size recorded, and a
 * warning in warnings when it is over the cap now.
 */
int at_app_home_check(struct at_repo *r, const struct at_task *t, const char *home, uint64_t cap,
		      struct at_error *err);
void at_app_home_record(struct at_repo *r, const struct at_task *t, const char *home,
			uint64_t cap, struct at_strlist *warnings);

int at_app_layout_resolve(struct at_repo *r, const struct at_task *where,
			  struct at_app_layout *out, struct at_error *err);
void at_app_layout_release(struct at_app_layout *l);

/*
 * A --ro/--rw path (opt the option messages name: "--ro", "--rw", "--cache"):
 * absolute, existing, no symbolic link on the way; never
 * anything inside the common dir but the worktree (git metadata and state,
 * even read-only: the real config, other tasks), never the .git pointer
 * writable, never a parent of the common dir writable. AT_EUSAGE otherwise.
 */
int at_app_check_bind(const struct at_app_layout *l, const char *opt, const char *path,
		      bool writable, struct at_error *err);

/*
 * Run argv in the sandbox of worktree `where`: the system layout, the
 * caller's binds, the git layout over them, the process settings. The one
 * place a run is assembled: what every run needs (a network proxy when
 * there is one) is started and stopped here.
 */
int at_app_sandbox_run(const struct at_app_layout *l, const struct at_app_sandbox_opts *o,
		       struct at_run_result *res, struct at_error *err);

#endif
