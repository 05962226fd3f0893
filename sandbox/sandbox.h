/*
 * sandbox.h - run one command in a sandbox described by a spec.
 *
 * The sandbox is made natively (clone, the mount API, pivot_root, libseccomp);
 * no helper program is ever executed. It works for an ordinary user through
 * an unprivileged user namespace, and for root the same way: the command
 * always runs in a new user namespace with every capability dropped.
 *
 * The spec is mechanism, as bubblewrap's command line is: an ordered list of
 * mount operations on an empty, size-capped tmpfs root (each goes over what
 * the ones before it made) and the process's settings. What to show where
 * is the caller's business; sandbox/ knows nothing of git or tasks.
 * at_sandbox_add_system() appends the standard system layout (docs/
 * security.md has the reasons):
 *
 *   /usr /bin /sbin /lib*   read-only binds (merged-/usr symlinks stay symlinks)
 *   /etc                    an allow-list of entries, read-only; never shadow,
 *                           sudoers, ssh host keys, the system gitconfig;
 *                           passwd and group written for the run: root,
 *                           nobody, the user (identity.c)
 *   /tmp, HOME, /dev/shm    private size-capped tmpfs (within 7/8 of the
 *                           memory limit, when the spec has one)
 *   /proc                   a fresh procfs of the sandbox's own pid namespace,
 *                           its machine-global files read-only; its boot_id
 *                           random, cmdline, keys, key-users empty
 *   /dev                    null zero full random urandom tty, devpts, shm,
 *                           fd links
 *   /sys                    CPU and memory topology, read-only (etc.c), and
 *                           at /sys/fs/cgroup the run's own cgroup, read-only,
 *                           where it has one (AT_MOUNT_CGROUP)
 *
 * The root is made read-only after the last operation. Namespaces: user,
 * mount, pid, ipc, uts, cgroup, and net (loopback only) unless share_net.
 * In that new network namespace the child can also make listening sockets
 * for the caller (spec.listen), handed over before the command starts: a
 * server outside serves them (the network allowlist's proxy), none runs
 * inside.
 * The sandbox's pid 1 is a small init that runs the command in a new
 * session, forwards signals to it, reaps orphans, and kills every remaining
 * process when the command exits; it dies with the supervisor
 * (PR_SET_PDEATHSIG), and with it the whole pid namespace.
 *
 * Invariants at_sandbox_run() enforces itself, whatever the caller built
 * (AT_ESANDBOX, nothing run):
 *   - every path is absolute and normalised, and no bind's source is a
 *     symbolic link or goes through one (the child opens every path with
 *     RESOLVE_NO_SYMLINKS, so a link planted meanwhile is refused too);
 *   - no writable bind reaches a path marked protected: its source is not
 *     a protected path or below one (unless below a path excepted from the
 *     protection, the deepest rule deciding), and it holds a protected path
 *     only when a later operation puts a read-only mount (or a tmpfs)
 *     exactly on the source's child on the way to it: nothing between the
 *     source and that mount can be renamed, and below it nothing is writable.
 *
 * stdio (stdio.c, pty.c): fds 0..2 that are pipes, sockets, terminals or
 * /dev/null are passed as they are; anything else (a file, a directory, a
 * device) becomes a pipe the supervisor copies through, so the command
 * cannot reopen it. When stdin is a terminal (spec.proc.tty), the command runs
 * on a pty of the sandbox's devpts as its controlling terminal, which the
 * supervisor relays to the caller's terminal, set raw meanwhile. Every
 * terminal among fds 0..2 gets its termios back, TIOCEXCL cleared, when
 * at_sandbox_run returns, however the run ended.
 */
#ifndef AT_SANDBOX_SANDBOX_H
#define AT_SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/run.h"
#include "core/strlist.h"

