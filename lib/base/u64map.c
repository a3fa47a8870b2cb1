/* 64-bit keys to indices (u64map.h). */
#include <stdlib.h>

#include "base/mem.h"
#include "base/u64map.h"

uint64_t
u64map_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The home slot of KEY (u64map_mix). */
static size_t
home(const struct u64map *m, uint64_t key)
{
	return (size_t)u64map_mix(key) & (m->nslot - 1);
}

/* Put (KEY, VAL = index + 1) in the first free slot of KEY's probe
 * sequence: after every entry of that key, so that a walk meets them
 * in order. */
static void
place(struct u64map *m, uint64_t key, size_t val)
{
	size_t s = home(m, key);

	while (m->slot[s].val != 0)
		s = (s + 1) & (m->nslot - 1);
	m->slot[s].key = key;
	m->slot[s].val = val;
}

/* Rehash into NSLOT slots, the entries placed again in slot order from
 * each run's start, which keeps the order of a key's entries. */
static void
resize(struct u64map *m, size_t nslot)
{
	struct u64map_slot *old = m->slot;
	size_t on = m->nslot, s, start = 0;

	m->slot = mem_calloc(nslot, sizeof(*m->slot));
	m->nslot = nslot;
	/* Begin after an empty slot: a run that wraps past the end is
	 * then visited from its first slot. */
	while (start < on && old[start].val != 0)
		start++;
	for (s = 0; s < on; s++) {
		size_t i = (start + s) % on;

		if (old[i].val != 0)
			place(m, old[i].key, old[i].val);
	}
	free(old);
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
	const struct u64map_slot *sl = m->slot;
	size_t mask = m->nslot - 1, s;

	it->key = key;
	if (m->nslot == 0)
		return U64MAP_NONE;
	for (s = home(m, key); sl[s].val != 0; s = (s + 1) & mask)
		if (sl[s].key == key) {
			it->slot = s;
			return sl[s].val - 1;
		}
	it->slot = s;
	return U64MAP_NONE;
}

size_t
u64map_next(const struct u64map *m, struct u64map_it *it)
{
	const struct u64map_slot *sl = m->slot;
	size_t mask = m->nslot - 1, s = it->slot;

	if (m->nslot == 0 || sl[s].val == 0)
		return U64MAP_NONE;
	for (s = (s + 1) & mask; sl[s].val != 0; s = (s + 1) & mask)
		if (sl[s].key == it->key) {
			it->slot = s;
			return sl[s].val - 1;
		}
	it->slot = s;
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
	free(m->slot);
	m->slot = NULL;
	m->nslot = m->n = 0;
}
