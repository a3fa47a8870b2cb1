#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/fold.h"
#include "base/err.h"
#include "base/ids.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

/* The reference's pseudo-frames (Analysis.ipynb), and the splice marker. */
static const struct fold_str GPU_ACTIVE = { "[GPU active]", 12 };
static const struct fold_str UNKNOWN = { "[Unknown]", 9 };
static const struct fold_str INCONSISTENT = { "[inconsistent metadata]", 23 };
static const char IDLE_INSIDE[] = "[GPU idle during module execution]";
static const char IDLE_BETWEEN[] = "[GPU idle between module executions]";
static const char IDLE_OPCODE[] = "GPU idle during modules";

/* One hlo row: the metadata of an instruction in one HLO dump. */
struct hvar {
	size_t opcode;		/* id in ops */
	size_t *stack;		/* innermost frame of each stack */
	size_t nstack;
	char *opnames;		/* LF-separated, unescaped */
	size_t next;		/* next variant of the key + 1; 0: none */
};

/* An instruction, "ProgramId\tName" as escaped in the TSV. */
struct key {
	int64_t ns;		/* sum of its thunks' ProjDurMs */
	size_t var;		/* first hlo row + 1; 0: none */
	size_t prog;		/* id in progs (fold_finish) */
	int seen;		/* some thunk row had it */
	int job;		/* seen, and of the program selected (if any) */
};

struct prog {
	int64_t thunk_ns, module_ns;	/* thunk_ns: of the current job */
	int has_modules, top;
	int in;			/* has thunks in the current job */
};

/* The module rows of one (program, device). */
struct pdev {
	size_t prog, dev;
	int64_t first, last;	/* first start, last end */
};

struct line {
	int64_t whole;		/* ns */
	double frac;		/* ns, from equal splits */
	int used;		/* by the current job (lines outlive jobs) */
};

struct fold {
	struct fold_opts o;
	struct fold_totals tot;

	size_t *fparent;	/* by FrameId: parent + 1, 0 for a root */
	size_t *ftext;		/* by FrameId: id in ftexts */
	size_t nframes, capparent, captext;
	struct strtab ftexts;
	int have_frames;

	struct strtab keys;
	struct key *key;
	size_t capkey;
	struct hvar *var;
	size_t nvar, capvar;
	struct strtab ops;

	struct strtab progs;
	struct prog *prog;
	size_t capprog;
	struct strtab pdevs;	/* "<prog id> <device>" */
	struct pdev *pdev;
	size_t cappdev;
	struct strtab devs;
	int have_modules;
	/* The current job (fold_select): the one program whose thunks it
	 * folds (NULL: all), and whether it leaves the module rows out. */
	const char *only;
	size_t onlylen;
	int no_modules;
	/* Thunk durations, and module starts and durations, added up in
	 * absolute value: at most TSV_MAX_NS each, which bounds every sum
	 * made of them (no int64 overflow, whatever the input). */
	int64_t tsum, msum;

	struct strtab lines;
	struct line *line;
	size_t capline;

	/* Scratch of fold_finish: the frames of candidate locations, and
	 * the locations as ranges of them (offsets survive growth). */
	struct fold_str *fr;
	size_t nfr, capfr;
	size_t *sbeg, *send;
	size_t nseq, capsbeg, capsend;
	/* Per location: its innermost stack frame + 1 when it is a Python
	 * stack alone (0: any other), and per FrameId the line of its
	 * stack + 1 (0: not built yet): instructions share stacks, and
	 * building and interning a line of kilobytes was most of a fold. */
	size_t *sframe, capsframe;
	size_t *frame_line;
	char *buf;
	size_t capbuf;
};

/* Whether the current job uses module rows (its top modules by module
 * time, its idle roots). */
static int
mods(const struct fold *f)
{
	return f->have_modules && !f->no_modules;
}

/* Grow the zero-filled array *P (*CAP elements of SIZE) to hold index I. */
static void
grow0(void *p, size_t *cap, size_t i, size_t size)
{
	size_t old = *cap;

	mem_grow(p, cap, i + 1, size);
	if (*cap > old)
		memset(*(char **)p + old * size, 0, (*cap - old) * size);
}

struct fold *
fold_new(const struct fold_opts *o)
{
	struct fold *f = mem_calloc(1, sizeof(*f));

	f->o = *o;
	if (f->o.unit_ns < 1)
		f->o.unit_ns = 1;
	return f;
}

void
fold_free(struct fold *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nvar; i++) {
		free(f->var[i].stack);
		free(f->var[i].opnames);
	}
	free(f->var);
	free(f->fparent);
	free(f->ftext);
	strtab_free(&f->ftexts);
	strtab_free(&f->keys);
	free(f->key);
	strtab_free(&f->ops);
	strtab_free(&f->progs);
	free(f->prog);
	strtab_free(&f->pdevs);
	free(f->pdev);
	strtab_free(&f->devs);
	strtab_free(&f->lines);
	free(f->line);
	free(f->fr);
	free(f->sbeg);
	free(f->send);
	free(f->sframe);
	free(f->frame_line);
	free(f->buf);
	free(f);
}

