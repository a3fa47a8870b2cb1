/*
 * pqwrite: a small Parquet writer for tests, header-only because the
 * Makefile builds every .c file of tests/unit as a program of its own.
 * Include it once per test program; everything is static.
 *
 * It writes the features the real nsys files lack (data page v2,
 * gzip/zstd/snappy, nulls, lists, dictionary pages, several row groups
 * and pages) and, through struct wopt, deliberately broken files (biased
 * sizes, bad levels, claimed counts) for the reader's refusal tests.
 *
 *	struct wcol c[] = { { "x", T_INT64, FLAT, 0, 0, E_PLAIN, NULL, v } };
 *	struct wopt o = plainopt;
 *	uint8_t *p = pqwrite(c, 1, nrows, &o, &len);	(caller frees)
 *
 * A program that writes ZSTD pages frees the shared context with
 * ZSTD_freeCCtx(zcctx) before it exits.  Every function is reachable
 * from pqwrite() except bytesdup(), so an includer that does not call
 * bytesdup() gets an unused-function warning: use it for exact-size
 * copies, which let ASan see any read past the end.
 */
#ifndef NSYSJAX_PQWRITE_H
#define NSYSJAX_PQWRITE_H

#include <snappy-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/thrift.h"

/* ---- byte buffers ---- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void
put(struct buf *b, const void *s, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			abort();
	}
	if (s && n)	/* NULL: reserve room */
		memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void
put8(struct buf *b, unsigned c)
{
	uint8_t x = (uint8_t)c;

	put(b, &x, 1);
}

static void
put32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { v, v >> 8, v >> 16, v >> 24 };

	put(b, x, 4);
}

static void
put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

static void
putvar(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		put8(b, (unsigned)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	put8(b, (unsigned)v);
}

static uint64_t
zz(int64_t v)
{
	return (uint64_t)v << 1 ^ (uint64_t)(v >> 63);
}

/* A malloc'd copy of exactly N bytes, so ASan sees any overread. */
static uint8_t *
bytesdup(const void *p, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);

	if (d == NULL)
		abort();
	if (n)
		memcpy(d, p, n);
	return d;
}

/* ---- Thrift compact writer ---- */

static void
tf(struct buf *b, int *last, int id, int type)
{
	if (id > *last && id - *last <= 15) {
		put8(b, (unsigned)(id - *last) << 4 | (unsigned)type);
	} else {
		put8(b, (unsigned)type);
		putvar(b, zz(id));
	}
	*last = id;
}

static void
ti32(struct buf *b, int *last, int id, int64_t v)
{
	tf(b, last, id, THRIFT_I32);
	putvar(b, zz(v));
}

static void
ti64(struct buf *b, int *last, int id, int64_t v)
{
	tf(b, last, id, THRIFT_I64);
	putvar(b, zz(v));
}

static void
tbin(struct buf *b, int *last, int id, const void *s, size_t n)
{
	tf(b, last, id, THRIFT_BINARY);
	putvar(b, n);
	put(b, s, n);
}

static void
tstr(struct buf *b, int *last, int id, const char *s)
{
	tbin(b, last, id, s, strlen(s));
}

static void
tlist(struct buf *b, int etype, size_t n)
{
	if (n < 15) {
		put8(b, (unsigned)(n << 4) | (unsigned)etype);
	} else {
		put8(b, 0xf0 | (unsigned)etype);
		putvar(b, n);
	}
}

/* ---- a sample Thrift struct (also an unknown footer field) ---- */

/*
 * A struct with a field of every type: short and long field-id forms,
 * negative zigzag numbers, bools in fields and in a set, short and long
 * list headers, a map, a nested struct.
 */
