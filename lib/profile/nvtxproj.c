#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"
#include "base/u64map.h"
#include "profile/nvtxproj.h"

/* A (range, key) credit of a key launched by several calls. */
struct pair {
	uint32_t range, key;
};

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* Ranges by thread, start, end descending, RangeId: containers first. */
static int
cmp_r(uint32_t x, uint32_t y, const void *ctx)
{
	const struct nvtxproj_range *a = (const struct nvtxproj_range *)ctx + x;
	const struct nvtxproj_range *b = (const struct nvtxproj_range *)ctx + y;

	if (a->tid != b->tid)
		return CMP(a->tid, b->tid);
	if (a->start != b->start)
		return CMP(a->start, b->start);
	if (a->end != b->end)
		return CMP(b->end, a->end);
	return CMP(a->id, b->id);
}

/* Calls by thread, start, end, input order. */
static int
cmp_c(uint32_t x, uint32_t y, const void *ctx)
{
	const struct nvtxproj_call *a = (const struct nvtxproj_call *)ctx + x;
	const struct nvtxproj_call *b = (const struct nvtxproj_call *)ctx + y;

	if (a->tid != b->tid)
		return CMP(a->tid, b->tid);
	if (a->start != b->start)
		return CMP(a->start, b->start);
	if (a->end != b->end)
		return CMP(a->end, b->end);
	return CMP(x, y);
}

static int
cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;

	if (a->range != b->range)
		return CMP(a->range, b->range);
	return CMP(a->key, b->key);
}

static int
cmp_tid(uint32_t x, uint32_t y, const void *ctx)
{
	const int64_t *t = ctx;

	return CMP(t[x], t[y]);
}

/*
 * The indices of the N records of SIZE bytes at BASE (an int64_t thread
 * at offset OFF of each), sorted by CMP, cheaply for what exports hold:
 * rows of a few threads interleaved, each thread's nearly in order.  The
 * indices are first grouped by thread, threads ascending, each thread's
 * in input order (a counting sort over the distinct threads); each
 * thread's run is then sorted by CMP, a linear pass when it is in order
 * already (sort_idx).  Only indices move: 4 bytes a record, not the
 * records.
 */
static uint32_t *
sort_by_thread(const void *base, size_t n, size_t size, size_t off,
    sort_idx_cmp cmp)
{
	const unsigned char *b = base;
	struct u64map m = { NULL, 0, 0 };
	int64_t *tids = NULL, last = 0;
	uint32_t *which = mem_calloc(n + 1, sizeof(*which)), *out, *rank;
	uint32_t *byrank;
	size_t nt = 0, capt = 0, k = 0, i, *count;

	for (i = 0; i < n; i++) {
		int64_t t;

		memcpy(&t, b + i * size + off, sizeof(t));
		/* Runs of one thread are common: the last one first. */
		if (nt == 0 || t != last) {
			if ((k = u64map_get(&m, (uint64_t)t)) == U64MAP_NONE) {
				mem_grow(&tids, &capt, nt + 1, sizeof(*tids));
				tids[k = nt++] = t;
				u64map_add(&m, (uint64_t)t, k);
			}
			last = t;
		}
		which[i] = (uint32_t)k;
	}
	u64map_free(&m);
	/* Each thread's rank among the threads, ascending. */
	byrank = mem_calloc(nt + 1, sizeof(*byrank));
	rank = mem_calloc(nt + 1, sizeof(*rank));
	for (k = 0; k < nt; k++)
		byrank[k] = (uint32_t)k;
	sort_idx(byrank, nt, cmp_tid, tids);
	for (k = 0; k < nt; k++)
		rank[byrank[k]] = (uint32_t)k;
	free(byrank);
	count = mem_calloc(nt + 1, sizeof(*count));
	for (i = 0; i < n; i++)
		count[rank[which[i]] + 1]++;
	for (k = 0; k < nt; k++)
		count[k + 1] += count[k];
	out = mem_calloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++)
		out[count[rank[which[i]]]++] = (uint32_t)i;
	free(which);
	/* count[k] is now the end of the run of the thread of rank k. */
	for (k = 0, i = 0; k < nt; i = count[k++])
		sort_idx(out + i, count[k] - i, cmp, base);
	free(count);
	free(rank);
	free(tids);
	return out;
}

/* The sweep's state over one thread's sorted ranges and calls. */
struct sweep {
	const struct nvtxproj_range *r;
	const struct nvtxproj_call *c;
	const struct nvtxproj_group *g;
	uint32_t *rs;		/* ranges by (thread, start) */
	const uint32_t *cs;	/* calls by (thread, start) */
	size_t nr, nc;
	uint32_t *act;		/* open ranges (input indices) */
	size_t nact, capact;
	uint8_t *keycalls;	/* calls per key, counted up to 2 */
	struct pair *pairs;	/* (range, key) credits of repeated keys */
	size_t npairs, cappairs;
	struct nvtxproj *p;
};

