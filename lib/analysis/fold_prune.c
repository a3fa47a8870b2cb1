/*
 * fold_prune: folded stacks cut to what flamegraph.pl can draw
 * (nsysjax-fold --prune; analysis/fold.h).  flamegraph.pl sorts its
 * lines, merges consecutive lines that share a frame at a depth into one
 * rectangle (its flow()), and drops every rectangle narrower than its
 * --minwidth; but it parses, sorts and merges every line first, which is
 * most of its time on the report's graphs.  Here each line is cut after
 * its deepest frame that is drawn, so that what is not drawn adds to the
 * self time of its drawn parent, and equal stacks are added up.  The
 * result is then folded again by the same model and its drawn
 * rectangles compared with the input's; on any difference (names that
 * sort between a frame and its children, flamegraph.pl's runs split
 * apart) the input is written whole.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fold.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/sort.h"
#include "base/strtab.h"

/* flamegraph.pl's $xpad: the image is this much narrower on each side. */
#define PRUNE_XPAD 10

/* One line "stack count" of a folded file. */
struct pline {
	const char *s;		/* the line */
	size_t len;		/* its bytes, without the newline */
	size_t slen;		/* the stack's bytes: s[0..slen) */
	uint64_t count;
};

/* One rectangle of flamegraph.pl's flow(): NAME at DEPTH over
 * [stime, etime) of the counts. */
struct pnode {
	const char *name;
	size_t nlen;
	uint32_t depth, parent;
	uint32_t first;		/* its first line, by sort position */
	size_t end;		/* where the frame ends in that line */
	uint64_t stime, etime;
	int keep;		/* not merged into: its narrow children stay */
};

/* The lines of a file and the rectangles they fold into. */
struct pmodel {
	struct pline *line;
	size_t nline, capline;
	uint32_t *order;	/* the lines in flamegraph.pl's sort order */
	uint32_t *leaf;		/* by line: the node of its deepest frame */
	struct pnode *node;
	size_t nnode, capnode;
	size_t nflowed;		/* lines flowed so far */
	uint64_t total;
};

static void
pmodel_free(struct pmodel *m)
{
	free(m->line);
	free(m->order);
	free(m->leaf);
	free(m->node);
	memset(m, 0, sizeof(*m));
}

/* Perl's \s in a byte string. */
static int
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int
is_num(unsigned char c)
{
	return (c >= '0' && c <= '9') || c == '.';
}

/* S[0..N) is valid UTF-8: flamegraph.pl reads it as such (use open
 * :utf8), where code points sort as the bytes do. */
static int
utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0, k, more;
	uint32_t cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0)
			more = 1, cp = s[i] & 0x1f;
		else if ((s[i] & 0xf0) == 0xe0)
			more = 2, cp = s[i] & 0x0f;
		else if ((s[i] & 0xf8) == 0xf0)
			more = 3, cp = s[i] & 0x07;
		else
			return 0;
		if (i + more >= n)
			return 0;
		for (k = 1; k <= more; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((more == 1 && cp < 0x80) || (more == 2 && cp < 0x800) ||
		    (more == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += more + 1;
	}
	return 1;
}

/*
 * Line L[0..N) as flamegraph.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/ reads it:
 * the count is the run of digits and dots at the end, after one space;
 * the stack is what comes before that space.  Returns 1 and fills P for
 * a line this model reads as flamegraph.pl does (an integer count below
 * 2^53, one count), else 0: a line it ignores, a fractional count, a
 * differential line (a second count), which are not pruned.
 */
static int
parse_line(const char *l, size_t n, struct pline *p)
{
	size_t b = n, i, s;
	uint64_t v = 0;

	while (b > 0 && is_num((unsigned char)l[b - 1]))
		b--;
	if (b == n || b == 0 || !is_space((unsigned char)l[b - 1]) ||
	    l[b] == '.')
		return 0;
	for (i = b; i < n && l[i] != '.'; i++)
		v = v * 10 + (uint64_t)(l[i] - '0');
	if (i - b > 15)
		return 0;
	if (i < n)	/* ".000" only: an integer still */
		for (i++; i < n; i++)
			if (l[i] != '0')
				return 0;
	s = b - 1;
	/* A second count (differential), or one after a space that is not
	 * ASCII: not this model's. */
	for (i = s; i > 0 && is_num((unsigned char)l[i - 1]); i--)
		;
	if (i < s && i > 0 && (is_space((unsigned char)l[i - 1]) ||
	    (unsigned char)l[i - 1] >= 0x80))
		return 0;
	p->s = l;
	p->len = n;
	p->slen = s;
	p->count = v;
	return 1;
}

/* Perl's cmp of two lines: bytes, then the shorter first. */
static int
line_cmp(uint32_t a, uint32_t b, const void *ctx)
{
	const struct pline *l = ctx;
	size_t n = l[a].len < l[b].len ? l[a].len : l[b].len;
	int c = memcmp(l[a].s, l[b].s, n);

	return c ? c : (l[a].len > l[b].len) - (l[a].len < l[b].len);
}

/* Read the lines of DATA[0..LEN) into M, in sort order.  Returns 0, or
 * 1 when a line is not this model's (M then to be written whole). */
static int
pmodel_read(struct pmodel *m, const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;
	size_t i, sorted = 1;
	size_t k;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		k = MEM_PUSH(m->line, m->nline, m->capline);
		if (!parse_line(p, (size_t)(nl - p), &m->line[k]))
			return 1;
		if ((m->total += m->line[k].count) > 9007199254740992ull)
			return 1;
		p = nl + 1;
	}
	if (m->nline > UINT32_MAX)
		return 1;
	m->order = mem_calloc(m->nline ? m->nline : 1, sizeof(*m->order));
	for (i = 0; i < m->nline; i++) {
		m->order[i] = (uint32_t)i;
		if (i > 0 && line_cmp((uint32_t)i - 1, (uint32_t)i, m->line) > 0)
			sorted = 0;
	}
	if (!sorted)
		sort_idx(m->order, m->nline, line_cmp, m->line);
	return 0;
}

