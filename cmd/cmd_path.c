#include <stdio.h>

#include "cmd/commands.h"

int cmd_path(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct at_task task;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1)
		return c == 'h' ? at_cli_help("path") : at_cli_bad_option("path");
	if (optind + 1 != argc)
		return at_cli_usage("path", optind >= argc ? "missing task NAME" : "too many arguments");
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_cli_task(cli, repo, argv[optind], &task, &err);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	printf("%s\n", task.path);
	return AT_EXIT_OK;
}
