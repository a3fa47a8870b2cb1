/*
 * mkseeds: writes the generated seeds of the fuzz corpora (make seeds):
 * small parquet files (every type, shape, encoding and codec the reader
 * takes, and the three tables read from parquet), HLO dumps (protobuf-c),
 * .xz streams and zip archives, among them a whole made-up nsys-jax
 * profile.  Nothing here comes from a real profile.  The output is the
 * same on every run, so regenerating changes no file.
 *
 *	mkseeds CORPUSDIR	writes CORPUSDIR/{parquet,hlo,xz,archive,profile,
 *				pushpop}/gen-*
 */
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "hlo.pb-c.h"
#include "pqwrite.h"

static const char *root;

static void
seed(const char *target, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s/gen-%s", root, target, name);
	if ((fp = fopen(path, "wb")) == NULL || fwrite(p, 1, n, fp) != n ||
	    fclose(fp) != 0) {
		perror(path);
		exit(1);
	}
}

/* ---- parquet ---- */

#define NR 5
static const int64_t ints[] = { 3, -1, 3, 40000000000, 0, 7, 8, 9 };
static const double dbls[] = { 1.5, -0.25, 1.5, 1e300, 0 };
static const char *const strs[] = { "TSL:a", "", "TSL:a", "b\tc", "d" };
static const uint8_t some[] = { 1, 0, 1, 1, 0 };
static const int64_t loff[] = { 0, 2, 2, 3, 3, 5 };

/* The lengths of the N strings S, in one of 8 static arrays (of 8). */
static const size_t *
lens(const char *const *s, size_t n)
{
	static size_t l[8][8];
	static int k;
	size_t i, *p = l[k++ % 8];

	for (i = 0; i < n; i++)
		p[i] = strlen(s[i]);
	return p;
}

static void
pqseed(const char *target, const char *name, const struct wcol *c,
    size_t nc, size_t nrows, const struct wopt *o)
{
	size_t len;
	uint8_t *p = pqwrite(c, nc, nrows, o, &len);

	seed(target, name, p, len);
	free(p);
}

static void
parquet_types(void)
{
	struct wcol c[] = {
		{ .name = "b", .type = T_BOOLEAN, .enc = E_RLE, .i64 = loff },
		{ .name = "i32", .type = T_INT32, .opt = 1, .valid = some,
		    .i64 = ints },
		{ .name = "i64", .type = T_INT64, .enc = E_DICT, .i64 = ints },
		{ .name = "f", .type = T_FLOAT, .f64 = dbls },
		{ .name = "d", .type = T_DOUBLE, .opt = 1, .valid = some,
		    .f64 = dbls },
		{ .name = "s", .type = T_BYTE_ARRAY, .enc = E_DICT, .opt = 1,
		    .valid = some, .str = strs, .slen = lens(strs, NR) },
		{ .name = "l3", .type = T_INT64, .shape = LIST3, .opt = 1,
		    .elemopt = 1, .valid = some, .i64 = ints, .off = loff,
		    .evalid = some },
		{ .name = "l2", .type = T_INT32, .shape = LIST2, .i64 = ints,
		    .off = loff },
		{ .name = "r", .type = T_INT64, .shape = REPEATED, .i64 = ints,
		    .off = loff }
	};
	struct wopt o = plainopt;
	size_t nc = sizeof(c) / sizeof(c[0]);

	pqseed("parquet", "plain", c, nc, NR, &o);
	o.codec = C_SNAPPY, o.v2 = 1, o.group_rows = 3, o.page_rows = 2;
	pqseed("parquet", "snappy-v2-groups", c, nc, NR, &o);
	o = plainopt;
	o.codec = C_GZIP, o.page_rows = 2;
	c[2].enc = c[5].enc = E_PDICT;
	pqseed("parquet", "gzip-pages", c, nc, NR, &o);
	o = plainopt;
	o.codec = C_ZSTD, o.v2 = 1;
	pqseed("parquet", "zstd-v2", c, nc, NR, &o);
	o = plainopt;
	o.codec = C_LZ4;
	pqseed("parquet", "lz4", c, 2, NR, &o);
	o = plainopt;
	o.idxbias = 9;
	pqseed("parquet", "bad-dict-index", c + 2, 1, NR, &o);
	o = plainopt;
	o.baddef = 1;
	pqseed("parquet", "bad-levels", c + 1, 1, NR, &o);
	o = plainopt;
	o.claim = 1 << 30;
	pqseed("parquet", "claims-rows", c + 2, 1, NR, &o);
}

