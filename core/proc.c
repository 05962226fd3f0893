#include "core/proc.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int at_proc_stat(int pid, long long *start, char *state)
{
	char path[64], text[2048], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	/* The command name, in parentheses, may hold anything: fields follow the last ')'. */
	if (!(p = strrchr(text, ')')) || p[1] != ' ')
		return -1;
	*state = p[2];
	/* Fields 3 (state) to 22 (starttime): skip 19 of them. */
	for (p += 2, i = 0; i < 19 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p && sscanf(p, "%lld", start) == 1 ? 0 : -1;
}

long long at_proc_self_start(void)
{
	long long start = 0;
	char state;

	if (at_proc_stat((int)getpid(), &start, &state) < 0)
		return 0;
	return start;
}

bool at_proc_alive(int pid, long long start)
{
	long long now;
	char state;

	return pid > 0 && at_proc_stat(pid, &now, &state) == 0 && now == start && state != 'Z' &&
	       state != 'X';
}
