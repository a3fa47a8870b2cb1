#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/align.h"
#include "base/err.h"
#include "analysis/filter.h"
#include "base/mem.h"
#include "base/outfile.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "base/u64map.h"

/* ---- devmap: device number -> dense index, in order of first sight ---- */

struct devmap {
	int64_t *dev;		/* dev[idx] */
	size_t n, cap;
	struct u64map byno;	/* device number -> idx */
	int64_t last;		/* one-entry cache: rows come in device runs */
	size_t lastidx;
};

/* The index of device D, adding it if new. */
static size_t
dm_index(struct devmap *m, int64_t d)
{
	size_t i;

	if (m->n > 0 && m->last == d)
		return m->lastidx;
	if ((i = u64map_get(&m->byno, (uint64_t)d)) == U64MAP_NONE) {
		mem_grow(&m->dev, &m->cap, m->n + 1, sizeof(*m->dev));
		m->dev[m->n] = d;
		u64map_add(&m->byno, (uint64_t)d, i = m->n++);
	}
	m->last = d;
	m->lastidx = i;
	return i;
}

static void
dm_free(struct devmap *m)
{
	free(m->dev);
	u64map_free(&m->byno);
	memset(m, 0, sizeof(*m));
}

/* ---- arithmetic ---- */

/* NUM / DEN (DEN > 0) to the nearest integer, a tie upwards: floor(x +
 * 1/2) commutes with adding integers, which the invariance under a
 * clock shift needs (away-from-zero rounding would not). */
