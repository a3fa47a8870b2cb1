/*
 * critpath: the critical path of a module execution across its devices,
 * the slack of every thunk, and what-if scenarios on the same graph
 * (after HTA's critical_path_analysis,
 * facebookresearch/HolisticTraceAnalysis, which covers one rank).
 *
 * The graph of one module execution, over measured (aligned) times in
 * integer ns.  Nodes are points in time: the start S and end E of every
 * operation (a thunk on one device), a release R per device (its module
 * starts), an end Z per device (its module ends), one barrier node B per
 * collective group, a source (the step start t0 = the earliest release)
 * and a sink (the step end = the latest Z).  Edges:
 *
 *  - stream order: each device's operations are put on streams, async
 *    collectives (critpath_op.async: the caller decides, from the
 *    opcode, the name or time hidden under compute) apart from the
 *    others, each operation on the stream whose last operation ended
 *    latest before it starts, or at most the tolerance after
 *    (critpath_set_overlap; a new stream when none has: operations that
 *    overlap by more run on different streams).  E(previous) ->
 *    S(next); the first of a stream follows R and, on a compute stream,
 *    the compute operation that ended last before it on the device (not
 *    the module start: an overlap does not make the device idle).
 *  - async pairs: an async collective's kernel follows the compute
 *    operation that ended last before it starts (its -start); the first
 *    compute operation that starts after the kernel ends follows the
 *    kernel (its -done; the frames do not place the done, so this is the
 *    earliest consumer: lengthening a hidden collective is pessimistic);
 *    a kernel never consumed precedes its device's Z.
 *  - gaps: S = max over its predecessors' times + g, g = the measured
 *    start minus the latest measured predecessor (launch or host time),
 *    kept as measured; likewise Z after the last operations.  g < 0 is
 *    an overlap within the tolerance, kept in every scenario.  Of g > 0
 *    the part in which the device ran other operations (the union of
 *    its operations' intervals) is busy, kept; only the rest, the
 *    device's idle time, is a gap that scenarios scale.
 *  - barriers: a collective instance (Name, ThunkExecution) with
 *    CollectiveSize > 1 over the devices that ran it, cut into groups of
 *    CollectiveSize in the order of their end times when more devices
 *    ran it.  B = max over the group of S.  A member ends at
 *    E = max(S, B - delta) + T with A = min(B, e) (its measured end e),
 *    T = e - A the transfer after the last arrival, W = A - s its wait
 *    for peers and delta = B - A > 0 only when the clocks are skewed (an
 *    end before a peer's start).
 *
 * Every edge goes forward in measured time but B -> E of a member with
 * delta > 0; with measured weights the forward pass replays every start
 * and end to the ns (replay identity).  Two collectives seen in
 * different orders on two devices (skewed clocks) make such edges close
 * a cycle: critpath_build says so and the execution has no longest path.
 * Scenarios change weights: durations, transfers, gaps, barriers; a
 * scenario that only removes work makes no weight larger than measured,
 * so never predicts a longer step.  Streams are assigned with a heap of
 * their tails, times predicted by one forward pass in topological order
 * (Kahn), slack by one backward pass: O(n log n) in operations.
 * What-ifs are estimates from the measured graph: the dependencies are
 * inferred from times, and a host-bound step (gaps dominate) makes GPU
 * what-ifs optimistic.
 */
#ifndef NSYSJAX_CRITPATH_H
#define NSYSJAX_CRITPATH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct filter;
struct tsv_reader;
struct tsv_writer;
struct align_table;

/* Labels of the critical path. */
enum critpath_label {
	CRITPATH_COMPUTE, CRITPATH_COMM, CRITPATH_WAIT, CRITPATH_GAP,
	CRITPATH_NLABEL
};

/* "compute", "communication", "peer wait", "gap". */
const char *critpath_label_name(enum critpath_label l);

