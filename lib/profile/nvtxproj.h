/*
 * nvtxproj: the NVTX -> GPU projection of `nsys stats --report
 * nvtx_gpu_proj_trace` (its SQL report, nsys's reports/
 * nvtx_gpu_proj_trace.py; nsysjax-extract(1), SQLITE EXPORTS),
 * computed on arrays by a per-thread sort-and-sweep: O(n log n) plus the
 * number of (range, launch) containments, with no range join.
 *
 * The rule: a GPU operation belongs to every NVTX range R on the thread of
 * the CUDA call that launched it with R.start <= call.start and
 * call.end <= R.end (inclusive; launch time, not execution time).  A
 * range's projection is [first op start, last op end] over its
 * operations; NumGPUOps counts distinct launching calls (correlation ids),
 * not operations.  Ranges without an operation are not projected.
 *
 * The hierarchy is the CPU tree of every range (projected or not): the
 * parent of C is the range on the same thread (globalTid) containing C's
 * CPU interval with the least tightness (C.start - P.start) + (P.end -
 * C.end); ties go to the later start, then to the higher RangeId, so
 * that of identical intervals the lower RangeId is the parent of the
 * higher (the choices that reproduce nsys's own projection of real
 * exports, byte for byte).
 *
 * CUDA graphs in node mode: an operation replayed from a graph node is
 * launched by the graph launch call (its correlation id), and is also
 * attributed to the innermost range open when its node was created
 * (captured): a call with `capture` set counts for that range only (the
 * recipe's rule restricted to innermost ranges),
 * and its group is the envelope of the operations of that node and launch.
 */
#ifndef NSYSJAX_NVTXPROJ_H
#define NSYSJAX_NVTXPROJ_H

#include <stddef.h>
#include <stdint.h>

/* A candidate range: CPU interval in ns, thread, RangeId (rowid). */
struct nvtxproj_range {
	int64_t start, end;	/* ns; end >= start */
	int64_t tid;		/* globalTid */
	int64_t id;		/* RangeId: NVTX_EVENTS rowid, unique */
};

/*
 * A CUDA call that launched GPU operations: its CPU interval on thread
 * tid, the operations' envelope (group) and the distinct-count key (one
 * per correlation id and process).  Several calls may share a key (nsys
 * 2022.2 records a backtrace copy of a call) and count once.
 */
struct nvtxproj_call {
	int64_t start, end;	/* ns, the API call */
	int64_t tid;		/* globalTid */
	uint32_t key;		/* launch identity, for NumGPUOps */
	uint32_t group : 31;	/* index into the groups' envelopes */
	uint32_t capture : 1;	/* a graph node's creation (see above) */
};

/* Envelope of the GPU operations of a group: [start, end] in ns. */
struct nvtxproj_group {
	int64_t start, end;
};

/* The projection, one entry per range (index of the input array).
 * Indices are 32-bit: callers pass fewer than 2^31 ranges, calls and
 * groups (nsysdb refuses more). */
struct nvtxproj {
	size_t n;
	int64_t *pstart, *pend;	/* projected interval, ns (if nops > 0) */
	uint32_t *nops;		/* NumGPUOps; 0: not projected */
	int32_t *parent;	/* index of the parent range, -1: a root;
				 * the depth (Lvl) is the length of the chain */
	uint32_t *nchild;	/* children that are projected */
	uint32_t *order;	/* projected ranges, output order */
	size_t nout;
};

/*
 * The calls C[0..NC) (NC below 2^31) in the order the projection sweeps
 * them: by thread, start, end, index.  A new array of NC indices (free
 * it).  nvtxproj_run sorts them itself when given none; computed ahead,
 * on a thread that is otherwise idle, it is off the projection's path.
 */
uint32_t *nvtxproj_order_calls(const struct nvtxproj_call *c, size_t nc);

/*
 * Project R[0..NR) with the calls C[0..NC) whose envelopes are
 * G[0..NG) into P (a zeroed struct); NR and NC below 2^31.  CORDER is
 * nvtxproj_order_calls(C, NC), or NULL for the projection to compute
 * it; it is not freed.  Output
 * order: projected start ascending, projected duration descending,
 * RangeId ascending.  Inputs are not modified.  Cannot fail (memory
 * exhaustion exits, mem.h).  Memory beyond P's arrays (32 bytes a
 * range, the output order's included): 4 bytes a call for the calls'
 * sorted order (none when CORDER is given), and the scratch of one sort
 * (sort.h).
 */
void nvtxproj_run(const struct nvtxproj_range *r, size_t nr,
    const struct nvtxproj_call *c, size_t nc, const uint32_t *corder,
    const struct nvtxproj_group *g, struct nvtxproj *p);

/*
 * nvtxproj_run in parts, so that the caller can free the calls and
 * groups before the output order (which needs neither), and prepare
 * what needs only the ranges while the calls are still being read:
 * nvtxproj_prepare allocates and initialises P's arrays for R[0..NR)
 * (P need not be zeroed), and sorts the ranges for the sweep;
 * nvtxproj_sweep takes nvtxproj_run's arguments, with P zeroed or
 * prepared with the same R, and fills P but for nchild, order and nout
 * (P->order holds a spent buffer of NR indices, that nvtxproj_order
 * reuses); nvtxproj_order(R, P), with the same R, then completes P.
 */
void nvtxproj_prepare(const struct nvtxproj_range *r, size_t nr,
    struct nvtxproj *p);
void nvtxproj_sweep(const struct nvtxproj_range *r, size_t nr,
    const struct nvtxproj_call *c, size_t nc, const uint32_t *corder,
    const struct nvtxproj_group *g, struct nvtxproj *p);
void nvtxproj_order(const struct nvtxproj_range *r, struct nvtxproj *p);

void nvtxproj_free(struct nvtxproj *p);

#endif
