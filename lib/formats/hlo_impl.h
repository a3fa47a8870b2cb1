/*
 * hlo_impl.h: the decoder's state, shared by hlo.c (decoding, lookups,
 * communication facts, cost facts), hlo_shape.c (opcodes, shapes and
 * replica groups) and hlo_stack.c (stack frames and source stacks)
 * alone; everyone else sees hlo.h.  hlo.c calls the other two, which
 * call nothing of it.
 */
#ifndef NSYSJAX_HLO_IMPL_H
#define NSYSJAX_HLO_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/u64map.h"
#include "formats/hlo.h"
#include "hlo.pb-c.h"

/*
 * Messages nested deeper than this are refused before protobuf-c, whose
 * decoder recurses without a limit (ShapeProto.tuple_shapes nests); 100
 * is the default recursion limit of Google's protobuf parsers.
 */
#define PB_MAXDEPTH	100

/* Python's default recursion limit, which bounds the reference too. */
#define CALL_MAXDEPTH	1000

/* Bytes of formatted stack frames one module may hold. */
#define FRAME_BUDGET	((size_t)256 << 20)

/* Host memory on GPU: the :S(5) layout annotation (protobuf.py). */
#define HOST_MEMORY_SPACE	5

/* Arena blocks, for one decoded instruction or a module's strings. */
#define ARENA_BLOCK	((size_t)64 << 10)

#define NONE	SIZE_MAX

enum { UNSEEN, VISITING, DONE };

struct comp {
	int64_t id;
	const char *name;
	size_t first, n;	/* its instructions: hlo_module.inst[first..+n) */
	int state;
	int nfound;		/* communication instructions below, max 2 */
	size_t found;		/* the first of them */
	const char *err;
	int64_t root_id;	/* HloComputationProto.root_id */
	size_t root;		/* its instruction, or HLO_NONE */
};

/* What the opcode means to the reference (protobuf.py). */
enum kind {
	K_OTHER,
	K_COMM,			/* a collective */
	K_COMM_START,		/* an async collective start */
	K_WRAPPER,		/* async-start, fusion: search inside */
	K_DS,			/* dynamic-slice */
	K_DUS			/* dynamic-update-slice */
};

/* An instruction's cost facts. */
struct cfact {
	struct hlo_cost_facts pub;
};
struct ld;

/* An instruction: its public facts and what hlo_src reads. */
struct inst {
	struct hlo_inst pub;
	int32_t frame;		/* OpMetadata.stack_frame_id, 0 for none */
	size_t called, ncalled;	/* its called computation ids in
				 * hlo_module.called[called..+ncalled) */
};

/* Why the size of a shape cannot be taken (analysis.py _byte_size). */
enum { SZ_OK, SZ_TYPE, SZ_NEGATIVE, SZ_OVERFLOW, SZ_FRACTION };

/*
 * What classification reads of an instruction, dropped when hlo_load
 * returns.  Operands are kept for the kinds whose operands are looked at
 * (collectives and slices) and the group size for collectives.
 */
struct fact {
	int64_t id;
	int64_t bytes;		/* size of its shape, unless size_err */
	int64_t group;		/* collective size, unless group_err */
	const char *group_err;
	size_t op, nop;		/* operand ids: ld.ops[op..+nop) */
	size_t comm_i;		/* the instruction named by pub.comm_name */
	int type;		/* element type of its shape */
	unsigned char kind, host, size_err;
};

/*
 * protobuf-c allocates every submessage separately; for a 6 MB module
 * that is hundreds of thousands of malloc and free calls, which cost more
 * than the decoding.  An arena emptied after each instruction makes them
 * one block used over and over.  The same kind of arena holds the
 * strings a module keeps.
 */
struct arena {
	struct block {
		struct block *next;
		size_t used, size;
		max_align_t data[];
	} *head;
	size_t bsize;		/* size of an ordinary block */
};

