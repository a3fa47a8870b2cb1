#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/filter.h"
#include "analysis/spmd.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

int
coll_factors(const char *kind, int64_t n, double *alg, double *bus)
{
	double d = (double)n;

	if (n < 1)
		return err_fail("collective size %lld", (long long)n);
	*alg = 1;
	*bus = 1;
	if (strcmp(kind, "all-gather") == 0 ||
	    strcmp(kind, "reduce-scatter") == 0) {
		*alg = d;
		*bus = (d - 1) / d;
	} else if (strcmp(kind, "all-reduce") == 0) {
		*bus = 2 * (d - 1) / d;
	} else if (strcmp(kind, "all-to-all") == 0) {
		*bus = (d - 1) / d;
	} else if (strcmp(kind, "collective-broadcast") != 0 &&
	    strcmp(kind, "collective-permute") != 0 &&
	    strcmp(kind, "device-to-host") != 0 &&
	    strcmp(kind, "host-to-device") != 0) {
		return err_fail("unknown collective '%s'", kind);
	}
	return 0;
}

int
coll_bandwidth(const char *kind, int64_t n, int64_t bytes, int64_t dur_ns,
    int64_t hidden_ns, double *algbw, double *busbw)
{
	double alg, bus;

	if (coll_factors(kind, n, &alg, &bus) != 0)
		return -1;
	if (dur_ns + hidden_ns <= 0)
		return 1;
	/* GB/s == B/ns: no unit factor with times in ns. */
	*algbw = alg * (double)bytes / (double)(dur_ns + hidden_ns);
	*busbw = *algbw * bus;
	return 0;
}

/* ---- summaries ---- */

struct hidden {
	int64_t rows, hidden, total;	/* ns */
};

/* The exposed times of one instance over its devices (waits). */
struct wait {
	int64_t lo, hi;		/* ns */
	int64_t rows;
	int64_t bytes;		/* MessageSize of its first row */
	int64_t csize;		/* CollectiveSize of its first row */
	size_t coll;		/* in colls */
};

struct coll_summary {
	struct strtab groups;		/* "MessageSize\tCollective" */
	struct strtab instances;	/* group id "\t" instance */
	size_t *group_of;		/* per instance */
	double *best;			/* per instance: max busbw */
	size_t capinst;
	struct strtab colls;		/* Collective */
	struct hidden *hid;		/* per collective */
	size_t caphid;
	char *key;
	size_t capkey;
	struct strtab winst;		/* instance (waits) */
	struct wait *waits;		/* per winst */
	size_t capwaits;
};

struct coll_summary *
coll_summary_new(void)
{
	return mem_calloc(1, sizeof(struct coll_summary));
}

void
coll_summary_free(struct coll_summary *s)
{
	if (s == NULL)
		return;
	strtab_free(&s->groups);
	strtab_free(&s->instances);
	strtab_free(&s->colls);
	strtab_free(&s->winst);
	free(s->waits);
	free(s->group_of);
	free(s->best);
	free(s->hid);
	free(s->key);
	free(s);
}

/* The scratch key "A\tB". */
static const char *
key2(struct coll_summary *s, const char *a, const char *b, size_t *len)
{
	size_t na = strlen(a), nb = strlen(b);

	mem_grow(&s->key, &s->capkey, na + nb + 2, 1);
	memcpy(s->key, a, na);
	s->key[na] = '\t';
	memcpy(s->key + na + 1, b, nb + 1);
	*len = na + nb + 1;
	return s->key;
}

static void
add_hidden(struct coll_summary *s, const char *collective, int64_t dur_ns,
    int64_t hidden_ns)
{
	size_t id = strtab_intern(&s->colls, collective, strlen(collective),
	    NULL);
	struct hidden *h;
	size_t cap = s->caphid;

	mem_grow(&s->hid, &s->caphid, id + 1, sizeof(*s->hid));
	if (s->caphid != cap)
		memset(s->hid + cap, 0, (s->caphid - cap) * sizeof(*s->hid));
	h = &s->hid[id];
	h->rows++;
	h->hidden += hidden_ns;
	h->total += dur_ns + hidden_ns;
}

