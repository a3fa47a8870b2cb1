/* The TSV writers of lib/extract (extract.h). */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "extract.h"
#include "hlo.h"
#include "mem.h"
#include "tsv.h"

static const char *const thunk_cols[] = {
	"ProgramId", "ProgramExecution", "Name", "ThunkExecution", "Device",
	"OrigDurMs", "OrigStartMs", "ProjDurMs", "ProjStartMs", "LocalDevice",
	"Process", "Slice", "Communication", "ProjDurHiddenMs", NULL
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
	"SourceStacks", "OpNames", NULL
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
		tsv_i64(w, t->message_size);
		tsv_str(w, t->collective);
		tsv_i64(w, t->collective_size);
		rc = tsv_eor(w);
	}
	return rc;
}

/* ---- hlo side table ---- */

struct pair {
	const char *program;
	const char *name;
	struct hlo_module *hlo;
};

static int
cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c = strcmp(x->program, y->program);

	return c ? c : strcmp(x->name, y->name);
}

/* Frames joined by ';', stacks by LF: the TSV escape keeps it one field. */
static char *
join_stacks(const struct hlo_src *s)
{
	size_t i, j, n = 1;
	char *out, *p;

	for (i = 0; i < s->nstack; i++)
		for (j = 0; j < s->stack[i].nframe; j++)
			n += strlen(s->stack[i].frame[j]) + 1;
	p = out = mem_alloc(n);
	for (i = 0; i < s->nstack; i++) {
		if (i)
			*p++ = '\n';
		for (j = 0; j < s->stack[i].nframe; j++) {
			size_t k = strlen(s->stack[i].frame[j]);

			if (j)
				*p++ = ';';
			memcpy(p, s->stack[i].frame[j], k);
			p += k;
		}
	}
	*p = '\0';
	return out;
}

static char *
join_lines(const char *const *v, size_t n)
{
	size_t i, len = 1;
	char *out, *p;

	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	p = out = mem_alloc(len);
	for (i = 0; i < n; i++) {
		size_t k = strlen(v[i]);

		if (i)
			*p++ = '\n';
		memcpy(p, v[i], k);
		p += k;
	}
	*p = '\0';
	return out;
}

static int
hlo_row(struct tsv_writer *w, const struct pair *p)
{
	const struct hlo_inst *in = hlo_find(p->hlo, p->name);
	struct hlo_src src;
	char *stacks, *ops;

	memset(&src, 0, sizeof(src));
	if (hlo_src(p->hlo, in, &src) != 0) {
		hlo_src_free(&src);
		return err_prefix("%s: %s", hlo_name(p->hlo), p->name);
	}
	stacks = join_stacks(&src);
	ops = join_lines(src.op_name, src.nop_name);
	tsv_str(w, p->program);
	tsv_str(w, p->name);
	tsv_str(w, in->opcode);
	tsv_bool(w, in->comm == 1);
	if (in->comm == 1 && in->collective) {
		tsv_str(w, in->collective);
		tsv_i64(w, in->message_size);
		tsv_i64(w, in->collective_size);
	} else {
		tsv_empty(w);
		tsv_empty(w);
		tsv_empty(w);
	}
	tsv_str(w, in->op_name);
	tsv_str(w, in->scheduling_name);
	tsv_str(w, stacks);
	tsv_str(w, ops);
	free(stacks);
	free(ops);
	hlo_src_free(&src);
	return tsv_eor(w);
}

static int
write_hlo(const struct frames *f, struct tsv_writer *w)
{
	struct pair *p = mem_calloc(f->nthunks + 1, sizeof(*p));
	size_t i, n = 0;
	int rc = tsv_header(w, hlo_cols);

	for (i = 0; i < f->nthunks; i++) {
		const struct frames_module *m = &f->modules[f->thunks[i].module];

		if (m->hlo != NULL)
			p[n++] = (struct pair){ m->program, f->thunks[i].name,
			    m->hlo };
	}
	qsort(p, n, sizeof(*p), cmp_pair);
	for (i = 0; i < n && rc == 0; i++)
		if (i == 0 || cmp_pair(&p[i], &p[i - 1]) != 0)
			rc = hlo_row(w, &p[i]);
	free(p);
	return rc;
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
		return write_hlo(&x->fr, w);
	}
	return err_fail("unknown frame");
}
