/* sort: a stable merge sort with a context argument (see sort.h). */
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
		if (r->cmp(b1, b2, r->ctx) <= 0) {
			memcpy(t, b1, sz);
			b1 += sz;
			n1--;
		} else {
			memcpy(t, b2, sz);
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
