/*
 * Tests of lib/formats/hlocost: XLA's own cases (openxla/xla
 * xla/service/hlo_cost_analysis_test.cc at 001918b, and
 * gpu/gpu_hlo_cost_analysis_test.cc's ConvCustomCall) rebuilt here as HLO
 * modules, each with the value XLA's test states; the rules XLA's tests
 * do not cover (a slice-read fusion parameter, cuBLAS gemm from the
 * backend_config, attention, while loops, unknown custom calls) with
 * values worked out by hand from the rule; and backend_configs that are
 * not what the rules read (jansson parses them).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "formats/hlo.h"
#include "formats/hlocost.h"
#include "hlo.pb-c.h"
#include "unit.h"

enum { PRED = 1, S8 = 2, S32 = 4, U8 = 6, F32 = 11, BF16 = 16 };

/* ---- building modules: every allocation is freed by reset() ---- */

static void **tal_p;
static size_t tal_n, tal_cap;

static void *
tal(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (p == NULL)
		abort();
	if (tal_n == tal_cap) {
		tal_cap = tal_cap ? 2 * tal_cap : 64;
		if ((tal_p = realloc(tal_p, tal_cap * sizeof(*tal_p))) == NULL)
			abort();
	}
	return tal_p[tal_n++] = p;
}

static Xla__HloModuleProto mod;
static Xla__HloComputationProto *comps[16], *cur;
static Xla__HloInstructionProto *insts[64];
static size_t ninsts;

static void
reset(void)
{
	while (tal_n > 0)
		free(tal_p[--tal_n]);
	xla__hlo_module_proto__init(&mod);
	mod.name = "test";
	mod.id = 7;	/* a field 1 and 3 only would read as an HloProto */
	mod.computations = comps;
	ninsts = 0;
}

/* Integers from "a,b,c" ("" for none). */
static int64_t *
list(const char *s, size_t *n)
{
	int64_t *v = tal(64 * sizeof(*v));
	char *end;

	*n = 0;
	while (*s) {
		v[(*n)++] = strtoll(s, &end, 10);
		s = *end == ',' ? end + 1 : end;
	}
	return v;
}

/* An array shape TYPE[DIMS] with a layout. */
static Xla__ShapeProto *
S(int type, const char *dims)
{
	Xla__ShapeProto *s = tal(sizeof(*s));

	xla__shape_proto__init(s);
	s->element_type = type;
	s->dimensions = list(dims, &s->n_dimensions);
	s->layout = tal(sizeof(*s->layout));
	xla__layout_proto__init(s->layout);
	return s;
}

static Xla__ShapeProto *
tuple(Xla__ShapeProto *a, Xla__ShapeProto *b)
{
	Xla__ShapeProto *s = tal(sizeof(*s));

	xla__shape_proto__init(s);
	s->element_type = 13;
	s->n_tuple_shapes = 2;
	s->tuple_shapes = tal(2 * sizeof(*s->tuple_shapes));
	s->tuple_shapes[0] = a;
	s->tuple_shapes[1] = b;
	return s;
}

/* Computation ID, the current one until the next begin(). */
static void
begin(int64_t id)
{
	cur = tal(sizeof(*cur));
	xla__hlo_computation_proto__init(cur);
	cur->name = "c";
	cur->id = id;
	cur->instructions = tal(32 * sizeof(*cur->instructions));
	comps[mod.n_computations++] = cur;
}

static int64_t
id_of(const char *name)
{
	size_t i;

	for (i = 0; i < ninsts; i++)
		if (strcmp(insts[i]->name, name) == 0)
			return insts[i]->id;
	fprintf(stderr, "no instruction %s\n", name);
	abort();
}

/* Instruction NAME = OP(OPERANDS: names separated by spaces) of shape SH
 * in the current computation; the last one added is its root. */
static Xla__HloInstructionProto *
I(const char *name, const char *op, Xla__ShapeProto *sh, const char *ops)
{
	Xla__HloInstructionProto *p = tal(sizeof(*p));
	char buf[256], *t, *save = NULL;

	xla__hlo_instruction_proto__init(p);
	p->name = (char *)name;
	p->opcode = (char *)op;
	p->id = (int64_t)ninsts + 1;
	p->shape = sh;
	p->operand_ids = tal(8 * sizeof(int64_t));
	snprintf(buf, sizeof(buf), "%s", ops);
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		p->operand_ids[p->n_operand_ids++] = id_of(t);
	insts[ninsts++] = p;
	cur->instructions[cur->n_instructions++] = p;
	cur->root_id = p->id;
	return p;
}

static void
calls(Xla__HloInstructionProto *p, int64_t a, int64_t b)
{
	p->called_computation_ids = tal(2 * sizeof(int64_t));
	p->called_computation_ids[p->n_called_computation_ids++] = a;
	if (b)
		p->called_computation_ids[p->n_called_computation_ids++] = b;
}

static void
dot(Xla__HloInstructionProto *p, const char *lc, const char *rc,
    const char *lb, const char *rb)
{
	Xla__DotDimensionNumbers *d = tal(sizeof(*d));

	xla__dot_dimension_numbers__init(d);
	d->lhs_contracting_dimensions = list(lc, &d->n_lhs_contracting_dimensions);
	d->rhs_contracting_dimensions = list(rc, &d->n_rhs_contracting_dimensions);
	d->lhs_batch_dimensions = list(lb, &d->n_lhs_batch_dimensions);
	d->rhs_batch_dimensions = list(rb, &d->n_rhs_batch_dimensions);
	p->dot_dimension_numbers = d;
}

