/* XLA command buffers in the thunk frame (cmdbuf.h). */
#include <ctype.h>
#include <stdint.h>
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
	size_t len = strlen(name), i, id;
	char *s = mem_strdup(name);
	int added;

	/* XLA's kernel names: '.' and '-' become '_'. */
	for (i = 0; i < len; i++)
		if (s[i] == '.' || s[i] == '-')
			s[i] = '_';
	mem_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v));
	m->v[m->n].name = name;
	m->v[m->n].kind = kind;
	id = strtab_intern(&m->norm, s, len, &added);
	if (added)
		m->v[id].first = m->n;	/* id <= n: a slot in use or this */
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
	free(m->v);
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
		return (long)m->v[id].first;
	while (--len > 0)
		if ((name[len] == '_' || name[len] == '.') &&
		    (id = strtab_find(&m->norm, name, len)) != STRTAB_NONE)
			return (long)m->v[id].first;
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
	size_t n;		/* members */
};

static void
placeable_init(struct placeable *pl, const struct cmdbuf_members *m,
    const uint8_t *named)
{
	size_t i;

	pl->n = m->n;
	pl->pc = mem_calloc(m->n + 1, sizeof(*pl->pc));
	pl->next = mem_calloc(m->n + 1, sizeof(*pl->next));
	for (i = 0; i < m->n; i++)
		pl->pc[i + 1] = pl->pc[i] + (!named[i] &&
		    !is_container(m->v[i].kind));
	pl->next[m->n] = m->n;
	for (i = m->n; i-- > 0;)
		pl->next[i] = pl->pc[i + 1] > pl->pc[i] ? i : pl->next[i + 1];
}

/* The first placeable member at or after I, wrapping around the end. */
static size_t
next_wrap(const struct placeable *pl, size_t i)
{
	i = pl->next[i < pl->n ? i : pl->n];
	return i < pl->n ? i : pl->next[0];
}

/*
 * The run of unmatched operations [LO, HI) lies between members PA and
 * PB (exclusive; -1 and m->n at the ends): give it to the placeable
 * members there, all to one or one each.  When PB does not come after
 * PA (a loop's body again, as its repeats run), the members between
 * them wrap around the buffer's end.  O(HI - LO).
 */
static void
by_order(const struct placeable *pl, long pa, long pb, size_t lo,
    size_t hi, struct cmdbuf_assign *a)
{
	size_t np, i, k;

	if (pa < pb)
		np = pl->pc[pb] - pl->pc[pa + 1];
	else
		np = pl->pc[pl->n] - pl->pc[pa + 1] + pl->pc[pb];
	if (np == 0 || (np != 1 && np != hi - lo))
		return;
	i = next_wrap(pl, (size_t)(pa + 1));
	for (k = lo; k < hi; k++) {
		a[k].member = (long)i;
		if (np != 1)
			i = next_wrap(pl, i + 1);
	}
}

int
cmdbuf_match(const struct cmdbuf_op *ops, size_t n,
    const struct cmdbuf_members *m, struct cmdbuf_assign *a)
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
		a[i].member = by_name(m, ops[i].name);
		a[i].by_name = a[i].member >= 0;
		if (a[i].member >= 0 && named)
			named[a[i].member] = 1;
	}
	if (m->ordered && !concurrent) {
		placeable_init(&pl, m, named);
		for (i = 0, pa = -1; i < n; i = lo) {
			if (a[i].member >= 0) {
				pa = a[i].member;
				lo = i + 1;
				continue;
			}
			for (lo = i; lo < n && a[lo].member < 0; lo++)
				;
			by_order(&pl, pa, lo < n ? a[lo].member :
			    (long)m->n, i, lo, a);
		}
		free(pl.pc);
		free(pl.next);
	}
	free(named);
	return concurrent;
}

/* One inner row being built: an execution of a member. */
struct seg {
	long member;
	int64_t s, e;		/* span, ns */
	int64_t busy;		/* the union of its operations' time, ns */
};

/*
 * Whether each member of M runs at most once per launch: M is in the
 * buffer's order (thunk metadata, one entry per thunk) and holds no
 * loop or conditional, whose body would run its entries again.
 */
static int
once_each(const struct cmdbuf_members *m)
{
	size_t i;

	if (!m->ordered)
		return 0;
	for (i = 0; i < m->n; i++)
		if (m->v[i].kind && (strcmp(m->v[i].kind, "kWhile") == 0 ||
		    strcmp(m->v[i].kind, "kConditional") == 0))
			return 0;
	return 1;
}

