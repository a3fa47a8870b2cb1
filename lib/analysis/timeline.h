/*
 * timeline: the frames of a run as timeline tracks and slices, for a
 * trace viewer (nsysjax-timeline; the writers are formats/tevent.h).
 *
 * Tracks: one process per device (pid = Device + 1), and under it one
 * thread track per stream (the thunk frame's Stream column, when it has
 * one) or, where streams are unknown, "compute" and "communication"
 * (Communication 1); a device's part of a critical path on a track of its
 * own, "critical path".  Slices: each module execution (module frame) is
 * a parent slice on every thread track of its device but the critical
 * path, with the thunks inside; an operation run inside a command buffer
 * (thunk frame column CommandBuffer not empty and not the row's Name)
 * nests inside its command buffer's thunk, whose slice then spans the
 * whole graph: from its start to the last end of it and its operations
 * (same device, ProgramId, ProgramExecution and ThunkExecution), its own
 * row's time (what no operation took) an argument.  A thunk lasts
 * ProjDurMs + ProjDurHiddenMs (the exposed and the hidden time: the
 * whole kernel).
 *
 * Correct by construction: the slices of one track nest or follow each
 * other.  Each track's slices are taken in order of start (the longer
 * first at equal starts, a module before a thunk before an inner
 * operation); a slice that would overlap the slice enclosing it without
 * nesting in it (overlapping operations of one stream, which profiles
 * have) goes to the first sibling track where it nests or follows,
 * "compute (overlap 1)", ..., opened as needed: no slice is dropped or
 * cut, up to the 4095 tracks a device has (Perfetto tids are pid * 4096
 * + track); past them, a slice goes on its class's last track, cut to
 * end with the slice open there and marked (argument overflow_cut_ns),
 * and the rest of the trace is kept.  Times are integer ns throughout.
 *
 * Flows: the rows of one collective instance (ProgramId, ProgramExecution,
 * Name, ThunkExecution; Communication 1) on two or more devices share a
 * flow id, ordered by start (then device): Perfetto draws an arrow from
 * each to the next.  ProgramIds that are one SPMD step (lib/analysis/
 * spmd.h: the same module name and collectives on other devices, such
 * as a process that autotuned its kernels apart) are one: an instance is
 * then the same (ProgramExecution, Name, ThunkExecution) in each, and
 * its flow links all their devices.  The critical path's slices of one
 * module execution form one flow chain in the same way.
 *
 * Memory: pass one (tl_read_*) filters the rows and spools them as
 * fixed-size records to an unlinked temporary file in $TMPDIR, keeping
 * only the per-device counts, the interned strings and the hlo metadata;
 * pass two (tl_write) reads the spool once per batch of devices (at most
 * TL_BATCH records, or one device's) and sorts the batch: memory is flat
 * in the number of devices, and the output streams.
 */
#ifndef NSYSJAX_TIMELINE_H
#define NSYSJAX_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

struct tsv_reader;
struct align_table;

/* Records of one batch of devices in pass two (128 B each, and a
 * pointer: about 36 MB). */
#define TL_BATCH ((size_t)1 << 18)

/* A list of integer ranges, "1,3-5": [lo[i], hi[i]], inclusive. */
struct tl_ranges {
	int64_t *lo, *hi;
	size_t n;
};

/*
 * Parse S ("N", "A-B", separated by commas; non-negative integers,
 * A <= B) into *R.  Returns 0, or -1 with an err message "'S': ..."
 * (nothing allocated).
 */
int tl_ranges_parse(const char *s, struct tl_ranges *r);

/* Whether V is in R. */
int tl_ranges_has(const struct tl_ranges *r, int64_t v);

/* Release R's arrays. */
void tl_ranges_free(struct tl_ranges *r);

struct tl_opts {
	const struct align_table *corr;	/* subtracted from ProjStartMs
					   per device (align.h); NULL: none */
	const struct tl_ranges *steps;	/* ProgramExecution kept; NULL: all */
	const struct tl_ranges *devices; /* Device kept; NULL: all */
	int64_t min_dur_ns;		/* thunks shorter are left out */
	double peak_tflops;		/* MFU's peak, TFLOP/s; 0: no MFU */
	size_t batch;			/* records per batch; 0: TL_BATCH */
};

struct timeline;

/* A new timeline with options O (copied; the tables they point to must
 * outlive it).  After a reader fails, T is only good for tl_free. */
struct timeline *tl_new(const struct tl_opts *o);

