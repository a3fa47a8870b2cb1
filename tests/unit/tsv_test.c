#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/tsv.h"
#include "unit.h"

static void
f64(double v, const char *want)
{
	char b[400];

	tsv_fmt_f64(b, v);
	CHECK_STR(b, want);
	CHECK(v != v || *want == '\0' || strtod(b, NULL) == v);
}

/* The significant digits of the plain decimal S (no exponent): those
 * between the first and the last nonzero digit. */
static int
sig_digits(const char *s)
{
	int n = 0, z = 0, started = 0;

	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (*s == '0') {
			z += started;
			continue;
		}
		n += started ? z + 1 : 1;
		started = 1;
		z = 0;
	}
	return n;
}

/*
 * tsv_fmt_f64 against its definition on 30,000 doubles (random bit
 * patterns of every magnitude, and short decimals k / 1000): the text has
 * no exponent, reads back to the value, and one significant digit fewer
 * (%.*e, correctly rounded) does not.
 */
static void
shortest(void)
{
	uint64_t x = 88172645463325252ULL;
	char b[400], e[40];
	int i, n, bad = 0;
	double v;

	for (i = 0; i < 30000; i++) {
		if (i < 25000) {
			uint64_t bits;

			bits = unit_rand(&x);
			memcpy(&v, &bits, sizeof(v));
			if (!isfinite(v) || v == 0)
				continue;
		} else {
			v = (double)(i - 27500) / 1000;
		}
		tsv_fmt_f64(b, v);
		n = sig_digits(b);
		if (strchr(b, 'e') != NULL || strtod(b, NULL) != v)
			bad++;
		else if (n > 1) {
			snprintf(e, sizeof(e), "%.*e", n - 2, v);
			bad += strtod(e, NULL) == v;
		}
	}
	CHECK_INT(bad, 0);
}

static void
ms(long long ns, const char *want)
{
	char b[32];

	tsv_fmt_ms(b, ns);
	CHECK_STR(b, want);
}

static void
writer(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct tsv_writer *w = tsv_wopen(fp, "mem");
	const char *hdr[] = { "A", "B", NULL };

	CHECK_INT(tsv_header(w, hdr), 0);
	tsv_str(w, "a\tb\\c\nd\re");
	tsv_ms(w, 1500);
	CHECK_INT(tsv_eor(w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(out, "A\tB\na\\tb\\\\c\\nd\\re\t0.0015\n");
	free(out);
}

/* The smallest double: "0." then 323 zeros then "5", with no exponent. */
static void
denormal(void)
{
	char want[400];

	memset(want, '0', 325);
	want[1] = '.';
	want[325] = '5';
	want[326] = '\0';
	f64(5e-324, want);
}

static void
i64s(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct tsv_writer *w = tsv_wopen(fp, "mem");

	tsv_i64(w, 0);
	tsv_i64(w, -42);
	tsv_i64(w, INT64_MIN);
	tsv_i64(w, INT64_MAX);
	CHECK_INT(tsv_eor(w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(out, "0\t-42\t-9223372036854775808\t9223372036854775807\n");
	free(out);
}

/* Rows formatted by memory writers and appended with tsv_rows equal the
 * same rows written straight, small blocks (into the buffer) and large
 * ones (past it); a failed write is reported. */
static void
memory_rows(void)
{
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0, n, i;
	FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
	struct tsv_writer *wa = tsv_wopen(fa, "a"), *wb = tsv_wopen(fb, "b");
	struct tsv_writer *m = tsv_mopen();
	const char *rows;
	FILE *full;

	tsv_str(wb, "head");
	CHECK_INT(tsv_eor(wb), 0);
	tsv_str(wa, "head");
	CHECK_INT(tsv_eor(wa), 0);
	/* Blocks of 1, 10 and 20,000 rows (the last > the 64 KiB buffer). */
	for (n = 1; n <= 20000; n = n == 1 ? 10 : n * 2000) {
		tsv_mreset(m);
		for (i = 0; i < n; i++) {
			tsv_i64(m, (int64_t)(i * n));
			tsv_str(m, "x\ty");
			CHECK_INT(tsv_eor(m), 0);
			tsv_i64(wa, (int64_t)(i * n));
			tsv_str(wa, "x\ty");
			CHECK_INT(tsv_eor(wa), 0);
		}
		rows = tsv_mbuf(m, &i);
		CHECK_INT(tsv_rows(wb, rows, i), 0);
	}
	CHECK_INT(tsv_wclose(wa), 0);
	CHECK_INT(tsv_wclose(wb), 0);
	fclose(fa);
	fclose(fb);
	CHECK_INT(la > 200000, 1);
	CHECK_INT(la == lb && memcmp(a, b, la) == 0, 1);
	/* A block past the buffer to a full disk fails at once. */
	if ((full = fopen("/dev/full", "w")) != NULL) {
		struct tsv_writer *wf = tsv_wopen(full, "full");

		setvbuf(full, NULL, _IONBF, 0);
		rows = tsv_mbuf(m, &i);
		CHECK_INT(tsv_rows(wf, rows, i), -1);
		CHECK_STR(err_msg(), "full: write error: No space left on device");
		CHECK_INT(tsv_wclose(wf), -1);
		fclose(full);
	}
	CHECK_INT(tsv_wclose(m), 0);
	free(a);
	free(b);
}

int
main(void)
{
	memory_rows();
	f64(0, "0");
	f64(1, "1");
	f64(-2.5, "-2.5");
	f64(1e-05, "0.00001");
	f64(0.1, "0.1");
	f64(1e22, "10000000000000000000000");
	f64(56.92704226615405, "56.92704226615405");
	f64(0.05743899999155383, "0.05743899999155383");
	denormal();
	shortest();
	f64(NAN, "");
	ms(35869654956LL, "35869.654956");
	ms(2000000, "2");
	ms(-1500, "-0.0015");
	ms(0, "0");
	ms(1, "0.000001");
	ms(-35869654956LL, "-35869.654956");
	ms(INT64_MIN, "-9223372036854.775808");
	i64s();
	writer();
	return unit_done("tsv");
}
