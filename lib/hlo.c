/*
 * hlo: decode an XLA HLO dump with protobuf-c and derive, per
 * instruction, the facts nsys-jax computes in protobuf.py and
 * analysis.py.  See hlo.h for the rules and their sources.
 *
 * The decoded protobuf stays alive (in an arena) and the tables point
 * into it.  Instructions are found by name and by id through open-address
 * hash tables, computations by id through a sorted array.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "hlo.h"
#include "hlo.pb-c.h"
#include "mem.h"

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

enum { UNSEEN, VISITING, DONE };

struct comp {
	int64_t id;
	const Xla__HloComputationProto *p;
	size_t first;		/* its first instruction in hlo_module.inst */
	int state;
	int nfound;		/* communication instructions below, max 2 */
	size_t found;		/* the first of them */
	const char *err;
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

struct inst {
	struct hlo_inst pub;
	const Xla__HloInstructionProto *p;
	enum kind kind;
	size_t comm_i;		/* the instruction named by pub.comm_name */
};

/*
 * protobuf-c allocates every submessage separately; for a 6 MB module
 * that is hundreds of thousands of malloc and free calls, which cost more
 * than the decoding.  An arena makes both a few large blocks.
 */
struct arena {
	struct block {
		struct block *next;
		size_t used, size;
		max_align_t data[];
	} *head;
};

struct hlo_module {
	struct arena arena;		/* holds every decoded message */
	Xla__HloModuleProto *mod;
	const char *program_id;
	struct inst *inst;
	size_t ninst;
	size_t *byname;			/* hash tables of index + 1, 0 empty */
	size_t *byid;
	size_t hmask;
	struct comp *comp;		/* sorted by id */
	size_t ncomp;
	char **frame;			/* stack frames formatted so far */
	size_t nframe;
	size_t frame_bytes;
	char **msg;			/* messages owned by the module */
	size_t nmsg, msgcap;
};

/* Format a message that lives as long as M (per-instruction errors). */
static const char *
merr(struct hlo_module *m, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mem_grow(&m->msg, &m->msgcap, m->nmsg + 1, sizeof(*m->msg));
	m->msg[m->nmsg] = mem_strdup(buf);
	return m->msg[m->nmsg++];
}

/* ---- arena for protobuf-c ---- */

#define BLOCK_MIN	((size_t)1 << 20)

static void *
arena_alloc(void *data, size_t size)
{
	struct arena *a = data;
	struct block *b = a->head;
	size_t need, sz;

	/* protobuf-c sizes its arrays from the input, so this cannot
	 * happen; NULL makes the decoder fail if it does. */
	if (size > SIZE_MAX / 4)
		return NULL;
	need = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
	    sizeof(max_align_t);
	if (b == NULL || b->size - b->used < need) {
		sz = need > BLOCK_MIN / 4 ? need : BLOCK_MIN;
		b = mem_alloc(sizeof(*b) + sz);
		b->size = sz;
		b->used = 0;
		/* A big lone block goes behind the current one, which may
		 * still have room. */
		if (sz == need && a->head) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	b->used += need;
	return (char *)b->data + b->used - need;
}

static void
arena_free(void *data, void *p)
{
	(void)data;
	(void)p;
}

static void
arena_release(struct arena *a)
{
	struct block *b, *next;

	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}

/* ---- wire-level checks made before protobuf-c sees the bytes ---- */

static int
varint(const uint8_t **p, size_t *n, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 64; shift += 7) {
		if (*n == 0)
			return -1;
		*v |= (uint64_t)(**p & 0x7f) << shift;
		(*n)--;
		if ((*(*p)++ & 0x80) == 0)
			return 0;
	}
	return -1;
}

/*
 * Walk the fields of a message of type D, descending into fields that D
 * declares as messages, and fail on malformed wire data or nesting deeper
 * than PB_MAXDEPTH.  Groups (wire types 3 and 4) are refused: XLA never
 * writes them.
 */
static int
pb_check(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
    int depth)
{
	const ProtobufCFieldDescriptor *f;
	uint64_t key, v;

	if (depth > PB_MAXDEPTH)
		return err_fail("HLO protobuf nested too deeply");
	while (n > 0) {
		if (varint(&p, &n, &key) < 0 || key >> 3 == 0 ||
		    key >> 3 > 536870911)
			return err_fail("corrupt HLO protobuf");
		switch (key & 7) {
		case 0:
			if (varint(&p, &n, &v) < 0)
				return err_fail("corrupt HLO protobuf");
			break;
		case 1:
		case 5:
			v = (key & 7) == 1 ? 8 : 4;
			if (n < v)
				return err_fail("corrupt HLO protobuf");
			p += v, n -= v;
			break;
		case 2:
			if (varint(&p, &n, &v) < 0 || v > n)
				return err_fail("corrupt HLO protobuf");
			f = protobuf_c_message_descriptor_get_field(d,
			    (unsigned)(key >> 3));
			if (f != NULL && f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    pb_check(f->descriptor, p, v, depth + 1) < 0)
				return -1;
			p += v, n -= v;
			break;
		default:
			return err_fail("corrupt HLO protobuf");
		}
	}
	return 0;
}