static int
bad(struct tsv_reader *r, const char *col, const char *what, long long v)
{
	return err_fail("%s:%ld: column %s: %s %lld", tsv_name(r),
	    tsv_lineno(r), col, what, v);
}

/* ---- stack frames ---- */

static int
frame_row(struct fold *f, struct tsv_reader *r, const long *col)
{
	int64_t id, parent = -1;
	const char *text;

	if (tsv_get_i64(r, (size_t)col[0], &id, 0) != 0 ||
	    tsv_get_i64(r, (size_t)col[1], &parent, 1) < 0)
		return -1;
	/* Ids are row numbers, as extract writes them: no gaps to fill,
	 * no huge id to allocate for, and every parent already read. */
	if (id != (int64_t)f->nframes)
		return bad(r, "FrameId", "expected the row number, got",
		    (long long)id);
	if (parent != -1 && (parent < 0 || parent >= id))
		return bad(r, "ParentFrameId", "not a smaller FrameId:",
		    (long long)parent);
	text = tsv_field(r, (size_t)col[2]);
	grow0(&f->fparent, &f->capparent, f->nframes, sizeof(*f->fparent));
	grow0(&f->ftext, &f->captext, f->nframes, sizeof(*f->ftext));
	f->fparent[f->nframes] = (size_t)(parent + 1);
	f->ftext[f->nframes] = strtab_intern(&f->ftexts, text, strlen(text),
	    NULL);
	f->nframes++;
	return 0;
}

int
fold_load_stackframes(struct fold *f, struct tsv_reader *r)
{
	static const char *const names[] = { "FrameId", "ParentFrameId",
	    "Frame" };
	long col[3];
	int rc;

	if (tsv_columns(r, names, 3, 0, col) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1)
		if (frame_row(f, r, col) != 0)
			return -1;
	f->have_frames = 1;
	return rc;
}

/* ---- hlo rows ---- */

static size_t
key_id(struct fold *f, const char *p, size_t pl, const char *n, size_t nl)
{
	size_t id;

	mem_grow(&f->buf, &f->capbuf, pl + nl + 2, 1);
	memcpy(f->buf, p, pl);
	f->buf[pl] = '\t';
	memcpy(f->buf + pl + 1, n, nl);
	id = strtab_intern(&f->keys, f->buf, pl + nl + 1, NULL);
	grow0(&f->key, &f->capkey, id, sizeof(*f->key));
	return id;
}

/* The frame ids of StackFrameIds (base/ids.h) into V, each a FrameId
 * of the stack frames read. */
static int
stack_ids(struct fold *f, struct tsv_reader *r, long col, struct hvar *v)
{
	struct ids ids = { NULL, 0, 0 };

	if (ids_read(r, (size_t)col, f->nframes, &ids) != 0) {
		ids_free(&ids);
		return -1;
	}
	v->stack = ids.v;
	v->nstack = ids.n;
	return 0;
}

/* Append a variant for key K, after those already there.  The array
 * grows first: the walk below holds a pointer into it (a link), which
 * growth would leave dangling. */
static struct hvar *
new_var(struct fold *f, size_t k)
{
	size_t *link;

	mem_grow(&f->var, &f->capvar, f->nvar + 1, sizeof(*f->var));
	link = &f->key[k].var;
	while (*link != 0)
		link = &f->var[*link - 1].next;
	memset(&f->var[f->nvar], 0, sizeof(*f->var));
	*link = ++f->nvar;
	return &f->var[f->nvar - 1];
}

/* Whether the hlo rows are read for folds by K: opts.kinds, else by. */
static int
need(const struct fold *f, enum fold_by k)
{
	return f->o.kinds != 0 ? (f->o.kinds & (1u << k)) != 0 : f->o.by == k;
}

int
fold_load_hlo(struct fold *f, struct tsv_reader *r)
{
	long cp, cn, cop = -1, cst = -1, cnames = -1;
	int rc;

	if ((cp = tsv_require(r, "ProgramId")) < 0 ||
	    (cn = tsv_require(r, "Name")) < 0)
		return -1;
	if (need(f, FOLD_OPCODE) && (cop = tsv_require(r, "Opcode")) < 0)
		return -1;
	if (need(f, FOLD_SOURCE) &&
	    (cst = tsv_require(r, "StackFrameIds")) < 0)
		return -1;
	if ((need(f, FOLD_SOURCE) || need(f, FOLD_OP_NAME)) &&
	    (cnames = tsv_require(r, "OpNames")) < 0)
		return -1;
	if (cst >= 0 && !f->have_frames)
		return err_fail("%s: the stack frames must be read first",
		    tsv_name(r));
	while ((rc = tsv_next(r)) == 1) {
		size_t pl, nl;
		const char *p = tsv_rawfield(r, (size_t)cp, &pl);
		const char *n = tsv_rawfield(r, (size_t)cn, &nl);
		struct hvar *v = new_var(f, key_id(f, p, pl, n, nl));

		if (cop >= 0) {
			const char *op = tsv_field(r, (size_t)cop);

			v->opcode = strtab_intern(&f->ops, op, strlen(op), NULL);
		}
		if (cst >= 0 && stack_ids(f, r, cst, v) != 0)
			return -1;
		if (cnames >= 0)
			v->opnames = mem_strdup(tsv_field(r, (size_t)cnames));
	}
	return rc;
}

