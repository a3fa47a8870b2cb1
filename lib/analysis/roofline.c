/* The roofline tables of roofline.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/filter.h"
#include "analysis/roofline.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/opt.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

/* ---- peaks ---- */

#define T 1e12

/*
 * Dense datasheet values (no 2:4 sparsity), FLOP/s and B/s.  Sources:
 *  - A100: NVIDIA A100 datasheet, via glennklockwood.com/garden/
 *    processors/A100 (312 bf16, 156 tf32, 19.5 fp32); bandwidths per
 *    board from thundercompute.com (40 GB 1.555, SXM 80 GB 2.039, PCIe
 *    80 GB 1.935 TB/s);
 *  - H100 SXM5 and PCIe: NVIDIA H100 datasheet, via glennklockwood.com/
 *    garden/processors/h100 and archive-lib.hpctech.co.jp/gpuproduct/
 *    nvidia-h100.html (its sparse values halved);
 *  - H200 SXM: the H100 SXM's compute, 4.8 TB/s (aiwiki.ai/wiki/
 *    nvidia_h200);
 *  - B200 (HGX, 1000 W) and GB200 (1200 W): glennklockwood.com/garden/
 *    processors/B200; GB200's tf32 is taken as half its bf16 and its fp32
 *    as the B200's, which that page does not list.
 * Cross-check: pytorch/torchtitan torchtitan/tools/utils.py
 * get_peak_flops (A100 312e12, H100 SXM 989e12, PCIe 756e12, H200 989e12,
 * B200 2.25e15).  Order matters: the first row whose every word is in
 * the device name wins.
 */
#define MB (1024.0 * 1024.0)
/* L2 per GPU (the last column, bytes): NVIDIA's A100 whitepaper (40 MB),
 * H100 whitepaper (50 MB for the SXM5 and PCIe products; H200 the same
 * chip), B200 and GB200 126 MB over the two dies (chipsandcheese.com,
 * "Nvidia's B200: Keeping the CUDA Juggernaut Rolling"). */
static const struct gpu {
	const char *words[3];
	double bf16, fp8, tf32, fp32, bw, l2;
} gpus[] = {
	{ { "GB200" }, 2500 * T, 5000 * T, 1250 * T, 80 * T, 8.0 * T,
	    126 * MB },
	{ { "B200" }, 2250 * T, 4500 * T, 1100 * T, 80 * T, 8.0 * T,
	    126 * MB },
	{ { "H200" }, 989.4 * T, 1978.9 * T, 494.7 * T, 66.9 * T, 4.8 * T,
	    50 * MB },
	{ { "H100", "PCIe" }, 756 * T, 1513 * T, 378 * T, 51 * T, 2.0 * T,
	    50 * MB },
	{ { "H100" }, 989.4 * T, 1978.9 * T, 494.7 * T, 66.9 * T, 3.35 * T,
	    50 * MB },
	{ { "A100", "80GB", "PCIe" }, 312 * T, 0, 156 * T, 19.5 * T,
	    1.935 * T, 40 * MB },
	{ { "A100", "80GB" }, 312 * T, 0, 156 * T, 19.5 * T, 2.039 * T,
	    40 * MB },
	{ { "A100" }, 312 * T, 0, 156 * T, 19.5 * T, 1.555 * T, 40 * MB },
};

/*
 * Dense FLOP per cycle per SM of each tensor-core architecture (XProf
 * xprof/utils/cuda_type_utils.cc for bf16 and fp8; tf32 half of bf16;
 * fp32 two per FMA unit: 64 on sm_80, 128 on sm_90 and sm_100).  Check:
 * A100 108 SMs x 2048 x 1.41 GHz = 311.9 TFLOP/s.
 */
static const struct arch {
	int major;
	double bf16, fp8, tf32, fp32;
} archs[] = {
	{ 8, 2048, 0, 1024, 128 },
	{ 9, 4096, 8192, 2048, 256 },
	{ 10, 8192, 16384, 4096, 256 },
};

static int
has_words(const char *name, const char *const *w)
{
	size_t k;

	for (k = 0; k < 3 && w[k]; k++)
		if (strstr(name, w[k]) == NULL)
			return 0;
	return 1;
}

int
roofline_peaks_of(const char *name, int64_t sms, double clock_hz,
    int major, int minor, double bw, struct roofline_peaks *out)
{
	size_t k;

	memset(out, 0, sizeof(*out));
	snprintf(out->gpu, sizeof(out->gpu), "%s", name ? name : "");
	for (k = 0; name && k < sizeof(gpus) / sizeof(gpus[0]); k++)
		if (has_words(name, gpus[k].words)) {
			out->flops[ROOFLINE_BF16] = gpus[k].bf16;
			out->flops[ROOFLINE_FP8] = gpus[k].fp8;
			out->flops[ROOFLINE_TF32] = gpus[k].tf32;
			out->flops[ROOFLINE_FP32] = gpus[k].fp32;
			out->bw = bw > 0 ? bw : gpus[k].bw;
			out->l2 = gpus[k].l2;
			out->source = "datasheet";
			return 1;
		}
	out->bw = bw > 0 ? bw : 0;
	/* sm_8.6 and 8.9 are other chips (fewer tensor FLOPs per SM). */
	if (sms <= 0 || clock_hz <= 0 || minor != 0)
		return 0;
	for (k = 0; k < sizeof(archs) / sizeof(archs[0]); k++)
		if (archs[k].major == major) {
			out->flops[ROOFLINE_BF16] = archs[k].bf16 * sms * clock_hz;
			out->flops[ROOFLINE_FP8] = archs[k].fp8 * sms * clock_hz;
			out->flops[ROOFLINE_TF32] = archs[k].tf32 * sms * clock_hz;
			out->flops[ROOFLINE_FP32] = archs[k].fp32 * sms * clock_hz;
			out->source = "SMs x clock";
			return 1;
		}
	return 0;
}

int
roofline_class_of(const char *dtype)
{
	if (strcmp(dtype, "bf16") == 0 || strcmp(dtype, "f16") == 0)
		return ROOFLINE_BF16;
	if (strncmp(dtype, "f8", 2) == 0)
		return ROOFLINE_FP8;
	if (strcmp(dtype, "f32") == 0)
		return ROOFLINE_TF32;
	return -1;
}

/* ---- tables ---- */

static const char *const table_names[ROOFLINE_NTABLES] = {
	"ops", "modules", "steps"
};

