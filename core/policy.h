/*
 * policy.h - the review policy: parsing .agenttask/policy.json and judging a
 * change set by its rules. Pure: no libgit2, no I/O.
 *
 * Where the text comes from (the base revision, or --policy FILE) is the
 * caller's business; so is running the checks, whose results the caller
 * appends with at_policy_result_add().
 *
 * Every built-in rule is reported, whether the policy sets it or not (an
 * unset limit passes with "no limit"), so that a report always shows the
 * same rows: protected_paths, max_changed_files, max_changed_lines,
 * allow_binary, allow_symlinks_out, host_files, then one row per check.
 * host_files (at_policy_rule_host_files) is the one rule judged without a
 * policy too: the caller works out which files tools on the host run
 * (core/hostfiles.h), which needs the blobs of the change.
 */
#ifndef AT_CORE_POLICY_H
#define AT_CORE_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/change.h"
#include "core/error.h"
#include "core/strlist.h"

#define AT_POLICY_DIR ".agenttask"
#define AT_POLICY_PATH AT_POLICY_DIR "/policy.json"
#define AT_POLICY_MAX_SIZE (1024 * 1024)
#define AT_CHECK_TIMEOUT_DEFAULT 600     /* seconds */
#define AT_CHECK_TIMEOUT_MAX 86400
#define AT_CHECK_NAME_MAX 64

struct at_policy_check {
	char *name;
	char **argv;            /* NULL-terminated, at least one element */
	size_t argc;
	unsigned int timeout;   /* seconds, > 0 */
	bool net;               /* network access in the sandbox */
	char **allow_hosts;     /* hosts reached through the proxy (`run --allow-host`); */
	size_t nallow_hosts;    /* the patterns are checked where they are used (net/rules) */
	bool deny_private;      /* `run --deny-private`: only with allow_hosts */
	char **forward;         /* `run --forward`: "PORT[:INNER]", the syntax checked here, */
	size_t nforward;        /* the rest (the proxy's port, repeats) where it is used */
};

struct at_policy {
	char **protected_paths;   /* normalized patterns (core/glob.h), NULL-terminated */
	size_t nprotected, protected_cap;
	bool has_max_files;
	size_t max_changed_files;
	bool has_max_lines;
	size_t max_changed_lines;
	bool allow_binary;        /* default true */
	bool allow_symlinks_out;  /* default false */
	bool allow_host_files;    /* "host_files": "allow"; default "review" (false) */
	bool has_open_comments;   /* "open_comments": N, the most open review comments */
	size_t max_open_comments;
	struct at_policy_check *checks;
	size_t nchecks;
};

/*
 * Parse policy text. `what` names the file in messages ("main:.agenttask/
 * policy.json", or the --policy path). Anything malformed is AT_EPOLICY with
 * a message naming the file, the key and what is wrong; *out is written
 * only on success. Release with at_policy_release().
 */
int at_policy_parse(struct at_policy *out, const char *text, const char *what,
		    struct at_error *err);
void at_policy_release(struct at_policy *p);

struct at_rule_result {
	char *rule;        /* a built-in rule's key, or a check's name */
	bool passed;
	bool is_check;
	char *message;     /* one line */
	char **paths;      /* the paths concerned (for a failure: the offending ones) */
	size_t npaths, paths_cap;
	char *output;      /* a check's output (NULL for built-in rules) */
};

struct at_policy_result {
	struct at_rule_result *rules;
	size_t count, cap;
};

/*
 * Judge a change set by the built-in rules, one result each, in the order
 * above. Only memory can fail (AT_ESYS).
 */
int at_policy_evaluate(const struct at_policy *p, const struct at_change_set *cs,
		       struct at_policy_result *out, struct at_error *err);

/*
 * Append the host_files row: paths are the changed files that tools on the
 * host run (core/hostfiles.h), all listed; it fails when there is one,
 * unless p (NULL: no policy) allows them. 0 or AT_ESYS.
 */
int at_policy_rule_host_files(const struct at_policy *p, const struct at_strlist *paths,
			      struct at_policy_result *res, struct at_error *err);

/*
 * Append the open_comments row (a task's gate): open lists the task's open
 * review comments, one line each ("ID PATH:LINE TEXT"); it fails when there
 * are more than the policy's open_comments. No row when neither p (NULL: no
 * policy) has the key nor a comment is open. 0 or AT_ESYS.
 */
int at_policy_rule_open_comments(const struct at_policy *p, const struct at_strlist *open,
				 struct at_policy_result *res, struct at_error *err);

/* Append a check's result; copies rule, message and output. 0 or AT_ESYS. */
int at_policy_result_add(struct at_policy_result *res, const char *rule, bool passed,
			 const char *message, const char *output, struct at_error *err);

bool at_policy_result_passed(const struct at_policy_result *res);
void at_policy_result_release(struct at_policy_result *res);

/*
 * True when the symlink at path (in the repository) with target leaves the
 * repository, or may: a ".." after a name ("x/../y") counts as leaving, since
 * the name may be a symlink itself.
 */
bool at_policy_link_escapes(const char *path, const char *target);

#endif
