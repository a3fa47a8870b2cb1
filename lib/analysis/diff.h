/*
 * diff: what changed between two runs (nsysjax-diff).  Two frames of the
 * same kind, BEFORE (run 0) and AFTER (run 1): thunk frames (thunk or
 * communication rows of nsysjax-extract, any steady state the caller
 * chose) or module frames.  Each frame row is one sample: one execution of
 * a thunk (or module) on one device, its duration the column
 * diff_opts.column (ProjDurMs by default) in integer ns.
 *
 * Matching.  A module is matched by its ProgramId (the HLO fingerprint);
 * ProgramIds found in one run only are matched by module name (the Name
 * of a module frame, the ProgramName of a compile frame): every unmatched
 * ProgramId of one name, in either run, makes one module of that name.
 * What remains is "added" (AFTER only) or "removed" (BEFORE only).  An
 * item is a (module, key) pair; the key is the thunk name, or with
 * DIFF_KEY_OP_NAME / DIFF_KEY_SOURCE the op_name / innermost Python frame
 * of the thunk's instruction (from the hlo and stackframes frames), which
 * survive recompilations that rename fusions; a thunk without one is
 * keyed by its name in brackets ("[copy.3]").
 *
 * Numbers.  Means and medians are per sample.  The contribution of an
 * item to the total change is measured at BEFORE's number of executions
 * of its module: S_a * E_b / E_a - S_b, where S is the item's total time
 * in a run and E the number of executions of its module there (distinct
 * ProgramId, ProgramExecution, Device of the thunk rows; the rows of a
 * module frame): exactly S_a - S_b when both runs executed the module as
 * often; S_a for a module only in AFTER, -S_b for one only in BEFORE.
 * The total change is the sum of the contributions.  Each item seen in
 * both runs gets a two-sided Mann-Whitney U test of its samples
 * (analysis/sigtest.h), each module one of its per-execution times (the sum
 * of its items in each execution), p-values adjusted over items and over
 * modules (Holm by default, or Benjamini-Hochberg).  The overall change
 * gets Welch's t test of a sum of differences of means: D = sum over
 * matched modules of E_b (m_a - m_b), Var D = sum of E_b^2 (s_a^2 / E_a +
 * s_b^2 / E_b), with m and s the mean and sample standard deviation of a
 * module's per-execution times, t = D / sqrt(Var D) with the
 * Welch-Satterthwaite degrees of freedom (B. L. Welch 1947, F. E.
 * Satterthwaite 1946): (sum of terms)^2 / sum(term^2 / (E - 1)).
 *
 * Command buffers.  With thunk frames, a cmdbufs side table (nsysjax-extract
 * -o, extract.h EXTRACT_CMDBUF_TABLE) of a run tells which operations
 * each of its command buffers holds.  A buffer of run X (thunk name
 * CommandBuffer in module M) is paired when M is in both runs, the other
 * run has no thunk of that name in M, and some operation it holds runs
 * as a thunk of M in the other run and as none in run X (an operation
 * with thunks in both runs keeps its own row: node-level traces give
 * the operations inside a buffer rows of their own).  The buffer and
 * those operations are then one item, keyed as the buffer, Match
 * "cmdbuf", whose samples are per module execution: the sum of the
 * buffer's (in run X) or of the operations' (in the other run) time in
 * that execution; the gate and the tests take it as one item.  A
 * command buffer of one run only that no table pairs is counted
 * (diff_total.cb_unknown): what it holds is not known.
 *
 * Barriers.  A module that is a barrier in either run (analysis/barrier.h:
 * more than half its time collective wait, its devices waiting for the
 * slowest) is left out of the total (before_ms, after_ms, change_ms, its
 * test), of the share min_share is taken of, of the tests and of the
 * gate, unless opts.barriers: its rows stay in the tables, untested,
 * without a ShareOfChange, and their sums are diff_total's barrier_*.
 *
 * Memory: per run 8 bytes per row (a 4-byte sample, 8 for a module whose
 * samples exceed 2^32 ns, and the index of its module execution), the
 * interned names and one entry per module execution;
 * time O(R log R) for R rows.
 */
#ifndef NSYSJAX_DIFF_H
#define NSYSJAX_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/sigtest.h"

struct tsv_reader;
struct tsv_writer;

enum diff_key {
	DIFF_KEY_THUNK,		/* (module, thunk name) */
	DIFF_KEY_OP_NAME,	/* (module, op_name of the instruction) */
	DIFF_KEY_SOURCE		/* (module, innermost Python frame) */
};

enum diff_kind {
	DIFF_NONE,		/* no frame read yet */
	DIFF_THUNKS,		/* a ThunkExecution column */
	DIFF_MODULES		/* ProgramId, ProgramExecution, Name, no
				   ThunkExecution */
};

struct diff_opts {
	enum diff_key key;
	const char *column;	/* the duration column (ms) */
	enum sigtest_adjust adjust;
	double alpha;		/* significance level, in (0, 1) */
	double threshold;	/* gate: slower by more than this percent;
				   negative: no gate */
	double min_ms;		/* gate: ignore items and modules whose
				   |ContributionMs| is below this */
	double min_share;	/* test only rows making at least this
				   share of both runs' time together */
	int barriers;		/* 1: barriers count as any module */
};

