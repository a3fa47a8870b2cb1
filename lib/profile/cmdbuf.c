/* XLA command buffers in the thunk frame (cmdbuf.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "profile/cmdbuf.h"

int
cmdbuf_name_is(const char *name)
{
	static const char pre[] = "command_buffer";
	const char *p;

	if (strncmp(name, pre, sizeof(pre) - 1) != 0)
		return 0;
	p = name + sizeof(pre) - 1;
	if (*p != '_' && *p != '.')
		return 0;
	if (!isdigit((unsigned char)*++p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

/* Kinds that hold other thunks: never an operation of their own. */
static int
is_container(const char *kind)
{
	static const char *const k[] = { "kSequential", "kWhile",
	    "kConditional", "kCommandBuffer", "kDynamicSlice", NULL };
	size_t i;

	for (i = 0; kind && k[i]; i++)
		if (strcmp(kind, k[i]) == 0)
			return 1;
	return 0;
}

void
cmdbuf_members_add(struct cmdbuf_members *m, const char *name,
    const char *kind)
{
	size_t len = strlen(name), i, id, cap = m->n;
	char *s = mem_strdup(name);
	int added;

	/* XLA's kernel names: '.' and '-' become '_'. */
	for (i = 0; i < len; i++)
		if (s[i] == '.' || s[i] == '-')
			s[i] = '_';
	mem_grow(&m->name, &cap, m->n + 1, sizeof(*m->name));
	m->kind = mem_realloc(m->kind, cap, sizeof(*m->kind));
	m->first = mem_realloc(m->first, cap, sizeof(*m->first));
	m->name[m->n] = name;
	m->kind[m->n] = kind;
	id = strtab_intern(&m->norm, s, len, &added);
	if (added)
		m->first[id] = m->n;
	m->n++;
	free(s);
}

void
cmdbuf_members_meta(struct cmdbuf_members *m, const struct thunkmeta *t,
    size_t b, int (*is_outside)(void *, const char *), void *arg)
{
	size_t i;

	m->ordered = 1;
	for (i = b + 1; i < t->n; i++) {
		const struct thunkmeta_entry *e = &t->v[i];

		if (thunkmeta_is_cmdbuf_kind(e->kind))
			break;
		if (e->name[0] == '\0')
			continue;
		if (is_outside(arg, e->name))
			break;
		cmdbuf_members_add(m, e->name, e->kind);
	}
}

void
cmdbuf_members_free(struct cmdbuf_members *m)
{
	free(m->name);
	free(m->kind);
	free(m->first);
	strtab_free(&m->norm);
	memset(m, 0, sizeof(*m));
}

/* The member a kernel NAME is named after (longest), or -1. */
static long
by_name(const struct cmdbuf_members *m, const char *name)
{
	size_t len = strlen(name), id;

	if (len == 0 || m->n == 0)
		return -1;
	if ((id = strtab_find(&m->norm, name, len)) != STRTAB_NONE)
		return (long)m->first[id];
	while (--len > 0)
		if ((name[len] == '_' || name[len] == '.') &&
		    (id = strtab_find(&m->norm, name, len)) != STRTAB_NONE)
			return (long)m->first[id];
	return -1;
}

/*
 * Where the order rule finds placeable members (not matched by name, not
 * containers) in O(1) per run: PC[i] counts them in [0, i), NEXT[i] is
 * the first at or after i (M->n when none).  Runs between matched
 * members need not advance in member order (a kernel of an early member
 * after a late one), so scanning (PA, PB) for each run would cost
 * runs x members.
 */
struct placeable {
	size_t *pc, *next;
};

static void
placeable_init(struct placeable *pl, const struct cmdbuf_members *m,
    const uint8_t *named)
{
	size_t i;

	pl->pc = mem_calloc(m->n + 1, sizeof(*pl->pc));
	pl->next = mem_calloc(m->n + 1, sizeof(*pl->next));
	for (i = 0; i < m->n; i++)
		pl->pc[i + 1] = pl->pc[i] + (!named[i] &&
		    !is_container(m->kind ? m->kind[i] : NULL));
	pl->next[m->n] = m->n;
	for (i = m->n; i-- > 0;)
		pl->next[i] = pl->pc[i + 1] > pl->pc[i] ? i : pl->next[i + 1];
}

/*
 * The run of unmatched operations [LO, HI) lies between members PA and
 * PB (exclusive; -1 and m->n at the ends): give it to the placeable
 * members there, all to one or one each.  O(HI - LO).
 */
static void
by_order(const struct placeable *pl, long pa, long pb, size_t lo,
    size_t hi, long *assign)
{
	size_t np, i, k;

	if (pa >= pb)
		return;
	np = pl->pc[pb] - pl->pc[pa + 1];
	if (np == 0 || (np != 1 && np != hi - lo))
		return;
	i = pl->next[pa + 1];
	for (k = lo; k < hi; k++) {
		assign[k] = (long)i;
		if (np != 1)
			i = pl->next[i + 1];
	}
}

