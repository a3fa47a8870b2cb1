/*
 * extract: nsysjax-extract's work: the frames of load_profiler_data
 * (thunk, module, communication, compile), an hlo side table and the heap
 * simulator traces of the buffer assignments (heap), from nsys-jax
 * archives or nsys SQLite exports (input.h resolves both); and from
 * SQLite exports the nvtx frame, the NVTX -> GPU projection of every
 * range (nsysdb.h, nvtxproj.h).  Each input member is decoded once,
 * whatever frames are asked for; buffer assignments only when the heap
 * frame is.
 */
#ifndef NSYSJAX_EXTRACT_H
#define NSYSJAX_EXTRACT_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "base/outfile.h"
#include "base/strtab.h"

struct tsv_writer;

enum extract_frame {
	EXTRACT_THUNK = 1 << 0,
	EXTRACT_MODULE = 1 << 1,
	EXTRACT_COMMUNICATION = 1 << 2,
	EXTRACT_COMPILE = 1 << 3,
	EXTRACT_HLO = 1 << 4,
	EXTRACT_STACKFRAMES = 1 << 5,
	EXTRACT_HEAP = 1 << 6,
	EXTRACT_NVTX = 1 << 7	/* SQLite exports only */
};
#define EXTRACT_NFRAMES 8

struct extract_ahead;
struct dumpcache;

/*
 * The hlo rows the parts a worker extracted hold (parts.h), and those of
 * the finished parts of other workers it read (extract_seen_load), keyed
 * by the digest of their dump and "ProgramId\tName", each with the
 * lowest part (the index of a profile of the run) that holds it.  A row of the same
 * dump is the same row, so part CUR leaves out a row that a lower part
 * holds (as one extraction compares it once): the merge keeps the
 * lowest part's row, and its stack frames came first there too.  A row
 * held only by higher parts (a worker need not take its profiles in
 * order) is written again, so that the lowest part that has the row
 * always holds it and the merge's output does not depend on which
 * worker took what.  Zeroed: empty; free with extract_seen_free.
 */
struct extract_seen {
	struct strtab rows;
	size_t *part;		/* per row id of ROWS */
	size_t cap;
	size_t cur;		/* set by the caller before each profile */
};

void extract_seen_free(struct extract_seen *s);

/*
 * The rows S notes as held by PART, written to FP as records of a
 * 4-byte length (host order) and the key's bytes, for another worker
 * to read with extract_seen_load: a part one worker extracted is then
 * left out of the higher parts of the others too.  0, or -1 when a
 * write fails (the caller reports errno).
 */
int extract_seen_save(const struct extract_seen *s, size_t part, FILE *fp);

/*
 * Add to S, as held by PART (unless a lower part already holds them),
 * the rows of the records of FP (extract_seen_save's).  Records up to
 * the first malformed one count (each is a row PART holds; those after
 * it are built again, which costs time, not correctness).  Returns the
 * number of rows read.
 */
size_t extract_seen_load(struct extract_seen *s, size_t part, FILE *fp);

struct extract_opts {
	int keep_autotuning;	/* skip remove_autotuning_detail */
	int allow_missing_hlo;	/* a module with no dump is a warning */
	unsigned frames;	/* EXTRACT_* bits wanted */
	const char *names;	/* comma-separated ProfileNames, or NULL */
	const char *dumpdir;	/* HLO dumps of SQLite exports, or NULL */
	/* One profile alone, for parts.h's workers: 1 + its index among the
	 * profiles of the inputs (0: every profile), and its ProfileName
	 * (NULL: its own), which NAMES cannot carry when it has a comma. */
	size_t only;
	const char *only_name;
	/* With ONLY: that profile's index among every profile of the run's
	 * inputs, which archives before July 2024 number their devices by
	 * (launchers.h), as one extraction of them all would. */
	size_t only_index;
	/* The members of that one profile, already being read
	 * (extract_ahead_start for the same path and ONLY), or NULL:
	 * extract_load takes its reading over. */
	struct extract_ahead *ahead;
	/* For parts.h's workers, shared by the profiles a worker extracts
	 * in turn (NULL: none): the hlo rows its parts hold (struct
	 * extract_seen). */
	struct extract_seen *seen_rows;
	/* The decoded HLO dumps kept from one profile to the next
	 * (dumpcache.h), for parts.h's workers (NULL: the extraction's
	 * own, planned over its inputs). */
	struct dumpcache *dumps;
};

/*
 * Profile ONLY (extract_opts.only, 1-based; 0: the first) of the input
 * PATH, its members read and decompressed in a background thread
 * (prefetch.h) while the caller does other work: what the next worker
 * profile needs (parts.h), handed to its extract_load in O->ahead with O
 * as given here.  Returns NULL when there is nothing to read ahead (an
 * export, dumps elsewhere, an input that does not open: extract_load
 * reports that); never an error.  Free with extract_ahead_free.
 */
