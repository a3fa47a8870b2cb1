/*
 * The cost rules of hlocost.h.  Each rule names the XLA function it
 * follows (HloCostAnalysis::Handle<Op> unless said otherwise).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "formats/hlo.h"
#include "formats/hlocost.h"

/* hlo_cost_analysis.h kFmaFlops. */
#define FMA_FLOPS	2

/* ShapeUtil::ByteSizeOf's pointer size for a tuple's index table (XLA's
 * GPU backend uses 8): what a tuple instruction writes (HandleTuple). */
#define POINTER_SIZE	8

/* HloCostAnalysis::immediate_constant_max_elements(): larger constants
 * inside a fusion are read from memory. */
#define IMMEDIATE_CONSTANT_MAX	1

/* Calls nested deeper than this (a cycle, or a hostile dump) are unknown. */
#define MAXDEPTH	200

/* The most dimension numbers read from a backend_config array. */
#define MAXDIMS		64

/* xla_data.proto PrimitiveType numbers used by the rules. */
enum { T_TUPLE = 13 };

enum { UNSEEN, VISITING, DONE };

struct compcost {
	int state;
	struct hlocost sum;	/* Σ over its instructions */
};

struct hlocost_ctx {
	const struct hlo_module *m;
	size_t n;
	size_t *ustart, *users;	/* users of i: users[ustart[i]..ustart[i+1]) */
	struct compcost *comp;
	unsigned char *fused;	/* per computation: called by a fusion */
};

/* ---- saturating arithmetic ---- */

static uint64_t
add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
mul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t
sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* ---- shapes (ShapeUtil) ---- */

static int
is_tuple(const struct hlo_shape *s)
{
	return s->type == T_TUPLE || s->ntuple > 0;
}

/* ElementsIn: the product of the dimensions (1 for a scalar); 0 for a
 * tuple or a negative (dynamic, unknown) dimension. */
static uint64_t
elems(const struct hlo_shape *s)
{
	uint64_t e = 1;
	size_t i;

	if (is_tuple(s))
		return 0;
	for (i = 0; i < s->ndims; i++) {
		if (s->dims[i] < 0)
			return 0;
		e = mul(e, (uint64_t)s->dims[i]);
	}
	return e;
}

/* ElementsInRecursive: over a tuple's leaves. */
static uint64_t
elems_rec(const struct hlo_shape *s)
{
	uint64_t e = 0;
	size_t i;

	if (!is_tuple(s))
		return elems(s);
	for (i = 0; i < s->ntuple; i++)
		e = add(e, elems_rec(&s->tuple[i]));
	return e;
}

/* GetShapeSize as XLA's HloCostAnalysis has it today: an array's
 * elements times their width (rounded up to whole bytes), a tuple the
 * sum of its array leaves (XLA 2024 counted a tuple's index table,
 * 8 bytes per element: ByteSizeOf(shape, 8)). */
static uint64_t
size(const struct hlo_shape *s)
{
	uint64_t b = 0;
	size_t k;

	if (is_tuple(s)) {
		for (k = 0; k < s->ntuple; k++)
			b = add(b, size(&s->tuple[k]));
		return b;
	}
	if (s->bits <= 0)
		return 0;
	b = mul(elems(s), (uint64_t)s->bits);
	return b / 8 + (b % 8 != 0);
}

/* The array of a result that may be a tuple (cuBLAS, cuDNN: element 0). */
static const struct hlo_shape *
first(const struct hlo_shape *s)
{
	return is_tuple(s) && s->ntuple > 0 ? &s->tuple[0] : s;
}

static int64_t
dim(const struct hlo_shape *s, int64_t d)
{
	if (d < 0 || (uint64_t)d >= s->ndims || s->dims[d] < 0)
		return 0;
	return s->dims[d];
}

/* ---- instructions ---- */

static const struct hlo_cost_facts *
facts(const struct hlocost_ctx *c, size_t i)
{
	return hlo_cost_facts(c->m, i);
}

static const char *
opcode(const struct hlocost_ctx *c, size_t i)
{
	return hlo_inst(c->m, i)->opcode;
}

static int
is_op(const struct hlocost_ctx *c, size_t i, const char *op)
{
	return i != HLO_NONE && strcmp(opcode(c, i), op) == 0;
}

/* Operand K of I, or HLO_NONE. */
static size_t
operand(const struct hlocost_ctx *c, size_t i, size_t k)
{
	const struct hlo_cost_facts *f = facts(c, i);

	return k < f->noperand ? f->operand[k] : HLO_NONE;
}

/* The shape of operand K of I, or NULL. */
static const struct hlo_shape *
operand_shape(const struct hlocost_ctx *c, size_t i, size_t k)
{
	size_t o = operand(c, i, k);

	return o == HLO_NONE ? NULL : &facts(c, o)->shape;
}

static uint64_t
operand_size(const struct hlocost_ctx *c, size_t i, size_t k)
{
	const struct hlo_shape *s = operand_shape(c, i, k);

	return s ? size(s) : 0;
}

static int
in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/* HandleElementwiseOp's transcendental opcodes (kTan too, newer XLA). */
static const char *const transcendental_ops[] = {
	"exponential", "log", "logistic", "power", "sqrt", "cbrt", "rsqrt",
	"tanh", "sine", "cosine", "tan", "exponential-minus-one",
	"log-plus-one", "atan2", NULL
};

/* The other opcodes that reach HandleElementwiseOp (DfsHloVisitor's
 * unary and binary elementwise handlers, compare, clamp, select,
 * convert, reduce-precision). */
static const char *const elementwise_ops[] = {
	"abs", "add", "and", "bitcast-convert", "ceil", "clamp",
	"compare", "complex", "convert", "count-leading-zeros", "divide",
	"erf", "floor", "imag", "is-finite", "maximum", "minimum", "multiply",
	"negate", "not", "or", "popcnt", "real", "reduce-precision",
	"remainder", "round-nearest-afz", "round-nearest-even", "select",
	"shift-left", "shift-right-arithmetic", "shift-right-logical", "sign",
	"stochastic-convert", "subtract", "xor", NULL
};

