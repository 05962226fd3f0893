/*
 * cmd_review.c - agenttask review [NAME]: the task's diff in the person's
 * editor; each line added that starts with ">>" becomes a comment on the
 * diff line above it (app/review.h).
 *
 * The editor is the person's, picked as git picks it: GIT_EDITOR, the
 * repository's core.editor, VISUAL, EDITOR, else vi. It runs as git runs
 * it, `sh -c 'EDITOR "$@"' EDITOR FILE`: the shell line is the person's own
 * setting, the file's name an argument, never part of it (and it is ours,
 * made by mkstemps, not the task's). The file holds the task's bytes as
 * `diff` prints them to a pipe: exact, not escaped (it is a file the
 * editor shows as it shows any file: docs/security.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/review.h"
#include "app/task.h"
#include "cmd/commands.h"
#include "core/esc.h"
#include "core/util.h"

extern char **environ;

struct review_args {
	struct at_app app;
};

const struct at_cli_opt cmd_review_opts[] = {
	AT_CLI_OPT_END,
};

/* The editor's command line, as git picks it. */
static const char *editor(const struct at_app *app, char *buf, size_t size)
{
	const char *e = getenv("GIT_EDITOR");

	if (e && *e)
		return e;
	if (at_app_config(app, "core.editor", buf, size) && *buf)
		return buf;
	if ((e = getenv("VISUAL")) && *e)
		return e;
	if ((e = getenv("EDITOR")) && *e)
		return e;
	return "vi";
}

/* Run `sh -c 'CMD "$@"' CMD file` on the terminal and wait; 0 when it exits 0. */
static int run_editor(const char *cmd, const char *file, struct at_error *err)
{
	AT_AUTOFREE char *line = NULL;
	char *argv[6] = { (char *)"sh", (char *)"-c", NULL, (char *)cmd, (char *)file, NULL };
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	int status = 0;
	pid_t pid;

	if (asprintf(&line, "%s \"$@\"", cmd) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	argv[2] = line;
	fflush(stdout);
	fflush(stderr);
	/* ^C is the editor's: agenttask waits for it, as git does */
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid = fork();
	if (pid == 0) {
		/* Only async-signal-safe calls between fork and exec. */
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		execve("/bin/sh", argv, environ);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	if (pid < 0)
		return at_error_sys(err, AT_ESYS, "cannot start the editor");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return at_error_set(err, AT_ESYS,
				    "the editor '%s' failed (status %d): nothing recorded", cmd,
				    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

/* Write the diff to a new temporary file (its name into path), the editor on it, read it back. */
static int edit(const struct at_app *app, struct at_app_review *rv, char **out, size_t *olen,
		struct at_error *err)
{
	const char *tmp = getenv("TMPDIR"), *text;
	char path[4096], buf[1024];
	size_t len;
	int fd, rc;

	if (at_fmt(path, sizeof(path), "%s/agenttask-review-XXXXXX.diff",
		   tmp && *tmp ? tmp : "/tmp") < 0)
		return at_error_set(err, AT_ESYS, "TMPDIR too long");
	if ((fd = mkstemps(path, 5)) < 0)
		return at_error_sys(err, AT_ESYS, "cannot make a file in '%s'",
				    tmp && *tmp ? tmp : "/tmp");
	text = at_app_review_text(rv, &len);
	rc = at_write_all(fd, text, len);
	close(fd);
	if (rc < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", path);
	if (rc == 0)
		rc = run_editor(editor(app, buf, sizeof(buf)), path, err);
	/* An editor may replace the file (write, rename): read it by name, no link followed. */
	if (rc == 0 && (fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot read '%s'", path);
	if (rc == 0) {
		*out = at_read_fd(fd, 256u * 1024 * 1024, olen);
		close(fd);
		if (!*out)
			rc = at_error_sys(err, AT_ESYS, "cannot read '%s'", path);
	}
	unlink(path);
	return rc;
}

int cmd_review(const struct at_app *app, int argc, char **argv)
{
	struct review_args a = { *app };
	struct at_app_review_comments c = { 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_app_review *rv = NULL;
	AT_AUTOFREE char *edited = NULL;
	AT_AUTOFREE unsigned long *ids = NULL;
	const char *name;
	size_t len = 0, i;
	int rc;

	if ((rc = at_cli_parse("review", cmd_review_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind + 1 < argc)
		return at_cli_usage("review", "too many arguments");
	name = optind < argc ? argv[optind] : NULL;
	rc = at_app_review_open(&a.app, name, &rv, &err);
	if (rc == 0)
		rc = edit(&a.app, rv, &edited, &len, &err);
	if (rc == 0)
		rc = at_app_review_parse(rv, edited, len, &c, &err);
	if (rc == 0 && c.n && !(ids = calloc(c.n, sizeof(*ids))))
		rc = at_error_set(&err, AT_ESYS, "out of memory");
	if (rc == 0 && c.n)
		rc = at_app_comment_add(&a.app, at_app_review_task(rv)->name,
					at_app_review_tree(rv), c.v, c.n, ids, &err);
	if (rc == 0) {
		for (i = 0; i < c.notes.n; i++) {
			fputs("note: ", stderr);
			at_esc_fputs(stderr, c.notes.v[i], 0);
			fputc('\n', stderr);
		}
		if (c.n == 0)
			printf("no comments added: nothing recorded\n");
		for (i = 0; i < c.n; i++) {
			printf("comment %lu", ids[i]);
			if (c.v[i].path) {
				fputs(" on ", stdout);
				at_esc_fputs(stdout, c.v[i].path, 0);
				printf(":%zu", c.v[i].first);
			} else {
				fputs(" on the whole change", stdout);
			}
			fputc('\n', stdout);
		}
	}
	at_app_review_comments_release(&c);
	at_app_review_free(rv);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
