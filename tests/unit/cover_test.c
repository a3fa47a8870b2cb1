/*
 * cover: a union of intervals checked by hand.
 */
#include <stdint.h>

#include "base/cover.h"
#include "unit.h"

/*
 * [0, 10) a, [5, 20) b, [6, 15) c (inside), [20, 25) d (touching),
 * [30, 40) e: pieces [0, 10) a, [10, 20) b, [20, 25) d, [30, 40) e.
 */
int
main(void)
{
	struct cover c = { 0 };

	cover_add(&c, 0, 10, 0);
	cover_add(&c, 5, 20, 1);
	cover_add(&c, 6, 15, 2);
	cover_add(&c, 20, 25, 3);
	cover_add(&c, 22, 22, 9);	/* empty */
	cover_add(&c, 30, 40, 4);
	cover_done(&c);
	CHECK_INT(c.n, 4);
	if (c.n == 4) {
		CHECK_INT(c.p[0].id, 0);
		CHECK_INT(c.p[1].start, 10);
		CHECK_INT(c.p[1].id, 1);
		CHECK_INT(c.p[2].id, 3);
		CHECK_INT(c.p[3].start, 30);
	}
	CHECK_INT(cover_len(&c, 0, 40), 35);
	CHECK_INT(cover_len(&c, 8, 32), 2 + 10 + 5 + 2);
	CHECK_INT(cover_len(&c, 25, 30), 0);
	CHECK_INT(cover_len(&c, 12, 11), 0);
	CHECK_INT(cover_find(&c, 10), 1);
	CHECK_INT(cover_find(&c, 40), 4);
	/* Reused. */
	cover_reset(&c);
	cover_done(&c);
	CHECK_INT(cover_len(&c, 0, 40), 0);
	cover_free(&c);
	return unit_done("cover");
}
