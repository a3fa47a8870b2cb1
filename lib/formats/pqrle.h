/*
 * pqrle: parquet's RLE/bit-packed hybrid encoding (parquet-format
 * Encodings.md), the levels and dictionary indices of every page that
 * formats/parquet.c reads, and the little-endian loads parquet's
 * encodings share.  Memory: none; a decoder is a struct on the caller's
 * stack, reading the caller's bytes.
 */
#ifndef NSYSJAX_PQRLE_H
#define NSYSJAX_PQRLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Little-endian loads (parquet's lengths, plain values, bit-packed runs):
 * one instruction on little-endian machines. */
static inline uint32_t
pqrle_le32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t
pqrle_le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return pqrle_le32(p) | (uint64_t)pqrle_le32(p + 4) << 32;
#endif
}

/*
 * RLE/bit-packed hybrid (Encodings.md): runs, each with a varint header.
 * Header bit 0 set: (header >> 1) groups of 8 values packed LSB first in
 * BW bits each.  Clear: (header >> 1) repeats of one value stored in
 * ceil(BW / 8) little-endian bytes.  The decoder is resumable so that
 * callers can decode in small blocks that stay in cache.
 */
struct pqrle {
	const uint8_t *p, *end;	/* next run header, end of data */
	int bw;
	uint64_t left;		/* values left in the current run */
	const uint8_t *run;	/* bit-packed run data, or NULL: RLE run */
	size_t runlen;		/* bytes of it present */
	uint64_t at;		/* bit offset of its next value */
	uint32_t value;		/* RLE run value */
};

#define PQRLE_BLOCK 512		/* values per block, for callers */

/* Bits needed to store 0..MAX (0 for 0): the bit width of levels whose
 * highest value is MAX. */
int pqrle_bitwidth(uint32_t max);

/* Start decoding values of BW bits (0..32) from P[0..LEN) into *R.
 * Returns 0, or -1 with an err message when BW is out of range. */
int pqrle_init(struct pqrle *r, const uint8_t *p, size_t len, int bw);

/*
 * The next at most MAX values, returning how many (> 0), or -1 with an
 * err message (truncated run header, run or bit-packed run).  When they
 * are one repeated value, *RUN is set and the value is r->value; else
 * they are written to BUF (or, if BUF is NULL, only checked).
 */
int64_t pqrle_next(struct pqrle *r, uint32_t *buf, size_t max, int *run);

/* The next N values into OUT, or only check they are there if OUT is
 * NULL: 0, or -1 with pqrle_next's message. */
int pqrle_read(struct pqrle *r, uint32_t *out, size_t n);

/*
 * Decode N values of BW bits (0..32) from the RLE/bit-packed hybrid
 * encoding in the LEN bytes at BUF (no length prefix) into OUT, or only
 * check that they are there if OUT is NULL.  A run may extend past the
 * N-th value and a final bit-packed run may lack the bytes of values
 * past the N-th.  RLE-run values are not masked to BW bits; callers
 * range-check.  Returns 0, or -1 with an err message ("truncated RLE
 * run", ...).
 */
int pqrle_decode(const uint8_t *buf, size_t len, int bw, uint32_t *out,
    size_t n);

#endif
