/*
 * u64map: 64-bit keys to indices into the caller's own array, the hash
 * table of keyed lookups that are not a string's (strtab): instruction
 * ids (hlo), device numbers (align), and composite keys, (pid,
 * correlation id) in nsysdb and (program, execution, device) in diff,
 * whose caller hashes them to one u64 (u64map_mix) and compares the
 * candidates in its array: a key may then map to several indices,
 * visited in turn.  One table keeps its own slots: stats.c's, a key per
 * thunk execution with 4-byte slots where these are 16 bytes (its
 * comment says why).
 * Open addressing with linear probing, kept at most half full: O(1)
 * expected per operation.  Keys are any 64-bit value (0 included);
 * indices are below SIZE_MAX.
 */
#ifndef NSYSJAX_U64MAP_H
#define NSYSJAX_U64MAP_H

#include <stddef.h>
#include <stdint.h>

/* A slot: key and value side by side, one cache line for a probe. */
struct u64map_slot {
	uint64_t key;
	size_t val;		/* index + 1, 0 = empty */
};

struct u64map {
	struct u64map_slot *slot;
	size_t nslot;		/* a power of two, or 0 */
	size_t n;		/* entries */
};

/* A walk over the indices of one key (u64map_first, u64map_next). */
struct u64map_it {
	uint64_t key;
	size_t slot;
};

#define U64MAP_NONE ((size_t)-1)

/* Room for N entries without growing (a zeroed map is empty and ready;
 * this only saves the rehashes when N is known). */
void u64map_reserve(struct u64map *m, size_t n);

/* Add (KEY, IDX), IDX < SIZE_MAX, even when KEY is present (then both
 * are found, the earlier first). */
void u64map_add(struct u64map *m, uint64_t key, size_t idx);

/* The first index added with KEY, or U64MAP_NONE: for keys that are
 * unique. */
size_t u64map_get(const struct u64map *m, uint64_t key);

/* The indices added with KEY, in the order added: u64map_first gives the
 * first (starting the walk IT), u64map_next each next one; U64MAP_NONE
 * when there is no more.  The map must not change during a walk. */
size_t u64map_first(const struct u64map *m, uint64_t key,
    struct u64map_it *it);
size_t u64map_next(const struct u64map *m, struct u64map_it *it);

/*
 * splitmix64's finaliser (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a bijection of the 64
 * bits in which every input bit reaches every output bit, so that ids
 * counting up and hashes alike spread over the slots.  The map applies
 * it to every key; a caller combining several values into one key
 * applies it between them.
 */
uint64_t u64map_mix(uint64_t x);

/* Release everything and zero M. */
void u64map_free(struct u64map *m);

#endif