/* Convolution dimension numbers "bf01_oi01->bf01" (NCHW, OIHW), with N
 * spatial dimensions. */
static void
conv_nchw(Xla__HloInstructionProto *p, size_t n)
{
	Xla__ConvolutionDimensionNumbers *d = tal(sizeof(*d));
	size_t i;

	xla__convolution_dimension_numbers__init(d);
	d->input_batch_dimension = 0;
	d->input_feature_dimension = 1;
	d->kernel_output_feature_dimension = 0;
	d->kernel_input_feature_dimension = 1;
	d->output_batch_dimension = 0;
	d->output_feature_dimension = 1;
	d->input_spatial_dimensions = tal(n * sizeof(int64_t));
	d->kernel_spatial_dimensions = tal(n * sizeof(int64_t));
	d->output_spatial_dimensions = tal(n * sizeof(int64_t));
	for (i = 0; i < n; i++)
		d->input_spatial_dimensions[i] =
		    d->kernel_spatial_dimensions[i] =
		    d->output_spatial_dimensions[i] = (int64_t)(2 + i);
	d->n_input_spatial_dimensions = d->n_kernel_spatial_dimensions =
	    d->n_output_spatial_dimensions = n;
	p->convolution_dimension_numbers = d;
}

/* Window dimension: size, stride, padding low and high, window and base
 * dilation. */
static void
window(Xla__HloInstructionProto *p, int64_t size, int64_t stride,
    int64_t lo, int64_t hi, int64_t wdil, int64_t bdil)
{
	Xla__WindowDimension *w = tal(sizeof(*w));

	if (p->window == NULL) {
		p->window = tal(sizeof(*p->window));
		xla__window__init(p->window);
		p->window->dimensions = tal(8 * sizeof(*p->window->dimensions));
	}
	xla__window_dimension__init(w);
	w->size = size;
	w->stride = stride;
	w->padding_low = lo;
	w->padding_high = hi;
	w->window_dilation = wdil;
	w->base_dilation = bdil;
	p->window->dimensions[p->window->n_dimensions++] = w;
}

static struct hlo_module *m;
static struct hlocost_ctx *cc;

/* With HLOCOST_SEEDS=DIR, each module is also written to DIR/gen-N, the
 * seeds of the hlocost fuzz target (tests/corpus/hlocost). */
static int no_seeds;	/* set around loops of many small modules */

static void
seed(const uint8_t *buf, size_t len)
{
	static int n;
	const char *dir = getenv("HLOCOST_SEEDS");
	char path[512];
	FILE *fp;

	if (dir == NULL || no_seeds)
		return;
	snprintf(path, sizeof(path), "%s/gen-xla-%d", dir, ++n);
	if ((fp = fopen(path, "wb")) == NULL ||
	    fwrite(buf, 1, len, fp) != len || fclose(fp) != 0)
		abort();
}

/* Pack and load the module built. */
static void
load(void)
{
	size_t len = xla__hlo_module_proto__get_packed_size(&mod);
	uint8_t *buf = malloc(len ? len : 1);

	xla__hlo_module_proto__pack(&mod, buf);
	seed(buf, len);
	hlocost_free(cc);
	hlo_free(m);
	m = hlo_load(buf, len);
	free(buf);
	if (m == NULL) {
		fprintf(stderr, "hlo_load: %s\n", err_msg());
		abort();
	}
	cc = hlocost_new(m);
}

static struct hlocost
cost(const char *name)
{
	struct hlocost c;

	hlocost_inst(cc, hlo_index(m, hlo_find(m, name)), &c);
	return c;
}

/* Check the cost of NAME: flops, transcendentals, bytes (-1: not
 * checked), matmul flops. */
#define COST(name, fl, tr, by, mm) do { \
	struct hlocost c_ = cost(name); \
	CHECK_INT(c_.known, 1); \
	CHECK_INT(c_.flops, fl); \
	CHECK_INT(c_.transcendentals, tr); \
	if ((by) >= 0) \
		CHECK_INT(c_.bytes, by); \
	CHECK_INT(c_.matmul_flops, mm); \
} while (0)

/* ---- XLA's test cases ---- */

/* MatrixMultiply, DotGeneral2 (a batch dot). */
static void
test_dot(void)
{
	reset();
	begin(1);
	I("lhs", "parameter", S(F32, "10,5"), "");
	I("rhs", "parameter", S(F32, "5,30"), "");
	dot(I("dot", "dot", S(F32, "10,30"), "lhs rhs"), "1", "0", "", "");
	I("blhs", "parameter", S(F32, "10,5,5"), "");
	I("brhs", "parameter", S(F32, "5,5,30"), "");
	dot(I("bdot", "dot", S(F32, "5,10,30"), "blhs brhs"), "1", "0", "2",
	    "1");
	load();
	COST("dot", 2 * 10 * 30 * 5, 0, 4 * (10 * 5 + 5 * 30 + 10 * 30),
	    2 * 10 * 30 * 5);
	CHECK_STR(hlocost_dtype(cost("dot").dtype), "f32");
	COST("bdot", 2 * 10 * 30 * 5 * 5, 0,
	    4 * (10 * 5 * 5 + 5 * 5 * 30 + 5 * 10 * 30), 2 * 10 * 30 * 5 * 5);
}

