#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "tsv.h"

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
	char b[24];
	size_t n = sizeof(b);
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	/* By hand: snprintf shows in profiles of million-row frames. */
	sep(w);
	do
		b[--n] = (char)('0' + a % 10);
	while ((a /= 10) != 0);
	if (v < 0)
		b[--n] = '-';
	put(w, b + n, sizeof(b) - n);
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
	char d[24];
	size_t n = 0, nd = 0;
	int i;

	/* By hand, not printf: every time field of every row comes here. */
	if (ns < 0)
		buf[n++] = '-';
	do
		d[nd++] = (char)('0' + ip % 10);
	while ((ip /= 10) != 0);
	while (nd > 0)
		buf[n++] = d[--nd];
	if (fp) {
		buf[n++] = '.';
		for (i = 5; i >= 0; i--) {
			buf[n + (size_t)i] = (char)('0' + fp % 10);
			fp /= 10;
		}
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
	char e[40], d[24];
	int p, exp10, nd = 0;
	char *s;

	if (!isfinite(v)) {
		buf[0] = '\0';
		return 0;
	}
	if (v == 0) {
		strcpy(buf, "0");
		return 1;
	}
	/* Shortest %.*e that round-trips: at most 17 significant digits. */
	for (p = 0; p < 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p, v);
		if (strtod(e, NULL) == v)
			break;
	}
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
	if (w->len >= (1 << 16) - 512 && flush(w) != 0)
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
	int rc = flush(w);

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
