#include "cmd/preview.h"

#include "core/esc.h"
#include "core/json.h"

void at_cli_preview_load(struct at_cli_preview *p, struct at_repo *r, const struct at_task *t,
			 const char *state_tree)
{
	at_error_clear(&p->err);
	p->ok = at_merge_preview_tree(r, t, state_tree, &p->pv, &p->err) == 0;
}

void at_cli_preview_release(struct at_cli_preview *p)
{
	if (p && p->ok)
		at_merge_preview_release(&p->pv);
}

void at_cli_preview_print(FILE *f, const struct at_task *t, const struct at_cli_preview *p,
			  bool color)
{
	const char *base = at_branch_short(t->base_branch);
	size_t i;

	if (!p->ok) {
		at_esc_printf(f, "cannot preview: %s\n", p->err.msg);
		return;
	}
	if (!p->pv.has_base_branch) {
		fprintf(f, "no base branch to accept into (the task began on a detached HEAD)\n");
		return;
	}
	if (p->pv.base_moved)
		fprintf(f, "%s moved on by %zu commit%s since the task began; ", base, p->pv.base_ahead,
		       p->pv.base_ahead == 1 ? "" : "s");
	else
		fprintf(f, "%s has not moved since the task began; ", base);
	if (p->pv.clean) {
		fprintf(f, "%smerges cleanly%s\n", at_cli_c(color, AT_COLOR_GREEN),
			at_cli_c(color, AT_COLOR_RESET));
		return;
	}
	/* The list in red too: the escaped names, then our reset. */
	fprintf(f, "%swould conflict in: ", at_cli_c(color, AT_COLOR_RED));
	for (i = 0; i < p->pv.conflicts.count; i++) {
		fputs(i ? ", " : "", f);
		at_esc_fputs(f, p->pv.conflicts.paths[i], 0);   /* the task's names */
	}
	fputs(at_cli_c(color, AT_COLOR_RESET), f);
	fputc('\n', f);
}

int at_cli_preview_json(at_json *o, const struct at_cli_preview *p)
{
	at_json *conflicts = at_json_array();
	size_t i;

	if (!o || !conflicts) {
		at_json_free(conflicts);
		return -1;
	}
	for (i = 0; p->ok && i < p->pv.conflicts.count; i++)
		if (at_json_append(conflicts, at_json_string(p->pv.conflicts.paths[i])) < 0) {
			at_json_free(conflicts);
			return -1;
		}
	if (at_json_add_bool(o, "base_moved", p->ok && p->pv.base_moved) < 0 ||
	    at_json_add_number(o, "base_ahead", p->ok ? (double)p->pv.base_ahead : 0) < 0 ||
	    (p->ok ? at_json_add_bool(o, "merges_cleanly", p->pv.clean) :
		     at_json_add_null(o, "merges_cleanly")) < 0 ||
	    at_json_add(o, "conflicts", conflicts) < 0)
		return -1;
	if (!p->ok && at_json_add_string(o, "preview_error", p->err.msg) < 0)
		return -1;
	return 0;
}