/* A made-up trace of one step: a module, two thunks, a compile range. */
#define NT 4
static const char *const tname[NT] = {
	"TSL:XlaModule:#hlo_module=jit_f,program_id=1#",
	"TSL:Thunk:#hlo_op=all-reduce.2#",
	"TSL:Thunk:#name=jit(f)/add,hlo_op=fusion.3#",
	"NCCL:ncclAllReduce"
};
static const int64_t tstart[NT] = { 1000, 1100, 1500, 1150 };
static const int64_t tdur[NT] = { 900, 300, 200, 100 };
static const int64_t tend[NT] = { 1900, 1400, 1700, 1250 };
static const int64_t tpid[NT] = { 7, 7, 7, 7 };
static const int64_t ttid[NT] = { 11, 11, 11, 11 };
static const int64_t tops[NT] = { 2, 1, 1, 0 };
static const int64_t tid_[NT] = { 1, 2, 3, 4 };
static const int64_t tpar[NT] = { 0, 1, 1, 2 };
static const uint8_t tparv[NT] = { 0, 1, 1, 1 };

static uint8_t *
trace(int layout, size_t *len)
{
	static const char *const text[NT] = {
		"XlaModule:#hlo_module=jit_f,program_id=1#",
		"Thunk:#hlo_op=all-reduce.2#",
		"Thunk:#name=jit(f)/add,hlo_op=fusion.3#", "ncclAllReduce"
	};
	static const char *const dom[NT] = { "TSL", "TSL", "TSL", "NCCL" };
	struct wcol old[] = {
		{ "Name", T_BYTE_ARRAY, .enc = E_DICT, .str = tname,
		    .slen = lens(tname, NT) },
		{ "Projected Start", T_INT64, .i64 = tstart },
		{ "Projected Duration", T_INT64, .i64 = tdur },
		{ "Orig Start", T_INT64, .i64 = tstart },
		{ "Orig Duration", T_INT64, .i64 = tdur },
		{ "PID", T_INT64, .i64 = tpid },
		{ "TID", T_INT64, .i64 = ttid },
		{ "NumGPUOps", T_INT64, .i64 = tops },
		{ "RangeId", T_INT64, .i64 = tid_ },
		{ "ParentId", T_INT64, .opt = 1, .valid = tparv, .i64 = tpar }
	};
	struct wcol new[] = {
		{ "Text", T_BYTE_ARRAY, .enc = E_DICT, .str = text,
		    .slen = lens(text, NT) },
		{ "Start", T_INT64, .i64 = tstart },
		{ "End", T_INT64, .i64 = tend },
		{ "PID", T_INT64, .i64 = tpid },
		{ "TID", T_INT64, .i64 = ttid },
		{ "Range ID", T_INT64, .i64 = tid_ },
		{ "Parent ID", T_INT64, .opt = 1, .valid = tparv, .i64 = tpar },
		{ "Domain", T_BYTE_ARRAY, .str = dom, .slen = lens(dom, NT) }
	};
	struct wopt o = plainopt;

	o.codec = C_SNAPPY;
	if (layout == 2024)
		return pqwrite(old, 10, NT, &o, len);
	return pqwrite(new, layout == 2025 ? 7 : 8, NT, &o, len);
}

/*
 * The trace of nsys 2026.3 and XLA of 2026: Text, Domain,
 * Start, End, ..., Range Stack a list; a command buffer thunk that no
 * HLO instruction names, and a Thunk range without a well-formed hlo_op.
 */