/* The wait entry of INSTANCE[0..LEN), zeroed when new. */
static struct wait *
wait_of(struct coll_summary *s, const char *instance, size_t len)
{
	size_t i = strtab_intern(&s->winst, instance, len, NULL);
	size_t cap = s->capwaits;

	mem_grow(&s->waits, &s->capwaits, i + 1, sizeof(*s->waits));
	if (s->capwaits != cap)
		memset(s->waits + cap, 0, (s->capwaits - cap) *
		    sizeof(*s->waits));
	return &s->waits[i];
}

/* X := X and Y, the rows of one instance (Y's first row after X's). */
static void
merge_wait(struct wait *x, const struct wait *y)
{
	if (y->rows == 0)
		return;
	if (x->rows == 0) {
		*x = *y;
		return;
	}
	if (y->lo < x->lo)
		x->lo = y->lo;
	if (y->hi > x->hi)
		x->hi = y->hi;
	x->rows += y->rows;
}

static void
add_wait(struct coll_summary *s, const char *instance, const char *collective,
    int64_t bytes, int64_t csize, int64_t dur_ns)
{
	struct wait y;

	y.lo = y.hi = dur_ns;
	y.rows = 1;
	y.bytes = bytes;
	y.csize = csize;
	y.coll = strtab_intern(&s->colls, collective, strlen(collective), NULL);
	merge_wait(wait_of(s, instance, strlen(instance)), &y);
}

/* The bandwidth of one more row of INSTANCE (its key in
 * s->instances: group id "\t" instance) in group G. */
static void
add_best(struct coll_summary *s, size_t g, const char *instance,
    double busbw)
{
	char gid[32];
	size_t len, i;
	int added;

	snprintf(gid, sizeof(gid), "%zu", g);
	key2(s, gid, instance, &len);
	i = strtab_intern(&s->instances, s->key, len, &added);
	if (added) {
		size_t cap = s->capinst;

		mem_grow(&s->best, &s->capinst, i + 1, sizeof(*s->best));
		mem_grow(&s->group_of, &cap, i + 1, sizeof(*s->group_of));
		s->group_of[i] = g;
		s->best[i] = busbw;
	} else if (busbw > s->best[i]) {
		s->best[i] = busbw;
	}
}

void
coll_summary_add(struct coll_summary *s, const char *instance,
    const char *collective, int64_t bytes, double busbw, int64_t dur_ns,
    int64_t hidden_ns)
{
	coll_summary_add_n(s, instance, collective, bytes, 0, busbw, dur_ns,
	    hidden_ns);
}

void
coll_summary_add_n(struct coll_summary *s, const char *instance,
    const char *collective, int64_t bytes, int64_t csize, double busbw,
    int64_t dur_ns, int64_t hidden_ns)
{
	char size[32];
	size_t len, g;

	add_hidden(s, collective, dur_ns, hidden_ns);
	add_wait(s, instance, collective, bytes, csize, dur_ns);
	if (isnan(busbw))
		return;
	snprintf(size, sizeof(size), "%lld", (long long)bytes);
	key2(s, size, collective, &len);
	g = strtab_intern(&s->groups, s->key, len, NULL);
	add_best(s, g, instance, busbw);
}

/* INSTANCE ("ProgramId\t...") with the ProgramId of its step's
 * representative (spmd_scan_rep), into *BUF. */
static const char *
rekey(const struct spmd_scan *scan, const char *instance, char **buf,
    size_t *cap)
{
	const char *tab = strchr(instance, '\t');
	size_t plen = tab ? (size_t)(tab - instance) : strlen(instance);
	const char *rep;
	size_t rlen, rest = strlen(instance + plen);

	mem_grow(buf, cap, plen + 1, 1);
	memcpy(*buf, instance, plen);
	(*buf)[plen] = '\0';
	rep = spmd_scan_rep(scan, *buf);
	if (rep == *buf)
		return instance;
	rlen = strlen(rep);
	mem_grow(buf, cap, rlen + rest + 1, 1);
	memcpy(*buf, rep, rlen);
	memcpy(*buf + rlen, instance + plen, rest + 1);
	return *buf;
}

