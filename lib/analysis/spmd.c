/*
 * spmd: the join of ProgramIds that are one SPMD step (spmd.h).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/spmd.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/u64map.h"

static const uint64_t fnv_prime = UINT64_C(1099511628211);

/* SIG extended by the 8 bytes of V, lowest first. */
static uint64_t
sig_u64(uint64_t sig, uint64_t v)
{
	size_t i;

	for (i = 0; i < 8; i++, v >>= 8)
		sig = (sig ^ (v & 0xff)) * fnv_prime;
	return sig;
}

uint64_t
spmd_sig_add(uint64_t sig, const char *name, size_t len, int64_t texec,
    int64_t csize)
{
	size_t i;

	for (i = 0; i < len; i++)
		sig = (sig ^ (unsigned char)name[i]) * fnv_prime;
	sig = (sig ^ 0xff) * fnv_prime;	/* no byte of a name: a separator */
	sig = sig_u64(sig_u64(sig, (uint64_t)texec), (uint64_t)csize);
	return sig == 0 ? 1 : sig;
}

/* Whether the sorted device lists of A and B share none. */
static int
disjoint(const struct spmd_prog *a, const struct spmd_prog *b)
{
	size_t i = 0, j = 0;

	while (i < a->ndev && j < b->ndev) {
		if (a->dev[i] == b->dev[j])
			return 0;
		if (a->dev[i] < b->dev[j])
			i++;
		else
			j++;
	}
	return 1;
}

static int
joinable(const struct spmd_prog *a, const struct spmd_prog *b)
{
	return a->module == b->module && a->sig != 0 && a->sig == b->sig &&
	    a->ncoll > 0 && a->ncoll == b->ncoll;
}

size_t
spmd_join(const struct spmd_prog *p, size_t n, size_t *rep)
{
	size_t i, j, k, groups = 0, *mem = mem_calloc(n + 1, sizeof(*mem));

	for (i = 0; i < n; i++)
		rep[i] = SIZE_MAX;
	/* Greedy, in index order: a group takes every later ProgramId that
	 * matches its first and shares no device with its members. */
	for (i = 0; i < n; i++) {
		size_t m = 0, best = i;

		if (rep[i] != SIZE_MAX)
			continue;
		mem[m++] = i;
		for (j = i + 1; j < n; j++) {
			int ok = rep[j] == SIZE_MAX && joinable(&p[i], &p[j]);

			for (k = 0; ok && k < m; k++)
				ok = disjoint(&p[mem[k]], &p[j]);
			if (ok)
				mem[m++] = j;
		}
		for (k = 0; k < m; k++)
			if (p[mem[k]].ndev > p[best].ndev)
				best = mem[k];
		for (k = 0; k < m; k++)
			rep[mem[k]] = best;
		groups += m > 1;
	}
	free(mem);
	return groups;
}

/* ---- the scanner ---- */

/* A ProgramId named by spmd_scan_module. */
struct sprog {
	size_t module;		/* in mods */
	int seen;		/* an execution of it was read */
	int apart;		/* an execution's rows came apart */
	uint64_t sig;		/* every execution's; 0: they differ */
	size_t ncoll;
	int64_t *dev;		/* its devices, sorted, over its executions */
	size_t ndev, capdev;
	size_t rep;		/* after spmd_scan_end */
};

/* A collective of the execution being read. */
struct scoll {
	int64_t dev, start;
	uint64_t h;		/* spmd_sig_add of it alone */
	size_t seq;		/* order fed */
};

struct spmd_scan {
	struct strtab pids, mods;
	struct sprog *p;
	size_t capp;
	size_t *nmod;		/* per module name: ProgramIds */
	size_t capnmod;
	/* the previous row's ProgramId (rows of a program come together) */
	char *last;
	size_t lastlen, caplast, lastid;
	int haslast;
	/* the execution being read: its ProgramId (SIZE_MAX: none), number,
	 * devices (edev, in devmap) and collectives */
	size_t cpid;
	int64_t cexec;
	int64_t *edev;
	size_t nedev, capedev;
	struct u64map devmap;
	struct scoll *c;
	size_t nc, capc;
	struct strtab done;	/* "pid\\texec" of executions read */
	int ended;
};

struct spmd_scan *
spmd_scan_new(void)
{
	struct spmd_scan *s = mem_calloc(1, sizeof(*s));

	s->cpid = SIZE_MAX;
	return s;
}