static int64_t
round_div(int64_t num, int64_t den)
{
	int64_t q = num / den, r = num % den;

	if (r < 0) {
		q--;
		r += den;
	}
	return q + (r >= den - r);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Whether |V| > LIM, without negating V (INT64_MIN has no opposite). */
static int
beyond(int64_t v, int64_t lim)
{
	return v > lim || v < -lim;
}

/* ---- the estimate ---- */

struct crow {
	uint32_t inst;		/* strtab id of the instance key */
	uint32_t dev;		/* devmap index */
	int64_t end;		/* ns */
	int32_t size;		/* CollectiveSize */
};

struct align_est {
	struct strtab inst;
	struct devmap devs;
	struct crow *rows;
	size_t n, cap;
};

struct align_est *
align_est_new(void)
{
	return mem_calloc(1, sizeof(struct align_est));
}

void
align_est_free(struct align_est *e)
{
	if (e == NULL)
		return;
	strtab_free(&e->inst);
	dm_free(&e->devs);
	free(e->rows);
	free(e);
}

int
align_est_add(struct align_est *e, const char *key, size_t keylen,
    int64_t device, int64_t size, int64_t end_ns)
{
	struct crow *c;
	size_t id;

	if (size < 0 || size > INT32_MAX)
		return err_fail("CollectiveSize %" PRId64 " out of range", size);
	if (beyond(end_ns, 3 * ALIGN_MAX_NS))
		return err_fail("end time %" PRId64 " ns out of range", end_ns);
	id = strtab_intern(&e->inst, key, keylen, NULL);
	if (id > UINT32_MAX)
		return err_fail("more than 2^32 collective instances");
	mem_grow(&e->rows, &e->cap, e->n + 1, sizeof(*e->rows));
	c = &e->rows[e->n++];
	c->inst = (uint32_t)id;
	c->dev = (uint32_t)dm_index(&e->devs, device);
	c->end = end_ns;
	c->size = (int32_t)size;
	return 0;
}

/* Row I's CollectiveSize; an unknown one (0) counts as every device of
 * the collectives (align_est_add). */
static int64_t
size_of(const struct align_est *e, size_t i)
{
	return e->rows[i].size ? e->rows[i].size : (int64_t)e->devs.n;
}

/* Why the rows cannot be aligned (the reference's own refusals first),
 * or 0 when they can: then *MAX is the largest CollectiveSize. */
static int
refuse(const struct align_est *e, int64_t *max, char *why, size_t len)
{
	size_t i;

	*max = 0;
	for (i = 0; i < e->n; i++)
		if (size_of(e, i) > *max)
			*max = size_of(e, i);
	if (e->n == 0)
		snprintf(why, len, "no collectives: nothing to align");
	else if (e->devs.n == 1)
		snprintf(why, len, "one device (%" PRId64 ") in the collectives, "
		    "which span up to %" PRId64 ": nothing to align",
		    e->devs.dev[0], *max);
	else if (*max == 1)
		snprintf(why, len, "the largest CollectiveSize is 1: no "
		    "collective links the clocks of the %zu devices", e->devs.n);
	else if ((int64_t)e->devs.n != *max)
		snprintf(why, len, "%zu devices, but the largest collectives span "
		    "%" PRId64 ": only collectives over every device can align "
		    "them", e->devs.n, *max);
	else
		return 0;
	return 1;
}

/* The rows of size MAX grouped by instance (a counting sort, O(n)):
 * instance i's rows are ORDER[START[i] .. START[i + 1]). */
static void
group(const struct align_est *e, int64_t max, size_t **start, size_t **order)
{
	size_t ni = e->inst.n, i, *s, *o, *fill;

	s = mem_calloc(ni + 1, sizeof(*s));
	for (i = 0; i < e->n; i++)
		if (size_of(e, i) == max)
			s[e->rows[i].inst + 1]++;
	for (i = 0; i < ni; i++)
		s[i + 1] += s[i];
	o = mem_calloc(s[ni] + 1, sizeof(*o));
	fill = mem_calloc(ni + 1, sizeof(*fill));
	memcpy(fill, s, ni * sizeof(*fill));
	for (i = 0; i < e->n; i++)
		if (size_of(e, i) == max)
			o[fill[e->rows[i].inst]++] = i;
	free(fill);
	*start = s;
	*order = o;
}

/* Whether instance ROWS[0..N) is complete: N == MAX rows on distinct
 * devices (STAMP: per device, the last instance + 1 seen on it). */
static int
complete(const struct align_est *e, const size_t *rows, size_t n,
    int64_t max, size_t inst, size_t *stamp)
{
	size_t k;

	if ((int64_t)n != max)
		return 0;
	for (k = 0; k < n; k++) {
		size_t d = e->rows[rows[k]].dev;

		if (stamp[d] == inst + 1)
			return 0;
		stamp[d] = inst + 1;
	}
	return 1;
}

/*
 * The skews of one complete instance, in units of 1/N ns (N = its row
 * count): s_d = N * end_d - sum(end).  Ends are taken relative to the
 * first row's, which keeps the sums small; an instance whose ends lie
 * more than 2^60/N ns apart is refused so that medians of two fit.
 */
static int
skews(const struct align_est *e, const size_t *rows, size_t n, int64_t *sk,
    size_t stride, size_t col)
{
	int64_t base = e->rows[rows[0]].end, lim = ((int64_t)1 << 60) /
	    (int64_t)n, sum = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		int64_t rel = e->rows[rows[k]].end - base;

		if (beyond(rel, lim))
			return err_fail("collective instance %s: end times %"
			    PRId64 " ns apart, too far to align",
			    strtab_get(&e->inst, e->rows[rows[0]].inst), rel);
		sum += rel;
	}
	for (k = 0; k < n; k++) {
		const struct crow *c = &e->rows[rows[k]];

		sk[c->dev * stride + col] = (int64_t)n * (c->end - base) - sum;
	}
	return 0;
}

/* Median and range of a device's K sorted skews (units 1/N ns), to ns. */
static void
summarise(struct align_corr *c, int64_t *sk, size_t k, int64_t n)
{
	int64_t m2;

	qsort(sk, k, sizeof(*sk), cmp_i64);
	/* The median in units of 1/(2N) ns: numpy's for an even count. */
	m2 = k % 2 ? 2 * sk[k / 2] : sk[k / 2 - 1] + sk[k / 2];
	c->corr_ns = round_div(m2, 2 * n);
	c->spread_ns = round_div(sk[k - 1] - sk[0], n);
	c->instances = (int64_t)k;
}

static int
cmp_corr(const void *a, const void *b)
{
	const struct align_corr *x = a, *y = b;

	return (x->device > y->device) - (x->device < y->device);
}

/* The skews of every complete instance into a devices x instances
 * matrix *SK; returns the number of instances, or -1.  With INST, *INST
 * is set to the instance ids of the columns (free it). */
