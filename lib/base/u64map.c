/* 64-bit keys to indices (u64map.h). */
#include <stdlib.h>

#include "base/mem.h"
#include "base/u64map.h"

/* The home slot of KEY: splitmix64's finaliser, so that ids counting
 * up and hashes alike spread over the slots (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014). */
static size_t
home(const struct u64map *m, uint64_t key)
{
	key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ULL;
	key = (key ^ (key >> 27)) * 0x94d049bb133111ebULL;
	return (size_t)(key ^ (key >> 31)) & (m->nslot - 1);
}

/* Put (KEY, IDX + 1) in the first free slot of KEY's probe sequence:
 * after every entry of that key, so that a walk meets them in order. */
static void
place(struct u64map *m, uint64_t key, size_t val)
{
	size_t s = home(m, key);

	while (m->val[s] != 0)
		s = (s + 1) & (m->nslot - 1);
	m->key[s] = key;
	m->val[s] = val;
}

/* Rehash into NSLOT slots, the entries placed again in slot order from
 * each run's start, which keeps the order of a key's entries. */
static void
resize(struct u64map *m, size_t nslot)
{
	uint64_t *okey = m->key;
	size_t *oval = m->val, on = m->nslot, s, start = 0;

	m->key = mem_calloc(nslot, sizeof(*m->key));
	m->val = mem_calloc(nslot, sizeof(*m->val));
	m->nslot = nslot;
	/* Begin after an empty slot: a run that wraps past the end is
	 * then visited from its first slot. */
	while (start < on && oval[start] != 0)
		start++;
	for (s = 0; s < on; s++) {
		size_t i = (start + s) % on;

		if (oval[i] != 0)
			place(m, okey[i], oval[i]);
	}
	free(okey);
	free(oval);
}

void
u64map_reserve(struct u64map *m, size_t n)
{
	size_t nslot = m->nslot ? m->nslot : 16;

	while (nslot / 2 < n)
		nslot *= 2;
	if (nslot != m->nslot)
		resize(m, nslot);
}

void
u64map_add(struct u64map *m, uint64_t key, size_t idx)
{
	u64map_reserve(m, m->n + 1);
	place(m, key, idx + 1);
	m->n++;
}

size_t
u64map_first(const struct u64map *m, uint64_t key, struct u64map_it *it)
{
	it->key = key;
	if (m->nslot == 0)
		return U64MAP_NONE;
	it->slot = home(m, key);
	for (; m->val[it->slot] != 0; it->slot = (it->slot + 1) & (m->nslot - 1))
		if (m->key[it->slot] == key)
			return m->val[it->slot] - 1;
	return U64MAP_NONE;
}

size_t
u64map_next(const struct u64map *m, struct u64map_it *it)
{
	if (m->nslot == 0 || m->val[it->slot] == 0)
		return U64MAP_NONE;
	for (it->slot = (it->slot + 1) & (m->nslot - 1); m->val[it->slot] != 0;
	    it->slot = (it->slot + 1) & (m->nslot - 1))
		if (m->key[it->slot] == it->key)
			return m->val[it->slot] - 1;
	return U64MAP_NONE;
}

size_t
u64map_get(const struct u64map *m, uint64_t key)
{
	struct u64map_it it;

	return u64map_first(m, key, &it);
}

void
u64map_free(struct u64map *m)
{
	free(m->key);
	free(m->val);
	m->key = NULL;
	m->val = NULL;
	m->nslot = m->n = 0;
}
