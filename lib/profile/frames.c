#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "profile/frames.h"
#include "base/mem.h"
#include "base/sort.h"
#include "profile/nvtx.h"

/* Per-range working state of frames_add_profile. */
struct work {
	const struct proj_range *r;
	size_t n;
	enum nvtx_kind *kind;
	long *parent;		/* index of the parent range, NCCL skipped */
	long *module;		/* thunks: index of their XlaModule */
	unsigned char *keep;	/* thunks kept so far */
	/* Thunks: the index of the top-level range above a thunk with no
	 * XlaModule ancestor (itself when it has no parent), -1 for others. */
	long *root;
	const struct frames *f;	/* the caller's hook (frames_holds_fn) */
	size_t profile;
	int cpu;		/* the layout has CPU times (Orig*) */
	/* Modules: NumGPUOps with their async thunks' (drop_partial). */
	int64_t *ops;
	unsigned char *alone;	/* modules without kept thunks, kept */
};

void
frames_free(struct frames *f)
{
	size_t i;

	for (i = 0; i < f->nmodules; i++)
		free(f->modules[i].name);
	for (i = 0; i < f->nthunks; i++)
		free(f->thunks[i].name);
	free(f->modules);
	free(f->thunks);
	err_notes_free(&f->notes);
	memset(f, 0, sizeof(*f));
}

/* ---- range ids and parents ---- */


static int
cmp_id(const void *a, const void *b, const void *ctx)
{
	const struct proj_range *sort_ranges = ctx;
	int64_t x = sort_ranges[*(const long *)a].id;
	int64_t y = sort_ranges[*(const long *)b].id;

	return (x > y) - (x < y);
}

