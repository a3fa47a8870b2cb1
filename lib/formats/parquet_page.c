/*
 * parquet (parquet.h): the pages of a column chunk and their values,
 * pq_read_column; the metadata they start from is parquet.c's
 * (parquet_impl.h).
 */
#include <math.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/parquet.h"
#include "formats/parquet_impl.h"
#include "formats/pqrle.h"
#include "formats/thrift.h"

/*
 * Most bytes one compressed byte can expand to, per codec, so that a
 * page header cannot make us allocate more than its data could fill:
 * snappy copies at most 64 bytes per 3-byte tag, deflate 258 bytes per
 * 2 bits, zstd 128 KiB per 4-byte RLE block.
 */
static const uint64_t maxratio[] = {
	[C_NONE] = 1, [C_SNAPPY] = 24, [C_GZIP] = 1040, [C_ZSTD] = 32768
};

/*
 * Column decoding.  Per data page of k levels: check that the level and
 * value sections really hold k levels and their m values before growing
 * anything by k; then, for a flat column, decode the definition levels
 * straight into valid[], the m values densely into the output, and spread
 * them out to their rows from the back; for a list, decode both level
 * kinds and the values to scratch and build rows and elements from them.
 */
struct page {			/* PageHeader and the sub-header we need */
	int type;
	int64_t usize, csize;	/* uncompressed, compressed bytes */
	int sub;		/* the sub-header matching type was present */
	int64_t nvalues;	/* levels in the page */
	int enc, defenc, repenc;
	int64_t deflen, replen;	/* v2: level bytes, never compressed */
	int compressed;		/* v2: values section compressed */
};

struct vals {			/* where decoded values go */
	int64_t *i64;
	double *f64;
	size_t *off, *len;	/* strings: blob offset, length */
};

struct dec {
	const struct pq_file *f;
	const struct field *fd;
	struct pq_column *c;
	size_t rows, rowcap;	/* rows decoded, room in per-row arrays */
	int64_t claimed;	/* levels the chunks so far claim */
	size_t rowend;		/* rows at the end of this row group */
	int64_t rgrows;		/* the row group's rows */
	size_t nval, valcap;	/* list elements decoded, room */
	size_t *soff;		/* PQ_STRING: blob offsets, becomes c->str */
	size_t bloblen, blobcap;
	int inrow;		/* lists: a row was started in this chunk */
	/* scratch, reused from page to page */
	uint8_t *buf;
	uint32_t *rl, *dl;
	int64_t *tmp;
	size_t bufcap, rlcap, dlcap, tmpcap;
	/* the dictionary of the current chunk */
	int hasdict;
	size_t ndict, dictcap;
	int64_t *di;
	double *dd;
	size_t *doff, *dlen;
	ZSTD_DCtx *zstd;
	z_stream z;
	int zinit;
};

static void
growrows(struct dec *d, size_t need)
{
	struct pq_column *c = d->c;
	size_t cap;

	if (need < d->rowcap)
		return;
	cap = d->rowcap;
	mem_grow(&c->valid, &cap, need + 1, 1);
	if (c->i64)
		c->i64 = mem_realloc(c->i64, cap, sizeof(*c->i64));
	if (c->f64)
		c->f64 = mem_realloc(c->f64, cap, sizeof(*c->f64));
	if (d->soff) {
		d->soff = mem_realloc(d->soff, cap, sizeof(*d->soff));
		c->len = mem_realloc(c->len, cap, sizeof(*c->len));
	}
	if (c->list_off)
		c->list_off = mem_realloc(c->list_off, cap,
		    sizeof(*c->list_off));
	d->rowcap = cap;
}

static void
growvals(struct dec *d, size_t need)
{
	size_t cap = d->valcap;

	mem_grow(&d->c->list_val, &cap, need, sizeof(*d->c->list_val));
	mem_grow(&d->c->list_valid, &d->valcap, need, 1);
}

/* Room for LEN more bytes of strings in the blob. */
static void
growblob(struct dec *d, size_t len)
{
	if (len > SIZE_MAX - d->bloblen)
		err_die("out of memory");
	mem_grow(&d->c->blob, &d->blobcap, d->bloblen + len, 1);
}

/* Bytes of one PLAIN value of fixed-width TYPE (booleans: see holds). */
static size_t
width(int type)
{
	return type == T_INT32 || type == T_FLOAT ? 4 : 8;
}

/*
 * Check that the LEN bytes at P hold M values in encoding ENC, without
 * decoding them, so that nothing is allocated for values a corrupt page
 * header merely claims.
 */
