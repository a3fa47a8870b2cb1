/*
 * mkexample: write the example profile of `make run`, a synthetic
 * two-process JAX training run in the nsys-jax archive layout, so that
 * the tools can be tried on a fresh clone.  Nothing in it comes from a
 * real profile: every range, time and HLO instruction is made up here.
 *
 *	mkexample [-P] [-n processes] [-s steps] [-L 2026] [-X 2024|2026] dir
 *
 * writes dir/rank0/ and dir/rank1/, the extracted archives of the two
 * processes (dir/rank0 .. rank<N-1> with -n N), each holding what
 * nsysjax-extract reads:
 *
 *	nvtx_gpu_proj_trace/trace.parquet	the nsys <= 2024.4 layout
 *	thread-metadata.parquet			Name, Priority, PID, TID
 *	report_nvtx_pushpop_trace.csv		nsys stats' CSV columns
 *	dump/module_NNNN.NAME.sm_9.0_gpu_after_optimizations.hlo.pb
 *
 * and dir/truth.tsv, the facts planted in the run (Fact, Value), against
 * which tests/t75-example.sh checks the tools.
 *
 * The run: one GPU per process; the main thread of each process compiles
 * jit_init (program 3) and runs it once, then compiles jit_train_step
 * (program 7; passes, an autotuner measuring gemm_fusion_dot on the GPU
 * in an XlaModule without program_id, and a parallel region where four
 * worker threads compile split LLVM modules) and runs it 6 times.  A
 * train step is 14 GPU thunks: fusions, an all-gather-start/done and an
 * all-reduce-start/done on the communication stream, partly hidden
 * behind compute, and a synchronous reduce-scatter, all over replica
 * group {0,1}.  A collective ends when its last device arrives, so the
 * early device waits; the first step's collectives are slow (NCCL
 * warm-up).  Process 1's clock reads OFFSET_NS more than process 0's.
 * Two fusions take another time in each step (vary[]), and the dump of
 * jit_train_step holds its buffer assignment with one heap simulator
 * trace (heap_ev[]), so that every view of the report has content.
 *
 * Times are integer ns.  The output is the same bytes on every run: all
 * variation comes from constant tables and a fixed-seed generator.
 *
 * -L 2026 writes the same run as nsys 2026.3 and today's XLA would (see
 * the block "-L 2026" below): trace.parquet with Text, Domain, Start,
 * End, ..., Range Stack (a list), report_nvtx_pushpop_trace.parquet,
 * xz-compressed dumps, command buffers (thunks command_buffer_N that no
 * HLO instruction names, each covering a run of fusions) and HLO
 * instructions whose stack frame ids lie beyond the stack_frame_index;
 * truth.tsv gets the facts of those (tests/t18-cmdbuf.sh).
 *
 * -X 2026 names the thunk ranges as XLA does since mid-2026,
 * "Thunk:#[name=N,]hlo_op=OP,unique_hlo_op_id=ID#", ID the id of OP in
 * its module's dump (the block "-X 2026" below), and the autotuner pass
 * "XlaPass:#name=autotuner,...#" (AutotunerPass); it is the default with
 * -L 2026, and -X 2024 gives the names of before.  The frames do not
 * depend on it but for the compile frame, where the reference folds the
 * pass of 2026 into one XlaAutotunerCompilation row (tests/t75-example.sh).
 *
 * -n and -s make a large run for `make bench` (tests/bench/scale.sh):
 * N processes (a power of two: reduce-scatter operands are split among
 * the devices), one device each, S executions of jit_train_step, every
 * collective's replica group spanning all N devices (so that alignment
 * spans every process), each process's clock OFFSET_NS after the one
 * before.  Beyond the planted run's tables the transfer times and end
 * skews come from a fixed hash; truth.tsv is written for the planted run
 * (2 x 6) only.
 *
 * -P plants three critical-path cases in that run (a late start, a
 * collective that cannot be hidden, a host gap; see "planted
 * critical-path cases" below) and writes their facts to
 * dir/critpath-truth.tsv instead of truth.tsv.
 *
 * -S plants a straggler: process 1 runs one compute thunk of every step
 * longer, so its peers wait for it at the next collective (see "a
 * planted straggler" below); its facts go to dir/straggler-truth.tsv
 * instead of truth.tsv.
 */
#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>

#include "base/err.h"
#include "formats/archive.h"
#include "formats/hlo.h"
#include "hlo.pb-c.h"
#include "pqwrite.h"
#include "profile/nvtx.h"

#define US		1000LL
#define MS		1000000LL
#define NPROC		2
#define OFFSET_NS	2718281828LL	/* process 1's clock - process 0's */
#define NSTEP		6		/* executions of jit_train_step */
#define NWORKER		4		/* parallel compilation threads */
#define NCOLL		3
#define NINST		(NSTEP * NCOLL)	/* collective instances */

/* The run's size: NPROC and NSTEP unless -n and -s say otherwise. */
static int nproc = NPROC, nstep = NSTEP;

/* -L 2026: the layout of nsys 2026.3 with command buffers (the block
 * "-L 2026" below; the default run's bytes do not depend on it). */
static int layout2026;

/* -X 2026 (the default with -L 2026; -X 2024 turns it off): XLA's thunk
 * names since mid-2026 (the block "-X 2026" below). */
static int names2026 = -1;
struct proc;
static void x26_ids(struct proc *p, const char *adir);
struct Xla__HloModuleProto;
static void l26_module(struct Xla__HloModuleProto *m, int id);
static void l26_dump(const char *path, const void *buf, size_t len);

/* ---- memory: everything is freed at exit, for LeakSanitizer ---- */

static void **allocs;
static size_t nallocs, capallocs;

static void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mkexample: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *
track(void *p)
{
	if (p == NULL)
		die("out of memory");
	if (nallocs == capallocs) {
		capallocs = capallocs ? 2 * capallocs : 1024;
		allocs = realloc(allocs, capallocs * sizeof(*allocs));
		if (allocs == NULL)
			die("out of memory");
	}
	return allocs[nallocs++] = p;
}

static void *
xcalloc(size_t n, size_t size)
{
	return track(calloc(n ? n : 1, size));
}

