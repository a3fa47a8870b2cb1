#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/stats.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

#define NONE UINT32_MAX

/* ---- khash: keys of three int64 -> dense index, in order of first sight
 *
 * Not base/u64map: a key per thunk execution makes this the largest
 * table of any tool, and its slots hold 4-byte indices, the keys kept
 * once in k; u64map keeps a 64-bit key and an index in every slot (16
 * bytes), which would quadruple the slots' memory at 1000-GPU scale. */

struct khash {
	int64_t *k;		/* 3 per entry */
	size_t n, cap;
	uint32_t *slot;		/* index + 1, 0 = empty */
	size_t nslot;		/* a power of two, or 0 */
};

static size_t
kh_probe(const struct khash *h, const int64_t *key)
{
	uint64_t x = (uint64_t)key[0] * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)key[1] * 0xc2b2ae3d27d4eb4fULL ^
	    (uint64_t)key[2] * 0x165667b19e3779f9ULL;
	size_t mask = h->nslot - 1, i;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	for (i = (size_t)x & mask; h->slot[i]; i = (i + 1) & mask)
		if (memcmp(h->k + 3 * (h->slot[i] - 1), key, 3 * sizeof(*key))
		    == 0)
			break;
	return i;
}

static void
kh_rehash(struct khash *h)
{
	size_t i;

	free(h->slot);
	h->nslot = h->nslot ? h->nslot * 2 : 64;
	h->slot = mem_calloc(h->nslot, sizeof(*h->slot));
	for (i = 0; i < h->n; i++)
		h->slot[kh_probe(h, h->k + 3 * i)] = (uint32_t)(i + 1);
}

/* The index of key (A, B, C), added if new (*ADDED then 1); NONE when
 * the table is full (2^32 - 1 keys). */
static uint32_t
kh_index(struct khash *h, int64_t a, int64_t b, int64_t c, int *added)
{
	int64_t key[3] = { a, b, c };
	size_t i;

	*added = 0;
	if ((h->n + 1) * 2 > h->nslot)
		kh_rehash(h);
	i = kh_probe(h, key);
	if (h->slot[i])
		return h->slot[i] - 1;
	if (h->n >= NONE - 1)
		return NONE;
	mem_grow(&h->k, &h->cap, 3 * (h->n + 1), sizeof(*h->k));
	memcpy(h->k + 3 * h->n, key, sizeof(key));
	h->slot[i] = (uint32_t)++h->n;
	*added = 1;
	return (uint32_t)(h->n - 1);
}

/* The index of key (A, B, C), or NONE when it is not there. */
static uint32_t
kh_find(const struct khash *h, int64_t a, int64_t b, int64_t c)
{
	int64_t key[3] = { a, b, c };
	size_t i;

	if (h->nslot == 0)
		return NONE;
	i = kh_probe(h, key);
	return h->slot[i] ? h->slot[i] - 1 : NONE;
}

static void
kh_free(struct khash *h)
{
	free(h->k);
	free(h->slot);
	memset(h, 0, sizeof(*h));
}

/* Grow the array *P of elements of SIZE bytes to hold index I, zeroing
 * what is new; *CAP is its capacity. */
static void
grow0(void *p, size_t *cap, size_t i, size_t size)
{
	size_t old = *cap;

	if (i < old)
		return;
	mem_grow(p, cap, i + 1, size);
	memset(*(char **)p + old * size, 0, (*cap - old) * size);
}

/* ---- the state ---- */

/* A list of ids (strtab or table indices), in order of addition. */
struct ids {
	uint32_t *v;
	size_t n, cap;
};

static void
ids_add(struct ids *l, uint32_t id)
{
	mem_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = id;
}

/* Per ProgramId of the module frame. */
struct prog {
	char *name;		/* first Name, raw */
	int64_t rows;		/* module rows */
	int64_t total;		/* ProjDurMs, ns */
	int64_t spread;		/* sum over executions of start max - min */
	double dsum, tsum;	/* ProjDurMs, NumThunks (ms, count) */
	double dq, tq;		/* squared deviations (second pass) */
	int rank;		/* 1.. for a top module, else 0 */
	int comm;		/* has communication rows */
	int64_t wn;		/* executions with a wait */
	double wsum, wq;	/* waits (ms) */
	uint32_t ndev;		/* devices of its module rows */
	uint32_t ofirst, olast;	/* offsets: its instances, index + 1 */
	/* facts */
	char *fname;		/* last Name, raw */
	struct ids procs;	/* its Process values (s->procnames) */
	struct ids compilers;	/* ProfileNames compiling it (s->profiles) */
	int64_t compute, commdur, hidden, wait, compile;	/* ns */
};

/* Per module execution (ProgramId, ProgramExecution). */
struct exec {
	int64_t first, last;	/* ProjStartMs, ns */
	double sst, sdur;	/* sums over devices, ms */
	int64_t n;		/* rows */
	int64_t wait;		/* ns, from the communication instances */
	int haswait;
};