static long
find_id(const struct proj_range *r, const long *byid, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[byid[mid]].id == id)
			return byid[mid];
		if (r[byid[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Resolve ParentId to row indices, skipping NCCL ranges (PR #1829). */
static int
link_parents(struct work *w)
{
	long *byid = mem_calloc(w->n, sizeof(*byid));
	size_t i;

	for (i = 0; i < w->n; i++)
		byid[i] = (long)i;
	sort_stable(byid, w->n, sizeof(*byid), cmp_id, w->r);
	for (i = 1; i < w->n; i++)
		if (w->r[byid[i]].id == w->r[byid[i - 1]].id) {
			int64_t id = w->r[byid[i]].id;

			free(byid);
			return err_fail("duplicate RangeId %lld (nsys 2024.5/2024.6 "
			    "with CUDA graphs does this; profile with "
			    "XLA_FLAGS=--xla_gpu_enable_command_buffer=)",
			    (long long)id);
		}
	for (i = 0; i < w->n; i++)
		w->parent[i] = w->r[i].parent < 0 ? -1 :
		    find_id(w->r, byid, w->n, w->r[i].parent);
	free(byid);
	for (i = 0; i < w->n; i++) {
		long p = w->parent[i];
		size_t steps = 0;

		while (p >= 0 && w->kind[p] == NVTX_NCCL) {
			if (++steps > w->n)
				return err_fail("cycle in ParentId at RangeId %lld",
				    (long long)w->r[i].id);
			p = w->parent[p];
		}
		w->parent[i] = p;
	}
	return 0;
}

/* ---- deepest thunk below the deepest module ---- */

static void
drop_early_thunks(struct frames *f, struct work *w)
{
	int64_t first = INT64_MAX;
	size_t i, dropped = 0;

	for (i = 0; i < w->n; i++)
		if (w->kind[i] == NVTX_MODULE && w->r[i].start < first)
			first = w->r[i].start;
	for (i = 0; i < w->n; i++) {
		w->keep[i] = w->kind[i] == NVTX_THUNK;
		if (w->keep[i] && first != INT64_MAX && w->r[i].start < first) {
			w->keep[i] = 0;
			dropped++;
		}
	}
	if (dropped)
		err_note(&f->notes, "ignoring %zu thunks without modules (profile started "
		    "during a module execution)", dropped);
}

/* ---- thunks without an XlaModule parent (async thunks, 2026) ---- */

/* The top-level range above range I (I itself without a parent). */
static long
top_of(const struct work *w, size_t i)
{
	long p = (long)i;
	size_t steps = 0;

	while (w->parent[p] >= 0 && ++steps <= w->n)
		p = w->parent[p];
	return p;
}

/* Whether module range M contains range I's start in time: the CPU
 * interval where the layout has one, else the projected GPU interval. */
static int
contains(const struct proj_range *m, const struct proj_range *t, int cpu)
{
	if (cpu)
		return m->orig_start <= t->orig_start &&
		    t->orig_start <= m->orig_start + m->orig_dur;
	return m->dur > 0 && t->dur > 0 && m->start <= t->start &&
	    t->start <= m->start + m->dur;
}

/*
 * The module execution of thunk I, which has no XlaModule ancestor (XLA
 * of 2026: AsyncStartThunk runs its nested thunks on a thread of their
 * own, so their ranges are top-level, carrying unique_hlo_op_id): among
 * the module ranges of its process containing it in time (the deepest
 * of a thread), the only one; of several (several launcher threads),
 * the one whose dump holds the thunk's instruction with its
 * unique_hlo_op_id (f->holds), when exactly one does.  -1 when none or
 * no single one; *BYID is set when the dump decided.
 */
static long
module_in_time(const struct work *w, const long *mods, size_t nm, size_t i,
    int cpu, int *byid)
{
	const struct proj_range *t = &w->r[i];
	long best = -1, held = -1;
	size_t k, nthreads = 0, nheld = 0, len = 0, mlen;
	const char *op = NULL, *mname;
	int64_t id = -1, program;
	int named = w->f->holds != NULL &&
	    nvtx_parse_thunk_id(t->name, &op, &len, &id) == 0 && id >= 0;

	for (k = 0; k < nm; k++) {
		const struct proj_range *m = &w->r[mods[k]];

		if (m->pid != t->pid || !contains(m, t, cpu))
			continue;
		if (best >= 0 && w->r[best].tid == m->tid) {
			if (m->orig_start >= w->r[best].orig_start)
				best = mods[k];	/* deeper on that thread */
			continue;
		}
		nthreads++;
		best = mods[k];
		if (!named || nvtx_parse_module(m->name, &mname, &mlen,
		    &program) != 0)
			continue;
		if (w->f->holds(w->f->holds_ctx, w->profile, program, op, len,
		    id)) {
			held = mods[k];
			nheld++;
		}
	}
	if (nthreads <= 1)
		return best;
	if (nheld == 1) {
		*byid = 1;
		return held;
	}
	return -1;
}

/*
 * Give each kept thunk without an XlaModule ancestor (w->root >= 0) its
 * module execution (module_in_time), with one note per profile naming
 * the rule used.
 */
static void
attribute(struct frames *f, struct work *w)
{
	long *mods = mem_calloc(w->n + 1, sizeof(*mods));
	size_t i, nm = 0, n = 0, nid = 0;
	int cpu = w->cpu;

	for (i = 0; i < w->n; i++)
		if (w->kind[i] == NVTX_MODULE)
			mods[nm++] = (long)i;
	for (i = 0; i < w->n; i++) {
		int byid = 0;

		if (!w->keep[i] || w->root[i] < 0)
			continue;
		w->module[i] = module_in_time(w, mods, nm, i, cpu, &byid);
		if (w->module[i] >= 0) {
			n++;
			nid += byid;
		}
	}
	free(mods);
	if (n > 0)
		err_note(&f->notes, "%zu thunks without an XlaModule parent "
		    "(async thunks on threads of their own) attributed to the "
		    "module execution of their process containing them in time "
		    "(%s)%s", n, cpu ? "CPU interval" : "GPU interval",
		    nid ? ", by unique_hlo_op_id in the dump where several did" :
		    "");
}

/*
 * For each kept thunk, climb through Thunk ancestors to the XlaModule.
 * Every Thunk passed on the way has a deeper Thunk, so it is not kept.
 */
static int
find_modules(struct frames *f, struct work *w)
{
	size_t i, orphans = 0;
	unsigned char *inner = mem_calloc(w->n, 1);

	for (i = 0; i < w->n; i++) {
		long p;
		size_t steps = 0;

		w->module[i] = -1;
		if (!w->keep[i])
			continue;
		for (p = w->parent[i]; p >= 0 && w->kind[p] == NVTX_THUNK;
		    p = w->parent[p]) {
			if (++steps > w->n) {
				free(inner);
				return err_fail("cycle in ParentId at RangeId "
				    "%lld", (long long)w->r[i].id);
			}
			if (inner[p])
				break;	/* the rest of this chain is marked */
			inner[p] = 1;
		}
		for (steps = 0, p = w->parent[i];
		    p >= 0 && w->kind[p] == NVTX_THUNK; p = w->parent[p])
			if (++steps > w->n) {
				free(inner);
				return err_fail("cycle in ParentId at RangeId "
				    "%lld", (long long)w->r[i].id);
			}
		if (p >= 0 && w->kind[p] == NVTX_MODULE)
			w->module[i] = p;
		else if (p < 0)
			w->root[i] = top_of(w, i);
		else
			orphans++;	/* below a range of another kind */
	}
	for (i = 0; i < w->n; i++)
		if (inner[i])
			w->keep[i] = 0;
	free(inner);
	attribute(f, w);
	for (i = 0; i < w->n; i++)
		if (w->keep[i] && w->module[i] < 0) {
			w->keep[i] = 0;
			if (w->root[i] >= 0)
				orphans++;
		}
	if (orphans)
		err_note(&f->notes, "dropping %zu thunks with no XlaModule ancestor",
		    orphans);
	return 0;
}

/* ---- the partial last module (<= 2024.4 layouts) ---- */

static int
cmp_module_name(const void *a, const void *b, const void *ctx)
{
	const struct proj_range *sort_ranges = ctx;
	long x = *(const long *)a, y = *(const long *)b;
	int c = strcmp(sort_ranges[x].name, sort_ranges[y].name);

	if (c)
		return c;
	return (sort_ranges[x].id > sort_ranges[y].id) -
	    (sort_ranges[x].id < sort_ranges[y].id);
}

/*
 * MODS[0..N) are the used module rows.  For each module name, drop the
 * last execution if its NumGPUOps < mean - std of the earlier ones: the
 * profile probably stopped during it (data_loaders.py, "Skipping last
 * occurence").  Dropped modules get w->module entries of their thunks
 * cleared via DROPPED.
 */
static void
drop_partial(struct frames *f, struct work *w, long *mods, size_t n,
    unsigned char *dropped)
{
	size_t i = 0, j, k;

	sort_stable(mods, n, sizeof(*mods), cmp_module_name, w->r);
	for (; i < n; i = j) {
		double sum = 0, sq = 0, mean, sd;
		const struct proj_range *last;

		for (j = i + 1; j < n && strcmp(w->r[mods[j]].name,
		    w->r[mods[i]].name) == 0; j++)
			;
		if (j - i < 2)
			continue;	/* mean of nothing is NaN: keep */
		for (k = i; k < j - 1; k++)
			sum += (double)w->ops[mods[k]];
		mean = sum / (double)(j - 1 - i);
		for (k = i; k < j - 1; k++) {
			double d = (double)w->ops[mods[k]] - mean;
			sq += d * d;
		}
		sd = sqrt(sq / (double)(j - 1 - i));
		last = &w->r[mods[j - 1]];
		if ((double)w->ops[mods[j - 1]] < mean - sd) {
			err_note(&f->notes, "skipping last occurrence of %s because it only "
			    "had %lld GPU operations, compared to %g +/- %g "
			    "before", nvtx_strip_tsl(last->name),
			    (long long)w->ops[mods[j - 1]], mean, sd);
			dropped[mods[j - 1]] = 1;
		}
	}
}

/* ---- devices ---- */

struct pidtid {
	int64_t key, pid, tid;
};

static int
cmp_pidtid(const void *a, const void *b)
{
	const struct pidtid *x = a, *y = b;

	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Add to CAND (at most 2 distinct) the (PID, TID) of every group of P
 * (grouped by key) that has exactly one distinct (PID, TID).
 */
static void
single_thread_groups(struct pidtid *p, size_t n, struct pidtid *cand,
    size_t *ncand)
{
	size_t i = 0, j, k, distinct;

	qsort(p, n, sizeof(*p), cmp_pidtid);
	for (; i < n; i = j) {
		distinct = 1;
		for (j = i + 1; j < n && p[j].key == p[i].key; j++)
			if (p[j].pid != p[j - 1].pid || p[j].tid != p[j - 1].tid)
				distinct++;
		if (distinct != 1)
			continue;
		for (k = 0; k < *ncand; k++)
			if (cand[k].pid == p[i].pid && cand[k].tid == p[i].tid)
				break;
		if (k == *ncand && *ncand < 2)
			cand[(*ncand)++] = p[i];
	}
}

struct devmap {
	struct pidtid *who;
	struct frames_device *dev;
	size_t n;
};

static int
lookup_device(const struct devmap *d, int64_t pid, int64_t tid,
    struct frames_device *out)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->who[i].pid == pid && d->who[i].tid == tid) {
			*out = d->dev[i];
			return 0;
		}
	return -1;
}

/*
 * The device table: XlaLauncher threads, plus the main thread (found as
 * data_loaders.py does) mapped to the first launcher's device.
 */
static int
build_devmap(struct work *w, const long *program, const struct proj_thread *th,
    size_t nth, struct devmap *d)
{
	struct pidtid cand[2], *p = mem_calloc(w->n + 1, sizeof(*p));
	size_t i, np = 0, ncand = 0;
	int32_t v[4];

	d->who = mem_calloc(nth + 1, sizeof(*d->who));
	d->dev = mem_calloc(nth + 1, sizeof(*d->dev));
	for (i = 0; i < nth; i++) {
		if (nvtx_parse_launcher(th[i].name, v) != 0)
			continue;
		d->who[d->n].pid = th[i].pid;
		d->who[d->n].tid = th[i].tid;
		d->dev[d->n] = (struct frames_device){ v[0], v[1], v[2], v[3] };
		d->n++;
	}
	for (i = 0; i < w->n; i++)	/* async thunks: their module's thread */
		if (w->keep[i])
			p[np++] = (struct pidtid){ program[w->module[i]],
			    w->r[w->root[i] >= 0 ? w->module[i] : (long)i].pid,
			    w->r[w->root[i] >= 0 ? w->module[i] : (long)i].tid };
	single_thread_groups(p, np, cand, &ncand);
	for (np = 0, i = 0; i < w->n; i++)
		if (w->kind[i] == NVTX_COMPILE)
			p[np++] = (struct pidtid){ 0, w->r[i].pid, w->r[i].tid };
	single_thread_groups(p, np, cand, &ncand);
	free(p);
	if (ncand > 1)
		return err_fail("cannot tell the main thread: threads %lld and "
		    "%lld both look like it", (long long)cand[0].tid,
		    (long long)cand[1].tid);
	if (ncand == 1) {
		struct frames_device dev;

		if (d->n == 0)
			return err_fail("thread metadata names no XlaLauncher "
			    "thread, so no device is known");
		if (lookup_device(d, cand[0].pid, cand[0].tid, &dev) != 0) {
			d->who[d->n] = cand[0];
			d->dev[d->n] = d->dev[0];
			d->n++;
		}
	}
	return 0;
}

/* ---- appending rows ---- */

static void
copy_times(const struct proj_range *r, int64_t *t)
{
	t[0] = r->start;
	t[1] = r->dur;
	t[2] = r->orig_start;
	t[3] = r->orig_dur;
}

static int
add_module(struct frames *f, size_t profile, const struct proj_range *r,
    int64_t program_id, const struct frames_device *dev)
{
	struct frames_module *m;
	const char *name;
	size_t len;
	int64_t pid, t[4];

	if (nvtx_parse_module(r->name, &name, &len, &pid) != 0)
		return -1;
	mem_grow(&f->modules, &f->capmodules, f->nmodules + 1,
	    sizeof(*f->modules));
	m = &f->modules[f->nmodules++];
	memset(m, 0, sizeof(*m));
	m->profile = profile;
	m->program_id = program_id;
	m->name = mem_strndup(name, len);
	copy_times(r, t);
	m->start = t[0], m->dur = t[1], m->orig_start = t[2], m->orig_dur = t[3];
	m->tid = r->tid;
	m->dev = *dev;
	return 0;
}

static int
add_thunk(struct frames *f, size_t module, const struct proj_range *r,
    const struct frames_device *dev)
{
	struct frames_thunk *t;
	const char *op;
	size_t len;
	int64_t tm[4], id = -1;

	/* A name without a well-formed hlo_op stays whole, as the
	 * reference's regex replacement leaves it (data_loaders.py): no
	 * thunk name fails the run, and no instruction has that name. */
	if (nvtx_parse_thunk_id(r->name, &op, &len, &id) != 0) {
		op = r->name;
		len = strlen(op);
	}
	mem_grow(&f->thunks, &f->capthunks, f->nthunks + 1, sizeof(*f->thunks));
	t = &f->thunks[f->nthunks++];
	memset(t, 0, sizeof(*t));
	t->module = module;
	t->name = mem_strndup(op, len);
	copy_times(r, tm);
	t->start = tm[0], t->dur = tm[1], t->orig_start = tm[2], t->orig_dur = tm[3];
	t->dev = *dev;
	t->comm = -1;
	t->range_id = r->id;
	t->hlo_id = id;
	t->has_id = id >= 0;
	return 0;
}

/*
 * A module execution's projection is the envelope of the GPU operations
 * launched on its thread inside it; those of its async thunks were
 * launched on theirs.  Each top-level range above a kept async thunk
 * widens its module's projected interval to its own, which gives the
 * envelope of the module's operations on every thread (the interval the
 * same run has when the thunks are nested in the module).
 */
static void
extend_modules(struct frames *f, const struct work *w, const long *slot)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		const struct proj_range *t;
		struct frames_module *m;
		int64_t end;

		if (!w->keep[i] || w->root[i] < 0 || slot[w->module[i]] < 0)
			continue;
		t = &w->r[w->root[i]];
		m = &f->modules[slot[w->module[i]]];
		if (t->dur <= 0)
			continue;
		if (m->dur <= 0) {
			m->start = t->start, m->dur = t->dur;
			continue;
		}
		end = m->start + m->dur;
		if (t->start + t->dur > end)
			end = t->start + t->dur;
		if (t->start < m->start)
			m->start = t->start;
		m->dur = end - m->start;
	}
}

/*
 * Append the used modules (in RangeId order) and the kept thunks (in
 * trace order), dropping rows on threads with no device.
 */
static int
append_rows(struct frames *f, size_t profile, struct work *w,
    const long *program, const struct devmap *d)
{
	long *slot = mem_calloc(w->n, sizeof(*slot));
	long *order = mem_calloc(w->n, sizeof(*order));
	size_t i, k, nmod = 0, lost = 0;
	struct frames_device dev;
	int rc = 0;

	for (i = 0; i < w->n; i++)
		slot[i] = -1;
	for (i = 0; i < w->n; i++)
		if (w->keep[i] && slot[w->module[i]] == -1) {
			slot[w->module[i]] = -2;
			order[nmod++] = w->module[i];
		}
	for (i = 0; i < w->n; i++)	/* modules without thunks */
		if (w->alone[i] && slot[i] == -1) {
			slot[i] = -2;
			order[nmod++] = (long)i;
		}
	sort_stable(order, nmod, sizeof(*order), cmp_id, w->r);
	for (k = 0; k < nmod && rc == 0; k++) {
		const struct proj_range *r = &w->r[order[k]];

		if (lookup_device(d, r->pid, r->tid, &dev) != 0)
			continue;
		slot[order[k]] = (long)f->nmodules;
		rc = add_module(f, profile, r, program[order[k]], &dev);
	}
	for (i = 0; i < w->n && rc == 0; i++) {
		/* An async thunk runs on its module's device. */
		const struct proj_range *on = &w->r[w->root[i] >= 0 ?
		    w->module[i] : (long)i];

		if (!w->keep[i])
			continue;
		if (slot[w->module[i]] < 0 ||
		    lookup_device(d, on->pid, on->tid, &dev) != 0) {
			lost++;
			continue;
		}
		rc = add_thunk(f, (size_t)slot[w->module[i]], &w->r[i], &dev);
	}
	extend_modules(f, w, slot);
	if (lost)
		err_note(&f->notes, "dropping %zu thunks on threads with no known device",
		    lost);
	free(slot);
	free(order);
	return rc;
}

/*
 * w->ops: each range's NumGPUOps, a module's with those of the top-level
 * ranges of its async thunks (launched on their threads, counted there),
 * each counted once: the count of the same run with the thunks nested.
 */
static void
count_ops(struct work *w)
{
	unsigned char *counted = mem_calloc(w->n + 1, 1);
	size_t i;

	w->ops = mem_calloc(w->n + 1, sizeof(*w->ops));
	for (i = 0; i < w->n; i++)
		w->ops[i] = w->r[i].num_gpu_ops;
	for (i = 0; i < w->n; i++) {
		long t = w->root[i];

		if (!w->keep[i] || t < 0 || counted[t] ||
		    w->r[t].num_gpu_ops <= 0)
			continue;
		counted[t] = 1;
		w->ops[w->module[i]] += w->r[t].num_gpu_ops;
	}
	free(counted);
}

/*
 * Module executions with no kept thunk (XLA of 2026: a module whose
 * thunks run elsewhere, or have no ranges) keep their row, NumThunks 0:
 * those of a program (program_id >= 0; the autotuner's have none) not
 * in USED are marked in w->alone and appended to MODS[0..N), their
 * program ids in PROGRAM.  Returns the new count.
 */
static size_t
add_alone(struct work *w, long *mods, size_t n, const unsigned char *used,
    long *program)
{
	size_t i, len;
	const char *m;
	int64_t pid;

	for (i = 0; i < w->n; i++) {
		if (w->kind[i] != NVTX_MODULE || used[i] ||
		    nvtx_parse_module(w->r[i].name, &m, &len, &pid) != 0 ||
		    pid < 0)
			continue;
		w->alone[i] = 1;
		program[i] = (long)pid;
		mods[n++] = (long)i;
	}
	return n;
}

/* Program ids of the modules used by kept thunks, and the partial rule. */
static int
resolve_programs(struct frames *f, struct work *w, int has_gpu_ops,
    long *program)
{
	long *mods = mem_calloc(w->n, sizeof(*mods));
	unsigned char *seen = mem_calloc(w->n, 1);
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < w->n; i++)
		if (w->keep[i] && !seen[w->module[i]]) {
			seen[w->module[i]] = 1;
			mods[n++] = w->module[i];
		}
	for (i = 0; i < n && rc == 0; i++) {
		const char *m;
		size_t len;
		int64_t pid;

		rc = nvtx_parse_module(w->r[mods[i]].name, &m, &len, &pid);
		program[mods[i]] = (long)pid;
	}
	n = add_alone(w, mods, n, seen, program);
	if (rc == 0 && has_gpu_ops) {
		count_ops(w);
		memset(seen, 0, w->n);
		drop_partial(f, w, mods, n, seen);
		for (i = 0; i < w->n; i++) {
			if (w->keep[i] && seen[w->module[i]])
				w->keep[i] = 0;
			if (seen[i])
				w->alone[i] = 0;
		}
	}
	free(mods);
	free(seen);
	return rc;
}