/* Release T and its spool; NULL is allowed. */
void tl_free(struct timeline *t);

/*
 * Read the stackframes frame (FrameId, ParentFrameId, Frame), for the
 * source line of each instruction; call before tl_load_hlo.  Returns 0,
 * or -1 with an err message "NAME:LINE: column X: ..." (a missing column,
 * a bad or repeated id, an id more than 4096 beyond the largest before
 * (ids are dense as nsysjax-extract writes them), a parent not smaller
 * than its child).
 */
int tl_load_stackframes(struct timeline *t, struct tsv_reader *r);

/*
 * Read the hlo frame: ProgramId, Name, and when present Opcode, OpName,
 * StackFrameIds (its first id gives the source line: the innermost frame
 * that is not the op_name itself), and the roofline columns Flops,
 * BytesAccessed, MatmulFlops (integers, empty when unknown) and Dtype.
 * The first row of a (ProgramId, Name) wins.  Returns 0, or -1 with an
 * err message as above (a StackFrameIds id that names no frame).
 */
int tl_load_hlo(struct timeline *t, struct tsv_reader *r);

/*
 * Pass one over the module frame: ProgramId, ProgramExecution, Device,
 * Name, ProjStartMs, ProjDurMs; Process and LocalDevice when present
 * (they name the device's track).  Returns 0, or -1 with an err message
 * naming the input, line and column (a bad number, a negative duration,
 * a Device outside 0..500000, a write error of the spool).
 */
int tl_read_modules(struct timeline *t, struct tsv_reader *r);

/*
 * Pass one over the thunk frame: ProgramId, ProgramExecution, Name,
 * ThunkExecution, Device, ProjStartMs, ProjDurMs; when present
 * ProjDurHiddenMs, Communication, MessageSize (bytes), Collective,
 * CollectiveSize, Process, LocalDevice, CommandBuffer and Stream (an
 * integer).  Rows of one collective instance must be adjacent (the
 * frame's order) to be linked by a flow, except those of ProgramIds
 * whose module name (tl_read_modules, read first) another ProgramId has
 * too: their communication rows are held in a second spool until the
 * end of the frame, when the SPMD join is known (its note: tl_notes),
 * and linked per instance of the step.  Once per timeline.  Returns as
 * tl_read_modules.
 */
int tl_read_thunks(struct timeline *t, struct tsv_reader *r);

struct err_notes;

/* What the reading noticed, for the caller to print: the ProgramIds
 * joined into one SPMD step (spmd.h). */
const struct err_notes *tl_notes(const struct timeline *t);

/*
 * Pass one over a critical path (nsysjax-critpath): ProgramId,
 * ProgramExecution, Device, Name, Label, StartMs, DurMs, times on the
 * aligned clock (no correction is applied).  Returns as tl_read_modules.
 */
int tl_read_critpath(struct timeline *t, struct tsv_reader *r);

/* Slices kept by pass one, and the earliest start among them (ns; 0 when
 * there is none). */
uint64_t tl_nslices(const struct timeline *t);
int64_t tl_min_start(const struct timeline *t);

/* ---- pass two: what the writer gets ---- */

enum tl_argtype { TL_STR, TL_UINT, TL_DOUBLE };
struct tl_arg {
	const char *name;
	enum tl_argtype type;
	const char *s;
	uint64_t u;
	double d;
};

/* A process (TID 0) or thread track, as tevent.h's tev_track. */
struct tl_track {
	uint64_t uuid;
	int64_t pid, tid;
	const char *name;
	int64_t sort;
};

/* A slice, as tevent.h's tev_slice (FLOWPH 's', 't', 'f' or 0). */
struct tl_slice {
	const struct tl_track *track;
	int64_t ts, dur;
	const char *name, *cat;
	const struct tl_arg *args;
	size_t nargs;
	uint64_t flow;
	int flowph;
	const char *flowcat;
};

struct tl_sink {
	void *arg;
	int (*track)(void *arg, const struct tl_track *tr);
	int (*begin)(void *arg, const struct tl_slice *s);
	int (*end)(void *arg, const struct tl_slice *s);
};

/*
 * Pass two: every track and slice to S, device by device in increasing
 * order, each track declared before its first slice, each slice's begin
 * in order of start on its track and its end before the next begin that
 * follows it.  Returns 0, or -1 with the sink's err message or a read
 * error of the spool.
 */
int tl_write(struct timeline *t, const struct tl_sink *s);

#endif
