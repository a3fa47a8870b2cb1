/*
 * Tests of lib/hlo: each rule on small HloModuleProto messages built
 * here with the protobuf-c structs, bad input, and, when ../shared/data
 * exists, every (ProgramId, Name) of the reference's golden frames.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/archive.h"
#include "base/err.h"
#include "formats/hlo.h"
#include "hlo.pb-c.h"
#include "unit.h"

/* ---- building messages: every allocation is freed by reset() ---- */

static void **tal_p;
static size_t tal_n, tal_cap;

static void *
tal(size_t n)
{
	void *p = calloc(1, n);

	if (p == NULL)
		abort();
	if (tal_n == tal_cap) {
		tal_cap = tal_cap ? 2 * tal_cap : 64;
		if ((tal_p = realloc(tal_p, tal_cap * sizeof(*tal_p))) == NULL)
			abort();
	}
	return tal_p[tal_n++] = p;
}

static void
reset(void)
{
	while (tal_n > 0)
		free(tal_p[--tal_n]);
}

static int64_t *
ids(size_t n, va_list ap)
{
	int64_t *v = tal(n ? n * sizeof(*v) : 1);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = va_arg(ap, int64_t);
	return v;
}

/* An array shape TYPE[dims...] in memory SPACE; ndims < 0: no dims. */
static Xla__ShapeProto *
shape(int type, int64_t space, size_t nd, ...)
{
	Xla__ShapeProto *s = tal(sizeof(*s));
	va_list ap;

	xla__shape_proto__init(s);
	s->element_type = type;
	va_start(ap, nd);
	s->n_dimensions = nd;
	s->dimensions = ids(nd, ap);
	va_end(ap);
	if (space) {
		s->layout = tal(sizeof(*s->layout));
		xla__layout_proto__init(s->layout);
		s->layout->memory_space = space;
	}
	return s;
}

static Xla__HloInstructionProto *
inst(const char *name, const char *op, int64_t id, Xla__ShapeProto *sh)
{
	Xla__HloInstructionProto *p = tal(sizeof(*p));

	xla__hlo_instruction_proto__init(p);
	p->name = (char *)name;
	p->opcode = (char *)op;
	p->id = id;
	p->shape = sh;
	return p;
}

static void
operands(Xla__HloInstructionProto *p, size_t n, ...)
{
	va_list ap;

	va_start(ap, n);
	p->n_operand_ids = n;
	p->operand_ids = ids(n, ap);
	va_end(ap);
}

static void
calls(Xla__HloInstructionProto *p, size_t n, ...)
{
	va_list ap;

	va_start(ap, n);
	p->n_called_computation_ids = n;
	p->called_computation_ids = ids(n, ap);
	va_end(ap);
}

static Xla__ReplicaGroup **
groups(size_t ng, size_t size)
{
	Xla__ReplicaGroup **g = tal(ng * sizeof(*g));
	size_t i, j;

	for (i = 0; i < ng; i++) {
		g[i] = tal(sizeof(**g));
		xla__replica_group__init(g[i]);
		g[i]->n_replica_ids = size;
		g[i]->replica_ids = tal(size * sizeof(int64_t));
		for (j = 0; j < size; j++)
			g[i]->replica_ids[j] = (int64_t)(i * size + j);
	}
	return g;
}

static void
meta(Xla__HloInstructionProto *p, const char *op_name, int32_t frame,
    const char *sched)
{
	p->metadata = tal(sizeof(*p->metadata));
	xla__op_metadata__init(p->metadata);
	p->metadata->op_name = (char *)op_name;
	p->metadata->stack_frame_id = frame;
	if (sched)
		p->metadata->scheduling_name = (char *)sched;
}

struct mod {
	Xla__HloModuleProto m;
	Xla__HloComputationProto *c[8];
};

static void
mod_init(struct mod *md)
{
	memset(md, 0, sizeof(*md));
	xla__hlo_module_proto__init(&md->m);
	md->m.name = "test";
	md->m.id = 7;
	md->m.computations = md->c;
}

/* Append computation ID holding the N instructions that follow. */
static void
comp(struct mod *md, int64_t id, size_t n, ...)
{
	Xla__HloComputationProto *c = tal(sizeof(*c));
	va_list ap;
	size_t i;

	xla__hlo_computation_proto__init(c);
	c->name = "comp";
	c->id = id;
	c->n_instructions = n;
	c->instructions = tal(n * sizeof(*c->instructions));
	va_start(ap, n);
	for (i = 0; i < n; i++)
		c->instructions[i] = va_arg(ap, Xla__HloInstructionProto *);
	va_end(ap);
	md->c[md->m.n_computations++] = c;
}

/* Pack MD (inside an HloProto when WRAP) and load it. */
static struct hlo_module *
load(struct mod *md, int wrap)
{
	Xla__HloProto w = XLA__HLO_PROTO__INIT;
	struct hlo_module *m;
	uint8_t *buf;
	size_t len;

	w.hlo_module = &md->m;
	len = wrap ? xla__hlo_proto__get_packed_size(&w) :
	    xla__hlo_module_proto__get_packed_size(&md->m);
	buf = malloc(len ? len : 1);
	if (wrap)
		xla__hlo_proto__pack(&w, buf);
	else
		xla__hlo_module_proto__pack(&md->m, buf);
	m = hlo_load(buf, len);
	free(buf);
	return m;
}

static const struct hlo_inst *
get(struct hlo_module *m, const char *name)
{
	const struct hlo_inst *in = m ? hlo_find(m, name) : NULL;

	CHECK(in != NULL);
	return in;
}

/* Instruction NAME is communication with these facts. */
static void
facts(struct hlo_module *m, const char *name, const char *via,
    const char *coll, long long bytes, long long n)
{
	const struct hlo_inst *in = get(m, name);

	if (in == NULL)
		return;
	CHECK_INT(in->comm, 1);
	CHECK_STR(in->comm_name, via);
	CHECK_STR(in->collective, coll);
	CHECK_INT(in->message_size, bytes);
	CHECK_INT(in->collective_size, n);
	CHECK(in->err == NULL);
}

/* Instruction NAME is communication whose size fails with WHY. */
static void
size_fails(struct hlo_module *m, const char *name, const char *why)
{
	const struct hlo_inst *in = get(m, name);

	if (in == NULL)
		return;
	CHECK_INT(in->comm, 1);
	CHECK(in->collective == NULL);
	CHECK(in->err && strstr(in->err, why));
	if (in->err == NULL || !strstr(in->err, why))
		fprintf(stderr, "  %s: err %s, want %s\n", name,
		    in->err ? in->err : "(none)", why);
}

/* ---- one collective over one operand, with a choice of groups ---- */

enum enc { E_V1, E_LIST, E_IOTA_LIST, E_IOTA, E_MESH };

static struct hlo_module *
one(const char *op, int type, int64_t d0, enum enc e, size_t ng, size_t gs)
{
	static struct mod md;
	Xla__HloInstructionProto *a, *c;
	Xla__CollectiveDeviceListProto *dl;
	Xla__IotaReplicaGroupListProto *io;

	mod_init(&md);
	a = inst("p", "parameter", 1, shape(type, 0, 1, d0));
	c = inst("c", op, 2, shape(type, 0, 1, d0));
	operands(c, 1, (int64_t)1);
	io = tal(sizeof(*io));
	xla__iota_replica_group_list_proto__init(io);
	io->num_replica_groups = (int64_t)ng;
	io->num_devices_per_group = (int64_t)gs;
	dl = tal(sizeof(*dl));
	xla__collective_device_list_proto__init(dl);
	switch (e) {
	case E_V1:
		c->n_replica_groups = ng;
		c->replica_groups = groups(ng, gs);
		break;
	case E_LIST:
		dl->n_replica_groups = ng;
		dl->replica_groups = groups(ng, gs);
		c->collective_device_list = dl;
		break;
	case E_IOTA_LIST:
		dl->iota_replica_group_list = io;
		c->collective_device_list = dl;
		break;
	case E_IOTA:
		c->iota_collective_device_list = io;
		break;
	case E_MESH:
		break;
	}
	comp(&md, 1, 2, a, c);
	return load(&md, 1);
}

