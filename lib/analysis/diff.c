#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/barrier.h"
#include "analysis/diff.h"
#include "analysis/sigtest.h"
#include "base/err.h"
#include "base/ids.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "base/u64map.h"

#define NONE	((size_t)-1)
#define U32MAX	((int64_t)0xffffffff)

/* ---- keys of the map (base/u64map.h) ---- */

/* Two ids (of strtab, below 2^32: 4 billion distinct names would not
 * fit in memory first) as one key; checked, as a collision would merge
 * two rows silently. */
static uint64_t
pair(size_t a, size_t b)
{
	if ((uint64_t)a > UINT32_MAX || (uint64_t)b > UINT32_MAX)
		err_die("more than 2^32 distinct names");
	return (uint64_t)a << 32 | (uint64_t)b;
}

/* ---- the data of one run ---- */

/* Samples in ns: 4 bytes each while they fit, else 8. */
struct samples {
	void *v;
	size_t n, cap;
	size_t excap;		/* of the item's ex */
	int wide;
};

struct item {			/* (ProgramId, Name) of one run */
	size_t prog, name;	/* ids in run.progs, diff.names */
	int64_t sum;
	struct samples s;
	uint32_t *ex;		/* each sample's execution (run.exec) */
	size_t pairkey;		/* key id + 1 of a paired row; 0: none */
	size_t pend;		/* a buffer's: its pairing + 1 (diff.pend) */
	size_t next;		/* next item of its row + 1 */
};

/* A command buffer of a cmdbufs side table: OPS[first..first + n). */
struct cbuf {
	size_t prog, buf;	/* ids in run.progs, diff.names */
	size_t first, n;
};

struct exec {			/* one module execution on one device */
	size_t prog;
	int64_t exec, dev, sum;
};

struct prog {
	size_t mod;		/* module name id in diff.mods + 1; 0: none */
	size_t group;
	size_t rows, nexec;
	size_t src;		/* the table that named it (messages) */
	int64_t sum;		/* its rows' durations, ns */
};

struct hlo {			/* an hlo row: key texts of (prog, name) */
	size_t opname;		/* id in diff.names + 1; 0: empty */
	int64_t frame;		/* innermost frame of the first stack; -1 */
};

struct run {
	struct strtab progs;	/* ProgramId fields, escaped */
	struct prog *prog;
	size_t capprog;
	struct item *item;
	size_t nitem, capitem;
	struct u64map items;	/* pair(prog, name) -> item */
	struct exec *exec;
	size_t nexec, capexec;
	struct u64map execs;	/* exec_hash(prog, exec, dev) -> exec */
	struct hlo *hlo;
	size_t nhlo, caphlo;
	struct u64map hlos;	/* pair(prog, name) -> hlo */
	struct u64map frames;	/* FrameId -> text id in diff.names */
	struct cbuf *cb;	/* the cmdbufs side table */
	size_t ncb, capcb;
	size_t *cbop;		/* its operations, ids in diff.names */
	size_t ncbop, capcbop;
	struct u64map cbs;	/* pair(prog, buf) -> cb */
	int has_cb;		/* a cmdbufs side table was read */
	int64_t total;		/* sum of durations, ns */
	size_t lastprog, lastname, lastitem;
	char *lp, *ln;		/* the last fields seen (cache) */
	size_t lpn, lnn, lpcap, lncap;
};

/* A module of the comparison: ProgramIds of each run that match. */
struct group {
	size_t mod;		/* module name id + 1; 0: none */
	size_t *prog[2];
	size_t nprog[2], capprog[2];
	int by_name;
	int barrier;		/* left out of the total (barrier.h) */
};

/* The numbers of an item or module row. */
struct nums {
	size_t n[2];		/* samples (items) or executions (modules) */
	int64_t sum[2];		/* ns */
	double mean[2], med[2];	/* ns */
	double var[2];		/* sample variance (modules), ns^2 */
	double contrib;		/* ns */
	struct sigtest_mwu t;
	double padj;
	int both;		/* samples in both runs */
	int tested;		/* and tested: at least opts.min_share */
};

struct row {
	size_t group, key;	/* key: id in diff.names */
	size_t first[2];	/* first item + 1 of each run */
	struct nums x;
	/* A command buffer of run bufrun with the operations it holds that
	 * run as thunks in the other run (diff.h): paired. */
	int paired, bufrun;
	size_t buf;		/* the buffer's name, id in diff.names */
	size_t nmoved, nlisted;	/* operations paired; the buffer holds */
	size_t pend;		/* its pairing (diff.pend) */
};

/* A buffer paired with its operations, until match_items makes rows. */
struct pend {
	int bufrun;
	size_t buf, nmoved, nlisted, cb;	/* cb: in run bufrun */
};

struct diff {
	struct diff_opts o;
	struct pend *pend;
	size_t npend, cappend;
	size_t *paired;		/* rows paired, in row order */
	size_t npaired;
	size_t unknown_name;	/* the first buffer of cb_unknown */
	enum diff_kind kind;
	struct run run[2];
	struct strtab names;	/* thunk names, key texts (escaped) */
	struct strtab mods;	/* module names (escaped) */
	struct group *group;
	size_t ngroup, capgroup;
	struct nums *gnums;	/* by group */
	size_t *gorder;		/* groups, sorted */
	struct row *row;
	size_t nrow, caprow;
	struct diff_total tot;
	int64_t *scratch[2];
	size_t capscratch[2];
	char *buf;		/* the ProgramIds of a group, joined */
	size_t capbuf;
	struct barrier *bar;	/* the barrier rule's rows */
	int64_t kept[2];	/* each run's total less its barriers' */
};

struct diff *
diff_new(const struct diff_opts *o)
{
	struct diff *d = mem_calloc(1, sizeof *d);

	d->o = *o;
	d->bar = barrier_new();
	return d;
}

static void
run_free(struct run *r)
{
	size_t i;

	strtab_free(&r->progs);
	free(r->prog);
	for (i = 0; i < r->nitem; i++) {
		free(r->item[i].s.v);
		free(r->item[i].ex);
	}
	free(r->cb);
	free(r->cbop);
	u64map_free(&r->cbs);
	free(r->item);
	u64map_free(&r->items);
	free(r->exec);
	u64map_free(&r->execs);
	free(r->hlo);
	u64map_free(&r->hlos);
	u64map_free(&r->frames);
	free(r->lp);
	free(r->ln);
}

void
diff_free(struct diff *d)
{
	size_t i;

	if (d == NULL)
		return;
	run_free(&d->run[0]);
	run_free(&d->run[1]);
	strtab_free(&d->names);
	strtab_free(&d->mods);
	for (i = 0; i < d->ngroup; i++) {
		free(d->group[i].prog[0]);
		free(d->group[i].prog[1]);
	}
	free(d->group);
	free(d->gnums);
	free(d->gorder);
	free(d->row);
	free(d->pend);
	free(d->paired);
	free(d->scratch[0]);
	free(d->scratch[1]);
	free(d->buf);
	barrier_free(d->bar);
	free(d);
}

void
diff_set_kind(struct diff *d, enum diff_kind k)
{
	d->kind = k;
}

/* The id of ProgramId P in run R, a new zeroed prog if new. */
static size_t
prog_id(struct run *r, const char *p, size_t n)
{
	int added;
	size_t id = strtab_intern(&r->progs, p, n, &added);

	if (added) {
		mem_grow(&r->prog, &r->capprog, id + 1, sizeof *r->prog);
		memset(&r->prog[id], 0, sizeof r->prog[id]);
	}
	return id;
}

/* ---- side tables ---- */

static int
set_module(struct diff *d, struct tsv_reader *t, struct run *r,
    const char *p, size_t pn, const char *m, size_t mn)
{
	size_t id = prog_id(r, p, pn);
	size_t mod = strtab_intern(&d->mods, m, mn, NULL) + 1;

	if (r->prog[id].mod != 0 && r->prog[id].mod != mod)
		return err_fail("%s:%ld: ProgramId %s is named both %s and %s",
		    tsv_name(t), tsv_lineno(t), strtab_get(&r->progs, id),
		    strtab_get(&d->mods, r->prog[id].mod - 1),
		    strtab_get(&d->mods, mod - 1));
	r->prog[id].mod = mod;
	return 0;
}

