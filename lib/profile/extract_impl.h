/*
 * extract_impl: the extractor's state, private to extract.c (reading the
 * profiles), extract_cmdbuf.c (command buffers) and extract_write.c
 * (writing the frames).  Nothing else includes it: callers see struct
 * extract only through extract.h.
 */
#ifndef NSYSJAX_EXTRACT_IMPL_H
#define NSYSJAX_EXTRACT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/strtab.h"
#include "formats/hlocost.h"
#include "profile/compile.h"
#include "profile/extract.h"
#include "profile/frames.h"
#include "profile/input.h"

struct prefetch;
struct archive;

struct extract_hlo;		/* loaded dumps, by member name */
struct heap;
struct nsysdb;
struct nvtxproj;

/* The heap frame of one ProgramId: its dump's heap simulator traces. */
struct extract_heap {
	const char *program;	/* ProgramId (interned) */
	struct heap *h;
	int differs;		/* another dump of it gave other traces */
	char *origin;		/* "input:member" of the dump */
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
	struct hlocost cost;	/* Flops ... Dtype (formats/hlocost.h) */
};

/* One row of the cmdbufs side table (extract.h): an operation a command
 * buffer holds, by the thunk metadata; strings interned in strings. */
struct extract_cbrow {
	const char *program, *buf, *op, *kind;
};

struct extract {
	struct extract_opts o;
	struct input_set in;
	struct frames fr;
	struct compile_frame cf;
	struct extract_hlo *hlo;
	struct dumpcache *dumps;	/* o.dumps, or its own */
	struct err_notes warnings;	/* for stderr, in order */
	size_t nwarnings;	/* of them, before the frame builder's notes */
	struct strtab strings;	/* interned ProgramIds, opcodes, ... */
	struct strtab missing;	/* placeholder ProgramIds warned about */
	struct strtab rowkeys;	/* "ProgramId\tName" of the hlo rows */
	struct strtab checked;	/* (dump digest, row id) compared */
	struct extract_hlorow *rows;	/* the hlo frame, in rowkeys order */
	/* The costing of the module whose rows were filled last (thunks
	 * come grouped by module); dropped with the modules. */
	const struct hlo_module *cost_m;
	struct hlocost_ctx *cost_c;
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
	/* The cmdbufs side table: its rows in order of first appearance,
	 * and "ProgramId\tbuffer" of the buffers already listed. */
	struct extract_cbrow *cbrows;
	size_t ncbrows, capcbrows;
	struct strtab cbkeys;
};

/*
 * Command buffers (cmdbuf.h) among thunks T0.. of modules M0.. (one
 * profile, its modules' HLO loaded): set the CommandBuffer column, and
 * for a node-level SQLite export split each buffer row into the rows of
 * the operations it ran, with one note of the time left unexplained.
 * Never fails on what it cannot match (notes instead); returns 0.
 */
int extract_cmdbufs(struct extract *x, size_t m0, size_t t0);

/*
 * The cmdbufs side table (extract.h extract_write_dir) to W: header
 * ProgramId, CommandBuffer, Operation, Kind, then X->cbrows.  0, or -1
 * with the writer's err message.
 */
int extract_write_cmdbufs(struct tsv_writer *w, void *x);

/* Whether T is a command buffer's own row (not an inner row). */
int extract_is_cmdbuf_row(const struct frames_thunk *t);

#endif