/*
 * Whether a family of rank tests (the items', the modules') can find
 * anything at all: with too few samples even the most extreme outcome
 * (sigtest_mwu_pmin) adjusted at its most favourable (Holm: times the
 * number of tests; Benjamini-Hochberg: as it is) is not below alpha.
 */
struct diff_power {
	size_t tests;		/* rows tested */
	size_t samples;		/* the most samples of a tested row's
				   smaller side: executions per item */
	size_t need;		/* samples a side that would suffice
				   (sigtest_mwu_need); 0: none would */
	int power;		/* some test can reach alpha; 1 when there
				   is no test */
};

/* The overall change (the "(all)" row of the summary). */
struct diff_total {
	double before_ms, after_ms;	/* sums of every sample */
	double change_ms;		/* sum of contributions */
	double change_pct;		/* change_ms / before_ms * 100; NaN if
					   before_ms is 0 */
	double p;			/* Welch t test, matched modules */
	size_t items, both;		/* item rows; of them in both runs */
	size_t tested;			/* of them tested (opts.min_share) */
	size_t slower, faster;		/* significant (adjusted p < alpha) */
	size_t added, removed;		/* item rows in one run only */
	size_t paired;			/* item rows of a command buffer
					   paired with its operations */
	size_t cb_unknown[2];		/* command buffers of that run only
					   whose contents are not known */
	int cb_table[2];		/* that run had a cmdbufs table */
	size_t modules, gated;		/* module rows; rows over the gate */
	size_t barriers;		/* barrier modules left out */
	double barrier_before_ms, barrier_after_ms;	/* their sums */
	double barrier_change_ms;	/* their contributions */
	struct diff_power items_power, modules_power;
	int total_power;		/* the Welch test had a variance: a
					   matched module with two executions
					   in a run */
};

struct diff;

/* A new, empty diff with options O (copied; O->column is not). */
struct diff *diff_new(const struct diff_opts *o);

/* Release D; NULL is allowed. */
void diff_free(struct diff *d);

/*
 * Read a side table of run RUN (0 BEFORE, 1 AFTER) from R, recognised by
 * its columns: a stackframes frame (FrameId, Frame), an hlo frame
 * (ProgramId, Name, OpName, StackFrameIds), a compile frame (ProgramId,
 * ProgramName) or a module frame (ProgramId, Name, ProgramExecution):
 * the last two name modules; a module frame's Device and ProjDurMs, when
 * present, are the modules' times of the barrier rule.  A ProgramId given two module names is an
 * error, as is a table of none of these kinds.  The stackframes frame is
 * read before the hlo frame that refers to it (any order: the ids are
 * looked up by diff_finish).  Returns 0, or -1 with an err message
 * "NAME:LINE: ...".
 */
int diff_load_side(struct diff *d, int run, struct tsv_reader *r);

/*
 * Read the frame of run RUN from R: columns ProgramId and the duration
 * column; a thunk frame also Name, ProgramExecution, Device,
 * ThunkExecution, and for the barrier rule Communication and
 * ProjDurHiddenMs (optional: without them no module is a barrier); a
 * module frame Name (the module name), ProgramExecution and Device.  Both runs must be of one kind.  Returns 0, or -1 with an
 * err message naming the input, line and column (a missing column, a bad
 * or negative time, another kind than the other run's).
 */
int diff_read(struct diff *d, int run, struct tsv_reader *r);

/*
 * One sample of run RUN, for tests and the readers: the escaped TSV
 * fields PROGRAM[0..PLEN) and NAME[0..NLEN) (the thunk name; for a module
 * frame the module name), the execution EXEC on DEVICE, and its duration
 * DUR_NS >= 0.  The kind must have been set by diff_read or
 * diff_set_kind.  Returns 0, or -1 with an err message when the sum of a
 * run's durations would pass TSV_MAX_NS.
 */
int diff_add(struct diff *d, int run, const char *program, size_t plen,
    const char *name, size_t nlen, int64_t exec, int64_t device,
    int64_t dur_ns);

/* Set the kind of both runs' frames (for diff_add without diff_read). */
void diff_set_kind(struct diff *d, enum diff_kind k);

/*
 * After both frames: match modules and items, compute every number,
 * adjust the p-values and sort the items by decreasing |ContributionMs|
 * (then module name, key, ProgramIds).  Returns 0, or -1 with an err
 * message (no frame read).
 */
int diff_finish(struct diff *d);

/*
 * Write the item table to W: Module, ProgramIdBefore, ProgramIdAfter
 * (several ProgramIds of a module matched by name: comma-separated, in
 * byte order), the key column (Name, OpName or Source; none for module
 * frames), Match (id, name: the module matched by fingerprint or by
 * name; added, removed: the item is in one run only), ExecutionsBefore,
 * ExecutionsAfter (samples), MeanBeforeMs, MeanAfterMs, MedianBeforeMs,
 * MedianAfterMs, DeltaMs (mean after minus before), ChangePercent (of the
 * mean before), ProbSlower (U / (n_before n_after): the chance that an
 * AFTER sample is slower than a BEFORE one, ties half), PValue,
 * PAdjusted, ContributionMs, ShareOfChange (of the total change).  Empty
 * fields where a value is undefined.  Returns 0, or -1 (write error).
 */
