/*
 * Tests of lib/heap: the notebook's heap series on small buffer
 * assignments built here with the protobuf-c structs, and bad input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "profile/heap.h"
#include "hlo.pb-c.h"
#include "unit.h"

#define A	XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__ALLOC
#define F	XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__FREE
#define S	XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__SHARE_WITH

/* An event: kind, buffer, canonical (SHARE_WITH), instruction. */
struct ev {
	int kind;
	int64_t buf, canon;
	const char *inst;
};

/* A trace: its events, up to 16. */
struct tr {
	size_t n;
	struct ev e[16];
	int whole;
	int64_t alloc;
};

/* Logical buffers: id and size pairs, up to 16. */
struct bufs {
	size_t n;
	int64_t id[16], size[16];
};

static uint8_t out[1 << 16];

/* Append field NUM (length-delimited) holding P[0..N) to out+*K. */
static void
put(size_t *k, unsigned num, const uint8_t *p, size_t n)
{
	uint64_t v = n;

	out[(*k)++] = (uint8_t)(num << 3 | 2);
	for (; v >= 0x80; v >>= 7)
		out[(*k)++] = (uint8_t)(v | 0x80);
	out[(*k)++] = (uint8_t)v;
	memcpy(out + *k, p, n);
	*k += n;
}

/* The buffer assignment of B and traces T[0..NT), packed into *LEN bytes
 * (malloc'ed). */
static uint8_t *
pack_ba(const struct bufs *b, const struct tr *t, size_t nt, size_t *len)
{
	Xla__BufferAssignmentProto ba = XLA__BUFFER_ASSIGNMENT_PROTO__INIT;
	Xla__LogicalBufferProto lb[16], *lbp[16];
	Xla__HeapSimulatorTrace ht[4], *htp[4];
	Xla__HeapSimulatorTrace__Event ev[4][16], *evp[4][16];
	uint8_t *p;
	size_t i, j;

	for (i = 0; i < b->n; i++) {
		xla__logical_buffer_proto__init(&lb[i]);
		lb[i].id = b->id[i];
		lb[i].size = b->size[i];
		lbp[i] = &lb[i];
	}
	for (i = 0; i < nt; i++) {
		xla__heap_simulator_trace__init(&ht[i]);
		ht[i].whole_module_simulation = t[i].whole;
		ht[i].buffer_allocation_index = t[i].alloc;
		for (j = 0; j < t[i].n; j++) {
			xla__heap_simulator_trace__event__init(&ev[i][j]);
			ev[i][j].kind = t[i].e[j].kind;
			ev[i][j].buffer_id = t[i].e[j].buf;
			ev[i][j].share_with_canonical_id = t[i].e[j].canon;
			ev[i][j].instruction_name = (char *)(t[i].e[j].inst ?
			    t[i].e[j].inst : "");
			ev[i][j].computation_name = "main";
			evp[i][j] = &ev[i][j];
		}
		ht[i].n_events = t[i].n;
		ht[i].events = evp[i];
		htp[i] = &ht[i];
	}
	ba.n_logical_buffers = b->n;
	ba.logical_buffers = lbp;
	ba.n_heap_simulator_traces = nt;
	ba.heap_simulator_traces = htp;
	*len = xla__buffer_assignment_proto__get_packed_size(&ba);
	p = malloc(*len + 1);
	if (p == NULL)
		abort();
	xla__buffer_assignment_proto__pack(&ba, p);
	return p;
}

/* An HloProto: a module {name: "m"} and the buffer assignment. */
static struct heap *
load(const struct bufs *b, const struct tr *t, size_t nt)
{
	static const uint8_t mod[] = { 0x0a, 0x01, 'm' };
	uint8_t *ba;
	size_t n, k = 0;
	struct heap *h;

	ba = pack_ba(b, t, nt, &n);
	put(&k, 1, mod, sizeof(mod));
	put(&k, 3, ba, n);
	free(ba);
	h = heap_load(out, k);
	return h;
}

static void
fails(const struct bufs *b, const struct tr *t, const char *want)
{
	struct heap *h = load(b, t, 1);

	CHECK(h == NULL);
	if (h == NULL)
		CHECK_STR(err_msg(), want);
	heap_free(h);
}

