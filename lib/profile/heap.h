/*
 * heap: heap memory usage over program order, from the buffer assignment
 * of an XLA HLO dump, as the last analysis of the reference's notebook
 * computes it (NVIDIA/JAX-Toolbox .github/container/nsys_jax/nsys_jax/
 * analyses/Analysis.ipynb, heap_usage_trace, and the cell that prints
 * "Peak heap memory usage in module ID ...").
 *
 * Input is the decompressed bytes of one dump file, as for hlo_load():
 * an HloProto whose field 3 is the BufferAssignmentProto (openxla/xla
 * xla/service/hlo.proto; the schema subset is protos/hlo.proto).  A bare
 * HloModuleProto, or an HloProto without field 3, has no traces.
 *
 * The rules, all the notebook's:
 *  - the size of a buffer is the size, in bytes, of the LogicalBufferProto
 *    with its id in buffer_assignment.logical_buffers (a later entry with
 *    the same id replaces an earlier one, as a Python dict does);
 *  - each HeapSimulatorTrace of heap_simulator_traces is a series of its
 *    own, in the order of the traces; its events are in program order (the
 *    order in which XLA's heap simulator visited the instructions);
 *  - an event acts on an allocation: its buffer_id for ALLOC, its
 *    share_with_canonical_id for SHARE_WITH (and buffer_id becomes an
 *    alias of it), and for FREE the allocation buffer_id is an alias of,
 *    or else buffer_id itself (the alias is forgotten);
 *  - ALLOC and SHARE_WITH add a user to the allocation: the first user
 *    adds the allocation's size to the heap; FREE removes one: the last
 *    one takes its size away.  Other events leave the heap unchanged;
 *  - the heap starts at 0 bytes; its peak is the largest value reached.
 *
 * Where the notebook's asserts or lookups would fail, heap_load fails:
 * an event naming a buffer id that no logical buffer has, a kind that is
 * none of ALLOC (0), FREE (1) and SHARE_WITH (2), a SHARE_WITH of a buffer
 * that already is an alias, buffers still allocated at the end of a trace.
 * Two cases the notebook lets through are errors here too: a FREE of an
 * allocation without users (the notebook counts it below zero, so that the
 * trace ends unbalanced or a later ALLOC adds nothing), and a negative
 * buffer size.
 *
 * Memory: the dump's module is never decoded; the buffer assignment is
 * read one logical buffer and one event at a time.  What is kept is 72
 * bytes per event and the distinct instruction and computation names;
 * while loading, 40 bytes per logical buffer too.  Time is
 * O(events * log(buffers) + buffers * log(buffers)).
 */
#ifndef NSYSJAX_HEAP_H
#define NSYSJAX_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct heap;

/* HeapSimulatorTrace.Event.Kind. */
enum heap_kind {
	HEAP_ALLOC = 0,
	HEAP_FREE = 1,
	HEAP_SHARE_WITH = 2
};

/*
 * One event of a trace, with the heap after it.
 *   kind, buffer, canonical: the event's kind, buffer_id and, for
 *     SHARE_WITH, share_with_canonical_id (-1 for the other kinds);
 *   size: bytes, the size of logical buffer `buffer`;
 *   delta: bytes, what the event adds to the heap: the allocation's size
 *     when it gets its first user, minus it when it loses its last, else 0;
 *   heap: bytes in use after the event, >= 0;
 *   point: the index, in the notebook's series (np.cumsum of [0] and one
 *     entry per event that gets or loses an allocation's first or last
 *     user), of the value after this event: what the notebook plots
 *     against "Program order".  0 until the first such event;
 *   changes: 1 if this event added an entry to that series (even one of
 *     0 bytes), else 0;
 *   computation, instruction: the event's computation_name and
 *     instruction_name ("" when absent), valid until heap_free.
 */
struct heap_event {
	int kind;
	int changes;
	int64_t buffer;
	int64_t canonical;
	int64_t size;
	int64_t delta;
	int64_t heap;
	size_t point;
	const char *computation;
	const char *instruction;
};

/*
 * One heap simulator trace.
 *   ev[0..nev): its events, in program order;
 *   whole_module, allocation: whole_module_simulation and
 *     buffer_allocation_index;
 *   peak: bytes, the largest heap value (0 for a trace without events);
 *   peak_event: the first event after which the heap is at its peak
 *     (SIZE_MAX for a trace without events).
 */
struct heap_trace {
	const struct heap_event *ev;
	size_t nev;
	int whole_module;
	int64_t allocation;
	int64_t peak;
	size_t peak_event;
};

/*
 * Read the buffer assignment of the dump in DATA[0..LEN) and compute the
 * heap series of each of its traces.  Returns the traces (maybe none), or
 * NULL with an err message: "corrupt buffer assignment" for wire data that
 * cannot be read, else "heap simulator trace T, event E: ..." naming what
 * is wrong (see above), or "logical buffer N: negative size".  The caller
 * prefixes the input and member names.
 */
struct heap *heap_load(const uint8_t *data, size_t len);

/* Drop one holder of H: the last (heap_load's, then each heap_ref's)
 * releases everything.  A NULL argument is allowed. */
void heap_free(struct heap *h);

/* One more holder of H (not thread-safe: one thread's), released with
 * heap_free: an HLO dump decoded once serves the heap frame of every
 * profile that dumped the same bytes (extract.c's dump cache).
 * Returns H. */
struct heap *heap_ref(struct heap *h);

/* The number of traces, and the I-th (I < heap_ntraces). */
size_t heap_ntraces(const struct heap *h);
const struct heap_trace *heap_trace(const struct heap *h, size_t i);

/*
 * Whether A and B give the same series: same traces, events, names and
 * sizes (what the notebook's unique_result requires of the dumps of one
 * program).
 */
int heap_equal(const struct heap *a, const struct heap *b);

/*
 * A 64-bit digest (FNV-1a) of what heap_equal compares, so that the
 * heaps of separate extractions can be compared (merge.h): equal heaps
 * have equal digests; unequal ones differ but with odds of 2^-64.
 */
uint64_t heap_digest(const struct heap *h);

#endif