/* One operation given to the graph. */
struct critpath_op {
	int64_t dev;		/* Device */
	int64_t start_ns;	/* measured (aligned) start, ns */
	int64_t dur_ns;		/* measured duration (exposed + hidden), >= 0 */
	size_t key;		/* its instance across devices (the caller's id
				 * of Name and ThunkExecution) */
	int comm;		/* 1: a communication operation */
	int async;		/* 1: an async collective, on its own stream */
	int64_t csize;		/* CollectiveSize; 0 or 1: no barrier;
				 * CRITPATH_CSIZE_ALL: every device of the
				 * execution (the group is unknown) */
};

/* csize of a collective whose CollectiveSize is unknown. */
#define CRITPATH_CSIZE_ALL	INT64_C(-1)

/* A scenario: how the weights change.  critpath_scen_measured gives the
 * identity. */
struct critpath_scen {
	double comm;		/* factor on transfers and communication (1) */
	double gap;		/* factor on gaps and late starts (1; 0: none) */
	int no_barrier;		/* 1: members end at S + T, devices released
				 * at t0 */
	int median;		/* 1: every duration (transfer) and release
				 * offset above the median over devices
				 * brought down to it (none raised) */
	const double *opf;	/* per operation factor, or NULL (all 1) */
};

/* The identity scenario. */
struct critpath_scen critpath_scen_measured(void);

struct critpath_graph;

/* A new, empty graph (reusable: critpath_reset). */
struct critpath_graph *critpath_new(void);

/* Release G; NULL is allowed. */
void critpath_free(struct critpath_graph *g);

/* Empty G for the next module execution, keeping its memory. */
void critpath_reset(struct critpath_graph *g);

/*
 * The stream rule's tolerance: an operation that starts at most NS
 * before a stream's last operation ends still follows it (negative
 * NS: 0, the default of critpath_new).  Projected thunk times overlap
 * their predecessor on one CUDA stream by fractions of a microsecond:
 * a projected range runs from its first kernel's start to its last
 * kernel's end (nsys's nvtx_gpu_proj_trace), and GPU timestamps, with
 * programmatic dependent launch (a kernel's prologue overlapping its
 * predecessor's tail, on Hopper and later), put a kernel's start before
 * the end of the one it follows; without a tolerance each such overlap
 * opened a stream that does not exist.  CRITPATH_OVERLAP_NS is the
 * tool's: larger than the overlaps seen (0.1 to 2 us on a GB200 run),
 * and far below the thunks that really run side by side (attention
 * kernels beside fusions, collectives: hundreds of us and more).
 */
#define CRITPATH_OVERLAP_NS	INT64_C(2000)
void critpath_set_overlap(struct critpath_graph *g, int64_t ns);

/* Add an operation; returns its index (0, 1, ... in the order added). */
size_t critpath_add(struct critpath_graph *g, const struct critpath_op *op);

/*
 * Give device DEV's module range [START_NS, END_NS) (the module frame);
 * without it a device's release is its first start and its end its last
 * end.  A release after the first start, or an end before the last end,
 * is moved to it.
 */
void critpath_device(struct critpath_graph *g, int64_t dev, int64_t start_ns,
    int64_t end_ns);

/* What building noticed, counted. */
struct critpath_info {
	size_t ops, devices, streams, barriers;
	size_t skewed;		/* members with delta > 0 */
	size_t incomplete;	/* groups with fewer devices than their size */
	size_t cut;		/* instances cut into several groups */
	long cycle;		/* on a cycle: an operation of a collective
				 * on it (or after it), else -1 */
};

/*
 * Build the graph from the operations and devices given.  O(n log n).
 * Returns 0, or -1 when the graph has a cycle: two collectives seen in
 * different orders on two devices (a member ended before its barrier:
 * clocks skewed), info->cycle naming an operation of one of them; the
 * graph must then not be evaluated (reset it).
 */
int critpath_build(struct critpath_graph *g, struct critpath_info *info);

/*
 * Predict with scenario SC: the times of every node, and the step (sink
 * minus t0) in ns, returned.  The critical path and slacks below refer
 * to the last call.  A factor is applied to a duration in ns and rounded
 * to the nearest ns.
 */
