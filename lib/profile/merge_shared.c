/*
 * Parts that share a device (merge.h merge_shared_begin): the hidden
 * time of their communication thunks over every part's compute thunks.
 * One extraction sums, for a communication thunk, its overlap with each
 * compute thunk of its (ProgramId, Device) (frames.c compute_overlap);
 * a part saw only its own.  Here the communication thunks of the shared
 * devices are held (few: 120 of the 13,500 thunks of a shared-run
 * process), sorted by start with the running latest end, and each
 * compute thunk of a shared device, read in a second pass over the
 * parts, adds its overlap to those it meets, found by binary search as
 * compute_overlap finds them.  Each pass reads the parts a thread per
 * core (struct prep).  Memory: the communication thunks of the
 * shared devices and the ProgramId x Name kinds, not the compute rows.
 * Then merge_group (merge_impl.h) numbers ThunkExecution over the parts
 * as merge.c's k-way merge gives it the rows of one thunk at a time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/sort.h"
#include "base/tsv.h"
#include "profile/merge.h"
#include "profile/merge_impl.h"

/* frames.c's cap on a sum of overlaps. */
#define HIDDEN_MAX ((int64_t)1 << 62)

int
merge_shared_device(const struct merge_shared *sh, int64_t device)
{
	return u64map_get(&sh->shared, (uint64_t)device) != U64MAP_NONE;
}

static char *
join(const char *dir, const char *name)
{
	char *p = mem_alloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

static FILE *
open_in(const char *dir, const char *name, char **path, int must)
{
	FILE *fp;

	*path = join(dir, name);
	if ((fp = fopen(*path, "r")) == NULL && (must || errno != ENOENT))
		err_fail("%s: cannot open: %s", *path, strerror(errno));
	return fp;
}

/* The shared devices: a Device of two parts' module.tsv (the module of
 * every thunk is in it).  Returns 0, or -1 with an err message. */
static int
find_shared(struct merge_shared *sh, const char *const *dirs, size_t n)
{
	struct u64map seen = { 0 };
	size_t *part = NULL, npart = 0, cappart = 0, k, at;
	int rc = 0;

	for (k = 0; k < n && rc == 0; k++) {
		char *path;
		FILE *fp = open_in(dirs[k], "module.tsv", &path, 1);
		struct tsv_reader *r = fp ? tsv_ropen(fp, path) : NULL;
		long col = r ? tsv_require(r, "Device") : -1;
		int64_t d;

		rc = col < 0 ? -1 : 0;
		while (rc == 0 && (rc = tsv_next(r)) == 1 &&
		    (rc = tsv_get_i64(r, (size_t)col, &d, 0)) == 0) {
			at = u64map_get(&seen, (uint64_t)d);
			if (at == U64MAP_NONE) {
				u64map_add(&seen, (uint64_t)d, npart);
				mem_grow(&part, &cappart, npart + 1, sizeof(*part));
				part[npart++] = k;
			} else if (part[at] != k && u64map_get(&sh->shared,
			    (uint64_t)d) == U64MAP_NONE) {
				u64map_add(&sh->shared, (uint64_t)d, 0);
			}
		}
		tsv_rclose(r);
		if (fp)
			fclose(fp);
		free(path);
	}
	u64map_free(&seen);
	free(part);
	return rc;
}

/* Part DIR's split command buffers (its `opened`: their data rows in its
 * thunk.tsv, ascending), into *V[0..*N).  Returns 0, 1 when the part has
 * no such file (not a worker's part), -1 with an err message. */
static int
read_opened(const char *dir, size_t **v, size_t *n)
{
	char *path;
	FILE *fp = open_in(dir, "opened", &path, 0);
	size_t cap = 0;
	unsigned long long x;
	int rc = 0, c;

	*v = NULL;
	*n = 0;
	if (fp == NULL) {
		c = errno;
		free(path);
		return c == ENOENT ? 1 : -1;
	}
	while ((c = fscanf(fp, "%llu\n", &x)) == 1) {
		if (*n > 0 && (*v)[*n - 1] >= x) {
			rc = err_fail("%s: rows not ascending", path);
			break;
		}
		mem_grow(v, &cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (size_t)x;
	}
	if (rc == 0 && (c != EOF || ferror(fp)))
		rc = err_fail("%s: not a list of rows", path);
	fclose(fp);
	free(path);
	return rc;
}

/* The kind of each (ProgramId, Name) met (one_kind). */
struct kinds {
	struct strtab tab;
	unsigned char *kind;
	size_t cap;
	char *key;
	size_t capkey;
};

/* One part's thunk.tsv, read row by row with the columns the fixes
 * need. */
struct thunks {
	FILE *fp;
	char *path;
	struct tsv_reader *r;
	long prog, name, dev, comm, start, dur, hid;
	size_t *opened, nopened, o;	/* its split command buffers */
	size_t row;		/* the current data row, from 0 */
	size_t comm_row;	/* communication rows before it */
	/* the current row */
	int64_t device, ts, td, th;
	int is_comm, is_opened;
};

static void
thunks_close(struct thunks *t)
{
	tsv_rclose(t->r);
	if (t->fp)
		fclose(t->fp);
	free(t->path);
	free(t->opened);
	memset(t, 0, sizeof(*t));
}

/* Open part DIR's thunk.tsv and opened: 0, 1 (no `opened`), -1. */
static int
thunks_open(struct thunks *t, const char *dir)
{
	static const char *const cols[] = { "ProgramId", "Name", "Device",
	    "Communication", "ProjStartMs", "ProjDurMs", "ProjDurHiddenMs" };
	long c[7];
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = read_opened(dir, &t->opened, &t->nopened)) != 0)
		return rc;
	if ((t->fp = open_in(dir, "thunk.tsv", &t->path, 1)) == NULL ||
	    (t->r = tsv_ropen(t->fp, t->path)) == NULL ||
	    tsv_columns(t->r, cols, 7, 0, c) != 0)
		return -1;
	t->prog = c[0];
	t->name = c[1];
	t->dev = c[2];
	t->comm = c[3];
	t->start = c[4];
	t->dur = c[5];
	t->hid = c[6];
	t->row = (size_t)-1;
	return 0;
}

