/*
 * critpath: the graph of one module execution (critpath.h), its forward
 * and backward passes and its critical path.  The frame driver and the
 * picture are in critpath_run.c.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/critpath.h"
#include "analysis/critpath_impl.h"
#include "base/cover.h"
#include "base/mem.h"
#include "base/sort.h"

static const char *const labels[] = { "compute", "communication",
	"peer wait", "gap" };

const char *
critpath_label_name(enum critpath_label l)
{
	return labels[l];
}

struct critpath_scen
critpath_scen_measured(void)
{
	struct critpath_scen s = { 1, 1, 0, 0, NULL };

	return s;
}

struct critpath_graph *
critpath_new(void)
{
	return mem_calloc(1, sizeof(struct critpath_graph));
}

void
critpath_free(struct critpath_graph *g)
{
	size_t i;

	if (g == NULL)
		return;
	free(g->op);
	free(g->dv);
	free(g->e);
	free(g->first);
	free(g->ein);
	free(g->order);
	free(g->t);
	free(g->lt);
	free(g->w);
	free(g->arg);
	free(g->seg);
	free(g->raw);
	for (i = 0; i < g->capcov; i++) {
		cover_free(&g->cc[i]);
		cover_free(&g->ca[i]);
	}
	free(g->cc);
	free(g->ca);
	free(g->tmp);
	free(g);
}

void
critpath_reset(struct critpath_graph *g)
{
	g->nop = g->ndv = g->nbar = g->ne = g->nnode = g->nseg = 0;
	g->slack_done = 0;
}

void
critpath_set_overlap(struct critpath_graph *g, int64_t ns)
{
	g->overlap = ns > 0 ? ns : 0;
}

size_t
critpath_add(struct critpath_graph *g, const struct critpath_op *op)
{
	mem_grow(&g->op, &g->capop, g->nop + 1, sizeof(*g->op));
	memset(&g->op[g->nop], 0, sizeof(*g->op));
	g->op[g->nop].in = *op;
	g->op[g->nop].bar = -1;
	return g->nop++;
}

void
critpath_device(struct critpath_graph *g, int64_t dev, int64_t start_ns,
    int64_t end_ns)
{
	struct devx *d;

	mem_grow(&g->dv, &g->capdv, g->ndv + 1, sizeof(*g->dv));
	d = &g->dv[g->ndv++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->start = start_ns;
	d->end = end_ns;
	d->given = 1;
}

/* ---- building ---- */


static int
cmp_dev(const void *a, const void *b)
{
	const struct devx *x = a, *y = b;

	if (x->dev != y->dev)
		return cmp_i64(x->dev, y->dev);
	/* A device given twice: the module range first. */
	return cmp_i64(y->given, x->given);
}

/* Operations by device, start, end, index. */
static int
cmp_stream(const void *a, const void *b, const void *ctx)
{
	struct critpath_graph *sort_g = (struct critpath_graph *)ctx;
	const struct opx *x = &sort_g->op[*(const size_t *)a];
	const struct opx *y = &sort_g->op[*(const size_t *)b];
	int c;

	if (x->di != y->di)
		return x->di < y->di ? -1 : 1;
	if ((c = cmp_i64(x->in.start_ns, y->in.start_ns)) != 0)
		return c;
	if ((c = cmp_i64(x->in.dur_ns, y->in.dur_ns)) != 0)
		return c;
	return cmp_i64((int64_t)*(const size_t *)a, (int64_t)*(const size_t *)b);
}

/* Operations by instance key, end, device, index. */
static int
cmp_inst(const void *a, const void *b, const void *ctx)
{
	struct critpath_graph *sort_g = (struct critpath_graph *)ctx;
	const struct opx *x = &sort_g->op[*(const size_t *)a];
	const struct opx *y = &sort_g->op[*(const size_t *)b];
	int c;

	if (x->in.key != y->in.key)
		return x->in.key < y->in.key ? -1 : 1;
	if ((c = cmp_i64(x->in.start_ns + x->in.dur_ns,
	    y->in.start_ns + y->in.dur_ns)) != 0)
		return c;
	if ((c = cmp_i64(x->in.dev, y->in.dev)) != 0)
		return c;
	return cmp_i64((int64_t)*(const size_t *)a, (int64_t)*(const size_t *)b);
}

static void
add_edge(struct critpath_graph *g, size_t from, size_t to, enum ekind k,
    size_t arg)
{
	mem_grow(&g->e, &g->cape, g->ne + 1, sizeof(*g->e));
	g->e[g->ne++] = (struct edge){ from, to, k, arg };
}

/* The devices: sorted, one each, with the ops' device index, first start
 * and last end; releases and ends moved to cover the ops. */
