/*
 * Tests of lib/parquet and lib/thrift:
 *  - the Thrift compact decoder and the RLE/bit-packed hybrid decoder on
 *    hand-built bytes (every type, zigzag, long forms, truncation, depth);
 *  - files made by the small Parquet writer of pqwrite.h, with the
 *    features the real data lacks (data page v2, gzip/zstd, nulls, lists,
 *    dictionary pages, several row groups and pages), read back exactly;
 *  - corrupt and unsupported input, each refused with its message, and
 *    every one-byte mutation of small files read without a crash;
 *  - when ../shared/data exists, facts of real nsys files, checked
 *    against values read independently with hyparquet.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "formats/archive.h"
#include "base/err.h"
#include "formats/parquet.h"
#include "formats/pqrle.h"
#include "pqwrite.h"
#include "formats/thrift.h"
#include "unit.h"

/* FAILED is true and the err message contains WANT. */
#define CHECK_FAIL(failed, want) do { \
	int f_ = (failed); \
	const char *m_ = err_msg(), *w_ = (want); \
	if (f_ && strstr(m_, w_)) unit_pass++; \
	else { unit_fail++; fprintf(stderr, "%s:%d: want failure with '%s'," \
	    " got %s: '%s'\n", __FILE__, __LINE__, w_, \
	    f_ ? "failure" : "success", m_); } \
} while (0)

static void
clear_err(void)
{
	err_fail("%s", "");
}

/* ---- Thrift decoder ---- */

static void
thrift_fields(void)
{
	struct buf b = { 0 };
	struct thrift t;
	const uint8_t *s;
	uint8_t *p;
	size_t n;
	int last = 0, id, et, l2 = 0;

	sample_struct(&b);
	p = bytesdup(b.p, b.n);
	thrift_init(&t, p, b.n);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_I32);
	CHECK_INT(id, 1);
	CHECK_INT(thrift_i32(&t), -1);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_I64);
	CHECK_INT(thrift_i64(&t), 150);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_TRUE);
	CHECK_INT(id, 3);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_FALSE);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_BINARY);
	CHECK_INT(id, 20);
	s = thrift_binary(&t, &n);
	CHECK(n == 3 && s && memcmp(s, "abc", 3) == 0);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_LIST);
	CHECK_INT(id, 21);
	CHECK_INT(thrift_list(&t, &et), 3);
	CHECK_INT(et, THRIFT_I32);
	CHECK_INT(thrift_i32(&t), 1);
	CHECK_INT(thrift_i32(&t), -2);
	CHECK_INT(thrift_i32(&t), 3);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_DOUBLE);
	thrift_skip(&t, THRIFT_DOUBLE);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_MAP);
	thrift_skip(&t, THRIFT_MAP);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_STRUCT);
	CHECK_INT(id, 24);
	CHECK_INT(thrift_field(&t, &l2, &id), THRIFT_BYTE);
	thrift_skip(&t, THRIFT_BYTE);
	CHECK_INT(thrift_field(&t, &l2, &id), THRIFT_I64);
	CHECK(thrift_i64(&t) == INT64_MIN);
	CHECK_INT(thrift_field(&t, &l2, &id), THRIFT_I64);
	CHECK(thrift_i64(&t) == INT64_MAX);
	CHECK_INT(thrift_field(&t, &l2, &id), THRIFT_STOP);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_SET);
	thrift_skip(&t, THRIFT_SET);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_LIST);
	CHECK_INT(thrift_list(&t, &et), 20);
	for (n = 0; n < 20; n++)
		thrift_skip_elem(&t, et);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_I16);
	CHECK_INT(id, 10);
	CHECK_INT(thrift_i32(&t), -300);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_MAP);
	thrift_skip(&t, THRIFT_MAP);
	CHECK_INT(thrift_field(&t, &last, &id), THRIFT_STOP);
	CHECK(!t.bad && t.p == p + b.n);

	/* Skipping the whole struct consumes exactly its bytes. */
	thrift_init(&t, p, b.n);
	thrift_skip(&t, THRIFT_STRUCT);
	CHECK(!t.bad && t.p == p + b.n);
	free(p);

	/* Every truncation fails cleanly, never reading past the end. */
	for (n = 0; n < b.n; n++) {
		p = bytesdup(b.p, n);
		thrift_init(&t, p, n);
		thrift_skip(&t, THRIFT_STRUCT);
		CHECK(t.bad);
		free(p);
	}
	free(b.p);
}

/* Decode BYTES as one value of TYPE with thrift_skip: the failure text. */
static const char *
skip_fails(const uint8_t *bytes, size_t n, int type)
{
	struct thrift t;
	uint8_t *p = bytesdup(bytes, n);

	clear_err();
	thrift_init(&t, p, n);
	thrift_skip(&t, type);
	free(p);
	return t.bad ? err_msg() : NULL;
}

