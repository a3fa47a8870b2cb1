/*
 * cover: the union of intervals on one time line, each of its points
 * attributed to one interval: which time a device was busy, and with
 * what.  The union is kept as disjoint pieces in time order; a point
 * covered by several intervals belongs to the one that started first
 * (of those still running), so a piece never leaves the interval it is
 * attributed to.  Intervals are added in the order of their starts;
 * O(1) amortised per interval, O(log pieces) per query.
 */
#ifndef NSYSJAX_COVER_H
#define NSYSJAX_COVER_H

#include <stddef.h>
#include <stdint.h>

/* One piece of the union: [start, end), attributed to interval id. */
struct cover_piece {
	int64_t start, end;
	size_t id;
};

struct cover {
	struct cover_piece *p;	/* the pieces, by start (after cover_done) */
	size_t n, cap;
	int64_t *cum;		/* cum[k]: the length of pieces 0..k-1 */
	size_t capcum;
	int open;		/* a piece is being extended */
	struct cover_piece cur;
};

/* An empty cover (memory kept: reuse after cover_reset). */
void cover_reset(struct cover *c);

/* Release C's memory; C is then empty. */
void cover_free(struct cover *c);

/*
 * Add interval [START, END) with the caller's ID.  Intervals come in
 * order of START (ties in any order); an empty one (END <= START) adds
 * nothing.
 */
void cover_add(struct cover *c, int64_t start, int64_t end, size_t id);

/* Close C after the last cover_add: the queries below need it. */
void cover_done(struct cover *c);

/* The length of [A, B) inside the union, in the intervals' unit
 * (0 when B <= A). */
int64_t cover_len(const struct cover *c, int64_t a, int64_t b);

/* The index of the first piece that ends after T (C->n: none). */
size_t cover_find(const struct cover *c, int64_t t);

#endif
