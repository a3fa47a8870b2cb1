#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/sort.h"
#include "base/tsv.h"
#include "base/u64map.h"
#include "formats/sqldb.h"
#include "profile/nsysdb.h"
#include "profile/nsysdb_impl.h"

const char *const nsysdb_nvtx_columns[] = {
	"Name", "ProjStartNs", "ProjDurNs", "OrigStartNs", "OrigDurNs",
	"Style", "PID", "TID", "NumGPUOps", "Lvl", "NumChild", "RangeId",
	"ParentId", "RangeStack", NULL
};

/* NVTX event types (nsysdb_impl.h): their names and default values. */
static const char *const type_names[NTYPES] = {
	"NvtxPushPopRange", "NvtxStartEndRange", "NvtxtPushPopRange",
	"NvtxtStartEndRange", "NvtxDomainCreate"
};
static const int64_t type_default[NTYPES] = { 59, 60, 70, 71, 75 };
_Static_assert(NTYPES == sizeof(((struct nsysdb *)0)->types) /
    sizeof(int64_t), "nsysdb.types holds the NVTX event types");

/* One GPU operation while joining: its launch (process, correlation
 * id) and GPU interval. */
struct op {
	int64_t pid, corr, start, end;
};

/* An operation replayed from a graph node (node-level traces), kept
 * apart with what the graph attribution needs: few exports have any. */
struct nodeop {
	int64_t pid, corr, start, end;
	int64_t node;		/* graphNodeId */
	int64_t nameid;		/* kernel name (StringIds id), -1 none */
	uint32_t key;
	uint8_t kind;		/* NSYSDB_KERNEL, ... (op_tables' order) */
};

int
nsysdb_open(struct nsysdb *d, const char *path)
{
	memset(d, 0, sizeof(*d));
	d->path = mem_strdup(path);
	return (d->db = sqldb_open(path)) ? 0 : -1;
}

int
nsysdb_open_mem(struct nsysdb *d, const uint8_t *data, size_t len)
{
	memset(d, 0, sizeof(*d));
	return (d->db = sqldb_open_mem(data, len)) ? 0 : -1;
}

/* Run SQL and call ROW for each row; errors are prefixed with TABLE. */
static int
each_row(struct nsysdb *d, const char *table, const char *sql,
    int (*row)(struct nsysdb *, struct sqldb_stmt *, void *), void *arg)
{
	struct sqldb_stmt *st = sqldb_prepare(d->db, sql);
	int rc;

	if (st == NULL)
		return err_prefix("%s", table);
	while ((rc = sqldb_step(st)) == 1)
		if (row(d, st, arg) != 0) {
			rc = -1;
			break;
		}
	sqldb_finalize(st);
	return rc < 0 ? err_prefix("%s", table) : 0;
}

/* ---- strings ---- */

static int
string_row(struct nsysdb *d, struct sqldb_stmt *st, void *arg)
{
	size_t *cap = arg, len;
	const char *v = sqldb_text(st, 1, &len);

	mem_grow(&d->sid, cap, d->nstr + 1, sizeof(*d->sid));
	d->sval = mem_realloc(d->sval, *cap, sizeof(*d->sval));
	d->sid[d->nstr] = sqldb_i64(st, 0);
	d->sval[d->nstr++] = v ? mem_strndup(v, len) : mem_strdup("");
	return 0;
}

static int
load_strings(struct nsysdb *d)
{
	size_t cap = 0;

	if (!sqldb_has_table(d->db, "StringIds"))
		return 0;
	return each_row(d, "StringIds",
	    "SELECT id, value FROM StringIds ORDER BY id", string_row, &cap);
}

/* An int64_t at A against the int64_t at KEY (sort_lower_bound). */
static int
cmp_i64_key(const void *a, const void *key, const void *ctx)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)key;

	(void)ctx;
	return (x > y) - (x < y);
}

/* Index of string ID, or -1. */
static long
string_find(const struct nsysdb *d, int64_t id)
{
	size_t lo = sort_lower_bound(d->sid, d->nstr, sizeof(*d->sid), &id,
	    cmp_i64_key, NULL);

	return lo < d->nstr && d->sid[lo] == id ? (long)lo : -1;
}

/* ---- event types and columns ---- */

static int
type_row(struct nsysdb *d, struct sqldb_stmt *st, void *arg)
{
	int64_t *t = arg;
	size_t len;
	const char *name = sqldb_text(st, 0, &len);
	int k;

	(void)d;
	for (k = 0; name && k < NTYPES; k++)
		if (strlen(type_names[k]) == len &&
		    memcmp(name, type_names[k], len) == 0)
			t[k] = sqldb_i64(st, 1);
	return 0;
}

/* Event type ids by name; a name the table lacks matches no row (-1). */
static int
resolve_types(struct nsysdb *d, int64_t t[NTYPES])
{
	int k;

	if (!sqldb_has_table(d->db, "ENUM_NSYS_EVENT_TYPE")) {
		memcpy(t, type_default, sizeof(type_default));
		return 0;
	}
	for (k = 0; k < NTYPES; k++)
		t[k] = -1;
	return each_row(d, "ENUM_NSYS_EVENT_TYPE",
	    "SELECT name, id FROM ENUM_NSYS_EVENT_TYPE", type_row, t);
}

/* The SQL expression for column COL of TABLE, or NULL if absent. */
const char *
nsysdb_col(struct nsysdb *d, const char *table, const char *c)
{
	return sqldb_has_column(d->db, table, c) ? c : "NULL";
}

/* ---- domains ---- */

/* A domain's creation (an NVTX_EVENTS row of type NvtxDomainCreate, read
 * in the ranges' scan: columns as range_row's). */
