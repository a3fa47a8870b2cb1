/*
 * stats: the statistics of the steady state that the pipelines report
 * (pipelines/summary.sh, variability.sh, pgle.sh, report.sh), from a
 * thunk or communication frame (the rows, streamed) and the module, hlo
 * and compile frames (side tables).  Sources, all in NVIDIA/JAX-Toolbox
 * .github/container/nsys_jax/nsys_jax/: analyses/Analysis.ipynb (the top
 * modules, the thunk table and runtime totals, the detailed variability
 * view, the straggler ranking), analyses/summary.py (the module table and
 * its wait time), analyses/pgle_costs.py (the PGLE costs).
 *
 *	stats_new(opts)
 *	  -> stats_load_modules(path)	the module frame, two passes
 *	  -> stats_load_hlo(reader)	the hlo frame (costs only)
 *	  -> stats_load_compile(reader)	the compile frame (facts,
 *					xla-program-ids, compile-profiles)
 *	  -> stats_read(rows)		the thunk rows, one pass, then a
 *					replay of what the second pass needs
 *	  -> stats_write(table)		any table asked for in opts
 *
 * Memory: no row is held.  The aggregates are per instruction (ProgramId,
 * Name), per module execution, per device and module, per module and
 * process, per command buffer, and for the straggler, wait and facts
 * views per instance (ProgramId, ProgramExecution, Name, ThunkExecution:
 * rows / devices); of the compile frame, per process and module, per XLA
 * program_id and module name; the second pass over the thunk
 * rows replays 32-byte records from an unlinked temporary file in
 * $TMPDIR.  Everything is O(n) in the rows plus O(k log k) in the output.
 *
 * Arithmetic follows the pipelines' awk programs, which were the first
 * implementation and remain the specification: sums of exact times
 * (ProjDurMs totals, waits, spreads, costs) in integer ns; means, standard
 * deviations and biases in doubles over the times read as ms, summed in
 * input order, so that the values are the awk programs' to the last bit
 * except where those summed in hash order (waits over executions, outlier
 * scores), which we sum in order of first appearance.
 */
#ifndef NSYSJAX_STATS_H
#define NSYSJAX_STATS_H

#include <stddef.h>
#include <stdint.h>

struct filter;
struct tsv_reader;
struct tsv_writer;

/* The tables; STATS_BIT(t) in stats_opts.tables asks for table t. */
enum stats_table {
	STATS_THUNKS,		/* GPU time per thunk of the top modules */
	STATS_TOTALS,		/* the notebook's runtime totals */
	STATS_MODULES,		/* summary.py's module table and waits */
	STATS_VARIABILITY,	/* compute thunks whose duration varies */
	STATS_STRAGGLERS,	/* per device and top module: biases */
	STATS_COSTS,		/* PGLE cost lines */
	STATS_SCATTER,		/* the variability plot's points */
	STATS_OFFSETS,		/* the straggler plots' thunks and biases */
	STATS_CMDBUFS,		/* XLA command buffers and their share */
	STATS_FACTS,		/* the report's facts per module */
	STATS_PROGRAM_IDS,	/* XLA's numeric program_id -> modules */
	STATS_COMPILE_PROFILES,	/* the processes the compile frame holds */
	STATS_LATE,		/* per device and top module: per step, its
				   slow work and the wait it causes */
	STATS_NTABLES
};
#define STATS_BIT(t) (1u << (t))

/* The notebook's top_module_threshold. */
#define STATS_TOP 0.99

struct stats_opts {
	unsigned tables;	/* STATS_BIT()s */
	double ratio;		/* variability: keep StdMs / MeanMs > ratio */
	double top;		/* top modules: taken while the share of
				   those before is below top */
	int fallback;		/* costs: the instruction's Name where its
				   SchedulingName is empty */
};

/* The name of table T (an enum stats_table: "thunks", ...), or NULL;
 * for outfile_tables (base/outfile.h), as stats_write. */
const char *stats_table_name(int t);

/* The table called NAME, or -1. */
int stats_table_parse(const char *name);