static long
collect(const struct align_est *e, int64_t max, int64_t **skout,
    size_t **inst)
{
	size_t *start, *order, *stamp, *done, ni = e->inst.n, nd = e->devs.n;
	size_t i, k = 0;
	int64_t *sk;
	long rc;

	group(e, max, &start, &order);
	stamp = mem_calloc(nd, sizeof(*stamp));
	done = mem_calloc(ni + 1, sizeof(*done));
	for (i = 0; i < ni; i++)
		if (complete(e, order + start[i], start[i + 1] - start[i], max,
		    i, stamp))
			done[k++] = i;
	sk = mem_calloc(nd * k + 1, sizeof(*sk));
	rc = (long)k;
	for (i = 0; i < k && rc >= 0; i++)
		if (skews(e, order + start[done[i]], (size_t)max, sk, k, i) != 0)
			rc = -1;
	free(start);
	free(order);
	free(stamp);
	if (inst)
		*inst = done;
	else
		free(done);
	*skout = sk;
	return rc;
}

int
align_est_solve(struct align_est *e, struct align_table *t,
    char *why, size_t whylen)
{
	int64_t max, *sk;
	size_t d, nd = e->devs.n;
	long k;

	memset(t, 0, sizeof(*t));
	if (refuse(e, &max, why, whylen))
		return 1;
	if ((k = collect(e, max, &sk, NULL)) <= 0) {
		free(sk);
		if (k < 0)
			return -1;
		snprintf(why, whylen, "no complete collective: no instance of "
		    "CollectiveSize %" PRId64 " was seen on all %zu devices",
		    max, nd);
		return 1;
	}
	t->v = mem_calloc(nd, sizeof(*t->v));
	t->n = nd;
	for (d = 0; d < nd; d++) {
		t->v[d].device = e->devs.dev[d];
		summarise(&t->v[d], sk + d * (size_t)k, (size_t)k, max);
	}
	free(sk);
	qsort(t->v, t->n, sizeof(*t->v), cmp_corr);
	why[0] = '\0';
	return 0;
}

/* The context of the skews' sorts: the estimate and the key of each
 * column's instance. */
struct skew_ctx {
	const struct align_est *e;
	const size_t *inst;
};

/* Columns by the key of their instance (bytes), devices by number. */
static int
cmp_col(const void *a, const void *b, const void *ctx)
{
	const struct skew_ctx *c = ctx;

	return strcmp(strtab_get(&c->e->inst, c->inst[*(const size_t *)a]),
	    strtab_get(&c->e->inst, c->inst[*(const size_t *)b]));
}

static int
cmp_dev(const void *a, const void *b, const void *ctx)
{
	const struct skew_ctx *c = ctx;

	return cmp_i64(&c->e->devs.dev[*(const size_t *)a],
	    &c->e->devs.dev[*(const size_t *)b]);
}

int
align_est_skews(struct align_est *e, struct tsv_writer *w)
{
	static const char *const head[] = {
		"Device", "Instance", "EndTimeSkewMs", NULL
	};
	size_t nd = e->devs.n, i, d, *inst = NULL, *col, *dev;
	struct skew_ctx ctx;
	int64_t max, *sk = NULL;
	char why[256];
	long k;
	int rc;

	if (tsv_header(w, head) != 0)
		return -1;
	if (refuse(e, &max, why, sizeof(why)))
		return 0;
	if ((k = collect(e, max, &sk, &inst)) < 0) {
		free(sk);
		free(inst);
		return -1;
	}
	/* Columns numbered in key order, rows by device. */
	col = mem_calloc((size_t)k + 1, sizeof(*col));
	dev = mem_calloc(nd + 1, sizeof(*dev));
	for (i = 0; i < (size_t)k; i++)
		col[i] = i;
	for (d = 0; d < nd; d++)
		dev[d] = d;
	ctx.e = e;
	ctx.inst = inst;
	sort_stable(dev, nd, sizeof(*dev), cmp_dev, &ctx);
	sort_stable(col, (size_t)k, sizeof(*col), cmp_col, &ctx);
	rc = 0;
	for (d = 0; d < nd && rc == 0; d++)
		for (i = 0; i < (size_t)k && rc == 0; i++) {
			tsv_i64(w, e->devs.dev[dev[d]]);
			tsv_i64(w, (int64_t)i + 1);
			tsv_f64(w, (double)sk[dev[d] * (size_t)k + col[i]] /
			    ((double)max * 1e6));
			rc = tsv_eor(w);
		}
	free(col);
	free(dev);
	free(sk);
	free(inst);
	return rc;
}

/* ---- corrections tables ---- */

const struct align_corr *
align_table_find(const struct align_table *t, int64_t device)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].device == device)
			return &t->v[mid];
		if (t->v[mid].device < device)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void