/* One 2-D NCHW convolution of input IN, kernel K, output OUT. */
static Xla__HloInstructionProto *
conv2d(const char *name, const char *in, const char *k, const char *out)
{
	char *a = tal(32), *b = tal(32), ops[64];
	Xla__HloInstructionProto *p;

	snprintf(a, 32, "%s_in", name);
	snprintf(b, 32, "%s_k", name);
	I(a, "parameter", S(F32, in), "");
	I(b, "parameter", S(F32, k), "");
	snprintf(ops, sizeof(ops), "%s %s", a, b);
	p = I(name, "convolution", S(F32, out), ops);
	conv_nchw(p, 2);
	return p;
}

static void
test_conv(void)
{
	Xla__HloInstructionProto *p;
	const int64_t large = 512 * 1024;
	char dims[64];

	reset();
	begin(1);
	/* Convolution: valid 3x3 over 10x20. */
	p = conv2d("valid", "1,1,10,20", "1,1,3,3", "1,1,8,18");
	window(p, 3, 1, 0, 0, 1, 1);
	window(p, 3, 1, 0, 0, 1, 1);
	/* ConvolutionSame: 3x3 over 3x3, padding 1. */
	p = conv2d("same", "1,1,3,3", "1,1,3,3", "1,1,3,3");
	window(p, 3, 1, 1, 1, 1, 1);
	window(p, 3, 1, 1, 1, 1, 1);
	/* ConvolutionWithFeatureGroup: 120 groups. */
	p = conv2d("groups", "1,120,10,20", "120,1,3,3", "1,120,8,18");
	window(p, 3, 1, 0, 0, 1, 1);
	window(p, 3, 1, 0, 0, 1, 1);
	p->feature_group_count = 120;
	/* BaseDilatedConvolution: lhs dilation 3x5, rhs dilation 7x11,
	 * padding 1; output 16x76. */
	p = conv2d("dilated", "1,1,10,20", "1,1,3,3", "1,1,16,76");
	window(p, 3, 1, 1, 1, 7, 3);
	window(p, 3, 1, 1, 1, 11, 5);
	/* ConvolutionExtreme and ConvolutionExtreme2 (1-D): the two
	 * shortcuts of the valid-position loop. */
	snprintf(dims, sizeof(dims), "1,1,%lld", (long long)large);
	I("x_in", "parameter", S(F32, dims), "");
	I("x_k", "parameter", S(F32, dims), "");
	p = I("extreme", "convolution", S(F32, dims), "x_in x_k");
	conv_nchw(p, 1);
	window(p, large, large - 1, 0, 0, 1, large);
	I("y_in", "parameter", S(F32, "1,1,1"), "");
	p = I("extreme2", "convolution", S(F32, dims), "y_in x_k");
	conv_nchw(p, 1);
	window(p, large, 1, large - 1, large - 1, 1, 1);
	load();
	COST("valid", 8 * 18 * 2 * 3 * 3, 0, 4 * (10 * 20 + 3 * 3 + 8 * 18),
	    8 * 18 * 2 * 3 * 3);
	COST("same", 2 * (4 + 6 + 4 + 6 + 9 + 6 + 4 + 6 + 4), 0,
	    4 * (9 + 9 + 9), 2 * (4 + 6 + 4 + 6 + 9 + 6 + 4 + 6 + 4));
	COST("groups", 120 * 8 * 18 * 2 * 3 * 3, 0,
	    4 * (120 * 10 * 20 + 120 * 3 * 3 + 120 * 8 * 18),
	    120 * 8 * 18 * 2 * 3 * 3);
	COST("dilated", 1472, 0, -1, 1472);
	COST("extreme", 2 * large, 0, -1, 2 * large);
	COST("extreme2", 2 * large, 0, -1, 2 * large);
}

/* GetConvolutionFlops' loop as XLA writes it, O(kernel x out): the
 * oracle of the closed form on small windows. */
static uint64_t
brute_positions(int64_t in, int64_t kernel, int64_t out, int64_t stride,
    int64_t lo, int64_t wdil, int64_t base)
{
	int64_t k, o, u;
	uint64_t n = 0;

	for (k = 0; k < kernel; k++)
		for (o = 0; o < out; o++) {
			u = o * stride - lo + k * wdil;
			if (u % base == 0 && u >= 0 && u / base < in)
				n++;
		}
	return n;
}

/*
 * Convolutions from a file: the valid-position count agrees with XLA's
 * loop on 400 small windows (strides, paddings positive and negative,
 * both dilations), and a window that would take ~10^13 steps, or whose
 * stride overflows int64 arithmetic, is unknown at once.
 */