void
coll_summary_join(struct coll_summary *s, const struct spmd_scan *scan)
{
	struct coll_summary *o = coll_summary_new();
	char *buf = NULL;
	size_t cap = 0, i;

	/* The old instances, moved aside, merged into the new ones. */
	o->instances = s->instances;
	o->group_of = s->group_of;
	o->best = s->best;
	o->winst = s->winst;
	o->waits = s->waits;
	memset(&s->instances, 0, sizeof(s->instances));
	memset(&s->winst, 0, sizeof(s->winst));
	s->group_of = NULL;
	s->best = NULL;
	s->waits = NULL;
	s->capinst = s->capwaits = 0;
	for (i = 0; i < o->instances.n; i++) {
		const char *k = strtab_get(&o->instances, i);

		add_best(s, o->group_of[i], rekey(scan, strchr(k, '\t') + 1,
		    &buf, &cap), o->best[i]);
	}
	for (i = 0; i < o->winst.n; i++) {
		const char *k = rekey(scan, strtab_get(&o->winst, i), &buf,
		    &cap);

		merge_wait(wait_of(s, k, strlen(k)), &o->waits[i]);
	}
	free(buf);
	coll_summary_free(o);
}

size_t
coll_summary_incomplete(const struct coll_summary *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->winst.n; i++)
		if (s->waits[i].csize > s->waits[i].rows)
			n++;
	return n;
}

/* The context of the bandwidth table's sort: the groups and their
 * MessageSizes, parsed once. */
struct group_ctx {
	const struct coll_summary *s;
	const int64_t *bytes;
};

/* Groups by MessageSize (numerically), then Collective. */
static int
cmp_group(const void *a, const void *b, const void *ctx)
{
	const struct group_ctx *c = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (c->bytes[i] != c->bytes[j])
		return c->bytes[i] < c->bytes[j] ? -1 : 1;
	return strcmp(strchr(strtab_get(&c->s->groups, i), '\t'),
	    strchr(strtab_get(&c->s->groups, j), '\t'));
}

/* The MessageSize of each group of S (its key's first field, written by
 * coll_summary_add). */
static int64_t *
group_bytes(const struct coll_summary *s)
{
	int64_t *v = mem_calloc(s->groups.n + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < s->groups.n; i++) {
		const char *k = strtab_get(&s->groups, i);

		if (num_i64(k, (size_t)(strchr(k, '\t') - k), &v[i]) != 0)
			v[i] = 0;	/* not reached: keys hold %lld */
	}
	return v;
}

static int
bandwidth_row(struct tsv_writer *w, const char *group, int64_t n, double mean,
    double sq)
{
	const char *tab = strchr(group, '\t');

	tsv_str(w, tab + 1);
	tsv_strn(w, group, (size_t)(tab - group));
	tsv_i64(w, n);
	tsv_f64(w, mean);
	/* pandas' std: ddof = 1, undefined for one instance. */
	if (n > 1)
		tsv_f64(w, sqrt(sq / (double)(n - 1)) / sqrt((double)n));
	else
		tsv_empty(w);
	return tsv_eor(w);
}

int
coll_summary_bandwidth(const struct coll_summary *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "Collective", "MessageSize",
	    "Instances", "BusBandwidthGBPerSec", "BusBandwidthStdErrGBPerSec",
	    NULL };
	size_t ng = s->groups.n, i, *order = mem_calloc(ng + 1, sizeof(*order));
	int64_t *n = mem_calloc(ng + 1, sizeof(*n));
	double *sum = mem_calloc(ng + 1, sizeof(*sum));
	double *sq = mem_calloc(ng + 1, sizeof(*sq));
	struct group_ctx gc;
	int rc = tsv_header(w, cols);

	/* Two passes, mean then squared deviations: no cancellation. */
	for (i = 0; i < s->instances.n; i++) {
		n[s->group_of[i]]++;
		sum[s->group_of[i]] += s->best[i];
	}
	for (i = 0; i < s->instances.n; i++) {
		double d = s->best[i] - sum[s->group_of[i]] /
		    (double)n[s->group_of[i]];

		sq[s->group_of[i]] += d * d;
	}
	for (i = 0; i < ng; i++)
		order[i] = i;
	gc.s = s;
	gc.bytes = group_bytes(s);
	sort_stable(order, ng, sizeof(*order), cmp_group, &gc);
	free((void *)gc.bytes);
	for (i = 0; i < ng && rc == 0; i++) {
		size_t g = order[i];

		rc = bandwidth_row(w, strtab_get(&s->groups, g), n[g],
		    sum[g] / (double)n[g], sq[g]);
	}
	free(order);
	free(n);
	free(sum);
	free(sq);
	return rc;
}

