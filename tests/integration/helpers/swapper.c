/*
 * at-test-swapper DIR READY - the attacker of the removal race tests.
 *
 * DIR holds pairs vK (a directory) and lK (a symbolic link to a host file).
 * For each pair, in the order the directory lists them (the order a remover
 * meets them), it exchanges the two names as fast as it can (renameat2
 * RENAME_EXCHANGE: atomic, so vK is always one of the two), until a remover
 * has removed one of them; then it goes on with the next pair. It works
 * from inside DIR with relative names, as a command of the task would, so
 * a rename of the worktree (discard moves it aside) does not stop it.
 * It creates the file READY once it has begun, and exits when it is done
 * with every pair.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAIRS_MAX 4096

/*
 * Exchange a and b until a remover takes one away, or until it has changed
 * the directory's mode (it has made it writable, so it is about to go in):
 * swapping on would only make it fail, not follow the link.
 */
static void swap_pair(const char *a, const char *b)
{
	struct stat st;
	mode_t mode;
	int dir = open(a, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (dir < 0 || fstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if (dir >= 0)
			close(dir);
		return;
	}
	mode = st.st_mode;
	while (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0 || errno == EINTR)
		if (fstat(dir, &st) < 0 || st.st_mode != mode || st.st_nlink == 0)
			break;
	close(dir);
}

int main(int argc, char **argv)
{
	static char names[PAIRS_MAX][2][64];
	struct dirent *de;
	size_t n = 0, i;
	DIR *d;
	int fd;

	if (argc != 3 || chdir(argv[1]) < 0 || !(d = opendir("."))) {
		fprintf(stderr, "usage: at-test-swapper DIR READY\n");
		return 2;
	}
	/* A pair once, at whichever of its names the listing shows first. */
	while ((de = readdir(d)) && n < PAIRS_MAX) {
		const char *k = de->d_name + 1;

		if ((de->d_name[0] != 'v' && de->d_name[0] != 'l') || strchr(k, '/'))
			continue;
		for (i = 0; i < n && strcmp(names[i][0] + 1, k) != 0; i++)
			;
		if (i < n || strlen(k) > 60)
			continue;
		snprintf(names[n][0], sizeof(names[n][0]), "v%s", k);
		snprintf(names[n][1], sizeof(names[n][1]), "l%s", k);
		n++;
	}
	closedir(d);
	if ((fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return 2;
	close(fd);
	for (i = 0; i < n; i++)
		swap_pair(names[i][0], names[i][1]);
	return 0;
}
