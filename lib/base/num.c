#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"

int
num_i64(const char *s, size_t n, int64_t *v)
{
	size_t k = 0;
	uint64_t x = 0;
	int neg = 0;

	if (n > 0 && (s[0] == '-' || s[0] == '+'))
		neg = s[k++] == '-';
	if (k == n)
		return -1;
	for (; k < n; k++) {
		if (s[k] < '0' || s[k] > '9' || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[k] - '0');
	}
	if (x > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -1;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

/*
 * Clinger's fast path: a plain decimal [-]D[.F] of at most 15 digits is
 * an integer M < 2^53 over 10^K, K <= 15, both exact doubles, so M / 10^K
 * (one correctly rounded division) is the double nearest the decimal:
 * what strtod gives.  Times in ms (6 decimals) take this path.  Returns
 * 0 with *V, or -1 for anything else (exponents, more digits).
 */
static int
fast_f64(const char *s, size_t n, double *v)
{
	static const double p10[16] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
	    1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	uint64_t m = 0;
	size_t k = 0, nd = 0, frac = 0;
	int neg = 0, dot = 0;

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
	/* Extended precision (x87) would round twice: strtod instead. */
	return -1;
#endif
	if (k < n && (s[k] == '-' || s[k] == '+'))
		neg = s[k++] == '-';
	for (; k < n; k++) {
		if (s[k] == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (s[k] < '0' || s[k] > '9' || ++nd > 15)
			return -1;
		m = m * 10 + (uint64_t)(s[k] - '0');
		frac += (size_t)dot;
	}
	if (nd == 0)
		return -1;
	*v = (double)m / p10[frac];
	if (neg)
		*v = -*v;
	return 0;
}

int
num_f64(const char *s, size_t n, double *v)
{
	char tmp[64], *end;
	size_t k;

	if (n == 0 || n >= sizeof(tmp))
		return -1;
	if (fast_f64(s, n, v) == 0)
		return 0;
	for (k = 0; k < n; k++)
		if (!strchr("0123456789+-.eE", s[k]) || s[k] == '\0')
			return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	*v = strtod(tmp, &end);
	if (*end != '\0' || !isfinite(*v))
		return -1;
	return 0;
}

int
num_x64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t k;
	int d;

	if (n == 0 || n > 16)
		return -1;
	for (k = 0; k < n; k++) {
		if (s[k] >= '0' && s[k] <= '9')
			d = s[k] - '0';
		else if (s[k] >= 'a' && s[k] <= 'f')
			d = s[k] - 'a' + 10;
		else if (s[k] >= 'A' && s[k] <= 'F')
			d = s[k] - 'A' + 10;
		else
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

char *
num_u64_digits(char *end, uint64_t v)
{
	static const char pairs[] =
	    "00010203040506070809101112131415161718192021222324252627282930"
	    "31323334353637383940414243444546474849505152535455565758596061"
	    "62636465666768697071727374757677787980818283848586878889909192"
	    "939495969798" "99";

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

int
num_f64_i64(double x, int64_t *v)
{
	/* Both bounds are exact doubles (powers of two); NaN fails both. */
	if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
		return -1;
	*v = (int64_t)x;
	return 0;
}