static int
hidden_row(struct tsv_writer *w, const char *name, const struct hidden *h)
{
	tsv_str(w, name);
	tsv_i64(w, h->rows);
	tsv_ms(w, h->hidden);
	tsv_ms(w, h->total);
	if (h->total > 0)
		tsv_f64(w, (double)h->hidden / (double)h->total);
	else
		tsv_empty(w);
	return tsv_eor(w);
}

static int
cmp_coll(const void *a, const void *b, const void *ctx)
{
	const struct coll_summary *s = ctx;

	return strcmp(strtab_get(&s->colls, *(const size_t *)a),
	    strtab_get(&s->colls, *(const size_t *)b));
}

int
coll_summary_hidden(const struct coll_summary *s, struct tsv_writer *w)
{
	static const char *const cols[] = { "Collective", "Rows", "HiddenMs",
	    "TotalMs", "HiddenToTotal", NULL };
	size_t nc = s->colls.n, i, *order = mem_calloc(nc + 1, sizeof(*order));
	struct hidden all = { 0, 0, 0 };
	int rc = tsv_header(w, cols);

	for (i = 0; i < nc; i++)
		order[i] = i;
	sort_stable(order, nc, sizeof(*order), cmp_coll, s);
	for (i = 0; i < nc && rc == 0; i++) {
		const struct hidden *h = &s->hid[order[i]];

		rc = hidden_row(w, strtab_get(&s->colls, order[i]), h);
		all.rows += h->rows;
		all.hidden += h->hidden;
		all.total += h->total;
	}
	if (rc == 0)
		rc = hidden_row(w, "(all)", &all);
	free(order);
	return rc;
}

/* Waits by collective, then wait. */
static int
cmp_wait(const void *a, const void *b, const void *ctx)
{
	const struct coll_summary *s = ctx;
	const struct wait *x = &s->waits[*(const size_t *)a];
	const struct wait *y = &s->waits[*(const size_t *)b];
	int c = x->coll == y->coll ? 0 : strcmp(strtab_get(&s->colls,
	    x->coll), strtab_get(&s->colls, y->coll));

	if (c != 0)
		return c;
	return (x->hi - x->lo > y->hi - y->lo) - (x->hi - x->lo < y->hi -
	    y->lo);
}

int
coll_summary_waits(const struct coll_summary *s, struct tsv_writer *w)
{
	static const char *const cols[] = {
		"Collective", "WaitMs", "MessageSize", "Devices", NULL
	};
	size_t n = 0, i, *order = mem_calloc(s->winst.n + 1, sizeof(*order));
	int rc = tsv_header(w, cols);

	for (i = 0; i < s->winst.n; i++)
		if (s->waits[i].rows > 1)
			order[n++] = i;
	sort_stable(order, n, sizeof(*order), cmp_wait, s);
	for (i = 0; i < n && rc == 0; i++) {
		const struct wait *x = &s->waits[order[i]];

		tsv_str(w, strtab_get(&s->colls, x->coll));
		tsv_ms(w, x->hi - x->lo);
		if (x->bytes < 0)
			tsv_empty(w);	/* unknown: read_row */
		else
			tsv_i64(w, x->bytes);
		tsv_i64(w, x->rows);
		rc = tsv_eor(w);
	}
	free(order);
	return rc;
}

/* ---- the filter ---- */

enum { K_COMM, K_SIZE, K_COLL, K_N, K_DUR, K_HID, K_PROG, K_EXEC, K_NAME,
    K_TEXEC, K_ALG, K_BUS, K_DEV, K_START, K_MAX };

static const char *const colnames[K_MAX] = {
	"Communication", "MessageSize", "Collective", "CollectiveSize",
	"ProjDurMs", "ProjDurHiddenMs", "ProgramId", "ProgramExecution",
	"Name", "ThunkExecution", "AlgorithmBandwidthGBPerSec",
	"BusBandwidthGBPerSec", "Device", "ProjStartMs"
};

/* Column indices; optional ones are -1 when absent.  The join (JOIN)
 * needs Device and ProjStartMs: each device's collectives in order. */