const char *
roofline_table_name(int t)
{
	return (unsigned)t < ROOFLINE_NTABLES ? table_names[t] : NULL;
}

int
roofline_table_parse(const char *name)
{
	return opt_index(name, table_names, ROOFLINE_NTABLES);
}

/* The cost of one execution of an instruction (hlo frame). */
struct cost {
	int known;
	uint64_t flops, trans, bytes, mm;
	int cls;		/* roofline_class of Dtype, or -1 */
	const char *opcode, *dtype;
	int comm;		/* Communication 1: a collective */
	const char *coll;	/* its Collective ("all-gather"), or "" */
	int64_t msg, ndev;	/* MessageSize (B), CollectiveSize */
};

/* The distinct GPUs whose matmul FLOPs sums keep apart. */
#define NGRP	4

/* Sums over thunk rows. */
struct sums {
	uint64_t rows;
	int64_t ns, costed_ns, hidden_ns;
	double flops, bytes;		/* executions x per-execution */
	double mm[ROOFLINE_NCLASS];	/* matmul FLOPs by class */
	/* Matmul FLOPs by GPU (of the distinct peaks, roofline.grp) and
	 * class, divided by the peaks only when written (one GPU: the sum
	 * of mm[c] / peak[c]); rows of a GPU beyond NGRP add mm / peak to
	 * mmsec at once. */
	double mmg[NGRP][ROOFLINE_NCLASS];
	double mmsec;		/* s */
	int mmany;		/* some row's GPU had a matmul peak */
};

/* A thunk row with matmul FLOPs: what leaving its operation out of the
 * MFU takes from its step and module. */
struct mmrow {
	size_t step, prog, op;
	int cls, grp;		/* grp -1: in mmsec */
	double mm, mmsec;
};

/* What a command buffer holds (cmdbufs side table): its operations'
 * costs summed. */
struct cbcost {
	double flops, bytes, mm[ROOFLINE_NCLASS];
	size_t nops, nknown;
};

/* A command buffer's row: its operations' FLOPs go to its step and
 * module unless its operations are rows of their own (a node-level
 * trace: KEY has inner rows). */
struct cbrow {
	size_t step, prog, op, cb, key;
	const struct roofline_peaks *pk;
	int grp;
	int64_t ns;
};

/* A process's GPU: an index into the profiles' peaks. */
struct procpk {
	int64_t process;
	size_t prof;
};

struct step {
	int64_t start, end;
	int64_t longest;	/* the longest device's own duration */
	uint64_t devices;
	int64_t process;	/* of its first row; -1 unknown */
	int processes;		/* 1, or 2 for rows of several */
	struct sums s;
};

struct roofline {
	struct roofline_peaks p;
	struct strtab hlo;		/* "ProgramId\tName" */
	struct cost *cost;
	size_t capcost;
	struct strtab ops;		/* "ProgramId\tName" seen in thunks */
	struct sums *op;
	size_t *op_hlo;			/* its hlo id, or STRTAB_NONE */
	size_t capop;
	struct strtab progs;		/* ProgramId */
	struct sums *prog;
	unsigned char *prog_comm;	/* whether it ran a collective */
	struct strtab *prog_execs;	/* distinct executions of each */
	size_t capprog;
	struct strtab steps;		/* "ProgramId\tProgramExecution" */
	struct step *step;
	size_t capstep;
	struct strtab strings;		/* opcodes and dtypes */
	const struct roofline_peaks **op_pk;	/* its first row's GPU */
	unsigned char *op_out;		/* left out of the MFU (above peak) */
	unsigned char *op_cb;		/* 1 its buffer's FLOPs counted, 2 not */
	struct mmrow *mmrows;
	size_t nmmrows, capmmrows;
	struct strtab cbs;		/* "ProgramId\tCommandBuffer" */
	struct cbcost *cb;
	size_t capcb;
	struct strtab cbkeys;		/* "ProgramId\tExecution\tBuffer" */
	unsigned char *cbinner;		/* the key had inner rows */
	size_t capcbinner;
	struct cbrow *cbrows;
	size_t ncbrows, capcbrows;
	struct roofline_peaks *prof;	/* each profile's GPU, in order */
	size_t nprof;
	int64_t *procs;			/* the module frame's processes */
	size_t nprocs, capprocs;
	struct procpk *pmap;		/* process -> profile */
	size_t npmap;
	const struct roofline_peaks *grp[NGRP];	/* distinct GPUs seen */
	int ngrp;
	int finished;
};

struct roofline *
roofline_new(const struct roofline_peaks *p)
{
	struct roofline *r = mem_calloc(1, sizeof(*r));

	r->p = *p;
	return r;
}

void
roofline_free(struct roofline *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->progs.n; i++)
		strtab_free(&r->prog_execs[i]);
	free(r->prog_execs);
	strtab_free(&r->hlo);
	strtab_free(&r->ops);
	strtab_free(&r->progs);
	strtab_free(&r->steps);
	strtab_free(&r->strings);
	strtab_free(&r->cbs);
	strtab_free(&r->cbkeys);
	free(r->op_pk);
	free(r->op_out);
	free(r->op_cb);
	free(r->mmrows);
	free(r->cb);
	free(r->cbinner);
	free(r->cbrows);
	free(r->prof);
	free(r->procs);
	free(r->pmap);
	free(r->cost);
	free(r->op);
	free(r->op_hlo);
	free(r->prog);
	free(r->prog_comm);
	free(r->step);
	free(r);
}

/* "A\tB" interned in T; *ADDED set when new. */
static size_t
key2(struct strtab *t, const char *a, const char *b, int *added)
{
	size_t na = strlen(a), nb = strlen(b);
	char *k = mem_alloc(na + nb + 2);
	size_t id;

	memcpy(k, a, na);
	k[na] = '\t';
	memcpy(k + na + 1, b, nb + 1);
	id = strtab_intern(t, k, na + nb + 1, added);
	free(k);
	return id;
}

/* The id of "A\tB" in T, or STRTAB_NONE. */
static size_t
find2(const struct strtab *t, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), id;
	char *k = mem_alloc(na + nb + 2);

	memcpy(k, a, na);
	k[na] = '\t';
	memcpy(k + na + 1, b, nb + 1);
	id = strtab_find(t, k, na + nb + 1);
	free(k);
	return id;
}

