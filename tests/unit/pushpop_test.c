/*
 * Tests of compile_parse_parquet (lib/compile_parquet.c), the reader of
 * report_nvtx_pushpop_trace.parquet.  We have no such file from nsys-jax,
 * so the tests write them with pqwrite.h as pandas to_parquet would from
 * the CSV (int64 times, ParentId a nullable float, Name and RangeStack
 * strings, RangeId the index stored last) and variants of that:
 *  - hand-made ranges, read back through parquet and through CSV: the
 *    same rows, in every spelling (names with and without " (ns)",
 *    ParentId int or float, RangeStack text or list, an index column,
 *    End or Duration missing);
 *  - bad input: each missing column, wrong types, nulls, fractions;
 *  - when ../shared/data exists, the proc0 CSV rewritten as parquet
 *    (plain, dictionary + snappy in several row groups, v2 + zstd) gives
 *    the same ranges and the same compile frame, field by field.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/archive.h"
#include "profile/compile.h"
#include "base/err.h"
#include "pqwrite.h"
#include "base/tsv.h"
#include "unit.h"

#define DATA "../shared/data/pax_fsdp4_4proc/pax_fsdp4_4proc_proc0.zip"

enum {
	R_START, R_END, R_DUR, R_DCHILD, R_DNONCHILD, R_NAME, R_TID,
	R_NUMCHILD, R_RANGEID, R_PARENTID, R_STACK, NROLE
};

static const char *const suffixed[NROLE] = {
	"Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)",
	"DurNonChild (ns)", "Name", "TID", "NumChild", "RangeId", "ParentId",
	"RangeStack"
};
static const char *const bare[NROLE] = {
	"Start", "End", "Duration", "DurChild", "DurNonChild", "Name", "TID",
	"NumChild", "RangeId", "ParentId", "RangeStack"
};

/* pandas' column order: the CSV's, less PID, Lvl, NameTree; the index
 * (RangeId) last. */
static const int pandas_order[NROLE] = {
	R_START, R_END, R_DUR, R_DCHILD, R_DNONCHILD, R_NAME, R_TID,
	R_NUMCHILD, R_PARENTID, R_STACK, R_RANGEID
};

/* How to write a push/pop table. */
struct spec {
	int bare;		/* time names without " (ns)" */
	int parent;		/* T_DOUBLE (pandas: NaN = null), T_INT64 */
	int stacklist;		/* RangeStack as list<int64> */
	int index;		/* an extra __index_level_0__ column */
	int dict;		/* dictionary-encode the repetitive columns */
	unsigned omit;		/* 1 << role: not written */
	int retype;		/* role written with a wrong type, or -1 */
	struct wopt o;
};

/* The columns of ranges, as arrays the writer reads. */
struct table {
	size_t n;
	int64_t *num[NROLE];		/* numeric roles */
	uint8_t *valid[NROLE];		/* NULL: all present */
	double *pdbl;			/* ParentId as float */
	const char **str[NROLE];	/* Name, RangeStack */
	size_t *slen[NROLE];
	int64_t *soff, *selem;		/* RangeStack as a list */
};

static void
spec_init(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	s->parent = T_DOUBLE;
	s->retype = -1;
	s->o = plainopt;
}

static int64_t *
numfield(struct compile_range *r, int role)
{
	int64_t *f[NROLE] = {
		&r->start_ns, &r->end_ns, &r->dur_ns, &r->dur_child_ns,
		&r->dur_nonchild_ns, NULL, &r->tid, &r->num_child,
		&r->range_id, &r->parent_id, NULL
	};

	return f[role];
}

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n + 1, size);

	if (p == NULL)
		abort();
	return p;
}

/* ":1:5:9" as list elements appended to T. */
static void
stack_elems(struct table *t, size_t i, const char *s, size_t *cap)
{
	int64_t k = t->soff[i];

	while (*s == ':') {
		if ((size_t)k == *cap) {
			*cap = *cap * 2 + 64;
			t->selem = realloc(t->selem, *cap * sizeof(*t->selem));
			if (t->selem == NULL)
				abort();
		}
		t->selem[k++] = strtoll(s + 1, (char **)&s, 10);
	}
	t->soff[i + 1] = k;
}