/* ALLOC adds, FREE subtracts; peak at its first event. */
static void
alloc_free(void)
{
	struct bufs b = { 3, { 7, 3, 5 }, { 100, 30, 50 } };
	struct tr t = { 6, {
		{ A, 7, 0, "a" }, { A, 3, 0, "b" }, { F, 7, 0, "c" },
		{ A, 5, 0, "d" }, { F, 3, 0, "e" }, { F, 5, 0, "e" } }, 1, 4 };
	static const int64_t heap[] = { 100, 130, 30, 80, 50, 0 };
	const struct heap_trace *tr;
	struct heap *h = load(&b, &t, 1);
	size_t i;

	CHECK(h != NULL);
	if (h == NULL)
		return;
	CHECK_INT(heap_ntraces(h), 1);
	tr = heap_trace(h, 0);
	CHECK_INT(tr->nev, 6);
	CHECK_INT(tr->whole_module, 1);
	CHECK_INT(tr->allocation, 4);
	CHECK_INT(tr->peak, 130);
	CHECK_INT(tr->peak_event, 1);
	for (i = 0; i < 6; i++) {
		CHECK_INT(tr->ev[i].heap, heap[i]);
		CHECK_INT(tr->ev[i].point, i + 1);
		CHECK_INT(tr->ev[i].changes, 1);
		CHECK_INT(tr->ev[i].canonical, -1);
		CHECK_STR(tr->ev[i].computation, "main");
	}
	CHECK_INT(tr->ev[2].kind, HEAP_FREE);
	CHECK_INT(tr->ev[2].size, 100);
	CHECK_INT(tr->ev[2].delta, -100);
	CHECK_INT(tr->ev[3].buffer, 5);
	CHECK_STR(tr->ev[3].instruction, "d");
	/* Interned: one copy of "e". */
	CHECK(tr->ev[4].instruction == tr->ev[5].instruction);
	heap_free(h);
}

/*
 * SHARE_WITH adds a user to the canonical buffer: the heap grows only
 * with its first user and shrinks with its last, whichever is freed
 * first; an empty buffer still makes a point of the series.
 */
static void
share_with(void)
{
	struct bufs b = { 3, { 1, 2, 9 }, { 64, 16, 0 } };
	struct tr t = { 7, {
		{ A, 1, 0, "a" }, { S, 2, 1, "b" }, { F, 1, 0, "c" },
		{ A, 9, 0, "d" }, { F, 2, 0, "e" }, { F, 9, 0, "f" },
		{ S, 2, 2, "g" } }, 0, 0 };
	const struct heap_trace *tr;
	struct heap *h;

	/* Without the last event (see below). */
	t.n = 6;
	h = load(&b, &t, 1);
	CHECK(h != NULL);
	if (h == NULL)
		return;
	tr = heap_trace(h, 0);
	CHECK_INT(tr->ev[1].kind, HEAP_SHARE_WITH);
	CHECK_INT(tr->ev[1].canonical, 1);
	CHECK_INT(tr->ev[1].size, 16);	/* its own size */
	CHECK_INT(tr->ev[1].delta, 0);
	CHECK_INT(tr->ev[1].changes, 0);
	CHECK_INT(tr->ev[1].heap, 64);
	CHECK_INT(tr->ev[1].point, 1);
	CHECK_INT(tr->ev[2].delta, 0);	/* buffer 2 still uses it */
	CHECK_INT(tr->ev[2].heap, 64);
	CHECK_INT(tr->ev[2].point, 1);
	CHECK_INT(tr->ev[3].changes, 1);	/* 0 bytes, still a point */
	CHECK_INT(tr->ev[3].delta, 0);
	CHECK_INT(tr->ev[3].point, 2);
	CHECK_INT(tr->ev[4].delta, -64);	/* the canonical's size */
	CHECK_INT(tr->ev[4].heap, 0);
	CHECK_INT(tr->ev[4].point, 3);
	CHECK_INT(tr->ev[5].point, 4);
	CHECK_INT(tr->peak, 64);
	CHECK_INT(tr->peak_event, 0);
	heap_free(h);

	/* A buffer shared with itself after its alias was freed. */
	t.n = 7;
	t.e[6].kind = S;
	fails(&b, &t, "heap simulator trace 0: 1 buffers still allocated "
	    "at the end (first: 2)");
}

/* Several traces are separate series; a later logical buffer with the
 * same id replaces an earlier one; several fields 3 are merged. */