static const char *
intern(struct roofline *r, const char *s)
{
	return strtab_get(&r->strings, strtab_intern(&r->strings, s,
	    strlen(s), NULL));
}

/* A non-negative count in column I; 1 when empty (unknown). */
static int
count(struct tsv_reader *in, long i, uint64_t *v)
{
	int64_t x = 0;
	int rc = tsv_get_i64(in, (size_t)i, &x, 1);

	if (rc == 0 && x < 0)
		return err_fail("%s:%ld: column %s: negative count",
		    tsv_name(in), tsv_lineno(in), tsv_colname(in, (size_t)i));
	*v = (uint64_t)x;
	return rc;
}

/* The collective of the hlo row (columns C[8..12), any absent): K->comm
 * when Communication is 1 and Collective names a kind collectives.h
 * knows.  Returns 0, or -1 with tsv's message. */
static int
load_comm(struct roofline *r, struct tsv_reader *in, const long *c,
    struct cost *k)
{
	int64_t comm = 0, msg = 0, n = 0;
	double alg, bus;

	k->coll = "";
	if (c[8] < 0 || c[9] < 0 || c[10] < 0 || c[11] < 0)
		return 0;
	if (tsv_get_i64(in, (size_t)c[8], &comm, 1) < 0 ||
	    tsv_get_i64(in, (size_t)c[10], &msg, 1) < 0 ||
	    tsv_get_i64(in, (size_t)c[11], &n, 1) < 0)
		return -1;
	if (comm != 1)
		return 0;
	k->comm = 1;
	k->coll = intern(r, tsv_field(in, (size_t)c[9]));
	k->msg = msg > 0 ? msg : 0;
	k->ndev = n;
	if (coll_factors(k->coll, n, &alg, &bus) != 0)
		k->ndev = 0;	/* a kind or size without factors */
	return 0;
}

int
roofline_load_hlo(struct tsv_reader *in, void *arg)
{
	struct roofline *r = arg;
	static const char *const names[] = { "ProgramId", "Name", "Opcode",
	    "Flops", "Transcendentals", "BytesAccessed", "MatmulFlops",
	    "Dtype", "Communication", "Collective", "MessageSize",
	    "CollectiveSize" };
	long c[12];
	struct cost *k;
	size_t id;
	int added, rc, e;

	if (tsv_columns(in, names, 12, 0xf00, c) != 0)
		return -1;
	while ((rc = tsv_next(in)) > 0) {
		id = key2(&r->hlo, tsv_field(in, (size_t)c[0]),
		    tsv_field(in, (size_t)c[1]), &added);
		if (!added)
			continue;	/* a variant row: same cost */
		mem_grow(&r->cost, &r->capcost, id + 1, sizeof(*r->cost));
		k = &r->cost[id];
		memset(k, 0, sizeof(*k));
		k->opcode = intern(r, tsv_field(in, (size_t)c[2]));
		k->dtype = intern(r, tsv_field(in, (size_t)c[7]));
		k->cls = roofline_class_of(k->dtype);
		if ((e = count(in, c[3], &k->flops)) < 0 ||
		    count(in, c[4], &k->trans) < 0 ||
		    count(in, c[5], &k->bytes) < 0 ||
		    count(in, c[6], &k->mm) < 0 || load_comm(r, in, c, k) < 0)
			return -1;
		k->known = e == 0;
	}
	return rc;
}

static int
by_i64(const void *a, const void *b, const void *ctx)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	(void)ctx;
	return x < y ? -1 : x > y;
}

/* PROC among the module frame's processes (few: a linear search). */
static void
add_process(struct roofline *r, int64_t proc)
{
	size_t i;

	for (i = 0; i < r->nprocs; i++)
		if (r->procs[i] == proc)
			return;
	mem_grow(&r->procs, &r->capprocs, r->nprocs + 1, sizeof(*r->procs));
	r->procs[r->nprocs++] = proc;
}

/* Kinds that hold other thunks (cmdbuf.h): their operations are rows of
 * the side table of their own, so a container's cost would count them
 * twice. */
static int
is_container(const char *kind)
{
	static const char *const k[] = { "kSequential", "kWhile",
	    "kConditional", "kCommandBuffer", "kDynamicSlice", NULL };
	size_t i;

	for (i = 0; k[i]; i++)
		if (strcmp(kind, k[i]) == 0)
			return 1;
	return 0;
}

int
roofline_load_cmdbufs(struct roofline *r, struct tsv_reader *in)
{
	static const char *const names[] = { "ProgramId", "CommandBuffer",
	    "Operation", "Kind" };
	const struct cost *k;
	struct cbcost *b;
	long c[4];
	size_t id, h;
	int added, rc, cl;

	if (tsv_columns(in, names, 4, 0x8, c) != 0)
		return -1;
	while ((rc = tsv_next(in)) > 0) {
		if (c[3] >= 0 && is_container(tsv_field(in, (size_t)c[3])))
			continue;
		id = key2(&r->cbs, tsv_field(in, (size_t)c[0]),
		    tsv_field(in, (size_t)c[1]), &added);
		mem_grow(&r->cb, &r->capcb, id + 1, sizeof(*r->cb));
		b = &r->cb[id];
		if (added)
			memset(b, 0, sizeof(*b));
		b->nops++;
		h = find2(&r->hlo, tsv_field(in, (size_t)c[0]),
		    tsv_field(in, (size_t)c[2]));
		if (h == STRTAB_NONE || !(k = &r->cost[h])->known)
			continue;	/* no hlo row, or no cost */
		b->nknown++;
		b->flops += (double)k->flops;
		b->bytes += (double)k->bytes;
		if ((cl = k->cls) >= 0)
			b->mm[cl] += (double)k->mm;
	}
	return rc;
}

