/*
 * compile: the compile frame of load_profiler_data (nsys-jax's
 * data_loaders.py, with its compile time and autotuning cleanup), built
 * from the push/pop
 * NVTX ranges of nsys' nvtx_pushpop_trace report, one profile at a time.
 *
 * Sources of the rules, all in NVIDIA/JAX-Toolbox
 * .github/container/nsys_jax/nsys_jax/: data_loaders.py
 * (_load_nvtx_pushpop_trace_single, _splice_parallel_ranges,
 * _add_program_id_and_name, _drop_non_tsl), protobuf.py
 * (_remap_program_id) and utils.py (make_child_mask,
 * remove_autotuning_detail, remove_child_ranges).  The reference's compile
 * frames of real profiles (compile.tsv, compile_clean.tsv) are matched by
 * the tests.
 *
 *	input ranges (compile_parse_csv, compile_parse_parquet)
 *	  -> compile_add_profile()	one profile's rows, appended
 *	  -> compile_write()		the TSV frame
 *
 * Times are integer nanoseconds everywhere inside; only compile_write
 * turns them into milliseconds.
 */
#ifndef NSYSJAX_COMPILE_H
#define NSYSJAX_COMPILE_H

#include <stddef.h>
#include <stdint.h>

struct tsv_writer;

/*
 * One range of nvtx_pushpop_trace, whatever the container (CSV "(ns)"
 * headers or parquet).  Times in ns.  parent_id is -1 for a root range
 * (empty ParentId).  range_stack is ":id:id:...:range_id", the ids of the
 * range's ancestors on its thread.  The reader owns the strings.
 */
struct compile_range {
	int64_t start_ns, end_ns, dur_ns, dur_child_ns, dur_nonchild_ns;
	char *name;
	int64_t tid;
	int64_t num_child;
	int64_t range_id;
	int64_t parent_id;
	char *range_stack;
};

/*
 * One row of the compile frame.  Times in ns.  When child_nan is set,
 * DurChild and DurNonChild are NaN in the reference (a range that
 * received spliced worker ranges) and dur_child/dur_nonchild mean
 * nothing.  program is the XLA program_id parsed from an
 * XlaCompileBackend range (-1 when none was found); program_id is the
 * ProgramId column: the fingerprint given by the caller, or "unknown";
 * program_name is NULL when no XlaCompileBackend range named one.
 */
struct compile_row {
	size_t profile;			/* index into compile_frame.profiles */
	int64_t range_id;
	char *name;
	int64_t tid;
	int64_t num_child;
	int64_t parent_id;		/* -1: none (empty field) */
	char *range_stack;
	int64_t start, dur;
	int64_t dur_child, dur_nonchild;
	int child_nan;
	int64_t program;
	const char *program_id;
	const char *program_name;
};

/*
 * The frame: rows of every profile added so far, each profile's rows
 * together, in order of addition, and within a profile by RangeId (the
 * reference's index order: ProfileName, RangeId).  A zeroed struct is an
 * empty frame; compile_free releases it.
 */
struct compile_frame {
	char **profiles;		/* ProfileName of each profile */
	size_t nprofiles, capprofiles;
	struct compile_row *rows;
	size_t nrows, caprows;
	char **strs;			/* storage for program ids and names */
	size_t nstrs, capstrs;
};

/* The header compile_write writes, NULL-terminated. */
extern const char *const compile_columns[];

/*
 * Map an XLA program_id and module name (ProgramName) to the ProgramId
 * string the frame carries: the module's "fingerprint_before_lhs" from
 * the HLO dump (protobuf.py _remap_program_id).  Return NULL when the
 * module has no dump (as for autotuner modules): the frame then says
 * "unknown", as the reference does.  The string is copied.  Called once
 * per distinct (program_id, name) of a profile.
 */
typedef const char *compile_fingerprint_fn(void *ctx, int64_t program_id,
    const char *program_name);

/* The limit of times and of their sums (2^60 ns, 36 years). */
#define COMPILE_MAX_NS	((int64_t)1 << 60)

/* compile_add_profile flag: apply remove_autotuning_detail (utils.py). */
#define COMPILE_CLEAN	1

