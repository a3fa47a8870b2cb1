/*
 * frames: the thunk and module frames of load_profiler_data (nsys-jax's
 * data_loaders.py), built from the ranges of nvtx_gpu_proj_trace and the
 * XlaLauncher thread names of one or more profiles.
 *
 * Building is split in stages because the middle needs HLO metadata that
 * this module does not read:
 *
 *	frames_add_profile()	ranges -> thunk and module rows (per profile)
 *	(caller)		sets frames_module.program (the ProgramId
 *				string: the HLO fingerprint) and
 *				frames_thunk.comm from the HLO dumps
 *	frames_finish()		ProgramExecution, ThunkExecution, NumThunks,
 *				hidden communication time, output order
 *
 * All times are integer nanoseconds, as nsys records them; writers turn
 * them into milliseconds.
 */
#ifndef NSYSJAX_FRAMES_H
#define NSYSJAX_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "profile/proj.h"

/* Where a row ran: XlaLauncher's global=, local=, process=, slice=. */
struct frames_device {
	int32_t device, local, process, slice;
};

struct hlo_module;

struct frames_module {
	size_t profile;		/* index of the profile (input order) */
	struct hlo_module *hlo;	/* its HLO dump, set by the caller */
	int64_t program_id;	/* from the range name; -1 for autotuning */
	const char *program;	/* ProgramId string; set by the caller */
	char *name;		/* hlo_module */
	int64_t start, dur, orig_start, orig_dur;	/* ns */
	int64_t tid;
	struct frames_device dev;
	int64_t execution;	/* ProgramExecution (frames_finish) */
	int64_t num_thunks;	/* NumThunks (frames_finish) */
};

struct frames_thunk {
	size_t module;		/* index into frames.modules */
	char *name;		/* HLO instruction (hlo_op) */
	int64_t start, dur, orig_start, orig_dur;	/* ns */
	int64_t hidden;		/* ProjDurHiddenMs in ns (frames_finish) */
	int64_t execution;	/* ThunkExecution (frames_finish) */
	struct frames_device dev;
	int comm;		/* 1 communication, 0 compute, -1 unknown */
	/* 1 on a command-buffer row whose inner operations were split off
	 * into rows of their own (cmdbuf_split), 0 otherwise. */
	unsigned char cmdbuf_opened;
	/* Set by the caller for communication thunks (hlo.h); the string
	 * must outlive the frames. */
	const char *collective;	/* "all-gather", ... or NULL */
	int64_t message_size;	/* bytes */
	int64_t collective_size;	/* devices */
	/* CommandBuffer column: the command-buffer thunk's own
	 * name on its row, the buffer's name on an inner-operation row, NULL
	 * for an ordinary thunk; set by the caller, must outlive the frames. */
	const char *cmdbuf;
	int64_t range_id;	/* RangeId of its NVTX range */
	/* The unique_hlo_op_id of its range (XLA since mid-2026: the
	 * instruction's HloInstructionProto.id), when has_id is 1. */
	int64_t hlo_id;
	unsigned char has_id;
	/* Set by the caller: 1 when hlo_id is not the instruction the name
	 * gives in its dump; the row then has no HLO metadata. */
	unsigned char id_mismatch;
};

/*
 * Whether the dump of program PROGRAM_ID (the XlaModule range's
 * program_id) of profile PROFILE holds an instruction named OP[0..LEN)
 * whose HloInstructionProto.id is ID: 1 or 0 (0 too without a dump).
 * Set by the caller to let a thunk without an XlaModule parent be
 * attributed by its unique_hlo_op_id (frames_add_profile).
 */
typedef int frames_holds_fn(void *ctx, size_t profile, int64_t program_id,
    const char *op, size_t len, int64_t id);

struct frames {
	frames_holds_fn *holds;	/* NULL: attribution by time alone */
	void *holds_ctx;
	struct frames_module *modules;
	size_t nmodules, capmodules;
	struct frames_thunk *thunks;
	size_t nthunks, capthunks;
	int has_orig;		/* every profile had Orig Start/Duration */
	size_t nprofiles;	/* profiles added */
	struct err_notes notes;	/* informational messages for stderr */
};