static void
encodings(void)
{
	struct hlo_module *m;

	m = one("all-reduce", XLA__PRIMITIVE_TYPE__F32, 8, E_V1, 2, 4);
	facts(m, "c", "c", "all-reduce", 32, 4);
	hlo_free(m);
	reset();
	m = one("all-gather", XLA__PRIMITIVE_TYPE__BF16, 8, E_LIST, 4, 2);
	facts(m, "c", "c", "all-gather", 16, 2);
	hlo_free(m);
	reset();
	m = one("all-to-all", XLA__PRIMITIVE_TYPE__S8, 8, E_IOTA_LIST, 1, 8);
	facts(m, "c", "c", "all-to-all", 8, 8);
	hlo_free(m);
	reset();
	m = one("collective-broadcast", XLA__PRIMITIVE_TYPE__U16, 3, E_IOTA,
	    2, 3);
	facts(m, "c", "c", "collective-broadcast", 6, 3);
	hlo_free(m);
	reset();
	/* No encoding at all: the reference cannot size it either. */
	m = one("all-reduce", XLA__PRIMITIVE_TYPE__F32, 8, E_MESH, 0, 0);
	size_fails(m, "c", "cannot extract collective size");
	hlo_free(m);
	reset();
}

/* Groups of different sizes: the reference asserts. */
static void
heterogeneous(void)
{
	struct mod md;
	Xla__HloInstructionProto *a, *c;
	Xla__ReplicaGroup **g;
	struct hlo_module *m;

	mod_init(&md);
	a = inst("p", "parameter", 1, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)4));
	c = inst("c", "all-reduce-start", 2, shape(XLA__PRIMITIVE_TYPE__F32,
	    0, 1, (int64_t)4));
	operands(c, 1, (int64_t)1);
	g = groups(2, 2);
	g[1]->n_replica_ids = 1;
	c->n_replica_groups = 2;
	c->replica_groups = g;
	comp(&md, 1, 2, a, c);
	m = load(&md, 1);
	size_fails(m, "c", "different sizes");
	hlo_free(m);
	reset();
}

/* Mesh axes {a=2, b=4}: groups over the listed axes. */
static void
mesh_case(size_t nax, const int64_t *axes, int sub, long long want,
    const char *why)
{
	struct mod md;
	Xla__HloInstructionProto *a, *c;
	Xla__MeshAxesReplicaGroupListProto *ma = tal(sizeof(*ma));
	Xla__MeshProto *mesh = tal(sizeof(*mesh));
	Xla__MeshProto__MeshAxis **ma_axes = tal(2 * sizeof(*ma_axes));
	int64_t sizes[2] = { 2, 4 };
	struct hlo_module *m;
	size_t i;

	xla__mesh_axes_replica_group_list_proto__init(ma);
	xla__mesh_proto__init(mesh);
	for (i = 0; i < 2; i++) {
		ma_axes[i] = tal(sizeof(**ma_axes));
		xla__mesh_proto__mesh_axis__init(ma_axes[i]);
		ma_axes[i]->name = i ? "b" : "a";
		ma_axes[i]->size = sizes[i];
	}
	mesh->n_axes = 2;
	mesh->axes = ma_axes;
	ma->mesh = mesh;
	ma->n_axes = nax;
	ma->axes = tal((nax ? nax : 1) * sizeof(*ma->axes));
	for (i = 0; i < nax; i++) {
		ma->axes[i] = tal(sizeof(**ma->axes));
		xla__axis_ref_proto__init(ma->axes[i]);
		ma->axes[i]->mesh_axis_index = axes[i];
		if (sub) {
			ma->axes[i]->sub_axis_info = tal(sizeof(
			    *ma->axes[i]->sub_axis_info));
			xla__axis_ref_proto__sub_axis__init(
			    ma->axes[i]->sub_axis_info);
			ma->axes[i]->sub_axis_info->pre_size = 1;
			ma->axes[i]->sub_axis_info->size = 2;
		}
	}
	mod_init(&md);
	a = inst("p", "parameter", 1, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)16));
	c = inst("c", "reduce-scatter", 2, shape(XLA__PRIMITIVE_TYPE__F32, 0,
	    1, (int64_t)2));
	operands(c, 1, (int64_t)1);
	c->mesh_axes_replica_group_list = ma;
	comp(&md, 1, 2, a, c);
	m = load(&md, 1);
	if (why)
		size_fails(m, "c", why);
	else
		facts(m, "c", "c", "reduce-scatter", 64 / want, want);
	hlo_free(m);
	reset();
}

static void
mesh(void)
{
	int64_t b[] = { 1 }, ab[] = { 0, 1 }, bad[] = { 2 };

	mesh_case(1, b, 0, 4, NULL);
	mesh_case(2, ab, 0, 8, NULL);
	mesh_case(1, b, 1, 0, "sub-axes");
	mesh_case(1, bad, 0, 0, "out of range");
	mesh_case(0, b, 0, 0, "cannot extract");
}

/* reduce-scatter divides each operand by n; collective-permute has n 2. */
static void
division(void)
{
	struct mod md;
	Xla__HloInstructionProto *a, *b, *c, *rs, *bad, *cp, *cps;
	struct hlo_module *m;

	mod_init(&md);
	a = inst("a", "parameter", 1, shape(XLA__PRIMITIVE_TYPE__BF16, 0, 2,
	    (int64_t)8, (int64_t)4));
	b = inst("b", "parameter", 2, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)6));
	rs = inst("rs", "reduce-scatter", 3, NULL);
	operands(rs, 2, (int64_t)1, (int64_t)1);
	rs->n_replica_groups = 1;
	rs->replica_groups = groups(1, 4);
	c = inst("c", "parameter", 7, shape(XLA__PRIMITIVE_TYPE__S8, 0, 1,
	    (int64_t)6));
	bad = inst("bad", "reduce-scatter", 4, NULL);
	operands(bad, 1, (int64_t)7);
	bad->n_replica_groups = 1;
	bad->replica_groups = groups(1, 4);
	cp = inst("cp", "collective-permute", 5, NULL);
	operands(cp, 1, (int64_t)2);
	cp->n_replica_groups = 1;
	cp->replica_groups = groups(1, 8);
	cps = inst("cps", "collective-permute-start", 6, NULL);
	operands(cps, 1, (int64_t)1);
	comp(&md, 1, 7, a, b, c, rs, bad, cp, cps);
	m = load(&md, 1);
	facts(m, "rs", "rs", "reduce-scatter", 2 * 64 / 4, 4);
	size_fails(m, "bad", "not divisible");
	facts(m, "cp", "cp", "collective-permute", 24, 2);
	facts(m, "cps", "cps", "collective-permute", 64, 2);
	hlo_free(m);
	reset();
}

