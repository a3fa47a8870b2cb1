/*
 * capture: what a capture cannot show, read from its frames (the
 * directory nsysjax-extract -o writes, with its meta.tsv): a short list,
 * most serious first, each line a finding, its consequence and the exact
 * fix.  An empty list when the capture lacks nothing this checks.
 *
 * The checks, in rank order (the frames each reads), each a row of the
 * table of findings (capture.c):
 *  0. no NVTX: profiles with GPU work and no NVTX ranges (capture_facts:
 *     no frames show them);
 *  1. processes missing: a collective's CollectiveSize (thunk.tsv) is
 *     more than the devices the frames hold;
 *  2. mixed runs: profiles of different GPU models (meta.tsv GpuName),
 *     or no module that every device ran (module.tsv: the devices with
 *     an execution 0 of a ProgramId, added up over the ProgramIds the
 *     SPMD join makes one step) when several devices ran;
 *  3. no HLO dumps: modules whose ProgramId is extraction's placeholder
 *     "pN-missing-hlo" (all of them, or some);
 *  4. CUDA graphs traced per graph: command buffer rows (thunk.tsv
 *     CommandBuffer = Name) of buffers no inner row opened, with their
 *     share of all thunk time (ProjDurMs); of a module without dump (no
 *     thunk metadata, so the operations of a graph traced per node stay
 *     on the buffer's rows too) only when a profile's meta.tsv
 *     CudaGraphTrace is "graph" (its export holds whole-graph launches);
 *  5. no collectives to align clocks: several devices and no row with
 *     Communication 1 (with a dump, its collectives; without, the thunks
 *     named as XLA collectives);
 *  6. processes that compiled the step differently: ProgramIds of one
 *     module Name that the SPMD join (spmd.h, over thunk.tsv's
 *     collectives) makes one step and whose rows are on different
 *     processes (module.tsv Process); two programs of one name on one
 *     process (another shape, another jit) are not;
 *  7. command buffers only in warm-up: every execution of a module that
 *     holds command buffers is initialisation by the warm-up rule
 *     (warmup.h: ProgramExecution < [compiled in the profile] +
 *     [the run has communication]);
 *  8. a capture window that cuts steps: on a device, a module's first
 *     execution with fewer thunks (module.tsv NumThunks) than its
 *     second, or its last with fewer than the one before (not the
 *     module's most: a command buffer traced per graph runs its
 *     operations one by one in execution 0 only), of a module with 3
 *     executions or more.
 * thunk.tsv's Device, ThunkExecution and ProjStartMs are read when there
 * (the join's sequences); a frame made by hand without Device puts the
 * k-th row of one (Name, ThunkExecution) in an execution on the k-th of
 * its program's devices (module.tsv).
 * Memory is that of the distinct modules, buffers and devices (and one
 * execution's collectives), not of the rows.
 */
#ifndef NSYSJAX_CAPTURE_H
#define NSYSJAX_CAPTURE_H

#include <stdio.h>

/*
 * What the extraction knows that no frame holds: NO_NVTX of the PROFILES
 * profiles given (FIRST the name of the first) hold GPU operations but no
 * NVTX range, so they gave no rows (extract_without_nvtx).
 */
struct capture_facts {
	size_t no_nvtx, profiles;
	const char *first;
};

/*
 * Check the frames in directory DIR (thunk.tsv and module.tsv required;
 * communication.tsv, compile.tsv and meta.tsv read when there; DIR NULL:
 * none, FACTS alone) and FACTS (NULL: none) and write the list to OUT
 * (named OUTNAME in messages), one line per finding:
 * "N. FINDING: CONSEQUENCE. Fix: FIX".  *NFOUND is the number of lines.
 * Returns 0, or -1 with an err message naming the frame and line.
 */
int capture_check(const char *dir, const struct capture_facts *facts,
    FILE *out, const char *outname, size_t *nfound);

#endif