static void
table_make(struct table *t, struct compile_range *r, size_t n)
{
	size_t i, cap = 0;
	int c;

	memset(t, 0, sizeof(*t));
	t->n = n;
	for (c = 0; c < NROLE; c++) {
		if (c == R_NAME || c == R_STACK) {
			t->str[c] = xcalloc(n, sizeof(*t->str[c]));
			t->slen[c] = xcalloc(n, sizeof(*t->slen[c]));
		} else
			t->num[c] = xcalloc(n, sizeof(*t->num[c]));
	}
	t->pdbl = xcalloc(n, sizeof(*t->pdbl));
	t->valid[R_PARENTID] = xcalloc(n, 1);
	t->soff = xcalloc(n + 1, sizeof(*t->soff));
	for (i = 0; i < n; i++) {
		for (c = 0; c < NROLE; c++)
			if (t->num[c])
				t->num[c][i] = *numfield(&r[i], c);
		t->str[R_NAME][i] = r[i].name;
		t->slen[R_NAME][i] = strlen(r[i].name);
		t->str[R_STACK][i] = r[i].range_stack;
		t->slen[R_STACK][i] = strlen(r[i].range_stack);
		t->valid[R_PARENTID][i] = r[i].parent_id >= 0;
		t->pdbl[i] = (double)r[i].parent_id;
		stack_elems(t, i, r[i].range_stack, &cap);
	}
}

static void
table_free(struct table *t)
{
	int c;

	for (c = 0; c < NROLE; c++) {
		free(t->num[c]);
		free(t->valid[c]);
		free(t->str[c]);
		free(t->slen[c]);
	}
	free(t->pdbl);
	free(t->soff);
	free(t->selem);
}

/* Column ROLE of T as S says; returns 0 if it is not written. */
static int
mkcol(const struct table *t, const struct spec *s, int role,
    struct wcol *w)
{
	int text = role == R_NAME || role == R_STACK;

	if (s->omit & 1u << role)
		return 0;
	memset(w, 0, sizeof(*w));
	w->name = s->bare ? bare[role] : suffixed[role];
	w->opt = 1;		/* pyarrow writes every column OPTIONAL */
	w->valid = t->valid[role];
	w->type = text ? T_BYTE_ARRAY : T_INT64;
	w->i64 = t->num[role];
	w->str = t->str[role];
	w->slen = t->slen[role];
	if (role == R_PARENTID && s->parent == T_DOUBLE) {
		w->type = T_DOUBLE;
		w->f64 = t->pdbl;
	}
	if (role == R_STACK && s->stacklist) {
		w->type = T_INT64;
		w->shape = LIST3;
		w->i64 = t->selem;
		w->off = t->soff;
	}
	if (s->dict && role != R_START && role != R_END && role != R_RANGEID &&
	    role != R_STACK)
		w->enc = E_DICT;
	if (role == R_RANGEID)	/* pandas keeps read_csv's int32 index */
		w->type = T_INT32;
	if (role == s->retype) {
		w->type = text ? T_INT64 : T_BYTE_ARRAY;
		w->i64 = t->num[R_RANGEID];
		w->str = t->str[R_NAME];
		w->slen = t->slen[R_NAME];
		w->shape = FLAT;
	}
	return 1;
}

/* A parquet file of T as S says; caller frees. */
static uint8_t *
mkfile(const struct table *t, const struct spec *s, size_t *len)
{
	struct wcol w[NROLE + 1];
	size_t n = 0, k;
	uint8_t *p, *q;

	for (k = 0; k < NROLE; k++)
		n += (size_t)mkcol(t, s, pandas_order[k], &w[n]);
	if (s->index) {
		memset(&w[n], 0, sizeof(w[n]));
		w[n].name = "__index_level_0__";
		w[n].type = T_INT64;
		w[n++].i64 = t->num[R_TID];
	}
	p = pqwrite(w, n, t->n, &s->o, len);
	q = bytesdup(p, *len);	/* exact size: ASan sees overreads */
	free(p);
	return q;
}

/* Parse T written as S; 0 and *R, *N, or -1 with the err message. */
static int
parse(const struct table *t, const struct spec *s, struct compile_range **r,
    size_t *n)
{
	uint8_t *p;
	size_t len;
	int rc;

	p = mkfile(t, s, &len);
	*r = NULL;
	*n = 0;
	rc = compile_parse_parquet(p, len, r, n);
	free(p);
	return rc;
}

/* How many of A[0..N) and B[0..N) differ; reports the first. */
static size_t
diff_ranges(const struct compile_range *a, const struct compile_range *b,
    size_t n)
{
	size_t i, bad = 0;
	int c;

	for (i = 0; i < n; i++) {
		int same = strcmp(a[i].name, b[i].name) == 0 &&
		    strcmp(a[i].range_stack, b[i].range_stack) == 0;

		for (c = 0; c < NROLE; c++)
			if (c != R_NAME && c != R_STACK &&
			    *numfield((struct compile_range *)&a[i], c) !=
			    *numfield((struct compile_range *)&b[i], c))
				same = 0;
		if (!same && bad++ == 0)
			fprintf(stderr, "range %zu differs: id %" PRId64 " / %"
			    PRId64 ", '%s' / '%s'\n", i, a[i].range_id,
			    b[i].range_id, a[i].name, b[i].name);
	}
	return bad;
}

