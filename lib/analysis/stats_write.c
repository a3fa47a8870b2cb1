/*
 * stats_write.c: the tables of nsysjax-stats (stats_write), from the state
 * that stats.c read (stats_impl.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/stats.h"
#include "analysis/stats_impl.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

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

/* The prog standing for P's step in the stragglers (stats_join). */
static size_t
rep_of(const struct stats *s, int64_t p)
{
	return s->rep != NULL ? s->rep[p] : (size_t)p;
}

/* Stragglers: by module rank, decreasing score, device. */
static int
cmp_straggler(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const int64_t *kx = st->pdkeys.k + 3 * x, *ky = st->pdkeys.k +
	    3 * y;
	int rx = st->progs[rep_of(st, kx[0])].rank;
	int ry = st->progs[rep_of(st, ky[0])].rank;
	double sx = st->pdevs[x].score, sy = st->pdevs[y].score;

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return (kx[1] > ky[1]) - (kx[1] < ky[1]);
}

/* The (module, device) rows that have executions, in the order of CMP:
 * their indices into pdevs (*N of them; the caller frees). */
static uint32_t *
sorted_pdevs(struct stats *s, sort_cmp cmp, size_t *n)
{
	uint32_t *v = mem_calloc(s->pdkeys.n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < s->pdkeys.n; i++)
		if (s->pdevs[i].execs > 0)
			v[(*n)++] = (uint32_t)i;
	sort_stable(v, *n, sizeof(*v), cmp, s);
	return v;
}

/* The leading columns of a (module, device) row I: ProgramId (its
 * step's representative), Name, Device, executions. */
static void
pdev_key(struct stats *s, struct tsv_writer *w, uint32_t i)
{
	size_t p = rep_of(s, s->pdkeys.k[3 * i]);

	tsv_raw(w, strtab_get(&s->progids, p), s->progids.len[p]);
	tsv_raw(w, s->progs[p].name, strlen(s->progs[p].name));
	tsv_i64(w, s->pdkeys.k[3 * i + 1]);
	tsv_i64(w, s->pdevs[i].execs);
}

static int
write_stragglers(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Device",
	    "Executions", "StartBiasMs", "DurBiasMs", "ThunkBiasMs",
	    "OutlierScoreMs", NULL };
	size_t n, i;
	uint32_t *v = sorted_pdevs(s, cmp_straggler, &n);
	int rc = tsv_header(w, cols);

	for (i = 0; i < n && rc == 0; i++) {
		const struct pdev *d = &s->pdevs[v[i]];

		pdev_key(s, w, v[i]);
		tsv_f64(w, d->sb / (double)d->execs);
		tsv_f64(w, d->db / (double)d->execs);
		tsv_f64(w, d->tn ? d->tb / (double)d->tn : 0);
		tsv_f64(w, d->score);
		rc = tsv_eor(w);
	}
	free(v);
	return rc;
}

/* Late: by module rank, decreasing wait caused, then decreasing late
 * time (both per step), then device. */
static int
cmp_late(const void *a, const void *b, const void *ctx)
{
	const struct stats *st = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const int64_t *kx = st->pdkeys.k + 3 * x, *ky = st->pdkeys.k +
	    3 * y;
	const struct pdev *dx = &st->pdevs[x], *dy = &st->pdevs[y];
	int rx = st->progs[rep_of(st, kx[0])].rank;
	int ry = st->progs[rep_of(st, ky[0])].rank;
	double cx = dx->caused / (double)dx->execs;
	double cy = dy->caused / (double)dy->execs;
	double lx = dx->slow / (double)dx->execs;
	double ly = dy->slow / (double)dy->execs;

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return (kx[1] > ky[1]) - (kx[1] < ky[1]);
}

static int
write_late(struct stats *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "Name", "Device",
	    "Steps", "LateMs", "WaitCausedMs", "StartBiasMs", "ThunkBiasMs",
	    "OutlierScoreMs", NULL };
	size_t n, i;
	uint32_t *v = sorted_pdevs(s, cmp_late, &n);
	int rc = tsv_header(w, cols);

	for (i = 0; i < n && rc == 0; i++) {
		const struct pdev *d = &s->pdevs[v[i]];
		double steps = (double)d->execs;

		pdev_key(s, w, v[i]);
		tsv_f64(w, d->slow / steps);
		tsv_f64(w, d->caused / steps);
		tsv_f64(w, d->sb / steps);
		tsv_f64(w, d->tn ? d->tb / (double)d->tn : 0);
		tsv_f64(w, d->score / steps);
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
stats_write(void *arg, int t, struct tsv_writer *w)
{
	struct stats *s = arg;

	switch ((enum stats_table)t) {
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
	case STATS_LATE:
		return write_late(s, w);
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
