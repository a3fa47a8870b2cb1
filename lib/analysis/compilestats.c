#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compilestats.h"
#include "base/err.h"
#include "analysis/filter.h"
#include "base/mem.h"
#include "base/outfile.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

/* What a range contributes to the statistics (cstats_attribute). */
enum { A_NONE, A_OWN, A_SHARE };

struct crow {
	size_t profile, name, src;	/* ids in the string tables */
	size_t program_id, program_name;
	long line;
	int64_t range_id, tid, parent_id;
	char *stack;
	int64_t start, dur, child, nonchild;	/* ns */
	unsigned char child_nan, launcher, kind, nan;
	int64_t own_nc, own_c;		/* A_OWN: exact ns */
	double sh_nc, sh_c;		/* A_SHARE: ns */
};

struct mainthread {
	size_t profile;
	int64_t tid;
};

struct stream;

struct cstats {
	struct stream *st;		/* NULL: every row held */
	struct strtab profiles, names, srcs, strs;
	struct crow *rows;
	size_t n, cap;
	size_t *by_id, *by_stack;	/* row indices, sorted */
	struct mainthread *mains;
	size_t nmains;
	int attributed;
};

struct cstats *
cstats_new(void)
{
	return mem_calloc(1, sizeof(struct cstats));
}

static void
free_index(struct cstats *s)
{
	free(s->by_id);
	free(s->by_stack);
	free(s->mains);
	s->by_id = s->by_stack = NULL;
	s->mains = NULL;
	s->nmains = 0;
}

static void stream_free(struct stream *st);

void
cstats_free(struct cstats *s)
{
	size_t i;

	if (s == NULL)
		return;
	stream_free(s->st);
	for (i = 0; i < s->n; i++)
		free(s->rows[i].stack);
	free(s->rows);
	free_index(s);
	strtab_free(&s->profiles);
	strtab_free(&s->names);
	strtab_free(&s->srcs);
	strtab_free(&s->strs);
	free(s);
}

static size_t
intern(struct strtab *t, const char *str)
{
	if (str == NULL)
		str = "";
	return strtab_intern(t, str, strlen(str), NULL);
}

void
cstats_add(struct cstats *s, const struct cstats_range *r)
{
	struct crow *c;

	mem_grow(&s->rows, &s->cap, s->n + 1, sizeof(*s->rows));
	c = &s->rows[s->n++];
	memset(c, 0, sizeof(*c));
	c->profile = intern(&s->profiles, r->profile);
	c->name = intern(&s->names, r->name);
	c->src = intern(&s->srcs, r->src);
	c->program_id = intern(&s->strs, r->program_id);
	c->program_name = intern(&s->strs, r->program_name);
	c->line = r->line;
	c->range_id = r->range_id;
	c->tid = r->tid;
	c->parent_id = r->parent_id;
	c->stack = mem_strdup(r->range_stack ? r->range_stack : "");
	c->start = r->start;
	c->dur = r->dur;
	c->child = r->dur_child;
	c->nonchild = r->dur_nonchild;
	c->child_nan = r->child_nan != 0;
	s->attributed = 0;
}

/* ---- reading the compile frame ---- */

enum { C_PROF, C_ID, C_NAME, C_TID, C_PARENT, C_STACK, C_START, C_DUR,
    C_CHILD, C_NONCHILD, C_PID, C_PNAME, C_MAX };

static const char *const colnames[C_MAX] = {
	"ProfileName", "RangeId", "Name", "TID", "ParentId", "RangeStack",
	"StartMs", "DurMs", "DurChildMs", "DurNonChildMs", "ProgramId",
	"ProgramName"
};

static int
find_columns(struct tsv_reader *r, long *col)
{
	return tsv_columns(r, colnames, C_MAX,
	    1u << C_PROF | 1u << C_PID | 1u << C_PNAME, col);
}

static const char *
opt_field(struct tsv_reader *r, long col)
{
	return col < 0 ? NULL : tsv_field(r, (size_t)col);
}

/* nsys writes RangeStack as the ids down to the range's own: ":a:b:id". */
static int
check_stack(struct tsv_reader *r, const char *stack, int64_t id)
{
	char tail[32];
	size_t n = (size_t)snprintf(tail, sizeof(tail), ":%lld",
	    (long long)id), len = strlen(stack);

	if (len >= n && strcmp(stack + len - n, tail) == 0)
		return 0;
	return err_fail("%s:%ld: column %s: '%s' does not end with '%s', "
	    "its RangeId", tsv_name(r), tsv_lineno(r), colnames[C_STACK],
	    stack, tail);
}