/* Parse T written as S and compare with WANT[0..N). */
static void
same_as(const struct table *t, const struct spec *s,
    const struct compile_range *want, size_t n)
{
	struct compile_range *r;
	size_t got;

	if (parse(t, s, &r, &got) != 0) {
		fprintf(stderr, "compile_parse_parquet: %s\n", err_msg());
		CHECK(0);
		return;
	}
	CHECK_INT(got, n);
	if (got == n)
		CHECK_INT(diff_ranges(r, want, n), 0);
	compile_ranges_free(r, got);
}

/* Parse T written as S: must fail with WANT in the message. */
static void
fails(const struct table *t, const struct spec *s, const char *want)
{
	struct compile_range *r;
	size_t n;

	CHECK_INT(parse(t, s, &r, &n), -1);
	if (strstr(err_msg(), want) != NULL) {
		unit_pass++;
		return;
	}
	unit_fail++;
	fprintf(stderr, "error '%s' lacks '%s'\n", err_msg(), want);
}

/* ---- hand-made ranges ------------------------------------------------- */

/*
 * A compile with a backend, a non-TSL child and a parallel worker on
 * another thread; names need CSV quoting.
 */
static const char small_csv[] =
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),"
    "Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree\n"
    "100,400,300,150,150,\"TSL:XlaCompile:#module=jit_f,program_id=3#\","
    "9,7,0,2,10,,:10,x\n"
    "120,220,100,0,100,\"TSL:XlaCompileBackend:#module=jit_f,"
    "program_id=3#\",9,7,1,0,11,10,:10:11,x\n"
    "250,300,50,0,50,cuBLAS:gemm,9,7,1,0,12,10,:10:12,x\n"
    "130,160,30,0,30,\"TSL:XlaPass:#name=w,module=jit_f,program_id=3#\","
    "9,8,0,0,13,,:13,x\n";

static void
small_ranges(struct compile_range **r, size_t *n)
{
	CHECK_INT(compile_parse_csv(small_csv, strlen(small_csv), r, n), 0);
	CHECK_INT(*n, 4);
}

/* Every spelling reads back as the CSV does. */
static void
t_spellings(void)
{
	struct compile_range *r;
	struct table t;
	struct spec s;
	size_t n;

	small_ranges(&r, &n);
	table_make(&t, r, n);
	spec_init(&s);
	same_as(&t, &s, r, n);
	s.bare = 1;
	same_as(&t, &s, r, n);
	s.parent = T_INT64;
	same_as(&t, &s, r, n);
	s.stacklist = 1;
	same_as(&t, &s, r, n);
	s.index = 1;
	same_as(&t, &s, r, n);
	s.dict = 1;
	s.o.codec = C_SNAPPY;
	same_as(&t, &s, r, n);
	s.o.v2 = 1;
	s.o.codec = C_ZSTD;
	s.o.group_rows = 3;
	s.o.page_rows = 2;
	same_as(&t, &s, r, n);
	table_free(&t);
	compile_ranges_free(r, n);
}

/* End from Start + Duration, Duration from End - Start. */
static void
t_derive(void)
{
	struct compile_range *r;
	struct table t;
	struct spec s;
	size_t n;

	small_ranges(&r, &n);
	table_make(&t, r, n);
	spec_init(&s);
	s.omit = 1u << R_END;
	same_as(&t, &s, r, n);
	s.omit = 1u << R_DUR;
	s.bare = 1;
	same_as(&t, &s, r, n);
	s.omit = 0;
	t.valid[R_END] = xcalloc(n, 1);
	memset(t.valid[R_END], 1, n);
	t.valid[R_END][1] = 0;
	t.valid[R_DUR] = xcalloc(n, 1);
	memset(t.valid[R_DUR], 1, n);
	t.valid[R_DUR][2] = 0;
	same_as(&t, &s, r, n);
	t.valid[R_DUR][1] = 0;
	fails(&t, &s, "row 2: neither End (ns) nor Duration (ns)");
	s.omit = 1u << R_END | 1u << R_DUR;
	fails(&t, &s, "missing column End (ns) (or End)");
	table_free(&t);
	compile_ranges_free(r, n);
}