static void
test_conv_hostile(void)
{
	Xla__HloInstructionProto *p;
	unsigned seed = 12345;
	int64_t v[7];
	char in[32], k[32], out[32];
	int t, j;

	no_seeds = 1;
	for (t = 0; t < 400; t++) {
		for (j = 0; j < 7; j++) {
			seed = seed * 1103515245u + 12345u;
			v[j] = (int64_t)((seed >> 16) % 9);
		}
		/* in, kernel, out 1..9; stride, dilations 1..5; pad -4..4 */
		v[0]++; v[1]++; v[2]++;
		v[3] = v[3] % 5 + 1; v[5] = v[5] % 5 + 1; v[6] = v[6] % 5 + 1;
		v[4] -= 4;
		reset();
		begin(1);
		snprintf(in, sizeof(in), "1,1,%lld", (long long)v[0]);
		snprintf(k, sizeof(k), "1,1,%lld", (long long)v[1]);
		snprintf(out, sizeof(out), "1,1,%lld", (long long)v[2]);
		I("i", "parameter", S(F32, in), "");
		I("k", "parameter", S(F32, k), "");
		p = I("c", "convolution", S(F32, out), "i k");
		conv_nchw(p, 1);
		window(p, v[1], v[3], v[4], 0, v[5], v[6]);
		load();
		CHECK_INT(cost("c").known, 1);
		CHECK_INT(cost("c").flops, 2 * brute_positions(v[0], v[1],
		    v[2], v[3], v[4], v[5], v[6]));
	}
	no_seeds = 0;
	/* f32[1,1,3000000] by itself, padding 1500000/1499999: 9e12 steps
	 * of XLA's loop, beyond the budget. */
	reset();
	begin(1);
	I("i", "parameter", S(F32, "1,1,3000000"), "");
	I("k", "parameter", S(F32, "1,1,3000000"), "");
	p = I("hang", "convolution", S(F32, "1,1,3000000"), "i k");
	conv_nchw(p, 1);
	window(p, 3000000, 1, 1500000, 1499999, 1, 1);
	/* stride 2^62 over four outputs: o * stride overflows int64. */
	I("i4", "parameter", S(F32, "1,1,4"), "");
	I("k4", "parameter", S(F32, "1,1,4"), "");
	p = I("ovf", "convolution", S(F32, "1,1,4"), "i4 k4");
	conv_nchw(p, 1);
	window(p, 4, (int64_t)1 << 62, 0, 0, 1, 1);
	/* 4 taps over 2^62 outputs of 2^63 - 1 inputs: 2^64 (tap, output)
	 * pairs, a count that saturates (a plain sum wrapped to 0 flops). */
	I("ibig", "parameter", S(F32, "1,1,9223372036854775807"), "");
	p = I("wrap", "convolution", S(F32, "1,1,4611686018427387904"),
	    "ibig k4");
	conv_nchw(p, 1);
	window(p, 4, 1, 0, 0, 1, 1);
	/* reduce-window with padding 2^62 (size == 2 pad + 1 overflows). */
	begin(2);
	I("x", "parameter", S(F32, ""), "");
	I("y", "parameter", S(F32, ""), "");
	I("sum", "add", S(F32, ""), "x y");
	cur = comps[0];
	I("zero", "constant", S(F32, ""), "");
	p = I("rw", "reduce-window", S(F32, "1,1,4"), "i4 zero");
	calls(p, 2, 0);
	window(p, 1, 1, 0, 0, 1, 1);
	window(p, 1, 1, 0, 0, 1, 1);
	window(p, 3, 1, (int64_t)1 << 62, (int64_t)1 << 62, 1, 1);
	load();
	CHECK_INT(cost("hang").known, 0);
	CHECK_INT(cost("ovf").known, 0);
	CHECK_INT(cost("wrap").known, 1);
	CHECK_INT(cost("wrap").flops == UINT64_MAX, 1);
	CHECK_INT(cost("rw").known, 0);
}

/*
 * A fusion whose operand feeds a nested fusion that calls a computation
 * with no parameter of that number: the read stops there (it read
 * users[-1] before), the rest of the fusion is costed.
 */
static void
test_missing_param(void)
{
	Xla__HloInstructionProto *p;

	reset();
	begin(3);		/* no parameter 0 */
	I("n1", "parameter", S(F32, "4"), "")->parameter_number = 1;
	I("nneg", "negate", S(F32, "4"), "n1");
	begin(2);
	I("f0", "parameter", S(F32, "4"), "")->parameter_number = 0;
	p = I("inner", "fusion", S(F32, "4"), "f0 f0");
	calls(p, 3, 0);
	begin(1);
	I("a", "parameter", S(F32, "4"), "");
	calls(I("outer", "fusion", S(F32, "4"), "a"), 2, 0);
	load();
	/* 4 negations; bytes: the output (16) and f0 read once through
	 * parameter 1 of the nested computation (16); operand 0 of inner
	 * names no parameter and reads nothing. */
	COST("outer", 4, 0, 16 + 16, 0);
}

/*
 * What a thunk of its own costs when it names an instruction of a fused
 * computation (XLA names a reduction's initialiser kernel after the
 * reduce inside the fusion): no FLOPs, its output written.  The fusion
 * itself keeps the whole reduction.  A collective whose output is a
 * tuple counts its array leaves (today's XLA), a tuple instruction its
 * index table.
 */
static void
test_initialiser_tuples(void)
{
	reset();
	begin(2);
	I("x", "parameter", S(F32, ""), "");
	I("y", "parameter", S(F32, ""), "");
	I("sum", "add", S(F32, ""), "x y");
	begin(3);
	I("fp", "parameter", S(BF16, "1024,512"), "")->parameter_number = 0;
	I("cv", "convert", S(F32, "1024,512"), "fp");
	I("z", "constant", S(F32, ""), "");
	calls(I("reduce.1.1", "reduce", S(F32, "1024"), "cv z"), 2, 0);
	begin(1);
	I("in", "parameter", S(BF16, "1024,512"), "");
	calls(I("input_reduce_fusion", "fusion", S(F32, "1024"), "in"), 3, 0);
	I("shard", "parameter", S(BF16, "256,64"), "");
	I("ag", "all-gather-start", tuple(S(BF16, "256,64"), S(BF16,
	    "1024,64")), "shard");
	I("t", "tuple", tuple(S(BF16, "256,64"), S(BF16, "1024,64")),
	    "shard shard");
	load();
	/* The reduction: 1024 x 512 converts, 1024 x 511 adds; bytes: the
	 * bf16 input read once (1 MiB) and the f32[1024] output. */
	COST("input_reduce_fusion", 1024 * 512 + 1024 * 511, 0,
	    2 * 1024 * 512 + 4 * 1024, 0);
	/* Its initialiser: the 4 KiB output, nothing else. */
	COST("reduce.1.1", 0, 0, 4 * 1024, 0);
	/* all-gather-start: operand 2*256*64 + outputs 2*256*64 + 2*1024*64
	 * (XLA 2024: 32768 + 16). */
	COST("ag", 0, 0, 2 * 256 * 64 + 2 * 256 * 64 + 2 * 1024 * 64, 0);
	COST("t", 0, 0, 2 * 8, 0);
}

