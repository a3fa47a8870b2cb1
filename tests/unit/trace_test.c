/*
 * Tests of lib/trace on the nvtx_gpu_proj_trace layouts we have no sample
 * of (REFERENCE.md §2.1): 2024.5-2025.x (Text without the domain, Start,
 * End, Range ID, Parent ID, Range Stack a list, ...) and 2026.1 (the same
 * plus Domain).  pqwrite.h writes them:
 *  - from a small hand-made trace, read back and through the frames;
 *  - from the real proc0 trace.parquet (2024.4 layout), rewritten in both
 *    layouts when ../shared/data exists: the same ranges, and the same
 *    thunk and module rows from frames_add_profile, except what needs
 *    NumGPUOps (the partial-last-module rule), which is accounted for;
 *  - an unknown layout and a 2024.5 file without TID, refused.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/archive.h"
#include "base/err.h"
#include "profile/frames.h"
#include "profile/nvtx.h"
#include "formats/parquet.h"
#include "pqwrite.h"
#include "profile/trace.h"
#include "unit.h"

#define DATA "../shared/data/pax_fsdp4_4proc/pax_fsdp4_4proc_proc0.zip"

/*
 * A trace in 2024.4 terms (name "domain:text"), the source of the files
 * written.  Valid arrays mark non-null values (NULL: all present).
 */
struct src {
	size_t n;
	const char **name;		/* NULL entries: null */
	int64_t *start, *dur, *pid, *tid, *lvl, *nchild, *id, *parent;
	int64_t *rank;
	uint8_t *lvlv, *idv, *parentv;
	const char **stack;		/* ":1:5:9" */
};

/* Which layout to write, and how. */
struct layout {
	int domain;		/* 2026.1: a Domain column */
	int parent_dbl;		/* Parent ID as float (NaN = null) */
	const char *drop;	/* a column left out, or NULL */
};

/* The 2024.5 columns, in the recipe's order, then Domain. */
enum {
	L_TEXT, L_START, L_END, L_PID, L_TID, L_LVL, L_NCHILD, L_ID,
	L_PARENT, L_STACK, L_RANK, L_DOMAIN, NL
};
static const char *const lname[NL] = {
	"Text", "Start", "End", "PID", "TID", "Stack Level", "Children Count",
	"Range ID", "Parent ID", "Range Stack", "Rank", "Domain"
};

/* The arrays a written file's columns point into. */
struct cols {
	const char **text, **dom;
	size_t *tlen, *dlen;
	uint8_t *namev, *domv;
	int64_t *end, *soff, *selem;
	double *pdbl;
};

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n + 1, size);

	if (p == NULL)
		abort();
	return p;
}

/* Split "domain:text"; a name without ':' has a null Domain. */
static void
split_name(struct cols *c, size_t i, const char *name)
{
	const char *colon = name ? strchr(name, ':') : NULL;

	c->namev[i] = name != NULL;
	c->domv[i] = colon != NULL;
	c->text[i] = colon ? colon + 1 : name ? name : "";
	c->tlen[i] = strlen(c->text[i]);
	c->dom[i] = colon ? name : "";
	c->dlen[i] = colon ? (size_t)(colon - name) : 0;
}

/* ":1:5:9" appended to the list elements. */
static void
parse_stack(struct cols *c, size_t i, const char *s, size_t *cap)
{
	int64_t k = c->soff[i];

	while (s != NULL && *s == ':') {
		if ((size_t)k == *cap) {
			*cap = *cap * 2 + 64;
			c->selem = realloc(c->selem, *cap * sizeof(*c->selem));
			if (c->selem == NULL)
				abort();
		}
		c->selem[k++] = strtoll(s + 1, (char **)&s, 10);
	}
	c->soff[i + 1] = k;
}

static void
cols_make(struct cols *c, const struct src *s)
{
	size_t i, cap = 0;

	memset(c, 0, sizeof(*c));
	c->text = xcalloc(s->n, sizeof(*c->text));
	c->dom = xcalloc(s->n, sizeof(*c->dom));
	c->tlen = xcalloc(s->n, sizeof(*c->tlen));
	c->dlen = xcalloc(s->n, sizeof(*c->dlen));
	c->namev = xcalloc(s->n, 1);
	c->domv = xcalloc(s->n, 1);
	c->end = xcalloc(s->n, sizeof(*c->end));
	c->pdbl = xcalloc(s->n, sizeof(*c->pdbl));
	c->soff = xcalloc(s->n + 1, sizeof(*c->soff));
	for (i = 0; i < s->n; i++) {
		split_name(c, i, s->name[i]);
		c->end[i] = s->start[i] + s->dur[i];
		c->pdbl[i] = (double)s->parent[i];
		parse_stack(c, i, s->stack[i], &cap);
	}
}