/* Element widths (analysis.py element_type_width). */
static void
widths(void)
{
	static const struct {
		int type;
		int64_t n;
		long long bytes;	/* -1: the size must fail */
	} t[] = {
		{ XLA__PRIMITIVE_TYPE__PRED, 3, 3 },
		{ XLA__PRIMITIVE_TYPE__F8E4M3FN, 5, 5 },
		{ XLA__PRIMITIVE_TYPE__F8E5M2, 5, 5 },
		{ XLA__PRIMITIVE_TYPE__F8E8M0FNU, 2, 2 },
		{ XLA__PRIMITIVE_TYPE__S4, 4, 2 },
		{ XLA__PRIMITIVE_TYPE__S4, 3, -1 },
		{ XLA__PRIMITIVE_TYPE__U1, 16, 2 },
		{ XLA__PRIMITIVE_TYPE__F4E2M1FN, 2, 1 },
		{ XLA__PRIMITIVE_TYPE__BF16, 3, 6 },
		{ XLA__PRIMITIVE_TYPE__F16, 3, 6 },
		{ XLA__PRIMITIVE_TYPE__S64, 3, 24 },
		{ XLA__PRIMITIVE_TYPE__C64, 3, 24 },
		{ XLA__PRIMITIVE_TYPE__C128, 3, 48 },
		{ XLA__PRIMITIVE_TYPE__TOKEN, 0, -1 },
		{ XLA__PRIMITIVE_TYPE__PRIMITIVE_TYPE_INVALID, 1, -1 },
		{ 99, 1, -1 },
	};
	struct hlo_module *m;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		m = one("all-reduce", t[i].type, t[i].n, E_V1, 1, 2);
		if (t[i].bytes < 0)
			size_fails(m, "c", "");
		else
			facts(m, "c", "c", "all-reduce", t[i].bytes, 2);
		hlo_free(m);
		reset();
	}
}

/* Several operands add up; a tuple-shaped operand cannot be sized. */
static void
tuples(void)
{
	struct mod md;
	Xla__HloInstructionProto *a, *b, *t, *ag, *bad;
	Xla__ShapeProto *ts;
	struct hlo_module *m;

	mod_init(&md);
	a = inst("a", "parameter", 1, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)4));
	b = inst("b", "parameter", 2, shape(XLA__PRIMITIVE_TYPE__BF16, 0, 2,
	    (int64_t)2, (int64_t)3));
	ts = shape(XLA__PRIMITIVE_TYPE__TUPLE, 0, 0);
	ts->n_tuple_shapes = 2;
	ts->tuple_shapes = tal(2 * sizeof(*ts->tuple_shapes));
	ts->tuple_shapes[0] = a->shape;
	ts->tuple_shapes[1] = b->shape;
	t = inst("t", "tuple", 3, ts);
	operands(t, 2, (int64_t)1, (int64_t)2);
	ag = inst("ag", "all-gather-start", 4, ts);
	operands(ag, 2, (int64_t)1, (int64_t)2);
	ag->n_replica_groups = 1;
	ag->replica_groups = groups(1, 4);
	bad = inst("bad", "all-reduce", 5, ts);
	operands(bad, 1, (int64_t)3);
	bad->n_replica_groups = 1;
	bad->replica_groups = groups(1, 4);
	comp(&md, 1, 5, a, b, t, ag, bad);
	m = load(&md, 0);
	facts(m, "ag", "ag", "all-gather", 16 + 12, 4);
	size_fails(m, "bad", "TUPLE");
	CHECK_INT(get(m, "t")->comm, 0);
	hlo_free(m);
	reset();
}

/*
 * async-start and fusion look inside their called computations,
 * recursively, for comm_opcodes (not *-start) and offloading.
 */
static void
wrappers(void)
{
	struct mod md;
	Xla__HloInstructionProto *p1, *ag, *p2, *nf, *p3, *rs, *p4, *ar1, *ar2,
	    *p5, *ags, *as, *dn, *fu, *two, *notfound, *other;
	struct hlo_module *m;

	mod_init(&md);
	/* computation 1: an all-gather, as in an async computation */
	p1 = inst("p1", "parameter", 10, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)4));
	ag = inst("ag", "all-gather", 11, NULL);
	operands(ag, 1, (int64_t)10);
	ag->n_replica_groups = 1;
	ag->replica_groups = groups(1, 2);
	comp(&md, 1, 2, p1, ag);
	/* computation 3: a reduce-scatter; computation 2 calls it */
	p3 = inst("p3", "parameter", 30, shape(XLA__PRIMITIVE_TYPE__S32, 0, 1,
	    (int64_t)8));
	rs = inst("rs", "reduce-scatter", 31, NULL);
	operands(rs, 1, (int64_t)30);
	rs->n_replica_groups = 1;
	rs->replica_groups = groups(1, 2);
	comp(&md, 3, 2, p3, rs);
	p2 = inst("p2", "parameter", 20, NULL);
	nf = inst("nf", "fusion", 21, NULL);
	calls(nf, 1, (int64_t)3);
	comp(&md, 2, 2, p2, nf);
	/* computation 4: two all-reduces */
	p4 = inst("p4", "parameter", 40, shape(XLA__PRIMITIVE_TYPE__F32, 0, 0));
	ar1 = inst("ar1", "all-reduce", 41, NULL);
	ar2 = inst("ar2", "all-reduce", 42, NULL);
	comp(&md, 4, 3, p4, ar1, ar2);
	/* computation 5: an all-gather-start, which is not looked for */
	p5 = inst("p5", "parameter", 50, NULL);
	ags = inst("ags", "all-gather-start", 51, NULL);
	operands(ags, 1, (int64_t)50);
	comp(&md, 5, 2, p5, ags);
	as = inst("as", "async-start", 100, NULL);
	calls(as, 1, (int64_t)1);
	dn = inst("dn", "all-gather-done", 101, NULL);
	operands(dn, 1, (int64_t)100);
	fu = inst("fu", "fusion", 102, NULL);
	calls(fu, 1, (int64_t)2);
	two = inst("two", "fusion", 103, NULL);
	calls(two, 1, (int64_t)4);
	notfound = inst("nostart", "fusion", 104, NULL);
	calls(notfound, 1, (int64_t)5);
	other = inst("while", "while", 105, NULL);
	calls(other, 1, (int64_t)1);
	comp(&md, 6, 6, as, dn, fu, two, notfound, other);
	m = load(&md, 1);
	facts(m, "as", "ag", "all-gather", 16, 2);
	facts(m, "fu", "rs", "reduce-scatter", 16, 2);
	facts(m, "nf", "rs", "reduce-scatter", 16, 2);
	CHECK_INT(get(m, "dn")->comm, 0);
	CHECK_INT(get(m, "two")->comm, -1);
	CHECK(get(m, "two")->err && strstr(get(m, "two")->err, "ar1"));
	CHECK_INT(get(m, "nostart")->comm, 0);
	CHECK_INT(get(m, "while")->comm, 0);
	size_fails(m, "ags", "cannot extract collective size");
	hlo_free(m);
	reset();
}

/* A wrapper calling the same computation twice finds two collectives. */
static void
twice(void)
{
	struct mod md;
	Xla__HloInstructionProto *p, *ar, *f, *g;
	struct hlo_module *m;

	mod_init(&md);
	p = inst("p", "parameter", 1, NULL);
	ar = inst("ar", "all-reduce", 2, NULL);
	comp(&md, 1, 2, p, ar);
	f = inst("f", "fusion", 3, NULL);
	calls(f, 2, (int64_t)1, (int64_t)1);
	g = inst("g", "fusion", 4, NULL);
	calls(g, 1, (int64_t)9);
	comp(&md, 2, 2, f, g);
	m = load(&md, 1);
	CHECK_INT(get(m, "f")->comm, -1);
	CHECK_INT(get(m, "g")->comm, -1);
	CHECK(get(m, "g")->err && strstr(get(m, "g")->err, "no HLO "
	    "computation with id 9"));
	hlo_free(m);
	reset();
}

/* Called computations that call each other: an error, not a hang. */
static void
call_cycle(void)
{
	struct mod md;
	Xla__HloInstructionProto *a, *b, *top;
	struct hlo_module *m;

	mod_init(&md);
	a = inst("a", "fusion", 1, NULL);
	calls(a, 1, (int64_t)2);
	comp(&md, 1, 1, a);
	b = inst("b", "call", 2, NULL);
	calls(b, 1, (int64_t)1);
	comp(&md, 2, 1, b);
	top = inst("top", "async-start", 3, NULL);
	calls(top, 1, (int64_t)1);
	comp(&md, 3, 1, top);
	m = load(&md, 1);
	CHECK(m != NULL);
	CHECK_INT(get(m, "a")->comm, -1);
	CHECK_INT(get(m, "top")->comm, -1);
	CHECK(get(m, "top")->err && strstr(get(m, "top")->err, "cycle"));
	CHECK_INT(get(m, "b")->comm, 0);
	hlo_free(m);
	reset();
}