/* A module or compile frame: ProgramId -> module name in column NAMECOL. */
static int
load_names(struct diff *d, struct run *r, struct tsv_reader *t,
    long namecol)
{
	long pc = tsv_col(t, "ProgramId"), ec = tsv_col(t, "ProgramExecution");
	long dc = tsv_col(t, "Device"), tc = tsv_col(t, "ProjDurMs");
	const char *p, *m;
	size_t pn, mn;
	int64_t ex, dev, dur;
	int rc;

	while ((rc = tsv_next(t)) == 1) {
		p = tsv_rawfield(t, (size_t)pc, &pn);
		m = tsv_rawfield(t, (size_t)namecol, &mn);
		if (pn == 0 || mn == 0)
			continue;	/* a compile range of no program */
		if (set_module(d, t, r, p, pn, m, mn) != 0)
			return -1;
		if (ec < 0 || dc < 0 || tc < 0)
			continue;	/* no module times (a compile frame) */
		if (tsv_get_i64(t, (size_t)ec, &ex, 0) != 0 ||
		    tsv_get_i64(t, (size_t)dc, &dev, 0) != 0 ||
		    tsv_get_ms(t, (size_t)tc, &dur, 0) != 0)
			return -1;
		barrier_module(d->bar, r == &d->run[0] ? 0 : 1, p, pn, ex, dev,
		    dur);
	}
	return rc;
}

static int
load_frames(struct diff *d, struct run *r, struct tsv_reader *t)
{
	long ic = tsv_col(t, "FrameId"), fc = tsv_col(t, "Frame");
	const char *f;
	size_t fn, text;
	int64_t id;
	int rc;

	while ((rc = tsv_next(t)) == 1) {
		if (tsv_get_i64(t, (size_t)ic, &id, 0) != 0)
			return -1;
		if (id < 0)
			return err_fail("%s:%ld: column FrameId: negative: %lld",
			    tsv_name(t), tsv_lineno(t), (long long)id);
		f = tsv_rawfield(t, (size_t)fc, &fn);
		text = strtab_intern(&d->names, f, fn, NULL);
		if (u64map_get(&r->frames, (uint64_t)id) == NONE)
			u64map_add(&r->frames, (uint64_t)id, text);
	}
	return rc;
}

static int
load_hlo(struct diff *d, struct run *r, struct tsv_reader *t)
{
	long pc = tsv_col(t, "ProgramId"), nc = tsv_col(t, "Name");
	long oc = tsv_col(t, "OpName"), sc = tsv_col(t, "StackFrameIds");
	const char *p, *n, *o;
	size_t pn, nn, on, prog, name;
	struct hlo h;
	struct ids ids = { NULL, 0, 0 };
	int rc;

	while ((rc = tsv_next(t)) == 1) {
		p = tsv_rawfield(t, (size_t)pc, &pn);
		n = tsv_rawfield(t, (size_t)nc, &nn);
		o = tsv_rawfield(t, (size_t)oc, &on);
		h.opname = on ? strtab_intern(&d->names, o, on, NULL) + 1 : 0;
		/* The innermost frame of the first stack; -1: none. */
		if (sc >= 0 && ids_read(t, (size_t)sc, SIZE_MAX, &ids) != 0) {
			rc = -1;
			break;
		}
		h.frame = sc >= 0 && ids.n > 0 ? (int64_t)ids.v[0] : -1;
		prog = prog_id(r, p, pn);
		name = strtab_intern(&d->names, n, nn, NULL);
		if (u64map_get(&r->hlos, pair(prog, name)) != NONE)
			continue;	/* another variant: the first counts */
		mem_grow(&r->hlo, &r->caphlo, r->nhlo + 1, sizeof *r->hlo);
		r->hlo[r->nhlo] = h;
		u64map_add(&r->hlos, pair(prog, name), r->nhlo++);
	}
	ids_free(&ids);
	return rc;
}

/* A cmdbufs side table (nsysjax-extract -o): a buffer's rows come
 * together; a buffer met again later keeps its first rows. */
static int
load_cmdbufs(struct diff *d, struct run *r, struct tsv_reader *t)
{
	long pc = tsv_col(t, "ProgramId"), bc = tsv_col(t, "CommandBuffer");
	long oc = tsv_col(t, "Operation");
	const char *p, *b, *o;
	size_t pn, bn, on, prog, buf, k, ncb0 = r->ncb;
	int rc;

	r->has_cb = 1;
	while ((rc = tsv_next(t)) == 1) {
		p = tsv_rawfield(t, (size_t)pc, &pn);
		b = tsv_rawfield(t, (size_t)bc, &bn);
		o = tsv_rawfield(t, (size_t)oc, &on);
		if (pn == 0 || bn == 0 || on == 0)
			return err_fail("%s:%ld: an empty ProgramId, "
			    "CommandBuffer or Operation", tsv_name(t),
			    tsv_lineno(t));
		prog = prog_id(r, p, pn);
		buf = strtab_intern(&d->names, b, bn, NULL);
		k = u64map_get(&r->cbs, pair(prog, buf));
		if (k == NONE) {
			mem_grow(&r->cb, &r->capcb, r->ncb + 1, sizeof *r->cb);
			r->cb[r->ncb] = (struct cbuf){ prog, buf, r->ncbop, 0 };
			u64map_add(&r->cbs, pair(prog, buf), r->ncb);
			k = r->ncb++;
		}
		if (k < ncb0 || k != r->ncb - 1 ||
		    r->cb[k].first + r->cb[k].n != r->ncbop)
			continue;	/* rows of a buffer met before */
		mem_grow(&r->cbop, &r->capcbop, r->ncbop + 1, sizeof *r->cbop);
		r->cbop[r->ncbop++] = strtab_intern(&d->names, o, on, NULL);
		r->cb[k].n++;
	}
	return rc;
}

int
diff_load_side(struct diff *d, int run, struct tsv_reader *t)
{
	struct run *r = &d->run[run];
	long c;

	if (tsv_col(t, "FrameId") >= 0 && tsv_col(t, "Frame") >= 0)
		return load_frames(d, r, t);
	if (tsv_col(t, "ProgramId") < 0)
		return err_fail("%s: no ProgramId column: not a module, "
		    "compile, hlo or stackframes frame", tsv_name(t));
	if (tsv_col(t, "OpName") >= 0 && tsv_col(t, "Name") >= 0)
		return load_hlo(d, r, t);
	if (tsv_col(t, "CommandBuffer") >= 0 && tsv_col(t, "Operation") >= 0)
		return load_cmdbufs(d, r, t);
	if ((c = tsv_col(t, "ProgramName")) >= 0)
		return load_names(d, r, t, c);
	if ((c = tsv_col(t, "Name")) >= 0 &&
	    tsv_col(t, "ProgramExecution") >= 0 &&
	    tsv_col(t, "ThunkExecution") < 0)
		return load_names(d, r, t, c);
	return err_fail("%s: not a module, compile, hlo or stackframes frame "
	    "nor a cmdbufs table (columns ProgramId, Name, ProgramExecution; "
	    "ProgramId, ProgramName; ProgramId, Name, OpName; FrameId, Frame; "
	    "ProgramId, CommandBuffer, Operation)", tsv_name(t));
}

/* ---- the frames ---- */

