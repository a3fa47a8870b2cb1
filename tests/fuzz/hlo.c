/*
 * Fuzz target: HLO protobuf dumps (hlo_load: the wire walk, protobuf-c
 * decoding one instruction at a time, communication facts: message size,
 * replica groups), the source stacks of every instruction (hlo_src:
 * stack frame, file location and name ids out of range, ids beyond the
 * index, cycles of parent frames) and the heap simulator traces of the buffer assignment
 * (heap_load).
 */
#include <stdint.h>
#include <stdlib.h>

#include "profile/heap.h"
#include "formats/hlo.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The heap after each event is the sum of the deltas, never negative. */
static void
heap(const uint8_t *data, size_t n)
{
	const struct heap_trace *t;
	struct heap *h;
	int64_t sum;
	size_t i, j;

	if ((h = heap_load(data, n)) == NULL)
		return;
	for (i = 0; i < heap_ntraces(h); i++) {
		t = heap_trace(h, i);
		for (sum = 0, j = 0; j < t->nev; j++) {
			sum += t->ev[j].delta;
			if (t->ev[j].heap != sum || sum < 0 || sum > t->peak)
				abort();
		}
	}
	(void)heap_equal(h, h);
	heap_free(h);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const struct hlo_inst *in;
	struct hlo_module *m;
	struct hlo_src s;
	size_t i, j, k, nframe;
	int64_t max;

	heap(data, n);
	if ((m = hlo_load(data, n)) == NULL)
		return 0;
	(void)hlo_name(m);
	(void)hlo_id(m);
	(void)hlo_program_id(m);
	/* Ids beyond the index: counted among the instructions, and the
	 * largest is beyond it. */
	k = hlo_frames_beyond(m, &max, &nframe);
	if (k > hlo_count(m) || (k > 0 && (max < 1 || (uint64_t)max <= nframe)))
		abort();
	for (i = 0; i < hlo_count(m); i++) {
		in = hlo_inst(m, i);
		if (hlo_find(m, in->name) != in)
			abort();
		if (in->comm == 1 && in->collective != NULL &&
		    (in->message_size < 0 || in->collective_size < 0))
			abort();
		if (hlo_src(m, in, &s) == 0)
			for (j = 0; j < s.nstack; j++)
				for (k = 0; k < s.stack[j].nframe; k++)
					if (s.stack[j].frame[k] == NULL)
						abort();
		hlo_src_free(&s);
	}
	(void)hlo_find(m, "no such instruction");
	hlo_free(m);
	return 0;
}
