/*
 * fold: the reference's flame graphs and its "GPU runtime by operation
 * type" table (Analysis.ipynb, the cells after the module table), from
 * thunk rows and the HLO facts of nsysjax-extract, as folded stacks that
 * flamegraph.pl, inferno and speedscope all read (their parsers: a
 * stack, one space, an integer count).
 *
 * The work is split as the reference's: thunk rows are summed per
 * (ProgramId, Name) while they stream by, so memory holds the side tables
 * and one sum per instruction, never the rows; fold_finish then picks the
 * top modules and spreads each instruction's time over its stacks.
 *
 * Times are integer nanoseconds inside (the TSV's milliseconds are exact
 * decimals of ns); folded counts are integers in the unit of
 * fold_opts.unit_ns.
 */
#ifndef NSYSJAX_FOLD_H
#define NSYSJAX_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct filter;
struct tsv_reader;
struct tsv_writer;

enum fold_by {
	FOLD_SOURCE,		/* Python frames, then op_name */
	FOLD_OP_NAME,		/* op_name split at '/' */
	FOLD_OPCODE		/* the table by HLO opcode */
};

struct fold_opts {
	enum fold_by by;
	double top;		/* share of module time the selected modules
				   reach, in (0, 1]; 1 selects every module */
	int64_t unit_ns;	/* folded count unit: 1 (ns) or 1000 (us) */
	unsigned kinds;		/* the folds the hlo rows are read for, bits
				   1u << FOLD_x (several jobs of one fold,
				   fold_select); 0: BY's alone */
};

/* The reference's three total-runtime definitions, over the selected
 * modules (Analysis.ipynb all_thunks_active_ms, all_modules_active_ms,
 * all_modules_wall_ms), in ns. */
struct fold_totals {
	int64_t thunks_ns;	/* (1) sum of thunk ProjDurMs */
	int64_t modules_ns;	/* (2) sum of module ProjDurMs; 0 without modules */
	int64_t wall_ns;	/* (3) per device, last module end minus first
				   module start, summed over devices */
	size_t nprograms;	/* candidate programs */
	size_t ntop;		/* of them selected */
	size_t nunknown;	/* selected instructions with no hlo row */
	size_t ninconsistent;	/* instructions whose hlo rows disagree */
	int have_modules;	/* module rows were given */
};

struct fold;

/* A new, empty fold with options O (copied). */
struct fold *fold_new(const struct fold_opts *o);

/* Release F; NULL is allowed. */
void fold_free(struct fold *f);

/*
 * Read the stackframes frame of nsysjax-extract from R: columns FrameId,
 * ParentFrameId (empty for an outermost frame) and Frame.  A parent must
 * have a smaller id than its child (which is what makes a tree and keeps
 * every walk finite).  Returns 0, or -1 with an err message
 * "NAME:LINE: column X: what is wrong" (a missing column, a bad or
 * repeated id, a parent that is not smaller).
 */
int fold_load_stackframes(struct fold *f, struct tsv_reader *r);

/*
 * Read the hlo frame of nsysjax-extract from R: columns ProgramId, Name,
 * and as the mode needs Opcode (opcode), StackFrameIds (source: ids of
 * the innermost frame of each stack, separated by spaces) and OpNames
 * (source and op_name: distinct op_names separated by LF).  A second row
 * for the same (ProgramId, Name) is another variant of its metadata (HLO
 * dumps that share a ProgramId but disagree, see fold_common).  For
 * source, the stack frames must be loaded first; every id must name a
 * frame.  Returns 0, or -1 with an err message as above.
 */
int fold_load_hlo(struct fold *f, struct tsv_reader *r);

/*
 * Read the module frame from R (columns ProgramId, Device, ProjStartMs,
 * ProjDurMs; the steady-state rows, like the thunks).  With module rows,
 * the top modules are chosen by module time, as the reference does, and
 * the two idle roots are added.  Returns 0, or -1 with an err message.
 */
int fold_load_modules(struct fold *f, struct tsv_reader *r);

/*
 * One module row: PROGRAM[0..PLEN) (the ProgramId field as it appears in
 * the TSV, escaped), DEVICE, and start and duration in ns.  Returns 0, or -1 with
 * an err message for a negative duration, a start beyond +-TSV_MAX_NS
 * (2^60 ns), or when the modules' durations add up to more than
 * TSV_MAX_NS.
 */
int fold_add_module(struct fold *f, const char *program, size_t plen,
    int64_t device, int64_t start_ns, int64_t dur_ns);