int
roofline_load_modules(struct tsv_reader *in, void *arg)
{
	struct roofline *r = arg;
	static const char *const names[] = { "ProgramId", "ProgramExecution",
	    "ProjStartMs", "ProjDurMs", "Process" };
	long c[5];
	int64_t start, dur, proc = -1;
	struct step *s;
	size_t id;
	int added, rc;

	if (tsv_columns(in, names, 5, 0x10, c) != 0)
		return -1;
	while ((rc = tsv_next(in)) > 0) {
		if (tsv_get_ms(in, (size_t)c[2], &start, 0) != 0 ||
		    tsv_get_ms(in, (size_t)c[3], &dur, 0) != 0 ||
		    (c[4] >= 0 && tsv_get_i64(in, (size_t)c[4], &proc, 1) < 0))
			return -1;
		if (dur < 0)
			return err_fail("%s:%ld: column ProjDurMs: negative "
			    "duration", tsv_name(in), tsv_lineno(in));
		id = key2(&r->steps, tsv_field(in, (size_t)c[0]),
		    tsv_field(in, (size_t)c[1]), &added);
		mem_grow(&r->step, &r->capstep, id + 1, sizeof(*r->step));
		s = &r->step[id];
		if (added) {
			memset(s, 0, sizeof(*s));
			s->start = start;
			s->end = start + dur;
			s->process = proc;
			s->processes = 1;
		}
		if (start < s->start)
			s->start = start;
		if (start + dur > s->end)
			s->end = start + dur;
		if (dur > s->longest)
			s->longest = dur;
		if (proc != s->process)
			s->processes = 2;
		s->devices++;
		if (c[4] >= 0)
			add_process(r, proc);
	}
	return rc;
}

void
roofline_add_profile(struct roofline *r, const struct roofline_peaks *p)
{
	r->prof = mem_realloc(r->prof, r->nprof + 1, sizeof(*r->prof));
	r->prof[r->nprof++] = *p;
}

int
roofline_map_profiles(struct roofline *r, char *buf, size_t n)
{
	size_t i;

	r->npmap = 0;
	if (r->nprof == 0)
		return 0;
	if (r->nprof != r->nprocs) {
		for (i = 1; i < r->nprof; i++)
			if (strcmp(r->prof[i].gpu, r->prof[0].gpu) != 0)
				break;
		if (i == r->nprof) {	/* one GPU: every process's */
			r->p = r->prof[0];
			return 0;
		}
		snprintf(buf, n, "%zu profiles of several GPUs for %zu "
		    "processes: which ran on which is not known", r->nprof,
		    r->nprocs);
		return 1;
	}
	sort_stable(r->procs, r->nprocs, sizeof(*r->procs), by_i64, NULL);
	r->pmap = mem_realloc(r->pmap, r->nprocs + 1, sizeof(*r->pmap));
	for (i = 0; i < r->nprocs; i++) {
		r->pmap[i].process = r->procs[i];
		r->pmap[i].prof = i;
	}
	r->npmap = r->nprocs;
	return 0;
}

/* Profile NAME's GPU from the meta frame's keys GPU ("" none), SMS and
 * CC ("8.0"), added to R: its own peaks, overridden by OV's nonzero
 * values; R's defaults when its GPU has none or is the defaults' own
 * (which may hold the board's measured bandwidth). */
static void
meta_profile(struct roofline *r, const char *gpu, const char *sms,
    const char *cc, const struct roofline_peaks *ov)
{
	struct roofline_peaks p;
	int major = -1, minor = -1, c;
	long long n = 0;

	if (gpu[0] == '\0' || strcmp(gpu, r->p.gpu) == 0) {
		roofline_add_profile(r, &r->p);
		return;
	}
	if (sscanf(cc, "%d.%d", &major, &minor) != 2)
		major = minor = -1;
	if (sscanf(sms, "%lld", &n) != 1 || n < 0)
		n = 0;
	if (!roofline_peaks_of(gpu, (int64_t)n, 0, major, minor, 0, &p)) {
		roofline_add_profile(r, &r->p);
		return;
	}
	for (c = 0; c < ROOFLINE_NCLASS; c++)
		if (ov->flops[c] > 0)
			p.flops[c] = ov->flops[c];
	if (ov->bw > 0)
		p.bw = ov->bw;
	p.link = ov->link > 0 ? ov->link : r->p.link;
	roofline_add_profile(r, &p);
}

int
roofline_load_meta(struct roofline *r, struct tsv_reader *in,
    const struct roofline_peaks *ov)
{
	static const char *const names[] = { "ProfileName", "Key", "Value" };
	char prof[256] = "", gpu[128] = "", sms[32] = "", cc[32] = "";
	const char *key, *val;
	long c[3];
	int rc, any = 0;

	if (tsv_columns(in, names, 3, 0, c) != 0)
		return -1;
	while ((rc = tsv_next(in)) > 0) {
		if (strcmp(tsv_field(in, (size_t)c[0]), prof) != 0) {
			if (any)
				meta_profile(r, gpu, sms, cc, ov);
			any = 1;
			snprintf(prof, sizeof(prof), "%s",
			    tsv_field(in, (size_t)c[0]));
			gpu[0] = sms[0] = cc[0] = '\0';
		}
		key = tsv_field(in, (size_t)c[1]);
		val = tsv_field(in, (size_t)c[2]);
		if (strcmp(key, "GpuName") == 0)
			snprintf(gpu, sizeof(gpu), "%s", val);
		else if (strcmp(key, "SmCount") == 0)
			snprintf(sms, sizeof(sms), "%s", val);
		else if (strcmp(key, "ComputeCapability") == 0)
			snprintf(cc, sizeof(cc), "%s", val);
	}
	if (rc == 0 && any)
		meta_profile(r, gpu, sms, cc, ov);
	return rc;
}

/* The GPU of a row of process PROC: its profile's, else the default. */
static const struct roofline_peaks *
row_peaks(const struct roofline *r, int64_t proc)
{
	size_t i;

	for (i = 0; i < r->npmap; i++)
		if (r->pmap[i].process == proc)
			return &r->prof[r->pmap[i].prof];
	return &r->p;
}

/* A step of a module with collectives (which hold its devices together)
 * whose span over its devices passes the longest device's own duration
 * by this factor (and by UNALIGNED_NS) spans clocks that were not
 * aligned: such an execution cannot last much longer than its slowest
 * device. */
#define UNALIGNED_FACTOR	1.5
#define UNALIGNED_NS		1000000

size_t
roofline_unaligned(const struct roofline *r, char *buf, size_t n)
{
	size_t i, bad = 0, p;
	const char *key, *tab;

	for (i = 0; i < r->steps.n && i < r->capstep; i++) {
		const struct step *s = &r->step[i];
		int64_t span = s->end - s->start;

		key = strtab_get(&r->steps, i);
		tab = strchr(key, '\t');
		p = strtab_find(&r->progs, key, (size_t)(tab - key));
		if (p == STRTAB_NONE || !r->prog_comm[p] ||
		    s->devices < 2 || s->processes < 2 ||
		    span - s->longest <= UNALIGNED_NS ||
		    (double)span <= UNALIGNED_FACTOR * (double)s->longest)
			continue;
		if (bad++ == 0 && n > 0)
			snprintf(buf, n, "step %.*s/%s spans %.3f ms over %"
			    PRIu64 " devices whose longest execution is %.3f "
			    "ms", (int)(tab - key), key, tab + 1,
			    (double)span / 1e6,
			    s->devices, (double)s->longest / 1e6);
	}
	return bad;
}