/*
 * Host offloading: memory space 5 is host.  Device-to-host is a
 * dynamic-update-slice into a host buffer (size of operand 1);
 * host-to-device a dynamic-slice of one (size of the result).
 */
static void
offload(void)
{
	struct mod md;
	Xla__HloInstructionProto *hb, *up, *ix, *dus, *hb2, *ix2, *ds, *db,
	    *up3, *dus3, *lone, *hb4, *bad, *d2h, *h2d, *no, *top, *broken;
	struct hlo_module *m;

	mod_init(&md);
	/* 1: device-to-host */
	hb = inst("hb", "parameter", 10, shape(XLA__PRIMITIVE_TYPE__BF16, 5,
	    2, (int64_t)8, (int64_t)128));
	up = inst("up", "parameter", 11, shape(XLA__PRIMITIVE_TYPE__BF16, 0,
	    2, (int64_t)1, (int64_t)128));
	ix = inst("ix", "parameter", 12, shape(XLA__PRIMITIVE_TYPE__S32, 0, 0));
	dus = inst("dus", "dynamic-update-slice", 13,
	    shape(XLA__PRIMITIVE_TYPE__BF16, 5, 2, (int64_t)8, (int64_t)128));
	operands(dus, 4, (int64_t)10, (int64_t)11, (int64_t)12, (int64_t)12);
	comp(&md, 1, 4, hb, up, ix, dus);
	/* 2: host-to-device */
	hb2 = inst("hb2", "parameter", 20, shape(XLA__PRIMITIVE_TYPE__F32, 5,
	    2, (int64_t)8, (int64_t)16));
	ix2 = inst("ix2", "parameter", 21, shape(XLA__PRIMITIVE_TYPE__S32, 0,
	    0));
	ds = inst("ds", "dynamic-slice", 22, shape(XLA__PRIMITIVE_TYPE__F32, 0,
	    2, (int64_t)1, (int64_t)16));
	operands(ds, 3, (int64_t)20, (int64_t)21, (int64_t)21);
	comp(&md, 2, 3, hb2, ix2, ds);
	/* 3: an update on the device: not a transfer */
	db = inst("db", "parameter", 30, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)8));
	up3 = inst("up3", "parameter", 31, shape(XLA__PRIMITIVE_TYPE__F32, 0,
	    1, (int64_t)1));
	dus3 = inst("dus3", "dynamic-update-slice", 32,
	    shape(XLA__PRIMITIVE_TYPE__F32, 5, 1, (int64_t)8));
	operands(dus3, 2, (int64_t)30, (int64_t)31);
	comp(&md, 3, 3, db, up3, dus3);
	/* 4: a dynamic-slice without operands */
	hb4 = inst("hb4", "parameter", 40, NULL);
	bad = inst("bad", "dynamic-slice", 41, shape(XLA__PRIMITIVE_TYPE__F32,
	    5, 0));
	comp(&md, 4, 2, hb4, bad);
	d2h = inst("d2h", "fusion", 100, shape(XLA__PRIMITIVE_TYPE__BF16, 5, 2,
	    (int64_t)8, (int64_t)128));
	calls(d2h, 1, (int64_t)1);
	h2d = inst("h2d", "fusion", 101, NULL);
	calls(h2d, 1, (int64_t)2);
	no = inst("no", "fusion", 102, NULL);
	calls(no, 1, (int64_t)3);
	top = inst("top", "async-start", 103, NULL);
	calls(top, 1, (int64_t)1);
	lone = inst("lone", "dynamic-slice", 104,
	    shape(XLA__PRIMITIVE_TYPE__F32, 0, 2, (int64_t)1, (int64_t)16));
	operands(lone, 1, (int64_t)20);
	broken = inst("broken", "fusion", 105, NULL);
	calls(broken, 1, (int64_t)4);
	comp(&md, 5, 6, d2h, h2d, no, top, lone, broken);
	m = load(&md, 1);
	facts(m, "d2h", "dus", "device-to-host", 256, 1);
	facts(m, "top", "dus", "device-to-host", 256, 1);
	facts(m, "h2d", "ds", "host-to-device", 64, 1);
	CHECK_INT(get(m, "no")->comm, 0);
	CHECK_INT(get(m, "lone")->comm, 0);
	CHECK_INT(get(m, "dus")->comm, 0);
	CHECK_INT(get(m, "broken")->comm, -1);
	CHECK(get(m, "broken")->err && strstr(get(m, "broken")->err,
	    "no operand 0"));
	hlo_free(m);
	reset();
}

/* ---- stack frames ---- */

struct frames {
	Xla__StackFrameIndexProto x;
	Xla__StackFrameIndexProto__FileLocation loc[5], *locp[5];
	Xla__StackFrameIndexProto__StackFrame fr[7], *frp[7];
	char *files[2], *funcs[3];
};

/*
 * Frames 1 <- 2 <- 3 (3 innermost), 4 a second leaf under 1, 5 a bad
 * file location, 6 a location with no file name, 7 a leaf whose parent
 * (40) is beyond the index, as XLA of 2026 writes.  Locations: 1
 * main.py:10[<module>], 2 lib.py:20:7[f], 3 lib.py:30[g], 4
 * main.py:11:2[g], 5 file 0.
 */
static void
frames_init(struct frames *f)
{
	static const int32_t loc[5][4] = {
		{ 1, 1, 10, 0 }, { 2, 2, 20, 7 }, { 2, 3, 30, 0 },
		{ 1, 3, 11, 2 }, { 0, 1, 5, 0 },
	};
	static const int32_t fr[7][2] = {
		{ 1, 0 }, { 2, 1 }, { 3, 2 }, { 4, 1 }, { 9, 0 }, { 5, 1 },
		{ 4, 40 },
	};
	int i;

	xla__stack_frame_index_proto__init(&f->x);
	f->files[0] = "main.py";
	f->files[1] = "lib.py";
	f->funcs[0] = "<module>";
	f->funcs[1] = "f";
	f->funcs[2] = "g";
	f->x.n_file_names = 2;
	f->x.file_names = f->files;
	f->x.n_function_names = 3;
	f->x.function_names = f->funcs;
	for (i = 0; i < 5; i++) {
		xla__stack_frame_index_proto__file_location__init(&f->loc[i]);
		f->loc[i].file_name_id = loc[i][0];
		f->loc[i].function_name_id = loc[i][1];
		f->loc[i].line = loc[i][2];
		f->loc[i].column = loc[i][3];
		f->locp[i] = &f->loc[i];
	}
	f->x.n_file_locations = 5;
	f->x.file_locations = f->locp;
	for (i = 0; i < 7; i++) {
		xla__stack_frame_index_proto__stack_frame__init(&f->fr[i]);
		f->fr[i].file_location_id = fr[i][0];
		f->fr[i].parent_frame_id = fr[i][1];
		f->frp[i] = &f->fr[i];
	}
	f->x.n_stack_frames = 7;
	f->x.stack_frames = f->frp;
}

static void
stack_is(const struct hlo_stack *s, size_t n, ...)
{
	va_list ap;
	size_t i;

	CHECK_INT(s->nframe, n);
	va_start(ap, n);
	for (i = 0; i < n && i < s->nframe; i++)
		CHECK_STR(s->frame[i], va_arg(ap, const char *));
	va_end(ap);
}

