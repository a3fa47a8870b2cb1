/*
 * The parquet reader of compile.h: the push/pop table that newer nsys-jax
 * writes as report_nvtx_pushpop_trace.parquet (pandas to_parquet of the
 * nvtx_pushpop_trace CSV, scripts/nsys_jax.py run_nsys_stats_report).
 * Columns are decoded one at a time straight into the rows, so memory is
 * the rows plus one decoded column.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/compile.h"
#include "profile/compile_impl.h"
#include "base/err.h"
#include "base/mem.h"
#include "formats/parquet.h"

/* The names without " (ns)" where compile_colname's have one. */
static const char *const barename[NCOL] = {
	"Start", "End", "Duration", "DurChild", "DurNonChild"
};

/*
 * RangeId first: its decoded length, backed by real pages, sizes the rows,
 * so a footer that merely claims many rows allocates nothing.
 */
static const int order[NCOL] = {
	C_RANGEID, C_START, C_END, C_DUR, C_DCHILD, C_DNONCHILD, C_NAME, C_TID,
	C_NUMCHILD, C_PARENTID, C_STACK
};

/* Which of End and Duration a row has, to derive the other. */
#define HAVE_END	1
#define HAVE_DUR	2

struct load {
	struct pq_file *f;
	long idx[NCOL];			/* column index, -1: absent */
	struct compile_range *r;
	uint8_t *have;			/* [n]: HAVE_* */
	size_t n;
};

static int
find_columns(struct load *l)
{
	int c;

	for (c = 0; c < NCOL; c++) {
		l->idx[c] = pq_column_index(l->f, compile_colname[c]);
		if (l->idx[c] < 0 && barename[c] != NULL)
			l->idx[c] = pq_column_index(l->f, barename[c]);
	}
	for (c = 0; c < NCOL; c++) {
		if (l->idx[c] >= 0)
			continue;
		/* Either of End and Duration gives the other. */
		if ((c == C_END && l->idx[C_DUR] >= 0) ||
		    (c == C_DUR && l->idx[C_END] >= 0))
			continue;
		if (barename[c] != NULL)
			return err_fail("missing column %s (or %s)",
			    compile_colname[c], barename[c]);
		return err_fail("missing column %s", compile_colname[c]);
	}
	return 0;
}

static const char *
name_of(const struct load *l, int c)
{
	return pq_column_name(l->f, (size_t)l->idx[c]);
}

/* Refuse a column of the wrong type before decoding any of it. */
static int
check_kind(const struct load *l, int c)
{
	int k = pq_column_kind(l->f, (size_t)l->idx[c]);

	if (k < 0)
		return -1;
	if (c == C_NAME && k != PQ_STRING)
		return err_fail("column '%s': wrong type (want text)",
		    name_of(l, c));
	if (c == C_STACK && k != PQ_STRING && k != PQ_LIST_INT64)
		return err_fail("column '%s': wrong type (want text or a list "
		    "of integers)", name_of(l, c));
	if (c != C_NAME && c != C_STACK && k != PQ_INT64 && k != PQ_DOUBLE)
		return err_fail("column '%s': wrong type (want integers)",
		    name_of(l, c));
	return 0;
}

/*
 * Value I of numeric column COL: 1 and *V when present, 0 when null or
 * NaN (pandas' missing value in a float column), -1 when not an integer.
 */
static int
value(const struct pq_column *col, size_t i, int64_t *v)
{
	double d;

	if (!col->valid[i])
		return 0;
	if (col->kind == PQ_INT64) {
		*v = col->i64[i];
		return 1;
	}
	d = col->f64[i];
	if (isnan(d))
		return 0;
	/* 2^63 is exact in a double; anything below it converts. */
	if (d != floor(d) || d < -9223372036854775808.0 ||
	    d >= 9223372036854775808.0)
		return -1;
	*v = (int64_t)d;
	return 1;
}

static int64_t *
field(struct compile_range *r, int c)
{
	switch (c) {
	case C_START:
		return &r->start_ns;
	case C_END:
		return &r->end_ns;
	case C_DUR:
		return &r->dur_ns;
	case C_DCHILD:
		return &r->dur_child_ns;
	case C_DNONCHILD:
		return &r->dur_nonchild_ns;
	case C_TID:
		return &r->tid;
	case C_NUMCHILD:
		return &r->num_child;
	case C_RANGEID:
		return &r->range_id;
	}
	return &r->parent_id;
}