/* The next row: 1, 0 at the end, -1 with an err message. */
static int
thunks_next(struct thunks *t)
{
	size_t len;
	const char *f;
	int rc;

	if (t->row != (size_t)-1 && t->is_comm)
		t->comm_row++;
	if ((rc = tsv_next(t->r)) != 1)
		return rc;
	t->row++;
	f = tsv_rawfield(t->r, (size_t)t->comm, &len);
	t->is_comm = len == 1 && f[0] == '1';
	t->is_opened = t->o < t->nopened && t->opened[t->o] == t->row;
	t->o += t->is_opened;
	if (tsv_get_i64(t->r, (size_t)t->dev, &t->device, 0) != 0 ||
	    tsv_get_ms(t->r, (size_t)t->start, &t->ts, 0) != 0 ||
	    tsv_get_ms(t->r, (size_t)t->dur, &t->td, 0) != 0 ||
	    tsv_get_ms(t->r, (size_t)t->hid, &t->th, 0) != 0)
		return -1;
	return 1;
}

/*
 * Whether each (ProgramId, Name) on a shared device is of one kind,
 * communication or not: the parts number ThunkExecution within the
 * communication frame as the thunk frame does only then (merge.c).
 * K->kind[id of "ProgramId\tName" in K->tab]: 1 + Communication.
 */
static int
one_kind(struct kinds *k, struct thunks *th)
{
	size_t lp, ln, id;
	const char *p = tsv_rawfield(th->r, (size_t)th->prog, &lp);
	const char *nm = tsv_rawfield(th->r, (size_t)th->name, &ln);
	int added;

	mem_grow(&k->key, &k->capkey, lp + ln + 1, 1);
	memcpy(k->key, p, lp);
	k->key[lp] = '\t';
	memcpy(k->key + lp + 1, nm, ln);
	id = strtab_intern(&k->tab, k->key, lp + ln + 1, &added);
	mem_grow(&k->kind, &k->cap, id + 1, 1);
	if (added)
		k->kind[id] = (unsigned char)(1 + th->is_comm);
	return k->kind[id] == 1 + th->is_comm;
}

/* Pass 1's finds in one part: its fixes, their ProgramIds ids of PROG
 * until merge_shared_begin makes them ids of merge_shared.prog. */
struct partfix {
	struct merge_fix *v;
	size_t n, cap;
	struct strtab prog;
};

/* Pass 1: the communication thunks of the shared devices in part DIR
 * into PF, the kinds of its thunks checked in K.  Returns 0, 1 (a kind
 * mixed, or no `opened`), -1. */
static int
collect(const struct merge_shared *sh, const char *dir, struct partfix *pf,
    struct kinds *k)
{
	struct thunks t;
	int rc = thunks_open(&t, dir);