#define N3 5
static uint8_t *
trace2026_3(size_t *len)
{
	static const char *const text[N3] = {
		"XlaModule:#hlo_module=jit_f,program_id=1#",
		"Thunk:#hlo_op=command_buffer_9#",
		"Thunk:#name=jit(f)/add,hlo_op=fusion.3#", "Thunk:#name=x#",
		"ncclAllReduce"
	};
	static const char *const dom[N3] = { "TSL", "TSL", "TSL", "TSL",
	    "NCCL" };
	static const int64_t st[N3] = { 1000, 1100, 1500, 1750, 1150 };
	static const int64_t en[N3] = { 1900, 1400, 1700, 1800, 1250 };
	static const int64_t pid[N3] = { 7, 7, 7, 7, 7 };
	static const int64_t tid[N3] = { 11, 11, 11, 11, 11 };
	static const int64_t id[N3] = { 1, 2, 3, 5, 4 };
	static const int64_t par[N3] = { 0, 1, 1, 1, 2 };
	static const uint8_t parv[N3] = { 0, 1, 1, 1, 1 };
	static const int64_t off[N3 + 1] = { 0, 1, 3, 5, 7, 10 };
	static const int64_t stack[10] = { 1, 1, 2, 1, 3, 1, 5, 1, 2, 4 };
	struct wcol c[] = {
		{ "Text", T_BYTE_ARRAY, .enc = E_DICT, .str = text,
		    .slen = lens(text, N3) },
		{ "Domain", T_BYTE_ARRAY, .str = dom, .slen = lens(dom, N3) },
		{ "Start", T_INT64, .i64 = st },
		{ "End", T_INT64, .i64 = en },
		{ "PID", T_INT64, .i64 = pid },
		{ "TID", T_INT64, .i64 = tid },
		{ "Range ID", T_INT64, .i64 = id },
		{ "Parent ID", T_INT64, .opt = 1, .valid = parv, .i64 = par },
		{ "Range Stack", T_INT64, LIST3, .opt = 1, .elemopt = 1,
		    .i64 = stack, .off = off }
	};
	struct wopt o = plainopt;

	o.codec = C_SNAPPY;
	return pqwrite(c, 9, N3, &o, len);
}

static uint8_t *
threads(size_t *len)
{
	static const char *const name[] = {
		"XlaLauncher:#global=0,local=0,process=0,slice=0#", "main" };
	static const int64_t pid[] = { 7, 7 }, tid[] = { 11, 12 };
	struct wcol c[] = {
		{ "Name", T_BYTE_ARRAY, .str = name, .slen = lens(name, 2) },
		{ "PID", T_INT64, .i64 = pid },
		{ "TID", T_INT64, .i64 = tid }
	};

	return pqwrite(c, 3, 2, &plainopt, len);
}

/* The push/pop ranges of one compilation with a parallel worker. */
#define NP 4
static const char *const pname[NP] = {
	"TSL:XlaCompile:#module=jit_f#",
	"TSL:XlaCompileBackend:#module=jit_f,program_id=1#",
	"TSL:XlaPass:#name=fusion#", "TSL:XlaAutotunerMeasurement:#x#"
};
static const int64_t pstart[NP] = { 100, 200, 300, 350 };
static const int64_t pend[NP] = { 1000, 900, 600, 400 };
static const int64_t pdur[NP] = { 900, 700, 300, 50 };
static const int64_t pdc[NP] = { 700, 300, 0, 0 };
static const int64_t pdn[NP] = { 200, 400, 300, 50 };
static const int64_t ptid[NP] = { 12, 12, 12, 13 };
static const int64_t pnc[NP] = { 1, 1, 0, 0 };
static const int64_t pid_[NP] = { 1, 2, 3, 4 };
static const int64_t ppar[NP] = { 0, 1, 2, 0 };
static const uint8_t pparv[NP] = { 0, 1, 1, 0 };
static const char *const pstack[NP] = { ":1", ":1:2", ":1:2:3", ":4" };

