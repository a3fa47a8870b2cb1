#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "profile/nvtxproj.h"

/* Sort records: the key first, the input index last. */
struct rkey {
	int64_t tid, start, end, id;
	size_t i;
};

struct ckey {
	int64_t tid, start, end;
	size_t i;
};

struct pair {
	size_t range;
	uint32_t key;
};

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* Ranges by thread, start, end descending, RangeId: containers first. */
static int
cmp_r(const void *pa, const void *pb)
{
	const struct rkey *a = pa, *b = pb;

	if (a->tid != b->tid)
		return CMP(a->tid, b->tid);
	if (a->start != b->start)
		return CMP(a->start, b->start);
	if (a->end != b->end)
		return CMP(b->end, a->end);
	return CMP(a->id, b->id);
}

static int
cmp_c(const void *pa, const void *pb)
{
	const struct ckey *a = pa, *b = pb;

	if (a->tid != b->tid)
		return CMP(a->tid, b->tid);
	if (a->start != b->start)
		return CMP(a->start, b->start);
	if (a->end != b->end)
		return CMP(a->end, b->end);
	return CMP(a->i, b->i);
}

static int
cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;

	if (a->range != b->range)
		return CMP(a->range, b->range);
	return CMP(a->key, b->key);
}

/*
 * Sort the N records of SIZE bytes at V (whose first field is the
 * thread) with CMP, cheaply for what exports hold: rows of a few threads
 * interleaved, each thread's already in order.  The records are first
 * grouped by thread, keeping their order (a counting sort over the
 * distinct threads); a thread's run is then sorted only when it is out
 * of order.  Many threads: one qsort.
 */
#define MAXTHREADS	4096

static void
sort_by_thread(void *v, size_t n, size_t size,
    int (*cmp)(const void *, const void *))
{
	int64_t tids[MAXTHREADS];
	size_t count[MAXTHREADS + 1], nt = 0, i, k;
	unsigned char *b = v, *out;
	uint32_t *which;

	/* Already in order (one thread, or threads one after another). */
	for (i = 1; i < n && cmp(b + (i - 1) * size, b + i * size) <= 0; i++)
		;
	if (i >= n)
		return;
	which = mem_calloc(n + 1, sizeof(*which));
	for (i = 0; i < n; i++) {
		int64_t t;

		memcpy(&t, b + i * size, sizeof(t));
		/* Runs of one thread are common: try the last one first. */
		for (k = nt; k > 0 && tids[k - 1] != t; k--)
			;
		if (k == 0) {
			if (nt == MAXTHREADS) {
				free(which);
				qsort(v, n, size, cmp);
				return;
			}
			tids[nt++] = t;
			k = nt;
		}
		which[i] = (uint32_t)(k - 1);
	}
	/* Threads in ascending order: their ranks. */
	{
		size_t rank[MAXTHREADS], order[MAXTHREADS], j;

		for (k = 0; k < nt; k++)
			order[k] = k;
		for (k = 1; k < nt; k++)	/* few threads: insertion sort */
			for (j = k; j > 0 && tids[order[j - 1]] > tids[order[j]];
			    j--) {
				size_t tmp = order[j];

				order[j] = order[j - 1];
				order[j - 1] = tmp;
			}
		for (k = 0; k < nt; k++)
			rank[order[k]] = k;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[rank[which[i]] + 1]++;
		for (k = 0; k < nt; k++)
			count[k + 1] += count[k];
		out = mem_alloc(n * size + 1);
		for (i = 0; i < n; i++)
			memcpy(out + count[rank[which[i]]]++ * size, b + i * size,
			    size);
	}
	memcpy(b, out, n * size);
	free(out);
	free(which);
	/* count[k] is now the end of thread k's run. */
	for (k = 0, i = 0; k < nt; i = count[k++]) {
		size_t e = count[k], j;

		for (j = i + 1; j < e && cmp(b + (j - 1) * size, b + j * size) <=
		    0; j++)
			;
		if (j < e)
			qsort(b + i * size, e - i, size, cmp);
	}
}

