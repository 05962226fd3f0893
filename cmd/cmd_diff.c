/*
 * agenttask diff [NAME] [--stat | --name-only | --json] [--color=WHEN]
 * agenttask diff --base REV [--head REV] [--stat | --name-only | --json] [--color=WHEN]
 *
 * The task's whole change (commits, uncommitted and untracked files) against
 * its merge base (in CI: REV's tree against merge-base(--base, --head), what
 * `gate --base` judges), printed as `git diff` prints it, colours included (of
 * git's whitespace-error marks: blanks at the end of an added line and
 * spaces before a tab in its indent, not blank lines at the end of a file).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/preview.h"
#include "core/esc.h"
#include "core/json.h"
#include "git/diff.h"

/* git's default colours (color.diff.*). */
#define COLOR_META "\033[1m"
#define COLOR_FRAG "\033[36m"
#define COLOR_OLD "\033[31m"
#define COLOR_NEW "\033[32m"
#define COLOR_WS "\033[41m"     /* whitespace errors on added lines */
#define COLOR_RESET "\033[m"

enum diff_mode { MODE_PATCH, MODE_STAT, MODE_NAMES, MODE_JSON };

struct diff_args {
	enum diff_mode mode;
	const char *color;      /* --color=WHEN, NULL: auto */
	const char *name;       /* NULL: the task holding the cwd */
	const char *base, *head;   /* CI mode: two revisions, no task */
	bool patch;             /* --patch: with --json, the patch text too */
	char **paths;           /* after "--": the pathspec, as given */
	size_t npaths;
	uint64_t max_file_size;    /* --max-file-size, 0: the default */
};

static void put(const char *s, size_t len)
{
	fwrite(s, 1, len, stdout);
}

/* A header line: bold, and a '\t' git puts after a name with a space stays outside. */
static void print_meta(const char *s, size_t len)
{
	bool tab = len > 0 && s[len - 1] == '\t';

	fputs(COLOR_META, stdout);
	put(s, len - tab);
	fputs(COLOR_RESET, stdout);
	if (tab)
		putchar('\t');
}

/* "@@ -1,2 +1,3 @@" in cyan, then the blanks and the function context plain. */
static void print_frag(const char *s, size_t len)
{
	const char *end = len > 2 ? memmem(s + 2, len - 2, "@@", 2) : NULL;
	size_t frag = end ? (size_t)(end - s) + 2 : len, blank = frag;

	fputs(COLOR_FRAG, stdout);
	put(s, frag);
	fputs(COLOR_RESET, stdout);
	while (blank < len && (s[blank] == ' ' || s[blank] == '\t'))
		blank++;
	if (blank > frag) {
		put(s + frag, blank - frag);
		fputs(COLOR_RESET, stdout);
	}
	if (blank < len) {
		put(s + blank, len - blank);
		fputs(COLOR_RESET, stdout);
	}
}