static void
stacks(void)
{
	struct mod md;
	struct frames fx;
	Xla__HloInstructionProto *a, *b, *c, *d, *n1, *n2, *f, *e, *g, *bad,
	    *oob, *neg, *noname, *cut;
	struct hlo_module *m;
	struct hlo_src s;
	int64_t maxid;
	size_t nframe;

	mod_init(&md);
	frames_init(&fx);
	md.m.stack_frame_index = &fx.x;
	a = inst("a", "parameter", 1, NULL);
	meta(a, "jit(f)/x", 3, NULL);
	b = inst("b", "add", 2, NULL);
	meta(b, "jit(f)/add", 3, NULL);
	c = inst("c", "multiply", 3, NULL);
	meta(c, "jit(f)/x", 3, NULL);
	d = inst("d", "negate", 4, NULL);
	meta(d, "", 4, NULL);
	comp(&md, 1, 4, a, b, c, d);
	n1 = inst("n1", "exp", 5, NULL);
	meta(n1, "deep", 2, NULL);
	comp(&md, 2, 1, n1);
	n2 = inst("n2", "fusion", 6, NULL);
	calls(n2, 1, (int64_t)2);
	meta(n2, "only/op", 0, NULL);
	comp(&md, 3, 1, n2);
	f = inst("f", "fusion", 10, NULL);
	meta(f, "jit(f)/x", 3, "f.sched");
	calls(f, 2, (int64_t)1, (int64_t)3);
	e = inst("e", "copy", 11, NULL);
	g = inst("g", "copy", 12, NULL);
	meta(g, "", -3, NULL);
	bad = inst("bad", "copy", 13, NULL);
	meta(bad, "", 5, NULL);
	oob = inst("oob", "copy", 14, NULL);
	meta(oob, "", 8, NULL);
	neg = inst("neg", "fusion", 15, NULL);
	calls(neg, 1, (int64_t)3);
	noname = inst("noname", "copy", 16, NULL);
	meta(noname, "x", 6, NULL);
	cut = inst("cut", "copy", 17, NULL);
	meta(cut, "cut/op", 7, NULL);
	comp(&md, 4, 8, f, e, g, bad, oob, neg, noname, cut);
	m = load(&md, 1);
	/* oob names frame 8 of 7, cut's frame 7 names parent 40. */
	CHECK_INT(hlo_frames_beyond(m, &maxid, &nframe), 2);
	CHECK_INT(maxid, 40);
	CHECK_INT(nframe, 7);
	CHECK_STR(get(m, "f")->scheduling_name, "f.sched");
	CHECK_STR(get(m, "f")->op_name, "jit(f)/x");
	CHECK_STR(get(m, "e")->op_name, "");
	CHECK_STR(get(m, "e")->scheduling_name, "");
	/* f, a and c share a stack; b differs by op_name; d has none. */
	CHECK_INT(hlo_src(m, get(m, "f"), &s), 0);
	CHECK_INT(s.nstack, 3);
	if (s.nstack == 3) {
		stack_is(&s.stack[0], 4, "main.py:10[<module>]",
		    "lib.py:20:7[f]", "lib.py:30[g]", "jit(f)/x");
		stack_is(&s.stack[1], 4, "main.py:10[<module>]",
		    "lib.py:20:7[f]", "lib.py:30[g]", "jit(f)/add");
		stack_is(&s.stack[2], 2, "main.py:10[<module>]",
		    "main.py:11:2[g]");
	}
	hlo_src_free(&s);
	CHECK_INT(hlo_src(m, get(m, "f"), &s), 0);
	/* n2 of computation 3 is seen, n1 below it is not (one level). */
	CHECK_INT(s.nop_name, 3);
	if (s.nop_name == 3) {
		CHECK_STR(s.op_name[0], "jit(f)/x");
		CHECK_STR(s.op_name[1], "jit(f)/add");
		CHECK_STR(s.op_name[2], "only/op");
	}
	hlo_src_free(&s);
	CHECK_INT(hlo_src(m, get(m, "e"), &s), 0);
	CHECK_INT(s.nstack, 0);
	CHECK_INT(s.nop_name, 0);
	hlo_src_free(&s);
	CHECK_INT(hlo_src(m, get(m, "g"), &s), 0);
	CHECK_INT(s.nstack, 0);
	hlo_src_free(&s);
	CHECK_INT(hlo_src(m, get(m, "neg"), &s), 0);
	CHECK_INT(s.nstack, 0);
	CHECK_INT(s.nop_name, 1);
	hlo_src_free(&s);
	CHECK_INT(hlo_src(m, get(m, "bad"), &s), -1);
	CHECK(strstr(err_msg(), "file location out of range") != NULL);
	hlo_src_free(&s);
	/* Beyond the index: no frame (XLA's empty frame), op_name kept. */
	CHECK_INT(hlo_src(m, get(m, "oob"), &s), 0);
	CHECK_INT(s.nstack, 0);
	CHECK_INT(s.nop_name, 0);
	hlo_src_free(&s);
	/* A parent beyond the index: the frames below it. */
	CHECK_INT(hlo_src(m, get(m, "cut"), &s), 0);
	CHECK_INT(s.nstack, 1);
	if (s.nstack == 1)
		stack_is(&s.stack[0], 2, "main.py:11:2[g]", "cut/op");
	CHECK_INT(s.nop_name, 1);
	hlo_src_free(&s);
	CHECK_INT(hlo_src(m, get(m, "noname"), &s), -1);
	CHECK_STR(err_msg(), "stack frame id 6: file or function name out "
	    "of range");
	hlo_src_free(&s);
	hlo_free(m);
	/* Make frame 1 its own grandparent. */
	fx.fr[0].parent_frame_id = 3;
	m = load(&md, 1);
	CHECK_INT(hlo_frames_beyond(m, &maxid, &nframe), 2);
	CHECK_INT(hlo_src(m, get(m, "b"), &s), -1);
	CHECK(strstr(err_msg(), "cycle in stack frames") != NULL);
	hlo_src_free(&s);
	CHECK_INT(hlo_src(m, get(m, "e"), &s), 0);
	hlo_src_free(&s);
	hlo_free(m);
	reset();
}

/* ---- module-level facts and bad input ---- */

static void
module(void)
{
	struct mod md;
	Xla__FrontendAttributes fa = XLA__FRONTEND_ATTRIBUTES__INIT;
	Xla__FrontendAttributes__MapEntry e[2], *ep[2];
	Xla__HloInstructionProto *a, *b;
	struct hlo_module *m;

	mod_init(&md);
	a = inst("a", "parameter", 1, NULL);
	b = inst("b", "negate", 2, NULL);
	comp(&md, 1, 2, a, b);
	m = load(&md, 1);
	CHECK(m && hlo_program_id(m) == NULL);
	CHECK_STR(hlo_name(m), "test");
	CHECK_INT(hlo_id(m), 7);
	CHECK_INT(hlo_count(m), 2);
	CHECK_STR(hlo_inst(m, 1)->name, "b");
	CHECK(hlo_find(m, "zz") == NULL);
	CHECK_STR(err_msg(), "no HLO instruction zz");
	hlo_free(m);
	xla__frontend_attributes__map_entry__init(&e[0]);
	xla__frontend_attributes__map_entry__init(&e[1]);
	e[0].key = "other";
	e[0].value = "x";
	e[1].key = "fingerprint_before_lhs";
	e[1].value = "abc123";
	ep[0] = &e[0];
	ep[1] = &e[1];
	fa.n_map = 2;
	fa.map = ep;
	md.m.frontend_attributes = &fa;
	m = load(&md, 0);
	CHECK(m != NULL);
	CHECK_STR(hlo_program_id(m), "abc123");
	CHECK_STR(hlo_find(m, "a")->opcode, "parameter");
	hlo_free(m);
	/* Names and ids must be unique (the reference asserts). */
	b->name = "a";
	CHECK(load(&md, 1) == NULL);
	CHECK_STR(err_msg(), "duplicate HLO instruction name a");
	b->name = "b";
	b->id = 1;
	CHECK(load(&md, 1) == NULL);
	CHECK_STR(err_msg(), "duplicate HLO instruction id 1");
	b->id = 2;
	comp(&md, 1, 0);
	CHECK(load(&md, 1) == NULL);
	CHECK_STR(err_msg(), "duplicate HLO computation id 1");
	reset();
}

