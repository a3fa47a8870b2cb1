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

#include "profile/compile.h"
#include "profile/frames.h"
#include "profile/input.h"
#include "base/strtab.h"

struct prefetch;
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

struct extract_opts {
	int keep_autotuning;	/* skip remove_autotuning_detail */
	int allow_missing_hlo;	/* a module with no dump is a warning */
	unsigned frames;	/* EXTRACT_* bits wanted */
	const char *names;	/* comma-separated ProfileNames, or NULL */
	const char *dumpdir;	/* HLO dumps of SQLite exports, or NULL */
};

struct extract_hlo;		/* loaded dumps, by member name */
struct heap;
struct nsysdb;
struct nvtxproj;

/* The heap frame of one ProgramId: its dump's heap simulator traces. */
struct extract_heap {
	const char *program;	/* ProgramId (interned) */
	struct heap *h;
	int differs;		/* another dump of it gave other traces */
};

/* One row of the hlo frame: an instruction that some thunk executes. */
struct extract_hlorow {
	const char *program;	/* ProgramId (interned) */
	const char *name;	/* instruction name */
	const char *opcode;	/* interned */
	int comm;
	const char *collective;	/* interned, or NULL */
	int64_t message_size, collective_size;
	char *op_name, *scheduling_name;
	size_t *stacks;		/* innermost stack frame id of each stack */
	size_t nstacks;
	char *op_names;		/* distinct op_names, LF-separated */
	size_t variant;		/* 0; n for the n-th other metadata */
	size_t next;		/* row id + 1 of the next variant; 0: none */
};

struct extract {
	struct extract_opts o;
	struct input_set in;
	struct frames fr;
	struct compile_frame cf;
	struct extract_hlo *hlo;
	struct err_notes warnings;	/* for stderr, in order */
	struct strtab strings;	/* interned ProgramIds, opcodes, ... */
	struct strtab rowkeys;	/* "ProgramId\tName" of the hlo rows */
	struct strtab checked;	/* (dump digest, row id) compared */
	struct extract_hlorow *rows;	/* the hlo frame, in rowkeys order */
	size_t caprows;
	/* The stack frame tree: node id -> "<parent id + 1>\t<frame>", so
	 * that equal stack prefixes are stored once. */
	struct strtab stackframes;
	char *keybuf;		/* scratch for stack frame keys */
	struct prefetch *pf;	/* members of profile pf_profile, read ahead */
	size_t pf_profile;
	struct archive *pf_ar;	/* the archive pf reads */
	struct archive *next_ar;
	/* SQLite exports: each profile's, read once (NULL for others). */
	struct nsysdb **db;
	struct nvtxproj **proj;
	struct prefetch *next;	/* being read for the next profile */
	size_t capkeybuf;
	/* The heap frame, by ProgramId in order of first appearance; only
	 * when EXTRACT_HEAP is asked for. */
	struct extract_heap *heaps;
	struct strtab heapkeys;	/* ProgramId -> index in heaps */
	size_t capheaps;
};

/* Frame name ("thunk", ...) to its EXTRACT_* bit; 0 if unknown. */
unsigned extract_frame_bit(const char *name);

/* The frame names, NULL-terminated, in the order of the EXTRACT_ bits. */
extern const char *const extract_frame_names[];

/*
 * Read PATHS[0..N) (the processes of one run) and build the frames named
 * in O->frames.  The nvtx frame needs SQLite exports: asked for alone
 * from an nsys-jax archive it is an error; among all frames (-o) it is
 * dropped from X->o.frames unless every input is an export.  Returns 0,
 * or -1 with an err message naming the input, the member and what is
 * wrong.  Notes of the reference's heuristics and warnings (and, for
 * exports, GPU operations without a launching call) go to X->warnings,
 * for the caller to print.
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