/* Per device and module (ProgramId, Device). */
struct pdev {
	int64_t lo, hi;		/* first start, last end, ns */
	int64_t execs;
	double sb, db;		/* start and duration biases, summed */
	double tb;		/* thunk biases, summed */
	int64_t tn;
	double score;
	int module;		/* has module rows */
	uint32_t pos;		/* 1.. in the module's devices, as first seen */
};

/* Per instruction (ProgramId, Name). */
struct instr {
	uint32_t prog;		/* index in progs, or NONE */
	int64_t rows, sum;	/* rows, ProjDurMs ns (thunks table) */
	int64_t vn;		/* compute rows (variability, scatter) */
	double vs, vq, lo, hi;
	double vt;		/* the sum of squares (scatter) */
	char *sched;		/* SchedulingName, raw (NULL: no HLO facts) */
	int hascost, costcomm;
	int64_t cost;		/* ns */
};

/* A compute thunk instance of a top module (stragglers). */
struct inst {
	double ts, tend;	/* sums of starts and ends, ms */
	int64_t n;
};

/* Per top module, device, Name and ThunkExecution (stragglers). */
struct point {
	uint32_t pd;		/* index in pdevs */
	double mxs, mxe;	/* largest |bias| of start and end */
};

/* A thunk instance of a top module on two devices or more, from all its
 * rows (offsets): its sums in row order and each device's start. */
struct oinst {
	uint32_t thunk;		/* index in othunks */
	uint32_t next;		/* the module's next instance, index + 1 */
	int64_t ex;		/* ProgramExecution */
	int64_t n;		/* rows */
	double ts;		/* sum of their ProjStartMs */
	size_t start;		/* ostarts[start + pos - 1]: device pos's */
};

/* A thunk (ProgramId, Name, ThunkExecution) of those modules. */
struct othunk {
	uint32_t instr;
	int comm;		/* Communication of its last row */
	size_t coll;		/* Collective of its last row, in colls */
	int64_t te;
};

/* A communication instance (modules and facts tables). */
struct winst {
	uint32_t exec;		/* index in execs */
	int64_t lo, hi;		/* ProjDurMs, ns */
	int64_t flo, fsum, fn;	/* facts: ProjDurMs + ProjDurHiddenMs, ns:
				   the shortest, the sum, the rows */
};

/* An XLA command buffer (cmdbufs). */
struct cmdbuf {
	int64_t execs;		/* its own rows */
	int64_t total, inner;	/* ProjDurMs: all its rows', inner rows', ns */
};

/* What the second pass over the thunk rows needs: one compute row. */
struct rec {
	uint32_t instr;		/* variability: the instruction, or NONE */
	uint32_t inst;		/* stragglers: the instance, or NONE */
	uint32_t point;
	uint32_t pad;
	double st, dur;		/* ProjStartMs, ProjDurMs */
};

struct stats {
	struct stats_opts o;
	int havemodules;

	struct strtab progids;	/* ProgramId (raw) -> progs */
	struct prog *progs;
	size_t capprogs;
	uint32_t *top;		/* progs by rank */
	size_t ntop;
	int64_t all;		/* every module row's ProjDurMs, ns */

	struct khash execkeys;	/* (prog, ProgramExecution) */
	struct exec *execs;
	size_t capexecs;

	struct khash pdkeys;	/* (prog, Device) */
	struct pdev *pdevs;
	size_t cappdevs;

	struct strtab instrkeys;	/* "ProgramId\tName" (raw) */
	struct instr *instrs;
	size_t capinstrs;

	struct khash instkeys;	/* (instr, ProgramExecution, ThunkExecution) */
	struct inst *insts;
	size_t capinsts;

	struct khash pointkeys;	/* (instr, Device, ThunkExecution) */
	struct point *points;
	size_t cappoints;

	struct khash winstkeys;	/* (instr, ProgramExecution, ThunkExecution) */
	struct winst *winsts;
	size_t capwinsts;

	struct khash oinstkeys;	/* (instr, ProgramExecution, ThunkExecution) */
	struct oinst *oinsts;
	size_t capoinsts;
	struct khash othunkkeys;	/* (instr, ThunkExecution, 0) */
	struct othunk *othunks;
	size_t capothunks;
	double *ostarts;	/* per instance, a start per device */
	size_t nostarts, capostarts;
	struct strtab colls;	/* Collective values (raw) */

	struct strtab cbkeys;	/* "ProgramId\tCommandBuffer" (raw) */
	struct cmdbuf *cbs;
	size_t capcbs;
	int64_t cball;		/* every row's ProjDurMs, ns */

	struct strtab procnames;	/* Process values of the module frame */
	struct khash prockeys;		/* (prog, process): seen */
	struct strtab profiles;		/* compile ProfileNames, first seen */
	struct khash compkeys;		/* (prog, profile): seen */
	struct strtab xids;		/* XLA program_ids (digits), first seen */
	struct ids *xmods;		/* per xid: its ProgramNames (xnames) */
	size_t capxmods;
	struct strtab xnames;		/* ProgramNames of the compile frame */
	struct khash xpairs;		/* (xid, ProgramName): seen */