/* Instructions that touch no memory (bytes 0). */
static const char *const free_ops[] = {
	"bitcast", "get-tuple-element", "parameter", "constant", "after-all",
	"add-dependency", "domain", NULL
};

static void cost(struct hlocost_ctx *, size_t, int, struct hlocost *);

/* Preprocess: the default bytes, operands plus output. */
static uint64_t
default_bytes(const struct hlocost_ctx *c, size_t i)
{
	const struct hlo_cost_facts *f = facts(c, i);
	uint64_t b = size(&f->shape);
	size_t k;

	for (k = 0; k < f->noperand; k++)
		b = add(b, operand_size(c, i, k));
	return b;
}

static void
add_cost(struct hlocost *a, const struct hlocost *b)
{
	a->known = a->known && b->known;
	a->flops = add(a->flops, b->flops);
	a->transcendentals = add(a->transcendentals, b->transcendentals);
	a->bytes = add(a->bytes, b->bytes);
	a->matmul_flops = add(a->matmul_flops, b->matmul_flops);
	if (a->dtype == 0)
		a->dtype = b->dtype;
}

/*
 * ProcessSubcomputation: the sum over computation K's instructions,
 * memoised.  A cycle or a missing computation is unknown.
 */
static void
comp_cost(struct hlocost_ctx *c, size_t k, int depth, struct hlocost *out)
{
	struct compcost *cc;
	struct hlo_comp_info ci;
	struct hlocost one;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (k == HLO_NONE || depth > MAXDEPTH)
		return;
	cc = &c->comp[k];
	if (cc->state == DONE) {
		*out = cc->sum;
		return;
	}
	if (cc->state == VISITING)
		return;
	cc->state = VISITING;
	hlo_comp(c->m, k, &ci);
	memset(&cc->sum, 0, sizeof(cc->sum));
	cc->sum.known = 1;
	for (i = ci.first; i < ci.first + ci.n; i++) {
		cost(c, i, depth + 1, &one);
		add_cost(&cc->sum, &one);
	}
	cc->state = DONE;
	*out = cc->sum;
}

/* Called computation K of I, costed; unknown when absent. */
static void
called_cost(struct hlocost_ctx *c, size_t i, size_t k, int depth,
    struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);

	comp_cost(c, k < f->ncalled ? f->called[k] : HLO_NONE, depth, out);
}

/* Flops and transcendentals of a sub-computation times N
 * (KeyToCopyFromSubcomputation: bytes are not copied). */
static void
scaled(struct hlocost *out, const struct hlocost *sub, uint64_t n)
{
	out->known = out->known && sub->known;
	out->flops = add(out->flops, mul(sub->flops, n));
	out->transcendentals = add(out->transcendentals,
	    mul(sub->transcendentals, n));
}

/* ---- dot and convolution ---- */

/* GetDotFlops: 2 * elements(result) * Π lhs[contracting]. */
static uint64_t
dot_flops(const struct hlo_shape *lhs, const struct hlo_shape *result,
    const int64_t *contracting, size_t n)
{
	uint64_t w = 1;
	size_t k;

	for (k = 0; k < n; k++)
		w = mul(w, (uint64_t)dim(lhs, contracting[k]));
	return mul(mul(FMA_FLOPS, elems(result)), w);
}

/*
 * Window values (stride, padding, dilations) beyond +-2^31 are refused:
 * the instruction is unknown.  Within them, and with dimensions below
 * 2^63, every position below fits a 128-bit integer with room.
 */
#define WINDOW_MAX	((int64_t)1 << 31)

/* The most positions one convolution may walk (over all its spatial
 * dimensions): a shape from a file is bounded only by int64, and beyond
 * this the instruction is unknown rather than slow. */
#define CONV_BUDGET	((uint64_t)1 << 20)

__extension__ typedef __int128 i128;

static int
window_ok(const struct hlo_window_dim *w)
{
	const int64_t v[6] = { w->size, w->stride, w->pad_low, w->pad_high,
	    w->window_dilation, w->base_dilation };
	size_t k;

	for (k = 0; k < 6; k++)
		if (v[k] < -WINDOW_MAX || v[k] > WINDOW_MAX)
			return 0;
	return 1;
}

/* Whether every window dimension of F is within WINDOW_MAX. */
static int
windows_ok(const struct hlo_cost_facts *f)
{
	size_t d;

	for (d = 0; d < f->x->nwindow; d++)
		if (!window_ok(&f->x->window[d]))
			return 0;
	return 1;
}

/* Floor of A / B and A mod B in [0, B), for B > 0. */
static i128
floordiv(i128 a, i128 b)
{
	i128 q = a / b;

	return a % b != 0 && a < 0 ? q - 1 : q;
}

static i128
modp(i128 a, i128 b)
{
	return a - floordiv(a, b) * b;
}

