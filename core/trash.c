#include "core/trash.h"

#include <stdlib.h>

void at_trash_list_release(struct at_trash_list *l)
{
	if (!l)
		return;
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
