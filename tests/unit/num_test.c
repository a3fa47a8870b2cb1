/*
 * num: decimal parsing.  num_f64 must give strtod's double bit for bit
 * (its fast path divides by a power of ten); tsv_fmt_f64 the shortest
 * decimal that reads back (its search tries 16 and 17 digits first).
 * Random decimals of every shape from a fixed seed, and the edges.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "base/num.h"
#include "base/tsv.h"

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static uint64_t
next(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 0x2545f4914f6cdd1dULL;
}

/* A random decimal: sign, 1..18 digits, a point anywhere or none. */
static size_t
decimal(char *buf)
{
	size_t n = 0, nd = 1 + next() % 18, point = next() % (nd + 2), i;

	if (next() % 3 == 0)
		buf[n++] = '-';
	for (i = 0; i < nd; i++) {
		if (i == point)
			buf[n++] = '.';
		buf[n++] = (char)('0' + next() % 10);
	}
	buf[n] = '\0';
	return n;
}

static void
same_as_strtod(void)
{
	static const char *const edge[] = { "0", "-0", "1.", ".5", "-.5",
	    "123456789012345", "1234567890123456", "0.000001", "999999.999999",
	    "35869.654956", "9007199254740993", "1e5", "+7", "0.1", "0.3" };
	char buf[64];
	size_t i, n, bad = 0;
	double v, w;

	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		CHECK(num_f64(edge[i], strlen(edge[i]), &v) == 0);
		w = strtod(edge[i], NULL);
		CHECK(memcmp(&v, &w, sizeof(v)) == 0);
	}
	for (i = 0; i < 1000000; i++) {
		n = decimal(buf);
		if (num_f64(buf, n, &v) != 0) {
			bad++;
			continue;
		}
		w = strtod(buf, NULL);
		if (memcmp(&v, &w, sizeof(v)) != 0)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK(num_f64(".", 1, &v) != 0);
	CHECK(num_f64("1.2.3", 5, &v) != 0);
	CHECK(num_f64("-", 1, &v) != 0);
}

/* Significant digits of S (plain or %e): leading and trailing zeros
 * dropped. */
static size_t
sigdigits(const char *s)
{
	char d[400];
	size_t n = 0, i = 0;

	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			d[n++] = *s;
	while (n > 0 && d[n - 1] == '0')
		n--;
	while (i < n && d[i] == '0')
		i++;
	return n - i;
}

static void
shortest(void)
{
	char buf[400];
	size_t i, bad = 0, n;
	double v, w;

	for (i = 0; i < 200000; i++) {
		uint64_t bits = next();

		memcpy(&v, &bits, sizeof(v));
		if (i % 2)
			v = (double)(int64_t)(next() % 100000000000ULL) / 1e6 /
			    (double)(1 + next() % 64);
		n = tsv_fmt_f64(buf, v);
		if (n == 0)
			continue;	/* NaN, infinity */
		w = strtod(buf, NULL);
		if (w != v || strchr(buf, 'e') != NULL)
			bad++;
		/* One digit fewer does not read back (shortest). */
		{
			char e[40];
			int p;

			for (p = 0; p < 17; p++) {
				snprintf(e, sizeof(e), "%.*e", p, v);
				if (strtod(e, NULL) == v)
					break;
			}
			snprintf(e, sizeof(e), "%.*e", p, v);
			if (sigdigits(e) != sigdigits(buf))
				bad++;
		}
	}
	CHECK_INT(bad, 0);
}

/* Hexadecimal digests, as "%016llx" writes them (merge.c's heapsums). */
static void
hex(void)
{
	uint64_t v;

	CHECK_INT(num_x64("00000000000000ff", 16, &v), 0);
	CHECK(v == 255);
	CHECK_INT(num_x64("FfFfFfFfFfFfFfFf", 16, &v), 0);
	CHECK(v == UINT64_MAX);
	CHECK_INT(num_x64("0123456789abcdef", 16, &v), 0);
	CHECK(v == 0x0123456789abcdefULL);
	CHECK_INT(num_x64("a", 1, &v), 0);
	CHECK(v == 10);
	CHECK_INT(num_x64("", 0, &v), -1);
	CHECK_INT(num_x64("10000000000000000", 17, &v), -1);
	CHECK_INT(num_x64("0x10", 4, &v), -1);
	CHECK_INT(num_x64("-1", 2, &v), -1);
	CHECK_INT(num_x64(" 1", 2, &v), -1);
	CHECK_INT(num_x64("1g", 2, &v), -1);
}

/* num_u64_digits against snprintf, at every length and pair boundary. */
static void
digits(void)
{
	static const uint64_t v[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999,
	    1000, 12345, 99999, 100000, 1000000, 1999999, 4294967295u,
	    4294967296u, 999999999999999999u, 1000000000000000000u,
	    9223372036854775807u, 9223372036854775808u, UINT64_MAX };
	char buf[NUM_U64_DIGITS + 4], want[32], *d;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		d = num_u64_digits(buf + NUM_U64_DIGITS + 2, v[i]);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		CHECK(d >= buf + 2);
		CHECK(buf[NUM_U64_DIGITS + 2] == 'x' && d[-1] == 'x');
		CHECK((size_t)(buf + NUM_U64_DIGITS + 2 - d) == strlen(want) &&
		    memcmp(d, want, strlen(want)) == 0);
	}
}

/* num_f64_i64: in range truncated toward zero; NaN, infinities and
 * values outside int64_t refused, *V untouched.  The bounds are the
 * doubles -2^63 (in) and 2^63 (out), and the double below 2^63. */
static void
to_i64(void)
{
	int64_t v = 7;

	CHECK(num_f64_i64(132.9, &v) == 0 && v == 132);
	CHECK(num_f64_i64(-2.5, &v) == 0 && v == -2);
	CHECK(num_f64_i64(-9223372036854775808.0, &v) == 0 && v == INT64_MIN);
	CHECK(num_f64_i64(9223372036854774784.0, &v) == 0 &&
	    v == 9223372036854774784LL);
	v = 7;
	CHECK(num_f64_i64(9223372036854775808.0, &v) == -1 && v == 7);
	CHECK(num_f64_i64(-9223372036854777856.0, &v) == -1 && v == 7);
	CHECK(num_f64_i64(1e300, &v) == -1 && v == 7);
	CHECK(num_f64_i64(NAN, &v) == -1 && v == 7);
	CHECK(num_f64_i64(-INFINITY, &v) == -1 && v == 7);
}

int
main(void)
{
	to_i64();
	hex();
	same_as_strtod();
	shortest();
	digits();
	return unit_done("num");
}