	int64_t thunks;		/* top modules' thunks' ProjDurMs, ns */
	int64_t sumabs;		/* of |times| added: bounds every sum */

	FILE *spool;
	int64_t nrec;

	char *buf;		/* scratch */
	size_t capbuf;
};

static const char *const table_names[STATS_NTABLES] = {
	"thunks", "totals", "modules", "variability", "stragglers", "costs",
	"scatter", "offsets", "cmdbufs", "facts", "xla-program-ids",
	"compile-profiles"
};

const char *
stats_table_name(enum stats_table t)
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
	    STATS_BIT(STATS_OFFSETS) | STATS_BIT(STATS_FACTS))) != 0;
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

struct stats *
stats_new(const struct stats_opts *o)
{
	struct stats *s = mem_calloc(1, sizeof(*s));

	s->o = *o;
	return s;
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
	free(s->points);
	kh_free(&s->winstkeys);
	free(s->winsts);
	kh_free(&s->oinstkeys);
	free(s->oinsts);
	kh_free(&s->othunkkeys);
	free(s->othunks);
	free(s->ostarts);
	strtab_free(&s->colls);
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
	if (pr->rank == 0)
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
stats_load_hlo(struct stats *s, struct tsv_reader *r)
{
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
stats_load_compile(struct stats *s, struct tsv_reader *r)
{
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
    T_COLL, T_CB, T_MAX };

static int
thunk_cols(struct stats *s, struct tsv_reader *r, long *c)
{
	static const char *const names[T_MAX] = { "ProgramId", "Name",
	    "ProjDurMs", "ProgramExecution", "ThunkExecution", "Device",
	    "ProjStartMs", "ProjDurHiddenMs", "Communication", "Collective",
	    "CommandBuffer" };
	int offs = want(s, STATS_OFFSETS), facts = want(s, STATS_FACTS);
	int inst = want(s, STATS_STRAGGLERS) || want(s, STATS_MODULES) ||
	    offs || facts;
	int k;

	for (k = 0; k < T_MAX; k++) {
		int need = k <= T_DUR || ((k == T_EXEC || k == T_TEXEC) && inst)
		    || ((k == T_DEV || k == T_START) &&
		    (want(s, STATS_STRAGGLERS) || offs)) ||
		    (k == T_HID && (want(s, STATS_COSTS) || facts)) ||
		    (k == T_COLL && offs);

		if (k == T_COMM || (k == T_CB && want(s, STATS_CMDBUFS)))
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
	if ((want(s, STATS_VARIABILITY) || want(s, STATS_STRAGGLERS) ||
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

static int
thunk_row(struct stats *s, struct tsv_reader *r, const long *c)
{
	struct rec rec = { NONE, NONE, NONE, 0, 0, 0 };
	struct instr *in;
	struct trow t;
	uint32_t prog;
	int top;

	if (read_trow(s, r, c, &t) != 0)
		return -1;
	in = &s->instrs[t.instr];
	prog = in->prog;
	top = prog != NONE && s->progs[prog].rank > 0;
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
	if (want(s, STATS_STRAGGLERS) && top &&
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
		const struct inst *in = &s->insts[c->inst];
		struct point *p = &s->points[c->point];
		struct pdev *d = &s->pdevs[p->pd];
		double bs = c->st - in->ts / (double)in->n;
		double be = c->st + c->dur - in->tend / (double)in->n;

		d->tb += bs + be;
		d->tn += 2;
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
	if (rc < 0 || replay(s) != 0)
		return -1;
	finish(s);
	return 0;
}

/* ---- writing ---- */

/* Compare raw fields "A\tB" keys field by field, as sort -k1,1 -k2,2. */
static int
cmp_key(const char *x, const char *y)
{
	size_t nx = strcspn(x, "\t"), ny = strcspn(y, "\t");
	int c = memcmp(x, y, nx < ny ? nx : ny);

	if (c != 0)
		return c;
	if (nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(x + nx + (x[nx] != '\0'), y + ny + (y[ny] != '\0'));
}

/* Write the raw key "ProgramId\tName" as two fields. */
static void
put_key(struct tsv_writer *w, const char *k)
{
	size_t n = strcspn(k, "\t");

	tsv_raw(w, k, n);
	tsv_raw(w, k + n + (k[n] != '\0'), strlen(k + n + (k[n] != '\0')));
}

static int
cmp_thunks(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t sx = st->instrs[x].sum, sy = st->instrs[y].sum;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return cmp_key(strtab_get(&st->instrkeys, x),
	    strtab_get(&st->instrkeys, y));
}

static int
cmp_mean(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	const struct instr *x = &st->instrs[*(const uint32_t *)a];
	const struct instr *y = &st->instrs[*(const uint32_t *)b];
	double mx = x->vs / (double)x->vn, my = y->vs / (double)y->vn;

	if (mx != my)
		return mx > my ? -1 : 1;
	return cmp_key(strtab_get(&st->instrkeys, *(const uint32_t *)a),
	    strtab_get(&st->instrkeys, *(const uint32_t *)b));
}

static int
cmp_name(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;

	return cmp_key(strtab_get(&st->instrkeys, *(const uint32_t *)a),
	    strtab_get(&st->instrkeys, *(const uint32_t *)b));
}

/* The instructions selected by KEEP, sorted by CMP; *N of them. */
static uint32_t *
instrs_sorted(struct stats *s, int (*keep)(const struct stats *,
    const struct instr *), sort_cmp cmp, size_t *n)
{
	uint32_t *v = mem_calloc(s->instrkeys.n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < s->instrkeys.n; i++)
		if (keep(s, &s->instrs[i]))
			v[(*n)++] = (uint32_t)i;
	sort_stable(v, *n, sizeof(*v), cmp, s);
	return v;
}

static int
keep_thunk(const struct stats *s, const struct instr *in)
{
	(void)s;
	return in->rows > 0;
}

static int
keep_variable(const struct stats *s, const struct instr *in)
{
	double m, sd;

	if (in->vn < 2)
		return 0;
	m = in->vs / (double)in->vn;
	if (!(m > 0))
		return 0;
	sd = sqrt(in->vq / (double)(in->vn - 1));
	return sd / m > s->o.ratio;
}

static int
keep_cost(const struct stats *s, const struct instr *in)
{
	(void)s;
	return in->hascost;
}

static int
write_thunks(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Executions",
	    "ProjDurMs", NULL };
	size_t n, i;
	uint32_t *v = instrs_sorted(s, keep_thunk, cmp_thunks, &n);
	int rc = tsv_header(w, cols);

	for (i = 0; i < n && rc == 0; i++) {
		put_key(w, strtab_get(&s->instrkeys, v[i]));
		tsv_i64(w, s->instrs[v[i]].rows);
		tsv_ms(w, s->instrs[v[i]].sum);
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

static int
total_row(struct tsv_writer *w, const char *name, int64_t ns)
{
	tsv_str(w, name);
	tsv_ms(w, ns);
	return tsv_eor(w);
}

static int
write_totals(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "Quantity", "Value", NULL };
	struct khash devs = { 0 };
	int64_t *lo = NULL, *hi = NULL, modules = 0, wall = 0;
	size_t caplo = 0, caphi = 0, i;
	int added, rc;

	for (i = 0; i < s->progids.n; i++)
		if (s->progs[i].rank > 0)
			modules += s->progs[i].total;
	/* Per device: the first start and last end over the top modules. */
	for (i = 0; i < s->pdkeys.n; i++) {
		const struct pdev *d = &s->pdevs[i];
		uint32_t k;

		if (!d->module || s->progs[s->pdkeys.k[3 * i]].rank == 0)
			continue;
		if ((k = kh_index(&devs, s->pdkeys.k[3 * i + 1], 0, 0, &added))
		    == NONE)
			break;
		mem_grow(&lo, &caplo, k + 1, sizeof(*lo));
		mem_grow(&hi, &caphi, k + 1, sizeof(*hi));
		if (added || d->lo < lo[k])
			lo[k] = d->lo;
		if (added || d->hi > hi[k])
			hi[k] = d->hi;
	}
	for (i = 0; i < devs.n; i++)
		wall += hi[i] - lo[i];
	kh_free(&devs);
	free(lo);
	free(hi);
	rc = tsv_header(w, cols);
	if (rc == 0)
		rc = total_row(w, "all_thunks_active_ms", s->thunks);
	if (rc == 0)
		rc = total_row(w, "all_modules_active_ms", modules);
	if (rc == 0)
		rc = total_row(w, "all_modules_wall_ms", wall);
	return rc;
}

/* The sample standard deviation of N values with squared deviations
 * Q, or an empty field below two. */
static void
put_sd(struct tsv_writer *w, double q, int64_t n)
{
	if (n < 2)
		tsv_empty(w);
	else
		tsv_f64(w, sqrt(q / (double)(n - 1)));
}

static int
module_row(struct stats *s, struct tsv_writer *w, uint32_t i)
{
	const struct prog *p = &s->progs[i];
	double davg = p->dsum / (double)p->rows;

	tsv_raw(w, strtab_get(&s->progids, i), s->progids.len[i]);
	tsv_raw(w, p->name, strlen(p->name));
	tsv_i64(w, p->rows);
	tsv_f64(w, p->tsum / (double)p->rows);
	put_sd(w, p->tq, p->rows);
	tsv_ms(w, p->total);
	tsv_f64(w, davg);
	put_sd(w, p->dq, p->rows);
	tsv_f64(w, s->all ? 100 * (double)p->total / (double)s->all : 0);
	if (p->comm && p->wn > 0) {
		double wavg = p->wsum / (double)p->wn;

		tsv_f64(w, wavg);
		put_sd(w, p->wq, p->wn);
		tsv_f64(w, davg != 0 ? 100 * wavg / davg : 0);
	} else {
		tsv_empty(w);
		tsv_empty(w);
		tsv_empty(w);
	}
	if (p->comm)
		tsv_f64(w, p->total ? (double)p->spread / (double)p->total : 0);
	else
		tsv_empty(w);
	tsv_bool(w, p->rank > 0);
	return tsv_eor(w);
}

static int
write_modules(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Executions",
	    "NumThunksMean", "NumThunksStd", "ProjDurMs", "ProjDurMeanMs",
	    "ProjDurStdMs", "ProjDurPercent", "WaitMeanMs", "WaitStdMs",
	    "WaitPercent", "StartSpreadFraction", "TopModule", NULL };
	size_t i;
	int rc = tsv_header(w, cols);

	/* s->top holds every module, by decreasing total (choose_top). */
	for (i = 0; i < s->progids.n && rc == 0; i++)
		rc = module_row(s, w, s->top[i]);
	return rc;
}

static int
write_variability(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Executions",
	    "MeanMs", "StdMs", "RelStd", "MinMs", "MaxMs", NULL };
	size_t n, i;
	uint32_t *v = instrs_sorted(s, keep_variable, cmp_mean, &n);
	int rc = tsv_header(w, cols);

	for (i = 0; i < n && rc == 0; i++) {
		const struct instr *in = &s->instrs[v[i]];
		double m = in->vs / (double)in->vn;
		double sd = sqrt(in->vq / (double)(in->vn - 1));

		put_key(w, strtab_get(&s->instrkeys, v[i]));
		tsv_i64(w, in->vn);
		tsv_f64(w, m);
		tsv_f64(w, sd);
		tsv_f64(w, sd / m);
		tsv_f64(w, in->lo);
		tsv_f64(w, in->hi);
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

/* Stragglers: by module rank, decreasing score, device. */
static int
cmp_straggler(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const int64_t *kx = st->pdkeys.k + 3 * x, *ky = st->pdkeys.k +
	    3 * y;
	int rx = st->progs[kx[0]].rank, ry = st->progs[ky[0]].rank;
	double sx = st->pdevs[x].score, sy = st->pdevs[y].score;

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return (kx[1] > ky[1]) - (kx[1] < ky[1]);
}

static int
write_stragglers(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Device",
	    "Executions", "StartBiasMs", "DurBiasMs", "ThunkBiasMs",
	    "OutlierScoreMs", NULL };
	uint32_t *v = mem_calloc(s->pdkeys.n + 1, sizeof(*v));
	size_t n = 0, i;
	int rc = tsv_header(w, cols);

	for (i = 0; i < s->pdkeys.n; i++)
		if (s->pdevs[i].execs > 0)
			v[n++] = (uint32_t)i;
	sort_stable(v, n, sizeof(*v), cmp_straggler, s);
	for (i = 0; i < n && rc == 0; i++) {
		const struct pdev *d = &s->pdevs[v[i]];
		size_t p = (size_t)s->pdkeys.k[3 * v[i]];

		tsv_raw(w, strtab_get(&s->progids, p), s->progids.len[p]);
		tsv_raw(w, s->progs[p].name, strlen(s->progs[p].name));
		tsv_i64(w, s->pdkeys.k[3 * v[i] + 1]);
		tsv_i64(w, d->execs);
		tsv_f64(w, d->sb / (double)d->execs);
		tsv_f64(w, d->db / (double)d->execs);
		tsv_f64(w, d->tn ? d->tb / (double)d->tn : 0);
		tsv_f64(w, d->score);
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

/* ---- the plots' tables: scatter and offsets ---- */

/* Into BUF (at least 400 bytes) V as printf "%.6f" writes it, and with
 * NEG0 "-0.000000" as "0.000000" (plots.awk's ms6); its length. */
static size_t
fixed6(char *buf, double v, int neg0)
{
	int n = snprintf(buf, 400, "%.6f", v);

	if (neg0 && strcmp(buf, "-0.000000") == 0)
		n = snprintf(buf, 400, "0.000000");
	return n < 0 ? 0 : (size_t)n;
}

static int
keep_scatter(const struct stats *s, const struct instr *in)
{
	(void)s;
	return in->vn > 1 && in->vs > 0;
}

static int
write_scatter(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Executions",
	    "MeanMs", "RelStd", NULL };
	char buf[400];
	size_t n, i;
	uint32_t *v = instrs_sorted(s, keep_scatter, cmp_name, &n);
	int rc = tsv_header(w, cols);

	for (i = 0; i < n && rc == 0; i++) {
		const struct instr *in = &s->instrs[v[i]];
		double k = (double)in->vn, m = in->vs / k;
		/* plots.awk's formula, its operations in its order. */
		double var = (in->vt - k * m * m) / (k - 1);

		if (var < 0)
			var = 0;
		put_key(w, strtab_get(&s->instrkeys, v[i]));
		tsv_i64(w, in->vn);
		tsv_raw(w, buf, fixed6(buf, m, 0));
		tsv_raw(w, buf, fixed6(buf, sqrt(var) / m, 0));
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

/* One thunk of a module's offsets table: the instances counted, the sum
 * of their offsets, its mean as printed and that as a number (the key). */
struct oq {
	uint32_t thunk;
	int64_t tn;
	double off, ro;
};

struct octx {
	const struct stats *s;
	const struct oq *q;
};

/* The Name of thunk TH (the raw field). */
static const char *
othunk_name(const struct stats *s, uint32_t th)
{
	const char *k = strtab_get(&s->instrkeys, s->othunks[th].instr);

	return k + strcspn(k, "\t") + 1;
}

/* By mean offset as printed, then Name (bytes), then ThunkExecution. */
static int
cmp_oq(const void *a, const void *b, const void *ctx)
{
	const struct octx *c = ctx;
	const struct oq *x = &c->q[*(const uint32_t *)a];
	const struct oq *y = &c->q[*(const uint32_t *)b];
	int64_t tx = c->s->othunks[x->thunk].te, ty = c->s->othunks[y->thunk].te;
	int k;

	if (x->ro != y->ro)
		return x->ro < y->ro ? -1 : 1;
	if ((k = strcmp(othunk_name(c->s, x->thunk),
	    othunk_name(c->s, y->thunk))) != 0)
		return k;
	return (tx > ty) - (tx < ty);
}

/* Devices (pdevs) by number. */
static int
cmp_odev(const void *a, const void *b, const void *ctx)
{
	const struct stats *s = ctx;
	int64_t x = s->pdkeys.k[3 * *(const uint32_t *)a + 1];
	int64_t y = s->pdkeys.k[3 * *(const uint32_t *)b + 1];

	return (x > y) - (x < y);
}

/*
 * The offsets of top module P (ndev >= 2) written, its devices DEV[0..nd)
 * by their place in its rows; QOF (per thunk, zeroed) numbers its thunks.
 */
static int
module_offsets(struct stats *s, struct tsv_writer *w, uint32_t p,
    uint32_t *dev, uint32_t *qof)
{
	const struct prog *pr = &s->progs[p];
	size_t nd = pr->ndev, nq = 0, capq = 0, capb = 0, i, d;
	struct oq *q = NULL;
	double *bias = NULL;
	uint32_t *ix, *dv, k;
	char b6[400], o6[400];
	struct octx ctx;
	int rc = 0;

	for (k = pr->ofirst; k; k = s->oinsts[k - 1].next) {
		const struct oinst *oi = &s->oinsts[k - 1];
		uint32_t e = kh_find(&s->execkeys, p, oi->ex, 0);
		double me, mm;
		struct oq *t;

		/* Instances every device ran, in an execution the module
		 * rows have (plots.awk's straggler_table). */
		if (oi->n != (int64_t)nd || e == NONE || s->execs[e].n == 0)
			continue;
		me = s->execs[e].sst / (double)s->execs[e].n;
		mm = oi->ts / (double)nd;
		if (qof[oi->thunk] == 0) {
			mem_grow(&q, &capq, nq + 1, sizeof(*q));
			grow0(&bias, &capb, (nq + 1) * nd, sizeof(*bias));
			memset(&q[nq], 0, sizeof(*q));
			q[nq].thunk = oi->thunk;
			qof[oi->thunk] = (uint32_t)++nq;
		}
		t = &q[qof[oi->thunk] - 1];
		t->tn++;
		t->off += mm - me;
		for (d = 0; d < nd; d++)
			bias[(qof[oi->thunk] - 1) * nd + d] +=
			    s->ostarts[oi->start + d] - mm;
	}
	ix = mem_calloc(nq + 1, sizeof(*ix));
	for (i = 0; i < nq; i++) {
		fixed6(o6, q[i].off / (double)q[i].tn, 1);
		q[i].ro = strtod(o6, NULL);
		ix[i] = (uint32_t)i;
	}
	ctx.s = s;
	ctx.q = q;
	sort_stable(ix, nq, sizeof(*ix), cmp_oq, &ctx);
	dv = mem_calloc(nd + 1, sizeof(*dv));
	memcpy(dv, dev, nd * sizeof(*dv));
	sort_stable(dv, nd, sizeof(*dv), cmp_odev, s);
	for (d = 0; d < nd && rc == 0; d++) {
		size_t pos = s->pdevs[dv[d]].pos - 1;

		for (i = 0; i < nq && rc == 0; i++) {
			const struct oq *t = &q[ix[i]];
			const struct othunk *th = &s->othunks[t->thunk];
			const char *nm = othunk_name(s, t->thunk);

			tsv_raw(w, strtab_get(&s->progids, p), s->progids.len[p]);
			tsv_raw(w, nm, strlen(nm));
			tsv_i64(w, th->te);
			tsv_i64(w, s->pdkeys.k[3 * dv[d] + 1]);
			tsv_i64(w, t->tn);
			tsv_raw(w, o6, fixed6(o6, t->off / (double)t->tn, 1));
			tsv_raw(w, b6, fixed6(b6, bias[ix[i] * nd + pos] /
			    (double)t->tn, 1));
			tsv_i64(w, th->comm);
			tsv_raw(w, strtab_get(&s->colls, th->coll),
			    s->colls.len[th->coll]);
			rc = tsv_eor(w);
		}
	}
	free(dv);
	free(ix);
	free(q);
	free(bias);
	return rc;
}

static int
write_offsets(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name",
	    "ThunkExecution", "Device", "Executions", "OffsetMs",
	    "StartBiasMs", "Communication", "Collective", NULL };
	size_t np = s->progids.n, *base = mem_calloc(np + 1, sizeof(*base));
	uint32_t *dev = mem_calloc(s->pdkeys.n + 1, sizeof(*dev));
	uint32_t *qof = mem_calloc(s->othunkkeys.n + 1, sizeof(*qof));
	size_t i;
	int rc = tsv_header(w, cols);

	/* Each module's devices together, by their place in its rows. */
	for (i = 0; i < np; i++)
		base[i + 1] = base[i] + s->progs[i].ndev;
	for (i = 0; i < s->pdkeys.n; i++)
		if (s->pdevs[i].module)
			dev[base[s->pdkeys.k[3 * i]] + s->pdevs[i].pos - 1] =
			    (uint32_t)i;
	for (i = 0; i < s->ntop && rc == 0; i++) {
		uint32_t p = s->top[i];

		if (s->progs[p].ndev >= 2)
			rc = module_offsets(s, w, p, dev + base[p], qof);
	}
	free(base);
	free(dev);
	free(qof);
	return rc;
}

size_t
stats_cost_line(char **buf, size_t *cap, const char *name, size_t len,
    int64_t cost_ns)
{
	uint64_t a = cost_ns < 0 ? -(uint64_t)cost_ns : (uint64_t)cost_ns;
	uint64_t q = a / 100, r = a % 100;
	size_t n = 0, i;
	char tail[64];
	int t;

	/* Tenths of a us, rounded half to even. */
	if (r > 50 || (r == 50 && q % 2))
		q++;
	t = snprintf(tail, sizeof(tail), "\" cost_us: %s%" PRIu64 ".%" PRIu64
	    " }", cost_ns < 0 && q ? "-" : "", q / 10, q % 10);
	mem_grow(buf, cap, 16 + 2 * len + (size_t)t, 1);
	memcpy(*buf, "costs { name: \"", 15);
	n = 15;
	for (i = 0; i < len; i++) {
		if (name[i] == '"')
			(*buf)[n++] = '\\';
		(*buf)[n++] = name[i];
	}
	memcpy(*buf + n, tail, (size_t)t + 1);
	return n + (size_t)t;
}

static int
write_costs(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "CostLine",
	    NULL };
	size_t n, i, len;
	uint32_t *v = instrs_sorted(s, keep_cost, cmp_name, &n);
	char *line = NULL;
	size_t cap = 0;
	int rc = tsv_header(w, cols);

	for (i = 0; i < n && rc == 0; i++) {
		const struct instr *in = &s->instrs[v[i]];
		const char *k = strtab_get(&s->instrkeys, v[i]);
		const char *nm = in->sched;

		if (*nm == '\0' && s->o.fallback)
			nm = k + strcspn(k, "\t") + 1;
		len = stats_cost_line(&line, &cap, nm, strlen(nm), in->cost);
		put_key(w, k);
		tsv_raw(w, line, len);
		rc = tsv_eor(w);
	}
	free(line);
	free(v);
	return rc;
}

/* Cmdbufs: by decreasing total, then ProgramId, Name (bytes). */
static int
cmp_cmdbuf(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t tx = st->cbs[x].total, ty = st->cbs[y].total;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return cmp_key(strtab_get(&st->cbkeys, x), strtab_get(&st->cbkeys, y));
}

static int
write_cmdbufs(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Executions",
	    "ProjDurMs", "InnerMs", "Fraction", NULL };
	size_t n = s->cbkeys.n, i;
	uint32_t *v = mem_calloc(n + 1, sizeof(*v));
	int rc = tsv_header(w, cols);

	for (i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	sort_stable(v, n, sizeof(*v), cmp_cmdbuf, s);
	for (i = 0; i < n && rc == 0; i++) {
		const struct cmdbuf *cb = &s->cbs[v[i]];

		put_key(w, strtab_get(&s->cbkeys, v[i]));
		tsv_i64(w, cb->execs);
		tsv_ms(w, cb->total);
		tsv_ms(w, cb->inner);
		tsv_f64(w, s->cball > 0 ? (double)cb->total /
		    (double)s->cball : 0);
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

/* Facts: the strings of table T named by L, comma-separated, as a
 * field. */
static void
put_list(struct stats *s, struct tsv_writer *w, const struct strtab *t,
    const struct ids *l)
{
	size_t len = 0, i, k;

	for (i = 0; i < l->n; i++) {
		k = t->len[l->v[i]];
		mem_grow(&s->buf, &s->capbuf, len + k + 2, 1);
		if (i > 0)
			s->buf[len++] = ',';
		memcpy(s->buf + len, strtab_get(t, l->v[i]), k);
		len += k;
	}
	tsv_raw(w, s->buf, len);
}

/* Facts: the module doing the work, most ComputeMs (ties: the smaller
 * ProgramId, bytes), or NONE. */
static uint32_t
work_module(const struct stats *s)
{
	uint32_t best = NONE, i;

	for (i = 0; i < s->progids.n; i++)
		if (best == NONE ||
		    s->progs[i].compute > s->progs[best].compute ||
		    (s->progs[i].compute == s->progs[best].compute &&
		    strcmp(strtab_get(&s->progids, i),
		    strtab_get(&s->progids, best)) < 0))
			best = i;
	return best;
}

static int
fact_row(struct stats *s, struct tsv_writer *w, uint32_t i, uint32_t work)
{
	const struct prog *p = &s->progs[i];
	int peers = p->ndev > 1;
	double share = p->total > 0 ? (double)p->wait / (double)p->total : 0;

	tsv_raw(w, strtab_get(&s->progids, i), s->progids.len[i]);
	tsv_raw(w, p->fname, strlen(p->fname));
	tsv_i64(w, p->ndev);
	put_list(s, w, &s->procnames, &p->procs);
	tsv_i64(w, p->rows);
	tsv_ms(w, p->total);
	tsv_ms(w, p->compute);
	tsv_ms(w, p->commdur);
	tsv_ms(w, p->hidden);
	if (p->commdur > 0)
		tsv_f64(w, (double)p->hidden / (double)p->commdur);
	else
		tsv_empty(w);
	if (peers)
		tsv_ms(w, p->wait);
	else
		tsv_empty(w);
	if (peers && p->total > 0)
		tsv_f64(w, share);
	else
		tsv_empty(w);
	tsv_bool(w, peers && p->total > 0 && share > 0.5);
	tsv_bool(w, i == work);
	put_list(s, w, &s->profiles, &p->compilers);
	tsv_ms(w, p->compile);
	return tsv_eor(w);
}

static int
write_facts(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Devices",
	    "Processes", "Executions", "ProjDurMs", "ComputeMs",
	    "CommunicationMs", "HiddenMs", "HiddenShare", "CollectiveWaitMs",
	    "WaitShare", "Barrier", "WorkModule", "CompiledBy", "CompileMs",
	    NULL };
	uint32_t work = work_module(s);
	size_t i;
	int rc = tsv_header(w, cols);

	/* s->top holds every module, by decreasing total (choose_top). */
	for (i = 0; i < s->progids.n && rc == 0; i++)
		rc = fact_row(s, w, s->top[i], work);
	return rc;
}

/* XLA program ids by number (awk's x + 0), stable. */
static int
cmp_xid(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	double x = strtod(strtab_get(&st->xids, *(const uint32_t *)a), NULL);
	double y = strtod(strtab_get(&st->xids, *(const uint32_t *)b), NULL);

	return x < y ? -1 : x > y;
}

static int
write_program_ids(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "XlaProgramId", "Modules", NULL };
	size_t n = s->xids.n, i;
	uint32_t *v = mem_calloc(n + 1, sizeof(*v));
	int rc = tsv_header(w, cols);

	for (i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	sort_stable(v, n, sizeof(*v), cmp_xid, s);
	for (i = 0; i < n && rc == 0; i++) {
		tsv_raw(w, strtab_get(&s->xids, v[i]), s->xids.len[v[i]]);
		put_list(s, w, &s->xnames, &s->xmods[v[i]]);
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

static int
write_compile_profiles(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProfileName", NULL };
	size_t i;
	int rc = tsv_header(w, cols);

	for (i = 0; i < s->profiles.n && rc == 0; i++) {
		tsv_raw(w, strtab_get(&s->profiles, i), s->profiles.len[i]);
		rc = tsv_eor(w);
	}
	return rc;
}

int
stats_write(struct stats *s, enum stats_table t, struct tsv_writer *w)
{
	switch (t) {
	case STATS_THUNKS:
		return write_thunks(s, w);
	case STATS_TOTALS:
		return write_totals(s, w);
	case STATS_MODULES:
		return write_modules(s, w);
	case STATS_VARIABILITY:
		return write_variability(s, w);
	case STATS_STRAGGLERS:
		return write_stragglers(s, w);
	case STATS_COSTS:
		return write_costs(s, w);
	case STATS_SCATTER:
		return write_scatter(s, w);
	case STATS_OFFSETS:
		return write_offsets(s, w);
	case STATS_CMDBUFS:
		return write_cmdbufs(s, w);
	case STATS_FACTS:
		return write_facts(s, w);
	case STATS_PROGRAM_IDS:
		return write_program_ids(s, w);
	case STATS_COMPILE_PROFILES:
		return write_compile_profiles(s, w);
	default:
		return err_fail("no table %d", (int)t);
	}
}