static void
bad_bytes(const uint8_t *p, size_t n, const char *want)
{
	struct hlo_module *m = hlo_load(p, n);

	CHECK(m == NULL);
	if (m == NULL)
		CHECK_STR(err_msg(), want);
	hlo_free(m);
}

static void
corrupt(void)
{
	static const uint8_t trunc[] = { 0x0a, 0x10, 0x0a, 0x02, 'a' };
	static const uint8_t garbage[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t group[] = { 0x0b, 0x0c };
	/* HloProto{hlo_module{name: 7}}: a string field sent as varint */
	static const uint8_t wiretype[] = { 0x0a, 0x02, 0x08, 0x07 };
	uint8_t *deep;
	size_t n, i, depth = 5000;

	bad_bytes(trunc, sizeof(trunc), "corrupt HLO protobuf");
	bad_bytes(garbage, sizeof(garbage), "corrupt HLO protobuf");
	bad_bytes(group, sizeof(group), "corrupt HLO protobuf");
	bad_bytes(wiretype, sizeof(wiretype), "corrupt HLO protobuf");
	bad_bytes((const uint8_t *)"", 0, "no HLO module in protobuf");
	/*
	 * A module whose one instruction has a shape nested DEPTH deep:
	 * module{3: comp{2: inst{3: shape{4: shape{4: ...}}}}}, written
	 * from the inside out, alone and then after an id (field 5).
	 */
	n = 4 * depth + 64;
	deep = calloc(1, n);
	i = n;
	for (size_t k = 0; k < depth; k++) {
		static const uint8_t outer[] = { 0x1a, 0x12, 0x1a };
		size_t len = n - i;
		uint8_t hdr[12];
		size_t h = 0;

		hdr[h++] = k + 3 >= depth ? outer[depth - 1 - k] : 0x22;
		do {
			hdr[h] = (uint8_t)(len & 0x7f);
			len >>= 7;
			if (len)
				hdr[h] |= 0x80;
			h++;
		} while (len);
		i -= h;
		memcpy(deep + i, hdr, h);
	}
	bad_bytes(deep + i, n - i, "HLO protobuf nested too deeply");
	deep[--i] = 7;
	deep[--i] = 0x28;
	bad_bytes(deep + i, n - i, "HLO protobuf nested too deeply");
	free(deep);
}

/* A bare HloModuleProto (no HloProto wrapper) reads the same. */
static void
bare(void)
{
	struct mod md;
	Xla__HloInstructionProto *a;
	struct hlo_module *m;

	mod_init(&md);
	a = inst("a", "all-reduce-start", 1, shape(XLA__PRIMITIVE_TYPE__F32,
	    0, 1, (int64_t)2));
	operands(a, 1, (int64_t)1);
	a->n_replica_groups = 1;
	a->replica_groups = groups(1, 2);
	comp(&md, 1, 1, a);
	m = load(&md, 0);
	facts(m, "a", "a", "all-reduce", 8, 2);
	hlo_free(m);
	/* Only computations: it looks like an HloProto without a module. */
	md.m.name = "";
	md.m.id = 0;
	m = load(&md, 0);
	facts(m, "a", "a", "all-reduce", 8, 2);
	hlo_free(m);
	reset();
}

/*
 * ---- decoding in pieces ----
 *
 * hlo_load hands protobuf-c the module without its computations, then
 * each computation without its instructions, then each instruction.
 * These inputs are where that could read differently from decoding the
 * whole dump at once.
 */

struct buf {
	uint8_t *p;
	size_t n;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	if ((b->p = realloc(b->p, b->n + n + 1)) == NULL)
		abort();
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* V as a varint padded to K bytes (0: as short as it goes); protobuf-c
 * reads keys and lengths of up to 5. */
static void
put_varint(struct buf *b, uint64_t v, size_t k)
{
	uint8_t c;
	size_t i;

	for (i = 0; k ? i + 1 < k : v >= 0x80; i++, v >>= 7) {
		c = (uint8_t)((v & 0x7f) | 0x80);
		put(b, &c, 1);
	}
	c = (uint8_t)v;
	put(b, &c, 1);
}

/* M packed, without a key. */
static void
put_packed(struct buf *b, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	protobuf_c_message_pack(m, p);
	put(b, p, n);
	free(p);
}

/* Field NUM holding the bytes of S, its key in KL bytes, its length in
 * LL. */
static void
put_field(struct buf *b, unsigned num, size_t kl, const struct buf *s,
    size_t ll)
{
	put_varint(b, num << 3 | 2, kl);
	put_varint(b, s->n, ll);
	put(b, s->p, s->n);
}

/*
 * Module {name, id, computation 1 {p, ar: all-reduce of p}} with the
 * computation's key and length in CK and CL bytes, the instructions' in
 * IK and IL, and the computation's own fields after its instructions.
 */
static struct hlo_module *
padded(size_t ck, size_t cl, size_t ik, size_t il)
{
	Xla__HloComputationProto c = XLA__HLO_COMPUTATION_PROTO__INIT;
	Xla__HloInstructionProto *p, *ar;
	struct buf ib = { NULL, 0 }, cb = { NULL, 0 }, mb = { NULL, 0 };
	struct hlo_module *m;
	struct mod md;

	p = inst("p", "parameter", 1, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)4));
	ar = inst("ar", "all-reduce", 2, NULL);
	operands(ar, 1, (int64_t)1);
	ar->n_replica_groups = 1;
	ar->replica_groups = groups(1, 2);
	put_packed(&ib, &p->base);
	put_field(&cb, 2, ik, &ib, il);
	ib.n = 0;
	put_packed(&ib, &ar->base);
	put_field(&cb, 2, ik, &ib, il);
	c.id = 1;
	c.name = "c";
	put_packed(&cb, &c.base);
	mod_init(&md);
	put_packed(&mb, &md.m.base);
	put_field(&mb, 3, ck, &cb, cl);
	m = hlo_load(mb.p, mb.n);
	free(ib.p);
	free(cb.p);
	free(mb.p);
	return m;
}

/*
 * Keys and lengths at the seams, read as protobuf-c reads them elsewhere:
 * padded up to 5 bytes they are fine, one of them at 6 is corrupt.
 */
static void
seams(void)
{
	static const size_t bad[4][4] = {
		{ 6, 1, 1, 1 }, { 1, 6, 1, 1 }, { 1, 1, 6, 1 }, { 1, 1, 1, 6 },
	};
	struct hlo_module *m;
	size_t i;

	m = padded(1, 1, 1, 1);
	CHECK(m != NULL);
	facts(m, "ar", "ar", "all-reduce", 16, 2);
	CHECK_INT(hlo_count(m), 2);
	CHECK_STR(hlo_inst(m, 0)->name, "p");
	hlo_free(m);
	m = padded(5, 5, 5, 5);
	CHECK(m != NULL);
	facts(m, "ar", "ar", "all-reduce", 16, 2);
	hlo_free(m);
	m = padded(2, 3, 4, 2);
	CHECK(m != NULL);
	facts(m, "ar", "ar", "all-reduce", 16, 2);
	hlo_free(m);
	for (i = 0; i < 4; i++) {
		m = padded(bad[i][0], bad[i][1], bad[i][2], bad[i][3]);
		CHECK(m == NULL);
		if (m == NULL)
			CHECK_STR(err_msg(), "corrupt HLO protobuf");
		hlo_free(m);
	}
	reset();
}