align_table_free(struct align_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

int
align_table_write(struct tsv_writer *w, const struct align_table *t)
{
	static const char *const head[] = {
		"Device", "CorrectionMs", "Instances", "SpreadMs", NULL
	};
	size_t i;

	if (tsv_header(w, head) != 0)
		return -1;
	for (i = 0; i < t->n; i++) {
		tsv_i64(w, t->v[i].device);
		tsv_ms(w, t->v[i].corr_ns);
		tsv_i64(w, t->v[i].instances);
		tsv_ms(w, t->v[i].spread_ns);
		if (tsv_eor(w) != 0)
			return -1;
	}
	return 0;
}

static int
read_rows(struct tsv_reader *r, struct align_table *t)
{
	long cd, cc;
	size_t cap = 0;
	int rc;

	if ((cd = tsv_require(r, "Device")) < 0 ||
	    (cc = tsv_require(r, "CorrectionMs")) < 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		struct align_corr c = { 0 };

		if (tsv_get_i64(r, (size_t)cd, &c.device, 0) != 0 ||
		    tsv_get_ms(r, (size_t)cc, &c.corr_ns, 0) != 0)
			return -1;
		if (beyond(c.corr_ns, ALIGN_MAX_CORR_NS))
			return err_fail("%s:%ld: column CorrectionMs: out of "
			    "range", tsv_name(r), tsv_lineno(r));
		mem_grow(&t->v, &cap, t->n + 1, sizeof(*t->v));
		t->v[t->n++] = c;
	}
	return rc;
}

int
align_table_read(FILE *fp, const char *name, struct align_table *t)
{
	struct tsv_reader *r;
	size_t i;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((r = tsv_ropen(fp, name)) == NULL)
		return -1;
	rc = read_rows(r, t);
	tsv_rclose(r);
	if (rc == 0 && t->n > 0) {
		qsort(t->v, t->n, sizeof(*t->v), cmp_corr);
		for (i = 1; i < t->n; i++)
			if (t->v[i].device == t->v[i - 1].device) {
				rc = err_fail("%s: device %" PRId64 " listed "
				    "twice", name, t->v[i].device);
				break;
			}
	}
	if (rc != 0)
		align_table_free(t);
	return rc;
}

/* ---- the filter ---- */

/*
 * The spool: every row as read, behind a 16-byte header holding what the
 * output pass needs (the parsed ProjStartMs and the device), in an
 * anonymous temporary file (unlinked at once, so nothing is left behind
 * even on a crash).  Buffered here, 1 MB per stdio call, not two calls
 * per row.
 */
struct rechdr {
	int64_t start;		/* ProjStartMs, ns; NO_START if empty */
	uint32_t len;		/* bytes of the line, without LF */
	int32_t dev;		/* devmap index */
};

#define NO_START INT64_MIN

struct spool {
	FILE *fp;
	char *buf;
	size_t len, pos, cap;	/* reading: buf[pos..len) unread */
};

#define SPOOL_BUF (1 << 20)

struct align_run {
	struct filter *f;
	char **names;		/* the header, for writing */
	size_t ncols;
	long cstart, cdev, cdur, chid, csize, ccomm, ccoll, ckey[4];
	enum { RUN_STREAM, RUN_SPOOL } mode;
	char why[512];
	int declined;
	int keep_skews;		/* keep est after align_read */
	struct spool sp;
	struct align_est *est;
	struct align_table table;
	struct devmap devs;	/* every device of the input */
	int64_t *corr;		/* corr[devidx], valid when hascorr */
	char *hascorr;
	size_t ncorr;		/* entries of corr/hascorr filled */
	int64_t *missing;
	size_t nmissing;
	char *key;		/* scratch: instance key */
	size_t keycap;
	char *line;		/* align_apply_line's corrected row */
	size_t linecap;
};

struct align_run *
align_run_new(void)
{
	struct align_run *r = mem_calloc(1, sizeof(*r));

	r->cstart = r->cdev = -1;
	return r;
}

void
align_run_free(struct align_run *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->ncols; i++)
		free(r->names[i]);
	free(r->names);
	if (r->sp.fp)
		fclose(r->sp.fp);
	free(r->sp.buf);
	align_est_free(r->est);
	align_table_free(&r->table);
	dm_free(&r->devs);
	free(r->corr);
	free(r->hascorr);
	free(r->missing);
	free(r->key);
	free(r->line);
	free(r);
}

const char *
align_declined(const struct align_run *r)
{
	return r->declined ? r->why : NULL;
}

const struct align_table *
align_result(const struct align_run *r)
{
	return &r->table;
}