static void
build_devices(struct critpath_graph *g)
{
	size_t i, n = 0;
	struct devx *d;

	/* Every device of an operation, beside those given: sorted, each
	 * kept once (its module range first). */
	mem_grow(&g->dv, &g->capdv, g->ndv + g->nop, sizeof(*g->dv));
	for (i = 0; i < g->nop; i++) {
		d = &g->dv[g->ndv++];
		memset(d, 0, sizeof(*d));
		d->dev = g->op[i].in.dev;
	}
	qsort(g->dv, g->ndv, sizeof(*g->dv), cmp_dev);
	for (i = 0; i < g->ndv; i++)
		if (n == 0 || g->dv[i].dev != g->dv[n - 1].dev)
			g->dv[n++] = g->dv[i];
	g->ndv = n;
	for (i = 0; i < n; i++) {
		g->dv[i].first = INT64_MAX;
		g->dv[i].last = INT64_MIN;
	}
	for (i = 0; i < g->nop; i++) {
		size_t lo = 0, hi = n;

		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (g->dv[mid].dev <= g->op[i].in.dev)
				lo = mid;
			else
				hi = mid;
		}
		g->op[i].di = lo;
		d = &g->dv[lo];
		if (g->op[i].in.start_ns < d->first)
			d->first = g->op[i].in.start_ns;
		if (op_end(&g->op[i]) > d->last)
			d->last = op_end(&g->op[i]);
	}
	g->t0 = INT64_MAX;
	g->tend = INT64_MIN;
	for (i = 0; i < n; i++) {
		d = &g->dv[i];
		if (d->first == INT64_MAX)	/* a module without ops */
			d->first = d->last = d->given ? d->start : 0;
		if (!d->given || d->start > d->first)
			d->start = d->first;
		if (!d->given || d->end < d->last)
			d->end = d->last;
		if (d->start < g->t0)
			g->t0 = d->start;
		if (d->end > g->tend)
			g->tend = d->end;
	}
	for (i = 0; i < n; i++) {
		g->dv[i].rel = g->dv[i].start - g->t0;
		g->dv[i].tail = g->dv[i].end - g->dv[i].last;
	}
}

/* A stream: its last operation. */
struct lane {
	int async;
	size_t tail;
	long prev;	/* the operation before the tail, or -1 */
};

/* The ready time of an edge's source, measured. */
static int64_t
ready(const struct critpath_graph *g, size_t node)
{
	if (node < 2 * g->nop)
		return node % 2 ? op_end(&g->op[node / 2]) :
		    g->op[node / 2].in.start_ns;
	return g->dv[node - N_R(g, 0)].start;	/* a release */
}

/* The in-edges of S(i) are added together: its gap is the start minus
 * the latest of them. */
static void
add_deps(struct critpath_graph *g, size_t i, const size_t *dep, size_t n)
{
	int64_t r = INT64_MIN;
	size_t k;

	for (k = 0; k < n; k++)
		if (ready(g, dep[k]) > r)
			r = ready(g, dep[k]);
	g->op[i].gap = g->op[i].in.start_ns - r;
	for (k = 0; k < n; k++)
		add_edge(g, dep[k], N_S(i), E_GAP, i);
}

/* A binary min-heap of (key, id), ties by id descending: lanes that end
 * together leave the heap lowest index last, so that the free stack
 * below hands out the lowest index first. */
struct hent {
	int64_t key;
	size_t id;
};

struct heap {
	struct hent *v;
	size_t n, cap;
};

static int
hless(const struct hent *a, const struct hent *b)
{
	return a->key != b->key ? a->key < b->key : a->id > b->id;
}

static void
heap_push(struct heap *h, int64_t key, size_t id)
{
	size_t i;

	mem_grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v));
	i = h->n++;
	h->v[i] = (struct hent){ key, id };
	while (i > 0 && hless(&h->v[i], &h->v[(i - 1) / 2])) {
		struct hent x = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

/* Remove the least entry (the heap is not empty); returns it. */
static struct hent
heap_pop(struct heap *h)
{
	struct hent top = h->v[0];
	size_t i = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct hent x;

		if (l < h->n && hless(&h->v[l], &h->v[m]))
			m = l;
		if (l + 1 < h->n && hless(&h->v[l + 1], &h->v[m]))
			m = l + 1;
		if (m == i)
			break;
		x = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = x;
		i = m;
	}
	return top;
}

/* Whether the heap's least key is at most T. */
static int
heap_due(const struct heap *h, int64_t t)
{
	return h->n > 0 && h->v[0].key <= t;
}

