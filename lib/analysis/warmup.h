/*
 * warmup: split the rows of a frame into initialisation and steady state
 * as the reference's apply_warmup_heuristics does (NVIDIA JAX-Toolbox
 * nsys_jax/analysis.py).
 *
 * The rule, per row of the thunk, module or communication frame:
 *
 *	init   <=>  ProgramExecution < skip(ProgramId)
 *	skip(P) = [P's compilation was profiled] + [the profile has communication]
 *
 * so a program whose compilation the profile holds loses its first
 * execution, and every program loses one more when the profile has any
 * communication: one-time costs of the first iteration delay the second
 * launch unevenly across processes.  If no row of the input would be
 * steady, the reference warns and keeps everything as steady state; so do
 * we (the fallback).  An explicit skip count replaces both facts.  The
 * compile frame is initialisation as a whole (the reference puts it into
 * its init frames and leaves it out of steady).
 *
 * Command buffers' forms (openxla/xla PR 33073): XLA runs a command
 * buffer's first execution as plain thunks (warm-up), the second
 * captures the CUDA graph and later ones replay or update it, so the two
 * forms must not mix in the steady state.  An execution (ProgramId,
 * ProgramExecution) is in graph form when the thunk frame has a
 * command-buffer row for it (CommandBuffer equal to Name), else plain; a
 * program's steady form is its last execution's, and an execution that
 * would be steady in the other form is initialisation (counted).
 *
 * The facts travel in the open: the compiled ProgramIds come from a TSV
 * with a ProgramId column (the compile frame), communication from an
 * option, from a file, or from the input's own Communication column,
 * the forms from a thunk frame.
 *
 * Rows are decided one by one; only rows that cannot be decided yet (the
 * input's Communication column has not shown a 1, or no row has been
 * steady yet, so the fallback may still apply) wait in an unlinked
 * temporary file, never in memory.  Output keeps the input order.
 */
#ifndef NSYSJAX_WARMUP_H
#define NSYSJAX_WARMUP_H

#include <stddef.h>
#include <stdint.h>

#include "base/strtab.h"

struct filter;
struct tsv_reader;
struct tsv_writer;

/* The column that --mark appends: 1 steady state, 0 initialisation. */
#define WARMUP_MARK_COLUMN "Steady"

/* Communication in the profile: known no, known yes, or to be read from
 * the input's Communication column. */
enum { WARMUP_COMM_NO = 0, WARMUP_COMM_YES = 1, WARMUP_COMM_INPUT = -1 };

/*
 * Where one row stands before communication is known: INIT whatever the
 * communication (ProgramExecution < compiled), STEADY whatever it
 * (ProgramExecution > compiled), EDGE init exactly when the profile has
 * communication (ProgramExecution == compiled).
 */
enum warmup_class { WARMUP_INIT, WARMUP_EDGE, WARMUP_STEADY };

/* What is written: steady rows, init rows, or every row marked. */
enum warmup_mode { WARMUP_OUT_STEADY, WARMUP_OUT_INIT, WARMUP_OUT_MARK };

/* A program's last execution in the thunk frame, and its form. */
struct warmup_last {
	int64_t exec;
	int graph;		/* 1: graph form (see above) */
};

struct warmup_facts {
	struct strtab compiled;	/* ProgramIds (as escaped in TSV) compiled */
	int communication;	/* WARMUP_COMM_* */
	int64_t skip;		/* >= 0: explicit count for every program;
				 * -1: from the two facts */
	/* Forms (warmup_load_forms): programs, their last[id], and the
	 * executions "ProgramId\tProgramExecution" in graph form. */
	int forms;		/* 1: loaded */
	struct strtab progs, graph;
	struct warmup_last *last;
	size_t caplast;
};

struct warmup_stats {
	size_t rows;		/* rows read */
	size_t steady, init;	/* rows classified each way (after fallback) */
	size_t spooled;		/* rows that waited in the temporary file */
	int communication;	/* the fact used: 0 or 1; -1 under a skip
				 * count or for the compile frame */
	int fallback;		/* 1: nothing was steady, all rows kept */
	size_t form_excluded;	/* executions (ProgramId, ProgramExecution)
				 * made init by their form (after fallback) */
	int compile_frame;	/* 1: input was a compile frame, all init */
};

/*
 * Initialise F: no compiled program, communication from the input
 * (WARMUP_COMM_INPUT), no skip count.
 */
void warmup_facts_init(struct warmup_facts *f);

/* Release what F holds; F can be initialised again. */
void warmup_facts_free(struct warmup_facts *f);

/*
 * Mark ProgramId P (LEN bytes, as written in TSV: still escaped) as
 * compiled within the profile.  An empty P names no program and is
 * ignored.
 */
void warmup_add_compiled(struct warmup_facts *f, const char *p, size_t len);

/*
 * Read every row of R (a compile frame, or any TSV with a ProgramId
 * column) and mark its ProgramId compiled: the reference's
 * compilation_ids_seen, the unique ProgramIds of the compile frame.
 * Returns 0, or -1 with an err message: "NAME: missing column
 * 'ProgramId'", or a bad row as tsv_next.
 */
int warmup_load_compiled(struct warmup_facts *f, struct tsv_reader *r);

/*
 * Whether the profile behind R has communication, into *YES (0 or 1).
 * With a Communication column (thunk frame) it has when some row holds 1,
 * read up to the first such row; without one R is taken as a
 * communication frame, which has communication when it has a row (the
 * reference tests len(frames.communication)).  Returns 0, or -1 with an
 * err message: "NAME:LINE: column Communication: not 0 or 1: 'x'", or a
 * bad row as tsv_next.
 */