static void
sample_struct(struct buf *b)
{
	static const uint8_t dbl[8] = { 0, 0, 0, 0, 0, 0, 0xf0, 0x3f };
	int last = 0, l2 = 0, i;

	ti32(b, &last, 1, -1);
	ti64(b, &last, 2, 150);
	tf(b, &last, 3, THRIFT_TRUE);
	tf(b, &last, 4, THRIFT_FALSE);
	tstr(b, &last, 20, "abc");		/* delta 16: long form */
	tf(b, &last, 21, THRIFT_LIST);
	tlist(b, THRIFT_I32, 3);
	putvar(b, zz(1));
	putvar(b, zz(-2));
	putvar(b, zz(3));
	tf(b, &last, 22, THRIFT_DOUBLE);
	put(b, dbl, 8);
	tf(b, &last, 23, THRIFT_MAP);
	putvar(b, 2);
	put8(b, THRIFT_I32 << 4 | THRIFT_BINARY);
	putvar(b, zz(7));
	putvar(b, 1);
	put8(b, 'x');
	putvar(b, zz(8));
	putvar(b, 0);
	tf(b, &last, 24, THRIFT_STRUCT);
	tf(b, &l2, 1, THRIFT_BYTE);
	put8(b, 0x7f);
	ti64(b, &l2, 2, INT64_MIN);
	ti64(b, &l2, 3, INT64_MAX);
	put8(b, THRIFT_STOP);
	tf(b, &last, 25, THRIFT_SET);
	tlist(b, THRIFT_TRUE, 2);
	put8(b, 1);
	put8(b, 2);
	tf(b, &last, 26, THRIFT_LIST);
	tlist(b, THRIFT_BYTE, 20);
	for (i = 0; i < 20; i++)
		put8(b, (unsigned)i);
	tf(b, &last, 10, THRIFT_I16);		/* backwards: long form */
	putvar(b, zz(-300));
	tf(b, &last, 27, THRIFT_MAP);		/* empty map: no type byte */
	putvar(b, 0);
	put8(b, THRIFT_STOP);
}

/* ---- RLE / bit-packed hybrid ---- */

static int
bits(uint32_t max)
{
	int n = 0;

	for (; max; max >>= 1)
		n++;
	return n;
}

/* Pack 8 values of BW bits, LSB first: BW bytes. */
static void
pack8(struct buf *b, const uint32_t *v, int bw)
{
	uint8_t out[32] = { 0 };
	int i, k;

	for (i = 0; i < 8; i++)
		for (k = 0; k < bw; k++)
			if (v[i] >> k & 1)
				out[(i * bw + k) / 8] |= 1 << ((i * bw + k) % 8);
	put(b, out, (size_t)bw);
}

/*
 * Encode N values: runs of 8 or more equal values as RLE runs, the rest
 * as bit-packed runs of up to MAXGROUPS groups (zero-padded at the end).
 */
static void
rle_encode(struct buf *b, const uint32_t *v, size_t n, int bw, int maxgroups)
{
	uint32_t g[8];
	size_t i = 0, r, j, k, ng;

	while (i < n) {
		for (r = 1; i + r < n && v[i + r] == v[i]; r++)
			;
		if (r >= 8) {
			putvar(b, r << 1);
			for (k = 0; k < ((size_t)bw + 7) / 8; k++)
				put8(b, v[i] >> (8 * k) & 0xff);
			i += r;
			continue;
		}
		/* Groups until a long run starts a group. */
		for (ng = 1; (int)ng < maxgroups && i + 8 * ng < n; ng++) {
			j = i + 8 * ng;
			for (r = 1; j + r < n && v[j + r] == v[j]; r++)
				;
			if (r >= 8)
				break;
		}
		putvar(b, ng << 1 | 1);
		for (k = 0; k < ng; k++, i += 8) {
			for (j = 0; j < 8; j++)
				g[j] = i + j < n ? v[i + j] : 0;
			pack8(b, g, bw);
		}
	}
}

/* ---- a small Parquet writer ---- */

enum { T_BOOLEAN, T_INT32, T_INT64, T_INT96, T_FLOAT, T_DOUBLE,
	T_BYTE_ARRAY, T_FLBA };
enum { FLAT, LIST3, LIST2, REPEATED, STRUCT };
enum { E_PLAIN = 0, E_PDICT = 2, E_RLE = 3, E_BITPACKED = 4, E_DELTA = 5,
	E_DICT = 8, E_BSS = 9 };
enum { C_NONE = 0, C_SNAPPY = 1, C_GZIP = 2, C_LZ4 = 5, C_ZSTD = 6 };