static void
cols_free(struct cols *c)
{
	free(c->text);
	free(c->dom);
	free(c->tlen);
	free(c->dlen);
	free(c->namev);
	free(c->domv);
	free(c->end);
	free(c->pdbl);
	free(c->soff);
	free(c->selem);
}

/* Column K of the layout: an int64 or string column over S and C. */
static void
lcol(const struct src *s, const struct cols *c, const struct layout *l,
    int k, struct wcol *w)
{
	int64_t *num[NL] = {
		[L_START] = s->start, [L_END] = c->end, [L_PID] = s->pid,
		[L_TID] = s->tid, [L_LVL] = s->lvl, [L_NCHILD] = s->nchild,
		[L_ID] = s->id, [L_PARENT] = s->parent, [L_RANK] = s->rank
	};
	const uint8_t *valid[NL] = {
		[L_TEXT] = c->namev, [L_DOMAIN] = c->domv, [L_LVL] = s->lvlv,
		[L_ID] = s->idv, [L_PARENT] = s->parentv
	};

	memset(w, 0, sizeof(*w));
	w->name = lname[k];
	w->opt = 1;
	w->valid = valid[k];
	w->type = T_INT64;
	w->i64 = num[k];
	if (k == L_TEXT || k == L_DOMAIN) {
		w->type = T_BYTE_ARRAY;
		w->enc = E_DICT;	/* as pyarrow writes repetitive text */
		w->str = k == L_TEXT ? c->text : c->dom;
		w->slen = k == L_TEXT ? c->tlen : c->dlen;
	} else if (k == L_PARENT && l->parent_dbl) {
		w->type = T_DOUBLE;
		w->f64 = c->pdbl;
	} else if (k == L_STACK) {
		w->shape = LIST3;
		w->elemopt = 1;
		w->i64 = c->selem;
		w->off = c->soff;
	}
}

/* S written in layout L; the caller frees. */
static uint8_t *
write_layout(const struct src *s, const struct layout *l, size_t *len)
{
	struct wcol w[NL];
	struct wopt o = plainopt;
	struct cols c;
	size_t n = 0;
	uint8_t *p, *q;
	int k;

	cols_make(&c, s);
	for (k = 0; k < NL; k++) {
		if ((k == L_DOMAIN && !l->domain) ||
		    (l->drop && strcmp(l->drop, lname[k]) == 0))
			continue;
		lcol(s, &c, l, k, &w[n++]);
	}
	o.codec = C_SNAPPY;
	o.group_rows = 5000;	/* several row groups in the real trace */
	p = pqwrite(w, n, s->n, &o, len);
	q = bytesdup(p, *len);	/* exact size: ASan sees overreads */
	free(p);
	cols_free(&c);
	return q;
}

/* Read S written in layout L into T; 0 or -1 with the err message. */
static int
reread(const struct src *s, const struct layout *l, struct trace *t)
{
	uint8_t *p;
	size_t len;
	int rc;

	p = write_layout(s, l, &len);
	rc = trace_read_parquet(p, len, t);
	free(p);	/* the trace must not point into the file */
	return rc;
}

/* ---- comparisons ------------------------------------------------------- */

/* NAME read from a 2024.5 file: WANT without its domain. */
static int
same_name(const char *got, const char *want, enum trace_layout layout)
{
	const char *colon = strchr(want, ':');

	if (layout == TRACE_2024_5 && colon != NULL)
		want = colon + 1;
	return strcmp(got, want) == 0;
}

