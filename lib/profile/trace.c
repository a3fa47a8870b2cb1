#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/parquet.h"
#include "profile/trace.h"

/* The columns of one layout that we read, by role. */
enum { C_NAME, C_START, C_DUR, C_END, C_OSTART, C_ODUR, C_PID, C_TID,
    C_GPUOPS, C_ID, C_PARENT, C_DOMAIN, C_MAX };

static const char *const names_2024_4[C_MAX] = {
	"Name", "Projected Start", "Projected Duration", NULL, "Orig Start",
	"Orig Duration", "PID", "TID", "NumGPUOps", "RangeId", "ParentId", NULL
};
static const char *const names_2024_5[C_MAX] = {
	"Text", "Start", NULL, "End", NULL, NULL, "PID", "TID", NULL,
	"Range ID", "Parent ID", NULL
};

struct cols {
	struct pq_column c[C_MAX];
	int have[C_MAX];
};

static void
cols_free(struct cols *k)
{
	size_t i;

	for (i = 0; i < C_MAX; i++)
		if (k->have[i])
			pq_column_free(&k->c[i]);
}

/* A list of the file's column names, for "unknown layout" messages. */
static void
list_columns(struct pq_file *f, char *buf, size_t cap)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < pq_ncolumns(f) && n + 1 < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "",
		    pq_column_name(f, i));
}

static int
detect(struct pq_file *f, enum trace_layout *layout)
{
	char found[1024];

	if (pq_column_index(f, "Name") >= 0 &&
	    pq_column_index(f, "Projected Start") >= 0)
		*layout = TRACE_2024_4;
	else if (pq_column_index(f, "Text") >= 0 &&
	    pq_column_index(f, "Start") >= 0 && pq_column_index(f, "End") >= 0)
		*layout = pq_column_index(f, "Domain") >= 0 ? TRACE_2026_1 :
		    TRACE_2024_5;
	else {
		list_columns(f, found, sizeof(found));
		return err_fail("unknown nvtx_gpu_proj_trace layout (columns: "
		    "%s)", found);
	}
	return 0;
}

static int
read_col(struct pq_file *f, const char *name, struct pq_column *c)
{
	long i = pq_column_index(f, name);

	if (i < 0)
		return err_fail("missing column '%s'", name);
	return pq_read_column(f, (size_t)i, c);
}

static int
load_cols(struct pq_file *f, enum trace_layout layout, struct cols *k)
{
	const char *const *names = layout == TRACE_2024_4 ? names_2024_4 :
	    names_2024_5;
	size_t i;

	if (layout != TRACE_2024_4 && pq_column_index(f, "TID") < 0)
		return err_fail("missing column 'TID': nsys 2024.5.1 and "
		    "2024.6.1 need nsys-jax-patch-nsys to write it");
	for (i = 0; i < C_MAX; i++) {
		const char *name = i == C_DOMAIN && layout == TRACE_2026_1 ?
		    "Domain" : names[i];

		if (name == NULL)
			continue;
		if (read_col(f, name, &k->c[i]) != 0)
			return -1;
		k->have[i] = 1;
		if (k->c[i].n != pq_nrows(f))
			return err_fail("column '%s': %lld values for %lld rows",
			    name, (long long)k->c[i].n, (long long)pq_nrows(f));
	}
	return 0;
}

/* Value I of a numeric column as an integer; 0 if null or not numeric. */
static int64_t
num(const struct pq_column *c, size_t i, int *valid)
{
	*valid = c->valid == NULL || c->valid[i];
	if (!*valid)
		return 0;
	if (c->kind == PQ_INT64)
		return c->i64[i];
	if (c->kind == PQ_DOUBLE && isfinite(c->f64[i]) &&
	    fabs(c->f64[i]) < 9e18)
		return (int64_t)llround(c->f64[i]);
	*valid = 0;
	return 0;
}

static int
check_kinds(const struct cols *k)
{
	static const char *const role[C_MAX] = { "name", "start", "duration",
	    "end", "orig start", "orig duration", "PID", "TID", "NumGPUOps",
	    "range id", "parent id", "domain" };
	size_t i;

	for (i = 0; i < C_MAX; i++) {
		int text = i == C_NAME || i == C_DOMAIN;

		if (!k->have[i])
			continue;
		if (text != (k->c[i].kind == PQ_STRING))
			return err_fail("%s column has the wrong type", role[i]);
	}
	return 0;
}

static char *
keep_string(struct trace *t, char *s)
{
	/* Sized by the caller: at most one string per row. */
	t->strings[t->nstrings++] = s;
	return s;
}

static int
beyond(int64_t ns)
{
	return ns > TRACE_MAX_NS || ns < -TRACE_MAX_NS;
}

/*
 * Build row I of K into R; 0 if the row is usable, 1 to skip it, -1 with
 * an err message for a time beyond TRACE_MAX_NS.
 */
static int
make_row(struct trace *t, const struct cols *k, size_t i,
    struct proj_range *r)
{
	int64_t end = 0;
	int v, ok = 1;