static void
push(struct samples *s, int64_t v)
{
	uint32_t *u;
	int64_t *w;
	size_t i;

	if (!s->wide && v > U32MAX) {	/* widen in place */
		u = s->v;
		w = mem_realloc(NULL, s->cap ? s->cap : 1, sizeof *w);
		for (i = 0; i < s->n; i++)
			w[i] = u[i];
		free(s->v);
		s->v = w;
		s->wide = 1;
	}
	if (s->n == s->cap)
		mem_grow(&s->v, &s->cap, s->n + 1, s->wide ? sizeof(int64_t) :
		    sizeof(uint32_t));
	if (s->wide)
		((int64_t *)s->v)[s->n++] = v;
	else
		((uint32_t *)s->v)[s->n++] = (uint32_t)v;
}

/* Append S's samples to OUT[*N...] (room made with mem_grow). */
static void
gather(const struct samples *s, int64_t **out, size_t *cap, size_t *n)
{
	size_t i;

	if (s->n == 0)
		return;		/* s->v may be NULL: no memcpy from it */
	mem_grow(out, cap, *n + s->n, sizeof **out);
	if (s->wide)
		memcpy(*out + *n, s->v, s->n * sizeof(int64_t));
	else
		for (i = 0; i < s->n; i++)
			(*out)[*n + i] = ((const uint32_t *)s->v)[i];
	*n += s->n;
}

/* The field F[0..N) is the one cached in *C (length *CN); else cache it. */
static int
cached(char **c, size_t *cn, size_t *cap, const char *f, size_t n)
{
	if (*c != NULL && *cn == n && memcmp(*c, f, n) == 0)
		return 1;
	mem_grow(c, cap, n + 1, 1);
	memcpy(*c, f, n);
	*cn = n;
	return 0;
}

static uint64_t
exec_hash(size_t prog, int64_t exec, int64_t dev)
{
	return u64map_mix(u64map_mix(pair(prog, 0) ^ (uint64_t)exec) ^
	    (uint64_t)dev);
}

/* Add DUR to the execution (PROG, EXEC, DEV), new or not; its index. */
static size_t
add_exec(struct run *r, size_t prog, int64_t exec, int64_t dev, int64_t dur)
{
	uint64_t h = exec_hash(prog, exec, dev);
	struct u64map_it it;
	struct exec *e;
	size_t j;

	for (j = u64map_first(&r->execs, h, &it); j != U64MAP_NONE;
	    j = u64map_next(&r->execs, &it)) {
		e = &r->exec[j];
		if (e->prog == prog && e->exec == exec && e->dev == dev) {
			e->sum += dur;
			return j;
		}
	}
	mem_grow(&r->exec, &r->capexec, r->nexec + 1, sizeof *r->exec);
	r->exec[r->nexec] = (struct exec){ prog, exec, dev, dur };
	u64map_add(&r->execs, h, r->nexec++);
	r->prog[prog].nexec++;
	return r->nexec - 1;
}

int
diff_add(struct diff *d, int run, const char *program, size_t plen,
    const char *name, size_t nlen, int64_t exec, int64_t device,
    int64_t dur_ns)
{
	struct run *r = &d->run[run];
	size_t prog, nm, it, j;
	int newkey = 0;
	struct item *x;

	if (dur_ns > TSV_MAX_NS - r->total)
		return err_fail("the durations add up to more than 2^60 ns");
	r->total += dur_ns;
	if (!cached(&r->lp, &r->lpn, &r->lpcap, program, plen)) {
		r->lastprog = prog_id(r, program, plen);
		newkey = 1;
	}
	prog = r->lastprog;
	if (d->kind == DIFF_MODULES) {
		/* the Name of a module row is the module's name */
		if (!cached(&r->ln, &r->lnn, &r->lncap, name, nlen) || newkey) {
			newkey = 1;
			if (r->prog[prog].mod == 0)
				r->prog[prog].mod = strtab_intern(&d->mods,
				    name, nlen, NULL) + 1;
		}
		r->lastname = 0;
	} else if (!cached(&r->ln, &r->lnn, &r->lncap, name, nlen)) {
		r->lastname = strtab_intern(&d->names, name, nlen, NULL);
		newkey = 1;
	}
	nm = r->lastname;
	if (newkey || r->nitem == 0) {
		it = u64map_get(&r->items, pair(prog, nm));
		if (it == NONE) {
			mem_grow(&r->item, &r->capitem, r->nitem + 1,
			    sizeof *r->item);
			x = &r->item[r->nitem];
			memset(x, 0, sizeof *x);
			x->prog = prog, x->name = nm;
			u64map_add(&r->items, pair(prog, nm), r->nitem);
			it = r->nitem++;
		}
		r->lastitem = it;
	}
	x = &r->item[r->lastitem];
	x->sum += dur_ns;
	push(&x->s, dur_ns);
	r->prog[prog].rows++;
	r->prog[prog].sum += dur_ns;
	j = add_exec(r, prog, exec, device, dur_ns);
	if ((uint64_t)j > UINT32_MAX)
		return err_fail("more than 2^32 module executions");
	mem_grow(&x->ex, &x->s.excap, x->s.n, sizeof *x->ex);
	x->ex[x->s.n - 1] = (uint32_t)j;
	return 0;
}

/* The barrier rule's facts of the row of T: a communication row's
 * ThunkExecution and whole duration (DUR and ProjDurHiddenMs, column HC;
 * CC the Communication column, XC ThunkExecution; -1: none). */
static int
barrier_row(struct diff *d, int run, struct tsv_reader *t, const long *c,
    const char *p, size_t pn, const char *n, size_t nn, int64_t ex,
    int64_t dev, int64_t dur)
{
	int64_t hid = 0, te = 0;
	const char *f;
	size_t fn = 0;
	int comm;

	/* 1 (ours) or True (the reference's frames); else compute */
	f = c[0] >= 0 ? tsv_rawfield(t, (size_t)c[0], &fn) : "";
	comm = (fn == 1 && f[0] == '1') || (fn == 4 && memcmp(f, "True", 4)
	    == 0);
	if (comm && c[1] >= 0 && tsv_get_ms(t, (size_t)c[1], &hid, 1) < 0)
		return -1;
	if (comm && c[2] >= 0 && tsv_get_i64(t, (size_t)c[2], &te, 0) != 0)
		return -1;
	barrier_thunk(d->bar, run, p, pn, ex, dev, dur, comm, n, nn, te,
	    dur + hid);
	return 0;
}

int
diff_read(struct diff *d, int run, struct tsv_reader *t)
{
	long pc, nc, ec, dc, tc, bc[3];
	enum diff_kind k;
	const char *p, *n;
	size_t pn, nn;
	int64_t dur, ex, dev;
	int rc;

	if ((pc = tsv_require(t, "ProgramId")) < 0 ||
	    (nc = tsv_require(t, "Name")) < 0 ||
	    (ec = tsv_require(t, "ProgramExecution")) < 0 ||
	    (dc = tsv_require(t, "Device")) < 0 ||
	    (tc = tsv_require(t, d->o.column)) < 0)
		return -1;
	k = tsv_col(t, "ThunkExecution") >= 0 ? DIFF_THUNKS : DIFF_MODULES;
	if (d->kind != DIFF_NONE && d->kind != k)
		return err_fail("%s: a %s frame, the other is a %s frame",
		    tsv_name(t), k == DIFF_THUNKS ? "thunk" : "module",
		    k == DIFF_THUNKS ? "module" : "thunk");
	d->kind = k;
	bc[0] = tsv_col(t, "Communication");
	bc[1] = tsv_col(t, "ProjDurHiddenMs");
	bc[2] = tsv_col(t, "ThunkExecution");
	while ((rc = tsv_next(t)) == 1) {
		if (tsv_get_ms(t, (size_t)tc, &dur, 0) != 0 ||
		    tsv_get_i64(t, (size_t)ec, &ex, 0) != 0 ||
		    tsv_get_i64(t, (size_t)dc, &dev, 0) != 0)
			return -1;
		if (dur < 0)
			return err_fail("%s:%ld: column %s: negative duration",
			    tsv_name(t), tsv_lineno(t), d->o.column);
		p = tsv_rawfield(t, (size_t)pc, &pn);
		n = tsv_rawfield(t, (size_t)nc, &nn);
		if (diff_add(d, run, p, pn, n, nn, ex, dev, dur) != 0)
			return err_prefix("%s:%ld", tsv_name(t),
			    tsv_lineno(t));
		if (k == DIFF_THUNKS && !d->o.barriers &&
		    barrier_row(d, run, t, bc, p, pn, n, nn, ex, dev, dur) != 0)
			return -1;
	}
	return rc;
}