/*
 * The streams of one kind (compute or async) of a device.  A lane is
 * busy until its tail ends (in BUSY, by end); then free.  Operations
 * come in start order, so lanes are freed in the order of their ends and
 * the free lanes form a stack whose top ended last: "the lane that ended
 * latest before S" is its top, O(log lanes) per operation (a scan of
 * every lane made overlapping rows quadratic).
 */
struct kind {
	struct heap busy;
	size_t *free;
	size_t nfree, capfree;
};

/* Per device: the lanes of both kinds, the compute operations not yet
 * ended (to find the one that ended last before a start) and the async
 * kernels not yet consumed. */
struct streams {
	struct lane *ln;
	size_t nln, capln;
	struct kind k[2];
	struct heap run, pend;
	long last;		/* the compute operation that ended last */
	int64_t lastend;
	unsigned char *mark;	/* per operation: a lane's tail */
};

static void
streams_free(struct streams *s)
{
	int j;

	free(s->ln);
	for (j = 0; j < 2; j++) {
		free(s->k[j].busy.v);
		free(s->k[j].free);
	}
	free(s->run.v);
	free(s->pend.v);
}

/* Advance to start T: lanes ended by T + the tolerance freed, compute
 * operations ended by then retired (the latest kept). */
static void
streams_advance(struct critpath_graph *g, struct streams *s, int64_t t)
{
	int j;

	t += g->overlap;

	for (j = 0; j < 2; j++) {
		struct kind *k = &s->k[j];

		while (heap_due(&k->busy, t)) {
			mem_grow(&k->free, &k->capfree, k->nfree + 1,
			    sizeof(*k->free));
			k->free[k->nfree++] = heap_pop(&k->busy).id;
		}
	}
	while (heap_due(&s->run, t)) {
		size_t c = heap_pop(&s->run).id;

		if (s->last < 0 || op_end(&g->op[c]) > s->lastend) {
			s->last = (long)c;
			s->lastend = op_end(&g->op[c]);
		}
	}
}

/* The streams and async pairs of device D's operations IX[0..N) (in
 * start order); MARK, one byte per operation of G, all 0 (left so). */
static void
build_streams(struct critpath_graph *g, size_t di, const size_t *ix, size_t n,
    unsigned char *mark, struct critpath_info *info)
{
	struct streams s;
	size_t k, j, dep[64], nd;

	memset(&s, 0, sizeof(s));
	s.last = -1;
	for (k = 0; k < n; k++) {
		size_t i = ix[k], l;
		struct opx *o = &g->op[i];
		struct kind *kd = &s.k[o->in.async != 0];

		streams_advance(g, &s, o->in.start_ns);
		cover_add(&g->ca[di], o->in.start_ns, op_end(o), i);
		if (!o->in.comm)
			cover_add(&g->cc[di], o->in.start_ns, op_end(o), i);
		nd = 0;
		if (kd->nfree > 0) {
			l = kd->free[--kd->nfree];
			dep[nd++] = N_E(s.ln[l].tail);
			s.ln[l].prev = (long)s.ln[l].tail;
			s.ln[l].tail = i;
		} else {
			/* A new stream: it follows the release, and a
			 * compute one also the compute operation that
			 * ended last before it (what ran before on the
			 * device, not the module start). */
			dep[nd++] = N_R(g, di);
			if (!o->in.async && s.last >= 0)
				dep[nd++] = N_E((size_t)s.last);
			l = s.nln;
			mem_grow(&s.ln, &s.capln, s.nln + 1, sizeof(*s.ln));
			s.ln[s.nln++] = (struct lane){ o->in.async, i, -1 };
		}
		heap_push(&kd->busy, op_end(o), l);
		if (o->in.async) {
			/* Its -start: the compute operation that ended
			 * last before it. */
			if (s.last >= 0)
				dep[nd++] = N_E((size_t)s.last);
			heap_push(&s.pend, op_end(o), i);
		} else {
			/* Consume the kernels that ended before it (their
			 * -done precedes it), at most the array's room; the
			 * others, later. */
			while (nd < sizeof(dep) / sizeof(dep[0]) &&
			    heap_due(&s.pend, o->in.start_ns))
				dep[nd++] = N_E(heap_pop(&s.pend).id);
			heap_push(&s.run, op_end(o), i);
		}
		add_deps(g, i, dep, nd);
	}
	/* Z after every stream's tail and every kernel not consumed. */
	for (j = 0; j < s.nln; j++) {
		add_edge(g, N_E(s.ln[j].tail), N_Z(g, di), E_TAIL, di);
		mark[s.ln[j].tail] = 1;
	}
	while (s.pend.n > 0) {
		size_t a = heap_pop(&s.pend).id;

		if (!mark[a])
			add_edge(g, N_E(a), N_Z(g, di), E_TAIL, di);
	}
	for (j = 0; j < s.nln; j++)
		mark[s.ln[j].tail] = 0;
	if (n == 0)
		add_edge(g, N_R(g, di), N_Z(g, di), E_TAIL, di);
	info->streams += s.nln;
	streams_free(&s);
	cover_done(&g->ca[di]);
	cover_done(&g->cc[di]);
	/* What of each gap the device spent running other operations:
	 * only the rest is idle, which the gap factor scales. */
	for (k = 0; k < n; k++) {
		struct opx *o = &g->op[ix[k]];

		o->gbusy = o->gap > 0 ? cover_len(&g->ca[di],
		    o->in.start_ns - o->gap, o->in.start_ns) : 0;
	}
}