int
frames_add_profile(struct frames *f, size_t profile,
    const struct proj_range *r, size_t n, int has_gpu_ops, int has_orig,
    const struct proj_thread *threads, size_t nthreads)
{
	struct work w = { r, n, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0,
	    NULL, NULL };
	struct devmap d = { NULL, NULL, 0 };
	long *program = mem_calloc(n + 1, sizeof(*program));
	size_t i;
	int rc;

	/* The first profile added need not be profile 0 (extract_opts.only). */
	if (f->nprofiles++ == 0)
		f->has_orig = has_orig;
	else
		f->has_orig &= has_orig;
	w.kind = mem_calloc(n + 1, sizeof(*w.kind));
	w.parent = mem_calloc(n + 1, sizeof(*w.parent));
	w.module = mem_calloc(n + 1, sizeof(*w.module));
	w.keep = mem_calloc(n + 1, 1);
	w.root = mem_calloc(n + 1, sizeof(*w.root));
	w.alone = mem_calloc(n + 1, 1);
	w.f = f;
	w.profile = profile;
	w.cpu = has_orig;
	for (i = 0; i < n; i++) {
		w.kind[i] = nvtx_classify(r[i].name);
		w.root[i] = -1;
	}
	rc = link_parents(&w);
	if (rc == 0) {
		drop_early_thunks(f, &w);
		rc = find_modules(f, &w);
	}
	if (rc == 0)
		rc = resolve_programs(f, &w, has_gpu_ops, program);
	if (rc == 0)
		rc = build_devmap(&w, program, threads, nthreads, &d);
	if (rc == 0)
		rc = append_rows(f, profile, &w, program, &d);
	free(d.who);
	free(d.dev);
	free(program);
	free(w.kind);
	free(w.parent);
	free(w.module);
	free(w.keep);
	free(w.root);
	free(w.ops);
	free(w.alone);
	return rc;
}