/* ---- matching ---- */

static size_t
new_group(struct diff *d, size_t mod)
{
	struct group *g;

	mem_grow(&d->group, &d->capgroup, d->ngroup + 1, sizeof *d->group);
	g = &d->group[d->ngroup];
	memset(g, 0, sizeof *g);
	g->mod = mod;
	return d->ngroup++;
}

static void
join(struct diff *d, size_t g, int run, size_t prog)
{
	struct group *x = &d->group[g];

	mem_grow(&x->prog[run], &x->capprog[run], x->nprog[run] + 1,
	    sizeof *x->prog[run]);
	x->prog[run][x->nprog[run]++] = prog;
	d->run[run].prog[prog].group = g;
}

/* Unmatched ProgramIds of RUN: joined by module name, else alone. */
static void
by_name(struct diff *d, int run, struct u64map *names)
{
	struct run *r = &d->run[run];
	size_t p, g, mod;

	for (p = 0; p < r->progs.n; p++) {
		if (r->prog[p].rows == 0 || r->prog[p].group != NONE)
			continue;
		mod = r->prog[p].mod;
		g = mod ? u64map_get(names, mod) : NONE;
		if (g == NONE) {
			g = new_group(d, mod);
			if (mod)
				u64map_add(names, mod, g);
		} else if (d->group[g].nprog[!run] > 0)
			d->group[g].by_name = 1;
		join(d, g, run, p);
	}
}

/* Whether ProgramId S (N bytes) is nsysjax-extract's placeholder of a
 * module without a dump ("...-missing-hlo"): no fingerprint, so never
 * matched by id, by its module's name only. */
static int
placeholder_id(const char *s, size_t n)
{
	static const char suf[] = "-missing-hlo";

	return n >= sizeof(suf) - 1 &&
	    memcmp(s + n - (sizeof(suf) - 1), suf, sizeof(suf) - 1) == 0;
}

static void
match_modules(struct diff *d)
{
	struct run *b = &d->run[0], *a = &d->run[1];
	struct u64map names = { 0 };
	size_t p, q, g;
	int i;

	for (i = 0; i < 2; i++)
		for (p = 0; p < d->run[i].progs.n; p++)
			d->run[i].prog[p].group = NONE;
	for (p = 0; p < b->progs.n; p++) {
		if (b->prog[p].rows == 0 || placeholder_id(strtab_get(&b->progs,
		    p), b->progs.len[p]))
			continue;
		q = strtab_find(&a->progs, strtab_get(&b->progs, p),
		    b->progs.len[p]);
		if (q == STRTAB_NONE || a->prog[q].rows == 0)
			continue;
		g = new_group(d, b->prog[p].mod ? b->prog[p].mod :
		    a->prog[q].mod);
		join(d, g, 0, p);
		join(d, g, 1, q);
	}
	by_name(d, 0, &names);
	by_name(d, 1, &names);
	u64map_free(&names);
}

/* ---- command buffers against the operations they hold ---- */

/* Whether thunk name S is XLA's name of a command buffer,
 * "command_buffer_N" or "command_buffer.N" (N digits; the rule of the
 * extractor's, profile/cmdbuf.h, which analysis/ does not include). */
static int
is_cmdbuf_name(const char *s)
{
	static const char pre[] = "command_buffer";

	if (strncmp(s, pre, sizeof pre - 1) != 0)
		return 0;
	s += sizeof pre - 1;
	if ((*s != '_' && *s != '.') || !(s[1] >= '0' && s[1] <= '9'))
		return 0;
	for (s++; *s >= '0' && *s <= '9'; s++)
		;
	return *s == '\0';
}

/* The first item of run RUN named NAME in group G, or NONE. */
static size_t
in_group(const struct diff *d, int run, size_t g, size_t name)
{
	const struct group *x = &d->group[g];
	size_t i, it;

	for (i = 0; i < x->nprog[run]; i++)
		if ((it = u64map_get(&d->run[run].items,
		    pair(x->prog[run][i], name))) != NONE)
			return it;
	return NONE;
}

static size_t item_key(struct diff *d, struct run *r, const struct item *x);

/* Key the thunks of run !X that operation OP of a buffer moved into
 * (group G, none in run X) by KEY; whether there was one. */
static int
move_op(struct diff *d, int x, size_t g, size_t op, size_t key)
{
	const struct group *gr = &d->group[g];
	struct run *y = &d->run[!x];
	size_t i, it;
	int moved = 0;

	if (in_group(d, x, g, op) != NONE)
		return 0;	/* a thunk of its own in both runs */
	for (i = 0; i < gr->nprog[!x]; i++) {
		it = u64map_get(&y->items, pair(gr->prog[!x][i], op));
		if (it != NONE && y->item[it].pairkey == 0) {
			y->item[it].pairkey = key + 1;
			moved = 1;
		}
	}
	return moved;
}

/* Buffer K of run X's cmdbufs table against run !X's thunks: paired
 * when its module is in both runs, the buffer in run X only, and some
 * operation it holds runs as a thunk in run !X only. */
static void
pair_buffer(struct diff *d, int x, size_t k)
{
	struct run *r = &d->run[x];
	const struct cbuf *c = &r->cb[k];
	size_t g, bi, key, i, moved = 0;

	if (r->prog[c->prog].rows == 0)
		return;
	g = r->prog[c->prog].group;
	bi = u64map_get(&r->items, pair(c->prog, c->buf));
	if (d->group[g].nprog[!x] == 0 || bi == NONE ||
	    r->item[bi].pairkey || in_group(d, !x, g, c->buf) != NONE)
		return;
	key = item_key(d, r, &r->item[bi]);
	for (i = 0; i < c->n; i++)
		moved += move_op(d, x, g, r->cbop[c->first + i], key);
	if (moved == 0)
		return;
	r->item[bi].pairkey = key + 1;
	mem_grow(&d->pend, &d->cappend, d->npend + 1, sizeof *d->pend);
	d->pend[d->npend] = (struct pend){ x, c->buf, moved, c->n, k };
	r->item[bi].pend = ++d->npend;
}

/* Command buffers of one run only that no cmdbufs table pairs: counted
 * once per (group, name) for the note (diff_total.cb_unknown). */
static void
unknown_buffers(struct diff *d)
{
	struct u64map seen = { 0 };
	const struct item *it;
	size_t i, g;
	int x;

	for (x = 0; x < 2; x++)
		for (i = 0; i < d->run[x].nitem; i++) {
			it = &d->run[x].item[i];
			g = d->run[x].prog[it->prog].group;
			if (it->pairkey || !is_cmdbuf_name(d->names.s[it->name]) ||
			    d->group[g].nprog[!x] == 0 ||
			    in_group(d, !x, g, it->name) != NONE ||
			    u64map_get(&seen, pair(g, it->name)) != NONE)
				continue;
			u64map_add(&seen, pair(g, it->name), i);
			if (d->tot.cb_unknown[0] + d->tot.cb_unknown[1] == 0)
				d->unknown_name = it->name;
			d->tot.cb_unknown[x]++;
			d->tot.cb_table[x] = d->run[x].has_cb;
		}
	u64map_free(&seen);
}

static void
pair_buffers(struct diff *d)
{
	size_t k;
	int x;

	if (d->kind != DIFF_THUNKS)
		return;
	for (x = 0; x < 2; x++)
		for (k = 0; k < d->run[x].ncb; k++)
			pair_buffer(d, x, k);
	unknown_buffers(d);
}

/* The key of item X of run R: its name, or its instruction's op_name or
 * innermost Python frame; without one, its name in brackets, so that
 * such thunks stay apart and show what they are. */