/* The two child times: both numbers, or both empty (NaN). */
static int
read_child(struct tsv_reader *r, const long *col, struct cstats_range *x)
{
	int a = tsv_get_ms(r, (size_t)col[C_CHILD], &x->dur_child, 1);
	int b = tsv_get_ms(r, (size_t)col[C_NONCHILD], &x->dur_nonchild, 1);

	if (a < 0 || b < 0)
		return -1;
	if (a != b)
		return err_fail("%s:%ld: column %s: empty while %s is not",
		    tsv_name(r), tsv_lineno(r), colnames[a ? C_CHILD :
		    C_NONCHILD], colnames[a ? C_NONCHILD : C_CHILD]);
	x->child_nan = a == 1;
	return 0;
}

static int stream_profile(struct cstats *s, const struct cstats_range *x);

static int
read_row(struct cstats *s, struct tsv_reader *r, const long *col)
{
	struct cstats_range x;
	int rc;

	memset(&x, 0, sizeof(x));
	if (tsv_get_i64(r, (size_t)col[C_ID], &x.range_id, 0) != 0 ||
	    tsv_get_i64(r, (size_t)col[C_TID], &x.tid, 0) != 0 ||
	    tsv_get_ms(r, (size_t)col[C_START], &x.start, 0) != 0 ||
	    tsv_get_ms(r, (size_t)col[C_DUR], &x.dur, 0) != 0 ||
	    read_child(r, col, &x) != 0)
		return -1;
	if ((rc = tsv_get_i64(r, (size_t)col[C_PARENT], &x.parent_id, 1)) < 0)
		return -1;
	if (rc == 1)
		x.parent_id = -1;
	x.range_stack = tsv_field(r, (size_t)col[C_STACK]);
	if (check_stack(r, x.range_stack, x.range_id) != 0)
		return -1;
	x.profile = opt_field(r, col[C_PROF]);
	x.name = tsv_field(r, (size_t)col[C_NAME]);
	x.program_id = opt_field(r, col[C_PID]);
	x.program_name = opt_field(r, col[C_PNAME]);
	x.src = tsv_name(r);
	x.line = tsv_lineno(r);
	if (s->st && stream_profile(s, &x) != 0)
		return -1;
	cstats_add(s, &x);
	return 0;
}

int
cstats_read(struct cstats *s, struct filter *in)
{
	long col[C_MAX];
	int rc;

	if (find_columns(filter_reader(in), col) != 0)
		return -1;
	while ((rc = filter_next(in)) == 1)
		if (read_row(s, filter_reader(in), col) != 0)
			return -1;
	return rc;
}

/* ---- names ---- */

static int
has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

size_t
cstats_clean(const char *name, size_t len)
{
	static const char autotuner[] = "XlaAutotunerMeasurement";
	static const char split[] = ":#module=split_module#";
	size_t n = sizeof(split) - 1;

	if (has_prefix(name, len, autotuner))
		return sizeof(autotuner) - 1;
	if (len >= n && memcmp(name + len - n, split, n) == 0)
		return len - n;
	return len;
}

const char *
cstats_group(const char *name, size_t len)
{
	if (has_prefix(name, len, "XlaPass:#"))
		return "XlaPasses";
	if (has_prefix(name, len, "XlaPassPipeline:#"))
		return "XlaPassPipelines";
	return NULL;
}

int
cstats_is_compile(const char *name)
{
	return strncmp(name, "XlaCompile", 10) == 0 &&
	    (name[10] == '\0' || name[10] == ':');
}

/* ---- the attribution ---- */

/* "SRC:LINE: RangeId N: " or "SRC: RangeId N: " before MSG. */
static int
fail_at(const struct cstats *s, const struct crow *r, const char *fmt, ...)
    ERR_PRINTF(3, 4);

static int
fail_at(const struct cstats *s, const struct crow *r, const char *fmt, ...)
{
	const char *src = strtab_get(&s->srcs, r->src);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->line > 0)
		return err_fail("%s:%ld: RangeId %lld: %s", src, r->line,
		    (long long)r->range_id, msg);
	return err_fail("%s: RangeId %lld: %s", src, (long long)r->range_id,
	    msg);
}

