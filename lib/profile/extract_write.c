/* The TSV writers of lib/extract (extract.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ids.h"
#include "profile/extract.h"
#include "profile/extract_impl.h"
#include "profile/heap.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/num.h"
#include "base/outfile.h"
#include "profile/nsysdb.h"
#include "base/tsv.h"

static const char *const thunk_cols[] = {
	"ProgramId", "ProgramExecution", "Name", "ThunkExecution", "Device",
	"OrigDurMs", "OrigStartMs", "ProjDurMs", "ProjStartMs", "LocalDevice",
	"Process", "Slice", "Communication", "ProjDurHiddenMs", "MessageSize",
	"Collective", "CollectiveSize", "CommandBuffer", NULL
};
static const char *const comm_cols[] = {
	"ProgramId", "ProgramExecution", "Name", "ThunkExecution", "Device",
	"OrigDurMs", "OrigStartMs", "ProjDurMs", "ProjStartMs", "LocalDevice",
	"Process", "Slice", "ProjDurHiddenMs", "MessageSize", "Collective",
	"CollectiveSize", NULL
};
static const char *const module_cols[] = {
	"ProgramId", "ProgramExecution", "Device", "Name", "OrigDurMs",
	"OrigStartMs", "ProjDurMs", "ProjStartMs", "LocalDevice", "Process",
	"Slice", "NumThunks", NULL
};
static const char *const hlo_cols[] = {
	"ProgramId", "Name", "Opcode", "Communication", "Collective",
	"MessageSize", "CollectiveSize", "OpName", "SchedulingName",
	"StackFrameIds", "OpNames", "Flops", "Transcendentals",
	"BytesAccessed", "MatmulFlops", "Dtype", NULL
};

static void
times(struct tsv_writer *w, int has_orig, int64_t ostart, int64_t odur,
    int64_t start, int64_t dur)
{
	if (has_orig) {
		tsv_ms(w, odur);
		tsv_ms(w, ostart);
	} else {
		tsv_empty(w);
		tsv_empty(w);
	}
	tsv_ms(w, dur);
	tsv_ms(w, start);
}

static void
device(struct tsv_writer *w, const struct frames_device *d)
{
	tsv_i64(w, d->local);
	tsv_i64(w, d->process);
	tsv_i64(w, d->slice);
}

static void
thunk_key(struct tsv_writer *w, const struct frames *f,
    const struct frames_thunk *t)
{
	const struct frames_module *m = &f->modules[t->module];

	tsv_str(w, m->program);
	tsv_i64(w, m->execution);
	tsv_str(w, t->name);
	tsv_i64(w, t->execution);
	tsv_i64(w, t->dev.device);
	times(w, f->has_orig, t->orig_start, t->orig_dur, t->start, t->dur);
	device(w, &t->dev);
}

/* A size, empty when unknown (negative: a collective known by its name
 * only, extract.c by_name). */
static void
size_or_empty(struct tsv_writer *w, int64_t v)
{
	if (v < 0)
		tsv_empty(w);
	else
		tsv_i64(w, v);
}

/* MessageSize, Collective, CollectiveSize: empty for compute thunks. */
static void
comm_facts(struct tsv_writer *w, const struct frames_thunk *t)
{
	if (t->comm == 1 && t->collective) {
		size_or_empty(w, t->message_size);
		tsv_str(w, t->collective);
		size_or_empty(w, t->collective_size);
	} else {
		tsv_empty(w);
		tsv_empty(w);
		tsv_empty(w);
	}
}

static int
write_thunks(const struct frames *f, struct tsv_writer *w)
{
	size_t i;
	int rc = tsv_header(w, thunk_cols);

	for (i = 0; i < f->nthunks && rc == 0; i++) {
		const struct frames_thunk *t = &f->thunks[i];

		thunk_key(w, f, t);
		if (t->comm < 0)
			tsv_empty(w);
		else
			tsv_bool(w, t->comm);
		tsv_ms(w, t->hidden);
		comm_facts(w, t);
		if (t->cmdbuf)
			tsv_str(w, t->cmdbuf);
		else
			tsv_empty(w);
		rc = tsv_eor(w);
	}
	return rc;
}

static int
write_modules(const struct frames *f, struct tsv_writer *w)
{
	size_t i;
	int rc = tsv_header(w, module_cols);

	for (i = 0; i < f->nmodules && rc == 0; i++) {
		const struct frames_module *m = &f->modules[i];

		tsv_str(w, m->program);
		tsv_i64(w, m->execution);
		tsv_i64(w, m->dev.device);
		tsv_str(w, m->name);
		times(w, f->has_orig, m->orig_start, m->orig_dur, m->start,
		    m->dur);
		device(w, &m->dev);
		tsv_i64(w, m->num_thunks);
		rc = tsv_eor(w);
	}
	return rc;
}