enum at_mount_kind {
	AT_MOUNT_BIND,         /* src (a host path) at dest; read-write unless AT_MOUNT_RO */
	AT_MOUNT_TMPFS,        /* a new tmpfs at dest, size bytes, mode */
	AT_MOUNT_FILE,         /* a new regular file at dest (in a tmpfs) holding data */
	AT_MOUNT_BIND_DATA,    /* a file holding data bound over dest (in any mount), read-only */
	AT_MOUNT_SYMLINK,      /* a symbolic link at dest whose text is data */
	AT_MOUNT_DIR,          /* a directory at dest (and its parents) */
	AT_MOUNT_PROC,         /* a procfs of the sandbox's pid namespace at dest */
	AT_MOUNT_DEVPTS,       /* a new devpts instance at dest */
	AT_MOUNT_REMOUNT_RO,   /* make the mount at dest read-only */
	/*
	 * An overlay at dest: src (a host directory) the read-only lower
	 * layer, upper (a host directory) where every change made inside goes,
	 * work (an empty host directory on upper's file system) overlayfs's
	 * scratch space. Mounted in the sandbox's user namespace (userxattr:
	 * its metadata are user.overlay.* xattrs, whiteouts 0:0 character
	 * devices in upper), nosuid and nodev, and volatile: no sync of the
	 * upper's file system when the sandbox ends (without it, the end of
	 * every run flushed the whole host file system: milliseconds under
	 * load), so a host crash may leave upper torn, and its reader must
	 * validate what it reads. upper and work are writable
	 * sources: the protection rules apply to them as to a writable bind.
	 * overlayfs makes its scratch in work at each mount, and leaves it:
	 * at_sandbox_overlay_pick and at_sandbox_overlay_tidy. A kind the
	 * sandbox does not know is refused, never ignored.
	 */
	AT_MOUNT_OVERLAY,
	/*
	 * The run's own cgroup at dest, read-only (nosuid, nodev, noexec), so
	 * that a runtime sizing itself (a JVM, Go, `cat memory.max`) sees the
	 * run's limits: on cgroup v2 a cgroup2 mount of the sandbox's cgroup
	 * namespace, whose root is the run's cgroup; on cgroup v1 the run's
	 * cgroup of each controller it has (memory, pids, cpu) bound at
	 * dest/<controller>. Nothing at all where the run has no cgroup of its
	 * own (its limits are rlimits): the cgroup agenttask was started in
	 * holds other processes, and its limits are not the run's.
	 */
	AT_MOUNT_CGROUP,
};

enum {
	AT_MOUNT_RO = 1 << 0,        /* BIND: read-only */
	AT_MOUNT_DEV = 1 << 1,       /* BIND: a device node: devices allowed (not nodev), noexec */
	AT_MOUNT_IN_SANDBOX = 1 << 2,/* BIND: src is a path in the sandbox being built */
	AT_MOUNT_OPTIONAL = 1 << 3,  /* BIND: skip it when src does not exist */
};

struct at_sandbox_mount {
	enum at_mount_kind kind;
	unsigned int flags;
	char *src;                   /* BIND; OVERLAY: the lower directory */
	char *upper, *work;          /* OVERLAY */
	char *dest;                  /* absolute, in the sandbox */
	char *data;                  /* FILE, BIND_DATA: content (len bytes); SYMLINK: its text */
	size_t len;
	int fd;                      /* FILE, BIND_DATA: the content is read from fd instead; -1 */
	uint64_t size;               /* TMPFS: bytes */
	unsigned int mode;           /* TMPFS, DIR: permission bits */
};

/*
 * A TCP socket to listen on inside the sandbox's own network namespace, made
 * before the command starts and handed to the supervisor (spec.listen): on
 * 127.0.0.1:port, or [::1]:port. A socket marked optional that cannot be
 * made (no IPv6 in the namespace) is left out.
 */
struct at_sandbox_listen {
	uint16_t port;
	bool ipv6;
	bool optional;
};

#define AT_SANDBOX_LISTEN_MAX 32

/*
 * Called in the supervisor with the listening sockets of spec.listen, in
 * that order (-1 for an optional one left out), which it then owns: it
 * must close them. It runs while the child builds its mounts, and before
 * the command does (the child waits for it at the end of its set-up); a
 * failure (its error set) stops the run before the command starts.
 */