static int
domain_event(struct nsysdb *d, struct sqldb_stmt *st, size_t *cap)
{
	size_t len = 0;
	const char *name = NULL;
	struct nsysdb_domain *m;
	long s;

	if (sqldb_isnull(st, 6))
		return 0;
	if (!sqldb_isnull(st, 7) && (s = string_find(d, sqldb_i64(st, 7))) >=
	    0)
		name = d->sval[s], len = strlen(name);
	else
		name = sqldb_text(st, 8, &len);
	mem_grow(&d->dom, cap, d->ndom + 1, sizeof(*d->dom));
	m = &d->dom[d->ndom++];
	m->pid = PIDOF(sqldb_i64(st, 4));
	m->id = sqldb_i64(st, 6);
	/* SQL orders NULL first. */
	m->start = sqldb_isnull(st, 1) ? INT64_MIN : sqldb_i64(st, 1);
	m->rowid = sqldb_i64(st, 0);
	m->name = name ? mem_strndup(name, len) : mem_strdup("");
	return 0;
}

static int
cmp_dom_key(const void *pa, const void *pb)
{
	const struct nsysdb_domain *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int
cmp_dom(const void *pa, const void *pb)
{
	const struct nsysdb_domain *a = pa, *b = pb;
	int c = cmp_dom_key(pa, pb);

	if (c != 0)
		return c;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->rowid > b->rowid) - (a->rowid < b->rowid);
}

/* Keep the earliest creation of each (process, domain id): by start
 * time, then rowid. */
static void
domains_unique(struct nsysdb *d)
{
	size_t i, n = 0;

	if (d->ndom > 0)
		qsort(d->dom, d->ndom, sizeof(*d->dom), cmp_dom);
	for (i = 0; i < d->ndom; i++) {
		if (n > 0 && d->dom[n - 1].pid == d->dom[i].pid &&
		    d->dom[n - 1].id == d->dom[i].id) {
			free(d->dom[i].name);
			continue;
		}
		d->dom[n++] = d->dom[i];
	}
	d->ndom = n;
}

static long
domain_find(const struct nsysdb *d, int64_t pid, int64_t id)
{
	struct nsysdb_domain k, *f;

	if (d->ndom == 0)
		return -1;
	k.pid = pid, k.id = id;
	/* Unique keys: compare without the creation. */
	f = bsearch(&k, d->dom, d->ndom, sizeof(*d->dom), cmp_dom_key);
	return f ? f - d->dom : -1;
}

/* ---- ranges ---- */

/*
 * The (process, domain id) pairs the ranges name, each once: a range
 * keeps the pair's index until the scan, which also reads the domains'
 * creations, is over (domain_resolve).  Few pairs; a range mostly
 * names the last one.
 */
struct drefs {
	struct dref {
		int64_t pid, id;
	} *v;
	size_t n, cap, last;
	struct u64map byhash;
};

struct rangectx {
	int64_t types[NTYPES];
	int64_t maxts;
	struct drefs dr;
	size_t capdom;
	uint32_t *unterm;	/* ranges with end NULL */
	size_t nunterm, capunterm;
};

static uint64_t
hash2(int64_t a, int64_t b)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ULL ^ (uint64_t)b;

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 29);
}

/* The index of (PID, ID) in R, added if new. */
static int32_t
dref_of(struct drefs *r, int64_t pid, int64_t id)
{
	struct u64map_it it;
	size_t k;

	if (r->n > 0 && r->v[r->last].pid == pid && r->v[r->last].id == id)
		return (int32_t)r->last;
	for (k = u64map_first(&r->byhash, hash2(pid, id), &it);
	    k != U64MAP_NONE; k = u64map_next(&r->byhash, &it))
		if (r->v[k].pid == pid && r->v[k].id == id)
			return (int32_t)(r->last = k);
	mem_grow(&r->v, &r->cap, r->n + 1, sizeof(*r->v));
	r->v[r->n].pid = pid, r->v[r->n].id = id;
	u64map_add(&r->byhash, hash2(pid, id), r->n);
	return (int32_t)(r->last = r->n++);
}

/* The ranges' pair indices replaced by their domains (-1: none). */
static void
domain_resolve(struct nsysdb *d, struct drefs *r)
{
	size_t i;

	/* Ranges keep their reference; names map it (no pass over them). */
	d->ddom = mem_calloc(r->n + 1, sizeof(*d->ddom));
	for (i = 0; i < r->n; i++)
		d->ddom[i] = (int32_t)domain_find(d, r->v[i].pid, r->v[i].id);
	free(r->v);
	u64map_free(&r->byhash);
}

/*
 * The ranges' texts, one entry a range in the arena, each NUL-terminated
 * (a range's text ends at its first NUL, as names are read): the text,
 * or TEXT_REF and the decimal index of a StringIds string, or TEXT_ESC
 * and a text that starts with TEXT_REF or TEXT_ESC.  A range's entry is
 * found from the offset of every NSYSDB_TEXT_STEP-th one (d->rtext),
 * where an offset a range took 8 bytes: 22 MB at 2.79 M ranges.
 */
#define TEXT_REF	'\1'
#define TEXT_ESC	'\2'

/* Append the entry of a text of LEN bytes at TEXT. */
static void
text_add(struct nsysdb *d, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	int esc = len > 0 && (text[0] == TEXT_REF || text[0] == TEXT_ESC);

	if (nul != NULL)
		len = (size_t)(nul - text);
	mem_grow(&d->arena, &d->caparena, d->narena + len + 2, 1);
	if (esc)
		d->arena[d->narena++] = TEXT_ESC;
	memcpy(d->arena + d->narena, text, len);
	d->arena[d->narena + len] = '\0';
	d->narena += len + 1;
}

/* Append the entry of string S (an index into d->sval). */
static void
text_ref(struct nsysdb *d, size_t s)
{
	mem_grow(&d->arena, &d->caparena, d->narena + 24, 1);
	d->narena += (size_t)snprintf(d->arena + d->narena, 24, "%c%zu",
	    TEXT_REF, s) + 1;
}

/* The text of range I, moving cursor C there: from C when I lies a
 * little ahead of it (names are mostly asked for in range order), else
 * from the nearest indexed entry. */