static int
cmp_id(const void *a, const void *b, const void *ctx)
{
	const struct cstats *cs = ctx;
	const struct crow *x = &cs->rows[*(const size_t *)a];
	const struct crow *y = &cs->rows[*(const size_t *)b];

	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	if (x->range_id != y->range_id)
		return x->range_id < y->range_id ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int
cmp_stack(const void *a, const void *b, const void *ctx)
{
	const struct cstats *cs = ctx;
	const struct crow *x = &cs->rows[*(const size_t *)a];
	const struct crow *y = &cs->rows[*(const size_t *)b];
	int c;

	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	if ((c = strcmp(x->stack, y->stack)) != 0)
		return c;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int
cmp_main(const void *a, const void *b)
{
	const struct mainthread *x = a, *y = b;

	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static size_t *
sorted_rows(struct cstats *s, sort_cmp cmp)
{
	size_t *v = mem_calloc(s->n + 1, sizeof(*v)), i;

	for (i = 0; i < s->n; i++)
		v[i] = i;
	sort_stable(v, s->n, sizeof(*v), cmp, s);
	return v;
}

/* What find_id and stack_lower look for: a profile and a RangeId or a
 * RangeStack. */
struct rowkey {
	size_t profile;
	int64_t id;
	const char *stack;
};

/* The row at index A (into CTX's rows) against the rowkey at KEY: by
 * profile, then by RangeStack where KEY has one, else by RangeId (the
 * orders of by_stack and by_id). */
static int
cmp_row_key(const void *a, const void *key, const void *ctx)
{
	const struct cstats *s = ctx;
	const struct crow *r = &s->rows[*(const size_t *)a];
	const struct rowkey *k = key;

	if (r->profile != k->profile)
		return r->profile < k->profile ? -1 : 1;
	if (k->stack != NULL)
		return strcmp(r->stack, k->stack);
	return (r->range_id > k->id) - (r->range_id < k->id);
}

/* The row of (PROFILE, ID), or NULL. */
static struct crow *
find_id(const struct cstats *s, size_t profile, int64_t id)
{
	struct rowkey k = { profile, id, NULL };
	size_t lo = sort_lower_bound(s->by_id, s->n, sizeof(*s->by_id), &k,
	    cmp_row_key, s);

	if (lo < s->n && s->rows[s->by_id[lo]].profile == profile &&
	    s->rows[s->by_id[lo]].range_id == id)
		return &s->rows[s->by_id[lo]];
	return NULL;
}

/* The first position in by_stack of PROFILE's stacks >= KEY. */
static size_t
stack_lower(const struct cstats *s, size_t profile, const char *key)
{
	struct rowkey k = { profile, 0, key };

	return sort_lower_bound(s->by_stack, s->n, sizeof(*s->by_stack), &k,
	    cmp_row_key, s);
}

/*
 * The descendants of R (make_child_mask: RangeStack starts with R's and
 * ':'), as positions [*FIRST, return) of by_stack: strings sharing a
 * prefix sort together.
 */
static size_t
descendants(const struct cstats *s, const struct crow *r, size_t *first)
{
	size_t n = strlen(r->stack), i;
	char *key = mem_alloc(n + 2);

	memcpy(key, r->stack, n);
	key[n] = ':';
	key[n + 1] = '\0';
	*first = i = stack_lower(s, r->profile, key);
	while (i < s->n && s->rows[s->by_stack[i]].profile == r->profile &&
	    strncmp(s->rows[s->by_stack[i]].stack, key, n + 1) == 0)
		i++;
	free(key);
	return i;
}

static int
is_main(const struct cstats *s, size_t profile, int64_t tid)
{
	struct mainthread k = { profile, tid };

	return bsearch(&k, s->mains, s->nmains, sizeof(k), cmp_main) != NULL;
}

/* The main threads: the TIDs of XlaCompile ranges, per profile. */
static int
find_mains(struct cstats *s)
{
	unsigned char *seen = mem_calloc(s->profiles.n + 1, 1);
	size_t i, k;

	s->mains = mem_calloc(s->n + 1, sizeof(*s->mains));
	for (i = 0; i < s->n; i++) {
		const struct crow *r = &s->rows[i];

		if (!cstats_is_compile(strtab_get(&s->names, r->name)))
			continue;
		s->mains[s->nmains].profile = r->profile;
		s->mains[s->nmains++].tid = r->tid;
		seen[r->profile] = 1;
	}
	qsort(s->mains, s->nmains, sizeof(*s->mains), cmp_main);
	for (i = k = 0; i < s->nmains; i++)
		if (k == 0 || cmp_main(&s->mains[k - 1], &s->mains[i]) != 0)
			s->mains[k++] = s->mains[i];
	s->nmains = k;
	for (i = 0; i < s->n && seen[s->rows[i].profile]; i++)
		;
	free(seen);
	if (i < s->n)
		return err_fail("%s: profile '%s': no XlaCompile range, so no "
		    "main thread", strtab_get(&s->srcs, s->rows[i].src),
		    strtab_get(&s->profiles, s->rows[i].profile));
	return 0;
}

static int
check_ids(struct cstats *s)
{
	size_t i;

	for (i = 1; i < s->n; i++) {
		const struct crow *a = &s->rows[s->by_id[i - 1]];
		const struct crow *b = &s->rows[s->by_id[i]];

		if (a->profile == b->profile && a->range_id == b->range_id)
			return fail_at(s, b, "appears twice");
	}
	return 0;
}

/* Launchers: main-thread ranges with a direct child on another thread. */
static void
find_launchers(struct cstats *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct crow *r = &s->rows[i];
		struct crow *p;

		if (r->parent_id < 0 ||
		    (p = find_id(s, r->profile, r->parent_id)) == NULL)
			continue;
		if (p->tid != r->tid && is_main(s, p->profile, p->tid))
			p->launcher = 1;
	}
}

struct region {
	int64_t start, end;	/* the workers' span, ns */
	int64_t total;		/* their DurNonChild, ns */
	int64_t mainchild;	/* direct main-thread children's DurMs */
};

/* The parallel region of launcher L over by_stack[a, b). */
static void
measure(const struct cstats *s, const struct crow *l, size_t a, size_t b,
    struct region *g)
{
	size_t i;
	int any = 0;

	memset(g, 0, sizeof(*g));
	for (i = a; i < b; i++) {
		const struct crow *r = &s->rows[s->by_stack[i]];

		if (r->tid == l->tid) {
			if (r->parent_id == l->range_id)
				g->mainchild += r->dur;
			continue;
		}
		if (!any || r->start < g->start)
			g->start = r->start;
		if (!any || r->start + r->dur > g->end)
			g->end = r->start + r->dur;
		any = 1;
		if (!r->child_nan)
			g->total += r->nonchild;
	}
}

/* Share launcher L's region among its workers in by_stack[a, b). */
static int
share(struct cstats *s, struct crow *l, size_t a, size_t b)
{
	struct region g;
	double len;
	size_t i;

	measure(s, l, a, b, &g);
	len = (double)(g.end - g.start);
	for (i = a; i < b; i++) {
		struct crow *r = &s->rows[s->by_stack[i]];

		if (r->tid == l->tid) {
			if (r->start + r->dur < g.start || r->start > g.end)
				continue;
			return fail_at(s, r, "main-thread range inside the "
			    "parallel region of RangeId %lld",
			    (long long)l->range_id);
		}
		r->kind = A_SHARE;
		if (r->child_nan)
			r->nan = 1;
		else if (g.total != 0) {
			r->sh_nc += len * (double)r->nonchild / (double)g.total;
			r->sh_c += len * (double)r->child / (double)g.total;
		}
	}
	l->kind = A_OWN;
	l->nan = 0;
	l->own_c = g.mainchild + (g.end - g.start);
	l->own_nc = l->dur - l->own_c;
	return 0;
}

/* Main-thread ranges outside parallel regions keep their own times. */
static int
own_times(struct cstats *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct crow *r = &s->rows[i];

		if (r->kind != A_NONE || !is_main(s, r->profile, r->tid))
			continue;
		if (r->child_nan)
			return fail_at(s, r, "empty DurChildMs and "
			    "DurNonChildMs, yet no parallel work under it");
		r->kind = A_OWN;
		r->own_nc = r->nonchild;
		r->own_c = r->child;
	}
	return 0;
}

/*
 * The ranges' starts and times, added up in absolute value, are at most
 * 2^60 ns, which bounds every sum made of them: no int64 overflow,
 * whatever the input.
 */
static int
check_sums(const struct cstats *s, int64_t *total)
{
	const int64_t max = (int64_t)1 << 60;
	int64_t sum = *total, t[4];
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		const struct crow *r = &s->rows[i];

		t[0] = r->start, t[1] = r->dur;
		t[2] = r->child_nan ? 0 : r->child;
		t[3] = r->child_nan ? 0 : r->nonchild;
		for (k = 0; k < 4; k++) {
			if (t[k] > max || t[k] < -max ||
			    (sum += llabs(t[k])) > max)
				return err_fail("%s: the ranges' times add up "
				    "to more than 2^60 ns",
				    strtab_get(&s->srcs, r->src));
		}
	}
	*total = sum;
	return 0;
}

