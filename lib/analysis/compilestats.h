/*
 * compilestats: where XLA compilation time goes, from the compile frame
 * (the reference's compile statistics and autotuning cleanup).
 *
 * Sources, all in NVIDIA/JAX-Toolbox .github/container/nsys_jax/nsys_jax/:
 * analysis.py generate_compilation_statistics (the parallel-compilation
 * aware attribution), analyses/Analysis.ipynb (the compile summary cell:
 * name cleaning, fraction of the total, top 97%), analyses/summary.py (the
 * compilation-ranges, compilation-high-level and compilation-passes
 * tables).  The reference's outputs on real profiles (compile_stats.tsv,
 * compile_summary.tsv/.txt, compilation-*.json) are matched by the tests.
 *
 *	cstats_read() or cstats_add()		the ranges, any number of
 *						profiles
 *	  -> cstats_attribute()			per-range attributed times
 *	  -> cstats_write()			one table
 *
 * Times are integer nanoseconds inside.  A range's own time is exact; the
 * share of a parallel region given to a worker range is a double, so a
 * total that includes one is written as the shortest double (tsv_f64),
 * and one that does not as exact decimals (tsv_ms).
 */
#ifndef NSYSJAX_COMPILESTATS_H
#define NSYSJAX_COMPILESTATS_H

#include <stddef.h>
#include <stdint.h>

struct filter;
struct tsv_writer;

struct cstats;

/* The tables cstats_write can write. */
enum cstats_table {
	CSTATS_STATS,		/* generate_compilation_statistics */
	CSTATS_SUMMARY,		/* the notebook's compile summary */
	CSTATS_RANGES,		/* summary.py compilation-ranges */
	CSTATS_NOPASS,		/* summary.py compilation-high-level */
	CSTATS_PASSES,		/* summary.py compilation-passes */
	CSTATS_COMPILATIONS	/* per XlaCompile range */
};

/* cstats_opts flags. */
#define CSTATS_CLEAN	1	/* the notebook's name cleaning */
#define CSTATS_GROUP	2	/* XlaPass:# -> XlaPasses, ... */

struct cstats_opts {
	enum cstats_table table;
	int flags;		/* CSTATS_CLEAN | CSTATS_GROUP */
	double top;		/* keep rows while the cumulative fraction of
				   the total is <= top; >= 1: every row */
};

/* One range of a compile frame, as cstats_add takes it.  Times in ns. */
struct cstats_range {
	const char *profile;		/* ProfileName */
	int64_t range_id;
	const char *name;
	int64_t tid;
	int64_t parent_id;		/* -1: none */
	const char *range_stack;	/* ":id:...:range_id" */
	int64_t start, dur;
	int64_t dur_child, dur_nonchild;
	int child_nan;			/* both absent (NaN in the reference) */
	const char *program_id;		/* NULL: absent */
	const char *program_name;	/* NULL: absent */
	const char *src;		/* input name, for messages */
	long line;			/* input line, 0: unknown */
};

/* A new, empty set of ranges. */
struct cstats *cstats_new(void);

/* Release S and everything it holds; NULL is allowed. */
void cstats_free(struct cstats *s);

/* Add one range to S; every string is copied.  Ranges of one profile
 * need not be together, nor in any order. */
void cstats_add(struct cstats *s, const struct cstats_range *r);

/*
 * Add the rows of the compile frame read from IN (TSV; the columns of
 * nsysjax-extract -f compile, found by name): ProfileName (optional: one
 * unnamed profile), RangeId, Name, TID, ParentId (empty: a root),
 * RangeStack, StartMs, DurMs, DurChildMs, DurNonChildMs (both empty, or
 * both numbers), ProgramId and ProgramName (optional).  Times are ms, read
 * as integer ns (tsv_get_ms).  Returns 0, or -1 with an err message naming
 * the input, the line and the column ("f.tsv:3: column TID: not an
 * integer: 'x'", "f.tsv: missing column 'RangeStack'").
 */
int cstats_read(struct cstats *s, struct filter *in);

/*
 * Bounded memory, for the one table O->table (with O->flags): from now on
 * S holds the ranges of one profile at a time.  When a range of another
 * profile is read (cstats_read), and at cstats_attribute, the ranges held
 * are attributed and folded into the table's sums by name (or, for the
 * compilations table, their rows written to an unlinked temporary file in
 * $TMPDIR), then released, so that memory grows with the largest
 * profile and the names, not with the number of profiles.  The output is
 * the same, provided each profile's ranges come together (as
 * nsysjax-extract writes the compile frame, and as cstats_add_frame adds
 * them); a profile seen again after another is an error ("F:LINE:
 * ProfileName 'P' again after other profiles: ...").  Call before adding
 * any range; cstats_attribute folds the ranges held so far (call it
 * after each profile added with cstats_add_frame, and at the end);
 * cstats_write then writes that table, once.  Returns 0, or -1
 * with an err message (the temporary file).
 */
int cstats_stream(struct cstats *s, const struct cstats_opts *o);

