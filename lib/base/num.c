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

int
num_f64(const char *s, size_t n, double *v)
{
	char tmp[64], *end;
	size_t k;

	if (n == 0 || n >= sizeof(tmp))
		return -1;
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