static void
traces(void)
{
	struct bufs b = { 3, { 4, 8, 4 }, { 10, 20, 40 } };
	struct tr t[2] = {
		{ 2, { { A, 4, 0, "x" }, { F, 4, 0, "y" } }, 0, 2 },
		{ 4, { { A, 8, 0, "x" }, { A, 4, 0, "y" }, { F, 8, 0, "z" },
		    { F, 4, 0, "z" } }, 0, 3 } };
	struct bufs b1 = { 1, { 4 }, { 10 } }, b2 = { 2, { 8, 4 }, { 20, 40 } };
	static const uint8_t mod[] = { 0x0a, 0x01, 'm' };
	const struct heap_trace *tr;
	struct heap *h = load(&b, t, 2), *h2;
	uint8_t *p1, *p2;
	size_t n1, n2, k = 0;

	CHECK(h != NULL);
	if (h == NULL)
		return;
	CHECK_INT(heap_ntraces(h), 2);
	tr = heap_trace(h, 0);
	CHECK_INT(tr->ev[0].size, 40);
	CHECK_INT(tr->peak, 40);
	CHECK_INT(tr->allocation, 2);
	tr = heap_trace(h, 1);
	CHECK_INT(tr->nev, 4);
	CHECK_INT(tr->ev[0].point, 1);
	CHECK_INT(tr->peak, 60);
	CHECK_INT(tr->peak_event, 1);
	CHECK_INT(tr->allocation, 3);

	/* The same, in two fields 3: buffers 4, then 8 and 4 with the
	 * traces. */
	p1 = pack_ba(&b1, NULL, 0, &n1);
	p2 = pack_ba(&b2, t, 2, &n2);
	put(&k, 3, p1, n1);
	put(&k, 1, mod, sizeof(mod));
	put(&k, 3, p2, n2);
	free(p1);
	free(p2);
	h2 = heap_load(out, k);
	CHECK(h2 != NULL);
	if (h2 != NULL)
		CHECK(heap_equal(h, h2));
	/* A second holder (heap_ref): the first heap_free leaves it
	 * whole (under ASan, a use after free otherwise), the second
	 * releases it (a leak otherwise). */
	if (h2 != NULL) {
		CHECK(heap_ref(h2) == h2);
		heap_free(h2);
		CHECK(heap_equal(h, h2));
		CHECK_INT(heap_ntraces(h2), heap_ntraces(h));
	}
	heap_free(h2);

	/* heap_equal tells them apart. */
	t[1].e[1].inst = "other";
	h2 = load(&b, t, 2);
	CHECK(h2 != NULL && !heap_equal(h, h2));
	heap_free(h2);
	t[1].e[1].inst = "y";
	h2 = load(&b, t, 1);
	CHECK(h2 != NULL && !heap_equal(h, h2));
	heap_free(h2);
	heap_free(h);
}

/* Dumps without traces. */
static void
no_traces(void)
{
	/* A bare HloModuleProto {name: "m", computations (3): {}}. */
	static const uint8_t bare[] = { 0x0a, 0x01, 'm', 0x1a, 0x00 };
	/* HloProto {hlo_module: {name: "m"}} */
	static const uint8_t nobuf[] = { 0x0a, 0x03, 0x0a, 0x01, 'm' };
	struct bufs b = { 1, { 1 }, { 8 } };
	struct heap *h;

	h = heap_load(bare, sizeof(bare));
	CHECK(h != NULL && heap_ntraces(h) == 0);
	heap_free(h);
	h = heap_load(nobuf, sizeof(nobuf));
	CHECK(h != NULL && heap_ntraces(h) == 0);
	heap_free(h);
	h = heap_load(NULL, 0);
	CHECK(h != NULL && heap_ntraces(h) == 0);
	heap_free(h);
	h = load(&b, NULL, 0);
	CHECK(h != NULL && heap_ntraces(h) == 0);
	heap_free(h);
	/* An empty trace: peak 0, no peak event. */
	{
		struct tr t = { 0, { { 0, 0, 0, NULL } }, 0, 0 };

		h = load(&b, &t, 1);
		CHECK(h != NULL && heap_ntraces(h) == 1);
		if (h) {
			CHECK_INT(heap_trace(h, 0)->peak, 0);
			CHECK(heap_trace(h, 0)->peak_event == SIZE_MAX);
		}
		heap_free(h);
	}
}

