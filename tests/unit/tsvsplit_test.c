/*
 * The TSV reader's line scan (base/tsv.c split: TABs, CR, NUL and
 * backslashes found a block at a time) against the definition, on
 * random lines: fields are what lies between TABs, a CR or a NUL
 * anywhere is an error (CR named first), then a field count other than
 * the header's, then a backslash not followed by t, n, r or backslash.
 * The bytes are drawn from those the scan's masks tell apart (TAB, CR,
 * NUL, backslash, other controls, 0x20, 0x7f, bytes with the high bit,
 * letters), and the lines' lengths span several blocks and their tails.
 * tsvsplit_swar_test.c runs the same on the portable 8-byte path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/tsv.h"
#include "unit.h"

#ifndef TSVSPLIT_NAME
#define TSVSPLIT_NAME "tsvsplit"
#endif

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t
next(void)
{
	return (uint32_t)(unit_rand(&rng) >> 16);
}

/* A byte of a field: mostly plain, sometimes one the scan must see. */
static char
field_byte(void)
{
	static const unsigned char odd[] = { '\r', '\0', '\\', 0x01, 0x1f,
	    0x20, 0x7f, 0x80, 0xe0, 0xff, 0x09 ^ 0x80, 0x5c ^ 0x80, 0x0d ^ 0x20 };
	uint32_t r = next() % 100;

	if (r < 96)
		return (char)('a' + r % 26);
	return (char)odd[next() % sizeof(odd)];
}

/* What the reader must say of LINE[0..LEN) under a header of NCOL
 * columns: 0 and the fields, or the error's kind. */
enum { OK, CR, NUL, COUNT, ESCAPE };

static int
expect(const char *line, size_t len, size_t ncol, size_t *off, size_t *flen)
{
	size_t i, n = 0, from = 0;

	if (memchr(line, '\r', len))
		return CR;
	if (memchr(line, '\0', len))
		return NUL;
	for (i = 0; i <= len; i++)
		if (i == len || line[i] == '\t') {
			if (n < ncol) {
				off[n] = from;
				flen[n] = i - from;
			}
			n++;
			from = i + 1;
		}
	if (n != ncol)
		return COUNT;
	for (i = 0; i < len; i++)
		if (line[i] == '\\' && (++i == len ||
		    !strchr("tnr\\", line[i])))
			return ESCAPE;
	return OK;
}

static int
kind(const char *msg)
{
	if (strstr(msg, "carriage return"))
		return CR;
	if (strstr(msg, "NUL byte"))
		return NUL;
	if (strstr(msg, "the header has"))
		return COUNT;
	if (strstr(msg, "bad escape"))
		return ESCAPE;
	return -1;
}

static void
one(void)
{
	char text[2048], *line;
	size_t ncol = 1 + next() % 20, i, len, hlen, off[32], flen[32];
	size_t want_n = next() % 8 == 0 ? ncol + next() % 3 - 1 : ncol;
	struct tsv_reader *r;
	FILE *fp;
	int want, got = OK;

	hlen = 0;
	for (i = 0; i < ncol; i++)
		hlen += (size_t)sprintf(text + hlen, "%sc%zu", i ? "\t" : "",
		    i);
	text[hlen++] = '\n';
	line = text + hlen;
	len = 0;
	for (i = 0; i < want_n; i++) {
		size_t k, flen_i = next() % 5 == 0 ? next() % 40 : next() % 9;

		if (i > 0)
			line[len++] = '\t';
		for (k = 0; k < flen_i; k++)
			line[len++] = field_byte();
		if (next() % 16 == 0) {		/* an escape, good or bad */
			line[len++] = '\\';
			line[len++] = "tnr\\x"[next() % 5];
		}
	}
	line[len] = '\n';
	want = expect(line, len, ncol, off, flen);
	if ((fp = fmemopen(text, hlen + len + 1, "r")) == NULL)
		abort();
	if ((r = tsv_ropen(fp, "t")) == NULL)
		abort();
	if (tsv_next(r) != 1)
		got = kind(err_msg());
	CHECK_INT(got, want);
	if (got == OK && want == OK) {
		for (i = 0; i < ncol; i++) {
			size_t fl;
			const char *f = tsv_rawfield(r, i, &fl);

			CHECK(fl == flen[i] && memcmp(f, line + off[i], fl) == 0);
		}
	}
	tsv_rclose(r);
	fclose(fp);
}

int
main(void)
{
	int i;

	for (i = 0; i < 20000; i++)
		one();
	return unit_done(TSVSPLIT_NAME);
}