/*
 * Append to F the compile rows of the profile named PROFILE, built from
 * its ranges R[0..N) (read only, in file order: the "last in input order"
 * choices below follow it, as the reference's do) with these rules:
 *
 * 1. Splice (_splice_parallel_ranges).  For each range named
 *    "TSL:XlaCompile:#module=..." (C), the ranges of other threads that
 *    have no parent and lie within C's time ([start, end] inside C's) are
 *    workers.  Each is grafted under the main-thread range that is a
 *    descendant of C, strictly contains it in time, and comes last in
 *    input order (the deepest one open): its ParentId becomes that
 *    range's RangeId, the RangeStack of it and all its descendants is
 *    prefixed with that range's RangeStack, and the new parent gets
 *    NumChild + 1 and DurChild/DurNonChild NaN.  Only C, its descendants
 *    and the grafted ranges are kept.  Descendants follow ParentId; nsys
 *    writes RangeStack as the chain of ancestor ids, so this is the
 *    reference's RangeStack-prefix test.  Where the reference fails: a
 *    worker not named "TSL:Xla..." (assert) is left alone (not grafted,
 *    hence dropped); a worker no descendant of C contains (IndexError) is
 *    grafted under C itself.
 * 2. Program (_add_program_id_and_name).  A range named
 *    "TSL:XlaCompileBackend:#module=M,program_id=N#" has ProgramName M
 *    and program N; it gives them to its parent (the last such child in
 *    input order wins); every other range takes them from its nearest
 *    ancestor that has them.  A backend name not of that form gives
 *    nothing (the reference would carry the whole name on and fail).
 *    ProgramId is FP(CTX, N, M), or "unknown" when FP is NULL, returns
 *    NULL, or the range has no program.
 * 3. Fold non-TSL ranges (_drop_non_tsl): a range whose name does not
 *    start with "TSL:" (cuBLAS, NCCL, ...) is removed, and its parent
 *    gets NumChild - 1, DurChild - its duration, DurNonChild + its
 *    duration (NaN stays NaN).  Descendants of such a range (the
 *    reference asserts there are none) are kept as they are.
 * 4. Names: "TSL:" is removed, then every ",module=M" and ":#module=M#"
 *    of the range's own ProgramName M, as Python's str.replace does (so
 *    ",module=m" goes from ",module=mx" too); without a ProgramName the
 *    name is kept (the reference deletes ",module=nan").  ",program_id=N"
 *    stays: the current reference remaps ProgramId to the fingerprint
 *    before this step, so its removal of ",program_id=<ProgramId>" never
 *    matches (the golden names keep it).
 * 5. With COMPILE_CLEAN in FLAGS (remove_autotuning_detail, compile part):
 *    names starting "XlaAutotunerMeasurement" become exactly that; then
 *    each such range with NumChild != 0 loses its descendants (by
 *    RangeStack prefix, make_child_mask) and gets NumChild 0, DurChild 0,
 *    DurNonChild = its duration.  Then the same for names starting
 *    "XlaAutotunerCompilation" or "XlaPass:#name=autotuner" followed by
 *    ',' or '#' (the pass of XLA of 2026, AutotunerPass), which are
 *    renamed "XlaAutotunerCompilation" (JAX-Toolbox e00e463b,
 *    remove_autotuning_detail); the pass of before, XlaPass:#name=
 *    triton-autotuner, matches neither and stays a pass.
 *    Descendants are looked for within the profile; the reference
 *    matches RangeStack prefixes across all profiles of a combined
 *    frame, which differs only when unrelated profiles share RangeIds.
 *
 * Rows are then sorted by RangeId.  Cost is O(n log n) in the number of
 * ranges (the reference is quadratic).  FP may be NULL (all "unknown").
 *
 * Returns 0, or -1 with an err message ("RangeId N appears twice",
 * "RangeId N: ParentId cycle", "RangeId N: the times add up to more than
 * 2^60 ns": starts, ends and the durations of all ranges, in absolute
 * value, are limited to COMPILE_MAX_NS so that no sum overflows; the
 * caller prefixes input and member), in which case F is unchanged.  A ParentId naming no range is not an error:
 * the range counts as a root for the tree but not as a worker (its
 * ParentId is not empty), and the value is written as given.
 */
int compile_add_profile(struct compile_frame *f, const char *profile,
    const struct compile_range *r, size_t n, compile_fingerprint_fn *fp,
    void *ctx, int flags);

/* Release everything F holds and make it empty again. */
void compile_free(struct compile_frame *f);

