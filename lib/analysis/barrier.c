#include <stdlib.h>
#include <string.h>

#include "analysis/barrier.h"
#include "base/mem.h"
#include "base/strtab.h"
#include "base/u64map.h"

/* A communication instance of one run, or an execution with thunk rows. */
struct key {
	size_t prog, name;	/* ids in progs, names (name: executions 0) */
	int64_t exec, texec, dev;	/* texec, dev: -1 for the other kind */
	int run;
};

struct inst {
	struct key k;
	int64_t lo, sum, n;	/* shortest whole duration, their sum, rows */
};

struct mrow {
	int run;
	size_t prog;
	int64_t exec, dev, dur;
};

struct pstate {			/* per run and ProgramId */
	int64_t wait, mdur, tdur;
	int hasmod, barrier;
};

struct barrier {
	struct strtab progs, names;
	struct inst *inst;	/* instances and executions */
	size_t ninst, capinst;
	struct u64map keys;
	struct mrow *mrow;
	size_t nmrow, capmrow;
	struct pstate *ps[2];
	size_t capps[2];
	struct u64map devs[2];	/* device -> 0 */
};

struct barrier *
barrier_new(void)
{
	return mem_calloc(1, sizeof(struct barrier));
}

void
barrier_free(struct barrier *b)
{
	if (b == NULL)
		return;
	strtab_free(&b->progs);
	strtab_free(&b->names);
	free(b->inst);
	u64map_free(&b->keys);
	free(b->mrow);
	free(b->ps[0]);
	free(b->ps[1]);
	u64map_free(&b->devs[0]);
	u64map_free(&b->devs[1]);
	free(b);
}

static uint64_t
hash(const struct key *k)
{
	uint64_t h = u64map_mix((uint64_t)k->prog * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)k->run);

	h = u64map_mix(h ^ (uint64_t)k->name);
	h = u64map_mix(h ^ (uint64_t)k->exec);
	h = u64map_mix(h ^ (uint64_t)k->texec);
	return u64map_mix(h ^ (uint64_t)k->dev);
}

/* The entry of key K, or NULL. */
static struct inst *
find(struct barrier *b, const struct key *k)
{
	uint64_t h = hash(k);
	struct u64map_it it;
	size_t j;

	for (j = u64map_first(&b->keys, h, &it); j != U64MAP_NONE;
	    j = u64map_next(&b->keys, &it))
		if (memcmp(&b->inst[j].k, k, sizeof *k) == 0)
			return &b->inst[j];
	return NULL;
}

/* The entry of key K, new (zeroed) if not there. */
static struct inst *
entry(struct barrier *b, const struct key *k)
{
	struct inst *x = find(b, k);

	if (x != NULL)
		return x;
	mem_grow(&b->inst, &b->capinst, b->ninst + 1, sizeof *b->inst);
	memset(&b->inst[b->ninst], 0, sizeof b->inst[b->ninst]);
	b->inst[b->ninst].k = *k;
	u64map_add(&b->keys, hash(k), b->ninst);
	return &b->inst[b->ninst++];
}

static struct pstate *
pstate(struct barrier *b, int run, size_t prog)
{
	size_t old = b->capps[run];

	if (prog >= old) {
		mem_grow(&b->ps[run], &b->capps[run], prog + 1,
		    sizeof *b->ps[run]);
		memset(b->ps[run] + old, 0, (b->capps[run] - old) *
		    sizeof *b->ps[run]);
	}
	return &b->ps[run][prog];
}

void
barrier_thunk(struct barrier *b, int run, const char *p, size_t pn,
    int64_t exec, int64_t device, int64_t dur_ns, int comm,
    const char *name, size_t nn, int64_t texec, int64_t whole_ns)
{
	struct key k;
	struct inst *x;

	memset(&k, 0, sizeof k);	/* no padding bytes of garbage */
	k.prog = strtab_intern(&b->progs, p, pn, NULL);
	k.exec = exec;
	k.texec = -1;
	k.dev = device;
	k.run = run;
	entry(b, &k);			/* the execution, for the module rows */
	pstate(b, run, k.prog)->tdur += dur_ns;
	if (u64map_get(&b->devs[run], (uint64_t)device) == U64MAP_NONE)
		u64map_add(&b->devs[run], (uint64_t)device, 0);
	if (!comm)
		return;
	k.name = strtab_intern(&b->names, name, nn, NULL) + 1;
	k.texec = texec;
	k.dev = -1;
	x = entry(b, &k);
	if (x->n == 0 || whole_ns < x->lo)
		x->lo = whole_ns;
	x->sum += whole_ns;
	x->n++;
}

void
barrier_module(struct barrier *b, int run, const char *p, size_t pn,
    int64_t exec, int64_t device, int64_t dur_ns)
{
	mem_grow(&b->mrow, &b->capmrow, b->nmrow + 1, sizeof *b->mrow);
	b->mrow[b->nmrow++] = (struct mrow){ run,
	    strtab_intern(&b->progs, p, pn, NULL), exec, device, dur_ns };
}

/* The runs' devices are disjoint, each run has some: processes of one
 * run. */
static int
disjoint(const struct barrier *b)
{
	size_t i;

	if (b->devs[0].n == 0 || b->devs[1].n == 0)
		return 0;
	for (i = 0; i < b->devs[0].nslot; i++)
		if (b->devs[0].slot[i].val &&
		    u64map_get(&b->devs[1], b->devs[0].slot[i].key) !=
		    U64MAP_NONE)
			return 0;
	return 1;
}

/* The module rows of the executions with thunk rows, per ProgramId. */
static void
module_times(struct barrier *b)
{
	const struct mrow *m;
	struct key k;
	size_t i;

	for (i = 0; i < b->nmrow; i++) {
		m = &b->mrow[i];
		memset(&k, 0, sizeof k);
		k.prog = m->prog;
		k.exec = m->exec;
		k.texec = -1;
		k.dev = m->dev;
		k.run = m->run;
		if (find(b, &k) == NULL)
			continue;	/* an execution without thunk rows */
		pstate(b, m->run, m->prog)->mdur += m->dur;
		pstate(b, m->run, m->prog)->hasmod = 1;
	}
}

void
barrier_finish(struct barrier *b)
{
	int pool = disjoint(b), run;
	const struct inst *x, *y;
	struct key k;
	size_t i;
	int64_t lo;

	module_times(b);
	for (i = 0; i < b->ninst; i++) {
		x = &b->inst[i];
		if (x->k.name == 0)
			continue;
		lo = x->lo;
		if (pool) {	/* the other run's rows of the instance */
			k = x->k;
			k.run = !k.run;
			y = find(b, &k);
			if (y != NULL && y->lo < lo)
				lo = y->lo;
		}
		pstate(b, x->k.run, x->k.prog)->wait += x->sum - x->n * lo;
	}
	for (run = 0; run < 2; run++)
		for (i = 0; i < b->capps[run]; i++) {
			struct pstate *s = &b->ps[run][i];
			int64_t den = s->hasmod ? s->mdur : s->tdur;

			/* WaitShare above 0.5 (stats.h, facts) */
			s->barrier = den > 0 && 2 * s->wait > den;
		}
}

int
barrier_is(const struct barrier *b, int run, const char *p, size_t pn)
{
	size_t id = strtab_find(&b->progs, p, pn);

	return id != STRTAB_NONE && id < b->capps[run] &&
	    b->ps[run][id].barrier;
}