/* Operation OP joins execution V: its span and busy time grow. */
static void
seg_join(struct seg *v, const struct cmdbuf_op *op)
{
	if (op->start >= v->e)
		v->busy += op->end - op->start;
	else if (op->end > v->e)
		v->busy += op->end - v->e;
	if (op->end > v->e)
		v->e = op->end;
}

/*
 * The executions of A, in order of their first operation, into a new
 * array *OUT; returns their number.  When every member of M runs once
 * per launch (once_each: one metadata entry, one execution) all the
 * operations of a member are its parts, one execution: a cuBLAS call's
 * GEMM and workspace kernels, whether order or name placed them.
 * Otherwise an operation matched by name starts an execution (a loop's
 * body runs a kernel again) and one placed by order joins its
 * predecessor's when that went to the same member (one run), else
 * starts one.  O(n).
 */
static size_t
executions(const struct cmdbuf_op *ops, size_t n,
    const struct cmdbuf_assign *a, const struct cmdbuf_members *mm,
    struct seg **out)
{
	struct seg *v = mem_calloc(n + 1, sizeof(*v));
	size_t *at = NULL, k, m = 0;

	if (once_each(mm)) {
		at = mem_calloc(mm->n + 1, sizeof(*at));
		for (k = 0; k < mm->n; k++)
			at[k] = SIZE_MAX;
	}
	for (k = 0; k < n; k++) {
		if (a[k].member < 0)
			continue;
		if (at && at[a[k].member] != SIZE_MAX) {
			seg_join(&v[at[a[k].member]], &ops[k]);
			continue;
		}
		if (!at && m > 0 && !a[k].by_name &&
		    a[k - 1].member == a[k].member) {
			seg_join(&v[m - 1], &ops[k]);
			continue;
		}
		if (at)
			at[a[k].member] = m;
		v[m].member = a[k].member;
		v[m].s = ops[k].start;
		v[m].e = ops[k].end;
		v[m++].busy = ops[k].end - ops[k].start;
	}
	free(at);
	*out = v;
	return m;
}

/* The measure of the union of the unmatched operations' intervals (OPS
 * sorted by start), ns. */
static int64_t
unmatched_busy(const struct cmdbuf_op *ops, size_t n,
    const struct cmdbuf_assign *a)
{
	int64_t sum = 0, s = 0, e = INT64_MIN;
	size_t k;

	for (k = 0; k < n; k++) {
		if (a[k].member >= 0)
			continue;
		if (ops[k].start > e) {
			if (e != INT64_MIN)
				sum += e - s;
			s = ops[k].start;
			e = ops[k].end;
		} else if (ops[k].end > e) {
			e = ops[k].end;
		}
	}
	if (e != INT64_MIN)
		sum += e - s;
	return sum;
}

size_t
cmdbuf_split(struct frames *f, size_t t, const char *buf,
    const struct cmdbuf_op *ops, size_t n, const struct cmdbuf_assign *a,
    const struct cmdbuf_members *m, struct cmdbuf_stats *st)
{
	struct seg *v;
	int64_t keep = unmatched_busy(ops, n, a);
	size_t k, nv = executions(ops, n, a, m, &v);
	int once = once_each(m);

	st->nbuf++;
	st->nops += n;
	for (k = 0; k < n; k++) {
		st->ns += ops[k].end - ops[k].start;
		if (a[k].member >= 0) {
			st->nmatched++;
			st->ns_matched += ops[k].end - ops[k].start;
		}
	}
	mem_grow(&f->thunks, &f->capthunks, f->nthunks + nv,
	    sizeof(*f->thunks));
	for (k = 0; k < nv; k++) {
		struct frames_thunk *in = &f->thunks[f->nthunks++];

		*in = f->thunks[t];
		in->name = mem_strdup(m->v[v[k].member].name);
		in->start = v[k].s;
		/* A member's parts may straddle another's (a kernel of it
		 * after the next thunk's): its time, not its span. */
		in->dur = once ? v[k].busy : v[k].e - v[k].s;
		in->orig_dur = 0;
		in->cmdbuf = buf;
		in->cmdbuf_opened = 0;
	}
	f->thunks[t].cmdbuf = buf;
	f->thunks[t].cmdbuf_opened = nv > 0 || keep != f->thunks[t].dur;
	f->thunks[t].dur = keep;
	free(v);
	return nv;
}