/* The most tables one cstats_stream_tables call folds at once. */
#define CSTATS_MAX_TABLES 8

/*
 * As cstats_stream, for the N tables O[0..N) at once (1 <= N <=
 * CSTATS_MAX_TABLES; the compilations table only alone): each range is
 * attributed once and folded into every table's sums, and cstats_write
 * then writes each of them once.  Returns 0, or -1 with an err message.
 */
int cstats_stream_tables(struct cstats *s, const struct cstats_opts *o,
    size_t n);

/*
 * Attribute the compilation time of S, per profile, as
 * generate_compilation_statistics does:
 *
 * 1. The main threads are the TIDs of the ranges named "XlaCompile" or
 *    "XlaCompile:..." (the reference asserts that a profile has exactly
 *    one; several are each a main thread here).  A profile without one
 *    is an error.
 * 2. A launcher is a main-thread range with a direct child (ParentId) on
 *    another thread: a parallel region.  Its descendants are the ranges
 *    of its profile whose RangeStack starts with its own RangeStack and
 *    ':' (make_child_mask); the workers are those on other threads than
 *    the launcher's.  The parallel region runs from the workers' earliest
 *    start to their latest end, and its length is shared among the
 *    workers in proportion to their DurNonChild (a NaN one counts as 0
 *    in the sum, as pandas' sum skips it): each worker range is given
 *    region * DurNonChild / sum as its non-child time and region *
 *    DurChild / sum as its child time.  A launcher's own child time
 *    becomes the region plus the durations of its direct main-thread
 *    children, its non-child time its duration minus that.  (The
 *    reference sums the durations of every main-thread descendant, which
 *    differs only when those nest, counting the nested ones twice.)
 * 3. Every other main-thread range keeps DurNonChild and DurChild.
 *    Ranges on other threads outside any parallel region count for
 *    nothing (the reference does not see them either).
 *
 * Every main-thread descendant of a launcher must end before its region
 * starts or start after it ends (the reference asserts this: one region
 * per launcher, no main-thread work during it).  Errors (-1, err message
 * naming the input and line, or the profile and RangeId when the line is
 * unknown): a profile without XlaCompile, "RangeId N appears twice" in a
 * profile, a main-thread range inside a parallel region, and empty
 * DurChildMs/DurNonChildMs on a main-thread range that is no launcher
 * (nsysjax-extract leaves them empty only on launchers).
 * Cost: O(n log n) plus the launchers' descendants.
 */
int cstats_attribute(struct cstats *s);

/*
 * Write table O->table of S (after cstats_attribute) to W.  Names are
 * first cleaned (CSTATS_CLEAN: cstats_clean) and grouped (CSTATS_GROUP:
 * cstats_group) when O->flags says so; the summary always cleans, the
 * no-pass-detail table always groups.  Rows are sorted by DurNonChild,
 * largest first, ties by name (bytes); O->top keeps the largest rows
 * whose cumulative share of the table's total DurNonChild is at most
 * O->top (the notebook's threshold 0.97), per compilation in the
 * compilations table.  Columns:
 *
 *	stats		Name DurNonChildMs DurChildMs
 *	summary		Name DurNonChildMs DurChildMs FracNonChild
 *	ranges		Name DurNonChildMs DurChildMs DurNonChildPercent
 *	no-pass-detail	Name DurNonChildMs DurNonChildPercent
 *	passes		Name DurNonChildMs DurNonChildPercent (the names
 *			starting "XlaPass:#"; percent of their own total)
 *	compilations	ProfileName RangeId ProgramId ProgramName
 *			CompileStartMs CompileDurS Name DurNonChildS Share
 *
 * Fractions are of the table's total DurNonChild, percents 100 times
 * that.  The compilations table has, for each range named XlaCompile (in
 * profile order, then by start and RangeId), the time attributed to it and
 * its descendants grouped by name, in seconds, and Share = DurNonChildS /
 * CompileDurS (the shares of a compilation add up to 1).  Returns 0, or
 * -1 with an err message when writing failed.
 */
int cstats_write(struct cstats *s, struct tsv_writer *w,
    const struct cstats_opts *o);

/*
 * The notebook's clean_compilation_range_name: a name starting
 * "XlaAutotunerMeasurement" becomes just that; otherwise a trailing
 * ":#module=split_module#" (parallel backend compilation) is removed.
 * Both keep a prefix of NAME, so this returns the length of the cleaned
 * name within NAME[0..LEN).
 */
size_t cstats_clean(const char *name, size_t len);

/*
 * summary.py's remove_xlapass_xlapasspipeline_detail: "XlaPasses" for a
 * name starting "XlaPass:#", "XlaPassPipelines" for "XlaPassPipeline:#",
 * or NULL for any other name (kept as it is).
 */
const char *cstats_group(const char *name, size_t len);

/* Whether NAME is an XlaCompile range: "XlaCompile" or "XlaCompile:...". */
int cstats_is_compile(const char *name);

#endif