const char *
nsysdb_text_of(const struct nsysdb *d, size_t i, struct nsysdb_cursor *c)
{
	size_t k = i & ~(size_t)(NSYSDB_TEXT_STEP - 1), pos;
	const char *e;

	if (c->i <= i && c->i >= k)	/* {0, 0}: range 0's, the first */
		k = c->i, pos = c->pos;
	else
		pos = d->rtext[i / NSYSDB_TEXT_STEP];
	for (; k < i; k++)
		pos += strlen(d->arena + pos) + 1;
	c->i = i, c->pos = pos;
	e = d->arena + pos;
	if (e[0] == TEXT_REF)
		return d->sval[strtoul(e + 1, NULL, 10)];
	return e[0] == TEXT_ESC ? e + 1 : e;
}

/* Append range I's entry from columns ID (textId) and TEXT of ST. */
void
nsysdb_text_entry(struct nsysdb *d, size_t i, struct sqldb_stmt *st, int id,
    int text)
{
	const char *t;
	size_t len;
	int64_t v;
	long s;

	if (i % NSYSDB_TEXT_STEP == 0)
		d->rtext[i / NSYSDB_TEXT_STEP] = d->narena;
	if (sqldb_get_i64(st, id, &v) && (s = string_find(d, v)) >= 0) {
		text_ref(d, (size_t)s);
		return;
	}
	if ((t = sqldb_bytes(st, text, &len)) == NULL)
		t = "", len = 0;
	text_add(d, t, len);
}

static int
range_row(struct nsysdb *d, struct sqldb_stmt *st, void *arg)
{
	struct rangectx *x = arg;
	int64_t id = sqldb_i64(st, 0), start = sqldb_i64(st, 1), end;
	int64_t type = sqldb_i64(st, 3), gtid = sqldb_i64(st, 4), v;
	size_t i = d->nr, len;

	if (type == x->types[T_DOMAIN])
		return domain_event(d, st, &x->capdom);
	/* Each column fetched once: 2.79 M rows make every call count. */
	if (!sqldb_get_i64(st, 2, &end))
		end = INT64_MIN;
	if (start < -MAX_NS || start > MAX_NS || (end != INT64_MIN &&
	    (end < -MAX_NS || end > MAX_NS)))
		return err_fail("row %lld: a time beyond 2^60 ns",
		    (long long)id);
	if (start > x->maxts)
		x->maxts = start;
	if (end > x->maxts)
		x->maxts = end;
	/* Ranges that end on another thread are not projected. */
	if (sqldb_get_i64(st, 5, &v) && v != gtid)
		return 0;
	if (end != INT64_MIN && end < start)
		return err_fail("row %lld: end before start", (long long)id);
	if (i >= INT32_MAX)
		return err_fail("more than 2^31 NVTX ranges");
	if (i == d->capr) {
		mem_grow(&d->r, &d->capr, i + 1, sizeof(*d->r));
		d->rtext = mem_realloc(d->rtext, d->capr / NSYSDB_TEXT_STEP + 1,
		    sizeof(*d->rtext));
		d->rdomain = mem_realloc(d->rdomain, d->capr,
		    sizeof(*d->rdomain));
		d->rpushpop = mem_realloc(d->rpushpop, d->capr,
		    sizeof(*d->rpushpop));
	}
	d->r[i].start = start;
	d->r[i].end = end;
	if (end == INT64_MIN) {
		mem_grow(&x->unterm, &x->capunterm, x->nunterm + 1,
		    sizeof(*x->unterm));
		x->unterm[x->nunterm++] = (uint32_t)i;
	}
	d->r[i].tid = gtid;
	d->r[i].id = id;
	d->rpushpop[i] = type == x->types[T_PUSHPOP] ||
	    type == x->types[T_TPUSHPOP];
	d->rdomain[i] = !sqldb_get_i64(st, 6, &v) || v == 0 ? -1 :
	    dref_of(&x->dr, PIDOF(gtid), v);
	if (!d->defer_names) {
		nsysdb_text_entry(d, i, st, 7, 8);
	} else {
		/* The entry's room, for nsysdb_names_start's one arena. */
		(void)sqldb_bytes(st, 8, &len);
		d->textroom += len + 2 > 24 ? len + 2 : 24;
	}
	d->nr++;
	return 0;
}

static int
load_ranges(struct nsysdb *d, const int64_t types[NTYPES])
{
	struct rangectx x;
	char sql[512];
	size_t i;
	int rc;

	memset(&x, 0, sizeof(x));
	memcpy(x.types, types, sizeof(x.types));
	x.maxts = INT64_MIN;
	/* One scan for the ranges and the domains' creations, in rowid
	 * order (NOT INDEXED: the names' scan meets them in that order). */
	snprintf(sql, sizeof(sql), "SELECT rowid, start, end, eventType, "
	    "globalTid, %s, %s, %s, %s FROM NVTX_EVENTS NOT INDEXED WHERE "
	    "eventType IN "
	    "(%lld, %lld, %lld, %lld, %lld)",
	    nsysdb_col(d, "NVTX_EVENTS", "endGlobalTid"),
	    nsysdb_col(d, "NVTX_EVENTS", "domainId"), nsysdb_col(d, "NVTX_EVENTS", "textId"),
	    nsysdb_col(d, "NVTX_EVENTS", "text"), (long long)types[T_PUSHPOP],
	    (long long)types[T_STARTEND], (long long)types[T_TPUSHPOP],
	    (long long)types[T_TSTARTEND], (long long)types[T_DOMAIN]);
	rc = each_row(d, "NVTX_EVENTS", sql, range_row, &x);
	domains_unique(d);
	domain_resolve(d, &x.dr);
	if (rc != 0) {
		free(x.unterm);
		return -1;
	}
	/* An unterminated range ends at the last range event (stats); they
	 * were listed as read, so no pass over every range looks for them. */
	for (i = 0; i < x.nunterm; i++)
		d->r[x.unterm[i]].end = x.maxts;
	d->nunterminated = x.nunterm;
	free(x.unterm);
	return 0;
}

/* ---- GPU operations and their launches ---- */

struct opctx {
	struct op *v;
	size_t n, cap;
	struct nodeop *nv;	/* the graph-node ones, also in v */
	size_t nn, capn;
	uint8_t kind;		/* of the table being read */
};