/* The frames of stack S[0..N) as perl's split ";" cuts them (trailing
 * empty fields dropped): their ends into *END (grown), their count
 * returned. */
static size_t
split_frames(const char *s, size_t n, size_t **end, size_t *cap)
{
	size_t nf = 0, i, last = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != ';')
			continue;
		mem_grow(end, cap, nf + 1, sizeof(**end));
		(*end)[nf++] = i;
		if (i > (nf > 1 ? (*end)[nf - 2] + 1 : 0))
			last = nf;
	}
	return last;
}

static uint32_t
add_node(struct pmodel *m, const char *name, size_t nlen, uint32_t depth,
    uint32_t parent, size_t end, uint64_t t)
{
	size_t k = MEM_PUSH(m->node, m->nnode, m->capnode);

	m->node[k].first = (uint32_t)m->nflowed;
	m->node[k].name = name;
	m->node[k].nlen = nlen;
	m->node[k].depth = depth;
	m->node[k].parent = parent;
	m->node[k].end = end;
	m->node[k].stime = t;
	return (uint32_t)k;
}

/* flamegraph.pl's flow() over M's lines in order: the rectangles, and
 * each line's deepest one. */
static void
pmodel_flow(struct pmodel *m)
{
	uint32_t *path = NULL;
	size_t cappath = 0, npath = 1, *fe = NULL, capfe = 0, nf, i, d, b;
	uint64_t t = 0;

	m->leaf = mem_calloc(m->nline ? m->nline : 1, sizeof(*m->leaf));
	m->nflowed = 0;
	mem_grow(&path, &cappath, 1, sizeof(*path));
	path[0] = add_node(m, "", 0, 0, 0, 0, 0);
	for (i = 0; i < m->nline; i++) {
		const struct pline *l = &m->line[m->order[i]];

		nf = split_frames(l->s, l->slen, &fe, &capfe);
		/* The frames it shares with the rectangles open now. */
		for (d = 1; d < npath && d <= nf; d++) {
			const struct pnode *o = &m->node[path[d]];

			b = d > 1 ? fe[d - 2] + 1 : 0;
			if (o->nlen != fe[d - 1] - b ||
			    memcmp(o->name, l->s + b, o->nlen) != 0)
				break;
		}
		while (npath > d)
			m->node[path[--npath]].etime = t;
		for (; d <= nf; d++) {
			b = d > 1 ? fe[d - 2] + 1 : 0;
			mem_grow(&path, &cappath, d + 1, sizeof(*path));
			path[d] = add_node(m, l->s + b, fe[d - 1] - b,
			    (uint32_t)d, path[d - 1], fe[d - 1], t);
			npath = d + 1;
		}
		m->leaf[m->order[i]] = path[nf];
		m->nflowed++;
		t += l->count;
	}
	while (npath > 0)
		m->node[path[--npath]].etime = t;
	free(path);
	free(fe);
}