/*
 * TransformerEngine fused attention FFI calls: B = 2, H = 16, Sq = Skv =
 * 2048, Dqk = Dv = 128: QK^T = PV = 2 * 2 * 16 * 2048^2 * 128 flops;
 * forward QK^T + PV, backward 3 QK^T + 2 PV; with mask_type 2 (causal)
 * half of those.  Without the attributes (an older TE, opaque
 * descriptors): unknown.
 */
static void
test_te_attention(void)
{
	static const char attrs[] = "{attn_heads = 16 : i64, bias_batch = 0 "
	    ": i64, bias_heads = 0 : i64, deterministic = false, "
	    "dropout_probability = 0.000000e+00 : f64, input_batch = 2 : i64,"
	    " is_training = true, kv_max_seqlen = 2048 : i64, "
	    "max_segments_per_seq = 1 : i64, num_gqa_groups = 16 : i64, "
	    "q_max_seqlen = 2048 : i64, qk_head_dim = 128 : i64, "
	    "v_head_dim = 128 : i64, window_size_left = -1 : i64}";
	/* Each call with the attributes, and its flops in GEMMs of QK^T's
	 * size (all matmul). */
	/* The same with a causal mask (mask_type 2, NVTE_CAUSAL_MASK):
	 * half of each GEMM; padding alone (1) changes nothing. */
	static const char causal[] = "{attn_heads = 16 : i64, input_batch = "
	    "2 : i64, kv_max_seqlen = 2048 : i64, mask_type = 2 : i64, "
	    "q_max_seqlen = 2048 : i64, qk_head_dim = 128 : i64, "
	    "v_head_dim = 128 : i64}";
	static const struct {
		const char *name, *causal, *target;
		int64_t gemms;
	} te[] = {
		{ "fwd", "cfwd", "te_fused_attn_forward_ffi", 2 },
		{ "bwd", "cbwd", "te_fused_attn_backward_ffi", 5 },
	};
	const int64_t gemm = 2LL * 2 * 16 * 2048 * 2048 * 128;
	const int64_t qkv = 2LL * 2 * 2048 * 16 * 128;	/* bytes of one */
	Xla__HloInstructionProto *p;
	size_t i;

	reset();
	begin(1);
	I("q", "parameter", S(BF16, "2,2048,16,128"), "");
	I("k", "parameter", S(BF16, "2,2048,16,128"), "");
	I("v", "parameter", S(BF16, "2,2048,16,128"), "");
	for (i = 0; i < sizeof(te) / sizeof(te[0]); i++) {
		p = I(te[i].name, "custom-call", tuple(S(BF16,
		    "2,2048,16,128"), S(U8, "1048576")), "q k v");
		p->custom_call_target = (char *)te[i].target;
		p->backend_config.data = (uint8_t *)attrs;
		p->backend_config.len = strlen(attrs);
	}
	for (i = 0; i < sizeof(te) / sizeof(te[0]); i++) {
		p = I(te[i].causal, "custom-call", tuple(S(BF16,
		    "2,2048,16,128"), S(U8, "1048576")), "q k v");
		p->custom_call_target = (char *)te[i].target;
		p->backend_config.data = (uint8_t *)causal;
		p->backend_config.len = strlen(causal);
	}
	p = I("old", "custom-call", S(BF16, "2,2048,16,128"), "q k v");
	p->custom_call_target = "te_fused_attn_forward_ffi";
	p->backend_config.data = (uint8_t *)"\001\002";
	p->backend_config.len = 2;
	load();
	/* Bytes: q, k, v and the output; the workspace left out. */
	for (i = 0; i < sizeof(te) / sizeof(te[0]); i++) {
		COST(te[i].name, te[i].gemms * gemm, 0, 4 * qkv,
		    te[i].gemms * gemm);
		COST(te[i].causal, te[i].gemms * gemm / 2, 0, 4 * qkv,
		    te[i].gemms * gemm / 2);
	}
	CHECK_STR(hlocost_dtype(cost("fwd").dtype), "bf16");
	CHECK_INT(cost("old").known, 0);
}

/* Reduce (add over dimension 1), Map (x => exp(x + 0.5)): an elementwise
 * flop and a transcendental per element. */
