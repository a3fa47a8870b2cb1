/*
 * strtab: a string interning table.  Each distinct byte string gets a
 * small integer id, in order of first insertion, and one stable copy.
 * Open addressing, linear probing, a word-at-a-time hash kept per string
 * (growth rehashes without reading the strings): O(1) expected per
 * operation, so deduplicating n strings is O(total length).  The copies
 * live in large chunks, freed together by strtab_free.
 */
#ifndef NSYSJAX_STRTAB_H
#define NSYSJAX_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
	char **s;		/* s[id]: NUL-terminated copy */
	size_t *len;		/* len[id]: length without the NUL */
	size_t n, cap;		/* ids in use, and capacity of s/len */
	uint32_t *hash;		/* hash[id]: the hash of s[id] */
	size_t *slot;		/* hash slots: id + 1, 0 = empty */
	size_t nslot;		/* a power of two, or 0 */
	struct strtab_chunk *chunks;	/* where the copies live */
	char *next;		/* free bytes of the newest chunk */
	size_t left;
};

#define STRTAB_NONE ((size_t)-1)

/*
 * The id of the LEN bytes at S, adding a copy if they are new (then *ADDED
 * is set to 1, else 0; ADDED may be NULL).  A zeroed strtab is empty and
 * ready.
 */
size_t strtab_intern(struct strtab *t, const char *s, size_t len, int *added);

/* The id of S[0..LEN), or STRTAB_NONE. */
size_t strtab_find(const struct strtab *t, const char *s, size_t len);

/* The copy of string ID (< t->n). */
const char *strtab_get(const struct strtab *t, size_t id);

/* Release everything and zero T. */
void strtab_free(struct strtab *t);

#endif
