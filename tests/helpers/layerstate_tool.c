/*
 * layerstate_tool REPO LOWER_TREE LOWER UPPER [INDEX] - git/layerstate.h's
 * at_layer_state() on a lower and an upper directory, for bench/layer.sh
 * and for trying a layer by hand: prints the state's tree and, with -v
 * first, the changed paths (status, tab, path). No CLI surface of agenttask.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/change.h"
#include "core/oid.h"
#include "git/layerstate.h"
#include "git/repo.h"

int main(int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_change_set cs;
	struct at_repo *r = NULL;
	struct at_oid lower_tree, tree;
	char hex[AT_OID_HEXSZ + 1];
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0, lower, upper, rc;
	size_t i;

	argv += verbose;
	argc -= verbose;
	if (argc < 5 || argc > 6 || at_oid_parse(&lower_tree, argv[2]) < 0) {
		fprintf(stderr, "usage: layerstate_tool [-v] REPO LOWER_TREE LOWER UPPER [INDEX]\n");
		return 2;
	}
	lower = open(argv[3], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	upper = open(argv[4], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lower < 0 || upper < 0) {
		perror("layerstate_tool: open");
		return 1;
	}
	if ((rc = at_repo_open(&r, argv[1], &err)) == 0)
		rc = at_layer_state(r, NULL, &lower_tree, lower, upper, argc == 6 ? argv[5] : NULL, &tree,
				    verbose ? &cs : NULL, &err);
	if (rc < 0) {
		fprintf(stderr, "layerstate_tool: %s\n", err.msg);
		at_repo_free(r);
		return 1;
	}
	at_oid_fmt(hex, &tree);
	printf("%s\n", hex);
	for (i = 0; verbose && i < cs.nfiles; i++)
		printf("%c\t%s\n", (char)cs.files[i].status, cs.files[i].path);
	if (verbose)
		at_change_set_release(&cs);
	at_repo_free(r);
	close(lower);
	close(upper);
	return 0;
}