/* ---- frames_finish: numbering, overlap, order ---- */


static int
cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* ProgramIds are interned by the caller, so equal ones are usually the
 * same pointer. */
static int
cmp_str(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a, b);
}

/* Thread executions of a program: (profile, TID, ProgramId, row). */
static int
cmp_module_exec(const void *a, const void *b, const void *ctx)
{
	const struct frames *sort_f = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct frames_module *m = &sort_f->modules[x], *n = &sort_f->modules[y];
	int c;

	if (m->profile != n->profile)
		return m->profile < n->profile ? -1 : 1;
	if ((c = cmp_i64(m->tid, n->tid)) != 0)
		return c;
	if ((c = cmp_str(m->program, n->program)) != 0)
		return c;
	return (x > y) - (x < y);
}

/* The reference's thunk index: ProgramId, ProgramExecution, Name,
 * ThunkExecution, Device; ties (equal so far) broken by row. */
static int
cmp_thunk_key(const struct frames *sort_f, size_t x, size_t y, int with_exec)
{
	const struct frames_thunk *s = &sort_f->thunks[x], *t = &sort_f->thunks[y];
	const struct frames_module *m = &sort_f->modules[s->module];
	const struct frames_module *n = &sort_f->modules[t->module];
	int c;

	if ((c = cmp_str(m->program, n->program)) != 0)
		return c;
	if ((c = cmp_i64(m->execution, n->execution)) != 0)
		return c;
	if ((c = strcmp(s->name, t->name)) != 0)
		return c;
	if (with_exec && (c = cmp_i64(s->execution, t->execution)) != 0)
		return c;
	if ((c = cmp_i64(s->dev.device, t->dev.device)) != 0)
		return c;
	return (x > y) - (x < y);
}