static int
holds(struct dec *d, int enc, const uint8_t *p, size_t len, size_t m)
{
	int type = d->fd->type;
	size_t n;
	char b[16];

	switch (enc) {
	case E_PLAIN:
		if (type == T_BOOLEAN ? m / 8 + (m % 8 != 0) > len :
		    m > len / (type == T_BYTE_ARRAY ? 4 : width(type)))
			return err_fail("truncated page: %zu values in %zu "
			    "bytes", m, len);
		return 0;
	case E_PLAIN_DICT:
	case E_RLE_DICT:
		if (!d->hasdict)
			return err_fail("dictionary-encoded page without a "
			    "dictionary");
		if (m == 0)
			return 0;
		if (len < 1)
			return err_fail("truncated page: no dictionary index "
			    "width");
		if (pqrle_decode(p + 1, len - 1, p[0], NULL, m) < 0)
			return err_prefix("bad dictionary indices");
		return 0;
	case E_RLE:
		if (type != T_BOOLEAN)
			break;
		if (len < 4 || (n = pqrle_le32(p)) > len - 4)
			return err_fail("truncated page: boolean RLE length");
		if (pqrle_decode(p + 4, n, 1, NULL, m) < 0)
			return err_prefix("bad boolean RLE data");
		return 0;
	}
	return err_fail("unsupported encoding %s", ENCNAME(enc, b));
}

static int
plain_strings(struct dec *d, const uint8_t *p, size_t len, size_t m,
    struct vals *v)
{
	size_t i, pos = 0, n;

	/* Each string takes its bytes plus 4 here, plus 1 in the blob. */
	growblob(d, len);
	for (i = 0; i < m; i++) {
		if (len - pos < 4)
			return err_fail("truncated page: string %zu", i);
		n = pqrle_le32(p + pos);
		pos += 4;
		if (n > len - pos)
			return err_fail("truncated page: string %zu of %zu "
			    "bytes", i, n);
		memcpy(d->c->blob + d->bloblen, p + pos, n);
		d->c->blob[d->bloblen + n] = '\0';
		v->off[i] = d->bloblen;
		v->len[i] = n;
		d->bloblen += n + 1;
		pos += n;
	}
	return 0;
}

/* Decode M values in PLAIN encoding from the LEN bytes at P (holds()). */
static int
plain(struct dec *d, const uint8_t *p, size_t len, size_t m, struct vals *v)
{
	size_t i;
	uint64_t u;
	uint32_t w;
	float fl;

	switch (d->fd->type) {
	case T_BYTE_ARRAY:
		return plain_strings(d, p, len, m, v);
	case T_BOOLEAN:
		for (i = 0; i < m; i++)
			v->i64[i] = p[i >> 3] >> (i & 7) & 1;
		break;
	case T_INT32:
		for (i = 0; i < m; i++)
			v->i64[i] = (int32_t)pqrle_le32(p + 4 * i);
		break;
	case T_INT64:
		for (i = 0; i < m; i++)
			v->i64[i] = (int64_t)pqrle_le64(p + 8 * i);
		break;
	case T_FLOAT:
		for (i = 0; i < m; i++) {
			w = pqrle_le32(p + 4 * i);
			memcpy(&fl, &w, sizeof(fl));
			v->f64[i] = fl;
		}
		break;
	case T_DOUBLE:
		for (i = 0; i < m; i++) {
			u = pqrle_le64(p + 8 * i);
			memcpy(&v->f64[i], &u, sizeof(u));
		}
		break;
	}
	return 0;
}

static int
badindex(const struct dec *d, uint32_t k)
{
	return err_fail("dictionary index %lu out of range (%zu entries)",
	    (unsigned long)k, d->ndict);
}

/* Entry K of the dictionary, CNT times, into V from I. */
static void
dictfill(struct dec *d, uint32_t k, struct vals *v, size_t i, size_t cnt)
{
	size_t j;

	if (v->i64) {
		for (j = i; j < i + cnt; j++)
			v->i64[j] = d->di[k];
	} else if (v->f64) {
		for (j = i; j < i + cnt; j++)
			v->f64[j] = d->dd[k];
	} else {
		for (j = i; j < i + cnt; j++) {
			v->off[j] = d->doff[k];
			v->len[j] = d->dlen[k];
		}
	}
}

/* Entries IX[0..CNT) of the dictionary into V from I. */
static int
dictgather(struct dec *d, const uint32_t *ix, struct vals *v, size_t i,
    size_t cnt)
{
	size_t j, nd = d->ndict;

	if (v->i64) {
		for (j = 0; j < cnt; j++) {
			if (ix[j] >= nd)
				return badindex(d, ix[j]);
			v->i64[i + j] = d->di[ix[j]];
		}
	} else if (v->f64) {
		for (j = 0; j < cnt; j++) {
			if (ix[j] >= nd)
				return badindex(d, ix[j]);
			v->f64[i + j] = d->dd[ix[j]];
		}
	} else {
		for (j = 0; j < cnt; j++) {
			if (ix[j] >= nd)
				return badindex(d, ix[j]);
			v->off[i + j] = d->doff[ix[j]];
			v->len[i + j] = d->dlen[ix[j]];
		}
	}
	return 0;
}

