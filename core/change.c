#include "core/change.h"

#include <stdlib.h>
#include <string.h>

void at_change_set_release(struct at_change_set *cs)
{
	size_t i;

	if (!cs)
		return;
	for (i = 0; i < cs->nfiles; i++) {
		free(cs->files[i].path);
		free(cs->files[i].old_path);
		free(cs->files[i].link_target);
	}
	free(cs->files);
	memset(cs, 0, sizeof(*cs));
}

const char *at_change_status_name(enum at_change_status s)
{
	switch (s) {
	case AT_CHANGE_ADDED:
		return "added";
	case AT_CHANGE_MODIFIED:
		return "modified";
	case AT_CHANGE_DELETED:
		return "deleted";
	case AT_CHANGE_RENAMED:
		return "renamed";
	case AT_CHANGE_COPIED:
		return "copied";
	case AT_CHANGE_TYPECHANGE:
		return "typechange";
	}
	return "unknown";
}