/* Attribute the rows held (cstats_attribute's rule).  *TOTAL: the
 * |times| of the ranges attributed before (stream mode), the bound of
 * every sum. */
static int
attribute_rows(struct cstats *s, int64_t *total)
{
	size_t i, a, b;

	free_index(s);
	for (i = 0; i < s->n; i++) {
		struct crow *r = &s->rows[i];

		r->launcher = r->nan = 0;
		r->kind = A_NONE;
		r->sh_nc = r->sh_c = 0;
	}
	if (check_sums(s, total) != 0)
		return -1;
	s->by_id = sorted_rows(s, cmp_id);
	s->by_stack = sorted_rows(s, cmp_stack);
	if (check_ids(s) != 0 || find_mains(s) != 0)
		return -1;
	find_launchers(s);
	for (i = 0; i < s->n; i++) {
		struct crow *l = &s->rows[s->by_id[i]];

		if (!l->launcher)
			continue;
		b = descendants(s, l, &a);
		if (share(s, l, a, b) != 0)
			return -1;
	}
	if (own_times(s) != 0)
		return -1;
	s->attributed = 1;
	return 0;
}

static int stream_flush(struct cstats *s);

int
cstats_attribute(struct cstats *s)
{
	int64_t total = 0;

	if (s->st)
		return stream_flush(s);
	return attribute_rows(s, &total);
}

