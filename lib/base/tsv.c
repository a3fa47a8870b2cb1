#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/tsv.h"

struct tsv_writer {
	FILE *fp;
	const char *name;
	char *buf;
	size_t len, cap;
	int nfield;
	int failed;
};

struct tsv_writer *
tsv_wopen(FILE *fp, const char *name)
{
	struct tsv_writer *w = mem_calloc(1, sizeof(*w));

	w->fp = fp;
	w->name = name;
	w->cap = 1 << 16;
	w->buf = mem_alloc(w->cap);
	return w;
}

static void
put(struct tsv_writer *w, const char *s, size_t n)
{
	if (w->len + n > w->cap)
		mem_grow(&w->buf, &w->cap, w->len + n, 1);
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void
sep(struct tsv_writer *w)
{
	if (w->nfield++ > 0)
		put(w, "\t", 1);
}

void
tsv_strn(struct tsv_writer *w, const char *s, size_t n)
{
	size_t i, start = 0;

	sep(w);
	for (i = 0; i < n; i++) {
		const char *esc;

		switch (s[i]) {
		case '\t': esc = "\\t"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\\': esc = "\\\\"; break;
		default: continue;
		}
		put(w, s + start, i - start);
		put(w, esc, 2);
		start = i + 1;
	}
	put(w, s + start, n - start);
}

void
tsv_str(struct tsv_writer *w, const char *s)
{
	if (s == NULL)
		tsv_empty(w);
	else
		tsv_strn(w, s, strlen(s));
}

void
tsv_empty(struct tsv_writer *w)
{
	sep(w);
}

void
tsv_i64(struct tsv_writer *w, int64_t v)
{
	char b[NUM_U64_DIGITS + 1], *d;
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	/* By hand: snprintf shows in profiles of million-row frames. */
	sep(w);
	d = num_u64_digits(b + sizeof(b), a);
	if (v < 0)
		*--d = '-';
	put(w, d, (size_t)(b + sizeof(b) - d));
}

void
tsv_bool(struct tsv_writer *w, int v)
{
	sep(w);
	put(w, v ? "1" : "0", 1);
}

size_t
tsv_fmt_ms(char *buf, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t ip = a / 1000000, fp = a % 1000000;
	char d[NUM_U64_DIGITS], *s;
	size_t n = 0;

	/* By hand, not printf: every time field of every row comes here. */
	if (ns < 0)
		buf[n++] = '-';
	s = num_u64_digits(d + sizeof(d), ip);
	memcpy(buf + n, s, (size_t)(d + sizeof(d) - s));
	n += (size_t)(d + sizeof(d) - s);
	if (fp) {
		/* The six digits of the fraction, leading zeros included:
		 * those of 1000000 + fp but its first. */
		buf[n++] = '.';
		s = num_u64_digits(d + sizeof(d), 1000000 + fp);
		memcpy(buf + n, s + 1, 6);
		n += 6;
		while (buf[n - 1] == '0')
			n--;
	}
	buf[n] = '\0';
	return n;
}

void
tsv_ms(struct tsv_writer *w, int64_t ns)
{
	char b[32];

	sep(w);
	put(w, b, tsv_fmt_ms(b, ns));
}

/* Expand the digits D (no dot) with decimal exponent E (value 0.D x 10^(E))
 * into plain notation. */
static size_t
plain(char *buf, int neg, const char *d, int e)
{
	size_t nd = strlen(d), n = 0;
	int i;

	if (neg)
		buf[n++] = '-';
	if (e <= 0) {
		buf[n++] = '0';
		buf[n++] = '.';
		for (i = 0; i < -e; i++)
			buf[n++] = '0';
		memcpy(buf + n, d, nd);
		n += nd;
	} else if ((size_t)e >= nd) {
		memcpy(buf + n, d, nd);
		n += nd;
		for (i = 0; i < e - (int)nd; i++)
			buf[n++] = '0';
	} else {
		memcpy(buf + n, d, (size_t)e);
		n += (size_t)e;
		buf[n++] = '.';
		memcpy(buf + n, d + e, nd - (size_t)e);
		n += nd - (size_t)e;
	}
	buf[n] = '\0';
	return n;
}

size_t
tsv_fmt_f64(char *buf, double v)
{
	char e[40], f[40], d[24];
	int p, lo, hi, ep, exp10, nd = 0;
	char *s;

	if (!isfinite(v)) {
		buf[0] = '\0';
		return 0;
	}
	if (v == 0) {
		strcpy(buf, "0");
		return 1;
	}
	/*
	 * The shortest %.*e that round-trips (17 significant digits always
	 * do).  Round-tripping is monotonic in the precision.  Means and
	 * ratios of measurements mostly need 16 or 17 digits: those are
	 * tried first (1 or 2 conversions), then a binary search below.  E
	 * keeps the shortest that round-trips so far (EP digits after the
	 * point), so that the answer is not converted a second time.
	 */
	lo = 0, hi = 16, ep = 15;
	snprintf(e, sizeof(e), "%.*e", 15, v);
	if (strtod(e, NULL) != v) {
		lo = 16;
	} else {
		hi = 15;
		snprintf(f, sizeof(f), "%.*e", 14, v);
		if (strtod(f, NULL) != v) {
			lo = 15;
		} else {
			hi = ep = 14;
			memcpy(e, f, sizeof(e));
		}
	}
	while (lo < hi) {
		p = (lo + hi) / 2;
		snprintf(f, sizeof(f), "%.*e", p, v);
		if (strtod(f, NULL) == v) {
			hi = ep = p;
			memcpy(e, f, sizeof(e));
		} else {
			lo = p + 1;
		}
	}
	if (ep != lo)
		snprintf(e, sizeof(e), "%.*e", lo, v);
	for (s = e + (v < 0); *s != 'e'; s++)
		if (*s != '.')
			d[nd++] = *s;
	d[nd] = '\0';
	while (nd > 1 && d[nd - 1] == '0')
		d[--nd] = '\0';
	exp10 = atoi(s + 1) + 1;
	return plain(buf, v < 0, d, exp10);
}

void
tsv_f64(struct tsv_writer *w, double v)
{
	char b[400];

	sep(w);
	put(w, b, tsv_fmt_f64(b, v));
}

static int
flush(struct tsv_writer *w)
{
	/* errno cleared first: a stale one must not name the failure. */
	errno = 0;
	if (w->len && !w->failed && fwrite(w->buf, 1, w->len, w->fp) != w->len)
		w->failed = errno ? errno : EIO;
	w->len = 0;
	return w->failed ? -1 : 0;
}

int
tsv_eor(struct tsv_writer *w)
{
	put(w, "\n", 1);
	w->nfield = 0;
	if (w->fp != NULL && w->len >= (1 << 16) - 512 && flush(w) != 0)
		return err_fail("%s: write error: %s", w->name,
		    strerror(w->failed));
	return w->failed ? -1 : 0;
}

int
tsv_header(struct tsv_writer *w, const char *const *names)
{
	for (; *names; names++)
		tsv_str(w, *names);
	return tsv_eor(w);
}

int
tsv_wclose(struct tsv_writer *w)
{
	int rc;

	if (w->fp == NULL) {	/* a memory writer */
		free(w->buf);
		free(w);
		return 0;
	}
	rc = flush(w);
	errno = 0;
	if (rc == 0 && fflush(w->fp) != 0) {
		w->failed = errno ? errno : EIO;
		rc = -1;
	}
	if (rc != 0)
		err_fail("%s: write error: %s", w->name, strerror(w->failed));
	free(w->buf);
	free(w);
	return rc;
}

struct tsv_writer *
tsv_mopen(void)
{
	return tsv_wopen(NULL, "<memory>");
}

const char *
tsv_mbuf(const struct tsv_writer *m, size_t *len)
{
	*len = m->len;
	return m->buf;
}

void
tsv_mreset(struct tsv_writer *m)
{
	m->len = 0;
	m->nfield = 0;
}

int
tsv_rows(struct tsv_writer *w, const char *s, size_t n)
{
	/* Large blocks go straight out, past the buffer. */
	if (w->len + n > w->cap && flush(w) == 0 && n >= w->cap) {
		errno = 0;
		if (fwrite(s, 1, n, w->fp) != n)
			w->failed = errno ? errno : EIO;
	} else if (!w->failed) {
		put(w, s, n);
	}
	if (w->failed)
		return err_fail("%s: write error: %s", w->name,
		    strerror(w->failed));
	return 0;
}

void
tsv_raw(struct tsv_writer *w, const char *s, size_t n)
{
	sep(w);
	put(w, s, n);
}

/* ---- reading ---- */

struct tsv_reader {
	FILE *fp;
	const char *name;
	long line;
	char *buf;		/* the current line, NUL instead of LF */
	size_t len, cap;
	size_t ncols;
	char **cols;		/* header names, unescaped */
	size_t *off, *flen;	/* fields of the current line */
	char **scratch;		/* unescaped copies, per field */
	size_t *scap;
	unsigned odd;		/* LINE_* bytes of the current line */
};

/*
 * What a file starting with the N bytes at S is when it is none of the
 * TSV the filters read, by its magic bytes (each format's specification:
 * zip "PK\3\4" or an empty zip's "PK\5\6", xz FD '7zXZ' 00, gzip 1F 8B,
 * zstd 28 B5 2F FD, Parquet "PAR1", SQLite "SQLite format 3\0"), as the
 * message's tail: what it is and which tool reads it; NULL otherwise.
 */
static const char *
binary_kind(const char *s, size_t n)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} k[] = {
		{ "PK\3\4", 4, "a zip archive, not TSV: nsysjax-extract reads "
		    "nsys-jax archives and writes their frames as TSV" },
		{ "PK\5\6", 4, "an empty zip archive, not TSV" },
		{ "\xfd" "7zXZ\0", 6, "xz-compressed, not TSV: xz -dc it into "
		    "the filter (nsysjax-extract reads an archive's xz "
		    "members itself)" },
		{ "\x1f\x8b", 2, "gzip-compressed, not TSV: gzip -dc it into "
		    "the filter" },
		{ "\x28\xb5\x2f\xfd", 4, "zstd-compressed, not TSV: zstd -dc "
		    "it into the filter" },
		{ "PAR1", 4, "a Parquet file, not TSV: nsysjax-extract reads "
		    "the nsys-jax archive that holds it" },
		{ "SQLite format 3", 16, "an SQLite database, not TSV: "
		    "nsysjax-extract reads nsys SQLite exports" },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (n >= k[i].len && memcmp(s, k[i].magic, k[i].len) == 0)
			return k[i].what;
	return NULL;
}