static uint8_t *
pushpop_parquet(size_t *len)
{
	struct wcol c[] = {
		{ "RangeId", T_INT64, .i64 = pid_ },
		{ "Start (ns)", T_INT64, .i64 = pstart },
		{ "End (ns)", T_INT64, .i64 = pend },
		{ "Duration (ns)", T_INT64, .i64 = pdur },
		{ "DurChild (ns)", T_INT64, .i64 = pdc },
		{ "DurNonChild (ns)", T_INT64, .i64 = pdn },
		{ "Name", T_BYTE_ARRAY, .str = pname, .slen = lens(pname, NP) },
		{ "TID", T_INT64, .i64 = ptid },
		{ "NumChild", T_INT64, .i64 = pnc },
		{ "ParentId", T_INT64, .opt = 1, .valid = pparv, .i64 = ppar },
		{ "RangeStack", T_BYTE_ARRAY, .str = pstack, .slen = lens(pstack, NP) }
	};

	return pqwrite(c, 11, NP, &plainopt, len);
}

static char *
pushpop_csv(void)
{
	static char buf[2048];
	size_t i, n;

	n = (size_t)snprintf(buf, sizeof(buf), "Start (ns),End (ns),Duration "
	    "(ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,NumChild,"
	    "RangeId,ParentId,RangeStack,NameTree\n");
	for (i = 0; i < NP; i++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%lld,%lld,"
		    "%lld,%lld,%lld,\"%s\",7,%lld,%lld,%lld,", (long long)pstart[i],
		    (long long)pend[i], (long long)pdur[i], (long long)pdc[i],
		    (long long)pdn[i], pname[i], (long long)ptid[i],
		    (long long)pnc[i], (long long)pid_[i]);
		if (pparv[i])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%lld",
			    (long long)ppar[i]);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",%s,x\n",
		    pstack[i]);
	}
	return buf;
}

static void
parquet_tables(void)
{
	uint8_t *p;
	size_t len;

	p = trace(2024, &len), seed("parquet", "trace-2024.4", p, len), free(p);
	p = trace(2025, &len), seed("parquet", "trace-2024.5", p, len), free(p);
	p = trace(2026, &len), seed("parquet", "trace-2026.1", p, len), free(p);
	p = trace2026_3(&len), seed("parquet", "trace-2026.3", p, len), free(p);
	p = threads(&len), seed("parquet", "threads", p, len), free(p);
	p = pushpop_parquet(&len), seed("parquet", "pushpop", p, len), free(p);
}

/* ---- HLO ---- */

static Xla__ShapeProto *
shape(Xla__ShapeProto *s, int type, size_t nd, int64_t *dims, int space)
{
	static Xla__LayoutProto host = XLA__LAYOUT_PROTO__INIT;

	xla__shape_proto__init(s);
	host.memory_space = 5;
	s->element_type = type;
	s->n_dimensions = nd;
	s->dimensions = dims;
	if (space)
		s->layout = &host;
	return s;
}

static uint8_t *
pack_module(const Xla__HloModuleProto *m, int wrap, size_t *len)
{
	Xla__HloProto h = XLA__HLO_PROTO__INIT;
	uint8_t *p;

	h.hlo_module = (Xla__HloModuleProto *)m;
	*len = wrap ? xla__hlo_proto__get_packed_size(&h) :
	    xla__hlo_module_proto__get_packed_size(m);
	if ((p = malloc(*len + 1)) == NULL)
		abort();
	if (wrap)
		xla__hlo_proto__pack(&h, p);
	else
		xla__hlo_module_proto__pack(m, p);
	return p;
}