static void
test_reduce_map(void)
{
	reset();
	begin(2);
	I("x", "parameter", S(F32, ""), "");
	I("y", "parameter", S(F32, ""), "");
	I("sum", "add", S(F32, ""), "x y");
	begin(3);
	I("a", "parameter", S(F32, ""), "");
	I("half", "constant", S(F32, ""), "");
	I("ah", "add", S(F32, ""), "a half");
	I("e", "exponential", S(F32, ""), "ah");
	begin(1);
	I("in", "parameter", S(F32, "10,20"), "");
	I("zero", "constant", S(F32, ""), "");
	calls(I("reduce", "reduce", S(F32, "10"), "in zero"), 2, 0);
	I("v", "parameter", S(F32, "10"), "");
	calls(I("map", "map", S(F32, "10"), "v"), 3, 0);
	I("tanh", "tanh", S(F32, "10"), "v");
	load();
	COST("reduce", 10 * 20 - 10, 0, 4 * (10 * 20 + 1 + 10), 0);
	COST("map", 10, 10, 80, 0);
	COST("tanh", 0, 10, 80, 0);
}

/*
 * Fusions: LoopFusion (16 flops, 4 transcendentals, 64 bytes), NoLayout
 * (a broadcast parameter: each broadcast reads the whole parameter),
 * Broadcast (an s8 scalar: 10000 + 1 bytes), and a parameter read
 * through a slice (FusionParameterReadBytes: the slice's size, not the
 * parameter's: 40 + 40 bytes for a 10-element slice of 100 floats).
 */
static void
test_fusion(void)
{
	reset();
	begin(2);
	I("p0", "parameter", S(F32, "2,2"), "")->parameter_number = 0;
	I("p1", "parameter", S(F32, "2,2"), "")->parameter_number = 1;
	I("p2", "parameter", S(F32, "2,2"), "")->parameter_number = 2;
	I("add", "add", S(F32, "2,2"), "p0 p1");
	I("clamp", "clamp", S(F32, "2,2"), "p1 add add");
	I("exp", "exponential", S(F32, "2,2"), "add");
	I("mul", "multiply", S(F32, "2,2"), "exp p2");
	I("sub", "subtract", S(F32, "2,2"), "mul clamp");
	begin(3);
	I("q0", "parameter", S(F32, "2,3,4,5"), "")->parameter_number = 0;
	I("q1", "parameter", S(F32, "3"), "")->parameter_number = 1;
	I("bc", "broadcast", S(F32, "2,3,4,5"), "q1");
	I("qadd", "add", S(F32, "2,3,4,5"), "q0 bc");
	begin(4);
	I("r0", "parameter", S(S8, ""), "")->parameter_number = 0;
	I("c1", "constant", S(S8, ""), "");
	I("a1", "add", S(S8, ""), "r0 c1");
	I("b1", "broadcast", S(S8, "10000"), "a1");
	I("b2", "broadcast", S(S8, "10000"), "c1");
	I("r1", "add", S(S8, "10000"), "b1 b2");
	begin(5);
	I("s0", "parameter", S(F32, "100"), "")->parameter_number = 0;
	I("sl", "slice", S(F32, "10"), "s0");
	I("neg", "negate", S(F32, "10"), "sl");
	begin(1);
	I("c1e", "parameter", S(F32, "2,2"), "");
	I("c2e", "parameter", S(F32, "2,2"), "");
	I("c3e", "parameter", S(F32, "2,2"), "");
	calls(I("loop", "fusion", S(F32, "2,2"), "c1e c2e c3e"), 2, 0);
	I("big", "parameter", S(F32, "2,3,4,5"), "");
	I("small", "parameter", S(F32, "3"), "");
	calls(I("nolayout", "fusion", S(F32, "2,3,4,5"), "big small"), 3, 0);
	I("s8p", "parameter", S(S8, ""), "");
	calls(I("bcast", "fusion", S(S8, "10000"), "s8p"), 4, 0);
	I("vec", "parameter", S(F32, "100"), "");
	calls(I("sliced", "fusion", S(F32, "10"), "vec"), 5, 0);
	load();
	COST("loop", 16, 4, 64, 0);
	COST("nolayout", 120, 0, 4 * (2 * 3 * 4 * 5 + 3 + 2 * 3 * 4 * 5), 0);
	COST("bcast", 10000 + 1, 0, 10000 + 1, 0);
	COST("sliced", 10, 0, 40 + 40, 0);
}

/*
 * A while loop: its cost is the body plus the condition once
 * (HandleWhile); the profile multiplies by the executions.  Body: an
 * f32[10] add (10 flops) and a dot f32[4,8] x f32[8,2] (2*4*2*8 = 128);
 * condition: a scalar compare (1 flop).
 */
static void
test_while(void)
{
	reset();
	begin(2);
	I("bp", "parameter", S(F32, "10"), "");
	I("badd", "add", S(F32, "10"), "bp bp");
	I("l", "parameter", S(F32, "4,8"), "");
	I("r", "parameter", S(F32, "8,2"), "");
	dot(I("bdot", "dot", S(F32, "4,2"), "l r"), "1", "0", "", "");
	begin(3);
	I("cp", "parameter", S(F32, ""), "");
	I("cmp", "compare", S(PRED, ""), "cp cp");
	begin(1);
	I("init", "parameter", S(F32, "10"), "");
	calls(I("loop", "while", S(F32, "10"), "init"), 3, 2);
	load();
	COST("loop", 10 + 128 + 1, 0, -1, 128);
	COST("bdot", 128, 0, 4 * (32 + 16 + 8), 128);
}

/*
 * Custom calls.  cuBLAS gemm: 2*M*N*K from gemm_backend_config (wrapped
 * in GpuBackendConfig, and alone as XLA wrote it before 2024), the
 * output tuple's workspace not counted.  cuDNN: gpu_hlo_cost_analysis
 * _test.cc ConvCustomCall states 159694848 flops (s8, 5x5 window,
 * padding 2: 2 * 12 * 4 * 128 * 114^2).  Attention: QK^T and PV of
 * B=2, H=4, S=128, D=64: 2 * (2*2*4*128*128*64), causal half of that.
 * Anything else: unknown.
 */