/* Read one line into r->buf; 1, 0 at EOF, -1 on a read error.  Its
 * bytes are checked by split (line_ok). */
static int
read_line(struct tsv_reader *r)
{
	ssize_t n = getline(&r->buf, &r->cap, r->fp);

	if (n < 0) {
		if (ferror(r->fp))
			return err_fail("%s: read error: %s", r->name,
			    strerror(errno));
		return 0;
	}
	r->line++;
	r->len = (size_t)n;
	/* Input handed to the wrong tool: said so, not its first byte that
	 * no TSV holds. */
	if (r->line == 1 && binary_kind(r->buf, r->len))
		return err_fail("%s: %s", r->name,
		    binary_kind(r->buf, r->len));
	if (r->len > 0 && r->buf[r->len - 1] == '\n')
		r->buf[--r->len] = '\0';
	return 1;
}

/*
 * The line's bytes, a block at a time: one pass finds the TABs and notes
 * CR, NUL and backslash, where a memchr per field and per check scanned
 * a 120-byte line 22 times (a third of a filter's time at 256
 * processes).  Per block, a mask of its TABs and one of its other bytes
 * below 0x20 or backslashes (rare: looked at one by one), bit
 * SCAN_BIT(i) for byte i.  With SSE2 (every x86-64) a block is 16 bytes
 * (compare, then movemask); elsewhere, or with TSV_SWAR defined (the
 * tests of both), 8 in a 64-bit word, "SIMD within a register" (Lamport,
 * "Multiple byte processing with full-word instructions", CACM 1975)
 * with the exact zero-byte test of Anderson's Bit Twiddling Hacks.
 */