static int64_t
gcd(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The inverse of A modulo M (gcd(A, M) = 1, 0 < M <= WINDOW_MAX). */
static int64_t
inverse(int64_t a, int64_t m)
{
	int64_t r0 = m, r1 = modp(a, m), t0 = 0, t1 = 1, q, x;

	while (r1 != 0) {
		q = r0 / r1;
		x = r0 - q * r1;
		r0 = r1;
		r1 = x;
		x = t0 - q * t1;
		t0 = t1;
		t1 = x;
	}
	return (int64_t)modp(t0, m);
}

/*
 * One arithmetic progression of positions u = A + x * STEP (x in [0, N),
 * STEP >= 1) on the input of IN elements dilated by BASE: the number of
 * x whose u is an input element (u = BASE * i, 0 <= i < IN).  Closed
 * form: the range of x that stays within [0, (IN - 1) BASE], intersected
 * with the solutions of x STEP = -A (mod BASE).
 */
static uint64_t
progression(i128 a, int64_t step, int64_t n, int64_t in, int64_t base)
{
	i128 lo = -floordiv(a, step), hi = floordiv((i128)(in - 1) * base - a,
	    step), first;
	int64_t s, g, period;
	i128 r, x0;

	if (lo < 0)
		lo = 0;
	if (hi > n - 1)
		hi = n - 1;
	if (lo > hi)
		return 0;
	if (base == 1)
		return (uint64_t)(hi - lo + 1);
	s = step % base;
	r = modp(-a, base);
	g = gcd(s, base);		/* gcd(0, base) = base */
	if (r % g != 0)
		return 0;
	period = base / g;
	x0 = period == 1 ? 0 : modp((r / g) * inverse(s / g, period), period);
	first = lo + modp(x0 - lo, period);
	return first > hi ? 0 : (uint64_t)((hi - first) / period + 1);
}

/*
 * The number of (kernel, output) position pairs of one spatial dimension
 * that read the input: GetConvolutionFlops' inner loops, counted along
 * the shorter of the two (a closed form over the other), so in O(min
 * (kernel, out)) rather than O(kernel x out).  The walk is charged to
 * *BUDGET; 0, or -1 when the window is out of range or the budget spent.
 */
static int
valid_positions(int64_t in, int64_t kernel, int64_t out,
    const struct hlo_window_dim *w, uint64_t *budget, uint64_t *count)
{
	int64_t base = w->base_dilation > 0 ? w->base_dilation : 1;
	int64_t wdil = w->window_dilation > 0 ? w->window_dilation : 1;
	int64_t stride = w->stride > 0 ? w->stride : 1;
	int64_t x, n = kernel < out ? kernel : out;
	uint64_t c = 0;

	*count = 0;
	if (!window_ok(w))
		return -1;
	if (in <= 0 || kernel <= 0 || out <= 0)
		return 0;
	if ((uint64_t)n > *budget)
		return -1;
	*budget -= (uint64_t)n;
	/* Saturating, as every count of this file: 2^62 outputs under 4
	 * taps are 2^64 pairs, which a plain sum wraps to 0 flops. */
	for (x = 0; x < n; x++)
		if (kernel <= out)	/* kernel tap x, over the outputs */
			c = add(c, progression((i128)x * wdil - w->pad_low,
			    stride, out, in, base));
		else			/* output x, over the kernel taps */
			c = add(c, progression((i128)x * stride - w->pad_low,
			    wdil, kernel, in, base));
	*count = c;
	return 0;
}

/* GetConvolutionFlops for instruction I with result shape RESULT into
 * *FLOPS: 0, or -1 when it cannot be counted (valid_positions). */
static int
conv_flops(const struct hlocost_ctx *c, size_t i,
    const struct hlo_shape *result, uint64_t *flops)
{
	const struct hlo_cost_facts *f = facts(c, i);
	const struct hlo_shape *lhs = operand_shape(c, i, 0);
	const struct hlo_shape *rhs = operand_shape(c, i, 1);
	const struct hlo_conv_dnums *d = f->x->conv;
	int64_t fg = f->x->feature_group_count > 0 ? f->x->feature_group_count : 1;
	int64_t bg = f->x->batch_group_count > 0 ? f->x->batch_group_count : 1;
	uint64_t fma, pos = 1, one, budget = CONV_BUDGET;
	size_t s;

	*flops = 0;
	if (lhs == NULL || rhs == NULL || d == NULL)
		return 0;
	fma = mul(mul((uint64_t)(dim(lhs, d->input_feature) / fg),
	    (uint64_t)dim(result, d->output_feature)),
	    (uint64_t)(dim(lhs, d->input_batch) / bg));
	for (s = 0; s < f->x->nwindow && s < d->nspatial; s++) {
		if (valid_positions(dim(lhs, d->input_spatial[s]),
		    dim(rhs, d->kernel_spatial[s]),
		    dim(result, d->output_spatial[s]), &f->x->window[s],
		    &budget, &one) != 0)
			return -1;
		pos = mul(pos, one);
	}
	*flops = mul(mul(fma, pos), FMA_FLOPS);
	return 0;
}

static void
matmul(struct hlocost *out, uint64_t flops, const struct hlo_shape *lhs)
{
	out->flops = flops;
	out->matmul_flops = flops;
	out->dtype = lhs ? lhs->type : 0;
}

/* ---- custom calls (GpuHloCostAnalysis::HandleCustomCall) ---- */

/*
 * The backend_config of instruction I parsed by jansson, or NULL when it
 * has none or it is not JSON; the latter records an err message naming
 * the instruction and the fault (byte offset and jansson's reason), for a
 * caller that wants to say why the instruction is unknown.
 */
static json_t *
backend_config(const struct hlocost_ctx *c, size_t i)
{
	const struct hlo_cost_facts *f = facts(c, i);
	json_error_t e;
	json_t *root;

	if (f->x->backend_config == NULL)
		return NULL;
	root = json_loadb(f->x->backend_config, f->x->backend_config_len,
	    JSON_ALLOW_NUL, &e);
	if (root == NULL)
		err_fail("instruction %s: backend_config: malformed JSON at "
		    "byte %d: %s", hlo_inst(c->m, i)->name, e.position, e.text);
	return root;
}

/* The value at PATH[0..NPATH) (object keys, outermost first) under V, or
 * NULL when a key is absent or a value on the way is no object. */
static json_t *
json_at(json_t *v, const char *const *path, size_t npath)
{
	size_t k;

	for (k = 0; k < npath && v != NULL; k++)
		v = json_object_get(v, path[k]);
	return v;
}

/* V as an array of integers, each a JSON integer or a string holding one
 * (protobuf's JSON form of int64), into OUT[0..*NOUT), at most MAXDIMS:
 * 0, or -1 when it is no such array. */
static int
i64_array(const json_t *v, int64_t *out, size_t *nout)
{
	const json_t *e;
	size_t k;

	*nout = 0;
	if (!json_is_array(v) || json_array_size(v) > MAXDIMS)
		return -1;
	json_array_foreach(v, k, e) {
		if (json_is_integer(e))
			out[k] = json_integer_value(e);
		else if (!json_is_string(e) || num_i64(json_string_value(e),
		    json_string_length(e), &out[k]) < 0)
			return -1;
	}
	*nout = json_array_size(v);
	return 0;
}

/* Dot dimension numbers at PATH of the backend_config ROOT: 1 found, 0
 * not there or not readable. */
static int
json_dnums(json_t *root, const char *const *path, size_t npath,
    int64_t v[4][MAXDIMS], size_t n[4])
{
	static const char *const keys[4] = {
		"lhs_contracting_dimensions", "rhs_contracting_dimensions",
		"lhs_batch_dimensions", "rhs_batch_dimensions"
	};
	json_t *d = json_at(root, path, npath), *a;
	int k;

	if (!json_is_object(d))
		return 0;
	for (k = 0; k < 4; k++) {
		n[k] = 0;
		if ((a = json_object_get(d, keys[k])) == NULL) {
			if (k == 0)
				return 0;	/* no contracting dims: absent */
			continue;		/* empty repeated field */
		}
		if (i64_array(a, v[k], &n[k]) < 0)
			return 0;
	}
	return 1;
}

/* __cublas$gemm, __cublas$lt$matmul, __cublas$lt$matmul$f8 (IsCublasGemm). */
static int
is_gemm(const char *t)
{
	return strcmp(t, "__cublas$gemm") == 0 ||
	    strncmp(t, "__cublas$lt$matmul", 18) == 0;
}

/* IsCustomCallToDnnConvolution. */
static int
is_dnn_conv(const char *t)
{
	static const char *const conv[] = {
		"__cudnn$convForward", "__cudnn$convBackwardInput",
		"__cudnn$convBackwardFilter", "__cudnn$convBiasActivationForward",
		"__cudnn$convForwardGraph", NULL
	};

	return in_list(t, conv);
}

static int
gemm(const struct hlocost_ctx *c, size_t i, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	static const char *const wrapped[] = { "gemm_backend_config",
	    "dot_dimension_numbers" };
	const struct hlo_shape *lhs = operand_shape(c, i, 0);
	int64_t v[4][MAXDIMS];
	size_t n[4];
	json_t *cfg;
	int ok;

	if (lhs == NULL || (cfg = backend_config(c, i)) == NULL)
		return 0;
	/* GpuBackendConfig wraps the GemmBackendConfig; XLA before 2024
	 * wrote the GemmBackendConfig alone. */
	ok = json_dnums(cfg, wrapped, 2, v, n) ||
	    json_dnums(cfg, wrapped + 1, 1, v, n);
	json_decref(cfg);
	if (!ok)
		return 0;
	matmul(out, dot_flops(lhs, first(&f->shape), v[0], n[0]), lhs);
	out->bytes = sub0(default_bytes(c, i), size(&f->shape));
	out->bytes = add(out->bytes, size(first(&f->shape)));
	return 1;
}

/* The flops of one attention GEMM from dimension numbers V/N over LHS and
 * RHS: 2 * Π batch * Π lhs free * Π rhs free * Π contracting. */
static uint64_t
gemm_flops(const struct hlo_shape *lhs, const struct hlo_shape *rhs,
    int64_t v[4][MAXDIMS], size_t n[4])
{
	uint64_t f = FMA_FLOPS;
	size_t d, k;
	int used;

	for (d = 0; d < lhs->ndims; d++)
		f = mul(f, (uint64_t)dim(lhs, (int64_t)d));
	for (d = 0; d < rhs->ndims; d++) {
		used = 0;
		for (k = 0; k < n[1]; k++)
			used |= v[1][k] == (int64_t)d;
		for (k = 0; k < n[3]; k++)
			used |= v[3][k] == (int64_t)d;
		if (!used)
			f = mul(f, (uint64_t)dim(rhs, (int64_t)d));
	}
	return f;
}

/*
 * Whether a cuDNN fused attention's CudnnfMHABackendConfig CFG masks
 * causally: mask_type CAUSAL or PADDING_CAUSAL (XLA's xla/service/gpu/
 * backend_configs.proto MaskType; protobuf's JSON writes the enum's name,
 * a reader may meet its number, 2 or 3), or the older is_causal_mask.
 */
static int
fmha_causal(json_t *cfg)
{
	json_t *m = json_object_get(cfg, "mask_type");
	const char *t;

	if (json_is_true(json_object_get(cfg, "is_causal_mask")))
		return 1;
	if (json_is_integer(m))
		return json_integer_value(m) == 2 || json_integer_value(m) == 3;
	if ((t = json_string_value(m)) == NULL)
		return 0;
	return strcmp(t, "CAUSAL") == 0 || strcmp(t, "PADDING_CAUSAL") == 0 ||
	    strcmp(t, "2") == 0 || strcmp(t, "3") == 0;
}

static int
fmha(const struct hlocost_ctx *c, size_t i, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	static const char *const p1[] = { "cudnn_fmha_backend_config",
	    "bmm1_dot_dimension_numbers" };
	static const char *const p2[] = { "cudnn_fmha_backend_config",
	    "bmm2_dot_dimension_numbers" };
	const struct hlo_shape *q = operand_shape(c, i, 0);
	const struct hlo_shape *k = operand_shape(c, i, 1);
	const struct hlo_shape *v = operand_shape(c, i, 2);
	int64_t d1[4][MAXDIMS], d2[4][MAXDIMS];
	size_t n1[4], n2[4];
	uint64_t qk, pv;
	json_t *cfg;
	int ok, causal;

	if (q == NULL || k == NULL || v == NULL ||
	    (cfg = backend_config(c, i)) == NULL)
		return 0;
	ok = json_dnums(cfg, p1, 2, d1, n1) && json_dnums(cfg, p2, 2, d2, n2);
	causal = fmha_causal(json_object_get(cfg, "cudnn_fmha_backend_config"));
	json_decref(cfg);
	if (!ok)
		return 0;
	qk = gemm_flops(q, k, d1, n1);
	pv = dot_flops(v, first(&f->shape), d2[1], n2[1]);
	if (causal) {
		qk /= 2;
		pv /= 2;
	}
	if (strstr(f->x->custom_call_target, "Backward"))
		matmul(out, add(mul(3, qk), mul(2, pv)), q);
	else
		matmul(out, add(qk, pv), q);
	out->bytes = add(sub0(default_bytes(c, i), size(&f->shape)),
	    size(first(&f->shape)));
	return 1;
}

/*
 * Integer attribute KEY of a typed-FFI custom call's backend_config,
 * MLIR dictionary text such as "{attn_heads = 16 : i64, ...}", into *V:
 * 1, or 0 when absent or not a non-negative integer.
 */
static int
ffi_attr(const char *cfg, size_t len, const char *key, int64_t *v)
{
	size_t k = strlen(key), at, e;

	for (at = 0; at + k + 3 <= len; at++) {
		if (memcmp(cfg + at, key, k) != 0 || (at > 0 &&
		    cfg[at - 1] != '{' && cfg[at - 1] != ' ' &&
		    cfg[at - 1] != ','))
			continue;
		at += k;
		while (at < len && cfg[at] == ' ')
			at++;
		if (at >= len || cfg[at] != '=')
			continue;
		at++;
		while (at < len && cfg[at] == ' ')
			at++;
		for (e = at; e < len && cfg[e] >= '0' && cfg[e] <= '9'; e++)
			;
		return e > at && num_i64(cfg + at, e - at, v) == 0;
	}
	return 0;
}

/*
 * TransformerEngine's fused attention (te_fused_attn_forward_ffi,
 * te_fused_attn_backward_ffi: transformer_engine/jax/csrc/extensions/
 * attention.cpp, FusedAttn{Forward,Backward}FFI), costed as cuDNN fused
 * attention above: from the attributes input_batch B, attn_heads H,
 * q_max_seqlen Sq, kv_max_seqlen Skv, qk_head_dim Dqk and v_head_dim Dv,
 * QK^T = 2 B H Sq Skv Dqk and PV = 2 B H Sq Skv Dv; forward QK^T + PV,
 * backward 3 QK^T + 2 PV.  A causal mask (mask_type, TE's NVTE_Mask_Type
 * in transformer_engine/common/include/transformer_engine/fused_attn.h:
 * 2 NVTE_CAUSAL_MASK, 3 NVTE_PADDING_CAUSAL_MASK, 4 and 5 the same
 * aligned to the bottom right) leaves half the scores, so QK^T and PV
 * count half (S (S + 1) / 2 of S^2 for Sq = Skv = S; the kernel skips
 * the masked tiles).  Padding and ragged sequences are not subtracted.
 * Bytes: operands and outputs, the last output (the workspace) left out.
 * Dtype: operand 0's (q).
 */
static int
te_attention(const struct hlocost_ctx *c, size_t i, int backward,
    struct hlocost *out)
{
	static const char *const keys[6] = { "input_batch", "attn_heads",
	    "q_max_seqlen", "kv_max_seqlen", "qk_head_dim", "v_head_dim" };
	const struct hlo_cost_facts *f = facts(c, i);
	const struct hlo_shape *s = &f->shape;
	int64_t v[6], mask;
	uint64_t scores, qk, pv, ws;
	size_t k;

	if (f->x->backend_config == NULL || operand_shape(c, i, 0) == NULL)
		return 0;
	for (k = 0; k < 6; k++)
		if (!ffi_attr(f->x->backend_config, f->x->backend_config_len,
		    keys[k], &v[k]))
			return 0;
	scores = mul(mul(mul((uint64_t)v[0], (uint64_t)v[1]), (uint64_t)v[2]),
	    (uint64_t)v[3]);
	if (ffi_attr(f->x->backend_config, f->x->backend_config_len,
	    "mask_type", &mask) && mask >= 2 && mask <= 5)
		scores /= 2;
	qk = mul(mul(FMA_FLOPS, scores), (uint64_t)v[4]);
	pv = mul(mul(FMA_FLOPS, scores), (uint64_t)v[5]);
	if (backward)
		matmul(out, add(mul(3, qk), mul(2, pv)), operand_shape(c, i, 0));
	else
		matmul(out, add(qk, pv), operand_shape(c, i, 0));
	ws = is_tuple(s) && s->ntuple > 1 ? size(&s->tuple[s->ntuple - 1]) : 0;
	out->bytes = sub0(default_bytes(c, i), ws);
	return 1;
}

static int
custom_call(const struct hlocost_ctx *c, size_t i, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	const char *t = f->x->custom_call_target;

	if (is_gemm(t))
		return gemm(c, i, out);
	if (is_dnn_conv(t)) {
		uint64_t fl;

		if (conv_flops(c, i, first(&f->shape), &fl) != 0)
			return 0;
		/* The scratch buffer is not output. */
		matmul(out, fl, operand_shape(c, i, 0));
		out->bytes = add(sub0(default_bytes(c, i), size(&f->shape)),
		    size(first(&f->shape)));
		return 1;
	}
	if (strncmp(t, "__cudnn$fmha", 12) == 0 ||
	    strncmp(t, "__cudnn$fhma", 12) == 0)
		return fmha(c, i, out);
	if (strcmp(t, "te_fused_attn_forward_ffi") == 0)
		return te_attention(c, i, 0, out);
	if (strcmp(t, "te_fused_attn_backward_ffi") == 0)
		return te_attention(c, i, 1, out);
	return 0;
}

/* ---- fusion (HandleFusion, FusionParameterReadBytes) ---- */

/* Fused parameter K of computation COMP, or HLO_NONE. */
static size_t
fused_param(const struct hlocost_ctx *c, size_t comp, size_t k)
{
	struct hlo_comp_info ci;
	size_t i;

	if (comp == HLO_NONE)
		return HLO_NONE;
	hlo_comp(c->m, comp, &ci);
	for (i = ci.first; i < ci.first + ci.n; i++)
		if (is_op(c, i, "parameter") &&
		    facts(c, i)->x->parameter_number == (int64_t)k)
			return i;
	return HLO_NONE;
}

/* The bytes read through fused parameter (or get-tuple-element) H. */
static uint64_t
param_read(const struct hlocost_ctx *c, size_t h, int depth)
{
	const struct hlo_shape *hs;
	uint64_t b = 0;
	size_t u, user, k;
	int trivial = 0;

	if (h == HLO_NONE || depth > MAXDEPTH)
		return 0;	/* a fusion whose computation lacks the parameter */
	hs = &facts(c, h)->shape;
	for (u = c->ustart[h]; u < c->ustart[h + 1]; u++) {
		const char *op;

		user = c->users[u];
		op = opcode(c, user);
		if (strcmp(op, "fusion") == 0) {
			for (k = 0; k < facts(c, user)->noperand; k++)
				if (operand(c, user, k) == h)
					b = add(b, param_read(c, fused_param(c,
					    facts(c, user)->ncalled ?
					    facts(c, user)->called[0] : HLO_NONE,
					    k), depth + 1));
		} else if (strcmp(op, "slice") == 0)
			b = add(b, size(&facts(c, user)->shape));
		else if (strcmp(op, "dynamic-slice") == 0) {
			if (operand(c, user, 0) == h)
				b = add(b, size(&facts(c, user)->shape));
			else if (!trivial++)
				b = add(b, size(hs));
		} else if (strcmp(op, "dynamic-update-slice") == 0) {
			/* Operand 0 is aliased to the output. */
			if (operand(c, user, 0) != h && !trivial++)
				b = add(b, size(hs));
		} else if (strcmp(op, "broadcast") == 0 ||
		    strcmp(op, "reshape") == 0)
			b = add(b, size(hs));
		else if (!trivial++)
			/* Other users share one read. */
			b = add(b, size(hs));
	}
	return b;
}

/* Follow get-tuple-elements from P by the indices IDX[0..N). */
static size_t
gte_path(const struct hlocost_ctx *c, size_t p, const size_t *idx, size_t n)
{
	size_t d, u, user;

	for (d = 0; d < n; d++)
		for (u = c->ustart[p]; u < c->ustart[p + 1]; u++) {
			user = c->users[u];
			if (is_op(c, user, "get-tuple-element") &&
			    facts(c, user)->x->tuple_index == (int64_t)idx[d]) {
				p = user;
				break;
			}
		}
	return p;
}

/* Σ over the leaves of tuple parameter P's shape S (at index IDX[0..N))
 * of the bytes read through the get-tuple-element of that leaf. */
static uint64_t
tuple_param_read(const struct hlocost_ctx *c, size_t p,
    const struct hlo_shape *s, size_t *idx, size_t n, int depth)
{
	uint64_t b = 0;
	size_t k;

	if (!is_tuple(s) || n >= 16)
		return param_read(c, gte_path(c, p, idx, n), depth);
	for (k = 0; k < s->ntuple; k++) {
		idx[n] = k;
		b = add(b, tuple_param_read(c, p, &s->tuple[k], idx, n + 1,
		    depth));
	}
	return b;
}

/* The output bytes of a fusion whose root is ROOT, for its subshape S at
 * depth N below the top (K: the index at depth 1). */
static uint64_t
fusion_out(const struct hlocost_ctx *c, size_t root,
    const struct hlo_shape *s, size_t n, size_t k)
{
	uint64_t b = 0;
	size_t j, r;

	if (is_tuple(s)) {
		for (j = 0; j < s->ntuple; j++)
			b = add(b, fusion_out(c, root, &s->tuple[j], n + 1,
			    n == 0 ? j : k));
		return b;
	}
	/* An in-place dynamic-update-slice writes its update only. */
	r = n == 0 ? root : n == 1 && is_op(c, root, "tuple") ?
	    operand(c, root, k) : HLO_NONE;
	if (is_op(c, r, "dynamic-update-slice"))
		return operand_size(c, r, 1);
	return size(s);
}

static void
fusion(struct hlocost_ctx *c, size_t i, int depth, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	size_t comp = f->ncalled ? f->called[0] : HLO_NONE;
	struct hlo_comp_info ci;
	size_t k, p, j, idx[16];
	uint64_t b;

	if (comp == HLO_NONE) {
		out->known = 0;
		return;
	}
	hlo_comp(c->m, comp, &ci);
	/* A custom fusion holding a gather or scatter costs as that op. */
	if (strcmp(f->x->fusion_kind, "kCustom") == 0)
		for (j = ci.first; j < ci.first + ci.n; j++)
			if (is_op(c, j, "gather") || is_op(c, j, "scatter")) {
				cost(c, j, depth + 1, out);
				return;
			}
	comp_cost(c, comp, depth + 1, out);
	b = fusion_out(c, ci.root, &f->shape, 0, 0);
	for (j = ci.first; j < ci.first + ci.n; j++)
		if (is_op(c, j, "constant") &&
		    elems(&facts(c, j)->shape) > IMMEDIATE_CONSTANT_MAX)
			b = add(b, size(&facts(c, j)->shape));
	for (k = 0; k < f->noperand; k++) {
		if ((p = fused_param(c, comp, k)) == HLO_NONE)
			continue;
		b = add(b, tuple_param_read(c, p, &facts(c, p)->shape, idx, 0,
		    depth));
	}
	out->bytes = b;
}

/* ---- the dispatch (HloCostAnalysis::Handle<Op>) ---- */

static void
reduce(struct hlocost_ctx *c, size_t i, int depth, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	const struct hlo_shape *in = operand_shape(c, i, 0);
	struct hlocost sub;

	called_cost(c, i, 0, depth, &sub);
	if (in == NULL) {
		out->known = 0;
		return;
	}
	scaled(out, &sub, sub0(elems(in), elems(first(&f->shape))));
}

static void
reduce_window(struct hlocost_ctx *c, size_t i, int depth,
    struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	const struct hlo_shape *res = first(&f->shape);
	uint64_t win = 1, nout = elems(res), count;
	size_t d, nred = 0, npad = 0, rd = HLO_NONE;
	struct hlocost sub;

	if (!windows_ok(f)) {
		out->known = 0;
		return;
	}
	called_cost(c, i, 0, depth, &sub);
	for (d = 0; d < f->x->nwindow; d++) {
		const struct hlo_window_dim *w = &f->x->window[d];

		win = mul(win, (uint64_t)(w->size > 0 ? w->size : 0));
		nred += w->size != 1;
		npad += w->pad_low != 0 || w->pad_high != 0;
		if (rd == HLO_NONE && w->size != 1 && w->pad_low != 0 &&
		    w->pad_high != 0 && w->pad_low == w->pad_high &&
		    w->size == 2 * w->pad_low + 1)
			rd = d;
	}
	count = mul(sub0(win, 1), nout);
	/* A reduce then broadcast along one dimension, as one window. */
	if (nred == 1 && npad == 1 && !is_tuple(&f->shape) &&
	    rd != HLO_NONE && f->x->window[rd].pad_low == dim(res,
	    (int64_t)rd) - 1 && dim(res, (int64_t)rd) > 0)
		count = nout / (uint64_t)dim(res, (int64_t)rd) +
		    (uint64_t)dim(res, (int64_t)rd) - 1;
	scaled(out, &sub, count);
}

static void
scatter(struct hlocost_ctx *c, size_t i, int depth, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	size_t n = f->noperand > 0 ? (f->noperand - 1) / 2 : 0, k;
	uint64_t upd = 0;
	struct hlocost sub;

	for (k = 0; k < n; k++)
		upd = add(upd, operand_size(c, i, n + 1 + k));
	out->bytes = add(mul(3, upd), operand_size(c, i, n));
	called_cost(c, i, 0, depth, &sub);
	scaled(out, &sub, operand_shape(c, i, n + 1) ?
	    elems(operand_shape(c, i, n + 1)) : 0);
}

static void
select_and_scatter(struct hlocost_ctx *c, size_t i, int depth,
    struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	const struct hlo_shape *src = operand_shape(c, i, 1);
	uint64_t win = 1, n = src ? elems(src) : 0;
	struct hlocost sel, sca;
	size_t d;

	for (d = 0; d < f->x->nwindow; d++)
		win = mul(win, (uint64_t)(f->x->window[d].size > 0 ?
		    f->x->window[d].size : 0));
	called_cost(c, i, 0, depth, &sel);
	called_cost(c, i, 1, depth, &sca);
	scaled(out, &sel, mul(n, sub0(win, 1)));
	scaled(out, &sca, n);
}

/* All-reduce: one flop per output element ("assumes 2 replicas"). */
static void
all_reduce(const struct hlocost_ctx *c, size_t i, struct hlocost *out)
{
	out->flops = elems_rec(&facts(c, i)->shape);
	out->bytes = default_bytes(c, i);
}

/* Log2Ceiling of N > 0. */
static uint64_t
log2ceil(uint64_t n)
{
	uint64_t r = 0;

	while (r < 64 && ((uint64_t)1 << r) < n)
		r++;
	return r;
}

/* Call, async-start, while (body and condition once), conditional (the
 * largest branch, property by property). */
static int
calls(struct hlocost_ctx *c, size_t i, const char *op, int depth,
    struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	struct hlocost sub;
	size_t k;

	if (strcmp(op, "call") == 0 || strcmp(op, "async-start") == 0) {
		called_cost(c, i, 0, depth, out);
		return 1;
	}
	if (strcmp(op, "while") == 0) {
		called_cost(c, i, 0, depth, out);
		called_cost(c, i, 1, depth, &sub);
		add_cost(out, &sub);
		return 1;
	}
	if (strcmp(op, "conditional") != 0)
		return 0;
	called_cost(c, i, 0, depth, out);
	for (k = 1; k < f->ncalled; k++) {
		called_cost(c, i, k, depth, &sub);
		out->known = out->known && sub.known;
#define MAX(a, b) ((a) > (b) ? (a) : (b))
		out->flops = MAX(out->flops, sub.flops);
		out->transcendentals = MAX(out->transcendentals,
		    sub.transcendentals);
		out->bytes = MAX(out->bytes, sub.bytes);
		if (sub.matmul_flops > out->matmul_flops) {
			out->matmul_flops = sub.matmul_flops;
			out->dtype = sub.dtype;
		}
#undef MAX
	}
	return 1;
}

/* The cost of I into *OUT. */
static void
cost(struct hlocost_ctx *c, size_t i, int depth, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);
	const char *op = opcode(c, i);
	struct hlocost sub;

	memset(out, 0, sizeof(*out));
	out->known = 1;
	if (depth > MAXDEPTH) {
		out->known = 0;
		return;
	}
	if (in_list(op, free_ops))
		return;
	if (calls(c, i, op, depth, out)) {
		if (!out->known)
			memset(out, 0, sizeof(*out));
		return;
	}
	out->bytes = default_bytes(c, i);
	if (in_list(op, transcendental_ops))
		out->transcendentals = elems(&f->shape);
	else if (in_list(op, elementwise_ops))
		out->flops = elems(&f->shape);
	else if (strcmp(op, "dot") == 0 && f->x->dot)
		matmul(out, operand_shape(c, i, 0) ? dot_flops(operand_shape(c,
		    i, 0), &f->shape, f->x->dot->v[HLO_LHS_CONTRACTING],
		    f->x->dot->n[HLO_LHS_CONTRACTING]) : 0,
		    operand_shape(c, i, 0));
	else if (strcmp(op, "convolution") == 0) {
		uint64_t fl;

		if (conv_flops(c, i, &f->shape, &fl) != 0)
			out->known = 0;
		matmul(out, fl, operand_shape(c, i, 0));
	}
	else if (strcmp(op, "reduce") == 0)
		reduce(c, i, depth, out);
	else if (strcmp(op, "reduce-window") == 0)
		reduce_window(c, i, depth, out);
	else if (strcmp(op, "map") == 0) {
		called_cost(c, i, 0, depth, &sub);
		scaled(out, &sub, elems(&f->shape));
	} else if (strcmp(op, "select-and-scatter") == 0)
		select_and_scatter(c, i, depth, out);
	else if (strcmp(op, "sort") == 0) {
		uint64_t n = operand_shape(c, i, 0) ?
		    elems(operand_shape(c, i, 0)) : 0;

		out->flops = mul(n, log2ceil(n));
	} else if (strcmp(op, "rng") == 0)
		out->transcendentals = elems(&f->shape);
	else if (strcmp(op, "rng-bit-generator") == 0)
		out->transcendentals = elems_rec(&f->shape);
	else if (strcmp(op, "all-reduce") == 0 ||
	    strcmp(op, "all-reduce-start") == 0)
		all_reduce(c, i, out);
	else if (strcmp(op, "tuple") == 0)
		out->bytes = mul(POINTER_SIZE, f->shape.ntuple);
	else if (strcmp(op, "slice") == 0)
		out->bytes = mul(2, size(&f->shape));
	else if (strcmp(op, "dynamic-slice") == 0 ||
	    strcmp(op, "gather") == 0)
		out->bytes = add(mul(2, size(&f->shape)),
		    operand_size(c, i, 1));
	else if (strcmp(op, "dynamic-update-slice") == 0)
		out->bytes = add(mul(2, operand_size(c, i, 1)),
		    operand_size(c, i, 2));
	else if (strcmp(op, "scatter") == 0)
		scatter(c, i, depth, out);
	else if (strcmp(op, "fusion") == 0)
		fusion(c, i, depth, out);
	else if (strcmp(op, "custom-call") == 0) {
		if (!custom_call(c, i, out))
			out->known = 0;
	} else if (strcmp(op, "fft") == 0)
		out->known = 0;
	if (!out->known)
		memset(out, 0, sizeof(*out));
}