int warmup_load_communication(struct tsv_reader *r, int *yes);

/*
 * Read ahead whether the inputs FILES[0..N) (as given to filter_open)
 * have communication, from their Communication column as
 * warmup_load_communication does, so that warmup_run need not hold rows
 * back until the end when no row says 1 (a profile without
 * communication).  Only done when every input is a regular file, which
 * can be read twice.  Returns 1 with *YES set; 0 when it cannot tell (no
 * input named, "-", a pipe, a file without a Communication column: the
 * filter will read the column itself or report it missing); -1 with an
 * err message for an unreadable file or a bad row.
 */
int warmup_prescan_communication(char *const *files, size_t n, int *yes);

/*
 * Read the forms from R (a thunk frame: ProgramId, ProgramExecution,
 * Name, CommandBuffer; without CommandBuffer every execution is plain).
 * Memory: one entry per program and per execution in graph form.
 * Returns 0, or -1 with an err message: "NAME: missing column 'X'",
 * "NAME:LINE: column ProgramExecution: not an integer", a bad row.
 */
int warmup_load_forms(struct warmup_facts *f, struct tsv_reader *r);

/*
 * The forms F loaded (warmup_load_forms) to W as a small thunk frame
 * (ProgramId, ProgramExecution, Name, CommandBuffer): a row per program
 * whose last execution is plain, Name "-" and CommandBuffer empty, and a
 * row per execution in graph form, both "-" (equal: a graph).  Read back
 * by warmup_load_forms it gives the same forms as the whole frame (the
 * same last execution per program and set of graph executions): several
 * frames of a run are split with one pass over its thunk frame.  Memory:
 * none beyond F.  Returns as tsv_eor.
 */
int warmup_write_forms(const struct warmup_facts *f, struct tsv_writer *w);

/*
 * Whether execution EXEC of program P (LEN bytes, escaped) is in another
 * form than P's steady one: 0 without forms or for a program the thunk
 * frame does not hold.
 */
int warmup_form_differs(const struct warmup_facts *f, const char *p,
    size_t len, int64_t exec);

/* Whether F holds ProgramId P (LEN bytes, escaped) as compiled. */
int warmup_compiled(const struct warmup_facts *f, const char *p, size_t len);

/*
 * The number of leading executions of program P that are initialisation
 * when communication is COMM (0 or 1): F's skip count if set, else
 * [P compiled] + COMM.
 */
int64_t warmup_skip(const struct warmup_facts *f, const char *p, size_t len,
    int comm);

/*
 * Classify execution EXEC (ProgramExecution, counted from 0) of program P
 * before communication is known; under a skip count N the answer is INIT
 * below N and STEADY from N on, never EDGE.
 */
enum warmup_class warmup_classify(const struct warmup_facts *f, const char *p,
    size_t len, int64_t exec);

/* Whether a row of class C is steady state when communication is COMM. */
int warmup_steady(enum warmup_class c, int comm);

/*
 * The reference's fallback: of ROWS rows STEADY are steady; returns 1
 * when the split must be dropped and every row kept as steady (ROWS > 0,
 * STEADY == 0), else 0.
 */
int warmup_fallback(size_t rows, size_t steady);

/*
 * Whether the header of R is a compile frame's: a RangeId column and no
 * ProgramExecution column.  Every such row is initialisation.
 */
int warmup_is_compile_frame(const struct tsv_reader *r);

/*
 * A change to every row before it is classified and written
 * (nsysjax-warmup --apply: nsysjax-align's clock corrections, align.h
 * align_apply_line, in the same pass).  START, once IN's header is read:
 * 0, or -1 with an err message.  LINE, per row: the text to write for
 * the reader's current row, *LEN bytes, valid until the next call; 0, or
 * -1 with an err message.  A rewrite keeps the fields warmup_run reads
 * as they were.
 */
struct warmup_rewrite {
	int (*start)(void *arg, struct tsv_reader *r);
	int (*line)(void *arg, struct tsv_reader *r, const char **line,
	    size_t *len);
	void *arg;
};

/*
 * The filter: read every row of IN, write the header and the rows that
 * MODE asks for to OUT, in input order, every column passed through
 * unchanged (MODE WARMUP_OUT_MARK appends WARMUP_MARK_COLUMN), or as RW
 * rewrites the rows (NULL: none).  Columns
 * read: ProgramId and ProgramExecution (integer), and Communication (0 or
 * 1) when F->communication is WARMUP_COMM_INPUT and no skip count is set.
 * With forms, a row that would be steady is init when its execution's
 * form differs (warmup_form_differs).
 * ST receives the counts and the facts used; the caller reports a
 * fallback (ST->fallback) as a warning.
 *
 * Returns 0, or -1 with an err message, after the rows decided so far
 * have been written: "NAME: missing column 'X'", "NAME:LINE: column X:
 * not an integer: 'abc'", a ragged row ("NAME:LINE: 3 fields, the header
 * has 5"), "NAME: column 'Steady' exists already" (mark mode), a
 * temporary file or write error.  The temporary file is created in
 * $TMPDIR (default /tmp) and unlinked at once.
 */
int warmup_run(struct filter *in, struct tsv_writer *out,
    const struct warmup_facts *f, enum warmup_mode mode,
    const struct warmup_rewrite *rw, struct warmup_stats *st);

#endif