static int
op_row(struct nsysdb *d, struct sqldb_stmt *st, void *arg)
{
	struct opctx *x = arg;
	struct op *o;
	int64_t s = sqldb_i64(st, 0), e = sqldb_i64(st, 1), corr, node;

	if (s < -MAX_NS || s > MAX_NS || e < -MAX_NS || e > MAX_NS)
		return err_fail("a time beyond 2^60 ns");
	d->nops++;
	if (!sqldb_get_i64(st, 2, &corr)) {
		d->nops_unlaunched++;	/* no correlation id */
		return 0;
	}
	mem_grow(&x->v, &x->cap, x->n + 1, sizeof(*x->v));
	o = &x->v[x->n++];
	o->start = s;
	o->end = e < s ? s : e;
	o->corr = corr;
	o->pid = sqldb_i64(st, 3) & ~TIDBITS;
	if (sqldb_get_i64(st, 4, &node)) {
		struct nodeop *v;

		mem_grow(&x->nv, &x->capn, x->nn + 1, sizeof(*x->nv));
		v = &x->nv[x->nn++];
		v->pid = o->pid, v->corr = o->corr;
		v->start = o->start, v->end = o->end;
		v->node = node;
		if (!sqldb_get_i64(st, 5, &v->nameid))
			v->nameid = -1;
		v->kind = x->kind;
	}
	return 0;
}

static const char *const op_tables[] = {
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
	"CUPTI_ACTIVITY_KIND_MEMSET",
	/* Graph-level traces (--cuda-graph-trace=graph): one row per graph
	 * launch; absent in other exports. */
	"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", NULL
};

/* Launches by process, correlation id, start, end. */
static int
cmp_launch(int64_t pa, int64_t ca, int64_t sa, int64_t ea, int64_t pb,
    int64_t cb, int64_t sb, int64_t eb)
{
	if (pa != pb)
		return pa < pb ? -1 : 1;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return (ea > eb) - (ea < eb);
}

static int
cmp_op(uint32_t x, uint32_t y, const void *ctx)
{
	const struct op *a = (const struct op *)ctx + x;
	const struct op *b = (const struct op *)ctx + y;

	return cmp_launch(a->pid, a->corr, a->start, a->end, b->pid, b->corr,
	    b->start, b->end);
}

/*
 * The order of OPS[0..N) by cmp_op: NULL when they are in it already
 * (kernels come in launch order: most exports), else a new array of N
 * indices.  Indices, not the 32-byte records, are sorted (sort_idx: a
 * natural merge sort, a pass per doubling of the runs), so that the
 * scratch is 4 bytes an operation where qsort took another copy of the
 * operations (first-touched pages cost more than the comparisons).
 */
static uint32_t *
ops_order(const struct op *ops, size_t n)
{
	uint32_t *ix;
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp_op((uint32_t)(i - 1), (uint32_t)i, ops) > 0)
			break;
	if (i >= n)
		return NULL;
	ix = mem_alloc(n * sizeof(*ix));
	for (i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	sort_idx(ix, n, cmp_op, ops);
	return ix;
}

/* The same order for graph-node operations (stable: sort_stable). */
static int
cmp_nodeop(const void *pa, const void *pb, const void *ctx)
{
	const struct nodeop *a = pa, *b = pb;

	(void)ctx;
	return cmp_launch(a->pid, a->corr, a->start, a->end, b->pid, b->corr,
	    b->start, b->end);
}

/*
 * The launch keys: the distinct (process, correlation id) pairs of the
 * operations, numbered in sorted order, so that a process's keys are
 * one block of ascending correlation ids.  A lookup searches its
 * process's block from where the last one ended (galloping): the
 * runtime calls come in time order, and CUPTI numbers a process's calls
 * in that order, so a lookup mostly moves a step or two.  16 bytes a
 * key, read in order: no hash table, no random access.
 */
struct keys {
	int64_t *corr;		/* of each key */
	struct kproc {
		int64_t pid;
		size_t lo, hi;	/* its keys */
		size_t cur;	/* where its last lookup ended */
	} *proc;		/* by pid */
	size_t n, nproc, last;
};

/*
 * Number the keys of OPS[0..N) into K, with each key's envelope into
 * D->g and its operations' count into *COUNT.  The operations are taken
 * in the order of the indices IX (by cmp_op), or as they are when IX is
 * NULL (in that order already).
 */
static void
keys_build(struct keys *k, struct nsysdb *d, const struct op *ops,
    const uint32_t *ix, size_t n, uint32_t **count)
{
	size_t i, capk = 0, capp = 0;
	const struct op *o, *prev = NULL;

	memset(k, 0, sizeof(*k));
	*count = NULL;
	for (i = 0; i < n; prev = o, i++) {
		o = &ops[ix ? ix[i] : i];
		if (prev != NULL && o->pid == prev->pid &&
		    o->corr == prev->corr) {
			if (o->end > d->g[k->n - 1].end)
				d->g[k->n - 1].end = o->end;
			(*count)[k->n - 1]++;
			continue;
		}
		if (prev == NULL || o->pid != prev->pid) {
			mem_grow(&k->proc, &capp, k->nproc + 1,
			    sizeof(*k->proc));
			k->proc[k->nproc].pid = o->pid;
			k->proc[k->nproc].lo = k->proc[k->nproc].cur = k->n;
			k->nproc++;
		}
		if (k->n == capk) {
			mem_grow(&k->corr, &capk, k->n + 1, sizeof(*k->corr));
			d->g = mem_realloc(d->g, capk, sizeof(*d->g));
			*count = mem_realloc(*count, capk, sizeof(**count));
		}
		k->corr[k->n] = o->corr;
		d->g[k->n].start = o->start;
		d->g[k->n].end = o->end;
		(*count)[k->n++] = 1;
		k->proc[k->nproc - 1].hi = k->n;
	}
	d->ng = k->n;
	d->capg = capk;
}

/* A process block's pid against the pid (int64_t) at KEY. */
static int
cmp_kproc_pid(const void *a, const void *key, const void *ctx)
{
	int64_t x = ((const struct kproc *)a)->pid, y = *(const int64_t *)key;

	(void)ctx;
	return (x > y) - (x < y);
}

