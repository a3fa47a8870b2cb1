#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/spmd.h"
#include "analysis/stats.h"
#include "analysis/stats_impl.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

static void
ids_add(struct ids *l, uint32_t id)
{
	mem_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = id;
}

static const char *const table_names[STATS_NTABLES] = {
	"thunks", "totals", "modules", "variability", "stragglers", "costs",
	"scatter", "offsets", "cmdbufs", "facts", "xla-program-ids",
	"compile-profiles", "late"
};

const char *
stats_table_name(int t)
{
	return (unsigned)t < STATS_NTABLES ? table_names[t] : NULL;
}

int
stats_table_parse(const char *name)
{
	return opt_index(name, table_names, STATS_NTABLES);
}

int
stats_needs_modules(unsigned tables)
{
	return (tables & (STATS_BIT(STATS_THUNKS) | STATS_BIT(STATS_TOTALS) |
	    STATS_BIT(STATS_MODULES) | STATS_BIT(STATS_STRAGGLERS) |
	    STATS_BIT(STATS_OFFSETS) | STATS_BIT(STATS_FACTS) |
	    STATS_BIT(STATS_LATE))) != 0;
}

int
stats_needs_compile(unsigned tables)
{
	return (tables & (STATS_BIT(STATS_FACTS) |
	    STATS_BIT(STATS_PROGRAM_IDS) |
	    STATS_BIT(STATS_COMPILE_PROFILES))) != 0;
}

int
stats_needs_rows(unsigned tables)
{
	return (tables & ~(STATS_BIT(STATS_PROGRAM_IDS) |
	    STATS_BIT(STATS_COMPILE_PROFILES))) != 0;
}

int
stats_needs_hlo(unsigned tables)
{
	return (tables & STATS_BIT(STATS_COSTS)) != 0;
}

static int
want(const struct stats *s, enum stats_table t)
{
	return (s->o.tables & STATS_BIT(t)) != 0;
}

/* Whether the per-device biases are wanted: the stragglers table or the
 * late one, which is read from the same instances. */
static int
biases(const struct stats *s)
{
	return want(s, STATS_STRAGGLERS) || want(s, STATS_LATE);
}

struct stats *
stats_new(const struct stats_opts *o)
{
	struct stats *s = mem_calloc(1, sizeof(*s));

	s->o = *o;
	return s;
}

void
stats_join(struct stats *s, struct spmd_scan *scan, struct err_notes *notes)
{
	s->scan = scan;
	s->notes = notes;
}

void
stats_free(struct stats *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->progids.n; i++) {
		free(s->progs[i].name);
		free(s->progs[i].fname);
		free(s->progs[i].procs.v);
		free(s->progs[i].compilers.v);
	}
	for (i = 0; i < s->xids.n; i++)
		free(s->xmods[i].v);
	free(s->xmods);
	strtab_free(&s->xids);
	strtab_free(&s->xnames);
	kh_free(&s->xpairs);
	strtab_free(&s->profiles);
	kh_free(&s->compkeys);
	strtab_free(&s->procnames);
	kh_free(&s->prockeys);
	strtab_free(&s->cbkeys);
	free(s->cbs);
	for (i = 0; i < s->instrkeys.n; i++)
		free(s->instrs[i].sched);
	strtab_free(&s->progids);
	strtab_free(&s->instrkeys);
	free(s->progs);
	free(s->top);
	kh_free(&s->execkeys);
	free(s->execs);
	kh_free(&s->pdkeys);
	free(s->pdevs);
	free(s->instrs);
	kh_free(&s->instkeys);
	free(s->insts);
	kh_free(&s->pointkeys);
	kh_free(&s->cinstkeys);
	free(s->cinsts);
	free(s->points);
	kh_free(&s->winstkeys);
	free(s->winsts);
	kh_free(&s->oinstkeys);
	free(s->oinsts);
	kh_free(&s->othunkkeys);
	free(s->othunks);
	free(s->ostarts);
	strtab_free(&s->colls);
	free(s->modpath);
	free(s->rep);
	free(s->imap);
	kh_free(&s->jexeckeys);
	free(s->jexecs);
	if (s->spool)
		fclose(s->spool);
	free(s->buf);
	free(s);
}

/* ---- reading helpers ---- */

static int
full(const struct tsv_reader *r)
{
	return err_fail("%s:%ld: more than 2^32 - 1 keys", tsv_name(r),
	    tsv_lineno(r));
}

/* Add |V| to the bound of every sum; -1 past 2^61 ns. */
static int
bound(struct stats *s, const struct tsv_reader *r, int64_t v)
{
	s->sumabs += v < 0 ? -v : v;
	if (s->sumabs > (int64_t)1 << 61)
		return err_fail("%s:%ld: the times add up to more than 2^61 ns",
		    tsv_name(r), tsv_lineno(r));
	return 0;
}

/* Columns of the module frame. */
enum { M_ID, M_EXEC, M_DEV, M_NAME, M_START, M_DUR, M_THUNKS, M_PROC,
    M_MAX };

struct mload {
	struct stats *s;
	int pass;
};

static int
module_cols(struct stats *s, struct tsv_reader *r, long *c)
{
	static const char *const names[M_MAX] = { "ProgramId",
	    "ProgramExecution", "Device", "Name", "ProjStartMs", "ProjDurMs",
	    "NumThunks", "Process" };
	int k;

	for (k = 0; k < M_MAX; k++) {
		if ((k == M_THUNKS && !want(s, STATS_MODULES)) ||
		    (k == M_PROC && !want(s, STATS_FACTS)))
			c[k] = -1;
		else if ((c[k] = tsv_require(r, names[k])) < 0)
			return -1;
	}
	return 0;
}