typedef int (*at_sandbox_listen_fn)(void *ctx, const int *fds, size_t n, struct at_error *err);

/*
 * Called in the supervisor once the init is cloned into its new network
 * namespace, with descriptors of the init's user and network namespaces
 * (sent by the init itself, before anything of the task ran; valid during
 * the call: dup them to keep them): for a caller that serves ports
 * published from inside (at_sandbox_sockets_open). It runs before the
 * command when the spec has listening sockets, else maybe while the
 * command starts. A failure (its error set) stops the run: AT_ESANDBOX.
 */
typedef int (*at_sandbox_netns_fn)(void *ctx, int userns_fd, int netns_fd, struct at_error *err);

/*
 * Sockets made in a running sandbox's network namespace, for the caller to
 * connect() to the sandbox's loopback (netns.c has why a process of ours
 * joins the sandbox's user and network namespaces to make them, and why
 * that works for root and for an ordinary user alike). Open it with the
 * namespaces' descriptors (at_sandbox_netns_fn) while the run lasts;
 * AT_ESANDBOX when they cannot be joined. at_sandbox_sockets_tcp: an unconnected TCP
 * IPv4 socket there, non-blocking and close-on-exec (checked to be one),
 * the caller's to close; -1 with errno. Not thread-safe: one caller at a
 * time. at_sandbox_sockets_close ends the process; NULL-safe.
 */
struct at_sandbox_sockets;
int at_sandbox_sockets_open(int userns_fd, int netns_fd, struct at_sandbox_sockets **out,
			    struct at_error *err);
int at_sandbox_sockets_tcp(struct at_sandbox_sockets *s);
void at_sandbox_sockets_close(struct at_sandbox_sockets *s);

/* What happens to the command's stdout and stderr. */
enum at_sandbox_stdio {
	AT_STDIO_INHERIT = 0,        /* the caller's (a terminal, a pipe) */
	AT_STDIO_CAPTURE,            /* kept in the result, up to capture_max bytes each */
};

/*
 * How the command runs: the settings a caller decides as a whole and hands
 * over in one piece (app/layout.c copies its caller's into the spec), beside
 * the file system and the command line it builds op by op.
 */
struct at_sandbox_proc {
	bool share_net;              /* the host's network; else a namespace with lo only */
	struct at_limits limits;
	/* The caps of /tmp, /dev/shm and HOME's tmpfs (core/run.h); 0: the default. */
	uint64_t tmpfs_size[AT_TMPFS_COUNT];
	/* A host directory bound read-write as HOME (a task's own); NULL: a tmpfs. */
	const char *home;
	uint64_t timeout_ms;         /* 0: none; else kill everything after it */
	enum at_sandbox_stdio stdio;
	enum at_run_tty tty;         /* a pty for an interactive command (core/run.h) */
	size_t capture_max;          /* AT_STDIO_CAPTURE: bytes kept of each; 0: AT_RUN_CAPTURE_MAX */
	int cancel_fd;               /* -1: none; readable: kill everything, result.cancelled */
	struct at_progress_hook progress;

	/*
	 * Called in the supervisor once the init is cloned, with its pid, so
	 * that the caller can record it (core/runs.h: killing the init kills the
	 * whole sandbox); NULL for none. It must not block.
	 */
	void (*started)(int init_pid, void *arg);
	void *started_arg;
	/*
	 * Called in the supervisor once the init runs free (cloned, and in
	 * its cgroups), while it sets the sandbox up: the caller's work that
	 * the run need not wait for, such as removing an earlier run's
	 * overlay scratch (at_sandbox_overlay_pick). NULL for none. It must
	 * not block.
	 */
	void (*aside)(void *arg);
	void *aside_arg;

	/* A walk of /etc begun early (at_sandbox_etc_start), not owned; NULL: walked when added. */
	struct at_sandbox_etc *etc;
};

#define AT_SANDBOX_PROC_INIT { .cancel_fd = -1 }