/* An empty table is no ranges, not an error. */
static void
t_empty(void)
{
	struct compile_range *r;
	struct table t;
	struct spec s;
	size_t n;

	table_make(&t, NULL, 0);
	spec_init(&s);
	CHECK_INT(parse(&t, &s, &r, &n), 0);
	CHECK_INT(n, 0);
	compile_ranges_free(r, n);
	table_free(&t);
}

/* ---- bad input -------------------------------------------------------- */

static void
t_missing(void)
{
	struct compile_range *r;
	struct table t;
	struct spec s;
	char want[64];
	size_t n;
	int c;

	small_ranges(&r, &n);
	table_make(&t, r, n);
	for (c = 0; c < NROLE; c++) {
		if (c == R_END || c == R_DUR)
			continue;	/* either one is enough: t_derive */
		spec_init(&s);
		s.omit = 1u << c;
		snprintf(want, sizeof(want), "missing column %s", suffixed[c]);
		fails(&t, &s, want);
	}
	table_free(&t);
	compile_ranges_free(r, n);
}

static void
t_types(void)
{
	struct compile_range *r;
	struct table t;
	struct spec s;
	size_t n;

	small_ranges(&r, &n);
	table_make(&t, r, n);
	spec_init(&s);
	s.retype = R_NAME;
	fails(&t, &s, "column 'Name': wrong type (want text)");
	s.retype = R_STACK;
	fails(&t, &s, "column 'RangeStack': wrong type (want text or a list");
	s.retype = R_START;
	fails(&t, &s, "column 'Start (ns)': wrong type (want integers)");
	s.bare = 1;
	s.retype = R_DCHILD;
	fails(&t, &s, "column 'DurChild': wrong type (want integers)");
	spec_init(&s);
	t.pdbl[1] = 10.5;
	fails(&t, &s, "column 'ParentId': row 2: not an integer: 10.5");
	t.pdbl[1] = 1e300;
	fails(&t, &s, "column 'ParentId': row 2: not an integer");
	t.pdbl[1] = 10;
	t.num[R_RANGEID][3] = -13;
	fails(&t, &s, "column 'RangeId': row 4: negative id -13");
	t.num[R_RANGEID][3] = 13;
	table_free(&t);
	compile_ranges_free(r, n);
}

static void
t_nulls(void)
{
	static const char nul[] = "a\0b";
	struct compile_range *r;
	struct table t;
	struct spec s;
	size_t n;

	small_ranges(&r, &n);
	table_make(&t, r, n);
	spec_init(&s);
	t.valid[R_TID] = xcalloc(n, 1);
	memset(t.valid[R_TID], 1, n);
	t.valid[R_TID][1] = 0;
	fails(&t, &s, "column 'TID': row 2: null");
	t.valid[R_TID][1] = 1;
	t.str[R_NAME][2] = nul;
	t.slen[R_NAME][2] = 3;
	fails(&t, &s, "column 'Name': row 3: NUL byte");
	/* A null Name reads as "", as an empty CSV field does. */
	t.slen[R_NAME][2] = 0;
	t.valid[R_NAME] = xcalloc(n, 1);
	memset(t.valid[R_NAME], 1, n);
	t.valid[R_NAME][2] = 0;
	free(r[2].name);
	r[2].name = strdup("");
	same_as(&t, &s, r, n);
	table_free(&t);
	compile_ranges_free(r, n);
}

static void
t_garbage(void)
{
	static const uint8_t junk[] = "Start (ns),End (ns)\n1,2\n";
	struct compile_range *r = NULL;
	size_t n = 0;

	CHECK_INT(compile_parse_parquet(junk, sizeof(junk) - 1, &r, &n), -1);
	CHECK(strstr(err_msg(), "not a parquet file") != NULL);
	CHECK_INT(compile_parse_parquet(junk, 0, &r, &n), -1);
}

/* ---- the real proc0 trace --------------------------------------------- */

/* Programs below 100 "have dumps": fingerprint "fp<id>:<name>". */
static const char *
test_fp(void *ctx, int64_t id, const char *name)
{
	static char buf[128];

	(void)ctx;
	if (id >= 100)
		return NULL;
	snprintf(buf, sizeof(buf), "fp%" PRId64 ":%s", id, name);
	return buf;
}

static int
same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int
same_row(const struct compile_row *a, const struct compile_row *b)
{
	return a->profile == b->profile && a->range_id == b->range_id &&
	    strcmp(a->name, b->name) == 0 && a->tid == b->tid &&
	    a->num_child == b->num_child && a->parent_id == b->parent_id &&
	    strcmp(a->range_stack, b->range_stack) == 0 &&
	    a->start == b->start && a->dur == b->dur &&
	    a->child_nan == b->child_nan && (a->child_nan ||
	    (a->dur_child == b->dur_child &&
	    a->dur_nonchild == b->dur_nonchild)) &&
	    a->program == b->program &&
	    same_str(a->program_id, b->program_id) &&
	    same_str(a->program_name, b->program_name);
}

