/*
 * extract_impl: the extractor's state, private to extract.c (reading the
 * profiles), extract_hlo.c (the heap, hlo and stackframes rows),
 * extract_cmdbuf.c (command buffers) and extract_write.c (writing the
 * frames).  Nothing else includes it: callers see struct
 * extract only through extract.h.
 */
#ifndef NSYSJAX_EXTRACT_IMPL_H
#define NSYSJAX_EXTRACT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "base/strtab.h"
#include "formats/hlocost.h"
#include "profile/compile.h"
#include "profile/extract.h"
#include "profile/frames.h"
#include "profile/input.h"

struct prefetch;
struct archive;

struct dumpcache_dump;
struct heap;
struct nsysdb;
struct nvtxproj;

/* The dumps of the profile being extracted: member -> dump, per archive
 * (a profile's dumps may be in a directory of their own). */
struct extract_hlo {
	struct archive **ar;
	char **member;
	struct dumpcache_dump **d;
	unsigned char *heaped;	/* extract_heap_rows is done with it */
	size_t n, cap;
	size_t last;		/* the index dump_digest found last */
};

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
	struct strtab phnames;	/* "profile\tname" of modules without dump */
	int64_t *phpid;		/* the first program_id of each, by phnames id */
	size_t phcap;
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

/* A copy of S owned by X (its strings), so strings outlive the HLO
 * modules. */
static inline const char *
extract_intern(struct extract *x, const char *s)
{
	return strtab_get(&x->strings, strtab_intern(&x->strings, s,
	    strlen(s), NULL));
}

/*
 * The heap frame's rows of modules M0.. (one profile, its dumps loaded):
 * each ProgramId gets the heap simulator traces of the first dump loaded
 * for it; a later dump of it with other traces is one warning per
 * ProgramId (the reference's xla_module_metadata(...).unique_result).
 */
void extract_heap_rows(struct extract *x, size_t m0);

/*
 * The hlo frame's rows (and their stack frames) of thunks T0.. (one
 * profile, its dumps loaded): one per (ProgramId, instruction) not seen
 * before, by this extraction or a lower part (extract_opts.seen_rows),
 * and a variant row per dump whose stacks or op_names disagree.  0, or
 * -1 with err's message naming the profile and instruction.
 */
int extract_hlo_rows(struct extract *x, size_t t0);

/* Free what row R owns (not R). */
void extract_hlorow_free(struct extract_hlorow *r);

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