/*
 * Whether the top level looks like an HloProto: only fields 1
 * (hlo_module) and 3 (buffer_assignment), both length-delimited.  A bare
 * HloModuleProto always has other fields (ids, entry name) in practice,
 * and decode() falls back to it when no hlo_module field is found.
 */
static int
is_wrapper(const uint8_t *p, size_t n)
{
	uint64_t key, v;

	while (n > 0) {
		if (varint(&p, &n, &key) < 0 || (key & 7) != 2 ||
		    (key >> 3 != 1 && key >> 3 != 3) ||
		    varint(&p, &n, &v) < 0 || v > n)
			return 0;
		p += v, n -= v;
	}
	return 1;
}

/*
 * An HloProto whose field 1 is bad is an error; one without field 1 may
 * still be a bare HloModuleProto that has only fields 1 and 3.
 */
static int
decode(struct hlo_module *m, const uint8_t *data, size_t len)
{
	ProtobufCAllocator pa = { arena_alloc, arena_free, &m->arena };
	Xla__HloProto *w;

	if (is_wrapper(data, len)) {
		if (pb_check(&xla__hlo_proto__descriptor, data, len, 0) < 0)
			return -1;
		if ((w = xla__hlo_proto__unpack(&pa, len, data)) == NULL)
			return err_fail("corrupt HLO protobuf");
		if ((m->mod = w->hlo_module) != NULL)
			return 0;
		arena_release(&m->arena);
	}
	if (len == 0)
		return err_fail("no HLO module in protobuf");
	if (pb_check(&xla__hlo_module_proto__descriptor, data, len, 0) < 0)
		return -1;
	if ((m->mod = xla__hlo_module_proto__unpack(&pa, len, data)) == NULL)
		return err_fail("corrupt HLO protobuf");
	return 0;
}

/* ---- lookup tables ---- */

/* FNV-1a: names are short and the table is built once. */
static size_t
hash_name(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

/* splitmix64's finaliser: ids are often dense small integers. */
static size_t
hash_id(int64_t id)
{
	uint64_t x = (uint64_t)id;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return (size_t)(x ^ (x >> 31));
}

/* Insert instruction I by name and by id; -1 if either is taken. */
static int
hash_add(struct hlo_module *m, size_t i)
{
	const char *name = m->inst[i].pub.name;
	int64_t id = m->inst[i].p->id;
	size_t h, k;

	for (h = hash_name(name) & m->hmask; (k = m->byname[h]) != 0;
	    h = (h + 1) & m->hmask)
		if (strcmp(m->inst[k - 1].pub.name, name) == 0)
			return err_fail("duplicate HLO instruction name %s",
			    name);
	m->byname[h] = i + 1;
	for (h = hash_id(id) & m->hmask; (k = m->byid[h]) != 0;
	    h = (h + 1) & m->hmask)
		if (m->inst[k - 1].p->id == id)
			return err_fail("duplicate HLO instruction id %" PRId64,
			    id);
	m->byid[h] = i + 1;
	return 0;
}

static struct inst *
find_name(const struct hlo_module *m, const char *name)
{
	size_t h, k;

	for (h = hash_name(name) & m->hmask; (k = m->byname[h]) != 0;
	    h = (h + 1) & m->hmask)
		if (strcmp(m->inst[k - 1].pub.name, name) == 0)
			return &m->inst[k - 1];
	return NULL;
}

static int
comp_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct comp *)a)->id;
	int64_t y = ((const struct comp *)b)->id;

	return x < y ? -1 : x > y;
}

static struct comp *
find_comp(const struct hlo_module *m, int64_t id)
{
	struct comp k;

	k.id = id;
	return bsearch(&k, m->comp, m->ncomp, sizeof(*m->comp), comp_cmp);
}

static const struct inst *
find_id(const struct hlo_module *m, int64_t id)
{
	size_t h, k;

	for (h = hash_id(id) & m->hmask; (k = m->byid[h]) != 0;
	    h = (h + 1) & m->hmask)
		if (m->inst[k - 1].p->id == id)
			return &m->inst[k - 1];
	return NULL;
}

static const char *
str(const char *s)
{
	return s ? s : "";
}