/* Module and thunk names parse to the same module, program and op. */
static int
same_meaning(const char *got, const char *want)
{
	const char *a, *b;
	size_t na, nb;
	int64_t pa, pb;
	int k = nvtx_classify(want);

	if ((int)nvtx_classify(got) != k)
		return 0;
	if (k == NVTX_MODULE)
		return nvtx_parse_module(got, &a, &na, &pa) == 0 &&
		    nvtx_parse_module(want, &b, &nb, &pb) == 0 && na == nb &&
		    memcmp(a, b, na) == 0 && pa == pb;
	if (k == NVTX_THUNK)
		return nvtx_parse_thunk(got, &a, &na) == 0 &&
		    nvtx_parse_thunk(want, &b, &nb) == 0 && na == nb &&
		    memcmp(a, b, na) == 0;
	return 1;
}

/* How many rows of T differ from those of W (the 2024.4 reading). */
static size_t
diff_trace(const struct trace *t, const struct trace *w)
{
	size_t i, bad = 0;

	for (i = 0; i < t->n && i < w->n; i++) {
		const struct proj_range *a = &t->r[i], *b = &w->r[i];

		if (same_name(a->name, b->name, t->layout) &&
		    same_meaning(a->name, b->name) && a->start == b->start &&
		    a->dur == b->dur && a->id == b->id &&
		    a->parent == b->parent && a->pid == b->pid &&
		    a->tid == b->tid && a->num_gpu_ops == -1 &&
		    a->orig_start == 0 && a->orig_dur == 0)
			continue;
		if (bad++ == 0)
			fprintf(stderr, "row %zu differs: '%s' / '%s'\n", i,
			    a->name, b->name);
	}
	return bad;
}

static int
same_dev(const struct frames_device *a, const struct frames_device *b)
{
	return a->device == b->device && a->local == b->local &&
	    a->process == b->process && a->slice == b->slice;
}

static int
same_module(const struct frames_module *a, const struct frames_module *b)
{
	return strcmp(a->name, b->name) == 0 &&
	    a->program_id == b->program_id && a->start == b->start &&
	    a->dur == b->dur && a->tid == b->tid && same_dev(&a->dev, &b->dev);
}

/* Thunks and modules of A and B: names, times, devices. */
static void
same_frames(const struct frames *a, const struct frames *b)
{
	size_t i, bad = 0;

	CHECK_INT(a->nthunks, b->nthunks);
	CHECK_INT(a->nmodules, b->nmodules);
	for (i = 0; i < a->nthunks && i < b->nthunks; i++) {
		const struct frames_thunk *x = &a->thunks[i];
		const struct frames_thunk *y = &b->thunks[i];

		if (strcmp(x->name, y->name) != 0 || x->start != y->start ||
		    x->dur != y->dur || !same_dev(&x->dev, &y->dev) ||
		    !same_module(&a->modules[x->module],
		    &b->modules[y->module]))
			bad++;
	}
	for (i = 0; i < a->nmodules && i < b->nmodules; i++)
		bad += !same_module(&a->modules[i], &b->modules[i]);
	CHECK_INT(bad, 0);
}

static int
add(struct frames *f, const struct trace *t, int gpu_ops,
    const struct proj_thread *th, size_t nth)
{
	int rc = frames_add_profile(f, 0, t->r, t->n, gpu_ops, t->has_orig,
	    th, nth);

	if (rc != 0)
		fprintf(stderr, "frames_add_profile: %s\n", err_msg());
	return rc;
}

/* T read from S in layout L agrees with W, the 2024.4 reading. */
static void
check_layout(const struct src *s, const struct layout *l,
    const struct trace *w, const struct frames *fw,
    const struct proj_thread *th, size_t nth)
{
	struct frames f = { 0 };
	struct trace t;

	if (reread(s, l, &t) != 0) {
		fprintf(stderr, "trace_read_parquet: %s\n", err_msg());
		CHECK(0);
		return;
	}
	CHECK_INT(t.layout, l->domain ? TRACE_2026_1 : TRACE_2024_5);
	CHECK(!t.has_gpu_ops && !t.has_orig);
	CHECK_INT(t.n, w->n);
	CHECK_INT(diff_trace(&t, w), 0);
	CHECK_INT(add(&f, &t, t.has_gpu_ops, th, nth), 0);
	same_frames(&f, fw);
	frames_free(&f);
	trace_free(&t);
}