/* One barrier over members M[0..N). */
static void
build_barrier(struct critpath_graph *g, const size_t *m, size_t n)
{
	int64_t b = INT64_MIN;
	size_t k;

	for (k = 0; k < n; k++)
		if (g->op[m[k]].in.start_ns > b)
			b = g->op[m[k]].in.start_ns;
	for (k = 0; k < n; k++) {
		struct opx *o = &g->op[m[k]];
		int64_t e = op_end(o), a = e < b ? e : b;

		o->bar = (long)g->nbar;
		o->wait = a - o->in.start_ns;
		o->xfer = e - a;
		o->delta = b - a;
	}
	g->nbar++;
}

/* The collective instances, cut into groups; returns into M the member
 * lists (each group: its size, then its members). */
static void
build_barriers(struct critpath_graph *g, struct critpath_info *info)
{
	size_t i, n = 0, k, *ix;

	mem_grow(&g->tmp, &g->captmp, g->nop, sizeof(*g->tmp));
	ix = g->tmp;
	for (i = 0; i < g->nop; i++) {
		g->op[i].xfer = g->op[i].in.dur_ns;
		if (g->op[i].in.comm && (g->op[i].in.csize > 1 ||
		    g->op[i].in.csize == CRITPATH_CSIZE_ALL))
			ix[n++] = i;
	}
	sort_total(ix, n, sizeof(*ix), cmp_inst, g);
	for (i = 0; i < n; i = k) {
		int64_t s = g->op[ix[i]].in.csize;
		size_t cs = s == CRITPATH_CSIZE_ALL ? g->ndv : (size_t)s, c;

		for (k = i; k < n && g->op[ix[k]].in.key == g->op[ix[i]].in.key;
		    k++)
			;
		if (k - i > cs)
			info->cut++;
		for (c = i; c < k; c += cs) {
			size_t m = k - c < cs ? k - c : cs;

			if (m < cs)
				info->incomplete++;
			if (m > 1)
				build_barrier(g, ix + c, m);
		}
	}
}

static int
cmp_i64p(const void *a, const void *b)
{
	return cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* The median of V[0..N), N > 0 (sorted here): for an even count the
 * mean of the two middle values, rounded down. */
static int64_t
median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64p);
	if (n % 2)
		return v[n / 2];
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

static int64_t
base_dur(const struct opx *o)
{
	return o->bar >= 0 ? o->xfer : o->in.dur_ns;
}

/* no-straggler's medians: of each instance's base durations over its
 * devices, and of the release offsets. */
static void
build_medians(struct critpath_graph *g)
{
	size_t i, k, j, *ix = g->tmp;
	int64_t *v, m;

	for (i = 0; i < g->nop; i++)
		ix[i] = i;
	sort_total(ix, g->nop, sizeof(*ix), cmp_inst, g);
	v = mem_calloc(g->nop + g->ndv + 1, sizeof(*v));
	for (i = 0; i < g->nop; i = k) {
		for (k = i; k < g->nop &&
		    g->op[ix[k]].in.key == g->op[ix[i]].in.key; k++)
			v[k - i] = base_dur(&g->op[ix[k]]);
		m = median(v, k - i);
		for (j = i; j < k; j++)
			g->op[ix[j]].med = m;
	}
	for (i = 0; i < g->ndv; i++)
		v[i] = g->dv[i].rel;
	m = g->ndv ? median(v, g->ndv) : 0;
	for (i = 0; i < g->ndv; i++)
		g->dv[i].rmed = m;
	free(v);
}