static void
thrift_bad(void)
{
	static const uint8_t longvar[] = { 0x16, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0 };
	static const uint8_t var10[] = { 0x16, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0x02, 0 };
	static const uint8_t bigid[] = { 0x05, 0x80, 0xf1, 0x04, 0x00, 0 };
	static const uint8_t badtype[] = { 0x1d, 0 };
	static const uint8_t biglist[] = { 0x19, 0xf5, 0xff, 0xff, 0x03, 0 };
	static const uint8_t bigmap[] = { 0x1b, 0x0a, 0x55, 0, 0, 0 };
	static const uint8_t badelem[] = { 0x19, 0x1d, 0, 0 };
	static const uint8_t strlen_[] = { 0x18, 0x05, 'a', 'b', 0 };
	uint8_t deep[2 * THRIFT_MAX_DEPTH + 10];
	struct thrift t;
	const char *m;
	size_t i;
	int last = 0, id;

	CHECK((m = skip_fails(longvar, sizeof(longvar), THRIFT_STRUCT)) &&
	    strstr(m, "varint too long"));
	CHECK((m = skip_fails(var10, sizeof(var10), THRIFT_STRUCT)) &&
	    strstr(m, "varint too long"));
	CHECK((m = skip_fails(bigid, sizeof(bigid), THRIFT_STRUCT)) &&
	    strstr(m, "field id out of range"));
	CHECK((m = skip_fails(badtype, sizeof(badtype), THRIFT_STRUCT)) &&
	    strstr(m, "bad thrift type 13"));
	CHECK((m = skip_fails(biglist, sizeof(biglist), THRIFT_STRUCT)) &&
	    strstr(m, "exceeds its data"));
	CHECK((m = skip_fails(bigmap, sizeof(bigmap), THRIFT_STRUCT)) &&
	    strstr(m, "exceeds its data"));
	CHECK((m = skip_fails(badelem, sizeof(badelem), THRIFT_STRUCT)) &&
	    strstr(m, "element type"));
	CHECK((m = skip_fails(strlen_, sizeof(strlen_), THRIFT_STRUCT)) &&
	    strstr(m, "truncated"));
	CHECK(skip_fails(NULL, 0, THRIFT_STRUCT) != NULL);
	CHECK(skip_fails(NULL, 0, 0) != NULL);

	/* Structs nested deeper than the limit. */
	for (i = 0; i < sizeof(deep) / 2; i++) {
		deep[i] = 0x1c;
		deep[sizeof(deep) - 1 - i] = 0;
	}
	CHECK((m = skip_fails(deep, sizeof(deep), THRIFT_STRUCT)) &&
	    strstr(m, "nested deeper"));
	/* Within it, fine. */
	CHECK(skip_fails(deep + sizeof(deep) / 2 - 20, 41, THRIFT_STRUCT) ==
	    NULL);

	/* i32 range, and reads after an error return zero. */
	{
		static const uint8_t big[] = { 0x80, 0x80, 0x80, 0x80, 0x10 };

		thrift_init(&t, big, sizeof(big));
		CHECK_INT(thrift_i32(&t), 0);
		CHECK(t.bad && strstr(err_msg(), "out of range"));
		CHECK_INT(thrift_i64(&t), 0);
		CHECK_INT(thrift_field(&t, &last, &id), THRIFT_STOP);
		thrift_init(&t, big, sizeof(big));
		CHECK(thrift_i64(&t) == 1LL << 31);
		CHECK(!t.bad);
	}
}

/* ---- RLE / bit-packed hybrid ---- */

static uint64_t rng = 88172645463325252ULL;

static uint64_t
rnd(void)
{
	return unit_rand(&rng);
}

/* Round trip N values of width BW through rle_encode and the decoder. */
static int
rle_roundtrip(int bw, size_t n)
{
	uint32_t *v = malloc(n * sizeof(*v) + 4), *out = malloc(n * 4 + 4);
	uint64_t mask = ((uint64_t)1 << bw) - 1;
	struct buf b = { 0 };
	uint8_t *p;
	size_t i, r;
	int ok;

	for (i = 0; i < n; i += r) {
		uint32_t x = (uint32_t)(rnd() & mask);

		/* Mix long runs and noise. */
		r = rnd() % 4 == 0 ? 1 + rnd() % 40 : 1;
		for (; r > 0 && i < n; r--)
			v[i++] = x;
		r = 0;
	}
	rle_encode(&b, v, n, bw, 1 + (int)(rnd() % 64));
	p = bytesdup(b.p, b.n);
	ok = pqrle_decode(p, b.n, bw, out, n) == 0 &&
	    memcmp(out, v, n * sizeof(*v)) == 0 &&
	    pqrle_decode(p, b.n, bw, NULL, n) == 0;
	/* A prefix of the values decodes from the same bytes. */
	if (n > 3)
		ok = ok && pqrle_decode(p, b.n, bw, out, n - 3) == 0 &&
		    memcmp(out, v, (n - 3) * sizeof(*v)) == 0;
	free(p);
	free(b.p);
	free(v);
	free(out);
	return ok;
}

/* Hand-made runs: the example of Encodings.md, RLE runs, widths. */
static void
rle(void)
{
	static const uint8_t spec[] = { 0x03, 0x88, 0xc6, 0xfa };
	static const uint8_t run[] = { 0x10, 0x05 };
	static const uint8_t run32[] = { 0x06, 0xff, 0xff, 0xff, 0xff };
	uint32_t out[64];
	uint8_t *p;
	int ok, i;

	/* The example of Encodings.md: 0..7 in 3 bits. */
	p = bytesdup(spec, sizeof(spec));
	CHECK_INT(pqrle_decode(p, sizeof(spec), 3, out, 8), 0);
	for (ok = 1, i = 0; i < 8; i++)
		ok &= out[i] == (uint32_t)i;
	CHECK(ok);
	/* Fewer values than the group holds. */
	CHECK_INT(pqrle_decode(p, sizeof(spec), 3, out, 5), 0);
	CHECK_INT(out[4], 4);
	/* More than the data holds. */
	CHECK_FAIL(pqrle_decode(p, sizeof(spec), 3, out, 9) < 0,
	    "truncated RLE run header");
	CHECK_FAIL(pqrle_decode(p, 3, 3, out, 8) < 0,
	    "truncated bit-packed run");
	/* The values present in a cut final group still decode. */
	CHECK_INT(pqrle_decode(p, 3, 3, out, 5), 0);
	CHECK_INT(out[4], 4);
	free(p);

	p = bytesdup(run, sizeof(run));
	CHECK_INT(pqrle_decode(p, sizeof(run), 3, out, 8), 0);
	CHECK(out[0] == 5 && out[7] == 5);
	/* A run longer than needed. */
	CHECK_INT(pqrle_decode(p, sizeof(run), 3, out, 2), 0);
	CHECK_FAIL(pqrle_decode(p, sizeof(run), 3, out, 9) < 0,
	    "truncated RLE run header");
	CHECK_FAIL(pqrle_decode(p, 1, 3, out, 1) < 0, "truncated RLE run");
	/* Values are not masked: callers range-check. */
	CHECK_INT(pqrle_decode(p, sizeof(run), 1, out, 8), 0);
	CHECK_INT(out[0], 5);
	free(p);

	p = bytesdup(run32, sizeof(run32));
	CHECK_INT(pqrle_decode(p, sizeof(run32), 32, out, 3), 0);
	CHECK(out[0] == 0xffffffffu && out[2] == 0xffffffffu);
	CHECK_FAIL(pqrle_decode(p, 4, 32, out, 3) < 0, "truncated RLE run");
	free(p);

}