static int
write_communication(const struct frames *f, struct tsv_writer *w)
{
	size_t i;
	int rc = tsv_header(w, comm_cols);

	for (i = 0; i < f->nthunks && rc == 0; i++) {
		const struct frames_thunk *t = &f->thunks[i];
		if (t->comm != 1)
			continue;
		thunk_key(w, f, t);
		tsv_ms(w, t->hidden);
		comm_facts(w, t);
		rc = tsv_eor(w);
	}
	return rc;
}

/* ---- hlo side table and its stack frames ---- */


static int
cmp_row(const void *a, const void *b, const void *ctx)
{
	const struct extract_hlorow *sort_rows = ctx;
	const struct extract_hlorow *x = &sort_rows[*(const size_t *)a];
	const struct extract_hlorow *y = &sort_rows[*(const size_t *)b];
	int c = strcmp(x->program, y->program);

	if (c == 0)
		c = strcmp(x->name, y->name);
	return c ? c : (x->variant > y->variant) - (x->variant < y->variant);
}

static void
u64(struct tsv_writer *w, uint64_t v)
{
	char buf[24];

	tsv_strn(w, buf, (size_t)snprintf(buf, sizeof(buf), "%" PRIu64, v));
}

/* Flops, Transcendentals, BytesAccessed, MatmulFlops, Dtype: empty for
 * what cannot be costed; Dtype empty without a matmul. */
static void
cost_cols(struct tsv_writer *w, const struct hlocost *c)
{
	const char *dt = c->known && c->matmul_flops ?
	    hlocost_dtype(c->dtype) : NULL;

	if (c->known) {
		u64(w, c->flops);
		u64(w, c->transcendentals);
		u64(w, c->bytes);
		u64(w, c->matmul_flops);
	} else {
		tsv_empty(w);
		tsv_empty(w);
		tsv_empty(w);
		tsv_empty(w);
	}
	tsv_str(w, dt ? dt : "");
}

static int
hlo_row(struct tsv_writer *w, const struct extract_hlorow *r)
{
	tsv_str(w, r->program);
	tsv_str(w, r->name);
	tsv_str(w, r->opcode);
	tsv_bool(w, r->comm == 1);
	if (r->collective) {
		tsv_str(w, r->collective);
		tsv_i64(w, r->message_size);
		tsv_i64(w, r->collective_size);
	} else {
		tsv_empty(w);
		tsv_empty(w);
		tsv_empty(w);
	}
	tsv_str(w, r->op_name);
	tsv_str(w, r->scheduling_name);
	ids_write(w, r->stacks, r->nstacks);
	tsv_str(w, r->op_names);
	cost_cols(w, &r->cost);
	return tsv_eor(w);
}

static int
write_hlo(const struct extract *x, struct tsv_writer *w)
{
	size_t i, n = x->rowkeys.n, *p = mem_calloc(n + 1, sizeof(*p));
	int rc = tsv_header(w, hlo_cols);

	for (i = 0; i < n; i++)
		p[i] = i;
	sort_stable(p, n, sizeof(*p), cmp_row, x->rows);
	for (i = 0; i < n && rc == 0; i++)
		rc = hlo_row(w, &x->rows[p[i]]);
	free(p);
	return rc;
}

int
extract_write_stacktree(const struct strtab *t, struct tsv_writer *w)
{
	static const char *const cols[] = { "FrameId", "ParentFrameId",
	    "Frame", NULL };
	size_t i;
	int rc = tsv_header(w, cols);

	for (i = 0; i < t->n && rc == 0; i++) {
		const char *key = strtab_get(t, i);
		const char *tab = memchr(key, '\t', t->len[i]);
		int64_t parent;

		/* Keys are "PARENT+1\tFRAME" (extract.c's stack tree). */
		if (tab == NULL || num_i64(key, (size_t)(tab - key), &parent) != 0)
			return err_fail("stack tree key %zu has no parent", i);
		tsv_i64(w, (int64_t)i);
		if (parent == 0)
			tsv_empty(w);
		else
			tsv_i64(w, parent - 1);
		tsv_strn(w, tab + 1, t->len[i] - (size_t)(tab + 1 - key));
		rc = tsv_eor(w);
	}
	return rc;
}

/* ---- heap frame ---- */

static const char *const heap_cols[] = {
	"ProgramId", "Trace", "Event", "Kind", "BufferId", "CanonicalId",
	"SizeBytes", "DeltaBytes", "HeapBytes", "Point", "Instruction",
	"Computation", NULL
};

