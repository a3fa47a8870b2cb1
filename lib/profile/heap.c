/*
 * heap: the heap series of the heap simulator traces of an XLA dump's
 * buffer assignment (heap.h).
 *
 * The dump's top level is walked on the wire to find the buffer
 * assignment (HloProto field 3), without decoding the module (field 1).
 * Inside it, each logical buffer (field 1) and each trace (field 4) is
 * found on the wire too, and protobuf-c decodes one LogicalBufferProto,
 * one trace without its events, or one event at a time: a trace of a
 * large program holds thousands of events.  Arrays are sized by counting
 * on the wire first, so none grows.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "profile/heap.h"
#include "hlo.pb-c.h"
#include "base/mem.h"
#include "base/sort.h"
#include "formats/pbwire.h"
#include "base/strtab.h"

#define NONE	SIZE_MAX

/* Field numbers (protos/hlo.proto). */
#define F_ASSIGNMENT	3	/* HloProto.buffer_assignment */
#define F_BUFFERS	1	/* BufferAssignmentProto.logical_buffers */
#define F_TRACES	4	/* BufferAssignmentProto.heap_simulator_traces */
#define F_EVENTS	1	/* HeapSimulatorTrace.events */

/* A logical buffer and, while a trace is computed, its state. */
struct lbuf {
	int64_t id;
	int64_t size;
	size_t order;		/* position in the input, for duplicates */
	int64_t users;		/* of the allocation this buffer is */
	size_t alias;		/* the buffer this one shares, or NONE */
};

struct heap {
	struct heap_trace *trace;
	size_t ntrace;
	struct heap_event *ev;	/* every trace's events, in order */
	struct strtab names;	/* computation and instruction names */
	unsigned refs;		/* heap_ref's holders; heap_free drops one */
};

/* State of heap_load that does not outlive it. */
struct ld {
	struct heap *h;
	struct lbuf *buf;	/* sorted by id, one per id */
	size_t nbuf;
	size_t nev;		/* events decoded so far */
};

/* ---- the wire ---- */

/*
 * Find the next field NUM of message *P[0..*N) into F.  A field NUM that
 * is not length-delimited is corrupt (protobuf-c would refuse the whole
 * message).  Returns 1, 0 at the end, -1 with err.
 */
static int
next_msg(const uint8_t **p, size_t *n, uint64_t num, struct pbwire_field *f)
{
	int r;

	while ((r = pbwire_next(p, n, f)) > 0)
		if (f->num == num) {
			if (f->wt != 2)
				break;
			return 1;
		}
	return r == 0 ? 0 : err_fail("corrupt buffer assignment");
}

/* Message P[0..N) without its fields NUM, into OUT (N bytes at most). */
static size_t
strip(const uint8_t *p, size_t n, uint64_t num, uint8_t *out)
{
	struct pbwire_field f;
	size_t k = 0;

	while (pbwire_next(&p, &n, &f) > 0)
		if (f.num != num) {
			memcpy(out + k, f.at, f.size);
			k += f.size;
		}
	return k;
}

/*
 * The buffer assignments of the dump: protobuf-c would merge several
 * fields 3 into one, concatenating their repeated fields, so they are
 * read one after the other.
 */
struct parts {
	const uint8_t *p;
	size_t n;
};

static int
next_part(struct parts *it, const uint8_t **p, size_t *n)
{
	struct pbwire_field f;
	int r;

	if ((r = next_msg(&it->p, &it->n, F_ASSIGNMENT, &f)) > 0) {
		*p = f.val;
		*n = f.len;
	}
	return r;
}

/* ---- logical buffers ---- */