/*
 * Sum the thunk rows of IN (columns ProgramId, Name, ProjDurMs; any
 * others are ignored) per (ProgramId, Name).  Returns 0, or -1 with an
 * err message naming the input, line and column.
 */
int fold_read_thunks(struct fold *f, struct filter *in);

/*
 * One thunk row: PROGRAM and NAME as they appear in the TSV (escaped) and
 * its ProjDurMs in ns.  Returns 0, or -1 with an err message for a
 * negative duration (the reference asserts that no count is negative), or
 * when the durations add up to more than TSV_MAX_NS (2^60 ns).
 */
int fold_add_thunk(struct fold *f, const char *program, size_t plen,
    const char *name, size_t nlen, int64_t dur_ns);

/*
 * After every input: select the top modules and compute the totals and
 * the folded stacks or opcode sums.  The top modules are the reference's
 * (Analysis.ipynb top_module_threshold): programs by decreasing time
 * (module time with module rows, else thunk time; ties by ProgramId),
 * each taken while the share of those before it is below opts.top.  With
 * module rows, only programs that have module rows are candidates.  Each
 * instruction's time is then split equally over its distinct stacks,
 * with the reference's fallbacks (see nsysjax-fold(1)).  Returns 0.
 */
int fold_finish(struct fold *f);

/*
 * Several folds from one load (nsysjax-fold -o: the stack frames and hlo
 * rows read once, thunk and module rows summed once): the next job folds
 * BY (one of opts.kinds), the thunks of the program PROGRAM[0..PLEN)
 * alone (the ProgramId as in the TSV; NULL: every program; with it, the
 * one candidate for the top modules, its own module rows the only ones
 * counted), without the module rows when NO_MODULES (a module alone: no
 * idle roots).  Forgets the previous job's selection,
 * totals and sums; keeps its lines, whose text does not depend on the job
 * (each stack's line is built once).  Then call fold_finish and a writer
 * as for a single fold; the output is what a fold of that job alone
 * writes.  PROGRAM must outlive the job.
 */
void fold_select(struct fold *f, enum fold_by by, const char *program,
    size_t plen, int no_modules);

/* The totals of fold_finish. */
const struct fold_totals *fold_totals(const struct fold *f);

/*
 * Write the folded stacks to FP (named NAME in messages): one line
 * "frame;frame;... COUNT" per stack, in byte order of the stack, COUNT
 * an integer in opts.unit_ns.  Counts are rounded by largest remainder:
 * each is within one unit of its exact value and they sum to the
 * rounded exact total.  Returns 0, or -1 with an err message when a
 * write failed.
 */
int fold_write_folded(struct fold *f, FILE *fp, const char *name);

/*
 * Write the opcode table to W: columns Opcode (empty for instructions
 * with no hlo row), ProjDurMs (the opcode's thunk time, exact ms) and
 * Fraction (of the column's total), by decreasing ProjDurMs, then
 * Opcode.  With module rows, a row "GPU idle during modules" holds
 * module time minus thunk time (not clamped, as the reference), so that
 * the total is the module time.  Returns 0, or -1 (write error).
 */
int fold_write_opcodes(struct fold *f, struct tsv_writer *w);

/*
 * What the fold's kind writes, to FP (named NAME in messages): the opcode
 * table (fold_write_opcodes, as TSV) for FOLD_OPCODE, else the folded
 * stacks (fold_write_folded).  Returns 0, or -1 with an err message when
 * a write failed.
 */
int fold_write(struct fold *f, FILE *fp, const char *name);

/* ---- the rules, exposed for tests ---- */

/* A frame: N bytes at S, not NUL-terminated. */
struct fold_str {
	const char *s;
	size_t n;
};

/* A location: frames from the root. */
struct fold_seq {
	const struct fold_str *f;
	size_t n;
};

/*
 * The splice of N locations that should be one (the same instruction in
 * HLO dumps that disagree): *PREFIX frames common at the start and
 * *SUFFIX at the end, never overlapping in the shortest.  The spliced
 * location is the prefix, a frame "[inconsistent metadata]", the suffix
 * (the splice seen in the golden source.folded of a 4-process run).
 * Returns 1 when all N are equal (no splice), else 0.
 */
int fold_common(const struct fold_seq *v, size_t n, size_t *prefix,
    size_t *suffix);

/*
 * Append frame S[0..N) to the line BUF[0..*LEN) (capacity *CAP, grown
 * with mem_grow), made safe for the folded format: ';' (the frame
 * separator) becomes ':', and control characters (TAB, LF, CR, ...)
 * become spaces, since the format is one line per stack.
 */