static const char *const heap_kinds[] = { "ALLOC", "FREE", "SHARE_WITH" };


static int
cmp_heap(const void *a, const void *b, const void *ctx)
{
	const struct extract_heap *sort_heaps = ctx;
	return strcmp(sort_heaps[*(const size_t *)a].program,
	    sort_heaps[*(const size_t *)b].program);
}

static int
heap_event_row(struct tsv_writer *w, const char *program, size_t t,
    size_t e, const struct heap_event *ev)
{
	tsv_str(w, program);
	tsv_i64(w, (int64_t)t);
	tsv_i64(w, (int64_t)e);
	tsv_str(w, heap_kinds[ev->kind]);
	tsv_i64(w, ev->buffer);
	if (ev->kind == HEAP_SHARE_WITH)
		tsv_i64(w, ev->canonical);
	else
		tsv_empty(w);
	tsv_i64(w, ev->size);
	tsv_i64(w, ev->delta);
	tsv_i64(w, ev->heap);
	tsv_i64(w, (int64_t)ev->point);
	tsv_str(w, ev->instruction);
	tsv_str(w, ev->computation);
	return tsv_eor(w);
}

/* Every event of every trace, by ProgramId, Trace, Event. */
static int
write_heap(const struct extract *x, struct tsv_writer *w)
{
	size_t i, t, e, n = x->heapkeys.n, *p = mem_calloc(n + 1, sizeof(*p));
	const struct heap_trace *tr;
	const struct extract_heap *eh;
	int rc = tsv_header(w, heap_cols);

	for (i = 0; i < n; i++)
		p[i] = i;
	sort_stable(p, n, sizeof(*p), cmp_heap, x->heaps);
	for (i = 0; i < n && rc == 0; i++) {
		eh = &x->heaps[p[i]];
		for (t = 0; t < heap_ntraces(eh->h) && rc == 0; t++) {
			tr = heap_trace(eh->h, t);
			for (e = 0; e < tr->nev && rc == 0; e++)
				rc = heap_event_row(w, eh->program, t, e,
				    &tr->ev[e]);
		}
	}
	free(p);
	return rc;
}

/* The nvtx frame: each export's projection, in input order. */
static int
write_nvtx(struct extract *x, struct tsv_writer *w)
{
	size_t k;

	if (tsv_header(w, nsysdb_nvtx_columns) != 0)
		return -1;
	for (k = 0; k < x->in.n; k++)
		if (x->db[k] && x->proj[k] &&
		    nsysdb_write_nvtx(x->db[k], x->proj[k], w, 0) != 0)
			return -1;
	return 0;
}

int
extract_write(struct extract *x, unsigned bit, struct tsv_writer *w)
{
	switch (bit) {
	case EXTRACT_THUNK:
		return write_thunks(&x->fr, w);
	case EXTRACT_MODULE:
		return write_modules(&x->fr, w);
	case EXTRACT_COMMUNICATION:
		return write_communication(&x->fr, w);
	case EXTRACT_COMPILE:
		return compile_write(w, &x->cf);
	case EXTRACT_HLO:
		return write_hlo(x, w);
	case EXTRACT_STACKFRAMES:
		return extract_write_stacktree(&x->stackframes, w);
	case EXTRACT_HEAP:
		return write_heap(x, w);
	case EXTRACT_NVTX:
		return write_nvtx(x, w);
	}
	return err_fail("unknown frame");
}