	while (rc == 0 && (rc = thunks_next(&t)) == 1) {
		struct merge_fix *f;
		size_t len;
		const char *p;

		rc = 0;
		if (!merge_shared_device(sh, t.device))
			continue;
		if (!one_kind(k, &t)) {
			rc = 1;
			break;
		}
		if (!t.is_comm || t.is_opened)
			continue;
		p = tsv_rawfield(t.r, (size_t)t.prog, &len);
		mem_grow(&pf->v, &pf->cap, pf->n + 1, sizeof(*pf->v));
		f = &pf->v[pf->n++];
		f->row = t.row;
		f->comm_row = t.comm_row;
		f->program = strtab_intern(&pf->prog, p, len, NULL);
		f->device = t.device;
		f->start = t.ts;
		f->dur = t.td + t.th;
		f->hidden = 0;
	}
	thunks_close(&t);
	return rc;
}

/* Fixes by (ProgramId, Device, start): compute_overlap's groups. */
static int
cmp_group(const void *a, const void *b, const void *ctx)
{
	const struct merge_fix *x = ctx;
	const struct merge_fix *f = &x[*(const size_t *)a];
	const struct merge_fix *g = &x[*(const size_t *)b];

	if (f->program != g->program)
		return f->program < g->program ? -1 : 1;
	if (f->device != g->device)
		return f->device < g->device ? -1 : 1;
	return (f->start > g->start) - (f->start < g->start);
}

/* The fixes in group order, and the latest end of each prefix of its
 * (ProgramId, Device) group. */
struct groups {
	size_t *p;		/* fix indices by cmp_group */
	int64_t *maxend;	/* over p[group start..i] */
	size_t n;
};

static void
groups_build(struct groups *g, const struct merge_shared *sh)
{
	size_t i;

	g->n = sh->nfix;
	g->p = mem_calloc(g->n + 1, sizeof(*g->p));
	g->maxend = mem_calloc(g->n + 1, sizeof(*g->maxend));
	for (i = 0; i < g->n; i++)
		g->p[i] = i;
	sort_stable(g->p, g->n, sizeof(*g->p), cmp_group, sh->fix);
	for (i = 0; i < g->n; i++) {
		const struct merge_fix *f = &sh->fix[g->p[i]];
		const struct merge_fix *e = i ? &sh->fix[g->p[i - 1]] : NULL;
		int64_t end = f->start + f->dur;

		g->maxend[i] = e && e->program == f->program &&
		    e->device == f->device && g->maxend[i - 1] > end ?
		    g->maxend[i - 1] : end;
	}
}

/* Whether fix F sorts before (PROGRAM, DEVICE), or (UPTO) not after. */
static int
group_before(const struct merge_fix *f, size_t program, int64_t device,
    int upto)
{
	if (f->program != program)
		return f->program < program;
	return upto ? f->device <= device : f->device < device;
}

/* The fixes of (PROGRAM, DEVICE), G->p[*LO..*HI), found by binary
 * search (a group holds every part's communication thunks of a device:
 * 3,840 on 32 copies of the shared run). */
static void
group_range(const struct groups *g, const struct merge_fix *fix,
    size_t program, int64_t device, size_t *lo, size_t *hi)
{
	int upto;

	for (upto = 0; upto < 2; upto++) {
		size_t a = 0, b = g->n, m;

		while (a < b) {
			m = a + (b - a) / 2;
			if (group_before(&fix[g->p[m]], program, device, upto))
				a = m + 1;
			else
				b = m;
		}
		*(upto ? hi : lo) = a;
	}
}

/* A compute thunk [S, E) of (PROGRAM, DEVICE): its overlap added to
 * HID[i] for each communication thunk fix[i] of the group it meets. */
static void
add_overlap(const struct groups *g, const struct merge_fix *fix,
    int64_t *hid, size_t program, int64_t device, int64_t s, int64_t e)
{
	size_t lo = 0, hi = 0, a, b;

	group_range(g, fix, program, device, &lo, &hi);
	/* The communication thunks ending after S: from the first whose
	 * prefix reaches past S; those starting at or after E meet none. */
	for (a = lo, b = hi; a < b;) {
		size_t m = a + (b - a) / 2;

		if (g->maxend[m] > s)
			b = m;
		else
			a = m + 1;
	}
	for (; a < hi && fix[g->p[a]].start < e; a++) {
		const struct merge_fix *f = &fix[g->p[a]];
		int64_t fe = f->start + f->dur, *h = &hid[g->p[a]];

		if (fe <= s || e <= f->start)
			continue;
		*h += (fe < e ? fe : e) - (f->start > s ? f->start : s);
		if (*h > HIDDEN_MAX)
			*h = HIDDEN_MAX;
	}
}

