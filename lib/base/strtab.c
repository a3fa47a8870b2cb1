#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strtab.h"

/*
 * The copies live in chunks, each allocated once and never moved, so that
 * s[id] stays valid: small ones for a table's first strings (a tool may
 * keep a table per program), then STRTAB_CHUNK bytes; a longer copy gets
 * a chunk of its own.  One malloc per string was
 * a fifth of nsysjax-fold's time.
 */
#define STRTAB_CHUNK ((size_t)64 * 1024)

struct strtab_chunk {
	struct strtab_chunk *next;
	char data[];
};

/*
 * The hash of S[0..LEN), sixteen bytes at a step in two independent
 * lanes of eight (FNV-1a went a byte at a step, four cycles each: a third
 * of nsysjax-fold's time on its long folded lines; one lane waited on its
 * own multiply every word).  Each word is mixed in with a multiply (the
 * golden-ratio constant, as Fibonacci hashing); the last bytes are read
 * as one word ending at the end (overlapping the words before), or from
 * the first and last four, or bytes 0, n/2 and n-1 (as wyhash does)
 * rather than by a memcpy of variable length, a call per string; the
 * result is finished with MurmurHash3's fmix64, so that the low bits,
 * which pick the slot, depend on every byte.
 */
#define MIX1 0x9e3779b97f4a7c15ULL
#define MIX2 0xc2b2ae3d27d4eb4fULL

static uint64_t
hash(const char *s, size_t len)
{
	uint64_t a = MIX1 ^ len, b = MIX2, w, x, h;
	size_t n = len;

	for (; n >= 16; s += 16, n -= 16) {
		memcpy(&w, s, 8);
		memcpy(&x, s + 8, 8);
		a = (a ^ w) * MIX1;
		a ^= a >> 29;
		b = (b ^ x) * MIX2;
		b ^= b >> 29;
	}
	if (n >= 8) {
		memcpy(&w, s, 8);
		a = (a ^ w) * MIX1;
		a ^= a >> 29;
		s += 8;
		n -= 8;
	}
	if (n > 0) {
		if (len >= 8) {
			memcpy(&w, s + n - 8, 8);
		} else if (n >= 4) {
			uint32_t lo, hi;

			memcpy(&lo, s, 4);
			memcpy(&hi, s + n - 4, 4);
			w = (uint64_t)lo << 32 | hi;
		} else {
			w = (uint64_t)(unsigned char)s[0] << 16 |
			    (uint64_t)(unsigned char)s[n / 2] << 8 |
			    (unsigned char)s[n - 1];
		}
		b = (b ^ w) * MIX1;
	}
	h = a ^ (b ^ b >> 31) * MIX2;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* The slot holding S (hash H), or the empty slot where it would go. */
static size_t
probe(const struct strtab *t, const char *s, size_t len, uint32_t h)
{
	size_t mask = t->nslot - 1, i = (size_t)h & mask;

	while (t->slot[i]) {
		size_t id = t->slot[i] - 1;

		if (t->hash[id] == h && t->len[id] == len &&
		    memcmp(t->s[id], s, len) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* Twice the slots, filled from the stored hashes (no string is read). */
static void
rehash(struct strtab *t)
{
	size_t id, mask, i;

	free(t->slot);
	t->nslot = t->nslot ? t->nslot * 2 : 64;
	t->slot = mem_calloc(t->nslot, sizeof(*t->slot));
	mask = t->nslot - 1;
	for (id = 0; id < t->n; id++) {
		for (i = t->hash[id] & mask; t->slot[i]; i = (i + 1) & mask)
			;
		t->slot[i] = id + 1;
	}
}

size_t
strtab_find(const struct strtab *t, const char *s, size_t len)
{
	size_t i;

	if (t->nslot == 0)
		return STRTAB_NONE;
	i = probe(t, s, len, (uint32_t)hash(s, len));
	return t->slot[i] ? t->slot[i] - 1 : STRTAB_NONE;
}

/* A stable copy of S[0..LEN), NUL-terminated, from T's chunks. */
static char *
copy(struct strtab *t, const char *s, size_t len)
{
	char *d;

	if (len + 1 > t->left) {
		size_t size = t->n < 256 ? STRTAB_CHUNK / 32 : STRTAB_CHUNK;
		struct strtab_chunk *c;

		if (size < len + 1)
			size = len + 1;
		c = mem_alloc(sizeof(*c) + size);
		c->next = t->chunks;
		t->chunks = c;
		t->next = c->data;
		t->left = size;
	}
	d = t->next;
	memcpy(d, s, len);
	d[len] = '\0';
	t->next += len + 1;
	t->left -= len + 1;
	return d;
}

size_t
strtab_intern(struct strtab *t, const char *s, size_t len, int *added)
{
	size_t i, cap, cap2;
	uint32_t h;

	if ((t->n + 1) * 2 > t->nslot)
		rehash(t);
	h = (uint32_t)hash(s, len);
	i = probe(t, s, len, h);
	if (added)
		*added = t->slot[i] == 0;
	if (t->slot[i])
		return t->slot[i] - 1;
	cap = cap2 = t->cap;
	mem_grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s));
	mem_grow(&t->len, &cap, t->n + 1, sizeof(*t->len));
	mem_grow(&t->hash, &cap2, t->n + 1, sizeof(*t->hash));
	t->s[t->n] = copy(t, s, len);
	t->len[t->n] = len;
	t->hash[t->n] = h;
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
	struct strtab_chunk *c, *next;

	for (c = t->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(t->s);
	free(t->len);
	free(t->hash);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