/* M dictionary indices (a bit-width byte, then RLE) looked up into V. */
static int
dictvalues(struct dec *d, const uint8_t *p, size_t len, size_t m,
    struct vals *v)
{
	uint32_t ix[PQRLE_BLOCK];
	struct pqrle r;
	size_t i;
	int64_t cnt;
	int run;

	if (m == 0)
		return 0;
	/* holds() checked these bytes already; checked here too, so that
	 * the safety of this call does not hang on that. */
	if (len < 1 || pqrle_init(&r, p + 1, len - 1, p[0]) < 0)
		return err_fail("bad dictionary indices: bit width %d",
		    len < 1 ? -1 : p[0]);
	for (i = 0; i < m; i += (size_t)cnt) {
		cnt = pqrle_next(&r, ix, m - i < PQRLE_BLOCK ? m - i : PQRLE_BLOCK,
		    &run);
		if (cnt < 0)
			return err_prefix("bad dictionary indices");
		if (!run && dictgather(d, ix, v, i, (size_t)cnt) < 0)
			return -1;
		if (run && r.value >= d->ndict)
			return badindex(d, r.value);
		if (run)
			dictfill(d, r.value, v, i, (size_t)cnt);
	}
	return 0;
}

/* Booleans in the RLE encoding: a 4-byte length, then RLE with width 1. */
static int
rlebools(const uint8_t *p, size_t m, struct vals *v)
{
	uint32_t b[PQRLE_BLOCK];
	struct pqrle r;
	size_t i, j, cnt;

	pqrle_init(&r, p + 4, pqrle_le32(p), 1);
	for (i = 0; i < m; i += cnt) {
		cnt = m - i < PQRLE_BLOCK ? m - i : PQRLE_BLOCK;
		if (pqrle_read(&r, b, cnt) < 0)
			return err_prefix("bad boolean RLE data");
		for (j = 0; j < cnt; j++) {
			if (b[j] > 1)
				return err_fail("bad boolean RLE data: value "
				    "%lu", (unsigned long)b[j]);
			v->i64[i + j] = b[j];
		}
	}
	return 0;
}

/* Decode M values in ENC from the LEN bytes at P, once holds() agreed. */
static int
values(struct dec *d, int enc, const uint8_t *p, size_t len, size_t m,
    struct vals *v)
{
	if (enc == E_PLAIN)
		return plain(d, p, len, m, v);
	if (enc == E_RLE)
		return rlebools(p, m, v);
	return dictvalues(d, p, len, m, v);
}

static int
dictpage(struct dec *d, const struct page *ph, const uint8_t *p, size_t len)
{
	struct vals v = { 0 };
	size_t n, cap;

	d->hasdict = 0;
	if (ph->nvalues < 0 || ph->nvalues > INT32_MAX)
		return err_fail("corrupt dictionary page header");
	n = (size_t)ph->nvalues;
	if (holds(d, E_PLAIN, p, len, n) < 0)
		return err_prefix("corrupt dictionary page");
	cap = d->dictcap;
	if (d->c->f64) {
		mem_grow(&d->dd, &d->dictcap, n, sizeof(*d->dd));
		v.f64 = d->dd;
	} else if (d->soff) {
		mem_grow(&d->doff, &cap, n, sizeof(*d->doff));
		mem_grow(&d->dlen, &d->dictcap, n, sizeof(*d->dlen));
		v.off = d->doff;
		v.len = d->dlen;
	} else {
		mem_grow(&d->di, &d->dictcap, n, sizeof(*d->di));
		v.i64 = d->di;
	}
	if (plain(d, p, len, n, &v) < 0)
		return err_prefix("corrupt dictionary page");
	d->ndict = n;
	d->hasdict = 1;
	return 0;
}

/* Check N levels, all at most MAX. */
static int
checklevels(const uint32_t *l, size_t n, int max, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i] > (uint32_t)max)
			return err_fail("%s level %lu above maximum %d", what,
			    (unsigned long)l[i], max);
	return 0;
}

/* Values slot AT of the column's own arrays. */
static struct vals
rowslot(struct dec *d, size_t at)
{
	struct vals v = { 0 };

	if (d->c->i64)
		v.i64 = d->c->i64 + at;
	if (d->c->f64)
		v.f64 = d->c->f64 + at;
	if (d->soff) {
		v.off = d->soff + at;
		v.len = d->c->len + at;
	}
	return v;
}

/*
 * Move the M values decoded densely at rows N.. to the K rows N..N+K-1
 * whose valid flag is set, filling null rows, working from the back.
 */