/* ---- the tables ---- */

/* A sum of attributed times: exact ns, plus the shares as doubles. */
struct acc {
	int64_t nc, c;
	double fnc, fc;
	int inexact, nan;
};

static void
acc_add(struct acc *a, const struct crow *r)
{
	if (r->nan)
		a->nan = 1;
	if (r->kind == A_OWN) {
		a->nc += r->own_nc;
		a->c += r->own_c;
	} else {
		a->fnc += r->sh_nc;
		a->fc += r->sh_c;
		a->inexact = 1;
	}
}

/* DurNonChild in ns; NaN when a NaN went in. */
static double
acc_nc(const struct acc *a)
{
	return a->nan ? NAN : (double)a->nc + a->fnc;
}

/* Rows grouped by display name. */
struct agg {
	struct strtab keys;
	struct acc *acc;
	size_t cap;
	size_t *key_of;		/* per name id: key id + 1, 0: not yet */
	size_t capkey;
	int flags;
};

static void
agg_init(struct agg *g, const struct cstats *s, int flags)
{
	memset(g, 0, sizeof(*g));
	g->capkey = s->names.n + 1;
	g->key_of = mem_calloc(g->capkey, sizeof(*g->key_of));
	g->flags = flags;
}

static void
agg_free(struct agg *g)
{
	strtab_free(&g->keys);
	free(g->acc);
	free(g->key_of);
}

/* The key of name ID: cleaned and grouped as the flags say. */
static size_t
agg_key(struct agg *g, const struct cstats *s, size_t id)
{
	const char *name = strtab_get(&s->names, id), *grp;
	size_t len = s->names.len[id], k, cap;

	if (id >= g->capkey) {	/* names added since (stream mode) */
		cap = g->capkey;
		mem_grow(&g->key_of, &g->capkey, id + 1, sizeof(*g->key_of));
		memset(g->key_of + cap, 0, (g->capkey - cap) *
		    sizeof(*g->key_of));
	}
	if (g->key_of[id] != 0)
		return g->key_of[id] - 1;
	if (g->flags & CSTATS_CLEAN)
		len = cstats_clean(name, len);
	if ((g->flags & CSTATS_GROUP) && (grp = cstats_group(name, len))) {
		name = grp;
		len = strlen(grp);
	}
	k = strtab_intern(&g->keys, name, len, NULL);
	cap = g->cap;
	mem_grow(&g->acc, &g->cap, k + 1, sizeof(*g->acc));
	if (g->cap != cap)
		memset(g->acc + cap, 0, (g->cap - cap) * sizeof(*g->acc));
	g->key_of[id] = k + 1;
	return k;
}

static void
agg_row(struct agg *g, const struct cstats *s, const struct crow *r)
{
	size_t k;

	if (r->kind == A_NONE)
		return;
	k = agg_key(g, s, r->name);	/* may move g->acc */
	acc_add(&g->acc[k], r);
}

/* By DurNonChild, largest first, NaN last; ties by name. */
static int
cmp_key(const void *a, const void *b, const void *ctx)
{
	const struct agg *g = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double vx = acc_nc(&g->acc[x]), vy = acc_nc(&g->acc[y]);

	if (isnan(vx) != isnan(vy))
		return isnan(vx) ? 1 : -1;
	if (vx != vy && !isnan(vx))
		return vx > vy ? -1 : 1;
	return strcmp(strtab_get(&g->keys, x), strtab_get(&g->keys,
	    y));
}

/* The keys of G in table order, and the total of those PREFIX allows
 * (NaN skipped, as pandas' sum); *N keys. */
static size_t *
agg_order(const struct agg *g, const char *prefix, double *total, size_t *n)
{
	size_t *v = mem_calloc(g->keys.n + 1, sizeof(*v)), i, k = 0;
	int64_t exact = 0;
	double frac = 0;

	for (i = 0; i < g->keys.n; i++) {
		if (prefix && !has_prefix(strtab_get(&g->keys, i),
		    g->keys.len[i], prefix))
			continue;
		v[k++] = i;
		if (!g->acc[i].nan) {
			exact += g->acc[i].nc;
			frac += g->acc[i].fnc;
		}
	}
	sort_stable(v, k, sizeof(*v), cmp_key, g);
	*total = (double)exact + frac;
	*n = k;
	return v;
}