/* Whether the tables of TABLES need the module frame (thunks, totals,
 * modules, stragglers, offsets, facts), the hlo frame (costs), the
 * compile frame (facts, xla-program-ids, compile-profiles) and the thunk
 * rows (all but xla-program-ids and compile-profiles). */
int stats_needs_modules(unsigned tables);
int stats_needs_hlo(unsigned tables);
int stats_needs_compile(unsigned tables);
int stats_needs_rows(unsigned tables);

struct stats;

/* A new, empty set of statistics computing the tables of O. */
struct stats *stats_new(const struct stats_opts *o);

struct err_notes;
struct spmd_scan;

/*
 * Join, for the stragglers table, the ProgramIds of one SPMD step
 * (lib/analysis/spmd.h has the rule; SCAN is the caller's, told the
 * module names (spmd_scan_module) and outliving S).  Call before
 * stats_load_modules (which then keeps the biases for a third reading of
 * its frame, after the join) and stats_read: the thunk rows (which then may have CollectiveSize; none
 * or empty: no collective) are fed to SCAN, and after them the
 * ProgramIds joined are one module for the biases: a device's time is
 * set against the mean over every device of the step's execution, and a
 * thunk's (Name, ThunkExecution) of the joined ProgramIds is one
 * instance (a Name the representative lacks stays its own).  The rows of
 * a joined ProgramId are listed under the representative's ProgramId,
 * Name and rank; the join's note goes to NOTES at stats_read.  Without
 * it nothing is joined (the reference's way).
 */
void stats_join(struct stats *s, struct spmd_scan *scan,
    struct err_notes *notes);

/* Release S; NULL is allowed. */
void stats_free(struct stats *s);

/*
 * Read the (steady) module frame PATH twice (filter_load): columns
 * ProgramId, ProgramExecution, Device, Name, ProjStartMs, ProjDurMs (ms)
 * and, for the modules table, NumThunks.  Chooses the top modules: by
 * decreasing total ProjDurMs (ties by ProgramId, bytes), each taken while
 * the share of the total of those before it is below opts.top.  Returns 0,
 * or -1 with an err message naming the file, line and column.
 */
int stats_load_modules(struct stats *s, const char *path);

/*
 * Read the hlo frame from R: columns ProgramId, Name, SchedulingName; the
 * first row of each (ProgramId, Name) counts, into S (a struct stats;
 * for filter_load, as stats_load_compile).  Returns 0, or -1 with an
 * err message.
 */
int stats_load_hlo(struct tsv_reader *r, void *s);

/*
 * Read the compile frame from R (nsysjax-extract's, all initialisation),
 * after stats_load_modules when the facts are asked for.  Columns
 * ProfileName, Name, ProgramName and, for the facts, ProgramId, ParentId
 * and DurMs (ms; empty is 0).  Returns 0, or -1 with an err message
 * naming the input, line and column.
 */
int stats_load_compile(struct tsv_reader *r, void *s);

/*
 * Read the rows of IN, a steady thunk frame (or a communication frame,
 * which has no Communication column: every row is communication) and
 * compute the tables.  Columns: ProgramId, Name, ProjDurMs; as the
 * tables need ProgramExecution, ThunkExecution, Device, ProjStartMs,
 * ProjDurHiddenMs (costs, facts), Communication (optional; empty is 0),
 * CommandBuffer (cmdbufs, optional).  Call
 * once, after the side tables.  With stats_join, the join's note goes to
 * its NOTES (spmd_scan_end).  Returns 0, or -1 with an err message
 * naming the input, line and column, or the temporary file.
 */
int stats_read(struct stats *s, struct filter *in);