/* ---- public interface ---- */

/*
 * Whether operand K of F makes F a user of it (XLA's users()): the first
 * occurrence of an operand in F's own computation (an id that reaches
 * into another computation is no use there).
 */
static int
is_use(const struct hlo_module *m, const struct hlo_cost_facts *f, size_t k)
{
	size_t o = f->operand[k], j;

	if (o == HLO_NONE || hlo_cost_facts(m, o)->comp != f->comp)
		return 0;
	for (j = 0; j < k; j++)
		if (f->operand[j] == o)
			return 0;
	return 1;
}

struct hlocost_ctx *
hlocost_new(const struct hlo_module *m)
{
	struct hlocost_ctx *c = mem_calloc(1, sizeof(*c));
	const struct hlo_cost_facts *f;
	size_t i, k, *fill;

	c->m = m;
	c->n = hlo_count(m);
	c->comp = mem_calloc(hlo_ncomps(m) + 1, sizeof(*c->comp));
	c->fused = mem_calloc(hlo_ncomps(m) + 1, 1);
	/* Users within an instruction's own computation, in module order
	 * (XLA's users(): an operand reaching across computations is not
	 * a use there). */
	c->ustart = mem_calloc(c->n + 2, sizeof(*c->ustart));
	for (i = 0; i < c->n; i++) {
		f = hlo_cost_facts(m, i);
		for (k = 0; k < f->noperand; k++)
			if (is_use(m, f, k))
				c->ustart[f->operand[k] + 2]++;
	}
	for (i = 0; i < c->n; i++) {
		c->ustart[i + 2] += c->ustart[i + 1];
		f = hlo_cost_facts(m, i);
		if (f->ncalled > 0 && f->called[0] != HLO_NONE &&
		    strcmp(hlo_inst(m, i)->opcode, "fusion") == 0)
			c->fused[f->called[0]] = 1;
	}
	c->users = mem_calloc(c->ustart[c->n + 1] + 1, sizeof(*c->users));
	fill = c->ustart + 1;
	for (i = 0; i < c->n; i++) {
		f = hlo_cost_facts(m, i);
		for (k = 0; k < f->noperand; k++)
			if (is_use(m, f, k))
				c->users[fill[f->operand[k]]++] = i;
	}
	return c;
}