static int
cmp_thunk_exec(const void *a, const void *b, const void *ctx)
{
	const struct frames *sort_f = ctx;
	const struct frames_thunk *s = &sort_f->thunks[*(const size_t *)a];
	const struct frames_thunk *t = &sort_f->thunks[*(const size_t *)b];
	int c;

	/* Group (ProgramId, ProgramExecution, Device, Name), trace order. */
	if ((c = cmp_str(sort_f->modules[s->module].program,
	    sort_f->modules[t->module].program)) != 0)
		return c;
	if ((c = cmp_i64(sort_f->modules[s->module].execution,
	    sort_f->modules[t->module].execution)) != 0)
		return c;
	if ((c = cmp_i64(s->dev.device, t->dev.device)) != 0)
		return c;
	if ((c = strcmp(s->name, t->name)) != 0)
		return c;
	return cmp_i64((int64_t)*(const size_t *)a, (int64_t)*(const size_t *)b);
}

static size_t *
identity(size_t n)
{
	size_t *p = mem_calloc(n + 1, sizeof(*p)), i;

	for (i = 0; i < n; i++)
		p[i] = i;
	return p;
}

static void
number_modules(struct frames *f)
{
	size_t *p = identity(f->nmodules), i;
	int64_t k = 0;

	sort_stable(p, f->nmodules, sizeof(*p), cmp_module_exec, f);
	for (i = 0; i < f->nmodules; i++) {
		const struct frames_module *m = &f->modules[p[i]];

		if (i > 0) {
			const struct frames_module *prev = &f->modules[p[i - 1]];

			k = prev->profile == m->profile && prev->tid == m->tid &&
			    cmp_str(prev->program, m->program) == 0 ? k + 1 : 0;
		}
		f->modules[p[i]].execution = k;
	}
	free(p);
}

