#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strtab.h"

static uint64_t
fnv1a(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The slot holding S, or the empty slot where it would go. */
static size_t
probe(const struct strtab *t, const char *s, size_t len)
{
	size_t mask = t->nslot - 1, i = (size_t)fnv1a(s, len) & mask;

	while (t->slot[i]) {
		size_t id = t->slot[i] - 1;

		if (t->len[id] == len && memcmp(t->s[id], s, len) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

static void
rehash(struct strtab *t)
{
	size_t id;

	free(t->slot);
	t->nslot = t->nslot ? t->nslot * 2 : 64;
	t->slot = mem_calloc(t->nslot, sizeof(*t->slot));
	for (id = 0; id < t->n; id++)
		t->slot[probe(t, t->s[id], t->len[id])] = id + 1;
}

size_t
strtab_find(const struct strtab *t, const char *s, size_t len)
{
	size_t i;

	if (t->nslot == 0)
		return STRTAB_NONE;
	i = probe(t, s, len);
	return t->slot[i] ? t->slot[i] - 1 : STRTAB_NONE;
}

size_t
strtab_intern(struct strtab *t, const char *s, size_t len, int *added)
{
	size_t i, cap;

	if ((t->n + 1) * 2 > t->nslot)
		rehash(t);
	i = probe(t, s, len);
	if (added)
		*added = t->slot[i] == 0;
	if (t->slot[i])
		return t->slot[i] - 1;
	cap = t->cap;
	mem_grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s));
	mem_grow(&t->len, &cap, t->n + 1, sizeof(*t->len));
	t->s[t->n] = mem_strndup(s, len);
	t->len[t->n] = len;
	t->slot[i] = ++t->n;
	return t->n - 1;
}

const char *
strtab_get(const struct strtab *t, size_t id)
{
	return t->s[id];
}

void
strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->len);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