/*
 * Write F as TSV: the header compile_columns, then one line per row in
 * frame order: ProfileName RangeId Name TID NumChild ParentId RangeStack
 * StartMs DurMs DurChildMs DurNonChildMs ProgramId ProgramName.  Times in
 * milliseconds, exact (tsv_ms); an absent ParentId, a NaN DurChild or
 * DurNonChild and an absent ProgramName are empty fields.  Returns 0, or
 * -1 with an err message when writing failed.
 */
int compile_write(struct tsv_writer *w, const struct compile_frame *f);

/*
 * Parse the nvtx_pushpop_trace CSV report (RFC 4180 quoting, LF or CRLF,
 * header line first) in CSV[0..LEN) into a new array *R of *N ranges, in
 * file order.  Columns are found by name: "Start (ns)", "End (ns)",
 * "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "Name", "TID",
 * "NumChild", "RangeId", "ParentId", "RangeStack"; others (PID, Lvl,
 * NameTree) are ignored.  Numbers are decimal integers; ParentId may be
 * empty (-1).  Returns 0, or -1 with an err message: "missing column X",
 * "line L: column X: not an integer: 'V'", "line L: N fields, header has
 * M", "line L: malformed CSV", ...; L is the line where the record starts.
 * Free *R with compile_ranges_free.
 */
int compile_parse_csv(const char *csv, size_t len, struct compile_range **r,
    size_t *n);

/*
 * Parse report_nvtx_pushpop_trace.parquet, the same report as the CSV
 * above written by nsys-jax with pandas to_parquet (PID, Lvl and NameTree
 * dropped, RangeId the index, stored as an ordinary column), from the LEN
 * bytes at DATA into a new array *R of *N ranges, in file order, the rows
 * compile_parse_csv gives for the same report.  Columns are found by name,
 * each as the CSV spells it or, for the times, without " (ns)" ("Start");
 * other columns (an "__index_level_0__", PID, ...) are ignored.  Times
 * are integer ns.  Numbers may be integer or floating-point columns (pandas
 * makes a column with gaps float); a floating-point value must be whole.
 * ParentId may be null or NaN: a root (-1).  RangeStack may be text
 * (":id:id") or a list of integers, written back as text.  Either of End
 * and Duration may be missing, as a column or in a row, and is then
 * derived from the other and Start; any other null is an error, as are
 * a negative RangeId or ParentId and a NUL byte in a string.
 * Returns 0, or -1 with an err message: the parquet reader's ("not a
 * parquet file (bad magic)", ...), "missing column X", "column 'X':
 * wrong type (want integers)", "column 'X': row R: null", "column 'X':
 * row R: not an integer: V", ...; rows are counted from 1.  DATA is not
 * kept.  Free *R with compile_ranges_free.
 */
int compile_parse_parquet(const uint8_t *data, size_t len,
    struct compile_range **r, size_t *n);

/*
 * Parse an nvtx_pushpop_trace report in any form nsys or nsys-jax writes,
 * told apart by its first bytes: xz-compressed (decompressed first: *DATA
 * and *LEN are then replaced by the plain bytes, the old buffer freed),
 * parquet ("PAR1": compile_parse_parquet), else CSV (compile_parse_csv).
 * NAME prefixes
 * messages: "NAME: corrupt xz data", "NAME:7: column TID: not an
 * integer: 'x'".  Returns 0 with *R, *N as those parsers give, or -1.
 */
int compile_parse_report(const char *name, uint8_t **data, size_t *len,
    struct compile_range **r, size_t *n);

/*
 * Read the report file PATH ("-": standard input, "<stdin>" in messages)
 * with compile_parse_report, or, when it is an nsys SQLite export (its
 * header, or a name ending ".sqlite"), take its push/pop ranges as
 * nvtx_pushpop_trace gives them (nsysdb.h nsysdb_pushpop), and add its
 * ranges to F as profile PROFILE,
 * with no HLO dumps (every ProgramId "unknown") and compile_add_profile's
 * FLAGS (COMPILE_CLEAN: remove autotuning detail).  Returns 0, or -1 with
 * an err message naming PATH ("cannot open", "read error", the parsers'
 * and compile_add_profile's), F then unchanged.
 */
int compile_load_report(struct compile_frame *f, const char *path,
    const char *profile, int flags);

/* Free the N ranges R made by compile_parse_csv or compile_parse_parquet
 * (R may be NULL). */
void compile_ranges_free(struct compile_range *r, size_t n);

#endif