void
hlocost_free(struct hlocost_ctx *c)
{
	if (c == NULL)
		return;
	free(c->comp);
	free(c->fused);
	free(c->ustart);
	free(c->users);
	free(c);
}

void
hlocost_inst(struct hlocost_ctx *c, size_t i, struct hlocost *out)
{
	const struct hlo_cost_facts *f = facts(c, i);

	if (f->comp != HLO_NONE && c->fused[f->comp]) {
		/* A thunk of its own for an instruction of a fused
		 * computation: the initialiser of a reduction, which
		 * writes the output (the fusion does the work). */
		memset(out, 0, sizeof(*out));
		out->known = 1;
		out->bytes = size(&f->shape);
		return;
	}
	cost(c, i, 0, out);
}

/* Whether custom call F is costed from its backend_config (custom_call). */
static int
reads_config(const struct hlo_cost_facts *f)
{
	const char *t = f->x->custom_call_target;

	return t != NULL && (is_gemm(t) || strncmp(t, "__cudnn$fmha", 12) == 0 ||
	    strncmp(t, "__cudnn$fhma", 12) == 0);
}

size_t
hlocost_malformed(const struct hlocost_ctx *c, const char **first)
{
	size_t i, n = 0;

	*first = NULL;
	for (i = 0; i < c->n; i++) {
		const struct hlo_cost_facts *f = facts(c, i);
		json_error_t e;
		json_t *root;

		if (f->x->backend_config == NULL || !reads_config(f))
			continue;
		root = json_loadb(f->x->backend_config, f->x->backend_config_len,
		    JSON_ALLOW_NUL, &e);
		if (root != NULL) {
			json_decref(root);
			continue;
		}
		if (n++ == 0)
			*first = hlo_inst(c->m, i)->name;
	}
	return n;
}

const char *
hlocost_dtype(int type)
{
	static const struct {
		int type;
		const char *name;
	} t[] = {
		{ 1, "pred" }, { 2, "s8" }, { 3, "s16" }, { 4, "s32" },
		{ 5, "s64" }, { 6, "u8" }, { 7, "u16" }, { 8, "u32" },
		{ 9, "u64" }, { 10, "f16" }, { 11, "f32" }, { 12, "f64" },
		{ 15, "c64" }, { 16, "bf16" }, { 18, "c128" },
		{ 19, "f8e5m2" }, { 20, "f8e4m3fn" }, { 21, "s4" },
		{ 22, "u4" }, { 23, "f8e4m3b11fnuz" }, { 24, "f8e5m2fnuz" },
		{ 25, "f8e4m3fnuz" }, { 26, "s2" }, { 27, "u2" },
		{ 28, "f8e4m3" }, { 29, "f8e3m4" }, { 30, "s1" }, { 31, "u1" },
		{ 32, "f4e2m1fn" }, { 33, "f8e8m0fnu" }
	};
	size_t k;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (t[k].type == type)
			return t[k].name;
	return NULL;
}
