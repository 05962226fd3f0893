/*
 * strlist.h - a list of strings the list owns.
 *
 * v is kept NULL-terminated (v[n] == NULL once anything was added), so a
 * list can be handed on as an argv or envp. Every string is malloc'd and
 * freed by at_strlist_release(). The functions that add return 0, or -1
 * (out of memory, errno set) leaving the list as it was.
 */
#ifndef AT_CORE_STRLIST_H
#define AT_CORE_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

struct at_strlist {
	char **v;
	size_t n;
	size_t cap;
};

#define AT_STRLIST_INIT { NULL, 0, 0 }

/* Append a copy of s. */
int at_strlist_push(struct at_strlist *l, const char *s);

/* Append s itself, which the list then owns; on failure s is freed. */
int at_strlist_push_owned(struct at_strlist *l, char *s);

/* Append a copy of every string of from; -1 when out of memory (some may be in). */
int at_strlist_push_all(struct at_strlist *l, const struct at_strlist *from);

/* Append a formatted string. */
int at_strlist_pushf(struct at_strlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Sort by strcmp and drop duplicates. */
void at_strlist_sort_unique(struct at_strlist *l);

bool at_strlist_has(const struct at_strlist *l, const char *s);

/* Free every string and the array; the list is empty again. Accepts NULL. */
void at_strlist_release(struct at_strlist *l);

#endif
