/*
 * extract: nsysjax-extract's work: the frames of load_profiler_data
 * (thunk, module, communication, compile) and an hlo side table, from
 * nsys-jax archives.  Each input member is decoded once, whatever frames
 * are asked for.
 */
#ifndef NSYSJAX_EXTRACT_H
#define NSYSJAX_EXTRACT_H

#include <stddef.h>

#include "compile.h"
#include "frames.h"
#include "input.h"

struct tsv_writer;

enum extract_frame {
	EXTRACT_THUNK = 1 << 0,
	EXTRACT_MODULE = 1 << 1,
	EXTRACT_COMMUNICATION = 1 << 2,
	EXTRACT_COMPILE = 1 << 3,
	EXTRACT_HLO = 1 << 4
};

struct extract_opts {
	int keep_autotuning;	/* skip remove_autotuning_detail */
	int allow_missing_hlo;	/* a module with no dump is a warning */
	unsigned frames;	/* EXTRACT_* bits wanted */
	const char *names;	/* comma-separated ProfileNames, or NULL */
};

struct extract_hlo;		/* loaded dumps, by member name */

struct extract {
	struct extract_opts o;
	struct input_set in;
	struct frames fr;
	struct compile_frame cf;
	struct extract_hlo *hlo;
	char **warnings;	/* for stderr, in order */
	size_t nwarnings, capwarnings;
	char **strings;		/* interned ProgramIds */
	size_t nstrings, capstrings;
};

/* Frame name ("thunk", ...) to its EXTRACT_* bit; 0 if unknown. */
unsigned extract_frame_bit(const char *name);

/* The frame names, NULL-terminated, in the order of the EXTRACT_ bits. */
extern const char *const extract_frame_names[];

/*
 * Read PATHS[0..N) (the processes of one run) and build the frames named
 * in O->frames.  Returns 0, or -1 with an err message naming the input,
 * the member and what is wrong.  Notes of the reference's heuristics and
 * warnings go to X->warnings, for the caller to print.
 */
int extract_load(struct extract *x, const char *const *paths, size_t n,
    const struct extract_opts *o);

/*
 * Write frame BIT (one EXTRACT_* value) as TSV to W, header first.
 * Returns 0, or -1 with an err message (write error, or HLO facts that
 * the reference could not compute either).
 */
int extract_write(struct extract *x, unsigned bit, struct tsv_writer *w);

void extract_free(struct extract *x);

#endif