/* The edges that are not stream order. */
static void
build_rest(struct critpath_graph *g)
{
	size_t i;

	for (i = 0; i < g->nop; i++) {
		if (g->op[i].bar < 0) {
			add_edge(g, N_S(i), N_E(i), E_DUR, i);
			continue;
		}
		/* Own start first: ties stay on the device. */
		add_edge(g, N_S(i), N_E(i), E_OWN, i);
		add_edge(g, N_B(g, (size_t)g->op[i].bar), N_E(i), E_BOUT, i);
		add_edge(g, N_S(i), N_B(g, (size_t)g->op[i].bar), E_BIN, i);
	}
	for (i = 0; i < g->ndv; i++) {
		add_edge(g, N_SRC(g), N_R(g, i), E_REL, i);
		add_edge(g, N_Z(g, i), N_SINK(g), E_SINK, i);
	}
}

/* In-edges by target, in the order added (ties: the first edge added). */
static void
build_csr(struct critpath_graph *g)
{
	size_t i, v, *cnt;

	g->nnode = N_SINK(g) + 1;
	g->first = mem_realloc(g->first, g->nnode + 1, sizeof(*g->first));
	g->ein = mem_realloc(g->ein, g->ne + 1, sizeof(*g->ein));
	memset(g->first, 0, (g->nnode + 1) * sizeof(*g->first));
	for (i = 0; i < g->ne; i++)
		g->first[g->e[i].to + 1]++;
	for (v = 0; v < g->nnode; v++)
		g->first[v + 1] += g->first[v];
	cnt = mem_calloc(g->nnode + 1, sizeof(*cnt));
	for (i = 0; i < g->ne; i++) {
		v = g->e[i].to;
		g->ein[g->first[v] + cnt[v]++] = i;
	}
	free(cnt);
}

/* Kahn's algorithm, FIFO from the nodes in index order: deterministic.
 * Returns the count ordered: g->nnode when there is no cycle.  Edges go
 * forward in measured time but for a barrier's B -> E(member) when the
 * member ended before the barrier (delta > 0, skewed clocks): two
 * collectives seen in different orders on two devices then close a
 * cycle, and its nodes are never reached. */
static size_t
build_order(struct critpath_graph *g)
{
	size_t *indeg, *outfirst, *out, i, v, head = 0, tail = 0;

	indeg = mem_calloc(g->nnode, sizeof(*indeg));
	outfirst = mem_calloc(g->nnode + 1, sizeof(*outfirst));
	out = mem_calloc(g->ne + 1, sizeof(*out));
	for (i = 0; i < g->ne; i++) {
		indeg[g->e[i].to]++;
		outfirst[g->e[i].from + 1]++;
	}
	for (v = 0; v < g->nnode; v++)
		outfirst[v + 1] += outfirst[v];
	{
		size_t *c = mem_calloc(g->nnode + 1, sizeof(*c));

		for (i = 0; i < g->ne; i++)
			out[outfirst[g->e[i].from] + c[g->e[i].from]++] = i;
		free(c);
	}
	g->order = mem_realloc(g->order, g->nnode, sizeof(*g->order));
	for (v = 0; v < g->nnode; v++)
		if (indeg[v] == 0)
			g->order[tail++] = v;
	while (head < tail) {
		v = g->order[head++];
		for (i = outfirst[v]; i < outfirst[v + 1]; i++)
			if (--indeg[g->e[out[i]].to] == 0)
				g->order[tail++] = g->e[out[i]].to;
	}
	free(indeg);
	free(outfirst);
	free(out);
	return tail;
}

/* The first operation, in index order, of a barrier whose node the
 * order did not reach (NODES[0..N) are those it did): a collective on a
 * cycle or after one. */
static long
cycle_member(const struct critpath_graph *g, size_t n)
{
	unsigned char *seen = mem_calloc(g->nnode, 1);
	size_t i;
	long m = -1;

	for (i = 0; i < n; i++)
		seen[g->order[i]] = 1;
	/* A member that ended before its barrier first: its B -> E edge
	 * is the one that goes back in time. */
	for (i = 0; i < g->nop && m < 0; i++)
		if (g->op[i].bar >= 0 && g->op[i].delta > 0 &&
		    !seen[N_B(g, (size_t)g->op[i].bar)])
			m = (long)i;
	for (i = 0; i < g->nop && m < 0; i++)
		if (g->op[i].bar >= 0 && !seen[N_B(g, (size_t)g->op[i].bar)])
			m = (long)i;
	free(seen);
	return m;
}

