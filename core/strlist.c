#include "core/strlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

int at_strlist_push_owned(struct at_strlist *l, char *s)
{
	if (!s || AT_ARRAY_GROW(l->v, l->cap, l->n + 2) < 0) {
		free(s);
		return -1;
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

int at_strlist_push(struct at_strlist *l, const char *s)
{
	return at_strlist_push_owned(l, strdup(s));
}

int at_strlist_push_all(struct at_strlist *l, const struct at_strlist *from)
{
	for (size_t i = 0; i < from->n; i++)
		if (at_strlist_push(l, from->v[i]) < 0)
			return -1;
	return 0;
}

int at_strlist_pushf(struct at_strlist *l, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return at_strlist_push_owned(l, n < 0 ? NULL : s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void at_strlist_sort_unique(struct at_strlist *l)
{
	size_t i, n = 0;

	if (l->n == 0)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_str);
	for (i = 1; i < l->n; i++) {
		if (strcmp(l->v[i], l->v[n]) == 0)
			free(l->v[i]);
		else
			l->v[++n] = l->v[i];
	}
	l->n = n + 1;
	l->v[l->n] = NULL;
}

bool at_strlist_has(const struct at_strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

void at_strlist_release(struct at_strlist *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