/* F as TSV, in a new buffer. */
static char *
frame_tsv(const struct compile_frame *f, size_t *len)
{
	struct tsv_writer *w;
	char *buf = NULL;
	FILE *fp;

	if ((fp = open_memstream(&buf, len)) == NULL)
		abort();
	w = tsv_wopen(fp, "mem");
	CHECK_INT(compile_write(w, f), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	return buf;
}

/* The compile frames of A and B, with and without COMPILE_CLEAN, agree. */
static void
same_frames(const struct compile_range *a, size_t na,
    const struct compile_range *b, size_t nb)
{
	struct compile_frame fa, fb;
	char *ta, *tb;
	size_t i, la, lb, bad = 0;
	int clean;

	for (clean = 0; clean <= COMPILE_CLEAN; clean += COMPILE_CLEAN) {
		memset(&fa, 0, sizeof(fa));
		memset(&fb, 0, sizeof(fb));
		CHECK_INT(compile_add_profile(&fa, "proc0", a, na, test_fp,
		    NULL, clean), 0);
		CHECK_INT(compile_add_profile(&fb, "proc0", b, nb, test_fp,
		    NULL, clean), 0);
		CHECK(fa.nrows > 100);
		CHECK_INT(fb.nrows, fa.nrows);
		for (i = 0; i < fa.nrows && i < fb.nrows; i++)
			bad += !same_row(&fa.rows[i], &fb.rows[i]);
		CHECK_INT(bad, 0);
		ta = frame_tsv(&fa, &la);
		tb = frame_tsv(&fb, &lb);
		CHECK(la == lb && memcmp(ta, tb, la) == 0);
		free(ta);
		free(tb);
		compile_free(&fa);
		compile_free(&fb);
	}
}

/* Write the CSV's ranges as S says, read them back, compare. */
static void
real_variant(const struct table *t, const struct spec *s,
    const struct compile_range *r, size_t n)
{
	struct compile_range *q;
	size_t nq;

	if (parse(t, s, &q, &nq) != 0) {
		fprintf(stderr, "proc0 as parquet: %s\n", err_msg());
		CHECK(0);
		return;
	}
	CHECK_INT(nq, n);
	if (nq == n)
		CHECK_INT(diff_ranges(q, r, n), 0);
	same_frames(r, n, q, nq);
	compile_ranges_free(q, nq);
}

static void
real_variants(struct compile_range *r, size_t n)
{
	struct table t;
	struct spec s;

	table_make(&t, r, n);
	spec_init(&s);
	real_variant(&t, &s, r, n);		/* pandas, suffixed */
	s.bare = 1;
	s.index = 1;
	real_variant(&t, &s, r, n);		/* bare, with an index */
	spec_init(&s);
	s.parent = T_INT64;
	s.dict = 1;
	s.o.codec = C_SNAPPY;
	s.o.group_rows = 4000;
	s.o.page_rows = 1000;
	real_variant(&t, &s, r, n);		/* dictionary, snappy */
	spec_init(&s);
	s.stacklist = 1;
	s.o.v2 = 1;
	s.o.codec = C_ZSTD;
	real_variant(&t, &s, r, n);		/* list stack, v2, zstd */
	table_free(&t);
}

static void
t_real(void)
{
	struct compile_range *r = NULL;
	struct archive *a;
	uint8_t *csv;
	size_t len, n = 0;

	if (access(DATA, R_OK) != 0) {
		printf("pushpop: %s not found, real-data checks: 1 skipped\n",
		    DATA);
		return;
	}
	if ((a = archive_open(DATA)) == NULL ||
	    archive_read_plain(a, "report_nvtx_pushpop_trace.csv.xz", &csv,
	    &len) != 0) {
		fprintf(stderr, "%s: %s\n", DATA, err_msg());
		CHECK(0);
		archive_close(a);
		return;
	}
	CHECK_INT(compile_parse_csv((const char *)csv, len, &r, &n), 0);
	CHECK(n > 20000);
	real_variants(r, n);
	compile_ranges_free(r, n);
	free(csv);
	archive_close(a);
}

int
main(void)
{
	t_spellings();
	t_derive();
	t_empty();
	t_missing();
	t_types();
	t_nulls();
	t_garbage();
	t_real();
	ZSTD_freeCCtx(zcctx);
	return unit_done("pushpop");
}