struct extract_ahead *extract_ahead_start(const char *path,
    const struct extract_opts *o);

/* Stop A's reading (waiting for its thread) and free A; NULL is allowed. */
void extract_ahead_free(struct extract_ahead *a);

/* The extractor: opaque; its state is extract_impl.h's, for extract.c
 * and extract_write.c alone. */
struct extract;

/* Frame name ("thunk", ...) to its EXTRACT_* bit; 0 if unknown. */
unsigned extract_frame_bit(const char *name);

/* The frame names, NULL-terminated, in the order of the EXTRACT_ bits. */
extern const char *const extract_frame_names[];

/* A new, empty extractor, for extract_load; free it with extract_free. */
struct extract *extract_new(void);

/*
 * Read PATHS[0..N) (the processes of one run) and build the frames named
 * in O->frames.  The nvtx frame needs SQLite exports: asked for alone
 * from an nsys-jax archive it is an error; among all frames (-o) it is
 * dropped from the frames loaded unless every input is
 * an export.  Returns 0,
 * or -1 with an err message naming the input, the member and what is
 * wrong.  Notes of the reference's heuristics and warnings (and, for
 * exports, GPU operations without a launching call) are kept for the
 * caller to print (extract_notes), after a failure too.
 */
int extract_load(struct extract *x, const char *const *paths, size_t n,
    const struct extract_opts *o);

/*
 * Write frame BIT (one EXTRACT_* value) as TSV to W, header first.
 * Returns 0, or -1 with an err message (write error, or HLO facts that
 * the reference could not compute either).
 */
int extract_write(struct extract *x, unsigned bit, struct tsv_writer *w);

/*
 * Write every frame extract_load built to DIR/NAME.tsv,
 * DIR existing, DIR/cmdbufs.tsv (EXTRACT_CMDBUF_TABLE), and
 * DIR/profiles.tsv: the identities of the profiles it
 * read (input.h input_write_idents), by which a merge of such
 * directories (merge.h) refuses a profile given to two of them.  Each goes to a temporary file, renamed once all are
 * written, so that a failure leaves no frame that looks complete
 * (outfile.h).  Returns 0, or -1 with the err message of the first
 * failure (file, write error, or extract_write's).
 */
int extract_write_dir(struct extract *x, const char *dir);

/*
 * The mechanism of extract_write_dir, for any writer of frames (merge.h):
 * WRITE(BIT, W, ARG) for each EXTRACT_* bit in BITS, in the order of
 * extract_frame_names, into DIR/NAME.tsv, all committed or none.
 * Returns as extract_write_dir.
 */
int extract_write_frames(const char *dir, unsigned bits,
    int (*write)(unsigned bit, struct tsv_writer *w, void *arg), void *arg);

/*
 * extract_write_frames in its three steps, for a writer that fills the
 * frames elsewhere (merge.h: in threads).  OF[EXTRACT_NFRAMES] holds
 * one outfile per frame, zeroed first by the caller.
 * extract_frame_open: open DIR/NAME.tsv of frame BIT into OF[its index];
 * 0, or -1 with outfile_open's message.
 * extract_frame_fill: WRITE(BIT, W, ARG) on a TSV writer over that file,
 * then close it; 0, or -1 with the err message of the write or close
 * (the file stays for extract_frames_end).
 * extract_frames_end: with RC 0, commit the frames of BITS (-1 with
 * outfile_commit's message on failure); else discard every one.
 * Returns the final status.
 */
int extract_frame_open(struct outfile *of, const char *dir, unsigned bit);
int extract_frame_fill(struct outfile *of, unsigned bit,
    int (*write)(unsigned bit, struct tsv_writer *w, void *arg), void *arg);
int extract_frames_end(struct outfile *of, unsigned bits, int rc);

/*
 * DIR/profiles.tsv (input.h input_write_idents), committed with the
 * frames: extract_idents_open writes it by WRITE(W, ARG) into OF, a
 * temporary file (0, or -1 with an err message, OF then released);
 * extract_idents_end(OF, RC), once the frames are written with status
 * RC, commits it when RC is 0 (removing DIR/profiles.tsv if the rename
 * fails: no old run's table beside new frames) and else discards it, so
 * that a failed run leaves none.  Returns the final status.
 */
int extract_idents_open(struct outfile *of, const char *dir,
    int (*write)(struct tsv_writer *w, void *arg), void *arg);
int extract_idents_end(struct outfile *of, int rc);

