/*
 * spmd: which module executions of different ProgramIds are one SPMD
 * step across devices.  Processes of one run may compile the same jitted
 * step differently (another autotuning of a fusion's tiles changes the
 * HLO fingerprint, so the ProgramId), yet run it together: their devices
 * meet at the same collectives.  The rule, in one place for every
 * analysis that groups devices by step: ProgramIds are joined when their
 * modules have the same name, every execution runs the same sequence of
 * collectives (Name and CollectiveSize, in start order on each device)
 * and their devices are disjoint.  Execution k of one is then execution
 * k of the others.
 */
#ifndef NSYSJAX_SPMD_H
#define NSYSJAX_SPMD_H

#include <stddef.h>
#include <stdint.h>

/* The signature of an empty sequence. */
#define SPMD_SIG_EMPTY	UINT64_C(14695981039346656037)

/* SIG extended by one collective: its Name NAME[0..LEN) and its
 * CollectiveSize (FNV-1a 64 over both; a sequence's signature is the
 * collectives added in start order). */
uint64_t spmd_sig_add(uint64_t sig, const char *name, size_t len,
    int64_t csize);

/* One ProgramId to join. */
struct spmd_prog {
	size_t module;		/* its module name (the caller's id) */
	uint64_t sig;		/* its collectives' signature; 0: the
				 * executions or devices differ: never
				 * joined */
	size_t ncoll;		/* collectives per execution; 0: not joined
				 * (nothing shows it is one step) */
	const int64_t *dev;	/* its devices, sorted, NDEV of them */
	size_t ndev;
};

/*
 * Join P[0..N): REP[i] = the index of the ProgramId that stands for
 * P[i]'s step, the one of its group with the most devices (ties: the
 * lowest index); REP[i] = i when P[i] joins none.  Returns the number of
 * groups of two or more.  O(N^2 x devices) in the worst case: N is the
 * number of ProgramIds sharing a module name, a handful.
 */
size_t spmd_join(const struct spmd_prog *p, size_t n, size_t *rep);

#endif