/* The process block of PID, or NULL. */
static struct kproc *
keys_proc(struct keys *k, int64_t pid)
{
	size_t lo;

	if (k->nproc > 0 && k->proc[k->last].pid == pid)
		return &k->proc[k->last];
	lo = sort_lower_bound(k->proc, k->nproc, sizeof(*k->proc), &pid,
	    cmp_kproc_pid, NULL);
	if (lo == k->nproc || k->proc[lo].pid != pid)
		return NULL;
	k->last = lo;
	return &k->proc[lo];
}

/* The key of (PID, CORR), or -1. */
static long
keys_find(struct keys *k, int64_t pid, int64_t corr)
{
	struct kproc *p = keys_proc(k, pid);
	size_t a, b, step = 1;

	if (p == NULL)
		return -1;
	/* Gallop from cur to bracket the answer in [a, b], then bisect. */
	if (p->cur < p->hi && k->corr[p->cur] < corr) {
		a = p->cur + 1;
		while (step < p->hi - p->cur &&
		    k->corr[p->cur + step] < corr) {
			a = p->cur + step + 1;
			step *= 2;
		}
		b = step < p->hi - p->cur ? p->cur + step : p->hi;
	} else {
		b = p->cur;
		while (step <= p->cur - p->lo &&
		    k->corr[p->cur - step] >= corr) {
			b = p->cur - step;
			step *= 2;
		}
		a = step <= p->cur - p->lo ? p->cur - step + 1 : p->lo;
	}
	p->cur = a + sort_lower_bound(k->corr + a, b - a, sizeof(*k->corr),
	    &corr, cmp_i64_key, NULL);
	return p->cur < p->hi && k->corr[p->cur] == corr ? (long)p->cur : -1;
}

static void
keys_free(struct keys *k)
{
	free(k->corr);
	free(k->proc);
}

struct callctx {
	struct keys keys;
	uint8_t *launched;
};

static int
call_row(struct nsysdb *d, struct sqldb_stmt *st, void *arg)
{
	struct callctx *x = arg;
	int64_t gtid = sqldb_i64(st, 0), s = sqldb_i64(st, 1);
	int64_t e = sqldb_i64(st, 2);
	long k = keys_find(&x->keys, gtid & ~TIDBITS, sqldb_i64(st, 3));
	struct nvtxproj_call *c;

	if (k < 0)
		return 0;	/* launched nothing we know */
	if (s < -MAX_NS || s > MAX_NS || e < -MAX_NS || e > MAX_NS)
		return err_fail("a time beyond 2^60 ns");
	if (d->nc >= INT32_MAX)
		return err_fail("more than 2^31 launching calls");
	mem_grow(&d->c, &d->capc, d->nc + 1, sizeof(*d->c));
	c = &d->c[d->nc++];
	c->start = s;
	c->end = e < s ? s : e;
	c->tid = gtid;
	c->key = (uint32_t)k;
	c->group = (uint32_t)k;
	c->capture = 0;
	x->launched[k] = 1;
	return 0;
}

/* ---- graph nodes (node mode) ---- */

struct node {
	int64_t pid, id, orig, tid, start, end;	/* orig -1: original */
};