/* A zeroed struct frames is empty and ready; frames_free releases it. */
void frames_free(struct frames *f);

/*
 * Append the thunks and modules of one profile (index PROFILE) to F,
 * applying load_profiler_data's rules (data_loaders.py
 * _load_nvtx_gpu_proj_trace_single):
 *  - NCCL ranges are removed and their children re-parented to the NCCL
 *    range's nearest non-NCCL ancestor;
 *  - thunks that start before the first XlaModule are ignored (a note);
 *  - only the deepest Thunk below the deepest XlaModule is kept; modules
 *    without a kept thunk appear too, NumThunks 0 (XLA of 2026), but for
 *    those without a program_id (autotuning);
 *  - a top-level Thunk range, or the deepest Thunk below one (XLA of 2026:
 *    AsyncStartThunk runs its nested thunks on a thread of their own, so
 *    their ranges have no XlaModule parent; openxla/xla 9f86ee60df), gets
 *    the module execution of its process that contains its start in time
 *    (CPU interval with HAS_ORIG, else projected GPU interval; the
 *    deepest of a thread).  Of several on different threads, the one
 *    whose dump holds the thunk's hlo_op with its unique_hlo_op_id
 *    (F->holds) when exactly one does; else the thunk is dropped.  It
 *    takes its module's device; its top-level range widens the module's
 *    projected interval to cover it and adds its NumGPUOps to the
 *    module's for the rule below, as if nested.  One note per profile
 *    names the rule used;
 *  - when NumGPUOps exists (HAS_GPU_OPS), the last execution of each
 *    module is dropped, with its thunks, if its NumGPUOps is below
 *    mean - std (population) of the earlier ones (a note);
 *  - devices come from XlaLauncher thread names in THREADS; the main
 *    thread, recognised as the only thread running some program or the
 *    only thread with XlaCompile ranges, gets the first launcher's device;
 *    rows on other threads are dropped (a note).
 * R[0..N) is read only; names are copied.  Returns 0, or -1 with an err
 * message for a trace that contradicts those rules (a thunk whose
 * ancestors reach no XlaModule is dropped with a note, not an error).
 */
int frames_add_profile(struct frames *f, size_t profile,
    const struct proj_range *r, size_t n, int has_gpu_ops, int has_orig,
    const struct proj_thread *threads, size_t nthreads);

/*
 * After the caller set every module's `program` and every thunk's `comm`:
 * number executions as load_profiler_data does (ProgramExecution counts a
 * thread's executions of each ProgramId in RangeId order; ThunkExecution
 * counts each instruction's executions within a module execution on a
 * device, in trace order), count NumThunks, compute hidden communication
 * time and sort the rows.
 *
 * Hidden time (data_loaders.py _calculate_overlap): for each
 * communication thunk, the length of its overlap with the compute thunks
 * of the same ProgramId, device and profile; that time moves from `dur`
 * to `hidden`, so 0 <= hidden <= the thunk's whole time.  The reference
 * sums the overlaps with each compute thunk over (ProgramId, Device): the
 * same where a profile's compute on a device does not overlap itself and
 * no two profiles share a device (every sample of the reference), but
 * where compute runs on two streams, or two profiles claim one device
 * (copies of one run, two runs given together), a moment counted twice
 * can hide more than the thunk lasted (ProjDurMs < 0).  Here the compute
 * thunks' union counts, each profile's own.  A split command buffer
 * (`cmdbuf_opened`: the time it keeps is no interval) is neither: its
 * inner rows are.  Computed by merging the compute intervals sorted by
 * start and a binary search per communication thunk, O(n log n +
 * overlaps), where the reference compares every pair.
 *
 * Order: modules by (ProgramId, ProgramExecution, Device), thunks by
 * (ProgramId, ProgramExecution, Name, ThunkExecution, Device): the index
 * order of the reference's frames, strings compared bytewise.
 */
void frames_finish(struct frames *f);

/*
 * Drop what remove_autotuning_detail drops from these frames (utils.py):
 * modules and thunks whose ProgramId is "unknown".  Call after
 * frames_finish.
 */
void frames_drop_autotuning(struct frames *f);

#endif