void
spmd_scan_free(struct spmd_scan *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->pids.n; i++)
		free(s->p[i].dev);
	free(s->p);
	free(s->nmod);
	free(s->last);
	free(s->edev);
	free(s->c);
	u64map_free(&s->devmap);
	strtab_free(&s->pids);
	strtab_free(&s->mods);
	strtab_free(&s->done);
	free(s);
}

void
spmd_scan_module(struct spmd_scan *s, const char *prog, const char *module)
{
	int added;
	size_t id = strtab_intern(&s->pids, prog, strlen(prog), &added), m;
	size_t cap;

	if (!added)
		return;
	s->haslast = 0;
	mem_grow(&s->p, &s->capp, id + 1, sizeof(*s->p));
	memset(&s->p[id], 0, sizeof(s->p[id]));
	m = strtab_intern(&s->mods, module, strlen(module), &added);
	cap = s->capnmod;
	mem_grow(&s->nmod, &s->capnmod, m + 1, sizeof(*s->nmod));
	if (s->capnmod != cap)
		memset(s->nmod + cap, 0, (s->capnmod - cap) * sizeof(*s->nmod));
	s->p[id].module = m;
	if (module[0] != '\0')
		s->nmod[m]++;
}

/* Whether ProgramId ID's module name is not empty and another's too. */
static int
is_cand(const struct spmd_scan *s, size_t id)
{
	return s->nmod[s->p[id].module] > 1;
}

static size_t
find_prog(const struct spmd_scan *s, const char *prog)
{
	return strtab_find(&s->pids, prog, strlen(prog));
}

int
spmd_scan_candidate(const struct spmd_scan *s, const char *prog)
{
	size_t id = find_prog(s, prog);

	return id != STRTAB_NONE && is_cand(s, id);
}

/* The index of the row's ProgramId, the previous row's without a
 * lookup when it is the same. */
static size_t
row_prog(struct spmd_scan *s, const char *prog)
{
	size_t len = strlen(prog);

	if (s->haslast && len == s->lastlen &&
	    memcmp(prog, s->last, len) == 0)
		return s->lastid;
	mem_grow(&s->last, &s->caplast, len + 1, 1);
	memcpy(s->last, prog, len + 1);
	s->lastlen = len;
	s->lastid = find_prog(s, prog);
	s->haslast = 1;
	return s->lastid;
}

/* Collectives by device, start, order fed. */
static int
cmp_scoll(const void *a, const void *b, const void *ctx)
{
	const struct scoll *x = a, *y = b;

	(void)ctx;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
cmp_i64(const void *a, const void *b, const void *ctx)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	(void)ctx;
	return (x > y) - (x < y);
}

/* P's devices := their union with the sorted D[0..N). */
static void
merge_devs(struct sprog *p, const int64_t *d, size_t n)
{
	int64_t *m = mem_calloc(p->ndev + n + 1, sizeof(*m));
	size_t i = 0, j = 0, k = 0;

	while (i < p->ndev || j < n) {
		if (j == n || (i < p->ndev && p->dev[i] < d[j]))
			m[k++] = p->dev[i++];
		else if (i == p->ndev || d[j] < p->dev[i])
			m[k++] = d[j++];
		else
			m[k++] = p->dev[i++], j++;
	}
	free(p->dev);
	p->dev = m;
	p->ndev = p->capdev = k;
}

/* The execution read is complete: the signature of each device's
 * sequence, one for all of them or 0, into its ProgramId's. */
static void
end_exec(struct spmd_scan *s)
{
	struct sprog *p;
	uint64_t sig = 0;
	size_t i = 0, d, cnt = 0;
	int same = 1;

	if (s->cpid == SIZE_MAX)
		return;
	p = &s->p[s->cpid];
	sort_total(s->c, s->nc, sizeof(*s->c), cmp_scoll, NULL);
	sort_total(s->edev, s->nedev, sizeof(*s->edev), cmp_i64, NULL);
	for (d = 0; d < s->nedev; d++) {
		uint64_t h = SPMD_SIG_EMPTY;
		size_t n = 0;

		for (; i < s->nc && s->c[i].dev == s->edev[d]; i++, n++)
			h = sig_u64(h, s->c[i].h);
		if (d == 0)
			sig = h, cnt = n;
		else if (h != sig || n != cnt)
			same = 0;
	}
	if (!same)
		sig = 0;
	if (!p->seen)
		p->sig = sig, p->ncoll = cnt;
	else if (p->sig != sig || p->ncoll != cnt)
		p->sig = 0;
	p->seen = 1;
	merge_devs(p, s->edev, s->nedev);
	s->cpid = SIZE_MAX;
	s->nc = s->nedev = 0;
	u64map_free(&s->devmap);
}