/* Add a thunk of NS exposed and HIDDEN hidden time (each within
 * TSV_MAX_NS) and cost K to S: 0, or -1 when a sum would pass
 * TSV_MAX_NS (so none overflows: a sum below 2^60 plus 2^60). */
/* The index of PK's FLOP/s among R's GPUs (added when new), or -1 when
 * NGRP are taken. */
static int
grp_of(struct roofline *r, const struct roofline_peaks *pk)
{
	int g;

	for (g = 0; g < r->ngrp; g++)
		if (r->grp[g] == pk || memcmp(r->grp[g]->flops, pk->flops,
		    sizeof(pk->flops)) == 0)
			return g;
	if (r->ngrp == NGRP)
		return -1;
	r->grp[r->ngrp] = pk;
	return r->ngrp++;
}

/* Matmul FLOPs MM of class C on GPU group G (PK) into S, SIGN 1 or -1. */
static void
add_mm(struct sums *s, int g, int c, double mm,
    const struct roofline_peaks *pk, double sign)
{
	if (g >= 0)
		s->mmg[g][c] += sign * mm;
	else if (pk->flops[c] > 0)
		s->mmsec += sign * mm / pk->flops[c];
}

/* sum_d(M_d / peak_d) of S in seconds over its GPUs. */
static double
mm_seconds(const struct roofline *r, const struct sums *s)
{
	double t = s->mmsec;
	int g, c;

	for (g = 0; g < r->ngrp; g++)
		for (c = 0; c < ROOFLINE_NCLASS; c++)
			if (r->grp[g]->flops[c] > 0)
				t += s->mmg[g][c] / r->grp[g]->flops[c];
	return t;
}

static int
add_row(struct sums *s, const struct cost *k, int64_t ns, int64_t hidden,
    const struct roofline_peaks *pk, int g)
{
	int c;

	if ((s->ns += ns) > TSV_MAX_NS || (s->hidden_ns += hidden) > TSV_MAX_NS)
		return -1;
	s->rows++;
	for (c = 0; c < ROOFLINE_NCLASS; c++)
		if (pk->flops[c] > 0)
			s->mmany = 1;
	if (k == NULL || !k->known)
		return 0;
	s->costed_ns += ns;
	s->flops += (double)k->flops;
	s->bytes += (double)k->bytes;
	if (k->cls >= 0) {
		s->mm[k->cls] += (double)k->mm;
		add_mm(s, g, k->cls, (double)k->mm, pk, 1);
	}
	return 0;
}

static size_t cb_key(struct roofline *, const char *, const char *,
    const char *);

/* Remember the row of step ST, module P, operation ID (cost K, GPU PK)
 * when it has matmul FLOPs (the MFU may leave its operation out) or is
 * a command buffer's (its operations' FLOPs may count). */
static void
note_row(struct roofline *r, const struct cost *k, size_t st, size_t p,
    size_t id, const struct roofline_peaks *pk, int g, int64_t ns,
    const char *prog, const char *exec, const char *name)
{
	struct mmrow *m;
	struct cbrow *b;
	size_t cb;

	if (k && k->known && k->mm > 0 && k->cls >= 0 &&
	    pk->flops[k->cls] > 0) {
		mem_grow(&r->mmrows, &r->capmmrows, r->nmmrows + 1,
		    sizeof(*r->mmrows));
		m = &r->mmrows[r->nmmrows++];
		m->step = st;
		m->prog = p;
		m->op = id;
		m->cls = k->cls;
		m->grp = g;
		m->mm = (double)k->mm;
		m->mmsec = (double)k->mm / pk->flops[k->cls];
	}
	if ((k && k->known) || r->cbs.n == 0 ||
	    (cb = find2(&r->cbs, prog, name)) == STRTAB_NONE)
		return;
	mem_grow(&r->cbrows, &r->capcbrows, r->ncbrows + 1,
	    sizeof(*r->cbrows));
	b = &r->cbrows[r->ncbrows++];
	b->step = st;
	b->prog = p;
	b->op = id;
	b->cb = cb;
	b->key = cb_key(r, prog, exec, name);
	b->pk = pk;
	b->grp = g;
	b->ns = ns;
}

/* The id of "PROG\tEXEC\tBUF" in cbkeys, its cbinner slot made. */
static size_t
cb_key(struct roofline *r, const char *prog, const char *exec,
    const char *buf)
{
	size_t np = strlen(prog), ne = strlen(exec), nb = strlen(buf), id;
	char *k = mem_alloc(np + ne + nb + 3);
	int added;

	memcpy(k, prog, np);
	k[np] = '\t';
	memcpy(k + np + 1, exec, ne);
	k[np + 1 + ne] = '\t';
	memcpy(k + np + ne + 2, buf, nb + 1);
	id = strtab_intern(&r->cbkeys, k, np + ne + nb + 2, &added);
	free(k);
	mem_grow(&r->cbinner, &r->capcbinner, id + 1, 1);
	if (added)
		r->cbinner[id] = 0;
	return id;
}

static int
too_long(struct tsv_reader *in)
{
	return err_fail("%s:%ld: the thunks' time of one operation, module "
	    "or step passes %" PRId64 " ms", tsv_name(in), tsv_lineno(in),
	    TSV_MAX_NS / 1000000);
}

