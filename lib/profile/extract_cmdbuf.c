/*
 * The command buffers of the thunk frame (cmdbuf.h) as the extractor
 * meets them: each profile's thunk metadata dumps, the CommandBuffer
 * column, and the inner-operation rows of node-level SQLite exports.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/u64map.h"
#include "formats/archive.h"
#include "formats/hlo.h"
#include "formats/thunkmeta.h"
#include "profile/cmdbuf.h"
#include "profile/extract_impl.h"
#include "profile/nsysdb.h"

/* The thunk metadata of one program of the profile (absent: n == 0). */
struct meta {
	int64_t program_id;
	struct thunkmeta t;
	struct strtab names;	/* entry name -> first entry (first[id]) */
	size_t *first;
};

/* The members of one buffer, built once per profile. */
struct memb {
	int64_t program_id;
	const char *buf;	/* interned */
	struct cmdbuf_members m;
};

struct cbx {
	struct extract *x;
	size_t k;		/* the profile */
	struct meta *meta;
	size_t nmeta, capmeta;
	struct memb *memb;
	size_t nmemb, capmemb;
	struct u64map membs;	/* memb_key(program, buffer) -> memb */
	struct strtab outside;	/* "program_id\tname" of ordinary thunks */
	int64_t pid_cur;	/* program of is_outside's question */
	char *key;
	size_t capkey;
	struct cmdbuf_stats st;
	size_t nreset;		/* rows cut back to their own launch */
};

int
extract_is_cmdbuf_row(const struct frames_thunk *t)
{
	return t->cmdbuf != NULL && strcmp(t->cmdbuf, t->name) == 0;
}

static const char *
key_of(struct cbx *c, int64_t program_id, const char *name)
{
	mem_grow(&c->key, &c->capkey, strlen(name) + 32, 1);
	sprintf(c->key, "%lld\t%s", (long long)program_id, name);
	return c->key;
}

static int
is_outside(void *arg, const char *name)
{
	struct cbx *c = arg;
	const char *k = key_of(c, c->pid_cur, name);

	return strtab_find(&c->outside, k, strlen(k)) != STRTAB_NONE;
}

/* Index E's entries by name (the first of each), for meta_find. */
static void
meta_index(struct meta *e)
{
	size_t i;

	e->first = mem_calloc(e->t.n + 1, sizeof(*e->first));
	for (i = 0; i < e->t.n; i++) {
		int added;
		size_t id = strtab_intern(&e->names, e->t.v[i].name,
		    strlen(e->t.v[i].name), &added);

		if (added)
			e->first[id] = i;
	}
}

/* The first entry of E named NAME, or -1: a hash lookup. */
static long
meta_find(const struct meta *e, const char *name)
{
	size_t id = strtab_find(&e->names, name, strlen(name));

	return id == STRTAB_NONE ? -1 : (long)e->first[id];
}

/*
 * The thunk metadata of module M, read once per program; a dump that
 * does not decode costs its command buffers their order, with a note.
 */
static const struct meta *
meta_of(struct cbx *c, const struct frames_module *m)
{
	const struct input_profile *p = &c->x->in.p[c->k];
	struct meta *e;
	char *member;
	uint8_t *data;
	size_t i, len;

	for (i = 0; i < c->nmeta; i++)
		if (c->meta[i].program_id == m->program_id)
			return c->meta[i].t.n ? &c->meta[i] : NULL;
	mem_grow(&c->meta, &c->capmeta, c->nmeta + 1, sizeof(*c->meta));
	e = &c->meta[c->nmeta++];
	memset(e, 0, sizeof(*e));
	e->program_id = m->program_id;
	if (m->program_id < 0 || p->dumps == NULL ||
	    (member = input_thunk_metadata(p, m->program_id, m->name)) == NULL)
		return NULL;
	data = NULL;
	if (archive_read_plain(p->dumps, member, &data, &len) != 0 ||
	    thunkmeta_read(data, len, &e->t) != 0)
		err_note(&c->x->warnings, "%s: %s: %s: command buffers of "
		    "module %s recognised by name, matched without order",
		    p->path, member, err_msg(), m->name);
	else
		meta_index(e);
	free(data);
	free(member);
	return e->t.n ? e : NULL;
}

/* Whether thunk T is a command buffer (metadata kind, else its name). */
static int
is_cmdbuf(const struct meta *e, const char *name)
{
	long i = e ? meta_find(e, name) : -1;

	if (i >= 0)
		return thunkmeta_is_cmdbuf_kind(e->t.v[i].kind);
	return cmdbuf_name_is(name);
}