/*
 * The same for any side table DIR/NAME (NAME with its ".tsv"):
 * extract_side_open writes it into OF, to be committed or discarded by
 * extract_idents_end.
 */
int extract_side_open(struct outfile *of, const char *dir, const char *name,
    int (*write)(struct tsv_writer *w, void *arg), void *arg);

/*
 * The cmdbufs side table, DIR/cmdbufs.tsv beside extract_write_dir's
 * frames (doc/formats.md): one row per operation that a command buffer
 * of the thunk frame holds by XLA's thunk metadata dump (cmdbuf.h
 * cmdbuf_members_meta: the rule for where a buffer ends), columns
 * ProgramId, CommandBuffer (the buffer's thunk name), Operation (the
 * HLO instruction), Kind (its thunk kind), in the dump's order, each
 * (ProgramId, CommandBuffer) once: the first profile's that has its
 * metadata.  A buffer without metadata has no row (its contents are not
 * known); a run without command buffers writes the header alone.  The
 * thunk frame itself does not change.
 */
#define EXTRACT_CMDBUF_TABLE "cmdbufs"


/*
 * For merge.h, beside extract_write_dir's frames: DIR/heapsums, a line
 * "ProgramId<TAB>digest<TAB>input:member" per ProgramId of the heap
 * frame (heap_digest of its traces, in hex; the dump they came from), so
 * that traces that differ between separate extractions are found as one
 * extraction finds them (heap_equal).  Returns 0, or -1 with an err
 * message "DIR/heapsums: ..." (cannot create, write error).
 */
int extract_write_heapsums(const struct extract *x, const char *dir);

/*
 * The tree behind the stackframes frame, in T (for extract.c and
 * merge.h): node id -> "<parent id + 1>\t<frame>" (0 before the tab for
 * an outermost frame), so that equal stack prefixes are stored once and
 * ids number the frames in order of first appearance.
 * extract_stack_node: the id of frame TEXT[0..LEN) below node PARENT
 * (STRTAB_NONE: outermost), added when new; *BUF (*CAP bytes) is scratch
 * kept between calls (no allocation per call once it is large enough).
 * extract_write_stacktree: T as the stackframes frame (FrameId,
 * ParentFrameId empty for an outermost frame, Frame) to W, header first;
 * returns 0, or -1 with tsv_eor's message.
 */
size_t extract_stack_node(struct strtab *t, char **buf, size_t *cap,
    size_t parent, const char *text, size_t len);
int extract_write_stacktree(const struct strtab *t, struct tsv_writer *w);

/* Where a profile is, for extracting it alone (extract_opts.only). */
struct extract_profile {
	size_t input;		/* index in the PATHS given */
	size_t only;		/* extract_opts.only for PATHS[input] alone */
	char *name;		/* its ProfileName (O->names applied) */
};

/*
 * The profiles of PATHS[0..N) in order, as extract_load would read them,
 * into *V[0..*NV) (free with extract_profiles_free), and O->frames
 * narrowed as extract_load narrows it (the nvtx frame).  Returns 0, or -1
 * with extract_load's message for inputs that cannot be resolved, names
 * that do not fit, or an nvtx frame asked of nsys-jax archives.
 */
int extract_profiles(const char *const *paths, size_t n,
    struct extract_opts *o, struct extract_profile **v, size_t *nv);
void extract_profiles_free(struct extract_profile *v, size_t n);

/*
 * Which profiles of PATHS[0..N) (DUMPDIR and NAMES as extract_opts'
 * dumpdir and names) are
 * SQLite exports with GPU work but no NVTX ranges (nsysdb_without_nvtx:
 * nsys without -t nvtx), which extraction refuses: *NLACK of the *NPROF
 * profiles, *FIRST (static until the next call, "" when none) the first
 * one's path, and LACK[i] set to 1 when every profile of PATHS[i] lacks
 * them (LACK has N entries).  Opens each export once more, reading no
 * rows.  Returns 0, or -1 with an err message (an input that cannot be
 * resolved or opened).
 */
int extract_without_nvtx(const char *const *paths, size_t n,
    const char *dumpdir, const char *names, unsigned char *lack,
    size_t *nprof, size_t *nlack, const char **first);

/* The notes and warnings of extract_load, in order. */
const struct err_notes *extract_notes(const struct extract *x);

/*
 * How many of extract_notes come from reading the profiles (in profile
 * order); the frame builder's notes (frames.h) follow them.  Separate
 * extractions (parts.h) print all the first kind, then all the second,
 * as one extraction does.
 */
size_t extract_nwarnings(const struct extract *x);

/* Release X and everything it holds; NULL is allowed. */
void extract_free(struct extract *x);

#endif
