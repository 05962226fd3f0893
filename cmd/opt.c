/*
 * opt.c - the parser, the help and the synopsis of a command, from its
 * option table (cmd/opt.h).
 */
#include "cmd/opt.h"

#include <getopt.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/cli.h"
#include "core/strlist.h"

/* getopt_long's value for the long option opts[i]: above every short letter. */
#define LONG_VAL(i) (256 + (int)(i))

int at_cli_set_true(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err)
{
	(void)opt, (void)value, (void)err;
	*(bool *)field = true;
	return 0;
}

int at_cli_set_string(void *field, const struct at_cli_opt *opt, const char *value,
		      struct at_error *err)
{
	(void)err;
	*(const char **)field = value ? value : opt->dflt;
	return 0;
}

int at_cli_set_list(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err)
{
	(void)opt;
	if (at_strlist_push(field, value) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

static bool optional_arg(const struct at_cli_opt *o)
{
	return o->arg && o->arg[0] == '[';
}

/* getopt's tables for opts, with -h/--help; false when opts is too long for them. */
static bool getopt_tables(const struct at_cli_opt *opts, struct option *longopts,
			  char *shortopts)
{
	size_t i, nl = 0, ns = 0;

	shortopts[ns++] = 'h';
	for (i = 0; opts[i].name || opts[i].key; i++) {
		if (i >= AT_CLI_OPTS_MAX)
			return false;
		if (opts[i].name)
			longopts[nl++] = (struct option){
				opts[i].name,
				!opts[i].arg ? no_argument :
				optional_arg(&opts[i]) ? optional_argument : required_argument,
				NULL, LONG_VAL(i) };
		if (opts[i].key) {
			shortopts[ns++] = opts[i].key;
			if (opts[i].arg)
				shortopts[ns++] = ':';
		}
	}
	longopts[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[nl] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[ns] = '\0';
	return true;
}

/* The entry getopt_long's c stands for. */
static const struct at_cli_opt *entry_of(const struct at_cli_opt *opts, int c)
{
	size_t i;

	if (c >= LONG_VAL(0))
		return &opts[c - LONG_VAL(0)];
	for (i = 0; opts[i].key != c; i++)
		;
	return &opts[i];
}

int at_cli_parse(const char *cmd, const struct at_cli_opt *opts, int argc, char **argv,
		 void *args)
{
	struct option longopts[AT_CLI_OPTS_MAX + 2];
	char shortopts[2 * AT_CLI_OPTS_MAX + 2];
	struct at_error err = AT_ERROR_INIT;
	const struct at_cli_opt *o;
	int c;

	if (!getopt_tables(opts, longopts, shortopts))
		return at_cli_usage(cmd, "too many options in the table of '%s'", cmd);
	while ((c = at_cli_getopt(argc, argv, shortopts, longopts)) != -1) {
		if (c == 'h')
			return AT_EXIT_HELP;
		if (c == '?')
			return at_cli_bad_option(cmd);
		o = entry_of(opts, c);
		if (o->set((char *)args + o->field, o, o->arg ? optarg : NULL, &err) < 0)
			return at_cli_usage(cmd, "%s", err.msg);
	}
	return -1;
}

/* "-k, --name ARG" (or the part of it the entry has) into buf; its length. */
static int term(char *buf, size_t size, const struct at_cli_opt *o)
{
	char key[8] = "";

	if (o->key)
		snprintf(key, sizeof(key), o->name ? "-%c, " : "-%c", o->key);
	return snprintf(buf, size, "%s%s%s%s%s", key, o->name ? "--" : "", o->name ? o->name : "",
			o->arg && !optional_arg(o) ? " " : "", o->arg ? o->arg : "");
}

void at_cli_opts_help(FILE *f, const struct at_cli_opt *opts, int width)
{
	const struct at_cli_opt *o;
	const char *line, *nl;
	char t[128];
	int n;

	for (o = opts; o->name || o->key; o++) {
		if (!o->help)
			continue;
		n = term(t, sizeof(t), o);
		if (o->help[0] == '\n') {   /* below the option, as it is */
			fprintf(f, "  %s%s", t, o->help);
			continue;
		}
		if (n < width)
			fprintf(f, "  %-*s", width, t);
		else
			fprintf(f, "  %s  ", t);
		for (line = o->help; (nl = strchr(line, '\n')); line = nl + 1)
			fprintf(f, "%.*s\n%*s", (int)(nl - line), line, width + 2, "");
		fprintf(f, "%s\n", line);
	}
}

/* The entry named by the option word s (n bytes: "--name" or "-k"), or NULL. */
static const struct at_cli_opt *named(const struct at_cli_opt *opts, const char *s, size_t n)
{
	const struct at_cli_opt *o;

	for (o = opts; o->name || o->key; o++) {
		if (n == 2 && s[1] != '-' && o->key == s[1])
			return o;
		if (n > 2 && s[1] == '-' && o->name && strlen(o->name) == n - 2 &&
		    memcmp(o->name, s + 2, n - 2) == 0)
			return o;
	}
	return NULL;
}

int at_cli_synopsis(char *buf, size_t size, const char *tmpl, const struct at_cli_opt *opts)
{
	const struct at_cli_opt *o;
	const char *s = tmpl;
	size_t len = 0, n;
	int rc = 0;

	buf[0] = '\0';
	while (*s) {
		n = 1;
		o = NULL;
		if (*s == '-' && (s == tmpl || strchr(" [|", s[-1]))) {
			n = strspn(s, "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
			o = n >= 2 && strncmp(s, "--", n) != 0 ? named(opts, s, n) : NULL;
			if (!o && n >= 2 && strncmp(s, "--", n) != 0 && strncmp(s, "-C", n) != 0)
				rc = -1;
		}
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%.*s%s%s",
					(int)n, s, o && o->arg && !optional_arg(o) ? " " : "",
					o && o->arg ? o->arg : "");
		s += n;
	}
	return rc;
}

void at_cli_opts_complete(FILE *f, const struct at_cli_opt *opts)
{
	const struct at_cli_opt *o;
	const char *text;

	for (o = opts; o->name || o->key; o++) {
		if (!o->help || !o->name)
			continue;
		text = o->help + strspn(o->help, "\n ");   /* one set below starts there */
		fprintf(f, "%.1s|--%s|%s|%.*s\n", &o->key, o->name, o->arg ? o->arg : "",
			(int)strcspn(text, "\n"), text);
	}
	fputs("|--help||print this help\n", f);   /* -h too, not offered: --help says it */
}