/* Milliseconds: exact decimals, or the shortest double for shares. */
static void
put_ms(struct tsv_writer *w, const struct acc *a, int child)
{
	if (a->nan)
		tsv_empty(w);
	else if (a->inexact)
		tsv_f64(w, ((double)(child ? a->c : a->nc) +
		    (child ? a->fc : a->fnc)) / 1e6);
	else
		tsv_ms(w, child ? a->c : a->nc);
}

/* Seconds, exact: NS as a decimal with up to nine places. */
static void
put_s_exact(struct tsv_writer *w, int64_t ns)
{
	char buf[48];
	uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	int n = snprintf(buf, sizeof(buf), "%s%llu.%09llu", ns < 0 ? "-" : "",
	    (unsigned long long)(u / 1000000000u),
	    (unsigned long long)(u % 1000000000u));

	while (buf[n - 1] == '0')
		n--;
	if (buf[n - 1] == '.')
		n--;
	tsv_strn(w, buf, (size_t)n);
}

static void
put_s(struct tsv_writer *w, const struct acc *a)
{
	if (a->nan)
		tsv_empty(w);
	else if (a->inexact)
		tsv_f64(w, ((double)a->nc + a->fnc) / 1e9);
	else
		put_s_exact(w, a->nc);
}

static void
put_ratio(struct tsv_writer *w, double x, double total, double scale)
{
	if (total == 0 || isnan(x))
		tsv_empty(w);
	else
		tsv_f64(w, scale * x / total);
}

/* Whether the notebook's threshold keeps a row: cumsum <= TOP. */
static int
keep(double *cum, double x, double total, double top)
{
	if (!isnan(x) && total != 0)
		*cum += x / total;
	return top >= 1 || (!isnan(x) && total != 0 && *cum <= top);
}

static const char *const *
table_header(enum cstats_table t)
{
	static const char *const stats[] = { "Name", "DurNonChildMs",
	    "DurChildMs", NULL };
	static const char *const summary[] = { "Name", "DurNonChildMs",
	    "DurChildMs", "FracNonChild", NULL };
	static const char *const ranges[] = { "Name", "DurNonChildMs",
	    "DurChildMs", "DurNonChildPercent", NULL };
	static const char *const percent[] = { "Name", "DurNonChildMs",
	    "DurNonChildPercent", NULL };

	switch (t) {
	case CSTATS_SUMMARY:
		return summary;
	case CSTATS_RANGES:
		return ranges;
	case CSTATS_NOPASS:
	case CSTATS_PASSES:
		return percent;
	default:
		return stats;
	}
}

static int
name_row(struct tsv_writer *w, const struct agg *g, size_t k,
    enum cstats_table t, double total)
{
	const struct acc *a = &g->acc[k];

	tsv_strn(w, strtab_get(&g->keys, k), g->keys.len[k]);
	put_ms(w, a, 0);
	if (t == CSTATS_STATS || t == CSTATS_SUMMARY || t == CSTATS_RANGES)
		put_ms(w, a, 1);
	if (t == CSTATS_SUMMARY)
		put_ratio(w, acc_nc(a), total, 1);
	else if (t != CSTATS_STATS)
		put_ratio(w, acc_nc(a), total, 100);
	return tsv_eor(w);
}

/* The name flags of table O->table, and the prefix of the names it
 * keeps (NULL: all). */
static int
table_flags(const struct cstats_opts *o, const char **prefix)
{
	int flags = o->flags;

	*prefix = NULL;
	if (o->table == CSTATS_SUMMARY)
		flags |= CSTATS_CLEAN;
	if (o->table == CSTATS_NOPASS)
		flags |= CSTATS_GROUP;
	if (o->table == CSTATS_PASSES) {
		flags &= ~CSTATS_GROUP;
		*prefix = "XlaPass:#";
	}
	return flags;
}

/* Write the table of the sums in G. */
static int
agg_table(struct agg *g, struct tsv_writer *w, const struct cstats_opts *o,
    const char *prefix)
{
	size_t i, n, *order;
	double total, cum = 0;
	int rc;

	order = agg_order(g, prefix, &total, &n);
	rc = tsv_header(w, table_header(o->table));
	for (i = 0; i < n && rc == 0; i++)
		if (keep(&cum, acc_nc(&g->acc[order[i]]), total, o->top))
			rc = name_row(w, g, order[i], o->table, total);
	free(order);
	return rc;
}

static int
name_table(struct cstats *s, struct tsv_writer *w,
    const struct cstats_opts *o)
{
	const char *prefix;
	int flags = table_flags(o, &prefix), rc;
	struct agg g;
	size_t i;

	agg_init(&g, s, flags);
	for (i = 0; i < s->n; i++)
		agg_row(&g, s, &s->rows[i]);
	rc = agg_table(&g, w, o, prefix);
	agg_free(&g);
	return rc;
}

