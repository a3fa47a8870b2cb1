/*
 * The compile frame: see compile.h for the rules and their sources.
 *
 * The reference works on a pandas frame indexed by RangeId and finds
 * descendants by RangeStack prefix for every XlaCompile and every worker
 * range, which is quadratic.  Here the ranges form a tree (parent index,
 * first child, next sibling) and RangeStack is only rewritten, never
 * searched, while building; nsys writes RangeStack as the ':'-joined
 * ancestor ids, so the two views agree.  The worker-to-parent search is a
 * sweep over start times with a Fenwick tree of prefix maxima over end
 * times.  The autotuner clean-up, which does compare RangeStack strings,
 * uses a sorted array of the collapsed ranges' stacks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/compile.h"
#include "profile/compile_impl.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/tsv.h"

#define NONE	((size_t)-1)

static const char unknown[] = "unknown";
static const char compile_prefix[] = "TSL:XlaCompile:#module=";
static const char backend_prefix[] = "TSL:XlaCompileBackend:#module=";
static const char pid_infix[] = ",program_id=";

const char *const compile_columns[] = {
	"ProfileName", "RangeId", "Name", "TID", "NumChild", "ParentId",
	"RangeStack", "StartMs", "DurMs", "DurChildMs", "DurNonChildMs",
	"ProgramId", "ProgramName", NULL
};

const char *const compile_colname[NCOL] = {
	"Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)",
	"DurNonChild (ns)", "Name", "TID", "NumChild", "RangeId", "ParentId",
	"RangeStack"
};

/* The working state of one input range. */
struct node {
	const struct compile_range *in;
	const char *name;
	int64_t parent_id;		/* current ParentId, -1 none */
	size_t parent, child, next;	/* tree links, NONE-terminated */
	char *stack;			/* rewritten RangeStack, or NULL */
	int64_t num_child, dur_child, dur_nonchild;
	int child_nan;
	int keep;
	int own;			/* a backend whose name parsed */
	int64_t own_prog;
	const char *own_name, *own_fp;
	int has;			/* program: 0 unknown yet, 1 set, 2 none */
	int64_t prog;
	const char *pname, *fp;
};

struct build {
	struct compile_frame *f;
	struct node *v;
	size_t n;
	struct key *byid;		/* nodes by RangeId */
	size_t *sub;			/* scratch: a collected subtree */
	size_t nsub, capsub;
	size_t *stk;			/* scratch: the DFS stack */
	size_t capstk;
};

/* An index sorted by a 64-bit key, ties by input order. */
struct key {
	int64_t k;
	size_t i;
};

static int
cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* A key's k against the int64_t at KEY (sort_lower_bound). */
static int
cmp_key_k(const void *a, const void *key, const void *ctx)
{
	int64_t x = ((const struct key *)a)->k, y = *(const int64_t *)key;

	(void)ctx;
	return (x > y) - (x < y);
}

static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *
stackof(const struct node *x)
{
	if (x->stack != NULL)
		return x->stack;
	return x->in->range_stack ? x->in->range_stack : "";
}

/* Frame-owned copy of N bytes at S. */
static const char *
intern(struct compile_frame *f, const char *s, size_t n)
{
	mem_grow(&f->strs, &f->capstrs, f->nstrs + 1, sizeof(*f->strs));
	return f->strs[f->nstrs++] = mem_strndup(s, n);
}

static size_t
lookup(const struct build *b, int64_t id)
{
	size_t lo = sort_lower_bound(b->byid, b->n, sizeof(*b->byid), &id,
	    cmp_key_k, NULL);

	return lo < b->n && b->byid[lo].k == id ? b->byid[lo].i : NONE;
}

static void
addchild(struct node *v, size_t p, size_t c)
{
	v[c].parent = p;
	v[c].next = v[p].child;
	v[p].child = c;
}

