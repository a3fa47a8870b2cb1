/*
 * cover: the union of intervals with each point attributed (cover.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/cover.h"
#include "base/mem.h"

void
cover_reset(struct cover *c)
{
	c->n = 0;
	c->open = 0;
}

void
cover_free(struct cover *c)
{
	free(c->p);
	free(c->cum);
	memset(c, 0, sizeof(*c));
}

static void
emit(struct cover *c, int64_t start, int64_t end, size_t id)
{
	if (end <= start)
		return;
	mem_grow(&c->p, &c->cap, c->n + 1, sizeof(*c->p));
	c->p[c->n++] = (struct cover_piece){ start, end, id };
}

void
cover_add(struct cover *c, int64_t start, int64_t end, size_t id)
{
	if (end <= start)
		return;
	if (!c->open || start >= c->cur.end) {
		if (c->open)
			emit(c, c->cur.start, c->cur.end, c->cur.id);
		c->cur = (struct cover_piece){ start, end, id };
		c->open = 1;
		return;
	}
	if (end <= c->cur.end)
		return;		/* inside what is covered already */
	/* It runs on past the current piece: what it adds is its own. */
	emit(c, c->cur.start, c->cur.end, c->cur.id);
	c->cur = (struct cover_piece){ c->cur.end, end, id };
}

void
cover_done(struct cover *c)
{
	size_t k;

	if (c->open)
		emit(c, c->cur.start, c->cur.end, c->cur.id);
	c->open = 0;
	mem_grow(&c->cum, &c->capcum, c->n + 1, sizeof(*c->cum));
	c->cum[0] = 0;
	for (k = 0; k < c->n; k++)
		c->cum[k + 1] = c->cum[k] + (c->p[k].end - c->p[k].start);
}

size_t
cover_find(const struct cover *c, int64_t t)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->p[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The covered length before T. */
static int64_t
before(const struct cover *c, int64_t t)
{
	size_t k = cover_find(c, t);
	int64_t x = c->cum[k];

	if (k < c->n && c->p[k].start < t)
		x += t - c->p[k].start;
	return x;
}

int64_t
cover_len(const struct cover *c, int64_t a, int64_t b)
{
	if (b <= a || c->n == 0)
		return 0;
	return before(c, b) - before(c, a);
}