int
critpath_build(struct critpath_graph *g, struct critpath_info *info)
{
	size_t i, k, *ix, n;
	unsigned char *mark;

	memset(info, 0, sizeof(*info));
	info->cycle = -1;
	build_devices(g);
	build_barriers(g, info);
	ix = g->tmp;
	for (i = 0; i < g->nop; i++)
		ix[i] = i;
	sort_total(ix, g->nop, sizeof(*ix), cmp_stream, g);
	mark = mem_calloc(g->nop + 1, 1);
	if (g->ndv > g->capcov) {
		g->cc = mem_realloc(g->cc, g->ndv, sizeof(*g->cc));
		g->ca = mem_realloc(g->ca, g->ndv, sizeof(*g->ca));
		memset(g->cc + g->capcov, 0, (g->ndv - g->capcov) *
		    sizeof(*g->cc));
		memset(g->ca + g->capcov, 0, (g->ndv - g->capcov) *
		    sizeof(*g->ca));
		g->capcov = g->ndv;
	}
	for (k = 0; k < g->ndv; k++) {
		cover_reset(&g->cc[k]);
		cover_reset(&g->ca[k]);
	}
	for (i = 0, k = 0; k < g->ndv; k++) {
		size_t j = i;

		while (j < g->nop && g->op[ix[j]].di == k)
			j++;
		build_streams(g, k, ix + i, j - i, mark, info);
		i = j;
	}
	free(mark);
	build_rest(g);
	build_medians(g);
	build_csr(g);
	n = build_order(g);
	g->t = mem_realloc(g->t, g->nnode, sizeof(*g->t));
	g->lt = mem_realloc(g->lt, g->nnode, sizeof(*g->lt));
	g->arg = mem_realloc(g->arg, g->nnode, sizeof(*g->arg));
	g->w = mem_realloc(g->w, g->ne + 1, sizeof(*g->w));
	info->ops = g->nop;
	info->devices = g->ndv;
	info->barriers = g->nbar;
	for (i = 0; i < g->nop; i++)
		info->skewed += g->op[i].delta > 0;
	if (n == g->nnode)
		return 0;
	/* Never evaluated: the arrays above are of every node, but a
	 * cycle has no longest path. */
	info->cycle = cycle_member(g, n);
	return -1;
}

/* ---- passes ---- */

/* Weights are kept within +-2^61 ns and times within +-2^62 (73 years):
 * a time plus a weight never overflows, whatever the factors. */
#define LIM_W	((int64_t)1 << 61)
#define LIM_T	((int64_t)1 << 62)

static int64_t
clamp(int64_t v, int64_t lim)
{
	return v > lim ? lim : v < -lim ? -lim : v;
}

static int64_t
scaled(int64_t v, double f)
{
	double x = (double)v * f;

	if (f == 1)
		return clamp(v, LIM_W);
	return x >= (double)LIM_W ? LIM_W : x <= -(double)LIM_W ? -LIM_W :
	    (int64_t)llround(x);
}

/* The predicted duration (transfer of a member) of operation I. */
static int64_t
pdur(const struct critpath_graph *g, size_t i, const struct critpath_scen *sc)
{
	const struct opx *o = &g->op[i];
	int64_t d = base_dur(o);
	double f = sc->opf ? sc->opf[i] : 1;

	/* no-straggler brings the slow down to the median, never the fast
	 * up to it: a scenario that removes work never lengthens the step
	 * (every weight at most its measured value). */
	if (sc->median && o->med < d)
		d = o->med;

	if (o->in.comm)
		f *= sc->comm;
	return scaled(d, f);
}

static int64_t
weight(const struct critpath_graph *g, const struct edge *e,
    const struct critpath_scen *sc)
{
	const struct devx *d;
	const struct opx *o;

	switch (e->kind) {
	case E_REL:
		d = &g->dv[e->arg];
		if (sc->no_barrier || g->nbar == 0)
			return 0;
		return scaled(sc->median && d->rmed < d->rel ? d->rmed : d->rel,
		    sc->gap);
	case E_GAP:
		/* An overlap is no idle time: kept.  Of a gap, only the
		 * idle part is scaled: the device was busy in the rest. */
		o = &g->op[e->arg];
		if (o->gap <= 0)
			return o->gap;
		return clamp(o->gbusy + scaled(o->gap - o->gbusy, sc->gap),
		    LIM_W);
	case E_DUR:
	case E_OWN:
		return pdur(g, e->arg, sc);
	case E_BOUT:
		if (sc->no_barrier)
			return NEG_INF;
		/* delta is the clocks' skew, not a gap: never scaled (with
		 * no-gaps, scaling it lengthened skewed members). */
		return clamp(pdur(g, e->arg, sc) - g->op[e->arg].delta, LIM_W);
	case E_TAIL:
		return scaled(g->dv[e->arg].tail, sc->gap);
	default:
		return 0;
	}
}