/* Index RangeIds, link parents to children, reject cycles. */
static int
index_tree(struct build *b)
{
	struct node *v = b->v;
	unsigned char *state;
	size_t i, j;

	b->byid = mem_calloc(b->n, sizeof(*b->byid));
	for (i = 0; i < b->n; i++)
		b->byid[i] = (struct key){ v[i].in->range_id, i };
	qsort(b->byid, b->n, sizeof(*b->byid), cmp_key);
	for (i = 1; i < b->n; i++)
		if (b->byid[i].k == b->byid[i - 1].k)
			return err_fail("RangeId %lld appears twice",
			    (long long)b->byid[i].k);
	for (i = 0; i < b->n; i++)
		if (v[i].parent_id >= 0 &&
		    (j = lookup(b, v[i].parent_id)) != NONE)
			addchild(v, j, i);
	/* 0 unseen, 1 on the path being walked, 2 known to reach a root. */
	state = mem_calloc(b->n, 1);
	for (i = 0; i < b->n; i++) {
		for (j = i; j != NONE && state[j] == 0; j = v[j].parent)
			state[j] = 1;
		if (j != NONE && state[j] == 1) {
			free(state);
			return err_fail("RangeId %lld: ParentId cycle",
			    (long long)v[j].in->range_id);
		}
		for (j = i; j != NONE && state[j] == 1; j = v[j].parent)
			state[j] = 2;
	}
	free(state);
	return 0;
}

/* Collect ROOT's descendants, and ROOT itself if SELF, into b->sub. */
static void
subtree(struct build *b, size_t root, int self)
{
	size_t nstk = 0, c, x;

	b->nsub = 0;
	if (self) {
		mem_grow(&b->sub, &b->capsub, 1, sizeof(*b->sub));
		b->sub[b->nsub++] = root;
	}
	mem_grow(&b->stk, &b->capstk, 1, sizeof(*b->stk));
	b->stk[nstk++] = root;
	while (nstk > 0) {
		x = b->stk[--nstk];
		for (c = b->v[x].child; c != NONE; c = b->v[c].next) {
			mem_grow(&b->sub, &b->capsub, b->nsub + 1,
			    sizeof(*b->sub));
			b->sub[b->nsub++] = c;
			mem_grow(&b->stk, &b->capstk, nstk + 1,
			    sizeof(*b->stk));
			b->stk[nstk++] = c;
		}
	}
}

/* An int64_t at A against the int64_t at KEY, in descending order. */
static int
cmp_i64_desc(const void *a, const void *key, const void *ctx)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)key;

	(void)ctx;
	return (x < y) - (x > y);
}

/* Number of the N ends (sorted descending) greater than E. */
static size_t
count_greater(const int64_t *ends, size_t n, int64_t e)
{
	return sort_lower_bound(ends, n, sizeof(*ends), &e, cmp_i64_desc,
	    NULL);
}

static int
cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/*
 * For each worker W[k] (sorted by start), PAR[k] = the node among the
 * NM nodes M that starts strictly before it and ends strictly after it
 * with the greatest input index, or C if there is none.  The sweep adds M
 * in start order to a Fenwick tree indexed by end rank (descending) that
 * keeps the maximum index + 1, so each query is a prefix maximum.
 */
static void
find_parents(struct build *b, const size_t *m, size_t nm,
    const struct key *w, size_t nw, size_t c, size_t *par)
{
	struct key *ms = mem_calloc(nm, sizeof(*ms));
	int64_t *ends = mem_calloc(nm, sizeof(*ends));
	size_t *fen = mem_calloc(nm + 1, sizeof(*fen));
	size_t i, j, k, best;

	for (i = 0; i < nm; i++) {
		ms[i] = (struct key){ b->v[m[i]].in->start_ns, m[i] };
		ends[i] = b->v[m[i]].in->end_ns;
	}
	qsort(ms, nm, sizeof(*ms), cmp_key);
	qsort(ends, nm, sizeof(*ends), cmp_desc);
	for (j = 0, k = 0; k < nw; k++) {
		for (; j < nm && ms[j].k < w[k].k; j++) {
			i = count_greater(ends, nm,
			    b->v[ms[j].i].in->end_ns) + 1;
			for (; i <= nm; i += i & -i)
				if (fen[i] < ms[j].i + 1)
					fen[i] = ms[j].i + 1;
		}
		best = 0;
		i = count_greater(ends, nm, b->v[w[k].i].in->end_ns);
		for (; i > 0; i -= i & -i)
			if (best < fen[i])
				best = fen[i];
		par[k] = best ? best - 1 : c;
	}
	free(ms);
	free(ends);
	free(fen);
}

