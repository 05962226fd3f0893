#include "cmd/accept_pick.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/pick.h"
#include "cmd/cli.h"
#include "core/esc.h"
#include "core/util.h"

static const char help_text[] =
	"y - accept this hunk\n"
	"n - do not accept this hunk\n"
	"q - quit; do not accept this hunk or any of the remaining ones\n"
	"a - accept this hunk and all later hunks in the file\n"
	"d - do not accept this hunk or any of the later hunks in the file\n"
	"s - split the current hunk into smaller hunks\n"
	"e - manually edit the current hunk (accept -p)\n"
	"? - print help\n";

/* The person's answer: the first character of a line from stdin ('q' at its end). */
static int ask(const char *prompt)
{
	char line[256];

	fputs(prompt, stdout);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 'q';
	return (unsigned char)line[0];
}

/* The hunk on the terminal, its bytes escaped (they are the task's). */
static void show_hunk(const struct at_app_pick *p, size_t i, size_t j)
{
	char hdr[128];
	const char *body = at_app_pick_hunk(p, i, j, hdr, sizeof(hdr));

	printf("%s\n", hdr);
	at_esc_fputs(stdout, body, AT_ESC_TEXT);
}

/*
 * $EDITOR (else vi) on a file of ours holding the hunk: the shell line is
 * the person's EDITOR and "$1", the file's name an argument, never a byte
 * of the task's in the command. Its text into *out (malloc'd).
 */
static int edit(const struct at_app_pick *p, size_t i, size_t j, char **out, size_t *len)
{
	const char *editor = getenv("VISUAL") && *getenv("VISUAL") ? getenv("VISUAL")
				: getenv("EDITOR") && *getenv("EDITOR") ? getenv("EDITOR") : "vi";
	char path[] = "/tmp/agenttask-hunk-XXXXXX", hdr[128], cmd[4096];
	const char *body = at_app_pick_hunk(p, i, j, hdr, sizeof(hdr));
	FILE *f;
	pid_t pid;
	int fd, status;

	if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fprintf(f, "# Manual hunk edit mode -- see bottom for a quick guide.\n%s\n%s", hdr, body);
	fputs("# ---\n# To remove '-' lines, make them ' ' lines (context).\n"
	      "# To remove '+' lines, delete them.\n# Lines starting with # will be removed.\n", f);
	if (fclose(f) != 0 || snprintf(cmd, sizeof(cmd), "%s \"$1\"", editor) >= (int)sizeof(cmd)) {
		unlink(path);
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*out = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? at_read_file(path, 1 << 24, len)
								     : NULL;
	unlink(path);
	return *out ? 0 : -1;
}

/* accept -p or drop -p: the verb of the prompts. */
static const char *verb = "Accept";

/* One hunk: 0 next, 1 the rest of the file taken ('a') or left ('d'), 2 quit. */
static int walk_hunk(struct at_app_pick *p, size_t i, size_t *j, size_t n, int *rest)
{
	struct at_error err = AT_ERROR_INIT;
	char prompt[96];
	size_t parts, len;
	char *text;
	int key;

	for (;;) {
		show_hunk(p, i, *j);
		snprintf(prompt, sizeof(prompt), "(%zu/%zu) %s this hunk [y,n,q,a,d,s%s,?]? ",
			 *j + 1, n, verb, verb[0] == 'A' ? ",e" : "");
		switch ((key = ask(prompt))) {
		case 'y':
		case 'n':
			at_app_pick_set(p, i, *j, key == 'y');
			return 0;
		case 'a':
		case 'd':
			*rest = key;
			return 1;
		case 'q':
			return 2;
		case 's':
			if (at_app_pick_split(p, i, *j, &parts, &err) < 0)
				at_esc_printf(stderr, "agenttask: %s\n", err.msg);
			else if (parts == 1)
				printf("Sorry, cannot split this hunk\n");
			else
				printf("Split into %zu hunks.\n", parts);
			return -1;   /* the walk goes on from the same place, the file longer */
		case 'e':
			if (verb[0] != 'A') {
				fputs(help_text, stdout);
				continue;
			}
			if (edit(p, i, *j, &text, &len) < 0) {
				printf("the editor failed: hunk unchanged\n");
				continue;
			}
			if (at_app_pick_edit(p, i, *j, text, len, &err) < 0)
				at_esc_printf(stdout, "%s; try again\n", err.msg);
			free(text);
			continue;
		default:
			fputs(help_text, stdout);
		}
	}
}

/* One file: 0 go on, 2 quit. */
static int walk_file(struct at_app_pick *p, size_t i)
{
	struct at_app_pick_file f;
	int rest = 0, rc;
	size_t j, k;

	at_app_pick_file(p, i, &f);
	at_esc_fputs(stdout, f.header, AT_ESC_TEXT);
	if (f.whole) {
		for (j = 0; j < f.nhunks; j++)
			show_hunk(p, i, j);
		for (;;) {
			char prompt[64];
			int key;

			snprintf(prompt, sizeof(prompt), "%s this change [y,n,q,?]? ", verb);
			key = ask(prompt);

			if (key == 'y' || key == 'n' || key == 'a' || key == 'd') {
				at_app_pick_set(p, i, 0, key == 'y' || key == 'a');
				return 0;
			}
			if (key == 'q')
				return 2;
			printf("y - %s this change (whole)\nn - do not\nq - quit\n",
			       verb[0] == 'A' ? "accept" : "drop");
		}
	}
	for (j = 0; j < f.nhunks; j++) {
		rc = walk_hunk(p, i, &j, f.nhunks, &rest);
		if (rc < 0) {   /* split: the same place again, with the file's new count */
			at_app_pick_file(p, i, &f);
			j--;
			continue;
		}
		if (rc == 2)
			return 2;
		if (rc == 1) {
			for (k = j; k < f.nhunks; k++)
				at_app_pick_set(p, i, k, rest == 'a');
			return 0;
		}
	}
	return 0;
}

int at_cli_pick(const struct at_app *app, const char *name, bool drop, struct at_oid *tree,
		struct at_oid *state)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_app_pick *p = NULL;
	char *stat = NULL, hex[AT_OID_HEXSZ + 1];
	size_t i;
	int rc;

	verb = drop ? "Drop" : "Accept";
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return at_cli_usage(drop ? "drop" : "accept", "-p walks the hunks on a terminal: "
				    "stdin and stdout must be one (use -- PATHSPEC without one)");
	if (at_app_pick_open(app, name, &p, &err) < 0)
		return at_cli_fail(&err);
	for (i = 0; i < at_app_pick_nfiles(p) && walk_file(p, i) != 2; i++)
		;
	rc = at_app_pick_tree(p, drop, tree, state, &stat, &err);
	if (rc < 0) {
		rc = at_cli_fail(&err);
	} else if (!stat[0]) {
		printf("no hunk picked: nothing %s\n", drop ? "dropped" : "accepted");
		rc = -1;
	} else {
		at_oid_fmt(hex, tree);
		if (drop)
			printf("The changes to drop:\n");
		else
			printf("The part to accept (tree %s):\n", hex);
		at_esc_fputs(stdout, stat, AT_ESC_TEXT);
		rc = ask(drop ? "Drop them [y,n]? " : "Accept it [y,n]? ") == 'y' ? 0 : -1;
		if (rc < 0)
			printf("nothing %s\n", drop ? "dropped" : "accepted");
	}
	free(stat);
	at_app_pick_free(p);
	return rc;
}