static int
find_columns(struct tsv_reader *r, enum coll_mode mode, int join, long *col)
{
	uint64_t optional = 1u << K_COMM | 1u << K_ALG | 1u << K_BUS;
	size_t k;

	if (mode < COLL_BANDWIDTH)
		for (k = K_PROG; k <= K_TEXEC; k++)
			optional |= (uint64_t)1 << k;
	if (!join)
		optional |= 1u << K_DEV | 1u << K_START;
	return tsv_columns(r, colnames, K_MAX, optional, col);
}

/* The communication facts of the current row; 1 for a compute row. */
struct crow {
	int64_t bytes, n, dur, hidden;
	const char *coll;
	double alg, bus;	/* NaN when there is no bandwidth */
};

static int
read_row(struct tsv_reader *r, const long *col, struct crow *c)
{
	int64_t comm = 1;
	int rc;

	c->alg = c->bus = NAN;
	/* An empty MessageSize or CollectiveSize leaves its value alone:
	 * unknown (0) unless the row has one. */
	c->bytes = c->n = 0;
	if (col[K_COMM] >= 0 &&
	    tsv_get_i64(r, (size_t)col[K_COMM], &comm, 0) != 0)
		return -1;
	if (!comm)
		return 1;
	if ((rc = tsv_get_i64(r, (size_t)col[K_SIZE], &c->bytes, 1)) < 0 ||
	    (rc |= tsv_get_i64(r, (size_t)col[K_N], &c->n, 1)) < 0 ||
	    tsv_get_ms(r, (size_t)col[K_DUR], &c->dur, 0) != 0 ||
	    tsv_get_ms(r, (size_t)col[K_HID], &c->hidden, 0) != 0)
		return -1;
	c->coll = tsv_field(r, (size_t)col[K_COLL]);
	if (rc == 1 && *c->coll == '\0')
		return err_fail("%s:%ld: a collective without MessageSize, "
		    "CollectiveSize or Collective", tsv_name(r), tsv_lineno(r));
	if (rc == 1) {
		/* A collective known by its name only (no HLO dump): no
		 * size, so no bandwidth; its times still count. */
		c->bytes = -1;
		return 0;
	}
	rc = coll_bandwidth(c->coll, c->n, c->bytes, c->dur, c->hidden,
	    &c->alg, &c->bus);
	if (rc < 0)
		return err_prefix("%s:%ld: column Collective", tsv_name(r),
		    tsv_lineno(r));
	return 0;
}

static void
write_header(struct tsv_reader *r, const long *col, struct tsv_writer *w)
{
	size_t i;

	for (i = 0; i < tsv_ncols(r); i++)
		tsv_str(w, tsv_colname(r, i));
	if (col[K_ALG] < 0)
		tsv_str(w, colnames[K_ALG]);
	if (col[K_BUS] < 0)
		tsv_str(w, colnames[K_BUS]);
}

static void
bw(struct tsv_writer *w, double v)
{
	if (isnan(v))
		tsv_empty(w);
	else
		tsv_f64(w, v);
}

/* The row, passed through, with the bandwidth put in or appended. */
static int
write_row(struct tsv_reader *r, const long *col, const struct crow *c,
    struct tsv_writer *w)
{
	size_t i, len;

	if (col[K_ALG] < 0 && col[K_BUS] < 0) {
		/* The usual case: the line as it came, two fields more. */
		const char *line = tsv_rawline(r, &len);

		tsv_raw(w, line, len);
		bw(w, c->alg);
		bw(w, c->bus);
		return tsv_eor(w);
	}
	for (i = 0; i < tsv_ncols(r); i++) {
		if ((long)i == col[K_ALG])
			bw(w, c->alg);
		else if ((long)i == col[K_BUS])
			bw(w, c->bus);
		else {
			const char *f = tsv_rawfield(r, i, &len);

			tsv_raw(w, f, len);
		}
	}
	if (col[K_ALG] < 0)
		bw(w, c->alg);
	if (col[K_BUS] < 0)
		bw(w, c->bus);
	return tsv_eor(w);
}

/* The current row (COLL: a communication row C, else NULL) into the
 * join's scanner. */