/* Every id is looked up; what the notebook asserts fails. */
static void
bad_events(void)
{
	struct bufs b = { 2, { 1, 2 }, { 8, 8 } };
	struct tr t = { 2, { { A, 1, 0, "a" }, { F, 1, 0, "b" } }, 0, 0 };

	t.e[1].buf = 3;
	fails(&b, &t, "heap simulator trace 0, event 1: no logical buffer "
	    "with id 3");
	t.e[1].buf = -1;
	fails(&b, &t, "heap simulator trace 0, event 1: no logical buffer "
	    "with id -1");
	t.e[1].buf = INT64_MAX;
	fails(&b, &t, "heap simulator trace 0, event 1: no logical buffer "
	    "with id 9223372036854775807");
	t.e[1] = (struct ev){ S, 2, 5, "b" };
	fails(&b, &t, "heap simulator trace 0, event 1: no logical buffer "
	    "with id 5");
	t.e[1] = (struct ev){ 7, 1, 0, "b" };
	fails(&b, &t, "heap simulator trace 0, event 1: unknown kind 7");
	t.e[1] = (struct ev){ -1, 1, 0, "b" };
	fails(&b, &t, "heap simulator trace 0, event 1: unknown kind -1");
	t.e[1] = (struct ev){ F, 2, 0, "b" };
	fails(&b, &t, "heap simulator trace 0, event 1: FREE of buffer 2, "
	    "which is not allocated");
	t.n = 3;
	t.e[1] = (struct ev){ S, 2, 1, "b" };
	t.e[2] = (struct ev){ S, 2, 1, "c" };
	fails(&b, &t, "heap simulator trace 0, event 2: buffer 2 shared "
	    "twice");
	t.n = 1;
	fails(&b, &t, "heap simulator trace 0: 1 buffers still allocated "
	    "at the end (first: 1)");
	b.size[1] = -8;
	fails(&b, &t, "logical buffer 2: negative size");
	b.size[0] = b.size[1] = INT64_MAX / 2 + 1;
	t.n = 2;
	t.e[0] = (struct ev){ A, 1, 0, "a" };
	t.e[1] = (struct ev){ A, 2, 0, "b" };
	fails(&b, &t, "heap simulator trace 0, event 1: heap size "
	    "overflows");
}

/* Wire data that cannot be read. */
static void
bad_wire(void)
{
	static const uint8_t mod[] = { 0x0a, 0x01, 'm' };
	/* BufferAssignment {4: 5} (a trace as a varint). */
	static const uint8_t trace_varint[] = { 0x20, 0x05 };
	/* BufferAssignment {1: 5} (a logical buffer as a varint). */
	static const uint8_t buf_varint[] = { 0x08, 0x05 };
	/* BufferAssignment {4: {1: 5}} (an event as a varint). */
	static const uint8_t ev_varint[] = { 0x22, 0x02, 0x08, 0x05 };
	/* BufferAssignment {4: {1: {2: <truncated>}}}. */
	static const uint8_t ev_trunc[] = { 0x22, 0x04, 0x0a, 0x02, 0x10,
	    0x80 };
	/* BufferAssignment {1: {1: <truncated>}, 4: {}}. */
	static const uint8_t buf_trunc[] = { 0x0a, 0x02, 0x08, 0x80, 0x22,
	    0x00 };
	/* A truncated field 3 length. */
	static const uint8_t *const cases[] = { trace_varint, buf_varint,
	    ev_varint, ev_trunc, buf_trunc };
	static const size_t lens[] = { sizeof(trace_varint),
	    sizeof(buf_varint), sizeof(ev_varint), sizeof(ev_trunc),
	    sizeof(buf_trunc) };
	struct heap *h;
	size_t i, k;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		k = 0;
		put(&k, 1, mod, sizeof(mod));
		put(&k, 3, cases[i], lens[i]);
		h = heap_load(out, k);
		CHECK(h == NULL);
		if (h == NULL)
			CHECK_STR(err_msg(), "corrupt buffer assignment");
		heap_free(h);
		/* Truncated anywhere: an error or a bare module, never a
		 * crash (the sanitizer build checks). */
		while (k-- > 0)
			heap_free(heap_load(out, k));
	}
}

int
main(void)
{
	alloc_free();
	share_with();
	traces();
	no_traces();
	bad_events();
	bad_wire();
	return unit_done("heap");
}
