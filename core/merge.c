#include "core/merge.h"

const char *at_merge_kind_name(enum at_merge_kind kind)
{
	static const char *const names[] = {
		[AT_MERGED_UP_TO_DATE] = "up-to-date",
		[AT_MERGED_FAST_FORWARD] = "fast-forward",
		[AT_MERGED_COMMIT] = "merge",
		[AT_MERGED_SQUASH] = "squash",
	};

	return (unsigned int)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

void at_merge_result_release(struct at_merge_result *res)
{
	if (res)
		at_strlist_release(&res->paths);
}

void at_merge_preview_release(struct at_merge_preview *p)
{
	if (p)
		at_strlist_release(&p->conflicts);
}