int64_t critpath_eval(struct critpath_graph *g, const struct critpath_scen *sc);

/* The measured step: the latest module end minus t0, ns; without a
 * barrier (the devices never wait for each other) the longest device's
 * module, each device's times counted from its own module start. */
int64_t critpath_measured(const struct critpath_graph *g);

/* t0: the earliest release, ns. */
int64_t critpath_t0(const struct critpath_graph *g);

/* Operation I's predicted start and end (last eval), ns. */
int64_t critpath_start(const struct critpath_graph *g, size_t i);
int64_t critpath_end(const struct critpath_graph *g, size_t i);

/*
 * Slack of operation I after the last eval: how much longer it could
 * end without moving the step end, ns (0 on the critical path).
 * Computed by one backward pass on the first call after an eval.
 */
int64_t critpath_slack(struct critpath_graph *g, size_t i);

/* Measured wait for peers (W) and transfer (T) of operation I: W = 0,
 * T = its duration for an operation in no barrier. */
int64_t critpath_wait(const struct critpath_graph *g, size_t i);
int64_t critpath_transfer(const struct critpath_graph *g, size_t i);

/* The barrier (group) index of operation I, or -1; the number of
 * barriers and barrier B's time (last eval, ns, absolute). */
long critpath_barrier_of(const struct critpath_graph *g, size_t i);
size_t critpath_nbarriers(const struct critpath_graph *g);
int64_t critpath_barrier_time(const struct critpath_graph *g, size_t b);

/* One segment of the critical path. */
struct critpath_seg {
	enum critpath_label label;
	int64_t dev;		/* the device it is spent on */
	long op;		/* the operation (for a gap: the one after it),
				 * or -1 (late start, module end) */
	int64_t start_ns;	/* absolute, ns */
	int64_t dur_ns;
};

/*
 * The critical path of the last eval, from the step start to its end,
 * into *SEGS (an array of the returned count, owned by G, valid until the
 * next call on G).  Segments of zero length are left out; the durations
 * sum to the step (an edge of negative weight, an overlap, shortens the
 * segment before it).  Each segment is split by what its device ran, at
 * the measured times (so after an eval of the measured scenario): time
 * inside the union of the device's compute
 * operations is compute (op: the one that ran); of a gap, time inside
 * a communication operation is communication (op: it).  So a gap is
 * time the device was idle, and the communication on the path at most
 * the device's exposed communication (its communication not covered by
 * compute), however its operations were put on streams.  Ties go to
 * the same stream, then to the same device.
 * The time before the path's first device was released (it started its
 * module late while its peers ran) is labelled peer wait; an execution
 * without barrier has none (each device counts from its own start).
 */
size_t critpath_path(struct critpath_graph *g, const struct critpath_seg **segs);

/*
 * Draw the last eval's module execution as SVG to FP, titled TITLE: one
 * lane per device (up to 8; beyond, the devices of the critical path and
 * one lane aggregating the others), operations coloured by label (a
 * collective's wait for peers apart from its transfer), the critical path
 * as a line over them, each barrier (the last arrival) as a dashed line
 * across its group's lanes, a time axis in ms and a legend.  Runs of one
 * colour closer than half a pixel are merged: the size grows with the
 * picture, not the thunks.  Returns 0, or -1 when FP has an error.
 */
int critpath_svg(struct critpath_graph *g, FILE *fp, const char *title);

/* ---- the tool: frames in, tables out ---- */

enum critpath_mode {
	CRITPATH_MODE_PATH, CRITPATH_MODE_SCEN, CRITPATH_MODE_SLACK,
	CRITPATH_MODE_BREAKDOWN, CRITPATH_MODE_SVG
};

struct critpath_run;

/* A new run writing MODE. */
struct critpath_run *critpath_run_new(enum critpath_mode mode);

/* Release R; NULL is allowed. */
void critpath_run_free(struct critpath_run *r);

