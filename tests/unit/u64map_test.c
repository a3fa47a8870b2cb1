#include <stdint.h>

#include "base/u64map.h"
#include "unit.h"

/* Every index of KEY in M, in walk order, against WANT[0..N). */
static void
check_walk(const struct u64map *m, uint64_t key, const size_t *want, size_t n)
{
	struct u64map_it it;
	size_t i = 0, idx;

	for (idx = u64map_first(m, key, &it); idx != U64MAP_NONE;
	    idx = u64map_next(m, &it), i++)
		CHECK(i < n && idx == want[i]);
	CHECK_INT(i, n);
}

int
main(void)
{
	struct u64map m = { 0 };
	static const size_t dup[] = { 1, 3, 70000 };
	size_t i, bad = 0;

	/* Empty, and key 0 and UINT64_MAX are keys like any other. */
	CHECK_INT(u64map_get(&m, 0), U64MAP_NONE);
	u64map_add(&m, 0, 0);
	u64map_add(&m, 42, 1);
	u64map_add(&m, UINT64_MAX, 2);
	u64map_add(&m, 42, 3);
	CHECK_INT(u64map_get(&m, 0), 0);
	CHECK_INT(u64map_get(&m, UINT64_MAX), 2);
	CHECK_INT(u64map_get(&m, 7), U64MAP_NONE);
	/* Ids counting up (the keys hlo and align see): every one found
	 * after the rehashes, the duplicate key's indices in the order
	 * added, across rehashes too. */
	for (i = 4; i < 100000; i++)
		u64map_add(&m, i == 70000 ? 42 : 1000 + i, i);
	CHECK_INT(m.n, 100000);
	CHECK(m.n * 2 <= m.nslot);
	for (i = 4; i < 100000; i++)
		if (i != 70000 && u64map_get(&m, 1000 + i) != i)
			bad++;
	CHECK_INT(bad, 0);
	check_walk(&m, 42, dup, 3);
	check_walk(&m, 5, NULL, 0);
	/* Keys sharing their low bits (a hash's collisions). */
	u64map_free(&m);
	CHECK_INT(m.nslot, 0);
	u64map_reserve(&m, 1000);
	CHECK(m.nslot >= 2000);
	for (i = 0; i < 1000; i++)
		u64map_add(&m, (uint64_t)i << 40, i);
	for (i = 0; i < 1000; i++)
		if (u64map_get(&m, (uint64_t)i << 40) != i)
			bad++;
	CHECK_INT(bad, 0);
	u64map_free(&m);
	return unit_done("u64map");
}
