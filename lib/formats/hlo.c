/*
 * hlo: decode an XLA HLO dump with protobuf-c and derive, per
 * instruction, the facts nsys-jax computes in protobuf.py and
 * analysis.py.  See hlo.h for the rules and their sources.
 *
 * A decoded HloModuleProto is about five times its wire size (a struct
 * per message and a copy of every unknown field: 30 MB for a 6 MB dump),
 * so the tree is never held whole.  protobuf-c decodes the module's own
 * fields, then each computation's, then each instruction alone into a
 * scratch arena, and what is needed later is copied out: names and
 * interned strings into a pool, and per instruction its stack-frame id
 * and called computations (for hlo_src) and, until hlo_load returns,
 * what classification reads (id, operands, shape size, memory space,
 * replica-group size).  Instructions are found by name and by id through
 * base/u64map (a name by its FNV-1a hash, the candidates compared),
 * computations by id through a sorted array.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "formats/hlo.h"
#include "formats/hlo_impl.h"
#include "hlo.pb-c.h"
#include "base/mem.h"
#include "base/u64map.h"
#include "formats/pbwire.h"

static void keep_cost(struct ld *, const Xla__HloInstructionProto *);
static void resolve_costs(struct ld *);

/* ---- arenas ---- */


/* Empty A, keeping one ordinary block for the next message. */
static void
arena_reset(struct arena *a)
{
	struct block *b, *next, *keep = NULL;

	for (b = a->head; b; b = next) {
		next = b->next;
		if (keep == NULL && b->size == a->bsize)
			keep = b;
		else
			free(b);
	}
	if (keep) {
		keep->used = 0;
		keep->next = NULL;
	}
	a->head = keep;
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

static void *
pbc_alloc(void *data, size_t size)
{
	/* protobuf-c sizes its arrays from the input, so this cannot
	 * happen; NULL makes the decoder fail if it does. */
	if (size > SIZE_MAX / 4)
		return NULL;
	return arena_take(data, size, sizeof(max_align_t));
}

static void
pbc_free(void *data, void *p)
{
	(void)data;
	(void)p;
}




/* ---- the wire, read before and around protobuf-c ---- */

/* The dump's wire checked by pbwire_check, messages naming it. */
static int
pb_check(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n)
{
	return pbwire_check(d, p, n, PB_MAXDEPTH, "HLO protobuf");
}

/* Field numbers of the repeated messages decoded one at a time. */
#define F_COMPUTATIONS	3	/* HloModuleProto.computations */
#define F_INSTRUCTIONS	2	/* HloComputationProto.instructions */

/*
 * The module messages of a dump: the whole dump when bare, else the
 * payloads of the HloProto's hlo_module fields, which protobuf-c would
 * merge into one (so their computations follow each other).
 */
struct mods {
	const uint8_t *p;
	size_t n;
	int wrapped, done;
};

static int
next_mod(struct mods *it, const uint8_t **p, size_t *n)
{
	struct pbwire_field f;

	if (!it->wrapped) {
		*p = it->p, *n = it->n;
		return it->done++ == 0;
	}
	while (pbwire_next(&it->p, &it->n, &f) > 0)
		if (f.num == 1) {
			*p = f.val, *n = f.len;
			return 1;
		}
	return 0;
}

/*
 * The keys and lengths of the fields split apart below are read here
 * instead of by protobuf-c, which refuses them beyond 5 bytes: so does
 * this.
 */
static int
pbc_check(const uint8_t *p, size_t n)
{
	return pbwire_pbc_ok(p, n) ? 0 : err_fail("corrupt HLO protobuf");
}

/*
 * The dump without computations (nor buffer assignment), in A: an
 * HloProto whose modules are stripped when WRAPPED, else a stripped
 * module.
 */
static uint8_t *
header(struct arena *a, const uint8_t *data, size_t len, int wrapped,
    size_t *hlen)
{
	struct mods it = { data, len, wrapped, 0 };
	const uint8_t *p;
	uint8_t *h, tmp[10];
	size_t n, k;

	*hlen = 0;
	while (next_mod(&it, &p, &n)) {
		k = pbwire_strip(p, n, F_COMPUTATIONS, NULL);
		*hlen += k + (wrapped ? 1 + pbwire_put_varint(tmp, k) : 0);
	}
	h = arena_take(a, *hlen, 1);
	k = 0;
	it = (struct mods){ data, len, wrapped, 0 };
	while (next_mod(&it, &p, &n)) {
		if (wrapped) {
			h[k++] = 0x0a;	/* field 1, length-delimited */
			k += pbwire_put_varint(h + k, pbwire_strip(p, n,
			    F_COMPUTATIONS, NULL));
		}
		k += pbwire_strip(p, n, F_COMPUTATIONS, h + k);
	}
	return h;
}

/* ---- copying out of the decoded messages ---- */

/* FNV-1a: names are short and the table is built once. */
static uint64_t
hash_name(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/*
 * S copied into the pool once: opcodes and op_names repeat (the largest
 * dump has 20051 op_names, 1854 of them distinct).
 */
static const char *
intern(struct ld *L, const char *s)
{
	uint64_t h;
	struct u64map_it it;
	size_t k;

	if (*s == '\0')
		return "";
	h = hash_name(s);
	for (k = u64map_first(&L->byistr, h, &it); k != U64MAP_NONE;
	    k = u64map_next(&L->byistr, &it))
		if (strcmp(L->istr[k], s) == 0)
			return L->istr[k];
	mem_grow(&L->istr, &L->istrcap, L->nistr + 1, sizeof(*L->istr));
	u64map_add(&L->byistr, h, L->nistr);
	return L->istr[L->nistr++] = pool_str(L->m, s);
}

/*
 * protobuf.py _remap_program_id:
 * hlo_module.frontend_attributes.map["fingerprint_before_lhs"].
 */
static void
program_id(struct hlo_module *m, const Xla__FrontendAttributes *fa)
{
	const char *v = NULL;
	size_t i;

	if (fa == NULL)
		return;
	/* A map key repeated on the wire: the last one wins. */
	for (i = 0; i < fa->n_map; i++)
		if (fa->map[i]->key && fa->map[i]->value &&
		    strcmp(fa->map[i]->key, "fingerprint_before_lhs") == 0)
			v = *fa->map[i]->value ? fa->map[i]->value : NULL;
	m->program_id = v ? pool_str(m, v) : NULL;
}

static void
keep_names(struct hlo_module *m, const char ***out, size_t *nout,
    char *const *in, size_t n)
{
	size_t i;

	*out = mem_calloc(n, sizeof(**out));
	*nout = n;
	for (i = 0; i < n; i++)
		(*out)[i] = pool_str(m, str(in[i]));
}

static void
keep_frames(struct hlo_module *m, const Xla__StackFrameIndexProto *x)
{
	struct sfi *s = &m->sfi;
	size_t i;

	if (x == NULL)
		return;
	keep_names(m, &s->file, &s->nfile, x->file_names, x->n_file_names);
	keep_names(m, &s->func, &s->nfunc, x->function_names,
	    x->n_function_names);
	s->nloc = x->n_file_locations;
	s->loc = mem_calloc(s->nloc, sizeof(*s->loc));
	for (i = 0; i < s->nloc; i++) {
		s->loc[i].file = x->file_locations[i]->file_name_id;
		s->loc[i].func = x->file_locations[i]->function_name_id;
		s->loc[i].line = x->file_locations[i]->line;
		s->loc[i].column = x->file_locations[i]->column;
	}
	s->nframe = x->n_stack_frames;
	s->frame = mem_calloc(s->nframe, sizeof(*s->frame));
	for (i = 0; i < s->nframe; i++) {
		s->frame[i].loc = x->stack_frames[i]->file_location_id;
		s->frame[i].parent = x->stack_frames[i]->parent_frame_id;
	}
	m->frame = mem_calloc(s->nframe, sizeof(*m->frame));
}

/* The module's own fields: everything but its computations. */
static int
load_header(struct ld *L, const uint8_t *data, size_t len, int wrapped)
{
	ProtobufCAllocator pa = { pbc_alloc, pbc_free, &L->scratch };
	const Xla__HloModuleProto *mod;
	Xla__HloProto *w;
	uint8_t *h;
	size_t n;

	h = header(&L->scratch, data, len, wrapped, &n);
	if (wrapped)
		mod = (w = xla__hlo_proto__unpack(&pa, n, h)) ? w->hlo_module :
		    NULL;
	else
		mod = xla__hlo_module_proto__unpack(&pa, n, h);
	if (mod == NULL)
		return err_fail("corrupt HLO protobuf");
	L->m->name = pool_str(L->m, str(mod->name));
	L->m->id = mod->id;
	program_id(L->m, mod->frontend_attributes);
	keep_frames(L->m, mod->stack_frame_index);
	arena_reset(&L->scratch);
	return 0;
}

/* What classification needs of P, the instruction just added. */
static void
add_fact(struct ld *L, const struct hlo_inst *in,
    const Xla__HloInstructionProto *p)
{
	struct fact *f;

	mem_grow(&L->f, &L->factcap, L->m->ninst, sizeof(*L->f));
	f = &L->f[L->m->ninst - 1];
	memset(f, 0, sizeof(*f));
	f->id = p->id;
	f->kind = hlo_op_kind(in->opcode);
	f->host = hlo_on_host(p);
	f->type = p->shape ? (int)p->shape->element_type : 0;
	f->size_err = hlo_shape_size(p->shape, &f->bytes);
	if (f->kind == K_OTHER || f->kind == K_WRAPPER)
		return;
	f->op = L->nops;
	if ((f->nop = p->n_operand_ids) > 0) {
		mem_grow(&L->ops, &L->opscap, L->nops + f->nop,
		    sizeof(*L->ops));
		memcpy(L->ops + L->nops, p->operand_ids,
		    f->nop * sizeof(*L->ops));
		L->nops += f->nop;
	}
	/* Measured as itself and maybe as the collective inside a wrapper,
	 * which give the same error: taken once, here. */
	if ((f->kind == K_COMM || f->kind == K_COMM_START) &&
	    !hlo_is_permute(in->opcode))
		(void)hlo_collective_size(L->m, p, &f->group, &f->group_err);
}

static void
add_inst(struct ld *L, const Xla__HloInstructionProto *p)
{
	struct hlo_module *m = L->m;
	struct inst *in;

	mem_grow(&m->inst, &L->instcap, m->ninst + 1, sizeof(*m->inst));
	in = &m->inst[m->ninst++];
	memset(in, 0, sizeof(*in));
	in->pub.name = pool_str(m, str(p->name));
	in->pub.id = p->id;
	in->pub.opcode = intern(L, str(p->opcode));
	in->pub.op_name = p->metadata ? intern(L,
	    str(p->metadata->op_name)) : "";
	in->pub.scheduling_name = p->metadata ? intern(L,
	    str(p->metadata->scheduling_name)) : "";
	in->frame = p->metadata ? p->metadata->stack_frame_id : 0;
	in->called = m->ncalled;
	if ((in->ncalled = p->n_called_computation_ids) > 0) {
		mem_grow(&m->called, &L->calledcap, m->ncalled + in->ncalled,
		    sizeof(*m->called));
		memcpy(m->called + m->ncalled, p->called_computation_ids,
		    in->ncalled * sizeof(*m->called));
		m->ncalled += in->ncalled;
	}
	add_fact(L, &in->pub, p);
	keep_cost(L, p);
}

/*
 * Decode computation P[0..N) an instruction at a time, its own fields
 * first, keeping their facts: the entry computation of a large module
 * would take ~10 MB decoded whole.
 */
static int
load_comp(struct ld *L, const uint8_t *p, size_t n)
{
	ProtobufCAllocator pa = { pbc_alloc, pbc_free, &L->scratch };
	struct hlo_module *m = L->m;
	Xla__HloComputationProto *cp;
	Xla__HloInstructionProto *ip;
	struct comp *c;
	struct pbwire_field f;
	uint8_t *h;
	size_t k;

	if (pbc_check(p, n) < 0)
		return -1;
	k = pbwire_strip(p, n, F_INSTRUCTIONS, NULL);
	h = arena_take(&L->scratch, k, 1);
	pbwire_strip(p, n, F_INSTRUCTIONS, h);
	if ((cp = xla__hlo_computation_proto__unpack(&pa, k, h)) == NULL)
		return err_fail("corrupt HLO protobuf");
	mem_grow(&m->comp, &L->compcap, m->ncomp + 1, sizeof(*m->comp));
	c = &m->comp[m->ncomp++];
	memset(c, 0, sizeof(*c));
	c->id = cp->id;
	c->root_id = cp->root_id;
	c->name = pool_str(m, str(cp->name));
	c->first = m->ninst;
	arena_reset(&L->scratch);
	while (pbwire_next(&p, &n, &f) > 0) {
		if (!pbwire_is_msg(&f, F_INSTRUCTIONS))
			continue;
		if ((ip = xla__hlo_instruction_proto__unpack(&pa, f.len,
		    f.val)) == NULL)
			return err_fail("corrupt HLO protobuf");
		add_inst(L, ip);
		arena_reset(&L->scratch);
	}
	c->n = m->ninst - c->first;
	return 0;
}

/* Size the arrays from the wire, so that none is grown. */
static void
presize(struct ld *L, const uint8_t *data, size_t len, int wrapped)
{
	struct mods it = { data, len, wrapped, 0 };
	struct pbwire_field f, g;
	const uint8_t *p, *q;
	size_t n, k, ncomp = 0, ninst = 0;

	while (next_mod(&it, &p, &n))
		while (pbwire_next(&p, &n, &f) > 0) {
			if (!pbwire_is_msg(&f, F_COMPUTATIONS))
				continue;
			ncomp++;
			for (q = f.val, k = f.len; pbwire_next(&q, &k, &g) > 0;)
				ninst += pbwire_is_msg(&g, F_INSTRUCTIONS);
		}
	L->m->comp = mem_calloc(L->compcap = ncomp, sizeof(*L->m->comp));
	L->m->inst = mem_calloc(L->instcap = ninst, sizeof(*L->m->inst));
	L->f = mem_calloc(L->factcap = ninst, sizeof(*L->f));
	L->m->cf = mem_calloc(L->cfcap = ninst, sizeof(*L->m->cf));
	L->opat = mem_calloc(ninst + 1, sizeof(*L->opat));
}

/*
 * The reference decodes the whole dump (HloProto, or a bare
 * HloModuleProto); pb_check and protobuf-c see every byte of it here too,
 * only in pieces: the module's fields without its computations, then
 * each computation's without its instructions, then each instruction.
 * The wire only says where the pieces are: a repeated message field is
 * the sequence of its occurrences, each a message on its own.
 */
static int
decode(struct ld *L, const uint8_t *data, size_t len)
{
	int wrapped = pbwire_is_hloproto(data, len);
	struct mods it = { data, len, wrapped, 0 };
	struct pbwire_field f;
	const uint8_t *p;
	size_t n;

	if (!wrapped && len == 0)
		return err_fail("no HLO module in protobuf");
	if (pb_check(wrapped ? &xla__hlo_proto__descriptor :
	    &xla__hlo_module_proto__descriptor, data, len) < 0)
		return -1;
	if (wrapped && pbc_check(data, len) < 0)
		return -1;
	while (next_mod(&it, &p, &n))
		if (pbc_check(p, n) < 0)
			return -1;
	if (load_header(L, data, len, wrapped) < 0)
		return -1;
	presize(L, data, len, wrapped);
	it = (struct mods){ data, len, wrapped, 0 };
	while (next_mod(&it, &p, &n))
		while (pbwire_next(&p, &n, &f) > 0)
			if (pbwire_is_msg(&f, F_COMPUTATIONS) &&
			    load_comp(L, f.val, f.len) < 0)
				return -1;
	return 0;
}

/* ---- lookup tables ---- */

static const struct inst *
find_name(const struct hlo_module *m, const char *name)
{
	struct u64map_it it;
	size_t k;

	for (k = u64map_first(&m->byname, hash_name(name), &it);
	    k != U64MAP_NONE; k = u64map_next(&m->byname, &it))
		if (strcmp(m->inst[k].pub.name, name) == 0)
			return &m->inst[k];
	return NULL;
}

/* Insert instruction I by name and by id; -1 if either is taken. */
static int
hash_add(struct ld *L, size_t i)
{
	struct hlo_module *m = L->m;
	const char *name = m->inst[i].pub.name;
	int64_t id = L->f[i].id;

	if (find_name(m, name) != NULL)
		return err_fail("duplicate HLO instruction name %s", name);
	u64map_add(&m->byname, hash_name(name), i);
	if (u64map_get(&m->byid, (uint64_t)id) != U64MAP_NONE)
		return err_fail("duplicate HLO instruction id %" PRId64, id);
	u64map_add(&m->byid, (uint64_t)id, i);
	return 0;
}

/* The instruction with id ID, or NONE. */
static size_t
find_id(const struct ld *L, int64_t id)
{
	size_t k = u64map_get(&L->m->byid, (uint64_t)id);

	return k == U64MAP_NONE ? NONE : k;
}



/*
 * The reference asserts unique names, instruction ids and computation
 * ids (protobuf.py HloProto.__init__).  Tables are at most 2/3 full.
 */
static int
tables(struct ld *L)
{
	struct hlo_module *m = L->m;
	size_t i;

	u64map_reserve(&m->byname, m->ninst);
	u64map_reserve(&m->byid, m->ninst);
	for (i = 0; i < m->ninst; i++)
		if (hash_add(L, i) < 0)
			return -1;
	qsort(m->comp, m->ncomp, sizeof(*m->comp), comp_cmp);
	for (i = 1; i < m->ncomp; i++)
		if (m->comp[i - 1].id == m->comp[i].id)
			return err_fail("duplicate HLO computation id %" PRId64,
			    m->comp[i].id);
	return 0;
}

/* ---- communication (protobuf.py HloInstruction.__init__) ---- */

/* The name of instruction I. */
static const char *
iname(const struct ld *L, size_t i)
{
	return L->m->inst[i].pub.name;
}

/* Operand K of instruction C into *OP; -1 if it does not exist. */
static int
operand(struct ld *L, size_t c, size_t k, size_t *op, const char **err)
{
	const struct fact *f = &L->f[c];

	if (k >= f->nop) {
		*err = merr(L->m, "%s has no operand %zu", iname(L, c), k);
		return -1;
	}
	if ((*op = find_id(L, L->ops[f->op + k])) == NONE) {
		*err = merr(L->m, "%s: no HLO instruction with id %" PRId64,
		    iname(L, c), L->ops[f->op + k]);
		return -1;
	}
	return 0;
}

/*
 * protobuf.py _is_offloading_instruction: a host<->device copy made by
 * dynamic-slice (result and operand 0 in different memory spaces) or
 * dynamic-update-slice (result and operand 0 in one, operand 1 in the
 * other).  Operands are examined in the reference's order so that the
 * same malformed input fails.
 */
static int
is_offload(struct ld *L, size_t i, const char **err)
{
	const struct fact *f = &L->f[i];
	size_t op;

	if (f->kind != K_DS && f->kind != K_DUS)
		return 0;
	if (operand(L, i, 0, &op, err) < 0)
		return -1;
	if (f->kind == K_DS)
		return f->host != L->f[op].host;
	if (f->host != L->f[op].host)
		return 0;
	if (operand(L, i, 1, &op, err) < 0)
		return -1;
	return f->host != L->f[op].host;
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

static int visit(struct ld *, struct comp *, int, const char **);

/* Add the finds of the computations instruction I calls to *NFOUND /
 * *FOUND. */
static int
visit_called(struct ld *L, size_t i, int depth, int *nfound, size_t *found,
    const char **err)
{
	const struct inst *in = &L->m->inst[i];
	struct comp *c;
	int64_t id;
	size_t j;

	for (j = 0; j < in->ncalled; j++) {
		id = L->m->called[in->called + j];
		if ((c = find_comp(L->m, id)) == NULL) {
			*err = merr(L->m, "%s: no HLO computation with id %"
			    PRId64, in->pub.name, id);
			return -1;
		}
		if (visit(L, c, depth + 1, err) < 0)
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
visit(struct ld *L, struct comp *c, int depth, const char **err)
{
	size_t i;
	int r;

	if (c->state == DONE) {
		*err = c->err;
		return c->err ? -1 : 0;
	}
	if (c->state == VISITING) {
		*err = merr(L->m, "cycle of called HLO computations at %s",
		    c->name);
		return -1;
	}
	if (depth > CALL_MAXDEPTH) {
		*err = merr(L->m, "HLO computations nested too deeply at %s",
		    c->name);
		return -1;
	}
	c->state = VISITING;
	for (i = c->first; i < c->first + c->n; i++) {
		if (visit_called(L, i, depth, &c->nfound, &c->found, err) < 0)
			goto fail;
		/* comm_opcodes only: a *-start inside is not looked for. */
		if (L->f[i].kind == K_COMM)
			r = 1;
		else if ((r = is_offload(L, i, err)) < 0)
			goto fail;
		if (r)
			add_found(&c->nfound, &c->found, 1, i);
	}
	c->state = DONE;
	return 0;
fail:
	c->state = DONE;
	c->err = *err;
	return -1;
}

static void
classify(struct ld *L, size_t i)
{
	struct hlo_inst *in = &L->m->inst[i].pub;
	struct fact *f = &L->f[i];
	const char *err = NULL;
	int nfound = 0;
	size_t found = 0;

	in->comm = 0;
	if (f->kind == K_COMM || f->kind == K_COMM_START) {
		in->comm = 1;
		in->comm_name = in->name;
		f->comm_i = i;
		return;
	}
	if (f->kind != K_WRAPPER)
		return;
	if (visit_called(L, i, 0, &nfound, &found, &err) < 0) {
		in->comm = -1;
		in->err = err;
	} else if (nfound > 1) {
		in->comm = -1;
		in->err = merr(L->m, "%s: more than one communication "
		    "instruction inside (first %s)", in->name, iname(L, found));
	} else if (nfound == 1) {
		in->comm = 1;
		in->comm_name = iname(L, found);
		f->comm_i = found;
	}
}

/* ---- message size (analysis.py _get_message_size) ---- */

/* _byte_size of instruction I's shape, as taken by shape_size. */
static int
byte_size(struct ld *L, size_t i, int64_t *bytes, const char **err)
{
	const struct fact *f = &L->f[i];

	switch (f->size_err) {
	case SZ_TYPE:
		*err = merr(L->m, "%s: cannot size an operand of type %s",
		    iname(L, i), hlo_type_name(f->type));
		return -1;
	case SZ_NEGATIVE:
		*err = merr(L->m, "%s: negative dimension", iname(L, i));
		return -1;
	case SZ_OVERFLOW:
		*err = merr(L->m, "%s: size overflows", iname(L, i));
		return -1;
	case SZ_FRACTION:
		*err = merr(L->m, "%s: size is not a whole number of bytes",
		    iname(L, i));
		return -1;
	}
	*bytes = f->bytes;
	return 0;
}

/* Host offloading: a 1-device "collective" of the transferred bytes. */
static int
offload_size(struct ld *L, struct hlo_inst *out, size_t c, const char **err)
{
	int dus = L->f[c].kind == K_DUS;
	size_t src;

	if (operand(L, c, dus ? 1 : 0, &src, err) < 0)
		return -1;
	if (byte_size(L, dus ? src : c, &out->message_size, err) < 0)
		return -1;
	out->collective = L->f[c].host ? "device-to-host" : "host-to-device";
	out->collective_size = 1;
	return 0;
}

static int
message_size(struct ld *L, struct hlo_inst *out, size_t c, const char **err)
{
	const struct fact *f = &L->f[c];
	const char *opc = L->m->inst[c].pub.opcode;
	int64_t n, b, total = 0;
	size_t i, op;

	if (f->kind == K_DS || f->kind == K_DUS)
		return offload_size(L, out, c, err);
	if (hlo_is_permute(opc))
		n = 2;
	else if (f->group_err) {
		*err = f->group_err;
		return -1;
	} else
		n = f->group;
	for (i = 0; i < f->nop; i++) {
		if (operand(L, c, i, &op, err) < 0 ||
		    byte_size(L, op, &b, err) < 0)
			return -1;
		if (strcmp(opc, "reduce-scatter") == 0) {
			if (b % n != 0) {
				*err = merr(L->m, "%s: operand size %" PRId64
				    " not divisible by %" PRId64, iname(L, c),
				    b, n);
				return -1;
			}
			b /= n;
		}
		if (b > INT64_MAX - total) {
			*err = merr(L->m, "%s: size overflows", iname(L, c));
			return -1;
		}
		total += b;
	}
	out->collective = hlo_collective_name(opc);
	out->message_size = total;
	out->collective_size = n;
	return 0;
}

static void
measure(struct ld *L, size_t i)
{
	struct hlo_inst *in = &L->m->inst[i].pub;
	const char *err = NULL;

	if (in->comm != 1)
		return;
	if (message_size(L, in, L->f[i].comm_i, &err) < 0) {
		in->collective = NULL;
		in->err = err;
	}
}

/* ---- public interface ---- */

static void
ld_free(struct ld *L)
{
	arena_release(&L->scratch);
	free(L->f);
	free(L->ops);
	u64map_free(&L->byistr);
	free(L->istr);
	free(L->opid);
	free(L->opat);
}

/* ---- stack frame ids beyond the index ---- */

enum { F_UNSEEN, F_OK, F_BEYOND, F_WALKING };

/*
 * Whether frame K's way up (K itself, its parent, ...) names an id beyond
 * the index, memoised in STATE[0..nframe); the largest such id goes to
 * *MAX.  A cycle counts as no such id (hlo_src reports it).  Every frame
 * is walked once, so the whole count is linear in the frames.
 */
static int
frame_beyond(const struct sfi *x, unsigned char *state, int64_t k,
    int64_t *max)
{
	int64_t j, end;
	int r;

	for (j = k; j > 0 && (uint64_t)j <= x->nframe &&
	    state[j - 1] == F_UNSEEN; j = x->frame[j - 1].parent)
		state[j - 1] = F_WALKING;
	end = j;
	if (j <= 0)
		r = F_OK;
	else if ((uint64_t)j > x->nframe) {
		r = F_BEYOND;
		if (j > *max)
			*max = j;
	} else
		r = state[j - 1] == F_WALKING ? F_OK : state[j - 1];
	for (j = k; j != end; j = x->frame[j - 1].parent)
		state[j - 1] = (unsigned char)r;
	return r == F_BEYOND;
}

/*
 * Count the instructions whose stack names a frame beyond the module's
 * stack_frame_index (hlo_frames_beyond).  XLA itself reads such an id
 * as no frame (xla/hlo/ir/stack_frames.cc, StackFrames::GetStackFrame),
 * and so does hlo_walk() below.
 */
static void
count_beyond(struct hlo_module *m)
{
	unsigned char *state = mem_calloc(m->sfi.nframe + 1, 1);
	size_t i;

	for (i = 0; i < m->ninst; i++)
		if (m->inst[i].frame > 0 && frame_beyond(&m->sfi, state,
		    m->inst[i].frame, &m->maxbeyond))
			m->nbeyond++;
	free(state);
}

struct hlo_module *
hlo_load(const uint8_t *data, size_t len)
{
	struct hlo_module *m = mem_calloc(1, sizeof(*m));
	struct ld L;
	size_t i;
	int rc;

	memset(&L, 0, sizeof(L));
	L.m = m;
	L.scratch.bsize = ARENA_BLOCK;
	m->pool.bsize = ARENA_BLOCK;
	if ((rc = decode(&L, data, len)) == 0)
		rc = tables(&L);
	if (rc == 0) {
		resolve_costs(&L);
		for (i = 0; i < m->ninst; i++)
			classify(&L, i);
		for (i = 0; i < m->ninst; i++)
			measure(&L, i);
		count_beyond(m);
	}
	ld_free(&L);
	if (rc < 0) {
		hlo_free(m);
		return NULL;
	}
	return m;
}

void
hlo_free(struct hlo_module *m)
{
	if (m == NULL)
		return;
	arena_release(&m->pool);
	free(m->inst);
	u64map_free(&m->byname);
	u64map_free(&m->byid);
	free(m->comp);
	free(m->called);
	free(m->sfi.file);
	free(m->sfi.func);
	free(m->sfi.loc);
	free(m->sfi.frame);
	free(m->frame);
	free(m->cf);
	free(m);
}

const char *
hlo_name(const struct hlo_module *m)
{
	return m->name;
}

int64_t
hlo_id(const struct hlo_module *m)
{
	return m->id;
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

size_t
hlo_frames_beyond(const struct hlo_module *m, int64_t *max_id,
    size_t *nframe)
{
	*max_id = m->maxbeyond;
	*nframe = m->sfi.nframe;
	return m->nbeyond;
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

const struct hlo_inst *
hlo_find_id(const struct hlo_module *m, int64_t id)
{
	size_t k = u64map_get(&m->byid, (uint64_t)id);

	if (k == U64MAP_NONE) {
		err_fail("no HLO instruction with id %" PRId64, id);
		return NULL;
	}
	return &m->inst[k].pub;
}

/* ---- cost facts (hlo.h hlo_cost_facts; the rules are hlocost.c's) ---- */


/* N bytes of int64_t copied into the pool. */
static void *
pool_copy(struct hlo_module *m, const void *p, size_t n)
{
	if (n == 0)
		return NULL;
	return memcpy(arena_take(&m->pool, n, sizeof(int64_t)), p, n);
}

static void
keep_shape(struct hlo_module *m, struct hlo_shape *out,
    const Xla__ShapeProto *s)
{
	struct hlo_shape *t;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->bits = -1;
	if (s == NULL)
		return;
	out->type = (int)s->element_type;
	out->bits = hlo_width_bits(out->type);
	out->ndims = s->n_dimensions;
	out->dims = pool_copy(m, s->dimensions,
	    s->n_dimensions * sizeof(*s->dimensions));
	if (s->n_tuple_shapes == 0)
		return;
	t = arena_take(&m->pool, s->n_tuple_shapes * sizeof(*t),
	    sizeof(max_align_t));
	for (i = 0; i < s->n_tuple_shapes; i++)
		keep_shape(m, &t[i], s->tuple_shapes[i]);
	out->tuple = t;
	out->ntuple = s->n_tuple_shapes;
}

static const struct hlo_dot_dnums *
keep_dot(struct hlo_module *m, const Xla__DotDimensionNumbers *d)
{
	struct hlo_dot_dnums *o;
	size_t n[4] = { d->n_lhs_contracting_dimensions,
	    d->n_rhs_contracting_dimensions, d->n_lhs_batch_dimensions,
	    d->n_rhs_batch_dimensions };
	const int64_t *v[4] = { d->lhs_contracting_dimensions,
	    d->rhs_contracting_dimensions, d->lhs_batch_dimensions,
	    d->rhs_batch_dimensions };
	int k;

	o = arena_take(&m->pool, sizeof(*o), sizeof(max_align_t));
	for (k = 0; k < 4; k++) {
		o->n[k] = n[k];
		o->v[k] = pool_copy(m, v[k], n[k] * sizeof(*v[k]));
	}
	return o;
}

/* The spatial arrays are cut to the shortest of the three, so that a
 * reader may index all three by one bound. */
static const struct hlo_conv_dnums *
keep_conv(struct hlo_module *m, const Xla__ConvolutionDimensionNumbers *d)
{
	struct hlo_conv_dnums *o;
	size_t n = d->n_input_spatial_dimensions;

	if (d->n_kernel_spatial_dimensions < n)
		n = d->n_kernel_spatial_dimensions;
	if (d->n_output_spatial_dimensions < n)
		n = d->n_output_spatial_dimensions;
	o = arena_take(&m->pool, sizeof(*o), sizeof(max_align_t));
	o->input_batch = d->input_batch_dimension;
	o->input_feature = d->input_feature_dimension;
	o->output_feature = d->output_feature_dimension;
	o->nspatial = n;
	o->input_spatial = pool_copy(m, d->input_spatial_dimensions,
	    n * sizeof(int64_t));
	o->kernel_spatial = pool_copy(m, d->kernel_spatial_dimensions,
	    n * sizeof(int64_t));
	o->output_spatial = pool_copy(m, d->output_spatial_dimensions,
	    n * sizeof(int64_t));
	return o;
}

static void
keep_window(struct hlo_module *m, struct hlo_cost_extra *f,
    const Xla__Window *w)
{
	struct hlo_window_dim *o;
	size_t i;

	if (w == NULL || w->n_dimensions == 0)
		return;
	o = arena_take(&m->pool, w->n_dimensions * sizeof(*o),
	    sizeof(max_align_t));
	for (i = 0; i < w->n_dimensions; i++) {
		o[i].size = w->dimensions[i]->size;
		o[i].stride = w->dimensions[i]->stride;
		o[i].pad_low = w->dimensions[i]->padding_low;
		o[i].pad_high = w->dimensions[i]->padding_high;
		o[i].window_dilation = w->dimensions[i]->window_dilation;
		o[i].base_dilation = w->dimensions[i]->base_dilation;
	}
	f->window = o;
	f->nwindow = w->n_dimensions;
}

/* The facts most instructions lack: none when all are zero. */
static const struct hlo_cost_extra no_extra = { .fusion_kind = "",
	.custom_call_target = "" };

static const struct hlo_cost_extra *
keep_extra(struct ld *L, const Xla__HloInstructionProto *p)
{
	struct hlo_module *m = L->m;
	struct hlo_cost_extra *x;
	char *bc;

	if (p->parameter_number == 0 && p->tuple_index == 0 &&
	    p->dot_dimension_numbers == NULL &&
	    p->convolution_dimension_numbers == NULL &&
	    (p->window == NULL || p->window->n_dimensions == 0) &&
	    p->feature_group_count == 0 && p->batch_group_count == 0 &&
	    *str(p->fusion_kind) == '\0' && *str(p->custom_call_target) == '\0')
		return &no_extra;
	x = arena_take(&m->pool, sizeof(*x), sizeof(max_align_t));
	*x = no_extra;
	x->parameter_number = p->parameter_number;
	x->tuple_index = p->tuple_index;
	if (p->dot_dimension_numbers)
		x->dot = keep_dot(m, p->dot_dimension_numbers);
	if (p->convolution_dimension_numbers)
		x->conv = keep_conv(m, p->convolution_dimension_numbers);
	keep_window(m, x, p->window);
	x->feature_group_count = p->feature_group_count;
	x->batch_group_count = p->batch_group_count;
	x->fusion_kind = intern(L, str(p->fusion_kind));
	x->custom_call_target = intern(L, str(p->custom_call_target));
	if (*x->custom_call_target && p->backend_config.len > 0) {
		bc = arena_take(&m->pool, p->backend_config.len + 1, 1);
		memcpy(bc, p->backend_config.data, p->backend_config.len);
		bc[p->backend_config.len] = '\0';
		x->backend_config = bc;
		x->backend_config_len = p->backend_config.len;
	}
	return x;
}

/* What the cost rules read of P, the instruction just added. */
static void
keep_cost(struct ld *L, const Xla__HloInstructionProto *p)
{
	struct hlo_module *m = L->m;
	struct cfact *c;
	struct hlo_cost_facts *f;

	/* Presized: presize() counts the instructions. */
	c = &m->cf[m->ninst - 1];
	f = &c->pub;
	keep_shape(m, &f->shape, p->shape);
	f->noperand = p->n_operand_ids;
	L->opat[m->ninst - 1] = L->nopid;
	if (f->noperand > 0) {
		mem_grow(&L->opid, &L->capopid, L->nopid + f->noperand,
		    sizeof(*L->opid));
		memcpy(L->opid + L->nopid, p->operand_ids,
		    f->noperand * sizeof(*L->opid));
		L->nopid += f->noperand;
	}
	f->ncalled = p->n_called_computation_ids;
	f->x = keep_extra(L, p);
}

/* Operand ids to instruction indices, computation ids to computation
 * indices, and each instruction's computation (after tables()). */
static void
resolve_costs(struct ld *L)
{
	struct hlo_module *m = L->m;
	struct comp *cp;
	size_t i, k, *v;

	for (i = 0; i < m->ncomp; i++) {
		for (k = m->comp[i].first; k < m->comp[i].first + m->comp[i].n;
		    k++)
			m->cf[k].pub.comp = i;
		k = find_id(L, m->comp[i].root_id);
		m->comp[i].root = k >= m->comp[i].first && k < m->comp[i].first +
		    m->comp[i].n ? k : HLO_NONE;
	}
	for (i = 0; i < m->ninst; i++) {
		struct cfact *c = &m->cf[i];
		const struct inst *in = &m->inst[i];

		v = arena_take(&m->pool, (c->pub.noperand + c->pub.ncalled + 1)
		    * sizeof(*v), sizeof(*v));
		for (k = 0; k < c->pub.noperand; k++)
			v[k] = find_id(L, L->opid[L->opat[i] + k]);
		for (k = 0; k < c->pub.ncalled; k++) {
			cp = find_comp(m, m->called[in->called + k]);
			v[c->pub.noperand + k] = cp ? (size_t)(cp - m->comp) :
			    HLO_NONE;
		}
		c->pub.operand = v;
		c->pub.called = v + c->pub.noperand;
	}
}

const struct hlo_cost_facts *
hlo_cost_facts(const struct hlo_module *m, size_t i)
{
	return &m->cf[i].pub;
}

size_t
hlo_index(const struct hlo_module *m, const struct hlo_inst *in)
{
	return (size_t)((const struct inst *)in - m->inst);
}

size_t
hlo_ncomps(const struct hlo_module *m)
{
	return m->ncomp;
}

void
hlo_comp(const struct hlo_module *m, size_t c, struct hlo_comp_info *out)
{
	const struct comp *cp = &m->comp[c];

	out->name = cp->name;
	out->first = cp->first;
	out->n = cp->n;
	out->root = cp->root;
}
