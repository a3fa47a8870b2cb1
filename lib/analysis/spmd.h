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
 * k of the others, and the n-th collective of a device's sequence in one
 * is the n-th in the others: the same instance.  Collectives are named
 * alike in such programs, so the sequence carries each collective's
 * ThunkExecution too, and an instance keeps its (Name, ThunkExecution)
 * across the ProgramIds joined: a joined instance's key is its key with
 * the ProgramId of the step's representative.
 *
 * spmd_scan_* is the one implementation of the rule for every tool
 * (nsysjax-critpath, nsysjax-collectives, nsysjax-timeline): a
 * streaming scanner fed the module names, then the thunk rows, that
 * yields the ProgramId -> representative mapping and the note saying
 * which were joined.
 */
#ifndef NSYSJAX_SPMD_H
#define NSYSJAX_SPMD_H

#include <stddef.h>
#include <stdint.h>

/* The signature of an empty sequence. */
#define SPMD_SIG_EMPTY	UINT64_C(14695981039346656037)

/* SIG extended by one collective: its Name NAME[0..LEN), ThunkExecution
 * TEXEC and CollectiveSize CSIZE (FNV-1a 64 over the three; a sequence's
 * signature is the collectives added in start order).  Never 0. */
uint64_t spmd_sig_add(uint64_t sig, const char *name, size_t len,
    int64_t texec, int64_t csize);

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

/* ---- the scanner ---- */

struct err_notes;
struct spmd_scan;

struct spmd_scan *spmd_scan_new(void);
void spmd_scan_free(struct spmd_scan *s);

/*
 * ProgramId PROG runs the module named MODULE (a module frame row's
 * ProgramId and Name; once per ProgramId is enough, repeats are free).
 * Every call comes before the first spmd_scan_row: a ProgramId is a
 * candidate for the join only when its module name is not empty and is
 * another ProgramId's too, and only the rows of candidates are kept.
 */
void spmd_scan_module(struct spmd_scan *s, const char *prog,
    const char *module);

/* Whether PROG is a candidate (see spmd_scan_module): only its rows can
 * be joined to another ProgramId's. */
int spmd_scan_candidate(const struct spmd_scan *s, const char *prog);

/* One thunk row.  COLL: a collective of the sequence (Communication 1
 * and CollectiveSize > 1); any other row still names a device of its
 * execution, whose sequence is then empty.  START_NS orders a device's
 * collectives (ties: the order fed). */
struct spmd_row {
	const char *prog;		/* ProgramId */
	int64_t exec;			/* ProgramExecution */
	int64_t dev;			/* Device */
	const char *name;		/* Name */
	int64_t texec;			/* ThunkExecution */
	int coll;
	int64_t csize;			/* CollectiveSize */
	int64_t start_ns;		/* ProjStartMs, in ns */
};

/*
 * Feed one row.  The rows of one execution (ProgramId, ProgramExecution)
 * must come together, as the frames have them; a candidate whose
 * execution comes back after another's is never joined (a note at
 * spmd_scan_end says so).  Memory: per ProgramId its devices, per
 * execution read its collectives (one step's), and a key per execution
 * seen; never the rows.
 */
void spmd_scan_row(struct spmd_scan *s, const struct spmd_row *r);

/*
 * After the last row: join the candidates (spmd_join, in the order they
 * were named) and note in NOTES, per group, "module M: ProgramId B
 * joined to A (...)".  Returns the number of groups of two or more.
 */
size_t spmd_scan_end(struct spmd_scan *s, struct err_notes *notes);

/* After spmd_scan_end: the ProgramId standing for PROG's step, PROG
 * itself (the same pointer) when it joins none. */
const char *spmd_scan_rep(const struct spmd_scan *s, const char *prog);

#endif