int64_t
critpath_eval(struct critpath_graph *g, const struct critpath_scen *sc)
{
	size_t k, i, v;

	for (i = 0; i < g->ne; i++)
		g->w[i] = weight(g, &g->e[i], sc);
	for (k = 0; k < g->nnode; k++) {
		int64_t best = NEG_INF;
		size_t arg = SIZE_MAX;

		v = g->order[k];
		for (i = g->first[v]; i < g->first[v + 1]; i++) {
			const struct edge *e = &g->e[g->ein[i]];
			int64_t x;

			if (g->w[g->ein[i]] == NEG_INF || g->t[e->from] == NEG_INF)
				continue;
			x = clamp(g->t[e->from] + g->w[g->ein[i]], LIM_T);
			if (arg == SIZE_MAX || x > best) {
				best = x;
				arg = g->ein[i];
			}
		}
		g->t[v] = v == N_SRC(g) ? 0 : best;
		g->arg[v] = arg;
	}
	g->slack_done = 0;
	return g->t[N_SINK(g)];
}

/*
 * The origin of device DI's times.  Without a barrier the devices never
 * wait for each other: each runs from its own module start (launches of
 * one execution on independent devices can lie seconds apart), so its
 * times count from there, and the step is the longest device's.
 */
static int64_t
base(const struct critpath_graph *g, size_t di)
{
	return g->nbar == 0 ? g->dv[di].start : g->t0;
}

/* The origin of node V's times. */
static int64_t
node_base(const struct critpath_graph *g, size_t v)
{
	if (g->nbar > 0)
		return g->t0;
	if (v < 2 * g->nop)
		return base(g, g->op[v / 2].di);
	if (v >= N_R(g, 0) && v < N_SRC(g))
		return base(g, (v - N_R(g, 0)) % g->ndv);
	return g->t0;
}

int64_t
critpath_measured(const struct critpath_graph *g)
{
	int64_t m = 0;
	size_t i;

	if (g->nbar > 0)
		return g->tend - g->t0;
	for (i = 0; i < g->ndv; i++)
		if (g->dv[i].end - g->dv[i].start > m)
			m = g->dv[i].end - g->dv[i].start;
	return m;
}

int64_t
critpath_t0(const struct critpath_graph *g)
{
	return g->t0;
}

int64_t
critpath_start(const struct critpath_graph *g, size_t i)
{
	return g->t[N_S(i)] + base(g, g->op[i].di);
}

int64_t
critpath_end(const struct critpath_graph *g, size_t i)
{
	return g->t[N_E(i)] + base(g, g->op[i].di);
}

/* Latest times: one pass in reverse topological order. */
static void
backward(struct critpath_graph *g)
{
	size_t k, i, v;

	for (v = 0; v < g->nnode; v++)
		g->lt[v] = INT64_MAX;
	g->lt[N_SINK(g)] = g->t[N_SINK(g)];
	for (k = g->nnode; k-- > 0;) {
		v = g->order[k];
		if (g->lt[v] == INT64_MAX)
			continue;
		for (i = g->first[v]; i < g->first[v + 1]; i++) {
			const struct edge *e = &g->e[g->ein[i]];
			int64_t w = g->w[g->ein[i]];

			if (w != NEG_INF && clamp(g->lt[v] - w, LIM_T) <
			    g->lt[e->from])
				g->lt[e->from] = clamp(g->lt[v] - w, LIM_T);
		}
	}
	g->slack_done = 1;
}

int64_t
critpath_slack(struct critpath_graph *g, size_t i)
{
	if (!g->slack_done)
		backward(g);
	return g->lt[N_E(i)] - g->t[N_E(i)];
}

int64_t
critpath_wait(const struct critpath_graph *g, size_t i)
{
	return g->op[i].bar >= 0 ? g->op[i].wait : 0;
}

int64_t
critpath_transfer(const struct critpath_graph *g, size_t i)
{
	return base_dur(&g->op[i]);
}

long
critpath_barrier_of(const struct critpath_graph *g, size_t i)
{
	return g->op[i].bar;
}

size_t
critpath_nbarriers(const struct critpath_graph *g)
{
	return g->nbar;
}

int64_t
critpath_barrier_time(const struct critpath_graph *g, size_t b)
{
	return g->t[N_B(g, b)] + g->t0;
}

/* ---- the path ---- */

/*
 * Append a segment ending at END, of DUR, to the raw path (built from
 * the end back).  *OVER is the overlap still to take off: an edge of
 * negative weight (an operation started within the tolerance before its
 * predecessor ended) makes the segments before it end where the later
 * one starts, so that none overlap and their durations sum to the step.
 */
static void
push_seg(struct critpath_graph *g, enum critpath_label l, int64_t dev, long op,
    int64_t end, int64_t dur, int64_t *over)
{
	int64_t c = *over < dur ? *over : dur;

	if (dur < 0) {
		*over -= dur;
		return;
	}
	*over -= c;
	end -= c;
	dur -= c;
	if (dur == 0)
		return;
	mem_grow(&g->raw, &g->capraw, g->nseg + 1, sizeof(*g->raw));
	g->raw[g->nseg++] = (struct critpath_seg){ l, dev, op, end - dur, dur };
}