#if defined(__SSE2__) && !defined(TSV_SWAR)
#include <emmintrin.h>

#define SCAN_BLOCK 16
#define SCAN_BYTE(bit) (bit)

static inline void
scan_block(const char *s, uint64_t *tab, uint64_t *other)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i t = _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'));
	__m128i c = _mm_cmpeq_epi8(_mm_and_si128(v,
	    _mm_set1_epi8((char)0xe0)), _mm_setzero_si128());
	__m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));

	*tab = (uint32_t)_mm_movemask_epi8(t);
	*other = (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_andnot_si128(t,
	    c), b));
}
#else
#define SCAN_BLOCK 8
#define SCAN_BYTE(bit) ((bit) / 8)
#define SWAR_ONES ((uint64_t)0x0101010101010101)
#define SWAR_LOW7 ((uint64_t)0x7f7f7f7f7f7f7f7f)

/* The high bit of each zero byte of V, and no other bit: no carry crosses
 * a byte, as (v & 0x7f) + 0x7f is at most 0xfe. */
static inline uint64_t
zero_bytes(uint64_t v)
{
	return ~(((v & SWAR_LOW7) + SWAR_LOW7) | v | SWAR_LOW7);
}

static inline void
scan_block(const char *s, uint64_t *tab, uint64_t *other)
{
	uint64_t w;

	/* The first byte the least significant, whatever the machine's
	 * order. */
	memcpy(&w, s, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	*tab = zero_bytes(w ^ (SWAR_ONES * '\t'));
	*other = (zero_bytes(w & (SWAR_ONES * 0xe0)) & ~*tab) |
	    zero_bytes(w ^ (SWAR_ONES * '\\'));
}
#endif

enum { LINE_CR = 1, LINE_NUL = 2, LINE_BACKSLASH = 4 };

/* The LINE_* bits of byte C. */
static unsigned
odd_byte(unsigned char c)
{
	return c == '\r' ? LINE_CR : c == '\0' ? LINE_NUL :
	    c == '\\' ? LINE_BACKSLASH : 0;
}

/* Field N of the current line is [FROM, TO): noted when N < MAX. */
static inline void
field_at(struct tsv_reader *r, size_t max, size_t n, size_t from, size_t to)
{
	if (n < max) {
		r->off[n] = from;
		r->flen[n] = to - from;
	}
}

/*
 * Split the current line at TABs, the first MAX fields' bounds into
 * r->off and r->flen, and note in r->odd the LINE_* bytes it holds.
 * Returns the number of fields.
 */
static size_t
split(struct tsv_reader *r, size_t max)
{
	const char *s = r->buf;
	size_t len = r->len, i = 0, from = 0, n = 0;
	unsigned odd = 0;

	for (; i + SCAN_BLOCK <= len; i += SCAN_BLOCK) {
		uint64_t tab, other;

		scan_block(s + i, &tab, &other);
		for (; other != 0; other &= other - 1)
			odd |= odd_byte((unsigned char)s[i +
			    SCAN_BYTE((size_t)__builtin_ctzll(other))]);
		for (; tab != 0; tab &= tab - 1) {
			size_t at = i + SCAN_BYTE((size_t)__builtin_ctzll(tab));

			field_at(r, max, n++, from, at);
			from = at + 1;
		}
	}
	for (; i < len; i++) {
		if (s[i] == '\t') {
			field_at(r, max, n++, from, i);
			from = i + 1;
		} else {
			odd |= odd_byte((unsigned char)s[i]);
		}
	}
	field_at(r, max, n++, from, len);
	r->odd = odd;
	return n;
}

/* The current line's CR or NUL (split's r->odd) as an error, or 0. */
static int
line_ok(const struct tsv_reader *r)
{
	if (r->odd & LINE_CR)
		return err_fail("%s:%ld: carriage return in line (TSV lines end "
		    "in LF; a CR in a field is written \\r)", r->name, r->line);
	/* Text has none, and every C string taken from a field would end
	 * there. */
	if (r->odd & LINE_NUL)
		return err_fail("%s:%ld: NUL byte in line (TSV is text)",
		    r->name, r->line);
	return 0;
}

/* Unescape S[0..N) into OUT (room for N + 1); -1 on a bad escape. */
static int
unescape(const char *s, size_t n, char *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[k++] = s[i];
			continue;
		}
		if (++i == n)
			return -1;
		switch (s[i]) {
		case 't': out[k++] = '\t'; break;
		case 'n': out[k++] = '\n'; break;
		case 'r': out[k++] = '\r'; break;
		case '\\': out[k++] = '\\'; break;
		default: return -1;
		}
	}
	out[k] = '\0';
	return 0;
}