/* ---- module and thunk rows ---- */

int
fold_add_module(struct fold *f, const char *program, size_t plen,
    int64_t device, int64_t start_ns, int64_t dur_ns)
{
	char dev[24];
	size_t p, d, id;
	int added;

	if (dur_ns < 0)
		return err_fail("negative duration");
	/* Each row is bounded, and the durations' sum (what module_ns
	 * adds up); start + duration and last - first then stay far
	 * inside int64.  Start times are never summed. */
	if (start_ns < -TSV_MAX_NS || start_ns > TSV_MAX_NS)
		return err_fail("start time out of range (more than 2^60 ns)");
	if (dur_ns > TSV_MAX_NS || (f->msum += dur_ns) > TSV_MAX_NS)
		return err_fail("module durations add up to more than 2^60 ns");
	p = strtab_intern(&f->progs, program, plen, NULL);
	grow0(&f->prog, &f->capprog, p, sizeof(*f->prog));
	f->prog[p].module_ns += dur_ns;
	f->prog[p].has_modules = 1;
	snprintf(dev, sizeof(dev), "%lld", (long long)device);
	d = strtab_intern(&f->devs, dev, strlen(dev), NULL);
	mem_grow(&f->buf, &f->capbuf, 64, 1);
	snprintf(f->buf, f->capbuf, "%zu %zu", p, d);
	id = strtab_intern(&f->pdevs, f->buf, strlen(f->buf), &added);
	grow0(&f->pdev, &f->cappdev, id, sizeof(*f->pdev));
	if (added || start_ns < f->pdev[id].first)
		f->pdev[id].first = start_ns;
	if (added || start_ns + dur_ns > f->pdev[id].last)
		f->pdev[id].last = start_ns + dur_ns;
	f->pdev[id].prog = p;
	f->pdev[id].dev = d;
	f->have_modules = 1;
	return 0;
}

int
fold_load_modules(struct fold *f, struct tsv_reader *r)
{
	static const char *const names[] = { "ProgramId", "Device",
	    "ProjStartMs", "ProjDurMs" };
	long col[4];
	int rc;

	if (tsv_columns(r, names, 4, 0, col) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		int64_t dev, start, dur;
		size_t pl;
		const char *p = tsv_rawfield(r, (size_t)col[0], &pl);

		if (tsv_get_i64(r, (size_t)col[1], &dev, 0) != 0 ||
		    tsv_get_ms(r, (size_t)col[2], &start, 0) != 0 ||
		    tsv_get_ms(r, (size_t)col[3], &dur, 0) != 0)
			return -1;
		if (fold_add_module(f, p, pl, dev, start, dur) != 0)
			return err_prefix("%s:%ld: column %s", tsv_name(r),
			    tsv_lineno(r), start < -TSV_MAX_NS ||
			    start > TSV_MAX_NS ? "ProjStartMs" : "ProjDurMs");
	}
	/* An empty module frame still says: no module, no idle time. */
	f->have_modules = 1;
	return rc;
}

int
fold_add_thunk(struct fold *f, const char *program, size_t plen,
    const char *name, size_t nlen, int64_t dur_ns)
{
	size_t k;

	if (dur_ns < 0)
		return err_fail("negative duration");
	if (dur_ns > TSV_MAX_NS || (f->tsum += dur_ns) > TSV_MAX_NS)
		return err_fail("durations add up to more than 2^60 ns");
	k = key_id(f, program, plen, name, nlen);
	f->key[k].ns += dur_ns;
	f->key[k].seen = 1;
	return 0;
}

int
fold_read_thunks(struct fold *f, struct filter *in)
{
	static const char *const names[] = { "ProgramId", "Name",
	    "ProjDurMs" };
	struct tsv_reader *r = filter_reader(in);
	long col[3];
	int rc;

	if (tsv_columns(r, names, 3, 0, col) != 0)
		return -1;
	while ((rc = filter_next(in)) == 1) {
		size_t pl, nl;
		const char *p, *n;
		int64_t ns;

		r = filter_reader(in);
		if (tsv_get_ms(r, (size_t)col[2], &ns, 0) != 0)
			return -1;
		p = tsv_rawfield(r, (size_t)col[0], &pl);
		n = tsv_rawfield(r, (size_t)col[1], &nl);
		if (fold_add_thunk(f, p, pl, n, nl, ns) != 0)
			return err_prefix("%s:%ld: column ProjDurMs",
			    tsv_name(r), tsv_lineno(r));
	}
	return rc;
}