static void
number_thunks(struct frames *f)
{
	size_t *p = identity(f->nthunks), i;
	int64_t k = 0;

	sort_stable(p, f->nthunks, sizeof(*p), cmp_thunk_exec, f);
	for (i = 0; i < f->nthunks; i++) {
		struct frames_thunk *t = &f->thunks[p[i]];

		if (i > 0) {
			const struct frames_thunk *s = &f->thunks[p[i - 1]];

			k = cmp_str(f->modules[s->module].program,
			    f->modules[t->module].program) == 0 &&
			    f->modules[s->module].execution ==
			    f->modules[t->module].execution &&
			    s->dev.device == t->dev.device &&
			    strcmp(s->name, t->name) == 0 ? k + 1 : 0;
		}
		t->execution = k;
		f->modules[t->module].num_thunks++;
	}
	free(p);
}

/* A thunk's part in hidden time: 0 compute, 1 communication, 2 none (a
 * command buffer split into inner rows: what it keeps is no interval). */
static int
overlap_role(const struct frames_thunk *t)
{
	return t->cmdbuf_opened ? 2 : t->comm == 1;
}

/* The profile of thunk T (input order). */
static size_t
thunk_profile(const struct frames *f, const struct frames_thunk *t)
{
	return f->modules[t->module].profile;
}