static void
spread(struct dec *d, size_t n, size_t k, size_t m)
{
	const uint8_t *ok = d->c->valid + n;
	size_t i = k, j = m;

	if (d->c->i64) {
		int64_t *x = d->c->i64 + n;

		for (; j < i; i--, j -= ok[i])
			x[i - 1] = ok[i - 1] ? x[j - 1] : 0;
	} else if (d->c->f64) {
		double *x = d->c->f64 + n;

		for (; j < i; i--, j -= ok[i])
			x[i - 1] = ok[i - 1] ? x[j - 1] : NAN;
	} else {
		size_t *off = d->soff + n, *len = d->c->len + n;

		for (; j < i; i--, j -= ok[i]) {
			off[i - 1] = ok[i - 1] ? off[j - 1] : 0;
			len[i - 1] = ok[i - 1] ? len[j - 1] : 0;
		}
	}
}

/*
 * Definition levels of K rows from N on, straight into valid[]; returns
 * how many are present, or -1.
 */
static int64_t
flatlevels(struct dec *d, size_t n, size_t k, const uint8_t *dp,
    size_t dlen)
{
	uint32_t l[PQRLE_BLOCK], max = (uint32_t)d->fd->maxdef;
	uint8_t *valid = d->c->valid + n;
	struct pqrle r;
	size_t i, j, m = 0;
	int64_t cnt;
	int run;

	pqrle_init(&r, dp, dlen, pqrle_bitwidth(max));
	for (i = 0; i < k; i += (size_t)cnt) {
		cnt = pqrle_next(&r, l, k - i < PQRLE_BLOCK ? k - i : PQRLE_BLOCK,
		    &run);
		if (cnt < 0)
			return err_prefix("bad definition levels");
		if (run) {
			if (r.value > max)
				return checklevels(&r.value, 1, (int)max,
				    "definition");
			memset(valid + i, r.value == max, (size_t)cnt);
			m += r.value == max ? (size_t)cnt : 0;
			continue;
		}
		if (checklevels(l, (size_t)cnt, (int)max, "definition") < 0)
			return -1;
		for (j = 0; j < (size_t)cnt; j++)
			m += valid[i + j] = l[j] == max;
	}
	return (int64_t)m;
}

static int
flatpage(struct dec *d, int enc, size_t k, const uint8_t *dp, size_t dlen,
    const uint8_t *p, size_t len)
{
	size_t n = d->rows, m = k;
	int64_t mm;
	struct vals v;

	/*
	 * K may size an allocation only once the page is seen to hold K
	 * levels or, without levels, K values.
	 */
	if (d->fd->maxdef == 0) {
		if (holds(d, enc, p, len, k) < 0)
			return -1;
	} else if (pqrle_decode(dp, dlen, pqrle_bitwidth((uint32_t)d->fd->maxdef),
	    NULL, k) < 0) {
		return err_prefix("bad definition levels");
	}
	growrows(d, n + k);
	if (d->fd->maxdef > 0) {
		if ((mm = flatlevels(d, n, k, dp, dlen)) < 0)
			return -1;
		m = (size_t)mm;
		if (holds(d, enc, p, len, m) < 0)
			return -1;
	} else {
		memset(d->c->valid + n, 1, k);
	}
	v = rowslot(d, n);
	if (values(d, enc, p, len, m, &v) < 0)
		return -1;
	spread(d, n, k, m);
	d->rows += k;
	return 0;
}

static int
listpage(struct dec *d, int enc, size_t k, const uint8_t *p, size_t len)
{
	const struct field *fd = d->fd;
	const uint32_t *rl = d->rl, *dl = d->dl;
	struct pq_column *c = d->c;
	struct vals v = { 0 };
	size_t m = 0, i, j = 0, rows = d->rows;
	int ok;

	for (i = 0; i < k; i++) {
		/* Rows are bounded by the footer's, before any grows. */
		if (rl[i] == 0 && rows++ == d->rowend)
			return err_fail("more rows than the row group's %lld",
			    (long long)d->rgrows);
		if (rl[i] == 0)
			d->inrow = 1;
		else if (!d->inrow)
			return err_fail("first repetition level is not 0");
		else if (dl[i] < (uint32_t)fd->defelem)
			return err_fail("repetition level 1 for an empty list");
		m += dl[i] == (uint32_t)fd->maxdef;
	}
	if (holds(d, enc, p, len, m) < 0)
		return -1;
	mem_grow(&d->tmp, &d->tmpcap, m, sizeof(*d->tmp));
	v.i64 = d->tmp;
	if (values(d, enc, p, len, m, &v) < 0)
		return -1;
	growvals(d, d->nval + k);
	for (i = 0; i < k; i++) {
		if (rl[i] == 0) {
			growrows(d, d->rows + 1);
			c->list_off[d->rows] = (int64_t)d->nval;
			c->valid[d->rows++] = dl[i] >= (uint32_t)fd->defrow;
		}
		if (dl[i] < (uint32_t)fd->defelem)
			continue;
		ok = dl[i] == (uint32_t)fd->maxdef;
		c->list_valid[d->nval] = ok;
		c->list_val[d->nval++] = ok ? d->tmp[j++] : 0;
	}
	return 0;
}