int
roofline_read(struct roofline *r, struct filter *f)
{
	static const char *const names[] = { "ProgramId", "ProgramExecution",
	    "Name", "ProjDurMs", "ProjDurHiddenMs", "Process",
	    "CommandBuffer" };
	struct tsv_reader *in = filter_reader(f);
	const char *prog, *name, *exec, *buf;
	const struct roofline_peaks *pk;
	const struct cost *k;
	size_t id, p, st;
	int64_t dur, hidden, proc;
	long c[7];
	int added, rc, g;

	if (tsv_columns(in, names, 7, 0x70, c) != 0)
		return -1;
	while ((rc = filter_next(f)) > 0) {
		in = filter_reader(f);
		hidden = 0;
		proc = -1;
		if (tsv_get_ms(in, (size_t)c[3], &dur, 0) != 0 ||
		    (c[4] >= 0 && tsv_get_ms(in, (size_t)c[4], &hidden, 1) < 0) ||
		    (c[5] >= 0 && tsv_get_i64(in, (size_t)c[5], &proc, 1) < 0))
			return -1;
		if (dur < 0 || hidden < 0)
			return err_fail("%s:%ld: column %s: negative duration",
			    tsv_name(in), tsv_lineno(in), dur < 0 ?
			    "ProjDurMs" : "ProjDurHiddenMs");
		prog = tsv_field(in, (size_t)c[0]);
		exec = tsv_field(in, (size_t)c[1]);
		name = tsv_field(in, (size_t)c[2]);
		buf = c[6] >= 0 ? tsv_field(in, (size_t)c[6]) : "";
		pk = row_peaks(r, proc);
		g = grp_of(r, pk);
		id = key2(&r->ops, prog, name, &added);
		if (added) {
			mem_grow(&r->op, &r->capop, id + 1, sizeof(*r->op));
			r->op_hlo = mem_realloc(r->op_hlo, r->capop,
			    sizeof(*r->op_hlo));
			r->op_pk = mem_realloc(r->op_pk, r->capop,
			    sizeof(*r->op_pk));
			memset(&r->op[id], 0, sizeof(r->op[id]));
			r->op_pk[id] = pk;
			/* A thunk without an hlo row has no cost. */
			r->op_hlo[id] = strtab_find(&r->hlo,
			    strtab_get(&r->ops, id), strlen(strtab_get(&r->ops,
			    id)));
		}
		k = r->op_hlo[id] == STRTAB_NONE ? NULL :
		    &r->cost[r->op_hlo[id]];
		if (add_row(&r->op[id], k, dur, hidden, pk, g) != 0)
			return too_long(in);
		p = strtab_intern(&r->progs, prog, strlen(prog), &added);
		if (added) {
			mem_grow(&r->prog, &r->capprog, p + 1, sizeof(*r->prog));
			r->prog_execs = mem_realloc(r->prog_execs, r->capprog,
			    sizeof(*r->prog_execs));
			r->prog_comm = mem_realloc(r->prog_comm, r->capprog, 1);
			r->prog_comm[p] = 0;
			memset(&r->prog[p], 0, sizeof(r->prog[p]));
			memset(&r->prog_execs[p], 0, sizeof(r->prog_execs[p]));
		}
		if (add_row(&r->prog[p], k, dur, hidden, pk, g) != 0)
			return too_long(in);
		if (k && k->comm)
			r->prog_comm[p] = 1;
		strtab_intern(&r->prog_execs[p], exec, strlen(exec), NULL);
		st = key2(&r->steps, prog, exec, &added);
		if (added) {
			/* Not in the module frame: no wall time. */
			mem_grow(&r->step, &r->capstep, st + 1,
			    sizeof(*r->step));
			memset(&r->step[st], 0, sizeof(r->step[st]));
		}
		if (add_row(&r->step[st].s, k, dur, hidden, pk, g) != 0)
			return too_long(in);
		note_row(r, k, st, p, id, pk, g, dur, prog, exec, name);
		/* An operation inside a buffer, traced per node: the buffer's
		 * operations are rows of their own in this execution. */
		if (buf[0] != '\0' && strcmp(buf, name) != 0 && r->cbs.n > 0)
			r->cbinner[cb_key(r, prog, exec, buf)] = 1;
	}
	return rc;
}

/*
 * Once, before the tables: leave out of the MFU the operations above
 * their dense compute peak (their FLOPs are work the kernel does not do)
 * and add to steps and modules the FLOPs of the command buffers traced
 * whole (their operations have no rows of their own).
 */
static void
finish(struct roofline *r)
{
	size_t i;
	int c;

	if (r->finished)
		return;
	r->finished = 1;
	r->op_out = mem_calloc(r->ops.n + 1, 1);
	r->op_cb = mem_calloc(r->ops.n + 1, 1);
	for (i = 0; i < r->ops.n; i++) {
		const struct sums *s = &r->op[i];
		const struct cost *k = r->op_hlo[i] == STRTAB_NONE ? NULL :
		    &r->cost[r->op_hlo[i]];
		double peak;

		if (!k || !k->known || k->comm || k->mm == 0 || k->cls < 0 ||
		    s->ns <= 0 || (peak = r->op_pk[i]->flops[k->cls]) <= 0)
			continue;
		r->op_out[i] = s->flops / ((double)s->ns * 1e-9) / peak > 1;
	}
	for (i = 0; i < r->nmmrows; i++) {
		const struct mmrow *m = &r->mmrows[i];

		if (!r->op_out[m->op])
			continue;
		r->step[m->step].s.mm[m->cls] -= m->mm;
		r->prog[m->prog].mm[m->cls] -= m->mm;
		add_mm(&r->step[m->step].s, m->grp, m->cls, m->mm,
		    r->op_pk[m->op], -1);
		add_mm(&r->prog[m->prog], m->grp, m->cls, m->mm,
		    r->op_pk[m->op], -1);
	}
	for (i = 0; i < r->ncbrows; i++) {
		const struct cbrow *b = &r->cbrows[i];
		const struct cbcost *k = &r->cb[b->cb];
		struct sums *t[2];
		int j;

		if (r->cbinner[b->key] || k->nknown == 0) {
			if (r->op_cb[b->op] == 0)
				r->op_cb[b->op] = 2;
			continue;
		}
		r->op_cb[b->op] = 1;
		t[0] = &r->step[b->step].s;
		t[1] = &r->prog[b->prog];
		for (j = 0; j < 2; j++) {
			t[j]->costed_ns += b->ns;
			t[j]->flops += k->flops;
			t[j]->bytes += k->bytes;
			for (c = 0; c < ROOFLINE_NCLASS; c++) {
				t[j]->mm[c] += k->mm[c];
				add_mm(t[j], b->grp, c, k->mm[c], b->pk, 1);
			}
		}
	}
}

/* ---- writing ---- */

static void
u64(struct tsv_writer *w, uint64_t v)
{
	char buf[24];

	tsv_strn(w, buf, (size_t)snprintf(buf, sizeof(buf), "%" PRIu64, v));
}