/*
 * Module jit_f (id 1): p.1, all-reduce.2 (groups {0,1} {2,3}), fusion.3
 * calling computation 2 (all-gather.4, iota groups), async-start.5
 * calling computation 3 (collective-permute.6), dynamic-slice.7 from host
 * memory, all-to-all.8 over mesh axes; a stack frame index of two
 * frames.  VARIANT 1: frames form a cycle; 2: ids out of range; 3: frame
 * 2's parent beyond the index (XLA of 2026).
 */
static uint8_t *
hlo(int variant, int wrap, size_t *len)
{
	static int64_t d8[] = { 8 }, d4[] = { 4, 2 }, g0[] = { 0, 1 },
	    g1[] = { 2, 3 }, op1[] = { 1 }, c2[] = { 2 }, c3[] = { 3 };
	static char *files[] = { "a.py", "b.py" }, *funcs[] = { "f", "<g>" };
	Xla__ShapeProto sh[8];
	Xla__HloInstructionProto in[8], *e1[6], *e2[1], *e3[1];
	Xla__HloComputationProto comp[3], *cp[3];
	Xla__ReplicaGroup rg[2], *rgp[2];
	Xla__CollectiveDeviceListProto cdl = XLA__COLLECTIVE_DEVICE_LIST_PROTO__INIT;
	Xla__IotaReplicaGroupListProto iota = XLA__IOTA_REPLICA_GROUP_LIST_PROTO__INIT;
	Xla__MeshAxesReplicaGroupListProto mesh =
	    XLA__MESH_AXES_REPLICA_GROUP_LIST_PROTO__INIT;
	Xla__MeshProto mp = XLA__MESH_PROTO__INIT;
	Xla__MeshProto__MeshAxis ax = XLA__MESH_PROTO__MESH_AXIS__INIT, *axp[1];
	Xla__AxisRefProto ar = XLA__AXIS_REF_PROTO__INIT, *arp[1];
	Xla__OpMetadata md = XLA__OP_METADATA__INIT;
	Xla__StackFrameIndexProto sfi = XLA__STACK_FRAME_INDEX_PROTO__INIT;
	Xla__StackFrameIndexProto__FileLocation fl[2], *flp[2];
	Xla__StackFrameIndexProto__StackFrame sf[2], *sfp[2];
	Xla__FrontendAttributes fa = XLA__FRONTEND_ATTRIBUTES__INIT;
	Xla__FrontendAttributes__MapEntry me =
	    XLA__FRONTEND_ATTRIBUTES__MAP_ENTRY__INIT, *mep[1];
	Xla__HloModuleProto m = XLA__HLO_MODULE_PROTO__INIT;
	static const char *const names[8] = { "p.1", "all-reduce.2",
	    "fusion.3", "all-gather.4", "async-start.5",
	    "collective-permute.6", "dynamic-slice.7", "all-to-all.8" };
	static const char *const ops[8] = { "parameter", "all-reduce",
	    "fusion", "all-gather", "async-start", "collective-permute",
	    "dynamic-slice", "all-to-all" };
	size_t i;

	for (i = 0; i < 8; i++) {
		xla__hlo_instruction_proto__init(&in[i]);
		in[i].name = (char *)names[i];
		in[i].opcode = (char *)ops[i];
		in[i].id = (int64_t)i + 1;
		in[i].shape = shape(&sh[i], i == 6 ? 16 : 11, i == 3 ? 2 : 1,
		    i == 3 ? d4 : d8, i == 0);
		in[i].metadata = &md;
		if (i > 0) {
			in[i].n_operand_ids = 1;
			in[i].operand_ids = op1;
		}
	}
	md.op_name = "jit(f)/add";
	md.stack_frame_id = variant == 2 ? 9 : 2;
	md.scheduling_name = "s";
	for (i = 0; i < 2; i++) {
		xla__replica_group__init(&rg[i]);
		rg[i].n_replica_ids = 2;
		rg[i].replica_ids = i ? g1 : g0;
		rgp[i] = &rg[i];
	}
	cdl.n_replica_groups = 2;
	cdl.replica_groups = rgp;
	in[1].collective_device_list = &cdl;
	iota.num_replica_groups = 2;
	iota.num_devices_per_group = 2;
	in[3].iota_collective_device_list = &iota;
	in[2].n_called_computation_ids = 1;
	in[2].called_computation_ids = c2;
	in[4].n_called_computation_ids = 1;
	in[4].called_computation_ids = c3;
	ax.name = "x";
	ax.size = 4;
	axp[0] = &ax;
	mp.n_axes = 1;
	mp.axes = axp;
	arp[0] = &ar;
	mesh.mesh = &mp;
	mesh.n_axes = 1;
	mesh.axes = arp;
	in[7].mesh_axes_replica_group_list = &mesh;
	e1[0] = &in[0], e1[1] = &in[1], e1[2] = &in[2], e1[3] = &in[4];
	e1[4] = &in[6], e1[5] = &in[7];
	e2[0] = &in[3];
	e3[0] = &in[5];
	for (i = 0; i < 3; i++) {
		xla__hlo_computation_proto__init(&comp[i]);
		comp[i].id = (int64_t)i + 1;
		cp[i] = &comp[i];
	}
	comp[0].name = "main", comp[0].n_instructions = 6;
	comp[0].instructions = e1;
	comp[1].name = "fused", comp[1].n_instructions = 1;
	comp[1].instructions = e2;
	comp[2].name = "async", comp[2].n_instructions = 1;
	comp[2].instructions = e3;
	for (i = 0; i < 2; i++) {
		xla__stack_frame_index_proto__file_location__init(&fl[i]);
		fl[i].file_name_id = (int32_t)i + 1;
		fl[i].function_name_id = (int32_t)i + 1;
		fl[i].line = 10 * ((int32_t)i + 1);
		fl[i].column = (int32_t)i * 3;
		flp[i] = &fl[i];
		xla__stack_frame_index_proto__stack_frame__init(&sf[i]);
		sf[i].file_location_id = variant == 2 && i ? 7 : (int32_t)i + 1;
		sf[i].parent_frame_id = (int32_t)i;
		sfp[i] = &sf[i];
	}
	if (variant == 1)
		sf[0].parent_frame_id = 2;
	if (variant == 3)
		sf[1].parent_frame_id = 9;
	sfi.n_file_names = sfi.n_function_names = 2;
	sfi.file_names = files;
	sfi.function_names = funcs;
	sfi.n_file_locations = sfi.n_stack_frames = 2;
	sfi.file_locations = flp;
	sfi.stack_frames = sfp;
	me.key = "fingerprint_before_lhs";
	me.value = "fp1";
	mep[0] = &me;
	fa.n_map = 1;
	fa.map = mep;
	m.name = "jit_f";
	m.id = 1;
	m.n_computations = 3;
	m.computations = cp;
	m.stack_frame_index = &sfi;
	m.frontend_attributes = &fa;
	return pack_module(&m, wrap, len);
}