/* Refusals: an unknown layout, a 2024.5 file without TID. */
static void
check_refusals(const struct src *s)
{
	struct layout l = { 0, 0, "Start" };
	struct trace t;

	CHECK_INT(reread(s, &l, &t), -1);
	CHECK(strstr(err_msg(), "unknown nvtx_gpu_proj_trace layout "
	    "(columns: Text, End, PID, TID, Stack Level, Children Count, "
	    "Range ID, Parent ID, Range Stack, Rank)") != NULL);
	trace_free(&t);
	l.drop = "TID";
	CHECK_INT(reread(s, &l, &t), -1);
	CHECK(strstr(err_msg(), "nsys-jax-patch-nsys") != NULL);
	trace_free(&t);
	l.domain = 1;
	CHECK_INT(reread(s, &l, &t), -1);
	CHECK(strstr(err_msg(), "nsys-jax-patch-nsys") != NULL);
	trace_free(&t);
	l.drop = "Range ID";
	CHECK_INT(reread(s, &l, &t), -1);
	CHECK(strstr(err_msg(), "missing column 'Range ID'") != NULL);
	trace_free(&t);
}

/* ---- a hand-made trace ------------------------------------------------- */

#define SMALL 7

static const char *small_name[SMALL] = {
	NULL,
	"TSL:XlaModule:#hlo_module=jit_f,program_id=3#",
	"TSL:Thunk:#name=a/b,c=d,hlo_op=fusion#",
	"NCCL:ncclAllGather",
	"TSL:Thunk:#hlo_op=all-gather-start#",
	"TSL:Thunk:#hlo_op=lost#",
	"TSL:XlaCompile:#module=jit_f,program_id=3#",
};
static int64_t small_start[SMALL] = { 0, 100, 110, 120, 125, 130, 10 };
static int64_t small_dur[SMALL] = { 1, 100, 20, 50, 40, 5, 50 };
static int64_t small_pid[SMALL] = { 1, 1, 1, 1, 1, 1, 1 };
static int64_t small_tid[SMALL] = { 10, 10, 10, 10, 10, 10, 10 };
static int64_t small_lvl[SMALL] = { 0, 0, 1, 1, 2, 1, 0 };
static int64_t small_nchild[SMALL] = { 0, 2, 0, 1, 0, 0, 0 };
static int64_t small_id[SMALL] = { 0, 2, 3, 4, 5, 6, 7 };
static int64_t small_parent[SMALL] = { -1, -1, 2, 2, 4, 2, -1 };
static int64_t small_rank[SMALL] = { 0, 0, 0, 0, 0, 0, 0 };
static uint8_t small_idv[SMALL] = { 0, 1, 1, 1, 1, 0, 1 };
static uint8_t small_parentv[SMALL] = { 0, 0, 1, 1, 1, 1, 0 };
static const char *small_stack[SMALL] = {
	"", ":2", ":2:3", ":2:4", ":2:4:5", ":2:6", ":7"
};

static const struct proj_thread small_threads[] = {
	{ 1, 99, "python3" },
	{ 1, 10, "XlaLauncher:#global=2,local=0,process=2,slice=0#" },
};

static void
small_src(struct src *s)
{
	s->n = SMALL;
	s->name = small_name;
	s->start = small_start;
	s->dur = small_dur;
	s->pid = small_pid;
	s->tid = small_tid;
	s->lvl = small_lvl;
	s->nchild = small_nchild;
	s->id = small_id;
	s->parent = small_parent;
	s->rank = small_rank;
	s->lvlv = NULL;
	s->idv = small_idv;
	s->parentv = small_parentv;
	s->stack = small_stack;
}

/* The same trace as 2024.4 rows would give (no null ids, the names). */
static void
small_want(struct trace *w)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->r = xcalloc(SMALL, sizeof(*w->r));
	for (i = 0; i < SMALL; i++) {
		struct proj_range *r = &w->r[w->n];

		if (!small_idv[i])
			continue;
		r->name = small_name[i];
		r->start = small_start[i];
		r->dur = small_dur[i];
		r->pid = small_pid[i];
		r->tid = small_tid[i];
		r->num_gpu_ops = -1;
		r->id = small_id[i];
		r->parent = small_parentv[i] ? small_parent[i] : -1;
		w->n++;
	}
}