/* Pass 2: part DIR's compute thunks of the shared devices, their
 * overlaps added to HID (by fix). */
static int
overlaps(const struct merge_shared *sh, const struct groups *g,
    const char *dir, int64_t *hid)
{
	struct thunks t;
	int rc = thunks_open(&t, dir);

	while (rc == 0 && (rc = thunks_next(&t)) == 1) {
		size_t len, prog;
		const char *p;

		rc = 0;
		if (t.is_comm || t.is_opened ||
		    !merge_shared_device(sh, t.device))
			continue;
		p = tsv_rawfield(t.r, (size_t)t.prog, &len);
		if ((prog = strtab_find(&sh->prog, p, len)) != STRTAB_NONE)
			add_overlap(g, sh->fix, hid, prog, t.device, t.ts,
			    t.ts + t.td);
	}
	thunks_close(&t);
	return rc;
}

/*
 * The two passes run a thread per core (pool.h), each thread taking the
 * next part: the parent's serial work between the workers and the merge
 * (0.6 s of CPU on 128 copies of the shared run).  A thread keeps its own
 * kinds (pass 1) and sums (pass 2), joined after: the first part in
 * order that failed gives the error, as one thread would.
 */
struct prep {
	const struct merge_shared *sh;
	const char *const *dirs;
	int pass;		/* 1: collect, 2: overlaps */
	size_t next;		/* the next part to take (atomic) */
	size_t slot;		/* the next thread's index (atomic) */
	struct partfix *pf;	/* pass 1: by part */
	struct kinds *kinds;	/* pass 1: by thread */
	const struct groups *g;	/* pass 2 */
	int64_t **hid;		/* pass 2: by thread, by fix */
	int *rc;		/* by part */
	char **err;		/* by part, when rc < 0 */
};