/* V, or empty when not OK. */
static void
f64_if(struct tsv_writer *w, int ok, double v)
{
	if (ok)
		tsv_f64(w, v);
	else
		tsv_empty(w);
}

/* Keys sorted by time, longest first, then by key: the context of the
 * sort. */
struct order_ctx {
	const struct sums *sums;
	const struct strtab *keys;
};

static int
by_time(const void *a, const void *b, const void *ctx)
{
	const struct order_ctx *c = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (c->sums[x].ns != c->sums[y].ns)
		return c->sums[x].ns < c->sums[y].ns ? 1 : -1;
	return strcmp(strtab_get(c->keys, x), strtab_get(c->keys, y));
}

static size_t *
order(const struct sums *s, const struct strtab *keys)
{
	size_t i, *v = mem_calloc(keys->n + 1, sizeof(*v));
	struct order_ctx c;

	for (i = 0; i < keys->n; i++)
		v[i] = i;
	c.sums = s;
	c.keys = keys;
	sort_stable(v, keys->n, sizeof(*v), by_time, &c);
	return v;
}

/* The key's text up to its tab, then what follows, as two fields. */
static void
key_fields(struct tsv_writer *w, const char *key)
{
	const char *tab = strchr(key, '\t');

	tsv_strn(w, key, (size_t)(tab - key));
	tsv_str(w, tab + 1);
}

/* V as an unsigned count, saturating (a sum of doubles may pass 2^64,
 * and converting it would be undefined). */
static uint64_t
sat_u64(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)v;
}

/* SEC seconds as a time field, empty beyond TSV_MAX_NS. */
static void
sec_ms(struct tsv_writer *w, double sec)
{
	double ns = sec * 1e9 + 0.5;

	if (ns >= 0 && ns <= (double)TSV_MAX_NS)
		tsv_ms(w, (int64_t)ns);
	else
		tsv_empty(w);
}

/* Below this fraction of both roofs an operation is bound by neither:
 * its time is latency (launch, synchronisation, a kernel too small to
 * fill the GPU), not compute or memory. */
#define LATENCY_FRAC	0.1

/*
 * Why a row's rate passes a peak, or "" (Note), into BUF[0..N): CU and
 * MU its compute and memory utilisation, BYTES its BytesAccessed, L2 its
 * GPU's L2 (0 unknown), OUT whether the MFU leaves it out.  Above the
 * HBM bandwidth, operands read from L2 are a reason only when they fit
 * in it; otherwise XLA's count is more than the kernel reads (a
 * broadcast operand counts once per use).
 */
static const char *
compute_note(double cu, double mu, uint64_t bytes, double l2, int out,
    char *buf, size_t n)
{
	if (cu > 1)
		return out ? "above the dense compute peak: FLOPs counted for "
		    "work the kernel does not do, or a time too short; left "
		    "out of the MFU of its module and steps" : "above the "
		    "dense compute peak: FLOPs counted for work the kernel "
		    "does not do, or a time too short";
	if (mu <= 1)
		return "";
	if (l2 > 0 && (double)bytes <= l2)
		return "above the HBM bandwidth: bytes are XLA's cache-less "
		    "model; operands just written by an earlier kernel come "
		    "from L2";
	if (l2 <= 0)
		return "above the HBM bandwidth: XLA's byte count may pass "
		    "what the kernel reads (a broadcast operand counts once "
		    "per use), or operands come from L2";
	snprintf(buf, n, "above the HBM bandwidth: XLA's byte count (%.1f "
	    "MB) exceeds what the kernel can read (more than the %.0f MB "
	    "L2 holds; XLA counts a broadcast operand once per use)",
	    (double)bytes / 1e6, l2 / MB);
	return buf;
}

/* The Note of a row without a cost: no hlo row, a command buffer (CB: 1
 * its operations' FLOPs counted, 2 they are rows of their own or have
 * no cost), or no cost rule. */
static const char *
uncosted_note(const struct cost *k, int cb)
{
	if (cb == 1)
		return "command buffer: the FLOPs of its operations "
		    "(cmdbufs.tsv) count in the MFU of its module and steps; "
		    "no roofline of its own";
	if (cb == 2)
		return "command buffer: its operations are rows of their own "
		    "(or have no cost); this row is time no operation "
		    "explains";
	return !k ? "no cost: no hlo row" : "no cost rule";
}

/*
 * The columns from Flops to the end for a collective: its cost, no
 * roofline rates (its time is the link's), Bound "communication", the
 * nccl-tests bus bandwidth over exposed plus hidden time
 * (collectives.h coll_bandwidth) and its fraction of the link's peak.
 */
static void
comm_cols(const struct roofline *r, const struct sums *s,
    const struct cost *k, struct tsv_writer *w)
{
	double alg = 0, bus = 0;
	int64_t bytes;
	int have, i;

	/* Rows of one operation within int64 (the TSV_MAX_NS bound). */
	have = k->ndev > 0 && !__builtin_mul_overflow((int64_t)s->rows,
	    k->msg, &bytes) && coll_bandwidth(k->coll, k->ndev, bytes, s->ns,
	    s->hidden_ns, &alg, &bus) == 0;
	if (k->known) {
		u64(w, k->flops);
		u64(w, k->trans);
		u64(w, k->bytes);
		u64(w, k->mm);
	} else
		for (i = 0; i < 4; i++)
			tsv_empty(w);
	for (i = 0; i < 8; i++)		/* Dtype .. MemoryUtil */
		tsv_empty(w);
	tsv_str(w, "communication");
	tsv_empty(w);			/* RooflineMs */
	f64_if(w, have, bus);
	f64_if(w, have && r->p.link > 0, bus * 1e9 / (r->p.link > 0 ?
	    r->p.link : 1));
	tsv_str(w, have ? "collective: bus bandwidth (nccl-tests) over "
	    "exposed and hidden time" : "collective: no bus bandwidth "
	    "(kind or size unknown)");
}

