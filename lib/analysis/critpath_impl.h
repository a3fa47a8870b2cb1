/*
 * critpath's private state, shared by critpath.c (the graph, its passes
 * and its path) and critpath_svg.c (the picture); no other file
 * includes it.
 */
#ifndef NSYSJAX_CRITPATH_IMPL_H
#define NSYSJAX_CRITPATH_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/critpath.h"
#include "base/cover.h"

#define NEG_INF INT64_MIN

/* Edge kinds: what its weight is made of. */
enum ekind {
	E_REL,		/* source -> R: the device's late start */
	E_GAP,		/* ready -> S: the operation's gap */
	E_DUR,		/* S -> E: the duration (no barrier) */
	E_OWN,		/* S -> E of a member: T */
	E_BIN,		/* S of a member -> B: 0 */
	E_BOUT,		/* B -> E of a member: T - delta */
	E_TAIL,		/* E -> Z: the device's trailing gap */
	E_SINK		/* Z -> sink: 0 */
};

struct edge {
	size_t from, to;
	enum ekind kind;
	size_t arg;		/* operation, or device index (E_REL, E_TAIL) */
};

struct opx {
	struct critpath_op in;
	size_t di;		/* device index */
	int64_t gap;		/* g, ns (< 0: an overlap within the
				 * tolerance, critpath_set_overlap) */
	int64_t gbusy;		/* the part of a gap > 0 in which the device
				 * ran other operations, ns */
	int64_t wait, xfer, delta;	/* W, T, delta of a member */
	int64_t med;		/* median base duration over devices */
	long bar;		/* barrier, or -1 */
};

struct devx {
	int64_t dev, start, end;	/* module range, ns */
	int given;
	int64_t first, last;		/* first start, last end of its ops */
	int64_t rel, rmed, tail;	/* release offset, its median, Z's gap */
};

struct critpath_graph {
	struct opx *op;
	size_t nop, capop;
	struct devx *dv;
	size_t ndv, capdv;
	size_t nbar;
	struct edge *e;
	size_t ne, cape;
	size_t nnode;
	size_t *first;		/* CSR by target: in-edges of node v are
				 * ein[first[v] .. first[v + 1]) */
	size_t *ein;
	size_t *order;		/* topological order */
	int64_t *t, *lt, *w;	/* times, latest times, edge weights */
	size_t *arg;		/* critical in-edge of each node */
	int slack_done;
	int64_t t0, tend;
	struct critpath_seg *seg, *raw;
	size_t nseg, capseg, capraw;
	struct cover *cc, *ca;	/* per device: its compute operations'
				 * union, and every operation's */
	size_t capcov;
	int64_t overlap;	/* the stream rule's tolerance, ns */
	size_t *tmp;
	size_t captmp;
};

/* Node numbers. */
#define N_S(i)		(2 * (i))
#define N_E(i)		(2 * (i) + 1)
#define N_B(g, b)	(2 * (g)->nop + (b))
#define N_R(g, d)	(2 * (g)->nop + (g)->nbar + (d))
#define N_Z(g, d)	(2 * (g)->nop + (g)->nbar + (g)->ndv + (d))
#define N_SRC(g)	(2 * (g)->nop + (g)->nbar + 2 * (g)->ndv)
#define N_SINK(g)	(N_SRC(g) + 1)

static inline int64_t
op_end(const struct opx *o)
{
	return o->in.start_ns + o->in.dur_ns;
}

static inline int
cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

#endif