/* Odd runs: empty ones, width 0, cut groups, over-long headers. */
static void
rle_odd(void)
{
	static const uint8_t run[] = { 0x10, 0x05 };
	static const uint8_t zeroruns[] = { 0x00, 0x00, 0x01, 0x01, 0x04, 0x09 };
	static const uint8_t ones[] = { 0x01, 0x01, 0x01, 0x01 };
	static const uint8_t bw0[] = { 0x03 };
	static const uint8_t shortpack[] = { 0x05, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const uint8_t overflow[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	uint32_t out[64];
	uint8_t *p;

	/* Empty runs are skipped; width 0 reads no value bytes. */
	p = bytesdup(zeroruns, sizeof(zeroruns));
	CHECK_INT(pqrle_decode(p, sizeof(zeroruns), 8, out, 2), 0);
	CHECK(out[0] == 9 && out[1] == 9);
	free(p);
	p = bytesdup(ones, sizeof(ones));
	CHECK_FAIL(pqrle_decode(p, sizeof(ones), 8, out, 1) < 0,
	    "truncated RLE run header");
	free(p);
	p = bytesdup(bw0, sizeof(bw0));
	out[0] = out[7] = 1;
	CHECK_INT(pqrle_decode(p, 1, 0, out, 8), 0);
	CHECK(out[0] == 0 && out[7] == 0);
	CHECK_FAIL(pqrle_decode(p, 1, 0, out, 9) < 0,
	    "truncated RLE run header");
	free(p);

	/* A two-group run whose second group is cut after one value. */
	p = bytesdup(shortpack, sizeof(shortpack));
	CHECK_INT(pqrle_decode(p, sizeof(shortpack), 8, out, 9), 0);
	CHECK(out[0] == 1 && out[8] == 9);
	CHECK_FAIL(pqrle_decode(p, sizeof(shortpack), 8, out, 10) < 0,
	    "truncated bit-packed run");
	free(p);

	p = bytesdup(overflow, sizeof(overflow));
	CHECK_FAIL(pqrle_decode(p, sizeof(overflow), 1, out, 1) < 0,
	    "truncated RLE run header");
	free(p);
	CHECK_FAIL(pqrle_decode(NULL, 0, 1, out, 1) < 0, "truncated");
	CHECK_INT(pqrle_decode(NULL, 0, 1, out, 0), 0);
	CHECK_FAIL(pqrle_decode(run, 2, 33, out, 1) < 0, "bit width 33");
	CHECK_FAIL(pqrle_decode(run, 2, -1, out, 1) < 0, "bit width -1");
}

/* Every width, several lengths, through our encoder. */
static void
rle_widths(void)
{
	int bw, ok;

	for (bw = 0, ok = 1; bw <= 32; bw++) {
		ok &= rle_roundtrip(bw, 1);
		ok &= rle_roundtrip(bw, 8);
		ok &= rle_roundtrip(bw, 13);
		ok &= rle_roundtrip(bw, 1000);
		if (!ok) {
			fprintf(stderr, "rle round trip fails at width %d\n",
			    bw);
			break;
		}
	}
	CHECK(ok);
}

/* ---- reading back ---- */

/* Whether column C of F reads back as the data WC was written from. */
static int
same(const struct pq_column *c, const struct wcol *wc, size_t nrows)
{
	size_t i;
	int64_t j, k;

	if (c->n != (int64_t)nrows)
		return 0;
	for (i = 0; i < nrows; i++) {
		int ok = wc->valid == NULL || wc->valid[i];

		if (c->valid[i] != ok)
			return 0;
		if (wc->shape != FLAT) {
			j = ok ? wc->off[i] : 0;
			k = ok ? wc->off[i + 1] : 0;
			if (c->list_off[i + 1] - c->list_off[i] != k - j)
				return 0;
			for (; j < k; j++) {
				int64_t at = c->list_off[i] + j -
				    (ok ? wc->off[i] : 0);
				int eok = wc->evalid == NULL || wc->evalid[j];

				if (c->list_valid[at] != eok ||
				    c->list_val[at] != (eok ? wc->i64[j] : 0))
					return 0;
			}
			continue;
		}
		switch (wc->type) {
		case T_BOOLEAN:
		case T_INT32:
		case T_INT64:
			if (c->i64[i] != (ok ? wc->i64[i] : 0))
				return 0;
			break;
		case T_FLOAT:
		case T_DOUBLE:
			if (ok ? memcmp(&c->f64[i], &wc->f64[i], 8) != 0 :
			    c->f64[i] == c->f64[i])
				return 0;
			break;
		case T_BYTE_ARRAY:
			if (!ok && (c->len[i] != 0 || *c->str[i] != '\0'))
				return 0;
			if (ok && (c->len[i] != wc->slen[i] ||
			    memcmp(c->str[i], wc->str[i], c->len[i]) != 0 ||
			    c->str[i][c->len[i]] != '\0'))
				return 0;
			break;
		}
	}
	return 1;
}

static int
kindof(const struct wcol *c)
{
	if (c->shape != FLAT)
		return PQ_LIST_INT64;
	switch (c->type) {
	case T_BOOLEAN:
		return PQ_BOOL;
	case T_INT32:
	case T_INT64:
		return PQ_INT64;
	case T_FLOAT:
	case T_DOUBLE:
		return PQ_DOUBLE;
	}
	return PQ_STRING;
}

/* Write, reopen and compare every column; returns how many differ. */
static int
roundtrip(const struct wcol *c, size_t ncols, size_t nrows,
    const struct wopt *o)
{
	struct pq_column col;
	struct pq_file *f;
	uint8_t *p;
	size_t len, i;
	int bad = 0;

	p = pqwrite(c, ncols, nrows, o, &len);
	if ((f = pq_open(p, len)) == NULL) {
		fprintf(stderr, "roundtrip: open: %s\n", err_msg());
		free(p);
		return (int)ncols;
	}
	if (pq_nrows(f) != (int64_t)nrows || pq_ncolumns(f) != ncols)
		bad++;
	for (i = 0; i < ncols; i++) {
		if (pq_column_index(f, c[i].name) != (long)i ||
		    pq_column_kind(f, i) != kindof(&c[i])) {
			bad++;
			continue;
		}
		if (pq_read_column(f, i, &col) < 0) {
			fprintf(stderr, "roundtrip: %s\n", err_msg());
			bad++;
			continue;
		}
		if ((int)col.kind != kindof(&c[i]) || !same(&col, &c[i], nrows)) {
			fprintf(stderr, "roundtrip: column '%s' differs "
			    "(codec %d, v2 %d, groups of %zu, pages of %zu)\n",
			    c[i].name, o->codec, o->v2, o->group_rows,
			    o->page_rows);
			bad++;
		}
		pq_column_free(&col);
	}
	pq_close(f);
	free(p);
	return bad;
}

/* ---- test data ---- */

#define NROWS 300
#define NELEMS (NROWS * 6)

static uint8_t valid[NROWS], evalid[NELEMS];
static int64_t bools[NROWS], i32s[NROWS], i64s[NROWS], elems[NELEMS];
static int64_t offs[NROWS + 1];
static double f32s[NROWS], f64s[NROWS];
static const char *strs[NROWS];
static size_t slens[NROWS];
static char longstr[3000];

static void
mkdata(void)
{
	static const int64_t wide[] = { INT64_MIN, INT64_MAX, -1, 0, 1,
	    1LL << 40 };
	static const char *pool[] = { "", "NCCL:ncclGroupEnd", "a\tb\nc",
	    "\xff\xfe bytes", "TSL:Thunk:#hlo_op=fusion.1#" };
	static const size_t plen[] = { 0, 17, 5, 8, 27 };
	static const double dpool[] = { 0.0, -0.0, 1.5, 1e300, -2.25e-300,
	    INFINITY };
	size_t i, j, e = 0;
	uint64_t nan = 0x7ff8000000000123ULL;

	memset(longstr, 'x', sizeof(longstr));
	for (i = 0; i < NROWS; i++) {
		valid[i] = rnd() % 5 != 0;
		bools[i] = (int64_t)(rnd() & 1);
		i32s[i] = rnd() % 3 ? (int32_t)(rnd() % 100) - 50 :
		    (rnd() & 1 ? INT32_MIN : INT32_MAX);
		i64s[i] = rnd() % 4 ? wide[rnd() % 6] :
		    (int64_t)(rnd() % 20);
		f32s[i] = (float)((double)(rnd() % 1000) / 7.0);
		f64s[i] = dpool[rnd() % 6];
		if (i == 7)
			memcpy(&f64s[i], &nan, 8);
		j = rnd() % 7;
		if (j < 5) {
			strs[i] = pool[j];
			slens[i] = plen[j];
		} else if (j == 5) {
			strs[i] = "a\0b";	/* an embedded NUL */
			slens[i] = 3;
		} else {
			strs[i] = longstr;
			slens[i] = rnd() % sizeof(longstr);
		}
		offs[i] = (int64_t)e;
		for (j = rnd() % 6; j > 0; j--, e++) {
			elems[e] = rnd() % 3 ? (int64_t)(rnd() % 10) :
			    (int32_t)rnd();
			evalid[e] = rnd() % 6 != 0;
		}
	}
	offs[NROWS] = (int64_t)e;
}

/* The columns of the round-trip files, encoded with ENC where it applies. */
static size_t
mkcols(struct wcol *c, int enc, int v2)
{
	int ienc = enc == E_DICT && !v2 ? E_PDICT : enc;
	const struct wcol t[] = {
		{ .name = "bool", .type = T_BOOLEAN, .opt = 1, .valid = valid,
		    .i64 = bools, .enc = enc == E_DICT ? E_RLE : E_PLAIN },
		{ .name = "i32", .type = T_INT32, .i64 = i32s, .enc = ienc },
		{ .name = "Projected Start", .type = T_INT64, .opt = 1,
		    .valid = valid, .i64 = i64s, .enc = ienc },
		{ .name = "float", .type = T_FLOAT, .opt = 1, .valid = valid,
		    .f64 = f32s, .enc = ienc },
		{ .name = "double", .type = T_DOUBLE, .f64 = f64s, .enc = ienc },
		{ .name = "Name", .type = T_BYTE_ARRAY, .opt = 1, .valid = valid,
		    .str = strs, .slen = slens, .enc = ienc },
		{ .name = "Range Stack", .type = T_INT64, .shape = LIST3,
		    .opt = 1, .elemopt = 1, .valid = valid, .i64 = elems,
		    .off = offs, .evalid = evalid, .enc = ienc },
		{ .name = "list3req", .type = T_INT32, .shape = LIST3,
		    .i64 = elems, .off = offs, .enc = ienc },
		{ .name = "list2", .type = T_INT64, .shape = LIST2, .opt = 1,
		    .valid = valid, .i64 = elems, .off = offs, .enc = ienc },
		{ .name = "repeated", .type = T_INT64, .shape = REPEATED,
		    .i64 = elems, .off = offs, .enc = ienc },
	};

	memcpy(c, t, sizeof(t));
	return sizeof(t) / sizeof(t[0]);
}

static void
roundtrips(void)
{
	static const int codecs[] = { C_NONE, C_SNAPPY, C_GZIP, C_ZSTD };
	static const size_t sizes[][2] = { { 1000, 1000 }, { 128, 50 },
	    { 7, 3 } };
	struct wcol c[16];
	struct wopt o = plainopt;
	size_t n, ci, si;
	int enc, bad = 0, files = 0;

	for (o.v2 = 0; o.v2 <= 1; o.v2++)
		for (ci = 0; ci < 4; ci++)
			for (enc = 0; enc <= 1; enc++)
				for (si = 0; si < 3; si++) {
					o.codec = codecs[ci];
					o.group_rows = sizes[si][0];
					o.page_rows = sizes[si][1];
					n = mkcols(c, enc ? E_DICT : E_PLAIN,
					    o.v2);
					bad += roundtrip(c, n, NROWS, &o);
					files++;
				}
	CHECK_INT(bad, 0);
	CHECK_INT(files, 48);

	/* No rows at all; one row; every row null; one dictionary entry. */
	for (bad = 0, ci = 0; ci < 4; ci++) {
		o = plainopt;
		o.codec = codecs[ci];
		for (o.v2 = 0; o.v2 <= 1; o.v2++) {
			n = mkcols(c, E_DICT, o.v2);
			bad += roundtrip(c, n, 0, &o);
			bad += roundtrip(c, n, 1, &o);
		}
	}
	CHECK_INT(bad, 0);
	n = mkcols(c, E_DICT, 0);
	o = plainopt;
	{
		static const uint8_t none[NROWS];
		static int64_t same_[NROWS];
		size_t i;

		for (i = 0; i < n; i++)
			if (c[i].valid)
				c[i].valid = none;
		CHECK_INT(roundtrip(c, n, NROWS, &o), 0);
		c[2].i64 = same_;	/* width-0 dictionary indices */
		c[2].valid = NULL;
		CHECK_INT(roundtrip(c, n, NROWS, &o), 0);
		o.v2 = 1;
		CHECK_INT(roundtrip(c, n, NROWS, &o), 0);
	}
}

/* ---- refusals ---- */

/* The budget readback sets (pq_set_budget), 0: none. */
static size_t rb_budget;

/* Write C (one column, NROWS rows) as O says; read it: the result. */
static int
readback(const struct wcol *c, const struct wopt *o, size_t nrows)
{
	struct pq_column col;
	struct pq_file *f;
	uint8_t *p;
	size_t len;
	int rc;

	p = pqwrite(c, 1, nrows, o, &len);
	clear_err();
	if ((f = pq_open(p, len)) == NULL) {
		free(p);
		return -1;
	}
	pq_set_budget(f, rb_budget);
	rc = pq_read_column(f, 0, &col);
	if (rc == 0)
		pq_column_free(&col);
	CHECK(col.valid == NULL && col.n == 0);	/* zeroed, on failure too */
	pq_close(f);
	free(p);
	return rc;
}

static void
refusals(void)
{
	struct wcol c[16], x;
	struct wopt o = plainopt;
	struct pq_file *f;
	uint8_t *p;
	size_t len;

	mkcols(c, E_PLAIN, 0);
	x = c[2];		/* optional INT64 "Projected Start" */

	x.enc = E_DELTA;
	CHECK_FAIL(readback(&x, &o, 20) < 0, "column 'Projected Start': "
	    "unsupported encoding DELTA_BINARY_PACKED");
	x.enc = E_BSS;
	CHECK_FAIL(readback(&x, &o, 20) < 0,
	    "unsupported encoding BYTE_STREAM_SPLIT");
	x.enc = 77;
	CHECK_FAIL(readback(&x, &o, 20) < 0, "unsupported encoding #77");
	x.enc = E_RLE;		/* RLE only for booleans */
	CHECK_FAIL(readback(&x, &o, 20) < 0, "unsupported encoding RLE");
	x.enc = E_PLAIN;
	o.declared = C_LZ4;
	CHECK_FAIL(readback(&x, &o, 20) < 0,
	    "column 'Projected Start': unsupported codec LZ4");
	o.declared = 4;
	CHECK_FAIL(readback(&x, &o, 20) < 0, "unsupported codec BROTLI");
	o = plainopt;
	o.levelenc = E_BITPACKED;
	CHECK_FAIL(readback(&x, &o, 20) < 0,
	    "unsupported level encoding BIT_PACKED");
	o = plainopt;
	o.external = 1;
	CHECK_FAIL(readback(&x, &o, 20) < 0, "column data in another file");

	/* Types and shapes we do not read: refused by name. */
	o = plainopt;
	x.type = T_INT96;
	CHECK_FAIL(readback(&x, &o, 5) < 0,
	    "column 'Projected Start': unsupported type INT96");
	x.type = T_FLBA;
	CHECK_FAIL(readback(&x, &o, 5) < 0,
	    "unsupported type FIXED_LEN_BYTE_ARRAY");
	x.type = T_INT64;
	x.shape = STRUCT;
	CHECK_FAIL(readback(&x, &o, 5) < 0, "unsupported nested column");
	x = c[5];
	x.shape = LIST3;
	x.off = offs;
	CHECK_FAIL(readback(&x, &o, 5) < 0, "unsupported list of BYTE_ARRAY");
	x.shape = REPEATED;
	CHECK_FAIL(readback(&x, &o, 5) < 0, "unsupported list of BYTE_ARRAY");

	/* pq_column_kind says so before any reading. */
	x = c[2];
	x.type = T_INT96;
	p = pqwrite(&x, 1, 5, &o, &len);
	f = pq_open(p, len);
	CHECK(f != NULL);
	if (f) {
		CHECK_FAIL(pq_column_kind(f, 0) < 0, "unsupported type INT96");
		CHECK_FAIL(pq_column_kind(f, 1) < 0, "column 1 does not exist");
		CHECK(pq_column_name(f, 1) == NULL);
		CHECK_INT(pq_column_index(f, "nope"), -1);
		pq_close(f);
	}
	free(p);
}

/* ---- corrupt input ---- */

static struct pq_file *
open_bytes(const void *s, size_t n)
{
	uint8_t *p = bytesdup(s, n);
	struct pq_file *f;

	clear_err();
	f = pq_open(p, n);
	pq_close(f);
	free(p);
	return f;
}

static void
corrupt_footer(void)
{
	struct buf b = { 0 };
	struct wcol c[16];
	struct wopt o = plainopt;
	uint8_t *p;
	size_t len;

	CHECK_FAIL(open_bytes("", 0) == NULL, "not a parquet file (bad magic)");
	CHECK_FAIL(open_bytes("PK\3\4xxxxxxxxxxxx", 16) == NULL,
	    "not a parquet file (bad magic)");
	CHECK_FAIL(open_bytes("PAR1", 4) == NULL, "truncated footer");
	CHECK_FAIL(open_bytes("PAR1PAR1", 8) == NULL, "truncated footer");
	CHECK_FAIL(open_bytes("PAR1\0\0\0\0PAR1", 12) == NULL,
	    "corrupt footer");
	CHECK_FAIL(open_bytes("PAR1\1\0\0\0PAR1", 12) == NULL,
	    "truncated footer");
	CHECK_FAIL(open_bytes("PAR1xxxxxxxxxxxxxxxxxxxx", 24) == NULL,
	    "truncated footer (no closing magic)");
	CHECK_FAIL(open_bytes("PARExxxx\4\0\0\0PARE", 16) == NULL,
	    "encrypted parquet files are not supported");
	/* Footer length past the start of the file. */
	CHECK_FAIL(open_bytes("PAR1xxxx\xff\xff\xff\xffPAR1", 16) == NULL,
	    "truncated footer");

	/* A footer of garbage. */
	put(&b, "PAR1", 4);
	put(&b, "\x19\xfc\xff\xff\xff\x0f", 6);
	put32(&b, 6);
	put(&b, "PAR1", 4);
	CHECK_FAIL(open_bytes(b.p, b.n) == NULL, "corrupt footer: ");
	free(b.p);

	/* A footer with no schema, and one with a bad schema tree. */
	memset(&b, 0, sizeof(b));
	put(&b, "PAR1", 4);
	put(&b, "\x36\x04\x00", 3);		/* num_rows = 2 */
	put32(&b, 3);
	put(&b, "PAR1", 4);
	CHECK_FAIL(open_bytes(b.p, b.n) == NULL, "corrupt footer: no schema");
	free(b.p);
	memset(&b, 0, sizeof(b));
	{
		int last = 0, l2 = 0;
		size_t foot;

		put(&b, "PAR1", 4);
		foot = b.n;
		tf(&b, &last, 2, THRIFT_LIST);
		tlist(&b, THRIFT_STRUCT, 1);
		tstr(&b, &l2, 4, "schema");
		ti32(&b, &l2, 5, 3);		/* 3 children, none there */
		put8(&b, 0);
		ti64(&b, &last, 3, 0);
		put8(&b, 0);
		put32(&b, (uint32_t)(b.n - foot));
		put(&b, "PAR1", 4);
	}
	CHECK_FAIL(open_bytes(b.p, b.n) == NULL,
	    "corrupt footer: bad schema root");
	free(b.p);

	/* The writer's files with one thing wrong in the footer. */
	mkcols(c, E_PLAIN, 0);
	o.rowbias = 1;
	p = pqwrite(c, 3, 20, &o, &len);
	CHECK_FAIL(open_bytes(p, len) == NULL,
	    "corrupt footer: row groups hold 20 rows, file says 21");
	free(p);
	o.rowbias = -1000;
	p = pqwrite(c, 3, 20, &o, &len);
	CHECK_FAIL(open_bytes(p, len) == NULL, "corrupt footer: bad row count");
	free(p);
	o = plainopt;
	o.deepkv = 1;
	p = pqwrite(c, 3, 20, &o, &len);
	CHECK_FAIL(open_bytes(p, len) == NULL,
	    "corrupt footer: thrift data nested deeper than 64");
	free(p);
}

static void
corrupt_pages(void)
{
	struct wcol c[16], x;
	struct wopt o = plainopt;
	struct pq_column col;
	struct pq_file *f;
	uint8_t *p;
	size_t len;

	mkcols(c, E_PLAIN, 0);
	x = c[2];
	x.enc = E_DICT;
	o.idxbias = 50;
	CHECK_FAIL(readback(&x, &o, 30) < 0, "out of range");
	o = plainopt;
	o.baddef = 1;
	CHECK_FAIL(readback(&x, &o, 30) < 0,
	    "definition level 2 above maximum 1");
	x = c[6];		/* list */
	CHECK_FAIL(readback(&x, &o, 30) < 0, "above maximum 3");
	o = plainopt;
	o.codec = C_SNAPPY;
	o.usizebias = 1;
	CHECK_FAIL(readback(&c[2], &o, 30) < 0, "corrupt snappy data");
	o.codec = C_GZIP;
	CHECK_FAIL(readback(&c[2], &o, 30) < 0, "corrupt gzip data");
	o.codec = C_ZSTD;
	CHECK_FAIL(readback(&c[2], &o, 30) < 0, "corrupt zstd data");
	o.usizebias = 1 << 30;
	CHECK_FAIL(readback(&c[2], &o, 30) < 0, "cannot come from");
	o.codec = C_SNAPPY;
	o.usizebias = -1;
	CHECK_FAIL(readback(&c[2], &o, 30) < 0, "corrupt snappy data");

	/*
	 * A billion rows claimed by footer and page headers alike, over
	 * pages that hold 30: refused before anything is sized by the claim.
	 */
	o = plainopt;
	o.claim = 1 << 30;
	CHECK_FAIL(readback(&c[1], &o, 30) < 0,
	    "truncated page: 1073741824 values in 120 bytes");
	CHECK_FAIL(readback(&c[2], &o, 30) < 0, "bad definition levels");
	CHECK_FAIL(readback(&c[6], &o, 30) < 0, "bad repetition levels");
	x = c[1];
	x.enc = E_DICT;
	CHECK_FAIL(readback(&x, &o, 30) < 0, "bad dictionary indices");

	/*
	 * Asymmetric claims: the footer's 30 rows are true,
	 * the chunk and its pages claim a billion values.  A flat chunk
	 * is refused by its row group's rows, before anything is sized.
	 */
	o = plainopt;
	o.vclaim = 1 << 30;
	CHECK_FAIL(readback(&c[1], &o, 30) < 0,
	    "column chunk has 1073741824 values, its row group 30 rows");
	CHECK_FAIL(readback(&c[2], &o, 30) < 0,
	    "column chunk has 1073741824 values, its row group 30 rows");
	/* A list's levels are its elements: bounded by the budget. */
	rb_budget = 1 << 20;
	CHECK_FAIL(readback(&c[6], &o, 30) < 0,
	    "1073741824 values claimed, over the budget of 1048576 bytes");
	o = plainopt;
	CHECK(readback(&c[6], &o, 30) == 0);
	rb_budget = 64 * 10;
	CHECK_FAIL(readback(&c[6], &o, 30) < 0, "values claimed, over the "
	    "budget of 640 bytes (64 per value)");
	rb_budget = 0;

	/* A page header that is not Thrift, at offset 4. */
	o = plainopt;
	p = pqwrite(&c[5], 1, 30, &o, &len);
	p[4] = 0xfd;
	f = pq_open(p, len);
	CHECK(f != NULL);
	if (f) {
		clear_err();
		CHECK_FAIL(pq_read_column(f, 0, &col) < 0, "column 'Name': "
		    "corrupt page header at offset 4: bad thrift type 13");
		pq_close(f);
	}
	free(p);
	/* A page larger than its chunk. */
	o.csizebias = 1;
	CHECK_FAIL(readback(&c[5], &o, 30) < 0, "column 'Name': corrupt "
	    "page header at offset 4: page sizes");
	o.csizebias = -1;	/* one byte short, into the next header */
	o.group_rows = o.page_rows = 10;
	CHECK(readback(&c[5], &o, 30) < 0);
}

/* The invariants of a column that read without error. */
static int
sane(const struct pq_column *c, int64_t nrows)
{
	int64_t i;

	if (c->n != nrows || c->valid == NULL)
		return 0;
	for (i = 0; i < c->n; i++) {
		if (c->valid[i] > 1)
			return 0;
		if (c->kind == PQ_STRING &&
		    (c->str[i] == NULL || strlen(c->str[i]) > c->len[i]))
			return 0;
		if (c->kind == PQ_LIST_INT64 &&
		    c->list_off[i + 1] < c->list_off[i])
			return 0;
	}
	if (c->kind == PQ_LIST_INT64 && c->list_off[0] != 0)
		return 0;
	return 1;
}

/* Open P and read every column: whatever happens, no crash. */
static int
tryall(const uint8_t *p, size_t n)
{
	struct pq_column col;
	struct pq_file *f;
	uint8_t *q = bytesdup(p, n);
	size_t i;
	int ok = 1;

	if ((f = pq_open(q, n)) != NULL) {
		for (i = 0; i < pq_ncolumns(f); i++) {
			if (pq_read_column(f, i, &col) == 0) {
				ok &= sane(&col, pq_nrows(f));
				pq_column_free(&col);
			} else {
				ok &= *err_msg() != '\0';
			}
		}
		pq_close(f);
	} else {
		ok &= *err_msg() != '\0';
	}
	free(q);
	return ok;
}

/*
 * Every one-byte change (four values) and deletion of small files that
 * use every feature.  Results vary; crashes, sanitizer reports and
 * inconsistent columns must not happen.
 */
static void
mutations(void)
{
	static const uint8_t vals[] = { 0x00, 0xff, 0x01, 0x80 };
	struct wcol c[16], s[4];
	struct wopt o = plainopt;
	uint8_t *p, *q;
	size_t len, i, k, n;
	int ok = 1, files;

	mkcols(c, E_DICT, 0);
	s[0] = c[2];		/* optional INT64, dictionary */
	s[1] = c[5];		/* optional strings, dictionary */
	s[2] = c[6];		/* list3, nulls */
	s[3] = c[0];		/* booleans, RLE */
	for (files = 0; files < 4; files++) {
		o.v2 = files & 1;
		o.codec = files == 0 ? C_NONE : files == 1 ? C_SNAPPY :
		    files == 2 ? C_GZIP : C_ZSTD;
		o.group_rows = 9;
		o.page_rows = 5;
		if (files == 3) {
			s[0].enc = s[1].enc = s[2].enc = E_PLAIN;
			s[3].enc = E_PLAIN;
		}
		/* zstd: two columns, since each needs a decoder context. */
		p = pqwrite(s + (files == 3 ? 2 : 0), files == 3 ? 2 : 4, 14,
		    &o, &len);
		ok &= tryall(p, len);
		q = malloc(len);
		for (i = 0; i < len; i++) {
			/*
			 * Fewer for zstd: making a decoder context per column
			 * costs more than the rest of the read.
			 */
			for (k = o.codec == C_ZSTD ? 2 : 0; k < sizeof(vals);
			    k++) {
				memcpy(q, p, len);
				q[i] = k < 2 ? vals[k] : q[i] ^ vals[k];
				ok &= tryall(q, len);
			}
			/* Deleting byte i shifts everything after it. */
			memcpy(q, p, i);
			memcpy(q + i, p + i + 1, len - i - 1);
			ok &= tryall(q, len - 1);
		}
		/* Truncations, keeping the footer's last 8 bytes. */
		for (n = 8; n + 8 <= len; n += 3) {
			memcpy(q, p, len - n);
			memcpy(q + len - n - 8, p + len - 8, 8);
			ok &= tryall(q, len - n);
		}
		free(q);
		free(p);
	}
	CHECK(ok);
}

/* ---- real data ---- */

#define DATA "../shared/data/pax_fsdp4_4proc/pax_fsdp4_4proc_proc0.zip"

static struct pq_column *
readcol(struct pq_file *f, const char *name, struct pq_column *c)
{
	long i = pq_column_index(f, name);

	if (i < 0 || pq_read_column(f, (size_t)i, c) < 0) {
		fprintf(stderr, "%s: %s\n", name, i < 0 ? "missing" : err_msg());
		return NULL;
	}
	return c;
}

static int64_t
sumi(const struct pq_column *c)
{
	int64_t s = 0, i;

	for (i = 0; i < c->n; i++)
		s += c->i64[i];
	return s;
}

static int64_t
nulls(const struct pq_column *c)
{
	int64_t s = 0, i;

	for (i = 0; i < c->n; i++)
		s += !c->valid[i];
	return s;
}

static void real_trace_values(struct pq_file *);

/* trace.parquet of proc0: its shape, then its values. */
static void
real_trace(struct archive *a)
{
	static const char *names[] = { "Name", "Projected Start",
	    "Projected Duration", "Orig Start", "Orig Duration", "Style", "PID",
	    "TID", "NumGPUOps", "Lvl", "NumChild", "RangeId", "ParentId",
	    "RangeStack", "Rank" };
	static const int kinds[] = { PQ_STRING, PQ_INT64, PQ_INT64, PQ_DOUBLE,
	    PQ_DOUBLE, PQ_STRING, PQ_INT64, PQ_INT64, PQ_INT64, PQ_DOUBLE,
	    PQ_INT64, PQ_DOUBLE, PQ_DOUBLE, PQ_STRING, PQ_INT64 };
	struct pq_column c;
	struct pq_file *f;
	uint8_t *data;
	size_t len, i;
	int ok;

	if (archive_read(a, "nvtx_gpu_proj_trace/trace.parquet", &data,
	    &len) < 0) {
		fprintf(stderr, "%s\n", err_msg());
		CHECK(0);
		return;
	}
	if ((f = pq_open(data, len)) == NULL) {
		fprintf(stderr, "%s\n", err_msg());
		CHECK(0);
		free(data);
		return;
	}
	CHECK_INT(pq_nrows(f), 14305);
	CHECK_INT(pq_ncolumns(f), 15);
	for (i = 0, ok = 1; i < 15 && i < pq_ncolumns(f); i++)
		ok &= strcmp(pq_column_name(f, i), names[i]) == 0 &&
		    pq_column_kind(f, i) == kinds[i];
	CHECK(ok);

	/* Every column reads. */
	for (i = 0, ok = 1; i < pq_ncolumns(f); i++) {
		ok &= pq_read_column(f, i, &c) == 0 && c.n == 14305;
		pq_column_free(&c);
	}
	CHECK(ok);
	real_trace_values(f);
	pq_close(f);
	free(data);
}

/* Values of trace.parquet of proc0, as hyparquet reads them. */
static void
real_trace_values(struct pq_file *f)
{
	struct pq_column c;
	size_t i, bytes;
	double s;

	if (readcol(f, "Name", &c)) {
		CHECK_INT(nulls(&c), 1);
		CHECK(!c.valid[0] && c.len[0] == 0 && *c.str[0] == '\0');
		CHECK_STR(c.str[1],
		    "TSL:XlaCompile:#module=jit__psum,program_id=1#");
		CHECK_STR(c.str[14304], "NCCL:ncclGroupEnd");
		for (i = 0, bytes = 0; i < 14305; i++)
			bytes += c.len[i];
		CHECK_INT(bytes, 1383334);
		pq_column_free(&c);
	}
	if (readcol(f, "Projected Start", &c)) {
		CHECK_INT(c.i64[0], 26906765692LL);
		CHECK_INT(c.i64[14304], 115881707679LL);
		CHECK_INT(sumi(&c), 1597682151610496LL);
		CHECK_INT(nulls(&c), 0);
		pq_column_free(&c);
	}
	if (readcol(f, "Projected Duration", &c)) {
		CHECK_INT(c.i64[0], 88976566522LL);
		CHECK_INT(sumi(&c), 98074822119LL);
		pq_column_free(&c);
	}
	if (readcol(f, "Orig Start", &c)) {
		/* Whole numbers below 2^53: the sum is exact. */
		for (i = 1, s = 0; i < 14305; i++)
			s += c.f64[i];
		CHECK(s == 1596997041103602.0);
		CHECK(!c.valid[0] && isnan(c.f64[0]));
		CHECK(c.f64[14304] == 115881659724.0);
		pq_column_free(&c);
	}
	if (readcol(f, "ParentId", &c)) {
		CHECK_INT(nulls(&c), 36);
		CHECK(c.f64[14304] == 215461.0);
		pq_column_free(&c);
	}
	if (readcol(f, "TID", &c)) {
		CHECK_INT(sumi(&c), 3086061547LL);
		CHECK_INT(c.i64[0], 216715);
		pq_column_free(&c);
	}
	if (readcol(f, "NumGPUOps", &c)) {
		CHECK_INT(sumi(&c), 39773);
		pq_column_free(&c);
	}
	if (readcol(f, "RangeStack", &c)) {
		CHECK_STR(c.str[14304], ":215459:215461:215464");
		pq_column_free(&c);
	}
	if (readcol(f, "Style", &c)) {
		CHECK_STR(c.str[1], "PushPop");
		pq_column_free(&c);
	}
}

static void
real_threads(struct archive *a)
{
	static const char *names[] = { "Name", "Priority", "PID", "TID" };
	struct pq_column c;
	struct pq_file *f;
	uint8_t *data;
	size_t len, i;
	int ok;

	if (archive_read(a, "thread-metadata.parquet", &data, &len) < 0 ||
	    (f = pq_open(data, len)) == NULL) {
		fprintf(stderr, "%s\n", err_msg());
		CHECK(0);
		return;
	}
	CHECK_INT(pq_nrows(f), 7526);
	CHECK_INT(pq_ncolumns(f), 4);
	for (i = 0, ok = 1; i < 4 && i < pq_ncolumns(f); i++)
		ok &= strcmp(pq_column_name(f, i), names[i]) == 0;
	CHECK(ok);
	CHECK_INT(pq_column_kind(f, 0), PQ_STRING);
	CHECK_INT(pq_column_kind(f, 3), PQ_INT64);
	if (readcol(f, "Name", &c)) {
		CHECK_STR(c.str[0], "systemd");
		CHECK_STR(c.str[7525], "kworker/255:2-events");
		CHECK_INT(nulls(&c), 0);
		pq_column_free(&c);
	}
	if (readcol(f, "Priority", &c)) {
		CHECK_INT(sumi(&c), 147090);
		pq_column_free(&c);
	}
	if (readcol(f, "PID", &c)) {
		CHECK_INT(sumi(&c), 3677001240LL);
		pq_column_free(&c);
	}
	if (readcol(f, "TID", &c)) {
		CHECK_INT(sumi(&c), 4106718270LL);
		CHECK_INT(c.i64[7525], 4189140);
		pq_column_free(&c);
	}
	pq_close(f);
	free(data);
}

static void
real(void)
{
	struct archive *a;
	struct stat st;

	if (stat("../shared/data", &st) < 0) {
		printf("parquet: ../shared/data not found, real-data checks: "
		    "1 skipped\n");
		return;
	}
	if ((a = archive_open(DATA)) == NULL) {
		fprintf(stderr, "%s: %s\n", DATA, err_msg());
		CHECK(0);
		return;
	}
	real_trace(a);
	real_threads(a);
	archive_close(a);
}

int
main(void)
{
	thrift_fields();
	thrift_bad();
	rle();
	rle_odd();
	rle_widths();
	mkdata();
	roundtrips();
	refusals();
	corrupt_footer();
	corrupt_pages();
	mutations();
	real();
	ZSTD_freeCCtx(zcctx);
	return unit_done("parquet");
}