/* ---- the rules ---- */

static int
same_str(const struct fold_str *a, const struct fold_str *b)
{
	return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

int
fold_common(const struct fold_seq *v, size_t n, size_t *prefix,
    size_t *suffix)
{
	size_t i, j, min = v[0].n, p = 0, s = 0;
	int equal = 1;

	for (j = 1; j < n; j++) {
		if (v[j].n < min)
			min = v[j].n;
		if (v[j].n != v[0].n)
			equal = 0;
	}
	for (; p < min; p++)
		for (j = 1; j < n; j++)
			if (!same_str(&v[0].f[p], &v[j].f[p]))
				goto prefix_done;
prefix_done:
	if (equal && p == min) {
		*prefix = p;
		*suffix = 0;
		return 1;
	}
	/* The suffix stops where it would overlap the prefix. */
	for (; s < min - p; s++)
		for (j = 1; j < n; j++) {
			i = s + 1;
			if (!same_str(&v[0].f[v[0].n - i], &v[j].f[v[j].n - i]))
				goto suffix_done;
		}
suffix_done:
	*prefix = p;
	*suffix = s;
	return 0;
}

/*
 * Whether some byte of the eight in W is below 0x20, ';' or 0x7f (the
 * bytes fold_put_frame replaces): the "has less / has zero byte" tests
 * of Sean Anderson's Bit Twiddling Hacks.  A byte of 0x80 or more may
 * be flagged too; that costs the slow path, never a wrong byte.
 */
static int
needs_fix(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
	uint64_t semi = w ^ (ones * ';'), del = w ^ (ones * 0x7f);

	return (((w - ones * 0x20) | (semi - ones) | (del - ones)) & high) != 0;
}

void
fold_put_frame(char **buf, size_t *len, size_t *cap, const char *s,
    size_t n)
{
	size_t i = 0, end;
	char *d;

	mem_grow(buf, cap, *len + n + 1, 1);
	d = *buf + *len;
	/* Eight bytes at a step: copied whole when none needs replacing. */
	for (; i < n; i = end) {
		uint64_t w;

		end = n - i >= 8 ? i + 8 : n;
		if (end - i == 8) {
			memcpy(&w, s + i, 8);
			if (!needs_fix(w)) {
				memcpy(d + i, &w, 8);
				continue;
			}
		}
		for (; i < end; i++) {
			unsigned char c = (unsigned char)s[i];

			if (c == ';')
				c = ':';
			else if (c < 0x20 || c == 0x7f)
				c = ' ';
			d[i] = (char)c;
		}
	}
	*len += n;
}

/*
 * The length of the whitespace character ending at S[N-1] that Perl's \s
 * matches in a Unicode string (flamegraph.pl reads its input as UTF-8),
 * or 0.
 */
static size_t
space_before(const char *s, size_t n)
{
	static const char *const wide[] = {
		"\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\xa8",
		"\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80"
	};
	size_t i, k;

	if (n > 0 && strchr(" \t\n\v\f\r", s[n - 1]) != NULL && s[n - 1])
		return 1;
	/* U+2000 to U+200A: e2 80 80..8a. */
	if (n >= 3 && memcmp(s + n - 3, "\xe2\x80", 2) == 0 &&
	    (unsigned char)s[n - 1] >= 0x80 && (unsigned char)s[n - 1] <= 0x8a)
		return 3;
	for (i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
		k = strlen(wide[i]);
		if (n >= k && memcmp(s + n - k, wide[i], k) == 0)
			return k;
	}
	return 0;
}

void
fold_leaf_safe(char *line, size_t start, size_t *len)
{
	size_t e = *len, j = e, digits = 0, dots = 0, w;

	for (; j > start && ((line[j - 1] >= '0' && line[j - 1] <= '9') ||
	    line[j - 1] == '.'); j--) {
		if (line[j - 1] == '.')
			dots++;
		else
			digits++;
	}
	if (digits == 0 || dots > 1 || j == start)
		return;
	if ((w = space_before(line + start, j - start)) == 0)
		return;
	line[j - w] = '_';
	memmove(line + j - w + 1, line + j, e - j);
	*len = e - w + 1;
}

/* Larger remainder first; ties by index. */
static int
cmp_rem(const void *a, const void *b, const void *ctx)
{
	const double *rem = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (rem[x] != rem[y])
		return rem[x] > rem[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

void
fold_round(const int64_t *whole, const double *frac, size_t n,
    int64_t unit, int64_t *count)
{
	double *rem = mem_calloc(n + 1, sizeof(*rem)), sum = 0;
	size_t *ord = mem_calloc(n + 1, sizeof(*ord)), i, give;

	for (i = 0; i < n; i++) {
		int64_t q = whole[i] / unit;
		double r = (double)(whole[i] % unit) + frac[i];
		int64_t extra = (int64_t)(r / (double)unit);

		/* Fractions of many splits can add up to whole units. */
		q += extra;
		r -= (double)extra * (double)unit;
		if (r < 0)
			r = 0;
		count[i] = q;
		rem[i] = r / (double)unit;
		sum += rem[i];
		ord[i] = i;
	}
	give = (size_t)llround(sum);
	sort_stable(ord, n, sizeof(*ord), cmp_rem, rem);
	for (i = 0; i < give && i < n; i++)
		count[ord[i]]++;
	free(rem);
	free(ord);
}

/* ---- selection and totals ---- */

/* What ranks programs: module time when module rows were given. */
static int64_t
basis(const struct fold *f, size_t p)
{
	return mods(f) ? f->prog[p].module_ns : f->prog[p].thunk_ns;
}

static int
cmp_prog(const void *a, const void *b, const void *ctx)
{
	const struct fold *f = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int64_t bx = basis(f, x), by = basis(f, y);

	if (bx != by)
		return bx > by ? -1 : 1;
	return strcmp(strtab_get(&f->progs, x),
	    strtab_get(&f->progs, y));
}

/* Give every key of the job (that had thunks, of the program selected)
 * its program and the program its time. */
static void
key_programs(struct fold *f)
{
	size_t k, p, pl;

	for (k = 0; k < f->keys.n; k++) {
		const char *s = strtab_get(&f->keys, k);

		f->key[k].job = 0;
		if (!f->key[k].seen)
			continue;
		pl = (size_t)(strchr(s, '\t') - s);
		if (f->only != NULL && (pl != f->onlylen ||
		    memcmp(s, f->only, pl) != 0))
			continue;
		p = strtab_intern(&f->progs, s, pl, NULL);
		grow0(&f->prog, &f->capprog, p, sizeof(*f->prog));
		f->key[k].prog = p;
		f->key[k].job = 1;
		f->prog[p].thunk_ns += f->key[k].ns;
		f->prog[p].in = 1;
	}
}

/* Whether program P competes for the top: with module rows, one that has
 * them, else one with thunks; when the job selects a program, that one
 * alone. */
static int
candidate(const struct fold *f, size_t p)
{
	if (f->only != NULL && (f->progs.len[p] != f->onlylen ||
	    memcmp(strtab_get(&f->progs, p), f->only, f->onlylen) != 0))
		return 0;
	return mods(f) ? f->prog[p].has_modules : f->prog[p].in;
}

/* Analysis.ipynb: take modules, largest first, while those taken make
 * less than opts.top of the total. */
static void
select_top(struct fold *f)
{
	size_t n = f->progs.n, i, nc = 0;
	size_t *ord = mem_calloc(n + 1, sizeof(*ord));
	int64_t total = 0;
	double seen = 0;

	for (i = 0; i < n; i++)
		if (candidate(f, i)) {
			ord[nc++] = i;
			total += basis(f, i);
		}
	sort_stable(ord, nc, sizeof(*ord), cmp_prog, f);
	for (i = 0; i < nc; i++) {
		if (f->o.top >= 1 || total <= 0 || seen < f->o.top) {
			f->prog[ord[i]].top = 1;
			f->tot.ntop++;
		}
		if (total > 0)
			seen += (double)basis(f, ord[i]) / (double)total;
	}
	f->tot.nprograms = nc;
	free(ord);
}

/* The three total runtimes over the selected modules. */
static void
totals(struct fold *f)
{
	size_t nd = f->devs.n, i;
	int64_t *first = mem_calloc(nd + 1, sizeof(*first));
	int64_t *last = mem_calloc(nd + 1, sizeof(*last));
	char *any = mem_calloc(nd + 1, 1);

	for (i = 0; i < f->progs.n; i++)
		if (f->prog[i].top) {
			f->tot.thunks_ns += f->prog[i].thunk_ns;
			if (mods(f))
				f->tot.modules_ns += f->prog[i].module_ns;
		}
	for (i = 0; i < f->pdevs.n && mods(f); i++) {
		const struct pdev *d = &f->pdev[i];

		if (!f->prog[d->prog].top)
			continue;
		if (!any[d->dev] || d->first < first[d->dev])
			first[d->dev] = d->first;
		if (!any[d->dev] || d->last > last[d->dev])
			last[d->dev] = d->last;
		any[d->dev] = 1;
	}
	for (i = 0; i < nd; i++)
		if (any[i])
			f->tot.wall_ns += last[i] - first[i];
	f->tot.have_modules = mods(f);
	free(first);
	free(last);
	free(any);
}

/* ---- locations ---- */

static void
push(struct fold *f, const char *s, size_t n)
{
	mem_grow(&f->fr, &f->capfr, f->nfr + 1, sizeof(*f->fr));
	f->fr[f->nfr].s = s;
	f->fr[f->nfr].n = n;
	f->nfr++;
}

static void
begin_seq(struct fold *f)
{
	mem_grow(&f->sbeg, &f->capsbeg, f->nseq + 1, sizeof(*f->sbeg));
	mem_grow(&f->send, &f->capsend, f->nseq + 1, sizeof(*f->send));
	mem_grow(&f->sframe, &f->capsframe, f->nseq + 1, sizeof(*f->sframe));
	f->sframe[f->nseq] = 0;
	f->sbeg[f->nseq] = f->nfr;
}

static void
end_seq(struct fold *f)
{
	f->send[f->nseq++] = f->nfr;
}

/* A location of pseudo-frames only. */
static void
pseudo(struct fold *f, const struct fold_str *a, const struct fold_str *b)
{
	begin_seq(f);
	push(f, a->s, a->n);
	if (b)
		push(f, b->s, b->n);
	end_seq(f);
}

/* The frames of the stack whose innermost frame is ID, outermost first. */
static void
push_path(struct fold *f, size_t id)
{
	size_t b = f->nfr, e, up;

	for (up = id + 1; up != 0; up = f->fparent[up - 1]) {
		size_t t = f->ftext[up - 1];

		push(f, strtab_get(&f->ftexts, t), f->ftexts.len[t]);
	}
	for (e = f->nfr; b + 1 < e; b++, e--) {
		struct fold_str tmp = f->fr[b];

		f->fr[b] = f->fr[e - 1];
		f->fr[e - 1] = tmp;
	}
}

/* One op_name: whole after [Unknown] (source), or split at '/'. */
static void
push_opname(struct fold *f, const char *s, size_t n)
{
	const char *e = s + n, *slash;

	begin_seq(f);
	push(f, GPU_ACTIVE.s, GPU_ACTIVE.n);
	if (f->o.by == FOLD_SOURCE) {
		push(f, UNKNOWN.s, UNKNOWN.n);
		push(f, s, n);
	} else {
		for (; (slash = memchr(s, '/', (size_t)(e - s))) != NULL;
		    s = slash + 1)
			push(f, s, (size_t)(slash - s));
		push(f, s, (size_t)(e - s));
	}
	end_seq(f);
}

/*
 * The locations of hlo row V, by the reference's preferences: for source,
 * the Python stacks (op_name included), else [Unknown] and each op_name,
 * else [Unknown]; for op_name, each op_name split, else [Unknown].
 */
static void
var_locations(struct fold *f, const struct hvar *v)
{
	const char *s, *e;
	size_t i, n0 = f->nseq;

	if (f->o.by == FOLD_SOURCE && v->nstack > 0) {
		for (i = 0; i < v->nstack; i++) {
			begin_seq(f);
			push(f, GPU_ACTIVE.s, GPU_ACTIVE.n);
			push_path(f, v->stack[i]);
			end_seq(f);
			f->sframe[f->nseq - 1] = v->stack[i] + 1;
		}
		return;
	}
	for (s = v->opnames; s != NULL && *s != '\0'; s = *e ? e + 1 : e) {
		if ((e = strchr(s, '\n')) == NULL)
			e = s + strlen(s);
		if (e > s)
			push_opname(f, s, (size_t)(e - s));
	}
	if (f->nseq == n0)
		pseudo(f, &GPU_ACTIVE, &UNKNOWN);
}

static struct fold_seq
seq(const struct fold *f, size_t i)
{
	struct fold_seq s;

	s.f = f->fr + f->sbeg[i];
	s.n = f->send[i] - f->sbeg[i];
	return s;
}

/* Copy frames [B, B + N) of the scratch to the current location. */
static void
copy_frames(struct fold *f, size_t b, size_t n)
{
	size_t i;

	for (i = b; i < b + n; i++)
		push(f, f->fr[i].s, f->fr[i].n);
}

/*
 * Rows VB[0..NV) disagree: when they have as many locations each, splice
 * them location by location (fold_common); else take them all.  Returns
 * the first of the resulting locations.
 */
static size_t
splice(struct fold *f, const size_t *vb, size_t nv)
{
	size_t m = vb[1] - vb[0], i, j, pre, suf, first = f->nseq;
	struct fold_seq *v = mem_calloc(nv, sizeof(*v));
	int same = 1;

	for (j = 0; j < nv; j++)
		if ((j + 1 < nv ? vb[j + 1] : first) - vb[j] != m)
			same = 0;
	if (!same) {
		free(v);
		f->tot.ninconsistent++;
		return 0;
	}
	for (i = 0; i < m; i++) {
		size_t b = f->sbeg[vb[0] + i], n;

		for (j = 0; j < nv; j++)
			v[j] = seq(f, vb[j] + i);
		n = v[0].n;
		begin_seq(f);
		if (fold_common(v, nv, &pre, &suf)) {
			copy_frames(f, b, n);
			end_seq(f);
			/* The first variant's location: its stack too. */
			f->sframe[f->nseq - 1] = f->sframe[vb[0] + i];
			continue;
		}
		copy_frames(f, b, pre);
		push(f, INCONSISTENT.s, INCONSISTENT.n);
		copy_frames(f, b + n - suf, suf);
		same = 0;
		end_seq(f);
	}
	if (!same)
		f->tot.ninconsistent++;
	free(v);
	return first;
}

/* The locations of key K in the scratch, from the returned index on. */
static size_t
key_locations(struct fold *f, size_t k)
{
	size_t v, nv = 0, cap = 0, *vb = NULL, first = 0;

	f->nfr = f->nseq = 0;
	if (f->key[k].var == 0) {
		pseudo(f, &GPU_ACTIVE, &UNKNOWN);
		return 0;
	}
	for (v = f->key[k].var; v != 0; v = f->var[v - 1].next) {
		mem_grow(&vb, &cap, nv + 1, sizeof(*vb));
		vb[nv++] = f->nseq;
		var_locations(f, &f->var[v - 1]);
	}
	if (nv > 1)
		first = splice(f, vb, nv);
	free(vb);
	return first;
}

static int
same_seq(const struct fold_seq *a, const struct fold_seq *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!same_str(&a->f[i], &b->f[i]))
			return 0;
	return 1;
}

/* The line of location S: frames made safe, joined with ';'. */
static size_t
line_id(struct fold *f, const struct fold_str *fr, size_t n)
{
	size_t len = 0, leaf = 0, i, id;

	for (i = 0; i < n; i++) {
		if (i > 0) {
			mem_grow(&f->buf, &f->capbuf, len + 1, 1);
			f->buf[len++] = ';';
		}
		leaf = len;
		fold_put_frame(&f->buf, &len, &f->capbuf, fr[i].s, fr[i].n);
	}
	fold_leaf_safe(f->buf, leaf, &len);
	id = strtab_intern(&f->lines, f->buf, len, NULL);
	grow0(&f->line, &f->capline, id, sizeof(*f->line));
	return id;
}

/* Split key K's time equally over its distinct locations. */
static void
spread(struct fold *f, size_t k)
{
	size_t first = key_locations(f, k), i, j, nu = 0, *u;
	int64_t ns = f->key[k].ns;

	u = mem_calloc(f->nseq - first + 1, sizeof(*u));
	for (i = first; i < f->nseq; i++) {
		struct fold_seq a = seq(f, i), b;

		for (j = 0; j < nu; j++) {
			b = seq(f, u[j]);
			if (same_seq(&a, &b))
				break;
		}
		if (j == nu)
			u[nu++] = i;
	}
	for (j = 0; j < nu; j++) {
		struct fold_seq a = seq(f, u[j]);
		size_t fid = f->sframe[u[j]], id;

		if (fid != 0 && f->frame_line[fid - 1] != 0)
			id = f->frame_line[fid - 1] - 1;
		else {
			id = line_id(f, a.f, a.n);
			if (fid != 0)
				f->frame_line[fid - 1] = id + 1;
		}

		f->line[id].whole += ns / (int64_t)nu;
		f->line[id].frac += (double)(ns % (int64_t)nu) / (double)nu;
		f->line[id].used = 1;
	}
	free(u);
}

static void
idle_line(struct fold *f, const char *name, int64_t ns)
{
	struct fold_str s;
	size_t id;

	s.s = name;
	s.n = strlen(name);
	id = line_id(f, &s, 1);
	f->line[id].whole += ns > 0 ? ns : 0;
	f->line[id].used = 1;
}

/* The selected keys' thunk time per opcode, by id in ops (the empty
 * opcode for keys with no hlo row); USED marks the opcodes seen. */
static void
opcode_sums(struct fold *f, int64_t **ns, char **used)
{
	size_t k, op;

	if (f->tot.nunknown > 0)
		strtab_intern(&f->ops, "", 0, NULL);
	*ns = mem_calloc(f->ops.n + 1, sizeof(**ns));
	*used = mem_calloc(f->ops.n + 1, 1);
	for (k = 0; k < f->keys.n; k++) {
		if (!f->key[k].job || !f->prog[f->key[k].prog].top)
			continue;
		if (f->key[k].var != 0)
			op = f->var[f->key[k].var - 1].opcode;
		else
			op = strtab_find(&f->ops, "", 0);
		(*ns)[op] += f->key[k].ns;
		(*used)[op] = 1;
	}
}

int
fold_finish(struct fold *f)
{
	size_t k;

	key_programs(f);
	select_top(f);
	totals(f);
	for (k = 0; k < f->keys.n; k++)
		if (f->key[k].job && f->prog[f->key[k].prog].top &&
		    f->key[k].var == 0)
			f->tot.nunknown++;
	if (f->o.by == FOLD_OPCODE)
		return 0;
	/* Kept from job to job: a stack's line is the same in each. */
	if (f->frame_line == NULL)
		f->frame_line = mem_calloc(f->nframes + 1,
		    sizeof(*f->frame_line));
	for (k = 0; k < f->keys.n; k++)
		if (f->key[k].job && f->prog[f->key[k].prog].top)
			spread(f, k);
	if (mods(f)) {
		idle_line(f, IDLE_INSIDE, f->tot.modules_ns - f->tot.thunks_ns);
		idle_line(f, IDLE_BETWEEN, f->tot.wall_ns - f->tot.modules_ns);
	}
	return 0;
}

void
fold_select(struct fold *f, enum fold_by by, const char *program,
    size_t plen, int no_modules)
{
	size_t i;

	f->o.by = by;
	f->only = program;
	f->onlylen = plen;
	f->no_modules = no_modules;
	memset(&f->tot, 0, sizeof(f->tot));
	for (i = 0; i < f->progs.n; i++) {
		f->prog[i].thunk_ns = 0;
		f->prog[i].top = f->prog[i].in = 0;
	}
	for (i = 0; i < f->lines.n; i++) {
		f->line[i].whole = 0;
		f->line[i].frac = 0;
		f->line[i].used = 0;
	}
}

const struct fold_totals *
fold_totals(const struct fold *f)
{
	return &f->tot;
}

/* ---- output ---- */

static int
cmp_line(const void *a, const void *b, const void *ctx)
{
	const struct strtab *t = ctx;

	return strcmp(strtab_get(t, *(const size_t *)a),
	    strtab_get(t, *(const size_t *)b));
}

int
fold_write_folded(struct fold *f, FILE *fp, const char *name)
{
	size_t n = 0, i;
	size_t *ord = mem_calloc(f->lines.n + 1, sizeof(*ord));
	int64_t *whole = mem_calloc(f->lines.n + 1, sizeof(*whole));
	int64_t *count = mem_calloc(f->lines.n + 1, sizeof(*count));
	double *frac = mem_calloc(f->lines.n + 1, sizeof(*frac));
	int rc = 0;

	/* The lines of this job: those of earlier jobs are kept, unused. */
	for (i = 0; i < f->lines.n; i++)
		if (f->line[i].used)
			ord[n++] = i;
	sort_stable(ord, n, sizeof(*ord), cmp_line, &f->lines);
	for (i = 0; i < n; i++) {
		whole[i] = f->line[ord[i]].whole;
		frac[i] = f->line[ord[i]].frac;
	}
	fold_round(whole, frac, n, f->o.unit_ns, count);
	for (i = 0; i < n; i++) {
		fwrite(strtab_get(&f->lines, ord[i]), 1, f->lines.len[ord[i]],
		    fp);
		fprintf(fp, " %lld\n", (long long)count[i]);
	}
	if (fflush(fp) == EOF || ferror(fp))
		rc = err_fail("%s: write error: %s", name, strerror(errno));
	free(ord);
	free(whole);
	free(count);
	free(frac);
	return rc;
}

struct oprow {
	const char *name;
	int64_t ns;
};

static int
cmp_oprow(const void *a, const void *b)
{
	const struct oprow *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
fold_write_opcodes(struct fold *f, struct tsv_writer *w)
{
	static const char *const cols[] = { "Opcode", "ProjDurMs",
	    "Fraction", NULL };
	int64_t *ns, total = 0;
	char *used;
	size_t i, n = 0;
	struct oprow *row;
	int rc;

	opcode_sums(f, &ns, &used);
	row = mem_calloc(f->ops.n + 2, sizeof(*row));
	for (i = 0; i < f->ops.n; i++)
		if (used[i]) {
			row[n].name = strtab_get(&f->ops, i);
			row[n++].ns = ns[i];
		}
	/* Idle time is never negative: thunks of concurrent streams can
	 * add up to more than their module's time (the folded stacks'
	 * idle lines are clamped so too, idle_line). */
	if (mods(f)) {
		row[n].name = IDLE_OPCODE;
		row[n++].ns = f->tot.modules_ns > f->tot.thunks_ns ?
		    f->tot.modules_ns - f->tot.thunks_ns : 0;
	}
	qsort(row, n, sizeof(*row), cmp_oprow);
	for (i = 0; i < n; i++)
		total += row[i].ns;
	rc = tsv_header(w, cols);
	for (i = 0; i < n && rc == 0; i++) {
		tsv_str(w, row[i].name);
		tsv_ms(w, row[i].ns);
		if (total != 0)
			tsv_f64(w, (double)row[i].ns / (double)total);
		else
			tsv_empty(w);
		rc = tsv_eor(w);
	}
	free(row);
	free(ns);
	free(used);
	return rc;
}

int
fold_write(struct fold *f, FILE *fp, const char *name)
{
	struct tsv_writer *w;
	int rc;

	if (f->o.by != FOLD_OPCODE)
		return fold_write_folded(f, fp, name);
	w = tsv_wopen(fp, name);
	rc = fold_write_opcodes(f, w);
	if (tsv_wclose(w) != 0)
		rc = -1;
	return rc;
}
