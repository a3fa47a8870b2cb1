/*
 * proj: the projected NVTX ranges and the thread names of one profile, as
 * every reader of a profile produces them (trace.h: nsys-jax's
 * nvtx_gpu_proj_trace and thread-metadata tables, whatever the nsys
 * layout) and the frame builder (frames.h) consumes them.  Types only.
 */
#ifndef NSYSJAX_PROJ_H
#define NSYSJAX_PROJ_H

#include <stdint.h>

/* One range of nvtx_gpu_proj_trace, normalised across nsys layouts. */
struct proj_range {
	const char *name;	/* "TSL:Thunk:#..." or "Thunk:#..." */
	int64_t start;		/* projected GPU start, ns */
	int64_t dur;		/* projected GPU duration, ns */
	int64_t orig_start;	/* CPU-side start, ns (<= 2024.4 only) */
	int64_t orig_dur;	/* CPU-side duration, ns (<= 2024.4 only) */
	int64_t pid, tid;
	int64_t num_gpu_ops;	/* -1 where the layout has no NumGPUOps */
	int64_t id;		/* RangeId */
	int64_t parent;		/* ParentId, -1 for a root */
};

/* One row of thread-metadata: (PID, TID) and the thread's name. */
struct proj_thread {
	int64_t pid, tid;
	const char *name;
};

#endif
