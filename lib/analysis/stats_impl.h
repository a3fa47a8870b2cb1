/*
 * stats_impl.h: the state of nsysjax-stats, shared by stats.c (reading
 * the frames into it) and stats_write.c (writing its tables) alone; every
 * other file sees struct stats as the opaque pointer of stats.h.
 */
#ifndef ANALYSIS_STATS_IMPL_H
#define ANALYSIS_STATS_IMPL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "base/mem.h"
#include "base/strtab.h"

#define NONE UINT32_MAX

/* ---- khash: keys of three int64 -> dense index, in order of first sight
 *
 * Not base/u64map: a key per thunk execution makes this the largest
 * table of any tool, and its slots hold 4-byte indices, the keys kept
 * once in k; u64map keeps a 64-bit key and an index in every slot (16
 * bytes), which would quadruple the slots' memory at 1000-GPU scale. */

struct khash {
	int64_t *k;		/* 3 per entry */
	size_t n, cap;
	uint32_t *slot;		/* index + 1, 0 = empty */
	size_t nslot;		/* a power of two, or 0 */
};

static inline size_t
kh_probe(const struct khash *h, const int64_t *key)
{
	uint64_t x = (uint64_t)key[0] * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)key[1] * 0xc2b2ae3d27d4eb4fULL ^
	    (uint64_t)key[2] * 0x165667b19e3779f9ULL;
	size_t mask = h->nslot - 1, i;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	for (i = (size_t)x & mask; h->slot[i]; i = (i + 1) & mask)
		if (memcmp(h->k + 3 * (h->slot[i] - 1), key, 3 * sizeof(*key))
		    == 0)
			break;
	return i;
}

static inline void
kh_rehash(struct khash *h)
{
	size_t i;

	free(h->slot);
	h->nslot = h->nslot ? h->nslot * 2 : 64;
	h->slot = mem_calloc(h->nslot, sizeof(*h->slot));
	for (i = 0; i < h->n; i++)
		h->slot[kh_probe(h, h->k + 3 * i)] = (uint32_t)(i + 1);
}

/* The index of key (A, B, C), added if new (*ADDED then 1); NONE when
 * the table is full (2^32 - 1 keys). */
static inline uint32_t
kh_index(struct khash *h, int64_t a, int64_t b, int64_t c, int *added)
{
	int64_t key[3] = { a, b, c };
	size_t i;

	*added = 0;
	if ((h->n + 1) * 2 > h->nslot)
		kh_rehash(h);
	i = kh_probe(h, key);
	if (h->slot[i])
		return h->slot[i] - 1;
	if (h->n >= NONE - 1)
		return NONE;
	mem_grow(&h->k, &h->cap, 3 * (h->n + 1), sizeof(*h->k));
	memcpy(h->k + 3 * h->n, key, sizeof(key));
	h->slot[i] = (uint32_t)++h->n;
	*added = 1;
	return (uint32_t)(h->n - 1);
}

/* The index of key (A, B, C), or NONE when it is not there. */
static inline uint32_t
kh_find(const struct khash *h, int64_t a, int64_t b, int64_t c)
{
	int64_t key[3] = { a, b, c };
	size_t i;

	if (h->nslot == 0)
		return NONE;
	i = kh_probe(h, key);
	return h->slot[i] ? h->slot[i] - 1 : NONE;
}

static inline void
kh_free(struct khash *h)
{
	free(h->k);
	free(h->slot);
	memset(h, 0, sizeof(*h));
}

/* Grow the array *P of elements of SIZE bytes to hold index I, zeroing
 * what is new; *CAP is its capacity. */
static inline void
grow0(void *p, size_t *cap, size_t i, size_t size)
{
	size_t old = *cap;

	if (i < old)
		return;
	mem_grow(p, cap, i + 1, size);
	memset(*(char **)p + old * size, 0, (*cap - old) * size);
}

/* ---- the state ---- */

/* A list of ids (strtab or table indices), in order of addition. */
struct ids {
	uint32_t *v;
	size_t n, cap;
};