/*
 * The module of hlo() with a buffer assignment (HloProto field 3, which
 * protos/hlo.proto leaves out): three logical buffers, one heap simulator
 * trace that allocates, shares and frees them.
 */
static uint8_t *
heap(size_t *len)
{
	static const int kind[] = { 0, 0, 2, 1, 1, 1 };
	static const int64_t buf[] = { 1, 2, 3, 2, 3, 1 }, size[] = { 64, 32,
	    16 };
	Xla__LogicalBufferProto lb[3], *lbp[3];
	Xla__HeapSimulatorTrace__Event ev[6], *evp[6];
	Xla__HeapSimulatorTrace tr = XLA__HEAP_SIMULATOR_TRACE__INIT, *trp[1];
	Xla__BufferAssignmentProto ba = XLA__BUFFER_ASSIGNMENT_PROTO__INIT;
	uint8_t *m, *p, tmp[10];
	size_t mlen, blen, k, i;

	for (i = 0; i < 3; i++) {
		xla__logical_buffer_proto__init(&lb[i]);
		lb[i].id = (int64_t)i + 1;
		lb[i].size = size[i];
		lbp[i] = &lb[i];
	}
	for (i = 0; i < 6; i++) {
		xla__heap_simulator_trace__event__init(&ev[i]);
		ev[i].kind = kind[i];
		ev[i].buffer_id = buf[i];
		ev[i].share_with_canonical_id = kind[i] == 2 ? 1 : 0;
		ev[i].computation_name = "main";
		ev[i].instruction_name = i % 2 ? "fusion.3" : "p.1";
		evp[i] = &ev[i];
	}
	tr.n_events = 6;
	tr.events = evp;
	trp[0] = &tr;
	ba.n_logical_buffers = 3;
	ba.logical_buffers = lbp;
	ba.n_heap_simulator_traces = 1;
	ba.heap_simulator_traces = trp;
	m = hlo(0, 1, &mlen);
	blen = xla__buffer_assignment_proto__get_packed_size(&ba);
	for (k = 0, i = blen; i >= 0x80; i >>= 7)
		tmp[k++] = (uint8_t)(i | 0x80);
	tmp[k++] = (uint8_t)i;
	*len = mlen + 1 + k + blen;
	if ((p = malloc(*len)) == NULL)
		abort();
	memcpy(p, m, mlen);
	p[mlen] = 0x1a;		/* field 3, length-delimited */
	memcpy(p + mlen + 1, tmp, k);
	xla__buffer_assignment_proto__pack(&ba, p + mlen + 1 + k);
	free(m);
	return p;
}