/* StackFrameIndexProto, flattened; 1-based ids index these arrays. */
struct sfi {
	const char **file, **func;
	struct loc {
		int32_t file, func, line, column;
	} *loc;
	struct sframe {
		int32_t loc, parent;
	} *frame;
	size_t nfile, nfunc, nloc, nframe;
};

struct hlo_module {
	struct arena pool;		/* strings and messages */
	const char *name;
	int64_t id;
	const char *program_id;
	struct inst *inst;
	size_t ninst;
	struct u64map byname;		/* hash_name(name) -> index */
	struct u64map byid;		/* HloInstructionProto.id -> index */
	struct comp *comp;		/* sorted by id */
	size_t ncomp;
	int64_t *called;		/* see struct inst */
	size_t ncalled;
	struct sfi sfi;
	const char **frame;		/* stack frames formatted so far */
	size_t frame_bytes;
	size_t nbeyond;			/* hlo_frames_beyond */
	int64_t maxbeyond;
	struct cfact *cf;		/* cost facts, parallel to inst */
};

/* State of hlo_load that does not outlive it. */
struct ld {
	struct hlo_module *m;
	struct arena scratch;		/* one decoded message at a time */
	struct fact *f;			/* parallel to m->inst */
	int64_t *ops;
	size_t nops;
	struct u64map byistr;		/* hash_name(s) -> index in istr */
	const char **istr;		/* interned strings */
	size_t nistr, istrcap;
	size_t instcap, factcap, compcap, calledcap, opscap;
	size_t cfcap;
	int64_t *opid;			/* operand ids of every instruction, */
	size_t nopid, capopid;		/* until resolve_costs */
	size_t *opat;			/* where each one's are in opid */
};

/* ---- arenas, strings, computations (inline: every file uses them) ---- */

/* SIZE bytes aligned to ALIGN, a power of two up to max_align_t's. */
static inline void *
arena_take(struct arena *a, size_t size, size_t align)
{
	struct block *b = a->head;
	size_t at = 0, sz;

	if (b)
		at = (b->used + align - 1) & ~(align - 1);
	if (b == NULL || at > b->size || b->size - at < size) {
		sz = size > a->bsize / 4 ? size : a->bsize;
		b = mem_alloc(sizeof(*b) + sz);
		b->size = sz;
		at = 0;
		/* A big lone block goes behind the current one, which may
		 * still have room. */
		if (sz == size && a->head) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	b->used = at + size;
	return (char *)b->data + at;
}

static inline const char *
str(const char *s)
{
	return s ? s : "";
}

static inline const char *
pool_str(struct hlo_module *m, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(arena_take(&m->pool, n, 1), s, n);
}

/* Format a message that lives as long as M (per-instruction errors). */
static inline const char *
merr(struct hlo_module *m, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return pool_str(m, buf);
}

static inline int
comp_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct comp *)a)->id;
	int64_t y = ((const struct comp *)b)->id;

	return x < y ? -1 : x > y;
}

static inline struct comp *
find_comp(const struct hlo_module *m, int64_t id)
{
	struct comp k;

	k.id = id;
	return bsearch(&k, m->comp, m->ncomp, sizeof(*m->comp), comp_cmp);
}

/* ---- hlo_shape.c: opcodes, shapes and replica groups ---- */

enum kind hlo_op_kind(const char *op);
int hlo_is_permute(const char *op);
int hlo_on_host(const Xla__HloInstructionProto *p);
int hlo_width_bits(int t);
const char *hlo_type_name(int t);
int hlo_shape_size(const Xla__ShapeProto *s, int64_t *bytes);
int hlo_collective_size(struct hlo_module *m, const Xla__HloInstructionProto *c,
    int64_t *n, const char **err);
const char *hlo_collective_name(const char *opc);

/* ---- hlo_stack.c: stack frames and source stacks ---- */

int hlo_walk(struct hlo_module *m, int64_t frame_id, const char *op_name,
    struct hlo_stack *st);

#endif