static void
t_small(void)
{
	struct layout l5 = { 0, 1, NULL }, l6 = { 1, 0, NULL };
	struct frames fw = { 0 };
	struct trace w;
	struct src s;

	small_src(&s);
	small_want(&w);
	CHECK_INT(w.n, 5);
	CHECK_INT(add(&fw, &w, 0, small_threads, 2), 0);
	CHECK_INT(fw.nthunks, 2);	/* fusion, and all-gather under NCCL */
	CHECK_INT(fw.nmodules, 1);
	check_layout(&s, &l5, &w, &fw, small_threads, 2);
	check_layout(&s, &l6, &w, &fw, small_threads, 2);
	check_refusals(&s);
	frames_free(&fw);
	free(w.r);
}

/* A 2026.1 row with a null or empty Domain keeps its bare Text. */
static void
t_no_domain(void)
{
	static const char *name[3] = { "TSL:XlaModule:#hlo_module=m#", "x",
	    ":y" };
	static int64_t zero[3], id[3] = { 1, 2, 3 }, par[3] = { -1, -1, -1 };
	static const char *stack[3] = { ":1", ":2", ":3" };
	struct layout l = { 1, 0, NULL };
	struct src s = { 3, name, zero, zero, zero, zero, zero, zero, id, par,
	    zero, NULL, NULL, NULL, stack };
	struct trace t;

	CHECK_INT(reread(&s, &l, &t), 0);
	CHECK_INT(t.n, 3);
	if (t.n == 3) {
		CHECK_STR(t.r[0].name, "TSL:XlaModule:#hlo_module=m#");
		CHECK_STR(t.r[1].name, "x");
		CHECK_STR(t.r[2].name, "y");
	}
	trace_free(&t);
}

/* ---- the real proc0 trace ---------------------------------------------- */

/* The columns of the 2024.4 file that the rewrite needs. */
enum {
	O_NAME, O_START, O_DUR, O_PID, O_TID, O_LVL, O_NCHILD, O_ID,
	O_PARENT, O_STACK, O_RANK, NO
};
static const char *const oname[NO] = {
	"Name", "Projected Start", "Projected Duration", "PID", "TID", "Lvl",
	"NumChild", "RangeId", "ParentId", "RangeStack", "Rank"
};

struct orig {
	struct pq_column c[NO];
	int64_t *num[NO];
	uint8_t *valid[NO];
	const char **name;
};

/* Column K as int64 (floats rounded; NaN is null). */
static void
orig_numbers(struct orig *o, int k)
{
	const struct pq_column *c = &o->c[k];
	int64_t i;

	o->num[k] = xcalloc((size_t)c->n, sizeof(int64_t));
	o->valid[k] = xcalloc((size_t)c->n, 1);
	for (i = 0; i < c->n; i++) {
		o->valid[k][i] = c->valid[i] &&
		    (c->kind != PQ_DOUBLE || c->f64[i] == c->f64[i]);
		if (o->valid[k][i])
			o->num[k][i] = c->kind == PQ_DOUBLE ?
			    (int64_t)c->f64[i] : c->i64[i];
	}
}

static int
orig_read(struct orig *o, const uint8_t *data, size_t len, struct src *s)
{
	struct pq_file *f;
	int64_t i;
	int k, rc = 0;

	memset(o, 0, sizeof(*o));
	if ((f = pq_open(data, len)) == NULL)
		return -1;
	for (k = 0; k < NO && rc == 0; k++) {
		long i = pq_column_index(f, oname[k]);

		if (i < 0 || (rc = pq_read_column(f, (size_t)i, &o->c[k])))
			rc = -1;
		else if (k != O_NAME && k != O_STACK)
			orig_numbers(o, k);
	}
	s->n = rc == 0 ? (size_t)pq_nrows(f) : 0;
	pq_close(f);
	o->name = xcalloc(s->n, sizeof(*o->name));
	for (i = 0; i < (int64_t)s->n; i++)
		o->name[i] = o->c[O_NAME].valid[i] ? o->c[O_NAME].str[i] : NULL;
	s->name = o->name;
	s->start = o->num[O_START];
	s->dur = o->num[O_DUR];
	s->pid = o->num[O_PID];
	s->tid = o->num[O_TID];
	s->lvl = o->num[O_LVL];
	s->lvlv = o->valid[O_LVL];
	s->nchild = o->num[O_NCHILD];
	s->id = o->num[O_ID];
	s->idv = o->valid[O_ID];
	s->parent = o->num[O_PARENT];
	s->parentv = o->valid[O_PARENT];
	s->rank = o->num[O_RANK];
	s->stack = o->c[O_STACK].str;
	return rc;
}

