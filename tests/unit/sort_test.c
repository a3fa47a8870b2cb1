/* sort: sort_stable against an insertion sort (stable by construction),
 * with many ties, and the context reaching the comparator; sort_lower_bound
 * against a linear scan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "unit.h"

struct el {
	int key;
	size_t pos;		/* input position: shows stability */
	char pad[40];		/* a large element, as diff.c's rows */
};

/* Keys modulo CTX's value: many ties. */
static int
cmp_mod(const void *a, const void *b, const void *ctx)
{
	int m = *(const int *)ctx;
	int x = ((const struct el *)a)->key % m;
	int y = ((const struct el *)b)->key % m;

	return (x > y) - (x < y);
}

static void
insertion(struct el *v, size_t n, int m)
{
	size_t i, j;
	struct el t;

	for (i = 1; i < n; i++) {
		t = v[i];
		for (j = i; j > 0 && cmp_mod(&v[j - 1], &t, &m) > 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

static void
random_ties(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 7, 16, 17, 100, 1000 };
	static const int mods[] = { 1, 2, 5, 1000 };
	struct el *a = calloc(1000, sizeof(*a)), *b = calloc(1000, sizeof(*b));
	unsigned seed = 12345;
	size_t s, i, bad;
	int k;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (k = 0; k < 4; k++) {
			for (i = 0; i < sizes[s]; i++) {
				seed = seed * 1103515245u + 12345u;
				a[i].key = (int)(seed >> 8) & 0xffff;
				a[i].pos = i;
				memset(a[i].pad, (int)i, sizeof(a[i].pad));
			}
			memcpy(b, a, sizes[s] * sizeof(*a));
			sort_stable(a, sizes[s], sizeof(*a), cmp_mod,
			    &mods[k]);
			insertion(b, sizes[s], mods[k]);
			for (bad = 0, i = 0; i < sizes[s]; i++)
				bad += a[i].pos != b[i].pos ||
				    a[i].pad[39] != (char)a[i].pos;
			CHECK_INT(bad, 0);
		}
	/* A NULL array of no elements is allowed. */
	sort_stable(NULL, 0, sizeof(*a), cmp_mod, &mods[0]);
	free(a);
	free(b);
}

/* sort_idx's comparator: the keys of CTX's records modulo 7. */
static int
cmp_idx(uint32_t a, uint32_t b, const void *ctx)
{
	const struct el *v = ctx;
	int x = v[a].key % 7, y = v[b].key % 7;

	return (x > y) - (x < y);
}

/* sort_idx against the insertion sort, on inputs of every shape it
 * treats apart: random, already in order, reversed, runs of a few
 * sorted blocks, sizes 0..1000. */
static void
idx_shapes(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 5, 64, 65, 1000 };
	struct el *a = calloc(1000, sizeof(*a)), *b = calloc(1000, sizeof(*b));
	uint32_t *v = calloc(1000, sizeof(*v));
	unsigned seed = 777;
	size_t s, i, bad;
	int shape;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (shape = 0; shape < 4; shape++) {
			size_t n = sizes[s];

			for (i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				a[i].key = shape == 0 ? (int)(seed >> 8) & 0xffff :
				    shape == 1 ? (int)i * 7 : shape == 2 ?
				    (int)(n - i) * 7 : (int)(i % 50) * 7 +
				    (int)(i / 50 % 3);
				a[i].pos = i;
				v[i] = (uint32_t)i;
			}
			memcpy(b, a, n * sizeof(*a));
			sort_idx(v, n, cmp_idx, a);
			insertion(b, n, 7);
			for (bad = 0, i = 0; i < n; i++)
				bad += v[i] != b[i].pos;
			CHECK_INT(bad, 0);
		}
	free(a);
	free(b);
	free(v);
}

/* A total order on indices into the keys of CTX: key, then index; and
 * the number of calls. */
static int ncmp;

static int
cmp_total(const void *a, const void *b, const void *ctx)
{
	const int *k = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	ncmp++;
	if (k[x] != k[y])
		return k[x] < k[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* sort_total: indices in order are left after n - 1 comparisons; out of
 * order, sorted as sort_stable sorts them (a total order: one result). */
static void
total_orders(void)
{
	enum { N = 500 };
	int k[N];
	size_t v[N], w[N], i, bad = 0;
	unsigned seed = 4242;

	for (i = 0; i < N; i++) {
		k[i] = (int)i / 3;
		v[i] = i;
	}
	ncmp = 0;
	sort_total(v, N, sizeof(*v), cmp_total, k);
	CHECK_INT(ncmp, N - 1);
	for (i = 0; i < N; i++)
		bad += v[i] != i;
	for (i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		k[i] = (int)(seed >> 16) % 40;
		v[i] = w[i] = i;
	}
	sort_total(v, N, sizeof(*v), cmp_total, k);
	sort_stable(w, N, sizeof(*w), cmp_total, k);
	for (i = 0; i < N; i++)
		bad += v[i] != w[i] || (i > 0 && (k[v[i - 1]] > k[v[i]] ||
		    (k[v[i - 1]] == k[v[i]] && v[i - 1] > v[i])));
	CHECK_INT((int)bad, 0);
}

/* sort_lower_bound's comparator: an element's key against a bare int
 * KEY, in the direction CTX gives (1 ascending, -1 descending); counts
 * its calls. */
static int
cmp_key(const void *a, const void *b, const void *ctx)
{
	int x = ((const struct el *)a)->key, y = *(const int *)b;

	ncmp++;
	return *(const int *)ctx * ((x > y) - (x < y));
}

/* The first index of V[0..N) that DIR's order does not put before KEY,
 * by a linear scan. */
static size_t
linear_lower(const struct el *v, size_t n, int key, int dir)
{
	size_t i;

	for (i = 0; i < n && (dir > 0 ? v[i].key < key : v[i].key > key); i++)
		;
	return i;
}

/* The number of CMP calls a bisection of N may take: floor(log2 N) + 1. */
static int
max_calls(size_t n)
{
	int c = 0;

	for (; n > 0; n /= 2)
		c++;
	return c;
}

/* V[0..N): keys drawn from [0, SPREAD), sorted in DIR's order. */
static void
sorted_keys(struct el *v, size_t n, int spread, int dir, uint64_t *state)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i].key = (int)(unit_rand(state) % (uint64_t)spread);
	insertion(v, n, 1000);
	for (i = 0; dir < 0 && i < n / 2; i++) {
		int t = v[i].key;

		v[i].key = v[n - 1 - i].key;
		v[n - 1 - i].key = t;
	}
}

/* For every key from 2 below to 2 beyond V[0..N)'s [0, SPREAD): the
 * number of keys sort_lower_bound answers otherwise than linear_lower,
 * and in *SLOW of those it took more calls than the bound. */
static size_t
mismatches(const struct el *v, size_t n, int spread, const int *dir,
    size_t *slow)
{
	size_t bad = 0;
	int key;

	for (key = -2; key <= spread + 2; key++) {
		ncmp = 0;
		bad += sort_lower_bound(v, n, sizeof(*v), &key, cmp_key, dir) !=
		    linear_lower(v, n, key, *dir);
		*slow += ncmp > max_calls(n);
	}
	return bad;
}

/* sort_lower_bound against linear_lower on sorted arrays (ascending and
 * descending) of sizes 0..200 with runs of equal keys (drawn from 1, 4,
 * 16 or 64 values), for every key from below the least to beyond the
 * greatest, through elements of 56 bytes; also a part [lo, hi) of an
 * array as the header says, and no array at all. */
static void
lower_bounds(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 4, 7, 8, 9, 31, 64, 200 };
	static const int dirs[] = { 1, -1 };
	struct el *v = calloc(200, sizeof(*v));
	uint64_t state = 99;
	size_t s, i, bad = 0, slow = 0;
	int d, key, spread;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (d = 0; d < 2; d++)
			for (spread = 1; spread <= 64; spread *= 4) {
				sorted_keys(v, sizes[s], spread, dirs[d],
				    &state);
				bad += mismatches(v, sizes[s], spread, &dirs[d],
				    &slow);
			}
	CHECK_INT(bad, 0);
	CHECK_INT(slow, 0);
	/* A part [3, 9) of 0 1 ... 11 (ascending): key 5 at 5 - 3, keys
	 * beyond it at its ends. */
	for (i = 0; i < 12; i++)
		v[i].key = (int)i;
	key = 5;
	CHECK_INT(sort_lower_bound(v + 3, 9 - 3, sizeof(*v), &key, cmp_key,
	    &dirs[0]), 2);
	key = 0;
	CHECK_INT(sort_lower_bound(v + 3, 9 - 3, sizeof(*v), &key, cmp_key,
	    &dirs[0]), 0);
	key = 11;
	CHECK_INT(sort_lower_bound(v + 3, 9 - 3, sizeof(*v), &key, cmp_key,
	    &dirs[0]), 6);
	/* No array: no call, 0. */
	ncmp = 0;
	CHECK_INT(sort_lower_bound(NULL, 0, sizeof(*v), &key, cmp_key,
	    &dirs[0]), 0);
	CHECK_INT(ncmp, 0);
	free(v);
}

int
main(void)
{
	random_ties();
	idx_shapes();
	total_orders();
	lower_bounds();
	return unit_done("sort");
}
