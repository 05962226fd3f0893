#include "core/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/task.h"
#include "core/util.h"

void at_trace(const char *event, const char *detail)
{
	const char *file = getenv(AT_TRACE_ENV);
	char line[4200];
	int fd, n, saved = errno;

	if (!file || !*file)
		return;
	n = snprintf(line, sizeof(line), "%s %s\n", event, detail ? detail : "");
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
	errno = saved;
}

void at_test_kill_point(const char *step)
{
	const char *at = getenv(AT_KILL_AT_ENV);

	if (at && strcmp(at, step) == 0)
		kill(getpid(), SIGKILL);
}

int64_t at_test_now(void)
{
	const char *v = getenv(AT_TEST_NOW_ENV);
	char *end;
	long long n;

	if (v && *v) {
		errno = 0;
		n = strtoll(v, &end, 10);
		if (!*end && !errno && n >= 0)
			return (int64_t)n;
	}
	return (int64_t)time(NULL);
}

bool at_test_no_checkpoint(void)
{
	return getenv("AGENTTASK_TEST_NO_CHECKPOINT") != NULL;
}

int at_test_form(void)
{
	const char *form = getenv(AT_TEST_FORM_ENV);

	if (form && strcmp(form, "layered") == 0)
		return AT_FORM_LAYERED;
	if (form && strcmp(form, "full") == 0)
		return AT_FORM_FULL;
	return -1;
}