/* A new execution begins with PID's row of execution EXEC. */
static void
begin_exec(struct spmd_scan *s, size_t pid, int64_t exec)
{
	char key[48];
	int n = snprintf(key, sizeof(key), "%zu\t%" PRId64, pid, exec), added;

	end_exec(s);
	(void)strtab_intern(&s->done, key, (size_t)n, &added);
	if (!added)
		s->p[pid].apart = 1;
	s->cpid = pid;
	s->cexec = exec;
}

void
spmd_scan_row(struct spmd_scan *s, const struct spmd_row *r)
{
	size_t pid = row_prog(s, r->prog);
	struct scoll *c;

	if (pid == STRTAB_NONE || !is_cand(s, pid))
		return;
	if (pid != s->cpid || r->exec != s->cexec)
		begin_exec(s, pid, r->exec);
	if (u64map_get(&s->devmap, (uint64_t)r->dev) == U64MAP_NONE) {
		mem_grow(&s->edev, &s->capedev, s->nedev + 1, sizeof(*s->edev));
		u64map_add(&s->devmap, (uint64_t)r->dev, s->nedev);
		s->edev[s->nedev++] = r->dev;
	}
	if (!r->coll)
		return;
	mem_grow(&s->c, &s->capc, s->nc + 1, sizeof(*s->c));
	c = &s->c[s->nc];
	c->dev = r->dev;
	c->start = r->start_ns;
	c->h = spmd_sig_add(SPMD_SIG_EMPTY, r->name, strlen(r->name),
	    r->texec, r->csize);
	c->seq = s->nc++;
}

/* Say which ProgramIds were joined, and to which; and which candidates
 * could not be. */
static void
join_note(const struct spmd_scan *s, const size_t *idx, size_t n,
    const size_t *rep, struct err_notes *notes)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		char list[512] = "";
		size_t len = 0, m = 0;

		if (rep[i] != i)
			continue;
		for (j = 0; j < n; j++)
			if (rep[j] == i && j != i && len < sizeof(list) - 80) {
				len += (size_t)snprintf(list + len, sizeof(list) -
				    len, " %s", strtab_get(&s->pids, idx[j]));
				m++;
			}
		if (m > 0)
			err_note(notes, "module %s: ProgramId%s joined to %s "
			    "(the same %zu collectives per execution, in the same "
			    "order, on other devices: one SPMD step)",
			    strtab_get(&s->mods, s->p[idx[i]].module), list,
			    strtab_get(&s->pids, idx[i]), s->p[idx[i]].ncoll);
	}
	for (i = 0; i < n; i++)
		if (s->p[idx[i]].apart)
			err_note(notes, "ProgramId %s: the rows of an execution "
			    "are not together (sort the frame by ProgramId and "
			    "ProgramExecution): not joined to another ProgramId",
			    strtab_get(&s->pids, idx[i]));
}

size_t
spmd_scan_end(struct spmd_scan *s, struct err_notes *notes)
{
	size_t i, n = 0, groups, *idx, *rep;
	struct spmd_prog *q;

	end_exec(s);
	s->ended = 1;
	for (i = 0; i < s->pids.n; i++)
		s->p[i].rep = i;
	idx = mem_calloc(s->pids.n + 1, sizeof(*idx));
	for (i = 0; i < s->pids.n; i++)
		if (is_cand(s, i) && s->p[i].seen)
			idx[n++] = i;
	q = mem_calloc(n + 1, sizeof(*q));
	rep = mem_calloc(n + 1, sizeof(*rep));
	for (i = 0; i < n; i++) {
		const struct sprog *p = &s->p[idx[i]];

		q[i].module = p->module;
		q[i].sig = p->apart ? 0 : p->sig;
		q[i].ncoll = p->ncoll;
		q[i].dev = p->dev;
		q[i].ndev = p->ndev;
	}
	groups = spmd_join(q, n, rep);
	for (i = 0; i < n; i++)
		s->p[idx[i]].rep = idx[rep[i]];
	join_note(s, idx, n, rep, notes);
	free(idx);
	free(q);
	free(rep);
	return groups;
}

const char *
spmd_scan_rep(const struct spmd_scan *s, const char *prog)
{
	size_t id = find_prog(s, prog);

	if (!s->ended || id == STRTAB_NONE || s->p[id].rep == id)
		return prog;
	return strtab_get(&s->pids, s->p[id].rep);
}