static int
escapes_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\\' && (++i == n || !strchr("tnr\\", s[i]) ||
		    s[i] == '\0'))
			return 0;
	return 1;
}

static int
read_header(struct tsv_reader *r)
{
	size_t i, j, n;
	int rc = read_line(r);

	if (rc <= 0)
		return rc < 0 ? -1 : err_fail("%s: no header line", r->name);
	n = split(r, 0);
	if (line_ok(r) != 0)
		return -1;
	r->ncols = n;
	r->cols = mem_calloc(n, sizeof(*r->cols));
	r->off = mem_calloc(n + 1, sizeof(*r->off));
	r->flen = mem_calloc(n + 1, sizeof(*r->flen));
	r->scratch = mem_calloc(n, sizeof(*r->scratch));
	r->scap = mem_calloc(n, sizeof(*r->scap));
	split(r, n);
	for (i = 0; i < n; i++) {
		r->cols[i] = mem_alloc(r->flen[i] + 1);
		if (unescape(r->buf + r->off[i], r->flen[i], r->cols[i]) != 0)
			return err_fail("%s:1: bad escape in column name", r->name);
		if (r->cols[i][0] == '\0')
			return err_fail("%s:1: empty column name (column %zu)",
			    r->name, i + 1);
		for (j = 0; j < i; j++)
			if (strcmp(r->cols[i], r->cols[j]) == 0)
				return err_fail("%s:1: duplicate column '%s'",
				    r->name, r->cols[i]);
	}
	return 0;
}