static int
in_set(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

/* protobuf.py HloInstruction.__init__: comm_opcodes, comm_start_opcodes. */
static const char *const comm_ops[] = {
	"all-gather", "all-reduce", "all-to-all", "collective-broadcast",
	"collective-permute", "reduce-scatter", NULL
};

static const char *const comm_start_ops[] = {
	"all-gather-start", "all-reduce-start", "collective-permute-start",
	NULL
};

static enum kind
kind(const char *op)
{
	/* Most opcodes (fusion aside) start with none of these letters. */
	if (strchr("acdfr", op[0]) == NULL || op[0] == '\0')
		return K_OTHER;
	if (in_set(op, comm_ops))
		return K_COMM;
	if (in_set(op, comm_start_ops))
		return K_COMM_START;
	if (strcmp(op, "async-start") == 0 || strcmp(op, "fusion") == 0)
		return K_WRAPPER;
	if (strcmp(op, "dynamic-slice") == 0)
		return K_DS;
	if (strcmp(op, "dynamic-update-slice") == 0)
		return K_DUS;
	return K_OTHER;
}

static void
fill_inst(struct inst *in, const Xla__HloInstructionProto *p)
{
	in->p = p;
	in->pub.name = str(p->name);
	in->pub.opcode = str(p->opcode);
	in->pub.op_name = p->metadata ? str(p->metadata->op_name) : "";
	in->pub.scheduling_name = p->metadata ?
	    str(p->metadata->scheduling_name) : "";
	in->kind = kind(in->pub.opcode);
}

/* The reference asserts unique names, instruction ids and computation
 * ids (protobuf.py HloProto.__init__). */
static int
tables(struct hlo_module *m)
{
	const Xla__HloModuleProto *mod = m->mod;
	size_t c, j, n = 0, cap = 2;

	for (c = 0; c < mod->n_computations; c++)
		n += mod->computations[c]->n_instructions;
	while (cap < 2 * n)
		cap *= 2;
	m->hmask = cap - 1;
	m->inst = mem_calloc(n ? n : 1, sizeof(*m->inst));
	m->byname = mem_calloc(cap, sizeof(*m->byname));
	m->byid = mem_calloc(cap, sizeof(*m->byid));
	m->comp = mem_calloc(mod->n_computations ? mod->n_computations : 1,
	    sizeof(*m->comp));
	m->ncomp = mod->n_computations;
	for (c = 0; c < mod->n_computations; c++) {
		const Xla__HloComputationProto *cp = mod->computations[c];

		m->comp[c].id = cp->id;
		m->comp[c].p = cp;
		m->comp[c].first = m->ninst;
		for (j = 0; j < cp->n_instructions; j++, m->ninst++) {
			fill_inst(&m->inst[m->ninst], cp->instructions[j]);
			if (hash_add(m, m->ninst) < 0)
				return -1;
		}
	}
	qsort(m->comp, m->ncomp, sizeof(*m->comp), comp_cmp);
	for (j = 1; j < m->ncomp; j++)
		if (m->comp[j - 1].id == m->comp[j].id)
			return err_fail("duplicate HLO computation id %" PRId64,
			    m->comp[j].id);
	return 0;
}

/*
 * protobuf.py _remap_program_id:
 * hlo_module.frontend_attributes.map["fingerprint_before_lhs"].
 */
static void
program_id(struct hlo_module *m)
{
	const Xla__FrontendAttributes *fa = m->mod->frontend_attributes;
	size_t i;

	if (fa == NULL)
		return;
	/* A map key repeated on the wire: the last one wins. */
	for (i = 0; i < fa->n_map; i++)
		if (fa->map[i]->key && fa->map[i]->value &&
		    strcmp(fa->map[i]->key, "fingerprint_before_lhs") == 0)
			m->program_id = *fa->map[i]->value ?
			    fa->map[i]->value : NULL;
}

/* ---- stack frames (protobuf.py HloProto._get_stack_frame) ---- */

/*
 * Frame K (1-based) as "file:line[:column][function]", formatted on first
 * use and kept.  Ids are checked here, not at load: the reference only
 * fails when a stack is asked for.  The budget stops a small input whose
 * frames all name one huge file from expanding into gigabytes.
 */
static const char *
frame_str(struct hlo_module *m, int64_t k)
{
	const Xla__StackFrameIndexProto *x = m->mod->stack_frame_index;
	const Xla__StackFrameIndexProto__FileLocation *loc;
	const Xla__StackFrameIndexProto__StackFrame *f;
	char col[16] = "";
	const char *file, *func;
	size_t n;

	if (x == NULL || k < 1 || (uint64_t)k > x->n_stack_frames) {
		err_fail("stack frame id %" PRId64 " out of range", k);
		return NULL;
	}
	if (m->frame[k - 1])
		return m->frame[k - 1];
	f = x->stack_frames[k - 1];
	if (f->file_location_id < 1 ||
	    (size_t)f->file_location_id > x->n_file_locations) {
		err_fail("stack frame id %" PRId64 ": file location out of "
		    "range", k);
		return NULL;
	}
	loc = x->file_locations[f->file_location_id - 1];
	if (loc->file_name_id < 1 ||
	    (size_t)loc->file_name_id > x->n_file_names ||
	    loc->function_name_id < 1 ||
	    (size_t)loc->function_name_id > x->n_function_names) {
		err_fail("stack frame id %" PRId64 ": file or function name "
		    "out of range", k);
		return NULL;
	}
	file = str(x->file_names[loc->file_name_id - 1]);
	func = str(x->function_names[loc->function_name_id - 1]);
	if (loc->column != 0)
		snprintf(col, sizeof(col), ":%" PRId32, loc->column);
	n = strlen(file) + strlen(func) + strlen(col) + 16;
	if (n > FRAME_BUDGET - m->frame_bytes) {
		err_fail("stack frame strings too large");
		return NULL;
	}
	m->frame_bytes += n;
	m->frame[k - 1] = mem_alloc(n);
	snprintf(m->frame[k - 1], n, "%s:%" PRId32 "%s[%s]", file, loc->line,
	    col, func);
	return m->frame[k - 1];
}

/* ---- communication (protobuf.py HloInstruction.__init__) ---- */

static int
on_host(const Xla__HloInstructionProto *p)
{
	return p->shape && p->shape->layout &&
	    p->shape->layout->memory_space == HOST_MEMORY_SPACE;
}

/* Whether operand K of P is in host memory; -1 if it does not exist. */
static int
operand_on_host(struct hlo_module *m, const Xla__HloInstructionProto *p,
    size_t k, const char **err)
{
	const struct inst *op;

	if (k >= p->n_operand_ids) {
		*err = merr(m, "%s has no operand %zu", str(p->name), k);
		return -1;
	}
	if ((op = find_id(m, p->operand_ids[k])) == NULL) {
		*err = merr(m, "%s: no HLO instruction with id %" PRId64,
		    str(p->name), p->operand_ids[k]);
		return -1;
	}
	return on_host(op->p);
}

/*
 * protobuf.py _is_offloading_instruction: a host<->device copy made by
 * dynamic-slice (result and operand 0 in different memory spaces) or
 * dynamic-update-slice (result and operand 0 in one, operand 1 in the
 * other).  Operands are examined in the reference's order so that the
 * same malformed input fails.
 */
static int
is_offload(struct hlo_module *m, const struct inst *in, const char **err)
{
	int dst = on_host(in->p), a, b;

	if (in->kind != K_DS && in->kind != K_DUS)
		return 0;
	if ((a = operand_on_host(m, in->p, 0, err)) < 0)
		return -1;
	if (in->kind == K_DS)
		return dst != a;
	if (dst != a)
		return 0;
	if ((b = operand_on_host(m, in->p, 1, err)) < 0)
		return -1;
	return dst != b;
}

static void
add_found(int *nfound, size_t *found, int n, size_t first)
{
	if (n > 0 && *nfound == 0)
		*found = first;
	*nfound += n;
	if (*nfound > 2)
		*nfound = 2;
}

static int visit(struct hlo_module *, struct comp *, int, const char **);

/* Add the finds of the computations P calls to *NFOUND / *FOUND. */
static int
visit_called(struct hlo_module *m, const Xla__HloInstructionProto *p,
    int depth, int *nfound, size_t *found, const char **err)
{
	struct comp *c;
	size_t j;

	for (j = 0; j < p->n_called_computation_ids; j++) {
		if ((c = find_comp(m, p->called_computation_ids[j])) == NULL) {
			*err = merr(m, "%s: no HLO computation with id %"
			    PRId64, str(p->name), p->called_computation_ids[j]);
			return -1;
		}
		if (visit(m, c, depth + 1, err) < 0)
			return -1;
		add_found(nfound, found, c->nfound, c->found);
	}
	return 0;
}

/*
 * Count the collectives and offloading instructions in computation C and
 * the computations its instructions call, recursively
 * (_visit_computation).  The reference revisits shared computations; the
 * result is memoised, which changes nothing but the cost.
 */
static int
visit(struct hlo_module *m, struct comp *c, int depth, const char **err)
{
	const struct inst *in;
	size_t j;
	int r;

	if (c->state == DONE) {
		*err = c->err;
		return c->err ? -1 : 0;
	}
	if (c->state == VISITING) {
		*err = merr(m, "cycle of called HLO computations at %s",
		    str(c->p->name));
		return -1;
	}
	if (depth > CALL_MAXDEPTH) {
		*err = merr(m, "HLO computations nested too deeply at %s",
		    str(c->p->name));
		return -1;
	}
	c->state = VISITING;
	for (j = 0; j < c->p->n_instructions; j++) {
		in = &m->inst[c->first + j];
		if (visit_called(m, in->p, depth, &c->nfound, &c->found,
		    err) < 0)
			goto fail;
		/* comm_opcodes only: a *-start inside is not looked for. */
		if (in->kind == K_COMM)
			r = 1;
		else if ((r = is_offload(m, in, err)) < 0)
			goto fail;
		if (r)
			add_found(&c->nfound, &c->found, 1,
			    (size_t)(in - m->inst));
	}
	c->state = DONE;
	return 0;
fail:
	c->state = DONE;
	c->err = *err;
	return -1;
}

static void
classify(struct hlo_module *m, struct inst *in)
{
	const char *err = NULL;
	int nfound = 0;
	size_t found = 0;

	in->pub.comm = 0;
	if (in->kind == K_COMM || in->kind == K_COMM_START) {
		in->pub.comm = 1;
		in->pub.comm_name = in->pub.name;
		in->comm_i = (size_t)(in - m->inst);
		return;
	}
	if (in->kind != K_WRAPPER)
		return;
	if (visit_called(m, in->p, 0, &nfound, &found, &err) < 0) {
		in->pub.comm = -1;
		in->pub.err = err;
	} else if (nfound > 1) {
		in->pub.comm = -1;
		in->pub.err = merr(m, "%s: more than one communication "
		    "instruction inside (first %s)", in->pub.name,
		    m->inst[found].pub.name);
	} else if (nfound == 1) {
		in->pub.comm = 1;
		in->pub.comm_name = m->inst[found].pub.name;
		in->comm_i = found;
	}
}

/* ---- message size (analysis.py _get_message_size) ---- */

/*
 * Element width in bits from the PrimitiveType name
 * (analysis.py element_type_width): PRED and F8E* are 8; otherwise the
 * digits after BF, C, F, S or U.  F4E2M1FN, which the reference fails to
 * parse, is given its 4 bits.  -1 for types without a width (TUPLE,
 * TOKEN, ...).
 */
static int
width_bits(int t)
{
	switch (t) {
	case XLA__PRIMITIVE_TYPE__S1: case XLA__PRIMITIVE_TYPE__U1:
		return 1;
	case XLA__PRIMITIVE_TYPE__S2: case XLA__PRIMITIVE_TYPE__U2:
		return 2;
	case XLA__PRIMITIVE_TYPE__S4: case XLA__PRIMITIVE_TYPE__U4:
	case XLA__PRIMITIVE_TYPE__F4E2M1FN:
		return 4;
	case XLA__PRIMITIVE_TYPE__PRED:
	case XLA__PRIMITIVE_TYPE__S8: case XLA__PRIMITIVE_TYPE__U8:
	case XLA__PRIMITIVE_TYPE__F8E5M2: case XLA__PRIMITIVE_TYPE__F8E4M3:
	case XLA__PRIMITIVE_TYPE__F8E4M3FN:
	case XLA__PRIMITIVE_TYPE__F8E4M3B11FNUZ:
	case XLA__PRIMITIVE_TYPE__F8E3M4:
	case XLA__PRIMITIVE_TYPE__F8E5M2FNUZ:
	case XLA__PRIMITIVE_TYPE__F8E4M3FNUZ:
	case XLA__PRIMITIVE_TYPE__F8E8M0FNU:
		return 8;
	case XLA__PRIMITIVE_TYPE__S16: case XLA__PRIMITIVE_TYPE__U16:
	case XLA__PRIMITIVE_TYPE__F16: case XLA__PRIMITIVE_TYPE__BF16:
		return 16;
	case XLA__PRIMITIVE_TYPE__S32: case XLA__PRIMITIVE_TYPE__U32:
	case XLA__PRIMITIVE_TYPE__F32:
		return 32;
	case XLA__PRIMITIVE_TYPE__S64: case XLA__PRIMITIVE_TYPE__U64:
	case XLA__PRIMITIVE_TYPE__F64: case XLA__PRIMITIVE_TYPE__C64:
		return 64;
	case XLA__PRIMITIVE_TYPE__C128:
		return 128;
	default:
		return -1;
	}
}

static const char *
type_name(int t)
{
	const ProtobufCEnumValue *v;

	v = protobuf_c_enum_descriptor_get_value(
	    &xla__primitive_type__descriptor, t);
	return v ? v->name : "unknown type";
}

/* *R = A * B for A, B >= 0; -1 on overflow. */
static int
mul(int64_t a, int64_t b, int64_t *r)
{
	if (a != 0 && b > INT64_MAX / a)
		return -1;
	*r = a * b;
	return 0;
}

/* _byte_size: product(dimensions) * width / 8, a whole number of bytes. */
static int
byte_size(struct hlo_module *m, const Xla__HloInstructionProto *p,
    int64_t *bytes, const char **err)
{
	int t = p->shape ? (int)p->shape->element_type : 0;
	int64_t bits = width_bits(t);
	size_t i;

	if (bits < 0) {
		*err = merr(m, "%s: cannot size an operand of type %s",
		    str(p->name), type_name(t));
		return -1;
	}
	for (i = 0; i < p->shape->n_dimensions; i++) {
		if (p->shape->dimensions[i] < 0) {
			*err = merr(m, "%s: negative dimension", str(p->name));
			return -1;
		}
		if (mul(bits, p->shape->dimensions[i], &bits) < 0) {
			*err = merr(m, "%s: size overflows", str(p->name));
			return -1;
		}
	}
	if (bits % 8 != 0) {
		*err = merr(m, "%s: size is not a whole number of bytes",
		    str(p->name));
		return -1;
	}
	*bytes = bits / 8;
	return 0;
}

static const Xla__HloInstructionProto *
operand(struct hlo_module *m, const Xla__HloInstructionProto *p, size_t k,
    const char **err)
{
	const struct inst *op;

	if (k >= p->n_operand_ids) {
		*err = merr(m, "%s has no operand %zu", str(p->name), k);
		return NULL;
	}
	if ((op = find_id(m, p->operand_ids[k])) == NULL) {
		*err = merr(m, "%s: no HLO instruction with id %" PRId64,
		    str(p->name), p->operand_ids[k]);
		return NULL;
	}
	return op->p;
}

/* Host offloading: a 1-device "collective" of the transferred bytes. */
static int
offload_size(struct hlo_module *m, struct hlo_inst *out,
    const Xla__HloInstructionProto *c, const char **err)
{
	const Xla__HloInstructionProto *src;
	int dus = strcmp(str(c->opcode), "dynamic-update-slice") == 0;

	if ((src = operand(m, c, dus ? 1 : 0, err)) == NULL)
		return -1;
	if (byte_size(m, dus ? src : c, &out->message_size, err) < 0)
		return -1;
	out->collective = on_host(c) ? "device-to-host" : "host-to-device";
	out->collective_size = 1;
	return 0;
}

/* All replica groups must have one size (the reference asserts). */
static int
group_size(struct hlo_module *m, const Xla__HloInstructionProto *c,
    Xla__ReplicaGroup *const *g, size_t ng, int64_t *n, const char **err)
{
	size_t i;

	for (i = 1; i < ng; i++)
		if (g[i]->n_replica_ids != g[0]->n_replica_ids) {
			*err = merr(m, "%s: replica groups of different sizes",
			    str(c->name));
			return -1;
		}
	*n = (int64_t)g[0]->n_replica_ids;
	return 0;
}

/* Mesh axes: product of the listed axes' sizes; no sub-axes. */
static int
mesh_size(struct hlo_module *m, const Xla__HloInstructionProto *c,
    const Xla__MeshAxesReplicaGroupListProto *ma, int64_t *n,
    const char **err)
{
	const Xla__AxisRefProto *ax;
	int64_t k;
	size_t i;

	*n = 1;
	for (i = 0; i < ma->n_axes; i++) {
		ax = ma->axes[i];
		if (ax->sub_axis_info) {
			*err = merr(m, "%s: mesh sub-axes are not supported",
			    str(c->name));
			return -1;
		}
		k = ax->mesh_axis_index;
		if (ma->mesh == NULL || k < 0 || (uint64_t)k >=
		    ma->mesh->n_axes) {
			*err = merr(m, "%s: mesh axis %" PRId64 " out of range",
			    str(c->name), k);
			return -1;
		}
		if (ma->mesh->axes[k]->size < 0 ||
		    mul(*n, ma->mesh->axes[k]->size, n) < 0) {
			*err = merr(m, "%s: bad mesh axis size", str(c->name));
			return -1;
		}
	}
	return 0;
}

/*
 * Group size from the first replica-group encoding present, in the order
 * the reference tries them (see hlo.h).
 */
static int
collective_size(struct hlo_module *m, const Xla__HloInstructionProto *c,
    int64_t *n, const char **err)
{
	const Xla__CollectiveDeviceListProto *dl = c->collective_device_list;
	const Xla__MeshAxesReplicaGroupListProto *ma;

	*n = 0;
	if (dl && dl->n_replica_groups > 0) {
		if (group_size(m, c, dl->replica_groups, dl->n_replica_groups,
		    n, err) < 0)
			return -1;
	} else if (c->n_replica_groups > 0) {
		if (group_size(m, c, c->replica_groups, c->n_replica_groups,
		    n, err) < 0)
			return -1;
	} else if (dl && dl->iota_replica_group_list &&
	    dl->iota_replica_group_list->num_devices_per_group > 0)
		*n = dl->iota_replica_group_list->num_devices_per_group;
	else if (c->iota_collective_device_list &&
	    c->iota_collective_device_list->num_devices_per_group > 0)
		*n = c->iota_collective_device_list->num_devices_per_group;
	else if ((ma = c->mesh_axes_replica_group_list) && ma->n_axes > 0) {
		if (mesh_size(m, c, ma, n, err) < 0)
			return -1;
	}
	if (*n <= 0) {
		*err = merr(m, "%s: cannot extract collective size",
		    str(c->name));
		return -1;
	}
	return 0;
}

/* The opcode without "-start" (opcode.removesuffix("-start")). */
static const char *
collective_name(const char *opc)
{
	static const char *const base[] = {
		"all-gather", "all-reduce", "collective-permute"
	};
	size_t i;

	for (i = 0; comm_start_ops[i]; i++)
		if (strcmp(opc, comm_start_ops[i]) == 0)
			return base[i];
	return opc;
}

static int
message_size(struct hlo_module *m, struct hlo_inst *out,
    const Xla__HloInstructionProto *c, const char **err)
{
	const Xla__HloInstructionProto *op;
	const char *opc = str(c->opcode);
	int64_t n, b, total = 0;
	size_t i;

	if (strcmp(opc, "dynamic-slice") == 0 ||
	    strcmp(opc, "dynamic-update-slice") == 0)
		return offload_size(m, out, c, err);
	if (strcmp(opc, "collective-permute") == 0 ||
	    strcmp(opc, "collective-permute-start") == 0)
		n = 2;
	else if (collective_size(m, c, &n, err) < 0)
		return -1;
	for (i = 0; i < c->n_operand_ids; i++) {
		if ((op = operand(m, c, i, err)) == NULL ||
		    byte_size(m, op, &b, err) < 0)
			return -1;
		if (strcmp(opc, "reduce-scatter") == 0) {
			if (b % n != 0) {
				*err = merr(m, "%s: operand size %" PRId64
				    " not divisible by %" PRId64, str(c->name),
				    b, n);
				return -1;
			}
			b /= n;
		}
		if (b > INT64_MAX - total) {
			*err = merr(m, "%s: size overflows", str(c->name));
			return -1;
		}
		total += b;
	}
	out->collective = collective_name(opc);
	out->message_size = total;
	out->collective_size = n;
	return 0;
}

static void
measure(struct hlo_module *m, struct inst *in)
{
	const char *err = NULL;

	if (in->pub.comm != 1)
		return;
	if (message_size(m, &in->pub, m->inst[in->comm_i].p, &err) < 0) {
		in->pub.collective = NULL;
		in->pub.err = err;
	}
}

/* ---- public interface ---- */

struct hlo_module *
hlo_load(const uint8_t *data, size_t len)
{
	struct hlo_module *m = mem_calloc(1, sizeof(*m));
	size_t i;

	if (decode(m, data, len) < 0 || tables(m) < 0) {
		hlo_free(m);
		return NULL;
	}
	program_id(m);
	if (m->mod->stack_frame_index) {
		m->nframe = m->mod->stack_frame_index->n_stack_frames;
		m->frame = mem_calloc(m->nframe ? m->nframe : 1,
		    sizeof(*m->frame));
	}
	for (i = 0; i < m->ninst; i++)
		classify(m, &m->inst[i]);
	for (i = 0; i < m->ninst; i++)
		measure(m, &m->inst[i]);
	return m;
}

void
hlo_free(struct hlo_module *m)
{
	size_t i;

	if (m == NULL)
		return;
	arena_release(&m->arena);
	for (i = 0; i < m->nframe; i++)
		free(m->frame[i]);
	for (i = 0; i < m->nmsg; i++)
		free(m->msg[i]);
	free(m->frame);
	free(m->msg);
	free(m->inst);
	free(m->byname);
	free(m->byid);
	free(m->comp);
	free(m);
}

const char *
hlo_name(const struct hlo_module *m)
{
	return str(m->mod->name);
}

int64_t
hlo_id(const struct hlo_module *m)
{
	return m->mod->id;
}

const char *
hlo_program_id(const struct hlo_module *m)
{
	return m->program_id;
}

size_t
hlo_count(const struct hlo_module *m)
{
	return m->ninst;
}

const struct hlo_inst *
hlo_inst(const struct hlo_module *m, size_t i)
{
	return &m->inst[i].pub;
}

const struct hlo_inst *
hlo_find(const struct hlo_module *m, const char *name)
{
	const struct inst *in;

	if ((in = find_name(m, name)) == NULL) {
		err_fail("no HLO instruction %s", name);
		return NULL;
	}
	return &in->pub;
}

/* ---- source stacks (Analysis.ipynb instructions_and_frames) ---- */

/*
 * The frames from FRAME_ID up through its parents, outermost first, plus
 * OP_NAME when not empty (protobuf.py get_stack_frames).  An id <= 0 ends
 * the walk; more steps than there are frames means a cycle.
 */
static int
walk(struct hlo_module *m, int64_t frame_id, const char *op_name,
    struct hlo_stack *st)
{
	const char *s;
	int64_t k;
	size_t n = 0, i;

	st->nframe = 0;
	st->frame = NULL;
	for (k = frame_id; k > 0; k = m->mod->stack_frame_index->
	    stack_frames[k - 1]->parent_frame_id) {
		if ((s = frame_str(m, k)) == NULL)
			return -1;
		if (++n > m->nframe)
			return err_fail("cycle in stack frames at id %" PRId64,
			    frame_id);
	}
	if (n == 0)
		return 0;
	st->frame = mem_calloc(n + 1, sizeof(*st->frame));
	i = n;
	for (k = frame_id; k > 0; k = m->mod->stack_frame_index->
	    stack_frames[k - 1]->parent_frame_id)
		st->frame[--i] = m->frame[k - 1];
	st->nframe = n;
	if (*op_name)
		st->frame[st->nframe++] = op_name;
	return 0;
}

static int
same_stack(const struct hlo_stack *a, const struct hlo_stack *b)
{
	size_t i;

	if (a->nframe != b->nframe)
		return 0;
	for (i = 0; i < a->nframe; i++)
		if (a->frame[i] != b->frame[i] &&
		    strcmp(a->frame[i], b->frame[i]) != 0)
			return 0;
	return 1;
}

struct src_build {
	struct hlo_src *out;
	size_t stackcap, namecap;
};

/* Add one instruction's stack and op_name, if new. */
static int
add_src(struct hlo_module *m, const Xla__HloInstructionProto *p,
    struct src_build *b)
{
	struct hlo_src *s = b->out;
	const char *op_name = p->metadata ? str(p->metadata->op_name) : "";
	struct hlo_stack st;
	size_t i;

	if (walk(m, p->metadata ? p->metadata->stack_frame_id : 0, op_name,
	    &st) < 0)
		return -1;
	for (i = 0; i < s->nstack && st.nframe; i++)
		if (same_stack(&s->stack[i], &st))
			break;
	if (st.nframe && i == s->nstack) {
		mem_grow(&s->stack, &b->stackcap, s->nstack + 1,
		    sizeof(*s->stack));
		s->stack[s->nstack++] = st;
	} else
		free(st.frame);
	if (*op_name == '\0')
		return 0;
	for (i = 0; i < s->nop_name; i++)
		if (strcmp(s->op_name[i], op_name) == 0)
			return 0;
	mem_grow(&s->op_name, &b->namecap, s->nop_name + 1,
	    sizeof(*s->op_name));
	s->op_name[s->nop_name++] = op_name;
	return 0;
}

int
hlo_src(struct hlo_module *m, const struct hlo_inst *in, struct hlo_src *out)
{
	const Xla__HloInstructionProto *p = ((const struct inst *)in)->p;
	const struct comp *c;
	struct src_build b = { out, 0, 0 };
	size_t j, k;

	memset(out, 0, sizeof(*out));
	if (add_src(m, p, &b) < 0)
		return -1;
	for (j = 0; j < p->n_called_computation_ids; j++) {
		if ((c = find_comp(m, p->called_computation_ids[j])) == NULL)
			return err_fail("%s: no HLO computation with id %"
			    PRId64, in->name, p->called_computation_ids[j]);
		for (k = 0; k < c->p->n_instructions; k++)
			if (add_src(m, c->p->instructions[k], &b) < 0)
				return -1;
	}
	return 0;
}

void
hlo_src_free(struct hlo_src *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nstack; i++)
		free(s->stack[i].frame);
	free(s->stack);
	free(s->op_name);
	memset(s, 0, sizeof(*s));
}