/* ---- per compilation ---- */

static int
cmp_compile(const void *a, const void *b, const void *ctx)
{
	const struct cstats *cs = ctx;
	const struct crow *x = &cs->rows[*(const size_t *)a];
	const struct crow *y = &cs->rows[*(const size_t *)b];

	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->range_id != y->range_id)
		return x->range_id < y->range_id ? -1 : 1;
	return 0;
}

static void
str_field(struct tsv_writer *w, const struct strtab *t, size_t id)
{
	tsv_strn(w, strtab_get(t, id), t->len[id]);
}

static int
compilation_row(struct tsv_writer *w, const struct cstats *s,
    const struct crow *c, const struct agg *g, size_t k)
{
	const struct acc *a = &g->acc[k];

	str_field(w, &s->profiles, c->profile);
	tsv_i64(w, c->range_id);
	str_field(w, &s->strs, c->program_id);
	str_field(w, &s->strs, c->program_name);
	tsv_ms(w, c->start);
	put_s_exact(w, c->dur);
	tsv_strn(w, strtab_get(&g->keys, k), g->keys.len[k]);
	put_s(w, a);
	put_ratio(w, acc_nc(a), (double)c->dur, 1);
	return tsv_eor(w);
}

/* The breakdown of compilation C: itself and its descendants. */
static int
one_compilation(struct cstats *s, struct tsv_writer *w, const struct crow *c,
    const struct cstats_opts *o)
{
	size_t a, b, i, n, *order;
	double total, cum = 0;
	struct agg g;
	int rc = 0;

	agg_init(&g, s, o->flags);
	agg_row(&g, s, c);
	b = descendants(s, c, &a);
	for (i = a; i < b; i++)
		agg_row(&g, s, &s->rows[s->by_stack[i]]);
	order = agg_order(&g, NULL, &total, &n);
	for (i = 0; i < n && rc == 0; i++)
		if (keep(&cum, acc_nc(&g.acc[order[i]]), total, o->top))
			rc = compilation_row(w, s, c, &g, order[i]);
	free(order);
	agg_free(&g);
	return rc;
}

static const char *const compilation_cols[] = { "ProfileName", "RangeId",
    "ProgramId", "ProgramName", "CompileStartMs", "CompileDurS", "Name",
    "DurNonChildS", "Share", NULL };

/* The rows of the compilations table for the rows held. */
static int
compilation_rows(struct cstats *s, struct tsv_writer *w,
    const struct cstats_opts *o)
{
	size_t *v = mem_calloc(s->n + 1, sizeof(*v)), i, n = 0;
	int rc = 0;

	for (i = 0; i < s->n; i++)
		if (cstats_is_compile(strtab_get(&s->names, s->rows[i].name)))
			v[n++] = i;
	sort_stable(v, n, sizeof(*v), cmp_compile, s);
	for (i = 0; i < n && rc == 0; i++)
		rc = one_compilation(s, w, &s->rows[v[i]], o);
	free(v);
	return rc;
}

static int
compilations(struct cstats *s, struct tsv_writer *w,
    const struct cstats_opts *o)
{
	if (tsv_header(w, compilation_cols) != 0)
		return -1;
	return compilation_rows(s, w, o);
}

/* ---- bounded memory: one profile at a time ---- */

struct stream {
	/* The name tables: each its options and its sums so far (one
	 * attribution feeds them all); the compilations table alone. */
	struct cstats_opts o[CSTATS_MAX_TABLES];
	const char *prefix[CSTATS_MAX_TABLES];
	struct agg agg[CSTATS_MAX_TABLES];
	size_t nt;
	FILE *spool;			/* compilations: the rows so far */
	int64_t total;			/* |times| attributed so far */
	struct tsv_writer *sw;
	unsigned char *done;		/* per profile id: folded */
	size_t capdone;
};

static void
stream_free(struct stream *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nt; i++)
		agg_free(&st->agg[i]);
	if (st->sw)
		(void)tsv_wclose(st->sw);
	if (st->spool)
		fclose(st->spool);
	free(st->done);
	free(st);
}

int
cstats_stream(struct cstats *s, const struct cstats_opts *o)
{
	return cstats_stream_tables(s, o, 1);
}