	r->id = num(&k->c[C_ID], i, &v);
	if (!v)
		return 1;
	r->parent = num(&k->c[C_PARENT], i, &v);
	if (!v)
		r->parent = -1;
	r->start = num(&k->c[C_START], i, &v);
	ok &= v;
	if (k->have[C_DUR])
		r->dur = num(&k->c[C_DUR], i, &v);
	else
		end = num(&k->c[C_END], i, &v);
	ok &= v;
	r->pid = num(&k->c[C_PID], i, &v);
	r->tid = num(&k->c[C_TID], i, &v);
	r->num_gpu_ops = k->have[C_GPUOPS] ? num(&k->c[C_GPUOPS], i, &v) : -1;
	r->orig_start = k->have[C_OSTART] ? num(&k->c[C_OSTART], i, &v) : 0;
	r->orig_dur = k->have[C_ODUR] ? num(&k->c[C_ODUR], i, &v) : 0;
	if (beyond(r->start) || beyond(end) || beyond(r->orig_start) ||
	    beyond(r->orig_dur) || (k->have[C_DUR] && beyond(r->dur)))
		return err_fail("row %zu: a time beyond 2^60 ns", i + 1);
	if (!k->have[C_DUR])
		r->dur = end - r->start;
	if (k->c[C_NAME].valid && !k->c[C_NAME].valid[i])
		return 1;
	r->name = k->c[C_NAME].str[i];
	/* A null or empty Domain (the default domain) leaves the bare text:
	 * ":text" would be no name nvtx.h recognises. */
	if (k->have[C_DOMAIN] && (!k->c[C_DOMAIN].valid ||
	    k->c[C_DOMAIN].valid[i]) && k->c[C_DOMAIN].str[i][0] != '\0') {
		const char *d = k->c[C_DOMAIN].str[i];
		char *s = mem_alloc(strlen(d) + strlen(r->name) + 2);

		sprintf(s, "%s:%s", d, r->name);
		r->name = keep_string(t, s);
	}
	return ok ? 0 : 1;
}

int
trace_read_parquet(const uint8_t *data, size_t len, struct trace *t)
{
	struct pq_file *f;
	struct cols k;
	size_t i, nrows;
	int rc;

	memset(t, 0, sizeof(*t));
	memset(&k, 0, sizeof(k));
	if ((f = pq_open(data, len)) == NULL)
		return -1;
	rc = detect(f, &t->layout);
	if (rc == 0)
		rc = load_cols(f, t->layout, &k);
	if (rc == 0)
		rc = check_kinds(&k);
	nrows = rc == 0 ? (size_t)pq_nrows(f) : 0;
	t->r = mem_calloc(nrows + 1, sizeof(*t->r));
	t->strings = mem_calloc(nrows + 1, sizeof(*t->strings));
	for (i = 0; i < nrows && rc == 0; i++) {
		if ((rc = make_row(t, &k, i, &t->r[t->n])) != 0) {
			rc = rc < 0 ? -1 : 0;
			continue;
		}
		/* Names point into the column; copy them to outlive it. */
		if (t->r[t->n].name == k.c[C_NAME].str[i])
			t->r[t->n].name = keep_string(t,
			    mem_strdup(t->r[t->n].name));
		t->n++;
	}
	t->has_gpu_ops = k.have[C_GPUOPS];
	t->has_orig = k.have[C_OSTART] && k.have[C_ODUR];
	cols_free(&k);
	pq_close(f);
	return rc;
}

int
threads_read_parquet(const uint8_t *data, size_t len, struct threads *t)
{
	struct pq_file *f;
	struct pq_column c[3];
	static const char *const names[3] = { "Name", "PID", "TID" };
	size_t i, n = 0, nrows;
	int rc = 0, v;

	memset(t, 0, sizeof(*t));
	if ((f = pq_open(data, len)) == NULL)
		return -1;
	for (i = 0; i < 3 && rc == 0; i++)
		if ((rc = read_col(f, names[i], &c[i])) == 0)
			n++;
	if (rc == 0 && c[0].kind != PQ_STRING)
		rc = err_fail("column 'Name' is not text");
	nrows = rc == 0 ? (size_t)pq_nrows(f) : 0;
	t->t = mem_calloc(nrows + 1, sizeof(*t->t));
	t->strings = mem_calloc(nrows + 1, sizeof(*t->strings));
	for (i = 0; i < nrows; i++) {
		struct proj_thread *p = &t->t[t->n];

		if (c[0].valid && !c[0].valid[i])
			continue;
		p->pid = num(&c[1], i, &v);
		p->tid = num(&c[2], i, &v);
		p->name = t->strings[t->nstrings++] = mem_strdup(c[0].str[i]);
		t->n++;
	}
	for (i = 0; i < n; i++)
		pq_column_free(&c[i]);
	pq_close(f);
	return rc;
}

void
trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->r);
	memset(t, 0, sizeof(*t));
}

void
threads_free(struct threads *t)
{
	size_t i;

	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->t);
	memset(t, 0, sizeof(*t));
}