/* Per ProgramId of the module frame. */
struct prog {
	char *name;		/* first Name, raw */
	int64_t rows;		/* module rows */
	int64_t total;		/* ProjDurMs, ns */
	int64_t spread;		/* sum over executions of start max - min */
	double dsum, tsum;	/* ProjDurMs, NumThunks (ms, count) */
	double dq, tq;		/* squared deviations (second pass) */
	int rank;		/* 1.. for a top module, else 0 */
	int comm;		/* has communication rows */
	int64_t wn;		/* executions with a wait */
	double wsum, wq;	/* waits (ms) */
	uint32_t ndev;		/* devices of its module rows */
	uint32_t ofirst, olast;	/* offsets: its instances, index + 1 */
	/* facts */
	char *fname;		/* last Name, raw */
	struct ids procs;	/* its Process values (s->procnames) */
	struct ids compilers;	/* ProfileNames compiling it (s->profiles) */
	int64_t compute, commdur, hidden, wait, compile;	/* ns */
};

/* Per module execution (ProgramId, ProgramExecution). */
struct exec {
	int64_t first, last;	/* ProjStartMs, ns */
	double sst, sdur;	/* sums over devices, ms */
	int64_t n;		/* rows */
	int64_t wait;		/* ns, from the communication instances */
	int haswait;
};

/* Per device and module (ProgramId, Device). */
struct pdev {
	int64_t lo, hi;		/* first start, last end, ns */
	int64_t execs;
	double sb, db;		/* start and duration biases, summed */
	double tb;		/* thunk biases, summed */
	int64_t tn;
	double score;
	double slow;		/* late: its compute time less its peers' mean,
				   per instance, summed, ms */
	double caused;		/* late: its peers' mean wait for it at the
				   collectives it reached last, summed, ms */
	int module;		/* has module rows */
	uint32_t pos;		/* 1.. in the module's devices, as first seen */
};

/* Per instruction (ProgramId, Name). */
struct instr {
	uint32_t prog;		/* index in progs, or NONE */
	int64_t rows, sum;	/* rows, ProjDurMs ns (thunks table) */
	int64_t vn;		/* compute rows (variability, scatter) */
	double vs, vq, lo, hi;
	double vt;		/* the sum of squares (scatter) */
	char *sched;		/* SchedulingName, raw (NULL: no HLO facts) */
	int hascost, costcomm;
	int64_t cost;		/* ns */
};

/* A compute thunk instance of a top module (stragglers). */
struct inst {
	double ts, tend;	/* sums of starts and ends, ms */
	double sdur;		/* sum of durations, ms (late) */
	int64_t n;
};

/* A communication instance of a top module (late): its starts. */
struct cinst {
	double max, sum;	/* the latest ProjStartMs, the sum, ms */
	int64_t n;
	uint32_t pd;		/* pdevs of the latest, or NONE */
};

/* Per top module, device, Name and ThunkExecution (stragglers). */
struct point {
	uint32_t pd;		/* index in pdevs */
	double mxs, mxe;	/* largest |bias| of start and end */
};

/* A thunk instance of a top module on two devices or more, from all its
 * rows (offsets): its sums in row order and each device's start. */
struct oinst {
	uint32_t thunk;		/* index in othunks */
	uint32_t next;		/* the module's next instance, index + 1 */
	int64_t ex;		/* ProgramExecution */
	int64_t n;		/* rows */
	double ts;		/* sum of their ProjStartMs */
	size_t start;		/* ostarts[start + pos - 1]: device pos's */
};

/* A thunk (ProgramId, Name, ThunkExecution) of those modules. */
struct othunk {
	uint32_t instr;
	int comm;		/* Communication of its last row */
	size_t coll;		/* Collective of its last row, in colls */
	int64_t te;
};

/* A communication instance (modules and facts tables). */
struct winst {
	uint32_t exec;		/* index in execs */
	int64_t lo, hi;		/* ProjDurMs, ns */
	int64_t flo, fsum, fn;	/* facts: ProjDurMs + ProjDurHiddenMs, ns:
				   the shortest, the sum, the rows */
};