int
cstats_stream_tables(struct cstats *s, const struct cstats_opts *o, size_t n)
{
	struct stream *st;
	size_t i;

	if (s->n > 0 || s->st != NULL)
		return err_fail("cstats_stream: before any range");
	if (n == 0 || n > CSTATS_MAX_TABLES)
		return err_fail("cstats_stream: %zu tables", n);
	for (i = 0; i < n; i++)
		if (o[i].table == CSTATS_COMPILATIONS && n > 1)
			return err_fail("cstats_stream: the compilations "
			    "table with others");
	st = mem_calloc(1, sizeof(*st));
	st->nt = n;
	for (i = 0; i < n; i++) {
		st->o[i] = o[i];
		agg_init(&st->agg[i], s, table_flags(&o[i], &st->prefix[i]));
	}
	if (o->table == CSTATS_COMPILATIONS) {
		if ((st->spool = outfile_anon("nsysjax-compilestats")) == NULL) {
			stream_free(st);
			return -1;
		}
		st->sw = tsv_wopen(st->spool, "temporary file");
		if (tsv_header(st->sw, compilation_cols) != 0) {
			stream_free(st);
			return -1;
		}
	}
	s->st = st;
	return 0;
}

static int
is_done(const struct stream *st, size_t profile)
{
	return profile < st->capdone && st->done[profile];
}

/* Before adding range X: fold the profile held when X starts another;
 * a profile folded already is an error. */
static int
stream_profile(struct cstats *s, const struct cstats_range *x)
{
	size_t p = intern(&s->profiles, x->profile);

	if (is_done(s->st, p))
		return err_fail("%s:%ld: ProfileName '%s' again after other "
		    "profiles: the compile frame must hold each profile's "
		    "ranges together, as nsysjax-extract writes it", x->src,
		    x->line, x->profile ? x->profile : "");
	if (s->n > 0 && s->rows[0].profile != p)
		return stream_flush(s);
	return 0;
}

/* Attribute the rows held, fold them into the table's sums (or write
 * their compilation rows to the spool) and release them. */
static int
stream_flush(struct cstats *s)
{
	struct stream *st = s->st;
	size_t i, cap;
	size_t t;
	int rc = 0;

	for (i = 0; i < s->n && rc == 0; i++)
		if (is_done(st, s->rows[i].profile))
			rc = err_fail("%s: profile '%s' again after other "
			    "profiles", strtab_get(&s->srcs, s->rows[i].src),
			    strtab_get(&s->profiles, s->rows[i].profile));
	if (rc == 0 && s->n > 0)
		rc = attribute_rows(s, &st->total);
	if (rc == 0 && st->sw)
		rc = compilation_rows(s, st->sw, &st->o[0]);
	else if (rc == 0)
		for (t = 0; t < st->nt; t++)
			for (i = 0; i < s->n; i++)
				agg_row(&st->agg[t], s, &s->rows[i]);
	for (i = 0; i < s->n; i++) {
		cap = st->capdone;
		mem_grow(&st->done, &st->capdone, s->rows[i].profile + 1, 1);
		memset(st->done + cap, 0, st->capdone - cap);
		st->done[s->rows[i].profile] = 1;
		free(s->rows[i].stack);
	}
	s->n = 0;
	free_index(s);
	s->attributed = rc == 0;
	return rc;
}

/* Copy the spooled compilation rows to W. */
static int
stream_copy(struct stream *st, struct tsv_writer *w)
{
	struct tsv_reader *r;
	const char *line;
	size_t len;
	int rc;

	rc = tsv_wclose(st->sw);
	st->sw = NULL;
	if (rc != 0 || fflush(st->spool) != 0 || fseek(st->spool, 0, SEEK_SET)
	    != 0)
		return err_fail("temporary file: write error");
	if ((r = tsv_ropen(st->spool, "temporary file")) == NULL)
		return -1;
	rc = tsv_header(w, compilation_cols);
	while (rc == 0 && (rc = tsv_next(r)) == 1) {
		line = tsv_rawline(r, &len);
		tsv_raw(w, line, len);
		rc = tsv_eor(w);
	}
	tsv_rclose(r);
	return rc;
}

static int
stream_write(struct cstats *s, struct tsv_writer *w,
    const struct cstats_opts *o)
{
	struct stream *st = s->st;
	size_t i;

	for (i = 0; i < st->nt; i++)
		if (o->table == st->o[i].table && o->flags == st->o[i].flags)
			break;
	if (i == st->nt)
		return err_fail("cstats_write: not a table of cstats_stream");
	if (st->sw)
		return stream_copy(st, w);
	if (st->spool)
		return err_fail("cstats_write: the compilations once only");
	return agg_table(&st->agg[i], w, o, st->prefix[i]);
}

int
cstats_write(struct cstats *s, struct tsv_writer *w,
    const struct cstats_opts *o)
{
	if (!s->attributed)
		return err_fail("cstats_write: cstats_attribute first");
	if (s->st)
		return stream_write(s, w, o);
	if (o->table == CSTATS_COMPILATIONS)
		return compilations(s, w, o);
	return name_table(s, w, o);
}