static char *
xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("bad format");
	s = xcalloc((size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static char *
xstrdup(const char *s)
{
	return track(bytesdup(s, strlen(s) + 1));
}

static void
freeall(void)
{
	while (nallocs > 0)
		free(allocs[--nallocs]);
	free(allocs);
}

/* ---- a fixed-seed generator (xorshift64*) ---- */

static uint64_t seed = 0x6a09e667f3bcc909ULL;

/* A whole number in [lo, hi]. */
static int64_t
urand(int64_t lo, int64_t hi)
{
	uint64_t x;

	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	x = seed * 0x2545f4914f6cdd1dULL;
	return lo + (int64_t)(x % (uint64_t)(hi - lo + 1));
}

/* ---- NVTX ranges of one process ---- */

struct rng {
	char *name;
	int64_t tid;
	int64_t cs, ce;		/* CPU push and pop (true time) */
	long parent;		/* index, -1: a root */
	int64_t gs, ge;		/* projected GPU work, when ngpu > 0 */
	int64_t ngpu;		/* NumGPUOps: own and descendants' */
	int64_t id;		/* RangeId */
	int lvl;
	int nchild, ngpuchild;	/* children, children with GPU work */
	int64_t child_ns;	/* DurChild */
	char *stack;		/* RangeStack */
};

struct proc {
	int rank;
	int64_t pid, clock;	/* clock: added to every time written */
	int64_t scale;		/* compile speed, per mille of rank 0's */
	int64_t tid_launcher, tid_worker[NWORKER];
	struct rng *r;
	size_t n, cap;
	int64_t compile_ns[2];	/* jit_init, jit_train_step */
	int64_t steps_cpu;	/* the first step's CPU start */
	int64_t gpu_free;	/* the GPU is idle from */
};

static long
rnew(struct proc *p, long parent, int64_t tid, int64_t cs, char *name)
{
	struct rng *r;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 512;
		p->r = realloc(p->r, p->cap * sizeof(*p->r));
		if (p->r == NULL)
			die("out of memory");
	}
	r = &p->r[p->n];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->tid = tid;
	r->cs = cs;
	r->ce = -1;
	r->parent = parent;
	return (long)p->n++;
}

/* A range opened at T on thread TID, closed later by rend(). */
static long
rbegin(struct proc *p, long parent, int64_t tid, int64_t t,
    const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xcalloc((size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return rnew(p, parent, tid, t, s);
}

static void
rend(struct proc *p, long i, int64_t t)
{
	p->r[i].ce = t;
}

/* A range [*T, *T + DUR) of PARENT's thread; *T moves past it and GAP. */
static long
rleaf(struct proc *p, long parent, int64_t *t, int64_t dur, int64_t gap,
    const char *name)
{
	long i = rnew(p, parent, parent >= 0 ? p->r[parent].tid : p->pid,
	    *t, xstrdup(name));

	rend(p, i, *t + dur);
	*t += dur + gap;
	return i;
}

/* Range I launched GPU work projected onto [S, E). */
static void
rgpu(struct proc *p, long i, int64_t s, int64_t e)
{
	p->r[i].gs = s;
	p->r[i].ge = e;
	p->r[i].ngpu = 1;
}

static struct proc *sortp;

static int
cmp_cpu(const void *a, const void *b)
{
	const struct rng *x = &sortp->r[*(const size_t *)a];
	const struct rng *y = &sortp->r[*(const size_t *)b];

	if (x->cs != y->cs)
		return x->cs < y->cs ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 :
	    *(const size_t *)a > *(const size_t *)b;
}

/*
 * Projections, RangeIds (in push order, as nsys numbers them), levels,
 * child counts and times, RangeStacks.  Ranges are created parents
 * first, and a child is pushed after its parent.
 */
static void
rfinish(struct proc *p, int64_t base)
{
	size_t *ix, i, k;

	for (k = p->n; k-- > 0;) {
		struct rng *r = &p->r[k], *q;

		if (r->ce < r->cs)
			die("range %s not closed", r->name);
		if (r->parent < 0)
			continue;
		q = &p->r[r->parent];
		if ((size_t)r->parent >= k || r->cs <= q->cs || r->ce > q->ce ||
		    r->tid != q->tid)
			die("range %s is not inside %s", r->name, q->name);
		if (r->ngpu > 0) {
			if (q->ngpu == 0 || r->gs < q->gs)
				q->gs = r->gs;
			if (q->ngpu == 0 || r->ge > q->ge)
				q->ge = r->ge;
			q->ngpu += r->ngpu;
			q->ngpuchild++;
		}
		q->nchild++;
		q->child_ns += r->ce - r->cs;
	}
	ix = xcalloc(p->n, sizeof(*ix));
	for (i = 0; i < p->n; i++)
		ix[i] = i;
	sortp = p;
	qsort(ix, p->n, sizeof(*ix), cmp_cpu);
	for (i = 0; i < p->n; i++)
		p->r[ix[i]].id = base + (int64_t)i;
	for (i = 0; i < p->n; i++) {
		struct rng *r = &p->r[i];

		if (r->parent < 0) {
			r->stack = xprintf(":%" PRId64, r->id);
		} else {
			r->lvl = p->r[r->parent].lvl + 1;
			r->stack = xprintf("%s:%" PRId64,
			    p->r[r->parent].stack, r->id);
		}
	}
}

/* ---- compilation ---- */

struct pass {
	const char *name;
	int64_t us;
};

struct pipeline {
	const char *name;
	struct pass pass[4];
};

/* Pass times of jit_train_step on rank 0, in us. */
static const struct pipeline pipelines[] = {
	{ "spmd-partitioner", { { "sharding-propagation", 118000 },
	    { "spmd-partitioning", 54000 }, { "spmd-simplify", 21000 } } },
	{ "optimization", { { "algsimp", 88000 }, { "cse", 39000 },
	    { "dce", 17500 }, { "algsimp", 69000 } } },
	{ "fusion", { { "priority-fusion", 112000 },
	    { "multi_output_fusion", 31000 } } },
};

/* Worker threads of the parallel region, in us. */
static const int64_t llvm_opt_us[NWORKER] = { 312000, 268000, 241000, 187000 };
static const int64_t gpu_asm_us[NWORKER] = { 118000, 139000, 96000, 152000 };

/* The autotuner's configurations of gemm_fusion_dot, in ns. */
static const int64_t autotune_ns[3] = { 1512320, 1103500, 1335040 };

struct program {
	const char *name;
	int id;
	int64_t scale;		/* per mille of the times above */
	int autotune, parallel;
};

static const struct program prog_init = { "jit_init", 3, 90, 0, 0 };
static const struct program prog_step = { "jit_train_step", 7, 1000, 1, 1 };

/* The autotuner: three configurations of gemm_fusion_dot on the GPU. */
static void
autotune(struct proc *p, long parent, int64_t *t, int64_t scale)
{
	long ms, m, th;
	int i;

	rleaf(p, parent, t, 95000 * scale, 40 * US, "TSL:XlaAutotunerCompilation");
	ms = rbegin(p, parent, p->pid, *t,
	    "TSL:XlaAutotunerMeasurement:#hlo_op=gemm_fusion_dot#");
	*t += 150 * US;
	for (i = 0; i < 3; i++) {
		m = rbegin(p, ms, p->pid, *t,
		    "TSL:XlaModule:#hlo_module=gemm_fusion_dot#");
		*t += 11 * US;
		th = rleaf(p, m, t, 14 * US, 6 * US,
		    "TSL:Thunk:#hlo_op=gemm_fusion_dot#");
		rgpu(p, th, *t + 4 * US, *t + 4 * US + autotune_ns[i]);
		rend(p, m, *t);
		/* The autotuner waits for the measurement. */
		*t += 4 * US + autotune_ns[i] + 52 * US;
	}
	rend(p, ms, *t);
	*t += 90 * US;
}

/* Compile G on the main thread from T; returns the end. */
static int64_t
compile(struct proc *p, const struct program *g, int64_t t)
{
	const int64_t s = g->scale * p->scale / 1000;	/* ns per us */
	const char *m = g->name;
	int64_t t0 = t, w0, tw, end;
	long c, pl, at, be, ga;
	size_t i, k;
	int w;

	c = rbegin(p, -1, p->pid, t, "TSL:XlaCompile:#module=%s,program_id=%d#",
	    m, g->id);
	t += 310 * s;
	for (i = 0; i < sizeof(pipelines) / sizeof(pipelines[0]); i++) {
		pl = rbegin(p, c, p->pid, t,
		    "TSL:XlaPassPipeline:#name=%s,module=%s,program_id=%d#",
		    pipelines[i].name, m, g->id);
		t += 14 * s;
		for (k = 0; k < 4 && pipelines[i].pass[k].name; k++)
			rleaf(p, pl, &t, pipelines[i].pass[k].us * s, 9 * s,
			    xprintf("TSL:XlaPass:#name=%s,module=%s,"
			    "program_id=%d#", pipelines[i].pass[k].name, m,
			    g->id));
		rend(p, pl, t);
		t += 21 * s;
	}
	if (g->autotune) {
		/* XLA of 2026 names the pass AutotunerPass::name(). */
		at = rbegin(p, c, p->pid, t, "TSL:XlaPass:#name=%s,module=%s,"
		    "program_id=%d#", names2026 ? "autotuner" :
		    "gemm-fusion-autotuner", m, g->id);
		t += 230 * s;
		autotune(p, at, &t, s);
		rend(p, at, t);
		t += 17 * s;
	}
	be = rbegin(p, c, p->pid, t,
	    "TSL:XlaCompileBackend:#module=%s,program_id=%d#", m, g->id);
	t += 65 * s;
	rleaf(p, be, &t, 88000 * s, 12 * s, xprintf("TSL:XlaMemoryScheduler:"
	    "#module=%s,program_id=%d#", m, g->id));
	rleaf(p, be, &t, 41000 * s, 12 * s, xprintf("TSL:XlaBufferAssignment:"
	    "#module=%s,program_id=%d#", m, g->id));
	rleaf(p, be, &t, 152000 * s, 12 * s, xprintf("TSL:XlaEmitLlvmIr:"
	    "#module=%s,program_id=%d#", m, g->id));
	ga = rbegin(p, be, p->pid, t, "TSL:XlaCompileGpuAsm:#module=%s#", m);
	if (g->parallel) {
		/* The main thread waits while the workers compile. */
		w0 = t + 40 * s;
		end = w0;
		for (w = 0; w < NWORKER; w++) {
			long r;

			tw = w0 + w * 25 * s;
			r = rnew(p, -1, p->tid_worker[w], tw, xstrdup(
			    "TSL:XlaOptimizeLlvmIr:#module=split_module#"));
			tw += llvm_opt_us[w] * s;
			rend(p, r, tw);
			tw += 6 * s;
			r = rnew(p, -1, p->tid_worker[w], tw, xstrdup(
			    "TSL:XlaEmitGpuAsm:#module=split_module#"));
			tw += gpu_asm_us[w] * s;
			rend(p, r, tw);
			if (tw > end)
				end = tw;
		}
		t = end + 60 * s;
	} else {
		t += 160000 * s;
	}
	rend(p, ga, t);
	t += 8 * s;
	rleaf(p, be, &t, 31000 * s, 0, xprintf("TSL:XlaCreateGpuExecutable:"
	    "#module=%s#", m));
	rend(p, be, t);
	t += 120 * s;
	rend(p, c, t);
	p->compile_ns[g == &prog_step] = t - t0;
	return t;
}

/* ---- executions ---- */

enum { K_COMPUTE, K_START, K_DONE, K_SYNC };
enum { C_AG, C_AR, C_RS };

struct thunk {
	const char *name;
	int kind;
	int64_t ns;		/* compute time */
	int coll;
	const char *op_name;	/* "": none */
};

#define TS "jit(train_step)/jit(main)/"
#define FWD TS "jvp(loss_fn)/"
#define BWD TS "transpose(jvp(loss_fn))/"

static const struct thunk init_thunks[] = {
	{ "rng-bit-generator", K_COMPUTE, 85300, 0,
	    "jit(init)/jit(main)/random_bits[bit_width=32 shape=(2048, 4096)]" },
	{ "loop_convert_fusion", K_COMPUTE, 60200, 0,
	    "jit(init)/jit(main)/convert_element_type[new_dtype=float32 "
	    "weak_type=False]" },
	{ "loop_multiply_fusion", K_COMPUTE, 119700, 0,
	    "jit(init)/jit(main)/mul" },
	{ "loop_broadcast_fusion", K_COMPUTE, 40100, 0,
	    "jit(init)/jit(main)/broadcast_in_dim[shape=(2048, 4096) "
	    "broadcast_dimensions=()]" },
	{ "wrapped_copy", K_COMPUTE, 22400, 0, "" },
};

static const struct thunk step_thunks[] = {
	{ "wrapped_convert", K_COMPUTE, 12300, 0,
	    TS "convert_element_type[new_dtype=bfloat16 weak_type=False]" },
	{ "all-gather-start", K_START, 0, C_AG, FWD "dense/dot_general" },
	{ "loop_convert_fusion", K_COMPUTE, 61400, 0,
	    FWD "embed/convert_element_type[new_dtype=float32 "
	    "weak_type=False]" },
	{ "input_reduce_fusion", K_COMPUTE, 44800, 0,
	    FWD "layer_norm/reduce_sum[axes=(1,)]" },
	{ "all-gather-done", K_DONE, 0, C_AG, FWD "dense/dot_general" },
	{ "gemm_fusion_dot", K_COMPUTE, 1103500, 0, FWD "dense/dot_general" },
	{ "loop_add_fusion", K_COMPUTE, 141200, 0, FWD "gelu/tanh" },
	{ "input_reduce_fusion.1", K_COMPUTE, 208700, 0,
	    FWD "log_softmax/reduce_max[axes=(1,)]" },
	{ "gemm_fusion_dot.1", K_COMPUTE, 1151900, 0, BWD "dense/dot_general" },
	{ "all-reduce-start", K_START, 0, C_AR, TS "psum[axes=('data',)]" },
	{ "gemm_fusion_dot.2", K_COMPUTE, 1198300, 0, BWD "dense/dot_general" },
	{ "loop_multiply_fusion", K_COMPUTE, 88600, 0, TS "mul" },
	{ "all-reduce-done", K_DONE, 0, C_AR, TS "psum[axes=('data',)]" },
	{ "reduce-scatter", K_SYNC, 0, C_RS, TS "reduce_scatter[axis_name="
	    "data scatter_dimension=0 tiled=True]" },
	{ "loop_multiply_fusion.1", K_COMPUTE, 259400, 0,
	    TS "adam_update/mul" },
	{ "wrapped_copy", K_COMPUTE, 19800, 0, "" },
};

#define NINIT	(sizeof(init_thunks) / sizeof(init_thunks[0]))
#define NSTEPT	(sizeof(step_thunks) / sizeof(step_thunks[0]))

static const char *const coll_name[NCOLL] = {
	"all-gather", "all-reduce", "reduce-scatter"
};
static const char *const nccl_name[NCOLL] = {
	"NCCL:ncclAllGather", "NCCL:ncclAllReduce", "NCCL:ncclReduceScatter"
};
/* MessageSize (bytes) and transfer time of the last device (ns): bus
 * bandwidths of 120, 150 and 100 GB/s on two devices. */
static const int64_t coll_bytes[NCOLL] = { 16777216, 67108864, 33554432 };
static const int64_t coll_ns[NCOLL] = { 139810, 447392, 335544 };

/*
 * Per instance (execution * NCOLL + collective): the transfer time's
 * variation in 1/10000, and the end on process 1 minus the end on
 * process 0 (true time, ns): 4 negative, 10 zero, 4 positive, so its
 * median is 0 and clock alignment finds exactly OFFSET_NS.
 */
static const int64_t tvar[NINST] = {
	0, 31, -18, 52, 9, -41, 23, -7, 44, -29, 15, 36, -12, 5, -33, 27, -3,
	11
};
static const int64_t end_skew[NINST] = {
	0, 1200, 0, -800, 0, 0, 2400, 0, -1600, 0, 400, 0, 0, -2400, 0, 800,
	-400, 0
};

/* A fixed pseudo-random value in [-A, A] for instance I and device D,
 * beyond the tables of the planted run (no call to urand: the planted
 * run's sequence stays the same). */
static int64_t
spread(int64_t i, int64_t d, int64_t a)
{
	uint64_t x = (uint64_t)(i * 1000003 + d) * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 31;
	return (int64_t)(x % (uint64_t)(2 * a + 1)) - a;
}

static int64_t
tvar_of(int i)
{
	return i < (int)NINST ? tvar[i] : spread(i, 0, 50);
}

/* End of device D minus the last device's, for instance I. */
static int64_t
end_skew_of(int i, int d)
{
	return nproc == NPROC && i < (int)NINST ? end_skew[i] :
	    spread(i, d, 2400);
}

/*
 * Compute thunks whose duration varies over the executions of the planted
 * run (the notebook's variability view; truth.tsv duration_ns.NAME.E):
 * per execution, the duration in 1/10000 of the thunk's ns, the same on
 * every device.  Other thunks, and the large runs of -n and -s, run
 * their ns every time.
 */
static const struct vary {
	const char *name;
	int64_t f[NSTEP];
} vary[] = {
	{ "input_reduce_fusion.1", { 10000, 10000, 7000, 13500, 8500, 12000 } },
	{ "loop_convert_fusion", { 10000, 10000, 10000, 11800, 10000, 8400 } },
};
#define NVARY	(sizeof(vary) / sizeof(vary[0]))

/* The duration (ns) of compute thunk T in execution E of jit_train_step. */
static int64_t
dur_of(const struct thunk *t, int e)
{
	size_t v;

	if (nproc != NPROC || e >= NSTEP)
		return t->ns;
	for (v = 0; v < NVARY; v++)
		if (strcmp(vary[v].name, t->name) == 0)
			return t->ns * vary[v].f[e] / 10000;
	return t->ns;
}

/* What the simulation records for truth.tsv (the planted run's size). */
struct ival {
	int64_t s, e;
};
static struct ival comp_iv[NSTEP][NPROC][NSTEPT];	/* .e == 0: none */
static struct ival coll_iv[NSTEP][NPROC][NCOLL];
static int64_t coll_t[NSTEP][NCOLL];		/* the last device's */

/* The CPU side of one thunk of module M on P: its range, and NCCL's
 * group for collectives; returns the range; *T moves past it. */
static long
launch(struct proc *p, long m, const struct thunk *k, int64_t *t, long *nccl)
{
	long th, g;
	char *name;

	if (k->op_name[0])
		name = xprintf("TSL:Thunk:#name=%s,hlo_op=%s#", k->op_name,
		    k->name);
	else
		name = xprintf("TSL:Thunk:#hlo_op=%s#", k->name);
	th = rnew(p, m, p->pid, *t, name);
	*nccl = -1;
	if (k->kind == K_START || k->kind == K_SYNC) {
		int64_t u = *t + 2 * US;

		rleaf(p, th, &u, 700, 1300, "NCCL:ncclGroupStart");
		rleaf(p, th, &u, 7800, 1200, nccl_name[k->coll]);
		g = rleaf(p, th, &u, 8100, 0, "NCCL:ncclGroupEnd");
		*nccl = g;
		*t += 24 * US;
	} else {
		*t += (k->kind == K_DONE ? 3 : 4) * US + urand(0, 1500);
	}
	rend(p, th, *t);
	*t += 1500 + urand(0, 1000);
	return th;
}

/* ---- planted critical-path cases (mkexample -P) ----
 * Off by default: the default run is unchanged.  With -P the 2 x 6 run
 * gets three cases, each in its own steady execution, and their facts go
 * to critpath-truth.tsv instead of truth.tsv:
 *  - execution 3: process 1 starts the module PLANT_LATE_NS late (its
 *    host was busy), so device 0 waits for it at the first collective;
 *  - execution 4: the all-reduce transfers PLANT_XFER_NS more, longer
 *    than the compute before its done: it cannot be hidden;
 *  - execution 5: process 0's host stalls PLANT_STALL_NS before
 *    launching loop_add_fusion: a gap on device 0's critical path. */
#define PLANT_LATE_NS	(2 * MS)
#define PLANT_XFER_NS	(5 * MS)
#define PLANT_STALL_NS	(3 * MS)
#define PLANT_LATE_E	3
#define PLANT_XFER_E	4
#define PLANT_STALL_E	5
#define PLANT_STALL_OP	"loop_add_fusion"

static char *ms(int64_t ns);

static struct {
	int on;
	int64_t first[NPROC];		/* GPU start of the late execution */
	int64_t xfer_s, xfer_end[NPROC];	/* last arrival, ends */
	int64_t gap;			/* device 0's idle before the op */
} plant;

/* Execution E's module CPU starts MC: process 1 late in PLANT_LATE_E. */
static void
plant_start(int e, int64_t *mc)
{
	if (plant.on && e == PLANT_LATE_E)
		mc[1] += PLANT_LATE_NS;
}

/* Extra host time before process D launches thunk NAME of execution E. */
static int64_t
plant_stall(int e, const char *name, int d)
{
	return plant.on && e == PLANT_STALL_E && d == 0 &&
	    strcmp(name, PLANT_STALL_OP) == 0 ? PLANT_STALL_NS : 0;
}

/* Extra transfer time of collective C in execution E. */
static int64_t
plant_xfer(int e, int c)
{
	return plant.on && e == PLANT_XFER_E && c == C_AR ? PLANT_XFER_NS : 0;
}

/* ---- a planted straggler (mkexample -S) ----
 * Off by default.  With -S, process PLANT_SLOW_DEV runs PLANT_SLOW_OP
 * PLANT_SLOW_NS longer in every execution of jit_train_step; its peers,
 * whose durations are the same as ever, then wait for it at the next
 * collective.  straggler-truth.tsv holds the device, the thunk and the
 * excess per step. */
#define PLANT_SLOW_NS	(4 * MS)
#define PLANT_SLOW_OP	"gemm_fusion_dot.1"
#define PLANT_SLOW_DEV	1

static int slow_on;

/* The extra duration of compute thunk NAME on process D. */
static int64_t
plant_slow(const char *name, int d)
{
	return slow_on && d == PLANT_SLOW_DEV &&
	    strcmp(name, PLANT_SLOW_OP) == 0 ? PLANT_SLOW_NS : 0;
}

static void
slow_truth(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		die("%s: cannot create", path);
	fprintf(f, "Fact\tValue\nslow_device\t%d\nslow_thunk\t%s\n"
	    "slow_ms_per_step\t%s\n", PLANT_SLOW_DEV, PLANT_SLOW_OP,
	    ms(PLANT_SLOW_NS));
	if (fclose(f) != 0)
		die("%s: write error", path);
}

/* What the simulation did, for critpath-truth.tsv: a compute thunk NAME
 * of E on D starting at S after the stream was free at FREE. */
static void
plant_compute(int e, const char *name, int d, int64_t s, int64_t free)
{
	if (plant.on && e == PLANT_STALL_E && d == 0 &&
	    strcmp(name, PLANT_STALL_OP) == 0)
		plant.gap = s - free;
}

/* Collective C of E: the last arrival S and every device's END. */
static void
plant_coll(int e, int c, int64_t s, const int64_t *end)
{
	if (plant.on && e == PLANT_XFER_E && c == C_AR) {
		plant.xfer_s = s;
		memcpy(plant.xfer_end, end, sizeof(plant.xfer_end));
	}
}

/* The first GPU start of every device in execution E. */
static void
plant_first(int e, const int64_t *first)
{
	if (plant.on && e == PLANT_LATE_E)
		memcpy(plant.first, first, sizeof(plant.first));
}

static void
plant_truth(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		die("%s: cannot create", path);
	fprintf(f, "Fact\tValue\n");
	fprintf(f, "late_exec\t%d\nlate_device\t1\nlate_start_ms\t%s\n",
	    PLANT_LATE_E, ms(plant.first[1] - plant.first[0]));
	fprintf(f, "xfer_exec\t%d\nxfer_name\tall-reduce-start\n",
	    PLANT_XFER_E);
	fprintf(f, "xfer_dev0_ms\t%s\n", ms(plant.xfer_end[0] - plant.xfer_s));
	fprintf(f, "xfer_dev1_ms\t%s\n", ms(plant.xfer_end[1] - plant.xfer_s));
	fprintf(f, "gap_exec\t%d\ngap_device\t0\ngap_name\t%s\ngap_ms\t%s\n",
	    PLANT_STALL_E, PLANT_STALL_OP, ms(plant.gap));
	if (fclose(f) != 0)
		die("%s: write error", path);
}

/* ---- end of the planted critical-path cases ---- */

/* jit_init, once, on P from CPU time T; returns the GPU's end. */
static int64_t
run_init(struct proc *p, int64_t t)
{
	int64_t cur = t + 30 * US, ready;
	long m, th, nccl;
	size_t k;

	m = rbegin(p, -1, p->pid, t, "TSL:XlaModule:#hlo_module=%s,"
	    "program_id=%d#", prog_init.name, prog_init.id);
	t += 9 * US;
	for (k = 0; k < NINIT; k++) {
		th = launch(p, m, &init_thunks[k], &t, &nccl);
		ready = p->r[th].ce + 3 * US;
		cur = (cur + 1500 > ready ? cur + 1500 : ready);
		rgpu(p, th, cur, cur + init_thunks[k].ns);
		cur += init_thunks[k].ns;
	}
	rend(p, m, t + 8 * US);
	return cur;
}

/*
 * Execution E of jit_train_step on both processes at once: collectives
 * join the devices.  MC[d] is the CPU start of the module on process d.
 */
#define REC(e, d)	((e) < NSTEP && (d) < NPROC)

static void
run_step(struct proc *p, int e, const int64_t *mc)
{
	int64_t *cpu = xcalloc((size_t)nproc, sizeof(*cpu));
	int64_t *cur = xcalloc((size_t)nproc, sizeof(*cur));
	int64_t *s = xcalloc((size_t)nproc, sizeof(*s));
	int64_t *end = xcalloc((size_t)nproc, sizeof(*end));
	int64_t *ready = xcalloc((size_t)nproc, sizeof(*ready));
	int64_t *first = xcalloc((size_t)nproc, sizeof(*first)), tt, second, du;
	long *m = xcalloc((size_t)nproc, sizeof(*m));
	long *th = xcalloc((size_t)nproc, sizeof(*th));
	long *nccl = xcalloc((size_t)nproc, sizeof(*nccl));
	int64_t *cend = xcalloc((size_t)nproc * NCOLL, sizeof(*cend));
	size_t k;
	int d, c, late, i;

	for (d = 0; d < nproc; d++)
		first[d] = -1;
	for (d = 0; d < nproc; d++) {
		m[d] = rbegin(&p[d], -1, p[d].pid, mc[d], "TSL:XlaModule:"
		    "#hlo_module=%s,program_id=%d#", prog_step.name,
		    prog_step.id);
		cpu[d] = mc[d] + 8 * US;
		cur[d] = p[d].gpu_free;
	}
	for (k = 0; k < NSTEPT; k++) {
		const struct thunk *t = &step_thunks[k];

		for (d = 0; d < nproc; d++) {
			cpu[d] += plant_stall(e, t->name, d);
			th[d] = launch(&p[d], m[d], t, &cpu[d], &nccl[d]);
			ready[d] = p[d].r[th[d]].ce + 3 * US;
		}
		switch (t->kind) {
		case K_COMPUTE:
			for (d = 0; d < nproc; d++) {
				tt = cur[d] + 1500 > ready[d] ? cur[d] + 1500 :
				    ready[d];
				if (first[d] < 0)
					first[d] = tt;
				plant_compute(e, t->name, d, tt, cur[d]);
				du = dur_of(t, e) + plant_slow(t->name, d);
				rgpu(&p[d], th[d], tt, tt + du);
				if (REC(e, d))
					comp_iv[e][d][k] = (struct ival){ tt,
					    tt + du };
				cur[d] = tt + du;
			}
			break;
		case K_DONE:
			/* The compute stream waits for the collective. */
			for (d = 0; d < nproc; d++)
				if (cur[d] < cend[t->coll * nproc + d])
					cur[d] = cend[t->coll * nproc + d];
			break;
		default:
			c = t->coll;
			i = e * NCOLL + c;
			/* A stall on one device: the other waits for it. */
			cur[(e + c) % nproc] += urand(8 * US, 60 * US);
			for (d = 0; d < nproc; d++) {
				tt = cur[d] + (t->kind == K_SYNC ? 1500 : 1000);
				s[d] = tt > ready[d] ? tt : ready[d];
			}
			/* The last device to arrive (the first of equals) is
			 * 5 us or more after the others. */
			late = 0;
			for (d = 1; d < nproc; d++)
				if (s[d] > s[late])
					late = d;
			second = INT64_MIN;
			for (d = 0; d < nproc; d++)
				if (d != late && s[d] > second)
					second = s[d];
			if (s[late] - second < 5 * US)
				s[late] = second + 5 * US;
			tt = coll_ns[c] * (10000 + tvar_of(i)) / 10000;
			if (e == 0)
				tt *= 3;	/* NCCL warm-up */
			tt += plant_xfer(e, c);
			if (REC(e, 0))
				coll_t[e][c] = tt;
			end[late] = s[late] + tt;
			for (d = 0; d < nproc; d++)
				if (d != late)
					end[d] = d < late ?
					    end[late] - end_skew_of(i, d) :
					    end[late] + end_skew_of(i, d);
			for (d = 0; d < nproc; d++) {
				if (first[d] < 0)
					first[d] = s[d];
				rgpu(&p[d], nccl[d], s[d], end[d]);
				cend[c * nproc + d] = end[d];
				if (REC(e, d))
					coll_iv[e][d][c] = (struct ival){ s[d],
					    end[d] };
				if (t->kind == K_SYNC)
					cur[d] = end[d];
			}
			plant_coll(e, c, s[late], end);
		}
	}
	plant_first(e, first);
	for (d = 0; d < nproc; d++) {
		rend(&p[d], m[d], cpu[d] + 8 * US);
		p[d].gpu_free = cur[d];
	}
}

/* The whole run of every process. */
static void
simulate(struct proc *p)
{
	int64_t *mc = xcalloc((size_t)nproc, sizeof(*mc)), t, g;
	int d, e;

	for (d = 0; d < nproc; d++) {
		t = 1800 * MS + d * 2100 * US + urand(0, 300 * US);
		t = compile(&p[d], &prog_init, t) + 3200 * US;
		g = run_init(&p[d], t);
		t = compile(&p[d], &prog_step, g + 11 * MS);
		p[d].steps_cpu = t + 4500 * US;
		p[d].gpu_free = g;
	}
	for (d = 0; d < nproc; d++)
		mc[d] = p[d].steps_cpu;
	for (e = 0; e < nstep; e++) {
		plant_start(e, mc);
		run_step(p, e, mc);
		/* The host waits for the loss, then loads the next batch. */
		for (d = 0; d < nproc; d++)
			mc[d] = p[d].gpu_free + 80 * US +
			    urand(400 * US, 700 * US);
	}
}

/* ---- writing files ---- */

static void
writefile(const char *path, const void *p, size_t n)
{
	FILE *f;

	if ((f = fopen(path, "wb")) == NULL)
		die("%s: %s", path, strerror(errno));
	if ((n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		die("%s: write failed", path);
}

static void
xmkdir(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		die("%s: %s", path, strerror(errno));
}

/* A CSV field, quoted when needed (RFC 4180). */
static void
csvfield(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* report_nvtx_pushpop_trace.csv: every range, in RangeId order. */
static void
write_pushpop(const struct proc *p, const char *path)
{
	const struct rng **byid;
	int64_t base = INT64_MAX;
	FILE *f;
	size_t i;
	int l;

	/* RangeIds run from the first range's, one per range. */
	byid = xcalloc(p->n, sizeof(*byid));
	for (i = 0; i < p->n; i++)
		if (p->r[i].id < base)
			base = p->r[i].id;
	for (i = 0; i < p->n; i++)
		byid[p->r[i].id - base] = &p->r[i];
	if ((f = fopen(path, "w")) == NULL)
		die("%s: %s", path, strerror(errno));
	fputs("Start (ns),End (ns),Duration (ns),DurChild (ns),"
	    "DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,"
	    "RangeStack,NameTree\n", f);
	for (i = 0; i < p->n; i++) {
		const struct rng *r = byid[i];
		int64_t dur = r->ce - r->cs;

		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
		    ",%" PRId64 ",", r->cs + p->clock, r->ce + p->clock, dur,
		    r->child_ns, dur - r->child_ns);
		csvfield(f, r->name);
		fprintf(f, ",%" PRId64 ",%" PRId64 ",%d,%d,%" PRId64 ",",
		    p->pid, r->tid, r->lvl, r->nchild, r->id);
		if (r->parent >= 0)
			fprintf(f, "%" PRId64, p->r[r->parent].id);
		fprintf(f, ",%s,", r->stack);
		{
			char *tree = xcalloc(2 * (size_t)r->lvl +
			    strlen(r->name) + 1, 1);

			for (l = 0; l < r->lvl; l++)
				memcpy(tree + 2 * l, "--", 2);
			strcpy(tree + 2 * r->lvl, r->name);
			csvfield(f, tree);
		}
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		die("%s: write failed", path);
}

static int
cmp_gpu(const void *a, const void *b)
{
	const struct rng *x = &sortp->r[*(const size_t *)a];
	const struct rng *y = &sortp->r[*(const size_t *)b];

	if (x->gs != y->gs)
		return x->gs < y->gs ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The ranges of P with GPU work, by projected start (then id), as indices
 * into P->r; their number in *N.  The trace.parquet writers' rows. */
static size_t *
gpu_ranges(struct proc *p, size_t *n)
{
	size_t *ix = xcalloc(p->n, sizeof(*ix)), i;

	*n = 0;
	for (i = 0; i < p->n; i++)
		if (p->r[i].ngpu > 0)
			ix[(*n)++] = i;
	sortp = p;
	qsort(ix, *n, sizeof(*ix), cmp_gpu);
	return ix;
}

/* A column of pqwrite, optional as pyarrow writes them. */
static struct wcol
icol(const char *name, const int64_t *v)
{
	struct wcol c = { .name = name, .type = T_INT64, .opt = 1, .i64 = v };

	return c;
}

static struct wcol
dcol(const char *name, const double *v, const uint8_t *valid)
{
	struct wcol c = { .name = name, .type = T_DOUBLE, .opt = 1, .f64 = v,
	    .valid = valid };

	return c;
}

static struct wcol
scol(const char *name, const char *const *v, const size_t *len)
{
	struct wcol c = { .name = name, .type = T_BYTE_ARRAY, .opt = 1,
	    .enc = E_DICT, .str = v, .slen = len };

	return c;
}

static void
write_parquet(const char *path, const struct wcol *c, size_t ncols,
    size_t nrows)
{
	struct wopt o = plainopt;
	uint8_t *buf;
	size_t len;

	o.codec = C_SNAPPY;
	buf = pqwrite(c, ncols, nrows, &o, &len);
	writefile(path, buf, len);
	free(buf);
}

/*
 * nvtx_gpu_proj_trace/trace.parquet in the <= 2024.4 layout: the ranges
 * with GPU work, by projected start, with the recipe's column types.
 */
static void
write_trace(struct proc *p, const char *path)
{
	size_t *ix, n, i;
	const char **name, **style, **stack;
	size_t *nlen, *slen, *klen;
	int64_t *ps, *pd, *pid, *tid, *ngpu, *nchild, *rank;
	double *os, *od, *lvl, *id, *parent;
	uint8_t *pvalid;
	struct wcol c[15];

	ix = gpu_ranges(p, &n);
	name = xcalloc(n, sizeof(*name));
	style = xcalloc(n, sizeof(*style));
	stack = xcalloc(n, sizeof(*stack));
	nlen = xcalloc(n, sizeof(*nlen));
	slen = xcalloc(n, sizeof(*slen));
	klen = xcalloc(n, sizeof(*klen));
	ps = xcalloc(n, sizeof(*ps));
	pd = xcalloc(n, sizeof(*pd));
	pid = xcalloc(n, sizeof(*pid));
	tid = xcalloc(n, sizeof(*tid));
	ngpu = xcalloc(n, sizeof(*ngpu));
	nchild = xcalloc(n, sizeof(*nchild));
	rank = xcalloc(n, sizeof(*rank));
	os = xcalloc(n, sizeof(*os));
	od = xcalloc(n, sizeof(*od));
	lvl = xcalloc(n, sizeof(*lvl));
	id = xcalloc(n, sizeof(*id));
	parent = xcalloc(n, sizeof(*parent));
	pvalid = xcalloc(n, 1);
	for (i = 0; i < n; i++) {
		const struct rng *r = &p->r[ix[i]];

		name[i] = r->name;
		nlen[i] = strlen(r->name);
		style[i] = "PushPop";
		slen[i] = 7;
		stack[i] = r->stack;
		klen[i] = strlen(r->stack);
		ps[i] = r->gs + p->clock;
		pd[i] = r->ge - r->gs;
		os[i] = (double)(r->cs + p->clock);
		od[i] = (double)(r->ce - r->cs);
		pid[i] = p->pid;
		tid[i] = r->tid;
		ngpu[i] = r->ngpu;
		lvl[i] = r->lvl;
		nchild[i] = r->ngpuchild;
		id[i] = (double)r->id;
		pvalid[i] = r->parent >= 0;
		parent[i] = r->parent >= 0 ? (double)p->r[r->parent].id : 0;
		rank[i] = 0;
	}
	c[0] = scol("Name", name, nlen);
	c[1] = icol("Projected Start", ps);
	c[2] = icol("Projected Duration", pd);
	c[3] = dcol("Orig Start", os, NULL);
	c[4] = dcol("Orig Duration", od, NULL);
	c[5] = scol("Style", style, slen);
	c[6] = icol("PID", pid);
	c[7] = icol("TID", tid);
	c[8] = icol("NumGPUOps", ngpu);
	c[9] = dcol("Lvl", lvl, NULL);
	c[10] = icol("NumChild", nchild);
	c[11] = dcol("RangeId", id, NULL);
	c[12] = dcol("ParentId", parent, pvalid);
	c[13] = scol("RangeStack", stack, klen);
	c[14] = icol("Rank", rank);
	write_parquet(path, c, 15, n);
}

/* thread-metadata.parquet: the threads of the process, by TID. */
static void
write_threads(const struct proc *p, const char *path)
{
	enum { NT = 4 + NWORKER };
	const char *name[NT];
	size_t len[NT], i;
	int64_t prio[NT], pid[NT], tid[NT];
	struct wcol c[4];
	int w;

	name[0] = "python3";
	tid[0] = p->pid;
	name[1] = "cuda-EvtHandlr";
	tid[1] = p->pid + 9;
	name[2] = xprintf("XlaLauncher:#global=%d,local=0,process=%d,"
	    "slice=0#", p->rank, p->rank);
	tid[2] = p->tid_launcher;
	for (w = 0; w < NWORKER; w++) {
		name[3 + w] = "tf_XLAEigen";
		tid[3 + w] = p->tid_worker[w];
	}
	name[NT - 1] = "tf_StreamExecutor";
	tid[NT - 1] = p->tid_launcher + 31;
	for (i = 0; i < NT; i++) {
		len[i] = strlen(name[i]);
		prio[i] = 20;
		pid[i] = p->pid;
	}
	c[0] = scol("Name", name, len);
	c[1] = icol("Priority", prio);
	c[2] = icol("PID", pid);
	c[3] = icol("TID", tid);
	write_parquet(path, c, 4, NT);
}

/* ---- HLO dumps ---- */

/* The Python source: file, function, line, column, parent frame. */
static const char *const py_files[] = { "train.py", "model.py", "optim.py" };
static const char *const py_funcs[] = {
	"<module>", "main", "train_step", "loss_fn", "__call__", "gelu",
	"embed", "adam_update", "init_params"
};
enum {
	F_MODULE = 1, F_MAIN, F_CONVERT, F_GRAD, F_LOSS, F_DOT, F_BIAS,
	F_ACT, F_GELU, F_SOFTMAX, F_EMBEDCALL, F_EMBED, F_PSUM, F_UPDATE,
	F_ADAM, F_INITCALL, F_INIT, F_NORM, NFRAME = F_NORM
};
static const struct frame {
	int file, func, line, column, parent;	/* 1-based ids, 0: none */
} py_frames[NFRAME] = {
	[F_MODULE - 1] = { 1, 1, 118, 0, 0 },	/* train.py:118[<module>] */
	[F_MAIN - 1] = { 1, 2, 97, 0, F_MODULE },
	[F_CONVERT - 1] = { 1, 3, 42, 0, F_MAIN },
	[F_GRAD - 1] = { 1, 3, 45, 0, F_MAIN },
	[F_LOSS - 1] = { 2, 4, 31, 0, F_GRAD },
	[F_DOT - 1] = { 2, 5, 17, 12, F_LOSS },	/* model.py:17:12[__call__] */
	[F_BIAS - 1] = { 2, 5, 18, 0, F_LOSS },
	[F_ACT - 1] = { 2, 5, 19, 0, F_LOSS },
	[F_GELU - 1] = { 2, 6, 9, 0, F_ACT },
	[F_SOFTMAX - 1] = { 2, 4, 34, 0, F_GRAD },
	[F_EMBEDCALL - 1] = { 2, 4, 29, 0, F_GRAD },
	[F_EMBED - 1] = { 2, 7, 12, 0, F_EMBEDCALL },
	[F_PSUM - 1] = { 1, 3, 47, 0, F_MAIN },
	[F_UPDATE - 1] = { 1, 3, 50, 0, F_MAIN },
	[F_ADAM - 1] = { 3, 8, 23, 0, F_UPDATE },
	[F_INITCALL - 1] = { 1, 2, 90, 0, F_MODULE },
	[F_INIT - 1] = { 2, 9, 40, 0, F_INITCALL },
	[F_NORM - 1] = { 2, 4, 30, 0, F_GRAD },
};

static Xla__StackFrameIndexProto *
frame_index(void)
{
	Xla__StackFrameIndexProto *x = xcalloc(1, sizeof(*x));
	size_t i;

	xla__stack_frame_index_proto__init(x);
	x->n_file_names = sizeof(py_files) / sizeof(py_files[0]);
	x->file_names = (char **)py_files;
	x->n_function_names = sizeof(py_funcs) / sizeof(py_funcs[0]);
	x->function_names = (char **)py_funcs;
	x->n_file_locations = x->n_stack_frames = NFRAME;
	x->file_locations = xcalloc(NFRAME, sizeof(*x->file_locations));
	x->stack_frames = xcalloc(NFRAME, sizeof(*x->stack_frames));
	for (i = 0; i < NFRAME; i++) {
		Xla__StackFrameIndexProto__FileLocation *l;
		Xla__StackFrameIndexProto__StackFrame *f;

		l = x->file_locations[i] = xcalloc(1, sizeof(*l));
		xla__stack_frame_index_proto__file_location__init(l);
		l->file_name_id = py_frames[i].file;
		l->function_name_id = py_frames[i].func;
		l->line = py_frames[i].line;
		l->column = py_frames[i].column;
		f = x->stack_frames[i] = xcalloc(1, sizeof(*f));
		xla__stack_frame_index_proto__stack_frame__init(f);
		f->file_location_id = (int32_t)i + 1;
		f->parent_frame_id = py_frames[i].parent;
	}
	return x;
}

/* A module under construction: computations, the entry's instructions. */
struct hb {
	Xla__HloComputationProto *comp[32];
	size_t ncomp;
	Xla__HloInstructionProto *entry[48];
	size_t nentry;
	int64_t next_id;
};

static Xla__ShapeProto *
shape(int type, int64_t d0, int64_t d1)
{
	Xla__ShapeProto *s = xcalloc(1, sizeof(*s));

	xla__shape_proto__init(s);
	s->element_type = type;
	s->dimensions = xcalloc(2, sizeof(*s->dimensions));
	if (d0 >= 0)
		s->dimensions[s->n_dimensions++] = d0;
	if (d1 >= 0)
		s->dimensions[s->n_dimensions++] = d1;
	return s;
}

static Xla__ShapeProto *
tuple(Xla__ShapeProto *a, Xla__ShapeProto *b)
{
	Xla__ShapeProto *s = xcalloc(1, sizeof(*s));

	xla__shape_proto__init(s);
	s->element_type = XLA__PRIMITIVE_TYPE__TUPLE;
	s->n_tuple_shapes = 2;
	s->tuple_shapes = xcalloc(2, sizeof(*s->tuple_shapes));
	s->tuple_shapes[0] = a;
	s->tuple_shapes[1] = b;
	return s;
}

static Xla__HloInstructionProto *
inst(struct hb *b, const char *name, const char *opcode, Xla__ShapeProto *sh,
    const char *op_name, int frame)
{
	Xla__HloInstructionProto *in = xcalloc(1, sizeof(*in));

	xla__hlo_instruction_proto__init(in);
	in->name = xstrdup(name);
	in->opcode = (char *)opcode;
	in->shape = sh;
	in->id = b->next_id++;
	if ((op_name && *op_name) || frame) {
		in->metadata = xcalloc(1, sizeof(*in->metadata));
		xla__op_metadata__init(in->metadata);
		in->metadata->op_name = (char *)(op_name ? op_name : "");
		in->metadata->stack_frame_id = frame;
	}
	return in;
}

static void
operands(Xla__HloInstructionProto *in, size_t n,
    Xla__HloInstructionProto *const *ops)
{
	size_t i;

	in->n_operand_ids = n;
	in->operand_ids = xcalloc(n, sizeof(*in->operand_ids));
	for (i = 0; i < n; i++)
		in->operand_ids[i] = ops[i]->id;
}

static void
calls(Xla__HloInstructionProto *in, int64_t comp)
{
	in->n_called_computation_ids = 1;
	in->called_computation_ids = xcalloc(1, sizeof(int64_t));
	in->called_computation_ids[0] = comp;
}

/* Add a computation of the N instructions IN (the root last). */
static int64_t
computation(struct hb *b, const char *name, Xla__HloInstructionProto **in,
    size_t n)
{
	Xla__HloComputationProto *c = xcalloc(1, sizeof(*c));

	if (b->ncomp == sizeof(b->comp) / sizeof(b->comp[0]))
		die("too many computations");
	xla__hlo_computation_proto__init(c);
	c->name = xstrdup(name);
	c->id = (int64_t)b->ncomp + 1;
	c->n_instructions = n;
	c->instructions = xcalloc(n, sizeof(*c->instructions));
	memcpy(c->instructions, in, n * sizeof(*in));
	b->comp[b->ncomp++] = c;
	return c->id;
}

static Xla__HloInstructionProto *
entry(struct hb *b, Xla__HloInstructionProto *in)
{
	if (b->nentry == sizeof(b->entry) / sizeof(b->entry[0]))
		die("too many instructions");
	return b->entry[b->nentry++] = in;
}

/* One fused instruction: opcode, op_name, frame. */
struct fused {
	const char *opcode, *op_name;
	int frame;
};

/*
 * The contracting dimensions of each gemm fusion's dot (lhs, rhs), so
 * that the roofline counts its FLOPs by XLA's rule (HloCostAnalysis
 * GetDotFlops: 2 x elements(result) x the lhs contracting sizes):
 * gemm_fusion_dot (8192x4096)(4096x4096) and gemm_fusion_dot.2 over
 * K = 4096, gemm_fusion_dot.1 the transposed product over K = 8192.
 * Their FLOPs go to truth.tsv (flops.NAME) from these same numbers.
 */
static const struct dot_dims {
	const char *fusion;
	int lhs, rhs;		/* contracting dimension of each operand */
	int64_t m, n, k;	/* result rows, columns; contraction size */
} dot_dims[] = {
	{ "gemm_fusion_dot", 1, 0, 8192, 4096, 4096 },
	{ "gemm_fusion_dot.1", 0, 0, 4096, 4096, 8192 },
	{ "gemm_fusion_dot.2", 1, 0, 4096, 4096, 4096 },
};
#define NDOT (sizeof(dot_dims) / sizeof(dot_dims[0]))

/* The dot X of fusion NAME gets its dimension numbers. */
static void
dot_numbers(Xla__HloInstructionProto *x, const char *name)
{
	Xla__DotDimensionNumbers *d;
	size_t i;

	for (i = 0; i < NDOT && strcmp(dot_dims[i].fusion, name) != 0; i++)
		;
	if (i == NDOT)
		die("mkexample: no dot_dims for %s", name);
	d = xcalloc(1, sizeof(*d));
	xla__dot_dimension_numbers__init(d);
	d->n_lhs_contracting_dimensions = d->n_rhs_contracting_dimensions = 1;
	d->lhs_contracting_dimensions = xcalloc(1, sizeof(int64_t));
	d->rhs_contracting_dimensions = xcalloc(1, sizeof(int64_t));
	d->lhs_contracting_dimensions[0] = dot_dims[i].lhs;
	d->rhs_contracting_dimensions[0] = dot_dims[i].rhs;
	x->dot_dimension_numbers = d;
}

/*
 * Fusion NAME of shape SH over the N operands OPS, calling a computation
 * of one parameter per operand and the instructions F[0..NF), each over
 * the previous one (the first over the parameters); the fusion carries
 * the metadata of the root, as XLA's fusion passes give it.
 */
static Xla__HloInstructionProto *
fusion(struct hb *b, const char *name, Xla__ShapeProto *sh,
    const struct fused *f, size_t nf, Xla__HloInstructionProto *const *ops,
    size_t n)
{
	Xla__HloInstructionProto *in[8], *fu;
	size_t i, k = 0;
	char pname[32];

	for (i = 0; i < n; i++) {
		snprintf(pname, sizeof(pname), "param_%zu.%" PRId64, i,
		    b->next_id);
		in[k++] = inst(b, pname, "parameter", ops[i]->shape, NULL, 0);
	}
	for (i = 0; i < nf; i++) {
		Xla__HloInstructionProto *x;
		char iname[48];

		snprintf(iname, sizeof(iname), "%s.%" PRId64, f[i].opcode,
		    b->next_id);
		x = inst(b, iname, f[i].opcode, sh, f[i].op_name, f[i].frame);
		if (strcmp(f[i].opcode, "dot") == 0)
			dot_numbers(x, name);
		if (i == 0)
			operands(x, n, in);
		else
			operands(x, 1, &in[k - 1]);
		in[k++] = x;
	}
	fu = inst(b, name, "fusion", sh, f[nf - 1].op_name, f[nf - 1].frame);
	operands(fu, n, ops);
	calls(fu, computation(b, xprintf("fused_%s", name), in, k));
	return entry(b, fu);
}

/* A collective over replica group {0,1}. */
static Xla__HloInstructionProto *
collective(struct hb *b, const char *name, const char *opcode,
    Xla__ShapeProto *sh, const char *op_name, int frame,
    Xla__HloInstructionProto *op, int64_t region)
{
	Xla__HloInstructionProto *in = inst(b, name, opcode, sh, op_name, frame);
	Xla__CollectiveDeviceListProto *l = xcalloc(1, sizeof(*l));
	Xla__ReplicaGroup *g = xcalloc(1, sizeof(*g));
	int i;

	operands(in, 1, &op);
	if (region > 0)
		calls(in, region);
	xla__replica_group__init(g);
	g->n_replica_ids = (size_t)nproc;	/* every device */
	g->replica_ids = xcalloc((size_t)nproc, sizeof(*g->replica_ids));
	for (i = 0; i < nproc; i++)
		g->replica_ids[i] = i;
	xla__collective_device_list_proto__init(l);
	l->n_replica_groups = 1;
	l->replica_groups = xcalloc(1, sizeof(*l->replica_groups));
	l->replica_groups[0] = g;
	in->collective_device_list = l;
	return entry(b, in);
}

static Xla__HloInstructionProto *
param(struct hb *b, const char *name, Xla__ShapeProto *sh)
{
	return entry(b, inst(b, name, "parameter", sh, NULL, 0));
}

/* A stable made-up fingerprint_before_lhs: two FNV-1a hashes. */
static char *
fingerprint(const char *s)
{
	uint64_t h[2] = { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };
	const char *q;
	int k;

	for (k = 0; k < 2; k++)
		for (q = s; *q; q++) {
			h[k] ^= (unsigned char)*q;
			h[k] *= 0x100000001b3ULL;
		}
	return xprintf("%016" PRIx64 "%016" PRIx64, h[0], h[1]);
}

/*
 * The buffer assignment of jit_train_step: its logical buffers (id, size
 * in bytes: the shapes of the step's instructions) and one heap
 * simulator trace over its entry computation, in program order, as XLA
 * writes into HloProto field 3.  Buffer 9 (the all-reduce, in place) is
 * a SHARE_WITH of buffer 8; every buffer is freed by the end.
 */
static const int64_t heap_size[] = {
	0, 16777216, 33554432, 134217728, 32768, 67108864, 67108864, 32768,
	67108864, 67108864, 67108864, 67108864, 33554432, 33554432, 67108864
};
#define NHBUF	(sizeof(heap_size) / sizeof(heap_size[0]))
static const struct hev {
	int kind;		/* 0 ALLOC, 1 FREE, 2 SHARE_WITH */
	int64_t buf, canon;
	const char *inst;
} heap_ev[] = {
	{ 0, 1, 0, "wrapped_convert" },
	{ 0, 2, 0, "all-gather-start" },
	{ 1, 1, 0, "all-gather-start" },
	{ 0, 3, 0, "loop_convert_fusion" },
	{ 0, 4, 0, "input_reduce_fusion" },
	{ 0, 5, 0, "gemm_fusion_dot" },
	{ 0, 6, 0, "loop_add_fusion" },
	{ 1, 5, 0, "loop_add_fusion" },
	{ 0, 7, 0, "input_reduce_fusion.1" },
	{ 0, 8, 0, "gemm_fusion_dot.1" },
	{ 1, 3, 0, "gemm_fusion_dot.1" },
	{ 2, 9, 8, "all-reduce-start" },
	{ 0, 10, 0, "gemm_fusion_dot.2" },
	{ 1, 6, 0, "gemm_fusion_dot.2" },
	{ 1, 2, 0, "gemm_fusion_dot.2" },
	{ 0, 11, 0, "loop_multiply_fusion" },
	{ 1, 10, 0, "loop_multiply_fusion" },
	{ 1, 9, 0, "all-reduce-done" },
	{ 0, 12, 0, "reduce-scatter" },
	{ 1, 11, 0, "reduce-scatter" },
	{ 0, 13, 0, "loop_multiply_fusion.1" },
	{ 1, 12, 0, "loop_multiply_fusion.1" },
	{ 0, 14, 0, "wrapped_copy" },
	{ 1, 8, 0, "wrapped_copy" },
	{ 1, 4, 0, "tuple.99" },
	{ 1, 7, 0, "tuple.99" },
	{ 1, 13, 0, "tuple.99" },
	{ 1, 14, 0, "tuple.99" },
};
#define NHEV	(sizeof(heap_ev) / sizeof(heap_ev[0]))

/*
 * The heap after each event of heap_ev, for truth.tsv: an allocation
 * (a buffer and the buffers that SHARE_WITH it) counts once, from its
 * first user to its last.  Writes the peak (bytes) and the index of the
 * first event reaching it.
 */
static void
heap_peak(int64_t *peak, size_t *at)
{
	int users[NHBUF] = { 0 };
	int64_t owner[NHBUF], heap = 0;
	size_t i;

	for (i = 0; i < NHBUF; i++)
		owner[i] = (int64_t)i;
	*peak = 0;
	*at = 0;
	for (i = 0; i < NHEV; i++) {
		const struct hev *v = &heap_ev[i];
		int64_t a = v->kind == 2 ? v->canon : owner[v->buf];

		if (v->kind == 2)
			owner[v->buf] = a;
		if (v->kind == 1) {
			if (--users[a] == 0)
				heap -= heap_size[a];
		} else if (users[a]++ == 0) {
			heap += heap_size[a];
		}
		if (heap > *peak) {
			*peak = heap;
			*at = i;
		}
	}
}

/* The packed BufferAssignmentProto of jit_train_step, whose entry
 * computation is COMP, as HloProto field 3 (tag and length first). */
static uint8_t *
heap_field(const char *comp, size_t *len)
{
	Xla__BufferAssignmentProto ba = XLA__BUFFER_ASSIGNMENT_PROTO__INIT;
	Xla__HeapSimulatorTrace tr = XLA__HEAP_SIMULATOR_TRACE__INIT;
	Xla__HeapSimulatorTrace *trp = &tr;
	Xla__LogicalBufferProto *lb[NHBUF - 1];
	Xla__HeapSimulatorTrace__Event *ev[NHEV];
	uint8_t *buf;
	size_t i, n, k;

	for (i = 1; i < NHBUF; i++) {
		lb[i - 1] = xcalloc(1, sizeof(**lb));
		xla__logical_buffer_proto__init(lb[i - 1]);
		lb[i - 1]->id = (int64_t)i;
		lb[i - 1]->size = heap_size[i];
	}
	for (i = 0; i < NHEV; i++) {
		ev[i] = xcalloc(1, sizeof(**ev));
		xla__heap_simulator_trace__event__init(ev[i]);
		ev[i]->kind = heap_ev[i].kind;
		ev[i]->buffer_id = heap_ev[i].buf;
		ev[i]->share_with_canonical_id = heap_ev[i].canon;
		ev[i]->computation_name = (char *)comp;
		ev[i]->instruction_name = (char *)heap_ev[i].inst;
	}
	tr.n_events = NHEV;
	tr.events = ev;
	tr.whole_module_simulation = 1;
	ba.n_logical_buffers = NHBUF - 1;
	ba.logical_buffers = lb;
	ba.n_heap_simulator_traces = 1;
	ba.heap_simulator_traces = &trp;
	n = xla__buffer_assignment_proto__get_packed_size(&ba);
	buf = xcalloc(n + 11, 1);
	/* Field 3, length-delimited: tag 0x1a, the length as a varint. */
	k = 0;
	buf[k++] = 0x1a;
	for (i = n; i >= 0x80; i >>= 7)
		buf[k++] = (uint8_t)(i | 0x80);
	buf[k++] = (uint8_t)i;
	xla__buffer_assignment_proto__pack(&ba, buf + k);
	*len = k + n;
	return buf;
}

/*
 * The GPU of the run, as XLA dumps it beside each module
 * (module_NNNN.NAME.gpu_target_config.pbtxt, GpuTargetConfigProto in
 * text form; the fields a roofline reads, and some others as XLA writes
 * them): an H100 SXM, so that the example's report shows MFU.  Its facts
 * go to truth.tsv (gpu.*).
 */
static const struct {
	const char *name;
	int sms, major, minor;
	double clock_ghz;
	int64_t bw;		/* B/s */
} example_gpu = { "NVIDIA H100 80GB HBM3", 132, 9, 0, 1.98, 3352320000000 };

static void
write_gpu_config(const struct program *g, const char *adir)
{
	char *t = xprintf("gpu_device_info {\n"
	    "  threads_per_block_limit: 1024\n  threads_per_warp: 32\n"
	    "  shared_memory_per_block: 49152\n  core_count: %d\n"
	    "  fpus_per_core: 128\n  memory_bandwidth: %" PRId64 "\n"
	    "  l2_cache_size: 52428800\n  clock_rate_ghz: %.2f\n"
	    "  device_memory_size: 84929347584\n"
	    "  cuda_compute_capability {\n    major: %d\n  }\n}\n"
	    "platform_name: \"CUDA\"\n"
	    "dnn_version_info {\n  major: 9\n  minor: 1\n}\n"
	    "device_description_str: \"%s\"\n", example_gpu.sms,
	    example_gpu.bw, example_gpu.clock_ghz, example_gpu.major,
	    example_gpu.name);

	(layout2026 ? l26_dump : writefile)(xprintf("%s/dump/module_%04d.%s."
	    "gpu_target_config.pbtxt", adir, g->id, g->name), t, strlen(t));
}

/* Pack module B named G into DIR/dump/module_NNNN.NAME....hlo.pb. */
static void
write_module(struct hb *b, const struct program *g, const char *adir)
{
	Xla__HloModuleProto m = XLA__HLO_MODULE_PROTO__INIT;
	Xla__HloProto w = XLA__HLO_PROTO__INIT;
	Xla__FrontendAttributes fa = XLA__FRONTEND_ATTRIBUTES__INIT;
	Xla__FrontendAttributes__MapEntry fp =
	    XLA__FRONTEND_ATTRIBUTES__MAP_ENTRY__INIT, *fpp = &fp;
	uint8_t *buf, *ba = NULL;
	size_t len, nba = 0;
	char *main_name = xprintf("main.%" PRId64, b->next_id);

	computation(b, main_name, b->entry, b->nentry);
	m.name = (char *)g->name;
	m.id = g->id;
	m.n_computations = b->ncomp;
	m.computations = b->comp;
	m.stack_frame_index = frame_index();
	fp.key = "fingerprint_before_lhs";
	fp.value = fingerprint(g->name);
	fa.n_map = 1;
	fa.map = &fpp;
	m.frontend_attributes = &fa;
	if (layout2026)
		l26_module(&m, g->id);
	w.hlo_module = &m;
	/* The step's buffer assignment, after the module (XLA's order). */
	if (g == &prog_step)
		ba = heap_field(main_name, &nba);
	len = xla__hlo_proto__get_packed_size(&w);
	buf = xcalloc(len + nba, 1);
	xla__hlo_proto__pack(&w, buf);
	if (nba > 0)
		memcpy(buf + len, ba, nba);
	len += nba;
	(layout2026 ? l26_dump : writefile)(xprintf("%s/dump/module_%04d.%s."
	    "sm_9.0_gpu_after_optimizations.hlo.pb", adir, g->id, g->name),
	    buf, len);
	write_gpu_config(g, adir);
}

#define F32	XLA__PRIMITIVE_TYPE__F32
#define BF16	XLA__PRIMITIVE_TYPE__BF16
#define S32	XLA__PRIMITIVE_TYPE__S32
#define U32	XLA__PRIMITIVE_TYPE__U32

static const char *
op_of(const struct thunk *t, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].op_name;
	die("no thunk %s", name);
	return NULL;
}

#define SOP(name)	op_of(step_thunks, NSTEPT, name)
#define IOP(name)	op_of(init_thunks, NINIT, name)

static void
write_init_hlo(const char *adir)
{
	struct hb b = { .next_id = 1 };
	Xla__HloInstructionProto *key, *rng, *cv, *mul, *bc, *cp, *x[3];
	struct fused f;

	key = param(&b, "Arg_0.1", shape(U32, 2, -1));
	rng = entry(&b, inst(&b, "rng-bit-generator", "rng-bit-generator",
	    shape(U32, 2048, 4096), IOP("rng-bit-generator"), F_INIT));
	operands(rng, 1, &key);
	f = (struct fused){ "convert", IOP("loop_convert_fusion"), F_INIT };
	cv = fusion(&b, "loop_convert_fusion", shape(F32, 2048, 4096), &f, 1,
	    &rng, 1);
	f = (struct fused){ "multiply", IOP("loop_multiply_fusion"), F_INIT };
	mul = fusion(&b, "loop_multiply_fusion", shape(F32, 2048, 4096), &f,
	    1, &cv, 1);
	f = (struct fused){ "broadcast", IOP("loop_broadcast_fusion"), F_INIT };
	bc = fusion(&b, "loop_broadcast_fusion", shape(F32, 2048, 4096), &f,
	    1, &key, 1);
	f = (struct fused){ "copy", "", 0 };
	cp = fusion(&b, "wrapped_copy", shape(F32, 2048, 4096), &f, 1, &mul, 1);
	x[0] = mul;
	x[1] = bc;
	x[2] = cp;
	operands(entry(&b, inst(&b, "tuple.9", "tuple", shape(F32, -1, -1),
	    NULL, 0)), 3, x);
	write_module(&b, &prog_init, adir);
}

static void
write_step_hlo(const char *adir)
{
	struct hb b = { .next_id = 1 };
	Xla__HloInstructionProto *w, *tok, *w2, *st, *r[4], *cv, *ag, *emb,
	    *norm, *agd, *dot, *act, *sm, *dot1, *ar, *dot2, *scl, *ard, *rs,
	    *upd, *cp, *o[3];
	int64_t region;
	struct fused f, f2[2];

	r[0] = inst(&b, "x.1", "parameter", shape(F32, -1, -1), NULL, 0);
	r[1] = inst(&b, "y.2", "parameter", shape(F32, -1, -1), NULL, 0);
	r[2] = inst(&b, "add.3", "add", shape(F32, -1, -1), NULL, 0);
	operands(r[2], 2, r);
	region = computation(&b, "region_0.4", r, 3);
	w = param(&b, "Arg_0.5", shape(F32, 2048, 4096));
	tok = param(&b, "Arg_1.6", shape(S32, 16, 512));
	w2 = param(&b, "Arg_2.7", shape(F32, 4096, 4096));
	st = param(&b, "Arg_3.8", shape(F32, 2048, 4096));
	f = (struct fused){ "convert", SOP("wrapped_convert"), F_CONVERT };
	cv = fusion(&b, "wrapped_convert", shape(BF16, 2048, 4096), &f, 1, &w,
	    1);
	ag = collective(&b, "all-gather-start", "all-gather-start",
	    tuple(shape(BF16, 2048, 4096), shape(BF16, 4096, 4096)),
	    SOP("all-gather-start"), F_DOT, cv, 0);
	f = (struct fused){ "convert", SOP("loop_convert_fusion"), F_EMBED };
	emb = fusion(&b, "loop_convert_fusion", shape(F32, 8192, 4096), &f, 1,
	    &tok, 1);
	f = (struct fused){ "reduce", SOP("input_reduce_fusion"), F_NORM };
	norm = fusion(&b, "input_reduce_fusion", shape(F32, 8192, -1), &f, 1,
	    &emb, 1);
	agd = entry(&b, inst(&b, "all-gather-done", "all-gather-done",
	    shape(BF16, 4096, 4096), SOP("all-gather-done"), F_DOT));
	operands(agd, 1, &ag);
	f = (struct fused){ "dot", SOP("gemm_fusion_dot"), F_DOT };
	o[0] = emb;
	o[1] = agd;
	dot = fusion(&b, "gemm_fusion_dot", shape(BF16, 8192, 4096), &f, 1, o,
	    2);
	/* Two source lines in one fusion: its time splits between them. */
	f2[0] = (struct fused){ "add", FWD "dense/add", F_BIAS };
	f2[1] = (struct fused){ "tanh", SOP("loop_add_fusion"), F_GELU };
	o[0] = dot;
	o[1] = norm;
	act = fusion(&b, "loop_add_fusion", shape(BF16, 8192, 4096), f2, 2, o,
	    2);
	f = (struct fused){ "reduce", SOP("input_reduce_fusion.1"), F_SOFTMAX };
	sm = fusion(&b, "input_reduce_fusion.1", shape(F32, 8192, -1), &f, 1,
	    &act, 1);
	f = (struct fused){ "dot", SOP("gemm_fusion_dot.1"), F_DOT };
	o[0] = act;
	o[1] = emb;
	dot1 = fusion(&b, "gemm_fusion_dot.1", shape(F32, 4096, 4096), &f, 1,
	    o, 2);
	ar = collective(&b, "all-reduce-start", "all-reduce-start",
	    shape(F32, 4096, 4096), SOP("all-reduce-start"), F_PSUM, dot1,
	    region);
	o[0] = act;
	o[1] = agd;
	f = (struct fused){ "dot", SOP("gemm_fusion_dot.2"), F_DOT };
	dot2 = fusion(&b, "gemm_fusion_dot.2", shape(F32, 4096, 4096), &f, 1,
	    o, 2);
	f = (struct fused){ "multiply", SOP("loop_multiply_fusion"), F_PSUM };
	o[0] = dot2;
	o[1] = w2;
	scl = fusion(&b, "loop_multiply_fusion", shape(F32, 4096, 4096), &f, 1,
	    o, 2);
	ard = entry(&b, inst(&b, "all-reduce-done", "all-reduce-done",
	    shape(F32, 4096, 4096), SOP("all-reduce-done"), F_PSUM));
	operands(ard, 1, &ar);
	rs = collective(&b, "reduce-scatter", "reduce-scatter",
	    shape(F32, 2048, 4096), SOP("reduce-scatter"), F_UPDATE, scl,
	    region);
	f = (struct fused){ "multiply", SOP("loop_multiply_fusion.1"), F_ADAM };
	o[0] = rs;
	o[1] = st;
	o[2] = w;
	upd = fusion(&b, "loop_multiply_fusion.1", shape(F32, 2048, 4096), &f,
	    1, o, 3);
	f = (struct fused){ "copy", "", 0 };
	cp = fusion(&b, "wrapped_copy", shape(F32, 4096, 4096), &f, 1, &ard, 1);
	o[0] = upd;
	o[1] = cp;
	o[2] = sm;
	operands(entry(&b, inst(&b, "tuple.99", "tuple", shape(F32, -1, -1),
	    NULL, 0)), 3, o);
	write_module(&b, &prog_step, adir);
}

/* ---- the facts planted ---- */

static int64_t
overlap(struct ival a, struct ival b)
{
	int64_t s = a.s > b.s ? a.s : b.s, e = a.e < b.e ? a.e : b.e;

	return e > s ? e - s : 0;
}

/* An exact decimal of NS in ms, as the tools write times. */
static char *
ms(int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;
	char *s = xprintf("%s%" PRId64 ".%06" PRId64, ns < 0 ? "-" : "",
	    a / MS, a % MS);
	size_t n = strlen(s);

	while (s[n - 1] == '0')
		s[--n] = '\0';
	if (s[n - 1] == '.')
		s[--n] = '\0';
	return s;
}

static void
write_truth(const struct proc *p, const char *path)
{
	FILE *f;
	int64_t hidden, total, lo = 0, hi = 0, sum;
	double bw, bwsum;
	size_t k, j;
	int c, d, e, i, first;

	if ((f = fopen(path, "w")) == NULL)
		die("%s: %s", path, strerror(errno));
	fprintf(f, "Fact\tValue\n");
	fprintf(f, "profiles\trank0 rank1\n");
	fprintf(f, "devices\t%d\n", NPROC);
	fprintf(f, "clock_offset_ns\t%lld\n", (long long)OFFSET_NS);
	for (i = 0; i < NINST; i++) {
		lo = end_skew[i] < lo ? end_skew[i] : lo;
		hi = end_skew[i] > hi ? end_skew[i] : hi;
	}
	fprintf(f, "correction_ms.0\t%s\n", ms(-OFFSET_NS / 2));
	fprintf(f, "correction_ms.1\t%s\n", ms(OFFSET_NS / 2));
	fprintf(f, "correction_instances\t%d\n", NINST);
	fprintf(f, "spread_ms\t%s\n", ms((hi - lo) / 2));
	fprintf(f, "fingerprint.jit_init\t%s\n", fingerprint("jit_init"));
	fprintf(f, "fingerprint.jit_train_step\t%s\n",
	    fingerprint("jit_train_step"));
	fprintf(f, "executions.jit_init\t1\n");
	fprintf(f, "executions.jit_train_step\t%d\n", NSTEP);
	fprintf(f, "executions.autotuner\t3\n");
	fprintf(f, "thunks.jit_init\t%zu\n", NINIT);
	for (k = j = 0; k < NSTEPT; k++)
		j += step_thunks[k].kind != K_DONE;
	fprintf(f, "thunks.jit_train_step\t%zu\n", j);
	fprintf(f, "init_executions.jit_train_step\t2\n");
	for (c = 0; c < NCOLL; c++) {
		fprintf(f, "message_size.%s\t%" PRId64 "\n", coll_name[c],
		    coll_bytes[c]);
		for (first = 0; first <= 2; first += 2) {
			bwsum = 0;
			for (e = first; e < NSTEP; e++) {
				/* Two devices: bus bandwidth = bytes / time. */
				bw = (double)coll_bytes[c] / (double)coll_t[e][c];
				bwsum += bw;
			}
			fprintf(f, "busbw_%s.%s\t%.9f\n", first ? "steady" :
			    "all", coll_name[c], bwsum / (NSTEP - first));
		}
		hidden = total = 0;
		for (e = 0; e < NSTEP; e++)
			for (d = 0; d < NPROC; d++) {
				struct ival v = coll_iv[e][d][c];

				total += v.e - v.s;
				for (k = 0; k < NSTEPT; k++)
					if (comp_iv[e][d][k].e > 0)
						hidden += overlap(v,
						    comp_iv[e][d][k]);
			}
		fprintf(f, "hidden_ms.%s\t%s\n", coll_name[c], ms(hidden));
		fprintf(f, "total_ms.%s\t%s\n", coll_name[c], ms(total));
	}
	for (k = 0; k < NSTEPT; k++) {
		if (step_thunks[k].kind != K_COMPUTE)
			continue;
		sum = 0;
		for (e = 2; e < NSTEP; e++)
			for (d = 0; d < NPROC; d++)
				sum += comp_iv[e][d][k].e - comp_iv[e][d][k].s;
		fprintf(f, "steady_ns.%s\t%" PRId64 "\n", step_thunks[k].name,
		    sum);
	}
	for (d = 0; d < NPROC; d++) {
		fprintf(f, "compile_ms.rank%d.jit_init\t%s\n", d,
		    ms(p[d].compile_ns[0]));
		fprintf(f, "compile_ms.rank%d.jit_train_step\t%s\n", d,
		    ms(p[d].compile_ns[1]));
	}
	fprintf(f, "compile_workers\t%d\n", NWORKER);
	/* The roofline's inputs: the GPU and each gemm's FLOPs. */
	fprintf(f, "gpu.name\t%s\ngpu.sms\t%d\ngpu.clock_ghz\t%.2f\n"
	    "gpu.bandwidth_Bps\t%" PRId64 "\n", example_gpu.name,
	    example_gpu.sms, example_gpu.clock_ghz, example_gpu.bw);
	for (k = 0; k < NDOT; k++)
		fprintf(f, "flops.%s\t%" PRId64 "\n", dot_dims[k].fusion,
		    2 * dot_dims[k].m * dot_dims[k].n * dot_dims[k].k);
	/* Duration variation and the heap simulator trace (the notebook's
	 * variability and memory views). */
	for (k = 0; k < NVARY; k++)
		for (j = 0; j < NSTEPT; j++) {
			if (strcmp(step_thunks[j].name, vary[k].name) != 0)
				continue;
			for (e = 0; e < NSTEP; e++)
				fprintf(f, "duration_ns.%s.%d\t%" PRId64 "\n",
				    vary[k].name, e, dur_of(&step_thunks[j], e));
		}
	heap_peak(&sum, &j);
	fprintf(f, "heap_events.jit_train_step\t%zu\n", NHEV);
	fprintf(f, "heap_peak_bytes.jit_train_step\t%" PRId64 "\n", sum);
	fprintf(f, "heap_peak_event.jit_train_step\t%zu\n", j);
	fprintf(f, "heap_peak_instruction.jit_train_step\t%s\n",
	    heap_ev[j].inst);
	if (fclose(f) != 0)
		die("%s: write failed", path);
}

/* ---- -L 2026: nsys 2026.3's archive layout, command buffers ---- */

/*
 * A command buffer: XLA runs the consecutive thunks FIRST..LAST of MODULE
 * as one CUDA graph under one thunk, NAME, whose NVTX range is RANGE and
 * which no HLO instruction names.  Its projected GPU time is the graph's,
 * from the first kernel's start to the last one's end.  What was planted:
 * executions and ns over every process, all and from execution 2 on.
 */
struct l26_cmdbuf {
	const char *module, *name, *range, *first, *last;
	int64_t nexec, all_ns, steady_ns;
};

static struct l26_cmdbuf l26_cmdbufs[] = {
	{ "jit_init", "command_buffer_1", "TSL:Thunk:#name=jit(init)/"
	    "jit(main)/mul,hlo_op=command_buffer_1#", "loop_multiply_fusion",
	    "loop_broadcast_fusion", 0, 0, 0 },
	{ "jit_train_step", "command_buffer_9",
	    "TSL:Thunk:#hlo_op=command_buffer_9#", "loop_add_fusion",
	    "input_reduce_fusion.1", 0, 0, 0 },
};
#define L26_NCMDBUF	(sizeof(l26_cmdbufs) / sizeof(l26_cmdbufs[0]))

/* Frame ids beyond jit_train_step's index, as XLA of 2026 writes them:
 * input_reduce_fusion gets a new frame whose parent is beyond, and
 * loop_multiply_fusion.1 and parameter Arg_3.8 ids beyond. */
#define L26_PARENT	33
#define L26_BEYOND	40
#define L26_ARG		27
static int64_t l26_nbeyond;	/* instructions planted so */

/* Whether thunk range R is hlo_op OP of a module named MODULE. */
static int
l26_is(const struct proc *p, const struct rng *r, const char *module,
    const char *op)
{
	const char *s = strstr(r->name, "hlo_op=");
	size_t n = strlen(op);

	if (s == NULL || strncmp(r->name, "TSL:Thunk:#", 11) != 0 ||
	    r->parent < 0 || strncmp(s + 7, op, n) != 0 ||
	    strcmp(s + 7 + n, "#") != 0)
		return 0;
	s = strstr(p->r[r->parent].name, "hlo_module=");
	n = strlen(module);
	return s != NULL && strncmp(s + 11, module, n) == 0 &&
	    s[11 + n] == ',';
}

/* Remove range J, which has no children, from P. */
static void
l26_remove(struct proc *p, size_t j)
{
	size_t k;

	memmove(&p->r[j], &p->r[j + 1], (p->n - j - 1) * sizeof(*p->r));
	p->n--;
	for (k = 0; k < p->n; k++)
		if (p->r[k].parent > (long)j)
			p->r[k].parent--;
}

/* Thunks FIRST..LAST of every command buffer into one range, before
 * rfinish numbers the ranges. */
static void
l26_merge(struct proc *p)
{
	int64_t occ[L26_NCMDBUF] = { 0 }, ns;
	size_t i, j, c;

	for (i = 0; i < p->n; i++)
		for (c = 0; c < L26_NCMDBUF; c++) {
			struct l26_cmdbuf *b = &l26_cmdbufs[c];
			struct rng *a = &p->r[i];

			if (!l26_is(p, a, b->module, b->first))
				continue;
			for (j = i + 1; j < p->n && p->r[j].parent != a->parent;
			    j++)
				;
			if (j == p->n || !l26_is(p, &p->r[j], b->module,
			    b->last))
				die("-L 2026: %s is not followed by %s",
				    b->first, b->last);
			a->name = xstrdup(b->range);
			a->ce = p->r[j].ce;
			a->ge = p->r[j].ge;
			ns = a->ge - a->gs;
			b->nexec++;
			b->all_ns += ns;
			if (occ[c]++ >= 2)
				b->steady_ns += ns;
			l26_remove(p, j);
		}
}

/* Give instructions of computation ID (every one with metadata) FRAME. */
static int64_t
l26_comp_frames(Xla__HloModuleProto *m, int64_t id, int frame)
{
	int64_t n = 0;
	size_t c, i;

	for (c = 0; c < m->n_computations; c++)
		for (i = 0; m->computations[c]->id == id &&
		    i < m->computations[c]->n_instructions; i++) {
			Xla__HloInstructionProto *in =
			    m->computations[c]->instructions[i];

			if (in->metadata && in->metadata->stack_frame_id) {
				in->metadata->stack_frame_id = frame;
				n++;
			}
		}
	return n;
}

/* The instruction NAME of M's computations (the entry's, here). */
static Xla__HloInstructionProto *
l26_inst(Xla__HloModuleProto *m, const char *name)
{
	size_t c, i;

	for (c = 0; c < m->n_computations; c++)
		for (i = 0; i < m->computations[c]->n_instructions; i++)
			if (strcmp(m->computations[c]->instructions[i]->name,
			    name) == 0)
				return m->computations[c]->instructions[i];
	die("-L 2026: no instruction %s", name);
	return NULL;
}

/* Fusion NAME and what it calls get FRAME. */
static void
l26_fusion_frame(Xla__HloModuleProto *m, const char *name, int frame)
{
	Xla__HloInstructionProto *in = l26_inst(m, name);

	in->metadata->stack_frame_id = frame;
	l26_nbeyond += 1 + l26_comp_frames(m, in->called_computation_ids[0],
	    frame);
}

/* jit_train_step's stack frame ids beyond its index (write_module). */
static void
l26_module(struct Xla__HloModuleProto *m, int id)
{
	Xla__StackFrameIndexProto *x = m->stack_frame_index;
	Xla__StackFrameIndexProto__StackFrame **v, *f;
	Xla__HloInstructionProto *arg;

	if (id != prog_step.id)
		return;
	l26_nbeyond = 0;
	/* Frame NFRAME + 1: input_reduce_fusion's line, under a parent
	 * beyond the index. */
	v = xcalloc(x->n_stack_frames + 1, sizeof(*v));
	memcpy(v, x->stack_frames, x->n_stack_frames * sizeof(*v));
	f = v[x->n_stack_frames] = xcalloc(1, sizeof(*f));
	xla__stack_frame_index_proto__stack_frame__init(f);
	f->file_location_id = F_NORM;
	f->parent_frame_id = L26_PARENT;
	x->stack_frames = v;
	x->n_stack_frames++;
	l26_fusion_frame(m, "input_reduce_fusion", NFRAME + 1);
	l26_fusion_frame(m, "loop_multiply_fusion.1", L26_BEYOND);
	arg = l26_inst(m, "Arg_3.8");
	arg->metadata = xcalloc(1, sizeof(*arg->metadata));
	xla__op_metadata__init(arg->metadata);
	arg->metadata->op_name = "";
	arg->metadata->stack_frame_id = L26_ARG;
	l26_nbeyond++;
}

/* A dump, xz-compressed as nsys-jax of 2026 writes them: PATH.xz. */
static void
l26_dump(const char *path, const void *buf, size_t len)
{
	size_t cap = lzma_stream_buffer_bound(len), n = 0;
	uint8_t *out = xcalloc(cap, 1);

	if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, buf, len, out,
	    &n, cap) != LZMA_OK)
		die("%s: xz compression failed", path);
	writefile(xprintf("%s.xz", path), out, n);
}

/* ":a:b:c" into list elements OUT from OFF[I]; OFF[I + 1] set. */
static void
l26_stack(const char *s, int64_t *off, size_t i, int64_t **out,
    size_t *cap)
{
	int64_t k = off[i];
	char *end;

	while (*s == ':') {
		if ((size_t)k == *cap) {
			int64_t *v = xcalloc(*cap * 2 + 64, sizeof(*v));

			if (*cap > 0)
				memcpy(v, *out, *cap * sizeof(*v));
			*out = v;
			*cap = *cap * 2 + 64;
		}
		(*out)[k++] = strtoll(s + 1, &end, 10);
		s = end;
	}
	off[i + 1] = k;
}

/*
 * nvtx_gpu_proj_trace/trace.parquet as nsys 2026.3 writes it: Text
 * without the domain, Domain, Start, End, ..., Range Stack a list of
 * range ids; the ranges with GPU work, by projected start.
 */
static void
l26_trace(struct proc *p, const char *path)
{
	size_t *ix, n, i, cap = 0;
	const char **text, **dom;
	size_t *tlen, *dlen;
	int64_t *st, *en, *pid, *tid, *lvl, *nchild, *id, *par, *off, *el;
	uint8_t *pvalid;
	struct wcol c[11];

	ix = gpu_ranges(p, &n);
	text = xcalloc(n, sizeof(*text));
	dom = xcalloc(n, sizeof(*dom));
	tlen = xcalloc(n, sizeof(*tlen));
	dlen = xcalloc(n, sizeof(*dlen));
	st = xcalloc(n, sizeof(*st));
	en = xcalloc(n, sizeof(*en));
	pid = xcalloc(n, sizeof(*pid));
	tid = xcalloc(n, sizeof(*tid));
	lvl = xcalloc(n, sizeof(*lvl));
	nchild = xcalloc(n, sizeof(*nchild));
	id = xcalloc(n, sizeof(*id));
	par = xcalloc(n, sizeof(*par));
	pvalid = xcalloc(n, 1);
	off = xcalloc(n + 1, sizeof(*off));
	el = NULL;
	for (i = 0; i < n; i++) {
		const struct rng *r = &p->r[ix[i]];
		const char *colon = strchr(r->name, ':');

		if (colon == NULL)
			die("range %s has no domain", r->name);
		dom[i] = r->name;
		dlen[i] = (size_t)(colon - r->name);
		text[i] = colon + 1;
		tlen[i] = strlen(text[i]);
		st[i] = r->gs + p->clock;
		en[i] = r->ge + p->clock;
		pid[i] = p->pid;
		tid[i] = r->tid;
		lvl[i] = r->lvl;
		nchild[i] = r->ngpuchild;
		id[i] = r->id;
		pvalid[i] = r->parent >= 0;
		par[i] = r->parent >= 0 ? p->r[r->parent].id : 0;
		l26_stack(r->stack, off, i, &el, &cap);
	}
	c[0] = scol("Text", text, tlen);
	c[1] = scol("Domain", dom, dlen);
	c[2] = icol("Start", st);
	c[3] = icol("End", en);
	c[4] = icol("PID", pid);
	c[5] = icol("TID", tid);
	c[6] = icol("Stack Level", lvl);
	c[7] = icol("Children Count", nchild);
	c[8] = icol("Range ID", id);
	c[9] = icol("Parent ID", par);
	c[9].valid = pvalid;
	c[10] = icol("Range Stack", el);
	c[10].shape = LIST3;
	c[10].elemopt = 1;
	c[10].off = off;
	write_parquet(path, c, 11, n);
}

/*
 * report_nvtx_pushpop_trace.parquet: every range in RangeId order, the
 * CSV's columns (pandas to_parquet of nsys stats' CSV: ParentId a
 * double, NaN for roots), the RangeStack a list of ids.
 */
static void
l26_pushpop(const struct proc *p, const char *path)
{
	const struct rng **byid = xcalloc(p->n, sizeof(*byid));
	int64_t base = INT64_MAX, *v[9], *off, *el = NULL;
	const char **name = xcalloc(p->n, sizeof(*name));
	size_t *nlen = xcalloc(p->n, sizeof(*nlen)), i, cap = 0;
	double *par = xcalloc(p->n, sizeof(*par));
	uint8_t *pvalid = xcalloc(p->n, 1);
	static const char *const vname[9] = { "Start (ns)", "End (ns)",
	    "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "PID", "TID",
	    "NumChild", "RangeId" };
	struct wcol c[13];
	int k;

	for (i = 0; i < p->n; i++)
		if (p->r[i].id < base)
			base = p->r[i].id;
	for (i = 0; i < p->n; i++)
		byid[p->r[i].id - base] = &p->r[i];
	for (k = 0; k < 9; k++)
		v[k] = xcalloc(p->n, sizeof(**v));
	off = xcalloc(p->n + 1, sizeof(*off));
	for (i = 0; i < p->n; i++) {
		const struct rng *r = byid[i];

		v[0][i] = r->cs + p->clock;
		v[1][i] = r->ce + p->clock;
		v[2][i] = r->ce - r->cs;
		v[3][i] = r->child_ns;
		v[4][i] = r->ce - r->cs - r->child_ns;
		v[5][i] = p->pid;
		v[6][i] = r->tid;
		v[7][i] = r->nchild;
		v[8][i] = r->id;
		name[i] = r->name;
		nlen[i] = strlen(r->name);
		pvalid[i] = r->parent >= 0;
		par[i] = r->parent >= 0 ? (double)p->r[r->parent].id : 0;
		l26_stack(r->stack, off, i, &el, &cap);
	}
	for (k = 0; k < 9; k++)
		c[k] = icol(vname[k], v[k]);
	c[9] = scol("Name", name, nlen);
	c[10] = dcol("ParentId", par, pvalid);
	c[11] = icol("Lvl", v[7]);
	c[12] = icol("RangeStack", el);
	c[12].shape = LIST3;
	c[12].elemopt = 1;
	c[12].off = off;
	write_parquet(path, c, 13, p->n);
}

/* "file:line[function]" of frame K (1-based) of py_frames. */
static char *
l26_frame_str(int k)
{
	const struct frame *f = &py_frames[k - 1];

	return xprintf("%s:%d[%s]", py_files[f->file - 1], f->line,
	    py_funcs[f->func - 1]);
}

/* The facts of -L 2026, after write_truth's. */
static void
l26_truth(const char *path)
{
	FILE *f = fopen(path, "a");
	size_t c, n;

	if (f == NULL)
		die("%s: %s", path, strerror(errno));
	fprintf(f, "layout\t2026.3\n");
	for (c = n = 0; c < NSTEPT; c++)
		n += step_thunks[c].kind != K_DONE;
	/* One command buffer in each module stands for two thunks. */
	fprintf(f, "l26.thunks.jit_init\t%zu\n", NINIT - 1);
	fprintf(f, "l26.thunks.jit_train_step\t%zu\n", n - 1);
	for (c = 0; c < L26_NCMDBUF; c++) {
		const struct l26_cmdbuf *b = &l26_cmdbufs[c];

		fprintf(f, "cmdbuf.%s\t%s\n", b->module, b->name);
		fprintf(f, "cmdbuf_holds.%s\t%s %s\n", b->name, b->first,
		    b->last);
		fprintf(f, "cmdbuf_execs.%s\t%" PRId64 "\n", b->name, b->nexec);
		fprintf(f, "cmdbuf_all_ns.%s\t%" PRId64 "\n", b->name,
		    b->all_ns);
		if (b->steady_ns > 0)
			fprintf(f, "steady_ns.%s\t%" PRId64 "\n", b->name,
			    b->steady_ns);
	}
	fprintf(f, "frames_beyond.jit_train_step\t%" PRId64 "\n", l26_nbeyond);
	fprintf(f, "frames_beyond_max.jit_train_step\t%d\n", L26_BEYOND);
	fprintf(f, "frames_index.jit_train_step\t%d\n", NFRAME + 1);
	fprintf(f, "frames_cut.input_reduce_fusion\t%s\n",
	    l26_frame_str(F_NORM));
	fprintf(f, "frames_none.loop_multiply_fusion.1\t%s\n",
	    SOP("loop_multiply_fusion.1"));
	if (fclose(f) != 0)
		die("%s: write failed", path);
}

/* The members of rank ADIR that differ in the 2026.3 layout. */
static void
l26_archive(struct proc *p, const char *adir)
{
	l26_trace(p, xprintf("%s/nvtx_gpu_proj_trace/trace.parquet", adir));
	l26_pushpop(p, xprintf("%s/report_nvtx_pushpop_trace.parquet", adir));
}

/* ---- end of -L 2026 ---- */

/* ---- -X 2026: XLA's thunk names since mid-2026 ----
 * annotation.cc MakeInstructionTitle writes
 * "Thunk:#[name=N,]hlo_op=OP,unique_hlo_op_id=ID#", ID the instruction's
 * unique_id(), which the dump holds as HloInstructionProto.id.  The ids
 * are read back from the dumps just written, as a reader of the profile
 * would find them; ranges whose hlo_op no instruction of the module
 * names (command buffers, the autotuner's module) keep their names. */

/* The dump of program PROGRAM in A, decoded, or NULL; kept until a
 * call with A NULL frees them all. */
static struct hlo_module *
x26_dump(struct archive *a, int64_t program)
{
	static struct hlo_module *m[8];
	static int64_t id[8];
	static int n;
	char prefix[48];
	struct hlo_module *h = NULL;
	uint8_t *d;
	size_t i, len;
	int k;

	if (a == NULL) {	/* the end: free them */
		for (k = 0; k < n; k++)
			hlo_free(m[k]);
		n = 0;
		return NULL;
	}
	for (k = 0; k < n; k++)
		if (id[k] == program)
			return m[k];
	snprintf(prefix, sizeof(prefix), "dump/module_%04lld.",
	    (long long)program);
	for (i = 0; h == NULL && i < archive_count(a); i++) {
		const char *name = archive_name(a, i);

		if (strncmp(name, prefix, strlen(prefix)) != 0 ||
		    strstr(name, "after_optimizations.hlo.pb") == NULL)
			continue;
		if (archive_read_plain(a, name, &d, &len) != 0 ||
		    (h = hlo_load(d, len)) == NULL)
			die("-X 2026: %s: %s", name, err_msg());
		free(d);
	}
	if (n == 8)
		die("-X 2026: too many modules");
	id[n] = program;
	return m[n++] = h;
}

/* The thunk ranges of P with their ids, from the dumps in ADIR. */
static void
x26_ids(struct proc *p, const char *adir)
{
	struct archive *a = archive_open(adir);
	size_t i, len, mlen;
	const char *op, *mod;
	int64_t program;

	if (a == NULL)
		die("-X 2026: %s: %s", adir, err_msg());
	for (i = 0; i < p->n; i++) {
		struct rng *r = &p->r[i];
		const struct hlo_inst *in;
		struct hlo_module *h;
		char *name;

		if (nvtx_classify(r->name) != NVTX_THUNK || r->parent < 0 ||
		    nvtx_parse_thunk(r->name, &op, &len) != 0 ||
		    nvtx_parse_module(p->r[r->parent].name, &mod, &mlen,
		    &program) != 0 || program < 0 ||
		    (h = x26_dump(a, program)) == NULL)
			continue;
		name = xprintf("%.*s", (int)len, op);
		if ((in = hlo_find(h, name)) == NULL)
			continue;
		len = strlen(r->name);
		r->name = xprintf("%.*s,unique_hlo_op_id=%" PRId64 "#",
		    (int)(len - 1), r->name, in->id);
	}
	x26_dump(NULL, 0);
	archive_close(a);
}

/* ---- end of -X 2026 ---- */

static int
count(const char *arg, int hi)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v < 1 || v > hi)
		die("'%s': not a number from 1 to %d", arg, hi);
	return (int)v;
}

int
main(int argc, char *argv[])
{
	struct proc *p;
	const char *dir;
	char *adir;
	int d, w, c;

	while ((c = getopt(argc, argv, "n:PSs:L:X:")) != -1) {
		switch (c) {
		case 'P':
			plant.on = 1;	/* the planted critical-path cases */
			break;
		case 'S':
			slow_on = 1;	/* the planted straggler */
			break;
		case 'n':
			/* Reduce-scatter operands divide among the devices. */
			nproc = count(optarg, 65536);
			if (nproc & (nproc - 1))
				die("-n %d: not a power of two", nproc);
			break;
		case 's':
			nstep = count(optarg, 1000000);
			break;
		case 'L':
			if (strcmp(optarg, "2026") != 0)
				die("-L %s: the layouts are 2026", optarg);
			layout2026 = 1;
			break;
		case 'X':
			if (strcmp(optarg, "2024") != 0 &&
			    strcmp(optarg, "2026") != 0)
				die("-X %s: the thunk names are 2024 or 2026",
				    optarg);
			names2026 = strcmp(optarg, "2026") == 0;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1) {
usage:
		fprintf(stderr, "usage: mkexample [-PS] [-n processes] [-s steps] "
		    "[-L 2026] [-X 2024|2026] dir\n");
		return 2;
	}
	dir = argv[optind];
	if (names2026 < 0)
		names2026 = layout2026;
	if (plant.on && (nproc != NPROC || nstep != NSTEP))
		die("-P plants its cases in the run of %d x %d only", NPROC,
		    NSTEP);
	if (slow_on && (plant.on || nproc <= PLANT_SLOW_DEV))
		die("-S: a straggler needs %d processes or more, and no -P",
		    PLANT_SLOW_DEV + 1);
	p = xcalloc((size_t)nproc, sizeof(*p));
	for (d = 0; d < nproc; d++) {
		p[d].rank = d;
		p[d].pid = 31415 + 87 * d;
		p[d].clock = d * OFFSET_NS;
		/* Compile speeds: eight kinds of host. */
		p[d].scale = 1000 + 30 * (d % 8);
		p[d].tid_launcher = p[d].pid + 112;
		for (w = 0; w < NWORKER; w++)
			p[d].tid_worker[w] = p[d].pid + 130 + w;
	}
	simulate(p);
	xmkdir(dir);
	for (d = 0; d < nproc; d++) {
		if (layout2026)
			l26_merge(&p[d]);
		rfinish(&p[d], 17000 + 211 * d);
		adir = xprintf("%s/rank%d", dir, d);
		xmkdir(adir);
		xmkdir(xprintf("%s/nvtx_gpu_proj_trace", adir));
		xmkdir(xprintf("%s/dump", adir));
		if (names2026) {	/* the names need the dumps' ids */
			write_init_hlo(adir);
			write_step_hlo(adir);
			x26_ids(&p[d], adir);
		}
		if (layout2026)
			l26_archive(&p[d], adir);
		else
			write_trace(&p[d], xprintf("%s/nvtx_gpu_proj_trace/"
			    "trace.parquet", adir));
		write_threads(&p[d], xprintf("%s/thread-metadata.parquet",
		    adir));
		if (!layout2026)
			write_pushpop(&p[d], xprintf("%s/report_nvtx_pushpop_"
			    "trace.csv", adir));
		if (!names2026) {
			write_init_hlo(adir);
			write_step_hlo(adir);
		}
		free(p[d].r);
		p[d].r = NULL;
	}
	/* truth.tsv holds the facts planted in the run of NPROC x NSTEP. */
	if (plant.on)
		plant_truth(xprintf("%s/critpath-truth.tsv", dir));
	else if (slow_on)
		slow_truth(xprintf("%s/straggler-truth.tsv", dir));
	else if (nproc == NPROC && nstep == NSTEP)
		write_truth(p, xprintf("%s/truth.tsv", dir));
	if (!plant.on && !slow_on && nproc == NPROC && nstep == NSTEP &&
	    layout2026)
		l26_truth(xprintf("%s/truth.tsv", dir));
	freeall();
	return 0;
}