/* An XLA command buffer (cmdbufs). */
struct cmdbuf {
	int64_t execs;		/* its own rows */
	int64_t total, inner;	/* ProjDurMs: all its rows', inner rows', ns */
};

/* What the second pass over the thunk rows needs: one compute row. */
struct rec {
	uint32_t instr;		/* variability: the instruction, or NONE */
	uint32_t inst;		/* stragglers: the instance, or NONE */
	uint32_t point;
	uint32_t pad;
	double st, dur;		/* ProjStartMs, ProjDurMs */
};

struct err_notes;
struct spmd_scan;

struct stats {
	struct stats_opts o;
	int havemodules;

	/* The join of the ProgramIds of one SPMD step (stats_join), or
	 * NULL: the module frame's path for the biases' pass after the
	 * rows, and per prog the index of its step's representative. */
	struct spmd_scan *scan;
	struct err_notes *notes;
	char *modpath;
	uint32_t *rep;
	uint32_t *imap;		/* insts -> the joined instance */
	struct khash jexeckeys;	/* (rep prog, ProgramExecution) */
	struct exec *jexecs;
	size_t capjexecs;

	struct strtab progids;	/* ProgramId (raw) -> progs */
	struct prog *progs;
	size_t capprogs;
	uint32_t *top;		/* progs by rank */
	size_t ntop;
	int64_t all;		/* every module row's ProjDurMs, ns */

	struct khash execkeys;	/* (prog, ProgramExecution) */
	struct exec *execs;
	size_t capexecs;

	struct khash pdkeys;	/* (prog, Device) */
	struct pdev *pdevs;
	size_t cappdevs;

	struct strtab instrkeys;	/* "ProgramId\tName" (raw) */
	struct instr *instrs;
	size_t capinstrs;

	struct khash instkeys;	/* (instr, ProgramExecution, ThunkExecution) */
	struct inst *insts;
	size_t capinsts;

	struct khash cinstkeys;	/* (instr, ProgramExecution, ThunkExecution) */
	struct cinst *cinsts;
	size_t capcinsts;

	struct khash pointkeys;	/* (instr, Device, ThunkExecution) */
	struct point *points;
	size_t cappoints;

	struct khash winstkeys;	/* (instr, ProgramExecution, ThunkExecution) */
	struct winst *winsts;
	size_t capwinsts;

	struct khash oinstkeys;	/* (instr, ProgramExecution, ThunkExecution) */
	struct oinst *oinsts;
	size_t capoinsts;
	struct khash othunkkeys;	/* (instr, ThunkExecution, 0) */
	struct othunk *othunks;
	size_t capothunks;
	double *ostarts;	/* per instance, a start per device */
	size_t nostarts, capostarts;
	struct strtab colls;	/* Collective values (raw) */

	struct strtab cbkeys;	/* "ProgramId\tCommandBuffer" (raw) */
	struct cmdbuf *cbs;
	size_t capcbs;
	int64_t cball;		/* every row's ProjDurMs, ns */

	struct strtab procnames;	/* Process values of the module frame */
	struct khash prockeys;		/* (prog, process): seen */
	struct strtab profiles;		/* compile ProfileNames, first seen */
	struct khash compkeys;		/* (prog, profile): seen */
	struct strtab xids;		/* XLA program_ids (digits), first seen */
	struct ids *xmods;		/* per xid: its ProgramNames (xnames) */
	size_t capxmods;
	struct strtab xnames;		/* ProgramNames of the compile frame */
	struct khash xpairs;		/* (xid, ProgramName): seen */

	int64_t thunks;		/* top modules' thunks' ProjDurMs, ns */
	int64_t sumabs;		/* of |times| added: bounds every sum */

	FILE *spool;
	int64_t nrec;

	char *buf;		/* scratch */
	size_t capbuf;
};

#endif