static void
hlo_seeds(void)
{
	uint8_t *p;
	size_t len;

	p = hlo(0, 1, &len), seed("hlo", "module", p, len), free(p);
	p = hlo(0, 0, &len), seed("hlo", "bare", p, len), free(p);
	p = hlo(1, 1, &len), seed("hlo", "frame-cycle", p, len), free(p);
	p = hlo(2, 1, &len), seed("hlo", "ids-out-of-range", p, len), free(p);
	p = hlo(3, 1, &len), seed("hlo", "parent-beyond", p, len), free(p);
	p = heap(&len), seed("hlo", "heap", p, len), free(p);
}

/* ---- xz and zip ---- */

static uint8_t *
xz(const void *in, size_t n, lzma_check check, size_t *len)
{
	size_t cap = n + 256;
	uint8_t *p = malloc(cap);

	*len = 0;
	if (p == NULL || lzma_easy_buffer_encode(1, check, NULL, in, n, p,
	    len, cap) != LZMA_OK)
		abort();
	return p;
}

static void
xz_seeds(void)
{
	static const char text[] = "Start (ns),End (ns)\n1,2\n1,2\n1,2\n";
	uint8_t *p, *q;
	size_t len, qlen;

	p = xz(text, sizeof(text) - 1, LZMA_CHECK_CRC64, &len);
	seed("xz", "crc64", p, len);
	q = malloc(2 * len);
	memcpy(q, p, len);
	memcpy(q + len, p, len);
	seed("xz", "two-streams", q, 2 * len);
	free(q);
	free(p);
	p = xz("", 0, LZMA_CHECK_NONE, &len), seed("xz", "empty", p, len);
	free(p);
	p = xz(text, 8, LZMA_CHECK_SHA256, &len), seed("xz", "sha256", p, len);
	free(p);
	p = xz(text, 8, LZMA_CHECK_CRC32, &qlen), seed("xz", "crc32", p, qlen);
	free(p);
}