/* Whether candidate A (range index) is a tighter container than B for
 * the interval [S, E]: least tightness, then later start, then higher
 * RangeId. */
static int
tighter(const struct sweep *w, size_t a, long b, int64_t s, int64_t e)
{
	const struct nvtxproj_range *ra = &w->r[a], *rb;
	int64_t ta, tb;

	if (b < 0)
		return 1;
	rb = &w->r[b];
	ta = (s - ra->start) + (ra->end - e);
	tb = (s - rb->start) + (rb->end - e);
	if (ta != tb)
		return ta < tb;
	if (ra->start != rb->start)
		return ra->start > rb->start;
	return ra->id > rb->id;
}

/* Credit launch CALL to range A: A's projection takes in the call's
 * envelope, and A counts the call's key once. */
static void
credit(struct sweep *w, size_t call, size_t a)
{
	const struct nvtxproj_call *c = &w->c[call];
	const struct nvtxproj_group *g = &w->g[c->group];
	struct nvtxproj *p = w->p;

	if (g->start < p->pstart[a])
		p->pstart[a] = g->start;
	if (g->end > p->pend[a])
		p->pend[a] = g->end;
	if (w->keycalls[c->key] == 1) {
		p->nops[a]++;
		return;
	}
	mem_grow(&w->pairs, &w->cappairs, w->npairs + 1, sizeof(*w->pairs));
	w->pairs[w->npairs].range = (uint32_t)a;
	w->pairs[w->npairs++].key = c->key;
}

/*
 * The tightest open range containing [S, E] (-1: none); drops the open
 * ranges that ended before S, which can contain nothing after it.  With
 * CALL >= 0 (a launch call), credits that call to every container.
 */
static long
containers(struct sweep *w, int64_t s, int64_t e, long call)
{
	long best = -1;
	size_t k = 0;

	while (k < w->nact) {
		size_t a = w->act[k];
		const struct nvtxproj_range *ra = &w->r[a];

		if (ra->end < s) {
			w->act[k] = w->act[--w->nact];
			continue;
		}
		k++;
		if (ra->start > s || ra->end < e)
			continue;
		if (call >= 0)
			credit(w, (size_t)call, a);
		if (tighter(w, a, best, s, e))
			best = (long)a;
	}
	return best;
}

/*
 * One pass over the ranges and calls, merged by (thread, start), ranges
 * first on a tie (a range starting with a call contains it): a range
 * finds its parent, a launch call credits every range open
 * around it, a capture call (a graph node's creation) its innermost.
 */
static void
sweep(struct sweep *w)
{
	struct nvtxproj *p = w->p;
	size_t i = 0, j = 0;
	int64_t tid = 0;
	int first = 1;

	while (i < w->nr || j < w->nc) {
		const struct nvtxproj_range *r = i < w->nr ? &w->r[w->rs[i]] : NULL;
		const struct nvtxproj_call *c = j < w->nc ? &w->c[w->cs[j]] : NULL;
		int take_r = c == NULL || (r != NULL && (r->tid < c->tid ||
		    (r->tid == c->tid && r->start <= c->start)));
		int64_t t = take_r ? r->tid : c->tid;

		if (first || t != tid)
			w->nact = 0;
		first = 0;
		tid = t;
		if (take_r) {
			uint32_t x = w->rs[i++];
			long par = containers(w, r->start, r->end, -1);

			p->parent[x] = (int32_t)par;
			mem_grow(&w->act, &w->capact, w->nact + 1,
			    sizeof(*w->act));
			w->act[w->nact++] = x;
		} else {
			uint32_t y = w->cs[j++];
			long in;

			if (!c->capture)
				containers(w, c->start, c->end, (long)y);
			else if ((in = containers(w, c->start, c->end, -1)) >= 0)
				credit(w, y, (size_t)in);
		}
	}
}

/* Projected ranges by start, longer first, then RangeId. */
struct outctx {
	const struct nvtxproj *p;
	const struct nvtxproj_range *r;
};

static int
cmp_out(uint32_t x, uint32_t y, const void *ctx)
{
	const struct outctx *o = ctx;
	const int64_t *s = o->p->pstart, *e = o->p->pend;

	if (s[x] != s[y])
		return CMP(s[x], s[y]);
	if (e[x] - s[x] != e[y] - s[y])
		return CMP(e[y] - s[y], e[x] - s[x]);
	return CMP(o->r[x].id, o->r[y].id);
}

