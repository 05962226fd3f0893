#include "core/name.h"

#include <string.h>

#include "core/task.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int at_name_check(const char *name, struct at_error *err)
{
	size_t len, i;

	if (!name || !*name)
		return at_error_set(err, AT_EUSAGE, "task name is empty");
	len = strlen(name);
	if (len > AT_NAME_MAX)
		return at_error_set(err, AT_EUSAGE,
				    "invalid task name '%.64s...': longer than %d characters", name,
				    AT_NAME_MAX);
	for (i = 0; i < len; i++) {
		if (!name_char(name[i]))
			return at_error_set(err, AT_EUSAGE,
					    "invalid task name '%s': only letters, digits, '.', '_' and '-' are allowed",
					    name);
	}
	if (!alnum(name[0]))
		return at_error_set(err, AT_EUSAGE,
				    "invalid task name '%s': must start with a letter or digit", name);
	if (strstr(name, ".."))
		return at_error_set(err, AT_EUSAGE, "invalid task name '%s': contains '..'", name);
	if (name[len - 1] == '.' || (len >= 5 && strcmp(name + len - 5, ".lock") == 0))
		return at_error_set(err, AT_EUSAGE,
				    "invalid task name '%s': may not end in '.' or '.lock'", name);
	return 0;
}
