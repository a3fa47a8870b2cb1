/*
 * The CSV reader of compile.h: nsys' nvtx_pushpop_trace report through
 * libcsv, one physical line at a time so that errors can name the line a
 * record starts on.
 */
#include <csv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/compile.h"
#include "profile/compile_impl.h"
#include "base/err.h"
#include "base/mem.h"

struct parse {
	int failed;
	int header_done;
	long line;		/* physical line being fed */
	long recline;		/* line the current record started on */
	int atstart;		/* the next line fed starts a record */
	int *map;		/* field index -> column, or -1 */
	size_t nmap, capmap;
	size_t nfield;
	struct compile_range cur;
	struct compile_range *rows;
	size_t n, cap;
};

/* libcsv trims spaces around unquoted fields by default; pandas does not. */
static int
nospace(unsigned char c)
{
	(void)c;
	return 0;
}

static int
parse_i64(const char *s, size_t len, int64_t *v)
{
	uint64_t x = 0, lim = INT64_MAX;
	size_t i = 0;
	int neg = 0;

	if (len > 0 && s[0] == '-') {
		neg = 1;
		lim = (uint64_t)INT64_MAX + 1;
		i = 1;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || x > (lim - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

static void
header_field(struct parse *p, const char *s, size_t len)
{
	int c, col = -1;

	/* A UTF-8 byte order mark before the first name is not part of it. */
	if (p->nmap == 0 && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3;
		len -= 3;
	}
	for (c = 0; c < NCOL; c++) {
		size_t k;

		if (strlen(compile_colname[c]) != len ||
		    memcmp(compile_colname[c], s, len))
			continue;
		for (k = 0; k < p->nmap && p->map[k] != c; k++)
			;
		if (k == p->nmap)	/* a repeated name: the first counts */
			col = c;
		break;
	}
	mem_grow(&p->map, &p->capmap, p->nmap + 1, sizeof(*p->map));
	p->map[p->nmap++] = col;
}

static void
fail_int(struct parse *p, int col, const char *s, size_t len)
{
	p->failed = 1;
	err_fail("line %ld: column %s: not an integer: '%.*s'%s", p->recline,
	    compile_colname[col], (int)(len > 40 ? 40 : len), s,
	    len > 40 ? "..." : "");
}

static void
data_field(struct parse *p, const char *s, size_t len)
{
	struct compile_range *r = &p->cur;
	int64_t *num[NCOL] = {
		[C_START] = &r->start_ns, [C_END] = &r->end_ns,
		[C_DUR] = &r->dur_ns, [C_DCHILD] = &r->dur_child_ns,
		[C_DNONCHILD] = &r->dur_nonchild_ns, [C_TID] = &r->tid,
		[C_NUMCHILD] = &r->num_child, [C_RANGEID] = &r->range_id,
		[C_PARENTID] = &r->parent_id,
	};
	char **str;
	int col;

	if (p->nfield >= p->nmap) {
		p->failed = 1;
		err_fail("line %ld: more than %zu fields, as in the header",
		    p->recline, p->nmap);
		return;
	}
	col = p->map[p->nfield];
	if (col < 0)
		return;
	if (col == C_NAME || col == C_STACK) {
		if (memchr(s, '\0', len) != NULL) {
			p->failed = 1;
			err_fail("line %ld: column %s: NUL byte", p->recline,
			    compile_colname[col]);
			return;
		}
		str = col == C_NAME ? &r->name : &r->range_stack;
		*str = mem_strndup(s, len);
		return;
	}
	if (col == C_PARENTID && len == 0) {
		r->parent_id = -1;
		return;
	}
	if (parse_i64(s, len, num[col]) < 0 ||
	    ((col == C_PARENTID || col == C_RANGEID) && *num[col] < 0))
		fail_int(p, col, s, len);
}

static void
field_cb(void *s, size_t len, void *data)
{
	struct parse *p = data;

	if (p->failed)
		return;
	if (p->header_done)
		data_field(p, s, len);
	else
		header_field(p, s, len);
	p->nfield++;
}

static void
end_header(struct parse *p)
{
	int c;
	size_t k;

	for (c = 0; c < NCOL; c++) {
		for (k = 0; k < p->nmap && p->map[k] != c; k++)
			;
		if (k == p->nmap) {
			p->failed = 1;
			err_fail("missing column %s", compile_colname[c]);
			return;
		}
	}
	p->header_done = 1;
}

static void
record_cb(int c, void *data)
{
	struct parse *p = data;

	(void)c;
	p->atstart = 1;
	if (p->failed)
		return;
	if (!p->header_done) {
		end_header(p);
	} else if (p->nfield != p->nmap) {
		p->failed = 1;
		err_fail("line %ld: %zu fields, header has %zu", p->recline,
		    p->nfield, p->nmap);
		return;
	} else {
		mem_grow(&p->rows, &p->cap, p->n + 1, sizeof(*p->rows));
		p->rows[p->n++] = p->cur;
		memset(&p->cur, 0, sizeof(p->cur));
		p->cur.parent_id = -1;
	}
	p->nfield = 0;
}

static int
feed(struct csv_parser *cp, struct parse *p, const char *csv, size_t len)
{
	const char *s = csv, *end = csv + len;

	while (s < end && !p->failed) {
		const char *nl = memchr(s, '\n', end - s);
		size_t n = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);

		p->line++;
		if (p->atstart) {
			p->recline = p->line;
			p->atstart = 0;
		}
		if (csv_parse(cp, s, n, field_cb, record_cb, p) != n) {
			if (!p->failed)
				err_fail("line %ld: malformed CSV (%s)",
				    p->recline, csv_strerror(csv_error(cp)));
			return -1;
		}
		s += n;
	}
	if (p->failed)
		return -1;
	if (csv_fini(cp, field_cb, record_cb, p) != 0) {
		if (!p->failed)
			err_fail("line %ld: malformed CSV (unterminated quote)",
			    p->recline);
		return -1;
	}
	return p->failed ? -1 : 0;
}

int
compile_parse_csv(const char *csv, size_t len, struct compile_range **r,
    size_t *n)
{
	struct csv_parser cp;
	struct parse p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.atstart = 1;
	p.cur.parent_id = -1;
	if (csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
		return err_fail("cannot start the CSV parser");
	csv_set_space_func(&cp, nospace);
	rc = feed(&cp, &p, csv, len);
	csv_free(&cp);
	free(p.cur.name);
	free(p.cur.range_stack);
	free(p.map);
	if (rc == 0 && !p.header_done)
		rc = err_fail("no header line");
	if (rc < 0) {
		compile_ranges_free(p.rows, p.n);
		return -1;
	}
	*r = p.rows;
	*n = p.n;
	return 0;
}

void
compile_ranges_free(struct compile_range *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].range_stack);
	}
	free(r);
}