/* The key of (PROGRAM_ID, BUF) in c->membs: BUF by its address (one
 * interned copy per name). */
static uint64_t
memb_key(int64_t program_id, const char *buf)
{
	return (uint64_t)program_id * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)buf;
}

/* The members of buffer BUF of module M: the metadata's (in order), else
 * every instruction of its HLO (by name only), else none. */
static const struct cmdbuf_members *
members_of(struct cbx *c, const struct frames_module *m, const char *buf)
{
	const struct meta *t = meta_of(c, m);
	struct u64map_it it;
	struct memb *e;
	size_t i;
	long b = t ? meta_find(t, buf) : -1;

	/* Without the buffer's metadata, one table (every instruction)
	 * serves all the module's buffers. */
	if (b < 0)
		buf = NULL;
	for (i = u64map_first(&c->membs, memb_key(m->program_id, buf), &it);
	    i != U64MAP_NONE; i = u64map_next(&c->membs, &it))
		if (c->memb[i].program_id == m->program_id &&
		    c->memb[i].buf == buf)
			return &c->memb[i].m;
	u64map_add(&c->membs, memb_key(m->program_id, buf), c->nmemb);
	mem_grow(&c->memb, &c->capmemb, c->nmemb + 1, sizeof(*c->memb));
	e = &c->memb[c->nmemb++];
	memset(e, 0, sizeof(*e));
	e->program_id = m->program_id;
	e->buf = buf;
	if (b >= 0) {
		c->pid_cur = m->program_id;
		cmdbuf_members_meta(&e->m, &t->t, (size_t)b, is_outside, c);
	} else if (m->hlo) {
		for (i = 0; i < hlo_count(m->hlo); i++)
			cmdbuf_members_add(&e->m, hlo_inst(m->hlo, i)->name,
			    NULL);
	}
	return &e->m;
}