/* Overlap groups: (ProgramId, Device, profile), compute before
 * communication before split buffers, each by start. */
static int
cmp_overlap(const void *a, const void *b, const void *ctx)
{
	const struct frames *sort_f = ctx;
	const struct frames_thunk *s = &sort_f->thunks[*(const size_t *)a];
	const struct frames_thunk *t = &sort_f->thunks[*(const size_t *)b];
	int c;

	if ((c = cmp_str(sort_f->modules[s->module].program,
	    sort_f->modules[t->module].program)) != 0)
		return c;
	if ((c = cmp_i64(s->dev.device, t->dev.device)) != 0)
		return c;
	if ((c = cmp_i64((int64_t)thunk_profile(sort_f, s),
	    (int64_t)thunk_profile(sort_f, t))) != 0)
		return c;
	if ((c = cmp_i64(overlap_role(s), overlap_role(t))) != 0)
		return c;
	if ((c = cmp_i64(s->start, t->start)) != 0)
		return c;
	return cmp_i64((int64_t)*(const size_t *)a, (int64_t)*(const size_t *)b);
}

/* Whether thunks U and T are in one overlap group. */
static int
same_group(const struct frames *f, const struct frames_thunk *u,
    const struct frames_thunk *t)
{
	return u->dev.device == t->dev.device &&
	    thunk_profile(f, u) == thunk_profile(f, t) &&
	    cmp_str(f->modules[u->module].program,
	    f->modules[t->module].program) == 0;
}

/*
 * Hidden time of each communication thunk in P[0..N), one overlap group
 * whose compute thunks P[0..NC) come first, sorted by start.  The
 * compute thunks are first merged into disjoint intervals
 * [US[k], UE[k]), sorted (their union: two compute thunks that overlap
 * each other hide a moment once), so the first interval that can reach a
 * communication thunk is found by binary search on the ends, and the
 * scan stops at the first one starting after it.  A hidden time is then
 * at most the thunk's duration.
 */