void fold_put_frame(char **buf, size_t *len, size_t *cap, const char *s,
    size_t n);

/*
 * Make the leaf frame LINE[START..*LEN) safe: when it ends in whitespace
 * and a number (digits with at most one '.'), flamegraph.pl and inferno
 * would read that number as a first count of a differential line, so the
 * whitespace character (ASCII, or one of Unicode's, which flamegraph.pl's
 * \s also matches) is replaced with '_'.  *LEN shrinks when a multi-byte
 * space is replaced.
 */
void fold_leaf_safe(char *line, size_t start, size_t *len);

/*
 * Round N exact values, each WHOLE[i] + FRAC[i] ns (0 <= FRAC[i]), to
 * integer counts of UNIT ns in COUNT[i] by largest remainder: each count
 * is the value's floor or ceiling, and the counts sum to the rounded
 * exact total.  Ties go to the lower index.
 */
void fold_round(const int64_t *whole, const double *frac, size_t n,
    int64_t unit, int64_t *count);

/* ---- differential folded stacks (nsysjax-fold --diff) ---- */

/*
 * Two folded-stack files, BEFORE and AFTER, merged into the lines
 * "stack count_before count_after" that flamegraph.pl draws as a
 * differential flame graph (widths from AFTER, colours from the change),
 * as Brendan Gregg's difffolded.pl writes them.  A stack missing from a
 * file counts 0 there; a stack repeated in a file is added up.
 */
struct fold_diff;

/* A new, empty differential. */
struct fold_diff *fold_diff_new(void);

/* Release X; NULL is allowed. */
void fold_diff_free(struct fold_diff *x);

/*
 * Read the folded stacks of FP (named NAME in messages) as file WHICH
 * (0: BEFORE, 1: AFTER): lines "stack COUNT", COUNT the text after the
 * last run of spaces or tabs, a non-negative decimal as flamegraph.pl
 * reads it (digits, then optionally '.' and digits).  Returns 0, or -1
 * with an err message "NAME:LINE: ..." (no count, a bad count, an empty
 * stack, a CR or NUL byte, a count total past 2^53) or a read error.
 */
int fold_diff_read(struct fold_diff *x, int which, FILE *fp,
    const char *name);

/*
 * Write the lines to FP (NAME in messages), in byte order of the stack,
 * counts as the shortest decimals (integers stay integers).  With
 * NORMALIZE, BEFORE's counts are scaled to AFTER's total and rounded to
 * integers by largest remainder (fold_round), so that both columns add
 * up to AFTER's total (difffolded.pl -n truncates each count instead).
 * Returns 0, or -1 with an err message on a write error.
 */
int fold_diff_write(struct fold_diff *x, int normalize, FILE *fp,
    const char *name);

/* ---- folded stacks cut to what flamegraph.pl draws (nsysjax-fold --prune) ---- */

/* The renderer's page: flamegraph.pl's --width (pixels, 1200 by default)
 * and --minwidth (0.1 by default: pixels, or with PERCENT a percentage
 * of the total). */
struct fold_prune_opts {
	int width;
	double minwidth;
	int percent;
};

/* What fold_prune did: the lines read and written; WHOLE when it wrote
 * the input as it was, WHY then says why. */
struct fold_prune_stats {
	size_t lines_in, lines_out;
	int whole;
	const char *why;
};

/*
 * Write the folded stacks DATA[0..LEN) (lines "stack count") to FP (NAME
 * in messages) cut to what flamegraph.pl draws at O's width: each line
 * cut after its deepest frame that is at least the minimum width
 * (flamegraph.pl's rule: a rectangle of count C is drawn unless
 * C < minwidth / ((width - 20) / total), 10 pixels of padding each
 * side), so that frames too narrow to be drawn add to the self time of
 * their drawn parent; equal stacks added up, in byte order.  The total
 * is kept (a line of an empty stack, " count", holds the time of roots
 * too narrow to draw), and every rectangle drawn from the output has
 * the name, depth and count of one drawn from the input; only their x
 * positions move, inside their parent, as self time sorts first.  Both
 * are checked: the output is folded again, as flamegraph.pl's flow()
 * does after its sort (byte order of the whole lines), and on any
 * difference, or for input this model does not follow (not UTF-8, a
 * line flamegraph.pl ignores, a count that is fractional, 2^53 or more,
 * or a second count of a differential line), DATA is written whole.
 * Returns 0, or -1 with an err message on a write error.
 */
int fold_prune(const char *data, size_t len, const struct fold_prune_opts *o,
    FILE *fp, const char *name, struct fold_prune_stats *st);

#endif