/* Both level kinds of a list page, whole, into d->rl and d->dl. */
static int
listlevels(struct dec *d, size_t k, const uint8_t *rp, size_t rlen,
    const uint8_t *dp, size_t dlen)
{
	const struct field *fd = d->fd;
	int rbw = pqrle_bitwidth((uint32_t)fd->maxrep);
	int dbw = pqrle_bitwidth((uint32_t)fd->maxdef);

	/* Check both before allocating for either. */
	if (pqrle_decode(rp, rlen, rbw, NULL, k) < 0)
		return err_prefix("bad repetition levels");
	if (pqrle_decode(dp, dlen, dbw, NULL, k) < 0)
		return err_prefix("bad definition levels");
	mem_grow(&d->rl, &d->rlcap, k, sizeof(*d->rl));
	mem_grow(&d->dl, &d->dlcap, k, sizeof(*d->dl));
	pqrle_decode(rp, rlen, rbw, d->rl, k);
	pqrle_decode(dp, dlen, dbw, d->dl, k);
	if (checklevels(d->rl, k, fd->maxrep, "repetition") < 0 ||
	    checklevels(d->dl, k, fd->maxdef, "definition") < 0)
		return -1;
	return 0;
}

/*
 * A data page of K levels: repetition levels at RP, definition levels at
 * DP (each present only if the column has them), values at P.
 */
static int
datapage(struct dec *d, int enc, size_t k, const uint8_t *rp, size_t rlen,
    const uint8_t *dp, size_t dlen, const uint8_t *p, size_t len)
{
	if (d->fd->kind != PQ_LIST_INT64)
		return flatpage(d, enc, k, dp, dlen, p, len);
	if (listlevels(d, k, rp, rlen, dp, dlen) < 0)
		return -1;
	return listpage(d, enc, k, p, len);
}

/* Inflate a gzip (or zlib) page with the column's one z_stream. */
static int
gunzip(struct dec *d, uint8_t *dst, size_t ulen, const uint8_t *src,
    size_t clen)
{
	z_stream *z = &d->z;
	int r;

	if (!d->zinit) {
		memset(z, 0, sizeof(*z));
		if (inflateInit2(z, 15 + 32) != Z_OK)	/* gzip or zlib */
			err_die("out of memory");
		d->zinit = 1;
	} else if (inflateReset(z) != Z_OK) {
		return err_fail("corrupt gzip data");
	}
	z->next_in = (Bytef *)(uintptr_t)src;
	z->avail_in = (uInt)clen;
	z->next_out = dst;
	z->avail_out = (uInt)ulen;
	for (;;) {
		r = inflate(z, Z_FINISH);
		/* Concatenated gzip members are one stream. */
		if (r == Z_STREAM_END && z->avail_in > 0 && z->avail_out > 0 &&
		    inflateReset(z) == Z_OK)
			continue;
		break;
	}
	if (r != Z_STREAM_END || z->avail_out != 0)
		return err_fail("corrupt gzip data");
	return 0;
}

/*
 * The ULEN bytes the CLEN bytes at SRC uncompress to with CODEC: SRC
 * itself when uncompressed, else d->buf.  NULL on error.
 */
static const uint8_t *
expand(struct dec *d, int codec, const uint8_t *src, size_t clen,
    size_t ulen)
{
	size_t n;
	char b[16];

	if (codec == C_NONE)
		return src;
	if (codec >= (int)NELEM(maxratio) || maxratio[codec] == 0 ||
	    ulen / maxratio[codec] > clen + 4096)
		return err_fail("corrupt page: %zu bytes cannot come from %zu "
		    "compressed with %s", ulen, clen, CODECNAME(codec, b)),
		    NULL;
	mem_grow(&d->buf, &d->bufcap, ulen + 1, 1);
	switch (codec) {
	case C_SNAPPY:
		n = ulen;
		if (snappy_uncompressed_length((const char *)src, clen, &n) !=
		    SNAPPY_OK || n != ulen ||
		    snappy_uncompress((const char *)src, clen, (char *)d->buf,
		    &n) != SNAPPY_OK || n != ulen)
			return err_fail("corrupt snappy data"), NULL;
		break;
	case C_GZIP:
		if (gunzip(d, d->buf, ulen, src, clen) < 0)
			return NULL;
		break;
	case C_ZSTD:
		if (d->zstd == NULL && (d->zstd = ZSTD_createDCtx()) == NULL)
			err_die("out of memory");
		n = ZSTD_decompressDCtx(d->zstd, d->buf, ulen, src, clen);
		if (ZSTD_isError(n) || n != ulen)
			return err_fail("corrupt zstd data"), NULL;
		break;
	}
	return d->buf;
}