/* Times corrected by T (nsysjax-align's table; kept by the caller). */
void critpath_set_corrections(struct critpath_run *r,
    const struct align_table *t);

/* Add scenario comm-xF (F >= 0). */
void critpath_add_comm_scale(struct critpath_run *r, double f, const char *text);

/*
 * Add scenario scale:SPEC, SPEC "REGEX=F": operations whose Name, OpName
 * or Opcode (the hlo frame's) matches the POSIX extended REGEX take F
 * times as long.  Returns 0, or -1 with an err message (no '=', a bad
 * factor or regular expression).
 */
int critpath_add_scale(struct critpath_run *r, const char *spec);

/* --svg: draw module execution PROGRAM:EXEC (NULL: the first one). */
void critpath_set_exec(struct critpath_run *r, const char *program,
    int64_t exec);

/*
 * Load the module frame (ProgramId ProgramExecution Device ProjStartMs
 * ProjDurMs, by name) or the hlo frame (ProgramId Name, and Opcode, OpName
 * when present) from reader T; for filter_load.  Returns 0, or -1 with an
 * err message naming the input, line and column.
 */
int critpath_load_module(struct tsv_reader *t, void *run);
int critpath_load_hlo(struct tsv_reader *t, void *run);

/*
 * Read the thunk frame from F (columns by name: ProgramId
 * ProgramExecution Name ThunkExecution Device ProjStartMs ProjDurMs;
 * ProjDurHiddenMs, Communication and CollectiveSize when present; others
 * ignored; the operations inside a command buffer are thunks like any,
 * its own row the busy time nothing inside explains), one
 * module execution at a time (its rows must be contiguous, as extraction
 * and alignment write them), and write the mode's table to W (or, for
 * the SVG mode, the picture to SVG).  Columns written:
 *  path:      ProgramId ProgramExecution Device Name ThunkExecution Label
 *             StartMs DurMs
 *  scenarios: ProgramId ProgramExecution Scenario MeasuredMs PredictedMs
 *             GainMs GainPct GapShare HostBound
 *  slack:     ProgramId ProgramExecution Name ThunkExecution Device
 *             StartMs DurMs WaitMs TransferMs SlackMs Critical
 *  breakdown: ProgramId ProgramExecution Devices Thunks StepMs ComputeMs
 *             CommunicationMs PeerWaitMs GapMs GapShare HostBound
 *             OffPathWaitMs
 * A collective is async (its own stream) when its Opcode (hlo frame) or
 * Name ends in "-start", or when a row of its Name in the execution has
 * ProjDurHiddenMs > 0.  With the module frame, ProgramIds that are one
 * SPMD step (spmd.h: the same module name and collective sequence on
 * disjoint devices) are joined: their executions are held to the end of
 * the input and execution k of them all is analysed as one, under the
 * ProgramId with the most devices.  An execution whose graph has a cycle
 * is left out with a note naming the collective and its devices.
 * Notes (skews, incomplete groups, host-bound steps, missing
 * corrections, joins, cycles) go to NOTES.  Returns 0, or -1 with an err message: a
 * missing column, a bad value (input, line, column), rows of a module
 * execution that are not contiguous, a write error.
 */
int critpath_run_frames(struct critpath_run *r, struct filter *f,
    struct tsv_writer *w, FILE *svg, struct err_notes *notes);

/*
 * As critpath_run_frames, but several tables in one pass (R made with
 * any mode but CRITPATH_MODE_SVG): OUT[m] receives mode m's table, for
 * each m below CRITPATH_MODE_SVG whose OUT[m] is not NULL.  Each
 * execution's graph is built once for them all, which is the point: the
 * report wants three of them.  Returns 0, or -1 with an err message as
 * critpath_run_frames.
 */
int critpath_run_tables(struct critpath_run *r, struct filter *f,
    struct tsv_writer *const out[CRITPATH_MODE_SVG], struct err_notes *notes);

#endif