static int
cmp_op(const void *pa, const void *pb)
{
	const struct cmdbuf_op *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/*
 * The buffer row TH spans its own launch's operations OPS[0..N) (sorted
 * by start).  Node-level capture-time attribution (nvtxproj.h) also
 * gives the range that was open when XLA created the graph's nodes (the
 * buffer's first execution) every later launch's operations; the thunk
 * frame keeps each execution's own.
 */
static void
reset_span(struct cbx *c, struct frames_thunk *th,
    const struct cmdbuf_op *ops, size_t n)
{
	int64_t s = ops[0].start, e = ops[0].end;
	size_t i;

	for (i = 1; i < n; i++)
		if (ops[i].end > e)
			e = ops[i].end;
	if (th->start == s && th->dur == e - s)
		return;
	th->start = s;
	th->dur = e - s;
	c->nreset++;
}

/* Split buffer row T by the graph operations of its launch, if any. */
static void
split(struct cbx *c, struct nsysdb *d, size_t t)
{
	struct frames_thunk *th = &c->x->fr.thunks[t];
	const struct frames_module *m = &c->x->fr.modules[th->module];
	const struct cmdbuf_members *mb;
	struct nsysdb_gop *g;
	struct cmdbuf_op *ops;
	struct cmdbuf_assign *a;
	size_t n, i;

	if ((n = nsysdb_graph_ops(d, th->range_id, &g)) == 0)
		return;
	mb = members_of(c, m, th->cmdbuf);
	ops = mem_calloc(n, sizeof(*ops));
	a = mem_calloc(n, sizeof(*a));
	for (i = 0; i < n; i++) {
		ops[i].start = g[i].start;
		ops[i].end = g[i].end;
		ops[i].name = g[i].kind == NSYSDB_KERNEL ?
		    nsysdb_string(d, g[i].nameid) : "";
	}
	qsort(ops, n, sizeof(*ops), cmp_op);
	reset_span(c, th, ops, n);
	cmdbuf_match(ops, n, mb, a);
	cmdbuf_split(&c->x->fr, t, th->cmdbuf, ops, n, a, mb, &c->st);
	free(a);
	free(ops);
	free(g);
}

static void
note(struct cbx *c)
{
	const struct input_profile *p = &c->x->in.p[c->k];
	const struct cmdbuf_stats *s = &c->st;
	double share;

	if (c->nreset > 0)
		err_note(&c->x->warnings, "%s: %zu command-buffer rows also had "
		    "the operations of other launches (their graph's nodes "
		    "were created in them: capture-time attribution); in the "
		    "thunk frame each keeps its own launch's", p->path,
		    c->nreset);
	if (s->nbuf == 0)
		return;
	share = s->ns > 0 ? 100.0 * (double)(s->ns - s->ns_matched) /
	    (double)s->ns : 0;
	err_note(&c->x->warnings, "%s: command buffers: %zu of %zu graph "
	    "operations (%.1f%% of their GPU time) match no HLO operation; "
	    "that time stays on the command-buffer rows", p->path,
	    s->nops - s->nmatched, s->nops, share);
}

static void
cbx_free(struct cbx *c)
{
	size_t i;

	for (i = 0; i < c->nmeta; i++) {
		thunkmeta_free(&c->meta[i].t);
		strtab_free(&c->meta[i].names);
		free(c->meta[i].first);
	}
	for (i = 0; i < c->nmemb; i++)
		cmdbuf_members_free(&c->memb[i].m);
	free(c->meta);
	free(c->memb);
	u64map_free(&c->membs);
	free(c->key);
	strtab_free(&c->outside);
}

/*
 * Mark the command-buffer rows among thunks T0..N0, and record as
 * outside a buffer every other thunk of a module execution in which a
 * buffer ran as a graph (its row is there).  XLA runs a buffer's first
 * execution as plain thunks, whose ranges nest in the buffer's (so the
 * thunk frame keeps them, not the buffer): those name the buffer's own
 * operations, not thunks outside it.  O(rows).
 */
static void
mark(struct cbx *c, size_t m0, size_t t0, size_t n0)
{
	struct extract *x = c->x;
	uint8_t *graph = mem_calloc(x->fr.nmodules - m0 + 1, 1);
	size_t i;

	for (i = t0; i < n0; i++) {
		struct frames_thunk *t = &x->fr.thunks[i];

		if (is_cmdbuf(meta_of(c, &x->fr.modules[t->module]), t->name)) {
			t->cmdbuf = extract_intern(x, t->name);
			graph[t->module - m0] = 1;
		}
	}
	for (i = t0; i < n0; i++) {
		const struct frames_thunk *t = &x->fr.thunks[i];
		const char *k;

		if (t->cmdbuf || !graph[t->module - m0])
			continue;
		k = key_of(c, x->fr.modules[t->module].program_id, t->name);
		strtab_intern(&c->outside, k, strlen(k), NULL);
	}
	free(graph);
}

/*
 * The operations buffer row T holds, by the thunk metadata (members_of's
 * ordered members), into the cmdbufs side table, once per (ProgramId,
 * buffer) of the extraction: the first profile that has the buffer's
 * metadata gives them.  A buffer without metadata is left out: what it
 * holds is not known.
 */
static void
list_members(struct cbx *c, const struct frames_thunk *t)
{
	struct extract *x = c->x;
	const struct frames_module *m = &x->fr.modules[t->module];
	const struct cmdbuf_members *mb;
	const char *k = key_of(c, m->program_id, t->cmdbuf);
	size_t i;

	if (strtab_find(&x->cbkeys, k, strlen(k)) != STRTAB_NONE)
		return;
	mb = members_of(c, m, t->cmdbuf);
	if (!mb->ordered)
		return;
	k = key_of(c, m->program_id, t->cmdbuf);	/* members_of reuses it */
	strtab_intern(&x->cbkeys, k, strlen(k), NULL);
	mem_grow(&x->cbrows, &x->capcbrows, x->ncbrows + mb->n,
	    sizeof(*x->cbrows));
	for (i = 0; i < mb->n; i++) {
		struct extract_cbrow *r = &x->cbrows[x->ncbrows++];

		r->program = m->program;
		r->buf = t->cmdbuf;
		r->op = extract_intern(x, mb->v[i].name);
		r->kind = extract_intern(x, mb->v[i].kind ? mb->v[i].kind : "");
	}
}

int
extract_cmdbufs(struct extract *x, size_t m0, size_t t0)
{
	struct cbx c;
	size_t i, n0 = x->fr.nthunks;
	struct nsysdb *d;

	if (m0 >= x->fr.nmodules)
		return 0;
	memset(&c, 0, sizeof(c));
	c.x = x;
	c.k = x->fr.modules[m0].profile;
	d = x->in.p[c.k].kind == INPUT_SQLITE ? x->db[c.k] : NULL;
	mark(&c, m0, t0, n0);
	for (i = t0; i < n0; i++)
		if (extract_is_cmdbuf_row(&x->fr.thunks[i]))
			list_members(&c, &x->fr.thunks[i]);
	for (i = t0; d && i < n0; i++)
		if (x->fr.thunks[i].cmdbuf)
			split(&c, d, i);
	note(&c);
	cbx_free(&c);
	return 0;
}