static void *
prep_thread(void *arg)
{
	struct prep *p = arg;
	size_t me = __atomic_fetch_add(&p->slot, 1, __ATOMIC_RELAXED), k;

	while ((k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
	    p->sh->n) {
		int rc = p->pass == 1 ?
		    collect(p->sh, p->dirs[k], &p->pf[k], &p->kinds[me]) :
		    overlaps(p->sh, p->g, p->dirs[k], p->hid[me]);

		p->rc[k] = rc;
		if (rc < 0)
			p->err[k] = mem_strdup(err_msg());
	}
	return NULL;
}

/* Run pass PASS over every part in NTH threads: 0, or the first part's
 * 1 or -1 (with its err message). */
static int
prep_run(struct prep *p, int pass, size_t nth)
{
	size_t k;
	int rc = 0;

	p->pass = pass;
	p->next = 0;
	p->slot = 0;
	pool_run(nth, prep_thread, p);
	for (k = 0; k < p->sh->n; k++) {
		if (rc == 0 && p->rc[k] != 0) {
			rc = p->rc[k];
			if (rc < 0)
				err_fail("%s", p->err[k]);
		}
		free(p->err[k]);
		p->err[k] = NULL;
	}
	return rc;
}

/* Whether the threads' kinds K[0..NTH) agree: one kind per (ProgramId,
 * Name) over every part. */
static int
kinds_agree(struct kinds *k, size_t nth)
{
	size_t t, id, at;
	int added;

	for (t = 1; t < nth; t++)
		for (id = 0; id < k[t].tab.n; id++) {
			at = strtab_intern(&k[0].tab, k[t].tab.s[id],
			    k[t].tab.len[id], &added);
			mem_grow(&k[0].kind, &k[0].cap, at + 1, 1);
			if (added)
				k[0].kind[at] = k[t].kind[id];
			else if (k[0].kind[at] != k[t].kind[id])
				return 0;
		}
	return 1;
}

/* The parts' fixes into SH, in part order, their ProgramIds made ids of
 * SH->prog. */
static void
join_fixes(struct merge_shared *sh, struct partfix *pf)
{
	size_t k, i;

	for (k = 0; k < sh->n; k++) {
		mem_grow(&sh->fix, &sh->capfix, sh->nfix + pf[k].n + 1,
		    sizeof(*sh->fix));
		for (i = 0; i < pf[k].n; i++) {
			struct merge_fix *f = &sh->fix[sh->nfix++];
			const char *p = strtab_get(&pf[k].prog, pf[k].v[i].program);

			*f = pf[k].v[i];
			f->program = strtab_intern(&sh->prog, p,
			    pf[k].prog.len[pf[k].v[i].program], NULL);
		}
		sh->first[k + 1] = sh->nfix;
	}
}

/* Each fix's hidden time: the threads' sums HID[0..NTH), each at most
 * HIDDEN_MAX, added without passing it (frames.c's cap). */
static void
join_hidden(struct merge_shared *sh, int64_t **hid, size_t nth)
{
	size_t i, t;

	for (i = 0; i < sh->nfix; i++) {
		int64_t h = 0;

		for (t = 0; t < nth; t++)
			h = hid[t][i] > HIDDEN_MAX - h ? HIDDEN_MAX : h + hid[t][i];
		sh->fix[i].hidden = h;
	}
}

void
merge_shared_free(struct merge_shared *sh)
{
	if (sh == NULL)
		return;
	u64map_free(&sh->shared);
	strtab_free(&sh->prog);
	free(sh->fix);
	free(sh->first);
	free(sh);
}

int
merge_shared_begin(const char *const *dirs, size_t n,
    struct merge_shared **out)
{
	struct merge_shared *sh = mem_calloc(1, sizeof(*sh));
	size_t nth = pool_cores() < n ? pool_cores() : n, k, t;
	struct prep p;
	struct groups g = { NULL, NULL, 0 };
	int rc;

	*out = NULL;
	sh->n = n;
	sh->first = mem_calloc(n + 2, sizeof(*sh->first));
	if ((rc = find_shared(sh, dirs, n)) != 0 || sh->shared.n == 0) {
		merge_shared_free(sh);
		return rc;
	}
	if (n > merge_fanin()) {
		merge_shared_free(sh);
		return 1;
	}
	memset(&p, 0, sizeof(p));
	p.sh = sh;
	p.dirs = dirs;
	p.pf = mem_calloc(n + 1, sizeof(*p.pf));
	p.kinds = mem_calloc(nth + 1, sizeof(*p.kinds));
	p.hid = mem_calloc(nth + 1, sizeof(*p.hid));
	p.rc = mem_calloc(n + 1, sizeof(*p.rc));
	p.err = mem_calloc(n + 1, sizeof(*p.err));
	if ((rc = prep_run(&p, 1, nth)) == 0 && !kinds_agree(p.kinds, nth))
		rc = 1;
	if (rc == 0) {
		join_fixes(sh, p.pf);
		groups_build(&g, sh);
		p.g = &g;
		for (t = 0; t < nth; t++)
			p.hid[t] = mem_calloc(sh->nfix + 1, sizeof(**p.hid));
		if (sh->nfix > 0 && (rc = prep_run(&p, 2, nth)) == 0)
			join_hidden(sh, p.hid, nth);
	}
	for (k = 0; k < n; k++) {
		free(p.pf[k].v);
		strtab_free(&p.pf[k].prog);
	}
	for (t = 0; t < nth; t++) {
		strtab_free(&p.kinds[t].tab);
		free(p.kinds[t].kind);
		free(p.kinds[t].key);
		free(p.hid[t]);
	}
	free(p.pf);
	free(p.kinds);
	free(p.hid);
	free(p.rc);
	free(p.err);
	free(g.p);
	free(g.maxend);
	if (rc != 0) {
		merge_shared_free(sh);
		return rc;
	}
	*out = sh;
	return 0;
}

/* ---- merge_group: ThunkExecution over the parts ---- */

struct grow {
	size_t off, len;	/* the row's text in the group's buffer */
	size_t te_at;		/* where its ThunkExecution goes in it */
	int64_t te, dev;
	size_t part, seq;
};

struct merge_group {
	struct grow *v;
	size_t n, cap;
	char *buf;		/* the rows' text, ThunkExecution left out */
	size_t len, capbuf;
	char *prog, *name;	/* the key: ProgramId, ProgramExecution, Name */
	size_t capprog, capname;
	int64_t exec;
	size_t *p;		/* the rows in output order */
	size_t capp;
	char *line;		/* one row being written */
	size_t capline;
};

struct merge_group *
merge_group_new(void)
{
	return mem_calloc(1, sizeof(struct merge_group));
}

void
merge_group_free(struct merge_group *g)
{
	if (g == NULL)
		return;
	free(g->v);
	free(g->buf);
	free(g->prog);
	free(g->name);
	free(g->p);
	free(g->line);
	free(g);
}

static void
copy_str(char **dst, size_t *cap, const char *s)
{
	size_t n = strlen(s) + 1;

	mem_grow(dst, cap, n, 1);
	memcpy(*dst, s, n);
}

int
merge_group_in(const struct merge_group *g, const char *prog, int64_t exec,
    const char *name)
{
	return g->n == 0 || (exec == g->exec && strcmp(prog, g->prog) == 0 &&
	    strcmp(name, g->name) == 0);
}

void
merge_group_row(struct merge_group *g, const char *prog, int64_t exec,
    const char *name, int64_t te, int64_t device, size_t part)
{
	struct grow *r;

	if (g->n == 0) {
		copy_str(&g->prog, &g->capprog, prog);
		copy_str(&g->name, &g->capname, name);
		g->exec = exec;
	} else if (g->v[g->n - 1].len == (size_t)-1) {
		g->v[g->n - 1].len = g->len - g->v[g->n - 1].off;
	}
	mem_grow(&g->v, &g->cap, g->n + 1, sizeof(*g->v));
	r = &g->v[g->n];
	r->off = g->len;
	r->len = (size_t)-1;	/* open: set by the next row or the flush */
	r->te_at = 0;
	r->te = te;
	r->dev = device;
	r->part = part;
	r->seq = g->n++;
}

void
merge_group_text(struct merge_group *g, const char *s, size_t n)
{
	mem_grow(&g->buf, &g->capbuf, g->len + n, 1);
	memcpy(g->buf + g->len, s, n);
	g->len += n;
}

void
merge_group_te(struct merge_group *g)
{
	struct grow *r = &g->v[g->n - 1];

	r->te_at = g->len - r->off;
}

/* Group rows in the order that numbers them: device, part, row. */
static int
cmp_number(const void *a, const void *b, const void *ctx)
{
	const struct grow *v = ctx;
	const struct grow *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* And the frame's order: ThunkExecution, then as cmp_number. */
static int
cmp_out(const void *a, const void *b, const void *ctx)
{
	const struct grow *v = ctx;
	const struct grow *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->te != y->te)
		return x->te < y->te ? -1 : 1;
	return cmp_number(a, b, ctx);
}

/* Number G's rows: a part's rows of a device, from 0 in the part, after
 * the rows of that device in the parts before it. */
static void
group_number(struct merge_group *g)
{
	size_t i, j, k;
	int64_t before = 0;

	for (i = 0; i < g->n; i++)
		g->p[i] = i;
	sort_stable(g->p, g->n, sizeof(*g->p), cmp_number, g->v);
	for (i = 0; i < g->n; i = j) {
		const struct grow *r = &g->v[g->p[i]];

		if (i == 0 || g->v[g->p[i - 1]].dev != r->dev)
			before = 0;
		for (j = i; j < g->n && g->v[g->p[j]].dev == r->dev &&
		    g->v[g->p[j]].part == r->part; j++)
			;
		for (k = i; k < j; k++)
			g->v[g->p[k]].te += before;
		before += (int64_t)(j - i);
	}
}

int
merge_group_flush(struct merge_group *g, struct tsv_writer *w)
{
	size_t i;
	int rc = 0;

	if (g->n == 0)
		return 0;
	g->v[g->n - 1].len = g->len - g->v[g->n - 1].off;
	mem_grow(&g->p, &g->capp, g->n + 1, sizeof(*g->p));
	group_number(g);
	sort_stable(g->p, g->n, sizeof(*g->p), cmp_out, g->v);
	for (i = 0; i < g->n && rc == 0; i++) {
		const struct grow *r = &g->v[g->p[i]];
		char num[24];
		size_t nd = (size_t)snprintf(num, sizeof(num), "%" PRId64, r->te);
		size_t n = r->len + nd;

		mem_grow(&g->line, &g->capline, n, 1);
		memcpy(g->line, g->buf + r->off, r->te_at);
		memcpy(g->line + r->te_at, num, nd);
		memcpy(g->line + r->te_at + nd, g->buf + r->off + r->te_at,
		    r->len - r->te_at);
		tsv_raw(w, g->line, n);
		rc = tsv_eor(w);
	}
	g->n = 0;
	g->len = 0;
	return rc;
}