static void
test_custom(void)
{
	Xla__HloInstructionProto *p;
	static const char wrapped[] = "{\"operation_queue_id\":\"0\","
	    "\"wait_on_operation_queues\":[],\"gemm_backend_config\":"
	    "{\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":"
	    "{\"lhs_contracting_dimensions\":[\"1\"],"
	    "\"rhs_contracting_dimensions\":[\"0\"],"
	    "\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},"
	    "\"epilogue\":\"DEFAULT\"}}";
	static const char bare[] = "{\"alpha_real\":1,\"dot_dimension_numbers\""
	    ":{\"lhs_contracting_dimensions\":[\"2\"],"
	    "\"rhs_contracting_dimensions\":[\"1\"],"
	    "\"lhs_batch_dimensions\":[\"0\"],\"rhs_batch_dimensions\":[\"0\"]}}";
	static const char fmha[] = "{\"cudnn_fmha_backend_config\":{"
	    "\"bmm1_dot_dimension_numbers\":{\"lhs_contracting_dimensions\":"
	    "[\"3\"],\"rhs_contracting_dimensions\":[\"3\"],"
	    "\"lhs_batch_dimensions\":[\"0\",\"1\"],\"rhs_batch_dimensions\":"
	    "[\"0\",\"1\"]},\"bmm2_dot_dimension_numbers\":{"
	    "\"lhs_contracting_dimensions\":[\"3\"],"
	    "\"rhs_contracting_dimensions\":[\"2\"],\"lhs_batch_dimensions\":"
	    "[\"0\",\"1\"],\"rhs_batch_dimensions\":[\"0\",\"1\"]}}}";
	/* The same with mask_type CAUSAL: half of each GEMM. */
	static const char fmha_causal[] = "{\"cudnn_fmha_backend_config\":{"
	    "\"mask_type\":\"CAUSAL\",\"bmm1_dot_dimension_numbers\":{"
	    "\"lhs_contracting_dimensions\":[\"3\"],"
	    "\"rhs_contracting_dimensions\":[\"3\"],"
	    "\"lhs_batch_dimensions\":[\"0\",\"1\"],\"rhs_batch_dimensions\":"
	    "[\"0\",\"1\"]},\"bmm2_dot_dimension_numbers\":{"
	    "\"lhs_contracting_dimensions\":[\"3\"],"
	    "\"rhs_contracting_dimensions\":[\"2\"],\"lhs_batch_dimensions\":"
	    "[\"0\",\"1\"],\"rhs_batch_dimensions\":[\"0\",\"1\"]}}}";

	reset();
	begin(1);
	I("a", "parameter", S(BF16, "8192,2048"), "");
	I("b", "parameter", S(BF16, "2048,768"), "");
	p = I("gemm", "custom-call", tuple(S(BF16, "8192,768"),
	    S(S8, "4194304")), "a b");
	p->custom_call_target = "__cublas$lt$matmul";
	p->backend_config.data = (uint8_t *)wrapped;
	p->backend_config.len = strlen(wrapped);
	I("ba", "parameter", S(BF16, "48,64,2048"), "");
	I("bb", "parameter", S(BF16, "48,2048,2048"), "");
	p = I("bgemm", "custom-call", S(BF16, "48,64,2048"), "ba bb");
	p->custom_call_target = "__cublas$gemm";
	p->backend_config.data = (uint8_t *)bare;
	p->backend_config.len = strlen(bare);
	I("x", "parameter", S(S8, "128,12,24,24,4"), "");
	I("w", "parameter", S(S8, "16,12,5,5,4"), "");
	I("bias", "parameter", S(F32, "16"), "");
	p = I("cudnn", "custom-call", tuple(S(S8, "128,4,24,24,4"),
	    S(U8, "0")), "x w bias");
	p->custom_call_target = "__cudnn$convBiasActivationForward";
	conv_nchw(p, 2);
	window(p, 5, 1, 2, 2, 1, 1);
	window(p, 5, 1, 2, 2, 1, 1);
	I("q", "parameter", S(BF16, "2,4,128,64"), "");
	I("k", "parameter", S(BF16, "2,4,128,64"), "");
	I("v", "parameter", S(BF16, "2,4,128,64"), "");
	p = I("attn", "custom-call", tuple(S(BF16, "2,4,128,64"),
	    S(U8, "0")), "q k v");
	p->custom_call_target = "__cudnn$fmhaSoftmax";
	p->backend_config.data = (uint8_t *)fmha;
	p->backend_config.len = strlen(fmha);
	p = I("cattn", "custom-call", tuple(S(BF16, "2,4,128,64"),
	    S(U8, "0")), "q k v");
	p->custom_call_target = "__cudnn$fmhaSoftmax";
	p->backend_config.data = (uint8_t *)fmha_causal;
	p->backend_config.len = strlen(fmha_causal);
	p = I("topk", "custom-call", S(F32, "10"), "bias");
	p->custom_call_target = "__gpu$TopK";
	p = I("broken", "custom-call", S(BF16, "8192,768"), "a b");
	p->custom_call_target = "__cublas$gemm";
	p->backend_config.data = (uint8_t *)"{\"gemm_backend_config\":";
	p->backend_config.len = 23;
	load();
	COST("gemm", 2LL * 8192 * 768 * 2048, 0,
	    2 * (8192 * 2048 + 2048 * 768 + 8192 * 768), 2LL * 8192 * 768 * 2048);
	CHECK_STR(hlocost_dtype(cost("gemm").dtype), "bf16");
	COST("bgemm", 2LL * 48 * 64 * 2048 * 2048, 0, -1,
	    2LL * 48 * 64 * 2048 * 2048);
	COST("cudnn", 159694848, 0, -1, 159694848);
	COST("attn", 2LL * 2 * 2 * 4 * 128 * 128 * 64, 0, -1,
	    2LL * 2 * 2 * 4 * 128 * 128 * 64);
	COST("cattn", 2LL * 2 * 4 * 128 * 128 * 64, 0, -1,
	    2LL * 2 * 4 * 128 * 128 * 64);
	CHECK_INT(cost("topk").known, 0);
	CHECK_INT(cost("broken").known, 0);
	/* Free ops and the default rule. */
	CHECK_INT(cost("a").known, 1);
	CHECK_INT(cost("a").bytes, 0);
}