struct wcol {
	const char *name;
	int type;		/* physical type */
	int shape;
	int opt;		/* top node OPTIONAL */
	int elemopt;		/* LIST3: element OPTIONAL */
	int enc;		/* E_PLAIN, E_DICT, E_PDICT, E_RLE (booleans);
				   anything else is declared, PLAIN written */
	const uint8_t *valid;	/* [nrows], NULL: all present */
	const int64_t *i64;	/* BOOLEAN, INT32, INT64 (lists: elements) */
	const double *f64;	/* FLOAT, DOUBLE */
	const char *const *str;	/* BYTE_ARRAY */
	const size_t *slen;
	const int64_t *off;	/* lists: [nrows + 1] into i64 */
	const uint8_t *evalid;	/* lists: element present, NULL: all */
};

struct wopt {
	int codec;		/* used to compress */
	int declared;		/* written in the metadata; -1: codec */
	int v2;			/* data page v2 */
	size_t group_rows, page_rows;
	int levelenc;		/* v1 level encoding declared, 0: RLE */
	int idxbias;		/* added to every dictionary index */
	int baddef;		/* definition levels: a run of maxdef + 1 */
	int usizebias;		/* added to declared uncompressed sizes */
	int csizebias;		/* added to declared compressed sizes */
	int64_t rowbias;	/* added to the file's num_rows */
	int external;		/* set file_path on every chunk */
	int deepkv;		/* an unknown footer field nested too deep */
	int64_t claim;		/* rows and values claimed everywhere */
	int64_t vclaim;		/* values claimed by chunks and pages
				   alone (the footer's rows are true) */
};

static const struct wopt plainopt = { 0, -1, 0, 1000000, 1000000, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0 };

struct levels {
	uint32_t *rl, *dl;
	size_t *vix;		/* value indices of present values */
	size_t nl, nv, cap;
	int maxrep, maxdef;
};

static void
maxlevels(const struct wcol *c, int *maxrep, int *maxdef, int *defrow)
{
	*defrow = c->opt;
	*maxrep = c->shape == FLAT ? 0 : 1;
	switch (c->shape) {
	case FLAT:
		*maxdef = c->opt;
		break;
	case LIST3:
		*maxdef = c->opt + 1 + c->elemopt;
		break;
	case LIST2:
		*maxdef = c->opt + 1;
		break;
	default:
		*defrow = 0;
		*maxdef = 1;
	}
}

static void
addlevel(struct levels *l, uint32_t r, uint32_t d, size_t vix, int present)
{
	if (l->nl == l->cap) {
		l->cap = 2 * l->cap + 64;
		l->rl = realloc(l->rl, l->cap * sizeof(*l->rl));
		l->dl = realloc(l->dl, l->cap * sizeof(*l->dl));
		l->vix = realloc(l->vix, l->cap * sizeof(*l->vix));
		if (!l->rl || !l->dl || !l->vix)
			abort();
	}
	l->rl[l->nl] = r;
	l->dl[l->nl++] = d;
	if (present)
		l->vix[l->nv++] = vix;
}

static void
mklevels(const struct wcol *c, size_t r0, size_t r1, struct levels *l)
{
	size_t r;
	int64_t j;
	int defrow;

	memset(l, 0, sizeof(*l));
	maxlevels(c, &l->maxrep, &l->maxdef, &defrow);
	for (r = r0; r < r1; r++) {
		int ok = c->valid == NULL || c->valid[r];

		if (c->shape == FLAT) {
			addlevel(l, 0, ok ? (uint32_t)l->maxdef : 0, r, ok);
			continue;
		}
		if (!ok) {
			addlevel(l, 0, 0, 0, 0);
			continue;
		}
		if (c->off[r] == c->off[r + 1])
			addlevel(l, 0, (uint32_t)defrow, 0, 0);
		for (j = c->off[r]; j < c->off[r + 1]; j++) {
			int eok = c->evalid == NULL || c->evalid[j];

			addlevel(l, j > c->off[r],
			    eok ? (uint32_t)l->maxdef : (uint32_t)defrow + 1,
			    (size_t)j, eok);
		}
	}
}

static void
freelevels(struct levels *l)
{
	free(l->rl);
	free(l->dl);
	free(l->vix);
}