static void
parse_dpv1(struct thrift *t, struct page *ph)
{
	int last = 0, id, type;

	ph->sub = ph->type == P_DATA;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		switch (id) {
		case 1:
			ph->nvalues = pq_intfield(t, type, -1);
			break;
		case 2:
			ph->enc = pq_enumfield(t, type);
			break;
		case 3:
			ph->defenc = pq_enumfield(t, type);
			break;
		case 4:
			ph->repenc = pq_enumfield(t, type);
			break;
		default:
			thrift_skip(t, type);
		}
	}
}

static void
parse_dict(struct thrift *t, struct page *ph)
{
	int last = 0, id, type;

	ph->sub = ph->type == P_DICT;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		if (id == 1)
			ph->nvalues = pq_intfield(t, type, -1);
		else if (id == 2)
			ph->enc = pq_enumfield(t, type);
		else
			thrift_skip(t, type);
	}
}

static void
parse_dpv2(struct thrift *t, struct page *ph)
{
	int last = 0, id, type;

	ph->sub = ph->type == P_DATA_V2;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		switch (id) {
		case 1:
			ph->nvalues = pq_intfield(t, type, -1);
			break;
		case 4:
			ph->enc = pq_enumfield(t, type);
			break;
		case 5:
			ph->deflen = pq_intfield(t, type, -1);
			break;
		case 6:
			ph->replen = pq_intfield(t, type, -1);
			break;
		case 7:
			if (type == THRIFT_TRUE || type == THRIFT_FALSE)
				ph->compressed = type == THRIFT_TRUE;
			break;
		default:
			thrift_skip(t, type);
		}
	}
}

static void
parse_page(struct thrift *t, struct page *ph)
{
	int last = 0, id, type;

	memset(ph, 0, sizeof(*ph));
	ph->type = ph->enc = -1;
	ph->usize = ph->csize = ph->nvalues = ph->deflen = ph->replen = -1;
	ph->defenc = ph->repenc = E_RLE;
	ph->compressed = 1;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		if (id == 1)
			ph->type = pq_enumfield(t, type);
		else if (id == 2)
			ph->usize = pq_intfield(t, type, -1);
		else if (id == 3)
			ph->csize = pq_intfield(t, type, -1);
		else if (id == 5 && type == THRIFT_STRUCT)
			parse_dpv1(t, ph);
		else if (id == 7 && type == THRIFT_STRUCT)
			parse_dict(t, ph);
		else if (id == 8 && type == THRIFT_STRUCT)
			parse_dpv2(t, ph);
		else
			thrift_skip(t, type);
	}
}

/* Data page v1: [rep levels][def levels][values], all compressed. */
static int
page_v1(struct dec *d, const struct page *ph, const uint8_t *p, size_t len)
{
	const struct field *fd = d->fd;
	const uint8_t *rp = NULL, *dp = NULL;
	size_t rlen = 0, dlen = 0, pos = 0;

	/* Each level section: 4-byte length, then RLE (supported()). */
	if (fd->maxrep > 0) {
		if (len < 4 || (rlen = pqrle_le32(p)) > len - 4)
			return err_fail("truncated repetition levels");
		rp = p + 4;
		pos = 4 + rlen;
	}
	if (fd->maxdef > 0) {
		if (len - pos < 4 || (dlen = pqrle_le32(p + pos)) > len - pos - 4)
			return err_fail("truncated definition levels");
		dp = p + pos + 4;
		pos += 4 + dlen;
	}
	return datapage(d, ph->enc, (size_t)ph->nvalues, rp, rlen, dp, dlen,
	    p + pos, len - pos);
}

/* Data page v2: [rep levels][def levels] raw, then values, compressed. */
static int
page_v2(struct dec *d, const struct page *ph, int codec, const uint8_t *p)
{
	size_t k = (size_t)ph->nvalues, rlen, dlen, lv;
	const uint8_t *vp;

	if (ph->replen < 0 || ph->deflen < 0 ||
	    ph->replen > ph->csize - ph->deflen ||
	    ph->replen + ph->deflen > ph->usize)
		return err_fail("corrupt page header: level sizes");
	rlen = (size_t)ph->replen;
	dlen = (size_t)ph->deflen;
	lv = rlen + dlen;
	if (!ph->compressed)
		codec = C_NONE;
	vp = expand(d, codec, p + lv, (size_t)ph->csize - lv,
	    (size_t)ph->usize - lv);
	if (vp == NULL)
		return -1;
	return datapage(d, ph->enc, k, p, rlen, p + rlen, dlen, vp,
	    (codec == C_NONE ? (size_t)ph->csize : (size_t)ph->usize) - lv);
}

