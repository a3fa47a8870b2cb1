/*
 * Parts that share a device (merge.h merge_shared_begin): what one
 * extraction computes over every profile of a device that the parts did
 * not.  Hidden time is a profile's own (frames.c compute_overlap), so a
 * part computed it whole; ThunkExecution is numbered per (ProgramId,
 * ProgramExecution, Device, Name) over the profiles in order, so the
 * merge renumbers it: merge_group (below) holds the rows of one thunk at
 * a time as merge.c's k-way merge gives them.  Before that, one pass over
 * the parts' thunk frames (a thread per core, struct prep) checks that
 * the communication frame alone can be numbered so: each (ProgramId,
 * Name) on a shared device is of one kind, communication or not.
 * Memory: the distinct (ProgramId, Name) of those thunks, not their rows.
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
#include "base/strtab.h"
#include "base/tsv.h"
#include "profile/merge.h"
#include "profile/merge_impl.h"

int
merge_shared_device(const struct merge_shared *sh, int64_t device)
{
	return u64map_get(&sh->shared, (uint64_t)device) != U64MAP_NONE;
}

/* DIR/NAME opened for reading, its path in *PATH (the caller frees it).
 * NULL when it cannot be: *MISSING set when it does not exist (no
 * error), else with an err message. */
static FILE *
open_in(const char *dir, const char *name, char **path, int *missing)
{
	FILE *fp;

	*path = mem_path(dir, name);
	*missing = 0;
	if ((fp = fopen(*path, "r")) == NULL) {
		if (errno == ENOENT)
			*missing = 1;
		else
			err_fail("%s: cannot open: %s", *path, strerror(errno));
	}
	return fp;
}

/* A part's frames that give its Devices, the first present read: the
 * module frame is the smallest, and every thunk's module is in it. */
static const char *const device_frames[] = { "module.tsv",
    "communication.tsv", "thunk.tsv" };

/* The first of DIR's device_frames present, opened, its path in *PATH
 * (the caller frees it).  NULL with *PATH NULL when it has none (no
 * error), NULL with an err message when one cannot be opened. */
static FILE *
open_devices(const char *dir, char **path)
{
	size_t f;
	FILE *fp;
	int missing;

	for (f = 0; f < sizeof(device_frames) / sizeof(*device_frames); f++) {
		if ((fp = open_in(dir, device_frames[f], path, &missing)) !=
		    NULL || !missing)
			return fp;
		free(*path);
	}
	*path = NULL;
	return NULL;
}

/*
 * The shared devices: a Device in two parts' frames, into SH->shared;
 * the first met (in part order) and the two parts, into SH->clash.
 * Returns 0, or -1 with an err message naming the file.
 */
static int
find_shared(struct merge_shared *sh, const char *const *dirs, size_t n)
{
	struct u64map seen = { 0 };	/* Device -> the first part with it */
	size_t k, at;
	int rc = 0;

	for (k = 0; k < n && rc == 0; k++) {
		char *path;
		FILE *fp = open_devices(dirs[k], &path);
		struct tsv_reader *r = fp ? tsv_ropen(fp, path) : NULL;
		long col = r ? tsv_require(r, "Device") : -1;
		int64_t d;

		rc = col >= 0 || (fp == NULL && path == NULL) ? 0 : -1;
		while (col >= 0 && rc == 0 && (rc = tsv_next(r)) == 1 &&
		    (rc = tsv_get_i64(r, (size_t)col, &d, 0)) == 0) {
			at = u64map_get(&seen, (uint64_t)d);
			if (at == U64MAP_NONE) {
				u64map_add(&seen, (uint64_t)d, k);
			} else if (at != k && !merge_shared_device(sh, d)) {
				if (sh->shared.n == 0)
					sh->clash = (struct clash){ d, at, k };
				u64map_add(&sh->shared, (uint64_t)d, 0);
			}
		}
		tsv_rclose(r);
		if (fp)
			fclose(fp);
		free(path);
	}
	u64map_free(&seen);
	return rc;
}

/* The kind of each (ProgramId, Name) met (one_kind). */
struct kinds {
	struct strtab tab;
	unsigned char *kind;
	size_t cap;
	char *key;		/* the last row's "ProgramId TAB Name" */
	size_t keylen, capkey;
};

/* One part's thunk.tsv, read row by row with the columns the check
 * needs. */
struct thunks {
	FILE *fp;
	char *path;
	struct tsv_reader *r;
	long prog, name, dev, comm;
	int64_t device;		/* the current row's */
	int is_comm;
};

static void
thunks_close(struct thunks *t)
{
	tsv_rclose(t->r);
	if (t->fp)
		fclose(t->fp);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* Open part DIR's thunk.tsv: 0, 1 when it has none (the parts of
 * --merge may hold the communication frame alone), -1. */
static int
thunks_open(struct thunks *t, const char *dir)
{
	static const char *const cols[] = { "ProgramId", "Name", "Device",
	    "Communication" };
	long c[4];
	int missing;

	memset(t, 0, sizeof(*t));
	if ((t->fp = open_in(dir, "thunk.tsv", &t->path, &missing)) == NULL)
		return missing ? 1 : -1;
	if ((t->r = tsv_ropen(t->fp, t->path)) == NULL ||
	    tsv_columns(t->r, cols, 4, 0, c) != 0)
		return -1;
	t->prog = c[0];
	t->name = c[1];
	t->dev = c[2];
	t->comm = c[3];
	return 0;
}