/* The fields of a module row both passes read: its execution and
 * device, and its start, duration and thunk count as doubles. */
struct mrow {
	int64_t ex, dev;
	double dst, ddur, th;
};

static int
module_fields(struct tsv_reader *r, const long *c, struct mrow *m)
{
	m->th = 0;
	if (tsv_get_i64(r, (size_t)c[M_EXEC], &m->ex, 0) != 0 ||
	    tsv_get_i64(r, (size_t)c[M_DEV], &m->dev, 0) != 0 ||
	    tsv_get_f64(r, (size_t)c[M_START], &m->dst, 0) != 0 ||
	    tsv_get_f64(r, (size_t)c[M_DUR], &m->ddur, 0) != 0 ||
	    (c[M_THUNKS] >= 0 &&
	    tsv_get_f64(r, (size_t)c[M_THUNKS], &m->th, 0) != 0))
		return -1;
	return 0;
}

/* Facts: module row R of program P: its last Name, its Process. */
static int
module_facts(struct stats *s, struct tsv_reader *r, const long *c,
    uint32_t p)
{
	struct prog *pr = &s->progs[p];
	size_t len, q;
	const char *v = tsv_rawfield(r, (size_t)c[M_NAME], &len);
	int added;

	if (pr->fname == NULL || strlen(pr->fname) != len ||
	    memcmp(pr->fname, v, len) != 0) {
		free(pr->fname);
		pr->fname = mem_strndup(v, len);
	}
	v = tsv_rawfield(r, (size_t)c[M_PROC], &len);
	q = strtab_intern(&s->procnames, v, len, &added);
	if (q >= NONE || kh_index(&s->prockeys, p, (int64_t)q, 0, &added) ==
	    NONE)
		return full(r);
	if (added)
		ids_add(&pr->procs, (uint32_t)q);
	return 0;
}

/* The first pass over one module row. */
static int
module_row1(struct stats *s, struct tsv_reader *r, const long *c)
{
	const char *id;
	size_t len;
	int64_t ex, dev, st, dur;
	double dst, ddur, th;
	uint32_t p, e, pd;
	int added;
	struct prog *pr;
	struct exec *x;
	struct pdev *d;
	struct mrow m;

	if (module_fields(r, c, &m) != 0 ||
	    tsv_get_ms(r, (size_t)c[M_START], &st, 0) != 0 ||
	    tsv_get_ms(r, (size_t)c[M_DUR], &dur, 0) != 0)
		return -1;
	ex = m.ex, dev = m.dev, dst = m.dst, ddur = m.ddur, th = m.th;
	if (bound(s, r, st) != 0 || bound(s, r, dur) != 0)
		return -1;
	id = tsv_rawfield(r, (size_t)c[M_ID], &len);
	p = (uint32_t)strtab_intern(&s->progids, id, len, &added);
	if (s->progids.n >= NONE)
		return full(r);
	grow0(&s->progs, &s->capprogs, p, sizeof(*s->progs));
	pr = &s->progs[p];
	if (added) {
		const char *nm = tsv_rawfield(r, (size_t)c[M_NAME], &len);

		pr->name = mem_strndup(nm, len);
	}
	pr->rows++;
	pr->total += dur;
	pr->dsum += ddur;
	pr->tsum += th;
	s->all += dur;
	if ((e = kh_index(&s->execkeys, p, ex, 0, &added)) == NONE)
		return full(r);
	grow0(&s->execs, &s->capexecs, e, sizeof(*s->execs));
	x = &s->execs[e];
	if (added || st < x->first)
		x->first = st;
	if (added || st > x->last)
		x->last = st;
	x->sst += dst;
	x->sdur += ddur;
	x->n++;
	if ((pd = kh_index(&s->pdkeys, p, dev, 0, &added)) == NONE)
		return full(r);
	grow0(&s->pdevs, &s->cappdevs, pd, sizeof(*s->pdevs));
	d = &s->pdevs[pd];
	if (!d->module || st < d->lo)
		d->lo = st;
	if (!d->module || st + dur > d->hi)
		d->hi = st + dur;
	if (!d->module)
		d->pos = ++pr->ndev;
	d->module = 1;
	if (c[M_PROC] >= 0)
		return module_facts(s, r, c, p);
	return 0;
}

/* The second pass over one module row: deviations and, for the top
 * modules, the biases. */
static int
module_row2(struct stats *s, struct tsv_reader *r, const long *c)
{
	const char *id;
	size_t len;
	int64_t ex, dev;
	double dst, ddur, th;
	uint32_t p, e, pd;
	int added;
	struct prog *pr;
	struct exec *x;
	struct pdev *d;
	struct mrow m;

	if (module_fields(r, c, &m) != 0)
		return -1;
	ex = m.ex, dev = m.dev, dst = m.dst, ddur = m.ddur, th = m.th;
	id = tsv_rawfield(r, (size_t)c[M_ID], &len);
	p = (uint32_t)strtab_find(&s->progids, id, len);
	e = kh_index(&s->execkeys, p, ex, 0, &added);
	pd = kh_index(&s->pdkeys, p, dev, 0, &added);
	if (p == NONE || e == NONE || pd == NONE || added)
		return err_fail("%s:%ld: the module frame changed between two "
		    "readings", tsv_name(r), tsv_lineno(r));
	pr = &s->progs[p];
	pr->dq += (ddur - pr->dsum / (double)pr->rows) *
	    (ddur - pr->dsum / (double)pr->rows);
	pr->tq += (th - pr->tsum / (double)pr->rows) *
	    (th - pr->tsum / (double)pr->rows);
	/* Joined, the biases wait for the join (join_biases). */
	if (pr->rank == 0 || s->scan != NULL)
		return 0;
	x = &s->execs[e];
	d = &s->pdevs[pd];
	d->execs++;
	d->sb += dst - x->sst / (double)x->n;
	d->db += ddur - x->sdur / (double)x->n;
	return 0;
}