static int
page(struct dec *d, const struct page *ph, int codec, const uint8_t *p,
    int64_t left)
{
	const uint8_t *up;
	size_t len;

	if (!ph->sub)
		return err_fail("corrupt page header: no %s header",
		    ph->type == P_DICT ? "dictionary page" : "data page");
	if (ph->type != P_DICT && (ph->nvalues < 0 || ph->nvalues > left ||
	    ph->nvalues > INT32_MAX))
		return err_fail("corrupt page header: %lld values, %lld left "
		    "in the column chunk", (long long)ph->nvalues,
		    (long long)left);
	if (ph->type == P_DATA_V2)
		return page_v2(d, ph, codec, p);
	if ((up = expand(d, codec, p, (size_t)ph->csize,
	    (size_t)ph->usize)) == NULL)
		return -1;
	len = (size_t)(codec == C_NONE ? ph->csize : ph->usize);
	if (ph->type == P_DICT)
		return dictpage(d, ph, up, len);
	return page_v1(d, ph, up, len);
}

/* Refuse, naming it, what we do not decode, before decoding anything. */
static int
supported(const struct dec *d, const struct page *ph)
{
	const struct field *fd = d->fd;
	int enc = ph->enc;
	char b[16];

	if (!ph->sub)
		return 0;	/* page() reports it */
	if (ph->type == P_DICT) {
		if (enc != E_PLAIN && enc != E_PLAIN_DICT)
			return err_fail("unsupported dictionary encoding %s",
			    ENCNAME(enc, b));
		return 0;
	}
	if (enc != E_PLAIN && enc != E_PLAIN_DICT && enc != E_RLE_DICT &&
	    (enc != E_RLE || fd->type != T_BOOLEAN))
		return err_fail("unsupported encoding %s", ENCNAME(enc, b));
	if (ph->type != P_DATA)
		return 0;
	if (fd->maxrep > 0 && ph->repenc != E_RLE)
		return err_fail("unsupported level encoding %s",
		    ENCNAME(ph->repenc, b));
	if (fd->maxdef > 0 && ph->defenc != E_RLE)
		return err_fail("unsupported level encoding %s",
		    ENCNAME(ph->defenc, b));
	return 0;
}

static int
chunkpages(struct dec *d, const struct chunk *ch, int64_t start)
{
	const struct pq_file *f = d->f;
	struct thrift t;
	struct page ph;
	int64_t levels = 0, pos = start, end = start + ch->size, hdr;

	while (levels < ch->nvalues) {
		if (pos >= end)
			return err_fail("column chunk ends after %lld of %lld "
			    "values", (long long)levels,
			    (long long)ch->nvalues);
		hdr = pos;
		thrift_init(&t, f->data + pos, (size_t)(end - pos));
		parse_page(&t, &ph);
		if (t.bad)
			return err_prefix("corrupt page header at offset %lld",
			    (long long)hdr);
		pos = t.p - f->data;
		if (ph.csize < 0 || ph.usize < 0 || ph.csize > end - pos ||
		    ph.usize > INT32_MAX)
			return err_fail("corrupt page header at offset %lld: "
			    "page sizes", (long long)hdr);
		if (f->budget > 0 && (uint64_t)ph.usize > f->budget)
			return err_fail("page at offset %lld: %lld bytes "
			    "uncompressed, over the budget of %zu bytes",
			    (long long)hdr, (long long)ph.usize, f->budget);
		if (ph.type == P_DATA || ph.type == P_DATA_V2 ||
		    ph.type == P_DICT) {
			if (supported(d, &ph) < 0)
				return -1;
			if (page(d, &ph, ch->codec, f->data + pos,
			    ch->nvalues - levels) < 0)
				return err_prefix("page at offset %lld",
				    (long long)hdr);
			if (ph.type != P_DICT)
				levels += ph.nvalues;
		}
		pos += ph.csize;
	}
	return 0;
}

/*
 * Check what chunk CH of a row group of NROWS rows claims before
 * anything is sized by it: pages may claim no more than their chunk
 * (page()), and a chunk of a flat column holds one level per row, so
 * that memory follows the footer's row count; a list column's levels
 * (its elements) are bounded by the budget alone.
 */
static int
claims(struct dec *d, const struct chunk *ch, int64_t nrows)
{
	size_t budget = d->f->budget;

	if (d->fd->maxrep == 0 && ch->nvalues != nrows)
		return err_fail("column chunk has %lld values, its row group "
		    "%lld rows", (long long)ch->nvalues, (long long)nrows);
	if (ch->nvalues > INT64_MAX - d->claimed)
		return err_fail("corrupt column chunk metadata");
	d->claimed += ch->nvalues;
	if (budget > 0 && (uint64_t)d->claimed > budget / PQ_VALUE_BYTES)
		return err_fail("%lld values claimed, over the budget of %zu "
		    "bytes (%d per value)", (long long)d->claimed, budget,
		    PQ_VALUE_BYTES);
	return 0;
}