static int
cmp_buf(const void *a, const void *b)
{
	const struct lbuf *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* A buffer's id against the id (int64_t) at KEY: cmp_buf's first key. */
static int
cmp_buf_id(const void *a, const void *key, const void *ctx)
{
	int64_t x = ((const struct lbuf *)a)->id, y = *(const int64_t *)key;

	(void)ctx;
	return (x > y) - (x < y);
}

/* Logical buffer ID's index in L->buf, or NONE. */
static size_t
find_buf(const struct ld *L, int64_t id)
{
	size_t lo = sort_lower_bound(L->buf, L->nbuf, sizeof(*L->buf), &id,
	    cmp_buf_id, NULL);

	return lo < L->nbuf && L->buf[lo].id == id ? lo : NONE;
}

/*
 * Decode the NBUF logical buffers, sort them by id and keep the last of
 * each id (a dict built in input order).  count() has walked the wire.
 */
static int
load_buffers(struct ld *L, const uint8_t *data, size_t len, size_t nbuf)
{
	struct parts it = { data, len };
	Xla__LogicalBufferProto *b;
	const uint8_t *p;
	struct pbwire_field f;
	size_t n, i, k;
	int r;

	L->buf = mem_calloc(nbuf, sizeof(*L->buf));
	while (next_part(&it, &p, &n) > 0)
		while ((r = next_msg(&p, &n, F_BUFFERS, &f)) > 0) {
			b = xla__logical_buffer_proto__unpack(NULL, f.len,
			    f.val);
			if (b == NULL)
				return err_fail("corrupt buffer assignment");
			if (b->size < 0) {
				r = err_fail("logical buffer %" PRId64
				    ": negative size", b->id);
				xla__logical_buffer_proto__free_unpacked(b,
				    NULL);
				return r;
			}
			L->buf[L->nbuf].id = b->id;
			L->buf[L->nbuf].size = b->size;
			L->buf[L->nbuf].order = L->nbuf;
			L->nbuf++;
			xla__logical_buffer_proto__free_unpacked(b, NULL);
		}
	qsort(L->buf, L->nbuf, sizeof(*L->buf), cmp_buf);
	for (i = k = 0; i < L->nbuf; i++) {
		if (i + 1 < L->nbuf && L->buf[i + 1].id == L->buf[i].id)
			continue;
		L->buf[k] = L->buf[i];
		L->buf[k].alias = NONE;
		k++;
	}
	L->nbuf = k;
	return 0;
}

/* ---- the series (Analysis.ipynb heap_usage_trace) ---- */

static const char *
name(struct heap *h, const char *s)
{
	if (s == NULL || *s == '\0')
		return "";
	return strtab_get(&h->names, strtab_intern(&h->names, s, strlen(s),
	    NULL));
}

/* The buffer of id ID, as an index, or -1 with err. */
static int
lookup(const struct ld *L, int64_t id, size_t t, size_t e, size_t *i)
{
	if ((*i = find_buf(L, id)) == NONE)
		return err_fail("heap simulator trace %zu, event %zu: no "
		    "logical buffer with id %" PRId64, t, e, id);
	return 0;
}

/*
 * Apply event P, the E-th of trace T, to the buffers' users; fill *EV
 * but for heap and point.  The allocation gains or loses a user;
 * ev->changes tells whether that was its first or last.
 */
static int
apply(struct ld *L, const Xla__HeapSimulatorTrace__Event *p, size_t t,
    size_t e, struct heap_event *ev)
{
	size_t b, a;

	ev->kind = (int)p->kind;
	ev->buffer = p->buffer_id;
	ev->canonical = -1;
	ev->computation = name(L->h, p->computation_name);
	ev->instruction = name(L->h, p->instruction_name);
	if (lookup(L, p->buffer_id, t, e, &b) < 0)
		return -1;
	ev->size = L->buf[b].size;
	switch (p->kind) {
	case XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__FREE:
		a = L->buf[b].alias == NONE ? b : L->buf[b].alias;
		L->buf[b].alias = NONE;
		if (L->buf[a].users == 0)
			return err_fail("heap simulator trace %zu, event %zu: "
			    "FREE of buffer %" PRId64 ", which is not "
			    "allocated", t, e, p->buffer_id);
		ev->changes = --L->buf[a].users == 0;
		ev->delta = ev->changes ? -L->buf[a].size : 0;
		return 0;
	case XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__SHARE_WITH:
		if (L->buf[b].alias != NONE)
			return err_fail("heap simulator trace %zu, event %zu: "
			    "buffer %" PRId64 " shared twice", t, e,
			    p->buffer_id);
		ev->canonical = p->share_with_canonical_id;
		if (lookup(L, ev->canonical, t, e, &a) < 0)
			return -1;
		L->buf[b].alias = a;
		break;
	case XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__ALLOC:
		a = b;
		break;
	default:
		return err_fail("heap simulator trace %zu, event %zu: unknown "
		    "kind %d", t, e, (int)p->kind);
	}
	ev->changes = L->buf[a].users++ == 0;
	ev->delta = ev->changes ? L->buf[a].size : 0;
	return 0;
}

/* Add EV's delta to the heap of trace TR; -1 with err on overflow. */
static int
account(struct heap_trace *tr, struct heap_event *ev, int64_t *heap,
    size_t *point, size_t t, size_t e)
{
	if (ev->delta > 0 && *heap > INT64_MAX - ev->delta)
		return err_fail("heap simulator trace %zu, event %zu: heap "
		    "size overflows", t, e);
	*heap += ev->delta;
	*point += (size_t)ev->changes;
	ev->heap = *heap;
	ev->point = *point;
	if (e == 0 || ev->heap > tr->peak) {
		tr->peak = ev->heap;
		tr->peak_event = e;
	}
	return 0;
}

/* Every allocation must be free at the end (the notebook asserts). */
static int
balanced(struct ld *L, size_t t)
{
	size_t i, left = 0, first = NONE;

	for (i = 0; i < L->nbuf; i++) {
		if (L->buf[i].users != 0) {
			if (first == NONE)
				first = i;
			left++;
		}
		L->buf[i].users = 0;
		L->buf[i].alias = NONE;
	}
	if (left)
		return err_fail("heap simulator trace %zu: %zu buffers still "
		    "allocated at the end (first: %" PRId64 ")", t, left,
		    L->buf[first].id);
	return 0;
}

/* Decode trace T, P[0..N), event by event. */
static int
load_trace(struct ld *L, const uint8_t *p, size_t n, size_t t)
{
	struct heap_trace *tr = &L->h->trace[t];
	Xla__HeapSimulatorTrace__Event *ep;
	Xla__HeapSimulatorTrace *tp;
	struct heap_event *ev;
	struct pbwire_field f;
	uint8_t *own = mem_alloc(n);
	size_t k, e = 0, point = 0;
	int64_t heap = 0;
	int r;

	k = strip(p, n, F_EVENTS, own);
	tp = xla__heap_simulator_trace__unpack(NULL, k, own);
	free(own);
	if (tp == NULL)
		return err_fail("corrupt buffer assignment");
	tr->whole_module = tp->whole_module_simulation;
	tr->allocation = tp->buffer_allocation_index;
	xla__heap_simulator_trace__free_unpacked(tp, NULL);
	tr->ev = ev = L->h->ev + L->nev;
	tr->peak_event = SIZE_MAX;
	while ((r = next_msg(&p, &n, F_EVENTS, &f)) > 0) {
		/* protobuf-c has no unpack function for nested types. */
		ep = (Xla__HeapSimulatorTrace__Event *)
		    protobuf_c_message_unpack(
		    &xla__heap_simulator_trace__event__descriptor, NULL, f.len,
		    f.val);
		if (ep == NULL)
			return err_fail("corrupt buffer assignment");
		memset(&ev[e], 0, sizeof(ev[e]));
		r = apply(L, ep, t, e, &ev[e]);
		protobuf_c_message_free_unpacked(&ep->base, NULL);
		if (r < 0 || account(tr, &ev[e], &heap, &point, t, e) < 0)
			return -1;
		tr->nev = ++e;
		L->nev++;
	}
	if (r < 0)
		return -1;
	return balanced(L, t);
}

/* Count the logical buffers, traces and events on the wire. */
static int
count(const uint8_t *data, size_t len, size_t *nbuf, size_t *ntrace,
    size_t *nev)
{
	struct parts it = { data, len };
	const uint8_t *p, *q;
	struct pbwire_field f, g;
	size_t n, k;
	int r;

	*nbuf = *ntrace = *nev = 0;
	while ((r = next_part(&it, &p, &n)) > 0) {
		while ((r = pbwire_next(&p, &n, &f)) > 0) {
			if ((f.num == F_BUFFERS || f.num == F_TRACES) &&
			    f.wt != 2)
				break;
			if (f.num == F_BUFFERS)
				(*nbuf)++;
			if (f.num != F_TRACES)
				continue;
			(*ntrace)++;
			q = f.val, k = f.len;
			while ((r = next_msg(&q, &k, F_EVENTS, &g)) > 0)
				(*nev)++;
			if (r < 0)
				return -1;
		}
		if (r != 0)
			return err_fail("corrupt buffer assignment");
	}
	return r;
}

static int
load(struct ld *L, const uint8_t *data, size_t len)
{
	struct parts it = { data, len };
	const uint8_t *p;
	struct pbwire_field f;
	size_t n, nbuf, ntrace, nev, t = 0;

	if (!pbwire_is_hloproto(data, len))
		return 0;
	if (count(data, len, &nbuf, &ntrace, &nev) < 0)
		return -1;
	if (ntrace == 0)
		return 0;
	if (load_buffers(L, data, len, nbuf) < 0)
		return -1;
	L->h->trace = mem_calloc(ntrace, sizeof(*L->h->trace));
	L->h->ev = mem_calloc(nev, sizeof(*L->h->ev));
	while (next_part(&it, &p, &n) > 0)
		while (next_msg(&p, &n, F_TRACES, &f) > 0) {
			L->h->ntrace = t + 1;
			if (load_trace(L, f.val, f.len, t++) < 0)
				return -1;
		}
	return 0;
}

/* ---- public interface ---- */

struct heap *
heap_load(const uint8_t *data, size_t len)
{
	struct heap *h = mem_calloc(1, sizeof(*h));
	struct ld L;
	int rc;

	h->refs = 1;
	memset(&L, 0, sizeof(L));
	L.h = h;
	rc = load(&L, data, len);
	free(L.buf);
	if (rc < 0) {
		heap_free(h);
		return NULL;
	}
	return h;
}

void
heap_free(struct heap *h)
{
	if (h == NULL || --h->refs > 0)
		return;
	free(h->trace);
	free(h->ev);
	strtab_free(&h->names);
	free(h);
}

struct heap *
heap_ref(struct heap *h)
{
	h->refs++;
	return h;
}

size_t
heap_ntraces(const struct heap *h)
{
	return h->ntrace;
}

const struct heap_trace *
heap_trace(const struct heap *h, size_t i)
{
	return &h->trace[i];
}

static int
same_event(const struct heap_event *a, const struct heap_event *b)
{
	return a->kind == b->kind && a->buffer == b->buffer &&
	    a->canonical == b->canonical && a->size == b->size &&
	    a->delta == b->delta && strcmp(a->computation,
	    b->computation) == 0 && strcmp(a->instruction,
	    b->instruction) == 0;
}

int
heap_equal(const struct heap *a, const struct heap *b)
{
	const struct heap_trace *x, *y;
	size_t t, e;

	if (a->ntrace != b->ntrace)
		return 0;
	for (t = 0; t < a->ntrace; t++) {
		x = &a->trace[t];
		y = &b->trace[t];
		if (x->nev != y->nev || x->whole_module != y->whole_module ||
		    x->allocation != y->allocation)
			return 0;
		for (e = 0; e < x->nev; e++)
			if (!same_event(&x->ev[e], &y->ev[e]))
				return 0;
	}
	return 1;
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t
fnv_i64(uint64_t h, int64_t v)
{
	return fnv(h, &v, sizeof(v));
}

/* Strings with their NUL, so that "ab"+"c" and "a"+"bc" differ. */
uint64_t
heap_digest(const struct heap *h)
{
	uint64_t d = fnv_i64(0xcbf29ce484222325ull, (int64_t)h->ntrace);
	size_t t, e;

	for (t = 0; t < h->ntrace; t++) {
		const struct heap_trace *x = &h->trace[t];

		d = fnv_i64(d, (int64_t)x->nev);
		d = fnv_i64(d, x->whole_module);
		d = fnv_i64(d, x->allocation);
		for (e = 0; e < x->nev; e++) {
			const struct heap_event *v = &x->ev[e];

			d = fnv_i64(d, v->kind);
			d = fnv_i64(d, v->buffer);
			d = fnv_i64(d, v->canonical);
			d = fnv_i64(d, v->size);
			d = fnv_i64(d, v->delta);
			d = fnv(d, v->computation, strlen(v->computation) + 1);
			d = fnv(d, v->instruction, strlen(v->instruction) + 1);
		}
	}
	return d;
}
