#include <string.h>

#include "formats/pbtxt.h"

int
pbtxt_next(const char **p, const char *end, const char **line, size_t *len)
{
	const char *s = *p, *e, *l;
	size_t n;

	if (s >= end)
		return 0;
	if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
		e = end;
	for (l = s; l < e && (*l == ' ' || *l == '\t'); l++)
		;
	n = (size_t)(e - l);
	while (n > 0 && (l[n - 1] == ' ' || l[n - 1] == '\r'))
		n--;
	*p = e + (e < end);
	*line = l;
	*len = n;
	return 1;
}

int
pbtxt_field(const char *l, size_t n, const char *key, const char **v,
    size_t *vn)
{
	size_t k = strlen(key), i;

	if (n <= k || memcmp(l, key, k) != 0 || l[k] != ':')
		return 0;
	for (i = k + 1; i < n && l[i] == ' '; i++)
		;
	*v = l + i;
	*vn = n - i;
	if (*vn >= 2 && **v == '"' && (*v)[*vn - 1] == '"') {
		(*v)++;
		*vn -= 2;
	}
	return 1;
}