static int
scan_row(struct spmd_scan *scan, struct tsv_reader *r, const long *col,
    const struct crow *c)
{
	struct spmd_row sr;

	memset(&sr, 0, sizeof(sr));
	if (tsv_get_i64(r, (size_t)col[K_EXEC], &sr.exec, 0) != 0 ||
	    tsv_get_i64(r, (size_t)col[K_DEV], &sr.dev, 0) != 0 ||
	    tsv_get_i64(r, (size_t)col[K_TEXEC], &sr.texec, 0) != 0)
		return -1;
	sr.coll = c != NULL && c->n > 1;
	if (sr.coll && tsv_get_ms(r, (size_t)col[K_START], &sr.start_ns, 0) != 0)
		return -1;
	sr.prog = tsv_field(r, (size_t)col[K_PROG]);
	sr.name = tsv_field(r, (size_t)col[K_NAME]);
	sr.csize = c != NULL ? c->n : 0;
	spmd_scan_row(scan, &sr);
	return 0;
}

/* The instance key: ProgramId, ProgramExecution, Name, ThunkExecution. */
static void
summarize(struct coll_summary *s, struct tsv_reader *r, const long *col,
    const struct crow *c)
{
	static const int keys[] = { K_PROG, K_EXEC, K_NAME, K_TEXEC };
	char *key = NULL;
	size_t i, n = 0, len;

	for (i = 0; i < 4; i++) {
		const char *f = tsv_rawfield(r, (size_t)col[keys[i]], &len);

		key = mem_realloc(key, n + len + 2, 1);
		memcpy(key + n, f, len);
		n += len;
		key[n++] = '\t';
	}
	key[n - 1] = '\0';
	coll_summary_add_n(s, key, c->coll, c->bytes, c->n, c->bus, c->dur,
	    c->hidden);
	free(key);
}

/* The rows of IN into S (a summary) and SCAN (the join, or NULL), or
 * passed through to W with their bandwidth (S NULL), per MODE. */
static int
run(struct filter *in, struct tsv_writer *w, enum coll_mode mode,
    struct coll_summary *s, struct spmd_scan *scan)
{
	struct tsv_reader *r = filter_reader(in);
	long col[K_MAX];
	struct crow c;
	int64_t sum = 0;	/* of |times| summarised: bounds every sum */
	int rc;

	if (find_columns(r, mode, scan != NULL, col) != 0)
		return -1;
	if (s == NULL) {
		write_header(r, col, w);
		if (tsv_eor(w) != 0)
			return -1;
	}
	while ((rc = filter_next(in)) == 1) {
		r = filter_reader(in);
		if ((rc = read_row(r, col, &c)) < 0)
			break;
		if (scan != NULL && scan_row(scan, r, col, rc == 0 ? &c : NULL)
		    != 0) {
			rc = -1;
			break;
		}
		if (rc == 1 && mode != COLL_ROWS)
			continue;
		if (s != NULL) {
			sum += llabs(c.dur) + llabs(c.hidden);
			if (sum > (int64_t)1 << 61) {
				rc = err_fail("%s:%ld: the times add up to more "
				    "than 2^61 ns", tsv_name(r), tsv_lineno(r));
				break;
			}
			summarize(s, r, col, &c);
		} else if (write_row(r, col, &c, w) != 0) {
			rc = -1;
			break;
		}
	}
	return rc < 0 ? -1 : 0;
}

int
coll_run(struct filter *in, struct tsv_writer *w, enum coll_mode mode)
{
	struct coll_summary *s;
	int rc;

	if (mode < COLL_BANDWIDTH)
		return run(in, w, mode, NULL, NULL);
	if ((rc = coll_summarize(in, NULL, &s, NULL)) == 0)
		rc = mode == COLL_BANDWIDTH ? coll_summary_bandwidth(s, w) :
		    mode == COLL_HIDDEN ? coll_summary_hidden(s, w) :
		    coll_summary_waits(s, w);
	coll_summary_free(s);
	return rc;
}

int
coll_summarize(struct filter *in, struct spmd_scan *scan,
    struct coll_summary **s, struct err_notes *notes)
{
	*s = coll_summary_new();
	if (run(in, NULL, COLL_BANDWIDTH, *s, scan) != 0)
		return -1;
	if (scan != NULL && spmd_scan_end(scan, notes) > 0)
		coll_summary_join(*s, scan);
	return 0;
}

int
coll_load_modules(struct tsv_reader *r, void *scan)
{
	static const char *const names[] = { "ProgramId", "Name" };
	long c[2];
	int rc;

	if (tsv_columns(r, names, 2, 0, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1)
		spmd_scan_module(scan, tsv_field(r, (size_t)c[0]),
		    tsv_field(r, (size_t)c[1]));
	return rc;
}