/* Computations and instructions sent with the wrong wire type. */
static void
wire_types(void)
{
	/* module{3: 5} */
	static const uint8_t comp_varint[] = { 0x0a, 0x01, 'm', 0x18, 0x05 };
	/* module{3: comp{2: 5}} */
	static const uint8_t inst_varint[] = { 0x1a, 0x02, 0x10, 0x05 };
	/* HloProto{1: module{3: comp{2: 5}}} */
	static const uint8_t wrapped[] = { 0x0a, 0x04, 0x1a, 0x02, 0x10,
	    0x05 };

	bad_bytes(comp_varint, sizeof(comp_varint), "corrupt HLO protobuf");
	bad_bytes(inst_varint, sizeof(inst_varint), "corrupt HLO protobuf");
	bad_bytes(wrapped, sizeof(wrapped), "corrupt HLO protobuf");
}

/*
 * An HloProto with two hlo_module fields: protobuf-c merges them (the
 * later one's fields win, computations are concatenated), so a module's
 * computations may use the stack frames and attributes of the other.
 */
static void
two_modules(void)
{
	Xla__FrontendAttributes fa = XLA__FRONTEND_ATTRIBUTES__INIT;
	Xla__FrontendAttributes__MapEntry e, *ep = &e;
	Xla__HloInstructionProto *p, *ar, *f;
	struct buf mb = { NULL, 0 }, wb = { NULL, 0 };
	static const uint8_t assignment[] = { 0x1a, 0x02, 0x08, 0x01 };
	struct frames fr;
	struct hlo_module *m;
	struct hlo_src s;
	struct mod a, b;

	mod_init(&a);
	a.m.name = "first";
	frames_init(&fr);
	a.m.stack_frame_index = &fr.x;
	p = inst("p", "parameter", 1, shape(XLA__PRIMITIVE_TYPE__F32, 0, 1,
	    (int64_t)4));
	ar = inst("ar", "all-reduce", 2, NULL);
	operands(ar, 1, (int64_t)1);
	ar->n_replica_groups = 1;
	ar->replica_groups = groups(1, 2);
	comp(&a, 1, 2, p, ar);
	mod_init(&b);
	b.m.name = "";
	b.m.id = 9;
	xla__frontend_attributes__map_entry__init(&e);
	e.key = "fingerprint_before_lhs";
	e.value = "fp";
	fa.n_map = 1;
	fa.map = &ep;
	b.m.frontend_attributes = &fa;
	f = inst("f", "fusion", 3, NULL);
	calls(f, 1, (int64_t)1);
	meta(f, "jit(g)/f", 2, NULL);
	comp(&b, 2, 1, f);
	put_packed(&mb, &a.m.base);
	put_field(&wb, 1, 0, &mb, 0);
	put(&wb, assignment, sizeof(assignment));
	mb.n = 0;
	put_packed(&mb, &b.m.base);
	put_field(&wb, 1, 0, &mb, 0);
	m = hlo_load(wb.p, wb.n);
	CHECK(m != NULL);
	if (m != NULL) {
		CHECK_STR(hlo_name(m), "first");
		CHECK_INT(hlo_id(m), 9);
		CHECK_STR(hlo_program_id(m), "fp");
		CHECK_INT(hlo_count(m), 3);
		CHECK_STR(hlo_inst(m, 2)->name, "f");
		facts(m, "f", "ar", "all-reduce", 16, 2);
		CHECK_INT(hlo_src(m, get(m, "f"), &s), 0);
		CHECK_INT(s.nstack, 1);
		if (s.nstack == 1)
			stack_is(&s.stack[0], 3, "main.py:10[<module>]",
			    "lib.py:20:7[f]", "jit(g)/f");
		hlo_src_free(&s);
	}
	hlo_free(m);
	free(mb.p);
	free(wb.p);
	reset();
}

/* ---- golden data (../shared) ---- */

#define NPROC	4

struct loaded {
	struct hlo_module *m[NPROC * 64];
	size_t n;
};

static int
load_archive(struct loaded *l, const char *path)
{
	struct archive *a;
	uint8_t *d;
	size_t i, len;
	const char *name;

	if ((a = archive_open(path)) == NULL)
		return -1;
	for (i = 0; i < archive_count(a); i++) {
		name = archive_name(a, i);
		if (strncmp(name, "dump/", 5) != 0 || strstr(name,
		    "after_optimizations.hlo.pb.xz") == NULL)
			continue;
		CHECK_INT(archive_read_plain(a, name, &d, &len), 0);
		if (l->n < sizeof(l->m) / sizeof(l->m[0]) &&
		    (l->m[l->n] = hlo_load(d, len)) != NULL) {
			CHECK(hlo_program_id(l->m[l->n]) != NULL);
			l->n++;
		} else
			CHECK(!"load");
		free(d);
	}
	archive_close(a);
	return 0;
}

/* Split LINE at tabs into F (at most NF fields); returns the count. */
static size_t
split(char *line, char **f, size_t nf)
{
	size_t n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < nf) {
		f[n++] = line;
		if ((line = strchr(line, '\t')) == NULL)
			break;
		*line++ = '\0';
	}
	return n;
}

static int
col(char **hdr, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(hdr[i], name) == 0)
			return (int)i;
	fprintf(stderr, "golden: no column %s\n", name);
	unit_fail++;
	return 0;
}

/*
 * Instruction NAME in every module of L with program id PID; *MOD is the
 * last module that has it.  Returns how many have it.
 */
static size_t
lookup(struct loaded *l, const char *pid, const char *name,
    const struct hlo_inst **out, struct hlo_module **mod)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		if (strcmp(hlo_program_id(l->m[i]), pid) == 0 &&
		    (out[n] = hlo_find(l->m[i], name)) != NULL) {
			*mod = l->m[i];
			n++;
		}
	return n;
}

/*
 * Check every row of a golden thunk.tsv (Communication) or
 * communication.tsv (MessageSize, Collective, CollectiveSize) against
 * every dump with the row's ProgramId.
 */
static void
golden_rows(struct loaded *l, const char *path, int comm)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *hdr = NULL, *h[64], *f[64];
	const struct hlo_inst *in[NPROC * 64];
	struct hlo_module *m;
	size_t cap = 0, nh, i, n, rows = 0;
	int pid, name, c1, c2, c3;

	CHECK(fp != NULL);
	if (fp == NULL)
		return;
	if (getline(&hdr, &cap, fp) < 0)
		abort();
	nh = split(hdr, h, 64);
	pid = col(h, nh, "ProgramId");
	name = col(h, nh, "Name");
	c1 = col(h, nh, comm ? "Collective" : "Communication");
	c2 = comm ? col(h, nh, "MessageSize") : 0;
	c3 = comm ? col(h, nh, "CollectiveSize") : 0;
	cap = 0;
	while (getline(&line, &cap, fp) > 0) {
		if (split(line, f, 64) != nh)
			continue;
		if (strcmp(f[pid], "unknown") == 0)
			continue;
		rows++;
		n = lookup(l, f[pid], f[name], in, &m);
		CHECK(n > 0);
		if (n == 0)
			fprintf(stderr, "golden: %s %s not found\n", f[pid],
			    f[name]);
		for (i = 0; i < n; i++) {
			if (!comm) {
				CHECK_INT(in[i]->comm,
				    strcmp(f[c1], "True") == 0);
				continue;
			}
			CHECK_INT(in[i]->comm, 1);
			CHECK_STR(in[i]->collective, f[c1]);
			CHECK_INT(in[i]->message_size, atoll(f[c2]));
			CHECK_INT(in[i]->collective_size, atoll(f[c3]));
		}
	}
	CHECK(rows > 0);
	free(line);
	free(hdr);
	fclose(fp);
}

/* ---- recomputing the reference's two flame graphs for proc0 ---- */