static int
sameval(const struct wcol *c, size_t a, size_t b)
{
	switch (c->type) {
	case T_FLOAT:
	case T_DOUBLE:
		return memcmp(&c->f64[a], &c->f64[b], sizeof(double)) == 0;
	case T_BYTE_ARRAY:
		return c->slen[a] == c->slen[b] &&
		    memcmp(c->str[a], c->str[b], c->slen[a]) == 0;
	}
	return c->i64[a] == c->i64[b];
}

/* A hash of value A of C, for dictmap. */
static uint64_t
valhash(const struct wcol *c, size_t a)
{
	const unsigned char *p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t n, i;

	switch (c->type) {
	case T_FLOAT:
	case T_DOUBLE:
		p = (const unsigned char *)&c->f64[a];
		n = sizeof(double);
		break;
	case T_BYTE_ARRAY:
		p = (const unsigned char *)c->str[a];
		n = c->slen[a];
		break;
	default:
		p = (const unsigned char *)&c->i64[a];
		n = sizeof(int64_t);
	}
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Dictionary positions by value (open addressing), so that building and
 * using a dictionary of many values stays linear. */
struct dictmap {
	size_t *slot;		/* position + 1; 0: empty */
	size_t mask;
};

static void
dictmap_init(struct dictmap *m, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	m->slot = calloc(cap, sizeof(*m->slot));
	m->mask = cap - 1;
}

/* The position of value V in DICT[0..*ND), added when absent. */
static size_t
dictmap_get(struct dictmap *m, const struct wcol *c, size_t *dict,
    size_t *nd, size_t v)
{
	size_t i = (size_t)valhash(c, v) & m->mask;

	for (; m->slot[i] != 0; i = (i + 1) & m->mask)
		if (sameval(c, dict[m->slot[i] - 1], v))
			return m->slot[i] - 1;
	dict[*nd] = v;
	m->slot[i] = ++*nd;
	return *nd - 1;
}

/* PLAIN encoding of the values at indices VIX[0..N). */
static void
plainvals(struct buf *b, const struct wcol *c, const size_t *vix, size_t n)
{
	uint8_t acc = 0;
	size_t i;
	float f;
	uint32_t u;
	uint64_t u64;

	for (i = 0; i < n; i++) {
		switch (c->type) {
		case T_BOOLEAN:
			acc |= (uint8_t)((c->i64[vix[i]] & 1) << (i % 8));
			if (i % 8 == 7 || i == n - 1) {
				put8(b, acc);
				acc = 0;
			}
			break;
		case T_INT32:
			put32(b, (uint32_t)c->i64[vix[i]]);
			break;
		case T_INT64:
			put64(b, (uint64_t)c->i64[vix[i]]);
			break;
		case T_FLOAT:
			f = (float)c->f64[vix[i]];
			memcpy(&u, &f, 4);
			put32(b, u);
			break;
		case T_DOUBLE:
			memcpy(&u64, &c->f64[vix[i]], 8);
			put64(b, u64);
			break;
		case T_BYTE_ARRAY:
			put32(b, (uint32_t)c->slen[vix[i]]);
			put(b, c->str[vix[i]], c->slen[vix[i]]);
			break;
		default:	/* INT96, FLBA: never read */
			put(b, "0123456789ab", 12);
		}
	}
}

static ZSTD_CCtx *zcctx;

static void
squeeze(int codec, const struct buf *in, struct buf *out)
{
	size_t n;
	z_stream z;

	out->n = 0;
	switch (codec) {
	case C_SNAPPY:
		n = snappy_max_compressed_length(in->n);
		put(out, NULL, n);
		if (snappy_compress((const char *)in->p, in->n,
		    (char *)out->p, &n) != SNAPPY_OK)
			abort();
		out->n = n;
		break;
	case C_GZIP:
		memset(&z, 0, sizeof(z));
		/* A small window and memory: quick to set up. */
		if (deflateInit2(&z, 6, Z_DEFLATED, 9 + 16, 1,
		    Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		n = deflateBound(&z, in->n) + 32;
		put(out, NULL, n);
		z.next_in = in->p;
		z.avail_in = (uInt)in->n;
		z.next_out = out->p;
		z.avail_out = (uInt)n;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			abort();
		out->n = n - z.avail_out;
		deflateEnd(&z);
		break;
	case C_ZSTD:
		n = ZSTD_compressBound(in->n);
		put(out, NULL, n);
		if (zcctx == NULL && (zcctx = ZSTD_createCCtx()) == NULL)
			abort();
		n = ZSTD_compressCCtx(zcctx, out->p, n, in->p, in->n, 1);
		if (ZSTD_isError(n))
			abort();
		out->n = n;
		break;
	default:
		put(out, in->p, in->n);
	}
}

static void
levelbytes(struct buf *b, const uint32_t *l, size_t n, int max, int bad)
{
	if (bad) {
		putvar(b, n << 1);
		put8(b, (unsigned)max + 1);
	} else {
		rle_encode(b, l, n, bits((uint32_t)max), 63);
	}
}

struct chunkinfo {
	int64_t start, dict_off, data_off, nvalues, size, usize;
};

static void
pageheader(struct buf *f, int type, size_t usize, size_t csize)
{
	int last = 0;

	ti32(f, &last, 1, type);
	ti32(f, &last, 2, (int64_t)usize);
	ti32(f, &last, 3, (int64_t)csize);
	ti32(f, &last, 4, 12345);	/* crc: ignored */
}

static void
dictpage(struct buf *f, const struct wcol *c, const struct wopt *o,
    const size_t *dict, size_t nd, struct chunkinfo *ci)
{
	struct buf raw = { 0 }, z = { 0 };
	int last = 0, l2 = 0;

	plainvals(&raw, c, dict, nd);
	squeeze(o->codec, &raw, &z);
	ci->dict_off = (int64_t)f->n;
	pageheader(f, 2, raw.n + (size_t)o->usizebias,
	    z.n + (size_t)o->csizebias);
	last = 4;
	tf(f, &last, 7, THRIFT_STRUCT);
	ti32(f, &l2, 1, (int64_t)nd);
	ti32(f, &l2, 2, c->enc == E_PDICT ? E_PDICT : E_PLAIN);
	tf(f, &l2, 3, THRIFT_FALSE);
	put8(f, 0);
	put8(f, 0);
	put(f, z.p, z.n);
	ci->usize += (int64_t)raw.n;
	free(raw.p);
	free(z.p);
}

/* The value section of a page: LV's present values in C's encoding. */
static void
valsection(struct buf *b, const struct wcol *c, const struct wopt *o,
    const struct levels *lv, const size_t *dict, size_t nd)
{
	uint32_t *ix;
	size_t i, k;
	int bw;

	if (c->enc == E_DICT || c->enc == E_PDICT) {
		struct dictmap m;
		size_t *d = malloc((nd + 1) * sizeof(*d)), n = 0;

		dictmap_init(&m, nd);
		for (k = 0; k < nd; k++)
			(void)dictmap_get(&m, c, d, &n, dict[k]);
		ix = malloc(lv->nv * sizeof(*ix) + 4);
		for (i = 0; i < lv->nv; i++) {
			k = dictmap_get(&m, c, d, &n, lv->vix[i]);
			ix[i] = (uint32_t)k + (uint32_t)o->idxbias;
		}
		free(m.slot);
		free(d);
		bw = bits(nd > 0 ? (uint32_t)nd - 1 + (uint32_t)o->idxbias : 0);
		put8(b, (unsigned)bw);
		rle_encode(b, ix, lv->nv, bw, 63);
		free(ix);
	} else if (c->enc == E_RLE && c->type == T_BOOLEAN) {
		struct buf r = { 0 };

		ix = malloc(lv->nv * sizeof(*ix) + 4);
		for (i = 0; i < lv->nv; i++)
			ix[i] = (uint32_t)c->i64[lv->vix[i]];
		rle_encode(&r, ix, lv->nv, 1, 63);
		put32(b, (uint32_t)r.n);
		put(b, r.p, r.n);
		free(r.p);
		free(ix);
	} else {
		plainvals(b, c, lv->vix, lv->nv);
	}
}

static void
datapage(struct buf *f, const struct wcol *c, const struct wopt *o,
    size_t r0, size_t r1, const size_t *dict, size_t nd,
    struct chunkinfo *ci)
{
	struct buf rep = { 0 }, def = { 0 }, val = { 0 }, raw = { 0 },
	    z = { 0 };
	struct levels lv;
	int last = 4, l2 = 0, enc;

	mklevels(c, r0, r1, &lv);
	if (lv.maxrep)
		levelbytes(&rep, lv.rl, lv.nl, lv.maxrep, 0);
	if (lv.maxdef)
		levelbytes(&def, lv.dl, lv.nl, lv.maxdef, o->baddef);
	valsection(&val, c, o, &lv, dict, nd);
	enc = c->enc == E_PDICT && o->v2 ? E_DICT : c->enc;
	if (ci->data_off < 0)
		ci->data_off = (int64_t)f->n;
	if (!o->v2) {
		if (lv.maxrep) {
			put32(&raw, (uint32_t)rep.n);
			put(&raw, rep.p, rep.n);
		}
		if (lv.maxdef) {
			put32(&raw, (uint32_t)def.n);
			put(&raw, def.p, def.n);
		}
		put(&raw, val.p, val.n);
		squeeze(o->codec, &raw, &z);
		pageheader(f, 0, raw.n + (size_t)o->usizebias,
		    z.n + (size_t)o->csizebias);
		tf(f, &last, 5, THRIFT_STRUCT);
		ti32(f, &l2, 1, o->vclaim ? o->vclaim : o->claim ? o->claim :
		    (int64_t)lv.nl);
		ti32(f, &l2, 2, enc);
		ti32(f, &l2, 3, o->levelenc ? o->levelenc : E_RLE);
		ti32(f, &l2, 4, o->levelenc ? o->levelenc : E_RLE);
		tf(f, &l2, 5, THRIFT_STRUCT);	/* statistics: skipped */
		{
			int l3 = 0;

			tbin(f, &l3, 1, "max", 3);
			ti64(f, &l3, 3, 0);
			put8(f, 0);
		}
		put8(f, 0);
		put8(f, 0);
		put(f, z.p, z.n);
		ci->usize += (int64_t)raw.n;
	} else {
		squeeze(o->codec, &val, &z);
		pageheader(f, 3, rep.n + def.n + val.n + (size_t)o->usizebias,
		    rep.n + def.n + z.n + (size_t)o->csizebias);
		tf(f, &last, 8, THRIFT_STRUCT);
		ti32(f, &l2, 1, o->vclaim ? o->vclaim : o->claim ? o->claim :
		    (int64_t)lv.nl);
		ti32(f, &l2, 2, (int64_t)(lv.nl - lv.nv));
		ti32(f, &l2, 3, (int64_t)(r1 - r0));
		ti32(f, &l2, 4, enc);
		ti32(f, &l2, 5, (int64_t)def.n);
		ti32(f, &l2, 6, (int64_t)rep.n);
		/* Leave is_compressed at its default (true) when it is. */
		if (o->codec == C_NONE)
			tf(f, &l2, 7, THRIFT_FALSE);
		put8(f, 0);
		put8(f, 0);
		put(f, rep.p, rep.n);
		put(f, def.p, def.n);
		put(f, z.p, z.n);
		ci->usize += (int64_t)(rep.n + def.n + val.n);
	}
	ci->nvalues += o->vclaim ? o->vclaim : o->claim ? o->claim :
	    (int64_t)lv.nl;
	freelevels(&lv);
	free(rep.p);
	free(def.p);
	free(val.p);
	free(raw.p);
	free(z.p);
}

static void
writechunk(struct buf *f, const struct wcol *c, const struct wopt *o,
    size_t r0, size_t r1, struct chunkinfo *ci)
{
	size_t *dict = NULL, nd = 0, i, p0;
	struct levels all;

	memset(ci, 0, sizeof(*ci));
	ci->start = (int64_t)f->n;
	ci->dict_off = ci->data_off = -1;
	if (c->type == T_INT96 || c->type == T_FLBA || c->shape == STRUCT) {
		/* Never decoded: a data page of nothing but its header. */
		ci->data_off = (int64_t)f->n;
		ci->nvalues = (int64_t)(r1 - r0);
		ci->size = 0;
		return;
	}
	if (c->enc == E_DICT || c->enc == E_PDICT) {
		mklevels(c, r0, r1, &all);
		struct dictmap m;

		dict = malloc((all.nv + 1) * sizeof(*dict));
		dictmap_init(&m, all.nv);
		for (i = 0; i < all.nv; i++)
			(void)dictmap_get(&m, c, dict, &nd, all.vix[i]);
		free(m.slot);
		freelevels(&all);
		dictpage(f, c, o, dict, nd, ci);
	}
	for (p0 = r0; p0 < r1 || p0 == r0; p0 += o->page_rows) {
		datapage(f, c, o, p0, p0 + o->page_rows < r1 ?
		    p0 + o->page_rows : r1, dict, nd, ci);
		if (r1 == r0)
			break;
	}
	ci->size = (int64_t)f->n - ci->start;
	free(dict);
}

static void
schemaelem(struct buf *f, const char *name, int type, int rep, int nchild,
    int converted, int logical_list)
{
	int last = 0, l2 = 0;

	if (type >= 0)
		ti32(f, &last, 1, type);
	if (type == T_FLBA)
		ti32(f, &last, 2, 16);
	if (rep >= 0)
		ti32(f, &last, 3, rep);
	tstr(f, &last, 4, name);
	if (nchild > 0)
		ti32(f, &last, 5, nchild);
	if (converted >= 0)
		ti32(f, &last, 6, converted);
	if (logical_list) {
		tf(f, &last, 10, THRIFT_STRUCT);
		tf(f, &l2, 3, THRIFT_STRUCT);
		put8(f, 0);
		put8(f, 0);
	}
	put8(f, 0);
}

static size_t
nschema(const struct wcol *c)
{
	switch (c->shape) {
	case LIST3:
	case STRUCT:
		return 3;
	case LIST2:
		return 2;
	}
	return 1;
}

static void
schema(struct buf *f, const struct wcol *c)
{
	int rep = c->opt ? 1 : 0;

	switch (c->shape) {
	case FLAT:
		schemaelem(f, c->name, c->type, rep, 0,
		    c->type == T_BYTE_ARRAY ? 0 : -1, 0);
		break;
	case LIST3:
		schemaelem(f, c->name, -1, rep, 1, 3, 1);
		schemaelem(f, "list", -1, 2, 1, -1, 0);
		schemaelem(f, "element", c->type, c->elemopt, 0, -1, 0);
		break;
	case LIST2:
		schemaelem(f, c->name, -1, rep, 1, 3, 0);
		schemaelem(f, "array", c->type, 2, 0, -1, 0);
		break;
	case REPEATED:
		schemaelem(f, c->name, c->type, 2, 0, -1, 0);
		break;
	case STRUCT:
		schemaelem(f, c->name, -1, rep, 2, -1, 0);
		schemaelem(f, "a", T_INT64, 1, 0, -1, 0);
		schemaelem(f, "b", T_INT64, 1, 0, -1, 0);
		break;
	}
}

/* An unknown footer field of every container type, or one too deep. */
static void
unknownfield(struct buf *f, int *last, int deep)
{
	int i, l2 = 0;

	tf(f, last, 100, THRIFT_LIST);
	tlist(f, THRIFT_STRUCT, 2);
	sample_struct(f);
	if (deep) {
		for (i = 0; i < THRIFT_MAX_DEPTH + 5; i++)
			put8(f, 0x1c);
		for (i = 0; i < THRIFT_MAX_DEPTH + 5; i++)
			put8(f, 0);
	} else {
		put8(f, 0);
	}
	tf(f, last, 101, THRIFT_MAP);
	putvar(f, 1);
	put8(f, THRIFT_BINARY << 4 | THRIFT_LIST);
	putvar(f, 1);
	put8(f, 'k');
	tlist(f, THRIFT_DOUBLE, 1);
	put64(f, 0);
	tf(f, last, 102, THRIFT_STRUCT);
	tf(f, &l2, 1, THRIFT_TRUE);
	put8(f, 0);
}

static void
colmeta(struct buf *f, const struct wcol *c, const struct wopt *o,
    const struct chunkinfo *ci)
{
	int last = 0, l2 = 0, codec = o->declared >= 0 ? o->declared : o->codec;
	int type = c->shape == STRUCT ? T_INT64 : c->type;

	if (o->external)
		tstr(f, &last, 1, "elsewhere.parquet");
	ti64(f, &last, 2, ci->start);
	tf(f, &last, 3, THRIFT_STRUCT);
	ti32(f, &l2, 1, type);
	tf(f, &l2, 2, THRIFT_LIST);
	tlist(f, THRIFT_I32, 2);
	putvar(f, zz(E_PLAIN));
	putvar(f, zz(E_RLE));
	tf(f, &l2, 3, THRIFT_LIST);	/* path_in_schema */
	tlist(f, THRIFT_BINARY, nschema(c) - (c->shape == STRUCT));
	putvar(f, strlen(c->name));
	put(f, c->name, strlen(c->name));
	if (c->shape == LIST3) {
		putvar(f, 4);
		put(f, "list", 4);
	}
	if (c->shape == LIST3 || c->shape == LIST2) {
		putvar(f, c->shape == LIST3 ? 7 : 5);
		put(f, c->shape == LIST3 ? "element" : "array",
		    c->shape == LIST3 ? 7 : 5);
	}
	if (c->shape == STRUCT) {
		putvar(f, 1);
		put(f, "a", 1);
	}
	ti32(f, &l2, 4, codec);
	ti64(f, &l2, 5, ci->nvalues);
	ti64(f, &l2, 6, ci->usize);
	ti64(f, &l2, 7, ci->size);
	ti64(f, &l2, 9, ci->data_off);
	if (ci->dict_off >= 0)
		ti64(f, &l2, 11, ci->dict_off);
	put8(f, 0);
	put8(f, 0);
}

/*
 * A Parquet file of NROWS rows of the NCOLS columns C, written as O
 * says.  The caller frees the result, of *LEN bytes.
 */
static uint8_t *
pqwrite(const struct wcol *c, size_t ncols, size_t nrows,
    const struct wopt *o, size_t *len)
{
	struct buf f = { 0 };
	struct chunkinfo *ci;
	size_t ngroups, g, i, r0, r1, foot;
	int last = 0, l2;

	ngroups = nrows ? (nrows + o->group_rows - 1) / o->group_rows : 1;
	ci = calloc(ngroups * ncols, sizeof(*ci));
	put(&f, "PAR1", 4);
	for (g = 0; g < ngroups; g++) {
		r0 = g * o->group_rows;
		r1 = r0 + o->group_rows < nrows ? r0 + o->group_rows : nrows;
		for (i = 0; i < ncols; i++)
			writechunk(&f, &c[i], o, r0, r1, &ci[g * ncols + i]);
	}
	foot = f.n;
	ti32(&f, &last, 1, 2);
	tf(&f, &last, 2, THRIFT_LIST);
	for (g = 1, i = 0; i < ncols; i++)
		g += nschema(&c[i]);
	tlist(&f, THRIFT_STRUCT, g);
	l2 = 0;
	tstr(&f, &l2, 4, "schema");
	ti32(&f, &l2, 5, (int64_t)ncols);
	put8(&f, 0);
	for (i = 0; i < ncols; i++)
		schema(&f, &c[i]);
	ti64(&f, &last, 3, o->claim ? o->claim * (int64_t)ngroups :
	    (int64_t)nrows + o->rowbias);
	tf(&f, &last, 4, THRIFT_LIST);
	tlist(&f, THRIFT_STRUCT, ngroups);
	for (g = 0; g < ngroups; g++) {
		size_t ncol = 0;

		l2 = 0;
		tf(&f, &l2, 1, THRIFT_LIST);
		for (i = 0; i < ncols; i++)
			ncol += c[i].shape == STRUCT ? 2 : 1;
		tlist(&f, THRIFT_STRUCT, ncol);
		for (i = 0; i < ncols; i++) {
			colmeta(&f, &c[i], o, &ci[g * ncols + i]);
			if (c[i].shape == STRUCT)
				colmeta(&f, &c[i], o, &ci[g * ncols + i]);
		}
		ti64(&f, &l2, 2, 0);
		r0 = g * o->group_rows;
		r1 = r0 + o->group_rows < nrows ? r0 + o->group_rows : nrows;
		ti64(&f, &l2, 3, o->claim ? o->claim : (int64_t)(r1 - r0));
		put8(&f, 0);
	}
	tstr(&f, &last, 6, "nsysjax parquet_test");
	unknownfield(&f, &last, o->deepkv);
	put8(&f, 0);
	put32(&f, (uint32_t)(f.n - foot));
	put(&f, "PAR1", 4);
	free(ci);
	*len = f.n;
	return f.p;
}

#endif