static int
cmp_node(const void *pa, const void *pb)
{
	const struct node *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

struct nodectx {
	struct node *v;
	size_t n, cap;
};

static int
node_row(struct nsysdb *d, struct sqldb_stmt *st, void *arg)
{
	struct nodectx *x = arg;
	struct node *v;

	(void)d;
	if (sqldb_isnull(st, 0) || sqldb_isnull(st, 3) || sqldb_isnull(st, 4))
		return 0;
	mem_grow(&x->v, &x->cap, x->n + 1, sizeof(*x->v));
	v = &x->v[x->n++];
	v->id = sqldb_i64(st, 0);
	v->orig = sqldb_isnull(st, 1) ? -1 : sqldb_i64(st, 1);
	v->tid = sqldb_i64(st, 2);
	v->pid = v->tid & ~TIDBITS;
	v->start = sqldb_i64(st, 3);
	v->end = sqldb_i64(st, 4);
	if (v->start < -MAX_NS || v->start > MAX_NS || v->end < -MAX_NS ||
	    v->end > MAX_NS)
		return err_fail("a time beyond 2^60 ns");
	if (v->end < v->start)
		v->end = v->start;
	return 0;
}

/* A node against the node at KEY by (pid, id): cmp_node's first keys. */
static int
cmp_node_id(const void *pa, const void *key, const void *ctx)
{
	const struct node *a = pa, *b = key;

	(void)ctx;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static long
node_find(const struct nodectx *x, int64_t pid, int64_t id)
{
	struct node key = { pid, id, 0, 0, 0, 0 };
	size_t lo = sort_lower_bound(x->v, x->n, sizeof(*x->v), &key,
	    cmp_node_id, NULL);

	return lo < x->n && x->v[lo].pid == pid && x->v[lo].id == id ?
	    (long)lo : -1;
}

/* The original node (its creation at capture) of node ID, or -1. */
static long
node_origin(const struct nodectx *x, int64_t pid, int64_t id)
{
	long k = node_find(x, pid, id);
	int steps;

	/* Clones point to their original; the chain is short, and a cycle
	 * in a corrupt file must not hang us. */
	for (steps = 0; k >= 0 && x->v[k].orig >= 0 && steps < 64; steps++)
		k = node_find(x, pid, x->v[k].orig);
	return k >= 0 && x->v[k].orig < 0 ? k : -1;
}

struct capop {
	uint32_t key;
	long node;
	int64_t start, end;
};

static int
cmp_capop(const void *pa, const void *pb)
{
	const struct capop *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* Capture calls for the graph-node operations OPS[0..N) (key set). */
static int
load_graph(struct nsysdb *d, const struct nodeop *ops, size_t n)
{
	struct nodectx x = { NULL, 0, 0 };
	struct capop *cv = NULL;
	size_t i, ncv = 0, capcv = 0;
	char sql[256];

	if (n == 0 || !sqldb_has_table(d->db, "CUDA_GRAPH_NODE_EVENTS"))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT graphNodeId, %s, globalTid, start, "
	    "end FROM CUDA_GRAPH_NODE_EVENTS",
	    nsysdb_col(d, "CUDA_GRAPH_NODE_EVENTS", "originalGraphNodeId"));
	if (each_row(d, "CUDA_GRAPH_NODE_EVENTS", sql, node_row, &x) != 0) {
		free(x.v);
		return -1;
	}
	if (x.n > 0)
		qsort(x.v, x.n, sizeof(*x.v), cmp_node);
	for (i = 0; i < n; i++) {
		long k = node_origin(&x, ops[i].pid, ops[i].node);

		if (k < 0)
			continue;
		mem_grow(&cv, &capcv, ncv + 1, sizeof(*cv));
		cv[ncv].key = ops[i].key, cv[ncv].node = k;
		cv[ncv].start = ops[i].start, cv[ncv++].end = ops[i].end;
	}
	if (ncv > 0)
		qsort(cv, ncv, sizeof(*cv), cmp_capop);
	for (i = 0; i < ncv; i++) {
		struct nvtxproj_call *c;
		struct node *v = &x.v[cv[i].node];

		if (i > 0 && cv[i].key == cv[i - 1].key &&
		    cv[i].node == cv[i - 1].node) {
			struct nvtxproj_group *g = &d->g[d->ng - 1];

			if (cv[i].start < g->start)
				g->start = cv[i].start;
			if (cv[i].end > g->end)
				g->end = cv[i].end;
			continue;
		}
		if (d->ng >= INT32_MAX || d->nc >= INT32_MAX) {
			free(cv);
			free(x.v);
			return err_fail("more than 2^31 launches");
		}
		mem_grow(&d->g, &d->capg, d->ng + 1, sizeof(*d->g));
		d->g[d->ng].start = cv[i].start;
		d->g[d->ng++].end = cv[i].end;
		mem_grow(&d->c, &d->capc, d->nc + 1, sizeof(*d->c));
		c = &d->c[d->nc++];
		c->start = v->start, c->end = v->end, c->tid = v->tid;
		c->key = cv[i].key;
		c->group = (uint32_t)(d->ng - 1);
		c->capture = 1;
	}
	free(cv);
	free(x.v);
	return 0;
}

/* The name column of a kernel table (short name first), else NULL. */
static const char *
kernel_name_col(struct nsysdb *d, const char *table)
{
	if (strcmp(table, "CUPTI_ACTIVITY_KIND_KERNEL") != 0)
		return "NULL";
	if (sqldb_has_column(d->db, table, "shortName"))
		return "shortName";
	return nsysdb_col(d, table, "demangledName");
}

/* Keep the operations replayed from graph nodes (node-level traces) for
 * nsysdb_graph_ops; other exports keep none. */
static void
keep_graph_ops(struct nsysdb *d, const struct nodeop *ops, size_t n)
{
	size_t i, cap = 0;

	for (i = 0; i < n; i++) {
		struct nsysdb_gop *g;

		if (ops[i].kind > NSYSDB_MEMSET)
			continue;
		mem_grow(&d->gop, &cap, d->ngop + 1, sizeof(*d->gop));
		g = &d->gop[d->ngop++];
		g->start = ops[i].start, g->end = ops[i].end;
		g->nameid = ops[i].nameid;
		g->key = ops[i].key;
		g->kind = ops[i].kind;
	}
}

/* Read the operation tables into X. */
static int
read_ops(struct nsysdb *d, struct opctx *x)
{
	const char *const *t;
	char sql[512];
	int rc = 0;

	for (t = op_tables; *t && rc == 0; t++) {
		if (!sqldb_has_table(d->db, *t))
			continue;
		x->kind = (uint8_t)(t - op_tables);
		snprintf(sql, sizeof(sql), "SELECT start, end, %s, %s, %s, %s "
		    "FROM %s", nsysdb_col(d, *t, "correlationId"),
		    nsysdb_col(d, *t, "globalPid"), nsysdb_col(d, *t, "graphNodeId"),
		    kernel_name_col(d, *t), *t);
		rc = each_row(d, *t, sql, op_row, x);
	}
	return rc;
}

/*
 * The operations, grouped by launch key (D->g), and the runtime calls
 * that launched them (D->c); the graph-node operations' capture calls
 * and D->gop.  The operations themselves are dropped once grouped.
 */
static int
load_ops(struct nsysdb *d)
{
	struct opctx x;
	struct callctx cx;
	uint32_t *count, *ix;
	size_t i;
	int rc;

	memset(&x, 0, sizeof(x));
	memset(&cx, 0, sizeof(cx));
	if (read_ops(d, &x) != 0) {
		free(x.v);
		free(x.nv);
		return -1;
	}
	if (x.n >= UINT32_MAX) {
		free(x.v);
		free(x.nv);
		return err_fail("more than 2^32 GPU operations");
	}
	ix = ops_order(x.v, x.n);
	/* One key, and one envelope, per (process, correlation id). */
	keys_build(&cx.keys, d, x.v, ix, x.n, &count);
	free(ix);
	free(x.v);
	if (cx.keys.n >= INT32_MAX) {
		rc = err_fail("more than 2^31 launches");
		goto out;
	}
	sort_stable(x.nv, x.nn, sizeof(*x.nv), cmp_nodeop, NULL);
	for (i = 0; i < x.nn; i++)
		x.nv[i].key = (uint32_t)keys_find(&cx.keys, x.nv[i].pid,
		    x.nv[i].corr);
	cx.launched = mem_calloc(cx.keys.n + 1, 1);
	rc = each_row(d, "CUPTI_ACTIVITY_KIND_RUNTIME", "SELECT globalTid, "
	    "start, end, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE "
	    "correlationId IS NOT NULL", call_row, &cx);
	for (i = 0; rc == 0 && i < cx.keys.n; i++)
		if (!cx.launched[i])
			d->nops_unlaunched += count[i];
	if (rc == 0)
		rc = load_graph(d, x.nv, x.nn);
	if (rc == 0)
		keep_graph_ops(d, x.nv, x.nn);
	/* The projection's order of the calls, while the ranges are read. */
	if (rc == 0)
		d->corder = nvtxproj_order_calls(d->c, d->nc);
out:
	keys_free(&cx.keys);
	free(cx.launched);
	free(count);
	free(x.nv);
	return rc;
}

int
nsysdb_load_nvtx(struct nsysdb *d)
{
	int64_t types[NTYPES];

	if (!sqldb_has_table(d->db, "NVTX_EVENTS"))
		return err_fail("no NVTX_EVENTS table: profile without NVTX "
		    "(record with --trace=cuda,nvtx)");
	if (!sqldb_has_column(d->db, "NVTX_EVENTS", "start") ||
	    !sqldb_has_column(d->db, "NVTX_EVENTS", "end") ||
	    !sqldb_has_column(d->db, "NVTX_EVENTS", "eventType") ||
	    !sqldb_has_column(d->db, "NVTX_EVENTS", "globalTid"))
		return err_fail("NVTX_EVENTS: unknown schema (no start, end, "
		    "eventType or globalTid column)");
	if (load_strings(d) != 0 || resolve_types(d, types) != 0)
		return -1;
	memcpy(d->types, types, sizeof(d->types));
	return load_ranges(d, types);
}

/* The GPU operations and launches, read by a second thread on its own
 * connection while the first reads the NVTX ranges. */
struct opsjob {
	struct nsysdb b;	/* c, g, nops, nops_unlaunched filled */
	int rc;
	char msg[1024];		/* the err message of a failure */
};

static void *
ops_thread(void *arg)
{
	struct opsjob *j = arg;

	j->rc = load_ops(&j->b);
	if (j->rc != 0)
		snprintf(j->msg, sizeof(j->msg), "%s", err_msg());
	return NULL;
}

/*
 * Read ranges and operations, on two cores when D is a file and a
 * thread can be started (the two halves are independent), else one
 * after the other.
 */
static int
load_both(struct nsysdb *d)
{
	struct opsjob *j;
	pthread_t th;
	int rc;

	if (d->path == NULL)
		return nsysdb_load_nvtx(d) != 0 ? -1 : load_ops(d);
	j = mem_calloc(1, sizeof(*j));
	if ((j->b.db = sqldb_open(d->path)) == NULL ||
	    pthread_create(&th, NULL, ops_thread, j) != 0) {
		sqldb_close(j->b.db);
		free(j);
		return nsysdb_load_nvtx(d) != 0 ? -1 : load_ops(d);
	}
	rc = nsysdb_load_nvtx(d);
	/* The ranges are mostly read first: the projection's preparation
	 * takes the wait for the operations. */
	if (rc == 0 && d->prep != NULL)
		nvtxproj_prepare(d->r, d->nr, d->prep);
	pthread_join(th, NULL);
	d->c = j->b.c, d->nc = j->b.nc, d->capc = j->b.capc;
	d->g = j->b.g, d->ng = j->b.ng, d->capg = j->b.capg;
	d->nops = j->b.nops;
	d->nops_unlaunched = j->b.nops_unlaunched;
	d->gop = j->b.gop, d->ngop = j->b.ngop;
	d->corder = j->b.corder;
	sqldb_close(j->b.db);
	if (rc == 0 && j->rc != 0)
		rc = err_fail("%s", j->msg);
	free(j);
	return rc;
}

/* Whether TABLE exists and has a row: 1, 0, or -1 with an err message. */
static int
has_rows(struct nsysdb *d, const char *table)
{
	char sql[96];
	struct sqldb_stmt *st;
	int rc;

	if (!sqldb_has_table(d->db, table))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT 1 FROM %s LIMIT 1", table);
	if ((st = sqldb_prepare(d->db, sql)) == NULL)
		return -1;
	rc = sqldb_step(st);
	sqldb_finalize(st);
	return rc;
}

int
nsysdb_without_nvtx(struct nsysdb *d)
{
	const char *const *t;
	int rc;

	if ((rc = has_rows(d, "NVTX_EVENTS")) != 0)
		return rc < 0 ? -1 : 0;
	for (t = op_tables; *t; t++)
		if ((rc = has_rows(d, *t)) != 0)
			return rc;
	return 0;
}

int
nsysdb_load(struct nsysdb *d)
{
	const char *const *t;
	int has_ops = 0, rc;

	if ((rc = nsysdb_without_nvtx(d)) != 0)
		return rc < 0 ? -1 : err_fail("%s", NSYSDB_NO_NVTX);
	if (!sqldb_has_table(d->db, "NVTX_EVENTS"))
		return nsysdb_load_nvtx(d);	/* its message */
	for (t = op_tables; *t; t++)
		has_ops |= sqldb_has_table(d->db, *t);
	if (!has_ops || !sqldb_has_table(d->db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
		return err_fail("no CUPTI_ACTIVITY_KIND_RUNTIME or GPU activity "
		    "table: profile without CUDA trace (record with "
		    "--trace=cuda,nvtx)");
	return load_both(d);
}

int
nsysdb_is_sqlite(const uint8_t *data, size_t len)
{
	return len >= 16 && memcmp(data, "SQLite format 3", 16) == 0;
}

/* ---- threads ---- */

static int
thread_row(struct nsysdb *d, struct sqldb_stmt *st, void *arg)
{
	size_t *cap = arg;
	int64_t g = sqldb_i64(st, 0);
	long s = sqldb_isnull(st, 1) ? -1 : string_find(d, sqldb_i64(st, 1));

	mem_grow(&d->threads, cap, d->nthreads + 1, sizeof(*d->threads));
	d->threads[d->nthreads].pid = PIDOF(g);
	d->threads[d->nthreads].tid = TIDOF(g);
	d->threads[d->nthreads++].name = s >= 0 ? d->sval[s] : "";
	return 0;
}

int
nsysdb_load_threads(struct nsysdb *d)
{
	size_t cap = 0;

	if (d->nstr == 0 && load_strings(d) != 0)
		return -1;
	if (!sqldb_has_table(d->db, "ThreadNames"))
		return 0;
	/* PID, TID order: globalTid orders by VM, then PID, then TID. */
	return each_row(d, "ThreadNames", "SELECT globalTid, nameId FROM "
	    "ThreadNames ORDER BY (globalTid >> 24) & 16777215, "
	    "globalTid & 16777215, rowid", thread_row, &cap);
}

void
nsysdb_swept(struct nsysdb *d)
{
	free(d->g);
	free(d->corder);
	d->g = NULL, d->ng = d->capg = 0;
	d->corder = NULL;
	if (d->ngop > 0)
		return;
	/* The calls' pages, touched already, are the names' arena to be
	 * (nsysdb_names_start): a page touched first costs more than the
	 * scan's work on it (a fault: some 15 us on a virtual machine). */
	if (d->defer_names) {
		d->spare = d->c;
	} else {
		free(d->c);
	}
	d->c = NULL, d->nc = d->capc = 0;
}

/* ---- graph operations of a range (node-level traces) ---- */


static int
cmp_gcall(const void *pa, const void *pb, const void *ctx)
{
	const struct nsysdb *sort_d = ctx;
	const struct nvtxproj_call *a = &sort_d->c[*(const size_t *)pa];
	const struct nvtxproj_call *b = &sort_d->c[*(const size_t *)pb];

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int
cmp_gop(const void *pa, const void *pb)
{
	const struct nsysdb_gop *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

static int
cmp_rbyid(const void *pa, const void *pb, const void *ctx)
{
	const struct nsysdb *sort_d = ctx;
	int64_t a = sort_d->r[*(const size_t *)pa].id;
	int64_t b = sort_d->r[*(const size_t *)pb].id;

	return (a > b) - (a < b);
}

/* The indexes nsysdb_graph_ops searches, built on its first call. */
static void
graph_index(struct nsysdb *d)
{
	size_t i;

	d->gindexed = 1;
	if (d->ngop == 0)
		return;
	qsort(d->gop, d->ngop, sizeof(*d->gop), cmp_gop);
	d->gcall = mem_calloc(d->nc + 1, sizeof(*d->gcall));
	for (i = 0; i < d->nc; i++)
		if (!d->c[i].capture)
			d->gcall[d->ngcall++] = i;
	d->rbyid = mem_calloc(d->nr + 1, sizeof(*d->rbyid));
	for (i = 0; i < d->nr; i++)
		d->rbyid[i] = i;
	sort_stable(d->gcall, d->ngcall, sizeof(*d->gcall), cmp_gcall, d);
	sort_stable(d->rbyid, d->nr, sizeof(*d->rbyid), cmp_rbyid, d);
}

/* A graph operation's launch key against the key (uint32_t) at KEY. */
static int
cmp_gop_key(const void *a, const void *key, const void *ctx)
{
	uint32_t x = ((const struct nsysdb_gop *)a)->key;
	uint32_t y = *(const uint32_t *)key;

	(void)ctx;
	return (x > y) - (x < y);
}

/* First index of D->gop with key >= KEY. */
static size_t
gop_lower(const struct nsysdb *d, uint32_t key)
{
	return sort_lower_bound(d->gop, d->ngop, sizeof(*d->gop), &key,
	    cmp_gop_key, NULL);
}

/* The RangeId of the range at index A (into CTX's ranges) against the
 * RangeId (int64_t) at KEY. */
static int
cmp_rbyid_key(const void *a, const void *key, const void *ctx)
{
	const struct nsysdb *d = ctx;
	int64_t x = d->r[*(const size_t *)a].id, y = *(const int64_t *)key;

	return (x > y) - (x < y);
}

/* Index of the range with RangeId ID, or -1. */
static long
range_by_id(const struct nsysdb *d, int64_t id)
{
	size_t lo = sort_lower_bound(d->rbyid, d->nr, sizeof(*d->rbyid), &id,
	    cmp_rbyid_key, d);

	return lo < d->nr && d->r[d->rbyid[lo]].id == id ?
	    (long)d->rbyid[lo] : -1;
}

/* The call at index A (into CTX's calls) against the call at KEY by
 * (thread, start): cmp_gcall's order. */
static int
cmp_gcall_key(const void *a, const void *key, const void *ctx)
{
	const struct nsysdb *d = ctx;
	const struct nvtxproj_call *x = &d->c[*(const size_t *)a], *y = key;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* First launch call (in gcall order) on TID starting at or after S. */
static size_t
gcall_lower(const struct nsysdb *d, int64_t tid, int64_t s)
{
	struct nvtxproj_call key;

	memset(&key, 0, sizeof(key));
	key.tid = tid;
	key.start = s;
	return sort_lower_bound(d->gcall, d->ngcall, sizeof(*d->gcall), &key,
	    cmp_gcall_key, d);
}

size_t
nsysdb_graph_ops(struct nsysdb *d, int64_t range_id,
    struct nsysdb_gop **out)
{
	const struct nvtxproj_range *r;
	size_t k, n = 0, cap = 0;
	long i;

	*out = NULL;
	if (!d->gindexed)
		graph_index(d);
	if (d->ngop == 0 || (i = range_by_id(d, range_id)) < 0)
		return 0;
	r = &d->r[i];
	for (k = gcall_lower(d, r->tid, r->start); k < d->ngcall; k++) {
		const struct nvtxproj_call *c = &d->c[d->gcall[k]];
		size_t j;

		if (c->tid != r->tid || c->start > r->end)
			break;
		if (c->end > r->end)
			continue;
		/* A key's calls may repeat (backtrace copies): once. */
		if (k > 0 && d->c[d->gcall[k - 1]].key == c->key &&
		    d->c[d->gcall[k - 1]].tid == c->tid)
			continue;
		for (j = gop_lower(d, c->key); j < d->ngop &&
		    d->gop[j].key == c->key; j++) {
			mem_grow(out, &cap, n + 1, sizeof(**out));
			(*out)[n++] = d->gop[j];
		}
	}
	return n;
}

const char *
nsysdb_string(const struct nsysdb *d, int64_t id)
{
	long s = id < 0 ? -1 : string_find(d, id);

	return s >= 0 ? d->sval[s] : "";
}
