/*
 * audit.h - the task's audit log: <logs_dir>/NAME.jsonl.
 *
 * One JSON object per line, appended with O_APPEND in a single write(2), so
 * concurrent writers never interleave within a line. Every entry carries an
 * "event" member saying what it records ("run" for `agenttask run`; other
 * commands add their own kinds) and a "time" (ISO 8601, UTC) unless the
 * caller set one.
 *
 * The log is append-only from agenttask's side; a line that cannot be parsed
 * (a crash mid-write on a full disk, a hand edit) does not stop the reader.
 */
#ifndef AT_CORE_AUDIT_H
#define AT_CORE_AUDIT_H

#include "core/json.h"
#include "core/task.h"

/* Largest line accepted, bytes (an entry is refused when longer). */
#define AT_AUDIT_LINE_MAX (4u << 20)

/* The log's path for task into buf; 0 or -1 (too long). */
int at_audit_path(const struct at_paths *p, const char *task, char *buf, size_t size);

/*
 * Append entry (an object; not consumed) to task's log, creating the logs
 * directory and the file (mode 0600) when missing. Adds "time" when absent.
 */
int at_audit_append(const struct at_paths *p, const char *task, at_json *entry,
		    struct at_error *err);

/*
 * Read task's log into *array_out, oldest first (an empty array when there
 * is no log yet). A line that is not a JSON object is not dropped silently:
 * it appears as {"event": "corrupt", "line": N, "error": "..."}.
 */
int at_audit_read(const struct at_paths *p, const char *task, at_json **array_out,
		  struct at_error *err);

/*
 * The same for a log's bytes (buf need not be NUL-terminated); `what`
 * names it in messages. What at_audit_read does once the file is open.
 */
int at_audit_parse(const char *buf, size_t len, const char *what, at_json **array_out,
		   struct at_error *err);

#endif