static int
chunk(struct dec *d, size_t rg)
{
	const struct pq_file *f = d->f;
	const struct chunk *ch = &f->chunks[f->rgs[rg].first + d->fd->leaf];
	size_t row0 = d->rows;
	int64_t start;
	char b[16], b2[16];

	if (ch->external)
		return err_fail("column data in another file");
	if (!ch->meta)
		return err_fail("no column metadata (encrypted file?)");
	if (ch->type != d->fd->type)
		return err_fail("column chunk has type %s, schema says %s",
		    TYPENAME(ch->type, b), TYPENAME(d->fd->type, b2));
	if (ch->codec != C_NONE && ch->codec != C_SNAPPY &&
	    ch->codec != C_GZIP && ch->codec != C_ZSTD)
		return err_fail("unsupported codec %s",
		    CODECNAME(ch->codec, b));
	start = ch->data_off;
	if (ch->dict_off > 0 && ch->dict_off < start)
		start = ch->dict_off;
	if (ch->nvalues < 0 || start < 4 || ch->size < 0 ||
	    start > (int64_t)f->end || ch->size > (int64_t)f->end - start)
		return err_fail("corrupt column chunk metadata");
	if (claims(d, ch, f->rgs[rg].nrows) < 0)
		return -1;
	d->rgrows = f->rgs[rg].nrows;
	d->rowend = row0 + (size_t)d->rgrows;
	d->hasdict = 0;
	d->inrow = 0;
	if (chunkpages(d, ch, start) < 0)
		return -1;
	if ((int64_t)(d->rows - row0) != f->rgs[rg].nrows)
		return err_fail("%zu rows decoded, footer says %lld",
		    d->rows - row0, (long long)f->rgs[rg].nrows);
	return 0;
}

/* Set up the arrays of KIND, each non-NULL. */
static void
start(struct dec *d, int kind)
{
	struct pq_column *c = d->c;

	c->kind = kind;
	c->valid = mem_alloc(1);
	d->rowcap = 1;
	switch (kind) {
	case PQ_BOOL:
	case PQ_INT64:
		c->i64 = mem_alloc(sizeof(*c->i64));
		break;
	case PQ_DOUBLE:
		c->f64 = mem_alloc(sizeof(*c->f64));
		break;
	case PQ_STRING:
		d->soff = mem_alloc(sizeof(*d->soff));
		c->len = mem_alloc(sizeof(*c->len));
		/* Offset 0 is the empty string of null rows. */
		growblob(d, 1);
		c->blob[d->bloblen++] = '\0';
		break;
	case PQ_LIST_INT64:
		c->list_off = mem_alloc(sizeof(*c->list_off));
		growvals(d, 1);
		break;
	}
}

static void
finish(struct dec *d)
{
	struct pq_column *c = d->c;
	size_t i, o;

	c->n = (int64_t)d->rows;
	if (d->soff) {
		/*
		 * Offsets become pointers in place, now that the blob has
		 * stopped moving: same size, and allocated memory takes
		 * the type of what is stored in it.
		 */
		_Static_assert(sizeof(size_t) == sizeof(char *),
		    "offsets and pointers differ in size");
		for (i = 0; i < d->rows; i++) {
			o = d->soff[i];
			((const char **)(void *)d->soff)[i] = c->blob + o;
		}
		c->str = (const char **)(void *)d->soff;
		d->soff = NULL;
	}
	if (c->list_off)
		c->list_off[d->rows] = (int64_t)d->nval;
}

static void
scrap(struct dec *d)
{
	free(d->buf);
	free(d->rl);
	free(d->dl);
	free(d->tmp);
	free(d->di);
	free(d->dd);
	free(d->doff);
	free(d->dlen);
	free(d->soff);
	ZSTD_freeDCtx(d->zstd);
	if (d->zinit)
		inflateEnd(&d->z);
}

int
pq_read_column(const struct pq_file *f, size_t i, struct pq_column *out)
{
	struct dec d;
	size_t rg;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (pq_column_kind(f, i) < 0)
		return -1;
	memset(&d, 0, sizeof(d));
	d.f = f;
	d.fd = &f->fields[i];
	d.c = out;
	start(&d, d.fd->kind);
	for (rg = 0; rg < f->nrgs && rc == 0; rg++) {
		if ((rc = chunk(&d, rg)) < 0 && f->nrgs > 1)
			err_prefix("row group %zu", rg);
	}
	if (rc == 0)
		finish(&d);
	scrap(&d);
	if (rc < 0) {
		pq_column_free(out);
		return err_prefix("column '%s'", d.fd->name);
	}
	return 0;
}

void
pq_column_free(struct pq_column *c)
{
	free(c->valid);
	free(c->i64);
	free(c->f64);
	free((void *)c->str);
	free(c->len);
	free(c->list_off);
	free(c->list_val);
	free(c->list_valid);
	free(c->blob);
	memset(c, 0, sizeof(*c));
}