/* A context or deleted line: one colour over the sign and the text; a '\r' after it. */
static void print_plain_line(const char *color, char sign, const char *s, size_t len)
{
	bool cr = len > 0 && s[len - 1] == '\r';

	fputs(color, stdout);
	putchar(sign);
	put(s, len - cr);
	fputs(COLOR_RESET, stdout);
	if (cr)
		putchar('\r');
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * An added line, marked as git marks whitespace errors by default: spaces
 * before a tab in the indent and blanks at the end of the line get a red
 * background; the rest of the indent is left uncoloured.
 */
static void print_new_line(const char *s, size_t len)
{
	size_t trail = len, written = 0, i;

	fputs(COLOR_NEW "+" COLOR_RESET, stdout);
	while (trail > 0 && is_blank(s[trail - 1]))
		trail--;
	for (i = 0; i < trail && (s[i] == ' ' || s[i] == '\t'); i++) {
		if (s[i] != '\t')
			continue;
		if (written < i) {
			fputs(COLOR_WS, stdout);
			put(s + written, i - written);
			fputs(COLOR_RESET, stdout);
			written = i;
		}
		put(s + written, i - written + 1);
		written = i + 1;
	}
	if (trail > written) {
		fputs(COLOR_NEW, stdout);
		put(s + written, trail - written);
		fputs(COLOR_RESET, stdout);
	}
	if (trail < len) {
		fputs(COLOR_WS, stdout);
		put(s + trail, len - trail);
		fputs(COLOR_RESET, stdout);
	}
}

static void print_color(char origin, const char *s, size_t len)
{
	switch (origin) {
	case AT_DIFF_FILE_HDR:
		print_meta(s, len);
		break;
	case AT_DIFF_HUNK_HDR:
		print_frag(s, len);
		break;
	case AT_DIFF_ADDITION:
		print_new_line(s, len);
		break;
	case AT_DIFF_DELETION:
		print_plain_line(COLOR_OLD, '-', s, len);
		break;
	case AT_DIFF_CONTEXT:
		print_plain_line("", ' ', s, len);
		break;
	case AT_DIFF_CONTEXT_EOFNL:
	case AT_DIFF_ADD_EOFNL:
	case AT_DIFF_DEL_EOFNL:
		put(s, len);
		fputs(COLOR_RESET, stdout);
		break;
	default:
		put(s, len);
		break;
	}
}

/* How the patch reaches stdout. */
struct patch_out {
	bool color;
	bool escape;   /* a person reads it: the task's controls shown as \xNN (core/esc.h) */
};

static int print_line(char origin, const char *s, size_t len, void *payload)
{
	const struct patch_out *o = payload;
	char *safe = NULL;
	size_t safe_len = 0;
	/* A CRLF line's CR is kept: it returns over nothing (and git's colours place it). */
	size_t cr = len > 0 && s[len - 1] == '\r';
	FILE *m;

	if (o->escape && at_esc_needed(s, len - cr, AT_ESC_TEXT)) {
		if (!(m = open_memstream(&safe, &safe_len)))
			return -1;
		at_esc_write(m, s, len - cr, AT_ESC_TEXT);
		fwrite(s + len - cr, 1, cr, m);
		if (fclose(m) != 0) {
			free(safe);
			return -1;
		}
		s = safe;
		len = safe_len;
	}
	if (o->color) {
		print_color(origin, s, len);
	} else {
		if (origin == AT_DIFF_CONTEXT || origin == AT_DIFF_ADDITION ||
		    origin == AT_DIFF_DELETION)
			putchar(origin);
		put(s, len);
	}
	putchar('\n');
	free(safe);
	return ferror(stdout) ? -1 : 0;
}

/* git's width for --stat: $COLUMNS, else the terminal's, else 80. */
static size_t stat_width(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && atoi(env) > 0)
		return (size_t)atoi(env);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 80;
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
	int rc;

	rc = at_json_add_string(o, "path", f->path);
	if (rc == 0 && (f->status == AT_CHANGE_RENAMED || f->status == AT_CHANGE_COPIED))
		rc = at_json_add_string(o, "old_path", f->old_path);
	if (rc == 0)
		rc = at_json_add_string(o, "status", at_change_status_name(f->status));
	if (rc == 0)
		rc = at_json_add_number(o, "additions", (double)f->additions);
	if (rc == 0)
		rc = at_json_add_number(o, "deletions", (double)f->deletions);
	if (rc == 0)
		rc = at_json_add_bool(o, "binary", f->binary);
	if (rc == 0)
		rc = f->old_mode ? at_json_add_string(o, "old_mode", mode_str(f->old_mode, m))
				 : at_json_add_null(o, "old_mode");
	if (rc == 0)
		rc = f->new_mode ? at_json_add_string(o, "new_mode", mode_str(f->new_mode, m))
				 : at_json_add_null(o, "new_mode");
	if (rc == 0 && f->link_target)
		rc = at_json_add_string(o, "link_target", f->link_target);
	if (rc < 0) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

/* The --json object, without the conflict preview's keys (show() adds them). */
static at_json *diff_json(const struct at_task *t, const struct at_change_set *cs)
{
	at_json *o = at_json_object(), *files = at_json_array();
	int rc = o && files ? 0 : -1;
	size_t i;

	for (i = 0; rc == 0 && i < cs->nfiles; i++)
		rc = at_json_append(files, file_json(&cs->files[i]));
	if (rc == 0 && t)
		rc = at_json_add_string(o, "task", t->name);
	if (rc == 0)
		rc = at_json_add_string(o, "base", cs->base);
	if (rc == 0)
		rc = at_json_add_string(o, "tree", cs->tree);
	if (rc == 0) {
		rc = at_json_add(o, "files", files);
		files = NULL;
	}
	if (rc == 0)
		rc = at_json_add_number(o, "additions", (double)cs->additions);
	if (rc == 0)
		rc = at_json_add_number(o, "deletions", (double)cs->deletions);
	at_json_free(files);
	if (rc < 0) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

/* The patch text, as `diff` prints it without colour, for --json --patch. */
struct patch_text {
	char *buf;
	size_t len, cap;
};

static int grow_put(struct patch_text *p, const char *s, size_t n)
{
	char *grown;
	size_t cap;

	if (p->len + n + 1 > p->cap) {
		cap = p->cap ? p->cap : 4096;
		while (cap < p->len + n + 1)
			cap *= 2;
		if (!(grown = realloc(p->buf, cap)))
			return -1;
		p->buf = grown;
		p->cap = cap;
	}
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

static int add_patch(at_json *j, struct at_diff *d, struct at_error *err)
{
	struct patch_text p = { NULL, 0, 0 };
	int rc = at_diff_patch(d, collect_line, &p, err);

	if (rc == 0 && at_json_add_string(j, "patch", p.buf ? p.buf : "") < 0)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	free(p.buf);
	return rc;
}

/* The length of the colour (ESC [ digits m) at s, 0 if none. */
static size_t colour_len(const char *s)
{
	size_t n;

	if (s[0] != '\033' || s[1] != '[')
		return 0;
	n = 2 + strspn(s + 2, "0123456789;");
	return s[n] == 'm' ? n + 1 : 0;
}

/*
 * --stat or --name-only text for a person: the names' controls shown. Every
 * name in it is quoted as git quotes it, so a raw ESC can only begin one of
 * our own colours (ESC [ digits m), written as it is.
 */
static void put_names_text(const char *s)
{
	const char *esc;
	size_t n;

	while ((esc = strchr(s, '\033'))) {
		n = colour_len(esc);
		at_esc_write(stdout, s, (size_t)(esc - s) + (n ? 0 : 1), AT_ESC_TEXT);
		fwrite(esc, 1, n, stdout);
		s = esc + (n ? n : 1);
	}
	at_esc_fputs(stdout, s, AT_ESC_TEXT);
}

static int print_text(int (*make)(struct at_diff *, char **, struct at_error *, bool),
		      struct at_diff *d, const struct patch_out *o, struct at_error *err)
{
	char *text = NULL;
	int rc = make(d, &text, err, o->color);

	if (rc == 0 && o->escape)
		put_names_text(text);
	else if (rc == 0)
		fputs(text, stdout);
	free(text);
	return rc;
}

static int make_stat(struct at_diff *d, char **out, struct at_error *err, bool color)
{
	struct at_diff_stat_opts o = AT_DIFF_STAT_OPTS_INIT;

	o.width = stat_width();
	if (color) {
		o.add_color = COLOR_NEW;
		o.del_color = COLOR_OLD;
		o.reset = COLOR_RESET;
	}
	return at_diff_stat(d, &o, out, err);
}

static int make_names(struct at_diff *d, char **out, struct at_error *err, bool color)
{
	(void)color;
	return at_diff_names(d, out, err);
}

/*
 * With the patch, when the base has moved on since the task began, say so
 * and whether the task still merges cleanly. On stderr: stdout stays a patch
 * that `git apply` takes.
 */
static int patch_preview(struct at_repo *r, const struct at_task *t, struct at_diff *d,
			 struct at_error *err)
{
	const struct at_change_set *cs;
	struct at_cli_preview p = { .ok = false };
	int rc;

	if ((rc = at_diff_changes(d, &cs, err)) < 0)
		return rc;
	at_cli_preview_load(&p, r, t, cs->tree);
	if (!p.ok || p.pv.base_moved) {
		fputs("agenttask: note: ", stderr);
		at_cli_preview_print(stderr, t, &p, false);
	}
	at_cli_preview_release(&p);
	return 0;
}

/*
 * The patch, --stat and --name-only are escaped for a person (a terminal,
 * or --color, which only a viewer wants); to a pipe, without colour, they
 * stay byte-exact, a patch `git apply` takes. --json is exact (JSON-escaped).
 */
static int show(const struct diff_args *a, struct at_repo *r, const struct at_task *t,
		struct at_diff *d, bool color, struct at_error *err)
{
	struct patch_out o = { color, color || isatty(STDOUT_FILENO) };
	struct patch_out names = { false, o.escape };
	struct at_cli_preview p = { .ok = false };
	const struct at_change_set *cs;
	at_json *j;
	int rc;

	switch (a->mode) {
	case MODE_JSON:
		if ((rc = at_diff_changes(d, &cs, err)) < 0)
			return rc;
		if (t)
			at_cli_preview_load(&p, r, t, cs->tree);
		j = diff_json(t, cs);
		if (j && t && at_cli_preview_json(j, &p) < 0) {
			at_json_free(j);
			j = NULL;
		}
		at_cli_preview_release(&p);
		if (!j)
			return at_error_set(err, AT_ESYS, "out of memory");
		if (a->patch && (rc = add_patch(j, d, err)) < 0) {
			at_json_free(j);
			return rc;
		}
		/* at_cli_print_json has said what failed */
		return at_cli_print_json(j) == AT_EXIT_OK ? 0 : AT_ESYS;
	case MODE_STAT:
		at_cli_page(r);
		return print_text(make_stat, d, &o, err);
	case MODE_NAMES:
		at_cli_page(r);
		return print_text(make_names, d, &names, err);
	case MODE_PATCH:
	default:
		at_cli_page(r);
		if ((rc = at_diff_patch(d, print_line, &o, err)) < 0)
			return rc;
		return t ? patch_preview(r, t, d, err) : 0;
	}
}

/* The part of dir below top ("" at top), or NULL when dir is not inside top. */
static const char *below(const char *dir, const char *top)
{
	size_t n = strlen(top);

	while (n > 1 && top[n - 1] == '/')
		n--;
	if (strncmp(dir, top, n) != 0 || (dir[n] != '/' && dir[n] != '\0'))
		return NULL;
	return dir[n] == '/' ? dir + n + 1 : dir + n;
}

/* prefix/path with "." and ".." resolved, into out; false when it climbs above the top. */
static bool normalize(const char *prefix, const char *path, char *out, size_t size)
{
	char buf[PATH_MAX * 2], *save = NULL, *c;
	size_t len = 0, n;

	if (snprintf(buf, sizeof(buf), "%s%s%s", prefix, prefix[0] ? "/" : "", path) >=
	    (int)sizeof(buf))
		return false;
	out[0] = '\0';
	for (c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			if (len == 0)
				return false;
			while (len > 0 && out[len - 1] != '/')
				len--;
			len = len > 0 ? len - 1 : 0;
			out[len] = '\0';
			continue;
		}
		n = strlen(c);
		if (len + n + 2 > size)
			return false;
		if (len)
			out[len++] = '/';
		memcpy(out + len, c, n + 1);
		len += n;
	}
	return true;
}

/*
 * The pathspec from the top of the tree, as git reads one: each path
 * relative to the current directory when that is inside the task's worktree
 * (or the repository's), ":/PATH" from the top, an absolute path inside the
 * top as the rest of it. Then limit d to it (a path that names the top
 * itself limits nothing).
 */
static int limit(struct at_diff *d, const struct diff_args *a, const char *dir, const char *task_top,
		 const char *repo_top, struct at_error *err)
{
	char cwd[PATH_MAX], top[PATH_MAX] = "", **spec;
	const char *prefix = NULL, *p;
	size_t i, n = 0;
	int rc = 0;

	if (a->npaths == 0)
		return 0;
	if (!realpath(dir, cwd))
		cwd[0] = '\0';
	if (task_top && realpath(task_top, top) && (prefix = below(cwd, top)))
		;
	else if (repo_top && realpath(repo_top, top))
		prefix = below(cwd, top);
	if (!(spec = calloc(a->npaths, sizeof(*spec))))
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; rc == 0 && i < a->npaths; i++) {
		char rel[PATH_MAX];

		p = a->paths[i];
		if (strncmp(p, ":/", 2) == 0 || strcmp(p, ":") == 0)
			rc = normalize("", p + (p[1] ? 2 : 1), rel, sizeof(rel)) ? 0 : -1;
		else if (p[0] == '/')
			rc = top[0] && below(p, top) && normalize("", below(p, top), rel, sizeof(rel)) ?
				     0 : -1;
		else
			rc = normalize(prefix ? prefix : "", p, rel, sizeof(rel)) ? 0 : -1;
		if (rc < 0)
			rc = at_error_set(err, AT_EUSAGE, "pathspec '%s' is outside the repository", p);
		else if (!rel[0])
			goto out;   /* the whole tree */
		else if (!(spec[n++] = strdup(rel)))
			rc = at_error_set(err, AT_ESYS, "out of memory");
	}
	if (rc == 0)
		rc = at_diff_limit(d, spec, n, err);
out:
	for (i = 0; i < n; i++)
		free(spec[i]);
	free(spec);
	return rc;
}

static int parse_args(int argc, char **argv, struct diff_args *a)
{
	static const struct option longopts[] = {
		{ "stat", no_argument, NULL, 's' },
		{ "name-only", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "patch", no_argument, NULL, 'p' },
		AT_CLI_COLOR_OPTIONS,
		{ "base", required_argument, NULL, 'b' },
		{ "head", required_argument, NULL, 'H' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool clash = false;
	int c, dd;

	/* The pathspec comes after "--"; options and NAME before it. */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	if (dd < argc) {
		a->paths = argv + dd + 1;
		a->npaths = (size_t)(argc - dd - 1);
	}
	argc = dd;
	while ((c = at_cli_getopt(argc, argv, "ph", longopts)) != -1) {
		enum diff_mode m = c == 's' ? MODE_STAT : c == 'n' ? MODE_NAMES : MODE_JSON;

		switch (c) {
		case 'p':
			a->patch = true;
			break;
		case 's':
		case 'n':
		case 'j':
			clash = clash || (a->mode != MODE_PATCH && a->mode != m);
			a->mode = m;
			break;
		case AT_OPT_COLOR:
		case AT_OPT_NO_COLOR:
			a->color = at_cli_color_when(c, optarg);
			break;
		case 'b':
			a->base = optarg;
			break;
		case 'H':
			a->head = optarg;
			break;
		case AT_CLI_OPT_MAX_FILE_SIZE:
			if (at_cli_max_file_size("diff", optarg, &a->max_file_size) != 0)
				return -AT_EXIT_USAGE;
			break;
		case 'h':
			at_cli_help("diff");
			return 1;
		default:
			return -at_cli_bad_option("diff");
		}
	}
	if (clash)
		return -at_cli_usage("diff", "--stat, --name-only and --json cannot be combined");
	if (a->patch && (a->mode == MODE_STAT || a->mode == MODE_NAMES))
		return -at_cli_usage("diff", "--patch goes with --json (or alone): not with %s",
				     a->mode == MODE_STAT ? "--stat" : "--name-only");
	if (optind + 1 < argc)
		return -at_cli_usage("diff", "too many arguments");
	a->name = optind < argc ? argv[optind] : NULL;
	if (a->head && !a->base)
		return -at_cli_usage("diff", "--head needs --base");
	if (a->base && a->name)
		return -at_cli_usage("diff", "a task NAME and --base exclude each other");
	if (a->base && !a->head)
		a->head = "HEAD";
	return 0;
}

int cmd_diff(struct at_cli *cli, int argc, char **argv)
{
	struct diff_args a = { MODE_PATCH, NULL, NULL, NULL, NULL, false, NULL, 0, 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct at_diff *d = NULL;
	struct at_task task;
	bool color = false;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc > 0 ? AT_EXIT_OK : -rc;
	if ((rc = at_cli_color_for("diff", a.color, &color)) >= 0)
		return rc;
	cli->max_file_size = a.max_file_size;
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0 && a.base) {
		rc = at_diff_open_revs(&d, repo, a.base, a.head, &err);
		if (rc == 0)
			rc = limit(d, &a, cli->dir, NULL, at_repo_workdir(repo), &err);
		if (rc == 0)
			rc = show(&a, repo, NULL, d, color, &err);
	} else {
		if (rc == 0)
			rc = at_cli_task(cli, repo, a.name, &task, &err);
		if (rc == 0)
			rc = at_diff_open_task(&d, repo, &task, &err);
		if (rc == 0)
			rc = limit(d, &a, cli->dir, task.path, at_repo_workdir(repo), &err);
		if (rc == 0)
			rc = show(&a, repo, &task, d, color, &err);
	}
	if (rc == 0 && fflush(stdout) != 0)
		rc = at_error_sys(&err, AT_ESYS, "cannot write the diff");
	at_diff_free(d);
	at_repo_free(repo);
	if (rc < 0)   /* without a message: it has been printed already */
		return at_error_isset(&err) ? at_cli_fail(&err) : AT_EXIT_FAIL;
	return AT_EXIT_OK;
}