struct fold {
	char *key;
	double v;
};

struct folds {
	struct fold *f;
	size_t n, cap;
};

static void
fold_add(struct folds *fs, const char *key, double v)
{
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 1024;
		if ((fs->f = realloc(fs->f, fs->cap * sizeof(*fs->f))) == NULL)
			abort();
	}
	fs->f[fs->n].key = strdup(key);
	fs->f[fs->n++].v = v;
}

static int
fold_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fold *)a)->key,
	    ((const struct fold *)b)->key);
}

/* Sort and sum equal keys. */
static void
fold_merge(struct folds *fs)
{
	size_t i, j = 0;

	qsort(fs->f, fs->n, sizeof(*fs->f), fold_cmp);
	for (i = 0; i < fs->n; i++) {
		if (j > 0 && strcmp(fs->f[j - 1].key, fs->f[i].key) == 0) {
			fs->f[j - 1].v += fs->f[i].v;
			free(fs->f[i].key);
		} else
			fs->f[j++] = fs->f[i];
	}
	fs->n = j;
}

static void
fold_free(struct folds *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->f[i].key);
	free(fs->f);
}

/* Append S to the growing key *K. */
static void
cat(char **k, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if ((*k = realloc(*k, *len + n + 2)) == NULL)
		abort();
	if (*len)
		(*k)[(*len)++] = ';';
	memcpy(*k + *len, s, n + 1);
	*len += n;
}

/* One thunk of thunk_summary.tsv, as the notebook attributes it. */
static void
attribute(const struct hlo_src *s, double ms, struct folds *src,
    struct folds *opn)
{
	char *k = NULL, *copy, *tok;
	size_t i, j, len;

	for (i = 0; i < s->nstack; i++) {
		len = 0;
		cat(&k, &len, "[GPU active]");
		for (j = 0; j < s->stack[i].nframe; j++)
			cat(&k, &len, s->stack[i].frame[j]);
		fold_add(src, k, ms / (double)s->nstack);
	}
	for (i = 0; i < s->nop_name && s->nstack == 0; i++) {
		len = 0;
		cat(&k, &len, "[GPU active];[Unknown]");
		cat(&k, &len, s->op_name[i]);
		fold_add(src, k, ms / (double)s->nop_name);
	}
	if (s->nstack == 0 && s->nop_name == 0)
		fold_add(src, "[GPU active];[Unknown]", ms);
	for (i = 0; i < s->nop_name; i++) {
		len = 0;
		cat(&k, &len, "[GPU active]");
		copy = strdup(s->op_name[i]);
		for (tok = copy; tok; ) {
			char *slash = strchr(tok, '/');

			if (slash)
				*slash = '\0';
			cat(&k, &len, tok);
			tok = slash ? slash + 1 : NULL;
		}
		free(copy);
		fold_add(opn, k, ms / (double)s->nop_name);
	}
	if (s->nop_name == 0)
		fold_add(opn, "[GPU active];[Unknown]", ms);
	free(k);
}

/* Compare with a golden .folded file, leaving out the idle roots. */
static void
fold_compare(struct folds *mine, const char *path)
{
	struct folds g = { 0 };
	FILE *fp = fopen(path, "r");
	char *line = NULL, *sp;
	size_t cap = 0, i;

	CHECK(fp != NULL);
	if (fp == NULL)
		return;
	while (getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "[GPU idle", 9) == 0 ||
		    (sp = strrchr(line, ' ')) == NULL)
			continue;
		*sp = '\0';
		fold_add(&g, line, strtod(sp + 1, NULL));
	}
	free(line);
	fclose(fp);
	fold_merge(&g);
	fold_merge(mine);
	CHECK_INT(mine->n, g.n);
	for (i = 0; i < g.n && i < mine->n; i++) {
		CHECK_STR(mine->f[i].key, g.f[i].key);
		CHECK_NEAR(mine->f[i].v, g.f[i].v, 1e-9);
	}
	fold_free(&g);
}

static void
golden_folds(struct loaded *l, const char *dir)
{
	struct folds src = { 0 }, opn = { 0 };
	const struct hlo_inst *in[NPROC * 64];
	struct hlo_module *m;
	struct hlo_src s;
	char path[1024], *line = NULL, *f[8];
	size_t cap = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/thunk_summary.tsv", dir);
	if ((fp = fopen(path, "r")) == NULL) {
		CHECK(!"thunk_summary.tsv");
		return;
	}
	if (getline(&line, &cap, fp) < 0)
		abort();
	while (getline(&line, &cap, fp) > 0) {
		if (split(line, f, 8) != 3 ||
		    lookup(l, f[0], f[1], in, &m) != 1) {
			CHECK(!"thunk_summary row");
			continue;
		}
		CHECK_INT(hlo_src(m, in[0], &s), 0);
		attribute(&s, strtod(f[2], NULL), &src, &opn);
		hlo_src_free(&s);
	}
	free(line);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/source.folded", dir);
	fold_compare(&src, path);
	snprintf(path, sizeof(path), "%s/op_name.folded", dir);
	fold_compare(&opn, path);
	fold_free(&src);
	fold_free(&opn);
}

/* Real dumps: every instruction classifies, sizes and has its stacks. */
static void
golden_all(struct loaded *l)
{
	const struct hlo_inst *in;
	struct hlo_src s;
	size_t i, k, bad = 0, ncomm = 0;

	for (i = 0; i < l->n; i++)
		for (k = 0; k < hlo_count(l->m[i]); k++) {
			in = hlo_inst(l->m[i], k);
			if (in->comm < 0 || (in->comm && !in->collective))
				bad++;
			ncomm += in->comm == 1;
			if (hlo_src(l->m[i], in, &s) < 0)
				bad++;
			hlo_src_free(&s);
		}
	CHECK_INT(bad, 0);
	CHECK(ncomm > 0);
}

static void
golden(void)
{
	const char *shared = getenv("SHARED") ? getenv("SHARED") : "../shared";
	struct loaded all = { 0 }, p0 = { 0 };
	char path[512];
	int i;

	snprintf(path, sizeof(path), "%s/data/pax_fsdp4_4proc", shared);
	if (access(path, R_OK) != 0) {
		printf("hlo: %s not found, golden checks: 1 skipped\n", path);
		return;
	}
	for (i = 0; i < NPROC; i++) {
		snprintf(path, sizeof(path), "%s/data/pax_fsdp4_4proc/"
		    "pax_fsdp4_4proc_proc%d.zip", shared, i);
		CHECK_INT(load_archive(&all, path), 0);
		if (i == 0)
			CHECK_INT(load_archive(&p0, path), 0);
	}
	golden_all(&all);
	snprintf(path, sizeof(path), "%s/golden/proc0/thunk.tsv", shared);
	golden_rows(&p0, path, 0);
	snprintf(path, sizeof(path), "%s/golden/proc0/communication.tsv",
	    shared);
	golden_rows(&p0, path, 1);
	snprintf(path, sizeof(path), "%s/golden/combined4/thunk.tsv", shared);
	golden_rows(&all, path, 0);
	snprintf(path, sizeof(path), "%s/golden/combined4/communication.tsv",
	    shared);
	golden_rows(&all, path, 1);
	snprintf(path, sizeof(path), "%s/golden/proc0", shared);
	golden_folds(&p0, path);
	while (all.n > 0)
		hlo_free(all.m[--all.n]);
	while (p0.n > 0)
		hlo_free(p0.m[--p0.n]);
}

int
main(void)
{
	encodings();
	heterogeneous();
	mesh();
	division();
	widths();
	tuples();
	wrappers();
	twice();
	call_cycle();
	offload();
	stacks();
	module();
	corrupt();
	bare();
	seams();
	wire_types();
	two_modules();
	golden();
	free(tal_p);
	return unit_done("hlo");
}
