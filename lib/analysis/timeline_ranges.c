/*
 * The lists of integer ranges of nsysjax-timeline's --steps and
 * --devices (analysis/timeline.h: tl_ranges), apart from the timeline
 * itself (timeline.c), which only asks them whether a value is in.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"

int
tl_ranges_parse(const char *s, struct tl_ranges *r)
{
	const char *p = s, *e, *dash;
	int64_t lo, hi;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	for (;;) {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		dash = memchr(p, '-', (size_t)(e - p));
		if (num_i64(p, (size_t)((dash ? dash : e) - p), &lo) != 0 ||
		    (dash && num_i64(dash + 1, (size_t)(e - dash - 1), &hi)
		    != 0) || lo < 0) {
			tl_ranges_free(r);
			return err_fail("'%s': not a list of numbers and "
			    "ranges (1,3-5)", s);
		}
		if (!dash)
			hi = lo;
		if (hi < lo) {
			tl_ranges_free(r);
			return err_fail("'%s': range %" PRId64 "-%" PRId64
			    " is empty", s, lo, hi);
		}
		if (r->n == cap) {
			size_t c2 = cap;
			mem_grow(&r->lo, &cap, r->n + 1, sizeof(int64_t));
			mem_grow(&r->hi, &c2, r->n + 1, sizeof(int64_t));
		}
		r->lo[r->n] = lo;
		r->hi[r->n++] = hi;
		if (*e == '\0')
			return 0;
		p = e + 1;
	}
}

int
tl_ranges_has(const struct tl_ranges *r, int64_t v)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (v >= r->lo[i] && v <= r->hi[i])
			return 1;
	return 0;
}

void
tl_ranges_free(struct tl_ranges *r)
{
	free(r->lo);
	free(r->hi);
	memset(r, 0, sizeof(*r));
}