size_t
align_missing(const struct align_run *r, const int64_t **devs)
{
	*devs = r->missing;
	return r->nmissing;
}

static void
decline(struct align_run *r, const char *why)
{
	snprintf(r->why, sizeof(r->why), "%s", why);
	r->declined = 1;
}

static void
keep_header(struct align_run *r, const struct tsv_reader *rd)
{
	size_t i;

	r->ncols = tsv_ncols(rd);
	r->names = mem_calloc(r->ncols + 1, sizeof(*r->names));
	for (i = 0; i < r->ncols; i++)
		r->names[i] = mem_strdup(tsv_colname(rd, i));
}

/* The columns of the estimate; -1 with "missing column" when absent. */
static int
estimate_cols(struct align_run *r, const struct tsv_reader *rd)
{
	static const char *const key[] = {
		"ProgramId", "ProgramExecution", "Name", "ThunkExecution"
	};
	int i;

	for (i = 0; i < 4; i++)
		if ((r->ckey[i] = tsv_require(rd, key[i])) < 0)
			return -1;
	if ((r->cdur = tsv_require(rd, "ProjDurMs")) < 0 ||
	    (r->chid = tsv_require(rd, "ProjDurHiddenMs")) < 0)
		return -1;
	r->ccomm = tsv_col(rd, "Communication");
	r->ccoll = tsv_col(rd, "Collective");
	return 0;
}

/* Find the columns; 1 when the input is only passed through (declined). */
static int
find_cols(struct align_run *r, const struct tsv_reader *rd, int estimate)
{
	keep_header(r, rd);
	if ((r->cstart = tsv_col(rd, "ProjStartMs")) < 0) {
		decline(r, "no ProjStartMs column, so no device times: "
		    "nothing to align");
		return 1;
	}
	if ((r->cdev = tsv_require(rd, "Device")) < 0)
		return -1;
	if (!estimate)
		return 0;
	if ((r->csize = tsv_col(rd, "CollectiveSize")) < 0) {
		decline(r, "no CollectiveSize column (a module frame?): "
		    "nothing to estimate from; align it with --apply and the "
		    "corrections of its thunk or communication frame");
		return 1;
	}
	return estimate_cols(r, rd);
}

static int
bad(const struct tsv_reader *rd, long col, const char *what)
{
	return err_fail("%s:%ld: column %s: %s", tsv_name(rd), tsv_lineno(rd),
	    tsv_colname(rd, (size_t)col), what);
}

/* A time in ns from column COL (not empty), within ALIGN_MAX_NS. */
static int
get_time(struct tsv_reader *rd, long col, int64_t *ns)
{
	if (tsv_get_ms(rd, (size_t)col, ns, 0) != 0)
		return -1;
	if (beyond(*ns, ALIGN_MAX_NS))
		return bad(rd, col, "out of range (more than 2^59 ns)");
	return 0;
}

/* The four instance columns joined by TABs (raw: a raw field holds no
 * TAB, so the join is unambiguous). */
static size_t
instance_key(struct align_run *r, const struct tsv_reader *rd)
{
	size_t n = 0, len, i;

	for (i = 0; i < 4; i++) {
		const char *s = tsv_rawfield(rd, (size_t)r->ckey[i], &len);

		mem_grow(&r->key, &r->keycap, n + len + 1, 1);
		memcpy(r->key + n, s, len);
		n += len;
		r->key[n++] = '\t';
	}
	return n;
}

/* Whether the current row is a collective to estimate from: 1, 0, or -1
 * with an err message; *SIZE is its CollectiveSize. */
static int
is_collective(struct align_run *r, struct tsv_reader *rd, int64_t *size)
{
	int64_t comm = 1;
	int rc;

	if (r->ccomm >= 0) {
		if ((rc = tsv_get_i64(rd, (size_t)r->ccomm, &comm, 1)) < 0)
			return -1;
		if (rc == 1)
			comm = 0;	/* unknown (missing HLO): not a collective */
		else if (comm != 0 && comm != 1)
			return bad(rd, r->ccomm, "not 0 or 1");
	}
	if (comm == 0)
		return 0;
	if ((rc = tsv_get_i64(rd, (size_t)r->csize, size, 1)) < 0)
		return -1;
	if (rc == 1) {
		/* Named but not measured (a module without a dump: the
		 * Collective its name gives, no size): joins every device it
		 * is seen on (align_est_add).  Neither: no facts at all. */
		*size = 0;
		return r->ccoll >= 0 && *tsv_field(rd, (size_t)r->ccoll) != '\0';
	}
	if (*size < 1 || *size > INT32_MAX)
		return bad(rd, r->csize, "not a positive integer");
	return 1;
}