static void
count_pairs(struct sweep *w)
{
	size_t i;

	if (w->npairs > 0)	/* qsort wants a pointer even for none */
		qsort(w->pairs, w->npairs, sizeof(*w->pairs), cmp_pair);
	for (i = 0; i < w->npairs; i++)
		if (i == 0 || w->pairs[i].range != w->pairs[i - 1].range ||
		    w->pairs[i].key != w->pairs[i - 1].key)
			w->p->nops[w->pairs[i].range]++;
}

void
nvtxproj_order(const struct nvtxproj_range *r, struct nvtxproj *p)
{
	struct outctx o;
	size_t i;

	/* P->order holds nvtxproj_sweep's buffer of N indices, spent: the
	 * projected ranges (at most N) take its pages, already touched,
	 * where a new array would fault in its own. */
	p->nout = 0;
	for (i = 0; i < p->n; i++) {
		if (p->nops[i] == 0)
			continue;
		p->order[p->nout++] = (uint32_t)i;
		if (p->parent[i] >= 0)
			p->nchild[p->parent[i]]++;
	}
	o.p = p, o.r = r;
	sort_idx(p->order, p->nout, cmp_out, &o);
}

uint32_t *
nvtxproj_order_calls(const struct nvtxproj_call *c, size_t nc)
{
	return sort_by_thread(c, nc, sizeof(*c),
	    offsetof(struct nvtxproj_call, tid), cmp_c);
}

void
nvtxproj_prepare(const struct nvtxproj_range *r, size_t nr,
    struct nvtxproj *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->n = nr;
	/* The ranges' sweep order first, in the buffer that becomes the
	 * output order: the sort's scratch is freed before the arrays
	 * below are touched, so that the two never take memory together
	 * (this is the peak of an export's projection). */
	p->order = sort_by_thread(r, nr, sizeof(*r),
	    offsetof(struct nvtxproj_range, tid), cmp_r);
	p->pstart = mem_alloc((nr + 1) * sizeof(*p->pstart));
	p->pend = mem_alloc((nr + 1) * sizeof(*p->pend));
	p->nops = mem_alloc((nr + 1) * sizeof(*p->nops));
	p->parent = mem_alloc((nr + 1) * sizeof(*p->parent));
	/* Counted by nvtxproj_order, after the sweep: its pages are left
	 * untouched (calloc's) until then. */
	p->nchild = mem_calloc(nr + 1, sizeof(*p->nchild));
	/* An empty envelope is [INT64_MAX, INT64_MIN].  The sweep's arrays
	 * are written here, the zeroes too (not calloc's untouched pages):
	 * the first touch of a page is its cost (a fault), taken here, off
	 * the sweep's path when the caller prepares while it waits. */
	for (i = 0; i < nr; i++) {
		p->pstart[i] = INT64_MAX;
		p->pend[i] = INT64_MIN;
	}
	memset(p->nops, 0, (nr + 1) * sizeof(*p->nops));
	memset(p->parent, 0xff, (nr + 1) * sizeof(*p->parent));
}

void
nvtxproj_sweep(const struct nvtxproj_range *r, size_t nr,
    const struct nvtxproj_call *c, size_t nc, const uint32_t *corder,
    const struct nvtxproj_group *g, struct nvtxproj *p)
{
	uint32_t *cs = corder ? NULL : nvtxproj_order_calls(c, nc);
	struct sweep w;
	uint32_t maxkey = 0;
	size_t i;

	memset(&w, 0, sizeof(w));
	if (p->pstart == NULL)
		nvtxproj_prepare(r, nr, p);
	w.r = r, w.c = c, w.g = g, w.nr = nr, w.nc = nc, w.p = p;
	w.rs = p->order;
	w.cs = corder ? corder : cs;
	for (i = 0; i < nc; i++)
		if (c[i].key > maxkey)
			maxkey = c[i].key;
	w.keycalls = mem_calloc((size_t)maxkey + 2, sizeof(*w.keycalls));
	for (i = 0; i < nc; i++)
		if (w.keycalls[c[i].key] < 2)
			w.keycalls[c[i].key]++;
	sweep(&w);
	count_pairs(&w);
	/* P->order, the ranges' sorted order, is done with: nvtxproj_order
	 * writes the output order into it. */
	free(cs);
	free(w.act);
	free(w.keycalls);
	free(w.pairs);
}

void
nvtxproj_run(const struct nvtxproj_range *r, size_t nr,
    const struct nvtxproj_call *c, size_t nc, const uint32_t *corder,
    const struct nvtxproj_group *g, struct nvtxproj *p)
{
	memset(p, 0, sizeof(*p));
	nvtxproj_sweep(r, nr, c, nc, corder, g, p);
	nvtxproj_order(r, p);
}

void
nvtxproj_free(struct nvtxproj *p)
{
	free(p->pstart);
	free(p->pend);
	free(p->nops);
	free(p->parent);
	free(p->nchild);
	free(p->order);
	memset(p, 0, sizeof(*p));
}