static int
module_pass(struct tsv_reader *r, void *arg)
{
	struct mload *m = arg;
	long c[M_MAX];
	int rc;

	if (module_cols(m->s, r, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1)
		if ((m->pass == 1 ? module_row1(m->s, r, c) :
		    module_row2(m->s, r, c)) != 0)
			return -1;
	return rc;
}

/* Programs by decreasing total, then ProgramId (bytes). */
static int
cmp_total(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t tx = st->progs[x].total, ty = st->progs[y].total;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(strtab_get(&st->progids, x),
	    strtab_get(&st->progids, y));
}

/* The top modules (Analysis.ipynb top_module_threshold), ranked. */
static void
choose_top(struct stats *s)
{
	size_t n = s->progids.n, i;
	uint32_t *order = mem_calloc(n + 1, sizeof(*order));
	double seen = 0;

	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	sort_stable(order, n, sizeof(*order), cmp_total, s);
	for (i = 0; i < n && (s->all == 0 || seen < s->o.top); i++) {
		s->progs[order[i]].rank = (int)i + 1;
		seen += (double)s->progs[order[i]].total / (double)s->all;
	}
	s->ntop = i;
	s->top = order;
}

int
stats_load_modules(struct stats *s, const char *path)
{
	struct mload m = { s, 1 };
	size_t i;

	if (filter_load(path, module_pass, &m) != 0)
		return -1;
	choose_top(s);
	for (i = 0; i < s->execkeys.n; i++)
		s->progs[s->execkeys.k[3 * i]].spread +=
		    s->execs[i].last - s->execs[i].first;
	m.pass = 2;
	if (filter_load(path, module_pass, &m) != 0)
		return -1;
	if (s->scan != NULL)
		s->modpath = mem_strndup(path, strlen(path));
	s->havemodules = 1;
	return 0;
}

/* The instruction (ProgramId, Name) of raw fields ID and NAME. */
static uint32_t
instr_of(struct stats *s, const char *id, size_t ilen, const char *nm,
    size_t nlen)
{
	size_t k;
	int added;

	mem_grow(&s->buf, &s->capbuf, ilen + nlen + 2, 1);
	memcpy(s->buf, id, ilen);
	s->buf[ilen] = '\t';
	memcpy(s->buf + ilen + 1, nm, nlen);
	k = strtab_intern(&s->instrkeys, s->buf, ilen + nlen + 1, &added);
	if (k >= NONE)
		return NONE;
	grow0(&s->instrs, &s->capinstrs, k, sizeof(*s->instrs));
	if (added) {
		size_t p = strtab_find(&s->progids, id, ilen);

		s->instrs[k].prog = p == STRTAB_NONE ? NONE : (uint32_t)p;
	}
	return (uint32_t)k;
}

int
stats_load_hlo(struct tsv_reader *r, void *arg)
{
	struct stats *s = arg;
	long cid, cnm, csn;
	const char *id, *nm, *sn;
	size_t ilen, nlen, slen;
	uint32_t k;
	int rc;

	if ((cid = tsv_require(r, "ProgramId")) < 0 ||
	    (cnm = tsv_require(r, "Name")) < 0 ||
	    (csn = tsv_require(r, "SchedulingName")) < 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		id = tsv_rawfield(r, (size_t)cid, &ilen);
		nm = tsv_rawfield(r, (size_t)cnm, &nlen);
		sn = tsv_rawfield(r, (size_t)csn, &slen);
		if ((k = instr_of(s, id, ilen, nm, nlen)) == NONE)
			return full(r);
		if (s->instrs[k].sched == NULL)
			s->instrs[k].sched = mem_strndup(sn, slen);
	}
	return rc;
}

/* ---- the compile frame ---- */

/* Columns of the compile frame. */
enum { C_PROF, C_NAME, C_PNAME, C_ID, C_PARENT, C_DUR, C_MAX };

/* The digits of the first "program_id=DIGITS" in S[0..LEN) (*N of
 * them), or NULL: awk's match(s, /program_id=[0-9]+/). */
static const char *
xla_program_id(const char *s, size_t len, size_t *n)
{
	static const char key[] = "program_id=";
	const size_t klen = sizeof(key) - 1;
	const char *p, *end = s + len, *d;

	for (p = s; (size_t)(end - p) > klen; p++) {
		if (*p != 'p' || memcmp(p, key, klen) != 0)
			continue;
		d = p + klen;
		for (*n = 0; d + *n < end && d[*n] >= '0' && d[*n] <= '9';
		    (*n)++)
			;
		if (*n > 0)
			return d;
	}
	return NULL;
}

/* XLA's program_id of a compile row, and the module it names. */
static int
compile_pid(struct stats *s, struct tsv_reader *r, const long *c)
{
	const char *nm, *pn, *x;
	size_t len, plen, xlen, k, name;
	int added;

	nm = tsv_rawfield(r, (size_t)c[C_NAME], &len);
	pn = tsv_rawfield(r, (size_t)c[C_PNAME], &plen);
	if (plen == 0 || (x = xla_program_id(nm, len, &xlen)) == NULL)
		return 0;
	k = strtab_intern(&s->xids, x, xlen, &added);
	name = strtab_intern(&s->xnames, pn, plen, &added);
	if (k >= NONE || name >= NONE ||
	    kh_index(&s->xpairs, (int64_t)k, (int64_t)name, 0, &added) == NONE)
		return full(r);
	if (!added)
		return 0;
	grow0(&s->xmods, &s->capxmods, k, sizeof(*s->xmods));
	ids_add(&s->xmods[k], (uint32_t)name);
	return 0;
}

/* Facts: a compile row of a module of the module frame (profile PROF):
 * who compiled it, and the time of its outermost ranges. */
static int
compile_fact(struct stats *s, struct tsv_reader *r, const long *c,
    uint32_t prof)
{
	const char *id;
	size_t len, p;
	int64_t dur = 0;
	int added;

	id = tsv_rawfield(r, (size_t)c[C_ID], &len);
	if (len == 0 || (p = strtab_find(&s->progids, id, len)) ==
	    STRTAB_NONE)
		return 0;
	if (tsv_field(r, (size_t)c[C_PARENT])[0] == '\0') {
		if (tsv_get_ms(r, (size_t)c[C_DUR], &dur, 1) < 0 ||
		    bound(s, r, dur) != 0)
			return -1;
		s->progs[p].compile += dur;
	}
	if (kh_index(&s->compkeys, (int64_t)p, prof, 0, &added) == NONE)
		return full(r);
	if (added)
		ids_add(&s->progs[p].compilers, prof);
	return 0;
}

int
stats_load_compile(struct tsv_reader *r, void *arg)
{
	struct stats *s = arg;
	static const char *const names[C_MAX] = { "ProfileName", "Name",
	    "ProgramName", "ProgramId", "ParentId", "DurMs" };
	int facts = want(s, STATS_FACTS) && s->havemodules;
	const char *v;
	size_t len, prof;
	long c[C_MAX];
	int k, rc, added;

	for (k = 0; k < C_MAX; k++) {
		if (k >= C_ID && !facts)
			c[k] = -1;
		else if ((c[k] = tsv_require(r, names[k])) < 0)
			return -1;
	}
	while ((rc = tsv_next(r)) == 1) {
		v = tsv_rawfield(r, (size_t)c[C_PROF], &len);
		if ((prof = strtab_intern(&s->profiles, v, len, &added)) >=
		    NONE)
			return full(r);
		if (compile_pid(s, r, c) != 0 ||
		    (facts && compile_fact(s, r, c, (uint32_t)prof) != 0))
			return -1;
	}
	return rc;
}

/* ---- the thunk rows ---- */

enum { T_ID, T_NAME, T_DUR, T_EXEC, T_TEXEC, T_DEV, T_START, T_HID, T_COMM,
    T_COLL, T_CB, T_CSIZE, T_MAX };

static int
thunk_cols(struct stats *s, struct tsv_reader *r, long *c)
{
	static const char *const names[T_MAX] = { "ProgramId", "Name",
	    "ProjDurMs", "ProgramExecution", "ThunkExecution", "Device",
	    "ProjStartMs", "ProjDurHiddenMs", "Communication", "Collective",
	    "CommandBuffer", "CollectiveSize" };
	int offs = want(s, STATS_OFFSETS), facts = want(s, STATS_FACTS);
	int inst = biases(s) || want(s, STATS_MODULES) ||
	    offs || facts;
	int k;

	for (k = 0; k < T_MAX; k++) {
		int need = k <= T_DUR || ((k == T_EXEC || k == T_TEXEC) && inst)
		    || ((k == T_DEV || k == T_START) &&
		    (biases(s) || offs)) ||
		    (k == T_HID && (want(s, STATS_COSTS) || facts)) ||
		    (k == T_COLL && offs);

		if (k == T_COMM || (k == T_CB && want(s, STATS_CMDBUFS)) ||
		    (k == T_CSIZE && s->scan != NULL))
			c[k] = tsv_col(r, names[k]);
		else if (!need)
			c[k] = -1;
		else if ((c[k] = tsv_require(r, names[k])) < 0)
			return -1;
	}
	return 0;
}

/* One row as read: what every table may need. */
struct trow {
	uint32_t instr;
	int comm;
	int64_t dur, ex, te, dev, hid;
	int64_t csize;		/* CollectiveSize (the join only; empty 0) */
	double dst, ddur;
};

static int
read_trow(struct stats *s, struct tsv_reader *r, const long *c,
    struct trow *t)
{
	const char *id, *nm;
	size_t ilen, nlen;
	int64_t comm = 1;
	int rc;

	memset(t, 0, sizeof(*t));
	if (c[T_COMM] >= 0) {
		if ((rc = tsv_get_i64(r, (size_t)c[T_COMM], &comm, 1)) < 0)
			return -1;
		if (rc == 1)
			comm = 0;
	}
	t->comm = comm == 1;
	if (tsv_get_ms(r, (size_t)c[T_DUR], &t->dur, 0) != 0 ||
	    bound(s, r, t->dur) != 0)
		return -1;
	/* The double as awk reads it, for the means (strtod: only then). */
	if ((want(s, STATS_VARIABILITY) || biases(s) ||
	    want(s, STATS_SCATTER)) &&
	    tsv_get_f64(r, (size_t)c[T_DUR], &t->ddur, 0) != 0)
		return -1;
	if (c[T_EXEC] >= 0 && (tsv_get_i64(r, (size_t)c[T_EXEC], &t->ex, 0)
	    != 0 || tsv_get_i64(r, (size_t)c[T_TEXEC], &t->te, 0) != 0))
		return -1;
	if (c[T_DEV] >= 0 &&
	    (tsv_get_i64(r, (size_t)c[T_DEV], &t->dev, 0) != 0 ||
	    tsv_get_f64(r, (size_t)c[T_START], &t->dst, 0) != 0))
		return -1;
	if (c[T_CSIZE] >= 0 &&
	    tsv_get_i64(r, (size_t)c[T_CSIZE], &t->csize, 1) < 0)
		return -1;
	if (c[T_HID] >= 0 &&
	    (tsv_get_ms(r, (size_t)c[T_HID], &t->hid, 0) != 0 ||
	    bound(s, r, t->hid) != 0))
		return -1;
	id = tsv_rawfield(r, (size_t)c[T_ID], &ilen);
	nm = tsv_rawfield(r, (size_t)c[T_NAME], &nlen);
	if ((t->instr = instr_of(s, id, ilen, nm, nlen)) == NONE)
		return full(r);
	return 0;
}

/* The modules table: the spread of a communication instance. */
static int
add_wait(struct stats *s, const struct tsv_reader *r, const struct trow *t,
    uint32_t prog)
{
	struct winst *w;
	uint32_t k, e;
	int added;
	int64_t whole = t->dur + t->hid;	/* facts: exposed + hidden */

	s->progs[prog].comm = 1;
	if ((k = kh_index(&s->winstkeys, t->instr, t->ex, t->te, &added)) ==
	    NONE)
		return full(r);
	grow0(&s->winsts, &s->capwinsts, k, sizeof(*s->winsts));
	w = &s->winsts[k];
	if (added) {
		if ((e = kh_index(&s->execkeys, prog, t->ex, 0, &added)) ==
		    NONE)
			return full(r);
		grow0(&s->execs, &s->capexecs, e, sizeof(*s->execs));
		w->exec = e;
		w->lo = w->hi = t->dur;
		w->flo = whole;
	}
	if (t->dur < w->lo)
		w->lo = t->dur;
	if (t->dur > w->hi)
		w->hi = t->dur;
	if (whole < w->flo)
		w->flo = whole;
	w->fsum += whole;
	w->fn++;
	return 0;
}

/* Stragglers: the instance and point of a compute row of a top module;
 * *INST and *PT. */
static int
add_instance(struct stats *s, const struct tsv_reader *r,
    const struct trow *t, uint32_t prog, uint32_t *inst, uint32_t *pt)
{
	struct inst *in;
	uint32_t pd;
	int added;

	if ((*inst = kh_index(&s->instkeys, t->instr, t->ex, t->te, &added))
	    == NONE)
		return full(r);
	grow0(&s->insts, &s->capinsts, *inst, sizeof(*s->insts));
	in = &s->insts[*inst];
	in->ts += t->dst;
	in->tend += t->dst + t->ddur;
	in->sdur += t->ddur;
	in->n++;
	if ((*pt = kh_index(&s->pointkeys, t->instr, t->dev, t->te, &added))
	    == NONE)
		return full(r);
	grow0(&s->points, &s->cappoints, *pt, sizeof(*s->points));
	if (added) {
		if ((pd = kh_index(&s->pdkeys, prog, t->dev, 0, &added)) ==
		    NONE)
			return full(r);
		grow0(&s->pdevs, &s->cappdevs, pd, sizeof(*s->pdevs));
		s->points[*pt].pd = pd;
		s->points[*pt].mxs = s->points[*pt].mxe = -1;
	}
	return 0;
}

/*
 * Offsets: row T of a top module PROG on two devices or more, into its
 * instance (the rows' count and sum of starts in row order, each device's
 * start: the last row's), its thunk (the last row's Communication and
 * Collective) and the module's list of instances in order of first
 * sight: what plots.awk's steady pass kept, in arrays.
 */
static int
add_offset(struct stats *s, const struct tsv_reader *r, const long *c,
    const struct trow *t, uint32_t prog)
{
	struct prog *pr = &s->progs[prog];
	struct oinst *oi;
	struct othunk *th;
	const char *coll;
	size_t clen;
	uint32_t i, k, pd;
	int added;

	if ((i = kh_index(&s->oinstkeys, t->instr, t->ex, t->te, &added)) ==
	    NONE)
		return full(r);
	grow0(&s->oinsts, &s->capoinsts, i, sizeof(*s->oinsts));
	oi = &s->oinsts[i];
	if (added) {
		if ((k = kh_index(&s->othunkkeys, t->instr, t->te, 0, &added))
		    == NONE)
			return full(r);
		grow0(&s->othunks, &s->capothunks, k, sizeof(*s->othunks));
		s->othunks[k].instr = t->instr;
		s->othunks[k].te = t->te;
		oi->thunk = k;
		oi->ex = t->ex;
		oi->start = s->nostarts;
		s->nostarts += pr->ndev;
		grow0(&s->ostarts, &s->capostarts, s->nostarts,
		    sizeof(*s->ostarts));
		if (pr->olast)
			s->oinsts[pr->olast - 1].next = i + 1;
		else
			pr->ofirst = i + 1;
		pr->olast = i + 1;
	}
	oi->n++;
	oi->ts += t->dst;
	/* A device the module rows do not list is never read. */
	if ((pd = kh_find(&s->pdkeys, prog, t->dev, 0)) != NONE &&
	    s->pdevs[pd].module)
		s->ostarts[oi->start + s->pdevs[pd].pos - 1] = t->dst;
	th = &s->othunks[oi->thunk];
	th->comm = t->comm;
	coll = tsv_rawfield(r, (size_t)c[T_COLL], &clen);
	th->coll = strtab_intern(&s->colls, coll, clen, &added);
	return 0;
}

/* Late: communication row T of a top module PROG (or one another may
 * join) into its instance: the latest start and whose, the sum. */
static int
add_cinst(struct stats *s, const struct tsv_reader *r, const struct trow *t,
    uint32_t prog)
{
	struct cinst *ci;
	uint32_t k;
	int added;

	if ((k = kh_index(&s->cinstkeys, t->instr, t->ex, t->te, &added)) ==
	    NONE)
		return full(r);
	grow0(&s->cinsts, &s->capcinsts, k, sizeof(*s->cinsts));
	ci = &s->cinsts[k];
	if (ci->n == 0 || t->dst > ci->max) {
		ci->max = t->dst;
		ci->pd = kh_find(&s->pdkeys, prog, t->dev, 0);
	}
	ci->sum += t->dst;
	ci->n++;
	return 0;
}

static int
add_cost(struct instr *in, const struct trow *t)
{
	int64_t v = t->dur + t->hid;

	if (!in->hascost) {
		in->hascost = 1;
		in->costcomm = t->comm;
		in->cost = v;
	} else if (in->costcomm ? v > in->cost : v < in->cost) {
		in->cost = v;
	}
	return 0;
}

/* Cmdbufs: row T of the thunk rows (stats.h gives the rule). */
static int
add_cmdbuf(struct stats *s, struct tsv_reader *r, const long *c,
    const struct trow *t)
{
	static const char prefix[] = "command_buffer_";
	const size_t plen = sizeof(prefix) - 1;
	const char *id, *nm, *cb;
	size_t ilen, nlen, cblen, i, k;
	int added;

	s->cball += t->dur;
	nm = tsv_rawfield(r, (size_t)c[T_NAME], &nlen);
	if (c[T_CB] >= 0) {
		cb = tsv_rawfield(r, (size_t)c[T_CB], &cblen);
	} else {
		cb = nm, cblen = nlen;
		for (i = plen; i < nlen && nm[i] >= '0' && nm[i] <= '9'; i++)
			;
		if (nlen <= plen || i < nlen || memcmp(nm, prefix, plen) != 0)
			cblen = 0;
	}
	if (cblen == 0)
		return 0;
	id = tsv_rawfield(r, (size_t)c[T_ID], &ilen);
	mem_grow(&s->buf, &s->capbuf, ilen + cblen + 2, 1);
	memcpy(s->buf, id, ilen);
	s->buf[ilen] = '\t';
	memcpy(s->buf + ilen + 1, cb, cblen);
	if ((k = strtab_intern(&s->cbkeys, s->buf, ilen + cblen + 1, &added))
	    >= NONE)
		return full(r);
	grow0(&s->cbs, &s->capcbs, k, sizeof(*s->cbs));
	s->cbs[k].total += t->dur;
	if (cblen == nlen && memcmp(cb, nm, nlen) == 0)
		s->cbs[k].execs++;
	else
		s->cbs[k].inner += t->dur;
	return 0;
}

/* Facts: a row of program PROG, compute or communication. */
static void
add_fact(struct stats *s, const struct trow *t, uint32_t prog)
{
	struct prog *p = &s->progs[prog];

	if (!t->comm) {
		p->compute += t->dur;
		return;
	}
	p->commdur += t->dur + t->hid;
	p->hidden += t->hid;
}

static int
spool_put(struct stats *s, const struct rec *c)
{
	if (s->spool == NULL &&
	    (s->spool = outfile_anon("nsysjax-stats")) == NULL)
		return -1;
	if (fwrite(c, sizeof(*c), 1, s->spool) != 1)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	s->nrec++;
	return 0;
}

/* The join: row T into the scanner (spmd.h: a collective is a
 * communication row of CollectiveSize above 1). */
static int
scan_row(struct stats *s, struct tsv_reader *r, const long *c,
    const struct trow *t)
{
	struct spmd_row sr;

	memset(&sr, 0, sizeof(sr));
	sr.prog = tsv_field(r, (size_t)c[T_ID]);
	sr.name = tsv_field(r, (size_t)c[T_NAME]);
	sr.exec = t->ex;
	sr.dev = t->dev;
	sr.texec = t->te;
	sr.coll = t->comm && t->csize > 1;
	sr.csize = t->csize;
	if (sr.coll && tsv_get_ms(r, (size_t)c[T_START], &sr.start_ns, 0) != 0)
		return -1;
	spmd_scan_row(s->scan, &sr);
	return 0;
}

static int
thunk_row(struct stats *s, struct tsv_reader *r, const long *c)
{
	struct rec rec = { NONE, NONE, NONE, 0, 0, 0 };
	struct instr *in;
	struct trow t;
	uint32_t prog;
	int top, stop;

	if (read_trow(s, r, c, &t) != 0 ||
	    (s->scan != NULL && scan_row(s, r, c, &t) != 0))
		return -1;
	in = &s->instrs[t.instr];
	prog = in->prog;
	top = prog != NONE && s->progs[prog].rank > 0;
	/* A module another may join keeps its instances for the biases. */
	stop = top || (prog != NONE && s->scan != NULL &&
	    spmd_scan_candidate(s->scan, strtab_get(&s->progids, prog)));
	if (top) {
		in->rows++;
		in->sum += t.dur;
		s->thunks += t.dur;
	}
	if (want(s, STATS_COSTS) && in->sched != NULL)
		add_cost(in, &t);
	if (want(s, STATS_CMDBUFS) && add_cmdbuf(s, r, c, &t) != 0)
		return -1;
	if (want(s, STATS_FACTS) && prog != NONE)
		add_fact(s, &t, prog);
	if (want(s, STATS_OFFSETS) && top && s->progs[prog].ndev >= 2 &&
	    add_offset(s, r, c, &t, prog) != 0)
		return -1;
	if (t.comm) {
		if (want(s, STATS_LATE) && stop && add_cinst(s, r, &t, prog) != 0)
			return -1;
		if ((want(s, STATS_MODULES) || want(s, STATS_FACTS)) &&
		    prog != NONE)
			return add_wait(s, r, &t, prog);
		return 0;
	}
	if (want(s, STATS_VARIABILITY) || want(s, STATS_SCATTER)) {
		if (in->vn == 0 || t.ddur < in->lo)
			in->lo = t.ddur;
		if (in->vn == 0 || t.ddur > in->hi)
			in->hi = t.ddur;
		in->vs += t.ddur;
		in->vt += t.ddur * t.ddur;
		in->vn++;
		if (want(s, STATS_VARIABILITY))
			rec.instr = t.instr;
	}
	if (biases(s) && stop &&
	    add_instance(s, r, &t, prog, &rec.inst, &rec.point) != 0)
		return -1;
	if (rec.instr == NONE && rec.inst == NONE)
		return 0;
	rec.st = t.dst;
	rec.dur = t.ddur;
	return spool_put(s, &rec);
}

/* The second pass: one compute row again. */
static void
replay_row(struct stats *s, const struct rec *c)
{
	if (c->instr != NONE) {
		struct instr *in = &s->instrs[c->instr];
		double d = c->dur - in->vs / (double)in->vn;

		in->vq += d * d;
	}
	if (c->inst != NONE) {
		const struct inst *in = &s->insts[s->imap ? s->imap[c->inst] :
		    c->inst];
		struct point *p = &s->points[c->point];
		struct pdev *d = &s->pdevs[p->pd];
		double bs = c->st - in->ts / (double)in->n;
		double be = c->st + c->dur - in->tend / (double)in->n;

		d->tb += bs + be;
		d->tn += 2;
		/* Against the mean of the other devices of the instance. */
		if (in->n >= 2)
			d->slow += c->dur - (in->sdur - c->dur) /
			    (double)(in->n - 1);
		bs = fabs(bs);
		be = fabs(be);
		if (bs > p->mxs)
			p->mxs = bs;
		if (be > p->mxe)
			p->mxe = be;
	}
}

static int
replay(struct stats *s)
{
	struct rec buf[4096];
	int64_t left = s->nrec;
	size_t n, i;

	if (s->spool == NULL)
		return 0;
	if (fflush(s->spool) != 0 || fseek(s->spool, 0, SEEK_SET) != 0)
		return err_fail("temporary file: %s", strerror(errno));
	while (left > 0) {
		n = fread(buf, sizeof(*buf), 4096, s->spool);
		if (n == 0)
			return err_fail("temporary file: %s", ferror(s->spool) ?
			    strerror(errno) : "truncated");
		for (i = 0; i < n; i++)
			replay_row(s, &buf[i]);
		left -= (int64_t)n;
	}
	fclose(s->spool);
	s->spool = NULL;
	return 0;
}

/* After the rows: waits per module execution, then per module; outlier
 * scores per device and module. */
static void
finish(struct stats *s)
{
	size_t i;

	for (i = 0; i < s->winstkeys.n; i++) {
		const struct winst *w = &s->winsts[i];
		struct exec *x = &s->execs[w->exec];

		x->wait += w->hi - w->lo;
		x->haswait = 1;
		s->progs[s->execkeys.k[3 * w->exec]].wait += w->fsum -
		    w->fn * w->flo;
	}
	for (i = 0; i < s->execkeys.n; i++)
		if (s->execs[i].haswait) {
			struct prog *p = &s->progs[s->execkeys.k[3 * i]];

			p->wn++;
			p->wsum += (double)s->execs[i].wait / 1e6;
		}
	for (i = 0; i < s->execkeys.n; i++)
		if (s->execs[i].haswait) {
			struct prog *p = &s->progs[s->execkeys.k[3 * i]];
			double d = (double)s->execs[i].wait / 1e6 - p->wsum /
			    (double)p->wn;

			p->wq += d * d;
		}
	for (i = 0; i < s->pointkeys.n; i++)
		s->pdevs[s->points[i].pd].score += s->points[i].mxs +
		    s->points[i].mxe;
	/* The device that reached a collective last kept its peers
	 * waiting: the latest start less the mean of the others'. */
	for (i = 0; i < s->cinstkeys.n; i++) {
		const struct cinst *ci = &s->cinsts[i];

		if (ci->n >= 2 && ci->pd != NONE)
			s->pdevs[ci->pd].caused += ci->max - (ci->sum -
			    ci->max) / (double)(ci->n - 1);
	}
}

/* ---- the join (stats_join) ---- */

/* The instruction of the representative RP with the Name of instruction
 * I, or NONE (a Name the representative lacks). */
static uint32_t
rep_instr(struct stats *s, uint32_t rp, int64_t i)
{
	const char *nm = strchr(strtab_get(&s->instrkeys, (size_t)i), '\t') + 1;
	const char *id = strtab_get(&s->progids, rp);
	size_t len = strlen(id) + strlen(nm) + 1;

	mem_grow(&s->buf, &s->capbuf, len + 1, 1);
	snprintf(s->buf, len + 1, "%s\t%s", id, nm);
	return (uint32_t)strtab_find(&s->instrkeys, s->buf, len);
}

/* Late with the join: each communication instance of a joined prog
 * merged into its representative's of the same Name, ProgramExecution
 * and ThunkExecution (the latest start of both, the sums added). */
static int
join_cinsts(struct stats *s)
{
	size_t n = s->cinstkeys.n, i;
	uint32_t p, rp, ri, j;
	int added;

	for (i = 0; i < n; i++) {
		int64_t k[3];
		struct cinst *a, *b;

		memcpy(k, s->cinstkeys.k + 3 * i, sizeof(k));
		p = s->instrs[k[0]].prog;
		if (p == NONE || (rp = s->rep[p]) == p ||
		    (ri = rep_instr(s, rp, k[0])) == (uint32_t)STRTAB_NONE)
			continue;
		if ((j = kh_index(&s->cinstkeys, ri, k[1], k[2], &added)) ==
		    NONE)
			return err_fail("the join: more than 2^32 - 1 keys");
		grow0(&s->cinsts, &s->capcinsts, j, sizeof(*s->cinsts));
		a = &s->cinsts[j];
		b = &s->cinsts[i];
		if (a->n == 0 || b->max > a->max) {
			a->max = b->max;
			a->pd = b->pd;
		}
		a->sum += b->sum;
		a->n += b->n;
		b->n = 0;
	}
	return 0;
}

/* After the rows: the join, each prog's representative (s->rep), and
 * each instance of a joined prog merged into its representative's of the
 * same Name, ProgramExecution and ThunkExecution (s->imap). */
static int
join_instances(struct stats *s)
{
	size_t n = s->instkeys.n, i, len;
	uint32_t p, rp, ri, j;
	const char *id, *nm;
	int added;

	(void)spmd_scan_end(s->scan, s->notes);
	s->rep = mem_calloc(s->progids.n + 1, sizeof(*s->rep));
	for (i = 0; i < s->progids.n; i++) {
		const char *q;
		size_t k;

		id = strtab_get(&s->progids, i);
		q = spmd_scan_rep(s->scan, id);
		k = strtab_find(&s->progids, q, strlen(q));
		s->rep[i] = k == STRTAB_NONE ? (uint32_t)i : (uint32_t)k;
	}
	s->imap = mem_calloc(n + 1, sizeof(*s->imap));
	for (i = 0; i < n; i++) {
		const int64_t *k = s->instkeys.k + 3 * i;

		s->imap[i] = (uint32_t)i;
		p = s->instrs[k[0]].prog;
		if (p == NONE || (rp = s->rep[p]) == p)
			continue;
		nm = strchr(strtab_get(&s->instrkeys, (size_t)k[0]), '\t') + 1;
		id = strtab_get(&s->progids, rp);
		len = strlen(id) + strlen(nm) + 1;
		mem_grow(&s->buf, &s->capbuf, len + 1, 1);
		snprintf(s->buf, len + 1, "%s\t%s", id, nm);
		if ((ri = (uint32_t)strtab_find(&s->instrkeys, s->buf, len)) ==
		    (uint32_t)STRTAB_NONE)
			continue;	/* a Name the representative lacks */
		if ((j = kh_index(&s->instkeys, ri, k[1], k[2], &added)) ==
		    NONE)
			return err_fail("the join: more than 2^32 - 1 keys");
		grow0(&s->insts, &s->capinsts, j, sizeof(*s->insts));
		s->insts[j].ts += s->insts[i].ts;
		s->insts[j].tend += s->insts[i].tend;
		s->insts[j].sdur += s->insts[i].sdur;
		s->insts[j].n += s->insts[i].n;
		s->imap[i] = j;
	}
	return join_cinsts(s);
}

/* The biases' pass over one module row, against the joined execution. */
static int
module_row3(struct stats *s, struct tsv_reader *r, const long *c)
{
	const char *id;
	size_t len;
	uint32_t p, e, pd;
	const struct exec *x;
	struct pdev *d;
	struct mrow m;

	if (module_fields(r, c, &m) != 0)
		return -1;
	id = tsv_rawfield(r, (size_t)c[M_ID], &len);
	p = (uint32_t)strtab_find(&s->progids, id, len);
	if (p == NONE || p >= s->progids.n)
		return err_fail("%s:%ld: the module frame changed between two "
		    "readings", tsv_name(r), tsv_lineno(r));
	if (s->progs[s->rep[p]].rank == 0)
		return 0;
	e = kh_find(&s->jexeckeys, s->rep[p], m.ex, 0);
	pd = kh_find(&s->pdkeys, p, m.dev, 0);
	if (e == NONE || pd == NONE)
		return err_fail("%s:%ld: the module frame changed between two "
		    "readings", tsv_name(r), tsv_lineno(r));
	x = &s->jexecs[e];
	d = &s->pdevs[pd];
	d->execs++;
	d->sb += m.dst - x->sst / (double)x->n;
	d->db += m.ddur - x->sdur / (double)x->n;
	return 0;
}

static int
module_pass3(struct tsv_reader *r, void *arg)
{
	struct stats *s = arg;
	long c[M_MAX];
	int rc;

	if (module_cols(s, r, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1)
		if (module_row3(s, r, c) != 0)
			return -1;
	return rc;
}

/* The start and duration biases with the join: the executions' sums
 * added up per (representative, ProgramExecution), then a third reading
 * of the module frame. */
static int
join_biases(struct stats *s)
{
	size_t i;
	uint32_t j;
	int added;

	for (i = 0; i < s->execkeys.n; i++) {
		const int64_t *k = s->execkeys.k + 3 * i;

		if ((j = kh_index(&s->jexeckeys, s->rep[k[0]], k[1], 0,
		    &added)) == NONE)
			return err_fail("the join: more than 2^32 - 1 keys");
		grow0(&s->jexecs, &s->capjexecs, j, sizeof(*s->jexecs));
		s->jexecs[j].sst += s->execs[i].sst;
		s->jexecs[j].sdur += s->execs[i].sdur;
		s->jexecs[j].n += s->execs[i].n;
	}
	return filter_load(s->modpath, module_pass3, s);
}

int
stats_read(struct stats *s, struct filter *in)
{
	long c[T_MAX];
	int rc;

	if (stats_needs_modules(s->o.tables) && !s->havemodules)
		return err_fail("the tables asked for need the module frame");
	if (thunk_cols(s, filter_reader(in), c) != 0)
		return -1;
	while ((rc = filter_next(in)) == 1)
		if (thunk_row(s, filter_reader(in), c) != 0)
			return -1;
	if (rc < 0 || (s->scan != NULL && join_instances(s) != 0) ||
	    replay(s) != 0)
		return -1;
	finish(s);
	if (s->scan != NULL)
		return join_biases(s);
	return 0;
}
