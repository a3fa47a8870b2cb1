/* sort: a stable merge sort with a context argument, and a lower bound
 * (see sort.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"

struct run {
	size_t size;
	sort_cmp cmp;
	const void *ctx;
	unsigned char *tmp;
};

/* Copy one element of SZ bytes: a constant size for the usual index
 * arrays, which the compiler copies inline rather than calling memcpy
 * (a tenth of nsysjax-critpath's time at 256 processes). */
static inline void
copy(unsigned char *dst, const unsigned char *src, size_t sz)
{
	if (sz == sizeof(size_t))
		memcpy(dst, src, sizeof(size_t));
	else if (sz == sizeof(uint32_t))
		memcpy(dst, src, sizeof(uint32_t));
	else
		memcpy(dst, src, sz);
}

/* Sort B[0..N) (elements of r->size bytes) using r->tmp[0..N). */
static void
msort(const struct run *r, unsigned char *b, size_t n)
{
	size_t n1 = n / 2, n2 = n - n1, sz = r->size;
	unsigned char *b1 = b, *b2 = b + n1 * sz, *t = r->tmp;

	if (n < 2)
		return;
	msort(r, b1, n1);
	msort(r, b2, n2);
	while (n1 > 0 && n2 > 0) {
		int left = r->cmp(b1, b2, r->ctx) <= 0;

		copy(t, left ? b1 : b2, sz);
		if (left) {
			b1 += sz;
			n1--;
		} else {
			b2 += sz;
			n2--;
		}
		t += sz;
	}
	/* What is left of the right half is already in place. */
	if (n1 > 0)
		memcpy(t, b1, n1 * sz);
	memcpy(b, r->tmp, (n - n2) * sz);
}

void
sort_stable(void *base, size_t n, size_t size, sort_cmp cmp,
    const void *ctx)
{
	struct run r;

	if (n < 2 || size == 0)
		return;
	r.size = size;
	r.cmp = cmp;
	r.ctx = ctx;
	r.tmp = mem_calloc(n, size);
	msort(&r, base, n);
	free(r.tmp);
}

void
sort_total(void *base, size_t n, size_t size, sort_cmp cmp, const void *ctx)
{
	const unsigned char *b = base;
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp(b + (i - 1) * size, b + i * size, ctx) > 0)
			break;
	if (i < n)
		sort_stable(base, n, size, cmp, ctx);
}

/* The end of the run of V[0..N) in order from A (A < N). */
static size_t
run_end(const uint32_t *v, size_t a, size_t n, sort_idx_cmp cmp,
    const void *ctx)
{
	for (a++; a < n && cmp(v[a - 1], v[a], ctx) <= 0; a++)
		;
	return a;
}

void
sort_idx(uint32_t *v, size_t n, sort_idx_cmp cmp, const void *ctx)
{
	uint32_t *src = v, *dst, *tmp;
	size_t nrun;

	if (n < 2 || run_end(v, 0, n, cmp, ctx) == n)
		return;
	tmp = dst = mem_calloc(n, sizeof(*v));
	do {
		size_t i = 0;
		uint32_t *t;

		for (nrun = 0; i < n; nrun++) {
			size_t a = i, ae = run_end(src, a, n, cmp, ctx);
			size_t b = ae, be = b < n ? run_end(src, b, n, cmp, ctx) : b;
			size_t o = a;

			/* Ties take the left element: stable. */
			while (a < ae && b < be)
				dst[o++] = cmp(src[b], src[a], ctx) < 0 ?
				    src[b++] : src[a++];
			memcpy(dst + o, src + a, (ae - a) * sizeof(*v));
			o += ae - a;
			memcpy(dst + o, src + b, (be - b) * sizeof(*v));
			i = be;
		}
		t = src, src = dst, dst = t;
	} while (nrun > 1);
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

size_t
sort_lower_bound(const void *base, size_t n, size_t size, const void *key,
    sort_cmp cmp, const void *ctx)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp(b + mid * size, key, ctx) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