static size_t
item_key(struct diff *d, struct run *r, const struct item *x)
{
	size_t h, n, f;

	if (d->o.key == DIFF_KEY_THUNK || d->kind == DIFF_MODULES)
		return x->name;
	h = u64map_get(&r->hlos, pair(x->prog, x->name));
	if (h != NONE && d->o.key == DIFF_KEY_OP_NAME && r->hlo[h].opname)
		return r->hlo[h].opname - 1;
	if (h != NONE && d->o.key == DIFF_KEY_SOURCE && r->hlo[h].frame >= 0) {
		f = u64map_get(&r->frames, (uint64_t)r->hlo[h].frame);
		if (f != NONE)
			return f;
	}
	n = d->names.len[x->name];
	mem_grow(&d->buf, &d->capbuf, n + 3, 1);
	d->buf[0] = '[';
	memcpy(d->buf + 1, d->names.s[x->name], n);
	d->buf[n + 1] = ']';
	return strtab_intern(&d->names, d->buf, n + 2, NULL);
}

static void
match_items(struct diff *d)
{
	struct u64map rows = { 0 };
	struct run *r;
	struct item *x;
	struct row *w;
	size_t i, g, k, ri;
	int run;

	for (run = 0; run < 2; run++) {
		r = &d->run[run];
		for (i = 0; i < r->nitem; i++) {
			x = &r->item[i];
			g = r->prog[x->prog].group;
			k = x->pairkey ? x->pairkey - 1 : item_key(d, r, x);
			ri = u64map_get(&rows, pair(g, k));
			if (ri == NONE) {
				mem_grow(&d->row, &d->caprow, d->nrow + 1,
				    sizeof *d->row);
				w = &d->row[d->nrow];
				memset(w, 0, sizeof *w);
				w->group = g, w->key = k;
				u64map_add(&rows, pair(g, k), d->nrow);
				ri = d->nrow++;
			}
			w = &d->row[ri];
			x->next = w->first[run];
			w->first[run] = i + 1;
			if (x->pend) {
				const struct pend *pe = &d->pend[x->pend - 1];

				w->paired = 1;
				w->bufrun = pe->bufrun;
				w->buf = pe->buf;
				w->nmoved = pe->nmoved;
				w->nlisted = pe->nlisted;
				w->pend = x->pend - 1;
			}
		}
	}
	u64map_free(&rows);
}

/* ---- the numbers ---- */

static int64_t *
scratch(struct diff *d, int run, size_t n)
{
	mem_grow(&d->scratch[run], &d->capscratch[run], n ? n : 1,
	    sizeof *d->scratch[run]);
	return d->scratch[run];
}

/* Mean, median and sample variance of the sorted V[0..N); sum S. */
static void
describe(struct nums *x, int run, const int64_t *v, size_t n, int64_t s)
{
	double m, ss = 0;
	size_t i;

	x->n[run] = n;
	x->sum[run] = s;
	x->mean[run] = n ? (double)s / (double)n : NAN;
	x->med[run] = n ? sigtest_median(v, n) : NAN;
	m = x->mean[run];
	for (i = 0; i < n; i++)
		ss += ((double)v[i] - m) * ((double)v[i] - m);
	x->var[run] = n > 1 ? ss / (double)(n - 1) : 0;
}

/* The contribution of a row of group G with sums S: S_a E_b / E_a - S_b. */
static double
contribution(const struct diff *d, size_t g, const int64_t *s)
{
	const struct nums *x = &d->gnums[g];

	if (x->n[1] == 0)
		return -(double)s[0];
	if (x->n[0] == 0)
		return (double)s[1];
	return (double)s[1] * (double)x->n[0] / (double)x->n[1] -
	    (double)s[0];
}

/* The rank test of a row in both runs; only rows making at least
 * opts.min_share of the time of both runs together are tested for
 * significance (independent filtering: that share does not depend on
 * which run a sample came from, so under no change it tells nothing of
 * the test, and tests of rows too small to matter only cost power). */
static void
test(const struct diff *d, size_t g, struct nums *x, const int64_t *b,
    const int64_t *a)
{
	double pooled = (double)x->sum[0] + (double)x->sum[1];
	double all = (double)d->kept[0] + (double)d->kept[1];

	x->both = x->n[0] > 0 && x->n[1] > 0;
	if (x->both)
		sigtest_mwu(b, x->n[0], a, x->n[1], &x->t);
	/* a barrier's rows: not tested, the share of the rest */
	x->tested = x->both && !d->group[g].barrier &&
	    pooled >= d->o.min_share * all;
	x->padj = x->t.p;
}

static int64_t
sample_at(const struct samples *s, size_t i)
{
	return s->wide ? ((const int64_t *)s->v)[i] :
	    ((const uint32_t *)s->v)[i];
}

struct exsample {
	uint32_t ex;
	int64_t v;
};

static int
cmp_ex(const void *p, const void *q)
{
	const struct exsample *a = p, *b = q;

	return (a->ex > b->ex) - (a->ex < b->ex);
}

/* A paired row's samples: per module execution, the sum of its items'
 * (the buffer's, or the operations'), sorted in scratch. */
static size_t
paired_samples(struct diff *d, const struct row *w, int run, int64_t *sum)
{
	struct run *r = &d->run[run];
	struct exsample *v = NULL;
	size_t i, j, n = 0, cap = 0, m = 0;
	int64_t *out;

	*sum = 0;
	for (i = w->first[run]; i; i = r->item[i - 1].next) {
		const struct item *x = &r->item[i - 1];

		mem_grow(&v, &cap, n + x->s.n, sizeof *v);
		for (j = 0; j < x->s.n; j++)
			v[n++] = (struct exsample){ x->ex[j],
			    sample_at(&x->s, j) };
		*sum += x->sum;
	}
	qsort(v, n, sizeof *v, cmp_ex);
	out = scratch(d, run, n);
	for (i = 0; i < n; i++) {
		if (i == 0 || v[i].ex != v[i - 1].ex)
			out[m++] = 0;
		out[m - 1] += v[i].v;
	}
	free(v);
	sigtest_sort_i64(out, m);
	return m;
}

/* The samples of row W, run RUN, sorted in scratch; returns their count. */
static size_t
row_samples(struct diff *d, const struct row *w, int run, int64_t *sum)
{
	struct run *r = &d->run[run];
	size_t i, n = 0;

	if (w->paired)
		return paired_samples(d, w, run, sum);
	*sum = 0;
	for (i = w->first[run]; i; i = r->item[i - 1].next) {
		gather(&r->item[i - 1].s, &d->scratch[run],
		    &d->capscratch[run], &n);
		*sum += r->item[i - 1].sum;
	}
	sigtest_sort_i64(d->scratch[run], n);
	return n;
}

static void
row_numbers(struct diff *d)
{
	struct row *w;
	int64_t s;
	size_t i, n;
	int run;

	for (i = 0; i < d->nrow; i++) {
		w = &d->row[i];
		for (run = 0; run < 2; run++) {
			n = row_samples(d, w, run, &s);
			describe(&w->x, run, scratch(d, run, n), n, s);
		}
		test(d, w->group, &w->x, d->scratch[0], d->scratch[1]);
		w->x.contrib = contribution(d, w->group, w->x.sum);
	}
}

/* Per group and run, the times of its executions (the sum of their
 * samples), sorted: their numbers and test. */