int diff_write_items(struct diff *d, struct tsv_writer *w);

/*
 * Write the module table to W: Module, ProgramIdBefore, ProgramIdAfter,
 * Match, ExecutionsBefore, ExecutionsAfter (module executions),
 * TotalBeforeMs, TotalAfterMs, MeanBeforeMs, MeanAfterMs, MedianBeforeMs,
 * MedianAfterMs (per module execution), DeltaMs, ChangePercent,
 * ProbSlower, PValue, PAdjusted, ContributionMs, ShareOfChange, by
 * decreasing |ContributionMs|; then the row "(all)" (totals, the overall
 * change and its z test; barriers left out) and, when barriers were left
 * out, the row "(barriers)" (their totals and change).  Returns 0, or -1
 * (write error).
 */
int diff_write_summary(struct diff *d, struct tsv_writer *w);

/*
 * Write the summary for people to FP: the largest modules' changes (at
 * most MAXMOD lines) and the total, aligned, with units; and the gate's
 * verdict when one is set.  Returns 0, or -1 on a write error.
 */
int diff_report(struct diff *d, FILE *fp, size_t maxmod);

/* The overall numbers (after diff_finish). */
const struct diff_total *diff_total(const struct diff *d);

/* One module (group of matched ProgramIds) of the comparison, as the
 * report for people (diff_report.c) shows it. */
struct diff_module {
	const char *name;	/* module name as read (TSV-escaped); NULL
				 * when the module is known by ProgramId */
	const char *program;	/* its first ProgramId in byte order:
				 * BEFORE's, or AFTER's when only AFTER has
				 * one (escaped) */
	size_t executions[2];	/* module executions: BEFORE, AFTER */
	double mean_ns[2];	/* mean execution time, ns (meaningless for
				 * a run without executions) */
	double contrib_ns;	/* ContributionMs of the module table, ns */
	int tested;		/* 1: tested (at least opts.min_share) */
	double padj;		/* adjusted p value, when tested */
	int barrier;		/* 1: a barrier left out of the total */
};

/* The number of modules of the module table (after diff_finish). */
size_t diff_nmodules(const struct diff *d);

/* Module I (I < diff_nmodules) in the module table's order, by
 * decreasing |ContributionMs|, into *M; its strings live as long as D. */
void diff_module(const struct diff *d, size_t i, struct diff_module *m);

/* A command buffer of one run paired with the operations it holds that
 * run as thunks in the other (the pairing rule above). */
struct diff_pairing {
	const char *module;	/* module name (escaped), or NULL */
	const char *program;	/* its first ProgramId (escaped) */
	const char *buf;	/* the buffer's thunk name (escaped) */
	int bufrun;		/* the run that has the buffer: 0, 1 */
	size_t nmoved;		/* its operations that run as thunks in
				   the other run and in no buffer there */
	size_t nlisted;		/* operations it holds (cmdbufs table) */
	size_t executions[2];	/* module executions with the item */
	double sum_ns[2];	/* the item's time in each run, ns */
	double contrib_ns;	/* its ContributionMs, ns */
	int tested;
	double padj;
};

/* The number of paired rows (after diff_finish), and pairing I of them
 * in the item table's order, into *P (strings live as long as D). */
size_t diff_npairings(const struct diff *d);
void diff_pairing(const struct diff *d, size_t i, struct diff_pairing *p);

/* The first command buffer of diff_total.cb_unknown (escaped), or NULL. */
const char *diff_unknown_buffer(const struct diff *d);

/*
 * Write the pairing table to W: per paired row, the buffer's thunk and
 * then each operation paired with it (in the buffer's order), one line
 * per ProgramId: Module, ProgramIdBefore, ProgramIdAfter, CommandBuffer,
 * BufferIn (before, after), Thunk (the buffer or an operation),
 * ExecutionsBefore, ExecutionsAfter (its samples), TotalBeforeMs,
 * TotalAfterMs (its time summed; empty in the run it is not in).
 * Returns 0, or -1 (write error).
 */
int diff_write_pairs(struct diff *d, struct tsv_writer *w);

/* The options D was made with (diff_new). */
const struct diff_opts *diff_options(const struct diff *d);

/*
 * The regression gate (after diff_finish): 1 when opts.threshold >= 0 and
 * an item or module seen in both runs, or the total, is slower by more
 * than opts.threshold percent with an adjusted p-value below opts.alpha
 * (and, for items and modules, |ContributionMs| >= opts.min_ms); else 0.
 */
int diff_regressed(const struct diff *d);

/*
 * The gate could not have failed in part (after diff_finish): 1 when
 * opts.threshold >= 0 and the items' or the modules' rank tests have no
 * power (struct diff_power) or the total's test had no variance; else
 * 0.  nsysjax-diff exits 4 then, when diff_regressed is 0.
 */
int diff_powerless(const struct diff *d);

#endif
