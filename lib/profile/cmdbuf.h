/*
 * cmdbuf: XLA command buffers (CUDA graphs) in the thunk frame.
 *
 * A thunk is a command buffer when XLA's thunk metadata dump
 * (formats/thunkmeta.h) gives it the kind kCommandBuffer, else when its
 * name is "command_buffer_N" or "command_buffer.N" (XLA's naming).  Its
 * row's CommandBuffer column holds its own name.
 *
 * Node-level graph traces (nsys --cuda-graph-trace=node) record each
 * kernel, memcpy and memset of a graph launch.  Those of one launch are
 * attributed to the HLO operations the buffer holds, each of which
 * becomes a thunk row of its own (CommandBuffer = the buffer's name):
 *
 *  1. by name: XLA names a fusion's kernel after the instruction with '.'
 *     and '-' turned into '_' ("loop_add_fusion.1" -> kernel
 *     "loop_add_fusion_1"); a kernel named so, or so followed by '_' or
 *     '.' and a suffix, is that instruction's (the longest such name);
 *  2. by order, only when the buffer's thunks are known in order (thunk
 *     metadata) and its operations do not overlap in GPU time: a run of
 *     operations no name explains (cuBLAS/cuDNN kernels, memcpys,
 *     memsets), between two operations matched by name, goes to the
 *     thunks between those two in the buffer that no name matched and
 *     that are not containers (kSequential, kWhile, kConditional,
 *     kCommandBuffer): all of the run to one such thunk when it is alone,
 *     one operation each when their numbers agree, else none (between a
 *     later thunk and an earlier or the same one, as a loop's body runs
 *     again, the thunks between wrap around the buffer's end).
 *  What nothing explains stays on the buffer's row.
 *
 * Each execution of an operation is an inner row.  When the buffer's
 * members come from the metadata and none is a loop or conditional
 * (kWhile, kConditional), each entry runs once per launch: all the
 * operations given to it are the parts of one execution (a cuBLAS
 * call's GEMM and workspace kernels, a thunk's two kernels named after
 * it), its duration their union's measure (its parts may straddle
 * another thunk's kernel).  Otherwise an operation matched by name
 * starts one (XLA launches each kernel of a fusion from a thunk of its
 * own, so a kernel named again, as in a loop's body, is another
 * execution), and the operations a run gives to one thunk by order are
 * one execution, its duration last end - first start.  Its
 * instruction's name, GPU start = its first operation's, OrigStart the
 * buffer's, OrigDur 0: what the same thunk's range gives traced without
 * command buffers.
 *
 * The buffer's row keeps its start and only the GPU time that no inner
 * row explains: the union of its unmatched operations' intervals.  Idle
 * time between the graph's operations is idle, as between thunks, so
 * where every operation is matched the thunk time of a module execution
 * is the same run's without command buffers, and the buffer's row is 0.
 * Unless that is its whole span, what it keeps is a sum, not an
 * interval, so it takes no part in hidden communication time (frames.h,
 * cmdbuf_opened).  When operations run
 * concurrently (XLA's kConcurrentRegions, several streams) order says
 * nothing, so only names match, and inner rows may overlap as the
 * thunks' ranges would.
 */
#ifndef NSYSJAX_CMDBUF_H
#define NSYSJAX_CMDBUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/strtab.h"
#include "formats/thunkmeta.h"
#include "profile/frames.h"

/* Whether NAME is "command_buffer_N" or "command_buffer.N" (N digits). */
int cmdbuf_name_is(const char *name);

/* One GPU operation of a graph launch. */
struct cmdbuf_op {
	int64_t start, end;	/* GPU interval, ns */
	const char *name;	/* kernel name; "" for a memcpy or memset */
};

/* One operation a buffer can hold. */
struct cmdbuf_member {
	const char *name;	/* instruction name (not owned) */
	const char *kind;	/* thunk kind, NULL without metadata */
	/* v[i].first: the first member whose normalised name has id i in
	 * `norm` (ids are dense and never outnumber the members). */
	size_t first;
};

/* The operations a buffer can hold, indexed by normalised name. */
struct cmdbuf_members {
	struct cmdbuf_member *v;
	size_t n, cap;
	int ordered;		/* names in the buffer's order (metadata) */
	struct strtab norm;	/* normalised name -> id (see first) */
};

/*
 * The members of the command buffer at entry B of the thunk metadata T:
 * the entries after B up to the next kCommandBuffer entry or the next
 * entry for which IS_OUTSIDE(ARG, name) is true (a thunk that has a range
 * of its own in the trace, so ran outside the buffer), skipping entries
 * without a name.  The dump has no depth (thunkmeta.h): this is the rule
 * that takes its place.  Fills zeroed M (ordered); names point into T.
 */
void cmdbuf_members_meta(struct cmdbuf_members *m, const struct thunkmeta *t,
    size_t b, int (*is_outside)(void *, const char *), void *arg);

/* Add member NAME (kind KIND or NULL) to M (without metadata: every HLO
 * instruction of the module, unordered).  NAME must outlive M. */
void cmdbuf_members_add(struct cmdbuf_members *m, const char *name,
    const char *kind);

void cmdbuf_members_free(struct cmdbuf_members *m);

/* Where one operation went: a member index or -1, and how. */
struct cmdbuf_assign {
	long member;
	unsigned char by_name;	/* 1: by name, 0: by order (or none) */
};

/*
 * Match OPS[0..N) (sorted by GPU start) to M by the rules above into
 * A[0..N).  Returns 1 when operations overlap in GPU time (concurrent:
 * no order rule), else 0.
 */
int cmdbuf_match(const struct cmdbuf_op *ops, size_t n,
    const struct cmdbuf_members *m, struct cmdbuf_assign *a);

/* Totals over the buffers split, for the note. */
struct cmdbuf_stats {
	size_t nbuf;		/* buffer rows with graph operations */
	size_t nops, nmatched;	/* operations, of them attributed */
	int64_t ns, ns_matched;	/* their summed GPU time, ns */
};

/*
 * Split thunk row T of F (a command buffer named BUF, a string outliving
 * F; its start and duration its launch's operations' span) into inner
 * rows, one per execution, by A (cmdbuf_match) as said above, appending
 * them to F, and add to ST.  Row T keeps the union of the unmatched
 * operations' intervals (ns).  Returns the number of inner rows.  O(n).
 */
size_t cmdbuf_split(struct frames *f, size_t t, const char *buf,
    const struct cmdbuf_op *ops, size_t n, const struct cmdbuf_assign *a,
    const struct cmdbuf_members *m, struct cmdbuf_stats *st);

#endif