static int
write_ops(struct roofline *r, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Opcode",
	    "Executions", "TimeMs", "Flops", "Transcendentals",
	    "BytesAccessed", "MatmulFlops", "Dtype", "TFLOPs", "GBps",
	    "Intensity", "PeakTFLOPs", "MFU", "ComputeUtil", "MemoryUtil",
	    "Bound", "RooflineMs", "BusGBps", "LinkUtil", "Note", NULL };
	size_t *v = order(r->op, &r->ops), i;
	int rc = tsv_header(w, cols);

	for (i = 0; i < r->ops.n && rc == 0; i++) {
		const struct sums *s = &r->op[v[i]];
		const struct cost *k = r->op_hlo[v[i]] == STRTAB_NONE ? NULL :
		    &r->cost[r->op_hlo[v[i]]];
		int known = k && k->known, time = s->ns > 0;
		const struct roofline_peaks *pk = r->op_pk[v[i]];
		double sec = (double)s->ns * 1e-9, peak = 0, bw = pk->bw;
		double cu = 0, mu = 0, roof;
		char nb[256];

		key_fields(w, strtab_get(&r->ops, v[i]));
		tsv_str(w, k ? k->opcode : "");
		u64(w, s->rows);
		tsv_ms(w, s->ns);
		if (k && k->comm) {
			comm_cols(r, s, k, w);
			rc = tsv_eor(w);
			continue;
		}
		if (known) {
			u64(w, k->flops);
			u64(w, k->trans);
			u64(w, k->bytes);
			u64(w, k->mm);
			peak = pk->flops[k->mm && k->cls >= 0 ? k->cls :
			    ROOFLINE_FP32];
			if (k->mm && k->cls < 0)
				peak = 0;	/* f64, integer matmuls */
		} else {
			tsv_empty(w);
			tsv_empty(w);
			tsv_empty(w);
			tsv_empty(w);
		}
		tsv_str(w, known && k->mm ? k->dtype : "");
		f64_if(w, known && time, s->flops / sec / 1e12);
		f64_if(w, known && time, s->bytes / sec / 1e9);
		/* Arguments are evaluated whatever the condition: K may be
		 * NULL. */
		f64_if(w, known && k->bytes > 0, known && k->bytes > 0 ?
		    (double)k->flops / (double)k->bytes : 0);
		f64_if(w, known && peak > 0, peak / 1e12);
		f64_if(w, known && time && k->mm && peak > 0,
		    known && time && k->mm && peak > 0 ?
		    s->mm[k->cls] / sec / peak : 0);
		if (known && time && peak > 0)
			cu = s->flops / sec / peak;
		if (known && time && bw > 0)
			mu = s->bytes / sec / bw;
		f64_if(w, known && time && peak > 0, cu);
		f64_if(w, known && time && bw > 0, mu);
		tsv_str(w, known && time && peak > 0 && bw > 0 ?
		    (cu < LATENCY_FRAC && mu < LATENCY_FRAC ? "latency" :
		    cu >= mu ? "compute" : "memory") : "");
		roof = 0;
		if (known && peak > 0 && bw > 0) {
			roof = s->flops / peak;
			if (s->bytes / bw > roof)
				roof = s->bytes / bw;
			sec_ms(w, roof);
		} else
			tsv_empty(w);
		tsv_empty(w);			/* BusGBps */
		tsv_empty(w);			/* LinkUtil */
		tsv_str(w, !known ? uncosted_note(k, r->op_cb[v[i]]) :
		    compute_note(cu, mu, k->bytes, pk->l2, r->op_out[v[i]],
		    nb, sizeof(nb)));
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

/* TFLOPs, GBps and MFU of S over SEC seconds (MFU's time: MFU_SEC). */
static void
rates(struct roofline *r, const struct sums *s, double sec, double mfu_sec,
    struct tsv_writer *w)
{
	f64_if(w, sec > 0, s->flops / sec / 1e12);
	f64_if(w, sec > 0, s->bytes / sec / 1e9);
	f64_if(w, s->mmany && mfu_sec > 0, mm_seconds(r, s) / mfu_sec);
}

static uint64_t
mm_total(const struct sums *s)
{
	double t = 0;
	int c;

	for (c = 0; c < ROOFLINE_NCLASS; c++)
		t += s->mm[c];
	return sat_u64(t);
}

static int
write_modules(struct roofline *r, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Executions",
	    "Thunks", "TimeMs", "CostedMs", "Flops", "MatmulFlops",
	    "BytesAccessed", "TFLOPs", "GBps", "MFU", NULL };
	size_t *v = order(r->prog, &r->progs), i;
	int rc = tsv_header(w, cols);

	for (i = 0; i < r->progs.n && rc == 0; i++) {
		const struct sums *s = &r->prog[v[i]];
		double sec = (double)s->costed_ns * 1e-9;

		tsv_str(w, strtab_get(&r->progs, v[i]));
		u64(w, r->prog_execs[v[i]].n);
		u64(w, s->rows);
		tsv_ms(w, s->ns);
		tsv_ms(w, s->costed_ns);
		u64(w, sat_u64(s->flops));
		u64(w, mm_total(s));
		u64(w, sat_u64(s->bytes));
		rates(r, s, sec, (double)s->ns * 1e-9, w);
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

static int
write_steps(struct roofline *r, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "ProgramExecution",
	    "Devices", "WallMs", "TimeMs", "MatmulFlops", "TFLOPs", "MFU",
	    "UncostedMs", NULL };
	int rc = tsv_header(w, cols), any;
	size_t i;

	for (i = 0; i < r->steps.n && rc == 0; i++) {
		const struct step *s = &r->step[i];
		double wall = (double)(s->end - s->start) * 1e-9;
		double mms = mm_seconds(r, &s->s);

		any = s->s.mmany;
		if (s->s.rows == 0)
			continue;	/* a module execution without thunks */
		key_fields(w, strtab_get(&r->steps, i));
		u64(w, s->devices);
		if (s->devices)
			tsv_ms(w, s->end - s->start);
		else
			tsv_empty(w);
		tsv_ms(w, s->s.ns);
		u64(w, mm_total(&s->s));
		f64_if(w, s->devices && wall > 0, s->s.flops / (wall *
		    (double)s->devices) / 1e12);
		f64_if(w, any && s->devices && wall > 0, mms / (wall *
		    (double)s->devices));
		tsv_ms(w, s->s.ns - s->s.costed_ns);
		rc = tsv_eor(w);
	}
	return rc;
}

int
roofline_write(void *arg, int t, struct tsv_writer *w)
{
	struct roofline *r = arg;

	finish(r);
	switch ((enum roofline_table)t) {
	case ROOFLINE_OPS:
		return write_ops(r, w);
	case ROOFLINE_MODULES:
		return write_modules(r, w);
	case ROOFLINE_STEPS:
		return write_steps(r, w);
	default:
		return err_fail("no such roofline table");
	}
}