int
cmdbuf_match(const struct cmdbuf_op *ops, size_t n,
    const struct cmdbuf_members *m, long *assign)
{
	/* Which members a name matched: for the order rule only (without
	 * metadata M holds every instruction of the module). */
	uint8_t *named = m->ordered ? mem_calloc(m->n + 1, 1) : NULL;
	struct placeable pl;
	int64_t maxend = INT64_MIN;
	int concurrent = 0;
	size_t i, lo;
	long pa;

	for (i = 0; i < n; i++) {
		if (ops[i].start < maxend)
			concurrent = 1;
		if (ops[i].end > maxend)
			maxend = ops[i].end;
		assign[i] = by_name(m, ops[i].name);
		if (assign[i] >= 0 && named)
			named[assign[i]] = 1;
	}
	if (m->ordered && !concurrent) {
		placeable_init(&pl, m, named);
		for (i = 0, pa = -1; i < n; i = lo) {
			if (assign[i] >= 0) {
				pa = assign[i];
				lo = i + 1;
				continue;
			}
			for (lo = i; lo < n && assign[lo] < 0; lo++)
				;
			by_order(&pl, pa, lo < n ? assign[lo] :
			    (long)m->n, i, lo, assign);
		}
		free(pl.pc);
		free(pl.next);
	}
	free(named);
	return concurrent;
}

/* One inner row being built: a member's operations. */
struct seg {
	long member;
	size_t first;		/* index of its first operation */
	int64_t s, e;		/* span, ns */
};

static int
cmp_seg_member(const void *pa, const void *pb)
{
	const struct seg *a = pa, *b = pb;

	if (a->member != b->member)
		return a->member < b->member ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

static int
cmp_seg_first(const void *pa, const void *pb)
{
	const struct seg *a = pa, *b = pb;

	return (a->first > b->first) - (a->first < b->first);
}

/* The inner rows of ASSIGN, in order of their first operation, into a
 * new array *OUT; returns their number.  O(n log n). */
static size_t
segments(const struct cmdbuf_op *ops, size_t n, const long *assign,
    struct seg **out)
{
	struct seg *v = mem_calloc(n + 1, sizeof(*v));
	size_t k, m = 0, i;

	for (k = 0; k < n; k++)
		if (assign[k] >= 0) {
			v[m].member = assign[k];
			v[m].first = k;
			v[m].s = ops[k].start;
			v[m++].e = ops[k].end;
		}
	if (m > 0)
		qsort(v, m, sizeof(*v), cmp_seg_member);
	for (k = 0, i = 0; k < m; k++) {
		if (i > 0 && v[i - 1].member == v[k].member) {
			if (v[k].s < v[i - 1].s)
				v[i - 1].s = v[k].s;
			if (v[k].e > v[i - 1].e)
				v[i - 1].e = v[k].e;
			continue;
		}
		v[i++] = v[k];
	}
	if (i > 0)
		qsort(v, i, sizeof(*v), cmp_seg_first);
	*out = v;
	return i;
}

size_t
cmdbuf_split(struct frames *f, size_t t, const char *buf,
    const struct cmdbuf_op *ops, size_t n, const long *assign,
    const struct cmdbuf_members *m, struct cmdbuf_stats *st)
{
	struct seg *v;
	int64_t sum = 0;
	size_t k, nv = segments(ops, n, assign, &v);

	st->nbuf++;
	st->nops += n;
	for (k = 0; k < n; k++)
		st->ns += ops[k].end - ops[k].start;
	for (k = 0; k < nv; k++)
		sum += v[k].e - v[k].s;
	if (sum > f->thunks[t].dur) {
		st->nrefused++;
		free(v);
		return 0;
	}
	for (k = 0; k < n; k++)
		if (assign[k] >= 0) {
			st->nmatched++;
			st->ns_matched += ops[k].end - ops[k].start;
		}
	mem_grow(&f->thunks, &f->capthunks, f->nthunks + nv,
	    sizeof(*f->thunks));
	for (k = 0; k < nv; k++) {
		struct frames_thunk *in = &f->thunks[f->nthunks++];

		*in = f->thunks[t];
		in->name = mem_strdup(m->name[v[k].member]);
		in->start = v[k].s;
		in->dur = v[k].e - v[k].s;
		in->orig_dur = 0;
		in->cmdbuf = buf;
		in->cmdbuf_opened = 0;
	}
	f->thunks[t].dur -= sum;
	f->thunks[t].cmdbuf = buf;
	f->thunks[t].cmdbuf_opened = nv > 0;
	free(v);
	return nv;
}