struct at_sandbox_spec {
	/* The file system: built in this order (at_sandbox_mount_*, at_sandbox_add_system). */
	struct at_sandbox_mount *mounts;
	size_t nmounts, cap;
	/* Host paths no writable bind may reach, and exceptions below them (see above). */
	struct at_strlist protect, except;

	/* The process. */
	struct at_strlist argv;      /* argv[0] is looked up in the PATH of envp */
	struct at_strlist envp;      /* the whole environment (at_sandbox_env) */
	char *cwd;                   /* absolute, in the sandbox */
	/* Listening sockets made in the new network namespace (never with proc.share_net). */
	const struct at_sandbox_listen *listen;
	size_t nlisten;              /* at most AT_SANDBOX_LISTEN_MAX */
	at_sandbox_listen_fn on_listen;
	void *listen_ctx;
	/* Told the init's namespaces (never with proc.share_net); NULL for none. */
	at_sandbox_netns_fn on_netns;
	void *netns_ctx;
	struct at_sandbox_proc proc;

	bool failed;                 /* an add ran out of memory: at_sandbox_run refuses the spec */
};

/* The defaults of every run: at most this many processes, and a share of RAM. */
#define AT_SANDBOX_DEFAULT_PIDS 4096
#define AT_SANDBOX_DEFAULT_MEMORY_PERCENT 50

/*
 * The walk over /etc that at_sandbox_add_system needs (what of it is not
 * world-readable, to be hidden) takes a millisecond or more: begun here on a
 * thread of its own, it overlaps the caller's other preparation. Hand it to
 * one spec (spec.proc.etc) before at_sandbox_add_system, which waits for it;
 * at_sandbox_etc_free waits too, and frees it. NULL (out of memory) is
 * accepted by both: the spec then walks /etc itself. A walk whose thread
 * could not start is done when it is added.
 *
 * cache, when not NULL, is a file of the caller's that nothing in a
 * sandbox can write (the repository's state): the directories' listings of
 * the last walk. A directory whose device, inode, mtime and ctime are
 * those of its listing, and that had not changed just before it was
 * listed, is not listed again; every entry is still judged by its mode as
 * it is now, so a chmod is seen at once. The file is replaced when a
 * listing changed; a missing or unreadable one is no cache.
 */
struct at_sandbox_etc;
struct at_sandbox_etc *at_sandbox_etc_start(const char *cache);
void at_sandbox_etc_free(struct at_sandbox_etc *e);

/*
 * Remove an overlay's scratch from its work dir: what overlayfs made at
 * the mount, with volatile's marker, which would make it refuse the next
 * one. Call it only while no mount can be using work (the caller's lock
 * of the layers, and the run that mounted it over), or never: a mount
 * that finds a scratch left removes its marker, and overlayfs the rest.
 * work: AT_MOUNT_OVERLAY's; NULL or "" is nothing to do.
 */
void at_sandbox_overlay_tidy(const char *work);

/*
 * Of an overlay's two work dirs (directories on upper's file system; the
 * second made here when it is needed), the one to mount: the one without
 * a scratch, the first when both have one. A run leaves its scratch; the
 * next run mounts the other dir and removes that scratch meanwhile
 * (at_sandbox_overlay_tidy from the spec's aside), so that no run waits
 * for a removal (four of them, up to a millisecond on a journaled file
 * system). Under the caller's lock of the layers. 0: first, 1: second.
 */
int at_sandbox_overlay_pick(const char *first, const char *second);

void at_sandbox_spec_init(struct at_sandbox_spec *s);
void at_sandbox_spec_release(struct at_sandbox_spec *s);

/*
 * Append one operation; 0, or -1 (out of memory: the spec is marked failed
 * and at_sandbox_run refuses it, so a caller may check once at the end).
 */
int at_sandbox_bind(struct at_sandbox_spec *s, const char *src, const char *dest,
		    unsigned int flags);