static void
group_numbers(struct diff *d)
{
	size_t *order[2], *start[2], g, i, n[2];
	int64_t *v[2], s;
	struct run *r;
	int run;

	for (run = 0; run < 2; run++) {
		r = &d->run[run];
		start[run] = mem_calloc(d->ngroup + 2, sizeof *start[run]);
		for (i = 0; i < r->nexec; i++)
			start[run][r->prog[r->exec[i].prog].group + 2]++;
		for (g = 0; g < d->ngroup; g++)
			start[run][g + 2] += start[run][g + 1];
		order[run] = mem_calloc(r->nexec ? r->nexec : 1,
		    sizeof *order[run]);
		for (i = 0; i < r->nexec; i++)
			order[run][start[run][r->prog[r->exec[i].prog].group
			    + 1]++] = i;
	}
	d->gnums = mem_calloc(d->ngroup ? d->ngroup : 1, sizeof *d->gnums);
	for (g = 0; g < d->ngroup; g++) {
		for (run = 0; run < 2; run++) {
			n[run] = start[run][g + 1] - start[run][g];
			v[run] = scratch(d, run, n[run]);
			for (s = 0, i = 0; i < n[run]; i++)
				s += v[run][i] = d->run[run].exec[order[run][
				    start[run][g] + i]].sum;
			sigtest_sort_i64(v[run], n[run]);
			describe(&d->gnums[g], run, v[run], n[run], s);
		}
		test(d, g, &d->gnums[g], v[0], v[1]);
		d->gnums[g].contrib = contribution(d, g, d->gnums[g].sum);
	}
	for (run = 0; run < 2; run++) {
		free(start[run]);
		free(order[run]);
	}
}

static void
adjust(struct diff *d)
{
	double *p;
	size_t i, n;

	p = mem_calloc(d->nrow + d->ngroup + 1, sizeof *p);
	for (n = 0, i = 0; i < d->nrow; i++)
		if (d->row[i].x.tested)
			p[n++] = d->row[i].x.t.p;
	sigtest_adjust(p, n, d->o.adjust);
	for (n = 0, i = 0; i < d->nrow; i++)
		if (d->row[i].x.tested)
			d->row[i].x.padj = p[n++];
	for (n = 0, i = 0; i < d->ngroup; i++)
		if (d->gnums[i].tested)
			p[n++] = d->gnums[i].t.p;
	sigtest_adjust(p, n, d->o.adjust);
	for (n = 0, i = 0; i < d->ngroup; i++)
		if (d->gnums[i].tested)
			d->gnums[i].padj = p[n++];
	free(p);
}

static int
significant(const struct diff *d, const struct nums *x)
{
	return x->tested && x->padj < d->o.alpha;
}

/* A term U of a variance with DF degrees of freedom, for the
 * Welch-Satterthwaite degrees of freedom: adds U and U^2 / DF. */
static void
term(double u, double df, double *var, double *den)
{
	*var += u;
	if (u > 0 && df >= 1)
		*den += u * u / df;
}

/* Row X into the power *PW being counted, *BEST its smallest attainable
 * p-value so far (see struct diff_power). */
static void
power_add(struct diff_power *pw, const struct nums *x, double *best)
{
	size_t k = x->n[0] < x->n[1] ? x->n[0] : x->n[1];
	double p = sigtest_mwu_pmin(x->n[0], x->n[1]);

	if (!x->tested)
		return;
	pw->tests++;
	if (k > pw->samples)
		pw->samples = k;
	if (p < *best)
		*best = p;
}

/* The verdict of *PW, its smallest attainable p-value BEST: at best
 * Holm multiplies the smallest p-value by the number of tests, BH keeps
 * it (when every test is as extreme). */
static void
power_end(const struct diff *d, struct diff_power *pw, double best)
{
	double factor = d->o.adjust == SIGTEST_HOLM ? (double)pw->tests : 1;

	pw->power = pw->tests == 0 || factor * best < d->o.alpha;
	pw->need = pw->power ? 0 : sigtest_mwu_need(factor, d->o.alpha);
}

static void
totals(struct diff *d)
{
	struct diff_total *t = &d->tot;
	const struct nums *x;
	double dd = 0, var = 0, den = 0, eb, best;
	size_t i;

	t->before_ms = (double)d->kept[0] / 1e6;
	t->after_ms = (double)d->kept[1] / 1e6;
	t->barrier_before_ms = (double)(d->run[0].total - d->kept[0]) / 1e6;
	t->barrier_after_ms = (double)(d->run[1].total - d->kept[1]) / 1e6;
	for (i = 0; i < d->nrow; i++) {
		x = &d->row[i].x;
		if (d->group[d->row[i].group].barrier)
			t->barrier_change_ms += x->contrib / 1e6;
		else
			t->change_ms += x->contrib / 1e6;
		t->items++;
		t->both += x->both;
		t->tested += x->tested;
		t->added += x->n[0] == 0;
		t->removed += x->n[1] == 0;
		t->paired += d->row[i].paired;
		if (significant(d, x) && x->t.z > 0)
			t->slower++;
		if (significant(d, x) && x->t.z < 0)
			t->faster++;
	}
	for (i = 0; i < d->ngroup; i++) {
		x = &d->gnums[i];
		t->modules++;
		t->barriers += d->group[i].barrier;
		if (x->n[0] == 0 || x->n[1] == 0 || d->group[i].barrier)
			continue;
		eb = (double)x->n[0];
		dd += eb * (x->mean[1] - x->mean[0]);
		term(eb * eb * x->var[1] / (double)x->n[1],
		    (double)x->n[1] - 1, &var, &den);
		term(eb * x->var[0], eb - 1, &var, &den);
	}
	t->change_pct = t->before_ms > 0 ? t->change_ms / t->before_ms * 100 :
	    NAN;
	t->total_power = var > 0 && den > 0;
	if (t->total_power)
		t->p = sigtest_p_t(dd / sqrt(var), var * var / den);
	else
		t->p = dd == 0 ? 1 : 0;
	for (best = 1, i = 0; i < d->nrow; i++)
		power_add(&t->items_power, &d->row[i].x, &best);
	power_end(d, &t->items_power, best);
	for (best = 1, i = 0; i < d->ngroup; i++)
		power_add(&t->modules_power, &d->gnums[i], &best);
	power_end(d, &t->modules_power, best);
}

/* ---- order ---- */

static double
mag(double c)
{
	return fabs(c);
}