static void
put_seg(struct critpath_graph *g, size_t *n, const struct critpath_seg *x,
    enum critpath_label l, long op, int64_t a, int64_t b)
{
	if (b <= a)
		return;
	mem_grow(&g->seg, &g->capseg, *n + 1, sizeof(*g->seg));
	g->seg[(*n)++] = (struct critpath_seg){ l, x->dev, op, a, b - a };
}

/* [A, B) of segment X outside the compute union: a gap where another
 * operation (a collective) ran is communication, the rest stays X's. */
static void
split_busy(struct critpath_graph *g, size_t *n, const struct critpath_seg *x,
    size_t di, int64_t a, int64_t b)
{
	const struct cover *c = &g->ca[di];
	size_t k;

	if (x->label != CRITPATH_GAP) {
		put_seg(g, n, x, x->label, x->op, a, b);
		return;
	}
	for (k = cover_find(c, a); k < c->n && c->p[k].start < b && a < b;
	    k++) {
		int64_t p = c->p[k].start > a ? c->p[k].start : a;
		int64_t q = c->p[k].end < b ? c->p[k].end : b;

		put_seg(g, n, x, x->label, x->op, a, p);
		put_seg(g, n, x, CRITPATH_COMM, (long)c->p[k].id, p, q);
		a = q;
	}
	put_seg(g, n, x, x->label, x->op, a, b);
}

/*
 * Segment X into the path, split by what its device ran: time inside
 * its compute union is compute (of the operation that ran), and of a
 * gap, time inside a collective is communication.  A gap is then the
 * device's idle time, and communication its exposed communication
 * (none under compute), whatever streams the operations were put on.
 */
static void
split_seg(struct critpath_graph *g, size_t *n, const struct critpath_seg *x)
{
	size_t di = 0, hi = g->ndv, k;
	const struct cover *c;
	int64_t a = x->start_ns, b = x->start_ns + x->dur_ns;

	if (x->label != CRITPATH_GAP && x->label != CRITPATH_COMM) {
		put_seg(g, n, x, x->label, x->op, a, b);
		return;
	}
	while (hi - di > 1) {
		size_t mid = (di + hi) / 2;

		if (g->dv[mid].dev <= x->dev)
			di = mid;
		else
			hi = mid;
	}
	c = &g->cc[di];
	for (k = cover_find(c, a); k < c->n && c->p[k].start < b && a < b;
	    k++) {
		int64_t p = c->p[k].start > a ? c->p[k].start : a;
		int64_t q = c->p[k].end < b ? c->p[k].end : b;

		split_busy(g, n, x, di, a, p);
		put_seg(g, n, x, CRITPATH_COMPUTE, (long)c->p[k].id, p, q);
		a = q;
	}
	split_busy(g, n, x, di, a, b);
}

size_t
critpath_path(struct critpath_graph *g, const struct critpath_seg **segs)
{
	size_t v = N_SINK(g), i, n = 0;
	int64_t over = 0;

	g->nseg = 0;
	while (v != N_SRC(g) && g->arg[v] != SIZE_MAX) {
		const struct edge *e = &g->e[g->arg[v]];
		int64_t w = g->w[g->arg[v]], end = g->t[v] + node_base(g, v);
		const struct opx *o = e->kind == E_REL || e->kind == E_TAIL ||
		    e->kind == E_SINK ? NULL : &g->op[e->arg];

		switch (e->kind) {
		case E_REL:
			push_seg(g, CRITPATH_WAIT, g->dv[e->arg].dev, -1, end,
			    w, &over);
			break;
		case E_TAIL:
			push_seg(g, CRITPATH_GAP, g->dv[e->arg].dev, -1, end,
			    w, &over);
			break;
		case E_GAP:
			push_seg(g, CRITPATH_GAP, o->in.dev, (long)e->arg, end,
			    w, &over);
			break;
		case E_DUR:
		case E_OWN:
		case E_BOUT:
			push_seg(g, o->in.comm ? CRITPATH_COMM :
			    CRITPATH_COMPUTE, o->in.dev, (long)e->arg, end, w,
			    &over);
			break;
		default:
			break;
		}
		v = e->from;
	}
	/* From the start on, each segment split by what its device ran. */
	for (i = g->nseg; i-- > 0;)
		split_seg(g, &n, &g->raw[i]);
	g->nseg = n;
	*segs = g->seg;
	return g->nseg;
}