int at_sandbox_tmpfs(struct at_sandbox_spec *s, const char *dest, uint64_t size, unsigned int mode);
int at_sandbox_file(struct at_sandbox_spec *s, const char *dest, const char *data, size_t len);
int at_sandbox_bind_data(struct at_sandbox_spec *s, const char *dest, const char *data,
			 size_t len);
/*
 * The same with the content read from fd (a regular file or memfd, read
 * from offset 0 with pread, its offset untouched), which must stay open
 * until at_sandbox_run returns; the spec does not own it.
 */
int at_sandbox_file_fd(struct at_sandbox_spec *s, const char *dest, int fd);
int at_sandbox_bind_data_fd(struct at_sandbox_spec *s, const char *dest, int fd);
int at_sandbox_symlink(struct at_sandbox_spec *s, const char *text, const char *dest);
int at_sandbox_dir(struct at_sandbox_spec *s, const char *dest, unsigned int mode);
int at_sandbox_proc(struct at_sandbox_spec *s, const char *dest);
int at_sandbox_devpts(struct at_sandbox_spec *s, const char *dest);
int at_sandbox_remount_ro(struct at_sandbox_spec *s, const char *dest);
/* An overlay of the host directory lower at dest, changes going to upper (see above). */
int at_sandbox_overlay(struct at_sandbox_spec *s, const char *lower, const char *upper,
		       const char *work, const char *dest);
/* The run's own cgroup, read-only, at dest (see AT_MOUNT_CGROUP). */
int at_sandbox_cgroup(struct at_sandbox_spec *s, const char *dest);

/* Mark a host path protected, or a path below a protected one excepted (see above). */
int at_sandbox_protect(struct at_sandbox_spec *s, const char *path);
int at_sandbox_except(struct at_sandbox_spec *s, const char *path);

/*
 * The standard system layout above (/usr ... /dev, /proc, /tmp, HOME),
 * appended. The tmpfs sizes follow s->limits' memory limit: set it first.
 */
int at_sandbox_add_system(struct at_sandbox_spec *s);

/*
 * Run the spec's command in the sandbox and wait for it. 0 when the command
 * ran (its status, or 126/127 when it could not be executed, is in *res);
 * AT_ESANDBOX when the sandbox could not be set up or the spec breaks an
 * invariant (the command never ran, not even unsandboxed), with the failing
 * step, path and a likely cause in err. *res must be released with
 * at_run_result_release in both cases.
 *
 * It blocks SIGCHLD and the forwarded signals (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGUSR1/2, SIGWINCH) in the calling thread while it runs and
 * passes them on to the command. In a program with other threads, block
 * them there too, or they may take the signals instead; cancel a run from
 * another thread by making cancel_fd readable (an eventfd or a pipe).
 */
int at_sandbox_run(const struct at_sandbox_spec *s, struct at_run_result *res,
		   struct at_error *err);

/*
 * Fill the limits left at 0 with the defaults of every run: pids
 * AT_SANDBOX_DEFAULT_PIDS, memory AT_SANDBOX_DEFAULT_MEMORY_PERCENT of RAM
 * (at least 256 MiB); mark them in l->defaults.
 */
void at_sandbox_defaults(struct at_limits *l);

/*
 * The command's environment: PATH=AT_RUN_PATH and HOME=AT_RUN_HOME, then
 * TERM, LANG, LC_* and TZ from host_env, then each name in pass (taken from
 * host_env when set there), then each K=V of set. Later entries replace
 * earlier ones. AT_EUSAGE for a malformed K=V or name.
 */
int at_sandbox_env(char *const *host_env, char *const *pass, size_t npass, char *const *set,
		   size_t nset, struct at_strlist *out, struct at_error *err);

/* Is the path absolute, normalised ("/a/b", no "." "..", "//", trailing '/')? */
bool at_sandbox_path_normal(const char *path);

/* Is path inside dir (or dir itself)? Both normalised. */
bool at_sandbox_path_within(const char *path, const char *dir);

/* The version of the libseccomp loaded, "MAJOR.MINOR.MICRO", into buf. */
void at_sandbox_seccomp_version(char *buf, size_t size);

#endif