struct tsv_reader *
tsv_ropen(FILE *fp, const char *name)
{
	struct tsv_reader *r = mem_calloc(1, sizeof(*r));

	r->fp = fp;
	r->name = name;
	if (read_header(r) != 0) {
		tsv_rclose(r);
		return NULL;
	}
	return r;
}

void
tsv_rclose(struct tsv_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->ncols; i++) {
		if (r->cols)
			free(r->cols[i]);
		if (r->scratch)
			free(r->scratch[i]);
	}
	free(r->cols);
	free(r->scratch);
	free(r->scap);
	free(r->off);
	free(r->flen);
	free(r->buf);
	free(r);
}

const char *
tsv_name(const struct tsv_reader *r)
{
	return r->name;
}

size_t
tsv_ncols(const struct tsv_reader *r)
{
	return r->ncols;
}

const char *
tsv_colname(const struct tsv_reader *r, size_t i)
{
	return i < r->ncols ? r->cols[i] : NULL;
}

long
tsv_col(const struct tsv_reader *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->ncols; i++)
		if (strcmp(r->cols[i], name) == 0)
			return (long)i;
	return -1;
}

long
tsv_require(const struct tsv_reader *r, const char *col)
{
	long i = tsv_col(r, col);

	if (i < 0)
		return err_fail("%s: missing column '%s'", r->name, col);
	return i;
}

int
tsv_columns(const struct tsv_reader *r, const char *const *names, size_t n,
    uint64_t optional, long *col)
{
	size_t k;

	for (k = 0; k < n; k++) {
		col[k] = tsv_col(r, names[k]);
		if (col[k] < 0 && !(k < 64 && (optional >> k & 1)))
			return (int)tsv_require(r, names[k]);
	}
	return 0;
}