static int
cmp_bytes(const struct strtab *t, size_t a, size_t b)
{
	size_t la = t->len[a], lb = t->len[b];
	int c = memcmp(t->s[a], t->s[b], la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

/* Module names (ProgramId when none) and ProgramIds of groups A, B. */
static int
cmp_group(const struct diff *d, size_t a, size_t b)
{
	const struct group *x = &d->group[a], *y = &d->group[b];
	const struct run *r;
	int c, run;

	if (x->mod && y->mod && (c = cmp_bytes(&d->mods, x->mod - 1,
	    y->mod - 1)) != 0)
		return c;
	if (!x->mod != !y->mod)
		return x->mod ? -1 : 1;
	for (run = 0; run < 2; run++) {
		r = &d->run[run];
		if (x->nprog[run] && y->nprog[run] && (c = cmp_bytes(&r->progs,
		    x->prog[run][0], y->prog[run][0])) != 0)
			return c;
		if (!x->nprog[run] != !y->nprog[run])
			return x->nprog[run] ? -1 : 1;
	}
	return (a > b) - (a < b);
}

static int
cmp_row(const void *p, const void *q, const void *ctx)
{
	const struct diff *d = ctx;
	const struct row *a = p, *b = q;
	double x = mag(a->x.contrib), y = mag(b->x.contrib);
	int c;

	if (x != y)
		return x > y ? -1 : 1;
	if (a->group != b->group && (c = cmp_group(d, a->group,
	    b->group)) != 0)
		return c;
	return cmp_bytes(&d->names, a->key, b->key);
}

static int
cmp_gorder(const void *p, const void *q, const void *ctx)
{
	const struct diff *d = ctx;
	size_t a = *(const size_t *)p, b = *(const size_t *)q;
	double x = mag(d->gnums[a].contrib);
	double y = mag(d->gnums[b].contrib);

	if (x != y)
		return x > y ? -1 : 1;
	return cmp_group(d, a, b);
}

/* ProgramIds in byte order; CTX: the run's strtab of them. */
static int
cmp_prog(const void *p, const void *q, const void *ctx)
{
	return cmp_bytes(ctx, *(const size_t *)p, *(const size_t *)q);
}

static void
sort_all(struct diff *d)
{
	size_t g, i;
	int run;

	for (run = 0; run < 2; run++) {
		for (g = 0; g < d->ngroup; g++)
			sort_stable(d->group[g].prog[run],
			    d->group[g].nprog[run], sizeof(size_t), cmp_prog,
			    &d->run[run].progs);
	}
	sort_stable(d->row, d->nrow, sizeof *d->row, cmp_row, d);
	d->paired = mem_calloc(d->nrow + 1, sizeof *d->paired);
	for (i = 0; i < d->nrow; i++)
		if (d->row[i].paired)
			d->paired[d->npaired++] = i;
	d->gorder = mem_calloc(d->ngroup ? d->ngroup : 1, sizeof *d->gorder);
	for (i = 0; i < d->ngroup; i++)
		d->gorder[i] = i;
	sort_stable(d->gorder, d->ngroup, sizeof *d->gorder, cmp_gorder, d);
}

/* The barriers (barrier.h), unless opts.barriers: a group with a
 * barrier ProgramId in either run; each run's total without them. */
static void
mark_barriers(struct diff *d)
{
	struct run *r;
	size_t i;
	int run;

	barrier_finish(d->bar);
	for (run = 0; run < 2; run++) {
		r = &d->run[run];
		d->kept[run] = r->total;
		for (i = 0; i < r->progs.n; i++)
			if (!d->o.barriers && r->prog[i].rows > 0 &&
			    barrier_is(d->bar, run, r->progs.s[i],
			    r->progs.len[i]))
				d->group[r->prog[i].group].barrier = 1;
	}
	for (run = 0; run < 2; run++) {
		r = &d->run[run];
		for (i = 0; i < r->progs.n; i++)
			if (r->prog[i].rows > 0 &&
			    d->group[r->prog[i].group].barrier)
				d->kept[run] -= r->prog[i].sum;
	}
}

int
diff_finish(struct diff *d)
{
	if (d->kind == DIFF_NONE)
		return err_fail("no frame read");
	match_modules(d);
	mark_barriers(d);
	pair_buffers(d);
	match_items(d);
	group_numbers(d);
	row_numbers(d);
	adjust(d);
	totals(d);
	sort_all(d);
	return 0;
}

const struct diff_total *
diff_total(const struct diff *d)
{
	return &d->tot;
}

static int
over(const struct diff *d, const struct nums *x)
{
	double pct;

	if (!x->tested || x->padj >= d->o.alpha || !(x->mean[0] > 0) ||
	    mag(x->contrib) / 1e6 < d->o.min_ms)
		return 0;
	pct = (x->mean[1] - x->mean[0]) / x->mean[0] * 100;
	return pct > d->o.threshold;
}

static size_t
gated(const struct diff *d)
{
	size_t i, n = 0;

	if (d->o.threshold < 0)
		return 0;
	for (i = 0; i < d->nrow; i++)
		n += over(d, &d->row[i].x);
	for (i = 0; i < d->ngroup; i++)
		n += over(d, &d->gnums[i]);
	return n;
}

int
diff_regressed(const struct diff *d)
{
	const struct diff_total *t = &d->tot;

	if (d->o.threshold < 0)
		return 0;
	if (gated(d) > 0)
		return 1;
	return t->change_pct > d->o.threshold && t->p < d->o.alpha;
}

int
diff_powerless(const struct diff *d)
{
	const struct diff_total *t = &d->tot;

	return d->o.threshold >= 0 && (!t->items_power.power ||
	    !t->modules_power.power || !t->total_power);
}

/* ---- output ---- */

static void
ms(struct tsv_writer *w, double ns)
{
	if (isnan(ns))
		tsv_empty(w);
	else
		tsv_f64(w, ns / 1e6);
}

/* The ProgramIds of group G in run RUN, comma-separated. */
static void
progs(struct tsv_writer *w, struct diff *d, size_t g, int run)
{
	const struct group *x = &d->group[g];
	const struct run *r = &d->run[run];
	size_t i, n = 0, l;

	if (x->nprog[run] == 0) {
		tsv_empty(w);
		return;
	}
	for (i = 0; i < x->nprog[run]; i++) {
		l = r->progs.len[x->prog[run][i]];
		mem_grow(&d->buf, &d->capbuf, n + l + 2, 1);
		if (i)
			d->buf[n++] = ',';
		memcpy(d->buf + n, r->progs.s[x->prog[run][i]], l);
		n += l;
	}
	tsv_raw(w, d->buf, n);
}

static void
label(struct tsv_writer *w, const struct diff *d, size_t g)
{
	const struct group *x = &d->group[g];
	const struct run *r;
	size_t p;

	if (x->mod) {
		tsv_raw(w, d->mods.s[x->mod - 1], d->mods.len[x->mod - 1]);
		return;
	}
	r = &d->run[x->nprog[0] ? 0 : 1];
	p = x->prog[x->nprog[0] ? 0 : 1][0];
	tsv_raw(w, r->progs.s[p], r->progs.len[p]);
}

static const char *
match(const struct diff *d, size_t g, const struct nums *x)
{
	if (x->n[0] == 0)
		return "added";
	if (x->n[1] == 0)
		return "removed";
	return d->group[g].by_name ? "name" : "id";
}

/* The numeric columns from MeanBeforeMs on. */
static void
numbers(struct tsv_writer *w, const struct diff *d, const struct nums *x,
    int bar)
{
	double delta = x->mean[1] - x->mean[0];

	ms(w, x->mean[0]);
	ms(w, x->mean[1]);
	ms(w, x->med[0]);
	ms(w, x->med[1]);
	ms(w, delta);
	if (x->n[0] && x->n[1] && x->mean[0] > 0)
		tsv_f64(w, delta / x->mean[0] * 100);
	else
		tsv_empty(w);
	if (x->both)
		tsv_f64(w, x->t.u / ((double)x->n[0] * (double)x->n[1]));
	else
		tsv_empty(w);
	if (x->tested) {
		tsv_f64(w, x->t.p);
		tsv_f64(w, x->padj);
	} else {
		tsv_empty(w);
		tsv_empty(w);
	}
	ms(w, x->contrib);
	if (d->tot.change_ms != 0 && !bar)	/* a barrier: not in it */
		tsv_f64(w, x->contrib / 1e6 / d->tot.change_ms);
	else
		tsv_empty(w);
}

static const char *
keycol(const struct diff *d)
{
	if (d->kind == DIFF_MODULES)
		return NULL;
	return d->o.key == DIFF_KEY_OP_NAME ? "OpName" :
	    d->o.key == DIFF_KEY_SOURCE ? "Source" : "Name";
}

int
diff_write_items(struct diff *d, struct tsv_writer *w)
{
	const char *h[] = { "Module", "ProgramIdBefore", "ProgramIdAfter",
	    keycol(d), "Match", "ExecutionsBefore", "ExecutionsAfter",
	    "MeanBeforeMs", "MeanAfterMs", "MedianBeforeMs", "MedianAfterMs",
	    "DeltaMs", "ChangePercent", "ProbSlower", "PValue", "PAdjusted",
	    "ContributionMs", "ShareOfChange", NULL };
	const struct row *x;
	size_t i;

	if (h[3] == NULL)
		memmove(&h[3], &h[4], sizeof h - 4 * sizeof h[0]);
	if (tsv_header(w, h) != 0)
		return -1;
	for (i = 0; i < d->nrow; i++) {
		x = &d->row[i];
		label(w, d, x->group);
		progs(w, d, x->group, 0);
		progs(w, d, x->group, 1);
		if (d->kind != DIFF_MODULES)
			tsv_raw(w, d->names.s[x->key], d->names.len[x->key]);
		tsv_str(w, x->paired ? "cmdbuf" : match(d, x->group, &x->x));
		tsv_i64(w, (int64_t)x->x.n[0]);
		tsv_i64(w, (int64_t)x->x.n[1]);
		numbers(w, d, &x->x, d->group[x->group].barrier);
		if (tsv_eor(w) != 0)
			return -1;
	}
	return 0;
}

/* The row "(barriers)": the barriers' totals and change, untested. */
static int
barrier_summary(struct tsv_writer *w, const struct diff *d)
{
	const struct diff_total *t = &d->tot;
	int k;

	tsv_str(w, "(barriers)");
	for (k = 0; k < 5; k++)
		tsv_empty(w);
	tsv_ms(w, d->run[0].total - d->kept[0]);
	tsv_ms(w, d->run[1].total - d->kept[1]);
	for (k = 0; k < 5; k++)
		tsv_empty(w);
	if (d->run[0].total > d->kept[0])
		tsv_f64(w, t->barrier_change_ms / t->barrier_before_ms * 100);
	else
		tsv_empty(w);
	for (k = 0; k < 3; k++)
		tsv_empty(w);
	tsv_f64(w, t->barrier_change_ms);
	tsv_empty(w);
	return tsv_eor(w);
}

int
diff_write_summary(struct diff *d, struct tsv_writer *w)
{
	static const char *const h[] = { "Module", "ProgramIdBefore",
	    "ProgramIdAfter", "Match", "ExecutionsBefore", "ExecutionsAfter",
	    "TotalBeforeMs", "TotalAfterMs", "MeanBeforeMs", "MeanAfterMs",
	    "MedianBeforeMs", "MedianAfterMs", "DeltaMs", "ChangePercent",
	    "ProbSlower", "PValue", "PAdjusted", "ContributionMs",
	    "ShareOfChange", NULL };
	const struct diff_total *t = &d->tot;
	const struct nums *x;
	size_t i, g, eb = 0, ea = 0;
	int k;

	if (tsv_header(w, h) != 0)
		return -1;
	for (i = 0; i < d->ngroup; i++) {
		g = d->gorder[i];
		x = &d->gnums[g];
		eb += x->n[0], ea += x->n[1];
		label(w, d, g);
		progs(w, d, g, 0);
		progs(w, d, g, 1);
		tsv_str(w, match(d, g, x));
		tsv_i64(w, (int64_t)x->n[0]);
		tsv_i64(w, (int64_t)x->n[1]);
		tsv_ms(w, x->sum[0]);
		tsv_ms(w, x->sum[1]);
		numbers(w, d, x, d->group[g].barrier);
		if (tsv_eor(w) != 0)
			return -1;
	}
	tsv_str(w, "(all)");
	for (k = 0; k < 3; k++)
		tsv_empty(w);
	tsv_i64(w, (int64_t)eb);
	tsv_i64(w, (int64_t)ea);
	tsv_ms(w, d->kept[0]);
	tsv_ms(w, d->kept[1]);
	for (k = 0; k < 5; k++)
		tsv_empty(w);
	if (isnan(t->change_pct))
		tsv_empty(w);
	else
		tsv_f64(w, t->change_pct);
	tsv_empty(w);
	tsv_f64(w, t->p);
	tsv_f64(w, t->p);
	tsv_f64(w, t->change_ms);
	if (t->change_ms != 0)
		tsv_f64(w, 1);
	else
		tsv_empty(w);
	if (tsv_eor(w) != 0)
		return -1;
	return t->barriers ? barrier_summary(w, d) : 0;
}

/* ---- the modules, for reports (diff_report.c) ---- */

size_t
diff_nmodules(const struct diff *d)
{
	return d->ngroup;
}

void
diff_module(const struct diff *d, size_t i, struct diff_module *m)
{
	size_t g = d->gorder[i];
	const struct group *x = &d->group[g];
	const struct nums *v = &d->gnums[g];
	int run = x->nprog[0] ? 0 : 1, k;

	m->name = x->mod ? d->mods.s[x->mod - 1] : NULL;
	m->program = d->run[run].progs.s[x->prog[run][0]];
	for (k = 0; k < 2; k++) {
		m->executions[k] = v->n[k];
		m->mean_ns[k] = v->mean[k];
	}
	m->contrib_ns = v->contrib;
	m->tested = v->tested;
	m->padj = v->padj;
	m->barrier = x->barrier;
}

const struct diff_opts *
diff_options(const struct diff *d)
{
	return &d->o;
}

/* ---- command buffers paired ---- */

size_t
diff_npairings(const struct diff *d)
{
	return d->npaired;
}

void
diff_pairing(const struct diff *d, size_t i, struct diff_pairing *p)
{
	const struct row *w = &d->row[d->paired[i]];
	const struct group *x = &d->group[w->group];
	int run = x->nprog[0] ? 0 : 1, k;

	p->module = x->mod ? d->mods.s[x->mod - 1] : NULL;
	p->program = d->run[run].progs.s[x->prog[run][0]];
	p->buf = d->names.s[w->buf];
	p->bufrun = w->bufrun;
	p->nmoved = w->nmoved;
	p->nlisted = w->nlisted;
	for (k = 0; k < 2; k++) {
		p->executions[k] = w->x.n[k];
		p->sum_ns[k] = (double)w->x.sum[k];
	}
	p->contrib_ns = w->x.contrib;
	p->tested = w->x.tested;
	p->padj = w->x.padj;
}

const char *
diff_unknown_buffer(const struct diff *d)
{
	const struct diff_total *t = &d->tot;

	return t->cb_unknown[0] + t->cb_unknown[1] ?
	    d->names.s[d->unknown_name] : NULL;
}

/* One line of the pairing table: item IT of run RUN in row W. */
static int
pair_line(struct tsv_writer *w, struct diff *d, const struct row *r,
    int run, const struct item *it)
{
	label(w, d, r->group);
	progs(w, d, r->group, 0);
	progs(w, d, r->group, 1);
	tsv_raw(w, d->names.s[r->buf], d->names.len[r->buf]);
	tsv_str(w, r->bufrun ? "after" : "before");
	tsv_raw(w, d->names.s[it->name], d->names.len[it->name]);
	tsv_i64(w, run == 0 ? (int64_t)it->s.n : 0);
	tsv_i64(w, run == 1 ? (int64_t)it->s.n : 0);
	if (run == 0)
		ms(w, (double)it->sum);
	else
		tsv_empty(w);
	if (run == 1)
		ms(w, (double)it->sum);
	else
		tsv_empty(w);
	return tsv_eor(w);
}

/* The items of run RUN in row R named NAME (one per ProgramId of its
 * module): a lookup each. */
static int
pair_lines(struct tsv_writer *w, struct diff *d, const struct row *r,
    int run, size_t name)
{
	const struct run *ru = &d->run[run];
	const struct group *g = &d->group[r->group];
	size_t i, it;
	int rc = 0;

	for (i = 0; i < g->nprog[run] && rc == 0; i++) {
		it = u64map_get(&ru->items, pair(g->prog[run][i], name));
		if (it != NONE && ru->item[it].pairkey == r->key + 1)
			rc = pair_line(w, d, r, run, &ru->item[it]);
	}
	return rc;
}

int
diff_write_pairs(struct diff *d, struct tsv_writer *w)
{
	static const char *const h[] = { "Module", "ProgramIdBefore",
	    "ProgramIdAfter", "CommandBuffer", "BufferIn", "Thunk",
	    "ExecutionsBefore", "ExecutionsAfter", "TotalBeforeMs",
	    "TotalAfterMs", NULL };
	const struct row *r;
	const struct cbuf *c;
	size_t i, j;
	int rc = tsv_header(w, h);

	for (i = 0; i < d->npaired && rc == 0; i++) {
		r = &d->row[d->paired[i]];
		rc = pair_lines(w, d, r, r->bufrun, r->buf);
		/* the operations in the buffer's order (its table's) */
		c = &d->run[r->bufrun].cb[d->pend[r->pend].cb];
		for (j = 0; j < c->n && rc == 0; j++)
			rc = pair_lines(w, d, r, !r->bufrun,
			    d->run[r->bufrun].cbop[c->first + j]);
	}
	return rc;
}