/* The narrowest count flamegraph.pl draws: its $minwidth_time. */
static double
min_time(const struct fold_prune_opts *o, uint64_t total)
{
	double widthpertime = (double)(o->width - 2 * PRUNE_XPAD) /
	    (double)total;

	if (o->percent)
		return (double)total * o->minwidth / 100;
	return o->minwidth / widthpertime;
}

static int
drawn(const struct pnode *n, double mt)
{
	return !((double)(n->etime - n->stime) < mt);
}

/* The rectangles drawn, by depth, width and name. */
static int
node_cmp(const void *a, const void *b, const void *ctx)
{
	const struct pnode *x = a, *y = b;
	uint64_t wx = x->etime - x->stime, wy = y->etime - y->stime;
	size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
	int c;

	(void)ctx;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (wx != wy)
		return wx < wy ? -1 : 1;
	if ((c = memcmp(x->name, y->name, n)) != 0)
		return c;
	return (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

/* The drawn rectangles of M, sorted, into *OUT; their number. */
static size_t
drawn_nodes(const struct pmodel *m, double mt, struct pnode **out)
{
	size_t i, n = 0;

	*out = mem_calloc(m->nnode ? m->nnode : 1, sizeof(**out));
	for (i = 0; i < m->nnode; i++)
		if (drawn(&m->node[i], mt))
			(*out)[n++] = m->node[i];
	sort_stable(*out, n, sizeof(**out), node_cmp, NULL);
	return n;
}

/* Sort position of the first line not before KEY = P[0..N) then byte C
 * (perl's cmp). */
static size_t
lower_bound(const struct pmodel *m, const char *p, size_t n, char c)
{
	size_t lo = 0, hi = m->nline, mid, k;
	int r;

	while (lo < hi) {
		const struct pline *l = &m->line[m->order[mid = lo + (hi - lo) / 2]];

		k = l->len < n ? l->len : n;
		if ((r = memcmp(l->s, p, k)) == 0) {
			if (l->len <= n)
				r = -1;	/* a prefix of KEY, or KEY less C */
			else
				r = (unsigned char)l->s[n] < (unsigned char)c ?
				    -1 : (unsigned char)l->s[n] > (unsigned char)c;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Node K's self line, "stack count", sorts between its frame's siblings
 * whose names start with its name and a byte from ' ' to ':' (x_layers_1
 * and x_layers_10: '0' sorts before ';'); flamegraph.pl would then see
 * the frame split in two.  Such a node is not merged into, nor is its
 * parent (moving a sibling's line out from between would join them).
 */
static int
has_namesakes(const struct pmodel *m, const struct pnode *k)
{
	const struct pline *l = &m->line[m->order[k->first]];
	size_t a = lower_bound(m, l->s, k->end, ' '),
	    b = lower_bound(m, l->s, k->end, ';');

	for (; a < b; a++)
		if (m->line[m->order[a]].slen != k->end)
			return 1;
	return 0;
}

/* The drawn nodes that are not merged into. */
static void
mark_kept(struct pmodel *m, double mt)
{
	size_t i;

	for (i = 1; i < m->nnode; i++)
		if (drawn(&m->node[i], mt) && has_namesakes(m, &m->node[i])) {
			m->node[i].keep = 1;
			m->node[m->node[i].parent].keep = 1;
		}
}

/* One output stack and its count. */
struct pout {
	struct strtab stacks;
	uint64_t *count;
	size_t cap;
};

/*
 * The pruned lines of M (each cut after its deepest drawn frame, equal
 * stacks added up) as text, in sort order, into *TEXT and *TLEN.
 */
static void
prune_text(const struct pmodel *m, double mt, char **text, size_t *tlen)
{
	struct pout o;
	struct pmodel t;
	char digits[NUM_U64_DIGITS], *d;
	size_t i, id, old, n = 0, cap = 0, k;
	uint32_t w, c;
	char *buf = NULL;

	memset(&o, 0, sizeof(o));
	memset(&t, 0, sizeof(t));
	for (i = 0; i < m->nline; i++) {
		const struct pline *l = &m->line[m->order[i]];

		/* W: the deepest drawn frame; C: its child on the way. */
		for (c = w = m->leaf[m->order[i]]; !drawn(&m->node[w], mt);)
			w = m->node[c = w].parent;
		if (m->node[w].keep && c != w)
			w = c;
		id = strtab_intern(&o.stacks, l->s,
		    m->node[w].depth > 0 ? m->node[w].end : 0, NULL);
		if (id >= o.cap) {
			old = o.cap;
			mem_grow(&o.count, &o.cap, id + 1, sizeof(*o.count));
			memset(o.count + old, 0, (o.cap - old) * sizeof(*o.count));
		}
		o.count[id] += l->count;
	}
	for (i = 0; i < o.stacks.n; i++) {
		d = num_u64_digits(digits + sizeof(digits), o.count[i]);
		k = o.stacks.len[i] + 2 + (size_t)(digits + sizeof(digits) - d);
		mem_grow(&buf, &cap, n + k, 1);
		memcpy(buf + n, o.stacks.s[i], o.stacks.len[i]);
		buf[n + o.stacks.len[i]] = ' ';
		memcpy(buf + n + o.stacks.len[i] + 1, d, k - o.stacks.len[i] - 2);
		buf[n + k - 1] = '\n';
		n += k;
	}
	/* In sort order, as flamegraph.pl would sort them. */
	if (n > 0 && pmodel_read(&t, buf, n - 1) == 0) {
		char *sorted = mem_alloc(n);
		size_t at = 0;

		for (i = 0; i < t.nline; i++) {
			const struct pline *l = &t.line[t.order[i]];

			memcpy(sorted + at, l->s, l->len);
			sorted[at + l->len] = '\n';
			at += l->len + 1;
		}
		free(buf);
		buf = sorted;
	}
	pmodel_free(&t);
	strtab_free(&o.stacks);
	free(o.count);
	*text = buf;
	*tlen = n;
}

/* The drawn rectangles of A and B are the same (names, depths, widths). */
static int
same_drawn(const struct pmodel *a, const struct pmodel *b, double mt)
{
	struct pnode *x, *y;
	size_t nx = drawn_nodes(a, mt, &x), ny = drawn_nodes(b, mt, &y), i;
	int same = nx == ny;

	for (i = 0; same && i < nx; i++)
		same = node_cmp(&x[i], &y[i], NULL) == 0;
	free(x);
	free(y);
	return same;
}

static int
write_all(FILE *fp, const char *name, const char *s, size_t n)
{
	if ((n > 0 && fwrite(s, 1, n, fp) != n) || fflush(fp) != 0 ||
	    ferror(fp))
		return err_fail("%s: write error: %s", name, strerror(errno));
	return 0;
}

int
fold_prune(const char *data, size_t len, const struct fold_prune_opts *o,
    FILE *fp, const char *name, struct fold_prune_stats *st)
{
	struct pmodel in, out;
	char *text = NULL;
	size_t tlen = 0;
	size_t all = len;
	double mt;
	int rc, whole = 1;

	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	memset(st, 0, sizeof(*st));
	if (len > 0 && data[len - 1] == '\n')
		len--;	/* no empty line after the last */
	st->why = "not valid UTF-8";
	if (!utf8_valid((const unsigned char *)data, len))
		goto done;
	st->why = "a line it does not prune (a fractional, second or "
	    "missing count)";
	if (pmodel_read(&in, data, len) != 0)
		goto done;
	st->lines_in = in.nline;
	st->why = "nothing to prune";
	if (in.total == 0 || !(o->minwidth > 0))
		goto done;
	pmodel_flow(&in);
	mt = min_time(o, in.total);
	mark_kept(&in, mt);
	prune_text(&in, mt, &text, &tlen);
	st->why = "the pruned lines would draw other rectangles";
	if (pmodel_read(&out, text, tlen > 0 ? tlen - 1 : 0) != 0)
		goto done;
	pmodel_flow(&out);
	if (out.total != in.total || !same_drawn(&in, &out, mt))
		goto done;
	whole = 0;
	st->why = NULL;
	st->lines_out = out.nline;
done:
	st->whole = whole;
	if (whole) {
		st->lines_out = st->lines_in;
		rc = write_all(fp, name, data, all);
	} else
		rc = write_all(fp, name, text, tlen);
	free(text);
	pmodel_free(&in);
	pmodel_free(&out);
	return rc;
}