static void
orig_free(struct orig *o)
{
	int k;

	for (k = 0; k < NO; k++) {
		pq_column_free(&o->c[k]);
		free(o->num[k]);
		free(o->valid[k]);
	}
	free(o->name);
}

static size_t
count_notes(const struct frames *f, const char *what)
{
	size_t i, n = 0;

	for (i = 0; i < f->notes.n; i++)
		n += strstr(f->notes.v[i], what) != NULL;
	return n;
}

/*
 * The partial-last-module rule needs NumGPUOps, which the newer layouts
 * lack.  Where it fires on the 2024.4 file, the frames with it are the
 * frames without it less the dropped executions' thunks (each the last
 * execution of its module name).
 */
static void
check_partial(const struct frames *with, const struct frames *without)
{
	size_t fired = count_notes(with, "skipping last occurrence"), i, j, k;
	size_t lost = 0, bad = 0;

	printf("trace: partial-last-module rule fires %zu time%s on proc0\n",
	    fired, fired == 1 ? "" : "s");
	CHECK_INT(count_notes(without, "skipping last occurrence"), 0);
	CHECK_INT(without->nmodules - with->nmodules, fired);
	for (i = j = 0; i < without->nthunks; i++) {
		const struct frames_thunk *x = &without->thunks[i];

		if (j < with->nthunks && x->start == with->thunks[j].start &&
		    strcmp(x->name, with->thunks[j].name) == 0) {
			j++;
			continue;
		}
		lost++;
		/* Only the last execution of a module name can go. */
		for (k = x->module + 1; k < without->nmodules; k++)
			bad += strcmp(without->modules[k].name,
			    without->modules[x->module].name) == 0;
	}
	CHECK_INT(j, with->nthunks);
	CHECK_INT(bad, 0);
	CHECK(fired > 0 ? lost > 0 : lost == 0);
}

static void
real_checks(const struct src *s, const struct trace *w,
    const struct threads *th)
{
	struct layout l5 = { 0, 1, NULL }, l6 = { 1, 0, NULL };
	struct frames fw = { 0 }, fg = { 0 };

	CHECK(w->has_gpu_ops && w->has_orig);
	CHECK_INT(add(&fw, w, 0, th->t, th->n), 0);
	CHECK_INT(add(&fg, w, 1, th->t, th->n), 0);
	CHECK(fw.nthunks > 10000);
	check_partial(&fg, &fw);
	check_layout(s, &l5, w, &fw, th->t, th->n);
	check_layout(s, &l6, w, &fw, th->t, th->n);
	check_refusals(s);
	frames_free(&fw);
	frames_free(&fg);
}

static int
read_member(struct archive *a, const char *name, uint8_t **p, size_t *len)
{
	if (archive_read_plain(a, name, p, len) == 0)
		return 0;
	fprintf(stderr, "%s: %s\n", DATA, err_msg());
	CHECK(0);
	return -1;
}

static void
t_real(void)
{
	struct archive *a;
	struct trace w;
	struct threads th;
	struct orig o;
	struct src s;
	uint8_t *tp, *hp;
	size_t tlen, hlen;

	if (access(DATA, R_OK) != 0) {
		printf("trace: %s not found, real-data checks: 1 skipped\n",
		    DATA);
		return;
	}
	if ((a = archive_open(DATA)) == NULL ||
	    read_member(a, "nvtx_gpu_proj_trace/trace.parquet", &tp, &tlen) ||
	    read_member(a, "thread-metadata.parquet", &hp, &hlen)) {
		archive_close(a);
		return;
	}
	CHECK_INT(trace_read_parquet(tp, tlen, &w), 0);
	CHECK_INT(w.layout, TRACE_2024_4);
	CHECK_INT(threads_read_parquet(hp, hlen, &th), 0);
	CHECK_INT(orig_read(&o, tp, tlen, &s), 0);
	CHECK(s.n > w.n);	/* the file has rows without a RangeId */
	real_checks(&s, &w, &th);
	orig_free(&o);
	trace_free(&w);
	threads_free(&th);
	free(tp);
	free(hp);
	archive_close(a);
}

int
main(void)
{
	t_small();
	t_no_domain();
	t_real();
	ZSTD_freeCCtx(zcctx);
	return unit_done("trace");
}