/* Whether A is P or one of P's ancestors. */
static int
is_ancestor(const struct node *v, size_t a, size_t p)
{
	for (; p != NONE; p = v[p].parent)
		if (p == a)
			return 1;
	return 0;
}

/* Graft root W and its subtree under P. */
static void
graft(struct build *b, size_t w, size_t p)
{
	struct node *v = b->v;
	const char *ps = stackof(&v[p]);
	size_t i, plen = strlen(ps);

	if (is_ancestor(v, w, p))	/* degenerate times; keep a tree */
		return;
	subtree(b, w, 1);
	for (i = 0; i < b->nsub; i++) {
		struct node *x = &v[b->sub[i]];
		const char *s = stackof(x);
		size_t len = strlen(s);
		char *ns = mem_alloc(plen + len + 1);

		memcpy(ns, ps, plen);
		memcpy(ns + plen, s, len + 1);
		free(x->stack);
		x->stack = ns;
		x->keep = 1;
	}
	v[w].parent_id = v[p].in->range_id;
	addchild(v, p, w);
	v[p].num_child++;
	v[p].child_nan = 1;
}

/*
 * Workers of XlaCompile range C: roots of other threads inside C's time,
 * named "TSL:Xla...".  ROOTS are the input roots sorted by start.
 */
static size_t
workers(struct build *b, size_t c, const struct key *roots, size_t nroots,
    struct key **w)
{
	const struct node *v = b->v, *cr = &v[c];
	size_t lo = sort_lower_bound(roots, nroots, sizeof(*roots),
	    &cr->in->start_ns, cmp_key_k, NULL), nw = 0, cap = 0;

	*w = NULL;
	for (; lo < nroots && roots[lo].k <= cr->in->end_ns; lo++) {
		const struct node *x = &v[roots[lo].i];

		if (x->parent_id >= 0 || x->in->end_ns > cr->in->end_ns ||
		    x->in->tid == cr->in->tid || !starts(x->name, "TSL:Xla"))
			continue;
		mem_grow(w, &cap, nw + 1, sizeof(**w));
		(*w)[nw++] = roots[lo];
	}
	return nw;
}

static void
splice_one(struct build *b, size_t c, const struct key *roots,
    size_t nroots)
{
	struct key *w;
	size_t *m, *par, nm, nw, i;

	b->v[c].keep = 1;
	nw = workers(b, c, roots, nroots, &w);
	subtree(b, c, 0);
	for (i = 0; i < b->nsub; i++)
		b->v[b->sub[i]].keep = 1;
	if (nw == 0) {
		free(w);
		return;
	}
	nm = b->nsub;
	m = mem_calloc(nm, sizeof(*m));
	if (nm > 0)	/* b->sub is NULL when the range has no sub-ranges */
		memcpy(m, b->sub, nm * sizeof(*m));
	par = mem_calloc(nw, sizeof(*par));
	find_parents(b, m, nm, w, nw, c, par);
	for (i = 0; i < nw; i++)
		graft(b, w[i].i, par[i]);
	free(m);
	free(par);
	free(w);
}