/* The sweep's state over one thread's sorted ranges and calls. */
struct sweep {
	const struct nvtxproj_range *r;
	const struct nvtxproj_call *c;
	const struct nvtxproj_group *g;
	struct rkey *rs;
	struct ckey *cs;
	size_t nr, nc;
	size_t *act;		/* open ranges (input indices) */
	size_t nact, capact;
	long *inner;		/* innermost container of each call */
	uint32_t *keycalls;	/* calls per key, to find repeated keys */
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

/*
 * The tightest open range containing [S, E] (-1: none); drops the open
 * ranges that ended before S, which can contain nothing after it.  With
 * CREDIT >= 0 (a launch call), credits that call to every container.
 */
static long
containers(struct sweep *w, int64_t s, int64_t e, long credit);

static void
credit(struct sweep *w, size_t call, size_t a)
{
	const struct nvtxproj_call *c = &w->c[call];
	const struct nvtxproj_group *g = &w->g[c->group];
	struct nvtxproj *p = w->p;

	if (p->nops[a] == 0 && p->pstart[a] == INT64_MAX) {
		p->pstart[a] = g->start;
		p->pend[a] = g->end;
	} else {
		if (g->start < p->pstart[a])
			p->pstart[a] = g->start;
		if (g->end > p->pend[a])
			p->pend[a] = g->end;
	}
	if (w->keycalls[c->key] == 1) {
		p->nops[a]++;
		return;
	}
	mem_grow(&w->pairs, &w->cappairs, w->npairs + 1, sizeof(*w->pairs));
	w->pairs[w->npairs].range = a;
	w->pairs[w->npairs++].key = c->key;
}

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
 * first on a tie (a range starting with a call contains it).  Pass 0
 * finds parents, levels and each call's innermost range; pass 1 credits.
 */
static void
sweep(struct sweep *w, int pass)
{
	size_t i = 0, j = 0;
	int64_t tid = 0;
	int first = 1;

	w->nact = 0;
	while (i < w->nr || j < w->nc) {
		int take_r;
		int64_t t;

		if (i < w->nr && j < w->nc)
			take_r = w->rs[i].tid < w->cs[j].tid ||
			    (w->rs[i].tid == w->cs[j].tid &&
			    w->rs[i].start <= w->cs[j].start);
		else
			take_r = i < w->nr;
		t = take_r ? w->rs[i].tid : w->cs[j].tid;
		if (first || t != tid)
			w->nact = 0;
		first = 0;
		tid = t;
		if (take_r) {
			size_t x = w->rs[i++].i;

			if (pass == 0) {
				long par = containers(w, w->r[x].start,
				    w->r[x].end, -1);

				w->p->parent[x] = par;
				w->p->lvl[x] = par < 0 ? 0 :
				    w->p->lvl[par] + 1;
			} else {
				containers(w, w->r[x].start, w->r[x].end, -1);
			}
			mem_grow(&w->act, &w->capact, w->nact + 1,
			    sizeof(*w->act));
			w->act[w->nact++] = x;
		} else {
			size_t y = w->cs[j++].i;
			const struct nvtxproj_call *c = &w->c[y];

			if (pass == 0)
				w->inner[y] = containers(w, c->start, c->end,
				    -1);
			else if (!c->capture)
				containers(w, c->start, c->end, (long)y);
			else if (w->inner[y] >= 0)
				credit(w, y, (size_t)w->inner[y]);
		}
	}
}

/* A projected range's output sort key. */
struct okey {
	int64_t start, dur, id;
	size_t i;
};

static int
cmp_out(const void *pa, const void *pb)
{
	const struct okey *a = pa, *b = pb;

	if (a->start != b->start)
		return CMP(a->start, b->start);
	if (a->dur != b->dur)
		return CMP(b->dur, a->dur);
	return CMP(a->id, b->id);
}

/*
 * Sort K[0..N) by cmp_out with a natural merge sort: runs already in
 * order are found and merged pairwise, so that the nearly ordered keys
 * of a trace (nested ranges share a start, threads interleave) sort in a
 * few passes; never worse than O(n log n).
 */
static void
sort_out(struct okey *k, size_t n)
{
	struct okey *tmp = mem_calloc(n + 1, sizeof(*tmp)), *src = k, *dst = tmp;
	size_t *run = NULL, nrun = 0, caprun = 0, i;

	for (i = 0; i < n; i++)
		if (i == 0 || cmp_out(&k[i - 1], &k[i]) > 0) {
			mem_grow(&run, &caprun, nrun + 2, sizeof(*run));
			run[nrun++] = i;
		}
	mem_grow(&run, &caprun, nrun + 2, sizeof(*run));
	run[nrun] = n;
	while (nrun > 1) {
		size_t r, out = 0;
		struct okey *t;

		for (r = 0; r < nrun; r += 2) {
			size_t a = run[r], ae = run[r + 1];
			size_t b = r + 1 < nrun ? run[r + 1] : ae;
			size_t be = r + 1 < nrun ? run[r + 2] : ae, o = a;

			while (a < ae && b < be)
				dst[o++] = cmp_out(&src[b], &src[a]) < 0 ?
				    src[b++] : src[a++];
			while (a < ae)
				dst[o++] = src[a++];
			while (b < be)
				dst[o++] = src[b++];
			run[out++] = run[r];
		}
		run[out] = n;
		nrun = out;
		t = src, src = dst, dst = t;
	}
	if (src != k)
		memcpy(k, src, n * sizeof(*k));
	free(tmp);
	free(run);
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

static void
finish(struct sweep *w)
{
	struct nvtxproj *p = w->p;
	struct okey *k;
	size_t i;

	count_pairs(w);
	for (i = 0; i < p->n; i++)
		p->nout += p->nops[i] > 0;
	k = mem_calloc(p->nout + 1, sizeof(*k));
	p->nout = 0;
	for (i = 0; i < p->n; i++) {
		if (p->nops[i] == 0)
			continue;
		k[p->nout].start = p->pstart[i];
		k[p->nout].dur = p->pend[i] - p->pstart[i];
		k[p->nout].id = w->r[i].id;
		k[p->nout++].i = i;
		if (p->parent[i] >= 0)
			p->nchild[p->parent[i]]++;
	}
	sort_out(k, p->nout);
	p->order = mem_calloc(p->nout + 1, sizeof(*p->order));
	for (i = 0; i < p->nout; i++)
		p->order[i] = k[i].i;
	free(k);
}

void
nvtxproj_run(const struct nvtxproj_range *r, size_t nr,
    const struct nvtxproj_call *c, size_t nc, const struct nvtxproj_group *g,
    struct nvtxproj *p)
{
	struct sweep w;
	uint32_t maxkey = 0;
	size_t i;

	memset(&w, 0, sizeof(w));
	memset(p, 0, sizeof(*p));
	w.r = r, w.c = c, w.g = g, w.nr = nr, w.nc = nc, w.p = p;
	p->n = nr;
	p->pstart = mem_calloc(nr + 1, sizeof(*p->pstart));
	p->pend = mem_calloc(nr + 1, sizeof(*p->pend));
	p->nops = mem_calloc(nr + 1, sizeof(*p->nops));
	p->parent = mem_calloc(nr + 1, sizeof(*p->parent));
	p->lvl = mem_calloc(nr + 1, sizeof(*p->lvl));
	p->nchild = mem_calloc(nr + 1, sizeof(*p->nchild));
	for (i = 0; i < nr; i++)
		p->pstart[i] = INT64_MAX;
	w.rs = mem_calloc(nr + 1, sizeof(*w.rs));
	for (i = 0; i < nr; i++) {
		w.rs[i].tid = r[i].tid, w.rs[i].start = r[i].start;
		w.rs[i].end = r[i].end, w.rs[i].id = r[i].id, w.rs[i].i = i;
	}
	sort_by_thread(w.rs, nr, sizeof(*w.rs), cmp_r);
	w.cs = mem_calloc(nc + 1, sizeof(*w.cs));
	for (i = 0; i < nc; i++) {
		w.cs[i].tid = c[i].tid, w.cs[i].start = c[i].start;
		w.cs[i].end = c[i].end, w.cs[i].i = i;
		if (c[i].key > maxkey)
			maxkey = c[i].key;
	}
	sort_by_thread(w.cs, nc, sizeof(*w.cs), cmp_c);
	w.keycalls = mem_calloc((size_t)maxkey + 2, sizeof(*w.keycalls));
	for (i = 0; i < nc; i++)
		if (w.keycalls[c[i].key] < 2)
			w.keycalls[c[i].key]++;
	w.inner = mem_calloc(nc + 1, sizeof(*w.inner));
	sweep(&w, 0);
	sweep(&w, 1);
	/* The sorted copies are done with: free them before the output
	 * order takes its own memory. */
	free(w.rs);
	free(w.cs);
	free(w.act);
	free(w.inner);
	free(w.keycalls);
	finish(&w);
	free(w.pairs);
}

void
nvtxproj_free(struct nvtxproj *p)
{
	free(p->pstart);
	free(p->pend);
	free(p->nops);
	free(p->parent);
	free(p->lvl);
	free(p->nchild);
	free(p->order);
	memset(p, 0, sizeof(*p));
}