/*
 * Write table T (asked for in opts) to W, after stats_read.  Columns,
 * times in ms (exact decimals where integer ns, else the shortest double):
 *
 *  thunks	ProgramId Name Executions ProjDurMs: per thunk of the top
 *		modules, its rows and total ProjDurMs; largest first, then
 *		ProgramId, Name (bytes).
 *  totals	Quantity Value: all_thunks_active_ms (the top modules'
 *		thunks' ProjDurMs added up), all_modules_active_ms (their
 *		module rows'), all_modules_wall_ms (per device, the end of
 *		its last top module minus the start of its first, added up).
 *  modules	ProgramId Name Executions NumThunksMean NumThunksStd
 *		ProjDurMs ProjDurMeanMs ProjDurStdMs ProjDurPercent
 *		WaitMeanMs WaitStdMs WaitPercent StartSpreadFraction
 *		TopModule: per module of the module frame, over its rows
 *		(one per execution and device); Wait per module execution is
 *		the sum over its communication instances of the largest
 *		minus the smallest ProjDurMs over devices (summary.py), its
 *		mean and sample std over executions and percent of the mean
 *		duration; StartSpreadFraction (the notebook's wait): per
 *		execution the latest minus the earliest ProjStartMs, added
 *		up, over the total ProjDurMs.  Wait columns are empty for a
 *		module without communication.  Largest ProjDurMs first.
 *  variability	ProgramId Name Executions MeanMs StdMs RelStd MinMs MaxMs:
 *		per compute thunk (Communication 0), over every row, the
 *		mean and sample std of ProjDurMs, for those with two rows or
 *		more, a positive mean and StdMs / MeanMs > opts.ratio;
 *		largest mean first, then ProgramId, Name.
 *  stragglers	ProgramId Name Device Executions StartBiasMs DurBiasMs
 *		ThunkBiasMs OutlierScoreMs: per top module and device.  A
 *		device's bias at a point is its time minus the mean over the
 *		devices at that point.  StartBiasMs, DurBiasMs: the mean over
 *		the module's executions of the bias of its ProjStartMs and
 *		ProjDurMs; ThunkBiasMs: the mean bias over the start and end
 *		of every compute thunk instance; OutlierScoreMs: the
 *		notebook's ranking, per thunk (Name, ThunkExecution) the
 *		largest |bias| of its start and of its end over executions,
 *		added up.  With stats_join a module is the ProgramIds of
 *		one SPMD step.  Rows by module (largest first), then decreasing
 *		OutlierScoreMs, then Device.
 *  late	ProgramId Name Device Steps LateMs WaitCausedMs StartBiasMs
 *		ThunkBiasMs OutlierScoreMs: per top module and device, which
 *		device makes the others wait and by how much, per step
 *		(Steps: the module's executions on the device; "late"
 *		positive).  LateMs: per compute thunk instance (Name,
 *		ProgramExecution, ThunkExecution) on two devices or more,
 *		the device's ProjDurMs less the mean of the other devices',
 *		added up, over Steps: its own slow work against its peers'.
 *		WaitCausedMs: per communication instance on two devices or
 *		more, when the device starts it last, its ProjStartMs less
 *		the mean of the others' (how long its peers wait for it, on
 *		average over them), added up, over Steps.  StartBiasMs and
 *		ThunkBiasMs as in stragglers; OutlierScoreMs the stragglers'
 *		over Steps.  With stats_join a module is the ProgramIds of
 *		one SPMD step.  Rows by module (largest first), then
 *		decreasing WaitCausedMs, then decreasing LateMs, then Device.
 *  costs	ProgramId Name CostLine: per instruction of a module with
 *		HLO facts and steady thunk rows, the profile line `costs {
 *		name: "NAME" cost_us: X.Y }` (pgle_costs.py): the time is
 *		ProjDurMs + ProjDurHiddenMs, the cost the largest time over
 *		rows for communication (the first row's Communication), the
 *		smallest for compute, in us rounded to 0.1 us from the exact
 *		ns, ties to even; NAME the SchedulingName (or, with
 *		opts.fallback, the Name where it is empty), '"' escaped.
 *		By ProgramId, then Name (bytes).
 *  scatter	ProgramId Name Executions MeanMs RelStd: per compute thunk
 *		with two rows or more and a positive total, the mean of its
 *		ProjDurMs and sqrt(max(0, (sum of squares - n mean^2) /
 *		(n - 1))) / mean, sums in row order, printed "%.6f":
 *		pipelines/lib/plots.awk's variability scatter, to the last
 *		bit.  By ProgramId, then Name (bytes).
 *  offsets	ProgramId Name ThunkExecution Device Executions OffsetMs
 *		StartBiasMs Communication Collective: per top module on two
 *		devices or more (module frame), device and thunk (Name,
 *		ThunkExecution), over the instances with a row per device in
 *		an execution the module frame has: OffsetMs the mean of the
 *		instance's mean start less the execution's mean start
 *		(module rows), StartBiasMs of the device's start (its last
 *		row's; none: 0) less the instance's mean start, "%.6f" with
 *		"-0.000000" as "0.000000"; Communication and Collective of
 *		the thunk's last row.  Modules largest first, then Device
 *		(a number), then OffsetMs as printed, Name (bytes),
 *		ThunkExecution: plots.awk's straggler tables, to the last
 *		bit.
 *  cmdbufs	ProgramId Name Executions ProjDurMs InnerMs Fraction: per
 *		XLA command buffer (CUDA graph) of the frame, every row
 *		counted, not only the top modules'.  A command buffer row is
 *		one whose CommandBuffer equals its Name; without that column
 *		(frames of an older nsysjax), one named command_buffer_N.  A
 *		row whose CommandBuffer names another thunk is an operation
 *		inside one (node-level SQLite exports): its time counts for
 *		it, as InnerMs.  Executions are the command buffer's own rows,
 *		ProjDurMs its rows' and its inner rows', Fraction that over
 *		every row's ProjDurMs.  Largest ProjDurMs first, then
 *		ProgramId, Name (bytes).
 *  facts	ProgramId Name Devices Processes Executions ProjDurMs
 *		ComputeMs CommunicationMs HiddenMs HiddenShare
 *		CollectiveWaitMs WaitShare Barrier WorkModule CompiledBy
 *		CompileMs: per module of the module frame (its last Name),
 *		what report.sh says of it beyond the module table.  Devices
 *		and Processes (comma-separated, in order of first sight):
 *		the distinct Device and Process values of its module rows;
 *		Executions and ProjDurMs their count and sum; ComputeMs the
 *		ProjDurMs of its compute thunks, CommunicationMs that plus
 *		ProjDurHiddenMs of its communication thunks (their whole
 *		duration), HiddenMs the latter alone, HiddenShare HiddenMs /
 *		CommunicationMs (empty without communication);
 *		CollectiveWaitMs, per communication instance (ProgramId,
 *		ProgramExecution, Name, ThunkExecution), each row's whole
 *		duration less the instance's shortest, added up: the time
 *		devices waited for their peers; WaitShare CollectiveWaitMs /
 *		ProjDurMs (both empty on one device: no peer to wait for);
 *		Barrier 1 when WaitShare is above 0.5; WorkModule 1 for the
 *		module with the most ComputeMs (ties: the smaller ProgramId,
 *		bytes); CompiledBy the ProfileNames whose compile rows name
 *		its ProgramId (in order of first sight); CompileMs the DurMs
 *		of those rows with no ParentId (the outermost compile
 *		ranges: own times would count parallel compilation threads
 *		twice), summed over processes.  Module order as the modules
 *		table.
 *  xla-program-ids  XlaProgramId Modules: XLA's numeric program_id (the
 *		first "program_id=DIGITS" of a compile row's Name with a
 *		ProgramName; per process, so one may name several modules)
 *		and the ProgramNames it names, comma-separated, in order of
 *		first sight; by program_id as a number, ties in order of
 *		first sight.
 *  compile-profiles  ProfileName: the processes of the compile frame,
 *		in order of first sight (those whose compilation it holds).
 *
 * Sums are exact, in integer ns; shares the double quotient of two of
 * them.  The last four tables were pipelines/lib/cmdbuf.awk and
 * modfacts.awk, whose bytes they keep.
 *
 * S is a struct stats and T an enum stats_table (the shape outfile_tables
 * takes).  Returns 0, or -1 with an err message when writing failed.
 */
int stats_write(void *s, int t, struct tsv_writer *w);

/*
 * The cost line of stats_write's costs table for NAME[0..LEN) (as it is
 * in TSV, escaped) and COST_NS into BUF, grown with mem_grow (*CAP).
 * Returns its length.
 */
size_t stats_cost_line(char **buf, size_t *cap, const char *name, size_t len,
    int64_t cost_ns);

#endif