static void
splice(struct build *b)
{
	struct key *roots = mem_calloc(b->n, sizeof(*roots));
	size_t i, nroots = 0;

	for (i = 0; i < b->n; i++)
		if (b->v[i].parent_id < 0)
			roots[nroots++] = (struct key){ b->v[i].in->start_ns, i };
	qsort(roots, nroots, sizeof(*roots), cmp_key);
	for (i = 0; i < b->n; i++)
		if (starts(b->v[i].name, compile_prefix))
			splice_one(b, i, roots, nroots);
	free(roots);
}

/*
 * "TSL:XlaCompileBackend:#module=M,program_id=N#" -> M (*MOD, *MODLEN)
 * and N, as the reference's regex (.*?),program_id=(\d+)#$ does: M is
 * everything up to the last ",program_id=", and '.' excludes newlines.
 */
static int
parse_backend(const char *name, const char **mod, size_t *modlen,
    int64_t *prog)
{
	const char *s = name + strlen(backend_prefix), *end, *p, *d;
	uint64_t x = 0;

	end = s + strlen(s);
	if (end == s || end[-1] != '#')
		return -1;
	end--;
	for (p = end; p > s && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == end || (size_t)(p - s) < strlen(pid_infix))
		return -1;
	d = p;
	p -= strlen(pid_infix);
	if (memcmp(p, pid_infix, strlen(pid_infix)) != 0 ||
	    memchr(s, '\n', p - s) != NULL)
		return -1;
	for (; d < end; d++) {
		if (x > ((uint64_t)INT64_MAX - (uint64_t)(*d - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*d - '0');
	}
	*mod = s;
	*modlen = p - s;
	*prog = (int64_t)x;
	return 0;
}

struct backend {
	int64_t prog;
	const char *mod;
	size_t len;
	size_t i;
};

static int
cmp_module(const struct backend *x, const struct backend *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int r;

	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	if ((r = memcmp(x->mod, y->mod, n)) != 0)
		return r;
	return (x->len > y->len) - (x->len < y->len);
}

static int
cmp_backend(const void *a, const void *b)
{
	const struct backend *x = a, *y = b;
	int r = cmp_module(x, y);

	return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* Parse backend names; one fingerprint call per (program_id, name). */
static void
backends(struct build *b, compile_fingerprint_fn *fp, void *ctx)
{
	struct backend *bk = mem_calloc(b->n, sizeof(*bk));
	size_t i, j, nb = 0;

	for (i = 0; i < b->n; i++) {
		struct node *x = &b->v[i];

		if (x->keep && starts(x->name, backend_prefix) &&
		    parse_backend(x->name, &bk[nb].mod, &bk[nb].len,
		    &bk[nb].prog) == 0)
			bk[nb++].i = i;
	}
	qsort(bk, nb, sizeof(*bk), cmp_backend);
	for (i = 0; i < nb; i = j) {
		const char *name = intern(b->f, bk[i].mod, bk[i].len);
		const char *id = fp ? fp(ctx, bk[i].prog, name) : NULL;

		id = id ? intern(b->f, id, strlen(id)) : unknown;
		for (j = i; j < nb && cmp_module(&bk[i], &bk[j]) == 0; j++) {
			struct node *x = &b->v[bk[j].i];

			x->own = 1;
			x->own_prog = bk[j].prog;
			x->own_name = name;
			x->own_fp = id;
		}
	}
	free(bk);
}

static void
setprog(struct node *x, int64_t prog, const char *pname, const char *fp)
{
	x->has = 1;
	x->prog = prog;
	x->pname = pname;
	x->fp = fp;
}

/*
 * Backends name their program and give it to their parents; everything
 * else inherits from its nearest ancestor that has one.  Walking stops at
 * ranges that were not kept (the reference would fail with KeyError).
 */
static void
programs(struct build *b, compile_fingerprint_fn *fp, void *ctx)
{
	struct node *v = b->v;
	size_t i, j, k, nstk;

	backends(b, fp, ctx);
	for (i = 0; i < b->n; i++)
		if (v[i].own)
			setprog(&v[i], v[i].own_prog, v[i].own_name,
			    v[i].own_fp);
	for (i = 0; i < b->n; i++)
		if (v[i].own && v[i].parent_id >= 0 &&
		    (j = v[i].parent) != NONE && v[j].keep)
			setprog(&v[j], v[i].own_prog, v[i].own_name,
			    v[i].own_fp);
	for (i = 0; i < b->n; i++) {
		if (!v[i].keep || v[i].has != 0)
			continue;
		nstk = 0;
		for (j = i; j != NONE && v[j].keep && v[j].has == 0;
		    j = v[j].parent) {
			mem_grow(&b->stk, &b->capstk, nstk + 1,
			    sizeof(*b->stk));
			b->stk[nstk++] = j;
		}
		for (k = 0; k < nstk; k++) {
			struct node *x = &v[b->stk[k]];

			if (j != NONE && v[j].keep && v[j].has == 1)
				setprog(x, v[j].prog, v[j].pname, v[j].fp);
			else
				x->has = 2;
		}
	}
}

/* Fold ranges outside the TSL domain into their parents. */
static void
fold_non_tsl(struct build *b)
{
	struct node *v = b->v;
	size_t i, p;

	for (i = 0; i < b->n; i++) {
		if (!v[i].keep || starts(v[i].name, "TSL:"))
			continue;
		v[i].keep = 0;
		if ((p = v[i].parent) == NONE)
			continue;
		v[p].num_child--;
		if (!v[p].child_nan) {
			v[p].dur_child -= v[i].in->dur_ns;
			v[p].dur_nonchild += v[i].in->dur_ns;
		}
	}
}

/* Delete every occurrence of PAT in S, left to right (str.replace). */
static void
delete_all(char *s, const char *pat)
{
	size_t n = strlen(pat);
	char *r = s, *w = s, *hit;

	if (n == 0)
		return;
	while ((hit = strstr(r, pat)) != NULL) {
		memmove(w, r, hit - r);
		w += hit - r;
		r = hit + n;
	}
	memmove(w, r, strlen(r) + 1);
}

static char *
clean_name(const struct node *x)
{
	const char *s = x->name;
	char *name, *pat;
	size_t n;

	if (starts(s, "TSL:"))
		s += 4;
	name = mem_strdup(s);
	if (x->has != 1)
		return name;
	n = strlen(x->pname);
	pat = mem_alloc(n + 12);
	memcpy(pat, ",module=", 8);
	memcpy(pat + 8, x->pname, n + 1);
	delete_all(name, pat);
	memcpy(pat, ":#module=", 9);
	memcpy(pat + 9, x->pname, n);
	memcpy(pat + 9 + n, "#", 2);
	delete_all(name, pat);
	free(pat);
	return name;
}

static void
emit(struct build *b, size_t profile)
{
	struct compile_frame *f = b->f;
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct node *x = &b->v[i];
		struct compile_row *r;

		if (!x->keep)
			continue;
		mem_grow(&f->rows, &f->caprows, f->nrows + 1, sizeof(*f->rows));
		r = &f->rows[f->nrows++];
		r->profile = profile;
		r->range_id = x->in->range_id;
		r->name = clean_name(x);
		r->tid = x->in->tid;
		r->num_child = x->num_child;
		r->parent_id = x->parent_id;
		r->range_stack = x->stack ? x->stack : mem_strdup(stackof(x));
		x->stack = NULL;
		r->start = x->in->start_ns;
		r->dur = x->in->dur_ns;
		r->dur_child = x->dur_child;
		r->dur_nonchild = x->dur_nonchild;
		r->child_nan = x->child_nan;
		r->program = x->has == 1 ? x->prog : -1;
		r->program_id = x->has == 1 ? x->fp : unknown;
		r->program_name = x->has == 1 ? x->pname : NULL;
	}
}

static int
is_measurement(const char *s)
{
	return starts(s, "XlaAutotunerMeasurement");
}

/*
 * The autotuner's compilation of candidates, as remove_autotuning_detail
 * matches it since JAX-Toolbox e00e463b (utils.py, 2026-07-02): a name
 * matching ^(XlaAutotunerCompilation|XlaPass:#name=autotuner[,#]).  The
 * second is the pass of XLA of 2026 (AutotunerPass::name() "autotuner");
 * the reference renames it XlaAutotunerCompilation and folds it with the
 * XlaAutotunerCompilation ranges that Autotuner::CompileAll still opens
 * inside it.  The pass of before, XlaPass:#name=triton-autotuner (or
 * gemm-fusion-autotuner), matches neither and stays a pass.
 */
static int
is_autotuner(const char *s)
{
	static const char pass[] = "XlaPass:#name=autotuner";

	if (starts(s, "XlaAutotunerCompilation"))
		return 1;
	return starts(s, pass) &&
	    (s[sizeof(pass) - 1] == ',' || s[sizeof(pass) - 1] == '#');
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether S[0..K) is one of the N sorted strings in SET. */
static int
in_set(char *const *set, size_t n, const char *s, size_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strncmp(set[mid], s, k);

		if (r == 0)
			r = set[mid][k] != '\0';
		if (r == 0)
			return 1;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* make_child_mask: a RangeStack below one of SET's. */
static int
below(char *const *set, size_t n, const char *s)
{
	size_t k;

	for (k = 0; s[k] != '\0'; k++)
		if (s[k] == ':' && in_set(set, n, s, k))
			return 1;
	return 0;
}

/*
 * remove_child_ranges: rows of rows[FIRST..] matching MATCH are renamed
 * NEWNAME; those with children lose them and keep their whole duration
 * as their own.
 */
static void
collapse(struct compile_frame *f, size_t first, int (*match)(const char *),
    const char *newname)
{
	char **set = NULL, *drop;
	size_t i, j, n = 0, cap = 0;

	for (i = first; i < f->nrows; i++) {
		struct compile_row *r = &f->rows[i];

		if (!match(r->name))
			continue;
		free(r->name);
		r->name = mem_strdup(newname);
		if (r->num_child == 0)
			continue;
		mem_grow(&set, &cap, n + 1, sizeof(*set));
		set[n++] = r->range_stack;
		r->num_child = 0;
		r->dur_child = 0;
		r->child_nan = 0;
		r->dur_nonchild = r->dur;
	}
	if (n == 0)
		return;
	qsort(set, n, sizeof(*set), cmp_str);
	drop = mem_calloc(f->nrows - first, 1);
	for (i = first; i < f->nrows; i++)
		drop[i - first] = below(set, n, f->rows[i].range_stack);
	for (i = j = first; i < f->nrows; i++) {
		if (drop[i - first]) {
			free(f->rows[i].name);
			free(f->rows[i].range_stack);
		} else
			f->rows[j++] = f->rows[i];
	}
	f->nrows = j;
	free(drop);
	free(set);
}

static int
cmp_row(const void *a, const void *b)
{
	const struct compile_row *x = a, *y = b;

	return (x->range_id > y->range_id) - (x->range_id < y->range_id);
}

static void
init_nodes(struct build *b, const struct compile_range *r)
{
	size_t i;

	b->v = mem_calloc(b->n, sizeof(*b->v));
	for (i = 0; i < b->n; i++) {
		struct node *x = &b->v[i];

		x->in = &r[i];
		x->name = r[i].name ? r[i].name : "";
		x->parent_id = r[i].parent_id < 0 ? -1 : r[i].parent_id;
		x->parent = x->child = x->next = NONE;
		x->num_child = r[i].num_child;
		x->dur_child = r[i].dur_child_ns;
		x->dur_nonchild = r[i].dur_nonchild_ns;
	}
}

static void
free_build(struct build *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->v[i].stack);
	free(b->v);
	free(b->byid);
	free(b->sub);
	free(b->stk);
}

/*
 * The times of R[0..N), added up in absolute value, are at most
 * COMPILE_MAX_NS, which bounds every sum made of them (DurChild and
 * DurNonChild of folded ranges): no int64 overflow, whatever the input.
 */
static int
check_times(const struct compile_range *r, size_t n)
{
	int64_t sum = 0, t[5];
	size_t i, k;

	for (i = 0; i < n; i++) {
		t[0] = r[i].start_ns, t[1] = r[i].end_ns, t[2] = r[i].dur_ns;
		t[3] = r[i].dur_child_ns, t[4] = r[i].dur_nonchild_ns;
		for (k = 0; k < 5; k++)
			if (t[k] > COMPILE_MAX_NS || t[k] < -COMPILE_MAX_NS ||
			    (k >= 2 && (sum += llabs(t[k])) > COMPILE_MAX_NS))
				return err_fail("RangeId %lld: the times add up "
				    "to more than 2^60 ns",
				    (long long)r[i].range_id);
	}
	return 0;
}

int
compile_add_profile(struct compile_frame *f, const char *profile,
    const struct compile_range *r, size_t n, compile_fingerprint_fn *fp,
    void *ctx, int flags)
{
	struct build b;
	size_t first = f->nrows;

	if (check_times(r, n) != 0)
		return -1;
	memset(&b, 0, sizeof(b));
	b.f = f;
	b.n = n;
	init_nodes(&b, r);
	if (index_tree(&b) < 0) {
		free_build(&b);
		return -1;
	}
	splice(&b);
	programs(&b, fp, ctx);
	fold_non_tsl(&b);
	mem_grow(&f->profiles, &f->capprofiles, f->nprofiles + 1,
	    sizeof(*f->profiles));
	f->profiles[f->nprofiles] = mem_strdup(profile);
	emit(&b, f->nprofiles++);
	free_build(&b);
	if (flags & COMPILE_CLEAN) {
		collapse(f, first, is_measurement, "XlaAutotunerMeasurement");
		collapse(f, first, is_autotuner, "XlaAutotunerCompilation");
	}
	if (f->nrows > first)	/* rows is NULL while the frame is empty */
		qsort(f->rows + first, f->nrows - first, sizeof(*f->rows),
		    cmp_row);
	return 0;
}

void
compile_free(struct compile_frame *f)
{
	size_t i;

	for (i = 0; i < f->nprofiles; i++)
		free(f->profiles[i]);
	for (i = 0; i < f->nrows; i++) {
		free(f->rows[i].name);
		free(f->rows[i].range_stack);
	}
	for (i = 0; i < f->nstrs; i++)
		free(f->strs[i]);
	free(f->profiles);
	free(f->rows);
	free(f->strs);
	memset(f, 0, sizeof(*f));
}

int
compile_write(struct tsv_writer *w, const struct compile_frame *f)
{
	size_t i;

	if (tsv_header(w, compile_columns) < 0)
		return -1;
	for (i = 0; i < f->nrows; i++) {
		const struct compile_row *r = &f->rows[i];

		tsv_str(w, f->profiles[r->profile]);
		tsv_i64(w, r->range_id);
		tsv_str(w, r->name);
		tsv_i64(w, r->tid);
		tsv_i64(w, r->num_child);
		if (r->parent_id < 0)
			tsv_empty(w);
		else
			tsv_i64(w, r->parent_id);
		tsv_str(w, r->range_stack);
		tsv_ms(w, r->start);
		tsv_ms(w, r->dur);
		if (r->child_nan) {
			tsv_empty(w);
			tsv_empty(w);
		} else {
			tsv_ms(w, r->dur_child);
			tsv_ms(w, r->dur_nonchild);
		}
		tsv_str(w, r->program_id);
		tsv_str(w, r->program_name);
		if (tsv_eor(w) < 0)
			return -1;
	}
	return 0;
}