int
tsv_next(struct tsv_reader *r)
{
	size_t n;
	int rc = read_line(r);

	if (rc <= 0)
		return rc;
	n = split(r, r->ncols);
	if (line_ok(r) != 0)
		return -1;
	if (n != r->ncols)
		return err_fail("%s:%ld: %zu field%s, the header has %zu",
		    r->name, r->line, n, n == 1 ? "" : "s", r->ncols);
	if ((r->odd & LINE_BACKSLASH) && !escapes_ok(r->buf, r->len))
		return err_fail("%s:%ld: bad escape (only \\t \\n \\r \\\\ "
		    "may follow a backslash)", r->name, r->line);
	return 1;
}

long
tsv_lineno(const struct tsv_reader *r)
{
	return r->line;
}

const char *
tsv_rawline(const struct tsv_reader *r, size_t *len)
{
	*len = r->len;
	return r->buf;
}

const char *
tsv_rawfield(const struct tsv_reader *r, size_t i, size_t *len)
{
	*len = r->flen[i];
	return r->buf + r->off[i];
}

const char *
tsv_field(struct tsv_reader *r, size_t i)
{
	const char *s = r->buf + r->off[i];
	size_t n = r->flen[i];

	mem_grow(&r->scratch[i], &r->scap[i], n + 1, 1);
	if (memchr(s, '\\', n) == NULL) {
		memcpy(r->scratch[i], s, n);
		r->scratch[i][n] = '\0';
	} else {
		(void)unescape(s, n, r->scratch[i]);	/* checked by tsv_next */
	}
	return r->scratch[i];
}

static int
bad_number(struct tsv_reader *r, size_t i, const char *what)
{
	size_t n = r->flen[i] > 40 ? 40 : r->flen[i];

	return err_fail("%s:%ld: column %s: not %s: '%.*s%s'", r->name,
	    r->line, r->cols[i], what, (int)n, r->buf + r->off[i],
	    r->flen[i] > 40 ? "..." : "");
}

int
tsv_get_i64(struct tsv_reader *r, size_t i, int64_t *v, int allow_empty)
{
	if (r->flen[i] == 0 && allow_empty)
		return 1;
	if (num_i64(r->buf + r->off[i], r->flen[i], v) != 0)
		return bad_number(r, i, "an integer");
	return 0;
}

int
tsv_get_f64(struct tsv_reader *r, size_t i, double *v, int allow_empty)
{
	if (r->flen[i] == 0 && allow_empty)
		return 1;
	if (num_f64(r->buf + r->off[i], r->flen[i], v) != 0)
		return bad_number(r, i, "a number");
	return 0;
}

int
tsv_get_ms(struct tsv_reader *r, size_t i, int64_t *ns, int allow_empty)
{
	const char *s = r->buf + r->off[i];
	size_t n = r->flen[i], k = 0, digits = 0;
	int64_t ip = 0, fp = 0, scale = 1000000;
	int neg = 0, rc;
	double d;

	/* The exact path: [-]digits[.up to 6 digits]. */
	if (n > 0 && s[0] == '-')
		neg = 1, k = 1;
	for (; k < n && s[k] >= '0' && s[k] <= '9' && digits < 12; k++, digits++)
		ip = ip * 10 + (s[k] - '0');
	if (digits > 0 && k < n && s[k] == '.') {
		for (k++; k < n && s[k] >= '0' && s[k] <= '9' && scale > 1; k++) {
			scale /= 10;
			fp += (s[k] - '0') * scale;
		}
	}
	/* 12 digits: below 10^18 ns, within TSV_MAX_NS. */
	if (digits > 0 && k == n) {
		*ns = (neg ? -1 : 1) * (ip * 1000000 + fp);
		return 0;
	}
	if ((rc = tsv_get_f64(r, i, &d, allow_empty)) != 0)
		return rc;
	if (fabs(d) * 1e6 > (double)TSV_MAX_NS)
		return bad_number(r, i, "a time in ms (at most 2^60 ns)");
	*ns = llround(d * 1e6);
	return 0;
}