/* The index of frame BIT in extract_frame_names. */
static size_t
frame_index(unsigned bit)
{
	size_t i = 0;

	while (bit > 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

int
extract_frame_open(struct outfile *of, const char *dir, unsigned bit)
{
	const char *name = extract_frame_names[frame_index(bit)];
	char *path = mem_alloc(strlen(dir) + strlen(name) + 6);
	int rc;

	sprintf(path, "%s/%s.tsv", dir, name);
	rc = outfile_open(&of[frame_index(bit)], path);
	free(path);
	return rc;
}

int
extract_frame_fill(struct outfile *of, unsigned bit,
    int (*write)(unsigned bit, struct tsv_writer *w, void *arg), void *arg)
{
	struct outfile *o = &of[frame_index(bit)];
	struct tsv_writer *w = tsv_wopen(o->fp, o->path);
	int rc = write(bit, w, arg);

	if (tsv_wclose(w) != 0)
		rc = -1;
	if (outfile_close(o) != 0)
		rc = -1;
	return rc;
}

int
extract_frames_end(struct outfile *of, unsigned bits, int rc)
{
	size_t i;

	for (i = 0; i < EXTRACT_NFRAMES; i++) {
		if (rc != 0)
			outfile_discard(&of[i]);
		else if ((bits & (1u << i)) && outfile_commit(&of[i]) != 0)
			rc = -1;
	}
	return rc;
}

int
extract_write_frames(const char *dir, unsigned bits,
    int (*write)(unsigned bit, struct tsv_writer *w, void *arg), void *arg)
{
	struct outfile of[EXTRACT_NFRAMES];
	size_t i;
	int rc = 0;

	memset(of, 0, sizeof(of));
	for (i = 0; extract_frame_names[i] && rc == 0; i++)
		if ((bits & (1u << i)) &&
		    (rc = extract_frame_open(of, dir, 1u << i)) == 0)
			rc = extract_frame_fill(of, 1u << i, write, arg);
	return extract_frames_end(of, bits, rc);
}

static int
write_bit(unsigned bit, struct tsv_writer *w, void *x)
{
	return extract_write(x, bit, w);
}

/* The identities of the profiles loaded (input.h), for merge.h. */
static int
write_idents(struct tsv_writer *w, void *arg)
{
	struct extract *x = arg;	/* the digests are kept */
	size_t lo = x->o.only ? x->o.only - 1 : 0;
	size_t hi = x->o.only ? x->o.only : x->in.n;

	return input_write_idents(&x->in, lo, hi, w);
}

int
extract_idents_open(struct outfile *of, const char *dir,
    int (*write)(struct tsv_writer *w, void *arg), void *arg)
{
	return extract_side_open(of, dir, INPUT_IDENT_TABLE ".tsv", write,
	    arg);
}

int
extract_side_open(struct outfile *of, const char *dir, const char *name,
    int (*write)(struct tsv_writer *w, void *arg), void *arg)
{
	char *path = mem_path(dir, name);
	struct tsv_writer *w;
	int rc = outfile_open(of, path);

	free(path);
	if (rc != 0)
		return -1;
	w = tsv_wopen(of->fp, of->path);
	rc = write(w, arg);
	if (tsv_wclose(w) != 0)
		rc = -1;
	if (outfile_close(of) != 0)
		rc = -1;
	if (rc != 0)
		outfile_discard(of);
	return rc;
}

/* A table that cannot be renamed over is removed: the frames beside it
 * are new, and an old run's identities must not stand for them. */
int
extract_idents_end(struct outfile *of, int rc)
{
	char *target;

	if (rc != 0) {
		outfile_discard(of);
		return rc;
	}
	target = mem_strdup(of->path);
	if ((rc = outfile_commit(of)) != 0)
		unlink(target);
	free(target);
	return rc;
}

static const char *const cmdbuf_cols[] = {
	"ProgramId", "CommandBuffer", "Operation", "Kind", NULL
};

int
extract_write_cmdbufs(struct tsv_writer *w, void *arg)
{
	const struct extract *x = arg;
	size_t i;
	int rc = tsv_header(w, cmdbuf_cols);

	for (i = 0; i < x->ncbrows && rc == 0; i++) {
		tsv_str(w, x->cbrows[i].program);
		tsv_str(w, x->cbrows[i].buf);
		tsv_str(w, x->cbrows[i].op);
		tsv_str(w, x->cbrows[i].kind);
		rc = tsv_eor(w);
	}
	return rc;
}

int
extract_write_dir(struct extract *x, const char *dir)
{
	struct outfile of, cb;
	int rc;

	if (extract_idents_open(&of, dir, write_idents, x) != 0)
		return -1;
	if (extract_side_open(&cb, dir, EXTRACT_CMDBUF_TABLE ".tsv",
	    extract_write_cmdbufs, x) != 0)
		return extract_idents_end(&of, -1);
	rc = extract_write_frames(dir, x->o.frames, write_bit, x);
	return extract_idents_end(&of, extract_idents_end(&cb, rc));
}

int
extract_write_heapsums(const struct extract *x, const char *dir)
{
	char *path = mem_path(dir, "heapsums");
	FILE *fp;
	size_t i;
	int rc = 0;

	if ((fp = fopen(path, "w")) == NULL)
		rc = err_fail("%s: cannot create: %s", path, strerror(errno));
	for (i = 0; fp && i < x->heapkeys.n; i++)
		fprintf(fp, "%s\t%016llx\t%s\n", x->heaps[i].program,
		    (unsigned long long)heap_digest(x->heaps[i].h),
		    x->heaps[i].origin);
	if (fp && (ferror(fp) | fclose(fp)) != 0)
		rc = err_fail("%s: write error: %s", path, strerror(errno));
	free(path);
	return rc;
}