/* Feed the current row to the estimate if it is a collective. */
static int
estimate_row(struct align_run *r, struct tsv_reader *rd, int64_t dev,
    int64_t start)
{
	int64_t size, dur, hid;
	size_t keylen;
	int rc;

	if ((rc = is_collective(r, rd, &size)) <= 0)
		return rc;
	if (get_time(rd, r->cdur, &dur) != 0 ||
	    get_time(rd, r->chid, &hid) != 0)
		return -1;
	if (start == NO_START)
		return bad(rd, r->cstart, "empty in a collective row");
	keylen = instance_key(r, rd);	/* before reading r->key: it grows */
	if (align_est_add(r->est, r->key, keylen, dev, size,
	    start + dur + hid) != 0)
		return err_prefix("%s:%ld", tsv_name(rd), tsv_lineno(rd));
	return 0;
}

static int
spool_flush(struct spool *sp)
{
	if (sp->len && fwrite(sp->buf, 1, sp->len, sp->fp) != sp->len)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	sp->len = 0;
	return 0;
}

static int
spool_put(struct spool *sp, const struct rechdr *h, const char *line)
{
	if (sp->len + sizeof(*h) + h->len > sp->cap && spool_flush(sp) != 0)
		return -1;
	mem_grow(&sp->buf, &sp->cap, sizeof(*h) + h->len, 1);
	memcpy(sp->buf + sp->len, h, sizeof(*h));
	memcpy(sp->buf + sp->len + sizeof(*h), line, h->len);
	sp->len += sizeof(*h) + h->len;
	return 0;
}

/* Make N bytes available at sp->buf + sp->pos; 0 at a clean end. */
static int
spool_need(struct spool *sp, size_t n)
{
	size_t got;

	if (sp->len - sp->pos >= n)
		return 1;
	memmove(sp->buf, sp->buf + sp->pos, sp->len - sp->pos);
	sp->len -= sp->pos;
	sp->pos = 0;
	mem_grow(&sp->buf, &sp->cap, n, 1);
	got = fread(sp->buf + sp->len, 1, sp->cap - sp->len, sp->fp);
	sp->len += got;
	if (sp->len >= n)
		return 1;
	if (ferror(sp->fp))
		return err_fail("temporary file: read error: %s",
		    strerror(errno));
	if (sp->len == 0)
		return 0;
	return err_fail("temporary file: truncated");
}


/* The correction of device index I, or NULL; looked up in T on first
 * use, so that --apply needs no pass over the devices beforehand.
 * (Devices are few: growing by one costs nothing worth amortising.) */
static const int64_t *
corr_of(struct align_run *r, size_t i, const struct align_table *t)
{
	while (r->ncorr <= i) {
		const struct align_corr *c;

		c = align_table_find(t, r->devs.dev[r->ncorr]);
		r->corr = mem_realloc(r->corr, r->ncorr + 1, sizeof(*r->corr));
		r->hascorr = mem_realloc(r->hascorr, r->ncorr + 1, 1);
		r->corr[r->ncorr] = c ? c->corr_ns : 0;
		r->hascorr[r->ncorr] = c != NULL;
		r->ncorr++;
	}
	return r->hascorr[i] ? &r->corr[i] : NULL;
}

/* Record the devices seen without a correction, in increasing order. */
static void
note_missing(struct align_run *r, const struct align_table *t)
{
	size_t i;

	free(r->missing);
	r->missing = mem_calloc(r->devs.n + 1, sizeof(*r->missing));
	r->nmissing = 0;
	for (i = 0; i < r->devs.n; i++)
		if (corr_of(r, i, t) == NULL)
			r->missing[r->nmissing++] = r->devs.dev[i];
	qsort(r->missing, r->nmissing, sizeof(*r->missing), cmp_i64);
}

