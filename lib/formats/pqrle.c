/*
 * The RLE/bit-packed hybrid of parquet (pqrle.h), moved out of parquet.c:
 * run headers, bit unpacking, the resumable decoder.
 */
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "formats/pqrle.h"

/* Bits needed to store 0..MAX. */
int
pqrle_bitwidth(uint32_t max)
{
	int n = 0;

	while (max) {
		n++;
		max >>= 1;
	}
	return n;
}

static int
uvarint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	int shift;

	*v = 0;
	for (shift = 0; shift < 64 && p < end; shift += 7) {
		if (shift == 63 && *p > 1)
			return -1;
		*v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80)) {
			*pp = p;
			return 0;
		}
	}
	return -1;
}

int
pqrle_init(struct pqrle *r, const uint8_t *p, size_t len, int bw)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->end = p ? p + len : p;
	r->bw = bw;
	if (bw < 0 || bw > 32)
		return err_fail("RLE bit width %d out of range", bw);
	return 0;
}

/* Start the next run. */
static int
rle_run(struct pqrle *r)
{
	uint64_t h, groups, avail = (uint64_t)(r->end - r->p);
	size_t vbytes = ((size_t)r->bw + 7) / 8, j;

	if (r->p == r->end || uvarint(&r->p, r->end, &h) < 0)
		return err_fail("truncated RLE run header");
	avail = (uint64_t)(r->end - r->p);
	if (h & 1) {
		/*
		 * A final run may stop short of its last group: only the
		 * values actually read must be present (checked there).
		 */
		groups = h >> 1;
		if (groups > (uint64_t)1 << 50)
			groups = (uint64_t)1 << 50;
		r->left = groups * 8;
		r->run = r->p;
		r->runlen = groups * r->bw < avail ? groups * r->bw : avail;
		r->at = 0;
		r->p += r->runlen;
	} else {
		if (vbytes > avail)
			return err_fail("truncated RLE run");
		r->run = NULL;
		for (r->value = 0, j = 0; j < vbytes; j++)
			r->value |= (uint32_t)r->p[j] << (8 * j);
		r->p += vbytes;
		r->left = h >> 1;
	}
	return 0;
}

/*
 * CNT values of BW bits from bit offset BIT of P, which has AVAIL bytes,
 * enough for all of them.  Whole 8-byte loads while they fit, then a
 * zero-padded copy for the last few values.
 */
static void
unpack(const uint8_t *p, size_t avail, int bw, uint64_t bit, uint32_t *out,
    size_t cnt)
{
	uint64_t mask = ((uint64_t)1 << bw) - 1, w;
	uint8_t tmp[8];
	size_t j = 0, at;

	if (bw == 0) {
		memset(out, 0, cnt * sizeof(*out));
		return;
	}
	for (; j < cnt && (bit >> 3) + 8 <= avail; j++, bit += bw)
		out[j] = (uint32_t)(pqrle_le64(p + (bit >> 3)) >> (bit & 7) & mask);
	for (; j < cnt; j++, bit += bw) {
		at = bit >> 3;
		memset(tmp, 0, sizeof(tmp));
		memcpy(tmp, p + at, avail - at);
		w = pqrle_le64(tmp);
		out[j] = (uint32_t)(w >> (bit & 7) & mask);
	}
}

/*
 * The next at most MAX values, returning how many (> 0), or -1.  When they
 * are one repeated value, *RUN is set and the value is r->value; else
 * they are written to BUF (or, if BUF is NULL, only checked).
 */
int64_t
pqrle_next(struct pqrle *r, uint32_t *buf, size_t max, int *run)
{
	uint64_t cnt;

	while (r->left == 0)
		if (rle_run(r) < 0)
			return -1;
	cnt = r->left < max ? r->left : max;
	r->left -= cnt;
	*run = r->run == NULL;
	if (*run)
		return (int64_t)cnt;
	if ((r->at + cnt * r->bw + 7) / 8 > r->runlen)
		return err_fail("truncated bit-packed run");
	if (buf)
		unpack(r->run, r->runlen, r->bw, r->at, buf, (size_t)cnt);
	r->at += cnt * r->bw;
	return (int64_t)cnt;
}

/* The next N values into OUT, or only check they are there if OUT is NULL. */
int
pqrle_read(struct pqrle *r, uint32_t *out, size_t n)
{
	int64_t cnt, j;
	int run;

	while (n > 0) {
		if ((cnt = pqrle_next(r, out, n, &run)) < 0)
			return -1;
		if (run && out)
			for (j = 0; j < cnt; j++)
				out[j] = r->value;
		if (out)
			out += cnt;
		n -= (size_t)cnt;
	}
	return 0;
}

int
pqrle_decode(const uint8_t *p, size_t len, int bw, uint32_t *out, size_t n)
{
	struct pqrle r;

	if (pqrle_init(&r, p, len, bw) < 0)
		return -1;
	if (n > (size_t)1 << 56)
		return err_fail("too many RLE values");
	return pqrle_read(&r, out, n);
}