static int
fill_numbers(struct load *l, int c, const struct pq_column *col)
{
	size_t i;
	int64_t v;
	int got;

	for (i = 0; i < l->n; i++) {
		if ((got = value(col, i, &v)) < 0)
			return err_fail("column '%s': row %zu: not an integer: "
			    "%.17g", name_of(l, c), i + 1, col->f64[i]);
		/* A null ParentId is a root, as an empty CSV field; a null
		 * End or Duration is derived from the other, if it is there. */
		if (got == 0 && c == C_PARENTID)
			v = -1;
		else if (got == 0 && (c == C_END || c == C_DUR))
			continue;
		else if (got == 0)
			return err_fail("column '%s': row %zu: null",
			    name_of(l, c), i + 1);
		else if ((c == C_RANGEID || c == C_PARENTID) && v < 0)
			return err_fail("column '%s': row %zu: negative id "
			    "%lld", name_of(l, c), i + 1, (long long)v);
		*field(&l->r[i], c) = v;
		if (c == C_END || c == C_DUR)
			l->have[i] |= c == C_END ? HAVE_END : HAVE_DUR;
	}
	return 0;
}

/* ":a:b:c", the CSV's spelling of a range stack held as a list. */
static char *
join_ids(const struct pq_column *col, size_t i)
{
	int64_t k, n = col->list_off[i + 1] - col->list_off[i];
	char *s = mem_alloc((size_t)n * 21 + 1), *p = s;

	*p = '\0';
	for (k = col->list_off[i]; k < col->list_off[i + 1]; k++)
		p += sprintf(p, ":%lld", (long long)col->list_val[k]);
	return s;
}

static int
fill_strings(struct load *l, int c, const struct pq_column *col)
{
	size_t i;
	char *s;

	for (i = 0; i < l->n; i++) {
		if (col->kind == PQ_LIST_INT64) {
			l->r[i].range_stack = join_ids(col, i);
			continue;
		}
		/* Null reads as "", which is what an empty CSV field gives. */
		if (memchr(col->str[i], '\0', col->len[i]) != NULL)
			return err_fail("column '%s': row %zu: NUL byte",
			    name_of(l, c), i + 1);
		s = mem_strndup(col->str[i], col->len[i]);
		if (c == C_NAME)
			l->r[i].name = s;
		else
			l->r[i].range_stack = s;
	}
	return 0;
}

/* Decode column C into the rows; the first one read sizes them. */
static int
load_column(struct load *l, int c)
{
	struct pq_column col;
	size_t i;
	int rc;

	if (check_kind(l, c) != 0 ||
	    pq_read_column(l->f, (size_t)l->idx[c], &col) != 0)
		return -1;
	if (col.n != pq_nrows(l->f)) {
		rc = err_fail("column '%s': %lld values for %lld rows",
		    name_of(l, c), (long long)col.n, (long long)pq_nrows(l->f));
		pq_column_free(&col);
		return rc;
	}
	if (l->r == NULL) {
		l->n = (size_t)col.n;
		l->r = mem_calloc(l->n + 1, sizeof(*l->r));
		l->have = mem_calloc(l->n + 1, 1);
		for (i = 0; i < l->n; i++)
			l->r[i].parent_id = -1;
	}
	if (c == C_NAME || c == C_STACK)
		rc = fill_strings(l, c, &col);
	else
		rc = fill_numbers(l, c, &col);
	pq_column_free(&col);
	return rc;
}

/* A + B into *S, or -1 if it does not fit in int64. */
static int
add_ns(int64_t a, int64_t b, int64_t *s)
{
	if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
		return -1;
	*s = a + b;
	return 0;
}

/* End = Start + Duration or Duration = End - Start, where one is absent. */
static int
derive_times(struct load *l)
{
	struct compile_range *r;
	size_t i;
	int rc;

	for (i = 0; i < l->n; i++) {
		r = &l->r[i];
		switch (l->have[i]) {
		case HAVE_END | HAVE_DUR:
			continue;
		case HAVE_DUR:
			rc = add_ns(r->start_ns, r->dur_ns, &r->end_ns);
			break;
		case HAVE_END:
			rc = r->start_ns == INT64_MIN ? -1 :
			    add_ns(r->end_ns, -r->start_ns, &r->dur_ns);
			break;
		default:
			return err_fail("row %zu: neither %s nor %s", i + 1,
			    compile_colname[C_END], compile_colname[C_DUR]);
		}
		if (rc != 0)
			return err_fail("row %zu: times out of range", i + 1);
	}
	return 0;
}

int
compile_parse_parquet(const uint8_t *data, size_t len,
    struct compile_range **r, size_t *n)
{
	struct load l;
	int k, rc;

	memset(&l, 0, sizeof(l));
	if ((l.f = pq_open(data, len)) == NULL)
		return -1;
	rc = find_columns(&l);
	for (k = 0; k < NCOL && rc == 0; k++)
		if (l.idx[order[k]] >= 0)
			rc = load_column(&l, order[k]);
	if (rc == 0)
		rc = derive_times(&l);
	pq_close(l.f);
	free(l.have);
	if (rc != 0) {
		compile_ranges_free(l.r, l.n);
		return -1;
	}
	*r = l.r;
	*n = l.n;
	return 0;
}