/* Spool the current row and estimate from it. */
static int
read_row(struct align_run *r, struct tsv_reader *rd)
{
	struct rechdr h = { 0 };
	int64_t dev, start = NO_START;
	size_t len;
	const char *line;
	int rc;

	if (tsv_get_i64(rd, (size_t)r->cdev, &dev, 0) != 0)
		return -1;
	if ((rc = tsv_get_ms(rd, (size_t)r->cstart, &start, 1)) < 0)
		return -1;
	if (rc == 1)
		start = NO_START;
	else if (beyond(start, ALIGN_MAX_NS))
		return bad(rd, r->cstart, "out of range (more than 2^59 ns)");
	if (estimate_row(r, rd, dev, start) != 0)
		return -1;
	line = tsv_rawline(rd, &len);
	if (len > UINT32_MAX)
		return err_fail("%s:%ld: line longer than 4 GB", tsv_name(rd),
		    tsv_lineno(rd));
	h.len = (uint32_t)len;
	h.start = start;
	h.dev = (int32_t)dm_index(&r->devs, dev);
	if (r->devs.n > INT32_MAX)
		return err_fail("more than 2^31 devices");
	return spool_put(&r->sp, &h, line);
}

static int
spool_rows(struct align_run *r, struct filter *f)
{
	int rc;

	if ((r->sp.fp = outfile_anon("nsysjax-align")) == NULL)
		return -1;
	r->sp.cap = SPOOL_BUF;
	r->sp.buf = mem_alloc(r->sp.cap);
	while ((rc = filter_next(f)) == 1)
		if (read_row(r, filter_reader(f)) != 0)
			return -1;
	if (rc < 0 || spool_flush(&r->sp) != 0)
		return -1;
	if (fflush(r->sp.fp) != 0 || fseek(r->sp.fp, 0, SEEK_SET) != 0)
		return err_fail("temporary file: %s", strerror(errno));
	r->sp.len = r->sp.pos = 0;
	return 0;
}

int
align_read(struct align_run *r, struct filter *f)
{
	int rc;

	r->f = f;
	if ((rc = find_cols(r, filter_reader(f), 1)) != 0)
		return rc < 0 ? -1 : 0;
	r->mode = RUN_SPOOL;
	r->est = align_est_new();
	if (spool_rows(r, f) != 0)
		return -1;
	rc = align_est_solve(r->est, &r->table, r->why, sizeof(r->why));
	if (!r->keep_skews) {
		align_est_free(r->est);	/* before the output pass: peak memory */
		r->est = NULL;
	}
	if (rc < 0)
		return -1;
	if (rc == 1)
		r->declined = 1;
	else
		note_missing(r, &r->table);
	return 0;
}

/* LINE[0..LEN) with its field at [OFF, OFF + FLEN) replaced by the time
 * NS (tsv_ms's text), in R's buffer: *OUTLEN bytes, valid until the next
 * call. */
static const char *
corrected(struct align_run *r, const char *line, size_t len, size_t off,
    size_t flen, int64_t ns, size_t *outlen)
{
	char ms[32];
	size_t mlen = tsv_fmt_ms(ms, ns);

	mem_grow(&r->line, &r->linecap, len - flen + mlen + 1, 1);
	memcpy(r->line, line, off);
	memcpy(r->line + off, ms, mlen);
	memcpy(r->line + off + mlen, line + off + flen, len - off - flen);
	*outlen = len - flen + mlen;
	return r->line;
}

static int
put_raw(struct tsv_writer *w, const char *line, size_t len)
{
	tsv_raw(w, line, len);
	return tsv_eor(w);
}

/* The offset and length of field COL of LINE (a validated row). */
static size_t
field_at(const char *line, size_t len, long col, size_t *flen)
{
	const char *p = line, *end = line + len, *q;
	long k;

	for (k = 0; k < col; k++)
		p = (const char *)memchr(p, '	', (size_t)(end - p)) + 1;
	q = memchr(p, '	', (size_t)(end - p));
	*flen = (size_t)((q ? q : end) - p);
	return (size_t)(p - line);
}

static int
replay(struct align_run *r, struct tsv_writer *w)
{
	struct spool *sp = &r->sp;
	struct rechdr h;
	const int64_t *c;
	const char *line;
	size_t off, flen, len;
	int rc;

	while ((rc = spool_need(sp, sizeof(h))) == 1) {
		memcpy(&h, sp->buf + sp->pos, sizeof(h));
		if (spool_need(sp, sizeof(h) + h.len) != 1)
			return err_fail("temporary file: truncated");
		line = sp->buf + sp->pos + sizeof(h);
		sp->pos += sizeof(h) + h.len;
		c = r->declined || h.start == NO_START ? NULL :
		    corr_of(r, (size_t)h.dev, &r->table);
		if (c == NULL)
			rc = put_raw(w, line, h.len);
		else {
			off = field_at(line, h.len, r->cstart, &flen);
			line = corrected(r, line, h.len, off, flen,
			    h.start - *c, &len);
			rc = put_raw(w, line, len);
		}
		if (rc != 0)
			return -1;
	}
	return rc;
}