/* The next row: 1, 0 at the end, -1 with an err message. */
static int
thunks_next(struct thunks *t)
{
	size_t len;
	const char *f;
	int rc;

	if ((rc = tsv_next(t->r)) != 1)
		return rc;
	f = tsv_rawfield(t->r, (size_t)t->comm, &len);
	t->is_comm = len == 1 && f[0] == '1';
	if (tsv_get_i64(t->r, (size_t)t->dev, &t->device, 0) != 0)
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
	k->keylen = lp + ln + 1;
	id = strtab_intern(&k->tab, k->key, k->keylen, &added);
	mem_grow(&k->kind, &k->cap, id + 1, 1);
	if (added)
		k->kind[id] = (unsigned char)(1 + th->is_comm);
	return k->kind[id] == 1 + th->is_comm;
}

/* The err message of a (ProgramId, Name) of both kinds: KEY[0..LEN) is
 * "ProgramId TAB Name".  Returns 1. */
static int
mixed(const char *key, size_t len)
{
	const char *tab = memchr(key, '\t', len);
	int lp = tab ? (int)(tab - key) : (int)len;

	err_fail("thunk %.*s of ProgramId %.*s is communication in one part "
	    "and not in another", tab ? (int)(len - (size_t)lp - 1) : 0,
	    tab ? tab + 1 : "", lp, key);
	return 1;
}

/* The kinds of part DIR's thunks on the shared devices checked in K.
 * Returns 0; 1 (a kind mixed, or no thunk frame) or -1, with an err
 * message. */
static int
check_kinds(const struct merge_shared *sh, const char *dir, struct kinds *k)
{
	struct thunks t;
	int rc = thunks_open(&t, dir);

	if (rc == 1)
		err_fail("%s has no thunk.tsv, which the merge reads", dir);
	while (rc == 0 && (rc = thunks_next(&t)) == 1) {
		rc = 0;
		if (merge_shared_device(sh, t.device) && !one_kind(k, &t))
			rc = mixed(k->key, k->keylen);
	}
	thunks_close(&t);
	return rc;
}

/*
 * The check runs a thread per core (pool.h), each thread taking the next
 * part.  A thread keeps its own kinds, joined after: the first part in
 * order that failed gives the error, as one thread would.
 */
struct prep {
	const struct merge_shared *sh;
	const char *const *dirs;
	size_t next;		/* the next part to take (atomic) */
	size_t slot;		/* the next thread's index (atomic) */
	struct kinds *kinds;	/* by thread */
	int *rc;		/* by part */
	char **err;		/* by part, when rc != 0 */
};

static void *
prep_thread(void *arg)
{
	struct prep *p = arg;
	size_t me = __atomic_fetch_add(&p->slot, 1, __ATOMIC_RELAXED), k;

	while ((k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
	    p->sh->n) {
		int rc = check_kinds(p->sh, p->dirs[k], &p->kinds[me]);

		p->rc[k] = rc;
		if (rc != 0)
			p->err[k] = mem_strdup(err_msg());
	}
	return NULL;
}

/* Check every part in NTH threads: 0, or the first failing part's 1 or
 * -1, with its err message. */
static int
prep_run(struct prep *p, size_t nth)
{
	size_t k;
	int rc = 0;

	pool_run(nth, prep_thread, p);
	for (k = 0; k < p->sh->n; k++) {
		if (rc == 0 && p->rc[k] != 0) {
			rc = p->rc[k];
			err_fail("%s", p->err[k]);
		}
		free(p->err[k]);
	}
	return rc;
}

/* Whether the threads' kinds K[0..NTH) agree: one kind per (ProgramId,
 * Name) over every part; when not, with mixed's err message. */
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
				return !mixed(k[t].tab.s[id], k[t].tab.len[id]);
		}
	return 1;
}

void
merge_shared_free(struct merge_shared *sh)
{
	if (sh == NULL)
		return;
	u64map_free(&sh->shared);
	free(sh);
}

/* SH freed; the err message (why not) prefixed with the first shared
 * device and its two parts.  Returns 1. */
static int
refuse(struct merge_shared *sh, const char *const *dirs)
{
	err_prefix("device %" PRId64 " is in both %s and %s",
	    sh->clash.device, dirs[sh->clash.a], dirs[sh->clash.b]);
	merge_shared_free(sh);
	return 1;
}

int
merge_shared_begin(const char *const *dirs, size_t n,
    struct merge_shared **out)
{
	struct merge_shared *sh = mem_calloc(1, sizeof(*sh));
	size_t nth = pool_cores() < n ? pool_cores() : n, t;
	struct prep p;
	int rc;

	*out = NULL;
	sh->n = n;
	if ((rc = find_shared(sh, dirs, n)) != 0 || sh->shared.n == 0) {
		merge_shared_free(sh);
		return rc;
	}
	if (n > merge_fanin()) {
		err_fail("%zu parts, more than one merge opens at once (%zu)",
		    n, merge_fanin());
		return refuse(sh, dirs);
	}
	memset(&p, 0, sizeof(p));
	p.sh = sh;
	p.dirs = dirs;
	p.kinds = mem_calloc(nth + 1, sizeof(*p.kinds));
	p.rc = mem_calloc(n + 1, sizeof(*p.rc));
	p.err = mem_calloc(n + 1, sizeof(*p.err));
	if ((rc = prep_run(&p, nth)) == 0 && !kinds_agree(p.kinds, nth))
		rc = 1;
	for (t = 0; t < nth; t++) {
		strtab_free(&p.kinds[t].tab);
		free(p.kinds[t].kind);
		free(p.kinds[t].key);
	}
	free(p.kinds);
	free(p.rc);
	free(p.err);
	if (rc == 1)
		return refuse(sh, dirs);
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