/* Members NAME[i] holding DATA[i][0..LEN[i]), deflated or stored. */
static void
zipseed(const char *name, size_t n, const char *const *member,
    uint8_t *const *data, const size_t *len, int store)
{
	char path[512];
	zip_source_t *src;
	zip_int64_t idx;
	zip_t *z;
	size_t i;
	int err;

	snprintf(path, sizeof(path), "%s/archive/gen-%s", root, name);
	remove(path);
	if ((z = zip_open(path, ZIP_CREATE | ZIP_EXCL, &err)) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		if ((src = zip_source_buffer(z, data[i], len[i], 0)) == NULL ||
		    (idx = zip_file_add(z, member[i], src, 0)) < 0)
			abort();
		if (zip_set_file_compression(z, (zip_uint64_t)idx, store ?
		    ZIP_CM_STORE : ZIP_CM_DEFLATE, 9) != 0 ||
		    zip_file_set_dostime(z, (zip_uint64_t)idx, 0, 0x21, 0) != 0)
			abort();
	}
	if ((idx = zip_dir_add(z, "dump/", 0)) < 0 ||
	    zip_file_set_dostime(z, (zip_uint64_t)idx, 0, 0x21, 0) != 0 ||
	    zip_close(z) != 0)
		abort();
}

static void
archive_seeds(void)
{
	static const char *const member[] = {
		"nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet",
		"report_nvtx_pushpop_trace.csv.xz",
		"dump/module_0001.jit_f.sm_90_gpu_after_optimizations.hlo.pb.xz"
	};
	static const char *const other[] = { "a.txt", "b.xz" };
	uint8_t *data[4], *pb;
	size_t len[4], pblen;
	const char *csv = pushpop_csv();
	int i;

	data[0] = trace(2024, &len[0]);
	data[1] = threads(&len[1]);
	data[2] = xz(csv, strlen(csv), LZMA_CHECK_CRC64, &len[2]);
	pb = hlo(0, 1, &pblen);
	data[3] = xz(pb, pblen, LZMA_CHECK_CRC64, &len[3]);
	zipseed("profile.zip", 4, member, data, len, 0);
	free(data[0]);
	data[0] = trace(2026, &len[0]);
	zipseed("profile-2026.zip", 4, member, data, len, 1);
	for (i = 0; i < 4; i++)
		free(data[i]);
	free(pb);
	data[0] = (uint8_t *)"hello\n";
	len[0] = 6;
	data[1] = xz("hello\n", 6, LZMA_CHECK_CRC32, &len[1]);
	zipseed("members.zip", 2, other, data, len, 0);
	free(data[1]);
}

/* The members of a profile for the profile target, separated by its
 * marker line. */
static void
profile_seeds(void)
{
	static const char sep[] = "\nNSYSJAX-MEMBER\n";
	uint8_t *part[4], *p;
	size_t len[4], n, i;
	const char *csv = pushpop_csv();
	int k;

	for (k = 0; k < 3; k++) {
		/* k 2: the 2026.3 layout, a command buffer, frame ids beyond
		 * the index. */
		part[0] = k == 2 ? trace2026_3(&len[0]) :
		    trace(k ? 2026 : 2024, &len[0]);
		part[1] = threads(&len[1]);
		part[2] = (uint8_t *)csv;
		len[2] = strlen(csv);
		part[3] = hlo(k == 2 ? 3 : 0, 1, &len[3]);
		p = malloc(len[0] + len[1] + len[2] + len[3] + 3 * strlen(sep));
		for (n = i = 0; i < 4; i++) {
			memcpy(p + n, part[i], len[i]);
			n += len[i];
			if (i < 3) {
				memcpy(p + n, sep, strlen(sep));
				n += strlen(sep);
			}
		}
		seed("profile", k == 2 ? "2026.3" : k ? "2026.1" : "2024.4",
		    p, n);
		free(p);
		free(part[0]);
		free(part[1]);
		free(part[3]);
	}
}

int
main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds corpusdir\n");
		return 2;
	}
	root = argv[1];
	(void)bytesdup;		/* pqwrite.h's, not needed here */
	parquet_types();
	parquet_tables();
	hlo_seeds();
	xz_seeds();
	archive_seeds();
	profile_seeds();
	{
		const char *csv = pushpop_csv();

		seed("pushpop", "ranges.csv", csv, strlen(csv));
	}
	ZSTD_freeCCtx(zcctx);
	return 0;
}