static void
overlap_group(struct frames *f, const size_t *p, size_t nc, size_t n,
    int64_t *us, int64_t *ue)
{
	size_t i, k, nu = 0;

	for (k = 0; k < nc; k++) {
		const struct frames_thunk *c = &f->thunks[p[k]];
		int64_t e = c->start + c->dur;

		if (nu > 0 && c->start <= ue[nu - 1]) {
			if (e > ue[nu - 1])
				ue[nu - 1] = e;
			continue;
		}
		us[nu] = c->start;
		ue[nu++] = e;
	}
	for (i = nc; i < n; i++) {
		struct frames_thunk *t = &f->thunks[p[i]];
		int64_t s = t->start, e = t->start + t->dur, hidden = 0;
		size_t lo = 0, hi = nu;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ue[mid] > s)
				hi = mid;
			else
				lo = mid + 1;
		}
		for (k = lo; k < nu && us[k] < e; k++)
			hidden += (ue[k] < e ? ue[k] : e) -
			    (us[k] > s ? us[k] : s);
		t->hidden = hidden;
	}
	for (i = nc; i < n; i++)
		f->thunks[p[i]].dur -= f->thunks[p[i]].hidden;
}

static void
compute_overlap(struct frames *f)
{
	size_t *p = identity(f->nthunks), i, j, nc;
	int64_t *us = mem_calloc(f->nthunks + 1, sizeof(*us));
	int64_t *ue = mem_calloc(f->nthunks + 1, sizeof(*ue));

	sort_stable(p, f->nthunks, sizeof(*p), cmp_overlap, f);
	for (i = 0; i < f->nthunks; i = j) {
		const struct frames_thunk *t = &f->thunks[p[i]];
		size_t nused = 0;

		nc = 0;
		for (j = i; j < f->nthunks; j++) {
			const struct frames_thunk *u = &f->thunks[p[j]];

			if (!same_group(f, u, t))
				break;
			nc += overlap_role(u) == 0;
			nused += overlap_role(u) < 2;
		}
		overlap_group(f, p + i, nc, nused, us, ue);
	}
	free(ue);
	free(us);
	free(p);
}

static int
cmp_module_out(const void *a, const void *b, const void *ctx)
{
	const struct frames *sort_f = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct frames_module *m = &sort_f->modules[x], *n = &sort_f->modules[y];
	int c;

	if ((c = cmp_str(m->program, n->program)) != 0)
		return c;
	if ((c = cmp_i64(m->execution, n->execution)) != 0)
		return c;
	if ((c = cmp_i64(m->dev.device, n->dev.device)) != 0)
		return c;
	return (x > y) - (x < y);
}

static int
cmp_thunk_out(const void *a, const void *b, const void *ctx)
{
	return cmp_thunk_key(ctx, *(const size_t *)a, *(const size_t *)b, 1);
}

/* Permute the rows into output order, keeping thunk->module links. */
static void
sort_rows(struct frames *f)
{
	size_t *pm = identity(f->nmodules), *pt = identity(f->nthunks), i;
	size_t *where = mem_calloc(f->nmodules + 1, sizeof(*where));
	struct frames_module *m = mem_calloc(f->nmodules + 1, sizeof(*m));
	struct frames_thunk *t = mem_calloc(f->nthunks + 1, sizeof(*t));

	sort_stable(pm, f->nmodules, sizeof(*pm), cmp_module_out, f);
	sort_stable(pt, f->nthunks, sizeof(*pt), cmp_thunk_out, f);
	for (i = 0; i < f->nmodules; i++) {
		m[i] = f->modules[pm[i]];
		where[pm[i]] = i;
	}
	for (i = 0; i < f->nthunks; i++) {
		t[i] = f->thunks[pt[i]];
		t[i].module = where[t[i].module];
	}
	free(f->modules);
	free(f->thunks);
	f->modules = m;
	f->thunks = t;
	f->capmodules = f->nmodules + 1;
	f->capthunks = f->nthunks + 1;
	free(pm);
	free(pt);
	free(where);
}

void
frames_finish(struct frames *f)
{
	number_modules(f);
	number_thunks(f);
	compute_overlap(f);
	sort_rows(f);
}

void
frames_drop_autotuning(struct frames *f)
{
	size_t *where = mem_calloc(f->nmodules + 1, sizeof(*where));
	size_t i, nm = 0, nt = 0;

	for (i = 0; i < f->nmodules; i++) {
		if (strcmp(f->modules[i].program, "unknown") == 0) {
			free(f->modules[i].name);
			where[i] = (size_t)-1;
			continue;
		}
		where[i] = nm;
		f->modules[nm++] = f->modules[i];
	}
	for (i = 0; i < f->nthunks; i++) {
		size_t m = where[f->thunks[i].module];

		if (m == (size_t)-1) {
			free(f->thunks[i].name);
			continue;
		}
		f->thunks[nt] = f->thunks[i];
		f->thunks[nt++].module = m;
	}
	f->nmodules = nm;
	f->nthunks = nt;
	free(where);
}