/* ---- backend_config JSON (jansson) ---- */

/* The cost of a cuBLAS gemm a[64,32] x b[32,16] (2*64*16*32 flops when
 * its dimension numbers are read) whose backend_config is CFG[0..LEN). */
static struct hlocost
gemm_cost(const char *cfg, size_t len)
{
	Xla__HloInstructionProto *p;

	reset();
	begin(1);
	I("a", "parameter", S(BF16, "64,32"), "");
	I("b", "parameter", S(BF16, "32,16"), "");
	p = I("g", "custom-call", S(BF16, "64,16"), "a b");
	p->custom_call_target = "__cublas$gemm";
	p->backend_config.data = (uint8_t *)cfg;
	p->backend_config.len = len;
	load();
	return cost("g");
}

#define GEMM_FLOPS (2LL * 64 * 16 * 32)
#define DN(l) "{\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":" \
	l ",\"rhs_contracting_dimensions\":[0]}}"

static void
test_json(void)
{
	static const char trunc[] = "{\"gemm_backend_config\":";
	static const char *const unknown[] = {
		DN("[1.5]"), DN("[true]"), DN("[\"1x\"]"), DN("{\"0\":1}"),
		DN("[99999999999999999999]"), "{\"dot_dimension_numbers\":7}",
		"[1]", "{}", "{\"a\":1} trailing"
	};
	static const char esc[] = "{\"dot_dimension\\u005fnumbers\":{"
	    "\"lhs_contracting_dimensions\":[1]}}";
	struct hlocost c;
	char *deep, *big;
	size_t i, n;

	/* Integers as numbers and as strings (protobuf's int64 form), blanks,
	 * a key written with an escape (the same key to JSON). */
	c = gemm_cost(DN("[1]"), strlen(DN("[1]")));
	CHECK_INT(c.matmul_flops, GEMM_FLOPS);
	c = gemm_cost(DN(" [ \"1\" ] "), strlen(DN(" [ \"1\" ] ")));
	CHECK_INT(c.matmul_flops, GEMM_FLOPS);
	c = gemm_cost(esc, strlen(esc));
	CHECK_INT(c.matmul_flops, GEMM_FLOPS);
	/* Not integers, not arrays, absent, not one JSON value: unknown. */
	for (i = 0; i < sizeof(unknown) / sizeof(*unknown); i++)
		CHECK_INT(gemm_cost(unknown[i], strlen(unknown[i])).known, 0);
	/* Malformed text: unknown, and the message names the instruction
	 * and the byte where the text ends (23 bytes: cut after the colon). */
	err_fail("none");
	CHECK_INT(gemm_cost(trunc, strlen(trunc)).known, 0);
	CHECK_INT(strncmp(err_msg(), "instruction g: backend_config: "
	    "malformed JSON at byte 23: ", 58), 0);
	/* ... and counted for the extractor's one note per module. */
	{
		const char *first = "x";

		CHECK_INT(hlocost_malformed(cc, &first), 1);
		CHECK_STR(first, "g");
		(void)gemm_cost(DN("[1]"), strlen(DN("[1]")));
		CHECK_INT(hlocost_malformed(cc, &first), 0);
		CHECK_INT(first == NULL, 1);
		(void)gemm_cost(unknown[0], strlen(unknown[0]));
		CHECK_INT(hlocost_malformed(cc, &first), 0);
	}
	/* Nesting 100000 deep is refused, not recursed into. */
	n = 100000;
	deep = malloc(n);
	memset(deep, '[', n);
	CHECK_INT(gemm_cost(deep, n).known, 0);
	free(deep);
	/* 65 dimension numbers: more than any shape has, unknown. */
	big = malloc(1000);
	strcpy(big, "{\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[");
	for (i = 0; i < 65; i++)
		strcat(big, i ? ",1" : "1");
	strcat(big, "]}}");
	CHECK_INT(gemm_cost(big, strlen(big)).known, 0);
	free(big);
}

int
main(void)
{
	test_dot();
	test_conv();
	test_conv_hostile();
	test_missing_param();
	test_initialiser_tuples();
	test_te_attention();
	test_reduce_map();
	test_fusion();
	test_while();
	test_custom();
	no_seeds = 1;	/* the json target has these */
	test_json();
	hlocost_free(cc);
	hlo_free(m);
	reset();
	free(tal_p);
	return unit_done("hlocost_test");
}