/* Pass the rest of the input through unchanged. */
static int
stream(struct align_run *r, struct tsv_writer *w)
{
	const char *line;
	size_t len;
	int rc;

	while ((rc = filter_next(r->f)) == 1) {
		line = tsv_rawline(filter_reader(r->f), &len);
		if (put_raw(w, line, len) != 0)
			return -1;
	}
	return rc;
}

void
align_keep_skews(struct align_run *r)
{
	r->keep_skews = 1;
}

int
align_write_skews(struct align_run *r, struct tsv_writer *w)
{
	static const char *const head[] = {
		"Device", "Instance", "EndTimeSkewMs", NULL
	};
	int rc;

	if (r->est == NULL)
		return tsv_header(w, head);
	rc = align_est_skews(r->est, w);
	align_est_free(r->est);
	r->est = NULL;
	return rc;
}

int
align_write(struct align_run *r, struct tsv_writer *w)
{
	if (tsv_header(w, (const char *const *)r->names) != 0)
		return -1;
	return r->mode == RUN_STREAM ? stream(r, w) : replay(r, w);
}

int
align_apply_begin(struct align_run *r, const struct tsv_reader *rd)
{
	return find_cols(r, rd, 0);
}

int
align_apply_line(struct align_run *r, struct tsv_reader *rd,
    const struct align_table *t, const char **line, size_t *len)
{
	const int64_t *c;
	const char *field;
	int64_t dev, start;
	size_t flen;
	int rc;

	*line = tsv_rawline(rd, len);
	if (r->declined)
		return 0;
	if (tsv_get_i64(rd, (size_t)r->cdev, &dev, 0) != 0)
		return -1;
	if ((c = corr_of(r, dm_index(&r->devs, dev), t)) == NULL)
		return 0;
	if ((rc = tsv_get_ms(rd, (size_t)r->cstart, &start, 1)) < 0)
		return -1;
	if (rc == 1)
		return 0;
	if (beyond(start, ALIGN_MAX_NS))
		return bad(rd, r->cstart, "out of range (more than 2^59 ns)");
	field = tsv_rawfield(rd, (size_t)r->cstart, &flen);
	*line = corrected(r, *line, *len, (size_t)(field - *line), flen,
	    start - *c, len);
	return 0;
}

void
align_apply_end(struct align_run *r, const struct align_table *t)
{
	note_missing(r, t);
}

int
align_applier_start(void *arg, struct tsv_reader *rd)
{
	return align_apply_begin(((struct align_applier *)arg)->run, rd) < 0 ?
	    -1 : 0;
}

int
align_applier_line(void *arg, struct tsv_reader *rd, const char **line,
    size_t *len)
{
	const struct align_applier *a = arg;

	return align_apply_line(a->run, rd, a->table, line, len);
}

int
align_apply(struct align_run *r, struct filter *f, struct tsv_writer *w,
    const struct align_table *t)
{
	int rc;

	const char *line;
	size_t len;

	r->f = f;
	if ((rc = align_apply_begin(r, filter_reader(f))) < 0)
		return -1;
	if (tsv_header(w, (const char *const *)r->names) != 0)
		return -1;
	if (rc == 1)
		return stream(r, w);
	while ((rc = filter_next(f)) == 1)
		if (align_apply_line(r, filter_reader(f), t, &line, &len) != 0 ||
		    put_raw(w, line, len) != 0)
			return -1;
	align_apply_end(r, t);
	return rc;
}

void
align_report(const struct align_run *r, const char *table)
{
	const int64_t *d;
	size_t i, n;
	char list[256] = "";

	if (align_declined(r)) {
		err_warn("not aligned: %s; rows pass through unchanged",
		    align_declined(r));
		return;
	}
	n = align_missing(r, &d);
	for (i = 0; i < n && strlen(list) < sizeof(list) - 48; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		    "%s%" PRId64, i ? " " : "", d[i]);
	if (n > 0)
		err_warn("no correction for device%s %s%s%s%s: %s rows are "
		    "unchanged", n == 1 ? "" : "s", list, i < n ? " ..." : "",
		    table ? " in " : "", table ? table : "",
		    n == 1 ? "its" : "their");
}
