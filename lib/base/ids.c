/* ids: id lists in a TSV field (see ids.h for the grammar). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "base/ids.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/tsv.h"

/* How much of a bad field an error message shows. */
#define SHOW 60

static int
syntax(const char *s, size_t len, size_t at, const char *name, long line,
    const char *col)
{
	return err_fail("%s:%ld: column %s: not a list of ids separated by "
	    "single spaces, at character %zu: '%.*s%s'", name, line, col,
	    at + 1, (int)(len > SHOW ? SHOW : len), s, len > SHOW ? "..." : "");
}

/* The id of the digits S[0..N) (N > 0, no leading zero but "0"), or -1
 * when it does not fit int64_t. */
static int
one(const char *s, size_t n, size_t *id)
{
	int64_t v;

	if (num_i64(s, n, &v) != 0)
		return -1;
#if SIZE_MAX < INT64_MAX
	if ((uint64_t)v > SIZE_MAX)
		return -1;
#endif
	*id = (size_t)v;
	return 0;
}

int
ids_parse(const char *s, size_t len, size_t bound, struct ids *out,
    const char *name, long line, const char *col)
{
	size_t i = 0, j, id;

	out->n = 0;
	while (i < len) {
		/* One space between ids: none first, none last, no two. */
		if (i > 0 && (s[i++] != ' ' || i == len))
			return syntax(s, len, i - 1, name, line, col);
		for (j = i; j < len && s[j] >= '0' && s[j] <= '9'; j++)
			;
		if (j == i || (s[i] == '0' && j - i > 1))
			return syntax(s, len, i, name, line, col);
		if (one(s + i, j - i, &id) != 0)
			return err_fail("%s:%ld: column %s: id out of range at "
			    "character %zu: '%.*s'", name, line, col, i + 1,
			    (int)(j - i > SHOW ? SHOW : j - i), s + i);
		if (id >= bound)
			return err_fail("%s:%ld: column %s: no stack frame %zu "
			    "(character %zu)", name, line, col, id, i + 1);
		mem_grow(&out->v, &out->cap, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = id;
		i = j;
	}
	return 0;
}

int
ids_read(struct tsv_reader *r, size_t col, size_t bound, struct ids *out)
{
	size_t len;
	const char *s = tsv_rawfield(r, col, &len);

	return ids_parse(s, len, bound, out, tsv_name(r), tsv_lineno(r),
	    tsv_colname(r, col));
}

void
ids_write(struct tsv_writer *w, const size_t *v, size_t n)
{
	char *buf = mem_alloc(n * 21 + 1), *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%zu", i ? " " : "", v[i]);
	tsv_strn(w, buf, (size_t)(p - buf));
	free(buf);
}

void
ids_free(struct ids *out)
{
	free(out->v);
	out->v = NULL;
	out->n = out->cap = 0;
}
